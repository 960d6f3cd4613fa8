//! `rvmon check SPEC.stl TRACE.csv --dense`: the robustness of a signal temporal logic
//! formula in dense time (`rvmon_stl::dense`), exact for the piecewise-constant signal the
//! samples make, at each sample time. Offline: the trace is a file.

use std::io::Write;

use rvmon_core::{Error, Monitor};

use crate::cascade;
use crate::check::{CheckArgs, Output};
use crate::report::{self, ReportPlan};
use crate::run::Events;
use crate::sink::FormatSink;

/// `rvmon check SPEC.stl TRACE --dense` (see [`crate::stl::run`]: the same output and
/// statuses, in dense time).
pub fn run(args: &CheckArgs, out: &mut dyn Write, err: &mut dyn Write) -> Result<i32, Error> {
    let text = crate::read_file(&args.spec)?;
    let mut monitor = cascade::stl_dense_monitor(&args.spec, &text)?;
    let signals: Vec<String> = monitor.inputs().into_iter().map(|i| i.0).collect();
    if args.explain {
        let d = monitor.describe();
        writeln!(out, "spec: {}\nengine: {}", args.spec, d.strategy)?;
        writeln!(out, "signals: {}\nmemory: {}", signals.join(", "), d.memory)?;
        return Ok(0);
    }
    if matches!(args.output, Output::Monpoly | Output::Rtlola) {
        return Err(Error::msg(
            "--output monpoly and rtlola are for formulas and stream specifications; STL \
             formulas write text (or, with --robustness, `<time> <robustness>`) or jsonl",
        ));
    }
    // A future window at the last sample reads the last value forever: nothing is decided
    // before the end, so the samples are read to the end first, and a live input would only
    // look stuck.
    if args.trace.as_deref().is_none_or(|t| t == "-") {
        return Err(Error::msg(
            "--dense is offline: give the trace as a file (standard input is monitored online, \
             in discrete time only)",
        ));
    }
    let mut events = Events::new(crate::stream::event_source(args, &monitor.inputs(), err)?);
    let mut sink = FormatSink::new(out, args.output).every_sample(args.robustness);
    // The report draws the signals and the formula's robustness; not its subformulas (the
    // report's companions are discrete-time monitors).
    let language = "signal temporal logic (rtamt's syntax), dense time";
    let report = ReportPlan::new(args, language, &text, signals)?;
    let options = args.run_options(false);
    let stats = report::run(report, &mut monitor, &mut events, &mut sink, options, err)?;
    let violations = sink.counts.violations;
    if args.robustness {
        writeln!(err, "rvmon: robustness at {} sample(s)", stats.time_points)?;
        return Ok(0);
    }
    writeln!(
        err,
        "rvmon: {violations} violation(s) (negative robustness) in {} sample(s), dense time",
        stats.time_points
    )?;
    crate::warn_if_empty(stats.time_points, err)?;
    Ok(if violations > 0 { 1 } else { 0 })
}
