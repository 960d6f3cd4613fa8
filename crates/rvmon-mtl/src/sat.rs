//! Is there an infinite continuation of the trace on which a residue holds? The decision behind
//! the three-valued engine's verdicts (LTL3, Bauer, Leucker and Schallhart): a time point is
//! violated as soon as its residue is unsatisfiable, satisfied as soon as its negation is.
//!
//! The check is a tableau in the style of Gerth, Peled, Vardi and Wolper, run directly on the
//! program's nodes. A state is a set of signed node literals that must hold at the current
//! position, plus the values the untimed past operators had at the previous position (past
//! operators are deterministic: `p SINCE q` now is `q OR (p AND (p SINCE q) before)`). A state
//! is expanded into its successors by choosing how each literal holds; `p UNTIL q` either is
//! fulfilled now (`q`) or is postponed (`p`, and `p UNTIL q` at the next position). A residue
//! is satisfiable iff some reachable strongly connected component has a cycle that fulfils
//! every until it postpones (a generalised Büchi condition on the transitions).
//!
//! Metric operators are relaxed, which keeps every decided verdict sound: satisfiability of
//! MTL over infinite timed words is undecidable, so the continuation's timestamps are not
//! modelled. A positive `p UNTIL[a,b] q` becomes `p UNTIL q` (which it implies), a negative one
//! and every metric past operator in the continuation are left free (both values allowed).
//! Relaxing only ever adds continuations, so "no continuation satisfies it" stays true of the
//! real formula; what is lost is that some certain verdicts may stay inconclusive. For
//! formulas whose temporal operators are all untimed (LTL with past), the check is exact.

use rustc_hash::FxHashMap as HashMap;

use crate::program::{Op, Window};

/// A literal: program node `node` holds (`pos`) or not at the current position. `exact` is
/// false for an instance of a metric operator, which the check relaxes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub(crate) struct Lit {
    pub node: u32,
    pub pos: bool,
    pub exact: bool,
    /// The continuation of a metric until from an earlier position (a different formula from
    /// the operator's fresh instance here, so it is assigned apart from it).
    pub cont: bool,
}

/// A past value in a tableau state: unknown (free), false or true.
pub(crate) type Tri = u8;
pub(crate) const FREE: Tri = 0;
pub(crate) const NO: Tri = 1;
pub(crate) const YES: Tri = 2;

pub(crate) fn tri(b: bool) -> Tri {
    if b {
        YES
    } else {
        NO
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Sat {
    Yes,
    No,
    /// The search exceeded its budget: nothing is claimed.
    Unknown,
}

/// The most states one check explores before it gives up (and the verdict stays open).
const MAX_STATES: usize = 20_000;
/// The most literals all the states of one check may hold together (a residue of a formula
/// with thousands of operators has states of thousands of literals each).
const MAX_LITERALS: usize = 2_000_000;
/// The most expansion steps one check takes before it gives up.
const MAX_BRANCHES: usize = 250_000;

/// A residue as the tableau reads it: a decision diagram (a copy of the residue's BDD) whose
/// tests are literals at the first position of the continuation. Walking it during the first
/// expansion avoids listing its paths, which can be exponentially many.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Residue {
    /// Entries [`DAG_FALSE`] and [`DAG_TRUE`] are the terminals.
    pub nodes: Vec<Decision>,
    pub root: u32,
}

/// One test of a [`Residue`]: the literal that holds on each side (`None`: a relaxed
/// obligation, which constrains nothing) and where each side goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Decision {
    pub yes: Option<Lit>,
    pub no: Option<Lit>,
    pub hi: u32,
    pub lo: u32,
}

pub(crate) const DAG_FALSE: u32 = 0;
pub(crate) const DAG_TRUE: u32 = 1;

#[derive(Clone, Debug, PartialEq, Eq, Hash)]
struct State {
    lits: Vec<Lit>,
    past: Vec<Tri>,
    /// The part of the residue still to walk ([`DAG_TRUE`] after the first position).
    walk: u32,
}

/// One branch of an expansion in progress.
#[derive(Clone)]
struct Branch {
    todo: Vec<Lit>,
    /// Per node: FREE (unassigned), NO or YES at the current position.
    asg: Vec<Tri>,
    /// Per proposition: FREE, NO or YES.
    letter: Vec<Tri>,
    next: Vec<Lit>,
    postponed: Vec<u32>,
    tracked_done: usize,
    walk: u32,
}

/// The tableau of one program: which nodes are exact, which past values are remembered.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub(crate) struct Tableau {
    ops: Vec<Op>,
    props: usize,
    exact: Vec<bool>,
    /// Nodes whose value at a position the next position reads: untimed `SINCE` nodes and
    /// the operands of untimed `PREVIOUS` nodes (all free of future operators).
    tracked: Vec<u32>,
    /// Per node: its slot in `tracked` for `SINCE`, its operand's slot for `PREVIOUS`.
    slot: Vec<u32>,
    /// Per node: the first node with the same subtree. Literals name that one, so that the
    /// copies the compiler makes (each side of `EQUIV` twice) are one literal, not two
    /// independent ones that multiply the states.
    canon: Vec<u32>,
}

/// For each node, the first node of `ops` whose subtree is the same (children first).
fn canonical_nodes(ops: &[Op]) -> Vec<u32> {
    let mut canon: Vec<u32> = Vec::with_capacity(ops.len());
    let mut seen: HashMap<Op, u32> = HashMap::default();
    for (i, op) in ops.iter().enumerate() {
        let mut key = op.clone();
        match &mut key {
            Op::Const(_) | Op::Atom(_) => {}
            Op::Not(c) | Op::Prev(_, c) | Op::Next(_, c) => *c = canon[*c] as usize,
            Op::And(l, r) | Op::Or(l, r) | Op::Since(_, l, r) | Op::Until(_, l, r) => {
                *l = canon[*l] as usize;
                *r = canon[*r] as usize;
            }
        }
        canon.push(*seen.entry(key).or_insert(i as u32));
    }
    canon
}

fn untimed(w: &Window) -> bool {
    w.lo == 0 && w.hi.is_none()
}

impl Tableau {
    pub(crate) fn new(ops: &[Op], props: usize) -> Tableau {
        let exact = ops
            .iter()
            .map(|op| match op {
                Op::Prev(w, _) | Op::Next(w, _) | Op::Since(w, _, _) | Op::Until(w, _, _) => {
                    untimed(w)
                }
                _ => true,
            })
            .collect();
        let canon = canonical_nodes(ops);
        let mut tracked = Vec::new();
        let mut slot = vec![u32::MAX; ops.len()];
        for (i, op) in ops
            .iter()
            .enumerate()
            .filter(|&(i, _)| canon[i] == i as u32)
        {
            match op {
                Op::Since(w, ..) if untimed(w) => {
                    slot[i] = tracked.len() as u32;
                    tracked.push(i as u32);
                }
                Op::Prev(w, c) if untimed(w) => {
                    let c = canon[*c];
                    let s = match tracked.iter().position(|&t| t == c) {
                        Some(s) => s,
                        None => {
                            tracked.push(c);
                            tracked.len() - 1
                        }
                    };
                    slot[i] = s as u32;
                }
                _ => {}
            }
        }
        Tableau {
            ops: ops.to_vec(),
            props,
            exact,
            tracked,
            slot,
            canon,
        }
    }

    /// The remembered nodes, in the order of a state's past values.
    pub(crate) fn tracked(&self) -> &[u32] {
        &self.tracked
    }

    /// The literal of a fresh instance of `node` at a position.
    /// The node literals name for `node` (the first one with the same subtree).
    pub(crate) fn canon(&self, node: usize) -> u32 {
        self.canon[node]
    }

    pub(crate) fn fresh(&self, node: usize, pos: bool) -> Lit {
        Lit {
            node: self.canon[node],
            pos,
            exact: self.exact[node],
            cont: false,
        }
    }

    /// Whether some continuation satisfies `residue` at its first position, given the
    /// remembered past values there.
    ///
    /// The graph is explored on the fly, depth first (Tarjan's algorithm, iterative): each
    /// component is judged as soon as it is complete, and the first accepting one ends the
    /// search. Satisfiable residues, the common case, rarely need the whole graph.
    pub(crate) fn satisfiable(&self, residue: &Residue, past: &[Tri]) -> Sat {
        let mut g = Search::default();
        let mut budget = MAX_BRANCHES;
        let root = g.add(State {
            lits: Vec::new(),
            past: past.to_vec(),
            walk: residue.root,
        });
        match self.search_from(&mut g, root, residue, &mut budget) {
            Some(found) => found,
            None => Sat::No,
        }
    }

    /// Tarjan's search from `root`: `Some(Yes)` at the first accepting component, `Some(Unknown)`
    /// when the budget runs out, `None` when everything reachable has been judged.
    fn search_from(
        &self,
        g: &mut Search,
        root: usize,
        residue: &Residue,
        budget: &mut usize,
    ) -> Option<Sat> {
        let mut call: Vec<(usize, usize)> = Vec::new();
        g.visit(root);
        call.push((root, 0));
        while let Some(&mut (v, ref mut k)) = call.last_mut() {
            if *k == 0 && g.edges[v].is_none() {
                let succ = self.successors(&g.states[v], residue, budget);
                if g.states.len() >= MAX_STATES || g.literals > MAX_LITERALS || *budget == 0 {
                    return Some(Sat::Unknown);
                }
                let mut out: Vec<Edge> = Vec::with_capacity(succ.len());
                for (s, postponed) in succ {
                    let to = g.add(s);
                    if !out.contains(&(to, postponed.clone())) {
                        out.push((to, postponed));
                    }
                }
                g.edges[v] = Some(out);
            }
            let edges = g.edges[v].as_ref().expect("expanded above");
            if *k < edges.len() {
                let w = edges[*k].0;
                *k += 1;
                if g.index[w] == usize::MAX {
                    g.visit(w);
                    call.push((w, 0));
                } else if g.on_stack[w] {
                    g.low[v] = g.low[v].min(g.index[w]);
                }
                continue;
            }
            call.pop();
            if let Some(&(u, _)) = call.last() {
                g.low[u] = g.low[u].min(g.low[v]);
            }
            if g.low[v] == g.index[v] && g.pop_component(v) {
                return Some(Sat::Yes);
            }
        }
        None
    }

    /// Every way `state` can hold at its position: the next state and the untils postponed.
    fn successors(
        &self,
        state: &State,
        residue: &Residue,
        budget: &mut usize,
    ) -> Vec<(State, Vec<u32>)> {
        let mut out = Vec::new();
        let mut stack = vec![Branch {
            todo: state.lits.clone(),
            asg: vec![FREE; 2 * self.ops.len()],
            letter: vec![FREE; self.props],
            next: Vec::new(),
            postponed: Vec::new(),
            tracked_done: 0,
            walk: state.walk,
        }];
        'branches: while let Some(mut b) = stack.pop() {
            loop {
                // A step costs more on a large program: a branch copies per-node assignments.
                let cost = 1 + self.ops.len() / 32;
                if *budget < cost {
                    *budget = 0;
                    return out;
                }
                *budget -= cost;
                if let Some(lit) = b.todo.pop() {
                    match self.apply(&mut b, lit, &state.past) {
                        Ok(Some(alt)) => stack.push(alt),
                        Ok(None) => {}
                        Err(()) => continue 'branches,
                    }
                } else if b.walk != DAG_TRUE {
                    // One test of the residue: its two sides are two branches.
                    if b.walk == DAG_FALSE {
                        continue 'branches;
                    }
                    let d = residue.nodes[b.walk as usize];
                    let mut alt = b.clone();
                    alt.walk = d.lo;
                    alt.todo.extend(d.no);
                    stack.push(alt);
                    b.walk = d.hi;
                    b.todo.extend(d.yes);
                } else if b.tracked_done < self.tracked.len() {
                    let t = self.tracked[b.tracked_done] as usize;
                    b.tracked_done += 1;
                    if b.asg[t] == FREE && self.exact[t] {
                        let mut alt = b.clone();
                        alt.todo.push(self.fresh(t, false));
                        stack.push(alt);
                        b.todo.push(self.fresh(t, true));
                    }
                } else {
                    let mut next = std::mem::take(&mut b.next);
                    next.sort_unstable();
                    next.dedup();
                    let past = self.tracked.iter().map(|&t| b.asg[t as usize]).collect();
                    let mut postponed = std::mem::take(&mut b.postponed);
                    postponed.sort_unstable();
                    postponed.dedup();
                    let next = State {
                        lits: next,
                        past,
                        walk: DAG_TRUE,
                    };
                    out.push((next, postponed));
                    continue 'branches;
                }
            }
        }
        out
    }

    /// Makes `lit` hold in branch `b`; returns the other branch of a choice, or `Err` when
    /// `b` is contradictory.
    fn apply(&self, b: &mut Branch, lit: Lit, past: &[Tri]) -> Result<Option<Branch>, ()> {
        let j = lit.node as usize;
        let op = &self.ops[j];
        // A relaxed instance constrains nothing, except a positive metric until (below).
        if !lit.exact && (!lit.pos || matches!(op, Op::Since(..) | Op::Prev(..))) {
            return Ok(None);
        }
        let want = tri(lit.pos);
        let key = if lit.cont { j + self.ops.len() } else { j };
        match b.asg[key] {
            FREE => b.asg[key] = want,
            a if a == want => return Ok(None),
            _ => return Err(()),
        }
        let fresh = |n: usize, pos: bool| self.fresh(n, pos);
        match *op {
            Op::Const(c) if c != lit.pos => return Err(()),
            Op::Const(_) => {}
            Op::Atom(p) => match b.letter[p] {
                FREE => b.letter[p] = want,
                a if a == want => {}
                _ => return Err(()),
            },
            Op::Not(c) => b.todo.push(fresh(c, !lit.pos)),
            Op::And(l, r) | Op::Or(l, r) => {
                // AND true and OR false need both operands; the other two need one of them.
                if matches!(op, Op::And(..)) == lit.pos {
                    b.todo.push(fresh(l, lit.pos));
                    b.todo.push(fresh(r, lit.pos));
                } else {
                    let mut alt = b.clone();
                    alt.todo.push(fresh(r, lit.pos));
                    b.todo.push(fresh(l, lit.pos));
                    return Ok(Some(alt));
                }
            }
            Op::Until(w, l, r) => {
                // What holds from the next position on: the same formula for an untimed
                // window, the continuation (with its own assignment) for a metric one.
                // A fresh `p UNTIL[a,b] q` with `a > 0` cannot be fulfilled at distance 0: its
                // relaxation is `p AND NEXT (p UNTIL q)`, still implied and tighter.
                let strict = !lit.cont && w.lo > 0;
                let lit = Lit {
                    cont: !untimed(&w),
                    ..lit
                };
                if lit.pos && strict {
                    b.todo.push(fresh(l, true));
                    b.next.push(lit);
                    b.postponed.push(lit.node);
                    return Ok(None);
                }
                let mut alt = b.clone();
                if lit.pos {
                    // Fulfilled now, or postponed.
                    alt.todo.push(fresh(r, true));
                    b.todo.push(fresh(l, true));
                    b.next.push(lit);
                    b.postponed.push(lit.node);
                } else {
                    // NOT q now, and NOT p now or NOT (p UNTIL q) next.
                    b.todo.push(fresh(r, false));
                    alt.todo.push(fresh(r, false));
                    alt.todo.push(fresh(l, false));
                    b.next.push(lit);
                }
                return Ok(Some(alt));
            }
            Op::Next(_, c) => b.next.push(fresh(c, lit.pos)),
            Op::Since(_, l, r) => {
                let before = past[self.slot[j] as usize];
                if lit.pos {
                    // q now, or p now and SINCE before.
                    if before == NO {
                        b.todo.push(fresh(r, true));
                    } else {
                        let mut alt = b.clone();
                        alt.todo.push(fresh(r, true));
                        b.todo.push(fresh(l, true));
                        return Ok(Some(alt));
                    }
                } else {
                    b.todo.push(fresh(r, false));
                    if before == YES {
                        b.todo.push(fresh(l, false));
                    }
                }
            }
            Op::Prev(_, _) => {
                let before = past[self.slot[j] as usize];
                if before != FREE && before != want {
                    return Err(());
                }
            }
        }
        Ok(None)
    }
}

/// A transition of the tableau: the state it leads to and the untils it postpones.
type Edge = (usize, Vec<u32>);

/// The graph of a search in progress, with Tarjan's bookkeeping.
#[derive(Default)]
struct Search {
    states: Vec<State>,
    ids: HashMap<State, usize>,
    /// Successors and the untils each edge postpones (`None`: not expanded yet).
    edges: Vec<Option<Vec<Edge>>>,
    index: Vec<usize>,
    low: Vec<usize>,
    on_stack: Vec<bool>,
    stack: Vec<usize>,
    next_index: usize,
    /// Literals held by all the states.
    literals: usize,
}

impl Search {
    fn add(&mut self, s: State) -> usize {
        if let Some(&id) = self.ids.get(&s) {
            return id;
        }
        let id = self.states.len();
        self.literals += s.lits.len() + s.past.len();
        self.ids.insert(s.clone(), id);
        self.states.push(s);
        self.edges.push(None);
        self.index.push(usize::MAX);
        self.low.push(0);
        self.on_stack.push(false);
        id
    }

    fn visit(&mut self, v: usize) {
        self.index[v] = self.next_index;
        self.low[v] = self.next_index;
        self.next_index += 1;
        self.stack.push(v);
        self.on_stack[v] = true;
    }

    /// Pops the component rooted at `v`; whether it is accepting: it has an internal edge,
    /// and no until is postponed on every one of its internal edges.
    fn pop_component(&mut self, v: usize) -> bool {
        let mut members = Vec::new();
        while let Some(w) = self.stack.pop() {
            self.on_stack[w] = false;
            members.push(w);
            if w == v {
                break;
            }
        }
        members.sort_unstable();
        let mut always: Option<Vec<u32>> = None;
        for &m in &members {
            for (w, postponed) in self.edges[m].iter().flatten() {
                if members.binary_search(w).is_err() {
                    continue;
                }
                always = Some(match always.take() {
                    None => postponed.clone(),
                    Some(acc) => acc.into_iter().filter(|u| postponed.contains(u)).collect(),
                });
            }
        }
        always.is_some_and(|a| a.is_empty())
    }
}
