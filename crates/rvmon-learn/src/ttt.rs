//! TTT (Isberner, Howar, Steffen; paper 26) for DFAs, after LearnLib's `AbstractTTTLearner`.
//!
//! The hypothesis is a spanning tree of access words (each state's access word is its tree
//! parent's plus one symbol), and a discrimination tree (DT) whose leaves are the states and
//! whose inner nodes hold discriminators; a non-tree transition points at a DT node, not
//! necessarily a leaf. A counterexample is decomposed by Rivest–Schapire's binary search
//! into `u·a·v`; the state `u·a` reaches is split by `v`, a *temporary* discriminator. Then
//! the temporary discriminators are replaced by *final* ones, each a symbol followed by a
//! final discriminator (`finalize`), so that every discriminator stays short and no
//! counterexample's long suffix stays in the data: the redundancy-free part of the paper.
//! Until then the hypothesis may be unstable (a state's DT position contradicts what the
//! hypothesis outputs from it): such an inconsistency is a counterexample found without an
//! equivalence query, and is decomposed the same way.
//!
//! Sifting a word into the DT asks one membership query per inner node passed; a *soft*
//! sift stops at the first temporary node, a *hard* sift goes to a leaf.

use std::collections::VecDeque;

use crate::dfa::Dfa;
use crate::teacher::Teacher;
use crate::{Equivalence, Learned};

const NONE: usize = usize::MAX;

#[derive(Clone, Debug)]
enum Kind {
    /// A state, or none yet (a transition that reaches an empty leaf makes one).
    Leaf(Option<usize>),
    Inner {
        discriminator: Vec<usize>,
        /// By outcome: `[false, true]`.
        children: [usize; 2],
        temporary: bool,
    },
}

#[derive(Clone, Debug)]
struct Node {
    parent: usize,
    kind: Kind,
}

/// A transition: into a state (a tree transition) or to a DT node.
#[derive(Clone, Copy, Debug)]
struct Trans {
    tree: Option<usize>,
    node: usize,
}

struct Ttt {
    k: usize,
    nodes: Vec<Node>,
    /// Per state: access word, leaf, whether it accepts.
    access: Vec<Vec<usize>>,
    leaf: Vec<usize>,
    accepting: Vec<bool>,
    /// `trans[q * k + a]`.
    trans: Vec<Trans>,
    /// Transitions to sift (softly) when transitions are next closed.
    open: VecDeque<usize>,
    /// The roots of the maximal subtrees of temporary discriminators, oldest first.
    blocks: Vec<usize>,
    /// The discrimination tree after each step, when asked for ([`learn_traced`]).
    trace: Option<Vec<String>>,
}

/// Learns the system behind `teacher` over `alphabet`.
pub fn learn(alphabet: &[String], teacher: &mut Teacher, eq: &mut dyn Equivalence) -> Learned {
    learn_traced(alphabet, teacher, eq, None)
}

/// [`learn`], writing to `trace` the discrimination tree after the start, each split and
/// each finalization ([`Ttt::describe`]'s notation).
pub fn learn_traced(
    alphabet: &[String],
    teacher: &mut Teacher,
    eq: &mut dyn Equivalence,
    trace: Option<&mut Vec<String>>,
) -> Learned {
    let mut t = Ttt::new(alphabet.len(), teacher);
    if trace.is_some() {
        t.trace = Some(vec![]);
        t.note(alphabet);
    }
    let learned = t.run(alphabet, teacher, eq);
    if let (Some(out), Some(steps)) = (trace, t.trace) {
        *out = steps;
    }
    learned
}

impl Ttt {
    fn run(
        &mut self,
        alphabet: &[String],
        teacher: &mut Teacher,
        eq: &mut dyn Equivalence,
    ) -> Learned {
        let t = self;
        loop {
            let hyp = t.hypothesis(alphabet, teacher);
            let Some(ce) = eq.counterexample(&hyp, teacher) else {
                return Learned { dfa: hyp };
            };
            // The system's answer is the other one (no query needed); the counterexample is
            // used until the hypothesis agrees with it.
            let o = !hyp.accepts(&ce);
            // (Each refinement adds a state, or sifts the transitions that left the
            // hypothesis' output undetermined; a system that answers a word two ways could
            // make it loop.)
            let mut idle = 0;
            while t.output(0, &ce) != o && idle < 3 {
                let states = t.access.len();
                t.refine(&ce, o, teacher, alphabet);
                idle = if t.access.len() == states {
                    idle + 1
                } else {
                    0
                };
            }
        }
    }

    /// Records the tree, if tracing.
    fn note(&mut self, alphabet: &[String]) {
        if self.trace.is_some() {
            let d = self.describe(0, alphabet);
            self.trace.get_or_insert_with(Vec::new).push(d);
        }
    }

    /// The subtree at `node`: an inner node as `v[⊥:…, ⊤:…]` (`v` its discriminator, `ε`
    /// if empty, with `ᵗ` if temporary), a leaf as its state's access word (`ε` for the
    /// empty word) or `·` if it has none; symbols written without separators.
    pub fn describe(&self, node: usize, alphabet: &[String]) -> String {
        let word = |w: &[usize]| {
            if w.is_empty() {
                "ε".to_string()
            } else {
                w.iter().map(|&a| alphabet[a].as_str()).collect()
            }
        };
        match &self.nodes[node].kind {
            Kind::Leaf(None) => "·".into(),
            Kind::Leaf(Some(q)) => word(&self.access[*q]),
            Kind::Inner {
                discriminator,
                children,
                temporary,
            } => format!(
                "{}{}[⊥:{}, ⊤:{}]",
                word(discriminator),
                if *temporary { "ᵗ" } else { "" },
                self.describe(children[0], alphabet),
                self.describe(children[1], alphabet)
            ),
        }
    }
}

impl Ttt {
    /// The initial hypothesis: the root (discriminator ε, final) over two empty leaves, the
    /// empty word's state in one, its transitions closed.
    fn new(k: usize, teacher: &mut Teacher) -> Ttt {
        let mut t = Ttt {
            k,
            nodes: vec![
                Node {
                    parent: NONE,
                    kind: Kind::Inner {
                        discriminator: vec![],
                        children: [1, 2],
                        temporary: false,
                    },
                },
                Node {
                    parent: 0,
                    kind: Kind::Leaf(None),
                },
                Node {
                    parent: 0,
                    kind: Kind::Leaf(None),
                },
            ],
            access: vec![],
            leaf: vec![],
            accepting: vec![],
            trans: vec![],
            open: VecDeque::new(),
            blocks: vec![],
            trace: None,
        };
        let side = teacher.member(&[]);
        t.add_state(vec![], 1 + usize::from(side));
        t.close(teacher);
        t
    }

    /// A new state of access word `access` at the empty leaf `leaf`; its transitions point
    /// at the root, open.
    fn add_state(&mut self, access: Vec<usize>, leaf: usize) -> usize {
        let q = self.access.len();
        self.access.push(access);
        self.leaf.push(leaf);
        self.nodes[leaf].kind = Kind::Leaf(Some(q));
        self.accepting.push(self.root_side(leaf));
        for a in 0..self.k {
            self.trans.push(Trans {
                tree: None,
                node: 0,
            });
            self.open.push_back(q * self.k + a);
        }
        q
    }

    /// Makes transition `t` a tree transition into a new state at the empty leaf `leaf`.
    fn make_tree(&mut self, t: usize, leaf: usize) -> usize {
        debug_assert!(self.trans[t].tree.is_none(), "a tree transition made twice");
        let (src, a) = (t / self.k, t % self.k);
        let mut access = self.access[src].clone();
        access.push(a);
        let q = self.add_state(access, leaf);
        self.trans[t].tree = Some(q);
        q
    }

    /// The side of the root `node` lies on (the root's discriminator is ε: acceptance).
    fn root_side(&self, mut node: usize) -> bool {
        while self.nodes[node].parent != 0 {
            node = self.nodes[node].parent;
        }
        self.outcome(node)
    }

    /// The outcome of `node`'s parent that leads to it.
    fn outcome(&self, node: usize) -> bool {
        match &self.nodes[self.nodes[node].parent].kind {
            Kind::Inner { children, .. } => children[1] == node,
            Kind::Leaf(_) => unreachable!("a parent is an inner node"),
        }
    }

    fn is_temporary(&self, node: usize) -> bool {
        matches!(
            self.nodes[node].kind,
            Kind::Inner {
                temporary: true,
                ..
            }
        )
    }

    /// Sifts transition `t` from its node: past final nodes only (`hard`: past all).
    fn sift(&mut self, t: usize, hard: bool, teacher: &mut Teacher) {
        let (src, a) = (t / self.k, t % self.k);
        let mut node = self.trans[t].node;
        while let Kind::Inner {
            discriminator,
            children,
            temporary,
        } = &self.nodes[node].kind
        {
            if *temporary && !hard {
                break;
            }
            let mut w = self.access[src].clone();
            w.push(a);
            w.extend_from_slice(discriminator);
            node = children[usize::from(teacher.member(&w))];
        }
        self.trans[t].node = node;
    }

    /// Sifts the open transitions softly; a transition that reaches an empty leaf becomes
    /// the tree transition of a new state there (of the transitions at that leaf, the one
    /// with the shortest access word); until none is open.
    fn close(&mut self, teacher: &mut Teacher) {
        while !self.open.is_empty() {
            let open: Vec<usize> = self.open.drain(..).collect();
            let mut empty = Vec::new();
            for t in open {
                if self.trans[t].tree.is_some() {
                    continue;
                }
                self.sift(t, false, teacher);
                let node = self.trans[t].node;
                if matches!(self.nodes[node].kind, Kind::Leaf(None)) && !empty.contains(&node) {
                    empty.push(node);
                }
            }
            for leaf in empty {
                if let Some(t) = self.shortest_into(leaf) {
                    self.make_tree(t, leaf);
                }
            }
        }
    }

    /// Of the non-tree transitions at `node`, the one with the shortest access word.
    fn shortest_into(&self, node: usize) -> Option<usize> {
        (0..self.trans.len())
            .filter(|&t| self.trans[t].tree.is_none() && self.trans[t].node == node)
            .min_by_key(|&t| (self.access[t / self.k].len(), t))
    }

    /// A state of `node`'s subtree (the first, `false` children first).
    fn any_state(&self, node: usize) -> Option<usize> {
        match &self.nodes[node].kind {
            Kind::Leaf(q) => *q,
            Kind::Inner { children, .. } => self
                .any_state(children[0])
                .or_else(|| self.any_state(children[1])),
        }
    }

    fn states_under(&self, node: usize, out: &mut Vec<usize>) {
        match &self.nodes[node].kind {
            Kind::Leaf(q) => out.extend(q),
            Kind::Inner { children, .. } => {
                self.states_under(children[0], out);
                self.states_under(children[1], out);
            }
        }
    }

    /// A successor of `q` by `a`: the tree target, or a state of the transition's node.
    fn any_successor(&self, q: usize, a: usize) -> usize {
        let t = self.trans[q * self.k + a];
        t.tree.or_else(|| self.any_state(t.node)).unwrap_or(q)
    }

    /// The hypothesis' output on `word` from `q` (any successor where it is not yet known).
    fn output(&self, q: usize, word: &[usize]) -> bool {
        let end = word.iter().fold(q, |q, &a| self.any_successor(q, a));
        self.accepting[end]
    }

    /// The state `t` leads to, sifting it hard if it is not known; `None` if it reached an
    /// empty leaf, which made a new state (the hypothesis changed).
    fn target(&mut self, t: usize, teacher: &mut Teacher) -> Option<usize> {
        if let Some(q) = self.trans[t].tree {
            return Some(q);
        }
        if let Kind::Leaf(Some(q)) = self.nodes[self.trans[t].node].kind {
            return Some(q);
        }
        self.sift(t, true, teacher);
        let leaf = self.trans[t].node;
        match self.nodes[leaf].kind {
            Kind::Leaf(Some(q)) => Some(q),
            _ => {
                self.make_tree(t, leaf);
                self.close(teacher);
                None
            }
        }
    }

    /// The state `word` leads to from `start`: followed over sets of states while the
    /// transitions' nodes are inner; if the set is not a single state at the end, the
    /// transitions from the last single state on are sifted hard (LearnLib's
    /// `getDeterministicState`). `None` if the hypothesis changed on the way.
    fn deterministic(
        &mut self,
        start: usize,
        word: &[usize],
        teacher: &mut Teacher,
    ) -> Option<usize> {
        let (mut last, mut at) = (start, 0);
        let mut current = vec![start];
        let mut next = Vec::new();
        for (i, &a) in word.iter().enumerate() {
            next.clear();
            for &q in &current {
                let t = self.trans[q * self.k + a];
                match t.tree {
                    Some(r) => next.push(r),
                    None => self.states_under(t.node, &mut next),
                }
            }
            next.sort_unstable();
            next.dedup();
            if next.len() == 1 {
                (last, at) = (next[0], i + 1);
            }
            std::mem::swap(&mut current, &mut next);
        }
        if current.len() == 1 {
            return Some(last);
        }
        let mut q = last;
        for &a in &word[at..] {
            q = self.target(q * self.k + a, teacher)?;
        }
        Some(q)
    }
}

impl Ttt {
    /// The counterexample `ce` (the system answers `o`), and the inconsistencies it leaves,
    /// each decomposed and its state split, the discriminators finalized in between.
    fn refine(&mut self, ce: &[usize], o: bool, teacher: &mut Teacher, alphabet: &[String]) {
        let mut inconsistency = Some((0, ce.to_vec(), o));
        while let Some((q, s, e)) = inconsistency {
            self.split(q, &s, e, teacher);
            self.close(teacher);
            self.note(alphabet);
            while self.finalize_any(teacher) {
                self.close(teacher);
                self.note(alphabet);
            }
            inconsistency = self.find_inconsistency();
        }
    }

    /// Rivest–Schapire on `s` from `src` (the system answers `o` to `access(src)·s`): the
    /// effect of `i` is the answer to `access(det(src, s[..i]))·s[i..]`; at a point `i`
    /// where it changes, the state `s[..=i]` reaches is split by the temporary
    /// discriminator `s[i + 1..]` (the new state's access word is its predecessor's and
    /// `s[i]`). Nothing is split if the hypothesis changed on the way.
    fn split(&mut self, src: usize, s: &[usize], o: bool, teacher: &mut Teacher) {
        let n = s.len();
        if n == 0 {
            // (Only a system that answers the empty word two ways gets here.)
            return;
        }
        // (The effect at `n` is taken to be the hypothesis' output, `!o`, as LearnLib does;
        // it is checked below where it matters.)
        let mut effects: Vec<Option<bool>> = vec![None; n + 1];
        (effects[0], effects[n]) = (Some(o), Some(!o));
        let mut effect = |t: &mut Ttt, i: usize, teacher: &mut Teacher| -> Option<bool> {
            if let Some(e) = effects[i] {
                return Some(e);
            }
            let q = t.deterministic(src, &s[..i], teacher)?;
            let mut w = t.access[q].clone();
            w.extend_from_slice(&s[i..]);
            let e = teacher.member(&w);
            effects[i] = Some(e);
            Some(e)
        };
        // (LearnLib's binarySearchRight.)
        let (mut lo, mut hi) = (0, n);
        let Some(mut at_hi) = effect(self, hi, teacher) else {
            return;
        };
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            let Some(e) = effect(self, mid, teacher) else {
                return;
            };
            if e != at_hi {
                lo = mid;
            } else {
                (hi, at_hi) = (mid, e);
            }
        }
        let (Some(new_out), Some(old_out)) = (effects[lo], effects[lo + 1]) else {
            return;
        };
        let Some(pred) = self.deterministic(src, &s[..lo], teacher) else {
            return;
        };
        let Some(succ) = self.deterministic(src, &s[..=lo], teacher) else {
            return;
        };
        // The hypothesis' output that an inconsistency was found with picks any state where
        // a transition waits at a temporary node; the state `s` really leads to may answer
        // `o` after all. Then the effects do not change at the end, and splitting by the
        // empty suffix would be wrong: the transitions on the way have been sifted instead.
        if lo + 1 == n && self.accepting[succ] == o {
            return;
        }
        let t = pred * self.k + s[lo];
        let Some(old) = self.target(t, teacher) else {
            return;
        };
        let leaf = self.leaf[old];
        let old_leaf = self.push(leaf, Kind::Leaf(Some(old)));
        let new_leaf = self.push(leaf, Kind::Leaf(None));
        let mut children = [0; 2];
        children[usize::from(old_out)] = old_leaf;
        children[usize::from(new_out)] = new_leaf;
        self.nodes[leaf].kind = Kind::Inner {
            discriminator: s[lo + 1..].to_vec(),
            children,
            temporary: true,
        };
        self.leaf[old] = old_leaf;
        self.make_tree(t, new_leaf);
        if !self.is_temporary(self.nodes[leaf].parent) {
            self.blocks.push(leaf);
        }
    }

    fn push(&mut self, parent: usize, kind: Kind) -> usize {
        self.nodes.push(Node { parent, kind });
        self.nodes.len() - 1
    }

    /// A state whose DT position contradicts the hypothesis' output from it: the state, the
    /// discriminator (the shortest such) and the outcome the DT says.
    fn find_inconsistency(&self) -> Option<(usize, Vec<usize>, bool)> {
        let mut best: Option<(usize, Vec<usize>, bool)> = None;
        for q in 0..self.access.len() {
            // (A discriminator of one symbol is the shortest there can be but the root's ε,
            // which every state agrees with: its acceptance is its side of the root.)
            if best.as_ref().is_some_and(|b| b.1.len() <= 1) {
                break;
            }
            let mut node = self.leaf[q];
            while self.nodes[node].parent != 0 && self.nodes[node].parent != NONE {
                let expected = self.outcome(node);
                node = self.nodes[node].parent;
                let Kind::Inner { discriminator, .. } = &self.nodes[node].kind else {
                    unreachable!("a parent is an inner node")
                };
                if best
                    .as_ref()
                    .is_none_or(|b| discriminator.len() < b.1.len())
                    && self.output(q, discriminator) != expected
                {
                    best = Some((q, discriminator.clone(), expected));
                }
            }
        }
        best
    }
}

impl Ttt {
    /// Replaces one block's temporary root discriminator by a final one, `a·v` where the
    /// `a`-successors of the block's states are separated by the final discriminator `v`
    /// (the shortest such over all blocks); whether there was one.
    fn finalize_any(&mut self, teacher: &mut Teacher) -> bool {
        let mut best: Option<(usize, usize, usize)> = None;
        let mut best_len = usize::MAX;
        for &block in &self.blocks {
            if let Some((a, node, len)) = self.splitter(block) {
                if len < best_len {
                    (best, best_len) = (Some((block, a, node)), len);
                }
            }
        }
        let Some((block, a, node)) = best else {
            return false;
        };
        self.finalize(block, a, node, teacher);
        true
    }

    /// For the block at `block`: a symbol whose successors' DT nodes have a final lowest
    /// common ancestor, with the shortest discriminator: the symbol, the ancestor, its
    /// discriminator's length.
    fn splitter(&self, block: usize) -> Option<(usize, usize, usize)> {
        let mut states = Vec::new();
        self.states_under(block, &mut states);
        let mut best: Option<(usize, usize, usize)> = None;
        for a in 0..self.k {
            let lca = states
                .iter()
                .map(|&q| self.node_of(q, a))
                .reduce(|x, y| self.lca(x, y))?;
            if let Kind::Inner {
                discriminator,
                temporary: false,
                ..
            } = &self.nodes[lca].kind
            {
                if best.is_none_or(|b| discriminator.len() < b.2) {
                    best = Some((a, lca, discriminator.len()));
                }
            }
        }
        best
    }

    /// The DT node `q`'s `a`-transition is at (its target's leaf for a tree transition).
    fn node_of(&self, q: usize, a: usize) -> usize {
        let t = self.trans[q * self.k + a];
        t.tree.map_or(t.node, |r| self.leaf[r])
    }

    fn depth(&self, mut node: usize) -> usize {
        let mut d = 0;
        while self.nodes[node].parent != NONE {
            node = self.nodes[node].parent;
            d += 1;
        }
        d
    }

    fn lca(&self, mut x: usize, mut y: usize) -> usize {
        let (mut dx, mut dy) = (self.depth(x), self.depth(y));
        while dx > dy {
            (x, dx) = (self.nodes[x].parent, dx - 1);
        }
        while dy > dx {
            (y, dy) = (self.nodes[y].parent, dy - 1);
        }
        while x != y {
            (x, y) = (self.nodes[x].parent, self.nodes[y].parent);
        }
        x
    }
}

/// One finalization's bookkeeping: which outcomes of the new discriminator each node of the
/// block has below it (bit 0 false, bit 1 true).
struct Marks {
    marks: Vec<u8>,
}

impl Ttt {
    /// The block at `root` gets the final discriminator `a·v` (`v` the discriminator of the
    /// final node `at`): each of its states' outcome is known from where its `a`-successor
    /// lies under `at`; each transition into the block is asked. The block splits into the
    /// two outcomes' subtrees, keeping the temporary nodes that still separate something;
    /// transitions keep their place in the subtree of their outcome (one that has no state
    /// there makes a new state).
    fn finalize(&mut self, root: usize, a: usize, at: usize, teacher: &mut Teacher) {
        let Kind::Inner { discriminator, .. } = &self.nodes[at].kind else {
            unreachable!("a splitter is an inner node")
        };
        let mut d = vec![a];
        d.extend_from_slice(discriminator);
        self.blocks.retain(|&b| b != root);
        let same = matches!(&self.nodes[root].kind, Kind::Inner { discriminator, .. } if *discriminator == d);
        if same {
            // Transitions waiting at the root go on through it.
            let waiting = (0..self.trans.len())
                .filter(|&t| self.trans[t].tree.is_none() && self.trans[t].node == root);
            self.open.extend(waiting);
        } else {
            self.replace_block(root, a, at, d, teacher);
        }
        if let Kind::Inner {
            temporary,
            children,
            ..
        } = &mut self.nodes[root].kind
        {
            *temporary = false;
            let children = *children;
            for c in children {
                if self.is_temporary(c) {
                    self.blocks.push(c);
                }
            }
        }
    }

    /// [`Ttt::finalize`] when the discriminator changes: the block's subtree is rebuilt.
    fn replace_block(
        &mut self,
        root: usize,
        a: usize,
        at: usize,
        d: Vec<usize>,
        teacher: &mut Teacher,
    ) {
        // The old root moves to a node of its own; the root keeps its place in the tree.
        let old_root = self.push(self.nodes[root].parent, self.nodes[root].kind.clone());
        if let Kind::Inner { children, .. } = self.nodes[old_root].kind {
            for c in children {
                self.nodes[c].parent = old_root;
            }
        }
        let mut inside = vec![false; self.nodes.len()];
        let mut stack = vec![old_root];
        while let Some(n) = stack.pop() {
            inside[n] = true;
            if let Kind::Inner { children, .. } = self.nodes[n].kind {
                stack.extend(children);
            }
        }
        // The outcomes: predicted for the states, asked for the transitions into the block.
        let mut marks = Marks {
            marks: vec![0; self.nodes.len()],
        };
        let mut label = vec![false; self.access.len()];
        let mut states = Vec::new();
        self.states_under(old_root, &mut states);
        for &q in &states {
            let mut n = self.node_of(q, a);
            while self.nodes[n].parent != at {
                n = self.nodes[n].parent;
            }
            // (The block's old root stands where the root is.)
            label[q] = self.outcome(if n == old_root { root } else { n });
            self.mark(&mut marks, self.leaf[q], label[q], old_root);
        }
        let mut incoming = Vec::new();
        for t in 0..self.trans.len() {
            let tr = self.trans[t];
            let node = if tr.node == root { old_root } else { tr.node };
            if tr.tree.is_none() && node < inside.len() && inside[node] {
                let mut w = self.access[t / self.k].clone();
                w.push(t % self.k);
                w.extend_from_slice(&d);
                let l = teacher.member(&w);
                self.mark(&mut marks, node, l, old_root);
                incoming.push((t, node, l));
            }
        }
        let mut extracted = std::collections::HashMap::new();
        let mut children = [0; 2];
        for l in [false, true] {
            children[usize::from(l)] = if marks.marks[old_root] & (1 << u8::from(l)) != 0 {
                self.extract(old_root, l, &marks, &label, &mut extracted)
            } else {
                self.push(root, Kind::Leaf(None))
            };
            self.nodes[children[usize::from(l)]].parent = root;
        }
        self.nodes[root].kind = Kind::Inner {
            discriminator: d,
            children,
            temporary: false,
        };
        // The transitions move to their node's copy in their outcome's subtree.
        let mut empty = Vec::new();
        for (t, node, l) in incoming {
            let to = extracted[&(node, l)];
            self.trans[t].node = to;
            if matches!(self.nodes[to].kind, Kind::Leaf(None)) && !empty.contains(&to) {
                empty.push(to);
            }
        }
        for leaf in empty {
            if let Some(t) = self.shortest_into(leaf) {
                self.make_tree(t, leaf);
            }
        }
    }

    /// Marks `node` and its ancestors up to `top` with outcome `l`.
    fn mark(&self, marks: &mut Marks, mut node: usize, l: bool, top: usize) {
        loop {
            if node >= marks.marks.len() {
                marks.marks.resize(node + 1, 0);
            }
            marks.marks[node] |= 1 << u8::from(l);
            if node == top {
                return;
            }
            node = self.nodes[node].parent;
        }
    }

    /// The part of `node`'s subtree with outcome `l`: a state's leaf if its outcome is `l`,
    /// an inner node copied if both its children have some `l`, the one child's part if one
    /// has, and an empty leaf (a new state) where only transitions have `l`.
    fn extract(
        &mut self,
        node: usize,
        l: bool,
        marks: &Marks,
        label: &[bool],
        extracted: &mut std::collections::HashMap<(usize, bool), usize>,
    ) -> usize {
        let has = |n: usize| {
            marks
                .marks
                .get(n)
                .is_some_and(|m| m & (1 << u8::from(l)) != 0)
        };
        let out = match self.nodes[node].kind.clone() {
            Kind::Leaf(Some(q)) if label[q] == l => node,
            Kind::Leaf(_) => self.push(NONE, Kind::Leaf(None)),
            Kind::Inner {
                discriminator,
                children,
                ..
            } => match (has(children[0]), has(children[1])) {
                (true, true) => {
                    let c0 = self.extract(children[0], l, marks, label, extracted);
                    let c1 = self.extract(children[1], l, marks, label, extracted);
                    let n = self.push(
                        NONE,
                        Kind::Inner {
                            discriminator,
                            children: [c0, c1],
                            temporary: true,
                        },
                    );
                    self.nodes[c0].parent = n;
                    self.nodes[c1].parent = n;
                    n
                }
                (true, false) => self.extract(children[0], l, marks, label, extracted),
                (false, true) => self.extract(children[1], l, marks, label, extracted),
                (false, false) => self.push(NONE, Kind::Leaf(None)),
            },
        };
        extracted.insert((node, l), out);
        out
    }
}

impl Ttt {
    /// The hypothesis as a DFA: every transition sifted to its state first.
    fn hypothesis(&mut self, alphabet: &[String], teacher: &mut Teacher) -> Dfa {
        'again: loop {
            for t in 0..self.trans.len() {
                if self.target(t, teacher).is_none() {
                    continue 'again;
                }
            }
            break;
        }
        let mut dfa = Dfa::new(alphabet.to_vec(), self.access.len());
        dfa.accepting.clone_from(&self.accepting);
        for t in 0..self.trans.len() {
            let tr = self.trans[t];
            dfa.delta[t] = tr.tree.or_else(|| self.any_state(tr.node)).unwrap_or(0);
        }
        dfa
    }
}
