//! Quantifiers bound by an equation are substituted away before compiling (the synthesis'
//! rule ∃σ, exact): `∃v (… ∧ v = θ ∧ …)` is the body with `θ` for `v`, and so is
//! `∀v (… ∧ v = θ ∧ … → B)`. KeYmaera X's witnesses (`fpost_0()`, implicitly existential)
//! are eliminated this way: `fpost() = fpost_0()`.

use crate::ast::{Formula, Rel, Term};

/// How many nodes a substitution may copy (past it, the quantifier stays, and is decided
/// at its breakpoints if it is linear).
const MAX_COPIES: usize = 10_000;

fn term_size(t: &Term) -> usize {
    match t {
        Term::Num(..) | Term::Name { .. } => 1,
        Term::Neg(a, _) => 1 + term_size(a),
        Term::Bin(_, a, b) | Term::Pow(a, b) => 1 + term_size(a) + term_size(b),
        Term::Call { args, .. } => 1 + args.iter().map(term_size).sum::<usize>(),
    }
}

/// How many times `f` reads `var`.
fn uses(f: &Formula, var: &str) -> usize {
    fn in_term(t: &Term, var: &str) -> usize {
        match t {
            Term::Num(..) => 0,
            Term::Name { name, .. } => usize::from(name == var),
            Term::Neg(a, _) => in_term(a, var),
            Term::Bin(_, a, b) | Term::Pow(a, b) => in_term(a, var) + in_term(b, var),
            Term::Call { args, .. } => args.iter().map(|a| in_term(a, var)).sum(),
        }
    }
    match f {
        Formula::Bool(..) => 0,
        Formula::Cmp { lhs, rhs, .. } => in_term(lhs, var) + in_term(rhs, var),
        Formula::Not(a, _) => uses(a, var),
        Formula::And(a, b) | Formula::Or(a, b) | Formula::Implies(a, b) | Formula::Iff(a, b) => {
            uses(a, var) + uses(b, var)
        }
        Formula::Quant { body, .. } => uses(body, var),
    }
}

/// `f` with every quantifier bound by an equation in its variable substituted away.
pub fn eliminate(f: Formula) -> Formula {
    match f {
        Formula::Quant {
            exists,
            var,
            body,
            span,
        } => {
            let body = eliminate(*body);
            let guard = if exists {
                Some(&body)
            } else if let Formula::Implies(a, _) = &body {
                Some(&**a)
            } else {
                None
            };
            match guard.and_then(|g| defining_equation(g, &var)) {
                Some(theta)
                    if !captures(&body, &var, &theta)
                        && term_size(&theta).saturating_mul(uses(&body, &var)) <= MAX_COPIES =>
                {
                    substitute(body, &var, &theta)
                }
                _ => Formula::Quant {
                    exists,
                    var,
                    body: Box::new(body),
                    span,
                },
            }
        }
        Formula::Not(a, s) => Formula::Not(Box::new(eliminate(*a)), s),
        Formula::And(a, b) => Formula::And(Box::new(eliminate(*a)), Box::new(eliminate(*b))),
        Formula::Or(a, b) => Formula::Or(Box::new(eliminate(*a)), Box::new(eliminate(*b))),
        Formula::Implies(a, b) => {
            Formula::Implies(Box::new(eliminate(*a)), Box::new(eliminate(*b)))
        }
        Formula::Iff(a, b) => Formula::Iff(Box::new(eliminate(*a)), Box::new(eliminate(*b))),
        leaf => leaf,
    }
}

/// A `θ` with `var = θ` (or `θ = var`) among `f`'s top-level conjuncts, `θ` free of `var`.
fn defining_equation(f: &Formula, var: &str) -> Option<Term> {
    match f {
        Formula::And(a, b) => defining_equation(a, var).or_else(|| defining_equation(b, var)),
        Formula::Cmp {
            rel: Rel::Eq,
            lhs,
            rhs,
            ..
        } => {
            let is_var =
                |t: &Term| matches!(t, Term::Name { name, post: false, .. } if name == var);
            if is_var(lhs) && !mentions(rhs, var) {
                Some(rhs.clone())
            } else if is_var(rhs) && !mentions(lhs, var) {
                Some(lhs.clone())
            } else {
                None
            }
        }
        _ => None,
    }
}

/// Whether `t` reads the (unprimed) name `var`.
pub fn mentions(t: &Term, var: &str) -> bool {
    match t {
        Term::Num(..) => false,
        Term::Name { name, .. } => name == var,
        Term::Neg(a, _) => mentions(a, var),
        Term::Bin(_, a, b) | Term::Pow(a, b) => mentions(a, var) || mentions(b, var),
        Term::Call { args, .. } => args.iter().any(|a| mentions(a, var)),
    }
}

/// Whether a quantifier inside `f` that the substitution would reach binds a name `theta`
/// reads (the substitution would capture it).
fn captures(f: &Formula, var: &str, theta: &Term) -> bool {
    match f {
        Formula::Quant { var: v, body, .. } => {
            v != var && (mentions(theta, v) || captures(body, var, theta))
        }
        Formula::Not(a, _) => captures(a, var, theta),
        Formula::And(a, b) | Formula::Or(a, b) | Formula::Implies(a, b) | Formula::Iff(a, b) => {
            captures(a, var, theta) || captures(b, var, theta)
        }
        Formula::Bool(..) | Formula::Cmp { .. } => false,
    }
}

fn substitute(f: Formula, var: &str, theta: &Term) -> Formula {
    let sub = |g: Box<Formula>| Box::new(substitute(*g, var, theta));
    match f {
        Formula::Cmp {
            rel,
            lhs,
            rhs,
            span,
        } => Formula::Cmp {
            rel,
            lhs: substitute_term(lhs, var, theta),
            rhs: substitute_term(rhs, var, theta),
            span,
        },
        Formula::Quant { var: ref v, .. } if v == var => f,
        Formula::Quant {
            exists,
            var: v,
            body,
            span,
        } => Formula::Quant {
            exists,
            var: v,
            body: sub(body),
            span,
        },
        Formula::Not(a, s) => Formula::Not(sub(a), s),
        Formula::And(a, b) => Formula::And(sub(a), sub(b)),
        Formula::Or(a, b) => Formula::Or(sub(a), sub(b)),
        Formula::Implies(a, b) => Formula::Implies(sub(a), sub(b)),
        Formula::Iff(a, b) => Formula::Iff(sub(a), sub(b)),
        leaf @ Formula::Bool(..) => leaf,
    }
}

fn substitute_term(t: Term, var: &str, theta: &Term) -> Term {
    let sub = |u: Box<Term>| Box::new(substitute_term(*u, var, theta));
    match t {
        Term::Name {
            ref name,
            post: false,
            ..
        } if name == var => theta.clone(),
        Term::Neg(a, s) => Term::Neg(sub(a), s),
        Term::Bin(op, a, b) => Term::Bin(op, sub(a), sub(b)),
        Term::Pow(a, b) => Term::Pow(sub(a), sub(b)),
        Term::Call { func, args, span } => Term::Call {
            func,
            args: args
                .into_iter()
                .map(|a| substitute_term(a, var, theta))
                .collect(),
            span,
        },
        leaf => leaf,
    }
}
