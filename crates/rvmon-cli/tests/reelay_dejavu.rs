//! Differential test against a peer: Reelay (first-order past-time MTL over categorical data,
//! with BDDs, as DejaVu does) and rvmon must find the DejaVu FMSD properties violated at the
//! same time points of the shipped 10 k-event logs. Reelay runs DejaVu's own formulas; rvmon
//! runs the formulations `bench/dejavu.py` benchmarks (for the data race and fifo, rvmon's
//! rewritings). `bench/reelay_dejavu.py --check` does the comparison; fifo is left out there,
//! as Reelay needs minutes for DejaVu's fifo formula.
//!
//! Needs `../shared` and a Python with `reelay` (`PEERS_PY`, which `.ci/run` sets up); skips
//! with a message otherwise, unless `RVMON_REQUIRE_PEERS` is set (CI), where a missing peer is
//! a failure.

use std::path::Path;
use std::process::Command;

#[test]
fn rvmon_and_reelay_find_the_same_violations_of_the_dejavu_properties() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let required = std::env::var_os("RVMON_REQUIRE_PEERS").is_some();
    let skip = |why: &str| {
        assert!(!required, "RVMON_REQUIRE_PEERS is set, but {why}");
        eprintln!("skipped: {why}");
    };
    if !root.join("../shared/data/dejavu-fmsd").exists() {
        return skip("../shared/data/dejavu-fmsd is absent");
    }
    let Some(python) = std::env::var_os("PEERS_PY") else {
        return skip("PEERS_PY is not set (a Python with `pip install reelay`)");
    };
    let out = Command::new(&python)
        .args(["-c", "import reelay"])
        .output()
        .expect("PEERS_PY runs");
    if !out.status.success() {
        return skip("PEERS_PY cannot import reelay");
    }
    let out = Command::new("python3")
        .arg(root.join("bench/reelay_dejavu.py"))
        .args(["--check", "--rvmon", env!("CARGO_BIN_EXE_rvmon")])
        .env("PEERS_PY", &python)
        .output()
        .expect("python3 runs");
    let table = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "rvmon and Reelay disagree:\n{table}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // Five properties compared, each in agreement (the script fails on any other outcome; this
    // checks that it compared them at all).
    let agreed = table.lines().filter(|l| l.ends_with("| yes |")).count();
    assert_eq!(agreed, 5, "{table}");
}
