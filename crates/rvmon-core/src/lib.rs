//! The model every rvmon layer shares.
//!
//! Readers produce [`TimePoint`]s, engines consume them through the [`Monitor`] trait and emit
//! [`Decision`]s into [`Sink`]s, which print them. Errors that point into user input carry a [`SourcePos`] so
//! that every layer reports `file:line:col: what was expected` the same way.

mod error;
pub mod event;
mod intern;
mod json;
pub mod limits;
mod live;
mod monitor;
pub mod rng;
pub mod sig;
mod state;
pub mod text;
mod timepoint;
mod verdict;

pub use error::{Error, SourcePos};
pub use intern::{Interner, SavedStrings, StringCollection, Sym};
pub use json::json_string;
pub use limits::{too_deep, Depth, MemoryLimit};
pub use live::mark_syms;
pub use monitor::{text, Collect, Decision, Description, Kind, Monitor, Payload, Sink};
pub use sig::{PredDecl, Signature, Type};
pub use state::{decode_state, encode_state, fingerprint};
pub use timepoint::{EventRef, TimePoint, Timestamp, Value};
pub use verdict::{Truth, Verdict};

/// Timestamp of the closing time point MonPoly adds at the end of a finite trace: every
/// window closes before it (the propositional and first-order engines, and MonPoly's timing).
pub const CLOSING_TS: Timestamp = i64::MAX / 2;

/// The field names an event's time has when no `--time-field` names it, in any case: the
/// event trace readers (CSRV CSV, JSON, JSON Lines, XML), signal CSV and the stream
/// specifications' CSV and JSON Lines all take these, so that one trace reads alike
/// everywhere.
pub const TIME_FIELDS: [&str; 3] = ["time", "ts", "timestamp"];

/// Whether `name` is one of [`TIME_FIELDS`] (ASCII case ignored: `Time` is a time).
pub fn is_time_field(name: &str) -> bool {
    TIME_FIELDS.iter().any(|t| name.eq_ignore_ascii_case(t))
}

/// What a run says, once, about a trace whose events have no time field.
pub const POSITIONS_AS_TIMESTAMPS: &str = "the trace's events have no time field (`time`, `ts` or `timestamp`; --time-field names another): event positions are used as timestamps";
