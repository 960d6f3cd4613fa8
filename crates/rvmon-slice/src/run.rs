//! A sliced run of the first-order engine in one thread: every time point is routed to the
//! slices, each slice runs its own engine, and the answers are merged back in time-point
//! order, each slice reporting only the valuations its restriction permits (Thm. 4). This is
//! the semantics the parallel back end distributes; tests compare it with the unsliced run.

use std::collections::VecDeque;

use rvmon_core::{Error, Interner, TimePoint};
use rvmon_fo::rel::Rel;
use rvmon_fo::{Answer, FoEngine, Plan};

use crate::data::{DataSlicer, Target};

/// One slice: its engine, the time points fed to it and not yet answered, and the time point
/// being built for it.
struct Slice {
    engine: FoEngine,
    waiting: VecDeque<u64>,
    tp: TimePoint,
    events: u64,
}

/// Events and time points each slice received (the largest slice bounds a parallel run).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SliceSizes {
    pub events: Vec<u64>,
    pub time_points: Vec<u64>,
}

pub struct SlicedMonitor {
    slicer: DataSlicer,
    slices: Vec<Slice>,
    drop_empty: bool,
    /// Answers not yet complete (some slice has not decided their time point), in order.
    pending: VecDeque<Answer>,
    answers: Vec<Answer>,
    time_points: Vec<u64>,
}

impl SlicedMonitor {
    /// `drop_empty`: a slice skips its time points without events (only sound when
    /// [`crate::empty_points_removable`] says so).
    pub fn new(plan: &Plan, slicer: DataSlicer, drop_empty: bool) -> SlicedMonitor {
        let slices = (0..slicer.slices())
            .map(|_| Slice {
                engine: FoEngine::new(plan.clone()),
                waiting: VecDeque::new(),
                tp: TimePoint::default(),
                events: 0,
            })
            .collect();
        SlicedMonitor {
            time_points: vec![0; slicer.slices()],
            slicer,
            slices,
            drop_empty,
            pending: VecDeque::new(),
            answers: Vec::new(),
        }
    }

    pub fn sizes(&self) -> SliceSizes {
        SliceSizes {
            events: self.slices.iter().map(|s| s.events).collect(),
            time_points: self.time_points.clone(),
        }
    }

    /// Feeds one time point; appends the answers decided in every slice, merged, in order.
    pub fn step(
        &mut self,
        tp: &TimePoint,
        interner: &mut Interner,
        out: &mut Vec<Answer>,
    ) -> Result<(), Error> {
        for s in &mut self.slices {
            s.tp.clear();
            s.tp.index = tp.index;
            s.tp.ts = tp.ts;
        }
        for e in &tp.events {
            let args = tp.args_of(e);
            match self.slicer.route(e.name, args, interner) {
                Target::Nowhere => {}
                Target::Every => self
                    .slices
                    .iter_mut()
                    .for_each(|s| s.tp.push_event(e.name, args)),
                Target::Slices(ks) => ks
                    .into_iter()
                    .for_each(|k| self.slices[k].tp.push_event(e.name, args)),
            }
        }
        self.pending.push_back(Answer {
            tp: tp.index,
            ts: tp.ts,
            rel: Rel::default(),
        });
        for k in 0..self.slices.len() {
            let s = &mut self.slices[k];
            if self.drop_empty && s.tp.events.is_empty() {
                continue;
            }
            s.events += s.tp.events.len() as u64;
            self.time_points[k] += 1;
            s.waiting.push_back(tp.index);
            let tp_k = std::mem::take(&mut s.tp);
            let result = s.engine.step(&tp_k, interner, &mut self.answers);
            self.slices[k].tp = tp_k;
            result?;
            self.collect(k, interner);
        }
        self.release(out);
        Ok(())
    }

    /// Ends the trace.
    pub fn close(&mut self, interner: &mut Interner, out: &mut Vec<Answer>) -> Result<(), Error> {
        for k in 0..self.slices.len() {
            if self.slices[k].engine.plan().has_future() {
                self.slices[k].engine.close(interner, &mut self.answers)?;
            }
            self.collect(k, interner);
            // Whatever the engine did not answer (past the end) has no answer.
            self.slices[k].waiting.clear();
        }
        self.release(out);
        out.extend(self.pending.drain(..).filter(|a| !a.rel.is_empty()));
        Ok(())
    }

    /// Moves slice `k`'s answers into the pending merged answers, restricted to what the
    /// slice is responsible for.
    fn collect(&mut self, k: usize, interner: &Interner) {
        for a in self.answers.drain(..) {
            let waiting = &mut self.slices[k].waiting;
            while waiting.front().is_some_and(|&t| t <= a.tp) {
                waiting.pop_front();
            }
            let at = self.pending.partition_point(|p| p.tp < a.tp);
            let Some(merged) = self.pending.get_mut(at).filter(|p| p.tp == a.tp) else {
                continue;
            };
            merged.rel.extend(
                a.rel
                    .into_iter()
                    .filter(|t| self.slicer.permits(k, t, interner)),
            );
        }
    }

    /// Hands over the merged answers of the time points every slice has decided.
    fn release(&mut self, out: &mut Vec<Answer>) {
        let decided_before = self
            .slices
            .iter()
            .filter_map(|s| s.waiting.front().copied())
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
