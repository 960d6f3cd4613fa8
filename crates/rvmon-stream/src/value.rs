//! Runtime values of streams and their printing (RTLola's `Display` forms).

use std::fmt;
use std::rc::Rc;

use crate::ast::Type;

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
    pub fn parse(ty: Type, cell: &str) -> Option<Val> {
        Some(match ty {
            Type::Bool => match cell {
                "true" => Val::Bool(true),
                "false" => Val::Bool(false),
                _ => return None,
            },
            Type::Int => Val::Int(cell.parse().ok()?),
            // RTLola accepts `0.0` for an unsigned zero.
            Type::UInt => Val::UInt(if cell == "0.0" { 0 } else { cell.parse().ok()? }),
            Type::Float => Val::Float(cell.parse().ok()?),
            Type::Str => Val::Str(cell.into()),
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
