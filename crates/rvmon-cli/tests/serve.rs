//! `rvmon serve`, the online service, as its users see it over loopback HTTP.
//!
//! * Durability: for a propositional formula, a first-order formula, parametric properties
//!   (MonPoly log lines) and a stream specification (JSON Lines), the server is killed with SIGKILL twice mid-stream (once while a POST is in
//!   flight, once between two), restarted from its state directory each time, and the client
//!   resends from the server's offset. The verdicts served are exactly those of offline
//!   `rvmon check` on the same log: none lost, none twice, numbered 1, 2, 3, …
//! * A garbled batch is refused (400, with the line and column) and changes nothing; a batch
//!   that would leave a gap or go back in time is refused (409); an unknown stream is 404.
//! * A non-loopback `--listen` is refused (status 2).
//!
//! Every request has a timeout; the servers listen on port 0 of 127.0.0.1.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStderr, Command, Stdio};

use rvmon_testkit::http::{json_u64, request_as, send_as};

const RVMON: &str = env!("CARGO_BIN_EXE_rvmon");

fn example(path: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples")
        .join(path)
        .to_string_lossy()
        .into_owned()
}

fn fresh_dir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("rvmon-serve-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    d
}

struct Server {
    child: Child,
    addr: String,
    _stderr: BufReader<ChildStderr>,
}

impl Server {
    fn start(spec: &str, sig: Option<&str>, state: &Path) -> Server {
        let mut cmd = Command::new(RVMON);
        // (Snapshots every 20 time points: the crashes fall between and around them.)
        cmd.args([
            "serve",
            spec,
            "--listen",
            "127.0.0.1:0",
            "--snapshot-every",
            "20",
        ])
        .arg("--state-dir")
        .arg(state)
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
        if let Some(s) = sig {
            cmd.args(["--sig", s]);
        }
        let mut child = cmd.spawn().expect("rvmon serve starts");
        let mut stderr = BufReader::new(child.stderr.take().unwrap());
        let mut line = String::new();
        stderr.read_line(&mut line).unwrap();
        let addr = line
            .split("http://")
            .nth(1)
            .and_then(|rest| rest.split_whitespace().next())
            .unwrap_or_else(|| panic!("no address in {line:?}"))
            .to_string();
        Server {
            child,
            addr,
            _stderr: stderr,
        }
    }

    fn kill(mut self) {
        self.child.kill().unwrap(); // SIGKILL
        self.child.wait().unwrap();
    }

    fn offset(&self, stream: &str) -> u64 {
        let r = request(&self.addr, "GET", &format!("/v1/streams/{stream}"), b"").unwrap();
        assert_eq!(r.status, 200, "{}", r.body);
        json_u64(&r.body, "offset").unwrap()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A fixed-seed random log: `n` time points, each with events `make(rng)` gives.
fn log(n: usize, seed: u64, make: impl Fn(&mut u64) -> String) -> Vec<String> {
    let mut rng = seed;
    let mut ts = 0;
    (0..n)
        .map(|_| {
            ts += next(&mut rng) % 3;
            format!("@{ts} {}\n", make(&mut rng))
        })
        .collect()
}

fn next(rng: &mut u64) -> u64 {
    *rng = rng
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    *rng >> 33
}

fn content_type(points: &[String]) -> &'static str {
    if points.first().is_some_and(|p| p.starts_with('{')) {
        "application/x-ndjson"
    } else {
        "text/plain"
    }
}

fn request(
    addr: &str,
    method: &str,
    path: &str,
    body: &[u8],
) -> std::io::Result<rvmon_testkit::http::Response> {
    request_as(addr, method, path, "text/plain", body)
}

/// Offline `rvmon check --output jsonl` on the whole log.
fn offline(spec: &str, sig: Option<&str>, points: &[String], dir: &Path) -> Vec<String> {
    let json = points.first().is_some_and(|p| p.starts_with('{'));
    let path = dir.join(if json { "whole.jsonl" } else { "whole.log" });
    std::fs::write(&path, points.concat()).unwrap();
    let mut cmd = Command::new(RVMON);
    cmd.args(["check", spec])
        .arg(&path)
        .args(["--output", "jsonl"]);
    if let Some(s) = sig {
        cmd.args(["--sig", s]);
    }
    let out = cmd.output().unwrap();
    assert!(out.status.code().is_some_and(|c| c <= 1), "{out:?}");
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

/// Streams `points` in batches, killing the server twice on the way; returns the verdicts
/// served, without their `seq` (checked to be 1, 2, 3, …).
fn through_crashes(spec: &str, sig: Option<&str>, points: &[String], state: &Path) -> Vec<String> {
    const BATCH: usize = 7;
    let n = points.len();
    let mut server = Server::start(spec, sig, state);
    let (mut killed_in_post, mut killed_between) = (false, false);
    let mut at = 0;
    while at < n {
        let body = points[at..(at + BATCH).min(n)].concat();
        let kind = content_type(points);
        let path = format!("/v1/streams/s/events?from={at}");
        if at >= n / 3 && !killed_in_post {
            // The request written, the answer not awaited: the batch may or may not be in.
            let _in_flight = send_as(&server.addr, "POST", &path, kind, body.as_bytes()).unwrap();
            server.kill();
            server = Server::start(spec, sig, state);
            killed_in_post = true;
            at = server.offset("s") as usize;
            continue;
        }
        if at >= 2 * n / 3 && !killed_between {
            server.kill();
            server = Server::start(spec, sig, state);
            killed_between = true;
            at = server.offset("s") as usize;
            continue;
        }
        let r = request_as(&server.addr, "POST", &path, kind, body.as_bytes()).unwrap();
        assert_eq!(r.status, 200, "{}", r.body);
        at = json_u64(&r.body, "offset").unwrap() as usize;
    }
    let r = request(&server.addr, "POST", "/v1/streams/s/close", b"").unwrap();
    assert_eq!(r.status, 200, "{}", r.body);
    let r = request(&server.addr, "GET", "/v1/streams/s/verdicts", b"").unwrap();
    assert_eq!(r.status, 200);
    r.body
        .lines()
        .enumerate()
        .map(|(k, line)| {
            let prefix = format!("{{\"seq\":{},", k + 1);
            let rest = line
                .strip_prefix(&prefix)
                .unwrap_or_else(|| panic!("{line}: seq {}", k + 1));
            format!("{{{rest}")
        })
        .collect()
}

fn case(name: &str, spec: &str, sig: Option<&str>, points: Vec<String>) {
    let dir = fresh_dir(name);
    let want = offline(spec, sig, &points, &dir);
    assert!(
        want.len() >= 5,
        "{name}: the log should make verdicts ({})",
        want.len()
    );
    let got = through_crashes(spec, sig, &points, &dir.join("state"));
    assert_eq!(
        got, want,
        "{name}: the verdicts served, against offline check"
    );
    println!(
        "serve {name}: {} verdicts through two kill -9, the same as offline",
        got.len()
    );
}

#[test]
fn propositional_verdicts_survive_kill_9() {
    let points = log(150, 1, |r| {
        ["request()", "grant()", "heartbeat()", "request() grant()"][(next(r) % 4) as usize]
            .to_string()
    });
    case(
        "propositional",
        &example("requests/policy.mtl"),
        None,
        points,
    );
}

#[test]
fn first_order_verdicts_survive_kill_9() {
    let sig = example("paper04/paper04.sig");
    let points = log(150, 2, |r| {
        format!(
            "auth({}, {}) alive({})",
            next(r) % 5,
            600 + next(r) % 800,
            next(r) % 5
        )
    });
    case(
        "first-order",
        &example("paper04/p1.mfotl"),
        Some(&sig),
        points,
    );
}

#[test]
fn parametric_verdicts_survive_kill_9() {
    let points = log(150, 3, |r| {
        let n = next(r) % 6;
        if next(r).is_multiple_of(3) {
            format!("ack({n})")
        } else {
            format!("send({n})")
        }
    });
    case("parametric", &example("rvm/acks.rvm"), None, points);
}

#[test]
fn stream_specification_verdicts_survive_kill_9() {
    let points: Vec<String> = {
        let mut rng = 4u64;
        let mut t = 0u64;
        (0..150)
            .map(|_| {
                t += 1 + next(&mut rng) % 3;
                let time = t as f64 / 2.0;
                match next(&mut rng) % 4 {
                    0 | 1 => format!(
                        "{{\"time\":{time},\"temp\":{}}}\n",
                        20 + next(&mut rng) % 90
                    ),
                    2 => format!(
                        "{{\"time\":{time},\"pressure\":{}.5}}\n",
                        next(&mut rng) % 4
                    ),
                    _ => {
                        let mode = ["idle", "cruise"][(next(&mut rng) % 2) as usize];
                        format!("{{\"time\":{time},\"mode\":\"{mode}\"}}\n")
                    }
                }
            })
            .collect()
    };
    case("stream", &example("lola/engine.lola"), None, points);
}

#[test]
fn garbled_batches_and_gaps_are_refused_and_change_nothing() {
    let dir = fresh_dir("refusals");
    let server = Server::start(&example("requests/policy.mtl"), None, &dir);
    let post =
        |path: &str, body: &str| request(&server.addr, "POST", path, body.as_bytes()).unwrap();
    assert_eq!(
        post("/v1/streams/a/events", "@0 request()\n@9 heartbeat()\n").status,
        200
    );
    let before = request(&server.addr, "GET", "/v1/streams/a/verdicts", b"")
        .unwrap()
        .body;
    let r = post("/v1/streams/a/events", "@10 grant()\n@11 request(\n");
    assert_eq!(r.status, 400, "{}", r.body);
    assert!(r.body.contains("<batch>:2:"), "{}", r.body);
    let r = post("/v1/streams/a/events?from=5", "@12 grant()\n");
    assert_eq!(r.status, 409, "{}", r.body);
    let r = post("/v1/streams/a/events", "@3 grant()\n");
    assert_eq!(r.status, 409, "{}", r.body);
    assert_eq!(post("/v1/streams/a%2f/events", "@12 grant()\n").status, 400);
    assert_eq!(server.offset("a"), 2);
    let after = request(&server.addr, "GET", "/v1/streams/a/verdicts", b"")
        .unwrap()
        .body;
    assert_eq!(after, before);
    assert_eq!(
        request(&server.addr, "GET", "/v1/streams/nothing", b"")
            .unwrap()
            .status,
        404
    );
    assert_eq!(
        request(&server.addr, "GET", "/v1/health", b"")
            .unwrap()
            .status,
        200
    );
}

/// Server-sent events: a reader connected before the batches gets every verdict as it is
/// made, numbered (`id`), the same as `GET …/verdicts`, and the events end with the stream.
#[test]
fn live_verdicts_come_as_server_sent_events() {
    use std::io::Read;
    let dir = fresh_dir("sse");
    let server = Server::start(&example("requests/policy.mtl"), None, &dir);
    let post =
        |path: &str, body: &str| request(&server.addr, "POST", path, body.as_bytes()).unwrap();
    assert_eq!(post("/v1/streams/s/events", "@0 heartbeat()\n").status, 200);
    let mut live = send_as(
        &server.addr,
        "GET",
        "/v1/streams/s/verdicts/stream",
        "text/plain",
        b"",
    )
    .unwrap();
    let points = log(120, 5, |r| {
        ["request()", "grant()", "heartbeat()"][(next(r) % 3) as usize].to_string()
    });
    for chunk in points.chunks(10) {
        let body: String = chunk.iter().map(|p| p.replace("@", "@1")).collect();
        assert_eq!(post("/v1/streams/s/events", &body).status, 200);
    }
    assert_eq!(post("/v1/streams/s/close", "").status, 200);
    let mut text = String::new();
    live.read_to_string(&mut text).unwrap();
    assert!(text.starts_with("HTTP/1.1 200"), "{text}");
    let ids: Vec<String> = text
        .lines()
        .filter_map(|l| l.strip_prefix("id: "))
        .map(str::to_string)
        .collect();
    let data: Vec<&str> = text
        .lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .collect();
    let served = request(&server.addr, "GET", "/v1/streams/s/verdicts", b"")
        .unwrap()
        .body;
    let served: Vec<&str> = served.lines().collect();
    assert!(served.len() >= 5, "{served:?}");
    assert_eq!(data, served);
    let want: Vec<String> = (1..=served.len()).map(|k| k.to_string()).collect();
    assert_eq!(ids, want);
}

#[test]
fn only_loopback_is_served() {
    let dir = fresh_dir("loopback");
    let out = Command::new(RVMON)
        .args([
            "serve",
            &example("requests/policy.mtl"),
            "--listen",
            "0.0.0.0:0",
            "--state-dir",
        ])
        .arg(&dir)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("loopback"));
}
