//! Structures kept in step with a `SINCE` state's output (indexes for the joins that probe it
//! and for its guard, a change log for a projection over it), and which states get them.

use rustc_hash::FxHashMap;
use rvmon_core::Value;
use serde::{Deserialize, Serialize};

use super::since::SinceState;
use super::versioned::REMOVED;
use crate::bucket::Bucket;
use crate::compile::{GuardTrigger, NodeKind, Plan};
use crate::rel::Tuple;

/// Structures kept in step with a SINCE state's output: every insertion and removal updates
/// each of them that exists.
#[derive(Default, Debug, Serialize, Deserialize)]
pub(crate) struct OutViews {
    /// An index on some columns, for a parent join that probes this state with a few tuples
    /// (e.g. `sleep(t) AND held(t,l)`).
    pub(crate) join: Option<Index>,
    /// An index on the key of the guard's trigger, to find the tuples it may fail for (see
    /// [`GuardTrigger`]).
    pub(crate) guard: Option<Index>,
    /// Changes since a parent projection last read them (`true` = inserted), when a projection
    /// over this state maintains itself incrementally.
    pub(crate) log: Option<Vec<(bool, Tuple)>>,
}

/// A state's tuples by some of their columns, each with the position at which it entered a
/// versioned state ([`SinceState::versioned`]; 0 in others), or [`REMOVED`].
pub(crate) type Index = (Vec<usize>, FxHashMap<Tuple, Bucket>);

/// Records an insertion into a SINCE state's output in its views.
#[inline]
pub(crate) fn note_insert(views: &mut OutViews, t: &Tuple) {
    note_insert_at(views, t, 0);
}

/// [`note_insert`] of a tuple that entered a versioned state at `at`.
#[inline]
pub(crate) fn note_insert_at(views: &mut OutViews, t: &Tuple, at: u64) {
    idx_insert(&mut views.join, t, at);
    idx_insert(&mut views.guard, t, at);
    if let Some(log) = &mut views.log {
        log.push((true, t.clone()));
    }
}

/// Records a removal from a SINCE state's output in its views.
#[inline]
pub(crate) fn note_remove(views: &mut OutViews, t: &[Value]) {
    idx_remove(&mut views.join, t);
    idx_remove(&mut views.guard, t);
    if let Some(log) = &mut views.log {
        log.push((false, t.into()));
    }
}

/// Calls `f` with `t`'s key in an index on `cols`, built on the stack when it is short (PERF:
/// an index is updated at every entry and removal; building the keys on the stack, with
/// `purge`'s single lookup, took locks-cycles from 911 M to 890 M instructions, and on
/// removal too from 800 M to 786 M).
#[inline]
pub(crate) fn with_idx_key<R>(cols: &[usize], t: &[Value], f: impl FnOnce(&[Value]) -> R) -> R {
    if cols.len() > 4 {
        let key: Vec<Value> = cols.iter().map(|&c| t[c]).collect();
        return f(&key);
    }
    let mut key = [Value::Int(0); 4];
    for (k, &c) in key.iter_mut().zip(cols) {
        *k = t[c];
    }
    f(&key[..cols.len()])
}

/// Records `t` in the secondary index.
#[inline]
pub(crate) fn idx_insert(index: &mut Option<Index>, t: &Tuple, at: u64) {
    if let Some((cols, map)) = index {
        with_idx_key(cols, t, |key| match map.get_mut(key) {
            Some(m) => m.insert(t.clone(), at),
            None => {
                map.insert(key.into(), Bucket::one(t.clone(), at));
            }
        });
    }
}

/// Marks `t` [`REMOVED`] in the secondary index.
#[inline]
pub(crate) fn idx_mark_removed(index: &mut Option<Index>, t: &[Value]) {
    if let Some((cols, map)) = index {
        with_idx_key(cols, t, |key| {
            if let Some(at) = map.get_mut(key).and_then(|m| m.get_mut(t)) {
                *at = REMOVED;
            }
        });
    }
}

/// Forgets `t` in the secondary index.
#[inline]
pub(crate) fn idx_remove(index: &mut Option<Index>, t: &[Value]) {
    if let Some((cols, map)) = index {
        with_idx_key(cols, t, |key| {
            if let Some(set) = map.get_mut(key) {
                set.remove(t);
                if set.is_empty() {
                    map.remove(key);
                }
            }
        });
    }
}

/// (left operand, right operand, shared columns, new right columns).
pub(crate) type JoinParts<'a> = (usize, usize, &'a [(usize, usize)], &'a [usize]);

/// A join's operands, shared columns and new right columns: those of a [`NodeKind::Join`], or
/// of the join fused into an exists-join.
pub(crate) fn join_parts(kind: &NodeKind) -> Option<JoinParts<'_>> {
    match kind {
        NodeKind::Join {
            l,
            r,
            shared,
            r_new,
        } => Some((*l, *r, shared, r_new)),
        NodeKind::ExistsJoin {
            l, over: Some(j), ..
        } => Some((*l, j.r, &j.shared, &j.r_new)),
        _ => None,
    }
}
/// The `SINCE` states of a plan, by node (a default state for the other nodes), with the
/// indexes their consumers probe them through, and the guards' triggers, by node.
///
/// Joins that probe a `SINCE` state with a few tuples get an index on the shared columns (so
/// do the joins fused into exists-joins); an exists-join probes its right operand with each
/// left tuple; a guard with a trigger looks up the tuples its trigger's leaves name.
pub(crate) fn since_states(plan: &Plan) -> (Vec<SinceState>, Vec<Option<GuardTrigger>>) {
    let mut since: Vec<SinceState> = plan.nodes.iter().map(|_| SinceState::default()).collect();
    let is_since = |x: usize| matches!(plan.nodes[x].kind, NodeKind::Since { .. });
    let index = |since: &mut [SinceState], side: usize, cols: Vec<usize>| {
        if is_since(side) && since[side].views.join.is_none() && !cols.is_empty() {
            since[side].views.join = Some((cols, FxHashMap::default()));
        }
    };
    for node in &plan.nodes {
        if let Some((l, r, shared, r_new)) = join_parts(&node.kind) {
            let r_cols: Vec<usize> = shared.iter().map(|p| p.1).collect();
            let l_cols: Vec<usize> = shared.iter().map(|p| p.0).collect();
            // A semi-join (no new right column) probes the right state itself.
            let r_cols = if r_new.is_empty() { vec![] } else { r_cols };
            for (side, cols) in [(r, r_cols), (l, l_cols)] {
                index(&mut since, side, cols);
            }
        }
    }
    for node in &plan.nodes {
        if let NodeKind::ExistsJoin { r, shared, .. } = &node.kind {
            index(&mut since, *r, shared.iter().map(|p| p.1).collect());
        }
    }
    let triggers: Vec<Option<GuardTrigger>> = plan
        .nodes
        .iter()
        .map(|node| match &node.kind {
            NodeKind::Since { guard: Some(g), .. } => g.trigger(),
            _ => None,
        })
        .collect();
    for (st, trigger) in since.iter_mut().zip(&triggers) {
        // A trigger without leaves: the guard never fails, nothing is ever looked up.
        if let Some(trigger) = trigger.as_ref().filter(|t| !t.leaves.is_empty()) {
            st.views.guard = Some((trigger.key.clone(), FxHashMap::default()));
        }
    }
    (since, triggers)
}
