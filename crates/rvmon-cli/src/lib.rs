//! The `rvmon` command line, as a library so that tests can run commands in-process.
//! It only parses arguments and wires readers → engines → sinks.

pub mod check_cmd;
pub mod gen_cmd;
pub mod monpoly_cmd;
pub mod stream_cmd;

use rvmon_core::Error;

pub fn read_file(path: &str) -> Result<String, Error> {
    std::fs::read_to_string(path).map_err(|e| Error::msg(format!("{path}: cannot read: {e}")))
}
