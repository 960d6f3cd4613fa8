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
    if op == CmpOp::Eq {
        // Interned strings are equal exactly when their ids are: no need to read them.
        return Some(l == r);
    }
    let ord = l.cmp_in(r, interner);
    Some(match op {
        CmpOp::Eq => unreachable!("answered above"),
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
        FormulaKind::StrRel { .. } => panic!("reference evaluator: propositional formulas only"),
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

/// A variable and its value.
type Binding = (String, Value);

/// A first-order time point for the reference evaluator: timestamp and events with values.
pub type RefFoTimePoint = (i64, Vec<(String, Vec<Value>)>);

/// The time point at position `index` of a reference trace, as the engines read it.
pub fn time_point(
    index: usize,
    (ts, evs): &RefFoTimePoint,
    interner: &mut Interner,
) -> rvmon_core::TimePoint {
    let mut tp = rvmon_core::TimePoint {
        index: index as u64,
        ts: *ts,
        ..Default::default()
    };
    for (name, vals) in evs {
        let sym = interner.intern_name(name);
        tp.push_event(sym, vals);
    }
    tp
}

/// The satisfying assignments of `f` (over `free_vars(f)`, in that order) at every time point,
/// by brute force over the active domain (every value of the trace and of the formula), straight
/// from MFOTL's semantics. Exponential in the number of variables: for tests only.
/// Aggregations are not covered.
pub fn evaluate_fo(
    f: &Formula,
    trace: &[RefFoTimePoint],
    interner: &mut Interner,
) -> Vec<std::collections::BTreeSet<Vec<OrdValue>>> {
    let mut domain: Vec<Value> = Vec::new();
    for (_, evs) in trace {
        for (_, vals) in evs {
            for v in vals {
                if !domain.contains(v) {
                    domain.push(*v);
                }
            }
        }
    }
    collect_constants(f, interner, &mut domain);
    // One value outside the trace and the formula: the logic's domain is infinite, and for the
    // domain-independent formulas monitors accept, one fresh value stands for all the others
    // (it also keeps the domain non-empty on a trace without data).
    domain.push(Value::Int(i64::MIN + 7));
    let fv = crate::free_vars(f);
    let mut out = Vec::new();
    for i in 0..trace.len() {
        let mut set = std::collections::BTreeSet::new();
        let mut env: Vec<(String, Value)> = Vec::new();
        assignments(&fv, &domain, &mut env, &mut |env| {
            if sat_fo(f, trace, i, env, &domain, interner) {
                set.insert(env.iter().map(|(_, v)| OrdValue(*v)).collect());
            }
        });
        out.push(set);
    }
    out
}

/// A value with a total order (for sets of tuples in tests): by kind, then by content
/// (strings by symbol id, which is enough to compare sets).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct OrdValue(pub Value);

impl PartialOrd for OrdValue {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for OrdValue {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        let key = |v: &Value| match v {
            Value::Int(i) => (0, *i, 0u64),
            Value::Float(f) => (1, 0, f.to_bits()),
            Value::Str(s) => (2, i64::from(s.0), 0),
            Value::Bool(b) => (3, i64::from(*b), 0),
        };
        key(&self.0).cmp(&key(&other.0))
    }
}

fn collect_constants(f: &Formula, interner: &mut Interner, out: &mut Vec<Value>) {
    fn term(t: &Term, interner: &mut Interner, out: &mut Vec<Value>) {
        if let Ok(v) = eval_term(t, &|_| None, interner) {
            if !out.contains(&v) {
                out.push(v);
            }
        }
    }
    match &f.kind {
        FormulaKind::Pred { args, .. } => args.iter().for_each(|a| term(a, interner, out)),
        FormulaKind::Cmp { lhs, rhs, .. } => {
            term(lhs, interner, out);
            term(rhs, interner, out);
        }
        _ => {}
    }
    for c in f.children() {
        collect_constants(c, interner, out);
    }
}

fn assignments(
    vars: &[String],
    domain: &[Value],
    env: &mut Vec<(String, Value)>,
    k: &mut dyn FnMut(&[Binding]),
) {
    match vars.split_first() {
        None => k(env),
        Some((v, rest)) => {
            for d in domain {
                env.push((v.clone(), *d));
                assignments(rest, domain, env, k);
                env.pop();
            }
        }
    }
}

fn lookup(env: &[(String, Value)], v: &str) -> Option<Value> {
    env.iter().rev().find(|(n, _)| n == v).map(|(_, x)| *x)
}

fn sat_fo(
    f: &Formula,
    tr: &[RefFoTimePoint],
    i: usize,
    env: &[(String, Value)],
    domain: &[Value],
    interner: &mut Interner,
) -> bool {
    let dist = |from: usize, to: usize| (tr[to].0 - tr[from].0) as u64;
    match &f.kind {
        FormulaKind::Bool(b) => *b,
        FormulaKind::Pred { name, args } => {
            let vals: Option<Vec<Value>> = args
                .iter()
                .map(|a| eval_term(a, &|v| lookup(env, v), interner).ok())
                .collect();
            let Some(vals) = vals else { return false };
            tr[i].1.iter().any(|(n, vs)| n == name && *vs == vals)
        }
        FormulaKind::Cmp { op, lhs, rhs } => {
            let l = eval_term(lhs, &|v| lookup(env, v), interner);
            let r = eval_term(rhs, &|v| lookup(env, v), interner);
            match (l, r) {
                (Ok(l), Ok(r)) => compare(*op, &l, &r, interner).unwrap_or(false),
                _ => false,
            }
        }
        FormulaKind::StrRel {
            op,
            lhs,
            rhs,
            groups,
        } => {
            let l = eval_term(lhs, &|v| lookup(env, v), interner);
            let r = eval_term(rhs, &|v| lookup(env, v), interner);
            let (Ok(Value::Str(l)), Ok(r)) = (l, r) else {
                return false;
            };
            let text = interner.resolve(l).to_string();
            match (op, r, rhs) {
                (StrOp::Substring, Value::Str(r), _) => interner.resolve(r).contains(&text),
                (StrOp::Matches, _, Term::Regexp(pattern)) => {
                    let Ok(re) = crate::strrel::compile_str_regex(pattern) else {
                        return false;
                    };
                    let Some(caps) = crate::strrel::match_groups(&re, &text) else {
                        return false;
                    };
                    groups.iter().enumerate().all(|(k, g)| match g {
                        None => true,
                        Some(t) => match (
                            caps.get(k).cloned().flatten(),
                            eval_term(t, &|v| lookup(env, v), interner),
                        ) {
                            (Some(c), Ok(Value::Str(s))) => interner.resolve(s) == c,
                            _ => false,
                        },
                    })
                }
                _ => false,
            }
        }
        FormulaKind::Not(g) => !sat_fo(g, tr, i, env, domain, interner),
        FormulaKind::Bool2 { op, lhs, rhs } => {
            let a = sat_fo(lhs, tr, i, env, domain, interner);
            let b = sat_fo(rhs, tr, i, env, domain, interner);
            match op {
                BoolOp::And => a && b,
                BoolOp::Or => a || b,
                BoolOp::Implies => !a || b,
                BoolOp::Equiv => a == b,
            }
        }
        FormulaKind::Quant { q, vars, body } => {
            // The domain is never empty in the logic: a variable that does not occur in the
            // body is vacuous (MonPoly drops it when normalising), even on a trace without data.
            let fv_body = crate::free_vars(body);
            let vars: Vec<String> = vars
                .iter()
                .filter(|v| fv_body.contains(v))
                .cloned()
                .collect();
            let vars = &vars;
            if vars.is_empty() {
                return sat_fo(body, tr, i, env, domain, interner);
            }
            let mut result = *q == Quant::Forall;
            let mut inner: Vec<(String, Value)> = env.to_vec();
            let mut found = false;
            assignments(vars, domain, &mut Vec::new(), &mut |bind| {
                if found {
                    return;
                }
                let len = inner.len();
                inner.extend_from_slice(bind);
                let s = sat_fo(body, tr, i, &inner, domain, &mut interner.clone());
                inner.truncate(len);
                if (*q == Quant::Exists) == s {
                    result = s;
                    found = true;
                }
            });
            result
        }
        FormulaKind::Unary {
            op,
            interval: iv,
            body,
        } => {
            let mut s = |j: usize| sat_fo(body, tr, j, env, domain, interner);
            match op {
                UnaryTemporal::Previous => i > 0 && iv.contains(dist(i - 1, i)) && s(i - 1),
                UnaryTemporal::Next => i + 1 < tr.len() && iv.contains(dist(i, i + 1)) && s(i + 1),
                UnaryTemporal::Once => (0..=i).any(|j| iv.contains(dist(j, i)) && s(j)),
                UnaryTemporal::PastAlways => (0..=i).all(|j| !iv.contains(dist(j, i)) || s(j)),
                UnaryTemporal::Eventually => (i..tr.len()).any(|j| iv.contains(dist(i, j)) && s(j)),
                UnaryTemporal::Always => (i..tr.len()).all(|j| !iv.contains(dist(i, j)) || s(j)),
            }
        }
        FormulaKind::Binary {
            op,
            interval: iv,
            lhs,
            rhs,
        } => match op {
            BinaryTemporal::Since => (0..=i).any(|j| {
                iv.contains(dist(j, i))
                    && sat_fo(rhs, tr, j, env, domain, interner)
                    && (j + 1..=i).all(|k| sat_fo(lhs, tr, k, env, domain, interner))
            }),
            BinaryTemporal::Until => (i..tr.len()).any(|j| {
                iv.contains(dist(i, j))
                    && sat_fo(rhs, tr, j, env, domain, interner)
                    && (i..j).all(|k| sat_fo(lhs, tr, k, env, domain, interner))
            }),
        },
        FormulaKind::Let { .. } | FormulaKind::Agg { .. } => {
            panic!("reference evaluator: LET and aggregations are not covered")
        }
    }
}
