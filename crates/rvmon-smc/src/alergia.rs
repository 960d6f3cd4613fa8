//! AAlergia (paper 28) as AALpy 2.0.0's `run_Alergia` runs it for Markov chains, so that the
//! learned models can be compared state for state:
//! * the frequency prefix tree of the sequences (no end-of-sequence counts: a node's `n` is
//!   the sum of its continuations);
//! * red and blue nodes, the shortlex-least blue node first, merged with the first red node
//!   (shortlex order) it is compatible with, else promoted;
//! * compatibility on the *original* tree's counts (not the merged ones): the same label, and
//!   either node a leaf of the tree, or Hoeffding's bound `|f_a(o)/n_a − f_b(o)/n_b| ≤
//!   (√(1/n_a) + √(1/n_b))·√(½·ln(2/ε))` for every symbol, recursively on common symbols;
//! * merging redirects the blue node's parent to the red node and folds the blue subtree's
//!   counts into it, depth first.
//!
//! Why this test, when the note calls AAlergia's own uncertain: AALpy is the tool the users
//! compare with, and the same test gives the same model, which a differential test checks.

use crate::chain::Chain;

/// A node of the prefix tree: its label, its depth and symbols from the root (the order of
/// nodes is shortlex on those), its current children and counts (merged into), and its
/// original ones (what the compatibility test reads).
struct Node {
    label: u32,
    prefix: Vec<u32>,
    children: Vec<(u32, usize)>,
    freq: Vec<(u32, u64)>,
    original_children: Vec<(u32, usize)>,
    original_freq: Vec<(u32, u64)>,
}

fn child(list: &[(u32, usize)], k: u32) -> Option<usize> {
    list.iter().find(|c| c.0 == k).map(|c| c.1)
}

/// The sequences' labelled chain; `eps` in (0, 2]. Every sequence starts with the same
/// symbol (the initial state's label), as AALpy requires.
pub fn learn<S: AsRef<str>>(sequences: &[Vec<S>], eps: f64) -> Result<Chain, String> {
    let m = learn_steps(sequences, eps, false)?;
    Ok(Chain {
        labels: m.labels,
        initial: m.initial,
        trans: m
            .trans
            .into_iter()
            .map(|t| t.into_iter().map(|(_, d, p)| (d, p)).collect())
            .collect(),
    })
}

/// IOAlergia (AALpy's MDP learning): each step after the first is `input:output`; the
/// compatibility test compares, input by input, the distributions of outputs.
pub fn learn_mdp<S: AsRef<str>>(sequences: &[Vec<S>], eps: f64) -> Result<Mdp, String> {
    learn_steps(sequences, eps, true)
}

/// A learned Markov decision process: per state, its label and, per input, a distribution
/// over successors (`(input, successor, probability)`; the input is empty for a chain).
#[derive(Clone, Debug, PartialEq)]
pub struct Mdp {
    pub labels: Vec<String>,
    pub initial: usize,
    pub trans: Vec<Vec<(String, usize, f64)>>,
}

impl Mdp {
    /// AALpy's oracle text for an MDP: as a chain's ([`Chain::canonical`]), with each
    /// transition's input (`trans <src> <input> <dst> <p>`), inputs in string order.
    pub fn canonical(&self) -> Vec<String> {
        let sorted = |s: usize| {
            let mut t = self.trans[s].clone();
            t.sort_by(|a, b| {
                a.0.cmp(&b.0)
                    .then(self.labels[a.1].cmp(&self.labels[b.1]))
                    .then(b.2.partial_cmp(&a.2).unwrap_or(std::cmp::Ordering::Equal))
            });
            t
        };
        let mut id = std::collections::HashMap::from([(self.initial, 0usize)]);
        let mut order = vec![];
        let mut queue = std::collections::VecDeque::from([self.initial]);
        while let Some(s) = queue.pop_front() {
            order.push(s);
            for (_, t, _) in sorted(s) {
                if !id.contains_key(&t) {
                    id.insert(t, id.len());
                    queue.push_back(t);
                }
            }
        }
        let mut lines: Vec<String> = order
            .iter()
            .map(|&s| format!("state {} {}", id[&s], self.labels[s]))
            .collect();
        for &s in &order {
            for (i, t, p) in sorted(s) {
                // (A chain's transitions have no input, and the text no field for it.)
                let input = if i.is_empty() {
                    String::new()
                } else {
                    format!("{i} ")
                };
                lines.push(format!("trans {} {input}{} {p:.6}", id[&s], id[&t]));
            }
        }
        lines
    }
}

/// The steps' symbols: each step's key (input and output, numbered in the order of the
/// pair of strings, which is AALpy's order of prefixes), its output's label and its input.
struct Symbols<'a> {
    keys: Vec<(&'a str, &'a str)>,
    labels: Vec<&'a str>,
}

impl<'a> Symbols<'a> {
    fn of<S: AsRef<str>>(sequences: &'a [Vec<S>], mdp: bool) -> Result<Self, String> {
        let mut keys = std::collections::HashSet::new();
        let mut labels = std::collections::HashSet::new();
        for (n, seq) in sequences.iter().enumerate() {
            labels.insert(seq[0].as_ref());
            for step in &seq[1..] {
                let k = split(step.as_ref(), mdp).ok_or_else(|| {
                    format!(
                        "sequence {}: `{}` is not `input:output`",
                        n + 1,
                        step.as_ref()
                    )
                })?;
                labels.insert(k.1);
                keys.insert(k);
            }
        }
        let mut keys: Vec<_> = keys.into_iter().collect();
        keys.sort_unstable();
        let mut labels: Vec<_> = labels.into_iter().collect();
        labels.sort_unstable();
        Ok(Symbols { keys, labels })
    }

    fn key(&self, step: &str, mdp: bool) -> u32 {
        let k = split(step, mdp).expect("checked");
        self.keys.binary_search(&k).expect("a known step") as u32
    }

    fn label(&self, l: &str) -> u32 {
        self.labels.binary_search(&l).expect("a known label") as u32
    }
}

/// A step as (input, output): a chain's steps have no input.
fn split(step: &str, mdp: bool) -> Option<(&str, &str)> {
    if mdp {
        step.split_once(':')
    } else {
        Some(("", step))
    }
}

fn learn_steps<S: AsRef<str>>(sequences: &[Vec<S>], eps: f64, mdp: bool) -> Result<Mdp, String> {
    let first = sequences
        .first()
        .and_then(|s| s.first())
        .ok_or("no sequences")?
        .as_ref();
    if let Some((i, _)) = sequences
        .iter()
        .enumerate()
        .find(|(_, s)| s.first().map(AsRef::as_ref) != Some(first))
    {
        return Err(format!(
            "sequence {} starts with `{}`, not `{first}`: every sequence starts with the initial \
             state's label",
            i + 1,
            sequences[i].first().map_or("", AsRef::as_ref)
        ));
    }
    let symbols = Symbols::of(sequences, mdp)?;
    let mut nodes = vec![Node {
        label: symbols.label(first),
        prefix: vec![],
        children: vec![],
        freq: vec![],
        original_children: vec![],
        original_freq: vec![],
    }];
    for seq in sequences {
        let mut at = 0;
        for step in &seq[1..] {
            let k = symbols.key(step.as_ref(), mdp);
            let next = match child(&nodes[at].children, k) {
                Some(c) => c,
                None => {
                    let mut prefix = nodes[at].prefix.clone();
                    prefix.push(k);
                    nodes.push(Node {
                        label: symbols.label(symbols.keys[k as usize].1),
                        prefix,
                        children: vec![],
                        freq: vec![],
                        original_children: vec![],
                        original_freq: vec![],
                    });
                    let c = nodes.len() - 1;
                    nodes[at].children.push((k, c));
                    nodes[at].freq.push((k, 0));
                    c
                }
            };
            if let Some(f) = nodes[at].freq.iter_mut().find(|f| f.0 == k) {
                f.1 += 1;
            }
            at = next;
        }
    }
    for n in &mut nodes {
        n.original_children.clone_from(&n.children);
        n.original_freq.clone_from(&n.freq);
    }
    // Each key's input (a group of the compatibility test).
    let inputs: Vec<&str> = symbols.keys.iter().map(|k| k.0).collect();
    let log_term = (0.5 * (2.0 / eps).ln()).sqrt();
    let red = red_blue(&mut nodes, log_term, mdp.then_some(&inputs[..]));
    Ok(to_mdp(&nodes, &red, &symbols))
}

/// The red/blue loop: the red nodes, in shortlex order.
fn red_blue(nodes: &mut [Node], log_term: f64, inputs: Option<&[&str]>) -> Vec<usize> {
    // (Shortlex: by length, then symbol by symbol.)
    let order = |nodes: &[Node], a: usize, b: usize| {
        let (x, y) = (&nodes[a].prefix, &nodes[b].prefix);
        x.len().cmp(&y.len()).then_with(|| x.cmp(y))
    };
    let mut red = vec![0usize];
    let mut is_red = vec![false; nodes.len()];
    is_red[0] = true;
    loop {
        let blue = red
            .iter()
            .flat_map(|&r| nodes[r].children.iter().map(|c| c.1))
            .filter(|&s| !is_red[s])
            .min_by(|&a, &b| order(nodes, a, b));
        let Some(b) = blue else { break };
        match red
            .iter()
            .copied()
            .find(|&r| compatible(nodes, r, b, log_term, inputs))
        {
            Some(r) => merge(nodes, r, b),
            None => {
                let at = red.partition_point(|&r| order(nodes, r, b).is_lt());
                red.insert(at, b);
                is_red[b] = true;
            }
        }
    }
    red
}

/// AALpy's `compatibility_test(a, b)`, on the original tree.
fn compatible(nodes: &[Node], a: usize, b: usize, log_term: f64, inputs: Option<&[&str]>) -> bool {
    let mut stack = vec![(a, b)];
    while let Some((a, b)) = stack.pop() {
        let (x, y) = (&nodes[a], &nodes[b]);
        if x.label != y.label {
            return false;
        }
        if x.original_children.is_empty() || y.original_children.is_empty() {
            continue;
        }
        if different(&x.original_freq, &y.original_freq, log_term, inputs) {
            return false;
        }
        for &(k, c) in &x.original_children {
            if let Some(d) = child(&y.original_children, k) {
                stack.push((c, d));
            }
        }
    }
    true
}

/// Hoeffding's bound, as AALpy computes it (`sqrt(1/n)`, the strict `>`), on the outputs'
/// distributions given each input both nodes have (`inputs`: each key's; `None` for a chain,
/// whose steps have no input: AALpy's test of a chain).
fn different(a: &[(u32, u64)], b: &[(u32, u64)], log_term: f64, inputs: Option<&[&str]>) -> bool {
    let Some(inputs) = inputs else {
        return hoeffding(a, b, log_term);
    };
    let input = |k: u32| inputs[k as usize];
    let mut groups: Vec<&str> = a.iter().map(|f| input(f.0)).collect();
    groups.sort_unstable();
    groups.dedup();
    groups.retain(|&i| b.iter().any(|f| input(f.0) == i));
    groups.into_iter().any(|i| {
        let of = |list: &[(u32, u64)]| -> Vec<(u32, u64)> {
            list.iter().copied().filter(|f| input(f.0) == i).collect()
        };
        hoeffding(&of(a), &of(b), log_term)
    })
}

fn hoeffding(a: &[(u32, u64)], b: &[(u32, u64)], log_term: f64) -> bool {
    let n1: u64 = a.iter().map(|f| f.1).sum();
    let n2: u64 = b.iter().map(|f| f.1).sum();
    if n1 == 0 || n2 == 0 {
        return false;
    }
    let (n1, n2) = (n1 as f64, n2 as f64);
    let bound = ((1.0 / n1).sqrt() + (1.0 / n2).sqrt()) * log_term;
    let f = |list: &[(u32, u64)], k: u32| list.iter().find(|x| x.0 == k).map_or(0, |x| x.1);
    a.iter()
        .map(|x| x.0)
        .chain(b.iter().map(|x| x.0))
        .any(|k| (f(a, k) as f64 / n1 - f(b, k) as f64 / n2).abs() > bound)
}

/// Redirects `b`'s parent to `r` and folds `b`'s subtree into `r`.
fn merge(nodes: &mut [Node], r: usize, b: usize) {
    let prefix = nodes[b].prefix.clone();
    let (last, path) = prefix.split_last().expect("a blue node is not the root");
    let mut at = 0;
    for &k in path {
        at = child(&nodes[at].children, k).expect("the blue node's path");
    }
    if let Some(c) = nodes[at].children.iter_mut().find(|c| c.0 == *last) {
        c.1 = r;
    }
    fold(nodes, r, b);
}

/// AALpy's `fold`, depth first in the blue node's child order (which node of two survives
/// depends on it).
fn fold(nodes: &mut [Node], r: usize, b: usize) {
    // (An explicit stack of (red, blue, next child of blue): the sequences may be long.)
    let mut stack = vec![(r, b, 0usize)];
    while let Some(top) = stack.last_mut() {
        let (r, b, i) = *top;
        let Some(&(k, bc)) = nodes[b].children.get(i) else {
            stack.pop();
            continue;
        };
        top.2 += 1;
        let count = nodes[b].freq[i].1;
        match child(&nodes[r].children, k) {
            Some(rc) => {
                if let Some(f) = nodes[r].freq.iter_mut().find(|f| f.0 == k) {
                    f.1 += count;
                }
                stack.push((rc, bc, 0));
            }
            None => {
                nodes[r].children.push((k, bc));
                nodes[r].freq.push((k, count));
            }
        }
    }
}

/// The red nodes as a model: states in shortlex order (`q0` the root), each transition's
/// probability its count over the node's count for the same input.
fn to_mdp(nodes: &[Node], red: &[usize], symbols: &Symbols<'_>) -> Mdp {
    let mut state = vec![usize::MAX; nodes.len()];
    for (i, &r) in red.iter().enumerate() {
        state[r] = i;
    }
    let trans = red
        .iter()
        .map(|&r| {
            let input = |k: u32| symbols.keys[k as usize].0;
            let total = |i: &str| -> u64 {
                nodes[r]
                    .freq
                    .iter()
                    .filter(|f| input(f.0) == i)
                    .map(|f| f.1)
                    .sum()
            };
            nodes[r]
                .children
                .iter()
                .zip(&nodes[r].freq)
                .map(|(&(k, c), &(_, f))| {
                    let i = input(k);
                    (i.to_string(), state[c], f as f64 / total(i) as f64)
                })
                .collect()
        })
        .collect();
    Mdp {
        labels: red
            .iter()
            .map(|&r| symbols.labels[nodes[r].label as usize].to_string())
            .collect(),
        initial: 0,
        trans,
    }
}

/// The log-likelihood of the sequences under `chain` (each follows one path: the successor
/// with the next label), and its number of free parameters (per state, its successors
/// less one); `None` if a sequence leaves the chain.
pub fn likelihood<S: AsRef<str>>(chain: &Chain, sequences: &[Vec<S>]) -> Option<(f64, usize)> {
    let mut ll = 0.0;
    for seq in sequences {
        let mut s = chain.initial;
        for label in seq.iter().skip(1) {
            let &(d, p) = chain.trans[s]
                .iter()
                .find(|(d, _)| chain.labels[*d] == label.as_ref())?;
            ll += p.ln();
            s = d;
        }
    }
    let k = chain.trans.iter().map(|t| t.len().saturating_sub(1)).sum();
    Some((ll, k))
}

/// AAlergia's parameter chosen by the BIC-style score `LL − ½·k·ln N` (`N` the number of
/// steps): over a logarithmic grid of 40 values from 10^-6 to 2, the highest score; among
/// equal scores the fewest states, then the largest parameter. The parameter, its score and
/// the chain.
pub fn choose_eps<S: AsRef<str>>(sequences: &[Vec<S>]) -> Result<(f64, f64, Chain), String> {
    let steps: usize = sequences.iter().map(|s| s.len().saturating_sub(1)).sum();
    let ln_n = (steps.max(1) as f64).ln();
    let mut best: Option<(f64, f64, Chain)> = None;
    for i in 0..40 {
        let eps = (1e-6f64.ln() + (2f64.ln() - 1e-6f64.ln()) * f64::from(i) / 39.0).exp();
        let chain = learn(sequences, eps)?;
        let (ll, k) = likelihood(&chain, sequences).ok_or("a sequence leaves the learned model")?;
        let score = ll - 0.5 * k as f64 * ln_n;
        let better = best
            .as_ref()
            .is_none_or(|(_, s, c)| score > *s || (score == *s && chain.states() <= c.states()));
        if better {
            best = Some((eps, score, chain));
        }
    }
    best.ok_or_else(|| "no parameter".to_string())
}
