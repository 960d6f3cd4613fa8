//! rvmon's temporal-formula language.
//!
//! One language for propositional and first-order, past and future, metric and unbounded
//! properties: MonPoly's concrete syntax ([`parse_formula`]) plus lower-case aliases, and for
//! `rvmon check` bare propositions and Spot's LTL syntax ([`parse_formula_with`]). The
//! [`analysis`] classifies a formula so that the front door can pick an engine; [`reference`]
//! is the brute-force semantics every engine is property-tested against; [`monpoly`] reproduces
//! MonPoly's normalisation and printing for drop-in compatibility.

pub mod analysis;
pub mod ast;
pub mod eval;
mod lexer;
pub mod monitorable;
pub mod monpoly;
mod nesting;
pub mod ops;
pub mod order;
mod parser;
pub mod pushdown;
pub mod reference;
pub mod rewrite;
mod spot;
pub mod strrel;
mod suggest;

pub use analysis::{analyze, check_arities, Analysis, TemporalClass};
pub use ast::*;
pub use nesting::{MAX_NESTING, MAX_WRITTEN_OUT};
pub use parser::{parse_formula, parse_formula_with, ParseOptions};

use std::collections::BTreeSet;

/// Free variables in order of first occurrence (MonPoly prints result tuples in this order).
pub fn free_vars(f: &Formula) -> Vec<String> {
    fn term_vars(t: &Term, bound: &BTreeSet<String>, out: &mut Vec<String>) {
        match t {
            Term::Var(v) => {
                if !bound.contains(v) && !out.contains(v) {
                    out.push(v.clone());
                }
            }
            Term::Int(_) | Term::Float(_) | Term::Str(_) => {}
            Term::Regexp(_) => {}
            Term::Neg(a) | Term::Func(_, a) => term_vars(a, bound, out),
            Term::Arith(_, a, b) => {
                term_vars(a, bound, out);
                term_vars(b, bound, out);
            }
        }
    }
    fn go(f: &Formula, bound: &BTreeSet<String>, out: &mut Vec<String>) {
        match &f.kind {
            FormulaKind::Pred { args, .. } => args.iter().for_each(|a| term_vars(a, bound, out)),
            // MonPoly stores `a > b` as `b < a`.
            FormulaKind::Cmp {
                op: CmpOp::Gt | CmpOp::Ge,
                lhs,
                rhs,
            } => {
                term_vars(rhs, bound, out);
                term_vars(lhs, bound, out);
            }
            FormulaKind::Cmp { lhs, rhs, .. } => {
                term_vars(lhs, bound, out);
                term_vars(rhs, bound, out);
            }
            FormulaKind::StrRel {
                lhs, rhs, groups, ..
            } => {
                term_vars(lhs, bound, out);
                term_vars(rhs, bound, out);
                groups
                    .iter()
                    .flatten()
                    .for_each(|g| term_vars(g, bound, out));
            }
            // MonPoly lists the right operand's variables first.
            FormulaKind::Binary { lhs, rhs, .. } => {
                go(rhs, bound, out);
                go(lhs, bound, out);
            }
            FormulaKind::Quant { vars, body, .. } => {
                let mut inner = bound.clone();
                inner.extend(vars.iter().cloned());
                go(body, &inner, out);
            }
            FormulaKind::Let { body, .. } => go(body, bound, out),
            // MonPoly: the result variable, then the group-by variables.
            FormulaKind::Agg { result, group, .. } => {
                for v in std::iter::once(result).chain(group) {
                    if !bound.contains(v) && !out.contains(v) {
                        out.push(v.clone());
                    }
                }
            }
            _ => f.children().into_iter().for_each(|c| go(c, bound, out)),
        }
    }
    let mut out = Vec::new();
    go(f, &BTreeSet::new(), &mut out);
    out
}
