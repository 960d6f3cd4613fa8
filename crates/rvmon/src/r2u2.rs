//! `rvmon check SPEC.mltl TRACE.csv` (or `.c2po`): R2U2's MLTL observers over a trace of
//! Boolean and numeric signals, one step per row, with r2u2_cli's verdict lines
//! (`--output r2u2`) or rvmon's.

use std::io::Write;

use rvmon_core::event::EventSource;
use rvmon_core::{Error, Monitor};
use rvmon_trace::r2u2::{Columns, R2u2Events};
use rvmon_trace::TraceFormat;

use crate::cascade::{self, Lang};
use crate::check::{CheckArgs, Output};
use crate::report::{self, ReportPlan};
use crate::run::Events;
use crate::sink::FormatSink;

/// `rvmon check SPEC.mltl TRACE` (see [`crate::check::run`]): with `--output r2u2`, every
/// verdict as r2u2_cli prints it and status 0, as r2u2_cli's; otherwise the violations, and
/// status 1 if there is one.
pub fn run(args: &CheckArgs, out: &mut dyn Write, err: &mut dyn Write) -> Result<i32, Error> {
    let text = crate::read_file(&args.spec)?;
    let (_, lang) = Lang::of(&args.spec, args.lang.as_deref());
    let has = |o: &str| args.c2po.iter().any(|c| c == o);
    let options = rvmon_r2u2::compile::Options {
        rewrite: !has("no-rewrite"),
        cse: !has("no-cse"),
    };
    let mut monitor =
        cascade::r2u2_monitor(&args.spec, &text, lang.as_deref())?.options(options)?;
    if args.explain {
        write!(out, "{}", monitor.explain(&args.spec))?;
        return Ok(0);
    }
    let inputs = monitor.inputs();
    let online = args.trace.as_deref().is_none_or(|t| t == "-");
    let trace = args.trace.as_deref().filter(|t| *t != "-");
    let format = args
        .format
        .or_else(|| trace.and_then(|p| TraceFormat::from_path(std::path::Path::new(p))));
    let source: Box<dyn EventSource> = match format {
        // (R2U2's own CSV: columns by name for C2PO, by position for `.mltl`'s `aN`.)
        None | Some(TraceFormat::Csv | TraceFormat::Signal | TraceFormat::CsrvCsv) => {
            let input = crate::open_trace(trace, err)?;
            let columns = match lang.as_deref() {
                Some("c2po") => Columns::ByName,
                _ => Columns::ByPosition,
            };
            let name = trace.unwrap_or("<stdin>");
            Box::new(R2u2Events::new(input, name, &inputs, columns))
        }
        Some(_) => crate::stream::event_source(args, &inputs, err)?,
    };
    let mut events = Events::new(source);
    let mut sink = FormatSink::new(out, args.output);
    let signals = inputs.iter().map(|i| i.0.clone()).collect();
    let report = ReportPlan::new(args, "MLTL (R2U2)", &text, signals)?;
    let options = args.run_options(online);
    let stats = report::run(report, &mut monitor, &mut events, &mut sink, options, err)?;
    let steps = stats.time_points;
    crate::warn_if_empty(steps, err)?;
    if args.output == Output::R2u2 {
        return Ok(0);
    }
    let violations = sink.counts.violations;
    writeln!(
        err,
        "rvmon: {violations} violation(s) in {steps} step(s) ({})",
        Monitor::describe(&monitor).strategy
    )?;
    Ok(if violations > 0 { 1 } else { 0 })
}
