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

/// How much work [`rewrite_within`] may do on one formula before rvmon gives up on it: each
/// step of the rewriting and each operator it copies counts one. MonPoly's rules copy the
/// left operand of an `AND` into each subformula they propagate it to, and copy it again at
/// every level below, so that the rewritten formula can grow exponentially in the nesting
/// (an `OR` of aggregations whose group-by variable is not free in their bodies: about 4x per
/// disjunct; a left-nested `AND` of negated subformulas: 2x per conjunct). A 100,000-term
/// conjunction takes about 300,000; the formulas the fuzzer found went past 10^9.
pub const MAX_REWRITE_WORK: usize = 300_000;

/// MonPoly's rewriting of a formula needed more than the work allowed (see
/// [`MAX_REWRITE_WORK`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TooLarge {
    /// The work allowed.
    pub limit: usize,
}

impl std::fmt::Display for TooLarge {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "MonPoly's rewriting of the formula into its monitorable fragment needs more than \
             {} steps (it copies the left operand of an AND into every subformula below it, \
             at every level); rvmon gives up on that form",
            self.limit
        )
    }
}

/// MonPoly's `rewrite`.
pub fn rewrite(f: &Formula) -> Formula {
    Rewriter { left: usize::MAX }
        .rewrite(f)
        .expect("an unbounded rewriting does not run out")
}

/// MonPoly's `rewrite`, or [`TooLarge`] once it has done more than `work` steps and copies
/// (see [`MAX_REWRITE_WORK`]). Within the bound, the same formula as [`rewrite`].
pub fn rewrite_within(f: &Formula, work: usize) -> Result<Formula, TooLarge> {
    Rewriter { left: work }
        .rewrite(f)
        .map_err(|_| TooLarge { limit: work })
}

/// The operators of `f` (its size as the rewriting copies it).
pub(crate) fn operators(f: &Formula) -> usize {
    let mut n = 0;
    let mut todo = vec![f];
    while let Some(g) = todo.pop() {
        n += 1;
        todo.extend(g.children());
    }
    n
}

/// [`rewrite`] with its work counted down.
struct Rewriter {
    left: usize,
}

/// The work ran out.
#[derive(Debug)]
struct OutOfWork;

impl Rewriter {
    fn spend(&mut self, n: usize) -> Result<(), OutOfWork> {
        self.left = self.left.checked_sub(n).ok_or(OutOfWork)?;
        Ok(())
    }

    /// A copy of `f`, paid for.
    fn copy(&mut self, f: &Formula) -> Result<Formula, OutOfWork> {
        self.spend(operators(f))?;
        Ok(f.clone())
    }

    /// MonPoly's `rewrite f1` applied to its own result (its rule for `f' AND NOT f1` without
    /// propagation). A formula the rewriting leaves as it is is its own rewriting, so the
    /// second pass is skipped then (the same result: without it, nested negations took time
    /// exponential in their depth).
    /// MonPoly's `propagate_cond`, paid for: it walks both formulas.
    fn propagate(&mut self, f1: &Formula, f2: &Formula) -> Result<bool, OutOfWork> {
        self.spend(operators(f1) + operators(f2))?;
        Ok(propagate_cond(f1, f2))
    }

    fn rewrite_twice(&mut self, f1: &Formula) -> Result<Formula, OutOfWork> {
        let once = self.rewrite(f1)?;
        if once == *f1 {
            Ok(once)
        } else {
            self.rewrite(&once)
        }
    }

    fn rewrite(&mut self, f: &Formula) -> Result<Formula, OutOfWork> {
        self.spend(1)?;
        if let FormulaKind::Bool2 {
            op: BoolOp::And,
            lhs: fp,
            rhs,
        } = &f.kind
        {
            if let Some(g) = self.conjunction(fp, rhs, f.span)? {
                return Ok(g);
            }
        }
        self.children(f)
    }

    /// MonPoly's rules for `f' AND rhs`, by the shape of `rhs`; `None` where no rule applies
    /// (the children are rewritten as they are).
    fn conjunction(
        &mut self,
        fp: &Formula,
        rhs: &Formula,
        span: Span,
    ) -> Result<Option<Formula>, OutOfWork> {
        Ok(Some(match &rhs.kind {
            FormulaKind::Bool2 {
                op: BoolOp::And,
                lhs: f1,
                rhs: f2,
            } => self.and_and(fp, f1, f2)?,
            FormulaKind::Bool2 {
                op: BoolOp::Or,
                lhs: f1,
                rhs: f2,
            } => self.and_or(fp, f1, f2, rhs.span, span)?,
            FormulaKind::Quant {
                q: Quant::Exists,
                vars,
                body: f1,
            } => self.and_exists(fp, vars, f1, rhs.span)?,
            FormulaKind::Not(f1) => {
                if self.propagate(fp, f1)? && !is_and_relop(rhs) {
                    let pair = and(self.copy(fp)?, self.copy(f1)?);
                    let inner = self.rewrite(&pair)?;
                    let not = mk(FormulaKind::Not(Box::new(inner)), rhs.span);
                    and(self.copy(fp)?, not)
                } else {
                    let l = self.rewrite(fp)?;
                    let r = self.rewrite_twice(f1)?;
                    and(l, mk(FormulaKind::Not(Box::new(r)), rhs.span))
                }
            }
            FormulaKind::Unary {
                op,
                interval,
                body: f1,
            } => return self.and_unary(fp, *op, interval, f1, rhs.span),
            FormulaKind::Binary {
                op,
                interval,
                lhs: f1,
                rhs: f2,
            } if *op == BinaryTemporal::Until || interval.is_bounded() => {
                self.and_binary(fp, (*op, interval), f1, f2, rhs.span)?
            }
            _ => return Ok(None),
        }))
    }

    /// `f'`, `f1` and `f2` rewritten each on its own (no rule propagates `f'`).
    fn apart(
        &mut self,
        fp: &Formula,
        f1: &Formula,
        f2: &Formula,
    ) -> Result<(Formula, Formula, Formula), OutOfWork> {
        Ok((self.rewrite(fp)?, self.rewrite(f1)?, self.rewrite(f2)?))
    }

    /// `f' AND (f1 AND f2)`.
    fn and_and(&mut self, fp: &Formula, f1: &Formula, f2: &Formula) -> Result<Formula, OutOfWork> {
        if self.propagate(fp, f1)? {
            let pair = and(self.copy(fp)?, self.copy(f1)?);
            let l = self.rewrite(&pair)?;
            let r = self.rewrite(f2)?;
            self.rewrite(&and(l, r))
        } else {
            let (l, r1, r2) = self.apart(fp, f1, f2)?;
            Ok(and(l, and(r1, r2)))
        }
    }

    /// `f' AND (f1 OR f2)`: `f'` goes into both disjuncts when it restricts `f1`.
    fn and_or(
        &mut self,
        fp: &Formula,
        f1: &Formula,
        f2: &Formula,
        or_span: Span,
        span: Span,
    ) -> Result<Formula, OutOfWork> {
        let or = |l: Formula, r: Formula, span| {
            let kind = FormulaKind::Bool2 {
                op: BoolOp::Or,
                lhs: Box::new(l),
                rhs: Box::new(r),
            };
            mk(kind, span)
        };
        if self.propagate(fp, f1)? {
            let pair = and(self.copy(fp)?, self.copy(f1)?);
            let l = self.rewrite(&pair)?;
            let pair = and(self.copy(fp)?, self.copy(f2)?);
            let r = self.rewrite(&pair)?;
            Ok(or(l, r, span))
        } else {
            let (l, r1, r2) = self.apart(fp, f1, f2)?;
            Ok(and(l, or(r1, r2, or_span)))
        }
    }

    /// `f' AND EXISTS vars. f1`: `f'` goes under the quantifier, its bound variables renamed
    /// apart from `f'`'s.
    fn and_exists(
        &mut self,
        fp: &Formula,
        vars: &[String],
        f1: &Formula,
        span: Span,
    ) -> Result<Formula, OutOfWork> {
        let exists = |vars: Vec<String>, body: Formula| {
            let kind = FormulaKind::Quant {
                q: Quant::Exists,
                vars,
                body: Box::new(body),
            };
            mk(kind, span)
        };
        if !self.propagate(fp, f1)? {
            let l = self.rewrite(fp)?;
            let r = self.rewrite(f1)?;
            return Ok(and(l, exists(vars.to_vec(), r)));
        }
        let mut taken = free_vars(fp);
        for v in free_vars(f1) {
            if !taken.contains(&v) {
                taken.push(v);
            }
        }
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
        self.spend(operators(f1))?;
        let pair = and(self.copy(fp)?, substitute_vars(f1, &m));
        let inner = self.rewrite(&pair)?;
        Ok(and(self.copy(fp)?, exists(new_vars, inner)))
    }

    /// `f' AND op f1` for the unary temporal operators with a dual to carry `f'` through.
    fn and_unary(
        &mut self,
        fp: &Formula,
        op: UnaryTemporal,
        interval: &Interval,
        f1: &Formula,
        span: Span,
    ) -> Result<Option<Formula>, OutOfWork> {
        let wrap = match op {
            UnaryTemporal::Previous => UnaryTemporal::Next,
            UnaryTemporal::Next => UnaryTemporal::Previous,
            UnaryTemporal::Eventually => UnaryTemporal::Once,
            UnaryTemporal::Once if interval.is_bounded() => UnaryTemporal::Eventually,
            _ => return Ok(None),
        };
        let (l, body) = if self.propagate(fp, f1)? {
            let pair = and(unary(wrap, *interval, self.copy(fp)?), self.copy(f1)?);
            let inner = self.rewrite(&pair)?;
            (self.copy(fp)?, inner)
        } else {
            let l = self.rewrite(fp)?;
            (l, self.rewrite(f1)?)
        };
        let kind = FormulaKind::Unary {
            op,
            interval: *interval,
            body: Box::new(body),
        };
        Ok(Some(and(l, mk(kind, span))))
    }

    /// `f' AND (f1 SINCE/UNTIL f2)`, bounded or `UNTIL`.
    fn and_binary(
        &mut self,
        fp: &Formula,
        (op, interval): (BinaryTemporal, &Interval),
        f1: &Formula,
        f2: &Formula,
        span: Span,
    ) -> Result<Formula, OutOfWork> {
        let wrap = if op == BinaryTemporal::Since {
            UnaryTemporal::Eventually
        } else {
            UnaryTemporal::Once
        };
        let bin = |l: Formula, r: Formula| {
            let kind = FormulaKind::Binary {
                op,
                interval: *interval,
                lhs: Box::new(l),
                rhs: Box::new(r),
            };
            mk(kind, span)
        };
        if self.propagate(fp, f1)? {
            let pair = and(
                unary(wrap, init_interval(interval), self.copy(fp)?),
                self.copy(f1)?,
            );
            let f1p = self.rewrite(&pair)?;
            Ok(and(self.copy(fp)?, bin(f1p, self.copy(f2)?)))
        } else if self.propagate(fp, f2)? {
            let pair = and(unary(wrap, *interval, self.copy(fp)?), self.copy(f2)?);
            let f2p = self.rewrite(&pair)?;
            Ok(and(self.copy(fp)?, bin(self.copy(f1)?, f2p)))
        } else {
            let (l, r1, r2) = self.apart(fp, f1, f2)?;
            Ok(and(l, bin(r1, r2)))
        }
    }

    /// No rule applies at `f`: its children are rewritten (leaves copied).
    fn children(&mut self, f: &Formula) -> Result<Formula, OutOfWork> {
        match &f.kind {
            FormulaKind::Bool(_)
            | FormulaKind::Pred { .. }
            | FormulaKind::Cmp { .. }
            | FormulaKind::Let { .. }
            | FormulaKind::Agg { .. } => self.copy(f),
            _ => {
                // `map_children`, stopping when the work runs out.
                let mut out = Ok(());
                let g = crate::monpoly::map_children(f, &mut |c| {
                    // Once out of work, what is built is dropped: a placeholder will do.
                    let placeholder = || mk(FormulaKind::Bool(true), c.span);
                    if out.is_err() {
                        return placeholder();
                    }
                    self.rewrite(c).unwrap_or_else(|e| {
                        out = Err(e);
                        placeholder()
                    })
                });
                out.map(|()| g)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::monpoly::{candidate_forms_within, normalize, to_monpoly_string};
    use crate::parse_formula;

    fn negated_normal(text: &str) -> Formula {
        let f = parse_formula("test", text).unwrap();
        normalize(&Formula::new(
            FormulaKind::Not(Box::new(f)),
            Span::default(),
        ))
    }

    #[test]
    fn within_the_bound_the_rewriting_is_monpolys() {
        for text in [
            "p(x) AND (q(x) OR r(x,y))",
            "use(t,x) IMPLIES ((EXISTS c. (c <- CNT y; t ONCE[0,0] acq(y,x))) OR \
             (EXISTS c. (c <- CNT y; t ONCE[0,1] acq(y,x))))",
            "upd_skip(c) IMPLIES ONCE[0,5] p(c) IMPLIES ONCE[0,5] p(c) IMPLIES ONCE[0,5] p(c)",
            "exit(y) IMPLIES (enter(y) AND NOT PREVIOUS enter(y) AND NOT PREVIOUS enter(y))",
        ] {
            let f = negated_normal(text);
            let bounded = rewrite_within(&f, MAX_REWRITE_WORK).unwrap();
            assert_eq!(to_monpoly_string(&bounded), to_monpoly_string(&rewrite(&f)));
        }
    }

    #[test]
    fn nested_negations_are_rewritten_in_time_linear_in_their_depth() {
        // MonPoly's rule for `f' AND NOT f1` rewrites `f1` twice: 2^40 passes here.
        let text = format!(
            "exit(y) IMPLIES (enter(y){})",
            " AND NOT PREVIOUS enter(y)".repeat(40)
        );
        assert!(rewrite_within(&negated_normal(&text), 100_000).is_ok());
    }

    #[test]
    fn a_rewriting_that_copies_exponentially_gives_up() {
        // About 4x per disjunct: 4^12 copies of `use(t,x)`.
        let disjuncts: Vec<String> = (0..12)
            .map(|i| format!("(EXISTS c. (c <- CNT y; t ONCE[0,{i}] acq(y,x)))"))
            .collect();
        let text = format!("use(t,x) IMPLIES ({})", disjuncts.join(" OR "));
        let f = negated_normal(&text);
        assert_eq!(
            rewrite_within(&f, MAX_REWRITE_WORK),
            Err(TooLarge {
                limit: MAX_REWRITE_WORK
            })
        );
        // The candidate forms leave the rewritten ones out and say why.
        let g = parse_formula("test", &text).unwrap();
        let negated = Formula::new(FormulaKind::Not(Box::new(g)), Span::default());
        let (forms, why) = candidate_forms_within(&negated, MAX_REWRITE_WORK);
        assert_eq!(forms.len(), 1);
        assert!(why.unwrap().to_string().contains("rvmon gives up"));
    }
}
