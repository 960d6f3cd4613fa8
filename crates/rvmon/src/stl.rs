//! `rvmon check SPEC.stl TRACE.csv`: the robustness of a signal temporal logic formula
//! (rtamt's syntax) over the columns of a trace, one sample per row.

use std::io::Write;

use rvmon_core::{Error, Monitor};

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
    if args.explain {
        let d = monitor.describe();
        let signals: Vec<String> = monitor.inputs().into_iter().map(|i| i.0).collect();
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
    let mut events = Events::new(crate::stream::event_source(args, &monitor.inputs(), err)?);
    let mut sink = FormatSink::new(out, args.output)
        .every_sample(args.robustness || args.intervals)
        .intervals(args.intervals);
    let options = args.run_options(online);
    let language = "signal temporal logic (rtamt's syntax)";
    let signals = monitor.inputs().into_iter().map(|i| i.0).collect();
    let report = match ReportPlan::new(args, language, &text, signals)? {
        Some(plan) => Some(plan.with_subformulas(&rvmon_stl::parse(&args.spec, &text)?)),
        None => None,
    };
    let stats = report::run(report, &mut monitor, &mut events, &mut sink, options, err)?;
    let violations = sink.counts.violations;
    if args.robustness || args.intervals {
        writeln!(err, "rvmon: robustness at {} sample(s)", stats.time_points)?;
        return Ok(0);
    }
    writeln!(
        err,
        "rvmon: {violations} violation(s) (negative robustness) in {} sample(s)",
        stats.time_points
    )?;
    crate::warn_if_empty(stats.time_points, err)?;
    Ok(if violations > 0 { 1 } else { 0 })
}
