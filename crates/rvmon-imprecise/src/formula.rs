//! The propositional MTL formulas paper 16 is about, taken from rvmon's formula AST:
//! propositions, Boolean connectives and `SINCE`/`UNTIL` with intervals (the other temporal
//! operators are sugar for them); what the paper's semantics has no meaning for is refused
//! with the reason.

use rvmon_core::Error;
use rvmon_logic::ast::{
    BinaryTemporal, BoolOp, Bound, Formula, FormulaKind, Interval, Quant, UnaryTemporal,
};

/// An interval of time distances, in the trace's time unit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Win {
    pub lo: u64,
    pub lo_open: bool,
    /// `None`: unbounded.
    pub hi: Option<u64>,
    pub hi_open: bool,
}

impl Win {
    fn of(i: &Interval) -> Win {
        let (lo, lo_open) = match i.lo {
            Bound::Closed(a) => (a, false),
            Bound::Open(a) => (a, true),
            Bound::Infinite => (u64::MAX, false),
        };
        let (hi, hi_open) = match i.hi {
            Bound::Closed(b) => (Some(b), false),
            Bound::Open(b) => (Some(b), true),
            Bound::Infinite => (None, false),
        };
        Win {
            lo,
            lo_open,
            hi,
            hi_open,
        }
    }

    pub const ALL: Win = Win {
        lo: 0,
        lo_open: false,
        hi: None,
        hi_open: false,
    };
}

/// An MTL formula (propositional, or first-order over predicates with arguments), in the
/// paper's continuous semantics.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Prop {
    True,
    False,
    /// An event: its predicate's name, and the atom as MonPoly writes it (`p(x, 3)`).
    Atom(String, String),
    /// A comparison or string relation (`x < 3`): no event, so no timing to doubt.
    Rigid(String),
    Exists(Vec<String>, Box<Prop>),
    Forall(Vec<String>, Box<Prop>),
    Not(Box<Prop>),
    And(Box<Prop>, Box<Prop>),
    Or(Box<Prop>, Box<Prop>),
    Since(Win, Box<Prop>, Box<Prop>),
    Until(Win, Box<Prop>, Box<Prop>),
}

impl Prop {
    pub fn negated(p: Prop) -> Prop {
        Prop::Not(Box::new(p))
    }
}

/// `f` as a [`Prop`], or why it cannot be monitored with imprecise timestamps.
pub fn from_formula(f: &Formula, name: &str, text: &str) -> Result<Prop, Error> {
    let refuse = |why: &str| Err(Error::at_offset(name, text, f.span.start, why.to_string()));
    let sub = |g: &Formula| from_formula(g, name, text).map(Box::new);
    Ok(match &f.kind {
        FormulaKind::Bool(b) => {
            if *b {
                Prop::True
            } else {
                Prop::False
            }
        }
        FormulaKind::Pred { name: p, .. } => Prop::Atom(p.clone(), format!("{f}")),
        FormulaKind::Cmp { .. } | FormulaKind::StrRel { .. } => Prop::Rigid(format!("{f}")),
        FormulaKind::Quant { q, vars, body } => match q {
            Quant::Exists => Prop::Exists(vars.clone(), sub(body)?),
            Quant::Forall => Prop::Forall(vars.clone(), sub(body)?),
        },
        FormulaKind::Not(a) => Prop::Not(sub(a)?),
        FormulaKind::Bool2 { op, lhs, rhs } => {
            let (a, b) = (sub(lhs)?, sub(rhs)?);
            match op {
                BoolOp::And => Prop::And(a, b),
                BoolOp::Or => Prop::Or(a, b),
                BoolOp::Implies => Prop::Or(Box::new(Prop::Not(a)), b),
                BoolOp::Equiv => Prop::Or(
                    Box::new(Prop::And(a.clone(), b.clone())),
                    Box::new(Prop::And(Box::new(Prop::Not(a)), Box::new(Prop::Not(b)))),
                ),
            }
        }
        FormulaKind::Unary { op, interval, body } => {
            let (w, b) = (Win::of(interval), sub(body)?);
            let t = Box::new(Prop::True);
            match op {
                UnaryTemporal::Previous | UnaryTemporal::Next => {
                    return refuse(
                        "PREVIOUS and NEXT count events, and with imprecise timestamps the \
                         order of events is not known: use ONCE or EVENTUALLY with an interval",
                    )
                }
                UnaryTemporal::Once => Prop::Since(w, t, b),
                UnaryTemporal::PastAlways => {
                    Prop::negated(Prop::Since(w, t, Box::new(Prop::Not(b))))
                }
                UnaryTemporal::Eventually => bounded(w, refuse, |w| Prop::Until(w, t, b))?,
                UnaryTemporal::Always => bounded(w, refuse, |w| {
                    Prop::negated(Prop::Until(w, t, Box::new(Prop::Not(b))))
                })?,
            }
        }
        FormulaKind::Binary {
            op,
            interval,
            lhs,
            rhs,
        } => {
            let (w, a, b) = (Win::of(interval), sub(lhs)?, sub(rhs)?);
            match op {
                BinaryTemporal::Since => Prop::Since(w, a, b),
                BinaryTemporal::Until => bounded(w, refuse, |w| Prop::Until(w, a, b))?,
            }
        }
        FormulaKind::Agg { .. } | FormulaKind::Let { .. } => {
            return refuse(
                "--timestamp-error does not support aggregations and LET (paper 16's rewriting \
                 and labels are for temporal operators over events)",
            )
        }
    })
}

/// A future operator, which must be bounded (its verdicts wait for its horizon).
fn bounded(
    w: Win,
    refuse: impl Fn(&str) -> Result<Prop, Error>,
    make: impl FnOnce(Win) -> Prop,
) -> Result<Prop, Error> {
    if w.hi.is_none() {
        return refuse(
            "--timestamp-error needs future operators with an upper bound (`EVENTUALLY[0,10]`): \
             the rewriting's verdicts wait for the horizon",
        );
    }
    Ok(make(w))
}

/// The atoms of `p`, each once, in order of first use.
pub fn atoms(p: &Prop, out: &mut Vec<String>) {
    match p {
        Prop::True | Prop::False | Prop::Rigid(_) => {}
        Prop::Atom(a, _) => {
            if !out.contains(a) {
                out.push(a.clone());
            }
        }
        Prop::Not(a) | Prop::Exists(_, a) | Prop::Forall(_, a) => atoms(a, out),
        Prop::And(a, b) | Prop::Or(a, b) | Prop::Since(_, a, b) | Prop::Until(_, a, b) => {
            atoms(a, out);
            atoms(b, out);
        }
    }
}

/// Whether some `SINCE` of `p` has no upper bound (then the past from time 0 matters).
pub fn unbounded_past(p: &Prop) -> bool {
    match p {
        Prop::True | Prop::False | Prop::Atom(..) | Prop::Rigid(_) => false,
        Prop::Not(a) | Prop::Exists(_, a) | Prop::Forall(_, a) => unbounded_past(a),
        Prop::And(a, b) | Prop::Or(a, b) | Prop::Until(_, a, b) => {
            unbounded_past(a) || unbounded_past(b)
        }
        Prop::Since(w, a, b) => w.hi.is_none() || unbounded_past(a) || unbounded_past(b),
    }
}

/// The longest stretch of past (`future == false`) or future a verdict of `p` reads, in time
/// units (unbounded past: `u64::MAX`).
pub fn horizon(p: &Prop, future: bool) -> u64 {
    match p {
        Prop::True | Prop::False | Prop::Atom(..) | Prop::Rigid(_) => 0,
        Prop::Not(a) | Prop::Exists(_, a) | Prop::Forall(_, a) => horizon(a, future),
        Prop::And(a, b) | Prop::Or(a, b) => horizon(a, future).max(horizon(b, future)),
        Prop::Since(w, a, b) | Prop::Until(w, a, b) => {
            let own = if matches!(p, Prop::Until(..)) == future {
                w.hi.unwrap_or(u64::MAX)
            } else {
                0
            };
            own.saturating_add(horizon(a, future).max(horizon(b, future)))
        }
    }
}
