//! MonPoly's monitorability check (`Rewriting.is_monitorable`), rule for rule. rvmon's own
//! engines monitor more than this (the propositional engine evaluates any ground comparison);
//! `rvmon monpoly` applies it so that it rejects exactly what MonPoly rejects, with MonPoly's
//! messages.

use crate::ast::*;
use crate::free_vars;

pub const MSG_PRED: &str =
    "In subformulas p(t1,...,tn) each term ti should be a variable or a constant.";
pub const MSG_EQUAL: &str = "In input formulas psi of the form t1 = t2 the terms t1 and t2 should be variables or constants and at least one should be a constant.";
pub const MSG_LESS: &str = "Formulas of the form t1 < t2, t1 <= t2, t1 SUBSTRING t2, and t1 MATCHES t2 are currently considered not monitorable.";
pub const MSG_NOT_EQUAL: &str = "In subformulas psi of the form NOT (t1 = t2) the terms t1 and t2 should be either the same variable x or some constants (except when psi is part of subformulas of the form phi AND NOT psi, or phi AND NOT psi).";
pub const MSG_NOT: &str = "Subformulas of the form NOT psi should contain no free variables (except when they are part of subformulas of the form phi AND NOT psi, NOT psi SINCE_I phi, or NOT psi UNTIL_I phi).";
pub const MSG_ANDRELOP: &str = "In subformulas of the form psi AND t1 op t2 or psi AND NOT t1 op t2, with op among =, <, <=, either the variables of the terms t1 and t2 are among the free variables of psi or the formula is of the form psi AND x = t or psi AND x = t, and the variables of the term t are among the free variables of psi.";
pub const MSG_SUBSET: &str = "In subformulas of the form phi AND NOT psi, psi SINCE_I phi, and psi UNTIL_I phi, the free variables of psi should be among the free variables of phi.";
pub const MSG_OR: &str = "In subformulas of the form phi OR psi, phi and psi should have the same set of free variables.";

/// The offending subformula and MonPoly's explanation.
pub type NotMonitorable<'a> = (&'a Formula, &'static str);

fn is_var_or_cst(t: &Term) -> bool {
    matches!(
        t,
        Term::Var(_) | Term::Int(_) | Term::Float(_) | Term::Str(_)
    )
}

fn is_cst(t: &Term) -> bool {
    matches!(t, Term::Int(_) | Term::Float(_) | Term::Str(_))
}

fn term_vars(t: &Term) -> Vec<String> {
    let f = Formula::new(
        FormulaKind::Cmp {
            op: CmpOp::Eq,
            lhs: t.clone(),
            rhs: Term::Int(0),
        },
        Span::default(),
    );
    free_vars(&f)
}

fn subset(a: &[String], b: &[String]) -> bool {
    a.iter().all(|x| b.contains(x))
}

/// `t1 op t2` or `NOT t1 op t2`: what MonPoly allows only as the right operand of `AND`.
pub(crate) fn is_and_relop(f: &Formula) -> bool {
    let relop = |g: &Formula| {
        matches!(
            g.kind,
            FormulaKind::Cmp { .. } | FormulaKind::Bool(_) | FormulaKind::StrRel { .. }
        )
    };
    match &f.kind {
        FormulaKind::Not(g) => relop(g),
        _ => relop(f),
    }
}

fn is_special_case(fv1: &[String], f: &Formula) -> bool {
    match &f.kind {
        // Groups may bind new variables; everything else must be bound already.
        FormulaKind::StrRel {
            op: StrOp::Matches,
            lhs,
            rhs,
            groups,
        } => {
            subset(&term_vars(lhs), fv1)
                && subset(&term_vars(rhs), fv1)
                && groups
                    .iter()
                    .flatten()
                    .all(|g| matches!(g, Term::Var(_)) || subset(&term_vars(g), fv1))
        }
        FormulaKind::Cmp {
            op: CmpOp::Eq,
            lhs,
            rhs,
        } => match (lhs, rhs) {
            (Term::Var(_), t) | (t, Term::Var(_)) if subset(&term_vars(t), fv1) => true,
            _ => subset(&free_vars(f), fv1),
        },
        _ => subset(&free_vars(f), fv1),
    }
}

/// Checks a normalised formula (no IMPLIES/EQUIV/FORALL/ALWAYS/PAST_ALWAYS).
pub fn is_monitorable(f: &Formula) -> Result<(), NotMonitorable<'_>> {
    match &f.kind {
        FormulaKind::Bool(_) => Ok(()),
        FormulaKind::Cmp {
            op: CmpOp::Eq,
            lhs,
            rhs,
        } => {
            if (is_var_or_cst(lhs) && is_cst(rhs)) || (is_cst(lhs) && is_var_or_cst(rhs)) {
                Ok(())
            } else {
                Err((f, MSG_EQUAL))
            }
        }
        FormulaKind::Cmp { .. } | FormulaKind::StrRel { .. } => Err((f, MSG_LESS)),
        FormulaKind::Not(g)
            if matches!(
                g.kind,
                FormulaKind::Cmp { op: CmpOp::Eq, .. } | FormulaKind::Bool(_)
            ) =>
        {
            match &g.kind {
                FormulaKind::Cmp { lhs, rhs, .. } => match (lhs, rhs) {
                    (Term::Var(x), Term::Var(y)) if x == y => Ok(()),
                    (a, b) if is_cst(a) && is_cst(b) => Ok(()),
                    _ => Err((f, MSG_NOT_EQUAL)),
                },
                _ => Ok(()),
            }
        }
        FormulaKind::Pred { args, .. } => {
            if args.iter().all(is_var_or_cst) {
                Ok(())
            } else {
                Err((f, MSG_PRED))
            }
        }
        FormulaKind::Let { def, body, .. } => {
            is_monitorable(def)?;
            is_monitorable(body)
        }
        FormulaKind::Not(g) => {
            if free_vars(g).is_empty() {
                is_monitorable(g)
            } else {
                Err((f, MSG_NOT))
            }
        }
        FormulaKind::Bool2 {
            op: BoolOp::And,
            lhs,
            rhs,
        } => {
            is_monitorable(lhs)?;
            let fv1 = free_vars(lhs);
            if is_and_relop(rhs) {
                if is_special_case(&fv1, rhs) {
                    Ok(())
                } else {
                    Err((f, MSG_ANDRELOP))
                }
            } else if let FormulaKind::Not(inner) = &rhs.kind {
                if !subset(&free_vars(rhs), &fv1) {
                    Err((f, MSG_SUBSET))
                } else {
                    is_monitorable(inner)
                }
            } else {
                is_monitorable(rhs)
            }
        }
        FormulaKind::Bool2 {
            op: BoolOp::Or,
            lhs,
            rhs,
        } => {
            let (a, b) = (free_vars(lhs), free_vars(rhs));
            if !subset(&a, &b) || !subset(&b, &a) {
                return Err((f, MSG_OR));
            }
            is_monitorable(lhs)?;
            is_monitorable(rhs)
        }
        FormulaKind::Quant {
            q: Quant::Exists,
            body,
            ..
        } => is_monitorable(body),
        FormulaKind::Unary {
            op:
                UnaryTemporal::Previous
                | UnaryTemporal::Next
                | UnaryTemporal::Eventually
                | UnaryTemporal::Once,
            body,
            ..
        } => is_monitorable(body),
        FormulaKind::Binary { lhs, rhs, .. } => {
            is_monitorable(rhs)?;
            if !subset(&free_vars(lhs), &free_vars(rhs)) {
                return Err((f, MSG_SUBSET));
            }
            match &lhs.kind {
                FormulaKind::Not(inner) => is_monitorable(inner),
                _ => is_monitorable(lhs),
            }
        }
        // Sugar MonPoly removes before this check (only reachable with -no_rw).
        _ => f.children().into_iter().try_for_each(is_monitorable),
    }
}

/// A comparison as MonPoly stores it: `Less`/`LessEq` with `>`/`>=` swapped around.
fn as_monpoly_cmp<'a>(op: CmpOp, lhs: &'a Term, rhs: &'a Term) -> (CmpOp, &'a Term, &'a Term) {
    match op {
        CmpOp::Gt => (CmpOp::Lt, rhs, lhs),
        CmpOp::Ge => (CmpOp::Le, rhs, lhs),
        _ => (op, lhs, rhs),
    }
}

fn union(mut a: Vec<String>, b: Vec<String>) -> Vec<String> {
    for v in b {
        if !a.contains(&v) {
            a.push(v);
        }
    }
    a
}

/// MonPoly's `Rewriting.rr` (S. Müller's range restriction): the range-restricted variables,
/// and whether the formula's comparisons are all covered.
pub(crate) fn rr(f: &Formula) -> (Vec<String>, bool) {
    match &f.kind {
        FormulaKind::Pred { args, .. } => {
            let mut vs = Vec::new();
            for a in args {
                vs = union(vs, term_vars(a));
            }
            (vs, true)
        }
        FormulaKind::Bool(_)
        | FormulaKind::StrRel {
            op: StrOp::Substring,
            ..
        } => (vec![], true),
        FormulaKind::StrRel { groups, .. } => {
            let mut vs = Vec::new();
            for g in groups.iter().flatten() {
                if let Term::Var(v) = g {
                    vs = union(vs, vec![v.clone()]);
                }
            }
            (vs, true)
        }
        FormulaKind::Cmp { op, lhs, rhs } => {
            let (op, l, r) = as_monpoly_cmp(*op, lhs, rhs);
            let v = match (op, l, r) {
                (CmpOp::Eq, Term::Var(x), c) | (CmpOp::Eq, c, Term::Var(x)) if is_cst(c) => {
                    vec![x.clone()]
                }
                (CmpOp::Lt, Term::Var(x), Term::Var(y)) if x == y => vec![x.clone()],
                (CmpOp::Lt | CmpOp::Le, Term::Var(x), c) if is_cst(c) => vec![x.clone()],
                _ => vec![],
            };
            (v, true)
        }
        FormulaKind::Not(g) => match &g.kind {
            FormulaKind::Cmp { op, lhs, rhs } => {
                let (op, l, r) = as_monpoly_cmp(*op, lhs, rhs);
                let v = match (op, l, r) {
                    (CmpOp::Eq | CmpOp::Le, Term::Var(x), Term::Var(y)) if x == y => {
                        vec![x.clone()]
                    }
                    (CmpOp::Lt | CmpOp::Le, c, Term::Var(x)) if is_cst(c) => vec![x.clone()],
                    _ => vec![],
                };
                (v, true)
            }
            FormulaKind::Bool(_) => (vec![], true),
            _ => (vec![], rr(g).1),
        },
        FormulaKind::Bool2 {
            op: BoolOp::And,
            lhs,
            rhs,
        } => rr_and(lhs, rhs),
        FormulaKind::Bool2 {
            op: BoolOp::Or,
            lhs,
            rhs,
        } => {
            let (rr1, b1) = rr(lhs);
            let (rr2, b2) = rr(rhs);
            (
                rr2.into_iter().filter(|v| rr1.contains(v)).collect(),
                b1 && b2,
            )
        }
        FormulaKind::Quant { vars, body, .. } => {
            let (mut rrf, mut b) = rr(body);
            for v in vars {
                if rrf.contains(v) {
                    rrf.retain(|x| x != v);
                } else {
                    b = false;
                    break;
                }
            }
            (rrf, b)
        }
        FormulaKind::Agg {
            result,
            group,
            body,
            ..
        } => {
            let (rrf, b) = rr(body);
            let mut v = vec![result.clone()];
            v.extend(rrf.into_iter().filter(|z| group.contains(z)));
            (v, b)
        }
        FormulaKind::Unary { body, .. } => rr(body),
        FormulaKind::Binary { lhs, rhs, .. } => {
            let (_, b1) = rr(lhs);
            let (rr2, b2) = rr(rhs);
            (rr2, b1 && b2)
        }
        FormulaKind::Let { body, .. } => rr(body),
        // Sugar is normalised away before this analysis.
        FormulaKind::Bool2 { .. } => (vec![], false),
    }
}

/// [`rr`] of `lhs AND rhs`: a comparison (or a negated one) on the right extends the left's
/// range-restricted variables by MonPoly's rules (`x = y` with one of them restricted, `x < y`
/// with `y` restricted, `x <= y` with both).
fn rr_and(lhs: &Formula, rhs: &Formula) -> (Vec<String>, bool) {
    let var = |t: &Term| match t {
        Term::Var(v) => Some(v.clone()),
        _ => None,
    };
    let (rr1, b) = rr(lhs);
    let (negated, right) = match &rhs.kind {
        FormulaKind::Not(g) => (true, &**g),
        _ => (false, rhs),
    };
    if let FormulaKind::Cmp {
        op,
        lhs: t1,
        rhs: t2,
    } = &right.kind
    {
        let (op, l, r) = as_monpoly_cmp(*op, t1, t2);
        match (negated, op, var(l), var(r)) {
            (false, CmpOp::Eq, Some(x), Some(y)) => {
                return if rr1.contains(&x) {
                    (union(rr1, vec![y]), b)
                } else if rr1.contains(&y) {
                    (union(rr1, vec![x]), b)
                } else {
                    (rr1, b)
                };
            }
            (false, CmpOp::Lt, Some(x), Some(y)) => {
                return if rr1.contains(&y) || x == y {
                    (union(rr1, vec![x]), b)
                } else {
                    (rr1, b)
                };
            }
            (true, CmpOp::Lt, Some(x), Some(y)) => {
                return if rr1.contains(&x) {
                    (union(rr1, vec![y]), b)
                } else {
                    (rr1, b)
                };
            }
            (_, CmpOp::Le, _, _) => {
                let ok = b && subset(&term_vars(l), &rr1) && subset(&term_vars(r), &rr1);
                return (rr1, ok);
            }
            _ => {}
        }
    }
    let (rr2, b2) = rr(rhs);
    (union(rr1, rr2), b && b2)
}

/// MonPoly's safe-range check: every free variable is range restricted.
pub fn is_saferange(f: &Formula) -> bool {
    let (mut rv, b) = rr(f);
    let mut fv = free_vars(f);
    rv.sort();
    rv.dedup();
    fv.sort();
    b && rv == fv
}

/// Safe range, and so is every temporal subformula and its operands.
pub fn is_tsfsaferange(f: &Formula) -> bool {
    fn go(f: &Formula) -> bool {
        let rec = f.children().into_iter().all(go);
        let temporal = matches!(
            f.kind,
            FormulaKind::Unary { .. } | FormulaKind::Binary { .. }
        );
        if temporal {
            rec && is_saferange(f) && f.children().into_iter().all(is_saferange)
        } else {
            rec
        }
    }
    is_saferange(f) && go(f)
}
