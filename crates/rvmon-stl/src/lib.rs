//! Signal Temporal Logic: the robustness of a formula over sampled signals (paper 19 of RV
//! 2014, and rtamt's discrete-time semantics, which rtamt users' specifications expect).
//!
//! [`parse`] reads rtamt's syntax into a [`Formula`] (an arena, operands first); [`eval`]
//! computes its robustness at every sample as rtamt does offline; [`StlMonitor`] is the
//! engine behind the front door's `Monitor`; [`number`] prints numbers as rtamt users read
//! them. [`dense`] is dense time: robustness exact for piecewise-constant signals.

pub mod ast;
pub mod dense;
pub mod eval;
mod lexer;
mod monitor;
pub mod number;
pub mod online;
pub mod parse;

pub use ast::Formula;
pub use dense::{DenseFormula, DenseMonitor};
pub use monitor::StlMonitor;
pub use online::Online;
pub use parse::parse;
