//! Robustness online, in paper 19's delayed exact mode (note D3): each sample's robustness is
//! computed as soon as the samples its windows read have arrived (the formula's horizon
//! later), from actual samples only, and equals what [`crate::eval::robustness`] gives on the
//! whole trace. At the end of the trace the samples still waiting get the offline values (the
//! windows cut at the end, as rtamt does).
//!
//! Each node keeps its values from the first one a parent may still read: a parent with a
//! past window `[a, b]` reads `b` back from the first value it has not computed, `rise`,
//! `fall` and `prev` one back, the others none (a future window reads forward). So a formula
//! whose operators are all bounded runs in memory that does not grow with the trace; an
//! unbounded future operator (`always` without a window) waits for the end of the trace and
//! keeps its operand until then.

use std::collections::VecDeque;

use crate::ast::*;
use crate::eval::{pmax, pmin, pointwise, since_at, until_at};

/// The online evaluation of one formula.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Online {
    /// Per node: its values from sample `base[k]` on.
    vals: Vec<VecDeque<f64>>,
    base: Vec<u64>,
    /// Unbounded past operators' running values (`historically`, `once`, `since`).
    running: Vec<f64>,
    /// Bounded `always`/`eventually`/`historically`/`once`: each one's sliding window.
    windows: Vec<Sliding>,
    /// Per node: its parents, and how far back before their first value not yet computed
    /// each reads it.
    #[serde(skip)]
    readers: Vec<Vec<(NodeId, u64)>>,
    samples: u64,
    ended: bool,
    /// The root's values handed out so far.
    emitted: u64,
    #[serde(skip)]
    scratch: Vec<f64>,
}

impl Online {
    pub fn new(f: &Formula) -> Online {
        let n = f.nodes.len();
        let running = f
            .nodes
            .iter()
            .map(|node| match node {
                Node::Temporal(Window1::Historically, None, _) => f64::INFINITY,
                _ => f64::NEG_INFINITY,
            })
            .collect();
        Online {
            windows: vec![Sliding::default(); n],
            vals: vec![VecDeque::new(); n],
            base: vec![0; n],
            running,
            readers: readers(f),
            samples: 0,
            ended: false,
            emitted: 0,
            scratch: Vec::new(),
        }
    }

    /// After a restore: the parts not saved, from the formula.
    pub fn rebuild(&mut self, f: &Formula) {
        self.readers = readers(f);
    }

    /// Values held, all nodes together (the engine's memory, in values).
    pub fn held(&self) -> usize {
        self.vals.iter().map(VecDeque::len).sum()
    }

    /// Values computed of node `k`.
    fn done(&self, k: NodeId) -> u64 {
        self.base[k] + self.vals[k].len() as u64
    }

    fn get(&self, k: NodeId, j: u64) -> f64 {
        self.vals[k][(j - self.base[k]) as usize]
    }

    /// Feeds one sample (a value per signal of the formula) and hands `emit` the root's
    /// values that it decides, `(sample, robustness)`, in order.
    pub fn push(&mut self, f: &Formula, sample: &[f64], emit: impl FnMut(u64, f64)) {
        for (k, node) in f.nodes.iter().enumerate() {
            if let Node::Signal(s) = node {
                self.vals[k].push_back(sample[*s]);
            }
        }
        self.samples += 1;
        self.advance(f, emit);
    }

    /// Ends the trace: every sample still waiting is decided (windows cut at the end).
    pub fn finish(&mut self, f: &Formula, emit: impl FnMut(u64, f64)) {
        self.ended = true;
        self.advance(f, emit);
    }

    fn advance(&mut self, f: &Formula, mut emit: impl FnMut(u64, f64)) {
        for (k, node) in f.nodes.iter().enumerate() {
            if !matches!(node, Node::Signal(_)) {
                self.compute(k, node);
            }
        }
        while self.emitted < self.done(f.root) {
            emit(self.emitted, self.get(f.root, self.emitted));
            self.emitted += 1;
        }
        self.trim(f.root);
    }

    /// Whether operand `c` is complete: the trace has ended and it has every value.
    fn complete(&self, c: NodeId) -> bool {
        self.ended && self.done(c) == self.samples
    }

    /// Computes node `k`'s values as far as its operands allow.
    fn compute(&mut self, k: NodeId, node: &Node) {
        if let Node::Temporal(op @ (Window1::Always | Window1::Eventually), None, c) = *node {
            return self.unbounded_future(k, c, None, op);
        }
        if let Node::Until(None, l, r) = *node {
            return self.unbounded_future(k, l, Some(r), Window1::Eventually);
        }
        let end = if self.ended {
            self.samples.saturating_sub(1)
        } else {
            u64::MAX
        };
        loop {
            let j = self.done(k);
            if j >= self.samples {
                return;
            }
            let Some(v) = self.value(k, node, j, end) else {
                return;
            };
            self.vals[k].push_back(v);
        }
    }

    /// Node `k`'s value at `j`, or `None` while an operand lacks a value it needs.
    fn value(&mut self, k: NodeId, node: &Node, j: u64, end: u64) -> Option<f64> {
        let has = |c: NodeId, upto: u64| self.done(c) > upto || self.complete(c);
        match *node {
            Node::Temporal(op, Some(w), c) => {
                let future = matches!(op, Window1::Always | Window1::Eventually);
                if !has(c, if future { j.saturating_add(w.1) } else { j }) {
                    return None;
                }
                Some(self.slide(k, c, op, w, j, end))
            }
            Node::Temporal(op, None, c) => {
                // (Unbounded future operators are computed at the end, see `compute`.)
                if !has(c, j) {
                    return None;
                }
                let f = if op == Window1::Historically {
                    pmin
                } else {
                    pmax
                };
                self.running[k] = f(self.get(c, j), self.running[k]);
                Some(self.running[k])
            }
            Node::Until(Some(w), l, r) => {
                let upto = j.saturating_add(w.1);
                if !(has(l, upto) && has(r, upto)) {
                    return None;
                }
                let mut v = std::mem::take(&mut self.scratch);
                let x = until_at(w, j, end, |i| self.get(l, i), |i| self.get(r, i), &mut v);
                self.scratch = v;
                Some(x)
            }
            Node::Since(w, l, r) => {
                if !(has(l, j) && has(r, j)) {
                    return None;
                }
                let Some(w) = w else {
                    let running = pmax(pmin(self.get(l, j), self.running[k]), self.get(r, j));
                    self.running[k] = running;
                    return Some(running);
                };
                let mut v = std::mem::take(&mut self.scratch);
                let x = since_at(w, j, |i| self.get(l, i), |i| self.get(r, i), &mut v);
                self.scratch = v;
                Some(x)
            }
            Node::Shift(op, c) => {
                let next = matches!(op, Shift::Next | Shift::StrongNext);
                if !has(c, if next { j + 1 } else { j }) {
                    return None;
                }
                let edge = match op {
                    Shift::Next | Shift::Prev => f64::INFINITY,
                    Shift::StrongNext | Shift::StrongPrev => f64::NEG_INFINITY,
                };
                let at = if next {
                    Some(j + 1).filter(|&i| i <= end)
                } else {
                    j.checked_sub(1)
                };
                Some(at.map_or(edge, |i| self.get(c, i)))
            }
            _ => {
                let operands: [NodeId; 2] = match *node {
                    Node::Arith(_, a, b)
                    | Node::Pow(a, b)
                    | Node::Cmp(_, a, b)
                    | Node::Connective(_, a, b) => [a, b],
                    Node::Fun(_, a) | Node::Not(a) | Node::Rise(a) | Node::Fall(a) => [a, a],
                    _ => [k, k], // a constant: no operand
                };
                if operands.iter().any(|&c| c != k && self.done(c) <= j) {
                    return None;
                }
                let before = |c: NodeId| j.checked_sub(1).map(|i| self.get(c, i));
                pointwise(node, |c| self.get(c, j), before)
            }
        }
    }

    /// A bounded window's fold at `j` (over `c`, cut at `end`), in amortised O(1): a deque of
    /// the window's candidates (Lemire's sliding minimum), kept as the fold of `eval` would
    /// choose. That fold keeps the first of equal values and passes NaNs over, unless the
    /// window's first sample is one (then it is the result); before the start of the trace
    /// the fold starts from the pad instead.
    fn slide(
        &mut self,
        k: NodeId,
        c: NodeId,
        op: Window1,
        (a, b): (u64, u64),
        j: u64,
        end: u64,
    ) -> f64 {
        let min = matches!(op, Window1::Always | Window1::Historically);
        let pad = if min {
            f64::INFINITY
        } else {
            f64::NEG_INFINITY
        };
        // `first`: the window's first sample, `None` when it starts before the trace.
        let (first, hi) = if matches!(op, Window1::Always | Window1::Eventually) {
            let (lo, hi) = (j.saturating_add(a), j.saturating_add(b).min(end));
            if lo > hi {
                return pad;
            }
            (Some(lo), hi)
        } else {
            let Some(hi) = j.checked_sub(a) else {
                return pad;
            };
            (j.checked_sub(b), hi)
        };
        let lo = first.unwrap_or(0);
        let mut w = std::mem::take(&mut self.windows[k]);
        // Out with the samples the window has left (their values may be gone too).
        while w.candidates.front().is_some_and(|&i| i < lo) {
            w.candidates.pop_front();
        }
        w.next = w.next.max(lo);
        while w.next <= hi {
            let v = self.get(c, w.next);
            if !v.is_nan() {
                // A later equal value never beats an earlier one: only strictly worse go.
                while let Some(&back) = w.candidates.back() {
                    let u = self.get(c, back);
                    if (min && u > v) || (!min && u < v) {
                        w.candidates.pop_back();
                    } else {
                        break;
                    }
                }
                w.candidates.push_back(w.next);
            }
            w.next += 1;
        }
        let front = w.candidates.front().copied();
        self.windows[k] = w;
        match (first.map(|i| self.get(c, i)), front) {
            (Some(v), _) if v.is_nan() => v,
            (_, Some(i)) => self.get(c, i),
            (_, None) => pad,
        }
    }

    /// `always`, `eventually` or `until` without a window: decided at the end of the trace,
    /// backwards over the whole operand (`r`: until's right operand).
    fn unbounded_future(&mut self, k: NodeId, l: NodeId, r: Option<NodeId>, op: Window1) {
        if !(self.complete(l) && r.is_none_or(|r| self.complete(r))) || self.done(k) == self.samples
        {
            return;
        }
        let from = self.done(k);
        let mut out = vec![0.0; (self.samples - from) as usize];
        let mut cur = if op == Window1::Always {
            f64::INFINITY
        } else {
            f64::NEG_INFINITY
        };
        for j in (from..self.samples).rev() {
            cur = match (r, op) {
                (Some(r), _) => pmax(pmin(self.get(l, j), cur), self.get(r, j)),
                (None, Window1::Always) => pmin(self.get(l, j), cur),
                (None, _) => pmax(self.get(l, j), cur),
            };
            out[(j - from) as usize] = cur;
        }
        self.vals[k].extend(out);
    }

    /// Drops the values no parent can read any more.
    fn trim(&mut self, root: NodeId) {
        for k in 0..self.vals.len() {
            let keep_from = if k == root {
                self.emitted
            } else {
                self.readers[k]
                    .iter()
                    .map(|&(p, back)| self.done(p).saturating_sub(back))
                    .min()
                    .unwrap_or(0)
            };
            while self.base[k] < keep_from && !self.vals[k].is_empty() {
                self.vals[k].pop_front();
                self.base[k] += 1;
            }
        }
    }
}

/// A bounded window's state: the samples that may still be its fold's result, oldest first
/// (their values strictly better towards the front), and the next sample to take in.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
struct Sliding {
    candidates: VecDeque<u64>,
    next: u64,
}

/// Per node, its parents and how far back each reads it (see [`Online`]).
fn readers(f: &Formula) -> Vec<Vec<(NodeId, u64)>> {
    let mut readers = vec![Vec::new(); f.nodes.len()];
    for (p, node) in f.nodes.iter().enumerate() {
        let mut read = |c: NodeId, back: u64| readers[c].push((p, back));
        match *node {
            Node::Signal(_) | Node::Const(_) => {}
            Node::Temporal(Window1::Historically | Window1::Once, Some((_, b)), c) => read(c, b),
            Node::Since(Some((_, b)), l, r) => {
                read(l, b);
                read(r, b);
            }
            Node::Rise(c) | Node::Fall(c) => read(c, 1),
            Node::Shift(Shift::Prev | Shift::StrongPrev, c) => read(c, 1),
            Node::Fun(_, c) | Node::Not(c) | Node::Temporal(_, _, c) | Node::Shift(_, c) => {
                read(c, 0)
            }
            Node::Arith(_, a, b)
            | Node::Pow(a, b)
            | Node::Cmp(_, a, b)
            | Node::Connective(_, a, b)
            | Node::Until(_, a, b)
            | Node::Since(None, a, b) => {
                read(a, 0);
                read(b, 0);
            }
        }
    }
    readers
}
