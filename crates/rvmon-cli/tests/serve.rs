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

use rvmon_testkit::http::{json_u64, request_as, request_with, send_as};

const RVMON: &str = env!("CARGO_BIN_EXE_rvmon");

fn example(path: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples")
        .join(path)
        .to_string_lossy()
        .into_owned()
}

fn fresh_dir(name: &str) -> PathBuf {
    let d = rvmon_testkit::scratch(env!("CARGO_TARGET_TMPDIR"), "serve").join(name);
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
        Server::start_with(spec, sig, state, &[])
    }

    /// A server with more options (`--enforce`, `--token-file F`, …).
    fn start_with(spec: &str, sig: Option<&str>, state: &Path, more: &[&str]) -> Server {
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
        cmd.args(more);
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

/// `rvmon serve` with its options, expected to refuse them: its message.
fn refused_options(spec: &str, more: &[&str]) -> String {
    let dir = fresh_dir("options");
    let out = Command::new(RVMON)
        .args(["serve", spec, "--listen", "127.0.0.1:0", "--state-dir"])
        .arg(&dir)
        .args(more)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{more:?}: {out:?}");
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn options_the_specification_cannot_honour_are_refused() {
    let future = example("requests/policy.mtl");
    assert!(refused_options(&future, &["--enforce"]).contains("decides some verdicts only after"));
    let rvm = example("rvm/acks.rvm");
    assert!(refused_options(&rvm, &["--enforce"]).contains("put the monitor back"));
    let dir = fresh_dir("past");
    let past = dir.join("past.mtl");
    std::fs::write(&past, "grant() IMPLIES ONCE[0,5] request()").unwrap();
    let past = past.to_string_lossy();
    let both = refused_options(&past, &["--enforce", "--max-lateness", "3"]);
    assert!(both.contains("exclude each other"), "{both}");
    assert!(refused_options(&past, &["--max-lateness", "0.5"]).contains("a whole number"));
    assert!(refused_options(&past, &["--drop", "grant"]).contains("--enforce"));
    let tokens = dir.join("tokens.ini");
    std::fs::write(&tokens, "[Tokens]\nocu = short\n").unwrap();
    let bad = refused_options(&past, &["--token-file", &tokens.to_string_lossy()]);
    assert!(bad.contains("tokens.ini:2:7: the token of `ocu`"), "{bad}");
}

/// Paper 20's Safe Trigger as a past-time formula: the paintball gun fires only if, since
/// the turret last reported its tilt, the tilt was safe (above -0.45).
const SAFE_TRIGGER: &str = "trigger() IMPLIES (NOT (EXISTS p. tilt(p) AND p <= -0.45) SINCE \
                            (EXISTS p. tilt(p) AND p > -0.45))";

fn safe_trigger(dir: &Path) -> (String, String) {
    let spec = dir.join("safe_trigger.mfotl");
    let sig = dir.join("robot.sig");
    std::fs::write(&spec, SAFE_TRIGGER).unwrap();
    std::fs::write(&sig, "trigger()\ntilt(float)\nmove(float)\n").unwrap();
    let s = |p: PathBuf| p.to_string_lossy().into_owned();
    (s(spec), s(sig))
}

#[test]
fn enforcement_stops_an_unsafe_trigger_before_it_enters_the_stream() {
    let dir = fresh_dir("enforce");
    let (spec, sig) = safe_trigger(&dir);
    let server = Server::start_with(&spec, Some(&sig), &dir.join("state"), &["--enforce"]);
    let post = |body: &str| {
        request(
            &server.addr,
            "POST",
            "/v1/streams/robot/events",
            body.as_bytes(),
        )
    };
    assert_eq!(post("@1 tilt(-0.1)\n@2 trigger()\n").unwrap().status, 200);
    let r = post("@3 tilt(-0.6) move(1.5)\n@4 trigger()\n").unwrap();
    assert_eq!(r.status, 409, "{}", r.body);
    assert!(
        r.body
            .contains("\"verdict\":{\"tp\":3,\"ts\":4,\"verdict\":\"violation\""),
        "{}",
        r.body
    );
    assert_eq!(server.offset("robot"), 2, "the refused batch is not in");
    // Without the trigger, the batch is taken; the gun is unsafe until the tilt is back.
    assert_eq!(post("@3 tilt(-0.6) move(1.5)\n").unwrap().status, 200);
    assert_eq!(post("@5 trigger()\n").unwrap().status, 409);
    assert_eq!(post("@6 tilt(0.2)\n@7 trigger()\n").unwrap().status, 200);
    let v = request(&server.addr, "GET", "/v1/streams/robot/verdicts", b"").unwrap();
    assert_eq!(v.body, "", "no violation entered the stream");
    drop(server);
    // Dropping the trigger instead (ROSRV's `return;`): the rest of the batch goes in.
    let server = Server::start_with(
        &spec,
        Some(&sig),
        &dir.join("state-drop"),
        &["--enforce", "--drop", "trigger"],
    );
    let r = request(
        &server.addr,
        "POST",
        "/v1/streams/robot/events",
        b"@1 tilt(-0.6)\n@2 trigger() move(0.5)\n@3 tilt(0.1)\n@4 trigger()\n",
    )
    .unwrap();
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(
        r.body,
        "{\"offset\":4,\"dropped\":[{\"tp\":1,\"events\":[\"trigger\"]}]}"
    );
}

#[test]
fn clients_are_known_by_their_tokens_and_do_what_the_policy_allows() {
    let dir = fresh_dir("tokens");
    let (spec, sig) = safe_trigger(&dir);
    // (Paper 20's LandShark policy, bundled.)
    let tokens = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/serve/landshark.ini");
    let tokens = tokens.to_string_lossy();
    let server = Server::start_with(
        &spec,
        Some(&sig),
        &dir.join("state"),
        &["--token-file", &tokens],
    );
    let ask = |method: &str, path: &str, token: Option<&str>, body: &str| {
        let auth = token.map(|t| format!("Authorization: Bearer {t}"));
        let headers: Vec<&str> = auth.iter().map(String::as_str).collect();
        request_with(
            &server.addr,
            method,
            path,
            "text/plain",
            &headers,
            body.as_bytes(),
        )
        .unwrap()
    };
    let events = "/v1/streams/robot/events";
    let (ocu, radar) = (Some("ocu-0123456789abcdef"), Some("radar-0123456789abcdef"));
    assert_eq!(ask("GET", "/v1/health", None, "").status, 200);
    // The trigger is ocu's alone; the tilt is the robot's own (localhost) or certikos'.
    assert_eq!(ask("POST", events, radar, "@1 tilt(0.1)\n").status, 200);
    let r = ask("POST", events, radar, "@2 trigger()\n");
    assert_eq!(r.status, 403, "{}", r.body);
    assert!(
        r.body.contains("client `radar` may not send `trigger`"),
        "{}",
        r.body
    );
    assert_eq!(ask("POST", events, None, "@2 trigger()\n").status, 403);
    assert_eq!(ask("POST", events, ocu, "@2 trigger()\n").status, 200);
    assert_eq!(ask("POST", events, ocu, "@3 tilt(0.2)\n").status, 403);
    // Unknown tokens are refused, with the scheme to use.
    let r = ask(
        "GET",
        "/v1/streams/robot",
        Some("guess-0123456789abcdef"),
        "",
    );
    assert_eq!(r.status, 401, "{}", r.body);
    // Full, limited and local access.
    assert_eq!(ask("GET", "/v1/streams/robot", ocu, "").status, 200);
    assert_eq!(
        ask("GET", "/v1/streams/robot/verdicts", ocu, "").status,
        403
    );
    assert_eq!(
        ask("GET", "/v1/streams/robot/verdicts", radar, "").status,
        200
    );
    assert_eq!(
        ask("POST", "/v1/streams/robot/close", radar, "").status,
        403
    );
    assert_eq!(ask("POST", "/v1/streams/robot/close", None, "").status, 200);
}

#[test]
fn out_of_order_sources_survive_kill_9_and_match_the_sorted_log() {
    // Two sources, each in time order, their batches interleaved out of order.
    let spec = example("requests/policy.mtl");
    let dir = fresh_dir("late");
    let mut rng = 11u64;
    let mut per_source: Vec<Vec<String>> = vec![Vec::new(), Vec::new()];
    for (k, points) in per_source.iter_mut().enumerate() {
        let mut ts = k as u64;
        for _ in 0..90 {
            ts += next(&mut rng) % 4;
            let e = ["request()", "grant()", "heartbeat()"][(next(&mut rng) % 3) as usize];
            points.push(format!("@{ts} {e}\n"));
        }
    }
    let mut sorted: Vec<(u64, usize, String)> = Vec::new();
    // (The order they come in: a's batch k, then b's; ties stay in that order.)
    for k in (0..90).step_by(6) {
        for points in &per_source {
            for p in &points[k..k + 6] {
                let ts = p[1..p.find(' ').unwrap()].parse().unwrap();
                sorted.push((ts, sorted.len(), p.clone()));
            }
        }
    }
    // The lateness the interleaving needs: how far behind the newest time a point comes.
    let mut newest = 0;
    let mut lateness = 0;
    for (ts, _, _) in &sorted {
        newest = newest.max(*ts);
        lateness = lateness.max(newest - ts);
    }
    assert!(lateness > 0 && lateness < newest / 4, "{lateness} {newest}");
    sorted.sort();
    let sorted: Vec<String> = sorted.into_iter().map(|(_, _, p)| p).collect();
    let want = offline(&spec, None, &sorted, &dir);
    assert!(want.len() >= 5, "{want:?}");
    let state = dir.join("state");
    let lateness = lateness.to_string();
    let more = ["--max-lateness", &lateness];
    let mut server = Server::start_with(&spec, None, &state, &more);
    let mut sent = [0usize, 0];
    let mut killed = false;
    while sent.iter().any(|&s| s < 90) {
        for (k, name) in ["a", "b"].into_iter().enumerate() {
            if sent[k] >= 90 {
                continue;
            }
            let body = per_source[k][sent[k]..sent[k] + 6].concat();
            let path = format!("/v1/streams/s/events?source={name}&from={}", sent[k]);
            if sent[1] >= 42 && !killed {
                let _in_flight =
                    send_as(&server.addr, "POST", &path, "text/plain", body.as_bytes());
                server.kill();
                server = Server::start_with(&spec, None, &state, &more);
                killed = true;
                let r = request(&server.addr, "GET", "/v1/streams/s", b"").unwrap();
                let waiting = json_u64(&r.body, "pending").unwrap();
                assert!(
                    waiting > 0 && waiting < 30,
                    "time points wait, a few: {}",
                    r.body
                );
                let m = request(&server.addr, "GET", "/metrics", b"").unwrap();
                let lag = format!("rvmon_stream_lag{{stream=\"s\"}} {waiting}\n");
                assert!(m.body.contains(&lag), "{}", m.body);
                assert!(m
                    .body
                    .contains("rvmon_stream_queue_depth{stream=\"s\"} 0\n"));
                // Each source resends from where the service has it.
                let r = request(&server.addr, "GET", "/v1/streams/s", b"").unwrap();
                let sources = &r.body[r.body.find("\"sources\"").unwrap()..];
                sent = [
                    json_u64(sources, "a").unwrap() as usize,
                    json_u64(sources, "b").unwrap() as usize,
                ];
                break;
            }
            let r = request(&server.addr, "POST", &path, body.as_bytes()).unwrap();
            assert_eq!(r.status, 200, "{}", r.body);
            sent[k] = json_u64(&r.body, "source_offset").unwrap() as usize;
        }
    }
    assert_eq!(
        request(&server.addr, "POST", "/v1/streams/s/close", b"")
            .unwrap()
            .status,
        200
    );
    let r = request(&server.addr, "GET", "/v1/streams/s/verdicts", b"").unwrap();
    let got: Vec<String> = r
        .body
        .lines()
        .map(|l| format!("{{{}", l.split_once(',').unwrap().1))
        .collect();
    assert_eq!(
        got, want,
        "out of order through kill -9, against offline check of the sorted log"
    );
}

/// The water tank's samples as JSON Lines: mostly the model's steps, now and then an inflow
/// over the controller's bound or a level off the plant's solution.
fn water_tank(n: usize, seed: u64) -> Vec<String> {
    let mut rng = seed;
    let mut x = 500i64; // hundredths
    (0..n)
        .map(|i| {
            let f = (next(&mut rng) % 200) as i64 - 100;
            let f = f.min(1000 - x).max(-x);
            let bad = next(&mut rng) % 10 < 1;
            x += f;
            let shown = if bad { x + 25 } else { x };
            format!(
                "{{\"time\":{i},\"x\":{},\"f\":{},\"t\":1}}\n",
                shown as f64 / 100.0,
                f as f64 / 100.0
            )
        })
        .collect()
}

#[test]
fn modelplex_verdicts_survive_kill_9() {
    let points = water_tank(150, 7);
    case(
        "modelplex",
        &example("modelplex/watertank.modelplex"),
        None,
        points,
    );
}

/// Paper 17's fallback in the service: a sample whose pair the model cannot explain is
/// refused, and names the failing conjunct.
#[test]
fn enforcement_refuses_a_pair_the_model_cannot_explain() {
    let dir = fresh_dir("enforce-modelplex");
    let spec = example("modelplex/watertank.modelplex");
    let server = Server::start_with(&spec, None, &dir.join("state"), &["--enforce"]);
    let post = |body: &str| {
        request_as(
            &server.addr,
            "POST",
            "/v1/streams/tank/events",
            "application/x-ndjson",
            body.as_bytes(),
        )
        .unwrap()
    };
    let ok = "{\"time\":0,\"x\":5,\"f\":0,\"t\":0}\n{\"time\":1,\"x\":6,\"f\":1,\"t\":1}\n";
    assert_eq!(post(ok).status, 200);
    let r = post("{\"time\":2,\"x\":9,\"f\":6,\"t\":1}\n");
    assert_eq!(r.status, 409, "{}", r.body);
    assert!(r.body.contains("\"conjunct\":2"), "{}", r.body);
    assert!(r.body.contains("f' <= (m - x)/eps"), "{}", r.body);
    assert_eq!(server.offset("tank"), 2, "the refused sample is not in");
    assert_eq!(
        post("{\"time\":2,\"x\":7.5,\"f\":1.5,\"t\":1}\n").status,
        200
    );
}
