//! The formula graph as C2PO keeps it while it compiles: objects with their children and
//! their set of parents, each with its best and worst propagation delays (`bpd`, `wpd`)
//! computed once, when it is made, from its children then.
//!
//! This is kept as C2PO keeps it, quirks included, because R2U2's queue sizes come from it
//! and the sizes change the verdict lines R2U2 prints: a delay is never recomputed when a
//! child is replaced, and an object a rewrite drops stays among its children's parents (so
//! its other children still count as their siblings).

use crate::engine::Time;
use crate::syntax::Temporal;

/// What an object is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum K {
    Const(bool),
    Atom(usize),
    Not,
    And,
    Or,
    Implies,
    Iff,
    Xor,
    Tl(Temporal, Time, Time),
    /// Formula `n`: its one child is its formula.
    Formula(usize),
    /// A section's formulas (future time, past time).
    Set,
}

#[derive(Clone, Debug)]
pub struct Obj {
    pub kind: K,
    pub children: Vec<usize>,
    /// A set (no object twice), in insertion order.
    pub parents: Vec<usize>,
    pub bpd: i64,
    pub wpd: i64,
}

#[derive(Clone, Debug, Default)]
pub struct Graph {
    pub objs: Vec<Obj>,
}

impl Graph {
    /// Makes an object, its delays from its children's (C2PO's constructors), and adds it to
    /// their parents.
    pub fn make(&mut self, kind: K, children: Vec<usize>) -> usize {
        let lo = children
            .iter()
            .map(|&c| self.objs[c].bpd)
            .min()
            .unwrap_or(0);
        let hi = children
            .iter()
            .map(|&c| self.objs[c].wpd)
            .max()
            .unwrap_or(0);
        let (bpd, wpd) = match kind {
            K::Const(_) | K::Atom(_) | K::Formula(_) | K::Set => (0, 0),
            K::Tl(t, lb, _) if t.is_past() => (lo - i64::from(lb), hi - i64::from(lb)),
            K::Tl(_, lb, ub) => (lo + i64::from(lb), hi + i64::from(ub)),
            _ => (lo, hi),
        };
        self.push(kind, children, bpd, wpd)
    }

    /// A parsed `H` or `O`, whose delays C2PO's parser sets from its operand's best delay:
    /// `bpd = p.bpd − ub`, `wpd = p.bpd − lb` (not as the `T`/`S` that replaces it has them).
    pub fn make_parsed_past(&mut self, t: Temporal, lb: Time, ub: Time, p: usize) -> usize {
        let b = self.objs[p].bpd;
        self.push(
            K::Tl(t, lb, ub),
            vec![p],
            b - i64::from(ub),
            b - i64::from(lb),
        )
    }

    fn push(&mut self, kind: K, children: Vec<usize>, bpd: i64, wpd: i64) -> usize {
        let k = self.objs.len();
        for &c in &children {
            add(&mut self.objs[c].parents, k);
        }
        self.objs.push(Obj {
            kind,
            children,
            parents: Vec::new(),
            bpd,
            wpd,
        });
        k
    }

    /// C2PO's `replace`: `old`'s parents read `new` in its place (and become `new`'s parents);
    /// `old` leaves its children's parents.
    pub fn replace(&mut self, old: usize, new: usize) {
        if old == new {
            return;
        }
        for p in self.objs[old].parents.clone() {
            for c in &mut self.objs[p].children {
                if *c == old {
                    *c = new;
                }
            }
            add(&mut self.objs[new].parents, p);
        }
        for c in self.objs[old].children.clone() {
            self.objs[c].parents.retain(|&p| p != old);
        }
    }

    /// The objects under `start`, children before parents (left to right), each once, as
    /// C2PO's `postorder`: an object's children are read when it is first reached, and
    /// `visit` may change the graph as it goes (what it makes is not visited).
    pub fn postorder(&mut self, start: usize, mut visit: impl FnMut(&mut Graph, usize)) {
        let mut stack = vec![(false, start)];
        let mut seen = vec![false; self.objs.len()];
        while let Some((done, e)) = stack.pop() {
            if done {
                visit(self, e);
                continue;
            }
            if seen.get(e).copied().unwrap_or(true) {
                continue;
            }
            seen[e] = true;
            stack.push((true, e));
            for &c in self.objs[e].children.iter().rev() {
                stack.push((false, c));
            }
        }
    }

    /// Whether `a` and `b` are the same formula, written out (C2PO compares `str`).
    pub fn same(&self, a: usize, b: usize) -> bool {
        let (x, y) = (&self.objs[a], &self.objs[b]);
        a == b
            || (x.kind == y.kind
                && x.children.len() == y.children.len()
                && x.children
                    .iter()
                    .zip(&y.children)
                    .all(|(&c, &d)| self.same(c, d)))
    }

    /// The objects that share a parent with `e` (its parents' other children, stale parents
    /// included), each once.
    pub fn siblings(&self, e: usize) -> Vec<usize> {
        let mut out = Vec::new();
        for &p in &self.objs[e].parents {
            for &c in &self.objs[p].children {
                if c != e {
                    add(&mut out, c);
                }
            }
        }
        out
    }
}

fn add(set: &mut Vec<usize>, k: usize) {
    if !set.contains(&k) {
        set.push(k);
    }
}
