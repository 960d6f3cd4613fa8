//! The brute-force reference semantics of propositional MTL, written straight from the
//! definitions (MonPoly's pointwise semantics over a finite trace, quadratic time). Engines are
//! property-tested against it; it is never used to monitor.
//!
//! On a finite trace the future ends with the trace: `NEXT` at the last time point is false,
//! `EVENTUALLY` only sees the time points that exist. Tests that check online verdicts append a
//! closing time point (MonPoly's "new last timestamp") so that every verdict the engine emits
//! early must agree with it.

use std::collections::HashMap;

use crate::ast::*;

/// A time point for the reference evaluator: timestamp and the propositions that hold.
pub type RefTimePoint = (i64, Vec<String>);

/// Evaluates a ground comparison (`0 = 0`, `1 < 2`, `"a" = "a"`).
pub fn eval_ground_cmp(op: CmpOp, lhs: &Term, rhs: &Term) -> Result<bool, String> {
    let l = eval_ground(lhs)?;
    let r = eval_ground(rhs)?;
    let ord = match (&l, &r) {
        (Ground::Int(a), Ground::Int(b)) => a.cmp(b),
        (Ground::Float(a), Ground::Float(b)) => a.partial_cmp(b).ok_or("comparison with NaN")?,
        (Ground::Str(a), Ground::Str(b)) => a.cmp(b),
        _ => return Err("the two sides of the comparison have different types".into()),
    };
    Ok(match op {
        CmpOp::Eq => ord.is_eq(),
        CmpOp::Lt => ord.is_lt(),
        CmpOp::Le => ord.is_le(),
        CmpOp::Gt => ord.is_gt(),
        CmpOp::Ge => ord.is_ge(),
    })
}

enum Ground {
    Int(i64),
    Float(f64),
    Str(String),
}

fn eval_ground(t: &Term) -> Result<Ground, String> {
    Ok(match t {
        Term::Var(v) => return Err(format!("variable `{v}` in a ground term")),
        Term::Int(i) => Ground::Int(*i),
        Term::Float(f) => Ground::Float(*f),
        Term::Str(s) => Ground::Str(s.clone()),
        Term::Neg(a) => match eval_ground(a)? {
            Ground::Int(i) => Ground::Int(i.checked_neg().ok_or("integer overflow")?),
            Ground::Float(f) => Ground::Float(-f),
            Ground::Str(_) => return Err("negation of a string".into()),
        },
        Term::Arith(op, a, b) => match (eval_ground(a)?, eval_ground(b)?) {
            (Ground::Int(x), Ground::Int(y)) => Ground::Int(
                match op {
                    ArithOp::Add => x.checked_add(y),
                    ArithOp::Sub => x.checked_sub(y),
                    ArithOp::Mul => x.checked_mul(y),
                    ArithOp::Div => x.checked_div(y),
                    ArithOp::Mod => x.checked_rem(y),
                }
                .ok_or("division by zero or integer overflow")?,
            ),
            (Ground::Float(x), Ground::Float(y)) => Ground::Float(match op {
                ArithOp::Add => x + y,
                ArithOp::Sub => x - y,
                ArithOp::Mul => x * y,
                ArithOp::Div => x / y,
                ArithOp::Mod => x % y,
            }),
            _ => return Err("arithmetic on mismatched types".into()),
        },
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
        FormulaKind::Quant { .. } => panic!("reference evaluator: propositional formulas only"),
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
