//! The command-line contract, through the real binary: exit statuses, `file:line:col` errors
//! with every earlier verdict already written (one test per trace format), and online
//! monitoring from a pipe.

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn rvmon() -> Command {
    Command::new(env!("CARGO_BIN_EXE_rvmon"))
}

/// Writes `content` to a fresh file named `name` in a per-test directory.
fn file(test: &str, name: &str, content: &str) -> PathBuf {
    let dir = rvmon_testkit::scratch(env!("CARGO_TARGET_TMPDIR"), "cli").join(test);
    std::fs::create_dir_all(&dir).unwrap();
    let p = dir.join(name);
    std::fs::write(&p, content).unwrap();
    p
}

/// `rvmon check` of `formula` on `log` under the signature `sig` (files in the test's
/// directory `test`).
fn check_first_order(test: &str, formula: &str, sig: &str, log: &str) -> Run {
    let spec = file(test, "f.mfotl", formula);
    let sig = file(test, "s.sig", sig);
    let log = file(test, "t.log", log);
    run(&[
        "check",
        spec.to_str().unwrap(),
        log.to_str().unwrap(),
        "--sig",
        sig.to_str().unwrap(),
    ])
}

/// `args` with strings freed at every opportunity (`--collect-strings 0`), then never.
fn freed_and_kept(args: &[&str]) -> (Run, Run) {
    let with = |floor: &str| {
        let mut a = args.to_vec();
        a.extend(["--collect-strings", floor]);
        run(&a)
    };
    (with("0"), with("1000000000"))
}

struct Run {
    status: i32,
    stdout: String,
    stderr: String,
}

/// `rvmon check SPEC --sig SIG` and then `rest` (a log, options).
fn check_with_sig(spec: &std::path::Path, sig: &std::path::Path, rest: &[&str]) -> Run {
    let mut args = vec![
        "check",
        spec.to_str().unwrap(),
        "--sig",
        sig.to_str().unwrap(),
    ];
    args.extend_from_slice(rest);
    run(&args)
}

fn run(args: &[&str]) -> Run {
    let out = rvmon().args(args).output().unwrap();
    Run {
        status: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

#[test]
fn exit_status_reflects_violations() {
    let spec = file("exit", "spec.mtl", "p() IMPLIES ONCE[0,2] q()");
    let ok = file("exit", "ok.log", "@0 q()\n@1 p()\n");
    let bad = file("exit", "bad.log", "@0 q()\n@5 p()\n");
    let r = run(&["check", spec.to_str().unwrap(), ok.to_str().unwrap()]);
    assert_eq!((r.status, r.stdout.as_str()), (0, ""));
    let r = run(&["check", spec.to_str().unwrap(), bad.to_str().unwrap()]);
    assert_eq!(
        (r.status, r.stdout.as_str()),
        (1, "violation: time point 1 @5\n")
    );
    let r = run(&[
        "check",
        spec.to_str().unwrap(),
        bad.to_str().unwrap(),
        "--output",
        "jsonl",
    ]);
    assert_eq!(r.stdout, "{\"tp\":1,\"ts\":5,\"verdict\":\"violation\"}\n");
}

#[test]
fn bad_spec_points_at_the_column() {
    let spec = file("spec", "spec.mtl", "p() AND\n  ONCE[0,3 q()");
    let log = file("spec", "t.log", "@0 p()\n");
    let r = run(&["check", spec.to_str().unwrap(), log.to_str().unwrap()]);
    assert_eq!(r.status, 2);
    assert!(
        r.stderr.contains(
            "spec.mtl:2:12: expected `]` or `)` to close the interval, found identifier `q`"
        ),
        "{}",
        r.stderr
    );
    let spec = file("spec", "fo.mtl", "P(x) IMPLIES ONCE Q(x)");
    let r = run(&["check", spec.to_str().unwrap(), log.to_str().unwrap()]);
    assert_eq!(r.status, 2);
    assert!(
        r.stderr
            .contains("fo.mtl: a first-order formula needs a signature (--sig FILE)"),
        "{}",
        r.stderr
    );
}

/// For each format: two good events (the second violates `NOT b`), then a garbled one.
#[test]
fn bad_trace_line_in_every_format_keeps_earlier_verdicts() {
    let spec = file("formats", "spec.mtl", "NOT b()");
    let cases = [
        ("t.log", "@0 a()\n@1 b()\n@2 a(\n", "t.log:3:6: expected a value, found the end of the input"),
        ("t.csv", "a, x = 1\nb, x = 2\na, x\n", "t.csv:3:4: expected `field = value`, found `x`"),
        ("s.csv", "time,a,b\n0,1,0\n1,0,1\nx,1,0\n", "s.csv:4:1: expected a non-negative integer time, found `x`"),
        ("t.jsonl", "{\"a\": {\"x\": 1}}\n{\"name\": \"b\", \"fields\": {}}\n{\"a\": \n", "t.jsonl:3:"),
        ("t.json", "{\"a\": {}}\n{\"b\": {}}\n{\"a\": [1]}\n", "t.json:3:1: expected an event object"),
        ("u.json", "{\"a\": {}}\n{\"b\": {}}\n{\"a\": {\"x\" 1}}\n", "u.json:3:12: invalid JSON"),
        (
            "t.xml",
            "<log>\n<event><name>a</name></event>\n<event><name>b</name></event>\n<event><nam>a</nam></event>\n</log>\n",
            "t.xml:4:8: expected <name> or <field>, found <nam>",
        ),
    ];
    for (name, content, error) in cases {
        let trace = file("formats", name, content);
        let r = run(&["check", spec.to_str().unwrap(), trace.to_str().unwrap()]);
        assert_eq!(r.status, 2, "{name}: {}", r.stderr);
        assert_eq!(
            r.stdout, "violation: time point 1 @1\n",
            "{name}: the verdict before the bad line is written"
        );
        assert!(r.stderr.contains(error), "{name}: stderr was {}", r.stderr);
    }
}

/// First-order formulas go to the engine in batches of time points offline: a bad line in the
/// middle of a batch still finds every verdict before it written (within the first batch, and
/// after several).
#[test]
fn bad_trace_line_keeps_earlier_first_order_verdicts() {
    let spec = file("fo-bad", "spec.mfotl", "p(x) IMPLIES ONCE[0,3] q(x)");
    let sig = file("fo-bad", "s.sig", "p(int)\nq(int)\n");
    for before in [3usize, 150] {
        let mut log = String::new();
        let mut expected = String::new();
        for i in 0..before {
            // Every 7th `p` has no `q` before it: a violation.
            if i % 7 == 3 {
                log.push_str(&format!("@{} p({i})\n", 10 * i));
                expected.push_str(&format!("violation: time point {i} @{} (x={i})\n", 10 * i));
            } else {
                log.push_str(&format!("@{} q({i}) p({i})\n", 10 * i));
            }
        }
        log.push_str("@99999 p(\n");
        let trace = file("fo-bad", &format!("t{before}.log"), &log);
        let r = run(&[
            "check",
            spec.to_str().unwrap(),
            trace.to_str().unwrap(),
            "--sig",
            sig.to_str().unwrap(),
        ]);
        assert_eq!(r.status, 2, "{}", r.stderr);
        assert_eq!(
            r.stdout, expected,
            "the verdicts before the bad line are written"
        );
        let line = before + 1;
        assert!(
            r.stderr.contains(&format!("t{before}.log:{line}:")),
            "{}",
            r.stderr
        );
    }
}

#[test]
fn time_field_gives_timestamps() {
    let spec = file("time", "spec.mtl", "b() IMPLIES ONCE[0,5] a()");
    let trace = file(
        "time",
        "t.csv",
        "a, time = 10\nb, time = 12\nb, time = 30\n",
    );
    let r = run(&[
        "check",
        spec.to_str().unwrap(),
        trace.to_str().unwrap(),
        "--time-field",
        "time",
    ]);
    assert_eq!(
        (r.status, r.stdout.as_str()),
        (1, "violation: time point 2 @30\n")
    );
}

/// Runs rvmon with `args` and writes `input` to its standard input, which stays open; returns
/// the first line it prints (which must come within 30 s, while the input is open) and its
/// exit status once the input is closed.
fn first_line_online(args: &[&str], input: &str) -> (String, Option<i32>) {
    let mut child = rvmon()
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    stdin.write_all(input.as_bytes()).unwrap();
    stdin.flush().unwrap();
    // Read on a thread, so that a verdict held back until the end of the input fails the
    // test instead of hanging it.
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let mut line = String::new();
        let _ = stdout.read_line(&mut line);
        let _ = tx.send(line);
    });
    let got = rx.recv_timeout(Duration::from_secs(30));
    // Only now does the input end.
    drop(stdin);
    let status = child.wait().unwrap().code();
    let line = got.expect("the verdict did not come while the input was open");
    (line, status)
}

/// Online: the verdict of a time point is read back while the input is still open.
#[test]
fn verdicts_stream_from_a_pipe() {
    let spec = file("online", "spec.mtl", "alarm() IMPLIES ONCE[0,10] fault()");
    // Without a time field, an event's timestamp is its position: the alarm at position 12 is
    // 12 after the fault.
    let mut input = String::from("{\"fault\": {}}\n");
    input.push_str(&"{\"tick\": {}}\n".repeat(11));
    input.push_str("{\"name\": \"alarm\", \"fields\": {\"zone\": 7}}\n");
    let (line, status) = first_line_online(
        &["check", spec.to_str().unwrap(), "--format", "jsonl"],
        &input,
    );
    assert_eq!(line, "violation: time point 12 @12\n");
    assert_eq!(status, Some(1));
}

/// `rvmon check` joins conjuncts decided at once before conjuncts that wait for the future, but
/// not a filter that can fail: ahead of the join, `10 / y` would be computed for `p(1,0)`,
/// which the join drops, and the run would stop on a division by zero that the formula as
/// written never makes.
#[test]
fn conjunct_order_makes_no_error_the_formula_does_not_make() {
    let r = check_first_order(
        "order-fail",
        "NOT (p(x,y) AND (EVENTUALLY[0,5] q(x)) AND 10 / y > 1)",
        "p(int,int)\nq(int)\n",
        "@0 p(1,0)\n@1 p(2,5)\n@2 q(2)\n@3 p(3,2)\n@10\n",
    );
    assert_eq!(
        (r.status, r.stdout.as_str()),
        (1, "violation: time point 1 @1 (x=2, y=5)\n"),
        "{}",
        r.stderr
    );
}

/// Conjunct order sees through `LET`: a defined predicate over a future operator waits like
/// the operator itself, so the anti-join goes before it. A formula that ordering leaves alone
/// keeps its `LET`s in the plan's description.
#[test]
fn conjunct_order_sees_through_let() {
    let sig = file("order-let", "s.sig", "p(int)\nq(int)\nr(int)\n");
    let explain = |formula: &str| {
        let spec = file("order-let", "f.mfotl", formula);
        run(&[
            "check",
            spec.to_str().unwrap(),
            "--sig",
            sig.to_str().unwrap(),
            "--explain",
        ])
        .stdout
    };
    let moved =
        explain("LET ev(x) = EVENTUALLY[0,5] q(x) IN (p(x) AND ev(x) AND NOT r(x)) IMPLIES FALSE");
    assert!(
        moved.contains("((p(x) AND (NOT r(x))) AND (NOT FALSE)) AND (EVENTUALLY[0,5] q(x))"),
        "{moved}"
    );
    let kept = explain("LET pr(x) = p(x) AND NOT r(x) IN pr(x) IMPLIES ONCE q(x)");
    assert!(kept.contains("LET pr(x)"), "{kept}");
}

/// A comparison goes into the temporal operator that binds its variables (through a `LET`),
/// so that the state keeps only the tuples it keeps; the violations are those of the formula
/// as written.
#[test]
fn comparisons_go_into_the_states_that_bind_them() {
    let sig = file(
        "pushdown",
        "s.sig",
        "acq(int,int)\nrel(int,int)\nuse(int)\n",
    );
    let formula = "LET held(t,l) = NOT rel(t,l) SINCE acq(t,l) IN \
                   use(t) IMPLIES NOT EXISTS l. (held(t,l) AND l = 7)";
    let spec = file("pushdown", "f.mfotl", formula);
    let log = file(
        "pushdown",
        "t.log",
        "@1 acq(1,7) acq(2,8)\n@2 use(1) use(2)\n@3 rel(1,7)\n@4 use(1) acq(2,7)\n@5 use(2)\n",
    );
    let explain = check_with_sig(&spec, &sig, &["--explain"]).stdout;
    assert!(
        explain.contains("SINCE[0,*) (acq(t,l) AND l = 7)"),
        "{explain}"
    );
    let r = check_with_sig(&spec, &sig, &[log.to_str().unwrap(), "--format", "monpoly"]);
    assert_eq!(
        (r.status, r.stdout.as_str()),
        (
            1,
            "violation: time point 1 @2 (t=1)\nviolation: time point 4 @5 (t=2)\n"
        ),
        "{}",
        r.stderr
    );
}

/// A comparison is not pushed ahead of a conjunct that can fail: `y = 10 / x` still meets
/// `p(0,1)` and fails, as the formula as written does (a review found the error lost).
#[test]
fn comparisons_are_not_pushed_ahead_of_a_conjunct_that_can_fail() {
    let sig = file("pushdown-fail", "s.sig", "p(int,int)\n");
    let log = file("pushdown-fail", "t.log", "@1 p(0,1) p(2,1)\n@2 p(5,1)\n");
    for formula in [
        "NOT ((p(x,z) AND y = 10 / x) AND x > 0)",
        "NOT ((ONCE[0,3] (p(x,z) AND y = 10 / x)) AND x > 0)",
    ] {
        let spec = file("pushdown-fail", "f.mfotl", formula);
        let r = check_with_sig(&spec, &sig, &[log.to_str().unwrap()]);
        assert_eq!(r.status, 2, "{formula}: {}{}", r.stdout, r.stderr);
        assert!(
            r.stderr.contains("division by zero"),
            "{formula}: {}",
            r.stderr
        );
    }
}

/// A `LET` changes nothing to what `rvmon check` can monitor: the formula with `h` defined
/// gives the violations of the formula with `h` written out (the rewriting that makes `NOT
/// (a OR b)` with different free variables monitorable stopped at the `LET`).
#[test]
fn a_let_is_rewritten_as_its_expansion_is() {
    let sig = file("let-rewrite", "s.sig", "acq(int,int)\nuse(int,int)\n");
    let log = file(
        "let-rewrite",
        "t.log",
        "@0 acq(1,2) use(1,3)\n@1 use(2,2) acq(2,2)\n@3 use(2,1) acq(1,1)\n@4 use(1,1) use(3,3)\n",
    );
    let with_let = file(
        "let-rewrite",
        "let.mfotl",
        "LET h(t,l) = acq(t,l) IN use(t,x) IMPLIES ((EXISTS y. (use(y,x) AND h(y,x))) OR acq(t,x))",
    );
    let written_out = file(
        "let-rewrite",
        "out.mfotl",
        "use(t,x) IMPLIES ((EXISTS y. (use(y,x) AND acq(y,x))) OR acq(t,x))",
    );
    let a = check_with_sig(&with_let, &sig, &[log.to_str().unwrap()]);
    let b = check_with_sig(&written_out, &sig, &[log.to_str().unwrap()]);
    assert_eq!(a.status, 1, "{}", a.stderr);
    assert_eq!((a.status, &a.stdout), (b.status, &b.stdout));
}

/// A future operator without an upper bound over data is refused before any event is read,
/// with the place of the operator (it used to fail at the first time point, without one).
#[test]
fn an_unbounded_future_operator_is_refused_where_it_is() {
    let sig = file("unbounded", "s.sig", "p(int)\nq(int)\n");
    let log = file("unbounded", "t.log", "@1 p(1)\n@2 q(1)\n");
    for (formula, column) in [
        ("p(x) IMPLIES EVENTUALLY q(x)", 14),
        ("p(x) IMPLIES (q(x) UNTIL[2,*) p(x))", 14),
    ] {
        let spec = file("unbounded", "f.mfotl", formula);
        let r = check_with_sig(&spec, &sig, &[log.to_str().unwrap()]);
        assert_eq!(
            (r.status, r.stdout.as_str()),
            (2, ""),
            "{formula}: {}",
            r.stderr
        );
        assert!(
            r.stderr
                .contains(&format!("f.mfotl:1:{column}: a future operator"))
                && r.stderr.contains("bounded interval"),
            "{formula}: {}",
            r.stderr
        );
    }
}

/// Online, a first-order monitor that is behind its input takes the time points already
/// buffered as batches (`TraceReader::input_pending`); the verdicts are those of the offline
/// run, in the same order. The log is piped in at once, in chunks of up to 64 KB, so batches
/// of every length and cuts in the middle of lines occur.
#[test]
fn first_order_online_batches_give_the_offline_verdicts() {
    let spec = file(
        "online-batches",
        "spec.mfotl",
        "(req(x) AND NOT ack(x)) IMPLIES (EVENTUALLY[0,3] ack(x)) AND NOT PREVIOUS ONCE[0,10] req(x)",
    );
    let sig = file("online-batches", "s.sig", "req(int)\nack(int)\n");
    let mut text = String::new();
    for t in 0..20_000u64 {
        // Requests of 50 clients, most acknowledged within 3, a few repeated within 10.
        let x = (t * 7919) % 50;
        let ev = match (t * 31) % 11 {
            0..=4 => format!("req({x})"),
            5..=9 => format!("ack({})", (t * 13) % 50),
            _ => String::new(),
        };
        text.push_str(&format!("@{} {ev}\n", t / 2));
    }
    let log = file("online-batches", "t.log", &text);
    let args = |trace: &str| {
        vec![
            "check".to_string(),
            spec.to_str().unwrap().to_string(),
            trace.to_string(),
            "--format".to_string(),
            "monpoly".to_string(),
            "--sig".to_string(),
            sig.to_str().unwrap().to_string(),
        ]
    };
    let offline = rvmon().args(args(log.to_str().unwrap())).output().unwrap();
    let mut child = rvmon()
        .args(args("-"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || stdin.write_all(text.as_bytes()));
    let online = child.wait_with_output().unwrap();
    writer.join().unwrap().unwrap();
    let verdicts = String::from_utf8_lossy(&offline.stdout);
    assert!(verdicts.lines().count() > 100, "{verdicts}");
    assert_eq!(String::from_utf8_lossy(&online.stdout), verdicts);
    assert_eq!(online.status.code(), offline.status.code());
}

/// Online, first-order, with a future operator: the violation comes once the window has
/// passed, although the time points that pass it have no event of the formula (offline, such
/// time points are skipped; online, they must still move the clock).
#[test]
fn first_order_future_verdicts_stream_from_a_pipe() {
    let spec = file(
        "online-fo",
        "spec.mfotl",
        "req(x) IMPLIES EVENTUALLY[0,5] ack(x)",
    );
    let sig = file("online-fo", "s.sig", "req(int)\nack(int)\ntick()\n");
    let mut input = String::from("@0 req(1)\n");
    for t in 1..10 {
        input.push_str(&format!("@{t} tick()\n"));
    }
    let (line, status) = first_line_online(
        &[
            "check",
            spec.to_str().unwrap(),
            "--format",
            "monpoly",
            "--sig",
            sig.to_str().unwrap(),
        ],
        &input,
    );
    assert_eq!(line, "violation: time point 0 @0 (x=1)\n");
    assert_eq!(status, Some(1));
}

/// First-order: violations come with the values of the free variables.
#[test]
fn first_order_violations_carry_their_data() {
    let spec = file(
        "fo",
        "approve.mfotl",
        "publish(r) IMPLIES ONCE[0,7d] approve(r)",
    );
    let sig = file("fo", "sig", "publish(r:int) approve(r:int)");
    let log = file(
        "fo",
        "t.log",
        "@0 approve(152)\n@86400 publish(152) publish(160)\n@864000 publish(152)\n",
    );
    let r = run(&[
        "check",
        spec.to_str().unwrap(),
        log.to_str().unwrap(),
        "--sig",
        sig.to_str().unwrap(),
    ]);
    assert_eq!(r.status, 1, "{}", r.stderr);
    assert_eq!(
        r.stdout,
        "violation: time point 1 @86400 (r=160)\nviolation: time point 2 @864000 (r=152)\n"
    );
    let r = run(&[
        "check",
        spec.to_str().unwrap(),
        log.to_str().unwrap(),
        "--sig",
        sig.to_str().unwrap(),
        "--output",
        "jsonl",
    ]);
    assert_eq!(
        r.stdout,
        "{\"tp\":1,\"ts\":86400,\"verdict\":\"violation\",\"values\":{\"r\":160}}\n{\"tp\":2,\"ts\":864000,\"verdict\":\"violation\",\"values\":{\"r\":152}}\n"
    );
}

/// A log whose values keep coming (a new request id at every time point): strings no state
/// holds any more are freed and their ids reused (`--collect-strings`, here after every
/// batch), and the violations, with their data, are those of a run that never frees any.
#[test]
fn freeing_unused_strings_changes_no_violation() {
    let spec = file(
        "strings",
        "served.mfotl",
        "reply(r, u) IMPLIES ONCE[0,3] request(r, u)",
    );
    let sig = file(
        "strings",
        "sig",
        "request(r:string,u:string) reply(r:string,u:string)",
    );
    let mut log = String::new();
    for i in 0..3000 {
        // Request i is answered two time points later, every seventh one too late.
        let late = if (i - 2) % 7 == 0 { 5 } else { 2 };
        log.push_str(&format!("@{i} request(\"q{i}\", \"u{}\")", i % 13));
        if i >= late {
            log.push_str(&format!(
                " reply(\"q{}\", \"u{}\")",
                i - late,
                (i - late) % 13
            ));
        }
        log.push('\n');
    }
    let log = file("strings", "t.log", &log);
    let (freed, kept) = freed_and_kept(&[
        "check",
        spec.to_str().unwrap(),
        log.to_str().unwrap(),
        "--sig",
        sig.to_str().unwrap(),
    ]);
    assert_eq!(freed.status, 1, "{}", freed.stderr);
    assert!(freed.stdout.lines().count() > 300, "{}", freed.stdout);
    assert!(
        freed
            .stdout
            .contains("violation: time point 9 @9 (r=\"q4\", u=\"u4\")"),
        "{}",
        freed.stdout
    );
    assert_eq!(freed.stdout, kept.stdout);
}

/// The same for parametric properties: object ids are strings that keep coming (iterators
/// are created and disposed), and those no live binding holds are freed after every time
/// point (`--collect-strings 0`), with the reports of a run that never frees any.
#[test]
fn freeing_unused_object_ids_changes_no_report() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/rvm/");
    let mut log = String::new();
    let mut ts = 0;
    let mut event = |e: String| {
        log.push_str(&format!("@{ts} {e}\n"));
        ts += 1;
    };
    for i in 0..400 {
        let (c, it) = (format!("c{}", i % 5), format!("it{i}"));
        event(format!("create({c},{it})"));
        if i % 9 != 4 {
            event(format!("hasnexttrue({it})"));
        }
        if i % 11 == 3 {
            event(format!("update({c})"));
        }
        event(format!("next({it})"));
        event(format!("dispose({it})"));
    }
    let log = file("objects", "program.log", &log);
    let check = |spec: &str| freed_and_kept(&["check", spec, log.to_str().unwrap()]);
    // HasNext alone too: it keeps one state per object, not bindings, and no other property
    // holds its objects.
    let both = format!("{dir}iterators.rvm");
    let text = std::fs::read_to_string(&both).unwrap();
    let has_next = file(
        "objects",
        "hasnext.rvm",
        &text[..text.find("// A collection").unwrap()],
    );
    let has_next = has_next.to_str().unwrap();
    let (freed, kept) = check(has_next);
    assert_eq!(freed.status, 1, "{}", freed.stderr);
    assert_eq!(freed.stdout, kept.stdout);
    let (freed, kept) = check(&both);
    assert_eq!(freed.status, 1, "{}", freed.stderr);
    assert!(
        freed.stdout.contains(
            "violation: HasNext (i=it4) at time point 18 @18: next() on iterator it4 without a successful hasNext()"
        ),
        "{}",
        freed.stdout
    );
    assert!(
        freed.stdout.contains("violation: UnsafeIterator"),
        "{}",
        freed.stdout
    );
    assert_eq!(freed.stdout, kept.stdout);
}

/// `--explain` on a first-order formula shows what the plan did: the existential pushed into
/// the SINCE, PREVIOUS fused into it.
#[test]
fn explain_shows_the_first_order_plan() {
    let spec = file(
        "explain",
        "file.mfotl",
        "FORALL f. close(f) IMPLIES (EXISTS m. PREVIOUS (NOT close(f) SINCE open(f,m)))",
    );
    let sig = file(
        "explain",
        "file.sig",
        "open(f:string, m:string) close(f:string)",
    );
    let r = run(&[
        "check",
        spec.to_str().unwrap(),
        "--sig",
        sig.to_str().unwrap(),
        "--explain",
    ]);
    assert_eq!(r.status, 0, "{}", r.stderr);
    // Why the first-order engine, the class and the horizons, as for a propositional formula.
    assert!(
        r.stdout.contains("  why: it quantifies over variables\n")
            && r.stdout
                .contains("class: past-only\nhorizons: past unbounded, future 0 time units\n")
            && r.stdout.contains("memory: each temporal operator keeps"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.contains("anti-join (AND NOT) -> (f)"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.contains("since[0,*) (with PREVIOUS fused) -> (f)"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout
            .contains("project (EXISTS) -> (f)\n          scan open (2 args) -> (f,m)"),
        "{}",
        r.stdout
    );
}

/// `--explain` numbers a subplan that several operators read where it first appears, and
/// refers to it by number where it appears again (here `h(a,l)` and `h(b,l)`, one state up
/// to renaming, whose scan of `q` is then shown once).
#[test]
fn explain_shows_shared_subplans_once() {
    let sig = file("explain-shared", "s.sig", "p(int,int)\nq(int,int)\n");
    let spec = file(
        "explain-shared",
        "f.mfotl",
        "LET h(t,l) = ONCE q(t,l) IN p(a,b) IMPLIES NOT EXISTS l. (h(a,l) AND h(b,l))",
    );
    let explain = check_with_sig(&spec, &sig, &["--explain"]).stdout;
    let firsts = explain.matches("#1 since[0,*)").count();
    let agains = explain.matches("#1 again (since[0,*)").count();
    assert_eq!((firsts, agains), (1, 1), "{explain}");
    assert_eq!(explain.matches("scan q (2 args)").count(), 1, "{explain}");
}

/// The workload generators: renamed copies and the paper-04 shape are well-formed logs with
/// non-decreasing timestamps (checked by reading them back).
#[test]
fn generators_write_readable_logs() {
    let log = file("gen", "t.log", "@0 p(a,1) q()\n@5 p(b,2)\n");
    let r = run(&[
        "gen",
        "repeat",
        log.to_str().unwrap(),
        "--copies",
        "2",
        "--rename",
    ]);
    assert_eq!(
        r.stdout,
        "@0 p(a,1) q()\n@5 p(b,2)\n@6 p(a_1,1_1) q()\n@11 p(b_1,2_1)\n"
    );
    let r = run(&["gen", "paper04", "--computers", "5", "--days", "2"]);
    assert_eq!(r.status, 0);
    let generated = file("gen", "p04.log", &r.stdout);
    let spec = file(
        "gen",
        "p6.mfotl",
        "upd_skip(c) IMPLIES ONCE[0,1d] EVENTUALLY[0,0] upd_success(c)",
    );
    let sig = file(
        "gen",
        "p04.sig",
        "alive(c:int) net(c:int) auth(c:int,t:int) upd_start(c:int) upd_connect(c:int) upd_success(c:int) upd_skip(c:int) ssh_login(c:int,s:int) ssh_logout(c:int,s:int)",
    );
    let r = run(&[
        "check",
        spec.to_str().unwrap(),
        generated.to_str().unwrap(),
        "--sig",
        sig.to_str().unwrap(),
    ]);
    assert!(r.status == 0 || r.status == 1, "{}", r.stderr);
    assert!(r.stderr.contains("time point(s)"), "{}", r.stderr);
    assert!(
        generated.metadata().unwrap().len() > 10_000,
        "two days of five computers"
    );
}

#[test]
fn stream_specifications_report_triggers_and_errors() {
    let spec = file(
        "lola",
        "spec.lola",
        "input a: Int64\ninput b: Int64\noutput c @ a := a + b.hold().defaults(to: 0)\ntrigger c > 2 \"c is too large\"\n",
    );
    let trace = file(
        "lola",
        "t.csv",
        "a,b,time\n#,#,0.000536\n3,#,0.100536\n1,1,0.300536\n2,x,0.4\n5,0,0.5\n",
    );
    let r = run(&[
        "check",
        spec.to_str().unwrap(),
        trace.to_str().unwrap(),
        "--output",
        "rtlola",
    ]);
    // The trigger at 0.1 is written before the bad cell on line 5 stops the run.
    assert_eq!(r.status, 2, "{}", r.stderr);
    assert_eq!(
        r.stdout,
        "[0.100536000][Trigger][#0][Value] = \"c is too large\"\n"
    );
    assert!(
        r.stderr.contains("t.csv:5:3: expected an Int64 value"),
        "{}",
        r.stderr
    );
    let good = file("lola", "good.csv", "a,b,time\n3,#,0.1\n1,1,0.3\n");
    let r = run(&[
        "check",
        spec.to_str().unwrap(),
        good.to_str().unwrap(),
        "--output",
        "jsonl",
    ]);
    assert_eq!(r.status, 1);
    assert_eq!(
        r.stdout,
        "{\"tp\":0,\"ts\":0.100000000,\"trigger\":0,\"message\":\"c is too large\"}\n"
    );
    let bad_spec = file("lola", "bad.lola", "input a: Int64\noutput x := x + a\n");
    let r = run(&["check", bad_spec.to_str().unwrap(), good.to_str().unwrap()]);
    assert_eq!(r.status, 2);
    assert!(
        r.stderr.contains("x -> x") && r.stderr.contains("weight 0"),
        "{}",
        r.stderr
    );
    let r = run(&["check", spec.to_str().unwrap(), "--explain"]);
    assert_eq!(r.status, 0);
    assert!(
        r.stdout.contains("efficiently monitorable: yes"),
        "{}",
        r.stdout
    );
}

#[test]
fn stream_specifications_monitor_a_pipe_online() {
    let spec = file(
        "lola-online",
        "spec.lola",
        "input a: Int64\ntrigger a > 2 \"big\"\n",
    );
    let mut child = rvmon()
        .args(["check", spec.to_str().unwrap(), "-"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let mut stdout = BufReader::new(child.stdout.take().unwrap());
    stdin.write_all(b"a,time\n1,0\n5,1\n").unwrap();
    stdin.flush().unwrap();
    // The trigger is written while the pipe is still open.
    let mut line = String::new();
    let start = Instant::now();
    stdout.read_line(&mut line).unwrap();
    assert_eq!(line, "trigger #0: event 1 @1.000000000: big\n");
    assert!(start.elapsed() < Duration::from_secs(30));
    drop(stdin);
    assert_eq!(child.wait().unwrap().code(), Some(1));
}

#[test]
fn boolean_specifications_that_are_not_well_formed_run_on_the_automaton() {
    let spec = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/lola/paper06_example3.lola"
    );
    let ok = file("bsrv", "ok.csv", "x,time\ntrue,0\nfalse,1\ntrue,2\n");
    let r = run(&["check", spec, ok.to_str().unwrap()]);
    assert_eq!(r.status, 0, "{}", r.stderr);
    assert_eq!(
        r.stdout,
        "event 0 @0.000000000: y=true\nevent 1 @1.000000000: y=false\nevent 2 @2.000000000: y=true\n"
    );
    let bad = file("bsrv", "bad.csv", "x,time\ntrue,0\nfalse,1\nfalse,2\n");
    let r = run(&["check", spec, bad.to_str().unwrap()]);
    assert_eq!(r.status, 1);
    assert!(r.stderr.contains("no model"), "{}", r.stderr);
    let r = run(&["check", spec, "--explain"]);
    assert!(
        r.stdout.contains("over-defined (the input x=0 has none)"),
        "{}",
        r.stdout
    );
}

#[test]
fn bundled_stream_example_reports_its_triggers() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/lola/");
    let r = run(&[
        "check",
        &format!("{dir}engine.lola"),
        &format!("{dir}engine.csv"),
    ]);
    assert_eq!(r.status, 1, "{}", r.stderr);
    assert_eq!(
        r.stdout,
        "trigger #0: event 4 @2.000000000: temperature jumped\n\
         trigger #0: event 5 @2.500000000: temperature jumped\n\
         trigger #1: event 5 @2.500000000: overheating under pressure\n\
         trigger #1: event 6 @3.000000000: overheating under pressure\n"
    );
}

#[test]
fn parametric_properties_report_bindings() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/rvm/");
    let r = run(&[
        "check",
        &format!("{dir}iterators.rvm"),
        &format!("{dir}program.log"),
    ]);
    assert_eq!(r.status, 1, "{}", r.stderr);
    assert_eq!(
        r.stdout,
        "violation: UnsafeIterator (c=1, i=10) at time point 8 @8: iterator 10 used after its collection 1 was modified\n\
         violation: HasNext (i=20) at time point 9 @9: next() on iterator 20 without a successful hasNext()\n"
    );
    // The same properties with LTL bodies (past-time HasNext, future-time UnsafeIterator).
    let r = run(&[
        "check",
        &format!("{dir}ltl.rvm"),
        &format!("{dir}program.log"),
    ]);
    assert_eq!(r.status, 1, "{}", r.stderr);
    assert_eq!(
        r.stdout,
        "violation: UnsafeIterator (c=1, i=10) at time point 8 @8: iterator 10 used after its collection 1 was modified\n\
         violation: HasNext (i=20) at time point 9 @9: next() on iterator 20 without a successful hasNext() just before\n"
    );
    // An ERE with complement and intersection (JavaMOP's `~` and `&`).
    let r = run(&[
        "check",
        &format!("{dir}locks-ere.rvm"),
        &format!("{dir}locks.log"),
    ]);
    assert_eq!(r.status, 1, "{}", r.stderr);
    assert_eq!(
        r.stdout,
        "violation: Locks (l=5) at time point 4 @5: lock 5 acquired twice without a release\n"
    );
    // `--explain` says how each body is read, and how each property is monitored.
    let r = run(&["check", &format!("{dir}ltl.rvm"), "--explain"]);
    assert!(
        r.stdout.contains("  ltl: next => (*) hasnexttrue (past-time LTL, checked after every event of the binding), compiled to 5 states\n"),
        "{}",
        r.stdout
    );
    let r = run(&["check", &format!("{dir}iterators.rvm"), "--explain"]);
    let how: Vec<&str> = r
        .stdout
        .lines()
        .filter(|l| l.starts_with("  monitored as: "))
        .collect();
    assert_eq!(
        how,
        [
            "  monitored as: one state per object (every event binds the same one parameter)",
            "  monitored as: bindings indexed by their restrictions to the events' parameters",
        ],
        "{}",
        r.stdout
    );
    // The collection may be updated before the iterator exists (the binding (c) starts then).
    let early = file(
        "rvm",
        "early.log",
        "@0 update(1)\n@1 create(1,10)\n@2 hasnexttrue(10)\n@3 update(1)\n@4 next(10)\n",
    );
    let r = run(&["check", &format!("{dir}ltl.rvm"), early.to_str().unwrap()]);
    assert_eq!(
        r.stdout,
        "violation: UnsafeIterator (c=1, i=10) at time point 4 @4: iterator 10 used after its collection 1 was modified\n"
    );
    // `@validation` is reported as such and is not a violation.
    let good = file(
        "rvm",
        "good.rvm",
        "Used(i) {\n  event next(i)\n  ltl: <> next\n  @validation \"{i} was used\"\n}\n",
    );
    let r = run(&[
        "check",
        good.to_str().unwrap(),
        &format!("{dir}program.log"),
    ]);
    assert_eq!(r.status, 0, "{}", r.stderr);
    assert_eq!(
        r.stdout,
        "validation: Used (i=10) at time point 2 @2: 10 was used\n\
         validation: Used (i=20) at time point 5 @5: 20 was used\n"
    );
    let bad = file("rvm", "bad.rvm", "P(i) {\n  event a(j)\n}\n");
    let r = run(&["check", bad.to_str().unwrap(), &format!("{dir}program.log")]);
    assert_eq!(r.status, 2);
    assert!(
        r.stderr
            .contains("bad.rvm:2:11: `j` is not a parameter of P(i)"),
        "{}",
        r.stderr
    );
}

/// `where` constrains a property's parameters (paper 03, Algorithm A with constraints):
/// cumulative acknowledgements report a message sent after an ack numbered at least as high,
/// and only those (without the constraint every send after any ack would be reported).
#[test]
fn parametric_constraints_keep_the_bindings_they_allow() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/rvm/");
    let (spec, log) = (format!("{dir}acks.rvm"), format!("{dir}acks.log"));
    let r = run(&["check", &spec, &log]);
    assert_eq!(r.status, 1, "{}", r.stderr);
    assert_eq!(
        r.stdout,
        "violation: CumulativeAck (s=2, a=2) at time point 4 @5: message 2 sent after ack 2, which had acknowledged it\n\
         violation: CumulativeAck (s=1, a=2) at time point 7 @8: message 1 sent after ack 2, which had acknowledged it\n\
         violation: CumulativeAck (s=1, a=3) at time point 7 @8: message 1 sent after ack 3, which had acknowledged it\n"
    );
    let unconstrained = std::fs::read_to_string(&spec)
        .unwrap()
        .replace("where s <= a", "");
    let unconstrained = file("where", "acks.rvm", &unconstrained);
    let r = run(&["check", unconstrained.to_str().unwrap(), &log]);
    assert_eq!(r.stdout.lines().count(), 6, "{}", r.stdout);
    let r = run(&["check", &spec, "--explain"]);
    assert!(
        r.stdout.contains(
            "  where s <= a: only bindings that can be extended to a solution are monitored\n"
        ),
        "{}",
        r.stdout
    );
    // `>` and `>=` are written the other way round; `!=` between any values.
    let both = file(
        "where",
        "both.rvm",
        "P(x, y) {\n  event f(x)\n  event g(y)\n  where x > y, x != y, x >= y\n  fsm: s [ f -> s, g -> t ] t [ ]\n  @t \"{x} {y}\"\n}\n",
    );
    let r = run(&["check", both.to_str().unwrap(), "--explain"]);
    assert!(
        r.stdout.contains("  where y < x, y <= x, x != y: "),
        "{}",
        r.stdout
    );
    // Errors name the place and what was expected.
    for (text, error) in [
        (
            "P(x, y) {\n  event f(x, y)\n  where x < z\n",
            "bad.rvm:3:13: `z` is not a parameter of P(x, y)",
        ),
        (
            "P(x, y) {\n  event f(x, y)\n  where x = y\n",
            "bad.rvm:3:11: expected `<`, `<=`, `>`, `>=` or `!=`",
        ),
        (
            "P(x, y) {\n  event f(x, y)\n  where\n}\n",
            "bad.rvm:4:1: expected a parameter name",
        ),
    ] {
        let bad = file("where", "bad.rvm", text);
        let r = run(&["check", bad.to_str().unwrap(), &log]);
        assert_eq!(r.status, 2, "{text}");
        assert!(r.stderr.contains(error), "{text}: {}", r.stderr);
    }
}

/// `event open(file: f)` binds a field by name, whatever its place among the event's fields
/// (JSON objects need not keep an order); an event without the field does not match, and a
/// trace format without field names is refused.
#[test]
fn parametric_events_bind_fields_by_name() {
    let spec = file(
        "fields",
        "files.rvm",
        "FileUse(f) {\n  event open(file: f)\n  event write(file: f)\n  event close(file: f)\n  fsm:\n    closed [ open -> opened, write -> bad ]\n    opened [ write -> opened, close -> closed ]\n    bad [ ]\n  @bad \"write to {f} while it is closed\"\n}\n",
    );
    let log = file(
        "fields",
        "files.jsonl",
        "{\"open\": {\"mode\": \"w\", \"file\": \"a\"}}\n\
         {\"write\": {\"bytes\": 3, \"file\": \"a\"}}\n\
         {\"close\": {\"file\": \"a\"}}\n\
         {\"write\": {\"file\": \"a\", \"bytes\": 1}}\n\
         {\"write\": {\"bytes\": 1}}\n\
         {\"write\": {\"bytes\": 2, \"file\": \"b\"}}\n",
    );
    let r = run(&["check", spec.to_str().unwrap(), log.to_str().unwrap()]);
    assert_eq!(r.status, 1, "{}", r.stderr);
    assert_eq!(
        r.stdout,
        "violation: FileUse (f=a) at time point 3 @3: write to a while it is closed\n\
         violation: FileUse (f=b) at time point 5 @5: write to b while it is closed\n"
    );
    let monpoly = file("fields", "files.log", "@0 open(a)\n");
    let r = run(&["check", spec.to_str().unwrap(), monpoly.to_str().unwrap()]);
    assert_eq!(r.status, 2);
    assert!(
        r.stderr.contains(
            "FileUse binds event `open` by field name, but the trace's events have no field names"
        ),
        "{}",
        r.stderr
    );
    for (text, error) in [
        ("P(f) {\n  event open(file: f, g)\n", "bad.rvm:2:23: an event binds its parameters either all by position or all by field name"),
        ("P(f) {\n  event open(file: f, file: _)\n", "bad.rvm:2:23: field `file` is bound twice"),
        ("P(f) {\n  event open(file: g)\n", "bad.rvm:2:20: `g` is not a parameter of P(f)"),
    ] {
        let bad = file("fields", "bad.rvm", text);
        let r = run(&["check", bad.to_str().unwrap(), log.to_str().unwrap()]);
        assert_eq!(r.status, 2, "{text}");
        assert!(r.stderr.contains(error), "{text}: {}", r.stderr);
    }
}

/// `rvmon gen maps` seeds violations of UnsafeMapIterator (an update, then a use of an old
/// iterator); the monitor finds exactly those.
#[test]
fn the_maps_workload_has_its_seeded_violations() {
    let r = run(&[
        "gen",
        "maps",
        "--maps",
        "10",
        "--iterators",
        "40",
        "--events",
        "3000",
        "--violation-rate",
        "0.01",
    ]);
    assert_eq!(r.status, 0);
    let lines: Vec<&str> = r.stdout.lines().collect();
    let seeded = lines
        .windows(2)
        .filter(|w| w[0].contains("updateMap") && w[1].contains("useIter"))
        .count();
    assert!(seeded > 5, "{seeded}");
    let log = file("maps", "maps.log", &r.stdout);
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/rvm/");
    let r = run(&["check", &format!("{dir}maps.rvm"), log.to_str().unwrap()]);
    assert_eq!(r.status, 1);
    assert_eq!(r.stdout.lines().count(), seeded, "{}", r.stdout);
}

/// `rvmon gen sync` seeds iterators of synchronized collections and maps created or used
/// without the lock; the monitor finds exactly those (an access to an iterator that was
/// already created without the lock is no second violation).
#[test]
fn the_sync_workload_has_its_seeded_violations() {
    let r = run(&[
        "gen",
        "sync",
        "--collections",
        "5",
        "--iterators",
        "20",
        "--events",
        "4000",
        "--violation-rate",
        "0.05",
    ]);
    assert_eq!(r.status, 0);
    let mut created_locked = std::collections::HashMap::new();
    let mut seeded = 0;
    for line in r.stdout.lines() {
        let event = line.split_once(' ').unwrap().1;
        let (name, args) = event.split_once('(').unwrap();
        let args: Vec<&str> = args.trim_end_matches(')').split(',').collect();
        match name {
            "syncCreateIter" | "syncCreateSetIter" => {
                created_locked.insert(args[1].to_string(), true);
            }
            "asyncCreateIter" | "asyncCreateSetIter" => {
                created_locked.insert(args[1].to_string(), false);
                seeded += 1;
            }
            "accessIter" | "accessSetIter" => seeded += usize::from(created_locked[args[0]]),
            _ => {}
        }
    }
    assert!(seeded > 20, "{seeded}");
    let log = file("sync", "sync.log", &r.stdout);
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/rvm/");
    let r = run(&["check", &format!("{dir}sync.rvm"), log.to_str().unwrap()]);
    assert_eq!(r.status, 1);
    assert_eq!(r.stdout.lines().count(), seeded, "{}", r.stdout);
    assert!(
        r.stdout.contains("violation: SafeSyncMap ("),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.contains("violation: SafeSyncCollection ("),
        "{}",
        r.stdout
    );
}

/// JavaMOP's SafeSyncCollection and SafeSyncMap as `ere:` properties.
#[test]
fn synchronized_collections_iterated_without_their_lock() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/rvm/");
    let r = run(&[
        "check",
        &format!("{dir}sync.rvm"),
        &format!("{dir}sync.log"),
    ]);
    assert_eq!(r.status, 1, "{}", r.stderr);
    assert_eq!(
        r.stdout,
        "violation: SafeSyncCollection (c=1, i=11) at time point 4 @5: synchronized collection 1 iterated by 11 without its lock\n\
         violation: SafeSyncCollection (c=1, i=12) at time point 6 @7: synchronized collection 1 iterated by 12 without its lock\n\
         violation: SafeSyncMap (m=5, s=50, i=501) at time point 10 @11: synchronized map 5 accessed through 50 and 501 without its lock\n"
    );
}

/// `ere:` bodies: paper 24's UnsafeMapIterator and UnsafeIterator as JavaMOP writes them.
#[test]
fn parametric_properties_with_regular_expressions() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/rvm/");
    let r = run(&[
        "check",
        &format!("{dir}maps.rvm"),
        &format!("{dir}maps.log"),
    ]);
    assert_eq!(r.status, 1, "{}", r.stderr);
    assert_eq!(
        r.stdout,
        "violation: UnsafeMapIterator (m=1, c=10, i=100) at time point 6 @7: map 1 was modified while iterator 100 over its collection 10 was in use\n\
         violation: UnsafeMapIterator (m=2, c=20, i=200) at time point 11 @12: map 2 was modified while iterator 200 over its collection 20 was in use\n\
         violation: UnsafeIterator (c=5, i=50) at time point 15 @16: collection 5 was modified while iterator 50 was in use\n"
    );
    let bad = file(
        "rvm",
        "bad-ere.rvm",
        "P(i) {\n  event a(i)\n  ere: a (b | a)*\n  @match \"m\"\n}\n",
    );
    let r = run(&["check", bad.to_str().unwrap(), &format!("{dir}maps.log")]);
    assert_eq!(r.status, 2);
    assert!(
        r.stderr
            .contains("bad-ere.rvm:3:11: `b` is not an event of P"),
        "{}",
        r.stderr
    );
}

#[test]
fn stream_specifications_read_event_logs() {
    let spec = file("lola-log", "spec.lola", "input a: Int64\ninput go: Bool\noutput s @ a := a + s.offset(by: -1).defaults(to: 0)\ntrigger s > 4 \"sum over 4\"\ntrigger go \"go\"\n");
    let log = file(
        "lola-log",
        "t.log",
        "@1 a(3)\n@2 go()\n@3 a(2) b(9)\n@4 a(x)\n",
    );
    let r = run(&["check", spec.to_str().unwrap(), log.to_str().unwrap()]);
    assert_eq!(r.status, 2, "{}", r.stderr);
    assert_eq!(
        r.stdout,
        "trigger #1: event 1 @2.000000000: go\ntrigger #0: event 2 @3.000000000: sum over 4\n"
    );
    assert!(
        r.stderr
            .contains("event `a` has the value x; input `a` is an Int64"),
        "{}",
        r.stderr
    );
}

/// Stream specifications over an event log whose string values keep coming: the reader's
/// strings are freed after every time point (`--collect-strings 0`; the engine keeps its
/// values as owned strings), and the triggers are those of a run that frees none.
#[test]
fn stream_specifications_free_the_log_strings() {
    let spec = file(
        "lola-strings",
        "spec.lola",
        "input user: String\ntrigger user == user.offset(by: -1).defaults(to: \"\") \"the same user twice\"\n",
    );
    let log: String = (0..500)
        .map(|i| format!("@{i} user(u{})\n", if i % 50 == 7 { i - 1 } else { i }))
        .collect();
    let log = file("lola-strings", "t.log", &log);
    let (freed, kept) = freed_and_kept(&["check", spec.to_str().unwrap(), log.to_str().unwrap()]);
    assert_eq!(freed.status, 1, "{}", freed.stderr);
    assert_eq!(freed.stdout.lines().count(), 10, "{}", freed.stdout);
    assert_eq!(freed.stdout, kept.stdout);
}

#[test]
fn iterator_workload_has_the_chosen_violations() {
    let out = rvmon()
        .args([
            "gen",
            "iterators",
            "--iterators",
            "50",
            "--collections",
            "5",
            "--events",
            "20000",
            "--violation-rate",
            "0.01",
        ])
        .output()
        .unwrap();
    let log = file(
        "gen-iter",
        "it.log",
        &String::from_utf8(out.stdout).unwrap(),
    );
    let spec = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/rvm/iterators.rvm"
    );
    let r = run(&["check", spec, log.to_str().unwrap()]);
    assert_eq!(r.status, 1);
    let n = r.stdout.lines().count();
    // About 10 000 uses at a 1 % violation rate.
    assert!((40..=200).contains(&n), "{n} violations");
    assert!(r.stdout.contains("HasNext") && r.stdout.contains("UnsafeIterator"));
}

/// `--values` writes every output value too; with `--output rtlola` the lines are RTLola's
/// `--verbosity outputs` lines (this case is byte-identical to rtlola-cli 0.1.2's).
#[test]
fn stream_values_in_rtlola_form() {
    let spec = file(
        "lola-values",
        "spec.lola",
        "input a: Int64\ninput b: Int64\noutput c @ a := a + b.hold().defaults(to: 0)\ntrigger c > 2 \"c is too large\"\n",
    );
    let trace = file(
        "lola-values",
        "t.csv",
        "a,b,time\n#,#,0.000536\n3,#,0.100536\n#,3,0.200536\n1,1,0.300536\n#,3,0.400536\n3,#,0.500536\n2,2,0.600536\n",
    );
    let r = run(&[
        "check",
        spec.to_str().unwrap(),
        trace.to_str().unwrap(),
        "--output",
        "rtlola",
        "--values",
    ]);
    assert_eq!(r.status, 1, "{}", r.stderr);
    assert_eq!(
        r.stdout,
        "[0.100536000][Output][c][Value] = 3\n\
         [0.100536000][Trigger][#0][Value] = \"c is too large\"\n\
         [0.300536000][Output][c][Value] = 2\n\
         [0.500536000][Output][c][Value] = 6\n\
         [0.500536000][Trigger][#0][Value] = \"c is too large\"\n\
         [0.600536000][Output][c][Value] = 4\n\
         [0.600536000][Trigger][#0][Value] = \"c is too large\"\n"
    );
}

/// `>terminate<` in `rvmon monpoly`: as MonPoly, name the last time point read and stop
/// without closing the trace (the violation still pending at time point 2 is not printed; the
/// one at time point 0 is).
#[test]
fn monpoly_terminate_command() {
    let sig = file("terminate", "s.sig", "p()\nq()\n");
    let f = file("terminate", "f.mfotl", "p() IMPLIES EVENTUALLY[0,2] q()");
    let log = file(
        "terminate",
        "t.log",
        "@0 p()\n@3 q()\n@5 p()\n>terminate<\n@9 p()\n",
    );
    let r = run(&[
        "monpoly",
        "-sig",
        sig.to_str().unwrap(),
        "-formula",
        f.to_str().unwrap(),
        "-log",
        log.to_str().unwrap(),
        "-negate",
    ]);
    assert_eq!(r.status, 0, "{}", r.stderr);
    assert_eq!(
        r.stdout,
        "@0 (time point 0): true\nTerminated at timepoint: 2\n"
    );
}

/// `--explain` on a stream specification says which engine runs it.
#[test]
fn explain_names_the_stream_engine() {
    let past = file(
        "explain-lola",
        "past.lola",
        "input a: Int64\noutput x := a.offset(by: -1).defaults(to: 0) + a\n",
    );
    let r = run(&["check", past.to_str().unwrap(), "--explain"]);
    assert!(
        r.stdout
            .contains("engine: stream equations (rvmon-stream), immediate"),
        "{}",
        r.stdout
    );
    let future = file(
        "explain-lola",
        "future.lola",
        "input a: Bool\noutput x := a[1, false]\n",
    );
    let r = run(&["check", future.to_str().unwrap(), "--explain"]);
    assert!(
        r.stdout.contains("online partial evaluation"),
        "{}",
        r.stdout
    );
}

/// JavaMOP's `creation event`: once a property marks some events, only they start a
/// monitor; the others only extend monitors that exist. The same property without the mark
/// reports the `next` that comes before any `hasnexttrue`.
#[test]
fn creation_events_start_monitors() {
    let body = |mark: &str| {
        format!(
            "HasNext(i) {{\n  {mark}event hasnexttrue(i)\n  event next(i)\n  fsm:\n    \
             na [ hasnexttrue -> more, next -> error ]\n    more [ hasnexttrue -> more, next -> na ]\n    \
             error [ ]\n  @error \"next on {{i}}\"\n}}\n"
        )
    };
    let marked = file("rvm", "creation.rvm", &body("creation "));
    let plain = file("rvm", "no-creation.rvm", &body(""));
    let log = file(
        "rvm",
        "creation.log",
        "@0 next(1)\n@1 hasnexttrue(2)\n@2 next(2)\n@3 next(2)\n",
    );
    let r = run(&["check", marked.to_str().unwrap(), log.to_str().unwrap()]);
    assert_eq!(r.status, 1, "{}", r.stderr);
    assert_eq!(
        r.stdout,
        "violation: HasNext (i=2) at time point 3 @3: next on 2\n"
    );
    let r = run(&["check", plain.to_str().unwrap(), log.to_str().unwrap()]);
    assert_eq!(
        r.stdout,
        "violation: HasNext (i=1) at time point 0 @0: next on 1\n\
         violation: HasNext (i=2) at time point 3 @3: next on 2\n"
    );
    let r = run(&["check", marked.to_str().unwrap(), "--explain"]);
    assert!(
        r.stdout
            .contains("  creation event hasnexttrue binds (i)\n  event next binds (i)\n"),
        "{}",
        r.stdout
    );
}

/// `rvmon` with `args`, `input` on its standard input.
fn run_with_stdin(args: &[&str], input: &str) -> Run {
    let mut child = rvmon()
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_string();
    // Written on a thread: a child that writes much before it reads all would block both.
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(input.as_bytes());
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    Run {
        status: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// The bundled example, its formula propositional.
fn requests_example() -> (String, String) {
    let d = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/requests");
    let p = |f: &str| d.join(f).display().to_string();
    (p("policy.mtl"), p("trace.log"))
}

/// A formula that the slicers cannot split (propositional here) runs as a single run when
/// asked for a sliced one, says so, and gives the single run's output and status; the other
/// processes of a cluster have nothing to do and end at once.
#[test]
fn sliced_runs_of_a_propositional_formula_give_the_single_run_output() {
    let (spec, log) = requests_example();
    let single = run(&["check", &spec, &log]);
    assert_eq!(single.status, 1);
    assert_eq!(single.stdout.lines().count(), 3, "{}", single.stdout);
    for extra in [
        &["--workers", "2"][..],
        &["--slices", "2"],
        &["--workers", "3", "--slicing", "data"],
        &["--processes", "2", "--process-id", "0"],
    ] {
        let mut args = vec!["check", spec.as_str(), log.as_str()];
        args.extend_from_slice(extra);
        let sliced = run(&args);
        assert_eq!(
            (sliced.status, sliced.stdout.as_str()),
            (1, single.stdout.as_str()),
            "{extra:?}: {}",
            sliced.stderr
        );
        assert!(
            sliced
                .stderr
                .contains("rvmon: note: the formula is propositional"),
            "{}",
            sliced.stderr
        );
    }
    let other = run(&[
        "check",
        &spec,
        &log,
        "--processes",
        "2",
        "--process-id",
        "1",
    ]);
    assert_eq!((other.status, other.stdout.as_str()), (0, ""));
    assert!(
        other.stderr.contains("process 1 has nothing to do"),
        "{}",
        other.stderr
    );
}

/// A sliced run reads standard input (data slicing; a propositional formula runs alone).
#[test]
fn sliced_runs_read_standard_input() {
    let (spec, log) = requests_example();
    let text = std::fs::read_to_string(&log).unwrap();
    let single = run(&["check", &spec, &log]);
    let piped = run_with_stdin(&["check", &spec, "--workers", "2"], &text);
    assert_eq!(
        (piped.status, piped.stdout.as_str()),
        (1, single.stdout.as_str())
    );
    let spec = file("sliced-stdin", "f.mfotl", "p(x) IMPLIES ONCE[0,3] q(x)");
    let sig = file("sliced-stdin", "s.sig", "p(int) q(int)");
    let text = "@0 q(1)\n@1 p(1) p(2)\n@5 p(1)\n@6 q(2) p(2)\n";
    let log = file("sliced-stdin", "t.log", text);
    let (spec, sig, log) = (
        spec.to_str().unwrap(),
        sig.to_str().unwrap(),
        log.to_str().unwrap(),
    );
    let single = run(&["check", spec, log, "--sig", sig]);
    assert_eq!(
        single.stdout,
        "violation: time point 1 @1 (x=2)\nviolation: time point 2 @5 (x=1)\n"
    );
    for extra in [&["--workers", "2"][..], &["--slices", "3", "-"]] {
        let mut args = vec!["check", spec, "--sig", sig];
        args.extend_from_slice(extra);
        let piped = run_with_stdin(&args, text);
        assert_eq!(
            (piped.status, piped.stdout.as_str()),
            (1, single.stdout.as_str()),
            "{extra:?}: {}",
            piped.stderr
        );
    }
}

/// First-order formulas without a variable to slice the data by (closed, or with every
/// variable bound inside) are sliced by time where that applies, and run as a single run
/// where it does not (an unbounded past here), saying which.
#[test]
fn closed_first_order_formulas_run_sliced_by_time_or_alone() {
    let sig = file("closed", "s.sig", "p(int) q(int)");
    let log = file(
        "closed",
        "t.log",
        "@0 q(1)\n@1 p(1) p(2)\n@5 p(1)\n@6 q(2) p(2)\n",
    );
    for (formula, how) in [
        (
            "FORALL x. (p(x) IMPLIES ONCE[0,3] q(x))",
            "sliced by time instead",
        ),
        (
            "FORALL x. (p(x) IMPLIES ONCE q(x))",
            "it runs as a single run",
        ),
        ("p(2) IMPLIES PREVIOUS[0,2] q(1)", "sliced by time instead"),
    ] {
        let spec = file("closed", "f.mfotl", formula);
        let single = check_with_sig(&spec, &sig, &[log.to_str().unwrap()]);
        assert_eq!(single.status, 1, "{formula}: {}", single.stderr);
        let sliced = check_with_sig(&spec, &sig, &[log.to_str().unwrap(), "--workers", "2"]);
        assert_eq!(
            (sliced.status, sliced.stdout.as_str()),
            (1, single.stdout.as_str()),
            "{formula}: {}",
            sliced.stderr
        );
        assert!(
            sliced.stderr.contains("no variable to slice the data by")
                && sliced.stderr.contains(how),
            "{formula}: {}",
            sliced.stderr
        );
    }
}

/// JSON Lines and CSV events with a `time` field (beside the event or among its fields) are
/// read with it as their timestamp, as with `--time-field time`, and it is no argument of
/// theirs; without one, the run says once that positions are the timestamps.
#[test]
fn a_time_field_is_the_timestamp_by_default() {
    let spec = file(
        "time-default",
        "f.mfotl",
        "grant(r) IMPLIES ONCE[0,5] request(r)",
    );
    let sig = file("time-default", "s.sig", "grant(int) request(int)");
    let traces = [
        (
            "t.jsonl",
            "{\"name\": \"request\", \"time\": 1, \"fields\": {\"r\": 7}}\n\
             {\"name\": \"grant\", \"fields\": {\"r\": 7, \"time\": 4}}\n\
             {\"grant\": {\"r\": 7}, \"time\": 20}\n",
        ),
        (
            "t.csv",
            "request, time = 1, r = 7\ngrant, r = 7, time = 4\ngrant, time = 20, r = 7\n",
        ),
    ];
    for (name, text) in traces {
        let trace = file("time-default", name, text);
        let trace = trace.to_str().unwrap();
        let by_default = check_with_sig(&spec, &sig, &[trace]);
        assert_eq!(
            (by_default.status, by_default.stdout.as_str()),
            (1, "violation: time point 2 @20 (r=7)\n"),
            "{name}: {}",
            by_default.stderr
        );
        let named = check_with_sig(&spec, &sig, &[trace, "--time-field", "time"]);
        assert_eq!(
            (named.status, named.stdout.as_str()),
            (1, by_default.stdout.as_str()),
            "{name}"
        );
        assert!(
            !by_default.stderr.contains("positions"),
            "{}",
            by_default.stderr
        );
    }
    // Without a time field: positions, said once.
    let trace = file(
        "time-default",
        "u.jsonl",
        "{\"request\": {\"r\": 7}}\n{\"grant\": {\"r\": 7}}\n{\"grant\": {\"r\": 7}}\n",
    );
    let r = check_with_sig(&spec, &sig, &[trace.to_str().unwrap()]);
    assert_eq!((r.status, r.stdout.as_str()), (0, ""), "{}", r.stderr);
    assert_eq!(
        r.stderr
            .matches("event positions are used as timestamps")
            .count(),
        1,
        "{}",
        r.stderr
    );
}

/// `rvmon monpoly -help` lists MonPoly's options that rvmon takes, and exits 0; without
/// `-log` (or with `-log -`) the log is standard input, with the output of `-log FILE`, and
/// each verdict comes while the input is still open.
#[test]
fn monpoly_help_and_standard_input() {
    for flag in ["-help", "--help"] {
        let r = run(&["monpoly", flag]);
        assert_eq!(r.status, 0, "{}", r.stderr);
        for option in ["-sig <file>", "-formula <file>", "-log <file>", "-negate"] {
            assert!(r.stdout.contains(option), "{flag}: {}", r.stdout);
        }
    }
    let sig = file("monpoly-stdin", "s.sig", "p(int) q(int)");
    let formula = file("monpoly-stdin", "f.mfotl", "p(x) AND NOT ONCE[0,3] q(x)");
    let text = "@0 q(1)\n@1 p(1) p(2)\n@5 p(1)\n@6 q(2) p(2)\n";
    let log = file("monpoly-stdin", "t.log", text);
    let (sig, formula) = (sig.to_str().unwrap(), formula.to_str().unwrap());
    let args = ["monpoly", "-sig", sig, "-formula", formula];
    let with_log = run(&[&args[..], &["-log", log.to_str().unwrap()]].concat());
    assert_eq!(
        with_log.stdout,
        "@1 (time point 1): (2)\n@5 (time point 2): (1)\n"
    );
    for extra in [&[][..], &["-log", "-"]] {
        let piped = run_with_stdin(&[&args[..], extra].concat(), text);
        assert_eq!(
            (piped.status, piped.stdout.as_str()),
            (with_log.status, with_log.stdout.as_str()),
            "{extra:?}"
        );
    }
    let (line, status) = first_line_online(&args, "@0 q(1)\n@1 p(1) p(2)\n@5 q(1)\n");
    assert_eq!(line, "@1 (time point 1): (2)\n");
    assert_eq!(status, Some(0));
}

/// A missing trace or spec is named as such, before any question of format.
#[test]
fn a_missing_file_is_named() {
    let (spec, log) = requests_example();
    let missing = |dir: &str| {
        rvmon_testkit::scratch(env!("CARGO_TARGET_TMPDIR"), "cli")
            .join("missing")
            .join(dir)
            .display()
            .to_string()
    };
    for (spec, trace, which) in [
        (spec.clone(), missing("t.log"), missing("t.log")),
        (spec.clone(), missing("trace"), missing("trace")),
        (missing("p.mtl"), log.clone(), missing("p.mtl")),
        (missing("p"), log.clone(), missing("p")),
    ] {
        let r = run(&["check", &spec, &trace]);
        assert_eq!(r.status, 2);
        assert_eq!(r.stderr, format!("rvmon: error: {which}: no such file\n"));
    }
    let r = run(&["monpoly", "-sig", &missing("s.sig"), "-formula", &spec]);
    assert_eq!(r.status, 2);
    assert!(r.stderr.contains("s.sig: no such file"), "{}", r.stderr);
}

/// An empty trace passes, and says that it had no time points (single and sliced runs, each
/// kind of specification).
#[test]
fn an_empty_trace_passes_with_a_warning() {
    let (spec, _) = requests_example();
    let empty = file("empty", "t.log", "");
    let fo = file("empty", "f.mfotl", "p(x) IMPLIES ONCE[0,3] q(x)");
    let sig = file("empty", "s.sig", "p(int) q(int)");
    let lola = file("empty", "s.lola", "input a: Int64\ntrigger a > 1 \"big\"\n");
    let csv = file("empty", "t.csv", "time,a\n");
    let (empty, fo, sig) = (
        empty.to_str().unwrap(),
        fo.to_str().unwrap(),
        sig.to_str().unwrap(),
    );
    for args in [
        &["check", spec.as_str(), empty][..],
        &["check", fo, empty, "--sig", sig],
        &["check", fo, empty, "--sig", sig, "--workers", "2"],
        &["check", lola.to_str().unwrap(), csv.to_str().unwrap()],
    ] {
        let r = run(args);
        assert_eq!(
            (r.status, r.stdout.as_str()),
            (0, ""),
            "{args:?}: {}",
            r.stderr
        );
        assert!(
            r.stderr
                .contains("rvmon: warning: the trace has no time points"),
            "{args:?}: {}",
            r.stderr
        );
    }
}

/// `rvmon check SPEC TRACE` with `spec` written as `name` in the test's directory.
fn check_spec(test: &str, name: &str, spec: &str, trace: &std::path::Path) -> Run {
    let spec = file(test, name, spec);
    run(&["check", spec.to_str().unwrap(), trace.to_str().unwrap()])
}

/// A bare proposition is `p()`: the same verdicts, in `.mtl` files and in files without a
/// known extension.
#[test]
fn bare_propositions_are_nullary_predicates() {
    let log = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../examples/requests/trace.log"
    );
    let log = std::path::Path::new(log);
    let explicit = check_spec(
        "bare",
        "explicit.mtl",
        "(request() IMPLIES EVENTUALLY[0,5s] grant()) AND (grant() IMPLIES ONCE[0,5s] request())",
        log,
    );
    assert_eq!(explicit.status, 1, "{}", explicit.stderr);
    for name in ["bare.mtl", "bare.spec"] {
        let bare = check_spec(
            "bare",
            name,
            "(request IMPLIES EVENTUALLY[0,5s] grant) AND (grant IMPLIES ONCE[0,5s] request)",
            log,
        );
        assert_eq!(
            (bare.status, &bare.stdout),
            (explicit.status, &explicit.stdout),
            "{name}: {}",
            bare.stderr
        );
    }
    // Under a signature that gives `request` an argument, a bare `request` is an error.
    let sig = file("bare", "s.sig", "request(int) grant()");
    let spec = file("bare", "sig.mtl", "request IMPLIES EVENTUALLY grant");
    let r = check_with_sig(&spec, &sig, &[log.to_str().unwrap()]);
    assert_eq!((r.status, r.stdout.as_str()), (2, ""), "{}", r.stderr);
    assert!(
        r.stderr.contains(
            "sig.mtl:1:1: `request` takes 1 argument in the signature, but is used here with none"
        ),
        "{}",
        r.stderr
    );
}

/// A `.ltl` file in Spot's syntax gives the verdicts of the same formula in MonPoly's.
#[test]
fn spot_syntax_in_ltl_files() {
    let log = file(
        "spot",
        "t.log",
        "@0 request()\n@1 grant()\n@2 request()\n@3 heartbeat()\n@4 request()\n@5 grant()\n",
    );
    let log = log.to_str().unwrap();
    let check = |name: &str, formula: &str| {
        let spec = file("spot", name, formula);
        run(&["check", spec.to_str().unwrap(), log, "--output", "jsonl"])
    };
    for (spot, monpoly, verdict) in [
        (
            "G(request -> F grant)",
            "ALWAYS (request() IMPLIES EVENTUALLY grant())",
            "inconclusive",
        ),
        (
            "G(request -> X grant)",
            "ALWAYS (request() IMPLIES NEXT grant())",
            "violation",
        ),
        // Spot's precedence, not MonPoly's: `X[2] a | b` is `(X X a) | b`.
        (
            "X[2] heartbeat | request",
            "(NEXT NEXT heartbeat()) OR request()",
            "violation",
        ),
    ] {
        let s = check("f.ltl", spot);
        let m = check("f.mtl", monpoly);
        assert!(
            m.stdout.contains(verdict),
            "{monpoly}: {}{}",
            m.stdout,
            m.stderr
        );
        assert_eq!(
            (s.status, &s.stdout, &s.stderr),
            (m.status, &m.stdout, &m.stderr),
            "{spot}"
        );
    }
    // (MonPoly's precedence would read it otherwise, with other verdicts.)
    let spot = check("f.ltl", "X[2] heartbeat | request");
    let other = check("f.mtl", "NEXT NEXT heartbeat() OR request()");
    assert_ne!(spot.stdout, other.stdout);
}

/// A misspelt keyword is named, with the keyword it resembles, at its place.
#[test]
fn misspelt_keywords_get_a_suggestion() {
    let log = file("typo", "t.log", "@0 p()\n");
    let r = check_spec(
        "typo",
        "f.mtl",
        "ALWAYS (q() IMPLIES\n  EVENTUALY p())",
        &log,
    );
    assert_eq!((r.status, r.stdout.as_str()), (2, ""), "{}", r.stderr);
    assert!(
        r.stderr
            .contains("f.mtl:2:3: `EVENTUALY` is not a keyword: did you mean `EVENTUALLY`?"),
        "{}",
        r.stderr
    );
}

/// The examples of unbounded future: a time point is violated as soon as no
/// continuation can satisfy the formula there, online too, before earlier time points that
/// still wait; what neither holds nor fails is inconclusive at the end; `--explain` says so.
#[test]
fn unbounded_future_gives_exact_three_valued_verdicts() {
    let spec = file(
        "ltl3",
        "f.mtl",
        "(request IMPLIES EVENTUALLY grant) AND NOT bad",
    );
    let log = file("ltl3", "t.log", "@5 request()\n@9 bad()\n@10 heartbeat()\n");
    let r = run(&[
        "check",
        spec.to_str().unwrap(),
        log.to_str().unwrap(),
        "--output",
        "jsonl",
    ]);
    assert_eq!(r.status, 1, "{}", r.stderr);
    assert_eq!(
        r.stdout,
        "{\"tp\":1,\"ts\":9,\"verdict\":\"violation\"}\n{\"tp\":0,\"ts\":5,\"verdict\":\"inconclusive\"}\n"
    );
    // Online: the violation of time point 1 comes while time point 0 still waits (a MonPoly
    // time point ends at the next `@`).
    let (line, status) = first_line_online(
        &["check", spec.to_str().unwrap(), "--format", "monpoly"],
        "@5 request()\n@9 bad()\n@10\n",
    );
    assert_eq!(line, "violation: time point 1 @9\n");
    assert_eq!(status, Some(1));
    // Never satisfiable: a violation at once, not an inconclusive at the end.
    let never = file("ltl3", "never.mtl", "EVENTUALLY p AND ALWAYS NOT p");
    let r = run(&["check", never.to_str().unwrap(), log.to_str().unwrap()]);
    assert_eq!(r.status, 1);
    assert_eq!(r.stdout.lines().count(), 3, "{}", r.stdout);
    let r = run(&["check", spec.to_str().unwrap(), "--explain"]);
    assert!(
        r.stdout.contains("checked: at every time point"),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains("three-valued (LTL3)"), "{}", r.stdout);
}

/// A MonPoly log without an extension is recognised by its content; other content without an
/// extension asks for `--format`.
#[test]
fn monpoly_log_without_extension_is_recognised() {
    let spec = file("noext", "f.mtl", "request IMPLIES EVENTUALLY[0,5] grant");
    let log = file("noext", "trace", "\n  @0 request()\n@10 grant()\n");
    let r = run(&["check", spec.to_str().unwrap(), log.to_str().unwrap()]);
    assert_eq!(r.stdout, "violation: time point 0 @0\n", "{}", r.stderr);
    assert_eq!(r.status, 1);
    let other = file("noext", "other", "time,request\n0,1\n");
    let r = run(&["check", spec.to_str().unwrap(), other.to_str().unwrap()]);
    assert_eq!(r.status, 2);
    assert!(r.stderr.contains("use --format"), "{}", r.stderr);
}

/// A MonPoly log under another format's extension was read as that format (CSV: its lines
/// events no formula names) and gave no violation, status 0: a silent wrong answer. Now it is
/// an error saying what the file looks like, unless `--format` insists.
#[test]
fn monpoly_log_under_another_extension_is_refused() {
    let spec = file("wrongext", "f.mtl", "request IMPLIES EVENTUALLY[0,5] grant");
    let text = "# requests\n@0 request()\n@10 grant()\n";
    for name in ["trace.csv", "trace.jsonl", "trace.json", "trace.xml"] {
        let log = file("wrongext", name, text);
        let r = run(&["check", spec.to_str().unwrap(), log.to_str().unwrap()]);
        assert_eq!(r.status, 2, "{name}: {}", r.stderr);
        assert!(r.stderr.contains("as a MonPoly log's"), "{}", r.stderr);
        let r = run(&[
            "check",
            spec.to_str().unwrap(),
            log.to_str().unwrap(),
            "--format",
            "monpoly",
        ]);
        assert_eq!(
            r.stdout, "violation: time point 0 @0\n",
            "{name}: {}",
            r.stderr
        );
    }
    let rvm = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/rvm/acks.rvm");
    let log = file(
        "wrongext",
        "acks.csv",
        "@1 send(1)\n@2 ack(1)\n@3 send(1)\n",
    );
    let r = run(&["check", rvm, log.to_str().unwrap()]);
    assert_eq!(r.status, 2, "{}", r.stderr);
    assert!(r.stderr.contains("as a MonPoly log's"), "{}", r.stderr);
}

/// A trace none of whose events the formula names gave 0 violations without a word (a
/// misspelt or differently cased name); now a warning says so, and the status is unchanged.
#[test]
fn a_trace_without_the_formulas_events_is_warned_about() {
    let spec = file(
        "names",
        "f.mtl",
        "request() IMPLIES EVENTUALLY[0,5] grant()",
    );
    let log = file("names", "t.log", "@0 Request()\n@10 Grant()\n");
    let r = run(&["check", spec.to_str().unwrap(), log.to_str().unwrap()]);
    assert_eq!(r.status, 0, "{}", r.stderr);
    assert!(
        r.stderr.contains("are the names spelt alike"),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr
            .contains("it names: grant, request; the trace has: Grant, Request"),
        "{}",
        r.stderr
    );
    let log = file("names", "ok.log", "@0 other()\n@10 request()\n");
    let r = run(&["check", spec.to_str().unwrap(), log.to_str().unwrap()]);
    assert!(!r.stderr.contains("warning"), "{}", r.stderr);
}

/// `rvmon args` (through `sh -c` when `shell` is given: a command line ending in the
/// arguments), which must end by itself within `secs` seconds; never killed by a signal.
fn run_within(args: &[&str], shell: Option<&str>, secs: u64) -> Run {
    let mut cmd = match shell {
        Some(prefix) => {
            let line = format!("{prefix} exec \"$0\" \"$@\"");
            let mut c = Command::new("sh");
            c.arg("-c").arg(line).arg(env!("CARGO_BIN_EXE_rvmon"));
            c
        }
        None => rvmon(),
    };
    let child = cmd
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let id = child.id();
    let start = Instant::now();
    let watchdog = std::thread::spawn(move || {
        while start.elapsed() < Duration::from_secs(secs) {
            std::thread::sleep(Duration::from_millis(50));
            if std::fs::metadata(format!("/proc/{id}")).is_err() {
                return false;
            }
        }
        let _ = Command::new("kill").arg(id.to_string()).status();
        true
    });
    let out = child.wait_with_output().unwrap();
    let timed_out = watchdog.join().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!timed_out, "rvmon {args:?} ran past {secs} s");
    use std::os::unix::process::ExitStatusExt;
    assert_eq!(out.status.signal(), None, "rvmon {args:?}: {stderr}");
    Run {
        status: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr,
    }
}

/// The fuzz campaign's stack overflows: each deep input is a clean error at the place it
/// goes too deep (exit 2), within 10 s.
#[test]
fn deep_specifications_are_positioned_errors() {
    let cases: Vec<(&str, String, &str, String)> = vec![
        (
            "parens.mtl",
            format!("{}p(){}", "(".repeat(4_500), ")".repeat(4_500)),
            "t.log",
            "1:1001".into(),
        ),
        (
            "not.mtl",
            format!("{}p()", "NOT ".repeat(2_300)),
            "t.log",
            "1:4001".into(),
        ),
        (
            "once.mtl",
            format!("{}p()", "ONCE ".repeat(1_850)),
            "t.log",
            "1:5001".into(),
        ),
        (
            "next.mtl",
            format!("{}p()", "NEXT ".repeat(1_850)),
            "t.log",
            "1:5001".into(),
        ),
        (
            "exists.mtl",
            format!("{}p(x)", "EXISTS x. ".repeat(1_100)),
            "t.log",
            "1:10001".into(),
        ),
        (
            "since.mtl",
            format!("{}p()", "p() SINCE ".repeat(12_000)),
            "t.log",
            "1:10001".into(),
        ),
        (
            "parens.ltl",
            format!("{}a{}", "(".repeat(4_500), ")".repeat(4_500)),
            "t.log",
            "1:1001".into(),
        ),
        (
            "parens.lola",
            format!(
                "input a: Int64\noutput o := {}a{}",
                "(".repeat(5_700),
                ")".repeat(5_700)
            ),
            "t.csv",
            "2:1013".into(),
        ),
        (
            "minus.lola",
            format!("input a: Int64\noutput o := {}a", "-".repeat(9_500)),
            "t.csv",
            "2:1013".into(),
        ),
    ];
    for (name, text, trace, at) in cases {
        let spec = file("deep", name, &text);
        let trace = match trace {
            "t.log" => file("deep", trace, "@0 p()\n@1 q()\n"),
            _ => file("deep", trace, "time,a\n0,1\n"),
        };
        let r = run_within(
            &["check", spec.to_str().unwrap(), trace.to_str().unwrap()],
            None,
            10,
        );
        assert_eq!(r.status, 2, "{name}: {}", r.stderr);
        let expected = format!("{}:{at}: nesting deeper than 1000", spec.display());
        assert!(r.stderr.contains(&expected), "{name}: {}", r.stderr);
    }
    let monpoly = file(
        "deep",
        "m.mfotl",
        &format!("{}p(){}", "(".repeat(4_500), ")".repeat(4_500)),
    );
    let sig = file("deep", "m.sig", "p()\n");
    let log = file("deep", "m.log", "@0 p()\n");
    let args = [
        "monpoly",
        "-sig",
        sig.to_str().unwrap(),
        "-formula",
        monpoly.to_str().unwrap(),
        "-log",
        log.to_str().unwrap(),
    ];
    let r = run_within(&args, None, 10);
    assert_eq!(r.status, 2, "{}", r.stderr);
    assert!(
        r.stderr.contains("nesting deeper than 1000"),
        "{}",
        r.stderr
    );
}

/// Long flat chains are not deep: they run, whatever their length.
#[test]
fn long_flat_chains_give_verdicts() {
    let log = file("flat", "t.log", "@0 p()\n@1 p()\n");
    for n in [25_000, 100_000] {
        let spec = file("flat", "and.mtl", &vec!["p()"; n].join(" AND "));
        let r = run_within(
            &["check", spec.to_str().unwrap(), log.to_str().unwrap()],
            None,
            10,
        );
        assert_eq!(r.status, 0, "{n}: {}", r.stderr);
        let spec = file("flat", "or.ltl", &vec!["q"; n].join(" | "));
        let r = run_within(
            &["check", spec.to_str().unwrap(), log.to_str().unwrap()],
            None,
            10,
        );
        assert_eq!(r.status, 1, "{n}: {}", r.stderr);
        assert!(
            r.stdout.contains("violation: time point 1 @1"),
            "{}",
            r.stdout
        );
    }
    let csv = file("flat", "t.csv", "time,a\n0,2\n");
    let sum = format!(
        "input a: Int64\noutput o := {}\ntrigger o == 200000 \"sum\"",
        vec!["a"; 100_000].join(" + ")
    );
    let spec = file("flat", "sum.lola", &sum);
    let r = run_within(
        &["check", spec.to_str().unwrap(), csv.to_str().unwrap()],
        None,
        10,
    );
    assert_eq!(r.status, 1, "{}", r.stderr);
    assert!(r.stdout.contains("sum"), "{}", r.stdout);
    // 12,000 postfix operators in an ere: are one.
    let rvm = format!(
        "P(x) {{\n event create(x)\n event use(x)\n ere: create{} use\n @match \"m {{x}}\"\n}}",
        "*".repeat(12_000)
    );
    let spec = file("flat", "stars.rvm", &rvm);
    let log = file("flat", "r.log", "@0 create(1)\n@1 create(1)\n@2 use(1)\n");
    let r = run_within(
        &["check", spec.to_str().unwrap(), log.to_str().unwrap()],
        None,
        10,
    );
    assert_eq!(r.status, 1, "{}", r.stderr);
    assert!(r.stdout.contains("m 1"), "{}", r.stdout);
}

/// At the nesting limit a formula runs, on the command's thread and on the workers of a
/// sliced run (whose threads timely starts: their stack comes from `RUST_MIN_STACK`).
#[test]
fn formulas_at_the_limit_run_on_every_thread() {
    let log = file("limit", "t.log", "@0 p()\n@1 p()\n");
    for unit in ["NOT ", "ALWAYS[0,5] ", "PAST_ALWAYS ", "(p() OR "] {
        let close = if unit.starts_with('(') { ")" } else { "" };
        let text = format!("{}p(){}", unit.repeat(998), close.repeat(998));
        let spec = file("limit", "f.mtl", &text);
        let args = ["check", spec.to_str().unwrap(), log.to_str().unwrap()];
        let r = run_within(&args, Some("ulimit -s 8192;"), 10);
        assert!(r.status == 0 || r.status == 1, "{unit}: {}", r.stderr);
    }
    let sig = file("limit", "s.sig", "p(int)\n");
    let log = file("limit", "fo.log", "@0 p(1)\n@1 p(2)\n@2 p(1)\n");
    // The fuzzed 9 KB of `EXISTS x.` is within the limit: it runs.
    let text = format!("{}p(x)", "EXISTS x. ".repeat(920));
    let spec = file("limit", "ex.mfotl", &text);
    let args = [
        "check",
        spec.to_str().unwrap(),
        log.to_str().unwrap(),
        "--sig",
        sig.to_str().unwrap(),
    ];
    let r = run_within(&args, None, 10);
    assert_eq!(r.status, 0, "{}", r.stderr);
    let text = format!("p(x) IMPLIES {}p(x)", "ONCE[0,5] ".repeat(990));
    let spec = file("limit", "fo.mfotl", &text);
    let args = [
        "check",
        spec.to_str().unwrap(),
        log.to_str().unwrap(),
        "--sig",
        sig.to_str().unwrap(),
        "--workers",
        "2",
        "--slicing",
        "data",
    ];
    let r = run_within(&args, None, 30);
    assert_eq!(r.status, 0, "{}", r.stderr);
}

/// A `.lola` offset that would need more memory than `--memory-limit` is refused before
/// anything is allocated, with what it would need, also where the process may not take that
/// much address space (it once aborted: "memory allocation of 1073741824 bytes failed").
#[test]
fn offsets_past_the_memory_limit_are_refused() {
    let spec = file(
        "memory",
        "far.lola",
        "input a: Int64\noutput o := a.offset(by: -100000000).defaults(to: 0)\n",
    );
    let csv = file("memory", "t.csv", "time,a\n0,1\n1,2\n");
    let (s, c) = (spec.to_str().unwrap(), csv.to_str().unwrap());
    let r = run_within(&["check", s, c], Some("ulimit -v 2000000;"), 10);
    assert_eq!(r.status, 2, "{}", r.stderr);
    let expected = format!(
        "rvmon: error: {s}:2:13: `a.offset(by: -100000000)` keeps 100000000 past values of `a`, \
         which would need 3 GiB of memory, more than the memory limit of 1 GiB (--memory-limit)"
    );
    assert_eq!(r.stderr.trim_end(), expected);
    let near = file(
        "memory",
        "near.lola",
        "input a: Int64\noutput o := a[-100000, 0]\ntrigger o == 0 \"early\"\n",
    );
    let n = near.to_str().unwrap();
    let r = run_within(&["check", n, c, "--memory-limit", "1M"], None, 10);
    assert_eq!(r.status, 2, "{}", r.stderr);
    assert!(
        r.stderr.contains("more than the memory limit of 1 MiB"),
        "{}",
        r.stderr
    );
    let r = run_within(&["check", n, c, "--memory-limit", "4M"], None, 10);
    assert_eq!(r.status, 1, "{}", r.stderr);
    let r = run_within(&["check", n, c, "--memory-limit", "lots"], None, 10);
    assert_eq!(r.status, 2, "{}", r.stderr);
    assert!(
        r.stderr.contains("is not an amount of memory"),
        "{}",
        r.stderr
    );
}

/// `i64::MIN / -1` wraps, as integer arithmetic does; it was "division by zero".
#[test]
fn the_overflowing_quotient_wraps() {
    let spec = file(
        "quotient",
        "q.lola",
        "input a: Int64\noutput q := a / -1\ntrigger q == a \"wrapped\"\n",
    );
    let csv = file("quotient", "t.csv", &format!("time,a\n0,{}\n", i64::MIN));
    let r = run_within(
        &["check", spec.to_str().unwrap(), csv.to_str().unwrap()],
        None,
        10,
    );
    assert_eq!(r.status, 1, "{}", r.stderr);
    assert!(r.stdout.contains("wrapped"), "{}", r.stdout);
}
