//! MonPoly's `Rewriting.rewrite`: when the normalised formula is not monitorable, range
//! restrictions are propagated into the subformulas that lack them (`ψ AND (φ1 OR φ2)` becomes
//! `(ψ AND φ1) OR (ψ AND φ2)`, `ψ AND EXISTS x. φ` becomes `ψ AND EXISTS _x1. (ψ AND φ[_x1/x])`,
//! and so on for the temporal operators). Reproduced rule for rule, including the fresh names,
//! because `rvmon monpoly -verbose` prints the result.

use crate::ast::*;
use crate::free_vars;
use crate::monitorable::{is_and_relop, rr};

fn mk(kind: FormulaKind, span: Span) -> Formula {
    Formula::new(kind, span)
}

fn and(a: Formula, b: Formula) -> Formula {
    let span = a.span;
    Formula::and(a, b, span)
}

fn unary(op: UnaryTemporal, interval: Interval, body: Formula) -> Formula {
    let span = body.span;
    mk(
        FormulaKind::Unary {
            op,
            interval,
            body: Box::new(body),
        },
        span,
    )
}

/// `[0, b)` with the upper bound of `i` (MonPoly's `init_interval`).
fn init_interval(i: &Interval) -> Interval {
    Interval {
        lo: Bound::Closed(0),
        hi: i.hi,
    }
}

fn propagate_cond(f1: &Formula, f2: &Formula) -> bool {
    let (rr1, _) = rr(f1);
    let (rr2, _) = rr(f2);
    let fv2 = free_vars(f2);
    rr1.iter().any(|v| fv2.contains(v) && !rr2.contains(v))
}

/// MonPoly's `fresh_var`: the first `_xN` (N ≥ 1) not in `taken`.
fn fresh_var(taken: &[String]) -> String {
    (1..)
        .map(|n| format!("_x{n}"))
        .find(|v| !taken.contains(v))
        .expect("infinitely many names")
}

fn rename_term(t: &Term, m: &[(String, String)]) -> Term {
    t.rename_vars(&|v| m.iter().find(|(a, _)| a == v).map(|(_, b)| b.clone()))
}

/// Capture-avoiding renaming of free variables (MonPoly's `substitute_vars` for variables).
pub fn substitute_vars(f: &Formula, m: &[(String, String)]) -> Formula {
    let m: Vec<(String, String)> = m.iter().filter(|(a, b)| a != b).cloned().collect();
    let span = f.span;
    let sub = |g: &Formula| substitute_vars(g, &m);
    match &f.kind {
        FormulaKind::Pred { name, args } => mk(
            FormulaKind::Pred {
                name: name.clone(),
                args: args.iter().map(|a| rename_term(a, &m)).collect(),
            },
            span,
        ),
        FormulaKind::Cmp { op, lhs, rhs } => mk(
            FormulaKind::Cmp {
                op: *op,
                lhs: rename_term(lhs, &m),
                rhs: rename_term(rhs, &m),
            },
            span,
        ),
        FormulaKind::Quant { q, vars, body } => {
            let fv = free_vars(body);
            let targets: Vec<String> = m.iter().map(|(_, b)| b.clone()).collect();
            let mut taken: Vec<String> = fv.clone();
            for t in &targets {
                if !taken.contains(t) {
                    taken.push(t.clone());
                }
            }
            let mut fresh_map = Vec::new();
            for v in vars.iter().filter(|v| targets.contains(v)) {
                let n = fresh_var(&taken);
                taken.push(n.clone());
                fresh_map.push((v.clone(), n));
            }
            let new_vars = vars
                .iter()
                .map(|v| {
                    fresh_map
                        .iter()
                        .find(|(a, _)| a == v)
                        .map_or_else(|| v.clone(), |(_, b)| b.clone())
                })
                .collect();
            let mut inner: Vec<(String, String)> = m
                .iter()
                .filter(|(a, _)| !vars.contains(a))
                .cloned()
                .collect();
            inner.extend(fresh_map);
            mk(
                FormulaKind::Quant {
                    q: *q,
                    vars: new_vars,
                    body: Box::new(substitute_vars(body, &inner)),
                },
                span,
            )
        }
        FormulaKind::Agg {
            result,
            op,
            over,
            group,
            body,
        } => {
            let r = |v: &String| {
                m.iter()
                    .find(|(a, _)| a == v)
                    .map_or_else(|| v.clone(), |(_, b)| b.clone())
            };
            let bound: Vec<String> = free_vars(body)
                .into_iter()
                .filter(|v| !group.contains(v))
                .collect();
            let inner: Vec<(String, String)> = m
                .iter()
                .filter(|(a, _)| !bound.contains(a))
                .cloned()
                .collect();
            mk(
                FormulaKind::Agg {
                    result: r(result),
                    op: *op,
                    over: over.clone(),
                    group: group.iter().map(r).collect(),
                    body: Box::new(substitute_vars(body, &inner)),
                },
                span,
            )
        }
        FormulaKind::Let { .. } => crate::monpoly::map_let_body(f, &mut |g| sub(g)),
        _ => crate::monpoly::map_children(f, &mut |g| sub(g)),
    }
}

/// MonPoly's `rewrite`.
pub fn rewrite(f: &Formula) -> Formula {
    let span = f.span;
    if let FormulaKind::Bool2 {
        op: BoolOp::And,
        lhs: fp,
        rhs,
    } = &f.kind
    {
        let fp = &**fp;
        match &rhs.kind {
            FormulaKind::Bool2 {
                op: BoolOp::And,
                lhs: f1,
                rhs: f2,
            } => {
                return if propagate_cond(fp, f1) {
                    rewrite(&and(rewrite(&and(fp.clone(), (**f1).clone())), rewrite(f2)))
                } else {
                    and(rewrite(fp), and(rewrite(f1), rewrite(f2)))
                };
            }
            FormulaKind::Bool2 {
                op: BoolOp::Or,
                lhs: f1,
                rhs: f2,
            } => {
                return if propagate_cond(fp, f1) {
                    let l = rewrite(&and(fp.clone(), (**f1).clone()));
                    let r = rewrite(&and(fp.clone(), (**f2).clone()));
                    mk(
                        FormulaKind::Bool2 {
                            op: BoolOp::Or,
                            lhs: Box::new(l),
                            rhs: Box::new(r),
                        },
                        span,
                    )
                } else {
                    let or = mk(
                        FormulaKind::Bool2 {
                            op: BoolOp::Or,
                            lhs: Box::new(rewrite(f1)),
                            rhs: Box::new(rewrite(f2)),
                        },
                        rhs.span,
                    );
                    and(rewrite(fp), or)
                };
            }
            FormulaKind::Quant {
                q: Quant::Exists,
                vars,
                body: f1,
            } => {
                return if propagate_cond(fp, f1) {
                    let mut taken = free_vars(&and(fp.clone(), (**f1).clone()));
                    let mut m = Vec::new();
                    for v in vars {
                        let n = fresh_var(&taken);
                        taken.push(n.clone());
                        m.push((v.clone(), n));
                    }
                    let new_vars = vars
                        .iter()
                        .map(|v| m.iter().find(|(a, _)| a == v).expect("mapped").1.clone())
                        .collect();
                    let inner = rewrite(&and(fp.clone(), substitute_vars(f1, &m)));
                    and(
                        fp.clone(),
                        mk(
                            FormulaKind::Quant {
                                q: Quant::Exists,
                                vars: new_vars,
                                body: Box::new(inner),
                            },
                            rhs.span,
                        ),
                    )
                } else {
                    let ex = mk(
                        FormulaKind::Quant {
                            q: Quant::Exists,
                            vars: vars.clone(),
                            body: Box::new(rewrite(f1)),
                        },
                        rhs.span,
                    );
                    and(rewrite(fp), ex)
                };
            }
            FormulaKind::Not(f1) => {
                return if propagate_cond(fp, f1) && !is_and_relop(rhs) {
                    and(
                        fp.clone(),
                        mk(
                            FormulaKind::Not(Box::new(rewrite(&and(fp.clone(), (**f1).clone())))),
                            rhs.span,
                        ),
                    )
                } else {
                    and(
                        rewrite(fp),
                        mk(FormulaKind::Not(Box::new(rewrite(&rewrite(f1)))), rhs.span),
                    )
                };
            }
            FormulaKind::Unary {
                op,
                interval,
                body: f1,
            } => {
                let bounded = interval.is_bounded();
                let dual_wrap = match op {
                    UnaryTemporal::Previous => Some(UnaryTemporal::Next),
                    UnaryTemporal::Next => Some(UnaryTemporal::Previous),
                    UnaryTemporal::Eventually => Some(UnaryTemporal::Once),
                    UnaryTemporal::Once if bounded => Some(UnaryTemporal::Eventually),
                    _ => None,
                };
                if let Some(wrap) = dual_wrap {
                    return if propagate_cond(fp, f1) {
                        let inner =
                            rewrite(&and(unary(wrap, *interval, fp.clone()), (**f1).clone()));
                        and(
                            fp.clone(),
                            mk(
                                FormulaKind::Unary {
                                    op: *op,
                                    interval: *interval,
                                    body: Box::new(inner),
                                },
                                rhs.span,
                            ),
                        )
                    } else {
                        and(
                            rewrite(fp),
                            mk(
                                FormulaKind::Unary {
                                    op: *op,
                                    interval: *interval,
                                    body: Box::new(rewrite(f1)),
                                },
                                rhs.span,
                            ),
                        )
                    };
                }
            }
            FormulaKind::Binary {
                op,
                interval,
                lhs: f1,
                rhs: f2,
            } if *op == BinaryTemporal::Until || interval.is_bounded() => {
                let wrap = if *op == BinaryTemporal::Since {
                    UnaryTemporal::Eventually
                } else {
                    UnaryTemporal::Once
                };
                let bin = |l: Formula, r: Formula| {
                    mk(
                        FormulaKind::Binary {
                            op: *op,
                            interval: *interval,
                            lhs: Box::new(l),
                            rhs: Box::new(r),
                        },
                        rhs.span,
                    )
                };
                return if propagate_cond(fp, f1) {
                    let f1p = rewrite(&and(
                        unary(wrap, init_interval(interval), fp.clone()),
                        (**f1).clone(),
                    ));
                    and(fp.clone(), bin(f1p, (**f2).clone()))
                } else if propagate_cond(fp, f2) {
                    let f2p = rewrite(&and(unary(wrap, *interval, fp.clone()), (**f2).clone()));
                    and(fp.clone(), bin((**f1).clone(), f2p))
                } else {
                    and(rewrite(fp), bin(rewrite(f1), rewrite(f2)))
                };
            }
            _ => {}
        }
    }
    match &f.kind {
        FormulaKind::Bool(_)
        | FormulaKind::Pred { .. }
        | FormulaKind::Cmp { .. }
        | FormulaKind::Let { .. }
        | FormulaKind::Agg { .. } => f.clone(),
        _ => crate::monpoly::map_children(f, &mut rewrite),
    }
}
