//! Comparisons pushed down to the operands that bind their variables, for a relational engine.
//!
//! A relational engine evaluates `ψ AND x = c` by filtering `ψ`'s relation at every position.
//! When `ψ` is a temporal operator (`ONCE[0,30d] withdraw(u,a) AND a > 10000`, or a `SINCE`
//! state of every lock held), that relation is the operator's whole state, so each position
//! costs the state's size, and the state keeps tuples the filter always drops. A comparison is
//! a test of a tuple alone, independent of the position, so it commutes with the temporal
//! operators that keep tuples whole: `(φ SINCE[I] ψ) AND c` ≡ `φ SINCE[I] (ψ AND c)` when `ψ`
//! binds the variables of `c` (the tuple is the same at every position of the witness), and
//! likewise for `UNTIL`, `ONCE`, `EVENTUALLY`, `PREVIOUS`, `NEXT`, `EXISTS` of other variables,
//! `OR` (into both sides) and `AND` (into a conjunct that binds them). Not into `ALWAYS` or
//! `PAST_ALWAYS` (vacuously true over an empty window: `c` would no longer be asked), nor into
//! negations, aggregations or `FORALL`.
//!
//! Only comparisons between variables and constants move (negated or not): a comparison whose
//! terms compute can fail (division by zero), and evaluated on other tuples it could fail where
//! the formula as written does not (see `order::can_fail`). Each step lands the comparison in
//! an operand that binds all its variables, so a monitorable formula stays monitorable and the
//! comparison stays a filter. `rvmon monpoly` does not use this: MonPoly's verdict timing and
//! its monitorability verdicts follow the formula as written.

use crate::ast::*;
use crate::free_vars;
use crate::monpoly::map_children;
use crate::order::can_fail;

/// `f` with each comparison of variables and constants pushed down as the module explains.
pub fn push_comparisons(f: &Formula) -> Formula {
    let FormulaKind::Bool2 {
        op: BoolOp::And,
        lhs,
        rhs,
    } = &f.kind
    else {
        return map_children(f, &mut push_comparisons);
    };
    let lhs = push_comparisons(lhs);
    if movable(rhs) {
        let vars = free_vars(rhs);
        if bind_all(&lhs, &vars) {
            return sink(lhs, rhs, &vars, Some(f.span));
        }
    }
    Formula::and(lhs, push_comparisons(rhs), f.span)
}

/// Whether `c` is a comparison (or its negation) of variables and constants.
fn movable(c: &Formula) -> bool {
    let simple = |t: &Term| {
        matches!(
            t,
            Term::Var(_) | Term::Int(_) | Term::Float(_) | Term::Str(_)
        )
    };
    match &c.kind {
        FormulaKind::Not(g) => movable(g),
        FormulaKind::Cmp { lhs, rhs, .. } => simple(lhs) && simple(rhs),
        _ => false,
    }
}

fn bind_all(f: &Formula, vars: &[String]) -> bool {
    let fv = free_vars(f);
    vars.iter().all(|v| fv.contains(v))
}

/// `g AND c`, with `c` (over `vars`, all bound by `g`) moved as far down into `g` as it goes;
/// `span`: the conjunction's (`g`'s when none), for the one built where `c` stops.
fn sink(g: Formula, c: &Formula, vars: &[String], span: Option<Span>) -> Formula {
    let inner = g.span;
    let span = span.unwrap_or(inner);
    let down = |h: &Formula| bind_all(h, vars);
    let kind = match g.kind {
        FormulaKind::Unary {
            op:
                op @ (UnaryTemporal::Once
                | UnaryTemporal::Eventually
                | UnaryTemporal::Previous
                | UnaryTemporal::Next),
            interval,
            body,
        } => FormulaKind::Unary {
            op,
            interval,
            body: Box::new(sink(*body, c, vars, None)),
        },
        FormulaKind::Binary {
            op,
            interval,
            lhs,
            rhs,
        } if down(&rhs) => FormulaKind::Binary {
            op,
            interval,
            lhs,
            rhs: Box::new(sink(*rhs, c, vars, None)),
        },
        FormulaKind::Quant {
            q: Quant::Exists,
            vars: bound,
            body,
        } if !bound.iter().any(|b| vars.contains(b)) => FormulaKind::Quant {
            q: Quant::Exists,
            vars: bound,
            body: Box::new(sink(*body, c, vars, None)),
        },
        FormulaKind::Bool2 {
            op: BoolOp::Or,
            lhs,
            rhs,
        } if down(&lhs) && down(&rhs) => FormulaKind::Bool2 {
            op: BoolOp::Or,
            lhs: Box::new(sink(*lhs, c, vars, None)),
            rhs: Box::new(sink(*rhs, c, vars, None)),
        },
        // Into the conjunct that binds the variables: the right one when it makes a relation
        // of its own (a temporal operator, usually), else the left one. A right conjunct that
        // only tests (`NOT ψ`, a comparison) needs its variables bound on its left, which
        // they still are. Not past a conjunct that can fail: it must see the tuples it sees
        // as written (`y = 10 / x` after `x > 0` would raise no error where the formula as
        // written does).
        FormulaKind::Bool2 {
            op: BoolOp::And,
            lhs,
            rhs,
        } if !can_fail(&rhs) && down(&rhs) && makes_relation(&rhs) => FormulaKind::Bool2 {
            op: BoolOp::And,
            lhs,
            rhs: Box::new(sink(*rhs, c, vars, None)),
        },
        FormulaKind::Bool2 {
            op: BoolOp::And,
            lhs,
            rhs,
        } if !can_fail(&rhs) && down(&lhs) => FormulaKind::Bool2 {
            op: BoolOp::And,
            lhs: Box::new(sink(*lhs, c, vars, None)),
            rhs,
        },
        kind => return Formula::and(Formula::new(kind, inner), c.clone(), span),
    };
    Formula::new(kind, inner)
}

/// Whether `f` makes a relation of its own (rather than testing the tuples of a left operand).
fn makes_relation(f: &Formula) -> bool {
    match &f.kind {
        FormulaKind::Pred { .. }
        | FormulaKind::Unary { .. }
        | FormulaKind::Binary { .. }
        | FormulaKind::Quant {
            q: Quant::Exists, ..
        } => true,
        FormulaKind::Bool2 { op, lhs, rhs } => match op {
            BoolOp::Or => makes_relation(lhs) && makes_relation(rhs),
            BoolOp::And => makes_relation(lhs),
            _ => false,
        },
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse_formula;

    fn pushed(text: &str) -> String {
        push_comparisons(&parse_formula("f", text).unwrap()).to_string()
    }

    #[test]
    fn comparisons_sink_into_the_operands_that_bind_them() {
        let f = "(NOT rel(t,l) SINCE acq(t,l)) AND t = 3";
        assert_eq!(pushed(f), pushed("NOT rel(t,l) SINCE (acq(t,l) AND t = 3)"));
        let f = "(EXISTS l. ONCE[0,5] p(x,l)) AND NOT x < 2";
        assert_eq!(
            pushed(f),
            pushed("EXISTS l. ONCE[0,5] (p(x,l) AND NOT x < 2)")
        );
        let f = "(q(x) AND PREVIOUS p(x,y)) AND x = y";
        assert_eq!(pushed(f), pushed("q(x) AND PREVIOUS (p(x,y) AND x = y)"));
        let f = "(ONCE p(x) OR EVENTUALLY[0,3] q(x)) AND x = \"a\"";
        assert_eq!(
            pushed(f),
            pushed("ONCE (p(x) AND x = \"a\") OR EVENTUALLY[0,3] (q(x) AND x = \"a\")")
        );
    }

    #[test]
    fn comparisons_stay_where_moving_them_would_change_or_break_the_formula() {
        for f in [
            // Vacuously true over an empty window.
            "(PAST_ALWAYS[0,3] p(x)) AND x = 2",
            // A computed term can fail.
            "(ONCE p(x)) AND x / 0 = 1",
            // An assignment, not a filter.
            "(ONCE p(x)) AND y = 2",
            // Not all of its variables are bound by the operand.
            "(ONCE p(x)) AND x < y",
            // Negations and aggregations keep their comparisons outside.
            "(NOT p(x)) AND x = 2",
            // Not ahead of a conjunct that can fail (its error would be lost).
            "(p(x,z) AND y = 10 / x) AND x > 0",
        ] {
            let g = parse_formula("f", f).unwrap();
            assert_eq!(push_comparisons(&g), g, "{f}");
        }
        // A negated conjunct only tests: the comparison goes to the conjunct before it.
        assert_eq!(
            pushed("(q(x) AND NOT p(x)) AND x = 1"),
            pushed("(q(x) AND x = 1) AND NOT p(x)")
        );
    }
}
