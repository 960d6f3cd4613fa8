//! `rvmon check F.mtl TRACE --timestamp-error δ`: a formula monitored when each
//! event's true time is only known within ±δ of its timestamp (paper 16).

use std::io::Write;

use rvmon_core::{Error, Monitor};

use crate::cascade::{self, FormulaSpec};
use crate::check::{CheckArgs, Output};
use crate::run;
use crate::sink::FormatSink;

/// Each observed time point's verdict: `violation` (for every true timing), `possible
/// violation` (for some), `undetermined`; status 1 if there is a violation or a possible one.
pub fn run(
    args: &CheckArgs,
    spec: &FormulaSpec,
    delta: &str,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<i32, Error> {
    if args.sliced() {
        return Err(Error::msg(
            "--timestamp-error runs as one run (not with --workers, --processes or --slices)",
        ));
    }
    if !matches!(args.output, Output::Text | Output::Jsonl) || args.report.is_some() {
        return Err(Error::msg(
            "--timestamp-error writes text or jsonl (`violation`, `possible-violation`, \
             `undetermined`), and no --report",
        ));
    }
    let trace_path = args.trace.as_deref().filter(|t| *t != "-");
    let format = crate::trace_format(args.format, trace_path)?;
    let online = trace_path.is_none();
    let mut reader = crate::check::open(args, trace_path, format, spec.sig.clone(), err)?;
    let mut monitor = cascade::imprecise_monitor(spec, delta, reader.interner_mut(), !online)?;
    if args.explain {
        let d = Monitor::describe(&monitor);
        writeln!(
            out,
            "spec: {}\nengine: {}\nmemory: {}",
            args.spec, d.strategy, d.memory
        )?;
        writeln!(out, "timestamp error: ±{delta}\n{}", monitor.explain())?;
        return Ok(0);
    }
    let mut sink = FormatSink::new(out, args.output);
    let stats = run::run(
        &mut monitor,
        &mut *reader,
        &mut sink,
        args.run_options(online),
        err,
    )?;
    run::summary(sink.counts, stats, err)?;
    Ok(if sink.counts.violations > 0 { 1 } else { 0 })
}
