//! What rvmon's test suites share (a dev-dependency only).
//!
//! * Suites that need `../shared/data` or a peer tool skip without it, and say so where it is
//!   seen: a `SKIPPED: <suite>: <reason>` line in `cargo test`'s output ([`skip`]), and a
//!   failure instead when CI requires the data (`RVMON_REQUIRE_SHARED`) or the peers
//!   (`RVMON_REQUIRE_PEERS`). A suite that runs says what it ran ([`summary`]).
//! * The random policies and logs that the parallel runs are tested on ([`gen`]).

use std::io::Write;
use std::path::{Path, PathBuf};

pub mod gen;
pub mod http;
pub mod stl;

/// What a suite may lack, and the environment variable that makes the lack a failure.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Needs {
    /// `../shared/data` beside the repository (`RVMON_REQUIRE_SHARED`).
    Shared,
    /// A peer tool, such as Reelay (`RVMON_REQUIRE_PEERS`).
    Peer,
}

impl Needs {
    fn variable(self) -> &'static str {
        match self {
            Needs::Shared => "RVMON_REQUIRE_SHARED",
            Needs::Peer => "RVMON_REQUIRE_PEERS",
        }
    }
}

/// Whether `variable` is set to anything but nothing or `0`.
fn set(variable: &str) -> bool {
    std::env::var_os(variable).is_some_and(|v| !v.is_empty() && v != "0")
}

/// Writes `line` to the process's standard error itself. `cargo test` captures what a
/// passing test prints with `eprintln!` and shows none of it; this stream it does not
/// capture, so the line is seen in the run's output.
pub fn say(line: &str) {
    let _ = writeln!(std::io::stderr(), "{line}");
}

/// `suite` cannot run because `why` (it lacks what `needs` names): a `SKIPPED` line, or a
/// failure (a panic) when the environment requires it to run.
pub fn skip(suite: &str, needs: Needs, why: &str) {
    let variable = needs.variable();
    assert!(!set(variable), "{suite}: {variable} is set, but {why}");
    say(&format!("SKIPPED: {suite}: {why}"));
}

/// `suite`'s one-line account of what it ran (`monpoly_compat: 723/723 cases agree`).
pub fn summary(suite: &str, what: &str) {
    say(&format!("{suite}: {what}"));
}

/// The scratch directory `name` of a test binary, under `root` (the binary's
/// `env!("CARGO_TARGET_TMPDIR")`): emptied the first time a process asks for it, so a run
/// starts from nothing and runs do not pile up files (one per process id, in the system's
/// temporary directory, filled gigabytes). Test binaries run one at a time and each names its
/// own, so no other process is using it.
pub fn scratch(root: &str, name: &str) -> PathBuf {
    use std::collections::HashSet;
    use std::sync::Mutex;
    static EMPTIED: Mutex<Option<HashSet<PathBuf>>> = Mutex::new(None);
    let dir = Path::new(root).join(name);
    let mut emptied = EMPTIED.lock().unwrap_or_else(|e| e.into_inner());
    if emptied.get_or_insert_with(HashSet::new).insert(dir.clone()) {
        let _ = std::fs::remove_dir_all(&dir);
    }
    std::fs::create_dir_all(&dir).expect("a scratch directory");
    dir
}

/// `../shared/data` beside the repository.
pub fn shared_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/data")
}

/// `../shared/data/<path>` if it is there; otherwise `None`, after [`skip`] has said so (or
/// failed, with `RVMON_REQUIRE_SHARED`).
pub fn shared_data(suite: &str, path: &str) -> Option<PathBuf> {
    let p = shared_root().join(path);
    if p.exists() {
        return Some(p);
    }
    skip(
        suite,
        Needs::Shared,
        &format!("../shared/data/{path} is not there (the shared test data beside the repository)"),
    );
    None
}

/// The lines a Python `script` (run by `python` with `-c`) writes for `input` on its standard
/// input (a peer's driver: one answer per case).
pub fn python_lines(python: impl AsRef<std::ffi::OsStr>, script: &str, input: &str) -> Vec<String> {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let mut child = Command::new(python)
        .args(["-c", script])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the peer's Python runs");
    child
        .stdin
        .take()
        .expect("a pipe")
        .write_all(input.as_bytes())
        .expect("the peer reads its cases");
    let out = child.wait_with_output().expect("the peer ends").stdout;
    String::from_utf8_lossy(&out)
        .lines()
        .map(str::to_string)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A missing directory is a skip, unless the data is required; then it is a failure.
    /// (One test: the environment is the process's.)
    #[test]
    fn a_missing_directory_skips_unless_required() {
        let absent = "no-such-directory-of-the-shared-data";
        std::env::remove_var("RVMON_REQUIRE_SHARED");
        assert_eq!(
            shared_data("testkit (its own test: an expected skip)", absent),
            None
        );
        std::env::set_var("RVMON_REQUIRE_SHARED", "1");
        let failed = std::panic::catch_unwind(|| shared_data("testkit", absent));
        std::env::remove_var("RVMON_REQUIRE_SHARED");
        assert!(
            failed.is_err(),
            "RVMON_REQUIRE_SHARED=1 makes a skip a failure"
        );
        std::env::set_var("RVMON_REQUIRE_PEERS", "0");
        skip(
            "testkit (its own test: an expected skip)",
            Needs::Peer,
            "RVMON_REQUIRE_PEERS=0 requires nothing",
        );
        std::env::remove_var("RVMON_REQUIRE_PEERS");
    }
}
