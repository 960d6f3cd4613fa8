//! Versioned `SINCE` states: an unbounded past-only state whose every consumer only tests its
//! tuples is not handed out as a snapshot per position. Each tuple carries the position at
//! which it entered, a tuple removed keeps the positions at which it was in while a consumer
//! may still test them, and consumers test the live state at their own position (see
//! [`super::since::Since::probed`]).

use rvmon_core::{Timestamp, Value};

use super::since::{keeps_by_key, SinceState};
use super::views::{idx_mark_removed, idx_remove, join_parts, note_insert_at};
use super::{contains_key, contains_key_eq};
use crate::compile::{GuardTrigger, NodeKind, Plan};
use crate::rel::{Rel, Tuple};

/// In a versioned state's index: a tuple removed, kept while a reader of an earlier position
/// may still find it (see [`retire`]).
pub(crate) const REMOVED: u64 = u64::MAX;

/// Enters `tuple` into a versioned state at position `at` (a tuple already in stays with its
/// first position). A tuple removed at this same position, and so still in `gone` with
/// `left == at`, was never out for any reader: its interval goes on.
#[inline]
pub(crate) fn enter(
    st: &mut SinceState,
    tuple: &Tuple,
    at: u64,
    negated: bool,
    l_key: &[usize],
    identity: bool,
) {
    // PERF: one lookup of the live state (most tuples offered are in it already).
    let std::collections::hash_map::Entry::Vacant(slot) = st.ripe.entry(tuple.clone()) else {
        return;
    };
    let mut entered = at;
    if let Some(spans) = st.gone.get_mut(tuple) {
        if spans.last().is_some_and(|&(_, left)| left == at) {
            entered = spans.pop().expect("checked").0;
            if spans.is_empty() {
                st.gone.remove(tuple);
            }
        }
    }
    slot.insert(entered as Timestamp);
    if keeps_by_key(negated, l_key, identity) {
        let key: Tuple = l_key.iter().map(|&c| tuple[c]).collect();
        st.by_key.entry(key).or_default().push(tuple.clone());
    }
    note_insert_at(&mut st.views, tuple, entered);
}

/// Removes `tuple`, which entered at `entered`, from a versioned state at the position being
/// absorbed: readers of earlier positions still see it, through `gone`, until [`purge`].
pub(crate) fn retire(st: &mut SinceState, tuple: Tuple, entered: Timestamp) {
    let (entered, left) = (entered as u64, st.absorbed);
    // The join index still finds it for readers of earlier positions (see [`purge`]); the
    // guard's index lists only the live tuples the guard may fail for.
    idx_remove(&mut st.views.guard, &tuple);
    if entered < left {
        idx_mark_removed(&mut st.views.join, &tuple);
        st.gone
            .entry(tuple.clone())
            .or_default()
            .push((entered, left));
        st.tombs.push_back((left, tuple));
    } else if st.gone.contains_key(&tuple) {
        // Never in at this position, but earlier intervals are still visible through it.
        idx_mark_removed(&mut st.views.join, &tuple);
    } else {
        idx_remove(&mut st.views.join, &tuple);
    }
}

/// Whether a versioned state held `t` at position `upto`.
#[inline]
pub(crate) fn visible(st: &SinceState, t: &[Value], upto: u64) -> bool {
    let entered = st.ripe.get(t).map_or(REMOVED, |&at| at as u64);
    visible_from(st, t, entered, upto)
}

/// [`visible`] for a tuple whose entry position (or [`REMOVED`]) is known, from an index.
#[inline]
pub(crate) fn visible_from(st: &SinceState, t: &[Value], entered: u64, upto: u64) -> bool {
    entered <= upto
        || (!st.gone.is_empty()
            && st
                .gone
                .get(t)
                .is_some_and(|spans| spans.iter().any(|&(e, l)| e <= upto && upto < l)))
}

/// Forgets the removals from a versioned state that no reader can see any more: those made at
/// or before `floor`, the lowest position a reader may still test.
pub(crate) fn purge(st: &mut SinceState, floor: u64) {
    while st.tombs.front().is_some_and(|(left, _)| *left <= floor) {
        let (_, tuple) = st.tombs.pop_front().expect("checked");
        // (One lookup of `gone`: PERF.)
        let still_gone = match st.gone.entry(tuple) {
            std::collections::hash_map::Entry::Occupied(mut spans) => {
                spans.get_mut().retain(|&mut (_, left)| left > floor);
                if spans.get().is_empty() {
                    let (tuple, _) = spans.remove_entry();
                    Err(tuple)
                } else {
                    Ok(())
                }
            }
            std::collections::hash_map::Entry::Vacant(slot) => Err(slot.into_key()),
        };
        if let Err(tuple) = still_gone {
            if st.views.join.is_some() && !st.ripe.contains_key(&tuple) {
                idx_remove(&mut st.views.join, &tuple);
            }
        }
    }
}

/// Whether `f` holds for one of the tuples of a versioned state `st` that its join index holds
/// under `key` and that were in the state at position `upto` (their entry positions are in the
/// index: no lookup in the state); stops at the first. (A loop, not an iterator chain: the
/// chain cost the data race 3 % more instructions.)
#[inline]
pub(crate) fn any_visible_under(
    st: &SinceState,
    key: &[Value],
    upto: u64,
    mut f: impl FnMut(&Tuple) -> bool,
) -> bool {
    let index = &st.views.join.as_ref().expect("probed by its index").1;
    let Some(bucket) = index.get(key) else {
        return false;
    };
    for (y, &entered) in bucket.iter() {
        if visible_from(st, y, entered, upto) && f(y) {
            return true;
        }
    }
    false
}

/// [`super::since::since_step`] for a versioned state: removed tuples become tombstones ([`retire`]).
pub(crate) fn versioned_step(
    st: &mut SinceState,
    a: &Rel,
    negated: bool,
    l_key: &[usize],
    identity: bool,
    buf: &mut Vec<Value>,
) {
    if negated && l_key.is_empty() {
        // A closed `φ` holds: every witness fails.
        let mut ripe = std::mem::take(&mut st.ripe);
        for (k, e) in ripe.drain() {
            retire(st, k, e);
        }
        st.ripe = ripe;
        st.young.clear();
    } else if negated {
        for u in a {
            if identity {
                if let Some((k, e)) = st.ripe.remove_entry(&u[..]) {
                    retire(st, k, e);
                }
            } else if let Some(tuples) = st.by_key.remove(&u[..]) {
                // (Entries may be stale: already removed, or listed twice.)
                for tuple in tuples {
                    if let Some((k, e)) = st.ripe.remove_entry(&tuple) {
                        retire(st, k, e);
                    }
                }
            }
            st.young
                .retain(|(_, tuple)| !contains_key_eq(tuple, l_key, u));
        }
    } else {
        versioned_retain(
            st,
            &mut |tuple, buf| contains_key(a, tuple, l_key, buf),
            buf,
        );
    }
}

/// Keeps the tuples of a versioned state that satisfy `keep` (ripe and young), retiring the
/// others.
pub(crate) fn versioned_retain(
    st: &mut SinceState,
    keep: &mut dyn FnMut(&Tuple, &mut Vec<Value>) -> bool,
    buf: &mut Vec<Value>,
) {
    let mut dropped = Vec::new();
    st.ripe.retain(|tuple, e| {
        let kept = keep(tuple, buf);
        if !kept {
            dropped.push((tuple.clone(), *e));
        }
        kept
    });
    for (tuple, e) in dropped {
        retire(st, tuple, e);
    }
    st.young.retain(|(_, tuple)| keep(tuple, buf));
}

/// Which states are versioned: see [`super::since::Since::probed`].
pub(crate) fn probed_states(
    plan: &Plan,
    reads: &[Vec<usize>],
    future: &[bool],
    since: &[SinceState],
    through: &[Option<usize>],
    triggers: &[Option<GuardTrigger>],
) -> Vec<Option<u64>> {
    let mut probed: Vec<Option<u64>> = plan
        .nodes
        .iter()
        .enumerate()
        .map(|(i, node)| match &node.kind {
            NodeKind::Since { w, lag, .. } if w.hi.is_none() && !future[i] => {
                Some(u64::from(lag.is_some()))
            }
            _ => None,
        })
        .collect();
    probed[plan.root()] = None;
    // Whether state `x` keeps an index on exactly these columns.
    let indexed_on = |x: usize, cols: &[usize]| {
        !cols.is_empty()
            && since[x]
                .views
                .join
                .as_ref()
                .is_some_and(|(c, _)| c[..] == *cols)
    };
    // A semi-join tests its right operand; a join that adds columns probes either operand
    // through its index on the shared columns ([`probe_versioned`]), which holds each tuple's
    // entry position. (PERF: locks-cycles 1,103 M -> 895 M instructions on its 100 k log, the
    // data race 5.37 G -> 5.28 G; with a lookup of each candidate's position in the state
    // instead, the data race took 5.61 G.)
    let join_tests = |kind: &NodeKind, x: usize| {
        let Some((l, r, shared, r_new)) = join_parts(kind) else {
            return false;
        };
        let cols: Vec<usize> = if x == r {
            shared.iter().map(|p| p.1).collect()
        } else {
            shared.iter().map(|p| p.0).collect()
        };
        l != r && ((x == r && r_new.is_empty()) || indexed_on(x, &cols))
    };
    for (i, node) in plan.nodes.iter().enumerate() {
        let tests = |x: usize| match &node.kind {
            // A projection tested through its state's index (see [`super::project::Project::through`]).
            NodeKind::Project { .. } => through[i] == Some(x),
            // A past operator's guard tests its leaves ([`eval_guard`]), but walks those of
            // its trigger ([`guard_failures`]).
            NodeKind::Since {
                r, guard: Some(g), ..
            } => {
                let mut leaves = Vec::new();
                g.leaves(&mut leaves);
                x != *r
                    && leaves.contains(&x)
                    && !triggers[i].as_ref().is_some_and(|t| t.leaves.contains(&x))
            }
            NodeKind::Join { .. } => join_tests(&node.kind, x),
            NodeKind::AntiJoin { l, r, .. } => *r == x && *l != x,
            // An existential join tests `s`, and probes `r` through its index. A join fused
            // into it probes its operands as the join would; an operand in both roles must
            // be probed in both.
            NodeKind::ExistsJoin {
                l,
                r,
                s,
                shared,
                over,
                ..
            } => {
                let cols: Vec<usize> = shared.iter().map(|p| p.1).collect();
                let in_join = over.as_ref().is_some_and(|j| x == *l || x == j.r);
                let in_test = x == *r || x == *s;
                // Probed as `r` through its index, and tested as `s`, or both (one state
                // shared up to renaming, as the data race's two locksets).
                let test_ok = x != *r || indexed_on(x, &cols);
                // Without a fused join, the left operand is walked: a state that is also the
                // witness or test operand (`ONCE R(x) AND NOT EXISTS y. (Q(x,y) AND ONCE
                // R(y))`, one state up to renaming) must hand out its tuples, not markers.
                let walked = over.is_none() && x == *l;
                (in_join || in_test)
                    && !walked
                    && (!in_join || join_tests(&node.kind, x))
                    && (!in_test || test_ok)
            }
            _ => false,
        };
        for &x in &reads[i] {
            if !tests(x) {
                probed[x] = None;
            }
        }
    }
    // A join probes one versioned operand, walking the other; a semi-join whose right operand
    // is tested through its state walks its left one.
    for node in &plan.nodes {
        if let Some((l, r, ..)) = join_parts(&node.kind) {
            let r_probed = probed[r].is_some() || through[r].is_some_and(|c| probed[c].is_some());
            if probed[l].is_some() && r_probed {
                probed[l] = None;
            }
        }
    }
    probed
}
