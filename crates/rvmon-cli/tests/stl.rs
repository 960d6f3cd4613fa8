//! `rvmon check SPEC.stl TRACE.csv`: STL robustness against rtamt, the peer its users know.
//!
//! * rtamt's own examples (`../shared/peers/examples/rtamt`): `--robustness` prints what
//!   rtamt's oracle printed, byte for byte.
//! * Random formulas over every operator and random traces with many ties (so that signed
//!   zeros and window ends matter), run through rtamt itself (`PEERS_PY`, a Python with
//!   `pip install rtamt==0.4.10`, which `.ci/run` sets up) and through rvmon: the same numbers,
//!   to the last bit. Skips with a `SKIPPED` line without the peer, unless
//!   `RVMON_REQUIRE_PEERS` is set.

use std::path::Path;
use std::process::Command;

use proptest::strategy::{Strategy, ValueTree};
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use rvmon_cli::check_cmd::{self, CheckArgs};
use rvmon_testkit::{python_lines, shared_root, skip, stl, summary, Needs};

fn dir(name: &str) -> std::path::PathBuf {
    let d = rvmon_testkit::scratch(env!("CARGO_TARGET_TMPDIR"), "stl").join(name);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// `rvmon check SPEC TRACE --robustness` in-process: its standard output.
fn robustness(spec: &Path, trace: &Path) -> Result<String, String> {
    let mut args = CheckArgs::new(spec.to_str().unwrap(), trace.to_str().unwrap());
    args.robustness = true;
    let mut out = Vec::new();
    check_cmd::run(&args, &mut out, &mut std::io::sink()).map_err(|e| e.to_string())?;
    Ok(String::from_utf8(out).unwrap())
}

#[test]
fn rtamts_examples_byte_for_byte() {
    let examples = shared_root().join("../peers/examples/rtamt");
    if !examples.exists() {
        return skip(
            "stl: rtamt examples",
            Needs::Shared,
            "../shared/peers/examples/rtamt is not there",
        );
    }
    for spec in ["future", "past", "until"] {
        let want = std::fs::read_to_string(examples.join(format!("out/{spec}.offline.txt")))
            .unwrap()
            .lines()
            .filter(|l| !l.starts_with('#') && !l.starts_with("rc="))
            .map(|l| format!("{l}\n"))
            .collect::<String>();
        let got = robustness(
            &examples.join(format!("{spec}.stl")),
            &examples.join("trace1.csv"),
        )
        .unwrap();
        assert_eq!(got, want, "{spec}.stl");
    }
}

/// The bundled example: violations where the robustness is negative, status 1; with
/// `--robustness` every sample and status 0.
#[test]
fn bundled_example_reports_violations() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/stl");
    let args = CheckArgs::new(
        root.join("requirement.stl").to_str().unwrap(),
        root.join("signals.csv").to_str().unwrap(),
    );
    let mut out = Vec::new();
    let status = check_cmd::run(&args, &mut out, &mut std::io::sink()).unwrap();
    let out = String::from_utf8(out).unwrap();
    assert_eq!(status, 1);
    assert_eq!(out.lines().count(), 4, "{out}");
    assert!(
        out.starts_with("violation: sample 23 @23: robustness -0.33\n"),
        "{out}"
    );
    let all = robustness(&root.join("requirement.stl"), &root.join("signals.csv")).unwrap();
    assert_eq!(all.lines().count(), 40);
}

/// rtamt's robustness of each case, one line each (`ERROR` where rtamt raises), from one
/// Python process.
const DRIVER: &str = r#"
import json, sys, math
import rtamt
def rep(v):
    v = float(v)
    if math.isinf(v): return "inf" if v > 0 else "-inf"
    if math.isnan(v): return "nan"
    return repr(v)
for case in json.load(sys.stdin):
    try:
        spec = rtamt.StlDiscreteTimeSpecification()
        spec.declare_var('x', 'float'); spec.declare_var('y', 'float')
        spec.spec = case['formula']
        spec.parse()
        n = len(case['x'])
        out = spec.evaluate({'time': list(range(n)), 'x': case['x'], 'y': case['y']})
        print(" ".join(rep(r) for _, r in out))
    except Exception as e:
        print("ERROR")
"#;

#[test]
fn random_formulas_give_rtamts_numbers() {
    let Some(python) = std::env::var_os("PEERS_PY") else {
        return skip(
            "stl: rtamt differential",
            Needs::Peer,
            "PEERS_PY is not set (a Python with `pip install rtamt`)",
        );
    };
    let probe = Command::new(&python).args(["-c", "import rtamt"]).status();
    if !probe.is_ok_and(|s| s.success()) {
        return skip(
            "stl: rtamt differential",
            Needs::Peer,
            "PEERS_PY cannot import rtamt",
        );
    }
    let config = Config {
        rng_algorithm: RngAlgorithm::ChaCha,
        ..Config::default()
    };
    let mut runner =
        TestRunner::new_with_rng(config, TestRng::from_seed(RngAlgorithm::ChaCha, &[19; 32]));
    let cases: Vec<(String, Vec<(f64, f64)>)> = (0..1000)
        .map(|_| {
            let f = stl::formula().new_tree(&mut runner).unwrap().current();
            let t = stl::samples(2..12).new_tree(&mut runner).unwrap().current();
            (f, t)
        })
        .collect();
    let json: Vec<String> = cases
        .iter()
        .map(|(f, t)| {
            let (x, y) = (stl::json_values(t, false), stl::json_values(t, true));
            format!("{{\"formula\":{f:?},\"x\":[{x}],\"y\":[{y}]}}")
        })
        .collect();
    let peer = python_lines(&python, DRIVER, &format!("[{}]", json.join(",")));
    assert_eq!(
        peer.len(),
        cases.len(),
        "rtamt answered {} of {} cases",
        peer.len(),
        cases.len()
    );
    let d = dir("diff");
    let (mut agree, mut peer_errors, mut wrong) = (0, 0, Vec::new());
    for ((f, t), want) in cases.iter().zip(&peer) {
        if *want == "ERROR" {
            peer_errors += 1;
            continue;
        }
        let (spec, trace) = (d.join("f.stl"), d.join("t.csv"));
        std::fs::write(&spec, f).unwrap();
        let rows: String = t
            .iter()
            .enumerate()
            .map(|(i, (x, y))| format!("{i},{x:?},{y:?}\n"))
            .collect();
        std::fs::write(&trace, format!("time,x,y\n{rows}")).unwrap();
        let got = robustness(&spec, &trace).unwrap_or_else(|e| format!("error: {e}"));
        let got: Vec<&str> = got
            .lines()
            .map(|l| l.split_once(' ').map_or(l, |p| p.1))
            .collect();
        if got.join(" ") == *want {
            agree += 1;
        } else {
            wrong.push(format!(
                "{f}\n  on {t:?}\n  rtamt: {want}\n  rvmon: {}",
                got.join(" ")
            ));
        }
    }
    summary(
        "stl: rtamt differential",
        &format!(
            "{} random formulas: {agree} agree, {} differ, {peer_errors} refused by rtamt",
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
    assert!(agree > 900, "only {agree} cases compared");
}

/// `--intervals`: the bounds of the samples the horizon has not decided, as they tighten,
/// then each decided sample as bounds that meet; status 0. Refused for a formula with an
/// unbounded future operator, and for another language.
#[test]
fn intervals_tighten_then_meet() {
    let d = dir("intervals");
    let (spec, trace) = (d.join("iv.stl"), d.join("iv.csv"));
    std::fs::write(&spec, "always[0,2](x > 0)\n").unwrap();
    std::fs::write(&trace, "time,x\n0,1\n1,2\n2,0.5\n3,-1\n").unwrap();
    let run = |spec: &Path| {
        let mut args = CheckArgs::new(spec.to_str().unwrap(), trace.to_str().unwrap());
        args.intervals = true;
        let mut out = Vec::new();
        let status = check_cmd::run(&args, &mut out, &mut std::io::sink());
        status.map(|s| (s, String::from_utf8(out).unwrap()))
    };
    let (status, out) = run(&spec).unwrap();
    assert_eq!(status, 0);
    // After x=1: sample 0 below 1; after x=2: sample 1 below 2; x=0.5 decides sample 0
    // (0.5) and lowers sample 1; x=-1 decides sample 1 and bounds 2 and 3; the end decides
    // them (the window cut at the end).
    let want = "0 -inf 1.0\n1 -inf 2.0\n0 0.5 0.5\n1 -inf 0.5\n2 -inf 0.5\n1 -1.0 -1.0\n\
                2 -inf -1.0\n3 -inf -1.0\n2 -1.0 -1.0\n3 -1.0 -1.0\n";
    assert_eq!(out, want);
    // A bound that comes back to an earlier sample's value is still news: each line is
    // compared with the same sample's last one (x = 3, 1, 2, 1: sample 2's upper bound
    // falls from 2 to 1 when the last sample comes).
    std::fs::write(&trace, "time,x\n0,3\n1,1\n2,2\n3,1\n").unwrap();
    let want = "0 -inf 3.0\n0 -inf 1.0\n1 -inf 1.0\n0 1.0 1.0\n2 -inf 2.0\n1 1.0 1.0\n\
                2 -inf 1.0\n3 -inf 1.0\n2 1.0 1.0\n3 1.0 1.0\n";
    assert_eq!(run(&spec).unwrap().1, want);
    // A constant signal: every new sample gets its line once.
    std::fs::write(&spec, "eventually[0,2](x > 0)\n").unwrap();
    std::fs::write(&trace, "time,x\n0,1\n1,1\n2,1\n3,1\n").unwrap();
    let want = "0 1.0 inf\n1 1.0 inf\n0 1.0 1.0\n2 1.0 inf\n1 1.0 1.0\n3 1.0 inf\n\
                2 1.0 1.0\n3 1.0 1.0\n";
    assert_eq!(run(&spec).unwrap().1, want);
    // A window far past the samples read costs nothing more.
    std::fs::write(
        &spec,
        "(x > 0) until[1000000000000,1000000000001] (x < 0)\n",
    )
    .unwrap();
    assert_eq!(run(&spec).unwrap().0, 0);
    std::fs::write(&spec, "always(x > 0)\n").unwrap();
    let e = run(&spec).unwrap_err().to_string();
    assert!(
        e.contains("--intervals needs every future operator bounded"),
        "{e}"
    );
    let lola = d.join("s.lola");
    std::fs::write(&lola, "input x: Float64\n").unwrap();
    let e = run(&lola).unwrap_err().to_string();
    assert!(
        e.contains("--intervals is for signal temporal logic"),
        "{e}"
    );
}
