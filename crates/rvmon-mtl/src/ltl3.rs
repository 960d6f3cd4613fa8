//! The three-valued engine for formulas with unbounded future operators: LTL3's verdicts
//! (Bauer, Leucker and Schallhart). A time point is violated as soon as every continuation of
//! the trace violates the formula there, satisfied as soon as every continuation satisfies it,
//! and inconclusive at the end only when it is neither.
//!
//! How: every node's value at a time point is a *residue*, a Boolean function (a [`Bdd`]) of
//! obligations on the rest of the trace: "`p UNTIL q` holds from the next position on, with its
//! window counted from timestamp t" or "`NEXT p`'s operand holds at the next position". Reading
//! the next time point replaces each obligation by its one-step unfolding (progression), so a
//! pending time point's residue follows the trace. A residue that becomes a constant is a
//! verdict; otherwise the [`Tableau`] asks whether it, or its negation, can still hold on some
//! continuation: if not, the verdict is certain now. `EVENTUALLY p AND ALWAYS NOT p` is thus a
//! violation at once, where progression alone would wait forever.
//!
//! Time points whose residues are the same function share one [`Bdd`] node and are kept
//! together: `request IMPLIES EVENTUALLY grant` holds one group for all the requests waiting
//! for a grant. Memory: the residues (bounded by the formula and, for metric windows, the
//! timestamps inside them) and the list of the pending time points themselves.
//!
//! Past operators are evaluated at their own time point, as in the past-only engine; a past
//! operator over a future one is left to the eager engine ([`Ltl3Engine::applies`]).

use std::collections::VecDeque;

use rustc_hash::FxHashMap as HashMap;

use crate::Step;
use rvmon_core::{Error, TimePoint, Timestamp, Truth, Verdict};

use crate::bdd::{Bdd, Manager, Var, FALSE, TRUE};
use crate::past::{since_step, NONE};
use crate::program::{Op, Program, Window};
use crate::sat::{tri, Decision, Lit, Residue, Sat, Tableau, Tri, DAG_FALSE, DAG_TRUE};

/// Time points whose residues are the same function.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
struct Group {
    residue: Bdd,
    points: Vec<(u64, Timestamp)>,
    /// Already found open with this residue and the current past values.
    open: bool,
}

/// Adds `points` with `residue` to `groups`, merging with the group of the same residue.
fn merge(
    groups: &mut Vec<Group>,
    index: &mut HashMap<Bdd, usize>,
    residue: Bdd,
    points: Vec<(u64, Timestamp)>,
    open: bool,
) {
    match index.get(&residue) {
        Some(&k) => {
            let g = &mut groups[k];
            g.points.extend(points);
            g.open &= open;
        }
        None => {
            index.insert(residue, groups.len());
            groups.push(Group {
                residue,
                points,
                open,
            });
        }
    }
}

/// The BDD operations (`ite` computations) one time point may take. Why a bound: some
/// residues grow exponentially in the formula (`request R !X a R !X a R …`: 2^21 nodes at 21
/// levels, 10 GB), and the three-valued engine has no cheaper exact form to fall back on; it
/// stops with an error instead of running out of time or memory. 2^20 operations take about
/// 0.4 s (a run of a few time points at the bound stays within seconds: at 2^22, a 430-level
/// `G F G F …` took 1.6 s per time point); ordinary formulas take hundreds per time point.
pub const MAX_STEP_WORK: u64 = 1 << 20;

/// The BDD nodes the residues of all pending time points may hold together (about 100 bytes
/// each with their unique-table entry: 400 MiB at most, within the default memory limit).
pub const MAX_BDD_NODES: usize = 1 << 22;

/// What the tableau said of a residue, cached by its literal form and the past values.
type CheckKey = (Residue, Vec<Tri>);

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Ltl3Engine {
    program: Program,
    /// The program's nodes with constants folded away (`NEXT FALSE` is `FALSE`): the
    /// tableau's states grow with every node, so the check is cheaper without them.
    ops: Vec<Op>,
    tableau: Tableau,
    bdd: Manager,
    holds: Vec<bool>,
    /// Whether each node is free of future operators (its value is decided at its position).
    settled: Vec<bool>,
    /// Scratch: each node's residue at the current position.
    vals: Vec<Bdd>,
    /// The settled nodes' values at the previous position (read by `PREVIOUS`).
    prev: Vec<bool>,
    prev_ts: Option<Timestamp>,
    since_last: Vec<Timestamp>,
    since_cands: Vec<VecDeque<Timestamp>>,
    pending: Vec<Group>,
    /// The remembered past values at the previous position (the tableau's starting point).
    last_past: Vec<Tri>,
    /// Node count after the last rebuild of the BDD table.
    live: usize,
    #[serde(skip)]
    checked: HashMap<CheckKey, Truth>,
    /// Scratch space of one step, kept to save allocations.
    #[serde(skip)]
    scratch: Scratch,
}

#[derive(Clone, Debug, Default)]
struct Scratch {
    compose_memo: HashMap<Bdd, Bdd>,
    unfolded: HashMap<Var, Bdd>,
    index: HashMap<Bdd, usize>,
    past: Vec<Tri>,
}

fn untimed(w: &Window) -> bool {
    w.lo == 0 && w.hi.is_none()
}

impl Ltl3Engine {
    /// Whether the three-valued engine runs `program`: it has a future operator without an
    /// upper bound, and no past operator has a future operator below it.
    pub fn applies(program: &Program) -> bool {
        let settled = settled_nodes(&program.ops);
        let unbounded = program
            .ops
            .iter()
            .any(|op| matches!(op, Op::Next(w, _) | Op::Until(w, _, _) if w.hi.is_none()));
        let past_over_future = program
            .ops
            .iter()
            .enumerate()
            .any(|(i, op)| matches!(op, Op::Prev(..) | Op::Since(..)) && !settled[i]);
        unbounded && !past_over_future
    }

    /// `program` must satisfy [`Ltl3Engine::applies`].
    pub fn new(program: Program) -> Ltl3Engine {
        let ops = fold_constants(&program.ops);
        let n = ops.len();
        Ltl3Engine {
            tableau: Tableau::new(&ops, program.props.len()),
            settled: settled_nodes(&ops),
            holds: vec![false; program.props.len()],
            vals: vec![FALSE; n],
            prev: vec![false; n],
            prev_ts: None,
            since_last: vec![NONE; n],
            since_cands: vec![VecDeque::new(); n],
            pending: Vec::new(),
            last_past: Vec::new(),
            bdd: Manager::new(),
            live: 2,
            checked: HashMap::default(),
            scratch: Scratch::default(),
            ops,
            program,
        }
    }

    pub fn program(&self) -> &Program {
        &self.program
    }

    pub fn set_holds(&mut self, holds: &[bool]) {
        self.holds.copy_from_slice(holds);
    }

    /// Pending time points and BDD nodes: the engine's memory, in units.
    pub fn held(&self) -> usize {
        self.pending.iter().map(|g| g.points.len()).sum::<usize>() + self.bdd.len()
    }

    /// Feeds one position; the verdicts it decides (for it or for earlier time points) are
    /// appended to `out` in time-point order. An error when the residues outgrow
    /// [`MAX_STEP_WORK`] or [`MAX_BDD_NODES`]; `out` then has nothing of this position, and
    /// the engine must not be fed again.
    pub fn step_props(
        &mut self,
        tp: u64,
        ts: Timestamp,
        out: &mut Vec<Verdict>,
    ) -> Result<(), Error> {
        self.bdd.allow(MAX_STEP_WORK);
        let first_decided = out.len();
        self.decide(tp, ts, out);
        if self.bdd.exhausted() || self.bdd.len() > MAX_BDD_NODES {
            out.truncate(first_decided);
            let what = if self.bdd.exhausted() {
                format!("more than {MAX_STEP_WORK} BDD operations for one time point")
            } else {
                format!("more than {MAX_BDD_NODES} BDD nodes")
            };
            return Err(Error::msg(format!(
                "the three-valued engine stopped at time point {tp} (timestamp {ts}): the \
                 formula's residues need {what} (they can grow exponentially with nested \
                 UNTIL/RELEASE over NEXT); the verdicts before this time point are written"
            )));
        }
        Ok(())
    }

    /// [`Ltl3Engine::step_props`] without the budget check.
    fn decide(&mut self, tp: u64, ts: Timestamp, out: &mut Vec<Verdict>) {
        self.evaluate_nodes(ts);
        let mut groups = self.progress_pending(ts);
        let root = self.vals[self.ops.len() - 1];
        let mut index = std::mem::take(&mut self.scratch.index);
        merge(&mut groups, &mut index, root, vec![(tp, ts)], false);
        index.clear();
        self.scratch.index = index;
        let mut past = std::mem::take(&mut self.scratch.past);
        past.clear();
        past.extend(
            self.tableau
                .tracked()
                .iter()
                .map(|&t| tri(self.vals[t as usize] == TRUE)),
        );
        let past_changed = past != self.last_past;
        let first_decided = out.len();
        for mut g in groups {
            if g.open && !past_changed {
                self.pending.push(g);
                continue;
            }
            match self.classify(g.residue, &past) {
                Truth::Unknown => {
                    g.open = true;
                    self.pending.push(g)
                }
                value => out.extend(g.points.iter().map(|&(tp, ts)| Verdict { tp, ts, value })),
            }
        }
        self.scratch.past = std::mem::replace(&mut self.last_past, past);
        out[first_decided..].sort_unstable_by_key(|v| v.tp);
        for (i, p) in self.prev.iter_mut().enumerate() {
            *p = self.vals[i] == TRUE;
        }
        self.prev_ts = Some(ts);
        self.collect_garbage();
    }

    /// Each node's residue at the current position, children first.
    fn evaluate_nodes(&mut self, ts: Timestamp) {
        for i in 0..self.ops.len() {
            let bdd = &mut self.bdd;
            let vals = &self.vals;
            let v = match self.ops[i] {
                Op::Const(b) => Manager::constant(b),
                Op::Atom(p) => Manager::constant(self.holds[p]),
                Op::Not(c) => bdd.not(vals[c]),
                Op::And(l, r) => bdd.and(vals[l], vals[r]),
                Op::Or(l, r) => bdd.or(vals[l], vals[r]),
                Op::Prev(w, c) => Manager::constant(
                    self.prev_ts.is_some_and(|pt| w.contains(ts - pt)) && self.prev[c],
                ),
                Op::Since(w, l, r) => Manager::constant(since_step(
                    &w,
                    &mut self.since_last[i],
                    &mut self.since_cands[i],
                    vals[l] == TRUE,
                    vals[r] == TRUE,
                    ts,
                )),
                Op::Next(w, _) => bdd.var(Var {
                    node: i as u32,
                    at: if untimed(&w) { Var::UNTIMED } else { ts },
                }),
                Op::Until(w, l, r) => {
                    let at = if untimed(&w) { Var::UNTIMED } else { ts };
                    unfold_until(bdd, i, &w, at, vals[l], vals[r], ts)
                }
            };
            self.vals[i] = v;
        }
    }

    /// The pending residues after the current position: each obligation replaced by its
    /// unfolding there. Groups whose residues become equal are merged.
    fn progress_pending(&mut self, ts: Timestamp) -> Vec<Group> {
        let mut groups: Vec<Group> = Vec::with_capacity(self.pending.len() + 1);
        let Scratch {
            compose_memo: memo,
            unfolded,
            index,
            ..
        } = &mut self.scratch;
        memo.clear();
        unfolded.clear();
        index.clear();
        let ops = &self.ops;
        let vals = &self.vals;
        let mut subst = |bdd: &mut Manager, v: Var| -> Bdd {
            if let Some(&f) = unfolded.get(&v) {
                return f;
            }
            let f = match ops[v.node as usize] {
                Op::Until(w, l, r) => {
                    unfold_until(bdd, v.node as usize, &w, v.at, vals[l], vals[r], ts)
                }
                Op::Next(w, c) if v.at == Var::UNTIMED || w.contains(ts - v.at) => vals[c],
                Op::Next(..) => FALSE,
                ref op => unreachable!("obligation on {op:?}"),
            };
            unfolded.insert(v, f);
            f
        };
        for g in self.pending.drain(..) {
            let residue = self.bdd.compose(g.residue, &mut subst, memo);
            let open = g.open && residue == g.residue;
            merge(&mut groups, index, residue, g.points, open);
        }
        groups
    }

    /// The verdict a residue gives now: `Unknown` while both values are still possible.
    fn classify(&mut self, residue: Bdd, past: &[Tri]) -> Truth {
        match residue {
            TRUE => return Truth::True,
            FALSE => return Truth::False,
            _ => {}
        }
        let key = (self.residue_form(residue), past.to_vec());
        if let Some(&t) = self.checked.get(&key) {
            return t;
        }
        let negated = self.bdd.not(residue);
        let verdict = if self.tableau.satisfiable(&key.0, past) == Sat::No {
            Truth::False
        } else if self.tableau.satisfiable(&self.residue_form(negated), past) == Sat::No {
            Truth::True
        } else {
            Truth::Unknown
        };
        self.checked.insert(key, verdict);
        verdict
    }

    /// The residue as the tableau reads it: its BDD with each variable replaced by the
    /// literals its two values mean at the next position. Also the cache key: residues that
    /// differ only in where their windows started share it.
    fn residue_form(&self, residue: Bdd) -> Residue {
        let mut nodes = vec![
            Decision {
                yes: None,
                no: None,
                hi: DAG_FALSE,
                lo: DAG_FALSE,
            };
            2
        ];
        let mut index: HashMap<Bdd, u32> =
            [(FALSE, DAG_FALSE), (TRUE, DAG_TRUE)].into_iter().collect();
        // Children before parents, without recursion: a node is copied once both are.
        let mut stack = vec![residue];
        while let Some(&f) = stack.last() {
            if index.contains_key(&f) {
                stack.pop();
                continue;
            }
            let (v, lo, hi) = self.bdd.node(f);
            let (Some(&lo), Some(&hi)) = (index.get(&lo), index.get(&hi)) else {
                stack.extend([lo, hi].into_iter().filter(|c| !index.contains_key(c)));
                continue;
            };
            stack.pop();
            index.insert(f, nodes.len() as u32);
            nodes.push(Decision {
                yes: self.obligation_literal(v, true),
                no: self.obligation_literal(v, false),
                hi,
                lo,
            });
        }
        Residue {
            root: index[&residue],
            nodes,
        }
    }

    /// An obligation (or its negation) as a literal at the next position; `None` when the
    /// relaxation leaves it free.
    fn obligation_literal(&self, v: Var, pos: bool) -> Option<Lit> {
        match self.ops[v.node as usize] {
            Op::Until(w, ..) => Some(Lit {
                node: self.tableau.canon(v.node as usize),
                pos,
                exact: v.at == Var::UNTIMED || untimed(&w),
                cont: !untimed(&w),
            }),
            Op::Next(w, c) => {
                let exact = v.at == Var::UNTIMED || untimed(&w);
                (pos || exact).then(|| self.tableau.fresh(c, pos))
            }
            ref op => unreachable!("obligation on {op:?}"),
        }
    }

    /// Rebuilds the BDD table from the pending residues once it has grown well past them.
    fn collect_garbage(&mut self) {
        if self.bdd.memo_len() > 1 << 18 {
            self.bdd.clear_memo();
        }
        if self.bdd.len() > 2 * self.live + (1 << 16) {
            let mut roots: Vec<Bdd> = self.pending.iter().map(|g| g.residue).collect();
            self.bdd.rebuild(&mut roots);
            for (g, r) in self.pending.iter_mut().zip(roots) {
                g.residue = r;
            }
            self.live = self.bdd.len();
        }
    }

    /// Ends the trace: the time points still pending are inconclusive.
    pub fn finish_trace(&mut self, out: &mut Vec<Verdict>) {
        let mut rest: Vec<Verdict> = self
            .pending
            .drain(..)
            .flat_map(|g| g.points)
            .map(|(tp, ts)| Verdict {
                tp,
                ts,
                value: Truth::Unknown,
            })
            .collect();
        rest.sort_unstable_by_key(|v| v.tp);
        out.extend(rest);
    }
}

/// `ops` with the constants folded: `NOT`, `AND`, `OR` of constants, `PREVIOUS`/`NEXT`/`SINCE`/
/// `UNTIL` of a false operand that must hold, `FALSE UNTIL[0,b] q` is `q`. Post-order is kept;
/// the last node is the root.
fn fold_constants(ops: &[Op]) -> Vec<Op> {
    #[derive(Clone, Copy)]
    enum V {
        K(bool),
        N(usize),
    }
    let mut out: Vec<Op> = Vec::with_capacity(ops.len());
    let node = |out: &mut Vec<Op>, v: V| match v {
        V::N(n) => n,
        V::K(b) => {
            out.push(Op::Const(b));
            out.len() - 1
        }
    };
    let mut vals: Vec<V> = Vec::with_capacity(ops.len());
    for op in ops {
        let v = match *op {
            Op::Const(b) => V::K(b),
            Op::Not(c) => match vals[c] {
                V::K(b) => V::K(!b),
                c => {
                    let c = node(&mut out, c);
                    out.push(Op::Not(c));
                    V::N(out.len() - 1)
                }
            },
            Op::And(l, r) | Op::Or(l, r) => {
                let dominant = matches!(op, Op::Or(..));
                match (vals[l], vals[r]) {
                    (V::K(b), _) | (_, V::K(b)) if b == dominant => V::K(dominant),
                    (V::K(_), x) | (x, V::K(_)) => x,
                    (V::N(a), V::N(b)) => {
                        out.push(if dominant {
                            Op::Or(a, b)
                        } else {
                            Op::And(a, b)
                        });
                        V::N(out.len() - 1)
                    }
                }
            }
            Op::Prev(_, c) | Op::Next(_, c) if matches!(vals[c], V::K(false)) => V::K(false),
            Op::Since(_, _, r) | Op::Until(_, _, r) if matches!(vals[r], V::K(false)) => {
                V::K(false)
            }
            Op::Until(w, l, r) if w.lo == 0 && matches!(vals[l], V::K(false)) => vals[r],
            ref op => {
                let mut op = op.clone();
                match &mut op {
                    Op::Atom(_) => {}
                    Op::Prev(_, c) | Op::Next(_, c) => *c = node(&mut out, vals[*c]),
                    Op::Since(_, l, r) | Op::Until(_, l, r) => {
                        *l = node(&mut out, vals[*l]);
                        *r = node(&mut out, vals[*r]);
                    }
                    other => unreachable!("folded above: {other:?}"),
                }
                out.push(op);
                V::N(out.len() - 1)
            }
        };
        vals.push(v);
    }
    let root = *vals.last().expect("a program has a root");
    if let V::K(b) = root {
        out.push(Op::Const(b));
    } else if let V::N(n) = root {
        if n + 1 != out.len() {
            // The root's node was built earlier (an AND with TRUE, say): repeat it last.
            let f = node(&mut out, V::K(false));
            out.push(Op::Or(n, f));
        }
    }
    out
}

/// Which nodes have no future operator in their subtree (children come before parents).
fn settled_nodes(ops: &[Op]) -> Vec<bool> {
    let mut settled = vec![true; ops.len()];
    for (i, op) in ops.iter().enumerate() {
        settled[i] = match *op {
            Op::Const(_) | Op::Atom(_) => true,
            Op::Not(c) | Op::Prev(_, c) => settled[c],
            Op::And(l, r) | Op::Or(l, r) | Op::Since(_, l, r) => settled[l] && settled[r],
            Op::Next(..) | Op::Until(..) => false,
        };
    }
    settled
}

/// `p UNTIL q` whose window counts from `at` ([`Var::UNTIMED`]: no longer matters), from the
/// position with timestamp `ts` on, where `p` and `q` have residues `l` and `r`: `q` now if
/// now is in the window, or `p` now and the same obligation from the next position on.
fn unfold_until(
    bdd: &mut Manager,
    node: usize,
    w: &Window,
    at: Timestamp,
    l: Bdd,
    r: Bdd,
    ts: Timestamp,
) -> Bdd {
    let elapsed = (at != Var::UNTIMED).then(|| ts.saturating_sub(at));
    if let (Some(d), Some(h)) = (elapsed, w.hi) {
        if d > h {
            return FALSE;
        }
    }
    let in_window = elapsed.is_none_or(|d| d >= w.lo);
    // Once the lower bound is reached, an unbounded window accepts every later position.
    let cont_at = if at == Var::UNTIMED || (w.hi.is_none() && in_window) {
        Var::UNTIMED
    } else {
        at
    };
    let cont = bdd.var(Var {
        node: node as u32,
        at: cont_at,
    });
    let stay = bdd.and(l, cont);
    if in_window {
        bdd.or(r, stay)
    } else {
        stay
    }
}

impl Step for Ltl3Engine {
    fn step(&mut self, tp: &TimePoint, out: &mut Vec<Verdict>) -> Result<(), Error> {
        self.program.load_holds(tp, &mut self.holds);
        self.step_props(tp.index, tp.ts, out)
    }

    fn finish(&mut self, out: &mut Vec<Verdict>) {
        self.finish_trace(out);
    }
}
