//! When would MonPoly print each verdict?
//!
//! MonPoly evaluates a bounded future operator at time point `i` only once a time point beyond
//! its window exists *and* its operands have been evaluated at every time point of the window —
//! it never decides early (helper study of `algorithm.ml`, confirmed on MonPoly's test suite).
//! The eager [`crate::Engine`] knows most verdicts sooner. For byte-identical `-verbose` output,
//! and for the verdicts MonPoly never prints at all with `-nonewlastts`, this tracker computes,
//! for every position, the position at which MonPoly produces its verdict ("ready").
//!
//! The rules, per operator (`r_x(i)` = ready position of operand x at i):
//! atoms: `i`; boolean operators: the maximum over operands; `PREVIOUS`: `0` at 0, else
//! `max(i, r(i-1))`; `NEXT`: `max(i+1, r(i+1))`; `SINCE`: `max(i, r_l(i), r_r(i))`;
//! `UNTIL[a,b]`: `max(q, r_l(q-1), r_r(q-1))` where `q` is the first position with
//! `ts_q - ts_i > b`. Every ready sequence is non-decreasing, which makes the window maximum
//! the value at its last position.

use std::collections::VecDeque;

use rvmon_core::Timestamp;

use crate::program::{Op, Program};

#[derive(Default, Clone, Debug, serde::Serialize, serde::Deserialize)]
struct ReadyStream {
    head: u64,
    vals: VecDeque<u64>,
}

impl ReadyStream {
    fn get(&self, pos: u64) -> Option<u64> {
        if pos < self.head {
            return None;
        }
        self.vals.get((pos - self.head) as usize).copied()
    }

    fn drop_before(&mut self, pos: u64) {
        while self.head < pos && !self.vals.is_empty() {
            self.vals.pop_front();
            self.head += 1;
        }
    }

    fn end(&self) -> u64 {
        self.head + self.vals.len() as u64
    }
}

/// Tracks MonPoly's evaluation timing for a program.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct MonpolyTiming {
    ops: Vec<Op>,
    streams: Vec<ReadyStream>,
    /// Per UNTIL node: the first position not known to be inside the oldest pending window.
    scan: Vec<u64>,
    /// Timestamps from position `times_head` on (UNTIL nodes read them).
    times: VecDeque<Timestamp>,
    times_head: u64,
    /// Operators no other operator reads, the root excepted (a first-order plan's shape can
    /// leave some: the operand an exists-join probes, a guard's leaves). Their streams are
    /// emptied after each step instead of growing for the whole run.
    unread: Vec<usize>,
    /// Whether every position is ready at itself: a shape without `NEXT` or `UNTIL` (every
    /// rule above then gives `i`). PERF: such a tracker only counts positions; computing the
    /// streams was half of `rvmon monpoly`'s time on past-only formulas. Not saved: it follows
    /// from the shape (computed again after a restore).
    #[serde(skip)]
    immediate: Option<bool>,
}

impl MonpolyTiming {
    pub fn new(program: &Program) -> MonpolyTiming {
        Self::from_ops(program.ops.clone())
    }

    /// A tracker for any plan with this operator shape (the first-order engine describes its
    /// plans this way: data operators map to the propositional operator with the same timing).
    pub fn from_ops(ops: Vec<Op>) -> MonpolyTiming {
        let n = ops.len();
        let mut read = vec![false; n];
        for op in &ops {
            match *op {
                Op::Const(_) | Op::Atom(_) => {}
                Op::Not(c) | Op::Prev(_, c) | Op::Next(_, c) => read[c] = true,
                Op::And(a, b) | Op::Or(a, b) | Op::Since(_, a, b) | Op::Until(_, a, b) => {
                    read[a] = true;
                    read[b] = true;
                }
            }
        }
        let unread = (0..n.saturating_sub(1)).filter(|&i| !read[i]).collect();
        MonpolyTiming {
            unread,
            ops,
            streams: vec![ReadyStream::default(); n],
            scan: vec![0; n],
            times: VecDeque::new(),
            times_head: 0,
            immediate: None,
        }
    }

    /// See the field `immediate`.
    fn is_immediate(&mut self) -> bool {
        let ops = &self.ops;
        *self.immediate.get_or_insert_with(|| {
            !ops.iter()
                .any(|op| matches!(op, Op::Next(..) | Op::Until(..)))
        })
    }

    /// Feeds the next position's timestamp.
    pub fn step(&mut self, ts: Timestamp) {
        if self.is_immediate() {
            // `times_head` counts the positions (no timestamp is read).
            self.times_head += 1;
            return;
        }
        self.times.push_back(ts);
        let pos = self.times_head + self.times.len() as u64 - 1;
        for i in 0..self.ops.len() {
            self.update(i, pos);
        }
        for &i in &self.unread {
            let end = self.streams[i].end();
            self.streams[i].drop_before(end);
        }
        // Only UNTIL nodes read timestamps, from their oldest pending position on.
        let needed = (0..self.ops.len())
            .filter(|&i| matches!(self.ops[i], Op::Until(..)))
            .map(|i| self.streams[i].end())
            .min()
            .unwrap_or(pos + 1);
        while self.times_head < needed && !self.times.is_empty() {
            self.times.pop_front();
            self.times_head += 1;
        }
    }

    /// The ready position of `pos` at the root, if already known.
    pub fn ready(&self, pos: u64) -> Option<u64> {
        if self.immediate == Some(true) {
            return (pos < self.times_head).then_some(pos);
        }
        self.streams[self.ops.len() - 1].get(pos)
    }

    /// Forgets root entries before `pos`.
    pub fn consumed(&mut self, pos: u64) {
        if self.immediate == Some(true) {
            return;
        }
        let root = self.ops.len() - 1;
        self.streams[root].drop_before(pos);
    }

    fn update(&mut self, i: usize, pos: u64) {
        let (children, rest) = self.streams.split_at_mut(i);
        let out = &mut rest[0];
        let times = &self.times;
        match &self.ops[i] {
            Op::Const(_) | Op::Atom(_) => out.vals.push_back(pos),
            Op::Not(c) => {
                while let Some(r) = children[*c].get(out.end()) {
                    out.vals.push_back(r);
                }
                children[*c].drop_before(out.end());
            }
            Op::And(l, r) | Op::Or(l, r) => {
                while let (Some(a), Some(b)) =
                    (children[*l].get(out.end()), children[*r].get(out.end()))
                {
                    out.vals.push_back(a.max(b));
                }
                children[*l].drop_before(out.end());
                children[*r].drop_before(out.end());
            }
            Op::Prev(_, c) => {
                while out.end() <= pos {
                    let n = out.end();
                    if n == 0 {
                        out.vals.push_back(0);
                    } else {
                        match children[*c].get(n - 1) {
                            Some(r) => out.vals.push_back(r.max(n)),
                            None => break,
                        }
                    }
                }
                children[*c].drop_before(out.end().saturating_sub(1));
            }
            Op::Next(_, c) => {
                while out.end() < pos {
                    match children[*c].get(out.end() + 1) {
                        Some(r) => out.vals.push_back(r.max(out.end() + 1)),
                        None => break,
                    }
                }
                children[*c].drop_before(out.end() + 1);
            }
            Op::Since(_, l, r) => {
                while let (Some(a), Some(b)) =
                    (children[*l].get(out.end()), children[*r].get(out.end()))
                {
                    let prev = out.vals.back().copied().unwrap_or(0);
                    out.vals.push_back(a.max(b).max(out.end()).max(prev));
                }
                children[*l].drop_before(out.end());
                children[*r].drop_before(out.end());
            }
            Op::Until(w, l, r) => {
                let Some(hi) = w.hi else { return };
                let ts = |p: u64| times[(p - self.times_head) as usize];
                while out.end() <= pos {
                    let n = out.end();
                    let limit = ts(n).saturating_add(hi);
                    let mut q = self.scan[i].max(n);
                    while q <= pos && ts(q) <= limit {
                        q += 1;
                    }
                    self.scan[i] = q;
                    if q > pos {
                        break;
                    }
                    match (children[*l].get(q - 1), children[*r].get(q - 1)) {
                        (Some(a), Some(b)) => out.vals.push_back(a.max(b).max(q)),
                        _ => break,
                    }
                }
                let keep = self.scan[i].max(1) - 1;
                children[*l].drop_before(keep);
                children[*r].drop_before(keep);
            }
        }
    }
}
