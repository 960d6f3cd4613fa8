//! The dense-time robustness straight from the definitions, point by point: the reference
//! the exact engine ([`super::robustness`]) is tested against.
//!
//! It needs a grid: a `step` that divides every timestamp's distance from the first and
//! every bound. Then every breakpoint of every subformula is on the grid (windows only shift
//! breakpoints by bounds) and every subformula is constant between two grid points, so a
//! supremum or infimum over a window is the maximum or minimum over the grid points in it:
//! the values below are exact, not approximations. Past the last breakpoint everything is
//! constant, so an unbounded future window is read up to there. Exponential neither in the
//! formula nor in the trace, thanks to a memo, but quadratic in windows: for tests.

use std::collections::HashMap;

use super::order::{max, min};
use super::{pointwise, DenseFormula};
use crate::ast::*;

/// The robustness of `f` at each of `times`, evaluated at the points of a grid of `step`
/// nanoseconds from the first sample (see the module's documentation).
pub fn robustness(f: &DenseFormula, times: &[i64], signals: &[Vec<f64>], step: i64) -> Vec<f64> {
    let Some(&start) = times.first() else {
        return Vec::new();
    };
    let f = f.formula();
    let bounds: i64 = f
        .nodes
        .iter()
        .filter_map(|n| match *n {
            Node::Temporal(_, Some((_, b)), _)
            | Node::Until(Some((_, b)), ..)
            | Node::Since(Some((_, b)), ..) => Some(b as i64),
            _ => None,
        })
        .sum();
    let mut r = Ref {
        f,
        times,
        signals,
        start,
        step: step.max(1),
        last_breakpoint: times[times.len() - 1] + bounds,
        memo: HashMap::new(),
    };
    times.iter().map(|&t| r.rho(f.root, t)).collect()
}

struct Ref<'a> {
    f: &'a Formula,
    times: &'a [i64],
    signals: &'a [Vec<f64>],
    start: i64,
    step: i64,
    last_breakpoint: i64,
    memo: HashMap<(NodeId, i64), f64>,
}

impl Ref<'_> {
    /// The grid points of `[lo, hi]` (both on the grid).
    fn grid(&self, lo: i64, hi: i64) -> impl Iterator<Item = i64> {
        let step = self.step;
        (0..)
            .map(move |k| lo + k * step)
            .take_while(move |&t| t <= hi)
    }

    /// A future window `[t+a, t+b]`, or `[t, ∞)` read up to the last breakpoint.
    fn future(&self, t: i64, w: Window) -> (i64, i64) {
        match w {
            Some((a, b)) => (t + a as i64, t + b as i64),
            None => (t, t.max(self.last_breakpoint)),
        }
    }

    /// A past window `[t-b, t-a]` (or `[start, t]`), clipped to the first sample: `None` if
    /// that leaves nothing.
    fn past(&self, t: i64, w: Window) -> Option<(i64, i64)> {
        let (lo, hi) = match w {
            Some((a, b)) => (t - b as i64, t - a as i64),
            None => (self.start, t),
        };
        (hi >= self.start).then_some((lo.max(self.start), hi))
    }

    fn rho(&mut self, id: NodeId, t: i64) -> f64 {
        if let Some(&v) = self.memo.get(&(id, t)) {
            return v;
        }
        let v = self.compute(id, t);
        self.memo.insert((id, t), v);
        v
    }

    fn compute(&mut self, id: NodeId, t: i64) -> f64 {
        let node = self.f.nodes[id].clone();
        let fold = |r: &mut Self, c: NodeId, (lo, hi): (i64, i64), f: fn(f64, f64) -> f64| {
            let pts: Vec<i64> = r.grid(lo, hi).collect();
            pts.into_iter().map(|s| r.rho(c, s)).reduce(f)
        };
        match node {
            Node::Signal(s) => {
                // The sample in force at `t`: the last one at or before it.
                let k = self.times.partition_point(|&tk| tk <= t).saturating_sub(1);
                let col = self.signals.get(s);
                col.and_then(|c| c.get(k)).copied().unwrap_or(f64::NAN)
            }
            Node::Const(c) => c,
            Node::Temporal(op, w, c) => match op {
                Window1::Always => fold(self, c, self.future(t, w), min).unwrap_or(f64::INFINITY),
                Window1::Eventually => {
                    fold(self, c, self.future(t, w), max).unwrap_or(f64::NEG_INFINITY)
                }
                Window1::Historically => match self.past(t, w) {
                    Some(win) => fold(self, c, win, min).unwrap_or(f64::INFINITY),
                    None => f64::INFINITY,
                },
                Window1::Once => match self.past(t, w) {
                    Some(win) => fold(self, c, win, max).unwrap_or(f64::NEG_INFINITY),
                    None => f64::NEG_INFINITY,
                },
            },
            Node::Until(w, l, r) => {
                let (lo, hi) = self.future(t, w);
                let witnesses: Vec<i64> = self.grid(lo, hi).collect();
                let mut best = None;
                for t1 in witnesses {
                    // inf of φ over [t, t1], closed at both ends.
                    let phi = fold(self, l, (t, t1), min).unwrap_or(f64::INFINITY);
                    let v = min(self.rho(r, t1), phi);
                    best = Some(best.map_or(v, |b| max(b, v)));
                }
                best.unwrap_or(f64::NEG_INFINITY)
            }
            Node::Since(w, l, r) => {
                let Some((lo, hi)) = self.past(t, w) else {
                    return f64::NEG_INFINITY;
                };
                let witnesses: Vec<i64> = self.grid(lo, hi).collect();
                let mut best = None;
                for t1 in witnesses {
                    // inf of φ over [t1, t], closed at both ends.
                    let phi = fold(self, l, (t1, t), min).unwrap_or(f64::INFINITY);
                    let v = min(self.rho(r, t1), phi);
                    best = Some(best.map_or(v, |b| max(b, v)));
                }
                best.unwrap_or(f64::NEG_INFINITY)
            }
            Node::Shift(..) | Node::Rise(_) | Node::Fall(_) => f64::NAN,
            _ => {
                let [a, b] = node.operand_pair();
                let p = a.map_or(f64::NAN, |c| self.rho(c, t));
                let q = b.map_or(p, |c| self.rho(c, t));
                pointwise(&node, p, q)
            }
        }
    }
}
