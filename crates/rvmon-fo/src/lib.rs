//! rvmon's first-order metric temporal logic engine (MonPoly's MFOTL): every subformula's
//! satisfying assignments at a time point are a finite relation; the plan joins, anti-joins,
//! filters, projects and aggregates them, and temporal operators keep sliding-window state
//! trimmed as time advances.

mod bucket;
pub mod compile;
pub mod engine;
mod monitor;
mod ops;
pub mod rel;
mod relevance;
mod stream;

pub use compile::{compile, compile_with, expand_lets, Plan};
pub use engine::{Answer, FoEngine, OFFLINE_BATCH};
pub use monitor::{emit_answer, FoMonitor, Reading};
pub use relevance::Relevance;
pub use rvmon_logic::eval::Arithmetic;
