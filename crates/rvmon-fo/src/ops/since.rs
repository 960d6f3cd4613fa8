//! `φ SINCE[a,b] ψ`, `NOT φ SINCE ψ` and `ONCE[a,b] ψ` (a `TRUE` left operand), with a left
//! operand given as a guard when it is not monitorable alone, and `PREVIOUS` fused in: the
//! state holds the right operand's tuples that are witnessed, ripe and not yet expired.

use std::collections::VecDeque;
use std::rc::Rc;

use rustc_hash::FxHashMap;
use rvmon_core::{Timestamp, Value};
use rvmon_logic::ops::Window;
use serde::{Deserialize, Serialize};
use smallvec::SmallVec;

use super::tested::{eval_guard, Leaves};
use super::versioned::{enter, purge, retire, versioned_retain, versioned_step};
use super::views::{note_insert, note_remove, OutViews};
use super::{contains_key, contains_key_eq, Ctx, OpState, EMPTY, PRESENT};
use crate::compile::{Guard, GuardTrigger, NodeKind};
use crate::engine::CopyPolicy;
use crate::rel::{Rel, Tuple};
use crate::stream::{Stream, Timeline};

/// A `SINCE` node: its state (saved), and what it learnt from the plan (not saved).
#[derive(Default, Debug, Serialize, Deserialize)]
pub(crate) struct Since {
    pub(crate) state: SinceState,
    /// `ONCE`: the relation of its left operand, the constant `TRUE` (when not negated and
    /// without a guard), read from here rather than from a stream; a constant read only so
    /// has no stream (PERF: P3/P4 of paper 04 have five such operands, which otherwise cost a
    /// push and a pop per time point each).
    #[serde(skip)]
    pub(crate) true_left: Option<Rc<Rel>>,
    /// Where its guard can fail, when that is known.
    #[serde(skip)]
    pub(crate) trigger: Option<GuardTrigger>,
    /// Set for an unbounded past-only `SINCE` (`ONCE` among them) whose every consumer only
    /// tests its tuples (a semi-join or anti-join, a join or existential join that probes it
    /// through its index on the shared columns, a projection tested through it (see
    /// [`super::project::Project::through`]), a past operator's guard; see
    /// [`super::versioned::probed_states`]), with the lag of a fused `PREVIOUS` (0 or 1). Each
    /// tuple of such a state carries the position at which it entered, and a tuple removed
    /// (its left operand failed) keeps the positions at which it was in while a consumer may
    /// still test them ([`retire`], [`purge`]): the consumers test the live state at their
    /// position ([`super::versioned::visible`]) instead of a snapshot per position. (PERF: a
    /// snapshot held by a consumer made each changing step wait for it, a pass per time
    /// point: fifo's five growing `ONCE` states, and access's `NOT logout(x) SINCE
    /// login(x)`, changed at almost every time point. Without snapshots, `out` is not kept
    /// either.)
    #[serde(skip)]
    pub(crate) probed: Option<u64>,
}

#[derive(Default, Debug, Serialize, Deserialize)]
pub(crate) struct SinceState {
    /// Right-operand tuples not yet old enough for the lower bound, with their timestamp,
    /// oldest first. PERF: one flat queue, not a relation per time point: they are only
    /// walked, never looked up, and nothing is allocated per time point.
    pub(crate) young: VecDeque<(Timestamp, Tuple)>,
    /// Tuples old enough, with the newest timestamp at which they were witnessed.
    pub(crate) ripe: FxHashMap<Tuple, Timestamp>,
    /// The keys of `ripe`: the operator's output, shared with the parent.
    pub(crate) out: Rc<Rel>,
    /// (timestamp, tuple) in witness order, to expire tuples past the upper bound lazily.
    pub(crate) expiry: VecDeque<(Timestamp, Tuple)>,
    /// For `NOT φ SINCE ψ` with `fv(φ) ⊂ fv(ψ)`: the ripe tuples by their `φ` key (not kept
    /// for a closed `φ`, see [`keeps_by_key`]).
    pub(crate) by_key: FxHashMap<Tuple, Vec<Tuple>>,
    /// The next position whose operands are to be absorbed.
    pub(crate) absorbed: u64,
    /// The plan nodes it reads (right operand, then left operand or guard leaves).
    pub(crate) inputs: Vec<usize>,
    /// What is kept in step with `out`.
    pub(crate) views: OutViews,
    /// Set for a state that its consumers probe in place (see [`Since::probed`]): `ripe`
    /// then maps each tuple to the position at which it entered the state, tuples removed
    /// while a consumer may still test an earlier position go to `gone`, and `out` is not kept.
    pub(crate) versioned: bool,
    /// In a versioned state: tuples removed that a consumer may still test, with the positions
    /// [entered, left) at which they were in, oldest first (see [`super::versioned::visible`]).
    /// (Inline: a tuple is rarely removed twice before its purge, and a `Vec` per removal
    /// was an allocation per lock released.)
    pub(crate) gone: FxHashMap<Tuple, SmallVec<[(u64, u64); 1]>>,
    /// The removals behind `gone`, as (left, tuple) in the order made (`left` never
    /// decreases), to purge them once every consumer has passed them (see [`purge`]).
    pub(crate) tombs: VecDeque<(u64, Tuple)>,
}

/// Whether a `NOT φ SINCE ψ` state keeps its tuples by their `φ` key ([`SinceState::by_key`]):
/// not when `φ` is on all of `ψ`'s columns (a tuple of `φ` removes itself), nor when `φ` is
/// closed (it removes every tuple: PERF, fifo's `(NOT EXISTS z. exit(z)) SINCE exit(x)` had an
/// allocation and two lookups per exit for a key that every tuple shares).
pub(crate) fn keeps_by_key(negated: bool, l_key: &[usize], identity: bool) -> bool {
    negated && !identity && !l_key.is_empty()
}

/// Whether [`since_step`] with left operand `a` may change the output (and makes it unique).
pub(crate) fn since_step_changes_output(a: &Rel, negated: bool, l_key: &[usize]) -> bool {
    if negated {
        !a.is_empty()
    } else {
        !l_key.is_empty() || a.is_empty()
    }
}

/// One step of `φ SINCE[a,b] ψ` (or `NOT φ SINCE ψ`): drop witnesses whose left condition
/// fails now, add the right operand's tuples, ripen and expire by the interval.
///
/// PERF: with `NOT φ`, only the tuples of `φ` are touched (through `by_key` when `φ` has fewer
/// variables than `ψ`); a positive `φ` other than `TRUE` needs a pass over the state.
#[allow(clippy::too_many_arguments)]
pub(crate) fn since_step(
    st: &mut SinceState,
    a: &Rel,
    negated: bool,
    l_key: &[usize],
    identity: bool,
    buf: &mut Vec<Value>,
) {
    // PERF: the state is made unique (copied if a snapshot is still held) only when this
    // step can change it: not for `TRUE` (`ONCE`), nor for an empty `NOT φ`.
    if !since_step_changes_output(a, negated, l_key) {
        return;
    }
    if st.versioned {
        return versioned_step(st, a, negated, l_key, identity, buf);
    }
    if negated && l_key.is_empty() {
        // A closed `φ` holds: every witness fails.
        for tuple in st.ripe.keys() {
            note_remove(&mut st.views, tuple);
        }
        st.ripe.clear();
        match Rc::get_mut(&mut st.out) {
            Some(out) => out.clear(),
            None => st.out = Rc::new(Rel::default()),
        }
        st.young.clear();
    } else if negated {
        let out = Rc::make_mut(&mut st.out);
        for u in a {
            if identity {
                if st.ripe.remove(&u[..]).is_some() {
                    out.remove(&u[..]);
                    note_remove(&mut st.views, u);
                }
            } else if let Some(tuples) = st.by_key.remove(&u[..]) {
                for tuple in tuples {
                    st.ripe.remove(&tuple);
                    if out.remove(&tuple) {
                        note_remove(&mut st.views, &tuple);
                    }
                }
            }
            st.young
                .retain(|(_, tuple)| !contains_key_eq(tuple, l_key, u));
        }
    } else if !l_key.is_empty() || a.is_empty() {
        // A positive left operand: keep only the tuples it holds for.
        let out = Rc::make_mut(&mut st.out);
        st.ripe
            .retain(|tuple, _| contains_key(a, tuple, l_key, buf));
        let views = &mut st.views;
        out.retain(|tuple| {
            let kept = st.ripe.contains_key(tuple);
            if !kept {
                note_remove(views, tuple);
            }
            kept
        });
        st.young
            .retain(|(_, tuple)| contains_key(a, tuple, l_key, buf));
    }
}

/// Whether [`since_add`] has more to do than queue the new tuples: a tuple arrives with a zero
/// lower bound, or one ripens, or one expires.
pub(crate) fn since_add_moves(
    st: &SinceState,
    w: &rvmon_logic::ops::Window,
    b: &Rel,
    t: Timestamp,
) -> bool {
    let ripens = st.young.front().is_some_and(|(tj, _)| t - tj >= w.lo);
    let expires =
        w.hi.is_some_and(|hi| st.expiry.front().is_some_and(|(tj, _)| t - tj > hi));
    ripens || expires || (w.lo == 0 && !b.is_empty())
}

/// Whether [`since_add`] changes the output: a tuple not in it arrives (zero lower bound) or
/// ripens, or a tuple's newest witness expires. A witness of a tuple already in the output
/// only makes its newest time newer.
///
/// PERF: a window whose tuples recur (P4's `ONCE[1d,2d] alive(c)`: a hundred computers, each
/// alive every few minutes) ripens a witness at almost every position and changes its output
/// at few. Answering "changes" for every witness made the step wait for the snapshot its
/// reader still held: about one pass per position. Ripening only makes witnesses newer, so
/// testing expiry against the state before the step can only answer "changes" too often.
/// (A versioned state hands out no snapshot; it keeps the cheaper test.)
pub(crate) fn since_add_changes_output(
    st: &SinceState,
    w: &rvmon_logic::ops::Window,
    b: &Rel,
    t: Timestamp,
) -> bool {
    if !since_add_moves(st, w, b, t) {
        return false;
    }
    if st.versioned {
        return true;
    }
    let new = |tuple: &Tuple| !st.ripe.contains_key(tuple);
    (w.lo == 0 && b.iter().any(new))
        || st
            .young
            .iter()
            .take_while(|(tj, _)| t - tj >= w.lo)
            .any(|(_, tuple)| new(tuple))
        || w.hi.is_some_and(|hi| {
            st.expiry
                .iter()
                .take_while(|(tj, _)| t - tj > hi)
                .any(|(tj, tuple)| st.ripe.get(tuple) == Some(tj))
        })
}

/// Queues the right operand's tuples at `t` until they reach the lower bound (a versioned
/// state skips those it holds already: whatever removes the held tuple later removes its young
/// copies too, by the same test).
pub(crate) fn age(st: &mut SinceState, b: &Rel, t: Timestamp) {
    if st.versioned {
        for tuple in b.iter().filter(|tuple| !st.ripe.contains_key(*tuple)) {
            st.young.push_back((t, tuple.clone()));
        }
    } else {
        st.young.extend(b.iter().map(|tuple| (t, tuple.clone())));
    }
}

/// The right operand's part of a `SINCE` step: add its tuples, ripen those that reached the
/// lower bound, expire those past the upper bound.
pub(crate) fn since_add(
    st: &mut SinceState,
    w: &rvmon_logic::ops::Window,
    b: &Rel,
    t: Timestamp,
    negated: bool,
    l_key: &[usize],
    identity: bool,
) {
    // PERF: most steps only queue what arrives (no tuple arrives with a zero lower bound, none
    // ripens, none expires).
    if !since_add_moves(st, w, b, t) {
        age(st, b, t);
        return;
    }
    if st.versioned {
        // No upper bound: a tuple keeps the position at which it entered until it is removed.
        let at = st.absorbed;
        if w.lo == 0 {
            for tuple in b {
                enter(st, tuple, at, negated, l_key, identity);
            }
        } else {
            age(st, b, t);
        }
        while st.young.front().is_some_and(|(tj, _)| t - tj >= w.lo) {
            let (_, tuple) = st.young.pop_front().expect("checked");
            enter(st, &tuple, at, negated, l_key, identity);
        }
        return;
    }
    // The output is made unique (copied if a snapshot is still held) only when it changes: a
    // witness of a tuple already in it changes only the state. (Once unique, `make_mut` is a
    // check of the count.)
    // A witness at timestamp `tj` is old enough: it joins the output, keeping its newest time.
    let mut ripen = |tuple: &Tuple, tj: Timestamp| {
        if w.hi.is_some() {
            st.expiry.push_back((tj, tuple.clone()));
        }
        match st.ripe.get_mut(tuple) {
            Some(old) => *old = (*old).max(tj),
            None => {
                if keeps_by_key(negated, l_key, identity) {
                    let key: Tuple = l_key.iter().map(|&c| tuple[c]).collect();
                    st.by_key.entry(key).or_default().push(tuple.clone());
                }
                Rc::make_mut(&mut st.out).insert(tuple.clone());
                note_insert(&mut st.views, tuple);
                st.ripe.insert(tuple.clone(), tj);
            }
        }
    };
    // PERF: with a zero lower bound the right operand's tuples ripen at once; only a positive
    // lower bound needs them kept (copied) while they age.
    if w.lo == 0 {
        b.iter().for_each(|tuple| ripen(tuple, t));
    } else {
        st.young.extend(b.iter().map(|tuple| (t, tuple.clone())));
    }
    while st.young.front().is_some_and(|(tj, _)| t - tj >= w.lo) {
        let (tj, tuple) = st.young.pop_front().expect("checked");
        ripen(&tuple, tj);
    }
    if let Some(hi) = w.hi {
        while st.expiry.front().is_some_and(|(tj, _)| t - tj > hi) {
            let (tj, tuple) = st.expiry.pop_front().expect("checked");
            // Only if this was the tuple's newest witness (a newer one keeps it alive).
            if st.ripe.get(&tuple) == Some(&tj) {
                st.ripe.remove(&tuple);
                Rc::make_mut(&mut st.out).remove(&tuple);
                note_remove(&mut st.views, &tuple);
                // `by_key` may keep a stale entry; removing a tuple twice is harmless.
            }
        }
    }
}

/// Drops these witnesses (a tuple listed twice is dropped once).
pub(crate) fn since_remove(st: &mut SinceState, failed: &[Tuple]) {
    if failed.is_empty() {
        return;
    }
    if st.versioned {
        for tuple in failed {
            if let Some((k, e)) = st.ripe.remove_entry(tuple) {
                retire(st, k, e);
            }
        }
        return;
    }
    let out = Rc::make_mut(&mut st.out);
    for tuple in failed {
        if st.ripe.remove(tuple).is_some() {
            out.remove(tuple);
            note_remove(&mut st.views, tuple);
        }
    }
}

/// Keeps only the witnesses whose tuple satisfies `keep` (a left operand tested tuple by tuple).
pub(crate) fn since_retain(st: &mut SinceState, keep: &mut dyn FnMut(&Tuple) -> bool) {
    if st.versioned {
        versioned_retain(st, &mut |tuple, _| keep(tuple), &mut Vec::new());
        st.by_key.clear();
        return;
    }
    let out = Rc::make_mut(&mut st.out);
    st.ripe.retain(|tuple, _| keep(tuple));
    let views = &mut st.views;
    out.retain(|tuple| {
        let kept = st.ripe.contains_key(tuple);
        if !kept {
            note_remove(views, tuple);
        }
        kept
    });
    st.young.retain(|(_, tuple)| keep(tuple));
    st.by_key.clear();
}

/// The stored tuples that `g` rejects at position `at`, among those its trigger's leaves name
/// (every other stored tuple satisfies it; the young ones are not indexed, and are tested by
/// the caller).
pub(crate) fn guard_failures(
    st: &SinceState,
    g: &Guard,
    trigger: &GuardTrigger,
    leaves: &Leaves,
    at: u64,
    buf: &mut Vec<Value>,
) -> Vec<Tuple> {
    if trigger.leaves.is_empty() {
        return Vec::new();
    }
    let (_, index) = st.views.guard.as_ref().expect("a trigger has its index");
    let mut failed = Vec::new();
    for &leaf in &trigger.leaves {
        for u in leaves.streams[leaf].get(at).expect("available").iter() {
            for tuple in index.get(&u[..]).into_iter().flat_map(|m| m.keys()) {
                if !eval_guard(g, tuple, leaves, at, buf) {
                    failed.push(tuple.clone());
                }
            }
        }
    }
    failed
}

/// A `SINCE` node's parameters for one absorbed position.
struct Step<'p> {
    i: usize,
    w: &'p Window,
    l: usize,
    r: usize,
    negated: bool,
    l_key: &'p [usize],
    guard: Option<&'p Guard>,
    trigger: Option<&'p GuardTrigger>,
    true_left: Option<&'p Rc<Rel>>,
    /// Whether `l_key` is every column of the right operand, in order.
    identity: bool,
    /// The nodes it reads (right operand, then left operand or guard leaves).
    inputs: &'p [usize],
}

impl Step<'_> {
    /// Absorbs the operands at `st.absorbed` into the state (in place when no snapshot of the
    /// state is still held); false when an operand has not arrived or the step must wait.
    fn absorb(
        &self,
        st: &mut SinceState,
        children: &[Stream],
        below: &[OpState],
        tl: &Timeline,
        copies: &mut CopyPolicy,
        buf: &mut Vec<Value>,
    ) -> bool {
        let (w, negated, l_key) = (self.w, self.negated, self.l_key);
        let at = st.absorbed;
        if !self.inputs.iter().all(|&n| children[n].get(at).is_some()) {
            return false;
        }
        let t = tl.ts(at);
        let leaves = Leaves {
            streams: children,
            ops: below,
        };
        let b = children[self.r].get(at).expect("checked");
        let a = match (self.guard, self.true_left) {
            (Some(_), _) => None,
            (None, Some(a)) => Some(a),
            (None, None) => Some(children[self.l].get(at).expect("checked")),
        };
        // The tuples a guard with a trigger rejects now (the others hold).
        let failed = match (self.guard, self.trigger) {
            (Some(g), Some(trigger)) => guard_failures(st, g, trigger, &leaves, at, buf),
            _ => Vec::new(),
        };
        // Only a step that changes the output must wait for its last snapshot to be released
        // (most do not: with a batch of positions, the others go on).
        let changes = || match a {
            None if self.trigger.is_some() => {
                !failed.is_empty() || since_add_changes_output(st, w, b, t)
            }
            None => true,
            Some(a) => {
                since_step_changes_output(a, negated, l_key)
                    || since_add_changes_output(st, w, b, t)
            }
        };
        if copies.must_wait(self.i, &st.out, changes) {
            return false;
        }
        match (self.guard, a) {
            (Some(g), _) if self.trigger.is_some() => {
                since_remove(st, &failed);
                st.young
                    .retain(|(_, tuple)| eval_guard(g, tuple, &leaves, at, buf));
                since_add(st, w, b, t, false, &[], true);
            }
            (Some(g), _) => {
                since_retain(st, &mut |tuple| eval_guard(g, tuple, &leaves, at, buf));
                since_add(st, w, b, t, false, &[], true);
            }
            (None, a) => {
                let a = a.expect("no guard: a left operand");
                since_step(st, a, negated, l_key, self.identity, buf);
                since_add(st, w, b, t, negated, l_key, self.identity);
            }
        }
        st.absorbed += 1;
        true
    }
}

/// Absorbs every position whose operands have arrived (unless a consumer still holds a
/// snapshot that the step would change: see [`CopyPolicy::must_wait`]).
pub(crate) fn update(cx: &mut Ctx, kind: &NodeKind, op: &mut Since) {
    let NodeKind::Since {
        w,
        l,
        r,
        negated,
        l_key,
        guard,
        lag,
    } = kind
    else {
        unreachable!("a SINCE")
    };
    let Since {
        state: st,
        true_left,
        trigger,
        probed,
    } = op;
    if st.inputs.is_empty() {
        st.inputs.push(*r);
        match guard {
            Some(g) => g.leaves(&mut st.inputs),
            None if true_left.is_some() => {}
            None => st.inputs.push(*l),
        }
    }
    let inputs = std::mem::take(&mut st.inputs);
    let width = cx.nodes[cx.i].vars.len();
    let step = Step {
        i: cx.i,
        w,
        l: *l,
        r: *r,
        negated: *negated,
        l_key,
        guard: guard.as_ref(),
        trigger: trigger.as_ref(),
        true_left: true_left.as_ref(),
        identity: l_key.len() == width && l_key.iter().enumerate().all(|(k, &c)| k == c),
        inputs: &inputs,
    };
    let (pos, tl, i) = (cx.pos, cx.tl, cx.i);
    let (children, out, below) = (&mut *cx.children, &mut *cx.out, &*cx.below);
    let (copies, buf) = (&mut *cx.copies, &mut *cx.buf);
    // A probed state hands out no snapshot: its consumers test it in place, and the stream
    // only says which positions are absorbed. Its readers have released the positions below
    // the stream's head, so removals at or before the head (less a fused PREVIOUS's lag) are
    // seen by none.
    let versioned = st.versioned;
    if versioned && !st.tombs.is_empty() {
        let lag = probed.expect("a versioned state is probed");
        purge(st, out.head.saturating_sub(lag));
    }
    let shown = |st: &SinceState| {
        if versioned {
            PRESENT.with(Rc::clone)
        } else {
            Rc::clone(&st.out)
        }
    };
    let mut absorb = |st: &mut SinceState| step.absorb(st, children, below, tl, copies, buf);
    match lag {
        None => {
            while absorb(st) {
                out.vals.push_back(shown(st));
            }
        }
        // PREVIOUS fused in: position p shows the state after p-1, and p-1 is absorbed only
        // now, after the parent has released p-1's snapshot.
        Some(pw) => loop {
            let p = out.end();
            if p > pos {
                break;
            }
            if st.absorbed < p && !absorb(st) {
                break;
            }
            let v = if p > 0 && pw.contains(tl.ts(p) - tl.ts(p - 1)) {
                shown(st)
            } else {
                EMPTY.with(Rc::clone)
            };
            out.vals.push_back(v);
        },
    }
    let e = st.absorbed;
    for &n in &inputs {
        children[n].release(i, e);
    }
    // A `TRUE` left operand, or the one a guard replaces, is not read; but another node may
    // read the same (shared) constant, which waits for every reader.
    if !inputs.contains(l) {
        children[*l].release(i, e);
    }
    st.inputs = inputs;
}

/// For each node, whether it is a `SINCE` or `UNTIL` whose left operand is the constant
/// `TRUE` (`ONCE`, `EVENTUALLY`; not negated, no guard): it reads that operand from the
/// constant, not from a stream.
pub(crate) fn true_lefts(plan: &crate::compile::Plan) -> Vec<bool> {
    plan.nodes
        .iter()
        .map(|n| match &n.kind {
            NodeKind::Since {
                l,
                negated: false,
                guard: None,
                ..
            }
            | NodeKind::Until {
                l,
                negated: false,
                guard: None,
                ..
            } => matches!(&plan.nodes[*l].kind, NodeKind::Const(rel) if !rel.is_empty()),
            _ => false,
        })
        .collect()
}
