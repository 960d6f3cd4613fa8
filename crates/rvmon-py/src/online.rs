//! `rvmon.Monitor`: the front door's monitor of a specification, fed one time point at a time
//! from Python; decisions come back as the JSON Lines of `--output jsonl`.

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyTuple};
use rvmon::cascade::{any_monitor, AnyMonitor};
use rvmon::sink::{FormatSink, Output};
use rvmon_core::event::{Event, Val, ValType};
use rvmon_core::{decode_state, encode_state, Error, Interner, Sink, TimePoint};
use rvmon_core::{Signature, Type, Value};

use crate::{failure, guarded, Blame};

/// A specification as the Python side gives it: its name (a path, or `<spec>` for text,
/// whose extension is `lang`), its text, and the signature's name and text.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
struct Spec {
    name: String,
    text: String,
    lang: Option<String>,
    sig: Option<(String, String)>,
    /// STL: the sampling period bounds are divided by (rtamt's `set_sampling_period`).
    period_ns: Option<u64>,
}

/// Bumped whenever what `save` writes changes.
const SAVED_VERSION: u32 = 1;

/// A monitor of one specification, fed a time point at a time.
#[pyclass(unsendable, module = "rvmon._rvmon")]
pub struct Monitor {
    spec: Spec,
    engine: AnyMonitor,
    /// The signature that types a formula's event arguments.
    sig: Option<Signature>,
    interner: Interner,
    /// Time points fed so far.
    index: u64,
    strategy: String,
    finished: bool,
    /// STL: every sample's robustness is a decision, not only the violations.
    every_sample: bool,
    /// For an engine that cannot save its state (the parametric one), the time points fed
    /// so far: `save` keeps them and `load` feeds them again (exact, and as large as the
    /// trace so far).
    history: Option<Vec<SavedPoint>>,
}

/// A time point as `save` keeps it: index, timestamp, and each event's name and arguments.
type SavedPoint = (u64, i64, Vec<(rvmon_core::Sym, Vec<Value>)>);

/// What `save` keeps of the engine: its snapshot, or the time points to feed again.
#[derive(serde::Serialize, serde::Deserialize)]
enum SavedEngine {
    Snapshot(Vec<u8>),
    Replay(Vec<SavedPoint>),
}

/// A sink that keeps nothing (a replay's decisions were given when first made).
struct Discard;

impl Sink for Discard {
    fn emit(&mut self, _: &rvmon_core::Decision<'_>, _: &Interner) -> Result<(), Error> {
        Ok(())
    }
}

fn spec_error(e: &Error) -> PyErr {
    failure(Blame::Spec, e, b"")
}

fn trace_error(e: &Error, output: &[u8]) -> PyErr {
    failure(Blame::Trace, e, output)
}

impl Monitor {
    fn build(spec: Spec, mut interner: Interner) -> Result<Monitor, Error> {
        let sig = match &spec.sig {
            Some((name, text)) => Some(Signature::parse(name, text)?),
            None => None,
        };
        let (lang, period) = (spec.lang.as_deref(), spec.period_ns.map(u128::from));
        let (strategy, engine) = any_monitor(
            &spec.name,
            &spec.text,
            lang,
            sig.clone(),
            &mut interner,
            period,
        )?;
        // (An engine without snapshots says so on a fresh one, cheaply.)
        let history = match &engine {
            AnyMonitor::Points(monitor) if monitor.snapshot().is_err() => Some(Vec::new()),
            _ => None,
        };
        Ok(Monitor {
            spec,
            engine,
            sig,
            interner,
            index: 0,
            strategy,
            finished: false,
            every_sample: false,
            history,
        })
    }

    /// Runs `step` with a sink writing JSON Lines; returns what it wrote.
    fn with_sink(
        &mut self,
        step: impl FnOnce(&mut AnyMonitor, &mut Interner, &mut dyn Sink) -> Result<(), Error>,
    ) -> Result<Vec<u8>, (Error, Vec<u8>)> {
        let mut out = Vec::new();
        let r = {
            let mut sink = FormatSink::new(&mut out, Output::Jsonl).every_sample(self.every_sample);
            step(&mut self.engine, &mut self.interner, &mut sink).and_then(|()| sink.end_batch())
        };
        match r {
            Ok(()) => Ok(out),
            Err(e) => Err((e, out)),
        }
    }
}

#[pymethods]
impl Monitor {
    /// A monitor of the specification `text` named `name` (a path, whose extension gives
    /// the language unless `lang` does), typed by the signature `sig` (name, text); with
    /// `robustness`, an STL formula's robustness at every sample is a decision; an STL
    /// formula's bounds are over the sampling period `period_ns` (1 s by default).
    #[new]
    #[pyo3(signature = (name, text, lang=None, sig=None, robustness=false, period_ns=None))]
    fn new(
        name: String,
        text: String,
        lang: Option<String>,
        sig: Option<(String, String)>,
        robustness: bool,
        period_ns: Option<u64>,
    ) -> PyResult<Monitor> {
        guarded(|| {
            let spec = Spec {
                name,
                text,
                lang,
                sig,
                period_ns,
            };
            let mut m = Monitor::build(spec, Interner::new()).map_err(|e| spec_error(&e))?;
            m.every_sample = robustness;
            Ok(m)
        })
    }

    /// Feeds the time point `timestamp` with `events`, a list of `(name, args)`; returns
    /// the JSON Lines of the decisions it makes.
    fn update<'py>(
        &mut self,
        py: Python<'py>,
        timestamp: &Bound<'py, PyAny>,
        events: Vec<(String, Bound<'py, PyAny>)>,
    ) -> PyResult<Bound<'py, PyBytes>> {
        guarded(|| {
            if self.finished {
                let e = Error::msg("the monitor has finished: it takes no more time points");
                return Err(trace_error(&e, b""));
            }
            let index = self.index;
            let input = match &self.engine {
                AnyMonitor::Points(_) => {
                    let ts = integer_time(timestamp, index)?;
                    let sig = self.sig.as_ref();
                    let tp = time_point(index, ts, &events, sig, &mut self.interner)?;
                    Fed::Point(tp)
                }
                AnyMonitor::Events { inputs, .. } => {
                    Fed::Event(event(index, timestamp, &events, inputs)?)
                }
            };
            let out = self.with_sink(|engine, interner, sink| match (engine, &input) {
                (AnyMonitor::Points(monitor), Fed::Point(tp)) => {
                    monitor.feed(std::slice::from_ref(tp), interner, sink)
                }
                (AnyMonitor::Events { monitor, .. }, Fed::Event(ev)) => {
                    monitor.feed(std::slice::from_ref(ev), interner, sink)
                }
                _ => unreachable!("the input is made for its engine"),
            });
            self.index += 1;
            if let (Some(history), Fed::Point(tp)) = (&mut self.history, &input) {
                let events = tp.events.iter().map(|e| (e.name, tp.args_of(e).to_vec()));
                history.push((tp.index, tp.ts, events.collect()));
            }
            match out {
                Ok(out) => Ok(PyBytes::new(py, &out)),
                Err((e, out)) => Err(trace_error(&e, &out)),
            }
        })
    }

    /// Ends the trace: returns the JSON Lines of the decisions the end makes.
    fn finish<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        guarded(|| {
            if std::mem::replace(&mut self.finished, true) {
                return Ok(PyBytes::new(py, b""));
            }
            let out = self.with_sink(|engine, interner, sink| engine.finish(interner, sink));
            match out {
                Ok(out) => Ok(PyBytes::new(py, &out)),
                Err((e, out)) => Err(trace_error(&e, &out)),
            }
        })
    }

    /// The plan: the engine the front door chose, and what its memory holds.
    fn explain(&self) -> String {
        let d = self.engine.describe();
        format!(
            "spec: {}\nengine: {}\nstrategy: {}\nmemory: {}\n",
            self.spec.name, self.strategy, d.strategy, d.memory
        )
    }

    /// The monitor's state, with its specification: `Monitor.load` resumes from it.
    fn save<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyBytes>> {
        guarded(|| {
            let state = match (&self.engine, &self.history) {
                (_, Some(points)) => SavedEngine::Replay(points.clone()),
                (AnyMonitor::Points(monitor), None) => SavedEngine::Snapshot(
                    monitor
                        .snapshot()
                        .map_err(|e| failure(Blame::Internal, &e, b""))?,
                ),
                (AnyMonitor::Events { monitor, .. }, None) => SavedEngine::Snapshot(
                    monitor
                        .snapshot()
                        .map_err(|e| failure(Blame::Internal, &e, b""))?,
                ),
            };
            let saved = (
                SAVED_VERSION,
                &self.spec,
                self.interner.save(),
                (self.index, self.finished, self.every_sample),
                state,
            );
            Ok(PyBytes::new(py, &encode_state(&saved)))
        })
    }

    /// A monitor resumed from what `save` returned.
    #[staticmethod]
    fn load(state: &[u8]) -> PyResult<Monitor> {
        guarded(|| {
            type Saved = (
                u32,
                Spec,
                rvmon_core::SavedStrings,
                (u64, bool, bool),
                SavedEngine,
            );
            let bad =
                || Error::msg("not a monitor state saved by this version of rvmon (Monitor.save)");
            let (version, spec, strings, (index, finished, every_sample), engine): Saved =
                decode_state(state).ok_or_else(|| spec_error(&bad()))?;
            if version != SAVED_VERSION {
                return Err(spec_error(&bad()));
            }
            let interner = Interner::restore(&strings);
            let mut m = Monitor::build(spec, interner).map_err(|e| spec_error(&e))?;
            match (&mut m.engine, engine) {
                (engine, SavedEngine::Snapshot(s)) => engine.restore(&s),
                (AnyMonitor::Points(monitor), SavedEngine::Replay(points)) => {
                    for (index, ts, events) in &points {
                        let mut tp = TimePoint {
                            index: *index,
                            ts: *ts,
                            ..TimePoint::default()
                        };
                        for (name, args) in events {
                            tp.push_event(*name, args);
                        }
                        let one = std::slice::from_ref(&tp);
                        monitor
                            .feed(one, &mut m.interner, &mut Discard)
                            .map_err(|e| spec_error(&e))?;
                    }
                    m.history = Some(points);
                    Ok(())
                }
                (AnyMonitor::Events { .. }, SavedEngine::Replay(_)) => Err(bad()),
            }
            .map_err(|e| spec_error(&e))?;
            (m.index, m.finished, m.every_sample) = (index, finished, every_sample);
            Ok(m)
        })
    }
}

/// A time point or an event, made for the engine.
enum Fed {
    Point(TimePoint),
    Event(Event),
}

/// A formula's timestamp: an integer (MonPoly's), or a float that is one.
fn integer_time(ts: &Bound<'_, PyAny>, index: u64) -> PyResult<i64> {
    if let Ok(i) = ts.extract::<i64>() {
        return Ok(i);
    }
    match ts.extract::<f64>() {
        Ok(f) if f.fract() == 0.0 && f.abs() < 9.0e18 => Ok(f as i64),
        _ => Err(trace_error(
            &Error::msg(format!(
                "time point {index}: the timestamp must be an integer (a temporal formula's \
                 time unit is the trace's), found {ts}"
            )),
            b"",
        )),
    }
}

/// A Python value as one of rvmon's, as far as its type says.
enum Scalar {
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
}

fn scalar(v: &Bound<'_, PyAny>) -> Option<Scalar> {
    // (`bool` first: Python's `True` is also an `int`.)
    if v.is_instance_of::<pyo3::types::PyBool>() {
        return v.extract().ok().map(Scalar::Bool);
    }
    if let Ok(i) = v.extract::<i64>() {
        return Some(Scalar::Int(i));
    }
    if let Ok(f) = v.extract::<f64>() {
        return Some(Scalar::Float(f));
    }
    v.extract::<String>().ok().map(Scalar::Str)
}

/// An event's arguments: a tuple or list of values (a single value counts as one).
fn arguments<'py>(args: &Bound<'py, PyAny>) -> Vec<Bound<'py, PyAny>> {
    if let Ok(t) = args.cast::<PyTuple>() {
        return t.iter().collect();
    }
    if let Ok(l) = args.cast::<pyo3::types::PyList>() {
        return l.iter().collect();
    }
    vec![args.clone()]
}

/// The time point `index` at `ts` with `events`, their arguments typed as `sig` declares.
fn time_point(
    index: u64,
    ts: i64,
    events: &[(String, Bound<'_, PyAny>)],
    sig: Option<&Signature>,
    interner: &mut Interner,
) -> PyResult<TimePoint> {
    let mut tp = TimePoint {
        index,
        ts,
        ..TimePoint::default()
    };
    let mut values = Vec::new();
    for (name, args) in events {
        let declared = match sig {
            Some(s) => Some(s.get(name).ok_or_else(|| {
                let e = format!("time point {index}: the event `{name}` is not in the signature");
                trace_error(&Error::msg(e), b"")
            })?),
            None => None,
        };
        let args = arguments(args);
        if let Some(d) = declared.filter(|d| d.args.len() != args.len()) {
            let e = format!(
                "time point {index}: `{name}` takes {} argument(s), found {}",
                d.args.len(),
                args.len()
            );
            return Err(trace_error(&Error::msg(e), b""));
        }
        values.clear();
        for (k, a) in args.iter().enumerate() {
            let ty = declared.map(|d| d.args[k].1);
            let v = match (scalar(a), ty) {
                (Some(Scalar::Int(i)), None | Some(Type::Int)) => Value::Int(i),
                (Some(Scalar::Int(i)), Some(Type::Float)) => Value::Float(i as f64),
                (Some(Scalar::Float(f)), None | Some(Type::Float)) => Value::Float(f),
                (Some(Scalar::Str(s)), None | Some(Type::Str | Type::Regexp)) => {
                    Value::Str(interner.intern(&s))
                }
                (Some(Scalar::Bool(b)), None) => Value::Bool(b),
                _ => {
                    let want = ty.map_or("an int, float, str or bool", |t| t.name());
                    let e = format!(
                        "time point {index}: argument {} of `{name}` must be {want}, found {a}",
                        k + 1
                    );
                    return Err(trace_error(&Error::msg(e), b""));
                }
            };
            values.push(v);
        }
        let sym = interner.intern_name(name);
        tp.push_event(sym, &values);
    }
    Ok(tp)
}

/// The event `index` at `ts` (seconds) with a value per input among `events`.
fn event(
    index: u64,
    ts: &Bound<'_, PyAny>,
    events: &[(String, Bound<'_, PyAny>)],
    inputs: &[(String, ValType)],
) -> PyResult<Event> {
    let bad = |msg: String| trace_error(&Error::msg(format!("time point {index}: {msg}")), b"");
    let secs: f64 = ts.extract().map_err(|_| {
        bad(format!(
            "the timestamp must be a number (seconds), found {ts}"
        ))
    })?;
    let mut ev = Event {
        time: (secs * 1e9).round() as i64,
        values: vec![None; inputs.len()],
    };
    for (name, args) in events {
        let Some(k) = inputs.iter().position(|(n, _)| n == name) else {
            let names: Vec<&str> = inputs.iter().map(|(n, _)| n.as_str()).collect();
            return Err(bad(format!(
                "no input `{name}` (the inputs are: {})",
                names.join(", ")
            )));
        };
        let args = arguments(args);
        let [a] = args.as_slice() else {
            return Err(bad(format!(
                "`{name}` takes one value, found {}",
                args.len()
            )));
        };
        let ty = inputs[k].1;
        let v = match (scalar(a), ty) {
            (Some(Scalar::Bool(b)), ValType::Bool) => Val::Bool(b),
            (Some(Scalar::Int(i)), ValType::Int) => Val::Int(i),
            (Some(Scalar::Int(i)), ValType::UInt) if i >= 0 => Val::UInt(i as u64),
            (Some(Scalar::Int(i)), ValType::Float) => Val::Float(i as f64),
            (Some(Scalar::Float(f)), ValType::Float) => Val::Float(f),
            (Some(Scalar::Bool(b)), ValType::Float) => Val::Float(f64::from(u8::from(b))),
            (Some(Scalar::Str(s)), ValType::Str) => Val::Str(s.into()),
            _ => return Err(bad(format!("`{name}` must be {}, found {a}", ty.a()))),
        };
        ev.values[k] = Some(v);
    }
    Ok(ev)
}
