//! rvmon's propositional metric-temporal-logic engine (MonPoly's pointwise semantics).
//!
//! [`Program::compile`] turns a propositional formula into a flat node list; [`Engine`] runs it
//! online, with a single-pass strategy for past-only formulas and eager node streams otherwise; [`MonpolyTiming`] says when MonPoly would print each verdict, so that
//! `rvmon monpoly` can reproduce MonPoly's output byte for byte while the engine itself decides
//! everything as early as possible.

mod bdd;
mod engine;
mod ltl3;
mod meta;
mod monitor;
mod past;
mod program;
mod sat;
mod step;
mod timing;

pub use engine::{EagerEngine, CLOSING_TS};
pub use ltl3::{Ltl3Engine, MAX_BDD_NODES, MAX_STEP_WORK};
pub use meta::Engine;
pub use monitor::MtlMonitor;
pub use past::PastEngine;
pub use program::{Op, Program, Window};
pub use step::Step;
pub use timing::MonpolyTiming;
