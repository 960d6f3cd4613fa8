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

/// A time point of one slice: its events, by predicate number (see
/// `rvmon_slice::predicates`).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct SliceRecord {
    pub slice: u64,
    pub tp: u64,
    pub ts: i64,
    pub events: Vec<(u32, Vec<WireValue>)>,
}

/// A slice's news for worker 0: answers (time point, timestamp, tuples) and the first time
/// point it has not decided (every earlier one is decided), or an engine error.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct SliceReport {
    pub slice: u64,
    pub decided_before: u64,
    pub answers: Vec<(u64, i64, Vec<Vec<WireValue>>)>,
    pub error: Option<String>,
}
