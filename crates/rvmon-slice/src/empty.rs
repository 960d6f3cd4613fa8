//! When a slice may drop its empty time points (paper 04's filtering slicer).
//!
//! Data slicing leaves many time points of a slice empty, and dropping them saves the engine
//! work at every one. It is not sound in general; the paper's counterexample is
//! `p(x) IMPLIES ONCE[0,1] NOT q(x)`: an empty time point satisfies `NOT q(x)`, so dropping it
//! can remove the only witness and report a false violation. The paper leaves the safe
//! fragment to its full version; rvmon uses this sufficient condition:
//!
//! * no `PREVIOUS` or `NEXT` (they count time points, which dropping changes);
//! * the monitored formula (the violations) is false at an empty time point, so none is lost;
//! * every temporal operator gets no information from an empty point: the operand that must
//!   hold somewhere (`ONCE`/`EVENTUALLY`'s, the right operand of `SINCE`/`UNTIL`) is false
//!   there, and the operand that must hold everywhere (`HISTORICALLY`/`ALWAYS`'s, the left
//!   operand of `SINCE`/`UNTIL`) is true there; or the operator is `ONCE[0,u] EVENTUALLY[0,b]`
//!   (or its mirror) over an operand false there (see `starts_at_zero_over_its_mirror`).
//!
//! Then, by induction on the formula, every subformula has the same value at every remaining
//! time point with or without the empty ones (intervals are on timestamps, which dropping
//! does not change), and the violations are the same. An operand's value at an empty point
//! is computed by [`at_empty`]: atoms are false there, and a temporal subformula is unknown.

use rvmon_logic::{BinaryTemporal, BoolOp, Bound, Formula, FormulaKind, Quant, UnaryTemporal};

/// A formula's value at a time point with no events, for every valuation: known, or not.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AtEmpty {
    False,
    True,
    Unknown,
}

use AtEmpty::{False, True, Unknown};

fn not(a: AtEmpty) -> AtEmpty {
    match a {
        False => True,
        True => False,
        Unknown => Unknown,
    }
}

fn and(a: AtEmpty, b: AtEmpty) -> AtEmpty {
    match (a, b) {
        (False, _) | (_, False) => False,
        (True, True) => True,
        _ => Unknown,
    }
}

fn or(a: AtEmpty, b: AtEmpty) -> AtEmpty {
    not(and(not(a), not(b)))
}

/// The value of `f` at an empty time point.
pub fn at_empty(f: &Formula) -> AtEmpty {
    at_empty_in(f, &mut Vec::new())
}

/// `LET`-defined predicates in scope, with their definitions' values at an empty point (the
/// innermost last).
type Lets<'a> = Vec<(&'a str, AtEmpty)>;

fn at_empty_in<'a>(f: &'a Formula, lets: &mut Lets<'a>) -> AtEmpty {
    match &f.kind {
        FormulaKind::Bool(true) => True,
        FormulaKind::Bool(false) => False,
        // A log predicate has no tuple there; a `LET`-defined one has its definition's value.
        FormulaKind::Pred { name, .. } => lets
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map_or(False, |l| l.1),
        FormulaKind::Cmp { .. } | FormulaKind::StrRel { .. } | FormulaKind::Agg { .. } => Unknown,
        FormulaKind::Not(a) => not(at_empty_in(a, lets)),
        FormulaKind::Bool2 { op, lhs, rhs } => {
            let (a, b) = (at_empty_in(lhs, lets), at_empty_in(rhs, lets));
            match op {
                BoolOp::And => and(a, b),
                BoolOp::Or => or(a, b),
                BoolOp::Implies => or(not(a), b),
                BoolOp::Equiv => or(and(a, b), and(not(a), not(b))),
            }
        }
        // The domain is not empty, but a quantified formula's answer over the active domain
        // is only known to be empty when its body is false.
        FormulaKind::Quant { q, body, .. } => match (q, at_empty_in(body, lets)) {
            (Quant::Exists, False) => False,
            (Quant::Forall, True) => True,
            _ => Unknown,
        },
        FormulaKind::Unary { .. } | FormulaKind::Binary { .. } => Unknown,
        FormulaKind::Let {
            name, def, body, ..
        } => {
            let d = at_empty_in(def, lets);
            lets.push((name, d));
            let v = at_empty_in(body, lets);
            lets.pop();
            v
        }
    }
}

/// `Ok` when dropping the empty time points of a trace leaves the violations of `f` (the
/// formula whose satisfying assignments are reported) unchanged; otherwise why not.
pub fn empty_points_removable(f: &Formula) -> Result<(), String> {
    if at_empty(f) != False {
        return Err(format!(
            "`{f}` may hold at a time point without events, so dropping one could lose a violation"
        ));
    }
    operators_ignore_empty(f, &mut Vec::new())
}

/// `ONCE[0,u] EVENTUALLY[0,b] γ` or `EVENTUALLY[0,u] ONCE[0,b] γ` with `γ` false at an empty
/// point (MonPoly's idiom for "at the same timestamp", as in paper 04's P2–P6). The inner
/// operand holds at an empty point `j` only through a witness `j'` with `γ`, which is not
/// empty. For the outer operator at a remaining point `i` (the windows start at 0): if `j'` is
/// on `j`'s side of `i`, `j'` itself is a witness in the window (it is closer to `i` than `j`);
/// otherwise `i` lies between `j` and `j'` and the inner operator holds at `i`. So an empty
/// witness can always be replaced by one that stays.
fn starts_at_zero_over_its_mirror<'a>(f: &'a Formula, lets: &mut Lets<'a>) -> bool {
    let FormulaKind::Unary {
        op: outer,
        interval,
        body,
    } = &f.kind
    else {
        return false;
    };
    let FormulaKind::Unary {
        op: inner,
        interval: inner_interval,
        body: gamma,
    } = &body.kind
    else {
        return false;
    };
    let mirrored = matches!(
        (outer, inner),
        (UnaryTemporal::Once, UnaryTemporal::Eventually)
            | (UnaryTemporal::Eventually, UnaryTemporal::Once)
    );
    mirrored
        && interval.lo == Bound::Closed(0)
        && inner_interval.lo == Bound::Closed(0)
        && at_empty_in(gamma, lets) == False
}

fn operators_ignore_empty<'a>(f: &'a Formula, lets: &mut Lets<'a>) -> Result<(), String> {
    let need = |g: &'a Formula, want: AtEmpty, role: &str, lets: &mut Lets<'a>| {
        if at_empty_in(g, lets) == want {
            Ok(())
        } else {
            Err(format!(
                "the {role} `{g}` is not {} at a time point without events, so dropping one changes `{f}`",
                if want == False { "false" } else { "true" }
            ))
        }
    };
    match &f.kind {
        FormulaKind::Unary { op, body, .. } => match op {
            UnaryTemporal::Previous | UnaryTemporal::Next => {
                return Err(format!(
                    "`{f}` counts time points, so dropping the empty ones changes it"
                ))
            }
            UnaryTemporal::Once | UnaryTemporal::Eventually => {
                if !starts_at_zero_over_its_mirror(f, lets) {
                    need(body, False, "operand", lets)?
                }
            }
            UnaryTemporal::PastAlways | UnaryTemporal::Always => need(body, True, "operand", lets)?,
        },
        FormulaKind::Binary { op, lhs, rhs, .. } => {
            let _: BinaryTemporal = *op;
            need(rhs, False, "right operand", lets)?;
            need(lhs, True, "left operand", lets)?;
        }
        FormulaKind::Let {
            name, def, body, ..
        } => {
            operators_ignore_empty(def, lets)?;
            let d = at_empty_in(def, lets);
            lets.push((name, d));
            let r = operators_ignore_empty(body, lets);
            lets.pop();
            return r;
        }
        _ => {}
    }
    f.children()
        .into_iter()
        .try_for_each(|c| operators_ignore_empty(c, lets))
}
