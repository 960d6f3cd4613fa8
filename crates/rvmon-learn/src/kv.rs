//! Kearns–Vazirani as AALpy's `run_KV` runs it for DFAs (so that its query counts can be
//! compared with AALpy's): a classification tree whose inner nodes hold discriminators and
//! whose leaves hold the states' access words; every transition is found by sifting its
//! word from the root; a counterexample is analysed by Rivest–Schapire's binary search,
//! whose suffix splits the leaf of the state the hypothesis wrongly reached.

use std::collections::VecDeque;

use crate::dfa::Dfa;
use crate::rs::{rs_suffix, Hypothesis};
use crate::teacher::Teacher;
use crate::{Equivalence, Learned};

enum Node {
    Inner {
        discriminator: Vec<usize>,
        /// The children by the answer: `[false, true]`.
        children: [usize; 2],
    },
    /// A state (its number).
    Leaf(usize),
}

/// The classification tree (node 0 the root, discriminator ε) and the states.
struct Tree {
    nodes: Vec<Node>,
    parent: Vec<usize>,
    /// Per state: its access word and its leaf.
    access: Vec<Vec<usize>>,
    leaf: Vec<usize>,
}

impl Tree {
    /// The state `word` reaches: one query a level.
    fn sift(&self, word: &[usize], teacher: &mut Teacher) -> usize {
        let mut node = 0;
        loop {
            match &self.nodes[node] {
                Node::Leaf(q) => return *q,
                Node::Inner {
                    discriminator,
                    children,
                } => {
                    let mut w = word.to_vec();
                    w.extend_from_slice(discriminator);
                    node = children[usize::from(teacher.member(&w))];
                }
            }
        }
    }

    fn push(&mut self, node: Node, parent: usize) -> usize {
        self.nodes.push(node);
        self.parent.push(parent);
        self.nodes.len() - 1
    }

    /// Whether state `q` accepts: whether its leaf lies on the root's accepting side.
    fn accepts(&self, q: usize) -> bool {
        let mut node = self.leaf[q];
        while self.parent[node] != 0 {
            node = self.parent[node];
        }
        matches!(&self.nodes[0], Node::Inner { children, .. } if children[1] == node)
    }

    /// Replaces the leaf of state `old` by an inner node with discriminator `v` over it and
    /// a new state of access word `access` on side `new_side`: the new state.
    fn split(&mut self, old: usize, v: Vec<usize>, access: Vec<usize>, new_side: bool) -> usize {
        let at = self.leaf[old];
        let q = self.access.len();
        let old_node = self.push(Node::Leaf(old), at);
        let new_node = self.push(Node::Leaf(q), at);
        let mut children = [0; 2];
        children[usize::from(new_side)] = new_node;
        children[usize::from(!new_side)] = old_node;
        self.nodes[at] = Node::Inner {
            discriminator: v,
            children,
        };
        self.leaf[old] = old_node;
        self.access.push(access);
        self.leaf.push(new_node);
        q
    }
}

/// Learns the system behind `teacher` over `alphabet`.
pub fn learn(alphabet: &[String], teacher: &mut Teacher, eq: &mut dyn Equivalence) -> Learned {
    let k = alphabet.len();
    let initial = teacher.member(&[]);
    let mut one = Dfa::new(alphabet.to_vec(), 1);
    one.accepting[0] = initial;
    let Some(mut cex) = eq.counterexample(&one, teacher) else {
        return Learned { dfa: one };
    };
    // The tree: ε at the root, the empty word and the counterexample on its two sides
    // (AALpy asks the empty word again here).
    let root_answer = teacher.member(&[]);
    let cex_answer = teacher.member(&cex);
    let mut children = [0; 2];
    children[usize::from(root_answer)] = 1;
    children[usize::from(cex_answer)] = 2;
    let mut tree = Tree {
        nodes: vec![
            Node::Inner {
                discriminator: vec![],
                children,
            },
            Node::Leaf(0),
            Node::Leaf(1),
        ],
        parent: vec![usize::MAX, 0, 0],
        access: vec![vec![], cex.clone()],
        leaf: vec![1, 2],
    };
    // The states not yet in a hypothesis, and the transitions to sift, in order.
    let mut new_states: VecDeque<usize> = VecDeque::from([0, 1]);
    let mut to_update: VecDeque<(usize, usize)> = VecDeque::new();
    let mut dfa = Dfa::new(alphabet.to_vec(), 0);
    loop {
        while let Some(q) = new_states.pop_front() {
            dfa.accepting.push(tree.accepts(q));
            dfa.delta.extend(std::iter::repeat_n(0, k));
            to_update.extend((0..k).map(|a| (q, a)));
        }
        while let Some((q, a)) = to_update.pop_front() {
            let mut w = tree.access[q].clone();
            w.push(a);
            dfa.delta[q * k + a] = tree.sift(&w, teacher);
        }
        let hyp = Hypothesis {
            dfa: dfa.clone(),
            access: tree.access.clone(),
        };
        if teacher.member(&cex) == hyp.dfa.accepts(&cex) {
            match eq.counterexample(&hyp.dfa, teacher) {
                None => return Learned { dfa: hyp.dfa },
                Some(c) => cex = c,
            }
        }
        // cex = u·a·v, v the distinguishing suffix: the state u·a reaches is split.
        let v = rs_suffix(&cex, &hyp, teacher);
        let at = cex.len() - v.len() - 1;
        let (u, a) = (&cex[..at], cex[at]);
        let u_state = hyp.dfa.run_from(hyp.dfa.initial, u);
        let old = hyp.dfa.step(u_state, a);
        let mut access = tree.access[u_state].clone();
        access.push(a);
        let q = tree.split(old, v, access, !hyp.dfa.accepts(&cex));
        new_states.push_back(q);
        // Every transition into the old state is sifted again.
        for p in 0..q {
            for b in 0..k {
                if dfa.delta[p * k + b] == old {
                    to_update.push_back((p, b));
                }
            }
        }
    }
}
