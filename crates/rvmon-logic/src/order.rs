//! Conjunct order for a relational engine: conjuncts that are decided at once go before
//! conjuncts that wait for the future, when that cannot make a relation larger.
//!
//! A relational engine evaluates `a AND b` as a join once both sides are known at a position.
//! When `b` waits for the future (`EVENTUALLY[10m,20m] net(c)`), everything joined after it
//! waits too: in paper 04's P4,
//! `net(c) AND EVENTUALLY[10m,20m] net(c) AND ONCE[1d,2d] alive(c) AND NOT …`, the
//! `ONCE[1d,2d]` window's state is held for each of the 20 minutes of positions the first join
//! waits for, and has to be cut down to the tuples `net(c)` can meet. Joined first, the window
//! meets `net(c)` at once and what waits is a tuple or none.
//!
//! Only conjuncts whose free variables the conjuncts before them already bind are moved (a
//! semi-join, an anti-join or a filter of what is there), so no move makes an intermediate
//! relation larger, and every conjunct still follows the conjuncts it followed in the formula
//! that bind its variables, so a monitorable formula stays monitorable. Semantics are
//! unchanged: `AND` commutes. `rvmon monpoly` does not use this: MonPoly's verdict timing
//! follows the formula as written.

use crate::ast::*;
use crate::free_vars;
use crate::monpoly::map_children;

/// `f` with each conjunction's conjuncts reordered as the module explains.
pub fn order_conjuncts(f: &Formula) -> Formula {
    reorder(f).0.unwrap_or_else(|| f.clone())
}

/// `f` ordered, or `None` when ordering moves nothing in it (so that an unchanged formula
/// keeps its own spans and is not copied), and its [`delay`] (which ordering does not change).
/// Each subformula is visited once, and its free variables are computed only where a
/// conjunct could move: on a formula nested deeply, recomputing them and comparing the
/// result at every level took time quadratic in its size (seconds for MonPoly's rewriting of
/// 80 nested `ONCE … IMPLIES`).
fn reorder(f: &Formula) -> (Option<Formula>, Delay) {
    if !matches!(
        f.kind,
        FormulaKind::Bool2 {
            op: BoolOp::And,
            ..
        }
    ) {
        let children = f.children();
        let mut delays = Delay::At(0);
        let mut changed = Vec::with_capacity(children.len());
        for c in &children {
            let (o, d) = reorder(c);
            delays = delays.max(d);
            changed.push(o);
        }
        let d = own_delay(f, delays);
        if changed.iter().all(Option::is_none) {
            return (None, d);
        }
        let mut changed = changed.into_iter();
        let g = map_children(f, &mut |c| {
            changed.next().flatten().unwrap_or_else(|| c.clone())
        });
        return (Some(g), d);
    }
    let mut written = Vec::new();
    flatten_and(f, &mut written);
    let mut changed = false;
    let mut rest: Vec<Conjunct> = written
        .into_iter()
        .map(|c| {
            let (ordered, delay) = reorder(c);
            changed |= ordered.is_some();
            Conjunct {
                written: c,
                ordered,
                delay,
                vars: None,
                fallible: can_fail(c),
            }
        })
        .collect();
    let whole = rest.iter().map(|c| c.delay).fold(Delay::At(0), Delay::max);
    // A conjunct moves only ahead of one that waits longer: with every delay the same,
    // nothing moves.
    if rest.iter().all(|c| c.delay == rest[0].delay) {
        if !changed {
            return (None, whole);
        }
        let mut out: Option<Formula> = None;
        for c in rest {
            let g = c.take();
            out = Some(match out {
                None => g,
                Some(o) => Formula::and(o, g, f.span),
            });
        }
        return (out, whole);
    }
    let mut placed = Vec::new();
    let mut bound: Vec<String> = Vec::new();
    // The variables of the conjuncts placed so far are added to `bound` when a test needs them.
    let mut unbound_placed = 0;
    let first = rest.remove(0);
    placed.push(first);
    while !rest.is_empty() {
        let next_delay = rest[0].delay;
        // The earliest conjunct that the ones placed already bind, if it is decided sooner
        // than the next one in the formula's order (ties: the formula's order). A conjunct
        // that can fail is a barrier: nothing moves across it, either way (see `can_fail`).
        let mut pick = 0;
        let mut best: Option<Delay> = None;
        for (k, c) in rest.iter_mut().enumerate() {
            if c.fallible {
                break;
            }
            let d = c.delay;
            if d >= next_delay || best.is_some_and(|b| d >= b) {
                continue;
            }
            for p in &mut placed[unbound_placed..] {
                for v in p.vars() {
                    if !bound.contains(v) {
                        bound.push(v.clone());
                    }
                }
            }
            unbound_placed = placed.len();
            if c.vars().iter().all(|v| bound.contains(v)) {
                pick = k;
                best = Some(d);
            }
        }
        changed |= pick != 0;
        placed.push(rest.remove(pick));
    }
    // Unchanged, the formula keeps its own spans (and compares equal to itself).
    if !changed {
        return (None, whole);
    }
    let mut out: Option<Formula> = None;
    for c in placed {
        let g = c.take();
        out = Some(match out {
            None => g,
            Some(o) => Formula::and(o, g, f.span),
        });
    }
    (out, whole)
}

/// One conjunct of a chain being ordered, with what the order looks at.
struct Conjunct<'a> {
    written: &'a Formula,
    /// The conjunct ordered, if that changed it.
    ordered: Option<Formula>,
    delay: Delay,
    /// Its free variables, once asked for.
    vars: Option<Vec<String>>,
    fallible: bool,
}

impl Conjunct<'_> {
    fn vars(&mut self) -> &[String] {
        let f = self.ordered.as_ref().unwrap_or(self.written);
        self.vars.get_or_insert_with(|| free_vars(f))
    }

    fn take(self) -> Formula {
        self.ordered.unwrap_or_else(|| self.written.clone())
    }
}

/// Whether conjunct `c` is a comparison or string relation (negated or not) whose terms can
/// fail when evaluated (division or `MOD` by zero, overflow, a conversion out of range). The
/// compiler makes such a conjunct a filter of the conjuncts before it, so it must see exactly
/// the tuples it sees as written: moved ahead of a join, it would be evaluated on tuples the
/// join drops, an error where the formula as written has none
/// (`p(x,y) AND EVENTUALLY[0,5] q(x) AND 10 / y > 1` on `p(1,0)`); with a semi-join moved
/// ahead of it, an error the formula as written makes would be lost.
pub(crate) fn can_fail(c: &Formula) -> bool {
    fn computed(t: &Term) -> bool {
        matches!(t, Term::Neg(_) | Term::Arith(..) | Term::Func(..))
    }
    match &c.kind {
        FormulaKind::Not(g) => can_fail(g),
        FormulaKind::Cmp { lhs, rhs, .. } => computed(lhs) || computed(rhs),
        FormulaKind::StrRel {
            lhs, rhs, groups, ..
        } => computed(lhs) || computed(rhs) || groups.iter().flatten().any(computed),
        _ => false,
    }
}

/// The conjuncts of `f`'s left-nested `AND` chain, in order (a right operand that is itself a
/// conjunction stays one conjunct: its grouping may be what makes it monitorable).
fn flatten_and<'a>(f: &'a Formula, out: &mut Vec<&'a Formula>) {
    match &f.kind {
        FormulaKind::Bool2 {
            op: BoolOp::And,
            lhs,
            rhs,
        } => {
            flatten_and(lhs, out);
            out.push(rhs);
        }
        _ => out.push(f),
    }
}

/// How long a formula's value at a position may wait for later events, in time units, plus
/// one for each future operator on the way (so that `EVENTUALLY[0,0]`, which waits for the
/// next timestamp, counts as waiting; `NEXT` counts only that one). `Unbounded` for an
/// unbounded future operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Delay {
    At(u64),
    Unbounded,
}

impl Delay {
    fn max(self, other: Delay) -> Delay {
        std::cmp::max(self, other)
    }

    fn after(self, interval: &Interval) -> Delay {
        match (self, interval.max()) {
            (Delay::At(d), Some(b)) => Delay::At(d.saturating_add(b).saturating_add(1)),
            _ => Delay::Unbounded,
        }
    }
}

/// The [`Delay`] of `f`.
pub fn delay(f: &Formula) -> Delay {
    let below = f
        .children()
        .into_iter()
        .map(delay)
        .fold(Delay::At(0), Delay::max);
    own_delay(f, below)
}

/// The [`Delay`] of `f`, given the largest of its subformulas' (`below`).
fn own_delay(f: &Formula, below: Delay) -> Delay {
    match &f.kind {
        // `NEXT` waits for the next position only, whatever its interval.
        FormulaKind::Unary {
            op: UnaryTemporal::Next,
            ..
        } => below.after(&Interval::closed(0, Some(0))),
        FormulaKind::Unary { op, interval, .. } if op.is_future() => below.after(interval),
        FormulaKind::Binary {
            op: BinaryTemporal::Until,
            interval,
            ..
        } => below.after(interval),
        _ => below,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parse_formula;

    fn ordered(text: &str) -> String {
        order_conjuncts(&parse_formula("test", text).unwrap()).to_string()
    }

    #[test]
    fn paper04_p4_joins_its_windows_before_what_waits() {
        let p4 = "net(c) AND (EVENTUALLY[600,1200] net(c)) AND (ONCE[86400,172800] alive(c)) \
                  AND NOT (ONCE[0,259200] EVENTUALLY[0,0] upd_success(c)) \
                  AND NOT (EVENTUALLY[0,1200] ONCE[0,0] upd_connect(c))";
        assert_eq!(
            ordered(p4),
            "((((net(c) AND (ONCE[86400,172800] alive(c))) AND (NOT (ONCE[0,259200] \
             (EVENTUALLY[0,0] upd_success(c))))) AND (EVENTUALLY[600,1200] net(c))) AND \
             (NOT (EVENTUALLY[0,1200] (ONCE[0,0] upd_connect(c)))))"
        );
    }

    #[test]
    fn a_conjunct_that_binds_new_variables_is_not_moved() {
        // Moving `q(y)` before the window would join p and q on no variable.
        let f = "p(x) AND (EVENTUALLY[0,5] r(x,y)) AND q(y)";
        assert_eq!(ordered(f), parse_formula("test", f).unwrap().to_string());
    }

    #[test]
    fn a_filter_that_can_fail_is_not_moved() {
        // Ahead of the join, `10 / y` would be computed for `p(1,0)`, which the join drops.
        let f = "p(x,y) AND (EVENTUALLY[0,5] q(x)) AND 10 / y > 1";
        assert_eq!(ordered(f), parse_formula("test", f).unwrap().to_string());
        // Without arithmetic, the comparison can go first.
        assert_eq!(
            ordered("p(x,y) AND (EVENTUALLY[0,5] q(x)) AND y > 1"),
            "((p(x,y) AND 1 < y) AND (EVENTUALLY[0,5] q(x)))"
        );
    }

    #[test]
    fn nothing_moves_across_a_filter_that_can_fail() {
        // `NOT r(x)` would go before the window, and so before the filter, which would then
        // not see (and not fail on) the tuples `r` removes.
        let f = "p(x,y) AND (EVENTUALLY[0,5] q(x)) AND 10 / y > 1 AND NOT r(x)";
        assert_eq!(ordered(f), parse_formula("test", f).unwrap().to_string());
        // Before the filter, conjuncts still move.
        assert_eq!(
            ordered("p(x,y) AND (EVENTUALLY[0,5] q(x)) AND NOT r(x) AND 10 / y > 1"),
            "(((p(x,y) AND (NOT r(x))) AND (EVENTUALLY[0,5] q(x))) AND 1 < 10 / y)"
        );
    }

    #[test]
    fn an_unchanged_formula_is_returned_as_it_is() {
        let f = parse_formula(
            "test",
            "p(x) AND q(x) AND NOT r(x) AND (EVENTUALLY[0,5] s(x))",
        )
        .unwrap();
        assert_eq!(order_conjuncts(&f), f);
    }

    #[test]
    fn past_only_formulas_keep_their_order() {
        let f = "p(x) AND NOT q(x) AND (ONCE[0,5] r(x)) AND x > 3";
        assert_eq!(ordered(f), parse_formula("test", f).unwrap().to_string());
    }

    #[test]
    fn nested_conjunctions_are_ordered_too() {
        assert_eq!(
            ordered("EXISTS y. (p(x,y) AND (NEXT q(x)) AND NOT r(y))"),
            "(EXISTS y. ((p(x,y) AND (NOT r(y))) AND (NEXT[0,*) q(x))))"
        );
    }

    #[test]
    fn delays_add_up_along_future_operators() {
        let d = |s: &str| delay(&parse_formula("test", s).unwrap());
        assert_eq!(d("ONCE[0,9] p(x)"), Delay::At(0));
        assert_eq!(d("EVENTUALLY[0,0] p(x)"), Delay::At(1));
        assert_eq!(d("EVENTUALLY[0,5] (p(x) UNTIL[0,3] q(x))"), Delay::At(10));
        assert_eq!(d("NEXT p(x)"), Delay::At(1));
        assert_eq!(d("EVENTUALLY p(x)"), Delay::Unbounded);
        assert_eq!(
            d("(EVENTUALLY[0,5] p(x)) AND (NEXT[0,2] q(x))"),
            Delay::At(6)
        );
    }
}
