//! Trace readers. Each reader turns bytes into [`TimePoint`]s one at a time, reusing the caller's
//! `TimePoint`, so memory does not grow with the length of the trace and a live stream is read
//! only as far as the current time point.

pub mod monpoly;
pub mod sig;

use rvmon_core::{Error, Interner, TimePoint};

pub use monpoly::MonpolyLogReader;
pub use sig::{PredDecl, Signature, Type};

/// A source of time points.
pub trait TraceReader {
    /// Refills `tp` with the next time point; returns `Ok(false)` at the end of the trace.
    fn next_time_point(&mut self, tp: &mut TimePoint) -> Result<bool, Error>;
    /// The interner that event names and string values of this trace are interned in.
    fn interner(&self) -> &Interner;
    fn interner_mut(&mut self) -> &mut Interner;
}
