//! The HTTP routes (axum): JSON answers, errors as `{"error": "..."}` with their status.

use std::collections::{HashMap, VecDeque};
use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::{ConnectInfo, DefaultBodyLimit, Path, Query, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::Extension;
use axum::Router;

use crate::stream::{read_verdicts, read_verdicts_from, Format, Post, Refusal};
use crate::Registry;

type Shared = State<Arc<Registry>>;

pub(crate) fn router(registry: Arc<Registry>, max_body: usize) -> Router {
    Router::new()
        .route(
            "/v1/health",
            get(|| async { json(StatusCode::OK, "{\"ok\":true}".into()) }),
        )
        .route("/v1/streams/{name}", get(status))
        .route("/v1/streams/{name}/events", post(events))
        .route("/v1/streams/{name}/close", post(close))
        .route("/v1/streams/{name}/verdicts", get(verdicts))
        .route("/v1/streams/{name}/verdicts/stream", get(live))
        .route("/metrics", get(metrics))
        .layer(DefaultBodyLimit::max(max_body))
        .layer(axum::middleware::from_fn_with_state(
            registry.clone(),
            guard,
        ))
        .with_state(registry)
}

/// Who sent a request (`--token-file`), once the guard let it through; `None` without a
/// token file.
#[derive(Clone)]
struct Client(Option<String>);

/// The request a path is, among the policy's commands (`None`: health, which needs nothing).
fn command_of(path: &str) -> Option<&'static str> {
    if path == "/v1/health" {
        return None;
    }
    if path == "/metrics" {
        return Some("metrics");
    }
    let rest = path.strip_prefix("/v1/streams/").unwrap_or("");
    Some(match rest.split_once('/').map(|(_, r)| r) {
        None => "status",
        Some("events") => "events",
        Some("close") => "close",
        // (Unknown paths: asked as the least of the commands, then not found.)
        _ => "verdicts",
    })
}

/// Lets a request through if the policy (`--token-file`) allows its client to make it:
/// 401 when who is asking is unknown, 403 when not allowed.
async fn guard(
    State(r): Shared,
    mut request: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    let Some(policy) = &r.policy else {
        request.extensions_mut().insert(Client(None));
        return next.run(request).await;
    };
    let Some(command) = command_of(request.uri().path()) else {
        return next.run(request).await;
    };
    let loopback = request
        .extensions()
        .get::<ConnectInfo<SocketAddr>>()
        .is_some_and(|c| c.0.ip().is_loopback());
    let bearer = request
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .map(|v| v.strip_prefix("Bearer ").unwrap_or("").trim());
    let client = policy
        .identify(bearer, loopback)
        .and_then(|c| policy.may(&c, command).map(|()| c));
    match client {
        Ok(c) => {
            request.extensions_mut().insert(Client(Some(c)));
            next.run(request).await
        }
        Err(denied) => {
            let mut response = error(denied.status, &denied.message);
            if denied.status == 401 {
                let challenge = header::HeaderValue::from_static("Bearer");
                response
                    .headers_mut()
                    .insert(header::WWW_AUTHENTICATE, challenge);
            }
            response
        }
    }
}

fn json(status: StatusCode, body: String) -> Response {
    (status, [(header::CONTENT_TYPE, "application/json")], body).into_response()
}

fn error(status: u16, message: &str) -> Response {
    let status = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let body = format!("{{\"error\":{}}}\n", serde_json::Value::from(message));
    json(status, body)
}

fn refused(r: &Refusal) -> Response {
    let mut response = match &r.verdict {
        // (An enforcement refusal carries the verdict it is for.)
        Some(v) => {
            let status = StatusCode::from_u16(r.status).unwrap_or(StatusCode::CONFLICT);
            let message = serde_json::Value::from(r.message.as_str());
            json(status, format!("{{\"error\":{message},\"verdict\":{v}}}\n"))
        }
        None => error(r.status, &r.message),
    };
    if r.status == 503 {
        // (Full: the client should come back, not give up.)
        let headers = response.headers_mut();
        headers.insert(header::RETRY_AFTER, header::HeaderValue::from_static("1"));
    }
    response
}

fn bad_name(name: &str) -> Option<Response> {
    (!Registry::valid_name(name)).then(|| {
        error(
            400,
            &format!("`{name}`: a stream's name is 1 to 64 letters, digits, `_`, `-` or `.`"),
        )
    })
}

async fn status(State(r): Shared, Path(name): Path<String>) -> Response {
    if let Some(bad) = bad_name(&name) {
        return bad;
    }
    match r.on_stream(&name, false, |s| s.status()).await {
        Ok(s) => json(StatusCode::OK, s.json()),
        Err(e) => refused(&e),
    }
}

/// `POST /v1/streams/{name}/events[?from=K][&source=S]`: a batch of MonPoly log lines or
/// JSON Lines.
async fn events(
    State(r): Shared,
    Path(name): Path<String>,
    Query(query): Query<HashMap<String, String>>,
    Extension(client): Extension<Client>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    if let Some(bad) = bad_name(&name) {
        return bad;
    }
    let kind = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("text/plain");
    let format = if kind.starts_with("text/plain") {
        Format::Monpoly
    } else if [
        "application/x-ndjson",
        "application/jsonl",
        "application/json-lines",
    ]
    .iter()
    .any(|t| kind.starts_with(t))
    {
        Format::Jsonl
    } else {
        return error(
            415,
            &format!(
                "content type `{kind}`: expected MonPoly log lines (text/plain) or JSON Lines \
                 (application/x-ndjson)"
            ),
        );
    };
    let from = match query.get("from").map(|f| f.parse::<u64>()) {
        None => None,
        Some(Ok(k)) => Some(k),
        Some(Err(_)) => return error(400, "from: expected a time point number (0, 1, …)"),
    };
    let source = query.get("source").cloned();
    if let Some(bad) = source.as_deref().and_then(bad_name) {
        return bad;
    }
    let policy = r.policy.clone();
    let answer = r
        .on_stream(&name, true, move |s| {
            let client = policy.as_deref().zip(client.0.as_deref());
            let post = Post {
                source: source.as_deref(),
                client,
                ..Post::new(format, &body).from(from)
            };
            s.append(post)
        })
        .await
        .and_then(|inner| inner);
    match answer {
        Ok(accepted) => {
            r.batches.fetch_add(1, Ordering::Relaxed);
            json(StatusCode::OK, accepted.json())
        }
        Err(e) => {
            r.refused.fetch_add(1, Ordering::Relaxed);
            refused(&e)
        }
    }
}

async fn close(State(r): Shared, Path(name): Path<String>) -> Response {
    if let Some(bad) = bad_name(&name) {
        return bad;
    }
    let answer = r
        .on_stream(&name, false, |s| s.close().map(|()| s.status()))
        .await;
    match answer {
        Ok(Ok(s)) => json(StatusCode::OK, s.json()),
        Ok(Err(e)) => error(500, &e.to_string()),
        Err(e) => refused(&e),
    }
}

/// `GET /v1/streams/{name}/verdicts[?after=SEQ]`: JSON Lines.
async fn verdicts(
    State(r): Shared,
    Path(name): Path<String>,
    Query(query): Query<HashMap<String, String>>,
) -> Response {
    if let Some(bad) = bad_name(&name) {
        return bad;
    }
    if !r.exists(&name) {
        return error(404, &format!("no stream `{name}`"));
    }
    let after = match query.get("after").map(|a| a.parse::<u64>()) {
        None => 0,
        Some(Ok(a)) => a,
        Some(Err(_)) => return error(400, "after: expected a verdict number (its `seq`)"),
    };
    let path = r.stream_dir(&name).join("verdicts.jsonl");
    match tokio::task::spawn_blocking(move || read_verdicts(&path, after)).await {
        Ok(Ok(lines)) => (
            StatusCode::OK,
            [(header::CONTENT_TYPE, "application/x-ndjson")],
            lines,
        )
            .into_response(),
        Ok(Err(e)) => error(500, &e.to_string()),
        Err(e) => error(500, &e.to_string()),
    }
}

/// `GET /metrics`: Prometheus' text format. The service's counters, and per stream (label
/// `stream`): time points accepted and monitored, the lag between them (time points
/// waiting for the watermark), verdicts, requests queued, and the age of the last snapshot.
async fn metrics(State(r): Shared) -> Response {
    let mut handles: Vec<(String, Arc<crate::stream::Gauges>)> = r
        .streams
        .lock()
        .expect("no panic holds it")
        .iter()
        .map(|(name, h)| (name.clone(), h.gauges.clone()))
        .collect();
    handles.sort_by(|a, b| a.0.cmp(&b.0));
    let mut text = String::new();
    let mut family = |name: &str, kind: &str, help: &str, rows: &[(String, u64)]| {
        text.push_str(&format!("# HELP {name} {help}\n# TYPE {name} {kind}\n"));
        for (labels, v) in rows {
            text.push_str(&format!("{name}{labels} {v}\n"));
        }
    };
    let one = |v: u64| vec![(String::new(), v)];
    family(
        "rvmon_streams",
        "gauge",
        "Streams open.",
        &one(handles.len() as u64),
    );
    let batches = r.batches.load(Ordering::Relaxed);
    family(
        "rvmon_batches_total",
        "counter",
        "Batches accepted.",
        &one(batches),
    );
    let refused = r.refused.load(Ordering::Relaxed);
    family(
        "rvmon_refused_total",
        "counter",
        "Requests refused.",
        &one(refused),
    );
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let per = |f: &dyn Fn(&crate::stream::Gauges) -> u64| -> Vec<(String, u64)> {
        handles
            .iter()
            .map(|(name, g)| (format!("{{stream=\"{name}\"}}"), f(g)))
            .collect()
    };
    let get = |a: &AtomicU64| a.load(Ordering::Relaxed);
    family(
        "rvmon_stream_events_total",
        "counter",
        "Time points accepted.",
        &per(&|g| get(&g.offset)),
    );
    family(
        "rvmon_stream_monitored_total",
        "counter",
        "Time points monitored.",
        &per(&|g| get(&g.monitored)),
    );
    family(
        "rvmon_stream_lag",
        "gauge",
        "Time points accepted and waiting for the watermark (--max-lateness).",
        &per(&|g| get(&g.offset).saturating_sub(get(&g.monitored))),
    );
    family(
        "rvmon_stream_verdicts_total",
        "counter",
        "Verdicts written.",
        &per(&|g| get(&g.verdicts)),
    );
    family(
        "rvmon_stream_queue_depth",
        "gauge",
        "Requests waiting for the stream.",
        &per(&|g| get(&g.queued)),
    );
    family(
        "rvmon_stream_snapshot_age_seconds",
        "gauge",
        "Seconds since the stream's last snapshot (absent: none since the service started).",
        &handles
            .iter()
            .filter(|(_, g)| get(&g.snapshot_at) > 0)
            .map(|(name, g)| {
                let age = now.saturating_sub(get(&g.snapshot_at));
                (format!("{{stream=\"{name}\"}}"), age)
            })
            .collect::<Vec<_>>(),
    );
    (
        StatusCode::OK,
        [(header::CONTENT_TYPE, "text/plain; version=0.0.4")],
        text,
    )
        .into_response()
}

/// `GET /v1/streams/{name}/verdicts/stream[?after=SEQ]`: server-sent events, live. Each
/// verdict is an event whose `id` is its `seq` (so a client that reconnects with
/// `Last-Event-ID` misses none) and whose data is its JSON line; it ends when the stream
/// is closed and every verdict is sent.
async fn live(
    State(r): Shared,
    Path(name): Path<String>,
    Query(query): Query<HashMap<String, String>>,
    headers: HeaderMap,
) -> Response {
    if let Some(bad) = bad_name(&name) {
        return bad;
    }
    let resume = headers
        .get("last-event-id")
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);
    let after = match query
        .get("after")
        .cloned()
        .or(resume)
        .map(|a| a.parse::<u64>())
    {
        None => 0,
        Some(Ok(a)) => a,
        Some(Err(_)) => return error(400, "after: expected a verdict number (its `seq`)"),
    };
    let handle = match r.handle(&name, false) {
        Ok(h) => h,
        Err(e) => return refused(&e),
    };
    let path = r.stream_dir(&name).join("verdicts.jsonl");
    // (`at`: where the last verdict sent ends in the file, once known: each wake-up reads only
    // what was added since.)
    let state = (VecDeque::new(), after, None::<u64>, handle.verdicts, path);
    let events = futures_util::stream::unfold(
        state,
        |(mut queue, mut after, mut at, mut rx, path)| async move {
            loop {
                if let Some((seq, line)) = queue.pop_front() {
                    let event = Event::default().id(format!("{seq}")).data(line);
                    return Some((Ok::<_, Infallible>(event), (queue, after, at, rx, path)));
                }
                let (newest, closed) = *rx.borrow_and_update();
                if newest > after {
                    let p = path.clone();
                    let (from, place) = (after, at);
                    let (lines, end) =
                        tokio::task::spawn_blocking(move || read_verdicts_from(&p, from, place))
                            .await
                            .ok()?
                            .ok()?;
                    at = Some(end);
                    for line in String::from_utf8_lossy(&lines).lines() {
                        after += 1;
                        queue.push_back((after, line.to_string()));
                    }
                    if !queue.is_empty() {
                        continue;
                    }
                }
                if closed && newest <= after {
                    return None;
                }
                // (The stream's thread gone: the service is stopping.)
                rx.changed().await.ok()?;
            }
        },
    );
    Sse::new(events)
        .keep_alive(KeepAlive::default())
        .into_response()
}
