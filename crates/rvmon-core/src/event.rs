//! Events of stream and signal specifications: a typed value (or none) per input, at a time in
//! nanoseconds. The stream engines and the signal engine are fed them; `rvmon-trace` reads
//! them from CSV and JSON Lines.

use std::fmt;
use std::rc::Rc;

use crate::Error;

/// The type of an input or output stream (RTLola's types, integers held in 64 bits).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ValType {
    Bool,
    /// Every signed width (`Int8` … `Int64`) is held as a 64-bit integer, as RTLola's
    /// interpreter does.
    Int,
    UInt,
    Float,
    Str,
}

impl ValType {
    pub fn name(self) -> &'static str {
        match self {
            ValType::Bool => "Bool",
            ValType::Int => "Int64",
            ValType::UInt => "UInt64",
            ValType::Float => "Float64",
            ValType::Str => "String",
        }
    }

    /// The name with its article, for messages: "an Int64", "a Bool".
    pub fn a(self) -> String {
        let article = if self == ValType::Int { "an" } else { "a" };
        format!("{article} {}", self.name())
    }
}

/// A value of a stream.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum Val {
    Bool(bool),
    Int(i64),
    UInt(u64),
    Float(f64),
    Str(Rc<str>),
}

impl Val {
    pub fn as_bool(&self) -> bool {
        matches!(self, Val::Bool(true))
    }

    /// Parses a trace cell as a value of `ty`; `None` if it is not one.
    pub fn parse(ty: ValType, cell: &str) -> Option<Val> {
        Some(match ty {
            ValType::Bool => match cell {
                "true" => Val::Bool(true),
                "false" => Val::Bool(false),
                _ => return None,
            },
            ValType::Int => Val::Int(cell.parse().ok()?),
            // RTLola accepts `0.0` for an unsigned zero.
            ValType::UInt => Val::UInt(if cell == "0.0" { 0 } else { cell.parse().ok()? }),
            ValType::Float => Val::Float(cell.parse().ok()?),
            ValType::Str => Val::Str(cell.into()),
        })
    }
}

impl fmt::Display for Val {
    /// As RTLola prints values: integers in decimal, floats as Rust's `f64` display (`3` for
    /// 3.0), strings without quotes (the caller quotes where RTLola does).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Val::Bool(b) => write!(f, "{b}"),
            Val::Int(i) => write!(f, "{i}"),
            Val::UInt(u) => write!(f, "{u}"),
            Val::Float(x) => write!(f, "{x}"),
            Val::Str(s) => write!(f, "{s}"),
        }
    }
}

/// One event: its time in nanoseconds and a value (or none) per input stream.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Event {
    pub time: i64,
    pub values: Vec<Option<Val>>,
}

/// A source of events for a stream specification.
pub trait EventSource {
    /// Reads the next event into `ev`; `false` at the end.
    fn next_event(&mut self, ev: &mut Event) -> Result<bool, Error>;
    /// Whether events have no time, so that their positions are taken as seconds (known once
    /// the first event is read): a run says so, once.
    fn positions_as_times(&self) -> bool {
        false
    }
}
