//! `rvmon check SPEC.stl TRACE.csv --dense`: the robustness of a signal temporal logic
//! formula in dense time (`rvmon_stl::dense`), exact for the piecewise-constant signal the
//! samples make, at each sample time. Offline: the trace is a file.

use std::io::Write;

use rvmon_core::Error;

use crate::cascade;
use crate::check::CheckArgs;
use crate::stl::{drive, SignalRun};

/// `rvmon check SPEC.stl TRACE --dense` (see [`crate::stl::run`]: the same output and
/// statuses, in dense time).
pub fn run(args: &CheckArgs, out: &mut dyn Write, err: &mut dyn Write) -> Result<i32, Error> {
    let text = crate::read_file(&args.spec)?;
    let mut monitor = cascade::stl_dense_monitor(&args.spec, &text)?;
    let signals = SignalRun {
        text: &text,
        language: "signal temporal logic (rtamt's syntax), dense time",
        inputs: monitor.inputs(),
        // The report draws the signals and the formula's robustness; not its subformulas
        // (the report's companions are discrete-time monitors).
        subformulas: None,
        // A future window at the last sample reads the last value forever: nothing is
        // decided before the end, so the samples are read to the end first, and a live input
        // would only look stuck.
        offline_only: Some(
            "--dense is offline: give the trace as a file (standard input is monitored \
             online, in discrete time only)",
        ),
        time: ", dense time",
    };
    drive(args, out, err, &mut monitor, signals)
}
