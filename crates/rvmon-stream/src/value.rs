//! Runtime values of streams and their printing (RTLola's `Display` forms): `rvmon_core`'s,
//! shared with the readers.

pub use rvmon_core::event::Val;
