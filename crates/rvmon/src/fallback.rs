//! `--fallback CMD`: a Simplex-style switch (paper 17). Each violation (or stream trigger)
//! is written and flushed first, then `sh -c CMD` runs, with the decision as one JSON line
//! on its standard input and in `RVMON_DECISION`, and the monitor waits for it: the
//! fallback has taken over before the next sample is monitored. A fallback that fails
//! (exit status not 0, or cannot start) stops the run with an error: a safety switch that
//! did not switch must not go unnoticed.

use std::io::Write;
use std::process::{Command, Stdio};

use rvmon_core::{Decision, Error, Interner, Kind, Sink};

use crate::sink::{FormatSink, Output};

/// A sink that runs the fallback command after each violation reaches `inner`.
pub struct Fallback<'a> {
    /// Where the decisions are written first.
    pub inner: &'a mut dyn Sink,
    /// The shell command (`sh -c`).
    pub command: &'a str,
    /// How many times it ran.
    pub runs: u64,
}

impl Sink for Fallback<'_> {
    fn emit(&mut self, d: &Decision<'_>, interner: &Interner) -> Result<(), Error> {
        self.inner.emit(d, interner)?;
        if !matches!(d.kind, Kind::Violation | Kind::Trigger) {
            return Ok(());
        }
        self.inner.flush()?;
        let mut line = Vec::new();
        FormatSink::new(&mut line, Output::Jsonl).emit(d, interner)?;
        self.run(&line, d.tp)
    }
    fn end_batch(&mut self) -> Result<(), Error> {
        self.inner.end_batch()
    }
    fn flush(&mut self) -> Result<(), Error> {
        self.inner.flush()
    }
}

impl Fallback<'_> {
    fn run(&mut self, line: &[u8], tp: u64) -> Result<(), Error> {
        let failed = |why: String| {
            Error::msg(format!(
                "--fallback `{}` at time point {tp}: {why}",
                self.command
            ))
        };
        let text = String::from_utf8_lossy(line);
        let mut child = Command::new("sh")
            .arg("-c")
            .arg(self.command)
            .env("RVMON_DECISION", text.trim_end())
            .env("RVMON_TP", tp.to_string())
            .stdin(Stdio::piped())
            .spawn()
            .map_err(|e| failed(format!("cannot start it: {e}")))?;
        if let Some(mut stdin) = child.stdin.take() {
            // (A command that does not read its input is fine: a broken pipe is ignored.)
            let _ = stdin.write_all(line);
        }
        let status = child.wait().map_err(|e| failed(e.to_string()))?;
        self.runs += 1;
        if !status.success() {
            return Err(failed(format!("it failed ({status})")));
        }
        Ok(())
    }
}
