//! What a join (or anti-join) keeps of an operand that has arrived while the other waits (see
//! [`reduce_waiting`]), and the bounds it reduces it by.

use std::rc::Rc;

use rustc_hash::FxHashSet;
use serde::{Deserialize, Serialize};

use super::EMPTY;
use crate::compile::{NodeKind, Plan};
use crate::rel::{project, Rel, Tuple};
use crate::stream::Stream;

/// A join's (or anti-join's) state: positions below `reduced` had their waiting operand
/// reduced (saved); the bounds of its left operand for its right one, and the other way round
/// (from the plan, not saved).
#[derive(Default, Debug, Serialize, Deserialize)]
pub(crate) struct Waiting {
    #[serde(skip)]
    pub(crate) bounds: [Vec<Bound>; 2],
    pub(crate) reduced: u64,
}

impl Waiting {
    /// [`reduce_waiting`] of operand `early` while `late` waits, by the bounds of side `k`
    /// (0: the left operand's, for the right one).
    #[inline]
    pub(crate) fn reduce(
        &mut self,
        k: usize,
        children: &mut [Stream],
        small: usize,
        late: usize,
        early: usize,
    ) {
        reduce_waiting(
            &self.bounds[k],
            children,
            small,
            &mut self.reduced,
            late,
            early,
        );
    }
}

/// A join (or `AND NOT`) whose operand `early` has arrived while `late` has not keeps the
/// early relations until `late` catches up. When they are snapshots of a temporal operator's
/// state (P3 of paper 04: a day's window of logouts, waiting 20 minutes for the other side),
/// that is a copy of the state per waiting position. Only the early tuples that can meet a late
/// tuple matter, and a bound on the late operand is often already there: an operand of it that
/// is known at the same position (the scan in `ssh_login(c,s) AND EVENTUALLY …`). Early tuples
/// that agree with no tuple of that bound are dropped, which also releases the snapshot.
///
/// PERF: inlined to the check that anything waits (at most time points, nothing does); the
/// reduction itself is out of line.
#[inline]
pub(crate) fn reduce_waiting(
    bounds: &[Bound],
    children: &mut [Stream],
    small: usize,
    from: &mut u64,
    late: usize,
    early: usize,
) {
    let start = (*from).max(children[late].end()).max(children[early].head);
    if !bounds.is_empty() && start < children[early].end() {
        reduce_waiting_from(bounds, children, small, from, start, early);
    }
}

#[inline(never)]
pub(crate) fn reduce_waiting_from(
    bounds: &[Bound],
    children: &mut [Stream],
    small: usize,
    from: &mut u64,
    start: u64,
    early: usize,
) {
    let end = children[early].end();
    for p in start..end {
        let rel = children[early].get(p).expect("in range");
        // Small relations cost little to keep.
        if rel.len() <= small {
            continue;
        }
        let Some(b) = bounds.iter().find(|b| children[b.node].get(p).is_some()) else {
            continue;
        };
        let known = children[b.node].get(p).expect("found at p");
        let kept: Rel = match &b.whole {
            // The bound fixes whole early tuples: look them up.
            Some(order) => known
                .iter()
                .map(|t| project(t, order))
                .filter(|t| rel.contains(t))
                .collect(),
            None => {
                let keys: FxHashSet<Tuple> = known.iter().map(|t| project(t, &b.b_cols)).collect();
                rel.iter()
                    .filter(|t| keys.contains(&project(t, &b.e_cols)))
                    .cloned()
                    .collect()
            }
        };
        let k = (p - children[early].head) as usize;
        children[early].vals[k] = if kept.is_empty() {
            EMPTY.with(Rc::clone)
        } else {
            Rc::new(kept)
        };
    }
    *from = (*from).max(end);
}

/// A node at or below a join's late operand that bounds it wherever its relation is known:
/// every tuple of the late operand agrees with one of its tuples on the shared variables that
/// mean the same thing along the whole path down (narrowed on the way, so that a variable
/// renamed under a projection is not confused with another).
#[derive(Debug)]
pub(crate) struct Bound {
    pub(crate) node: usize,
    /// The columns of `node` and of the early operand on which they must agree.
    pub(crate) b_cols: Vec<usize>,
    pub(crate) e_cols: Vec<usize>,
    /// When those are all of the early operand's columns: for each early column, the column of
    /// `node` that gives it.
    pub(crate) whole: Option<Vec<usize>>,
}

/// The candidate bounds of `late` for `early` in depth-first order, computed once per join: at
/// a position, the first one whose relation is known is the bound (a node whose relation is
/// known is used before anything below it, as it comes first).
pub(crate) fn bound_candidates(plan: &Plan, late: usize, early: usize) -> Vec<Bound> {
    fn go(plan: &Plan, x: usize, early: usize, allowed: &[&str], out: &mut Vec<Bound>) {
        // A node shared under other names may name its columns differently from this path.
        if plan.nodes[x].renamed {
            return;
        }
        let vars = &plan.nodes[x].vars;
        let allowed: Vec<&str> = allowed
            .iter()
            .copied()
            .filter(|v| vars.iter().any(|x| x == v))
            .collect();
        if allowed.is_empty() {
            return;
        }
        let col = |node: usize, v: &str| plan.nodes[node].vars.iter().position(|x| x == v);
        let b_cols: Vec<usize> = allowed.iter().filter_map(|v| col(x, v)).collect();
        let e_cols: Vec<usize> = allowed.iter().filter_map(|v| col(early, v)).collect();
        let whole = (e_cols.len() == plan.nodes[early].vars.len()).then(|| {
            let mut order = vec![0; e_cols.len()];
            for (k, &c) in e_cols.iter().enumerate() {
                order[c] = b_cols[k];
            }
            order
        });
        out.push(Bound {
            node: x,
            b_cols,
            e_cols,
            whole,
        });
        let below: &[usize] = match &plan.nodes[x].kind {
            NodeKind::Join { l, r, .. } => &[*l, *r],
            NodeKind::AntiJoin { l, .. }
            | NodeKind::ExistsJoin { l, .. }
            | NodeKind::Filter { l, .. }
            | NodeKind::StrRel { l, .. }
            | NodeKind::Assign { l, .. } => std::slice::from_ref(l),
            NodeKind::Project { c, .. } => std::slice::from_ref(c),
            _ => &[],
        };
        for &c in below {
            go(plan, c, early, &allowed, out);
        }
    }
    if plan.nodes[early].renamed {
        return Vec::new();
    }
    let allowed: Vec<&str> = plan.nodes[late]
        .vars
        .iter()
        .filter(|v| plan.nodes[early].vars.contains(v))
        .map(String::as_str)
        .collect();
    let mut out = Vec::new();
    go(plan, late, early, &allowed, &mut out);
    out
}
/// For each join (or anti-join), by node: the bounds of its left operand when the right one
/// waits for it, and the other way round (see [`reduce_waiting`]). Only an operand with a
/// future operator can be late past the step that fed its position; one that is late only
/// within a step (its operator waits for a consumer to release a snapshot, or a batch is
/// halfway through) catches up in the same step, and reducing the other operand's relations
/// meanwhile would be wasted work. A probed state's stream holds no relations (so it neither
/// bounds nor is reduced), and neither does a projection tested through one (`marked`); a
/// shared operand's relations are read by others too (so it is not reduced).
pub(crate) fn join_bounds(
    plan: &Plan,
    future: &[bool],
    marked: &dyn Fn(usize) -> bool,
    readers: &[Vec<usize>],
) -> Vec<[Vec<Bound>; 2]> {
    let bounds_of = |late: usize, early: usize| {
        if future[late] && !marked(early) && readers[early].len() <= 1 {
            let mut b = bound_candidates(plan, late, early);
            b.retain(|b| !marked(b.node));
            b
        } else {
            Vec::new()
        }
    };
    plan.nodes
        .iter()
        .map(|node| match node.kind {
            NodeKind::Join { l, r, .. } | NodeKind::AntiJoin { l, r, .. } => {
                [bounds_of(l, r), bounds_of(r, l)]
            }
            _ => [Vec::new(), Vec::new()],
        })
        .collect()
}
