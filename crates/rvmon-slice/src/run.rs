//! A sliced run of the first-order engine in one thread: every time point is routed to the
//! slices, each slice runs its own engine, and the answers are merged back in time-point
//! order, each slice reporting only the valuations its restriction permits (Thm. 4). This is
//! the semantics the parallel back end distributes; tests compare it with the unsliced run.

use std::collections::VecDeque;

use rvmon_core::{Error, Interner, TimePoint};
use rvmon_fo::rel::Rel;
use rvmon_fo::{Answer, FoEngine, Plan};

use crate::data::{DataSlicer, Target};

/// One slice's engine: it answers the time points it is fed, in order, and only with the
/// valuations its restriction permits. Skipped (empty) time points get no answer.
pub struct SliceEngine {
    k: usize,
    engine: FoEngine,
    /// Time points fed and not yet answered.
    waiting: VecDeque<u64>,
    answers: Vec<Answer>,
}

impl SliceEngine {
    pub fn new(plan: &Plan, k: usize) -> SliceEngine {
        SliceEngine {
            k,
            engine: FoEngine::new(plan.clone()),
            waiting: VecDeque::new(),
            answers: Vec::new(),
        }
    }

    /// Feeds time point `tp` (already reduced to the slice's events); appends the answers
    /// decided, restricted to the slice's valuations.
    pub fn step(
        &mut self,
        tp: &TimePoint,
        slicer: &DataSlicer,
        interner: &mut Interner,
        out: &mut Vec<Answer>,
    ) -> Result<(), Error> {
        self.step_batch(std::slice::from_ref(tp), slicer, interner, out)
    }

    /// Feeds several time points at once ([`FoEngine::step_batch`]).
    pub fn step_batch(
        &mut self,
        tps: &[TimePoint],
        slicer: &DataSlicer,
        interner: &mut Interner,
        out: &mut Vec<Answer>,
    ) -> Result<(), Error> {
        self.waiting.extend(tps.iter().map(|tp| tp.index));
        self.engine.step_batch(tps, interner, &mut self.answers)?;
        self.restrict(slicer, interner, out);
        Ok(())
    }

    /// Ends the trace.
    pub fn close(
        &mut self,
        slicer: &DataSlicer,
        interner: &mut Interner,
        out: &mut Vec<Answer>,
    ) -> Result<(), Error> {
        if self.engine.plan().has_future() {
            self.engine.close(interner, &mut self.answers)?;
        }
        self.restrict(slicer, interner, out);
        // Whatever the engine did not answer (past the end) has no answer.
        self.waiting.clear();
        Ok(())
    }

    /// Calls `mark` with every interned string the engine holds (see
    /// [`FoEngine::mark_strings`]); returns the size of the walk. Between two steps the
    /// answers are already handed out.
    pub fn mark_strings(&self, mark: &mut dyn FnMut(rvmon_core::Sym)) -> usize {
        self.engine.mark_strings(mark)
    }

    /// The earliest time point fed and not yet answered: every earlier one this slice was
    /// fed is answered.
    pub fn first_undecided(&self) -> Option<u64> {
        self.waiting.front().copied()
    }

    fn restrict(&mut self, slicer: &DataSlicer, interner: &Interner, out: &mut Vec<Answer>) {
        for mut a in self.answers.drain(..) {
            while self.waiting.front().is_some_and(|&t| t <= a.tp) {
                self.waiting.pop_front();
            }
            a.rel.retain(|t| slicer.permits(self.k, t, interner));
            out.push(a);
        }
    }
}

/// Events and time points each slice received (the largest slice bounds a parallel run).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SliceSizes {
    pub events: Vec<u64>,
    pub time_points: Vec<u64>,
}

pub struct SlicedMonitor {
    slicer: DataSlicer,
    slices: Vec<SliceEngine>,
    /// The time point being built for each slice.
    building: Vec<TimePoint>,
    drop_empty: bool,
    /// Answers not yet complete (some slice has not decided their time point), in order.
    pending: VecDeque<Answer>,
    answers: Vec<Answer>,
    sizes: SliceSizes,
}

impl SlicedMonitor {
    /// `drop_empty`: a slice skips its time points without events (only sound when
    /// [`crate::empty_points_removable`] says so).
    pub fn new(plan: &Plan, slicer: DataSlicer, drop_empty: bool) -> SlicedMonitor {
        let n = slicer.slices();
        SlicedMonitor {
            slices: (0..n).map(|k| SliceEngine::new(plan, k)).collect(),
            building: vec![TimePoint::default(); n],
            slicer,
            drop_empty,
            pending: VecDeque::new(),
            answers: Vec::new(),
            sizes: SliceSizes {
                events: vec![0; n],
                time_points: vec![0; n],
            },
        }
    }

    pub fn sizes(&self) -> SliceSizes {
        self.sizes.clone()
    }

    /// Feeds one time point; appends the answers decided in every slice, merged, in order.
    pub fn step(
        &mut self,
        tp: &TimePoint,
        interner: &mut Interner,
        out: &mut Vec<Answer>,
    ) -> Result<(), Error> {
        split(tp, &self.slicer, interner, &mut self.building);
        self.pending.push_back(Answer {
            tp: tp.index,
            ts: tp.ts,
            rel: Rel::default(),
        });
        for k in 0..self.slices.len() {
            let tp_k = &self.building[k];
            if self.drop_empty && tp_k.events.is_empty() {
                continue;
            }
            self.sizes.events[k] += tp_k.events.len() as u64;
            self.sizes.time_points[k] += 1;
            self.slices[k].step(tp_k, &self.slicer, interner, &mut self.answers)?;
            self.merge();
        }
        self.release(out);
        Ok(())
    }

    /// Ends the trace.
    pub fn close(&mut self, interner: &mut Interner, out: &mut Vec<Answer>) -> Result<(), Error> {
        for k in 0..self.slices.len() {
            self.slices[k].close(&self.slicer, interner, &mut self.answers)?;
            self.merge();
        }
        self.release(out);
        Ok(())
    }

    /// Moves the slices' answers into the pending merged answers.
    fn merge(&mut self) {
        for a in self.answers.drain(..) {
            let at = self.pending.partition_point(|p| p.tp < a.tp);
            if let Some(merged) = self.pending.get_mut(at).filter(|p| p.tp == a.tp) {
                merged.rel.extend(a.rel);
            }
        }
    }

    /// Hands over the merged answers of the time points every slice has decided.
    fn release(&mut self, out: &mut Vec<Answer>) {
        let decided_before = self
            .slices
            .iter()
            .filter_map(SliceEngine::first_undecided)
            .min()
            .unwrap_or(u64::MAX);
        while self.pending.front().is_some_and(|a| a.tp < decided_before) {
            let a = self.pending.pop_front().expect("checked");
            if !a.rel.is_empty() {
                out.push(a);
            }
        }
    }
}

/// Time point `tp` reduced to the events routed to slice `k`: one slice of [`split`], for a
/// monitor that runs that slice alone (a period's data slice, when slicers compose).
pub fn split_one(
    tp: &TimePoint,
    slicer: &DataSlicer,
    interner: &Interner,
    k: usize,
    into: &mut TimePoint,
) {
    into.clear();
    into.index = tp.index;
    into.ts = tp.ts;
    for e in &tp.events {
        let args = tp.args_of(e);
        if slicer.route(e.name, args, interner).includes(k) {
            into.push_event(e.name, args);
        }
    }
}

/// Splits time point `tp` into one per slice (`into[k]`), each with the events routed to
/// slice `k`.
pub fn split(tp: &TimePoint, slicer: &DataSlicer, interner: &Interner, into: &mut [TimePoint]) {
    for s in into.iter_mut() {
        s.clear();
        s.index = tp.index;
        s.ts = tp.ts;
    }
    for e in &tp.events {
        let args = tp.args_of(e);
        match slicer.route(e.name, args, interner) {
            Target::Nowhere => {}
            Target::Every => into.iter_mut().for_each(|s| s.push_event(e.name, args)),
            Target::One(k) => into[k].push_event(e.name, args),
            Target::Slices(ks) => ks
                .into_iter()
                .for_each(|k| into[k].push_event(e.name, args)),
        }
    }
}
