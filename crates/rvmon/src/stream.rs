//! `rvmon check SPEC.lola TRACE.csv`: stream specifications (Lola equations in RTLola's
//! syntax). Triggers are the violations: each is written as soon as it is decided.

use std::io::Write;
use std::path::Path;

use rvmon_core::event::Event;
use rvmon_core::event::EventSource;
use rvmon_core::event::Val;
use rvmon_core::event::ValType as Type;
use rvmon_core::Error;
use rvmon_core::{MemoryLimit, StringCollection, TimePoint, Value};
use rvmon_stream::analysis::Pace;
use rvmon_stream::bsrv::{Bsrv, NoUniqueModel};
use rvmon_stream::output::time_text;
use rvmon_stream::{Program, StreamMonitor};
use rvmon_trace::events::{CsvEvents, JsonlEvents, TimeMode};
use rvmon_trace::{open_reader, TraceFormat, TraceOptions, TraceReader};

use crate::check::{CheckArgs, Output};
use crate::read_ahead::ReadAhead;
use crate::read_file;
use crate::report::{self, ReportPlan};
use crate::run::{Events, Source};
use crate::sink::FormatSink;

/// "at a ∧ b", "every 1s", "never" (a pacing of no events).
fn pace_text(p: &Pace, names: &[String]) -> String {
    match p {
        Pace::Event(d) if d.0.is_empty() => "once, at the start".into(),
        Pace::Event(_) => format!("at {}", p.describe(names)),
        other => other.describe(names),
    }
}

/// What `--explain` prints: the streams, their pacing, evaluation order, latency and memory.
pub fn explain(spec: &str, p: &Program) -> String {
    let names = p.names();
    let n_in = p.inputs.len();
    let engine = rvmon_stream::strategy(rvmon_stream::immediate::applies(p));
    let mut s = format!("spec: {spec}\nengine: {engine}\n");
    let inputs: Vec<String> = p
        .inputs
        .iter()
        .map(|(n, t)| format!("{n}: {}", t.name()))
        .collect();
    s += &format!("inputs: {}\n", inputs.join(", "));
    s += "outputs, in evaluation order:\n";
    for &k in &p.order {
        let o = &p.outputs[k];
        let r = &p.report[n_in + k];
        let label = match &o.trigger {
            Some((t, _)) => format!("trigger #{t}"),
            None => format!("{}: {}", o.name, o.ty.name()),
        };
        let latency = match r.latency {
            Some(0) => "decided at its event".to_string(),
            Some(l) => format!("decided after {l} more value(s) of what it reads"),
            None => "may wait until the end of the trace".to_string(),
        };
        let when = match &o.pacing {
            Pace::Event(_) => format!("at {}", o.pacing.describe(&names)),
            other => other.describe(&names),
        };
        let instances = match &o.dynamic {
            None => String::new(),
            Some(d) => {
                let params: Vec<String> = d
                    .params
                    .iter()
                    .map(|(n, t)| format!("{n}: {}", t.name()))
                    .collect();
                let close = match &d.close_pace {
                    None => String::new(),
                    Some(_) if d.close_after_eval => {
                        "; its close condition checked after each evaluation".into()
                    }
                    Some(c) => format!("; its close condition checked {}", pace_text(c, &names)),
                };
                format!(
                    "; instances ({}) spawned {}{close}",
                    params.join(", "),
                    pace_text(&d.spawn_pace, &names)
                )
            }
        };
        s += &format!("  {label} — evaluated {when}; {latency}{instances}\n");
    }
    let kept: Vec<String> = (0..names.len())
        .filter(|&v| p.report[v].keep_past > 0)
        .map(|v| format!("{} ({} past values)", names[v], p.report[v].keep_past))
        .collect();
    if !kept.is_empty() {
        s += &format!("past values kept: {}\n", kept.join(", "));
    }
    if p.outputs.iter().any(|o| o.dynamic.is_some()) {
        s += "instances: each holds its own past values and windows; memory grows with the live instances, not with the trace\n";
    }
    s += &match &p.unbounded_cycle {
        None => "efficiently monitorable: yes — memory does not grow with the trace\n".to_string(),
        Some(c) => format!(
            "efficiently monitorable: no — the dependency cycle {} -> {} reads the future, so its values may wait until the end of the trace (memory grows with it)\n",
            c.join(" -> "),
            c[0]
        ),
    };
    s
}

/// The events of the trace (a file, or standard input): JSON Lines for `.jsonl`/`.ndjson` or
/// `--format jsonl`, CSV otherwise, or time points of another trace format as events
/// ([`TraceEvents`]).
pub(crate) fn event_source(
    args: &CheckArgs,
    inputs: &[(String, Type)],
    err: &mut dyn Write,
) -> Result<Box<dyn EventSource>, Error> {
    let trace = args.trace.as_deref().filter(|t| *t != "-");
    let format = args
        .format
        .or_else(|| trace.and_then(|p| TraceFormat::from_path(Path::new(p))));
    let text = matches!(
        format,
        None | Some(
            TraceFormat::Jsonl | TraceFormat::Csv | TraceFormat::Signal | TraceFormat::CsrvCsv
        )
    );
    if let Some(path) = trace.filter(|_| text && read_ahead(inputs)) {
        // (The file is opened here, so that a missing one is named before anything runs.)
        drop(crate::open_trace(Some(path), err)?);
        let (path, inputs, time) = (path.to_string(), inputs.to_vec(), args.time_field.clone());
        let (dense, mode) = (args.dense, time_mode(args)?);
        let ahead = ReadAhead::spawn(inputs.len(), move || {
            let input = crate::open_trace(Some(&path), &mut std::io::sink())?;
            text_events(format, input, &path, &inputs, time.as_deref(), dense, mode)
        })?;
        return Ok(Box::new(ahead));
    }
    let input = crate::open_trace(trace, err)?;
    let name = trace.unwrap_or("<stdin>");
    let time = args.time_field.as_deref();
    Ok(match format {
        None
        | Some(
            TraceFormat::Jsonl | TraceFormat::Csv | TraceFormat::Signal | TraceFormat::CsrvCsv,
        ) => text_events(
            format,
            input,
            name,
            inputs,
            time,
            args.dense,
            time_mode(args)?,
        )?,
        Some(f @ (TraceFormat::Monpoly | TraceFormat::Json | TraceFormat::Xml)) => {
            let options = TraceOptions {
                sig: None,
                time_field: args.time_field.clone(),
            };
            let mut reader = open_reader(f, input, name, options)?;
            reader.interner_mut().pin_all();
            Box::new(TraceEvents {
                reader,
                inputs: inputs.to_vec(),
                tp: TimePoint::default(),
                name: name.to_string(),
                strings: StringCollection::new(args.collect_strings),
                strictly_increasing: args.dense,
            })
        }
    })
}

/// `--output-time-format`: whether times are written in nanoseconds.
fn output_in_nanos(args: &CheckArgs) -> Result<bool, Error> {
    match args.output_time_format.as_deref() {
        None | Some("relative" | "relative-secs" | "relative-float-secs") => Ok(false),
        Some("relative-nanos" | "relative-uint-nanos") => Ok(true),
        Some(other) => Err(Error::msg(format!(
            "--output-time-format: `{other}` is not supported (relative-secs, relative-nanos)"
        ))),
    }
}

/// `--time-format`, read (rtlola-cli's names).
pub(crate) fn time_mode(args: &CheckArgs) -> Result<TimeMode, Error> {
    let Some(name) = args.time_format.as_deref() else {
        return Ok(TimeMode::default());
    };
    if name.starts_with("absolute-rfc") {
        return Err(Error::msg("--time-format absolute-rfc3339 is not supported (rvmon reads times as numbers: relative-secs, relative-nanos, offset-secs, offset-nanos, absolute-unix)"));
    }
    TimeMode::named(name).ok_or_else(|| {
        Error::msg(format!("--time-format: unknown mode `{name}` (relative-secs, relative-nanos, offset-secs, offset-nanos, absolute-unix)"))
    })
}

/// Events from a CSV or JSON Lines trace (`format`; `None`: CSV).
fn text_events(
    format: Option<TraceFormat>,
    input: Box<dyn std::io::BufRead>,
    name: &str,
    inputs: &[(String, Type)],
    time: Option<&str>,
    dense: bool,
    mode: TimeMode,
) -> Result<Box<dyn EventSource>, Error> {
    Ok(match format {
        Some(TraceFormat::Jsonl) if mode != TimeMode::default() => {
            return Err(Error::msg("--time-format is for CSV traces"))
        }
        Some(TraceFormat::Jsonl) => {
            Box::new(JsonlEvents::new(input, name, inputs, time).strictly_increasing(dense))
        }
        _ => Box::new(
            CsvEvents::new(input, name, inputs, time)?
                .strictly_increasing(dense)
                .time_mode(mode),
        ),
    })
}

/// Whether a file's events are read ahead on a second thread ([`ReadAhead`]): numeric inputs
/// only, with a second core, unless `RVMON_READ_AHEAD=0` (to compare, or to rule it out).
fn read_ahead(inputs: &[(String, Type)]) -> bool {
    let numeric = inputs.iter().all(|(_, t)| *t != Type::Str);
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    numeric && cores > 1 && std::env::var("RVMON_READ_AHEAD").as_deref() != Ok("0")
}

/// Events from an event trace (a MonPoly log, JSON, XML): each time point is one event; an
/// input stream `x` has a value when an event `x(v)` occurs (`x()` for a Bool: true), and its
/// time is the time point's timestamp in seconds.
struct TraceEvents {
    reader: Box<dyn TraceReader>,
    inputs: Vec<(String, Type)>,
    tp: TimePoint,
    name: String,
    /// The engine holds values as owned strings, so the interner's values are all freed
    /// (names stay) once enough are in use.
    strings: StringCollection,
    /// Whether a time point with the previous one's timestamp is an error (dense time, where
    /// each sample holds until the next), said here with the file and time point.
    strictly_increasing: bool,
}

impl EventSource for TraceEvents {
    fn next_event(&mut self, ev: &mut Event) -> Result<bool, Error> {
        // The last time point's values were converted to owned values: no one holds them.
        self.strings
            .collect_if_due(self.reader.interner_mut(), |_| 0);
        let last = self.tp.ts;
        if !self.reader.next_time_point(&mut self.tp)? {
            return Ok(false);
        }
        if self.strictly_increasing && self.tp.index > 0 && self.tp.ts == last {
            return Err(Error::msg(format!(
                "{}: time point {}: timestamp {} is the previous time point's too; dense time \
                 needs strictly increasing timestamps",
                self.name, self.tp.index, self.tp.ts
            )));
        }
        let interner = self.reader.interner();
        ev.values.clear();
        ev.values.resize(self.inputs.len(), None);
        for e in &self.tp.events {
            let name = interner.resolve(e.name);
            let Some(k) = self.inputs.iter().position(|i| i.0 == name) else {
                continue;
            };
            let ty = self.inputs[k].1;
            let bad = |what: &str| {
                Error::msg(format!(
                    "{}: time point {}: event `{name}` {what}; input `{name}` is {}",
                    self.name,
                    self.tp.index,
                    ty.a()
                ))
            };
            let v = match (self.tp.args_of(e), ty) {
                ([], Type::Bool) => Val::Bool(true),
                ([Value::Bool(b)], Type::Bool) => Val::Bool(*b),
                ([Value::Int(i)], Type::Int) => Val::Int(*i),
                ([Value::Int(i)], Type::UInt) if *i >= 0 => Val::UInt(*i as u64),
                ([Value::Int(i)], Type::Float) => Val::Float(*i as f64),
                ([Value::Float(x)], Type::Float) => Val::Float(*x),
                ([Value::Str(s)], Type::Str) => Val::Str(interner.resolve(*s).into()),
                ([v], _) => {
                    let text = match v {
                        Value::Str(s) => interner.resolve(*s).to_string(),
                        Value::Int(i) => i.to_string(),
                        Value::Float(x) => x.to_string(),
                        Value::Bool(b) => b.to_string(),
                    };
                    Val::parse(ty, &text).ok_or_else(|| bad(&format!("has the value {text}")))?
                }
                (args, _) => return Err(bad(&format!("has {} arguments, not one", args.len()))),
            };
            if ev.values[k].replace(v).is_some() {
                return Err(bad("occurs twice at one time point"));
            }
        }
        ev.time = self.tp.ts.saturating_mul(1_000_000_000);
        Ok(true)
    }

    fn positions_as_times(&self) -> bool {
        self.reader.positions_as_timestamps()
    }
}

/// The automaton analysis of a small Boolean specification, for `--explain`.
fn definedness_text(b: &Bsrv, memory: MemoryLimit) -> String {
    match b.automaton_within(AUTOMATON_LIMIT, memory) {
        Err(e) => format!("definedness: not analysed ({e})\n"),
        Ok(nfa) => {
            let d = match nfa.definedness() {
                Ok(d) => d,
                Err(e) => return format!("definedness: not analysed ({e})\n"),
            };
            let word = |w: &[u32]| -> String {
                (0..b.inputs.len())
                    .map(|i| {
                        let bits: String = w
                            .iter()
                            .map(|l| if l >> i & 1 == 1 { '1' } else { '0' })
                            .collect();
                        format!("{}={bits}", b.inputs[i])
                    })
                    .collect::<Vec<_>>()
                    .join(" ")
            };
            let mut s = format!(
                "definedness (window automaton, {} states): ",
                nfa.state_count()
            );
            if d.well_defined() {
                s += "well-defined: every input has exactly one model\n";
            } else {
                if let Some(w) = &d.ambiguous_input {
                    s += &format!("under-defined (the input {} has several models) ", word(w));
                }
                if let Some(w) = &d.modelless_input {
                    s += &format!("over-defined (the input {} has none)", word(w));
                }
                s += "\n";
            }
            s
        }
    }
}

/// States the window automaton may have before rvmon gives up on it.
const AUTOMATON_LIMIT: usize = 200_000;

/// `rvmon check SPEC.lola TRACE` (see [`crate::check::run`]).
pub fn run(args: &CheckArgs, out: &mut dyn Write, err: &mut dyn Write) -> Result<i32, Error> {
    let text = read_file(&args.spec)?;
    let spec = rvmon_stream::parse_spec(&args.spec, &text)?;
    let boolean = Bsrv::from_spec(&spec).ok();
    let program = match rvmon_stream::analyze_within(&args.spec, &text, &spec, args.memory_limit) {
        Ok(p) => p,
        // A Boolean specification that is not well-formed may still define its outputs:
        // the automaton decides, and the two-pass monitor computes them offline.
        Err(e) if e.message.contains("not well-formed") && boolean.is_some() => {
            let b = boolean.expect("checked");
            if args.explain {
                write!(out, "spec: {}\nengine: Boolean stream automaton (paper 06, Fig. 4), offline two passes\n{}\n{}", args.spec, e, definedness_text(&b, args.memory_limit))?;
                return Ok(0);
            }
            if args.report.is_some() {
                return Err(Error::msg(format!(
                    "--report is not available for {}: a Boolean specification that is not \
                     well-formed runs offline in two passes, outside the run loop that records \
                     the report",
                    args.spec
                )));
            }
            return run_two_pass(args, &b, out, err);
        }
        Err(e) => return Err(e),
    };
    if args.explain {
        write!(out, "{}", explain(&args.spec, &program))?;
        if let Some(b) = &boolean {
            write!(out, "{}", definedness_text(b, args.memory_limit))?;
        }
        return Ok(0);
    }
    if args.output == Output::Monpoly {
        return Err(Error::msg("--output monpoly is for temporal formulas; stream specifications write text, jsonl or rtlola"));
    }
    if let Some(c) = &program.unbounded_cycle {
        writeln!(
            err,
            "rvmon: warning: {} is not efficiently monitorable (the cycle {} -> {} reads the future); its values wait until they are decided, at worst the end of the trace",
            args.spec,
            c.join(" -> "),
            c[0]
        )?;
    }
    let online = args.trace.as_deref().is_none_or(|t| t == "-");
    let mut events = Events::new(event_source(args, &program.inputs, err)?);
    let language = "stream specification (RTLola's syntax)";
    let inputs = program.inputs.iter().map(|i| i.0.clone()).collect();
    let report = ReportPlan::new(args, language, &text, inputs)?;
    let mut monitor = StreamMonitor::new(program, args.values);
    let mut sink = FormatSink::new(out, args.output).nanoseconds(output_in_nanos(args)?);
    let options = args.run_options(online);
    let stats = report::run(report, &mut monitor, &mut events, &mut sink, options, err)?;
    let fired = sink.counts.triggers;
    writeln!(
        err,
        "rvmon: {fired} trigger(s) fired in {} event(s)",
        stats.time_points
    )?;
    crate::warn_if_empty(stats.time_points, err)?;
    Ok(if fired > 0 { 1 } else { 0 })
}

/// The two-pass offline monitor for a Boolean specification that is not well-formed: reads
/// the whole trace, then writes every output's value at every event. Exit 1 if the trace has
/// no model or several (the specification is over- or under-defined on it).
fn run_two_pass(
    args: &CheckArgs,
    b: &Bsrv,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<i32, Error> {
    let nfa = b
        .automaton_within(AUTOMATON_LIMIT, args.memory_limit)
        .map_err(|e| Error::msg(format!("{}: {e}", args.spec)))?;
    writeln!(err, "rvmon: {} is not well-formed; running the Boolean stream automaton ({} states) over the whole trace", args.spec, nfa.state_count())?;
    let name = args
        .trace
        .as_deref()
        .filter(|t| *t != "-")
        .unwrap_or("<stdin>");
    let inputs: Vec<(String, Type)> = b.inputs.iter().map(|n| (n.clone(), Type::Bool)).collect();
    let mut events = Events::new(event_source(args, &inputs, err)?);
    let (mut letters, mut times) = (Vec::new(), Vec::new());
    let mut ev = Event::default();
    while events.next(&mut ev, err)? {
        let mut l = 0u32;
        for (i, v) in ev.values.iter().enumerate() {
            match v {
                Some(Val::Bool(true)) => l |= 1 << i,
                Some(_) => {}
                None => {
                    return Err(Error::msg(format!(
                        "{name}: event {}: a Boolean stream specification needs every input at every event (`{}` has none)",
                        letters.len(),
                        b.inputs[i]
                    )))
                }
            }
        }
        letters.push(l);
        times.push(ev.time);
    }
    drop(events);
    crate::warn_if_empty(letters.len() as u64, err)?;
    match nfa.two_pass(&letters) {
        Ok(model) => {
            let n_in = b.inputs.len();
            for (i, l) in model.iter().enumerate() {
                let vals: Vec<String> = b
                    .outputs
                    .iter()
                    .enumerate()
                    .map(|(k, o)| format!("{o}={}", l >> (n_in + k) & 1 == 1))
                    .collect();
                writeln!(
                    out,
                    "event {i} @{}: {}",
                    time_text(times[i]),
                    vals.join(" ")
                )?;
            }
            Ok(0)
        }
        Err(NoUniqueModel::None) => {
            writeln!(
                err,
                "rvmon: the trace has no model: the specification is over-defined on it"
            )?;
            Ok(1)
        }
        Err(NoUniqueModel::Several(i)) => {
            writeln!(err, "rvmon: the trace has several models, which differ at event {i}: the specification is under-defined on it")?;
            Ok(1)
        }
    }
}
