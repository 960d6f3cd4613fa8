//! The sliced parallel run (paper 04 on timely-dataflow) writes exactly the single run's output:
//! with threads, with several slices per worker, as two processes on loopback, and up to a bad
//! line; also for random formulas, those the slicers cannot split included (propositional or
//! closed: they run sliced by time or as a single run), and with the log on standard input.
//! A process that never joins the cluster is an error, after a bounded wait.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use proptest::prelude::*;
use rvmon_testkit::gen::{closed_policy, log_with_props, policy, text, SIG_WITH_PROPS};

fn rvmon() -> Command {
    Command::new(env!("CARGO_BIN_EXE_rvmon"))
}

fn dir() -> PathBuf {
    let d = rvmon_testkit::scratch(env!("CARGO_TARGET_TMPDIR"), "parallel");
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn examples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/paper04")
}

/// A paper-04 log of `days` days for 12 computers (generated once per test binary run).
fn log(days: u32) -> PathBuf {
    log_of(12, days)
}

fn log_of(computers: u32, days: u32) -> PathBuf {
    let p = dir().join(format!("paper04-{computers}-{days}.log"));
    if !p.exists() {
        let out = rvmon()
            .args([
                "gen",
                "paper04",
                "--computers",
                &computers.to_string(),
                "--days",
                &days.to_string(),
            ])
            .output()
            .unwrap();
        assert!(out.status.success());
        std::fs::write(&p, out.stdout).unwrap();
    }
    p
}

fn check(policy: &str, log: &Path, extra: &[&str]) -> Output {
    let spec = examples().join(format!("{policy}.mfotl"));
    let sig = examples().join("paper04.sig");
    rvmon()
        .arg("check")
        .arg(&spec)
        .arg(log)
        .arg("--sig")
        .arg(&sig)
        .args(["--output", "monpoly"])
        .args(extra)
        .output()
        .unwrap()
}

#[test]
fn threads_write_the_single_run_output() {
    let log = log(2);
    for policy in ["p1", "p2", "p3", "p4", "p5", "p6"] {
        let single = check(policy, &log, &[]);
        assert!(
            !single.stdout.is_empty() || policy == "p1",
            "{policy} has violations to compare"
        );
        for extra in [
            &["--workers", "2"][..],
            &["--workers", "3", "--slices", "5"],
            &["--workers", "1", "--slices", "4"],
            &["--workers", "2", "--slicing", "time"],
            &["--workers", "3", "--slicing", "time", "--slices", "5"],
            &["--workers", "2", "--slicing", "both"],
            &["--workers", "2", "--slicing", "both", "--slices", "3"],
        ] {
            let sliced = check(policy, &log, extra);
            assert_eq!(
                String::from_utf8_lossy(&sliced.stdout),
                String::from_utf8_lossy(&single.stdout),
                "{policy} {extra:?}: {}",
                String::from_utf8_lossy(&sliced.stderr)
            );
            assert_eq!(
                sliced.status.code(),
                single.status.code(),
                "{policy} {extra:?}"
            );
        }
    }
}

#[test]
fn the_slice_report_shows_each_slice() {
    let out = check(
        "p4",
        &log(1),
        &["--workers", "2", "--slicing", "data", "--slice-report"],
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("2 slice(s) by `c` on 2 worker(s), empty time points dropped"),
        "{err}"
    );
    assert!(err.contains("rvmon: slice 0 (worker "), "{err}");
    assert!(err.contains("rvmon: worker 1: "), "{err}");
    let out = check(
        "p4",
        &log(2),
        &["--workers", "2", "--slicing", "time", "--slice-report"],
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("rvmon: 2 period(s) on 2 worker(s); each reads its margins too"),
        "{err}"
    );
    assert!(err.contains("rvmon: period 1 (worker 1): "), "{err}");
    let out = check(
        "p4",
        &log(2),
        &["--workers", "2", "--slicing", "both", "--slice-report"],
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("rvmon: 2 period(s), each in 2 slice(s) by `c`, on 2 worker(s)"),
        "{err}"
    );
    assert!(
        err.contains("rvmon: period 1 slice 1 (worker 1): "),
        "{err}"
    );
}

/// The one-day log with a bad line (`@oops`, line `cut(n) + 1` of `n + 1`) written as `name`;
/// the file and the bad line's number.
fn log_with_bad_line(name: &str, cut: impl Fn(usize) -> usize) -> (PathBuf, usize) {
    let good = std::fs::read_to_string(log(1)).unwrap();
    let lines: Vec<&str> = good.lines().collect();
    let cut = cut(lines.len());
    let bad = format!(
        "{}\n@oops\n{}\n",
        lines[..cut].join("\n"),
        lines[cut..].join("\n")
    );
    let path = dir().join(name);
    std::fs::write(&path, bad).unwrap();
    (path, cut + 1)
}

#[test]
fn a_bad_line_ends_both_runs_alike() {
    let (path, bad_line) = log_with_bad_line("bad.log", |n| n / 2);
    for (policy, slicing) in [
        ("p3", "data"),
        ("p5", "data"),
        ("p3", "time"),
        ("p5", "time"),
        ("p3", "both"),
        ("p4", "both"),
    ] {
        let single = check(policy, &path, &[]);
        let sliced = check(policy, &path, &["--workers", "2", "--slicing", slicing]);
        assert_eq!(single.status.code(), Some(2));
        assert_eq!(sliced.status.code(), Some(2));
        assert_eq!(
            String::from_utf8_lossy(&sliced.stdout),
            String::from_utf8_lossy(&single.stdout),
            "{policy} {slicing}"
        );
        let line = format!("bad.log:{bad_line}:2:");
        assert!(
            String::from_utf8_lossy(&sliced.stderr).contains(&line),
            "{}",
            String::from_utf8_lossy(&sliced.stderr)
        );
    }
}

/// A bad line read by process 1 (in the later period, with time slicing) or by process 0 (the
/// reader, with data slicing): process 0 writes what the single run writes and the same
/// error, and process 1 stops too instead of waiting for its peer.
#[test]
fn a_bad_line_stops_both_processes() {
    let (path, bad_line) = log_with_bad_line("bad-cluster.log", |n| n * 3 / 4);
    let hostfile = loopback_hostfile("hosts-bad");
    let single = check("p3", &path, &[]);
    assert_eq!(single.status.code(), Some(2));
    for slicing in ["time", "data"] {
        let (out0, out1) = two_processes("p3", &path, &hostfile, slicing);
        assert_eq!(out0.status.code(), Some(2), "{slicing}");
        // Process 0 carries the run's status and error; process 1 ends without crashing.
        assert!(out1.stdout.is_empty(), "only process 0 writes verdicts");
        assert!(
            matches!(out1.status.code(), Some(0 | 2)),
            "{slicing}: {:?} {}",
            out1.status,
            String::from_utf8_lossy(&out1.stderr)
        );
        assert_eq!(
            String::from_utf8_lossy(&out0.stdout),
            String::from_utf8_lossy(&single.stdout),
            "{slicing}"
        );
        let line = format!("bad-cluster.log:{bad_line}:2:");
        assert!(
            String::from_utf8_lossy(&out0.stderr).contains(&line),
            "{slicing}: {}",
            String::from_utf8_lossy(&out0.stderr)
        );
    }
}

/// A hostfile `name` of two free loopback ports.
fn loopback_hostfile(name: &str) -> PathBuf {
    let hostfile = dir().join(name);
    std::fs::write(
        &hostfile,
        format!("127.0.0.1:{}\n127.0.0.1:{}\n", free_port(), free_port()),
    )
    .unwrap();
    hostfile
}

/// `policy` on a two-process cluster with `--slicing slicing`: process 0's and process 1's
/// outputs (process 1 starts first; each has a bounded time).
fn two_processes(policy: &str, log: &Path, hostfile: &Path, slicing: &str) -> (Output, Output) {
    let spawn = |id: &str| {
        cluster_process(
            policy,
            log,
            hostfile,
            id,
            &["--slicing", slicing],
            Stdio::piped(),
        )
    };
    let second = spawn("1");
    let first = spawn("0");
    let out0 = wait(first, Duration::from_secs(120));
    let out1 = wait(second, Duration::from_secs(30));
    (out0, out1)
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Waits for a child with a deadline; kills it past the deadline.
fn wait(mut child: std::process::Child, limit: Duration) -> Output {
    let start = Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            return child.wait_with_output().unwrap();
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let out = child.wait_with_output().unwrap();
            panic!(
                "timed out; stderr: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// Process `id` of a two-process cluster checking paper 04's `policy` (its standard output
/// goes to `stdout`, its standard error is kept).
fn cluster_process(
    policy: &str,
    log: &Path,
    hostfile: &Path,
    id: &str,
    extra: &[&str],
    stdout: Stdio,
) -> std::process::Child {
    rvmon()
        .arg("check")
        .arg(examples().join(format!("{policy}.mfotl")))
        .arg(log)
        .arg("--sig")
        .arg(examples().join("paper04.sig"))
        .args([
            "--output",
            "monpoly",
            "--processes",
            "2",
            "--process-id",
            id,
        ])
        .arg("--hostfile")
        .arg(hostfile)
        .args(["--connect-timeout", "30"])
        .args(extra)
        .stdout(stdout)
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

#[test]
fn two_processes_on_loopback_write_the_single_run_output() {
    let log = log(2);
    let hostfile = loopback_hostfile("hosts");
    for (policy, slicing) in [
        ("p2", "data"),
        ("p5", "data"),
        ("p4", "time"),
        ("p3", "both"),
    ] {
        let single = check(policy, &log, &[]);
        let (out0, out1) = two_processes(policy, &log, &hostfile, slicing);
        assert_eq!(
            String::from_utf8_lossy(&out0.stdout),
            String::from_utf8_lossy(&single.stdout),
            "{policy}: {}",
            String::from_utf8_lossy(&out0.stderr)
        );
        assert_eq!(out0.status.code(), single.status.code());
        assert!(out1.stdout.is_empty(), "only process 0 writes verdicts");
        assert_eq!(
            out1.status.code(),
            Some(0),
            "{}",
            String::from_utf8_lossy(&out1.stderr)
        );
    }
}

#[test]
fn a_process_that_never_joins_is_an_error() {
    let hostfile = loopback_hostfile("hosts-missing");
    let out = check(
        "p1",
        &log(1),
        &[
            "--processes",
            "2",
            "--process-id",
            "0",
            "--hostfile",
            hostfile.to_str().unwrap(),
            "--connect-timeout",
            "1",
        ],
    );
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("process(es) 1 did not connect within 1 s"),
        "{err}"
    );
}

/// A bad line right after the time point that decides a future window: every slice must
/// decide what the single run decides, including slices that had no event at that point.
#[test]
fn a_bad_line_after_a_future_window_decides_alike() {
    let d = dir();
    let spec = d.join("window.mfotl");
    let sig = d.join("window.sig");
    let log = d.join("window.log");
    std::fs::write(&spec, "P(x) IMPLIES EVENTUALLY[0,10] Q(x)").unwrap();
    std::fs::write(&sig, "P(x:int) Q(x:int)").unwrap();
    std::fs::write(
        &log,
        "@0 P(1) P(2) P(3) P(4) P(5) P(6) P(7) P(8)\n@20 Q(1)\n@oops\n",
    )
    .unwrap();
    let run = |extra: &[&str]| {
        rvmon()
            .arg("check")
            .arg(&spec)
            .arg(&log)
            .arg("--sig")
            .arg(&sig)
            .args(["--output", "monpoly"])
            .args(extra)
            .output()
            .unwrap()
    };
    let single = run(&[]);
    assert_eq!(
        String::from_utf8_lossy(&single.stdout),
        "@0 (time point 0): (1) (2) (3) (4) (5) (6) (7) (8)\n"
    );
    for extra in [
        &["--workers", "2"][..],
        &["--workers", "2", "--slices", "8"],
        &["--workers", "2", "--slicing", "time"],
    ] {
        let sliced = run(extra);
        assert_eq!(sliced.status.code(), Some(2));
        assert_eq!(
            String::from_utf8_lossy(&sliced.stdout),
            String::from_utf8_lossy(&single.stdout),
            "{extra:?}"
        );
    }
}

/// A process that dies in the middle of a cluster run makes the others fail at once, with one
/// clear message and exit status 2 (not a hang, not an abort). The run is long enough (P3 on
/// 4 M events takes several seconds) that process 1 is killed while both are working.
#[test]
fn a_process_that_dies_fails_the_run() {
    let log = log_of(100, 40);
    let hostfile = loopback_hostfile("hosts-dies");
    let spawn = |id: &str| cluster_process("p3", &log, &hostfile, id, &[], Stdio::null());
    let mut second = spawn("1");
    let first = spawn("0");
    std::thread::sleep(Duration::from_millis(700));
    second.kill().unwrap();
    let _ = second.wait();
    let out = wait(first, Duration::from_secs(60));
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains("a process of the cluster stopped"), "{err}");
}

/// `--state-dir` keeps each finished period; a second run takes every period from it (the
/// slice report says so) and writes the same output; a damaged file only makes its period
/// run again.
#[test]
fn finished_periods_are_kept_and_reused() {
    let log = log(2);
    let state = dir().join("state");
    let args = [
        "--workers",
        "2",
        "--slicing",
        "time",
        "--slices",
        "3",
        "--slice-report",
        "--state-dir",
    ];
    let run = || {
        let mut a: Vec<&str> = args.to_vec();
        a.push(state.to_str().unwrap());
        check("p4", &log, &a)
    };
    let single = check("p4", &log, &[]);
    let first = run();
    assert_eq!(
        String::from_utf8_lossy(&first.stdout),
        String::from_utf8_lossy(&single.stdout)
    );
    let mut kept: Vec<PathBuf> = std::fs::read_dir(&state)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    kept.sort();
    assert_eq!(kept.len(), 3, "one file per period: {kept:?}");
    let second = run();
    assert_eq!(
        String::from_utf8_lossy(&second.stdout),
        String::from_utf8_lossy(&single.stdout)
    );
    let err = String::from_utf8_lossy(&second.stderr);
    assert_eq!(err.matches("kept from --state-dir").count(), 3, "{err}");
    std::fs::write(&kept[1], b"damaged").unwrap();
    let third = run();
    assert_eq!(
        String::from_utf8_lossy(&third.stdout),
        String::from_utf8_lossy(&single.stdout)
    );
    let err = String::from_utf8_lossy(&third.stderr);
    assert_eq!(err.matches("kept from --state-dir").count(), 2, "{err}");
    // Data slices all end with the log: nothing to keep.
    let data = check(
        "p4",
        &log,
        &["--workers", "2", "--slicing", "data", "--state-dir", "x"],
    );
    assert_eq!(data.status.code(), Some(2));
}

/// A log path that is a pipe (`<(zcat log.gz)`) has no length to cut into pieces or periods:
/// the parallel run reads it in one pass, and time slicing says it needs a file.
#[test]
fn a_pipe_is_read_in_one_pass() {
    let log = log(1);
    let fifo = dir().join("pipe.log");
    let _ = std::fs::remove_file(&fifo);
    let made = Command::new("mkfifo").arg(&fifo).status();
    if !made.is_ok_and(|s| s.success()) {
        eprintln!("skipped: mkfifo is not available");
        return;
    }
    let single = check("p5", &log, &[]);
    let feed = |fifo: PathBuf, log: PathBuf| {
        std::thread::spawn(move || {
            let text = std::fs::read(log).unwrap();
            // Fails (and is ignored) when rvmon refuses the pipe without opening it.
            if let Ok(mut w) = std::fs::OpenOptions::new().write(true).open(fifo) {
                let _ = std::io::Write::write_all(&mut w, &text);
            }
        })
    };
    let writer = feed(fifo.clone(), log.clone());
    let piped = check("p5", &fifo, &["--workers", "2"]);
    writer.join().unwrap();
    assert_eq!(
        String::from_utf8_lossy(&piped.stdout),
        String::from_utf8_lossy(&single.stdout),
        "{}",
        String::from_utf8_lossy(&piped.stderr)
    );
    // (A writer that may never be read from: left behind, not joined.)
    let _ = feed(fifo.clone(), log.clone());
    let timed = check("p5", &fifo, &["--workers", "2", "--slicing", "time"]);
    assert_eq!(timed.status.code(), Some(2));
    assert!(
        String::from_utf8_lossy(&timed.stderr).contains("not a pipe"),
        "{}",
        String::from_utf8_lossy(&timed.stderr)
    );
}

/// What a run shows of its result: its standard output and exit status (standard error says
/// how the run was sliced, which differs).
fn outcome(out: &Output) -> (String, Option<i32>) {
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        out.status.code(),
    )
}

/// `rvmon check SPEC TRACE --sig SIG --output monpoly` and `extra`; the trace `-` is `input`,
/// written to the standard input.
fn check_random(
    spec: &Path,
    sig: &Path,
    trace: &Path,
    extra: &[&str],
    input: Option<&str>,
) -> Output {
    let mut cmd = rvmon();
    cmd.arg("check").arg(spec);
    match input {
        Some(_) => cmd.arg("-"),
        None => cmd.arg(trace),
    };
    cmd.arg("--sig")
        .arg(sig)
        .args(["--output", "monpoly", "--connect-timeout", "20"])
        .args(extra)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    if let Some(text) = input {
        // (A run that stops before it reads, at a formula it cannot monitor, closes the pipe.)
        let _ = std::io::Write::write_all(&mut stdin, text.as_bytes());
    }
    drop(stdin);
    wait(child, Duration::from_secs(60))
}

/// Two processes on loopback, on ports picked afresh (again, when one was taken before its
/// process listened on it): process 0's and process 1's outputs.
fn two_processes_random(
    spec: &Path,
    sig: &Path,
    trace: &Path,
    extra: &[&str],
    key: usize,
) -> (Output, Output) {
    let mut attempt = 0;
    loop {
        attempt += 1;
        let hostfile = loopback_hostfile(&format!("hosts-random-{key}-{attempt}"));
        let spawn = |id: &str| {
            let mut args = vec!["--processes", "2", "--process-id", id, "--hostfile"];
            args.push(hostfile.to_str().unwrap());
            args.extend_from_slice(extra);
            let mut cmd = rvmon();
            cmd.arg("check")
                .arg(spec)
                .arg(trace)
                .arg("--sig")
                .arg(sig)
                .args(["--output", "monpoly", "--connect-timeout", "20"])
                .args(&args)
                .stdout(Stdio::piped())
                .stderr(Stdio::piped());
            cmd.spawn().unwrap()
        };
        let second = spawn("1");
        let first = spawn("0");
        let out0 = wait(first, Duration::from_secs(60));
        let out1 = wait(second, Duration::from_secs(60));
        let busy = [&out0, &out1]
            .iter()
            .any(|o| String::from_utf8_lossy(&o.stderr).contains("cannot listen"));
        if !busy || attempt == 3 {
            return (out0, out1);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    /// Sliced runs of random formulas — first-order ones with free variables, and those the
    /// data slicer cannot split: propositional, closed over constants, or with their
    /// variables bound — write the single run's output and exit with its status: on 1–3
    /// worker threads, with slices, with the log on standard input, and on two processes on
    /// loopback (where the other process ends at once when process 0 runs alone).
    #[test]
    fn sliced_runs_of_any_formula_write_the_single_run_output(
        formula in prop_oneof![policy(), closed_policy()],
        log in log_with_props(),
        workers in 1usize..4,
        slices in prop::option::of(1usize..4),
        slicing in prop::sample::select(&["auto", "data", "time", "both"][..]),
    ) {
        static CASES: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let key = CASES.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let d = dir();
        let spec = d.join(format!("random-{key}.mfotl"));
        let sig = d.join("random.sig");
        let trace = d.join(format!("random-{key}.log"));
        std::fs::write(&spec, &formula).unwrap();
        std::fs::write(&sig, SIG_WITH_PROPS).unwrap();
        let log = text(&log);
        std::fs::write(&trace, &log).unwrap();
        let single = outcome(&check_random(&spec, &sig, &trace, &[], None));
        let workers = workers.to_string();
        let slices = slices.map(|k| k.to_string());
        let mut runs: Vec<Vec<&str>> = vec![
            vec!["--workers", &workers, "--slicing", slicing],
            vec!["--workers", &workers],
        ];
        if let Some(k) = &slices {
            runs.push(vec!["--slices", k]);
            runs[0].extend(["--slices", k]);
        }
        for extra in &runs {
            let sliced = check_random(&spec, &sig, &trace, extra, None);
            prop_assert_eq!(
                &outcome(&sliced), &single,
                "{} {:?}: {}", formula, extra, String::from_utf8_lossy(&sliced.stderr)
            );
        }
        // Standard input: data slicing, or a single run.
        let piped = check_random(&spec, &sig, &trace, &["--workers", &workers], Some(&log));
        prop_assert_eq!(
            &outcome(&piped), &single,
            "{} from standard input: {}", formula, String::from_utf8_lossy(&piped.stderr)
        );
        let (out0, out1) = two_processes_random(&spec, &sig, &trace, &["--slicing", slicing], key);
        prop_assert_eq!(
            &outcome(&out0), &single,
            "{} on two processes: {}", formula, String::from_utf8_lossy(&out0.stderr)
        );
        // Process 1 writes nothing; it fails where the run fails (a formula that cannot be
        // monitored), and otherwise succeeds, whether it did its part or had none.
        let (written, status) = outcome(&out1);
        prop_assert!(
            written.is_empty() && (status == Some(0) || status == single.1 && status == Some(2)),
            "{} process 1: {:?} {}", formula, status, String::from_utf8_lossy(&out1.stderr)
        );
    }
}
