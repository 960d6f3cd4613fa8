//! Differential test against a peer: Spot (`pip install spottl`) and rvmon must give every time
//! point of random short traces the same LTL3 verdict (violation, satisfied, inconclusive) for
//! random LTL formulas. `bench/spot_ltl3.py` generates the cases (fixed seed), asks Spot
//! (emptiness of the words that begin with the suffix and satisfy the formula, or its
//! negation) and runs `rvmon check`; it fails on any disagreement. A longer sweep is the same
//! script with `--count 2000 --tree-size 20` (ARCHITECTURE.md has its figures).
//!
//! Needs a Python with `spottl` (`PEERS_PY`, which `.ci/run` sets up); skips with a `SKIPPED`
//! line otherwise, unless `RVMON_REQUIRE_PEERS` is set (CI), where a missing peer fails.

use std::path::Path;
use std::process::Command;

use rvmon_testkit::Needs;

#[test]
fn rvmon_gives_spots_ltl3_verdicts_on_random_formulas() {
    const SUITE: &str = "spot_ltl3";
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let skip = |why: &str| rvmon_testkit::skip(SUITE, Needs::Peer, why);
    let Some(python) = std::env::var_os("PEERS_PY") else {
        return skip("PEERS_PY is not set (a Python with `pip install spottl`)");
    };
    let out = Command::new(&python)
        .args(["-c", "import spot"])
        .output()
        .expect("PEERS_PY runs");
    if !out.status.success() {
        return skip("PEERS_PY cannot import spot");
    }
    let out = Command::new(&python)
        .arg(root.join("bench/spot_ltl3.py"))
        .args([
            "--rvmon",
            env!("CARGO_BIN_EXE_rvmon"),
            "--count",
            "200",
            "--seed",
            "7",
        ])
        .output()
        .expect("the script runs");
    let report = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "rvmon and Spot disagree:\n{report}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // The script fails on any disagreement; check that it compared something of each kind.
    let line = report.lines().next().unwrap_or_default();
    for kind in [
        " violation",
        " satisfied",
        " inconclusive",
        "disagreements 0",
    ] {
        assert!(line.contains(kind), "{line}");
    }
    rvmon_testkit::summary(SUITE, line);
}
