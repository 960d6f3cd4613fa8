//! What kind of formula is this? The answer picks the engine and its memory plan, and is what
//! `rvmon check --explain` prints.

use std::fmt;

use rvmon_core::Error;

use crate::ast::*;
use crate::free_vars;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TemporalClass {
    /// Only past operators: every verdict is decided at its own time point.
    PastOnly,
    /// Future operators, all with finite upper bounds: verdicts are delayed by at most the
    /// future horizon.
    BoundedFuture,
    /// Some future operator has no upper bound: verdicts are three-valued (⊤/⊥/?).
    UnboundedFuture,
}

/// The result of analysing a formula.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Analysis {
    /// No variables, quantifiers or predicate arguments: the propositional engine applies.
    pub propositional: bool,
    pub temporal: TemporalClass,
    /// How far into the past (in time units) a verdict can look; `None` = unbounded.
    pub past_horizon: Option<u64>,
    /// How far into the future a verdict can look; `None` = unbounded.
    pub future_horizon: Option<u64>,
    /// Largest number of `NEXT` operators nested along one path: a verdict may wait for this
    /// many later time points even when their timestamps are equal.
    pub next_depth: u32,
    pub free_vars: Vec<String>,
    /// A reason the formula is first-order, pointing into the text, if it is.
    pub first_order_at: Option<(Span, String)>,
}

impl fmt::Display for TemporalClass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            TemporalClass::PastOnly => "past-only",
            TemporalClass::BoundedFuture => "bounded future",
            TemporalClass::UnboundedFuture => "unbounded future",
        })
    }
}

fn add(a: Option<u64>, b: Option<u64>) -> Option<u64> {
    Some(a?.saturating_add(b?))
}

fn max(a: Option<u64>, b: Option<u64>) -> Option<u64> {
    Some(a?.max(b?))
}

/// Analyses `f`. Fails only on intervals that no distance satisfies (`[3,2]`), which MonPoly
/// also rejects.
pub fn analyze(file: &str, text: &str, f: &Formula) -> Result<Analysis, Error> {
    let mut first_order_at = None;
    check(file, text, f, &mut first_order_at)?;
    let (past, future, next_depth) = horizons(f);
    let temporal = if !has_future(f) {
        TemporalClass::PastOnly
    } else if has_unbounded_future(f) {
        TemporalClass::UnboundedFuture
    } else {
        TemporalClass::BoundedFuture
    };
    Ok(Analysis {
        propositional: first_order_at.is_none(),
        temporal,
        past_horizon: past,
        future_horizon: future,
        next_depth,
        free_vars: free_vars(f),
        first_order_at,
    })
}

/// Checks that each predicate a signature declares is used with the arguments it declares.
/// `declared` gives a predicate's number of arguments, `None` when the signature does not
/// declare it; names a `LET` defines are the `LET`'s, not the signature's, within its body.
///
/// Without this, a bare proposition `p` (the same formula as `p()`) under a signature that
/// declares `p(x:int)` would be an error for the first-order engine but "some `p` event" for
/// the propositional one: which of the two a formula reaches must not change its meaning.
pub fn check_arities(
    file: &str,
    text: &str,
    f: &Formula,
    declared: &dyn Fn(&str) -> Option<usize>,
) -> Result<(), Error> {
    fn go(
        f: &Formula,
        at: &dyn Fn(&Formula, String) -> Error,
        declared: &dyn Fn(&str) -> Option<usize>,
        defined: &mut Vec<String>,
    ) -> Result<(), Error> {
        match &f.kind {
            FormulaKind::Pred { name, args } if !defined.contains(name) => match declared(name) {
                Some(n) if n != args.len() => {
                    let plural = if n == 1 { "" } else { "s" };
                    let used = match args.len() {
                        0 => "none".to_string(),
                        k => k.to_string(),
                    };
                    Err(at(
                        f,
                        format!(
                            "`{name}` takes {n} argument{plural} in the signature, but is \
                                 used here with {used}"
                        ),
                    ))
                }
                _ => Ok(()),
            },
            FormulaKind::Let {
                name, def, body, ..
            } => {
                go(def, at, declared, defined)?;
                defined.push(name.clone());
                let checked = go(body, at, declared, defined);
                defined.pop();
                checked
            }
            _ => f
                .children()
                .into_iter()
                .try_for_each(|c| go(c, at, declared, defined)),
        }
    }
    let at = |f: &Formula, message: String| Error::at_offset(file, text, f.span.start, message);
    go(f, &at, declared, &mut Vec::new())
}

fn has_future(f: &Formula) -> bool {
    match &f.kind {
        FormulaKind::Unary { op, .. } if op.is_future() => true,
        FormulaKind::Binary {
            op: BinaryTemporal::Until,
            ..
        } => true,
        _ => f.children().into_iter().any(has_future),
    }
}

/// An `EVENTUALLY`, `ALWAYS` or `UNTIL` without an upper bound (`NEXT[0,*)` is not one: it
/// is decided by the next time point).
fn has_unbounded_future(f: &Formula) -> bool {
    match &f.kind {
        FormulaKind::Unary {
            op: UnaryTemporal::Eventually | UnaryTemporal::Always,
            interval,
            ..
        }
        | FormulaKind::Binary {
            op: BinaryTemporal::Until,
            interval,
            ..
        } if !interval.is_bounded() => true,
        _ => f.children().into_iter().any(has_unbounded_future),
    }
}

fn term_is_ground(t: &Term) -> bool {
    match t {
        Term::Var(_) => false,
        Term::Int(_) | Term::Float(_) | Term::Str(_) => true,
        Term::Regexp(_) => true,
        Term::Neg(a) | Term::Func(_, a) => term_is_ground(a),
        Term::Arith(_, a, b) => term_is_ground(a) && term_is_ground(b),
    }
}

fn check(
    file: &str,
    text: &str,
    f: &Formula,
    fo: &mut Option<(Span, String)>,
) -> Result<(), Error> {
    let mut note = |span: Span, why: String| {
        if fo.is_none() {
            *fo = Some((span, why));
        }
    };
    match &f.kind {
        FormulaKind::Pred { name, args } if !args.is_empty() => {
            note(f.span, format!("predicate `{name}` has arguments"));
        }
        FormulaKind::Cmp { lhs, rhs, .. } if !(term_is_ground(lhs) && term_is_ground(rhs)) => {
            note(f.span, "the comparison mentions variables".into());
        }
        FormulaKind::Quant { .. } => note(f.span, "it quantifies over variables".into()),
        FormulaKind::Agg { .. } => note(f.span, "it aggregates over variables".into()),
        FormulaKind::StrRel { .. } => note(
            f.span,
            "string relations run in the first-order engine".into(),
        ),
        FormulaKind::Let { params, .. } if !params.is_empty() => {
            note(f.span, "LET defines a predicate with parameters".into())
        }
        FormulaKind::Unary { interval, .. } | FormulaKind::Binary { interval, .. }
            if interval.is_empty() =>
        {
            return Err(Error::at_offset(
                file,
                text,
                f.span.start,
                format!(
                    "the interval {} is empty: no time distance satisfies it",
                    crate::monpoly::interval_string(interval)
                ),
            ));
        }
        _ => {}
    }
    for c in f.children() {
        check(file, text, c, fo)?;
    }
    Ok(())
}

/// (past horizon, future horizon, NEXT depth) of a formula.
fn horizons(f: &Formula) -> (Option<u64>, Option<u64>, u32) {
    match &f.kind {
        FormulaKind::Bool(_) | FormulaKind::Pred { .. } | FormulaKind::Cmp { .. } => {
            (Some(0), Some(0), 0)
        }
        FormulaKind::Let { def, body, .. } => {
            // Conservative: a use of the defined predicate may add the definition's horizons.
            let (dp, df, dn) = horizons(def);
            let (bp, bf, bn) = horizons(body);
            (add(dp, bp), add(df, bf), dn + bn)
        }
        FormulaKind::Unary { op, interval, body } => {
            let (p, fu, n) = horizons(body);
            let reach = interval.max();
            match op {
                UnaryTemporal::Previous | UnaryTemporal::Once | UnaryTemporal::PastAlways => {
                    (add(p, reach), fu, n)
                }
                UnaryTemporal::Next => (p, add(fu, reach), n + 1),
                UnaryTemporal::Eventually | UnaryTemporal::Always => (p, add(fu, reach), n),
            }
        }
        FormulaKind::Binary {
            op,
            interval,
            lhs,
            rhs,
        } => {
            let (lp, lf, ln) = horizons(lhs);
            let (rp, rf, rn) = horizons(rhs);
            let (p, fu, n) = (max(lp, rp), max(lf, rf), ln.max(rn));
            match op {
                BinaryTemporal::Since => (add(p, interval.max()), fu, n),
                BinaryTemporal::Until => (p, add(fu, interval.max()), n),
            }
        }
        _ => {
            let hs: Vec<_> = f.children().into_iter().map(horizons).collect();
            hs.into_iter().fold((Some(0), Some(0), 0), |acc, h| {
                (max(acc.0, h.0), max(acc.1, h.1), acc.2.max(h.2))
            })
        }
    }
}
