//! A small reduced ordered binary decision diagram, for the residues of the three-valued engine.
//!
//! Why hand-written: the residue of a time point is a Boolean function of *obligations on the
//! future* (`p UNTIL q` from the next position on, with the timestamp its window counts from),
//! and those variables come and go as time passes: a bounded window's obligation dies when
//! its window is over, a new one is born at every time point. The BDD crates of crates.io fix
//! their variable set up front; here a variable is any [`Var`], ordered by its key, and the
//! node table is rebuilt from the live roots now and then ([`Manager::rebuild`]).
//!
//! Canonical forms are what the engine needs: time points whose residues are the same function
//! share one node, so they are grouped and classified once, and a residue that has become a
//! constant is recognised by its node number.

use rustc_hash::FxHashMap as HashMap;

use rvmon_core::Timestamp;

/// A BDD node: `FALSE`, `TRUE`, or an index into the manager's table.
pub type Bdd = u32;
pub const FALSE: Bdd = 0;
pub const TRUE: Bdd = 1;

/// A variable: the obligation of program node `node` from the next position on, with the
/// timestamp its window counts from (`at`; [`Var::UNTIMED`] when the window no longer
/// depends on it). Ordered node first, so that one operator's obligations sit together.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
pub struct Var {
    pub node: u32,
    pub at: Timestamp,
}

impl Var {
    /// The `at` of an obligation whose window no longer depends on where it started.
    pub const UNTIMED: Timestamp = Timestamp::MIN;
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
struct Node {
    var: Var,
    lo: Bdd,
    hi: Bdd,
}

/// The node table, with its unique table and an `ite` memo.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub struct Manager {
    /// Entries 0 and 1 are the terminals (their contents are never read).
    nodes: Vec<Node>,
    unique: HashMap<Node, Bdd>,
    #[serde(skip)]
    memo: HashMap<(Bdd, Bdd, Bdd), Bdd>,
    /// `ite` computations (memo misses) since the last [`Manager::allow`].
    #[serde(skip)]
    spent: u64,
    /// How many [`Manager::allow`] allowed; past it, `ite` returns `FALSE` at once and
    /// [`Manager::exhausted`] says so (the results are then meaningless: the caller must stop).
    #[serde(skip, default = "unlimited")]
    budget: u64,
}

fn unlimited() -> u64 {
    u64::MAX
}

impl Default for Manager {
    fn default() -> Manager {
        Manager::new()
    }
}

impl Manager {
    pub fn new() -> Manager {
        let terminal = Node {
            var: Var {
                node: u32::MAX,
                at: 0,
            },
            lo: 0,
            hi: 0,
        };
        Manager {
            nodes: vec![terminal, terminal],
            unique: HashMap::default(),
            memo: HashMap::default(),
            spent: 0,
            budget: unlimited(),
        }
    }

    /// Allows `work` more `ite` computations (memo misses), from now on.
    pub fn allow(&mut self, work: u64) {
        self.spent = 0;
        self.budget = work;
    }

    /// Whether an operation since the last [`Manager::allow`] ran out of its allowance (its
    /// result, and every one since, is meaningless).
    pub fn exhausted(&self) -> bool {
        self.spent > self.budget
    }

    /// Nodes in the table (terminals included).
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    pub fn constant(b: bool) -> Bdd {
        if b {
            TRUE
        } else {
            FALSE
        }
    }

    pub fn is_const(f: Bdd) -> bool {
        f <= TRUE
    }

    fn mk(&mut self, var: Var, lo: Bdd, hi: Bdd) -> Bdd {
        if lo == hi {
            return lo;
        }
        let n = Node { var, lo, hi };
        if let Some(&id) = self.unique.get(&n) {
            return id;
        }
        let id = self.nodes.len() as Bdd;
        self.nodes.push(n);
        self.unique.insert(n, id);
        id
    }

    pub fn var(&mut self, v: Var) -> Bdd {
        self.mk(v, FALSE, TRUE)
    }

    /// `if f then g else h`.
    pub fn ite(&mut self, f: Bdd, g: Bdd, h: Bdd) -> Bdd {
        if f == TRUE {
            return g;
        }
        if f == FALSE {
            return h;
        }
        if g == h {
            return g;
        }
        if g == TRUE && h == FALSE {
            return f;
        }
        if let Some(&r) = self.memo.get(&(f, g, h)) {
            return r;
        }
        // Why a budget: some residues are exponential in the formula (a chain of `R` over
        // `X`); the caller stops with an error instead of running out of time or memory.
        self.spent += 1;
        if self.spent > self.budget {
            return FALSE;
        }
        let top = [f, g, h]
            .into_iter()
            .filter(|&x| !Self::is_const(x))
            .map(|x| self.nodes[x as usize].var)
            .min()
            .expect("f is not a constant");
        let (f0, f1) = self.cofactors(f, top);
        let (g0, g1) = self.cofactors(g, top);
        let (h0, h1) = self.cofactors(h, top);
        let lo = self.ite(f0, g0, h0);
        let hi = self.ite(f1, g1, h1);
        let r = self.mk(top, lo, hi);
        self.memo.insert((f, g, h), r);
        r
    }

    fn cofactors(&self, f: Bdd, v: Var) -> (Bdd, Bdd) {
        if Self::is_const(f) {
            return (f, f);
        }
        let n = self.nodes[f as usize];
        if n.var == v {
            (n.lo, n.hi)
        } else {
            (f, f)
        }
    }

    pub fn not(&mut self, f: Bdd) -> Bdd {
        self.ite(f, FALSE, TRUE)
    }

    pub fn and(&mut self, f: Bdd, g: Bdd) -> Bdd {
        self.ite(f, g, FALSE)
    }

    pub fn or(&mut self, f: Bdd, g: Bdd) -> Bdd {
        self.ite(f, TRUE, g)
    }

    /// Replaces every variable `v` of `f` by `subst(v)` at once (the substitutes' variables
    /// are not substituted again). `memo` may be shared by calls with the same substitution.
    pub fn compose(
        &mut self,
        f: Bdd,
        subst: &mut dyn FnMut(&mut Manager, Var) -> Bdd,
        memo: &mut HashMap<Bdd, Bdd>,
    ) -> Bdd {
        if Self::is_const(f) {
            return f;
        }
        if let Some(&r) = memo.get(&f) {
            return r;
        }
        let n = self.nodes[f as usize];
        let lo = self.compose(n.lo, subst, memo);
        let hi = self.compose(n.hi, subst, memo);
        let v = subst(self, n.var);
        let r = self.ite(v, hi, lo);
        memo.insert(f, r);
        r
    }

    /// The variable and the two children (`var` false, `var` true) of a non-constant node.
    pub fn node(&self, f: Bdd) -> (Var, Bdd, Bdd) {
        let n = self.nodes[f as usize];
        (n.var, n.lo, n.hi)
    }

    /// Drops every node not reachable from `roots`, renumbering the roots in place.
    pub fn rebuild(&mut self, roots: &mut [Bdd]) {
        let mut fresh = Manager::new();
        fresh.allow(self.budget);
        fresh.spent = self.spent;
        let mut map: HashMap<Bdd, Bdd> = [(FALSE, FALSE), (TRUE, TRUE)].into_iter().collect();
        for r in roots.iter_mut() {
            *r = self.copy_into(*r, &mut fresh, &mut map);
        }
        *self = fresh;
    }

    fn copy_into(&self, f: Bdd, to: &mut Manager, map: &mut HashMap<Bdd, Bdd>) -> Bdd {
        if let Some(&g) = map.get(&f) {
            return g;
        }
        let n = self.nodes[f as usize];
        let lo = self.copy_into(n.lo, to, map);
        let hi = self.copy_into(n.hi, to, map);
        let g = to.mk(n.var, lo, hi);
        map.insert(f, g);
        g
    }

    /// Forgets the `ite` memo (it only speeds things up; it grows with every operation).
    pub fn clear_memo(&mut self) {
        self.memo.clear();
    }

    pub fn memo_len(&self) -> usize {
        self.memo.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn v(node: u32) -> Var {
        Var { node, at: 0 }
    }

    #[test]
    fn canonical_forms_make_equal_functions_equal_nodes() {
        let mut m = Manager::new();
        let (a, b) = (m.var(v(0)), m.var(v(1)));
        let ab = m.and(a, b);
        let na = m.not(a);
        let nb = m.not(b);
        let nanb = m.or(na, nb);
        let back = m.not(nanb);
        assert_eq!(ab, back, "De Morgan gives the same node");
        let taut = m.or(a, na);
        assert_eq!(taut, TRUE);
        let contra = m.and(b, nb);
        assert_eq!(contra, FALSE);
    }

    #[test]
    fn compose_substitutes_simultaneously() {
        let mut m = Manager::new();
        let (a, b) = (m.var(v(0)), m.var(v(1)));
        let nb = m.not(b);
        let f = m.and(a, nb);
        // a := b, b := a gives b AND NOT a, not a AND NOT a.
        let mut swap = |m: &mut Manager, x: Var| m.var(if x.node == 0 { v(1) } else { v(0) });
        let g = m.compose(f, &mut swap, &mut HashMap::default());
        let na = m.not(a);
        assert_eq!(g, m.and(b, na));
    }

    #[test]
    fn rebuild_keeps_the_roots_functions() {
        let mut m = Manager::new();
        let (a, b, c) = (m.var(v(0)), m.var(v(1)), m.var(v(2)));
        let ab = m.or(a, b);
        let mut roots = [m.and(ab, c)];
        let _garbage = m.and(a, b);
        let before = m.len();
        m.rebuild(&mut roots);
        assert!(m.len() < before, "the garbage is gone");
        let (a, b, c) = (m.var(v(0)), m.var(v(1)), m.var(v(2)));
        let ab = m.or(a, b);
        assert_eq!(roots[0], m.and(ab, c));
    }
}
