//! Robustness bounds for the samples still inside the horizon (`rvmon check --intervals`):
//! what the robustness at each undecided sample can still become, whatever the samples to
//! come (robust satisfaction intervals, as stlrom's online mode and RoSI give them).
//!
//! Each node's values at the positions it has not decided are intervals, computed bottom-up
//! from its operands: decided values (exact, from the rings), their intervals, and
//! `[-inf, +inf]` for the samples not yet read. Min, max and negation act on the ends;
//! `iff`/`xor` take the interval of `|l - r|`. The trace may also end now: rtamt's cut windows
//! then give a value the interval already contains (a window cut short is the same fold over
//! fewer samples, and every sample left out could have taken any value), so the bounds hold
//! either way. A NaN value counts as `[-inf, +inf]`; a NaN *result* (rtamt's fold keeps a NaN
//! at a window's first sample; `iff` of two equal infinities) is in no interval: the bounds
//! are those of the other values.

use super::Online;
use crate::ast::*;

/// An interval of robustness values, `lo <= hi`.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Bounds {
    pub lo: f64,
    pub hi: f64,
}

const TOP: Bounds = Bounds {
    lo: f64::NEG_INFINITY,
    hi: f64::INFINITY,
};

impl Bounds {
    fn exact(v: f64) -> Bounds {
        if v.is_nan() {
            TOP
        } else {
            Bounds { lo: v, hi: v }
        }
    }

    fn neg(self) -> Bounds {
        Bounds {
            lo: -self.hi,
            hi: -self.lo,
        }
    }

    fn min(self, o: Bounds) -> Bounds {
        Bounds {
            lo: self.lo.min(o.lo),
            hi: self.hi.min(o.hi),
        }
    }

    fn max(self, o: Bounds) -> Bounds {
        Bounds {
            lo: self.lo.max(o.lo),
            hi: self.hi.max(o.hi),
        }
    }

    /// `|l - r|` over the two intervals.
    fn abs_diff(self, o: Bounds) -> Bounds {
        let (lo, hi) = (self.lo - o.hi, self.hi - o.lo);
        if lo.is_nan() || hi.is_nan() {
            return Bounds {
                lo: 0.0,
                hi: f64::INFINITY,
            };
        }
        let far = lo.abs().max(hi.abs());
        let near = if lo <= 0.0 && hi >= 0.0 {
            0.0
        } else {
            lo.abs().min(hi.abs())
        };
        Bounds { lo: near, hi: far }
    }
}

/// The nodes' intervals at the positions each has not decided.
struct Pending<'a> {
    online: &'a Online,
    /// Per node: its intervals from its first undecided position to the newest sample.
    iv: Vec<Vec<Bounds>>,
}

impl Pending<'_> {
    /// Node `c`'s value at `q`, as an interval.
    fn at(&self, c: NodeId, q: u64) -> Bounds {
        let store = &self.online.stores[c];
        if q >= self.online.samples {
            TOP
        } else if q >= store.done {
            self.iv[c][(q - store.done) as usize]
        } else {
            Bounds::exact(store.get(q))
        }
    }
}

impl Online {
    /// Whether [`Online::bounds`] applies: every future operator has a window.
    pub fn has_bounds(f: &Formula) -> bool {
        f.horizon().is_some()
    }

    /// The root's bounds at each sample not yet decided, from the first on (empty when all
    /// are decided). Only for formulas with [`Online::has_bounds`].
    pub fn bounds(&self, f: &Formula) -> Vec<Bounds> {
        let mut p = Pending {
            online: self,
            iv: Vec::with_capacity(f.nodes.len()),
        };
        for (k, node) in f.nodes.iter().enumerate() {
            let from = self.stores[k].done;
            let values = match *node {
                Node::Temporal(op, Some(w), c) => sliding(&p, op, w, c, from),
                Node::Temporal(op, None, c) => {
                    let min = op == Window1::Historically;
                    let step = |acc: Bounds, v: Bounds| if min { acc.min(v) } else { acc.max(v) };
                    running(&p, k, from, |acc, q| step(acc, p.at(c, q)))
                }
                Node::Since(None, l, r) => {
                    running(&p, k, from, |acc, q| p.at(l, q).min(acc).max(p.at(r, q)))
                }
                _ => (from..self.samples)
                    .map(|j| node_bounds(&p, node, j))
                    .collect(),
            };
            p.iv.push(values);
        }
        p.iv.swap_remove(f.root)
    }
}

/// Node `k`'s interval at `j` (a position it has not decided).
fn node_bounds(p: &Pending<'_>, node: &Node, j: u64) -> Bounds {
    let at = |c: NodeId, q: u64| p.at(c, q);
    match *node {
        Node::Not(a) => at(a, j).neg(),
        Node::Connective(op, a, b) => {
            let (l, r) = (at(a, j), at(b, j));
            match op {
                Connective::And => l.min(r),
                Connective::Or => l.max(r),
                Connective::Implies => l.neg().max(r),
                Connective::Iff => l.abs_diff(r).neg(),
                Connective::Xor => l.abs_diff(r),
            }
        }
        Node::Rise(a) => {
            let before = j
                .checked_sub(1)
                .map_or(Bounds::exact(f64::NEG_INFINITY), |i| at(a, i));
            before.neg().min(at(a, j))
        }
        Node::Fall(a) => {
            let before = j
                .checked_sub(1)
                .map_or(Bounds::exact(f64::INFINITY), |i| at(a, i));
            before.min(at(a, j).neg())
        }
        Node::Shift(op, c) => match op {
            Shift::Next | Shift::StrongNext => at(c, j + 1),
            Shift::Prev => j
                .checked_sub(1)
                .map_or(Bounds::exact(f64::INFINITY), |i| at(c, i)),
            Shift::StrongPrev => j
                .checked_sub(1)
                .map_or(Bounds::exact(f64::NEG_INFINITY), |i| at(c, i)),
        },
        Node::Since(Some((a, b)), l, r) => {
            let Some(hi) = j.checked_sub(a) else {
                return Bounds::exact(f64::NEG_INFINITY);
            };
            let mut best = Bounds::exact(f64::NEG_INFINITY);
            let mut hold = Bounds::exact(f64::INFINITY);
            for t in (j.saturating_sub(b)..=j).rev() {
                if t <= hi {
                    best = best.max(hold.min(at(r, t)));
                }
                hold = hold.min(at(l, t));
            }
            best
        }
        Node::Until(w, l, r) => {
            let (a, b) = w.unwrap_or((0, u64::MAX));
            let mut best = Bounds::exact(f64::NEG_INFINITY);
            let mut hold = Bounds::exact(f64::INFINITY);
            let (first, n) = (j.saturating_add(a), p.online.samples);
            for t in j..=j.saturating_add(b).min(n - 1) {
                if t >= first {
                    best = best.max(hold.min(at(r, t)));
                }
                hold = hold.min(at(l, t));
            }
            // Witnesses among the samples to come: any value, and the left operand any value
            // on the way there past the newest sample; together `[-inf, hold's upper end]`,
            // whichever of them is the first.
            if j.saturating_add(b) >= n {
                best = best.max(hold.min(TOP));
            }
            best
        }
        // (Windows and unbounded `since` are computed in passes, see `Online::bounds`.)
        // Signals, constants and arithmetic are decided at once (their delay is 0); anything
        // else undecided could be anything.
        _ => TOP,
    }
}

/// An unbounded past operator's intervals at its undecided positions, `from` on, in one pass:
/// its running value (decided up to `from`) carried on by `step`.
fn running(
    p: &Pending<'_>,
    k: NodeId,
    from: u64,
    step: impl Fn(Bounds, u64) -> Bounds,
) -> Vec<Bounds> {
    let mut acc = Bounds::exact(p.online.running[k]);
    (from..p.online.samples)
        .map(|q| {
            acc = step(acc, q);
            acc
        })
        .collect()
}

/// A bounded window operator's intervals at its undecided positions, `from` to the newest
/// sample: the fold over each window of its operand's intervals, the samples not yet read
/// counting as `[-inf, +inf]`. PERF: the windows' ends only move forward, so each end of the
/// intervals slides through a monotone deque (Lemire), in O(positions + window).
fn sliding(p: &Pending<'_>, op: Window1, (a, b): (u64, u64), c: NodeId, from: u64) -> Vec<Bounds> {
    let min = matches!(op, Window1::Always | Window1::Historically);
    let future = matches!(op, Window1::Always | Window1::Eventually);
    let n = p.online.samples;
    let pad = if min {
        f64::INFINITY
    } else {
        f64::NEG_INFINITY
    };
    let mut lows = Lemire::new(min);
    let mut highs = Lemire::new(min);
    let mut next = 0u64; // the next operand position to take in
    let mut out = Vec::with_capacity(n.saturating_sub(from) as usize);
    for j in from..n {
        // The window's samples that have been read, and whether it reaches past them.
        let (lo, hi, unread) = if future {
            let (lo, hi) = (j.saturating_add(a), j.saturating_add(b));
            (lo, hi.min(n - 1), hi >= n)
        } else if let Some(hi) = j.checked_sub(a) {
            (j.saturating_sub(b), hi, false)
        } else {
            out.push(Bounds::exact(pad)); // the window is before the start: empty
            continue;
        };
        next = next.max(lo);
        while next <= hi {
            let v = p.at(c, next);
            lows.push(next, v.lo);
            highs.push(next, v.hi);
            next += 1;
        }
        lows.drop_before(lo);
        highs.drop_before(lo);
        let known = Bounds {
            lo: lows.best().unwrap_or(pad),
            hi: highs.best().unwrap_or(pad),
        };
        out.push(match (unread, min) {
            (false, _) => known,
            (true, true) => known.min(TOP),
            (true, false) => known.max(TOP),
        });
    }
    out
}

/// A sliding minimum (or maximum) of values by position.
struct Lemire {
    min: bool,
    deque: std::collections::VecDeque<(u64, f64)>,
}

impl Lemire {
    fn new(min: bool) -> Lemire {
        Lemire {
            min,
            deque: std::collections::VecDeque::new(),
        }
    }

    fn push(&mut self, at: u64, v: f64) {
        while let Some(&(_, u)) = self.deque.back() {
            if (self.min && u >= v) || (!self.min && u <= v) {
                self.deque.pop_back();
            } else {
                break;
            }
        }
        self.deque.push_back((at, v));
    }

    fn drop_before(&mut self, lo: u64) {
        while self.deque.front().is_some_and(|&(i, _)| i < lo) {
            self.deque.pop_front();
        }
    }

    fn best(&self) -> Option<f64> {
        self.deque.front().map(|&(_, v)| v)
    }
}
