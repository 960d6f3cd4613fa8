//! Imprecise timestamps (paper 16, note C §5): each event's true time is only known within
//! ±δ of its observed timestamp. An MTL formula φ (propositional, or first-order: a
//! predicate with arguments is an event too) is rewritten into `tf(φ)`,
//! every proposition `p` into `◆[0,δ] p ∨ ◇[0,δ] p` (the operators' intervals unchanged);
//! `tf(φ)` is monitored on the observed timeline in the paper's continuous semantics
//! ([`cells`]); and a verdict is read through the labels of Fig. 1 ([`label`]): a violation
//! of `tf(φ)` at `t` is a violation of φ at `t` for every possible true timing when the NNF
//! of `¬φ` is labelled (∀), for some when it is (∃), and undetermined otherwise.

pub mod cells;
pub mod formula;
pub mod label;
pub mod monitor;

pub use formula::{from_formula, Prop};
pub use label::{label, Label};
pub use monitor::{ImpreciseMonitor, Plan};
