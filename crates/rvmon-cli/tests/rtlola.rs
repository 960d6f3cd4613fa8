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

fn run(args: &[&str]) -> (String, i32) {
    let out = Command::new(RVMON).args(args).output().unwrap();
    (
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr),
        out.status.code().unwrap_or(-1),
    )
}

fn example(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/rtlola")
        .join(name)
        .to_string_lossy()
        .into_owned()
}

/// The bundled fleet example (one instance per aircraft, windows read once a second), as
/// rtlola-cli 0.1.2 prints it (checked against it when this test was written).
#[test]
fn fleet_example_gives_rtlola_s_lines() {
    let (text, code) = run(&[
        "check",
        &example("fleet.lola"),
        &example("fleet.csv"),
        "--output",
        "rtlola",
        "--values",
    ]);
    assert_eq!(code, 1, "{text}");
    for line in [
        "[0.900000000][Output][climb(1)][Value] = 600",
        "[0.900000000][Trigger][#0][Value] = \"steep climb\"",
        "[2.000000000][Output][rate][Value] = 5",
        "[3.000000000][Output][ceiling][Value] = 11200",
        "[3.000000000][Trigger][#1][Value] = \"above the ceiling\"",
        "[4.800000000][Output][reports(1)][Value] = 5",
        // Closed after its fifth report, the instance starts again from 1.
        "[5.000000000][Output][reports(1)][Value] = 1",
        "[5.000000000][Output][ceiling][Value] = 3150",
    ] {
        assert!(text.contains(line), "missing {line} in\n{text}");
    }
    assert_eq!(text.matches("][Trigger][").count(), 3, "{text}");
    let (text, code) = run(&[
        "check",
        &example("fleet.lola"),
        &example("fleet.csv"),
        "--explain",
    ]);
    assert_eq!(code, 0, "{text}");
    for part in [
        "reports: Int64 — evaluated at id; decided at its event; instances (p: UInt64) spawned at id; its close condition checked after each evaluation",
        "rate: UInt64 — evaluated every 1s",
        "memory grows with the live instances",
    ] {
        assert!(text.contains(part), "missing {part} in\n{text}");
    }
}

/// rtlola-cli's `--offline` time formats and `--output-time-format relative-nanos`, with the
/// lines rtlola-cli prints for them.
#[test]
fn time_formats_read_as_rtlola_cli_reads_them() {
    let dir = rvmon_testkit::scratch(env!("CARGO_TARGET_TMPDIR"), "rtlola-time");
    let spec = dir.join("n.lola");
    std::fs::write(&spec, "input a: Int64\noutput b @ 2Hz := a.hold(or: 0)\n").unwrap();
    let cases: &[(&str, &str, &[&str], &str)] = &[
        ("n.csv", "a,time\n1,1000000000\n2,1500000000\n", &["--time-format", "relative-nanos"],
         "[0.500000000][Output][b][Value] = 0\n[1.000000000][Output][b][Value] = 1\n[1.500000000][Output][b][Value] = 2\n"),
        ("n.csv", "a,time\n1,1000000000\n2,1500000000\n",
         &["--time-format", "relative-uint-nanos", "--output-time-format", "relative-nanos"],
         "[500000000][Output][b][Value] = 0\n[1000000000][Output][b][Value] = 1\n[1500000000][Output][b][Value] = 2\n"),
        ("o.csv", "a,time\n1,0.5\n2,0.7\n3,0.1\n", &["--time-format", "offset-secs"],
         "[0.500000000][Output][b][Value] = 1\n[1.000000000][Output][b][Value] = 1\n"),
        ("u.csv", "a,time\n1,1700000000.25\n2,1700000001.5\n", &["--time-format", "absolute-unix"],
         "[0.500000000][Output][b][Value] = 1\n[1.000000000][Output][b][Value] = 1\n"),
    ];
    for (name, csv, flags, want) in cases {
        let trace = dir.join(name);
        std::fs::write(&trace, csv).unwrap();
        let mut args = vec!["check", spec.to_str().unwrap(), trace.to_str().unwrap()];
        args.extend(["--output", "rtlola", "--values"]);
        args.extend(flags.iter());
        let out = Command::new(RVMON).args(&args).output().unwrap();
        assert_eq!(String::from_utf8_lossy(&out.stdout), *want, "{flags:?}");
    }
    let trace = dir.join("u.csv");
    let (text, code) = run(&[
        "check",
        spec.to_str().unwrap(),
        trace.to_str().unwrap(),
        "--time-format",
        "absolute-rfc3339",
    ]);
    assert_eq!(code, 2, "{text}");
    assert!(text.contains("absolute-rfc3339 is not supported"), "{text}");
    let (text, code) = run(&[
        "check",
        spec.to_str().unwrap(),
        trace.to_str().unwrap(),
        "--time-format",
        "relative-nanos",
    ]);
    assert_eq!(code, 2, "{text}");
    assert!(
        text.contains("expected a time in whole nanoseconds, found `1700000000.25`"),
        "{text}"
    );
}

/// Bit operators on integers as rtlola-cli computes them (its lines for this spec; `~` on
/// signed and unsigned, shift counts modulo 64). rtlola-cli rejects `&`/`|` on Booleans and
/// panics on shifts of signed integers; rvmon computes both (`&&`/`||`, arithmetic shifts).
#[test]
fn bit_operators_give_rtlola_s_values() {
    let dir = rvmon_testkit::scratch(env!("CARGO_TARGET_TMPDIR"), "rtlola-bits");
    let spec = dir.join("bits.lola");
    std::fs::write(
        &spec,
        "input a: Int64\ninput u: UInt64\noutput y := u >> 2 ^ u << 3 & 255\noutput z := ~u\n\
         output w := ~a + a\noutput r := u << 70\noutput s := a >> 1 | a << 2\n\
         output b := (a > 0) & (u > 3) | false\n",
    )
    .unwrap();
    let trace = dir.join("bits.csv");
    std::fs::write(&trace, "a,u,time\n5,3,0.1\n-7,9,0.2\n").unwrap();
    let (text, code) = run(&[
        "check",
        spec.to_str().unwrap(),
        trace.to_str().unwrap(),
        "--output",
        "rtlola",
        "--values",
    ]);
    assert_eq!(code, 0, "{text}");
    for line in [
        "[0.100000000][Output][y][Value] = 24",
        "[0.100000000][Output][z][Value] = 18446744073709551612",
        "[0.100000000][Output][w][Value] = -1",
        "[0.100000000][Output][r][Value] = 192",
        "[0.200000000][Output][y][Value] = 74",
        "[0.200000000][Output][r][Value] = 576",
        // -7 >> 1 = -4 (arithmetic), -7 << 2 = -28: -4 | -28 = -4.
        "[0.200000000][Output][s][Value] = -4",
        "[0.100000000][Output][b][Value] = false",
        "[0.200000000][Output][b][Value] = false",
    ] {
        assert!(text.contains(line), "missing {line} in\n{text}");
    }
    let (text, code) = run(&[
        "check",
        spec.to_str().unwrap(),
        trace.to_str().unwrap(),
        "--explain",
    ]);
    assert_eq!(code, 0, "{text}");
    std::fs::write(&spec, "input x: Float64\noutput y := x & 1.0\n").unwrap();
    let (text, code) = run(&["check", spec.to_str().unwrap(), trace.to_str().unwrap()]);
    assert_eq!(code, 2, "{text}");
    assert!(text.contains("`&` needs integers, found Float64"), "{text}");
}
