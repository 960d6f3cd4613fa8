//! rvmon as a library: the front door.
//!
//! A specification (its text and language) goes in; the front door analyses it, picks the
//! cheapest engine that monitors it correctly (a cascade that records why each cheaper one
//! was skipped, see [`cascade`]), and runs that engine over a trace through one run loop
//! and one sink layer. The `rvmon` command line, and the Python module and the online
//! service to come, use this crate and nothing below it.

#![warn(missing_docs)]

pub mod cascade;
pub mod check;
pub mod fallback;
pub mod imprecise;
mod io;
pub mod learn;
pub mod modelplex;
pub mod monpoly;
pub mod param;
mod progress;
pub mod r2u2;
mod read_ahead;
pub mod report;
pub mod run;
pub mod sink;
pub mod sliced;
pub mod smc;
pub mod stl;
mod stl_dense;
pub mod stream;

pub use io::{
    next_time_point, note_positions, open_trace, read_file, read_signature, release, trace_format,
    warn_if_empty, PROCESS_ENDS_AFTER_RUN,
};
pub use rvmon_core::Error;
