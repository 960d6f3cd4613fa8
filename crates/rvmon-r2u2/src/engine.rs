//! R2U2's temporal-logic engine, with its semantics kept exactly: each operator node owns a
//! shared connection queue (SCQ), a ring of `(time, truth)` tuples in which a tuple means
//! "this truth, at every step since the previous tuple, up to `time`" (a write whose truth
//! equals the last tuple's replaces it, so runs of equal verdicts take one slot). A node
//! reads its operands' queues, each through a read position of its own, for the first
//! tuple at or after the step it needs next (`next_time`).
//!
//! A step: the atoms are loaded, then the nodes are updated in order, again and again until
//! a pass writes nothing; a formula's `Return` node hands each new tuple of its root on as a
//! verdict. Future-time nodes (`Until`, `Release`) decide a step as soon as their operands
//! allow, which may be many steps later; past-time nodes (`Since`, `Trigger`) decide each
//! step at once, and their bounds let them decide some steps ahead.
//!
//! Queue sizes are computed before the run from the formulas' propagation delays (R2U2's
//! compiler's rule, [`crate::compile`]); memory is fixed from then on.

use serde::{Deserialize, Serialize};

/// A time step (R2U2's `u32`).
pub type Time = u32;

/// No time: an empty slot.
pub const NEVER: Time = Time::MAX;

/// A tuple: `truth` at every step up to `time` (since the previous tuple).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Verdict {
    pub time: Time,
    pub truth: bool,
}

const EMPTY: Verdict = Verdict {
    time: NEVER,
    truth: false,
};

/// What an operand is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Operand {
    /// An atom, by index (loaded at the first pass of a step).
    Atom(usize),
    /// `true` or `false`.
    Const(bool),
    /// Another node's queue.
    Node(usize),
}

/// A node's operation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Kind {
    /// The atom of operand 0.
    Load,
    Not,
    And,
    Or,
    Equiv,
    Until,
    Release,
    Since,
    Trigger,
    /// Formula `n`'s verdicts: the tuples of operand 0.
    Return(usize),
}

/// One node of the program.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Node {
    pub kind: Kind,
    pub operands: [Operand; 2],
    pub lb: Time,
    pub ub: Time,
    /// Its queue's size (slots).
    pub size: usize,
}

/// A node's queue and its temporal state (R2U2's control block).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
struct Queue {
    slots: Vec<Verdict>,
    write: usize,
    /// Where this node reads each operand's queue.
    read: [usize; 2],
    next_time: Time,
    /// The last step decided (`truth`: whether one was), and the last rising edge seen.
    previous: Verdict,
    edge: Verdict,
}

/// Whether the current pass is the first of its step, or a later one that has or has not
/// written anything yet.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
enum Pass {
    First,
    Quiet,
    Progress,
}

/// The engine: the program and its queues.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Engine {
    nodes: Vec<Node>,
    queues: Vec<Queue>,
    time: Time,
    pass: Pass,
}

impl Engine {
    pub fn new(nodes: Vec<Node>) -> Engine {
        let queues = nodes
            .iter()
            .map(|n| Queue {
                slots: vec![EMPTY; n.size.max(1)],
                write: 0,
                read: [0, 0],
                // (A future-time node never needs the steps before its lower bound.)
                next_time: match n.kind {
                    Kind::Until | Kind::Release => n.lb,
                    _ => 0,
                },
                previous: Verdict {
                    time: 0,
                    truth: false,
                },
                edge: Verdict {
                    time: 0,
                    truth: false,
                },
            })
            .collect();
        Engine {
            nodes,
            queues,
            time: 0,
            pass: Pass::First,
        }
    }

    pub fn nodes(&self) -> &[Node] {
        &self.nodes
    }

    /// Sets the step the next [`Engine::step`] monitors (a trace's `@t`: R2U2's clock
    /// jumps there).
    pub fn set_time(&mut self, t: Time) {
        self.time = t;
    }

    /// The step the next [`Engine::step`] monitors.
    pub fn time(&self) -> Time {
        self.time
    }

    /// Monitors one step whose atoms are `atoms`; the verdicts decided go to `out`, as
    /// `(formula, tuple)`, in R2U2's order.
    pub fn step(&mut self, atoms: &[bool], out: &mut Vec<(usize, Verdict)>) {
        let start = self.time;
        let mut passes = 0usize;
        while self.time == start {
            passes += 1;
            debug_assert!(
                passes <= 4 + 4 * self.nodes.len(),
                "a step that does not end"
            );
            for k in 0..self.nodes.len() {
                self.update(k, atoms, out);
            }
            match self.pass {
                Pass::First | Pass::Progress => self.pass = Pass::Quiet,
                Pass::Quiet => {
                    // (R2U2's clock wraps to 0 at its end: 2^32 steps.)
                    match self.time.checked_add(1) {
                        Some(t) => self.time = t,
                        None => self.reset_clock(),
                    }
                    self.pass = Pass::First;
                }
            }
        }
    }

    fn reset_clock(&mut self) {
        self.time = 0;
        for q in &mut self.queues {
            q.slots.fill(EMPTY);
        }
    }

    /// Operand `which` of node `k`: an atom (first pass only), a constant, or the first
    /// tuple of its queue at or after the node's `next_time`.
    fn operand(&mut self, k: usize, which: usize, atoms: &[bool]) -> Option<Verdict> {
        let node = &self.nodes[k];
        match node.operands[which] {
            Operand::Atom(a) => (self.pass == Pass::First).then(|| Verdict {
                time: self.time,
                truth: atoms.get(a).copied().unwrap_or(false),
            }),
            Operand::Const(truth) => {
                let time = match node.kind {
                    Kind::Since | Kind::Trigger => self.time.saturating_add(node.ub),
                    _ => self.time,
                };
                Some(Verdict { time, truth })
            }
            Operand::Node(child) => self.read(k, child, which),
        }
    }

    /// R2U2's queue read: from where node `parent` last read `child`'s queue, the first
    /// tuple at or after `parent`'s `next_time`; none if there is none yet (the read
    /// position then rests on the last tuple written).
    fn read(&mut self, parent: usize, child: usize, which: usize) -> Option<Verdict> {
        let next_time = self.queues[parent].next_time;
        let (q, p) = if child == parent {
            return None;
        } else if child < parent {
            let (a, b) = self.queues.split_at_mut(parent);
            (&a[child], &mut b[0])
        } else {
            let (a, b) = self.queues.split_at_mut(child);
            (&b[0], &mut a[parent])
        };
        let len = q.slots.len();
        let read = &mut p.read[which];
        if q.slots[*read].time == NEVER && *read == 0 {
            return None;
        }
        loop {
            let slot = q.slots[*read];
            if slot.time >= next_time {
                return Some(slot);
            }
            // (No division: this loop is the engine's hottest.)
            *read = if *read + 1 == len { 0 } else { *read + 1 };
            if *read == q.write {
                break;
            }
        }
        *read = if *read == 0 { len - 1 } else { *read - 1 };
        None
    }

    /// R2U2's queue write: `v` replaces the last tuple if it has the same truth (and the
    /// queue is not empty), else it is added.
    ///
    /// A pass that writes makes another pass run, as in R2U2, but only if the write changed
    /// the queue: R2U2 also counts a write of the tuple already there, and then never ends
    /// the step when a constant alone decides a node (`a0 && false`, `F[0,2] true`: each
    /// pass writes the same tuple again). Those steps end here, with the same verdicts.
    fn write(&mut self, k: usize, v: Verdict) {
        let q = &mut self.queues[k];
        let len = q.slots.len();
        let prev = if q.write == 0 { len - 1 } else { q.write - 1 };
        let empty = q.slots[q.write].time == NEVER && q.write == 0;
        let before = q.write;
        if q.slots[prev].truth == v.truth && !empty {
            q.write = prev;
        }
        let unchanged = q.slots[q.write] == v;
        q.slots[q.write] = v;
        q.write = (q.write + 1) % len;
        let unchanged = unchanged && q.write == before;
        if self.pass == Pass::Quiet && !unchanged {
            self.pass = Pass::Progress;
        }
    }

    fn update(&mut self, k: usize, atoms: &[bool], out: &mut Vec<(usize, Verdict)>) {
        let kind = self.nodes[k].kind;
        let a = self.operand(k, 0, atoms);
        let result = match kind {
            Kind::Load => a.inspect(|v| self.queues[k].next_time = v.time.saturating_add(1)),
            Kind::Return(formula) => {
                if let Some(v) = a {
                    self.queues[k].next_time = v.time.saturating_add(1);
                    out.push((formula, v));
                }
                None
            }
            Kind::Not => a.map(|v| {
                self.queues[k].next_time = v.time.saturating_add(1);
                Verdict {
                    time: v.time,
                    truth: !v.truth,
                }
            }),
            _ => {
                let b = self.operand(k, 1, atoms);
                let (lb, ub) = (self.nodes[k].lb, self.nodes[k].ub);
                let q = self.queues[k].state();
                match kind {
                    Kind::And => crate::ops::and(a, b, q),
                    Kind::Or => crate::ops::or(a, b, q),
                    Kind::Equiv => crate::ops::equiv(a, b, q),
                    Kind::Until => crate::ops::until(a, b, lb, ub, q, false),
                    Kind::Release => crate::ops::until(a, b, lb, ub, q, true),
                    Kind::Since => crate::ops::since(a, b, lb, ub, q, false),
                    Kind::Trigger => crate::ops::since(a, b, lb, ub, q, true),
                    _ => None,
                }
            }
        };
        if let Some(v) = result {
            self.write(k, v);
        }
    }
}

/// What the operators read and change of their node's queue.
pub(crate) struct State<'a> {
    pub next_time: &'a mut Time,
    pub previous: &'a mut Verdict,
    pub edge: &'a mut Verdict,
}

impl Queue {
    fn state(&mut self) -> State<'_> {
        State {
            next_time: &mut self.next_time,
            previous: &mut self.previous,
            edge: &mut self.edge,
        }
    }
}
