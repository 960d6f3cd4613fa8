//! RTLola (issue 31): `rvmon check SPEC.lola TRACE.csv --values --output rtlola` against
//! rtlola-cli 0.1.2 itself, line for line, on random real-time specifications (periodic
//! streams, sample and hold both ways, windows over time and over values) and traces with
//! irregular timestamps and missing values: bench/rtlola_random.py, a small fixed-seed sample.
//! rtlola-cli is found as `RTLOLA_CLI`, or `rtlola-cli` on the path.

use std::path::Path;
use std::process::Command;

const RVMON: &str = env!("CARGO_BIN_EXE_rvmon");

#[test]
fn random_real_time_specifications_match_rtlola_cli() {
    let peer = std::env::var("RTLOLA_CLI").unwrap_or_else(|_| "rtlola-cli".into());
    if Command::new(&peer).arg("--version").output().is_err() {
        rvmon_testkit::skip(
            "rtlola differential",
            rvmon_testkit::Needs::Peer,
            "rtlola-cli is not installed (cargo install rtlola-cli --version 0.1.2 --locked; or set RTLOLA_CLI)",
        );
        return;
    }
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../bench/rtlola_random.py");
    let out = Command::new("python3")
        .arg(script)
        .args([RVMON, &peer, "60", "7"])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{text}");
    rvmon_testkit::summary("rtlola differential", text.lines().last().unwrap_or(""));
}
