//! Evaluation of a [`Plan`]: every node turns its operands' relation streams into its own, in
//! time-point order. Past operators decide a time point at once; `NEXT` when the next time point
//! arrives; `UNTIL` when its window has passed (MonPoly's timing — the eager per-tuple version
//! of the propositional engine is future work).
//!
//! The engine owns the streams between the nodes and schedules the nodes' updates (see
//! `FoEngine::run_passes`); each operator, its state and its update live in the crate's
//! `ops` module, one file per operator.

use std::rc::Rc;

use rvmon_core::{Error, Interner, TimePoint, Timestamp, Value};
use serde::{Deserialize, Serialize};

use crate::compile::Plan;
use crate::ops::{self, Ctx, OpState};
use crate::rel::Rel;
use crate::stream::{Stream, Timeline};

/// A decided result: the satisfying tuples of the root at a time point.
#[derive(Debug)]
pub struct Answer {
    pub tp: u64,
    pub ts: Timestamp,
    pub rel: Rel,
}

/// Tuples a join produces in one update before it lets its consumer take them (see
/// [`FoEngine::step_batch`]: a batch would otherwise hold a join's output for every position).
const JOIN_BUDGET: usize = 1 << 16;

/// Tuples joined per time point above which batches are given up (the DejaVu data-race
/// lockset joins make 10^5 per time point; paper 04's and fifo's make a few).
const HEAVY_JOINS: usize = 4096;

/// Time points per [`FoEngine::step_batch`] for offline runs: enough to share each operator's
/// per-update overhead (16 or 256 change paper 04's instruction counts by under 2 %), few
/// enough that a batch stays in cache.
pub const OFFLINE_BATCH: usize = 64;

/// Timestamp of MonPoly's closing time point.
pub const CLOSING_TS: Timestamp = rvmon_core::CLOSING_TS;

/// Fields marked `skip` follow from the plan (or are scratch space): a saved state (see
/// [`FoEngine::save`]) holds the others, and [`FoEngine::restore`] takes the skipped ones from a
/// fresh engine for the same plan.
#[derive(Serialize, Deserialize)]
pub struct FoEngine {
    #[serde(skip)]
    plan: Plan,
    streams: Vec<Stream>,
    /// Each node's operator state (see [`crate::ops`]).
    ops: Vec<OpState>,
    timeline: Timeline,
    emitted: u64,
    at_end: bool,
    /// Not saved: a run prints the warnings it produced itself.
    #[serde(skip)]
    warnings: Vec<String>,
    /// Scratch space for projected keys (lookups without allocation).
    #[serde(skip)]
    buf: Vec<Value>,
    #[serde(skip)]
    copies: CopyPolicy,
    /// The nodes each node reads from streams.
    #[serde(skip)]
    reads: Vec<Vec<usize>>,
    /// Passes are numbered; `rerun[i]` is the pass in which node `i` must run even if
    /// nothing it reads changed, `changed[i]` the last pass in which it made progress.
    pass: u64,
    rerun: Vec<u64>,
    changed: Vec<u64>,
    /// Tuples the joins made in the current batch, and whether batches proved heavy (joins
    /// of large states at every position: batches then only hold more memory, so time
    /// points go one by one).
    #[serde(skip)]
    joined: usize,
    #[serde(skip)]
    one_by_one: bool,
    #[serde(skip)]
    heavy_joins: usize,
}

/// When a temporal operator may update its state in place although its last snapshot is
/// still held (which copies the state); see [`FoEngine::run_passes`].
#[derive(Debug, Default)]
pub(crate) struct CopyPolicy {
    /// States of at most this many tuples are copied rather than waited for or reduced.
    pub(crate) small: usize,
    /// Tuples a join makes in one update before it defers the rest to the next pass.
    pub(crate) join_budget: usize,
    /// The lowest node that waited in the current pass instead of copying its state.
    waiting: Option<usize>,
    /// The node allowed one copy of its state, to break a wait that no consumer will end.
    may_copy: Option<usize>,
    /// Every node that waited in the current pass (they run again in the next one).
    waited: Vec<usize>,
}

impl CopyPolicy {
    /// Whether node `i` must wait rather than update `state` in place; `false` also uses up a
    /// granted copy. `changes` says whether the update changes `state`; it is asked only
    /// when a snapshot of a large state is still held (PERF: a precise answer may cost a
    /// lookup per tuple).
    pub(crate) fn must_wait(
        &mut self,
        i: usize,
        state: &Rc<Rel>,
        changes: impl FnOnce() -> bool,
    ) -> bool {
        if Rc::strong_count(state) == 1 || state.len() <= self.small || !changes() {
            return false;
        }
        if self.may_copy == Some(i) {
            self.may_copy = None;
            return false;
        }
        self.defer(i);
        true
    }

    /// Node `i` stops for this pass with work left, and runs again in the next one.
    pub(crate) fn defer(&mut self, i: usize) {
        if self.waiting.is_none_or(|w| i < w) {
            self.waiting = Some(i);
        }
        self.waited.push(i);
    }
}

impl FoEngine {
    pub fn new(plan: Plan) -> FoEngine {
        let n = plan.nodes.len();
        let wiring = ops::wiring::wire(&plan);
        // A stream that several nodes read is released once all have.
        let streams = wiring
            .readers
            .iter()
            .map(|rs| Stream {
                readers: if rs.len() > 1 {
                    rs.iter().map(|&r| (r, 0)).collect()
                } else {
                    Vec::new()
                },
                ..Stream::default()
            })
            .collect();
        FoEngine {
            plan,
            streams,
            ops: wiring.ops,
            timeline: Timeline::default(),
            emitted: 0,
            at_end: false,
            warnings: Vec::new(),
            buf: Vec::new(),
            copies: CopyPolicy {
                small: 32,
                join_budget: JOIN_BUDGET,
                waiting: None,
                may_copy: None,
                waited: Vec::new(),
            },
            reads: wiring.reads,
            pass: 0,
            rerun: vec![0; n],
            changed: vec![0; n],
            joined: 0,
            one_by_one: false,
            heavy_joins: HEAVY_JOINS,
        }
    }

    /// Warnings produced so far (taken): MonPoly's notes on conventions it applied.
    pub fn take_warnings(&mut self) -> Vec<String> {
        std::mem::take(&mut self.warnings)
    }

    /// Sets the size up to which a state is copied rather than waited for or reduced (32 by
    /// default; tests set 0 so that small traces exercise the waiting and reducing paths).
    pub fn set_small_state(&mut self, tuples: usize) {
        self.copies.small = tuples;
    }

    /// Sets how many tuples a join makes in one update before it lets its consumer take them
    /// (2^16 by default; tests set 0 so that small traces exercise the deferral).
    pub fn set_join_budget(&mut self, tuples: usize) {
        self.copies.join_budget = tuples;
    }

    /// Sets the tuples joined per time point above which batches are given up (4096 by
    /// default; tests set 0 so that small traces switch to one time point at a time).
    pub fn set_heavy_joins(&mut self, tuples: usize) {
        self.heavy_joins = tuples;
    }

    /// How many passes over its operators the engine has made (see [`FoEngine::run_passes`]).
    #[doc(hidden)]
    pub fn passes(&self) -> u64 {
        self.pass
    }

    /// How many time points the engine still keeps (their timestamps): what its temporal
    /// operators may still read. Bounded for bounded formulas, whatever the trace's length.
    #[doc(hidden)]
    pub fn held_time_points(&self) -> usize {
        self.timeline.points.len()
    }

    pub fn plan(&self) -> &Plan {
        &self.plan
    }

    /// The engine's state between two time points, as bytes that [`FoEngine::restore`] turns
    /// back into this engine (MonPoly's `>save_state<`).
    pub fn save(&self) -> Vec<u8> {
        rvmon_core::encode_state(self)
    }

    /// Calls `mark` with every interned string the engine holds, so that the caller can free
    /// the others ([`rvmon_core::Interner::collect`]) between two steps. These are the strings
    /// of its saved state: what a saved state leaves out (the plan's constants, scratch space,
    /// the scans of the last batch) is either pinned in the interner or never read again.
    /// Returns the size of the walk.
    pub fn mark_strings(&self, mark: &mut dyn FnMut(rvmon_core::Sym)) -> usize {
        rvmon_core::mark_syms(self, mark)
    }

    /// The engine [`FoEngine::save`] saved, for `plan` (compiled again from the same formula).
    pub fn restore(plan: Plan, saved: &[u8]) -> Result<FoEngine, Error> {
        let saved: FoEngine = rvmon_core::decode_state(saved)
            .ok_or_else(|| Error::msg("the saved monitor state is damaged"))?;
        let fresh = FoEngine::new(plan);
        let other = || Error::msg("the saved monitor state belongs to another formula");
        let n = fresh.streams.len();
        let sizes = [
            saved.streams.len(),
            saved.ops.len(),
            saved.rerun.len(),
            saved.changed.len(),
        ];
        if sizes.iter().any(|&k| k != n) {
            return Err(other());
        }
        // Each operator keeps what it learnt from the plan, and takes its saved state.
        let ops = fresh
            .ops
            .into_iter()
            .zip(saved.ops)
            .map(|(fresh, saved)| fresh.resume(saved))
            .collect::<Option<Vec<OpState>>>()
            .ok_or_else(other)?;
        Ok(FoEngine {
            plan: fresh.plan,
            ops,
            buf: fresh.buf,
            warnings: fresh.warnings,
            copies: fresh.copies,
            reads: fresh.reads,
            joined: fresh.joined,
            one_by_one: fresh.one_by_one,
            heavy_joins: fresh.heavy_joins,
            ..saved
        })
    }

    /// Feeds a time point; appends decided answers in order.
    pub fn step(
        &mut self,
        tp: &TimePoint,
        interner: &mut Interner,
        out: &mut Vec<Answer>,
    ) -> Result<(), Error> {
        self.step_batch(std::slice::from_ref(tp), interner, out)
    }

    /// Feeds several time points at once; appends decided answers in order. The answers are
    /// those of feeding them one by one (unless evaluation fails: then, unlike `step`, answers
    /// of earlier time points of the batch may be lost with the error; see
    /// [`Plan::may_fail`]).
    ///
    /// PERF: every operator then updates once per batch rather than once per time point, and
    /// its per-update overhead (about half of an idle operator's cost) is shared by the batch.
    pub fn step_batch(
        &mut self,
        tps: &[TimePoint],
        interner: &mut Interner,
        out: &mut Vec<Answer>,
    ) -> Result<(), Error> {
        if self.one_by_one {
            for tp in tps {
                self.feed(std::slice::from_ref(tp), interner, out)?;
            }
            return Ok(());
        }
        self.joined = 0;
        self.feed(tps, interner, out)?;
        self.one_by_one = self.joined > self.heavy_joins * tps.len();
        Ok(())
    }

    fn feed(
        &mut self,
        tps: &[TimePoint],
        interner: &mut Interner,
        out: &mut Vec<Answer>,
    ) -> Result<(), Error> {
        let Some(last) = tps.len().checked_sub(1) else {
            return Ok(());
        };
        let pos = self.timeline.end() + last as u64;
        for tp in tps {
            self.timeline.points.push_back((tp.index, tp.ts));
        }
        self.ops.iter_mut().for_each(OpState::start_batch);
        self.run_passes(pos, tps, interner)?;
        self.drain(out);
        self.trim();
        Ok(())
    }

    /// Ends the trace with MonPoly's closing time point (maximal timestamp, no events).
    pub fn close(&mut self, interner: &mut Interner, out: &mut Vec<Answer>) -> Result<(), Error> {
        let index = self.timeline.points.back().map_or(0, |p| p.0 + 1);
        let closing = TimePoint {
            index,
            ts: CLOSING_TS,
            ..Default::default()
        };
        self.step(&closing, interner, out)?;
        self.at_end = true;
        let pos = self.timeline.end() - 1;
        self.run_passes(pos, &[], interner)?;
        self.drain(out);
        Ok(())
    }

    /// Updates every node, children first. A temporal operator hands out its state as a shared
    /// snapshot and then updates it in place, which copies the state if the snapshot is still
    /// held. When one step decides many positions at once (the end of the trace, a gap in the
    /// timestamps, a window that waited a day), that would be one copy per position. So such an
    /// operator emits one position and waits for its consumer to take it in the next pass. When
    /// a pass makes no progress (the consumer itself waits, for another operand or for a window
    /// that needs more of this operator), the lowest waiting operator copies once and the passes
    /// go on.
    ///
    /// PERF: after the first pass, a node runs again only if it waited or something it reads
    /// made progress in this pass; any other node would find nothing new to do. Nothing below
    /// the lowest waiting node runs again at all.
    fn run_passes(
        &mut self,
        pos: u64,
        batch: &[TimePoint],
        interner: &mut Interner,
    ) -> Result<(), Error> {
        let progress = |e: &FoEngine, i: usize| e.streams[i].end() + e.ops[i].absorbed();
        let mut start = None;
        loop {
            self.pass += 1;
            let pass = self.pass;
            self.copies.waiting = None;
            let mut any = false;
            for i in start.unwrap_or(0)..self.plan.nodes.len() {
                let stale = start.is_none()
                    || self.rerun[i] == pass
                    || self.reads[i].iter().any(|&c| self.changed[c] == pass);
                if !stale {
                    continue;
                }
                let before = progress(self, i);
                self.update(i, pos, batch, interner)?;
                if progress(self, i) != before {
                    self.changed[i] = pass;
                    any = true;
                }
            }
            for i in self.copies.waited.drain(..) {
                self.rerun[i] = pass + 1;
            }
            match self.copies.waiting {
                None => return Ok(()),
                Some(w) if !any => self.copies.may_copy = Some(w),
                Some(_) => {}
            }
            start = self.copies.waiting;
        }
    }

    fn drain(&mut self, out: &mut Vec<Answer>) {
        let root = self.plan.root();
        while let Some(rel) = self.streams[root].get(self.emitted) {
            let (tp, ts) = self.timeline.points[(self.emitted - self.timeline.head) as usize];
            if ts != CLOSING_TS {
                out.push(Answer {
                    tp,
                    ts,
                    rel: if rel.is_empty() {
                        Rel::default()
                    } else {
                        (**rel).clone()
                    },
                });
            }
            self.emitted += 1;
        }
        self.streams[root].drop_before(self.emitted);
    }

    fn trim(&mut self) {
        let mut min = self.emitted;
        for op in &self.ops {
            if let Some(need) = op.needs_timeline_from() {
                min = min.min(need);
            }
        }
        while self.timeline.head < min && !self.timeline.points.is_empty() {
            self.timeline.points.pop_front();
            self.timeline.head += 1;
        }
    }

    /// Updates node `i` with every position up to `pos` it can decide; `batch` holds the time
    /// points of the last positions (up to `pos`) that the scans have not read yet.
    fn update(
        &mut self,
        i: usize,
        pos: u64,
        batch: &[TimePoint],
        interner: &mut Interner,
    ) -> Result<(), Error> {
        let (children, rest) = self.streams.split_at_mut(i);
        let (below, here) = self.ops.split_at_mut(i);
        let mut cx = Ctx {
            i,
            pos,
            batch,
            at_end: self.at_end,
            nodes: &self.plan.nodes,
            arithmetic: self.plan.arithmetic,
            tl: &self.timeline,
            reads: &self.reads[i],
            children,
            out: &mut rest[0],
            below,
            buf: &mut self.buf,
            copies: &mut self.copies,
            joined: &mut self.joined,
            warnings: &mut self.warnings,
            interner,
        };
        ops::update(&self.plan.nodes[i].kind, &mut here[0], &mut cx)
    }
}
