//! `rvmon check SPEC.rvm TRACE`: parametric properties. Every event of the trace (any format
//! rvmon reads) goes to the properties that declare it; each binding of a property's
//! parameters runs its own machine, and entering a verdict state is reported with the binding.

use std::io::Write;

use std::rc::Rc;

use rvmon_core::{Error, EventRef, Interner, StringCollection, Sym, TimePoint, Value};
use rvmon_param::monitor::{EventKind, ParamMonitor, Report};
use rvmon_param::slicing::Binding;
use rvmon_param::spec::{parse_rvm, Property};
use rvmon_trace::{open_reader, TraceOptions};

use rvmon_core::json_string;

use crate::check::{CheckArgs, Output};
use crate::read_file;
use crate::sink::json_value;

fn plain(v: &Value, interner: &Interner) -> String {
    match v {
        Value::Str(s) => interner.resolve(*s).to_string(),
        Value::Int(i) => i.to_string(),
        Value::Float(f) => f.to_string(),
        Value::Bool(b) => b.to_string(),
    }
}

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
    let by_field_name = props
        .iter()
        .find_map(|p| p.fields.first().map(|f| (p, &f.0)));
    if let Some((p, ev)) = by_field_name {
        if !reader.name_fields() {
            return Err(Error::msg(format!(
                "{}: {} binds event `{ev}` by field name, but the trace's events have no field names (MonPoly logs, signals); bind it by position",
                args.spec, p.name,
            )));
        }
    }
    // The fields that properties bind by name, interned once: per property, per event name.
    let named: Vec<Vec<(String, Rc<[Sym]>)>> = props
        .iter()
        .map(|p| {
            p.fields
                .iter()
                .map(|(ev, fs)| {
                    let syms = fs.iter().map(|f| reader.interner_mut().intern_name(f));
                    (ev.clone(), syms.collect())
                })
                .collect()
        })
        .collect();
    let mut monitors: Vec<ParamMonitor> = props
        .iter()
        .map(|p| {
            ParamMonitor::new(p.patterns.clone(), p.fsm.clone())
                .with_creators(&p.creators)
                .with_end_events(p.end_events.clone())
                .with_constraints(&p.constraints)
        })
        .collect();
    // Names (events, fields) stay; object ids are freed once no live binding holds them.
    reader.interner_mut().pin_all();
    let mut strings = StringCollection::new(args.collect_strings);
    let (mut tp, mut reports) = (TimePoint::default(), Vec::new());
    let (mut violations, mut events, mut written, mut time_points) = (0u64, 0u64, 0u64, 0u64);
    // The properties each event name concerns, by interned name (dense ids): with several
    // properties in a file, an event is read once and goes only to the monitors that
    // declare it (paper 24's simultaneous properties; each keeps its own index).
    let mut concerned: Vec<Option<Vec<Concerned>>> = Vec::new();
    let mut by_name: Vec<Value> = Vec::new();
    loop {
        if !crate::next_time_point(&mut *reader, &mut tp, out, err)? {
            break;
        }
        time_points += 1;
        for e in &tp.events {
            events += 1;
            let name = reader.interner().resolve(e.name);
            let sym = e.name.0 as usize;
            if concerned.len() <= sym {
                concerned.resize(sym + 1, None);
            }
            let which = concerned[sym].get_or_insert_with(|| {
                (0..props.len())
                    .map(|k| {
                        let fields = named[k].iter().find(|f| f.0 == name);
                        (k, monitors[k].event_kind(name), fields.map(|f| f.1.clone()))
                    })
                    .filter(|(_, kind, _)| kind.declared())
                    .collect()
            });
            for (k, kind, fields) in which.iter() {
                let (p, m) = (&props[*k], &mut monitors[*k]);
                let mut event_args = tp.args_of(e);
                if let Some(fields) = fields {
                    // The pattern's arguments are these fields, in its order; an event that
                    // lacks one does not match.
                    if !by_field(fields, &tp, e, &mut by_name) {
                        continue;
                    }
                    event_args = &by_name;
                }
                reports.clear();
                m.push_kind(kind, name, event_args, &mut reports);
                for r in &reports {
                    written += 1;
                    violations += u64::from(p.is_violation(&r.category));
                    write_report(out, args.output, p, r, &tp, reader.interner())?;
                }
            }
        }
        if online && written > 0 {
            out.flush()?;
        }
        // Between two time points, with the reports written.
        strings.collect_if_due(reader.interner_mut(), |mark| {
            monitors.iter().map(|m| m.mark_strings(mark)).sum()
        });
    }
    out.flush()?;
    crate::release(monitors);
    writeln!(err, "rvmon: {violations} violation(s) in {events} event(s)")?;
    crate::warn_if_empty(time_points, err)?;
    Ok(if violations > 0 { 1 } else { 0 })
}

/// A property's view of an event name: the property, what the name means to it, and the
/// fields it binds by name (if it does).
type Concerned = (usize, EventKind, Option<Rc<[Sym]>>);

/// Writes the values of `e`'s fields named `fields` into `out`, in that order; `false` if `e`
/// lacks one (or its reader names no fields).
fn by_field(fields: &[Sym], tp: &TimePoint, e: &EventRef, out: &mut Vec<Value>) -> bool {
    out.clear();
    let (Some(names), args) = (tp.fields_of(e), tp.args_of(e)) else {
        return false;
    };
    for f in fields {
        match names.iter().position(|n| n == f) {
            Some(i) => out.push(args[i]),
            None => return false,
        }
    }
    true
}

fn write_report(
    out: &mut dyn Write,
    output: Output,
    p: &Property,
    r: &Report,
    tp: &TimePoint,
    interner: &Interner,
) -> Result<(), Error> {
    let pairs: Vec<(usize, Value)> = match &r.binding {
        Binding::Map(m) => m.clone(),
        Binding::Top => Vec::new(),
    };
    let value = |k: usize| pairs.iter().find(|x| x.0 == k).map(|x| x.1);
    let message = p.message(&r.category, |k| value(k).map(|v| plain(&v, interner)));
    match output {
        Output::Jsonl => {
            let binding: Vec<String> = pairs
                .iter()
                .map(|(k, v)| format!("{}:{}", json_string(&p.params[*k]), json_value(v, interner)))
                .collect();
            writeln!(
                out,
                "{{\"tp\":{},\"ts\":{},\"property\":{},\"category\":{},\"binding\":{{{}}},\"message\":{}}}",
                tp.index,
                tp.ts,
                json_string(&p.name),
                json_string(&r.category),
                binding.join(","),
                json_string(&message)
            )?;
        }
        _ => {
            let binding: Vec<String> = pairs
                .iter()
                .map(|(k, v)| format!("{}={}", p.params[*k], plain(v, interner)))
                .collect();
            let kind = if !p.is_violation(&r.category) {
                "validation"
            } else {
                "violation"
            };
            writeln!(
                out,
                "{kind}: {} ({}) at time point {} @{}: {message}",
                p.name,
                binding.join(", "),
                tp.index,
                tp.ts
            )?;
        }
    }
    Ok(())
}
