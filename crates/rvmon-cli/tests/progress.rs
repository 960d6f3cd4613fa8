//! The progress display: on standard error when it is a terminal (here a pseudo-terminal made
//! by util-linux's `script`), none on a pipe, none with `--quiet`.

use std::path::PathBuf;
use std::process::Command;

/// A log of 600,000 time points in a directory of its own (`name`: the tests run in parallel).
fn big_log(name: &str) -> PathBuf {
    let d = rvmon_testkit::scratch(env!("CARGO_TARGET_TMPDIR"), "progress").join(name);
    std::fs::create_dir_all(&d).unwrap();
    let log = d.join("t.log");
    let mut text = String::new();
    for t in 0..600_000 {
        text.push('@');
        text.push_str(&t.to_string());
        text.push_str(if t % 5 == 0 { " req()\n" } else { " grant()\n" });
    }
    std::fs::write(&log, text).unwrap();
    std::fs::write(d.join("f.mtl"), "req() IMPLIES EVENTUALLY[0,3] grant()").unwrap();
    log
}

/// What `rvmon check` writes on a terminal's standard error, or `None` where `script` is
/// missing (the test says so and passes).
fn on_a_terminal(extra: &str) -> Option<String> {
    let log = big_log(if extra.is_empty() {
        "terminal"
    } else {
        "quiet"
    });
    let spec = log.with_file_name("f.mtl");
    let command = format!(
        "{} check {} {} {extra} > /dev/null",
        env!("CARGO_BIN_EXE_rvmon"),
        spec.display(),
        log.display()
    );
    let out = Command::new("script")
        .args(["-qec", &command, "/dev/null"])
        .output();
    match out {
        Ok(out) => Some(String::from_utf8_lossy(&out.stdout).into_owned()),
        Err(e) => {
            eprintln!("SKIPPED: no `script` to make a terminal ({e})");
            None
        }
    }
}

#[test]
fn a_terminal_shows_progress_and_quiet_does_not() {
    let Some(shown) = on_a_terminal("") else {
        return;
    };
    assert!(shown.contains("time points ("), "{shown}");
    assert!(shown.contains("violations"), "{shown}");
    // The summary comes after the display is cleared.
    assert!(shown.contains("rvmon: "), "{shown}");
    let quiet = on_a_terminal("--quiet").unwrap();
    assert!(!quiet.contains("time points ("), "{quiet}");
    assert!(quiet.contains("rvmon: "), "{quiet}");
}

#[test]
fn a_pipe_shows_no_progress() {
    let log = big_log("pipe");
    let out = Command::new(env!("CARGO_BIN_EXE_rvmon"))
        .arg("check")
        .arg(log.with_file_name("f.mtl"))
        .arg(&log)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!err.contains("time points ("), "{err}");
    assert!(
        err.contains("violation(s) in 600000 time point(s)"),
        "{err}"
    );
}
