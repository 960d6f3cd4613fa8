//! `rvmon check SPEC.stl TRACE.csv`: the robustness of a signal temporal logic formula
//! (rtamt's syntax) over the columns of a trace, one sample per row.

use std::io::Write;

use rvmon_core::event::{Event, ValType};
use rvmon_core::{Error, Monitor};
use rvmon_stl::Formula;

use crate::cascade;
use crate::check::{CheckArgs, Output};
use crate::report::{self, ReportPlan};
use crate::run::Events;
use crate::sink::FormatSink;

/// `rvmon check SPEC.stl TRACE` (see [`crate::check::run`]): with `--robustness`, the
/// robustness at every sample and status 0; otherwise the samples where it is negative, as
/// violations, and status 1 if there is one.
pub fn run(args: &CheckArgs, out: &mut dyn Write, err: &mut dyn Write) -> Result<i32, Error> {
    if args.dense {
        if args.intervals {
            return Err(Error::msg(
                "--intervals is for discrete time: dense-time robustness is computed offline, \
                 whole",
            ));
        }
        return crate::stl_dense::run(args, out, err);
    }
    let text = crate::read_file(&args.spec)?;
    let mut monitor = cascade::stl_monitor(&args.spec, &text)?;
    if args.intervals {
        monitor = monitor.with_intervals()?;
    }
    let signals = SignalRun {
        text: &text,
        language: "signal temporal logic (rtamt's syntax)",
        inputs: monitor.inputs(),
        // (The report's; the monitor's formula, not parsed again.)
        subformulas: args.report.is_some().then(|| monitor.formula().clone()),
        offline_only: None,
        time: "",
    };
    drive(args, out, err, &mut monitor, signals)
}

/// What a signal run (discrete or dense time) is, for [`drive`].
pub(crate) struct SignalRun<'a> {
    /// The specification's text and language (for `--report`).
    pub text: &'a str,
    pub language: &'a str,
    /// The signals the trace must have.
    pub inputs: Vec<(String, ValType)>,
    /// The formula whose subformulas the report draws (discrete time: the report's
    /// companion monitors are discrete-time ones).
    pub subformulas: Option<Formula>,
    /// Why standard input is refused, if it is.
    pub offline_only: Option<&'a str>,
    /// Said after the sample count in the summary (`, dense time`).
    pub time: &'a str,
}

/// The run of a signal monitor, discrete or dense: `--explain`, the output formats signals
/// have, the run (with its report), the summary on `err` and the exit status.
pub(crate) fn drive<M: Monitor<Event>>(
    args: &CheckArgs,
    out: &mut dyn Write,
    err: &mut dyn Write,
    monitor: &mut M,
    run: SignalRun<'_>,
) -> Result<i32, Error> {
    let signals: Vec<String> = run.inputs.iter().map(|i| i.0.clone()).collect();
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
    let online = args.trace.as_deref().is_none_or(|t| t == "-");
    if let Some(why) = run.offline_only.filter(|_| online) {
        return Err(Error::msg(why));
    }
    let mut events = Events::new(crate::stream::event_source(args, &run.inputs, err)?);
    let every_sample = args.robustness || args.intervals;
    let mut sink = FormatSink::new(out, args.output)
        .every_sample(every_sample)
        .intervals(args.intervals);
    let report = match (
        ReportPlan::new(args, run.language, run.text, signals)?,
        run.subformulas,
    ) {
        (Some(plan), Some(f)) => Some(plan.with_subformulas(&f)),
        (plan, _) => plan,
    };
    let options = args.run_options(online);
    let stats = report::run(report, monitor, &mut events, &mut sink, options, err)?;
    let (samples, time) = (stats.time_points, run.time);
    if every_sample {
        writeln!(err, "rvmon: robustness at {samples} sample(s){time}")?;
        return Ok(0);
    }
    let violations = sink.counts.violations;
    writeln!(
        err,
        "rvmon: {violations} violation(s) (negative robustness) in {samples} sample(s){time}"
    )?;
    crate::warn_if_empty(samples, err)?;
    Ok(if violations > 0 { 1 } else { 0 })
}
