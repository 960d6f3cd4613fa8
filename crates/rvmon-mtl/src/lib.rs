//! rvmon's propositional metric-temporal-logic engine (MonPoly's pointwise semantics).
//!
//! [`Program::compile`] turns a propositional formula into a flat node list; [`Engine`] runs it
//! online and eagerly; [`MonpolyTiming`] says when MonPoly would print each verdict, so that
//! `rvmon monpoly` can reproduce MonPoly's output byte for byte while the engine itself decides
//! everything as early as possible.

mod engine;
mod program;
mod timing;

pub use engine::{Engine, CLOSING_TS};
pub use program::{Op, Program, Window};
pub use timing::MonpolyTiming;
