//! Differential test against a peer: Reelay (first-order past-time MTL over categorical data,
//! with BDDs, as DejaVu does) and rvmon must find the DejaVu FMSD properties violated at the
//! same time points of the shipped 10 k-event logs. Reelay runs DejaVu's own formulas; rvmon
//! runs the formulations `bench/dejavu.py` benchmarks (for the data race and fifo, rvmon's
//! rewritings). `bench/reelay_dejavu.py --check` does the comparison; fifo is left out there,
//! as Reelay needs minutes for DejaVu's fifo formula.
//!
//! Needs `../shared` and a Python with `reelay` (`PEERS_PY`, which `.ci/run` sets up); skips
//! with a `SKIPPED` line otherwise, unless `RVMON_REQUIRE_SHARED` or `RVMON_REQUIRE_PEERS` is
//! set (CI), where what is missing is a failure.

use std::path::Path;
use std::process::Command;

use rvmon_testkit::Needs;

#[test]
fn rvmon_and_reelay_find_the_same_violations_of_the_dejavu_properties() {
    const SUITE: &str = "reelay_dejavu";
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let skip = |why: &str| rvmon_testkit::skip(SUITE, Needs::Peer, why);
    if rvmon_testkit::shared_data(SUITE, "dejavu-fmsd").is_none() {
        return;
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
    rvmon_testkit::summary(
        SUITE,
        &format!("{agreed}/5 properties: the same violations as Reelay"),
    );
}
