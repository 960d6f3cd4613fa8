//! The `rvmon` command line, as a library so that tests can run commands in-process.
//!
//! It parses arguments and hands them to the `rvmon` library (the front door), which picks
//! the engine, reads the trace and writes the verdicts.

pub mod gen_cmd;

/// `rvmon check`: the library's run (kept under this name for the tests and the fuzz harness).
pub use rvmon::check as check_cmd;
/// `rvmon monpoly`: MonPoly's command line, from the library.
pub use rvmon::monpoly as monpoly_cmd;
pub use rvmon::PROCESS_ENDS_AFTER_RUN;
