//! R2U2 (issue 30): `rvmon check SPEC.{mltl,c2po} TRACE --output r2u2` against R2U2's own test
//! suites (`../shared/data/r2u2`, with their oracles), paper 18's running example, and
//! r2u2_cli itself on random formulas when it is installed (`R2U2_CLI`, or `r2u2_cli` on the
//! path).

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

const RVMON: &str = env!("CARGO_BIN_EXE_rvmon");

fn example(path: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/r2u2")
        .join(path)
        .to_string_lossy()
        .into_owned()
}

/// Verdict lines, per formula (R2U2's suites compare them so).
fn per_formula(text: &str) -> BTreeMap<String, Vec<String>> {
    let mut out: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for line in text.lines() {
        if let Some((f, rest)) = line.split_once(':') {
            if !f.is_empty() && f.bytes().all(|b| b.is_ascii_digit()) {
                out.entry(f.to_string()).or_default().push(rest.to_string());
            }
        }
    }
    out
}

fn run(args: &[&str]) -> std::process::Output {
    Command::new(RVMON).args(args).output().unwrap()
}

/// The cases left out, each with what rvmon says about it.
const LEFT_OUT: &[(&str, &str)] = &[
    ("agc", "contracts"),
    ("cav", "`STRUCT`"),
    ("set_agg", "`foreach`"),
    ("sets", "`STRUCT`"),
    ("struct", "`STRUCT`"),
    ("enum", "`ENUM`"),
    ("booleanizer_operators", "`pow`"),
];

#[test]
fn r2u2_suites_give_the_oracle_lines() {
    let Some(root) = rvmon_testkit::shared_data("r2u2", "r2u2/suites") else {
        return;
    };
    let data = root.parent().unwrap();
    let (mut same, mut total) = (0, 0);
    for suite in ["cav", "ft_subset", "long_trace", "regression"] {
        let text = std::fs::read_to_string(root.join(format!("{suite}.json"))).unwrap();
        let json: serde_json::Value = serde_json::from_str(&text).unwrap();
        for test in json["tests"].as_array().unwrap() {
            total += 1;
            let name = test["name"].as_str().unwrap();
            let option = |key: &str| {
                test["options"][key]
                    .as_bool()
                    .or(json["options"][key].as_bool())
                    .unwrap_or(false)
            };
            let mut c2po = Vec::new();
            if option("disable-rewrite") {
                c2po.push("no-rewrite");
            }
            if option("disable-cse") {
                c2po.push("no-cse");
            }
            let spec = data.join("c2po").join(test["mltl"].as_str().unwrap());
            let trace = data.join("trace").join(test["trace"].as_str().unwrap());
            let mut args = vec![
                "check".to_string(),
                spec.to_string_lossy().into_owned(),
                trace.to_string_lossy().into_owned(),
                "--output".into(),
                "r2u2".into(),
            ];
            if !c2po.is_empty() {
                args.extend(["--c2po".to_string(), c2po.join(",")]);
            }
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let out = run(&args);
            if let Some((_, why)) = LEFT_OUT.iter().find(|(n, _)| *n == name) {
                let err = String::from_utf8_lossy(&out.stderr);
                assert_eq!(out.status.code(), Some(2), "{name}: {err}");
                assert!(
                    err.contains("does not read yet") && err.contains(why),
                    "{name}: {err}"
                );
                continue;
            }
            let oracle = data.join("oracle").join(test["oracle"].as_str().unwrap());
            let want = per_formula(&std::fs::read_to_string(oracle).unwrap());
            let got = per_formula(&String::from_utf8_lossy(&out.stdout));
            assert_eq!(out.status.code(), Some(0), "{name}: {out:?}");
            assert_eq!(got, want, "{suite}/{name}: the oracle's lines");
            same += 1;
        }
    }
    assert_eq!((same, total), (total - LEFT_OUT.len(), 25));
    rvmon_testkit::summary(
        "r2u2",
        &format!(
            "{same}/{total} suite cases give the oracle's lines; {} left out (C2PO's structs, \
             sets, enums, contracts, pow/sqrt/prev)",
            LEFT_OUT.len()
        ),
    );
}

/// Paper 18's running example, `cmd = takeoff → ◇[0,40](alt ≥ 600)`: true before the
/// takeoff; after it, decided when the altitude reaches 600 (step 26, for the steps 2 to 26)
/// or when the 40 steps pass without (the takeoff at step 60 is false, known at step 100).
/// The expected lines are r2u2_cli's, and the semantics' (checked by hand above).
#[test]
fn paper_18_takeoff_climbs_within_40_steps() {
    let out = run(&[
        "check",
        &example("takeoff.c2po"),
        &example("takeoff.csv"),
        "--output",
        "r2u2",
    ]);
    let want = std::fs::read_to_string(example("takeoff.r2u2")).unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout), want);
    assert!(want.starts_with("0:0,T\n0:1,T\n0:26,T\n"));
    assert!(want.contains("0:59,T\n0:60,F\n0:100,T\n"));
    // rvmon's own output: the violation, with the formula's label and the steps it covers.
    let out = run(&[
        "check",
        &example("takeoff.c2po"),
        &example("takeoff.csv"),
        "--output",
        "jsonl",
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        "{\"formula\":0,\"label\":\"climb\",\"from\":60,\"to\":60,\"verdict\":\"violation\"}\n"
    );
}

#[test]
fn mltl_files_and_explain() {
    let out = run(&[
        "check",
        &example("request.mltl"),
        &example("request.csv"),
        "--output",
        "r2u2",
    ]);
    let want = std::fs::read_to_string(example("request.r2u2")).unwrap();
    assert_eq!(String::from_utf8_lossy(&out.stdout), want);
    let out = run(&["check", &example("request.mltl"), "--explain"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("false R[0,3]"), "{text}");
    assert!(
        text.contains("memory: ") && text.contains("fixed before the run"),
        "{text}"
    );
    // Errors say where.
    let dir = rvmon_testkit::scratch(env!("CARGO_TARGET_TMPDIR"), "r2u2");
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.mltl");
    std::fs::write(&bad, "G[3,1] a0\n").unwrap();
    let out = run(&["check", bad.to_str().unwrap(), &example("request.csv")]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("bad.mltl:1:6: an interval [3,1]"), "{err}");
    let trace = dir.join("bad.csv");
    std::fs::write(&trace, "# a0,a1\n1,0\n1,x\n").unwrap();
    let out = run(&[
        "check",
        &example("request.mltl"),
        trace.to_str().unwrap(),
        "--output",
        "r2u2",
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("bad.csv:3:3: expected a number for `a1`"),
        "{err}"
    );
}

/// r2u2_cli on random formulas (bench/r2u2_diff.py, a small fixed-seed sample).
#[test]
fn random_formulas_match_r2u2_cli() {
    let peer = std::env::var("R2U2_CLI").unwrap_or_else(|_| "r2u2_cli".into());
    if Command::new(&peer).arg("--version").output().is_err() {
        rvmon_testkit::skip(
            "r2u2 differential",
            rvmon_testkit::Needs::Peer,
            "r2u2_cli is not installed (cargo install r2u2_cli --locked; or set R2U2_CLI)",
        );
        return;
    }
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../bench/r2u2_diff.py");
    let out = Command::new("python3")
        .arg(script)
        .args([RVMON, &peer, "40", "7"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    rvmon_testkit::summary("r2u2 differential", text.lines().last().unwrap_or(""));
}
