//! The one interface every engine implements, and the one verdict model every sink reads.
//!
//! A run loop (the `rvmon` crate's) reads time points, hands them to a [`Monitor`] in batches,
//! and the monitor emits each [`Decision`] into a [`Sink`] as soon as it is decided. Sinks
//! write text, JSON Lines, MonPoly's or RTLola's format; an engine writes no output itself,
//! so a new format is written once for every engine, and a new engine gets every format.

use crate::{Error, Interner, Sym, TimePoint, Timestamp, Value};

/// What a decision says about its time point.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// The specification is violated there (for a first-order formula: by the payload's
    /// assignment).
    Violation,
    /// The specification holds there.
    Satisfied,
    /// The end of the trace came before the verdict was decided (three-valued verdicts).
    Inconclusive,
    /// A stream specification's trigger fired.
    Trigger,
    /// A stream's value, decided (stream specifications, with `--values`).
    Value,
}

impl Kind {
    /// The word JSON Lines output uses for it.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Violation => "violation",
            Kind::Satisfied => "satisfied",
            Kind::Inconclusive => "inconclusive",
            Kind::Trigger => "trigger",
            Kind::Value => "value",
        }
    }
}

/// What a decision carries beyond its time.
#[derive(Clone, Copy, Debug)]
pub enum Payload<'a> {
    /// Nothing: a propositional verdict.
    None,
    /// A first-order verdict: the values of the formula's free variables, in `vars`' order
    /// (both empty for a closed formula).
    Tuple {
        vars: &'a [String],
        values: &'a [Value],
    },
    /// A parametric property's verdict: the property, the verdict's category (`violation`,
    /// `match`, …), the parameters' values, and the property's message for it.
    Binding {
        property: &'a str,
        category: &'a str,
        params: &'a [(&'a str, Value)],
        message: &'a str,
    },
    /// A stream specification's trigger: its index among the triggers (RTLola's `#i`) and
    /// its message. The decision's time stamp is in nanoseconds.
    Trigger { index: usize, message: &'a str },
    /// A stream specification's output value, as text (`string`: a string value, which
    /// RTLola's log and JSON quote). The decision's time stamp is in nanoseconds.
    Value {
        stream: &'a str,
        text: &'a str,
        string: bool,
    },
    /// A signal specification's robustness at a sample (STL): how far the signals are from
    /// violating it (negative: violated). The decision's time stamp is in nanoseconds.
    Robustness(f64),
    /// Bounds on a signal specification's robustness at a sample not yet decided (its
    /// windows read samples still to come): whatever they are, it will lie in
    /// `[lower, upper]`. Bounds only tighten; the decision is [`Kind::Inconclusive`].
    Bounds { lower: f64, upper: f64 },
    /// An MLTL formula's verdict (R2U2): the formula's number and label; the verdict holds
    /// at every step from `from` to the decision's time point (R2U2 aggregates equal
    /// verdicts of consecutive steps).
    Mltl {
        formula: usize,
        label: Option<&'a str>,
        from: u64,
    },
    /// A ModelPlex monitor's verdict on a pair of consecutive states (paper 17): the
    /// monitor, the first of its top-level conjuncts that fails (its number and text; the
    /// condition divides by zero there if `undefined`), and the two states. The pair is the
    /// sample `from_tp` (at `from_ts`) and the decision's; time stamps are in nanoseconds.
    Transition {
        monitor: &'a str,
        conjunct: usize,
        text: &'a str,
        undefined: bool,
        from_tp: u64,
        from_ts: i64,
        signals: &'a [String],
        prior: &'a [f64],
        posterior: &'a [f64],
    },
    /// A verdict under imprecise timestamps (paper 16): it holds for every true timing within
    /// the timestamps' error (`Some(true)`), for some (`Some(false)`: a possible violation),
    /// or neither can be guaranteed (`None`: undetermined); for a first-order formula, the
    /// values of its free variables, as in [`Payload::Tuple`].
    Timing {
        every: Option<bool>,
        vars: &'a [String],
        values: &'a [Value],
    },
}

/// One verdict: where it is (time point and timestamp), what it says, and its data.
#[derive(Clone, Copy, Debug)]
pub struct Decision<'a> {
    pub tp: u64,
    pub ts: Timestamp,
    pub kind: Kind,
    pub payload: Payload<'a>,
}

/// Where decisions go. A sink writes them (or collects them); the monitor that emits them
/// never waits for the sink to ask.
pub trait Sink {
    /// One decision. `interner` resolves the strings among its values.
    fn emit(&mut self, decision: &Decision<'_>, interner: &Interner) -> Result<(), Error>;
    /// The end of a batch of time points: a sink that groups a time point's decisions on one
    /// line (MonPoly's format) ends it here. Online, the run loop flushes after this.
    fn end_batch(&mut self) -> Result<(), Error> {
        Ok(())
    }
    /// Writes out what is buffered: online after each batch, and before an error is
    /// reported (every decision before a bad input is out first).
    fn flush(&mut self) -> Result<(), Error> {
        Ok(())
    }
}

/// What a monitor says about itself: the strategy it runs, and what its memory grows with.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Description {
    /// The engine and its strategy, in one line (`propositional MTL (rvmon-mtl), …`).
    pub strategy: String,
    /// What the memory holds and what it grows with.
    pub memory: String,
}

/// A monitor: fed time points in order, it emits each decision as soon as it is decided.
///
/// Every engine implements it: the run loop, the sinks, snapshots and the front door's
/// `--explain` are written once, against this trait. What it is fed, `In`, is a
/// [`TimePoint`] (events with arguments, for temporal formulas and parametric properties) or
/// a stream specification's event (a typed value per input stream, `rvmon_stream`'s `Event`).
pub trait Monitor<In = TimePoint> {
    /// Feeds the next time points, in order; decisions they decide go to `sink`.
    /// `interner` holds the strings of the time points' values.
    fn feed(
        &mut self,
        batch: &[In],
        interner: &mut Interner,
        sink: &mut dyn Sink,
    ) -> Result<(), Error>;

    /// The end of the input: decisions the end decides go to `sink` (those that cannot be
    /// decided are [`Kind::Inconclusive`] where the engine is three-valued).
    fn finish(&mut self, interner: &mut Interner, sink: &mut dyn Sink) -> Result<(), Error>;

    /// The monitor's state between two batches, encoded, so that a run can resume from it
    /// ([`Monitor::restore`] on a monitor built from the same specification).
    fn snapshot(&self) -> Result<Vec<u8>, Error>;

    /// Takes the state a [`Monitor::snapshot`] of a monitor of the same specification saved.
    fn restore(&mut self, state: &[u8]) -> Result<(), Error>;

    /// The strategy it runs and what its memory holds.
    fn describe(&self) -> Description;

    /// How many time points a batch should hold offline (1: one at a time). A batch
    /// shares per-update work; the run loop never makes a verdict wait for a batch to fill
    /// when it reads a live input.
    fn batch_size(&self) -> usize {
        1
    }

    /// Whether the run loop may leave out `tp` without changing any decision (offline only:
    /// a time point left out does not advance the monitor's clock). MonPoly's filter of time
    /// points without events of the formula's predicates.
    fn may_skip(&self, _tp: &In) -> bool {
        false
    }

    /// Calls `mark` with every interned string the state holds, so that the others can be
    /// freed; returns how many it marked. Monitors that hold no strings mark none.
    fn mark_strings(&self, _mark: &mut dyn FnMut(Sym)) -> usize {
        0
    }

    /// Whether every decision about a time point is emitted while that time point is fed,
    /// and none later: past-time formulas, parametric properties, stream specifications
    /// without future offsets, signal formulas without future operators. Enforcement needs
    /// it: it refuses a time point before the time point enters the stream.
    fn decides_at_once(&self) -> bool {
        false
    }

    /// Warnings gathered while monitoring (conventions applied to values, say), once each.
    fn take_warnings(&mut self) -> Vec<String> {
        Vec::new()
    }
}

/// A sink that keeps the decisions as owned values (tests, the Python module): each as
/// `(tp, ts, kind, values)`, values rendered as text.
#[derive(Debug, Default)]
pub struct Collect {
    pub decisions: Vec<(u64, Timestamp, Kind, Vec<String>)>,
}

impl Sink for Collect {
    fn emit(&mut self, d: &Decision<'_>, interner: &Interner) -> Result<(), Error> {
        let values = match d.payload {
            Payload::None => Vec::new(),
            Payload::Tuple { values, .. } => values.iter().map(|v| text(v, interner)).collect(),
            Payload::Binding {
                property,
                category,
                params,
                ..
            } => std::iter::once(property.to_string())
                .chain(std::iter::once(category.to_string()))
                .chain(
                    params
                        .iter()
                        .map(|(k, v)| format!("{k}={}", text(v, interner))),
                )
                .collect(),
            Payload::Trigger { index, message } => vec![format!("#{index}"), message.to_string()],
            Payload::Value { stream, text, .. } => vec![stream.to_string(), text.to_string()],
            Payload::Robustness(r) => vec![r.to_string()],
            Payload::Bounds { lower, upper } => vec![lower.to_string(), upper.to_string()],
            Payload::Mltl { formula, from, .. } => vec![format!("{formula}"), format!("{from}")],
            Payload::Transition {
                monitor,
                conjunct,
                from_tp,
                ..
            } => vec![
                monitor.to_string(),
                format!("{conjunct}"),
                format!("{from_tp}"),
            ],
            Payload::Timing { every, values, .. } => std::iter::once(
                match every {
                    Some(true) => "every",
                    Some(false) => "some",
                    None => "undetermined",
                }
                .to_string(),
            )
            .chain(values.iter().map(|v| text(v, interner)))
            .collect(),
        };
        self.decisions.push((d.tp, d.ts, d.kind, values));
        Ok(())
    }
}

/// A value as plain text: a string as it is, a number as Rust writes it.
pub fn text(v: &Value, interner: &Interner) -> String {
    match v {
        Value::Str(s) => interner.resolve(*s).to_string(),
        Value::Int(i) => i.to_string(),
        Value::Float(x) => x.to_string(),
        Value::Bool(b) => b.to_string(),
    }
}
