//! The `rvmon` command line, as a library so that tests can run commands in-process.
//! It only parses arguments and wires readers → engines → sinks.

pub mod check_cmd;
pub mod gen_cmd;
pub mod monpoly_cmd;
pub mod param_cmd;
pub mod stream_cmd;

use rvmon_core::Error;

pub fn read_file(path: &str) -> Result<String, Error> {
    std::fs::read_to_string(path).map_err(|e| Error::msg(format!("{path}: cannot read: {e}")))
}

/// The trace to read: the file `path`, or standard input (with a hint on a terminal).
pub fn open_trace(
    path: Option<&str>,
    err: &mut dyn std::io::Write,
) -> Result<Box<dyn std::io::BufRead>, Error> {
    use std::io::IsTerminal;
    Ok(match path {
        Some(p) => Box::new(std::io::BufReader::with_capacity(
            1 << 16,
            std::fs::File::open(p).map_err(|e| Error::msg(format!("{p}: cannot open: {e}")))?,
        )),
        None => {
            if std::io::stdin().is_terminal() {
                writeln!(
                    err,
                    "rvmon: reading the trace from standard input (end with Ctrl-D)"
                )?;
            }
            Box::new(std::io::BufReader::new(std::io::stdin()))
        }
    })
}
