//! The past-only fast path. When a formula has no future operator, every node's value at a time
//! point is decided at that time point, so there is nothing to queue: one pass over the nodes
//! computes all of them into a value array (the Hydra/Aerial approach). The `SINCE` window logic
//! is shared with the eager engine.

use std::collections::VecDeque;

use crate::Step;
use rvmon_core::{Error, TimePoint, Timestamp, Verdict};

use crate::engine::since_holds;
use crate::program::{Op, Program, Window};

pub(crate) const NONE: Timestamp = Timestamp::MIN;

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct PastEngine {
    program: Program,
    vals: Vec<bool>,
    /// The values at the previous time point (read by `PREVIOUS`).
    prev_vals: Vec<bool>,
    prev_ts: Option<Timestamp>,
    /// Candidate timestamps of each `SINCE` node with a positive lower bound.
    since: Vec<VecDeque<Timestamp>>,
    /// Newest candidate timestamp of each `SINCE` node with a zero lower bound (`NONE`: none).
    last: Vec<Timestamp>,
    holds: Vec<bool>,
}

impl PastEngine {
    /// `program` must be past-only ([`Program::is_past_only`]).
    pub fn new(program: Program) -> PastEngine {
        assert!(
            program.is_past_only(),
            "the past engine runs past-only programs"
        );
        let n = program.ops.len();
        PastEngine {
            vals: vec![false; n],
            prev_vals: vec![false; n],
            prev_ts: None,
            since: vec![VecDeque::new(); n],
            last: vec![NONE; n],
            holds: vec![false; program.props.len()],
            program,
        }
    }

    pub fn program(&self) -> &Program {
        &self.program
    }

    pub fn set_holds(&mut self, holds: &[bool]) {
        self.holds.copy_from_slice(holds);
    }

    pub fn load(&mut self, tp: &TimePoint) {
        self.program.load_holds(tp, &mut self.holds);
    }

    /// Evaluates the next time point; its verdict is always decided now.
    #[inline]
    pub fn step_props(&mut self, index: u64, ts: Timestamp, out: &mut Vec<Verdict>) {
        std::mem::swap(&mut self.vals, &mut self.prev_vals);
        let vals = &mut self.vals;
        for (i, op) in self.program.ops.iter().enumerate() {
            vals[i] = match *op {
                Op::Const(b) => b,
                Op::Atom(p) => self.holds[p],
                Op::Not(c) => !vals[c],
                Op::And(l, r) => vals[l] && vals[r],
                Op::Or(l, r) => vals[l] || vals[r],
                Op::Prev(w, c) => {
                    self.prev_ts.is_some_and(|pt| w.contains(ts - pt)) && self.prev_vals[c]
                }
                Op::Since(w, l, r) => since_step(
                    &w,
                    &mut self.last[i],
                    &mut self.since[i],
                    vals[l],
                    vals[r],
                    ts,
                ),
                Op::Next(..) | Op::Until(..) => unreachable!("past-only program"),
            };
        }
        self.prev_ts = Some(ts);
        out.push(Verdict {
            tp: index,
            ts,
            value: vals[vals.len() - 1].into(),
        });
    }

    /// Timestamps held in `SINCE` windows: the engine's memory, in units.
    pub fn held(&self) -> usize {
        self.since.iter().map(VecDeque::len).sum::<usize>()
            + self.last.iter().filter(|&&t| t != NONE).count()
    }
}

/// `SINCE`'s value at timestamp `ts` given its operands' values there, updating its state:
/// `last` (zero lower bound) or `cands` (positive lower bound). Shared by every engine that
/// evaluates past operators at their own time point.
#[inline]
pub(crate) fn since_step(
    w: &Window,
    last: &mut Timestamp,
    cands: &mut VecDeque<Timestamp>,
    l: bool,
    r: bool,
    ts: Timestamp,
) -> bool {
    if w.lo == 0 {
        // With a zero lower bound the newest candidate is always the best one: keep just its
        // timestamp (PERF: no deque on the most common intervals).
        if !l {
            *last = NONE;
        }
        if r {
            *last = ts;
        }
        return *last != NONE && w.hi.is_none_or(|h| ts - *last <= h);
    }
    if !l {
        cands.clear();
    }
    if r && cands.back() != Some(&ts) {
        cands.push_back(ts);
    }
    since_holds(w, cands, ts)
}

impl Step for PastEngine {
    fn step(&mut self, tp: &TimePoint, out: &mut Vec<Verdict>) -> Result<(), Error> {
        self.load(tp);
        self.step_props(tp.index, tp.ts, out);
        Ok(())
    }

    fn finish(&mut self, _out: &mut Vec<Verdict>) {}
}
