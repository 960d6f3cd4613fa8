//! The propositional engine: every node of the program turns its children's value streams into
//! its own, in time-point order, deciding each value as soon as the values it has decide it.
//!
//! * Past operators (`PREVIOUS`, `SINCE`, and `ONCE`/`PAST_ALWAYS` through them) decide a time
//!   point as soon as their operands are known there. `SINCE` keeps one timestamp per *distinct
//!   timestamp* at which its right operand held since the left one last failed, and of those
//!   only the ones not yet old enough to satisfy the lower bound plus the newest one that is:
//!   memory is independent of the event rate, and `O(1)` for intervals `[0,b]` and `[a,*)`.
//! * Future operators (`NEXT`, `UNTIL`, and `EVENTUALLY`/`ALWAYS`) are eager: `p UNTIL[a,b] q`
//!   is true at `i` as soon as a witness is seen, and false as soon as `p` fails before any
//!   witness or the window `[ts_i+a, ts_i+b]` has passed. They keep only the positions where
//!   the left operand failed and where the right operand held inside the pending windows.
//! * `AND`/`OR` short-circuit: a false (true) operand decides them without the other.
//!
//! PERF: the node loop is the hot path; every node keeps its output in a `VecDeque<bool>`
//! addressed by absolute position, so a value costs one push and one pop.

use std::collections::VecDeque;

use crate::Step;
use rvmon_core::{Error, TimePoint, Timestamp, Truth, Verdict};

use crate::program::{Op, Program, Window};

/// The output stream of a node: values for consecutive positions starting at `head`.
///
/// A parent may decide a position without this operand (`AND` with a false other side) and
/// discard positions the operand has not produced yet; those values are dropped on arrival.
#[derive(Default, Clone, Debug, serde::Serialize, serde::Deserialize)]
struct Stream {
    head: u64,
    vals: VecDeque<bool>,
    discard_before: u64,
}

impl Stream {
    #[inline]
    fn get(&self, pos: u64) -> Option<bool> {
        if pos < self.head {
            return None;
        }
        self.vals.get((pos - self.head) as usize).copied()
    }

    /// Appends the value of the next position.
    #[inline]
    fn push(&mut self, v: bool) {
        if self.vals.is_empty() && self.head < self.discard_before {
            self.head += 1;
        } else {
            self.vals.push_back(v);
        }
    }

    /// Forgets values before `pos` (they have been consumed, or decided without them).
    #[inline]
    fn drop_before(&mut self, pos: u64) {
        self.discard_before = self.discard_before.max(pos);
        while self.head < pos && !self.vals.is_empty() {
            self.vals.pop_front();
            self.head += 1;
        }
    }

    #[inline]
    fn end(&self) -> u64 {
        self.head + self.vals.len() as u64
    }
}

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
enum State {
    Stateless,
    /// Next position to decide (AND, OR, PREV, NEXT).
    Cursor(u64),
    Since(SinceState),
    Until(UntilState),
}

#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
struct SinceState {
    next: u64,
    /// Timestamps (distinct, ascending) of candidate witnesses for the right operand.
    cands: VecDeque<Timestamp>,
}

#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
struct UntilState {
    /// Oldest undecided position.
    next: u64,
    /// Positions whose operand values have been absorbed.
    absorbed: u64,
    /// Absorbed positions at which the left operand is false.
    left_false: VecDeque<u64>,
    /// Absorbed positions (and their timestamps) at which the right operand is true.
    right_true: VecDeque<(u64, Timestamp)>,
}

/// Positions fed so far: their time-point index and timestamp, for positions still needed.
#[derive(Default, Clone, Debug, serde::Serialize, serde::Deserialize)]
struct Timeline {
    head: u64,
    points: VecDeque<(u64, Timestamp)>,
}

impl Timeline {
    #[inline]
    fn ts(&self, pos: u64) -> Timestamp {
        self.points[(pos - self.head) as usize].1
    }

    #[inline]
    fn end(&self) -> u64 {
        self.head + self.points.len() as u64
    }
}

pub use rvmon_core::CLOSING_TS;

/// The eager propositional monitor for any formula (past, bounded and unbounded future).
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct EagerEngine {
    program: Program,
    streams: Vec<Stream>,
    states: Vec<State>,
    timeline: Timeline,
    /// Scratch: which propositions hold at the current time point.
    holds: Vec<bool>,
    /// Root values emitted so far (positions).
    emitted: u64,
    steps_since_trim: u32,
    finished: bool,
    /// Set when the trace has ended for good: operators stop waiting for later positions.
    at_end: bool,
}

impl EagerEngine {
    pub fn new(program: Program) -> EagerEngine {
        let n = program.ops.len();
        let states = program
            .ops
            .iter()
            .map(|op| match op {
                Op::Const(_) | Op::Atom(_) | Op::Not(_) => State::Stateless,
                Op::And(..) | Op::Or(..) | Op::Prev(..) | Op::Next(..) => State::Cursor(0),
                Op::Since(..) => State::Since(SinceState::default()),
                Op::Until(..) => State::Until(UntilState::default()),
            })
            .collect();
        EagerEngine {
            holds: vec![false; program.props.len()],
            program,
            streams: vec![Stream::default(); n],
            states,
            timeline: Timeline::default(),
            emitted: 0,
            steps_since_trim: 0,
            finished: false,
            at_end: false,
        }
    }

    pub fn program(&self) -> &Program {
        &self.program
    }

    /// Feeds one position: the time point's index, timestamp and which propositions hold.
    /// Decided root values are appended to `out` as (index, timestamp, value).
    pub fn step_props(&mut self, index: u64, ts: Timestamp, out: &mut Vec<Verdict>) {
        let pos = self.timeline.end();
        self.timeline.points.push_back((index, ts));
        for i in 0..self.program.ops.len() {
            self.update(i, pos);
        }
        self.drain_root(out);
        self.steps_since_trim += 1;
        if self.steps_since_trim >= 256 {
            self.trim();
        }
    }

    fn drain_root(&mut self, out: &mut Vec<Verdict>) {
        let root = self.program.root();
        let s = &mut self.streams[root];
        while let Some(v) = s.get(self.emitted) {
            let (index, ts) = self.timeline.points[(self.emitted - self.timeline.head) as usize];
            if ts != CLOSING_TS {
                out.push(Verdict {
                    tp: index,
                    ts,
                    value: v.into(),
                });
            }
            self.emitted += 1;
        }
        s.drop_before(self.emitted);
    }

    /// Drops timeline entries that no node needs any more.
    fn trim(&mut self) {
        self.steps_since_trim = 0;
        let mut min = self.emitted;
        for st in &self.states {
            let need = match st {
                State::Stateless => continue,
                // PREVIOUS at n reads the timestamp of n-1.
                State::Cursor(n) => n.saturating_sub(1),
                State::Since(s) => s.next,
                State::Until(u) => u.next,
            };
            min = min.min(need);
        }
        while self.timeline.head < min && !self.timeline.points.is_empty() {
            self.timeline.points.pop_front();
            self.timeline.head += 1;
        }
    }

    /// Number of timeline entries and buffered values held: the engine's memory, in units.
    pub fn held(&self) -> usize {
        self.timeline.points.len()
            + self.streams.iter().map(|s| s.vals.len()).sum::<usize>()
            + self
                .states
                .iter()
                .map(|s| match s {
                    State::Since(s) => s.cands.len(),
                    State::Until(u) => u.left_false.len() + u.right_true.len(),
                    _ => 0,
                })
                .sum::<usize>()
    }

    fn update(&mut self, i: usize, pos: u64) {
        let (children, rest) = self.streams.split_at_mut(i);
        let out = &mut rest[0];
        let tl = &self.timeline;
        match (&self.program.ops[i], &mut self.states[i]) {
            // Leaves produce each position once (the end-of-trace pass revisits every node).
            (Op::Const(b), _) if out.end() <= pos => out.push(*b),
            (Op::Atom(p), _) if out.end() <= pos => out.push(self.holds[*p]),
            (Op::Const(_) | Op::Atom(_), _) => {}
            (Op::Not(c), _) => {
                let c = &mut children[*c];
                while let Some(v) = c.get(out.end()) {
                    out.push(!v);
                }
                c.drop_before(out.end());
            }
            (Op::And(l, r), State::Cursor(next)) | (Op::Or(l, r), State::Cursor(next)) => {
                let dominant = matches!(self.program.ops[i], Op::Or(..));
                let (l, r) = (*l, *r);
                loop {
                    let a = children[l].get(*next);
                    let b = children[r].get(*next);
                    let v = if a == Some(dominant) || b == Some(dominant) {
                        dominant
                    } else if a.is_some() && b.is_some() {
                        !dominant
                    } else {
                        break;
                    };
                    out.push(v);
                    *next += 1;
                }
                children[l].drop_before(*next);
                children[r].drop_before(*next);
            }
            (Op::Prev(w, c), State::Cursor(next)) => {
                let c = &mut children[*c];
                while *next <= pos {
                    // A distance outside the interval decides without the operand.
                    let v = if *next == 0 || !w.contains(tl.ts(*next) - tl.ts(*next - 1)) {
                        false
                    } else {
                        match c.get(*next - 1) {
                            Some(v) => v,
                            None => break,
                        }
                    };
                    out.push(v);
                    *next += 1;
                }
                c.drop_before(next.saturating_sub(1));
            }
            (Op::Next(w, c), State::Cursor(next)) => {
                let c = &mut children[*c];
                while *next < pos || (self.at_end && *next == pos) {
                    let v = if *next == pos || !w.contains(tl.ts(*next + 1) - tl.ts(*next)) {
                        false
                    } else {
                        match c.get(*next + 1) {
                            Some(v) => v,
                            None => break,
                        }
                    };
                    out.push(v);
                    *next += 1;
                }
                c.drop_before(*next + 1);
            }
            (Op::Since(w, l, r), State::Since(st)) => {
                let (l, r) = (*l, *r);
                while let (Some(a), Some(b)) = (children[l].get(st.next), children[r].get(st.next))
                {
                    let t = tl.ts(st.next);
                    if !a {
                        st.cands.clear();
                    }
                    if b && st.cands.back() != Some(&t) {
                        st.cands.push_back(t);
                    }
                    out.push(since_holds(w, &mut st.cands, t));
                    st.next += 1;
                }
                children[l].drop_before(st.next);
                children[r].drop_before(st.next);
            }
            (Op::Until(w, l, r), State::Until(st)) => {
                let (l, r) = (*l, *r);
                while let (Some(a), Some(b)) =
                    (children[l].get(st.absorbed), children[r].get(st.absorbed))
                {
                    if !a {
                        st.left_false.push_back(st.absorbed);
                    }
                    if b {
                        st.right_true.push_back((st.absorbed, tl.ts(st.absorbed)));
                    }
                    st.absorbed += 1;
                }
                children[l].drop_before(st.absorbed);
                children[r].drop_before(st.absorbed);
                while st.next <= pos {
                    match until_decide(w, st, tl, pos, self.at_end) {
                        Some(v) => {
                            out.push(v);
                            st.next += 1;
                        }
                        None => break,
                    }
                }
            }
            (op, st) => unreachable!("operator {op:?} with state {st:?}"),
        }
    }

    /// Ends the trace. For bounded formulas, a closing time point with a maximal timestamp (as
    /// MonPoly adds) decides every pending verdict; with unbounded future operators the
    /// undecided time points are reported as `Unknown`.
    pub fn finish_trace(&mut self, close: bool, out: &mut Vec<Verdict>) {
        if self.finished {
            return;
        }
        self.finished = true;
        if close {
            let index = self.timeline.points.back().map_or(0, |p| p.0 + 1);
            self.holds.iter_mut().for_each(|h| *h = false);
            self.step_props(index, CLOSING_TS, out);
            // The closing point is the last one: evaluate once more knowing that.
            self.at_end = true;
            if let Some(pos) = self.timeline.end().checked_sub(1) {
                for i in 0..self.program.ops.len() {
                    self.update(i, pos);
                }
            }
            self.drain_root(out);
        }
        for pos in self.emitted..self.timeline.end() {
            let (index, ts) = self.timeline.points[(pos - self.timeline.head) as usize];
            if ts != CLOSING_TS {
                out.push(Verdict {
                    tp: index,
                    ts,
                    value: Truth::Unknown,
                });
            }
        }
        self.emitted = self.timeline.end();
    }

    /// Sets which propositions hold from a time point's events.
    pub fn load(&mut self, tp: &TimePoint) {
        self.program.load_holds(tp, &mut self.holds);
    }

    /// Sets which propositions hold directly (index = proposition of the program).
    pub fn set_holds(&mut self, holds: &[bool]) {
        self.holds.copy_from_slice(holds);
    }
}

/// SINCE's answer at timestamp `t`, after trimming candidates that can no longer matter.
#[inline]
pub(crate) fn since_holds(w: &Window, cands: &mut VecDeque<Timestamp>, t: Timestamp) -> bool {
    if let Some(hi) = w.hi {
        while cands.front().is_some_and(|&c| t - c > hi) {
            cands.pop_front();
        }
    }
    // Of the candidates already old enough, only the newest can matter from now on.
    while cands.len() >= 2 && t - cands[1] >= w.lo {
        cands.pop_front();
    }
    cands.front().is_some_and(|&c| t - c >= w.lo)
}

/// Tries to decide `UNTIL` at its oldest undecided position; `pos` is the newest fed position.
#[inline]
fn until_decide(
    w: &Window,
    st: &mut UntilState,
    tl: &Timeline,
    pos: u64,
    at_end: bool,
) -> Option<bool> {
    let i = st.next;
    let ti = tl.ts(i);
    let lo = ti.saturating_add(w.lo);
    while st.left_false.front().is_some_and(|&k| k < i) {
        st.left_false.pop_front();
    }
    // Witnesses before position i, or earlier than ts_i + lo, are useless for i and for every
    // later position (timestamps do not decrease).
    while st
        .right_true
        .front()
        .is_some_and(|&(j, tj)| j < i || tj < lo)
    {
        st.right_true.pop_front();
    }
    let first_false = st.left_false.front().copied();
    let witness = st.right_true.front().copied();
    if let Some((j, tj)) = witness {
        let in_window = w.hi.is_none_or(|hi| tj - ti <= hi);
        if !in_window {
            return Some(false);
        }
        if first_false.is_none_or(|k| j <= k) {
            return Some(true);
        }
    }
    if first_false.is_some() {
        // The left operand failed at k before any witness; witnesses after k do not count.
        return Some(false);
    }
    // The window is over, with no witness in it, once every position in it has been absorbed
    // and the first position not yet absorbed lies beyond it.
    match w.hi {
        Some(hi) if tl.ts(st.absorbed.min(pos)) - ti > hi => Some(false),
        // The trace has ended and every position has been absorbed: no witness will come.
        _ if at_end && st.absorbed > pos => Some(false),
        _ => None,
    }
}

impl Step for EagerEngine {
    fn step(&mut self, tp: &TimePoint, out: &mut Vec<Verdict>) -> Result<(), Error> {
        self.load(tp);
        self.step_props(tp.index, tp.ts, out);
        Ok(())
    }

    fn finish(&mut self, out: &mut Vec<Verdict>) {
        let close = !self.program.has_unbounded_future();
        self.finish_trace(close, out);
    }
}
