//! `rvmon check SPEC.modelplex TRACE.csv`: ModelPlex monitor conditions (paper 17) on every
//! pair of consecutive samples of a signal trace (columns named as the state variables).

use std::io::Write;

use rvmon_core::{Error, Monitor};

use crate::cascade;
use crate::check::{CheckArgs, Output};
use crate::report::{self, ReportPlan};
use crate::run::Events;
use crate::sink::FormatSink;

/// `rvmon check SPEC.modelplex TRACE` (see [`crate::check::run`]): the pairs a monitor's
/// condition rejects, as violations, and status 1 if there is one.
pub fn run(args: &CheckArgs, out: &mut dyn Write, err: &mut dyn Write) -> Result<i32, Error> {
    let text = crate::read_file(&args.spec)?;
    let mut monitor = cascade::modelplex_monitor(&args.spec, &text, args.tolerance.as_deref())?;
    let inputs = monitor.inputs();
    let signals: Vec<String> = inputs.iter().map(|i| i.0.clone()).collect();
    if args.explain {
        let d = Monitor::describe(&monitor);
        writeln!(out, "spec: {}\nengine: {}", args.spec, d.strategy)?;
        writeln!(
            out,
            "state variables: {}\nmemory: {}",
            signals.join(", "),
            d.memory
        )?;
        for m in &monitor.program().monitors {
            writeln!(out, "monitor {}:", m.name)?;
            for (i, c) in m.conjuncts.iter().enumerate() {
                writeln!(out, "  {}. {}", i + 1, c.text)?;
            }
        }
        return Ok(0);
    }
    if !matches!(args.output, Output::Text | Output::Jsonl) {
        return Err(Error::msg(
            "ModelPlex conditions write text or jsonl (--output text, --output jsonl)",
        ));
    }
    let online = args.trace.as_deref().is_none_or(|t| t == "-");
    let mut events = Events::new(crate::stream::event_source(args, &inputs, err)?);
    let mut sink = FormatSink::new(out, args.output);
    let report = ReportPlan::new(args, "ModelPlex monitor conditions", &text, signals)?;
    let options = args.run_options(online);
    let stats = report::run(report, &mut monitor, &mut events, &mut sink, options, err)?;
    let samples = stats.time_points;
    crate::warn_if_empty(samples, err)?;
    let violations = sink.counts.violations;
    writeln!(
        err,
        "rvmon: {violations} violation(s) in {} pair(s) of consecutive samples",
        samples.saturating_sub(1)
    )?;
    Ok(if violations > 0 { 1 } else { 0 })
}
