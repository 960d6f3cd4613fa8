//! `rvmon check SPEC.stl TRACE.csv --dense`: dense-time STL robustness at the front door.
//!
//! * stlrom's example, whose exact values are worked out in `rvmon-stl`'s tests, and the
//!   errors (standard input, a spec that is not STL, `next`, equal timestamps).
//! * Random formulas (every operator dense time has) on random traces with irregular
//!   timestamps, against rtamt's dense monitor (`PEERS_PY`, a Python with `pip install
//!   rtamt==0.4.10`, which `.ci/run` sets up): every value rtamt gives is rvmon's. rtamt leaves
//!   out the first segment of a `since` when it is `-inf` (no value at the first samples, and
//!   windows above it that read that stretch miss it): those cases are counted, not
//!   compared. The traces start at 0, where rtamt's signals start (see `cases`). Skips with a
//!   `SKIPPED` line without the peer,
//!   unless `RVMON_REQUIRE_PEERS` is set. `bench/stl_dense_diff.py` is the larger comparison,
//!   with stlrom and Reelay too.

use std::path::{Path, PathBuf};
use std::process::Command;

use proptest::prelude::*;
use proptest::strategy::ValueTree;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use rvmon_cli::check_cmd::{self, CheckArgs};
use rvmon_testkit::{python_lines, shared_root, skip, stl, summary, Needs};

fn dir(name: &str) -> PathBuf {
    let d = rvmon_testkit::scratch(env!("CARGO_TARGET_TMPDIR"), "stl_dense").join(name);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// `rvmon check SPEC TRACE --dense` (with `--robustness` if `every`) in-process: the status
/// and standard output, or the error.
fn dense(spec: &Path, trace: Option<&Path>, every: bool) -> Result<(i32, String), String> {
    let mut args = CheckArgs::new(spec.to_str().unwrap(), "-");
    args.trace = trace.map(|t| t.to_str().unwrap().to_string());
    args.dense = true;
    args.robustness = every;
    let mut out = Vec::new();
    let status =
        check_cmd::run(&args, &mut out, &mut std::io::sink()).map_err(|e| e.to_string())?;
    Ok((status, String::from_utf8(out).unwrap()))
}

fn write(d: &Path, name: &str, text: &str) -> PathBuf {
    let p = d.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

#[test]
fn stlroms_example_exactly() {
    let d = dir("example");
    let spec = write(
        &d,
        "f.stl",
        "always[0,3]((x > 0) implies eventually[0,2](y > 0))\n",
    );
    let trace = shared_root().join("../peers/examples/stlrom/trace1.csv");
    if !trace.exists() {
        return skip(
            "stl --dense: stlrom's example",
            Needs::Shared,
            "../shared/peers/examples/stlrom is not there",
        );
    }
    let (status, out) = dense(&spec, Some(&trace), true).unwrap();
    assert_eq!(status, 0);
    // At 2 the closed window [2,5] holds t = 5, where the implication is -1: stlrom's 1.0
    // leaves it out. With the last value held forever there is no `inf` at the end.
    assert_eq!(
        out,
        "0 1.0\n1 1.0\n2 -1.0\n3 -1.0\n4 -1.0\n5 -1.0\n6 -1.0\n7 -1.0\n"
    );
    let (status, out) = dense(&spec, Some(&trace), false).unwrap();
    assert_eq!(status, 1);
    assert!(
        out.starts_with("violation: sample 2 @2: robustness -1.0\n"),
        "{out}"
    );
}

#[test]
fn irregular_times_and_fractional_bounds() {
    let d = dir("irregular");
    let spec = write(&d, "f.stl", "once[0.5,1.5](x > 0)\n");
    let trace = write(&d, "t.csv", "time,x\n0,1\n0.25,-1\n2,2\n2.5,-3\n");
    // At 2: the window [0.5, 1.5] is all x = -1; at 2.5: [1, 2] reaches x(2) = 2.
    let (_, out) = dense(&spec, Some(&trace), true).unwrap();
    assert_eq!(out, "0 -inf\n0.25 -inf\n2 -1.0\n2.5 2.0\n");
}

#[test]
fn errors_say_where() {
    let d = dir("errors");
    let spec = write(&d, "f.stl", "always[0,1](x > 0)\n");
    let e = dense(&spec, None, true).unwrap_err();
    assert!(e.contains("--dense is offline"), "{e}");
    let trace = write(&d, "t.csv", "time,x\n0,1\n1,2\n1,3\n");
    let e = dense(&spec, Some(&trace), true).unwrap_err();
    assert!(
        e.contains("t.csv:4:1: time 1 is the previous sample's too"),
        "{e}"
    );
    // An event log: the file and the time point.
    let log = write(&d, "t.log", "@0 x(1)\n@1 x(2)\n@1 x(3)\n");
    let e = dense(&spec, Some(&log), true).unwrap_err();
    assert!(
        e.contains("t.log: time point 2: timestamp 1 is the previous time point's too"),
        "{e}"
    );
    let next = write(&d, "n.stl", "x > 0 and\n   next(x > 0)\n");
    let e = dense(&next, Some(&trace), true).unwrap_err();
    assert!(
        e.contains("n.stl:2:4: `next` has no meaning in dense time"),
        "{e}"
    );
    let mtl = write(&d, "f.mtl", "ALWAYS p()\n");
    let e = dense(&mtl, Some(&trace), true).unwrap_err();
    assert!(e.contains("--dense is for signal temporal logic"), "{e}");
}

/// rtamt's dense robustness at each sample time (its output signal read there; `None`
/// before its first change point), one line per case (`ERROR` where rtamt raises).
const DRIVER: &str = r#"
import json, sys, math
import rtamt
def rep(v):
    if v is None: return "none"
    v = float(v)
    if math.isinf(v): return "inf" if v > 0 else "-inf"
    if math.isnan(v): return "nan"
    return repr(v)
for case in json.load(sys.stdin):
    try:
        spec = rtamt.StlDenseTimeSpecification()
        spec.declare_var('x', 'float'); spec.declare_var('y', 'float')
        spec.spec = case['formula']
        spec.parse()
        t = case['t']
        out = spec.evaluate(['x', [[a, b] for a, b in zip(t, case['x'])]],
                            ['y', [[a, b] for a, b in zip(t, case['y'])]])
        vals = []
        for s in t:
            v = None
            for (c, r) in out:
                if c <= s: v = r
            vals.append(rep(v))
        print(" ".join(vals))
    except Exception as e:
        print("ERROR")
"#;

type Case = (String, Vec<i64>, Vec<(f64, f64)>);

fn cases(n: usize) -> Vec<Case> {
    let config = Config {
        rng_algorithm: RngAlgorithm::ChaCha,
        ..Config::default()
    };
    let mut runner =
        TestRunner::new_with_rng(config, TestRng::from_seed(RngAlgorithm::ChaCha, &[29; 32]));
    // Values without NaN: rtamt's min and max are Python's, whose NaN depends on the order.
    let value = (-3i32..=3).prop_map(|v| f64::from(v) / 2.0);
    (0..n)
        .map(|_| {
            let f = stl::dense_formula()
                .new_tree(&mut runner)
                .unwrap()
                .current();
            let len = (2usize..12).new_tree(&mut runner).unwrap().current();
            let t = stl::dense_times(len..len + 1)
                .new_tree(&mut runner)
                .unwrap()
                .current();
            // From 0: rtamt's future operators start their output at time 0, not at the
            // first sample, so a past window above one reads values before the trace
            // (bench/stl_dense_diff.py shows it); from 0 both start together.
            let t: Vec<i64> = t.iter().map(|s| s - t[0]).collect();
            let v = prop::collection::vec((value.clone(), value.clone()), len..len + 1)
                .new_tree(&mut runner)
                .unwrap()
                .current();
            (f, t, v)
        })
        .collect()
}

fn close(a: &str, b: &str) -> bool {
    match (a.parse::<f64>(), b.parse::<f64>()) {
        (Ok(x), Ok(y)) => x == y || (x.is_nan() && y.is_nan()) || (x - y).abs() <= 1e-9,
        _ => a == b,
    }
}

#[test]
fn random_formulas_give_rtamts_dense_numbers() {
    let suite = "stl --dense: rtamt dense differential";
    let Some(python) = std::env::var_os("PEERS_PY") else {
        return skip(
            suite,
            Needs::Peer,
            "PEERS_PY is not set (a Python with `pip install rtamt`)",
        );
    };
    let probe = Command::new(&python).args(["-c", "import rtamt"]).status();
    if !probe.is_ok_and(|s| s.success()) {
        return skip(suite, Needs::Peer, "PEERS_PY cannot import rtamt");
    }
    let cases = cases(300);
    let json: Vec<String> = cases
        .iter()
        .map(|(f, t, v)| {
            let (x, y) = (stl::json_values(v, false), stl::json_values(v, true));
            format!("{{\"formula\":{f:?},\"t\":{t:?},\"x\":[{x}],\"y\":[{y}]}}")
        })
        .collect();
    let peer = python_lines(&python, DRIVER, &format!("[{}]", json.join(",")));
    assert_eq!(
        peer.len(),
        cases.len(),
        "rtamt answered {} cases",
        peer.len()
    );
    let d = dir("diff");
    let (mut agree, mut omitted, mut refused, mut wrong) = (0, 0, 0, Vec::new());
    for ((f, t, v), want) in cases.iter().zip(&peer) {
        if *want == "ERROR" {
            refused += 1;
            continue;
        }
        let spec = write(&d, "f.stl", f);
        let rows: String = t
            .iter()
            .zip(v)
            .map(|(t, (x, y))| format!("{t},{x:?},{y:?}\n"))
            .collect();
        let trace = write(&d, "t.csv", &format!("time,x,y\n{rows}"));
        let got = match dense(&spec, Some(&trace), true) {
            Ok((_, out)) => out,
            Err(e) => format!("error: {e}"),
        };
        let got: Vec<&str> = got
            .lines()
            .map(|l| l.split_once(' ').map_or(l, |p| p.1))
            .collect();
        let want: Vec<&str> = want.split(' ').collect();
        // Where rtamt left out the start of a `since`, the windows above that read the
        // stretch it left out are off too: the case is not compared.
        if want.contains(&"none") {
            omitted += 1;
            continue;
        }
        if got.len() == want.len() && got.iter().zip(&want).all(|(g, w)| close(g, w)) {
            agree += 1;
        } else {
            wrong.push(format!(
                "{f}\n  on {t:?} {v:?}\n  rtamt: {}\n  rvmon: {}",
                want.join(" "),
                got.join(" ")
            ));
        }
    }
    summary(
        suite,
        &format!(
            "{} random formulas: {agree} agree at every sample, {} differ; not compared: \
             {omitted} where rtamt leaves out the -inf start of a `since`, {refused} refused by \
             rtamt",
            cases.len(),
            wrong.len()
        ),
    );
    assert!(
        wrong.is_empty(),
        "{} differ:\n{}",
        wrong.len(),
        wrong.join("\n")
    );
    assert!(agree > 200, "only {agree} cases compared at every sample");
}
