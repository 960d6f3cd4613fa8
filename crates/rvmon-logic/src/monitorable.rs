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
fn is_and_relop(f: &Formula) -> bool {
    match &f.kind {
        FormulaKind::Cmp { .. } | FormulaKind::Bool(_) => true,
        FormulaKind::Not(g) => matches!(g.kind, FormulaKind::Cmp { .. } | FormulaKind::Bool(_)),
        _ => false,
    }
}

fn is_special_case(fv1: &[String], f: &Formula) -> bool {
    match &f.kind {
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
        FormulaKind::Cmp { .. } => Err((f, MSG_LESS)),
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
