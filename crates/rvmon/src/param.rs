//! `rvmon check SPEC.rvm TRACE`: parametric properties. Every event of the trace (any format
//! rvmon reads) goes to the properties that declare it; each binding of a property's
//! parameters runs its own machine, and entering a verdict state is reported with the binding.

use std::io::Write;

use rvmon_core::Error;
use rvmon_param::monitor::ParamMonitor;
use rvmon_param::spec::{parse_rvm, Property};
use rvmon_param::PropertiesMonitor;
use rvmon_trace::{open_reader, TraceOptions};

use crate::check::{CheckArgs, Output};
use crate::read_file;
use crate::report::{self, ReportPlan};
use crate::sink::FormatSink;

/// What `--explain` prints for a `.rvm` file.
pub fn explain(spec: &str, props: &[Property]) -> String {
    let mut s = format!(
        "spec: {spec}\nengine: parametric (rvmon-param): Algorithm A (paper 03) with creation events, a machine state per parameter binding, indexed by sub-bindings\n"
    );
    for p in props {
        s += &format!("property {}({})\n", p.name, p.params.join(", "));
        for pat in &p.patterns {
            let fields = p.fields.iter().find(|f| f.0 == pat.name).map(|f| &f.1);
            let args = pat.args.iter().enumerate().map(|(i, t)| {
                let param = match t {
                    rvmon_param::slicing::Term::Var(k) => p.params[*k].clone(),
                    _ => "_".to_string(),
                };
                match fields {
                    Some(fs) => format!("{}: {param}", fs[i]),
                    None => param,
                }
            });
            let starts = if p.creators.contains(&pat.name) {
                "creation event"
            } else {
                "event"
            };
            s += &format!(
                "  {starts} {} binds ({})\n",
                pat.name,
                args.collect::<Vec<_>>().join(", ")
            );
        }
        if !p.creators.is_empty() {
            s += "  only creation events start a binding; the others extend bindings that exist\n";
        }
        for pat in &p.end_events {
            s += &format!("  end event {} frees the objects it binds\n", pat.name);
        }
        let c = &p.constraints;
        let written = c
            .order
            .iter()
            .map(|&(a, b, strict)| {
                let op = if strict { "<" } else { "<=" };
                format!("{} {op} {}", p.params[a], p.params[b])
            })
            .chain(
                c.distinct
                    .iter()
                    .map(|&(a, b)| format!("{} != {}", p.params[a], p.params[b])),
            )
            .collect::<Vec<_>>();
        if !written.is_empty() {
            s += &format!(
                "  where {}: only bindings that can be extended to a solution are monitored\n",
                written.join(", ")
            );
        }
        // The monitor's own choice, not a second copy of its rule.
        let monitor =
            ParamMonitor::new(p.patterns.clone(), p.fsm.clone()).with_constraints(&p.constraints);
        s += if monitor.is_one_object() {
            "  monitored as: one state per object (every event binds the same one parameter)\n"
        } else {
            "  monitored as: bindings indexed by their restrictions to the events' parameters\n"
        };
        if p.body == "fsm" {
            s += &format!(
                "  fsm states: {} (start {})\n",
                p.fsm.states.join(", "),
                p.fsm.states[p.fsm.start]
            );
        } else {
            s += &format!("  {}, compiled to {} states\n", p.body, p.fsm.states.len());
        }
        for (c, m) in &p.messages {
            s += &format!("  @{c}: \"{m}\"\n");
        }
    }
    s
}

/// `rvmon check SPEC.rvm TRACE` (see [`crate::check::run`]).
pub fn run(args: &CheckArgs, out: &mut dyn Write, err: &mut dyn Write) -> Result<i32, Error> {
    let text = read_file(&args.spec)?;
    let props = parse_rvm(&args.spec, &text)?;
    if args.explain {
        write!(out, "{}", explain(&args.spec, &props))?;
        return Ok(0);
    }
    if matches!(args.output, Output::Monpoly | Output::Rtlola) {
        return Err(Error::msg(
            "parametric properties write --output text or jsonl",
        ));
    }
    let trace = args.trace.as_deref().filter(|t| *t != "-");
    let format = crate::trace_format(args.format, trace)?;
    let online = trace.is_none();
    let sig = crate::read_signature(args.sig.as_deref())?;
    let input = crate::open_trace(trace, err)?;
    let options = TraceOptions {
        sig,
        time_field: args.time_field.clone(),
    };
    let mut reader = open_reader(format, input, trace.unwrap_or("<stdin>"), options)?;
    let report = ReportPlan::new(args, "parametric properties (.rvm)", &text, Vec::new())?;
    let mut monitor = PropertiesMonitor::new(props, reader.interner_mut());
    if let Some((p, ev)) = monitor.binds_by_name() {
        if !reader.name_fields() {
            return Err(Error::msg(format!(
                "{}: {p} binds event `{ev}` by field name, but the trace's events have no field names (MonPoly logs, signals); bind it by position",
                args.spec,
            )));
        }
    }
    let mut sink = FormatSink::new(out, args.output);
    let options = args.run_options(online);
    let stats = report::run(report, &mut monitor, &mut *reader, &mut sink, options, err)?;
    crate::release(monitor);
    let violations = stats.violations;
    writeln!(
        err,
        "rvmon: {violations} violation(s) in {} event(s)",
        stats.events
    )?;
    crate::warn_if_empty(stats.time_points, err)?;
    Ok(if violations > 0 { 1 } else { 0 })
}
