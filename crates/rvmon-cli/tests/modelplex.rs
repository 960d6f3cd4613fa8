//! ModelPlex monitor conditions (issue 35, paper 17) through `rvmon check`: the bundled water
//! tank (compliant, violating, the controller monitor in KeYmaera X's syntax), the output
//! forms, the fallback switch, and bad input.

use std::path::Path;
use std::process::{Command, Output};

const RVMON: &str = env!("CARGO_BIN_EXE_rvmon");

fn example(path: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/modelplex")
        .join(path)
        .to_string_lossy()
        .into_owned()
}

/// `rvmon check ARGS…`.
fn run(args: &[&str]) -> Output {
    Command::new(RVMON)
        .arg("check")
        .args(args)
        .output()
        .unwrap()
}

fn text(o: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

#[test]
fn the_compliant_water_tank_passes() {
    let o = run(&[&example("watertank.modelplex"), &example("watertank.csv")]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(0), "{out}{err}");
    assert_eq!(out, "");
    assert!(err.contains("0 violation(s) in 10 pair(s)"), "{err}");
}

#[test]
fn each_violation_names_the_pair_and_the_first_failing_conjunct() {
    let o = run(&[
        &example("watertank.modelplex"),
        &example("watertank-violating.csv"),
    ]);
    let (out, _) = text(&o);
    assert_eq!(o.status.code(), Some(1));
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(
        lines,
        [
            "violation: model monitor, sample 1 @0.5 → sample 2 @1: conjunct 2 fails: \
             f' <= (m - x)/eps; f 2 → 6, x 6 → 9, t 0.5 → 0.5",
            "violation: model monitor, sample 2 @1 → sample 3 @1.5: conjunct 3 fails: \
             x' = x + f'*t'; f 6 → 0.5, x 9 → 9.5, t 0.5 → 0.5",
            "violation: model monitor, sample 3 @1.5 → sample 4 @3: conjunct 6 fails: \
             eps >= t'; f 0.5 → -1, x 9.5 → 8, t 0.5 → 1.5",
        ]
    );
    let o = run(&[
        &example("watertank.modelplex"),
        &example("watertank-violating.csv"),
        "--output",
        "jsonl",
    ]);
    let (out, _) = text(&o);
    let first: serde_json::Value = serde_json::from_str(out.lines().next().unwrap()).unwrap();
    assert_eq!(first["verdict"], "violation");
    assert_eq!(first["monitor"], "model");
    assert_eq!(first["conjunct"], 2);
    assert_eq!(first["condition"], "f' <= (m - x)/eps");
    assert_eq!(first["from_tp"], 1);
    assert_eq!(first["prior"]["x"], 6.0);
    assert_eq!(first["posterior"]["f"], 6.0);
}

#[test]
fn the_controller_monitor_from_keymaera_x() {
    let o = run(&[
        &example("watertank-ctrl.modelplex"),
        &example("watertank-ctrl.csv"),
    ]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert_eq!(out.lines().count(), 1, "{out}");
    assert!(
        out.contains(
            "sample 2 @1 → sample 3 @1: conjunct 2 fails: fpost_0()<=(m-x)/ep (assuming ctrl' = 1)"
        ),
        "{out}"
    );
    let o = run(&[&example("watertank-ctrl.modelplex"), "--explain"]);
    let (out, _) = text(&o);
    assert!(
        out.contains("monitor controller:\n  1. -1<=fpost_0() (assuming ctrl' = 1)"),
        "{out}"
    );
    assert!(
        out.contains("memory: the previous sample (4 values)"),
        "{out}"
    );
}

/// `--fallback` runs after each violation is written, with the decision on its input; a
/// fallback that fails stops the run with status 2, after the decision it was for.
#[test]
fn the_fallback_switch_runs_per_violation() {
    let dir = rvmon_testkit::scratch(env!("CARGO_TARGET_TMPDIR"), "modelplex").join("fallback");
    std::fs::create_dir_all(&dir).unwrap();
    let log = dir.join("switched");
    let cmd = format!("cat >> {}", log.display());
    let o = run(&[
        &example("watertank.modelplex"),
        &example("watertank-violating.csv"),
        "--fallback",
        &cmd,
    ]);
    assert_eq!(o.status.code(), Some(1));
    let switched = std::fs::read_to_string(&log).unwrap();
    let tps: Vec<u64> = switched
        .lines()
        .map(|l| {
            serde_json::from_str::<serde_json::Value>(l).unwrap()["tp"]
                .as_u64()
                .unwrap()
        })
        .collect();
    assert_eq!(tps, [2, 3, 4]);
    let o = run(&[
        &example("watertank.modelplex"),
        &example("watertank-violating.csv"),
        "--fallback",
        "exit 3",
    ]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(
        out.lines().count(),
        1,
        "the first violation is written before: {out}"
    );
    assert!(err.contains("--fallback `exit 3` at time point 2"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn tolerance_forgives_small_differences() {
    let dir = rvmon_testkit::scratch(env!("CARGO_TARGET_TMPDIR"), "modelplex").join("tolerance");
    std::fs::create_dir_all(&dir).unwrap();
    let trace = dir.join("t.csv");
    std::fs::write(&trace, "time,x,f,t\n0,5,0,0\n1,6.0004,1,1\n").unwrap();
    let trace = trace.to_string_lossy().into_owned();
    let spec = example("watertank.modelplex");
    assert_eq!(run(&[&spec, &trace]).status.code(), Some(1));
    assert_eq!(
        run(&[&spec, &trace, "--tolerance", "0.001"]).status.code(),
        Some(0)
    );
    let o = run(&[&spec, &trace, "--tolerance", "x"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).1.contains("non-negative decimal"));
    std::fs::remove_dir_all(&dir).ok();
}

/// A sample is the shortest decimal that reads back as it, even after a sample of more
/// digits in its column: 8.00000000000001 is also the double of 8.000000000000011, which
/// reading it at the column's 15 digits gave (and `7.00000000000001 + 1 = 8.000000000000011`
/// failed). Only the first pair is a violation: 6.000000000000005 + 0.0000000000000049 is
/// 6.0000000000000099, not 6.00000000000001.
#[test]
fn a_sample_is_its_shortest_decimal_whatever_its_column_had() {
    let dir = rvmon_testkit::scratch(env!("CARGO_TARGET_TMPDIR"), "modelplex").join("shortest");
    std::fs::create_dir_all(&dir).unwrap();
    let (spec, trace) = (dir.join("eq.modelplex"), dir.join("eq.csv"));
    std::fs::write(&spec, "monitor a: x' = x + y'*y'\n").unwrap();
    let rows = "time,x,y\n0,5.000000000000005,0.00000007\n1,6.000000000000005,-1\n\
                2,6.00000000000001,0.00000007\n3,7.00000000000001,-1\n4,8.00000000000001,-1\n";
    std::fs::write(&trace, rows).unwrap();
    let o = run(&[spec.to_str().unwrap(), trace.to_str().unwrap()]);
    let out = text(&o).0;
    assert_eq!(out.lines().count(), 1, "{out}");
    assert!(out.contains("sample 1 @1 → sample 2 @2"), "{out}");
}

/// Bad input: a missing column, a cell that is not a number, a spec error; the verdicts
/// before a bad row are written first.
#[test]
fn bad_input_is_reported_with_its_place() {
    let dir = rvmon_testkit::scratch(env!("CARGO_TARGET_TMPDIR"), "modelplex").join("bad");
    std::fs::create_dir_all(&dir).unwrap();
    let spec = example("watertank.modelplex");
    let write = |name: &str, body: &str| {
        let p = dir.join(name);
        std::fs::write(&p, body).unwrap();
        p.to_string_lossy().into_owned()
    };
    let no_t = write("no_t.csv", "time,x,f\n0,5,0\n");
    let o = run(&[&spec, &no_t]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o)
            .1
            .contains("no_t.csv:1:1: the header has no column for input stream `t`"),
        "{}",
        text(&o).1
    );
    let bad = write("bad.csv", "time,x,f,t\n0,5,0,0\n1,12,6,1\n2,abc,0,1\n");
    let o = run(&[&spec, &bad]);
    let (out, err) = text(&o);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert_eq!(
        out.lines().count(),
        1,
        "the violation before the bad row: {out}"
    );
    assert!(err.contains(":4:"), "{err}");
    let nan = write("nan.csv", "time,x,f,t\n0,5,0,0\n1,NaN,0,1\n");
    let o = run(&[&spec, &nan]);
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o).1.contains("real numbers"), "{}", text(&o).1);
    let badspec = write("bad.modelplex", "const m = 10\nx' <= m &\n");
    let o = run(&[&badspec, &no_t]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o).1.contains("bad.modelplex:3:1: expected a number"),
        "{}",
        text(&o).1
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// `--report`: the page lists the violations with their monitor and conjunct (numbered as
/// the text output numbers them).
#[test]
fn the_report_lists_the_failing_conjuncts() {
    let dir = rvmon_testkit::scratch(env!("CARGO_TARGET_TMPDIR"), "modelplex").join("report");
    std::fs::create_dir_all(&dir).unwrap();
    let page = dir.join("r.html");
    let o = run(&[
        &example("watertank.modelplex"),
        &example("watertank-violating.csv"),
        "--report",
        &page.to_string_lossy(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(
        html.contains("model monitor, conjunct 2 `f&#39; &lt;= (m - x)/eps`"),
        "{html}"
    );
    assert!(html.contains("<svg"), "a picture of the signals");
    std::fs::remove_dir_all(&dir).ok();
}
