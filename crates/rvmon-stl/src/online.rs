//! Robustness online, in paper 19's delayed exact mode (note D3): each sample's robustness is
//! computed as soon as the samples its windows read have arrived (the formula's horizon
//! later), from actual samples only, and equals what [`crate::eval::robustness`] gives on the
//! whole trace. At the end of the trace the samples still waiting get the offline values (the
//! windows cut at the end, as rtamt does).
//!
//! PERF: the schedule is fixed. Each node lags the newest sample by its *delay* (how far
//! forward its windows read, summed down to the signals), so every sample computes exactly one
//! new value per node, in arena order, without asking whether its operands are ready; and each
//! node keeps its values in a ring as long as the span its parents read (their lag behind it,
//! plus how far back they look). A formula whose operators are all bounded therefore runs in
//! memory that does not grow with the trace. An unbounded future operator (`always` without a
//! window) has no delay: it and the nodes above it are decided at the end of the trace, and
//! their operands keep every value until then.

mod bounds;
mod sliding;
pub use bounds::Bounds;
use sliding::Sliding;

use crate::ast::*;
use crate::eval::{pmax, pmin, pointwise, since_at, until_at};

/// The most samples [`Online::push_rows`] takes in one round (each node's ring holds a round's
/// values on top of what its parents read).
const BATCH: usize = 256;

/// The longest window slid in blocks (see [`Online::slide_batch`]): a batch's blocks read its
/// samples and one window more, so a longer one is slid through the deque.
const BLOCKED_WINDOW: u64 = 4 * BATCH as u64;

/// The online evaluation of one formula.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Online {
    /// Per node: its latest values.
    stores: Vec<Ring>,
    /// Unbounded past operators' running values (`historically`, `once`, `since`).
    running: Vec<f64>,
    /// Bounded `always`/`eventually`/`historically`/`once`: each one's sliding window.
    windows: Vec<Sliding>,
    /// The schedule, from the formula.
    #[serde(skip)]
    plan: Vec<Plan>,
    samples: u64,
    /// The root's values handed out so far.
    emitted: u64,
    #[serde(skip)]
    scratch: Vec<f64>,
    /// A blocked window's running folds (see [`sliding::blocked`]).
    #[serde(skip)]
    ahead: Vec<f64>,
    #[serde(skip)]
    back: Vec<f64>,
}

/// A node's place in the schedule.
#[derive(Clone, Copy, Debug)]
struct Plan {
    /// How many samples its values lag the newest one; `None` above an unbounded future
    /// operator (decided at the end).
    delay: Option<u64>,
    /// How many of its latest values its parents may still read (`u64::MAX`: all of them).
    span: u64,
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
            stores: vec![Ring::default(); n],
            running,
            windows: vec![Sliding::default(); n],
            plan: plan(f),
            samples: 0,
            emitted: 0,
            scratch: Vec::new(),
            ahead: Vec::new(),
            back: Vec::new(),
        }
    }

    /// After a restore: the parts not saved, from the formula.
    pub fn rebuild(&mut self, f: &Formula) {
        self.plan = plan(f);
    }

    /// Values held, all nodes together (the engine's memory, in values).
    pub fn held(&self) -> usize {
        self.stores.iter().map(|r| r.buf.len()).sum()
    }

    #[inline]
    fn get(&self, k: NodeId, j: u64) -> f64 {
        self.stores[k].get(j)
    }

    /// Feeds one sample (a value per signal of the formula) and hands `emit` the root's
    /// values that it decides, `(sample, robustness)`, in order.
    pub fn push(&mut self, f: &Formula, sample: &[f64], emit: impl FnMut(u64, f64)) {
        self.push_rows(f, sample, 1, emit);
    }

    /// Feeds `count` samples, `rows` holding each one's values (a value per signal, sample
    /// after sample), and hands `emit` the root's values that they decide, in order.
    pub fn push_rows(
        &mut self,
        f: &Formula,
        rows: &[f64],
        count: usize,
        emit: impl FnMut(u64, f64),
    ) {
        let width = f.signals.len();
        self.push_with(f, count, |row, s| rows[row * width + s], emit);
    }

    /// Feeds the samples of `columns` (one per signal of `f`, in [`Formula::signals`]' order,
    /// all as long) and hands `emit` the root's values that they decide, in order. (The
    /// Python module's arrays, read where they are.)
    pub fn push_columns(&mut self, f: &Formula, columns: &[&[f64]], emit: impl FnMut(u64, f64)) {
        assert_eq!(columns.len(), f.signals.len(), "a column per signal");
        let count = columns.first().map_or(0, |c| c.len());
        assert!(
            columns.iter().all(|c| c.len() == count),
            "columns of one length"
        );
        self.push_with(f, count, |row, s| columns[s][row], emit);
    }

    /// Feeds `count` samples, signal `s`'s value in sample `row` (counted from the first of
    /// these) being `value(row, s)`.
    ///
    /// PERF: node by node, each computing its new values for all the samples in one loop
    /// (the dispatch on the operator is paid once per node and batch, not once per value).
    fn push_with(
        &mut self,
        f: &Formula,
        count: usize,
        value: impl Fn(usize, usize) -> f64,
        mut emit: impl FnMut(u64, f64),
    ) {
        for (chunk, at) in (0..count)
            .step_by(BATCH)
            .map(|at| (BATCH.min(count - at), at))
        {
            let first = self.samples;
            self.samples += chunk as u64;
            for (k, node) in f.nodes.iter().enumerate() {
                let Some(upto) = self.plan[k].delay.and_then(|d| self.samples.checked_sub(d))
                else {
                    continue;
                };
                if let Node::Signal(s) = *node {
                    for i in self.stores[k].done..upto {
                        let row = at + (i - first) as usize;
                        self.stores[k].push(value(row, s), self.plan[k].span);
                    }
                } else {
                    self.compute(k, node, upto);
                }
            }
            self.emit(f.root, &mut emit);
        }
    }

    /// Node `k`'s values up to sample `upto` (excluded), its operands' values computed as
    /// far as its windows read.
    fn compute(&mut self, k: NodeId, node: &Node, upto: u64) {
        let (from, span) = (self.stores[k].done, self.plan[k].span);
        // The common pointwise operators in tight loops; the others value by value.
        macro_rules! each {
            (|$j:ident| $v:expr) => {
                for $j in from..upto {
                    let v = $v;
                    self.stores[k].push(v, span);
                }
            };
        }
        match *node {
            Node::Cmp(Cmp::Greater, a, b) => each!(|j| self.get(a, j) - self.get(b, j)),
            Node::Cmp(Cmp::Less, a, b) => each!(|j| self.get(b, j) - self.get(a, j)),
            Node::Connective(Connective::And, a, b) => {
                each!(|j| pmin(self.get(a, j), self.get(b, j)))
            }
            Node::Connective(Connective::Or, a, b) => {
                each!(|j| pmax(self.get(a, j), self.get(b, j)))
            }
            Node::Connective(Connective::Implies, a, b) => {
                each!(|j| pmax(-self.get(a, j), self.get(b, j)))
            }
            Node::Not(a) => each!(|j| -self.get(a, j)),
            Node::Const(c) => each!(|_j| c),
            Node::Temporal(op, Some(w), c) => self.slide_batch(k, c, op, w, upto),
            _ => each!(|j| self.value(k, node, j, u64::MAX)),
        }
    }

    /// Ends the trace: every sample still waiting is decided (windows cut at the end).
    ///
    /// The nodes go on one value per round, in arena order, so that each still finds its
    /// operands' values in their rings; the nodes above an unbounded future operator are
    /// computed whole once their operands are complete.
    pub fn finish(&mut self, f: &Formula, mut emit: impl FnMut(u64, f64)) {
        let end = self.samples.saturating_sub(1);
        while self.stores[f.root].done < self.samples {
            for (k, node) in f.nodes.iter().enumerate() {
                let j = self.stores[k].done;
                if j == self.samples {
                    continue;
                }
                if self.plan[k].delay.is_some() {
                    // (A trace shorter than the delays leaves the lags short of the plan's:
                    // an operand may still lack a value the window reads.)
                    let upto = j.saturating_add(node.forward().unwrap_or(0)).min(end);
                    if !node.operands().all(|c| self.stores[c].done > upto) {
                        continue;
                    }
                    let v = self.value(k, node, j, end);
                    self.stores[k].push(v, self.plan[k].span);
                } else if node.operands().all(|c| self.stores[c].done == self.samples) {
                    self.whole(k, node, end);
                }
            }
            self.emit(f.root, &mut emit);
        }
    }

    fn emit(&mut self, root: NodeId, emit: &mut impl FnMut(u64, f64)) {
        while self.emitted < self.stores[root].done {
            emit(self.emitted, self.get(root, self.emitted));
            self.emitted += 1;
        }
    }

    /// Node `k`'s values from the first not computed to the end, its operands complete.
    fn whole(&mut self, k: NodeId, node: &Node, end: u64) {
        match *node {
            Node::Temporal(op @ (Window1::Always | Window1::Eventually), None, c) => {
                self.unbounded_future(k, c, None, op)
            }
            Node::Until(None, l, r) => self.unbounded_future(k, l, Some(r), Window1::Eventually),
            _ => {
                for j in self.stores[k].done..self.samples {
                    let v = self.value(k, node, j, end);
                    self.stores[k].push(v, self.plan[k].span);
                }
            }
        }
    }

    /// Node `k`'s value at `j`, its operands' values there (and as far forward as its windows
    /// read, cut at `end`) computed.
    fn value(&mut self, k: NodeId, node: &Node, j: u64, end: u64) -> f64 {
        match *node {
            Node::Temporal(op, Some(w), c) => self.slide(k, c, op, w, j, end),
            Node::Temporal(op, None, c) => {
                // (Unbounded future operators are computed whole, see `whole`.)
                let f = if op == Window1::Historically {
                    pmin
                } else {
                    pmax
                };
                self.running[k] = f(self.get(c, j), self.running[k]);
                self.running[k]
            }
            Node::Until(w, l, r) => {
                let w = w.unwrap_or((0, u64::MAX));
                let mut v = std::mem::take(&mut self.scratch);
                let x = until_at(w, j, end, |i| self.get(l, i), |i| self.get(r, i), &mut v);
                self.scratch = v;
                x
            }
            Node::Since(w, l, r) => {
                let Some(w) = w else {
                    let running = pmax(pmin(self.get(l, j), self.running[k]), self.get(r, j));
                    self.running[k] = running;
                    return running;
                };
                let mut v = std::mem::take(&mut self.scratch);
                let x = since_at(w, j, |i| self.get(l, i), |i| self.get(r, i), &mut v);
                self.scratch = v;
                x
            }
            Node::Shift(op, c) => {
                let edge = match op {
                    Shift::Next | Shift::Prev => f64::INFINITY,
                    Shift::StrongNext | Shift::StrongPrev => f64::NEG_INFINITY,
                };
                let at = match op {
                    Shift::Next | Shift::StrongNext => Some(j + 1).filter(|&i| i <= end),
                    Shift::Prev | Shift::StrongPrev => j.checked_sub(1),
                };
                at.map_or(edge, |i| self.get(c, i))
            }
            // (Signals are pushed, not computed: this is their value if asked.)
            Node::Signal(_) => self.get(k, j),
            _ => {
                let before = |c: NodeId| j.checked_sub(1).map(|i| self.get(c, i));
                pointwise(node, |c| self.get(c, j), before).unwrap_or(f64::NAN)
            }
        }
    }

    /// A bounded window's value at `j` (over `c`, cut at `end`), in amortised O(1) (see
    /// [`Sliding`]).
    fn slide(
        &mut self,
        k: NodeId,
        c: NodeId,
        op: Window1,
        (a, b): (u64, u64),
        j: u64,
        end: u64,
    ) -> f64 {
        let (w, values) = (&mut self.windows[k], &self.stores[c]);
        match op {
            Window1::Always => w.future::<true>(values, (a, b), j, end),
            Window1::Eventually => w.future::<false>(values, (a, b), j, end),
            Window1::Historically => w.past::<true>(values, (a, b), j),
            Window1::Once => w.past::<false>(values, (a, b), j),
        }
    }

    /// [`Online::slide`] for node `k`'s samples up to `upto` (excluded), whose windows the
    /// end of the trace does not cut, into its ring: in blocks (see [`sliding::blocked`])
    /// where the windows lie inside the trace and are short next to a batch, else through
    /// the deque. (The deque may pick up after blocks: its state is the candidates of the
    /// samples it took in, whichever windows were asked in between.)
    fn slide_batch(&mut self, k: NodeId, c: NodeId, op: Window1, (a, b): (u64, u64), upto: u64) {
        let from = self.stores[k].done;
        let past = matches!(op, Window1::Historically | Window1::Once);
        // (A past window starts before the trace until sample `b`.)
        let inside = if past { from.max(b) } else { from }.min(upto);
        let w = (b - a).saturating_add(1);
        let blocks = if w <= BLOCKED_WINDOW { inside } else { upto };
        self.slide_each(k, c, op, (a, b), blocks);
        if blocks == upto {
            return;
        }
        // The operand's values the windows read, `first ..` (those samples are in its ring).
        let first = if past { blocks - b } else { blocks + a };
        let count = (upto - blocks + w - 1) as usize;
        let mut xs = std::mem::take(&mut self.scratch);
        xs.clear();
        xs.extend((0..count as u64).map(|i| self.get(c, first + i)));
        let span = self.plan[k].span;
        let (ahead, back) = (&mut self.ahead, &mut self.back);
        let out = &mut self.stores[k];
        let push = |v| out.push(v, span);
        match op {
            Window1::Always | Window1::Historically => {
                sliding::blocked::<true>(&xs, w as usize, (ahead, back), push)
            }
            Window1::Eventually | Window1::Once => {
                sliding::blocked::<false>(&xs, w as usize, (ahead, back), push)
            }
        }
        self.scratch = xs;
    }

    /// [`Online::slide`] through the deque, for node `k`'s samples up to `upto` (excluded),
    /// whose windows the end of the trace does not cut, into its ring.
    ///
    /// PERF: one loop with the operator chosen once, outside it (a call per value, choosing
    /// it each time, cost twice as much).
    fn slide_each(&mut self, k: NodeId, c: NodeId, op: Window1, w: (u64, u64), upto: u64) {
        let span = self.plan[k].span;
        // (The node's ring, out for a moment: it is written while its operand's is read.)
        let mut out = std::mem::take(&mut self.stores[k]);
        let (window, values) = (&mut self.windows[k], &self.stores[c]);
        macro_rules! each {
            (|$j:ident| $v:expr) => {
                for $j in out.done..upto {
                    let v = $v;
                    out.push(v, span);
                }
            };
        }
        let end = u64::MAX;
        match op {
            Window1::Always => each!(|j| window.future::<true>(values, w, j, end)),
            Window1::Eventually => each!(|j| window.future::<false>(values, w, j, end)),
            Window1::Historically => each!(|j| window.past::<true>(values, w, j)),
            Window1::Once => each!(|j| window.past::<false>(values, w, j)),
        }
        self.stores[k] = out;
    }

    /// `always`, `eventually` or `until` without a window: decided at the end of the trace,
    /// backwards over the whole operand (`r`: until's right operand).
    fn unbounded_future(&mut self, k: NodeId, l: NodeId, r: Option<NodeId>, op: Window1) {
        let from = self.stores[k].done;
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
        let span = self.plan[k].span;
        for v in out {
            self.stores[k].push(v, span);
        }
    }
}

/// A node's latest values: value `j` is at `j` modulo the length (a power of two), and the
/// ring grows only while it is shorter than the node's span.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
struct Ring {
    buf: Vec<f64>,
    /// Values computed so far.
    done: u64,
}

impl Ring {
    #[inline]
    fn get(&self, j: u64) -> f64 {
        debug_assert!(j < self.done && self.done - j <= self.buf.len() as u64);
        self.buf[j as usize & (self.buf.len() - 1)]
    }

    /// Appends the next value; the oldest goes if the ring already holds `span` values.
    #[inline]
    fn push(&mut self, v: f64, span: u64) {
        let cap = self.buf.len();
        if self.done >= cap as u64 && (cap as u64) < span {
            self.grow();
        }
        let mask = self.buf.len() - 1;
        self.buf[self.done as usize & mask] = v;
        self.done += 1;
    }

    #[cold]
    fn grow(&mut self) {
        let old = self.buf.len();
        let cap = (old * 2).max(1);
        let mut buf = vec![0.0; cap];
        for j in self.done - old as u64..self.done {
            buf[j as usize & (cap - 1)] = self.buf[j as usize & (old.max(1) - 1)];
        }
        self.buf = buf;
    }
}

/// How far back of a sample a node reads its operands, in samples.
fn back(node: &Node) -> u64 {
    match *node {
        Node::Temporal(Window1::Historically | Window1::Once, Some((_, b)), _)
        | Node::Since(Some((_, b)), _, _) => b,
        Node::Rise(_) | Node::Fall(_) | Node::Shift(Shift::Prev | Shift::StrongPrev, _) => 1,
        _ => 0,
    }
}

/// The schedule: each node's delay (its operands' largest, plus how far forward it reads),
/// then its span (the most any parent reads: their lag behind it plus how far back they look,
/// and the value being computed).
fn plan(f: &Formula) -> Vec<Plan> {
    let delay = f.delays();
    let mut span: Vec<u64> = delay
        .iter()
        .map(|d| if d.is_none() { u64::MAX } else { BATCH as u64 })
        .collect();
    for (p, node) in f.nodes.iter().enumerate() {
        let back = back(node);
        for c in node.operands() {
            // (An operand computes a whole batch before its parent reads it.)
            let need = match (delay[p], delay[c]) {
                (Some(dp), Some(dc)) => (dp - dc).saturating_add(back).saturating_add(BATCH as u64),
                _ => u64::MAX,
            };
            span[c] = span[c].max(need);
        }
    }
    delay
        .into_iter()
        .zip(span)
        .map(|(delay, span)| Plan { delay, span })
        .collect()
}
