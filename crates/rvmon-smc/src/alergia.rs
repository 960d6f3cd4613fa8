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
    // Symbols numbered in string order, so that comparing prefixes of numbers is comparing
    // them as AALpy does (strings, element by element).
    let names: std::collections::HashSet<&str> =
        sequences.iter().flatten().map(AsRef::as_ref).collect();
    let mut names: Vec<&str> = names.into_iter().collect();
    names.sort_unstable();
    let id = |s: &str| names.binary_search(&s).expect("a known symbol") as u32;
    let mut nodes = vec![Node {
        label: id(first),
        prefix: vec![],
        children: vec![],
        freq: vec![],
        original_children: vec![],
        original_freq: vec![],
    }];
    for seq in sequences {
        let mut at = 0;
        for sym in &seq[1..] {
            let k = id(sym.as_ref());
            let next = match child(&nodes[at].children, k) {
                Some(c) => c,
                None => {
                    let mut prefix = nodes[at].prefix.clone();
                    prefix.push(k);
                    nodes.push(Node {
                        label: k,
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
    let log_term = (0.5 * (2.0 / eps).ln()).sqrt();
    let red = red_blue(&mut nodes, log_term);
    Ok(to_chain(&nodes, &red, &names))
}

/// The red/blue loop: the red nodes, in shortlex order.
fn red_blue(nodes: &mut [Node], log_term: f64) -> Vec<usize> {
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
            .find(|&r| compatible(nodes, r, b, log_term))
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
fn compatible(nodes: &[Node], a: usize, b: usize, log_term: f64) -> bool {
    let mut stack = vec![(a, b)];
    while let Some((a, b)) = stack.pop() {
        let (x, y) = (&nodes[a], &nodes[b]);
        if x.label != y.label {
            return false;
        }
        if x.original_children.is_empty() || y.original_children.is_empty() {
            continue;
        }
        if different(&x.original_freq, &y.original_freq, log_term) {
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

/// Hoeffding's bound, as AALpy computes it (`sqrt(1/n)`, the strict `>`).
fn different(a: &[(u32, u64)], b: &[(u32, u64)], log_term: f64) -> bool {
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

/// The red nodes as a chain: states in shortlex order (`q0` the root), each transition's
/// probability its count over the node's.
fn to_chain(nodes: &[Node], red: &[usize], names: &[&str]) -> Chain {
    let mut state = vec![usize::MAX; nodes.len()];
    for (i, &r) in red.iter().enumerate() {
        state[r] = i;
    }
    let trans = red
        .iter()
        .map(|&r| {
            let total: u64 = nodes[r].freq.iter().map(|f| f.1).sum();
            nodes[r]
                .children
                .iter()
                .zip(&nodes[r].freq)
                .map(|(&(_, c), &(_, f))| (state[c], f as f64 / total as f64))
                .collect()
        })
        .collect();
    Chain {
        labels: red
            .iter()
            .map(|&r| names[nodes[r].label as usize].to_string())
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
