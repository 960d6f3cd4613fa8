//! Labelled Markov chains: each state has a label (a symbol; `p&q` holds the propositions p
//! and q) and a probability distribution over successor states. Read and written as AALpy
//! writes them (DOT: `q0 [label="init"]; q0 -> q1 [label=0.686];`), and printed in the
//! canonical text of AALpy's oracle script, for diffing.

use std::collections::HashMap;

#[derive(Clone, Debug, PartialEq)]
pub struct Chain {
    pub labels: Vec<String>,
    pub initial: usize,
    /// Per state: (successor, probability). A state without successors stays where it is
    /// (as AALpy's `MarkovChain.step` does).
    pub trans: Vec<Vec<(usize, f64)>>,
}

impl Chain {
    pub fn states(&self) -> usize {
        self.labels.len()
    }

    /// Whether proposition `p` holds in state `s`: its label is `p`, or `p` is one of the
    /// `&`-joined propositions of its label.
    pub fn holds(&self, s: usize, p: &str) -> bool {
        let l = &self.labels[s];
        l == p || l.split('&').any(|x| x == p)
    }

    /// AALpy's oracle text: `state <id> <label>` lines, then `trans <src> <dst> <p>` lines
    /// (`%.6f`), states numbered breadth-first from the initial one, successors by label and
    /// then by falling probability (a chain is an MDP whose transitions have no input).
    pub fn canonical(&self) -> Vec<String> {
        let mdp = crate::alergia::Mdp {
            labels: self.labels.clone(),
            initial: self.initial,
            trans: self
                .trans
                .iter()
                .map(|t| t.iter().map(|&(d, p)| (String::new(), d, p)).collect())
                .collect(),
        };
        mdp.canonical()
    }

    /// As AALpy's DOT.
    pub fn to_dot(&self) -> String {
        let mut out = String::from("digraph LearnedModel {\n");
        for (s, l) in self.labels.iter().enumerate() {
            out.push_str(&format!("q{s} [label=\"{}\"];\n", l.replace('"', "\\\"")));
        }
        for (s, t) in self.trans.iter().enumerate() {
            for (d, p) in t {
                out.push_str(&format!("q{s} -> q{d} [label={p:?}];\n"));
            }
        }
        out.push_str(&format!(
            "__start0 [shape=none, label=\"\"];\n__start0 -> q{} [label=\"\"];\n}}\n",
            self.initial
        ));
        out
    }

    /// Reads AALpy's DOT of a Markov chain, line by line: `id [label="…"]` declares a state,
    /// `a -> b [label=p]` a transition, `__start0 -> id` the initial state. Each state's
    /// probabilities must sum to 1 (within 1e-9), or to 0 for a state without successors.
    pub fn from_dot(name: &str, text: &str) -> Result<Chain, String> {
        let mut ids: HashMap<String, usize> = HashMap::new();
        let mut chain = Chain {
            labels: vec![],
            initial: usize::MAX,
            trans: vec![],
        };
        let mut state = |chain: &mut Chain, id: &str| -> usize {
            let n = ids.len();
            let s = *ids.entry(id.to_string()).or_insert(n);
            if s == chain.labels.len() {
                chain.labels.push(id.to_string());
                chain.trans.push(vec![]);
            }
            s
        };
        let mut initial = None;
        for (n, line) in text.lines().enumerate() {
            let at = |what: &str| format!("{name}:{}: {what}", n + 1);
            let l = line.trim();
            if let Some(arrow) = l.find("->") {
                let src = l[..arrow].trim().trim_matches('"');
                let rest = l[arrow + 2..].trim_start();
                let end = rest
                    .find(|c: char| c.is_whitespace() || c == '[' || c == ';')
                    .unwrap_or(rest.len());
                let dst = rest[..end].trim_matches('"');
                if src.starts_with("__start") {
                    initial = Some(dst.to_string());
                    continue;
                }
                let p = rvmon_core::text::dot_label(rest)
                    .and_then(|v| v.parse::<f64>().ok())
                    .filter(|p| (0.0..=1.0).contains(p))
                    .ok_or_else(|| at("expected a transition's probability (`[label=0.5]`)"))?;
                let (s, d) = (state(&mut chain, src), state(&mut chain, dst));
                chain.trans[s].push((d, p));
            } else if l.contains("label") && !l.starts_with("__start") {
                let id = l
                    .split('[')
                    .next()
                    .unwrap_or_default()
                    .trim()
                    .trim_matches('"');
                if id.is_empty() || matches!(id, "node" | "edge" | "graph") {
                    continue;
                }
                let s = state(&mut chain, id);
                if let Some(label) = rvmon_core::text::dot_label(l) {
                    chain.labels[s] = label;
                }
            }
        }
        let initial = initial.ok_or(format!(
            "{name}: no initial state (expected `__start0 -> STATE`)"
        ))?;
        chain.initial = *ids.get(&initial).ok_or(format!(
            "{name}: the initial state `{initial}` is not declared"
        ))?;
        for (s, t) in chain.trans.iter().enumerate() {
            let sum: f64 = t.iter().map(|x| x.1).sum();
            if !t.is_empty() && (sum - 1.0).abs() > 1e-9 {
                return Err(format!(
                    "{name}: the probabilities out of state `{}` sum to {sum}, not 1",
                    chain.labels[s]
                ));
            }
        }
        Ok(chain)
    }

    /// A run's labels from the initial state, `length` of them (the initial one included).
    pub fn trace(&self, length: usize, rng: &mut rvmon_core::rng::SplitMix) -> Vec<&str> {
        let mut s = self.initial;
        let mut out = vec![self.labels[s].as_str()];
        while out.len() < length {
            s = self.step(s, rng);
            out.push(&self.labels[s]);
        }
        out
    }

    /// One step from `s`.
    pub fn step(&self, s: usize, rng: &mut rvmon_core::rng::SplitMix) -> usize {
        let t = &self.trans[s];
        if t.is_empty() {
            return s;
        }
        let mut u = rng.unit();
        for &(d, p) in t {
            if u < p {
                return d;
            }
            u -= p;
        }
        t[t.len() - 1].0
    }
}
