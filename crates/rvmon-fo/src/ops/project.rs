//! Projections (`EXISTS ys. φ`): kept in step with a `SINCE` state's changes when it is the
//! state's only projection, forwarded as markers when its readers test the state itself
//! (`through`), projected afresh at each position otherwise.

use std::rc::Rc;

use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

use super::since::SinceState;
use super::{key_in, Ctx, OpState, PRESENT};
use crate::compile::{NodeKind, Plan};
use crate::rel::{project, Rel, Tuple};

/// A projection node: its incremental state, if it keeps one (saved), and the state it is
/// tested through, if any (from the plan, not saved).
#[derive(Default, Debug, Serialize, Deserialize)]
pub(crate) struct Project {
    /// An incrementally maintained projection of a SINCE state (`EXISTS s. held(s,l)`).
    pub(crate) incremental: Option<ProjState>,
    /// For a projection `EXISTS ys. φ` of a probed state (see
    /// [`super::since::Since::probed`]) whose every reader only tests it (an anti-join, a
    /// semi-join, an existential join's test): the state's node. The state is then indexed on
    /// the projection's columns, the projection forwards the state's markers, and its readers
    /// test a tuple by looking for a tuple of the state with those columns that was there at
    /// their position ([`super::tested::Tested::Through`]). (PERF: an incremental projection
    /// kept a projected relation that its reader held as a snapshot, so a changing state
    /// waited for it, a pass per time point: locks-basic's `acq(t,l) IMPLIES NOT EXISTS s.
    /// PREVIOUS (NOT rel(s,l) SINCE acq(s,l))`.)
    #[serde(skip)]
    pub(crate) through: Option<usize>,
}

/// An incrementally maintained projection of a SINCE state (`EXISTS s. held(s,l)`).
#[derive(Default, Debug, Serialize, Deserialize)]
pub(crate) struct ProjState {
    pub(crate) counts: FxHashMap<Tuple, usize>,
    pub(crate) out: Rc<Rel>,
    pub(crate) synced: bool,
}

/// Whether node `reader` only tests the tuples of its operand `p`, so that `p` may be a
/// projection tested through its state (see [`Project::through`]).
pub(crate) fn tests_through(reader: &NodeKind, p: usize) -> bool {
    match reader {
        NodeKind::AntiJoin { l, r, .. } => *r == p && *l != p,
        NodeKind::Join { l, r, r_new, .. } => *r == p && *l != p && r_new.is_empty(),
        NodeKind::ExistsJoin { l, r, s, over, .. } => {
            *s == p && *l != p && *r != p && over.as_ref().is_none_or(|j| j.r != p)
        }
        _ => false,
    }
}
pub(crate) fn update(cx: &mut Ctx, c: usize, keep: &[usize], st: &mut Project) {
    let (children, out, i) = (&mut *cx.children, &mut *cx.out, cx.i);
    if st.through.is_some() {
        // Its readers test the state itself: only its markers pass. The state's removals stay
        // visible until this projection's readers have passed them (see
        // [`super::versioned::purge`]), so it is released only as far as they released this
        // one.
        while let Some(a) = children[c].get(out.end()) {
            out.vals.push_back(Rc::clone(a));
        }
        children[c].release(i, out.head);
        return;
    }
    while let Some(a) = children[c].get(out.end()) {
        // PERF: over a SINCE state that is current, apply its changes to a kept projection
        // instead of projecting the whole state again.
        let incremental = match (&mut st.incremental, since_mut(&mut cx.below[c])) {
            (Some(ps), Some(sst)) if Rc::ptr_eq(a, &sst.out) => {
                // A `PREVIOUS` above holds the last projection until its next position: wait
                // for it rather than copy the projection at every time point (`EXISTS s.
                // PREVIOUS (… SINCE acq(s,l))` of DejaVu's lock properties).
                if cx.copies.must_wait(i, &ps.out, || true) {
                    break;
                }
                Some(ps.apply(a, keep, sst))
            }
            (Some(ps), sst) => {
                // Out of step (the parent lags): recompute from scratch next time.
                ps.synced = false;
                if let Some(log) = sst.and_then(|sst| sst.views.log.as_mut()) {
                    log.clear();
                }
                None
            }
            _ => None,
        };
        match incremental {
            Some(v) => out.vals.push_back(v),
            // PERF: a tuple is allocated only for a new projected tuple (most projections fold
            // many tuples into few), and a projection onto no column is an emptiness test (a
            // closed formula's violations).
            None if keep.is_empty() => {
                out.vals.push_back(if a.is_empty() {
                    Rc::clone(&out.empty)
                } else {
                    PRESENT.with(Rc::clone)
                });
            }
            None => {
                let mut v = Rel::default();
                for t in a.iter() {
                    v.insert_values(key_in(cx.buf, t, keep));
                }
                out.push(v);
            }
        }
    }
    let e = out.end();
    children[c].release(i, e);
}

fn since_mut(op: &mut OpState) -> Option<&mut SinceState> {
    match op {
        OpState::Since(s) => Some(&mut s.state),
        _ => None,
    }
}

impl ProjState {
    /// Brings the projection up to date with state `sst`, whose output is `a`: from the
    /// state's change log, or in full when out of step.
    fn apply(&mut self, a: &Rel, keep: &[usize], sst: &mut SinceState) -> Rc<Rel> {
        let pout = Rc::make_mut(&mut self.out);
        let log = sst.views.log.get_or_insert_with(Vec::new);
        if !self.synced {
            self.counts.clear();
            pout.clear();
            for t in a.iter() {
                *self.counts.entry(project(t, keep)).or_default() += 1;
            }
            pout.extend(self.counts.keys().cloned());
            self.synced = true;
        } else {
            for (ins, t) in log.iter() {
                let key = project(t, keep);
                if *ins {
                    let n = self.counts.entry(key.clone()).or_default();
                    *n += 1;
                    if *n == 1 {
                        pout.insert(key);
                    }
                } else if let Some(n) = self.counts.get_mut(&key) {
                    *n -= 1;
                    if *n == 0 {
                        self.counts.remove(&key);
                        pout.remove(&key);
                    }
                }
            }
        }
        log.clear();
        Rc::clone(&self.out)
    }
}

/// By node, the incremental projections: a projection kept in step with a SINCE state reads
/// (and clears) its change log, so only when it is the state's only projection. (Other
/// readers do not read the log. A state shared up to renaming is often read by a projection
/// and a test, as the lock properties' `EXISTS s. PREVIOUS held(s,l)` and `PREVIOUS
/// held(t,l)`: projecting it in full at every time point made locks-basic ten times slower.)
/// Gives each such state its change log.
pub(crate) fn incremental(
    plan: &Plan,
    readers: &[Vec<usize>],
    since: &mut [SinceState],
) -> Vec<Option<ProjState>> {
    let mut proj: Vec<Option<ProjState>> = plan.nodes.iter().map(|_| None).collect();
    for (i, node) in plan.nodes.iter().enumerate() {
        if let NodeKind::Project { c, .. } = &node.kind {
            let projections = readers[*c]
                .iter()
                .filter(|&&x| matches!(plan.nodes[x].kind, NodeKind::Project { .. }))
                .count();
            if matches!(plan.nodes[*c].kind, NodeKind::Since { .. }) && projections == 1 {
                since[*c].views.log = Some(Vec::new());
                proj[i] = Some(ProjState::default());
            }
        }
    }
    proj
}

/// By node, the projections that may be tested through their state (see
/// [`Project::through`]), before the states' versioning is decided (as such a projection is
/// what tests its state): those whose readers, and the state's other readers, only test.
pub(crate) fn tested_through(
    plan: &Plan,
    readers: &[Vec<usize>],
    since: &[SinceState],
) -> Vec<Option<usize>> {
    plan.nodes
        .iter()
        .enumerate()
        .map(|(i, node)| match &node.kind {
            NodeKind::Project { c, keep }
                if !keep.is_empty()
                    && i != plan.root()
                    // The state's other readers, if any (a state shared up to renaming, as
                    // locks-basic's `EXISTS s. PREVIOUS held(s,l)` and `PREVIOUS held(t,l)`),
                    // test it in place too.
                    && readers[*c]
                        .iter()
                        .all(|&x| x == i || tests_through(&plan.nodes[x].kind, *c))
                    && matches!(plan.nodes[*c].kind, NodeKind::Since { .. })
                    && since[*c].views.join.is_none()
                    && !readers[i].is_empty()
                    && readers[i]
                        .iter()
                        .all(|&x| tests_through(&plan.nodes[x].kind, i)) =>
            {
                Some(*c)
            }
            _ => None,
        })
        .collect()
}

/// Once the states' versioning is decided (`probed`, see [`super::since::Since::probed`]): a
/// projection tested through a versioned state has the state indexed on its columns, and
/// neither keeps an incremental projection nor gives the state a change log (a versioned
/// state keeps no `out` and streams markers: no projection of it may project what it reads,
/// so the only projection that may read it is this one, tested through the index). The
/// others are not tested through their state after all.
pub(crate) fn settle_through(
    plan: &Plan,
    probed: &[Option<u64>],
    through: &mut [Option<usize>],
    since: &mut [SinceState],
    proj: &mut [Option<ProjState>],
) {
    for (i, via) in through.iter_mut().enumerate() {
        let Some(c) = *via else { continue };
        let NodeKind::Project { keep, .. } = &plan.nodes[i].kind else {
            unreachable!("a projection")
        };
        if probed[c].is_some() {
            since[c].views.join = Some((keep.clone(), FxHashMap::default()));
            since[c].views.log = None;
            proj[i] = None;
        } else {
            *via = None;
        }
    }
}
