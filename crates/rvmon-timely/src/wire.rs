//! What crosses workers and processes: owned values (strings as text, since each worker has
//! its own interner), a slice's time point, and a slice's answers.

use rvmon_core::{Interner, Value};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum WireValue {
    Int(i64),
    Float(f64),
    Str(String),
    Bool(bool),
}

impl WireValue {
    pub fn from_value(v: &Value, interner: &Interner) -> WireValue {
        match v {
            Value::Int(i) => WireValue::Int(*i),
            Value::Float(f) => WireValue::Float(*f),
            Value::Str(s) => WireValue::Str(interner.resolve(*s).to_string()),
            Value::Bool(b) => WireValue::Bool(*b),
        }
    }

    pub fn to_value(&self, interner: &mut Interner) -> Value {
        match self {
            WireValue::Int(i) => Value::Int(*i),
            WireValue::Float(f) => Value::Float(*f),
            WireValue::Str(s) => Value::Str(interner.intern(s)),
            WireValue::Bool(b) => Value::Bool(*b),
        }
    }
}

/// A relation's tuples as owned values.
pub fn rows_of(rel: &rvmon_fo::rel::Rel, interner: &Interner) -> Vec<Vec<WireValue>> {
    rel.iter()
        .map(|t| {
            t.iter()
                .map(|v| WireValue::from_value(v, interner))
                .collect()
        })
        .collect()
}

/// An epoch of one slice: its time points and their events, flat (a few allocations per
/// epoch, not one per event). Events are by predicate number (see
/// `rvmon_slice::predicates`).
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct SliceBatch {
    pub slice: u64,
    /// The worker that runs the slice.
    pub worker: u64,
    /// (time point, timestamp, number of events).
    pub time_points: Vec<(u64, i64, u32)>,
    /// (predicate, arity) of each event, in order.
    pub events: Vec<(u32, u32)>,
    /// The events' arguments, in order.
    pub args: Vec<WireValue>,
    /// The log had a bad line here: the slice must not close its engine as if it ended.
    pub abort: bool,
}

impl SliceBatch {
    pub fn is_empty(&self) -> bool {
        self.time_points.is_empty() && !self.abort
    }
}

/// A worker's news for worker 0: its slices' answers (time point, timestamp, tuples) and the
/// first time point it has not decided (every earlier one is decided), or an engine error.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct SliceReport {
    /// The worker reporting.
    pub worker: u64,
    pub decided_before: u64,
    pub answers: Vec<(u64, i64, Vec<Vec<WireValue>>)>,
    pub error: Option<String>,
}
