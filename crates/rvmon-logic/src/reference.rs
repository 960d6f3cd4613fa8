//! The brute-force reference semantics of propositional MTL, written straight from the
//! definitions (MonPoly's pointwise semantics over a finite trace, quadratic time). Engines are
//! property-tested against it; it is never used to monitor.
//!
//! On a finite trace the future ends with the trace: `NEXT` at the last time point is false,
//! `EVENTUALLY` only sees the time points that exist. Tests that check online verdicts append a
//! closing time point (MonPoly's "new last timestamp") so that every verdict the engine emits
//! early must agree with it.

use std::collections::HashMap;

use rvmon_core::{Interner, Value};

use crate::ast::*;
use crate::eval::eval_term;

/// A time point for the reference evaluator: timestamp and the propositions that hold.
pub type RefTimePoint = (i64, Vec<String>);

/// Evaluates a ground comparison (`0 = 0`, `1 < 2`, `"a" = "a"`).
pub fn eval_ground_cmp(op: CmpOp, lhs: &Term, rhs: &Term) -> Result<bool, String> {
    let mut interner = Interner::new();
    let none = |_: &str| None;
    let l = eval_term(lhs, &none, &mut interner).map_err(|e| e.to_string())?;
    let r = eval_term(rhs, &none, &mut interner).map_err(|e| e.to_string())?;
    compare(op, &l, &r, &interner)
        .ok_or_else(|| "the two sides of the comparison have different types".to_string())
}

/// `l op r` for values of the same type; `None` when the types differ.
pub fn compare(op: CmpOp, l: &Value, r: &Value, interner: &Interner) -> Option<bool> {
    if std::mem::discriminant(l) != std::mem::discriminant(r) {
        return None;
    }
    let ord = l.cmp_in(r, interner);
    Some(match op {
        CmpOp::Eq => l == r,
        CmpOp::Lt => ord.is_lt(),
        CmpOp::Le => ord.is_le(),
        CmpOp::Gt => ord.is_gt(),
        CmpOp::Ge => ord.is_ge(),
    })
}

/// The truth value of `f` at every time point of `trace`.
///
/// Panics on first-order formulas: the reference is for propositional ones.
pub fn evaluate(f: &Formula, trace: &[RefTimePoint]) -> Vec<bool> {
    let lets = HashMap::new();
    (0..trace.len()).map(|i| sat(f, trace, i, &lets)).collect()
}

fn dist(trace: &[RefTimePoint], from: usize, to: usize) -> u64 {
    (trace[to].0 - trace[from].0) as u64
}

fn sat(f: &Formula, tr: &[RefTimePoint], i: usize, lets: &HashMap<String, &Formula>) -> bool {
    match &f.kind {
        FormulaKind::Bool(b) => *b,
        FormulaKind::Pred { name, args } => {
            assert!(
                args.is_empty(),
                "reference evaluator: propositional formulas only"
            );
            match lets.get(name) {
                Some(def) => sat(def, tr, i, lets),
                None => tr[i].1.iter().any(|p| p == name),
            }
        }
        FormulaKind::Cmp { op, lhs, rhs } => {
            eval_ground_cmp(*op, lhs, rhs).expect("ground comparison")
        }
        FormulaKind::Not(g) => !sat(g, tr, i, lets),
        FormulaKind::Bool2 { op, lhs, rhs } => {
            let (a, b) = (sat(lhs, tr, i, lets), sat(rhs, tr, i, lets));
            match op {
                BoolOp::And => a && b,
                BoolOp::Or => a || b,
                BoolOp::Implies => !a || b,
                BoolOp::Equiv => a == b,
            }
        }
        FormulaKind::Quant { .. } | FormulaKind::Agg { .. } => {
            panic!("reference evaluator: propositional formulas only")
        }
        FormulaKind::Let {
            name,
            params,
            def,
            body,
        } => {
            assert!(
                params.is_empty(),
                "reference evaluator: propositional formulas only"
            );
            // The definition is evaluated in the scope outside the LET.
            let mut inner = lets.clone();
            let def_closure: &Formula = def;
            inner.insert(name.clone(), def_closure);
            let _ = def_closure;
            sat(body, tr, i, &inner)
        }
        FormulaKind::Unary {
            op,
            interval: iv,
            body,
        } => {
            let s = |j| sat(body, tr, j, lets);
            match op {
                UnaryTemporal::Previous => i > 0 && iv.contains(dist(tr, i - 1, i)) && s(i - 1),
                UnaryTemporal::Next => {
                    i + 1 < tr.len() && iv.contains(dist(tr, i, i + 1)) && s(i + 1)
                }
                UnaryTemporal::Once => (0..=i).any(|j| iv.contains(dist(tr, j, i)) && s(j)),
                UnaryTemporal::PastAlways => (0..=i).all(|j| !iv.contains(dist(tr, j, i)) || s(j)),
                UnaryTemporal::Eventually => {
                    (i..tr.len()).any(|j| iv.contains(dist(tr, i, j)) && s(j))
                }
                UnaryTemporal::Always => {
                    (i..tr.len()).all(|j| !iv.contains(dist(tr, i, j)) || s(j))
                }
            }
        }
        FormulaKind::Binary {
            op,
            interval: iv,
            lhs,
            rhs,
        } => match op {
            BinaryTemporal::Since => (0..=i).any(|j| {
                iv.contains(dist(tr, j, i))
                    && sat(rhs, tr, j, lets)
                    && (j + 1..=i).all(|k| sat(lhs, tr, k, lets))
            }),
            BinaryTemporal::Until => (i..tr.len()).any(|j| {
                iv.contains(dist(tr, i, j))
                    && sat(rhs, tr, j, lets)
                    && (i..j).all(|k| sat(lhs, tr, k, lets))
            }),
        },
    }
}
