//! Deterministic finite automata: the targets read from files, and the hypotheses the
//! learners build. States are numbers, symbols are indices into the alphabet list (whose
//! order is the order of every search: the perfect oracle's counterexamples, BFS numbering).

/// A complete DFA over `alphabet`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Dfa {
    pub alphabet: Vec<String>,
    pub initial: usize,
    pub accepting: Vec<bool>,
    /// `delta[q * k + a]`: the successor of `q` by symbol `a` (`k` symbols).
    pub delta: Vec<usize>,
}

impl Dfa {
    /// A DFA with `states` states, none accepting, every transition to state 0.
    pub fn new(alphabet: Vec<String>, states: usize) -> Dfa {
        let k = alphabet.len();
        Dfa {
            alphabet,
            initial: 0,
            accepting: vec![false; states],
            delta: vec![0; states * k],
        }
    }

    pub fn states(&self) -> usize {
        self.accepting.len()
    }

    pub fn symbols(&self) -> usize {
        self.alphabet.len()
    }

    pub fn step(&self, q: usize, a: usize) -> usize {
        self.delta[q * self.symbols() + a]
    }

    /// The state reached from `q` by `word`.
    pub fn run_from(&self, q: usize, word: &[usize]) -> usize {
        word.iter().fold(q, |q, &a| self.step(q, a))
    }

    pub fn accepts(&self, word: &[usize]) -> bool {
        self.accepting[self.run_from(self.initial, word)]
    }

    /// The shortest word on which `self` and `other` (same alphabet) differ, least in the
    /// order of the alphabet list among the shortest (breadth-first over pairs of states,
    /// successors in alphabet order, each pair kept with the path that first found it);
    /// `None` if they are equivalent.
    pub fn separating_word(&self, other: &Dfa) -> Option<Vec<usize>> {
        let k = self.symbols();
        // (Only the reachable pairs are visited, which is few where the two are close: a
        // table over all pairs would cost the product of the sizes at every query.)
        let mut seen: std::collections::HashMap<(usize, usize), usize, PairHash> =
            std::collections::HashMap::default();
        // Each visited pair, with the index of the pair it was found from and the symbol.
        let mut visited: Vec<((usize, usize), usize, usize)> = Vec::new();
        let start = (self.initial, other.initial);
        seen.insert(start, 0);
        visited.push((start, usize::MAX, 0));
        let mut next = 0;
        while next < visited.len() {
            let ((p, q), _, _) = visited[next];
            if self.accepting[p] != other.accepting[q] {
                let mut word = Vec::new();
                let mut at = next;
                while visited[at].1 != usize::MAX {
                    word.push(visited[at].2);
                    at = visited[at].1;
                }
                word.reverse();
                return Some(word);
            }
            for a in 0..k {
                let pair = (self.step(p, a), other.step(q, a));
                if let std::collections::hash_map::Entry::Vacant(e) = seen.entry(pair) {
                    e.insert(visited.len());
                    visited.push((pair, next, a));
                }
            }
            next += 1;
        }
        None
    }

    /// The states reachable from the initial one, numbered breadth-first (successors in
    /// alphabet order): the canonical form two equal automata share.
    pub fn canonical(&self) -> Dfa {
        let k = self.symbols();
        let mut number = vec![usize::MAX; self.states()];
        let mut order = vec![self.initial];
        number[self.initial] = 0;
        let mut i = 0;
        while i < order.len() {
            let q = order[i];
            for a in 0..k {
                let r = self.step(q, a);
                if number[r] == usize::MAX {
                    number[r] = order.len();
                    order.push(r);
                }
            }
            i += 1;
        }
        let mut out = Dfa::new(self.alphabet.clone(), order.len());
        for (new, &q) in order.iter().enumerate() {
            out.accepting[new] = self.accepting[q];
            for a in 0..k {
                out.delta[new * k + a] = number[self.step(q, a)];
            }
        }
        out
    }

    /// The minimal DFA of the same language (reachable states, then Moore's partition
    /// refinement), in canonical numbering.
    pub fn minimal(&self) -> Dfa {
        let reach = self.canonical();
        let (n, k) = (reach.states(), reach.symbols());
        let mut class: Vec<usize> = reach.accepting.iter().map(|&b| usize::from(b)).collect();
        loop {
            // A state's signature: its class and its successors' classes.
            let mut ids = std::collections::HashMap::new();
            let next: Vec<usize> = (0..n)
                .map(|q| {
                    let sig: Vec<usize> = std::iter::once(class[q])
                        .chain((0..k).map(|a| class[reach.step(q, a)]))
                        .collect();
                    let len = ids.len();
                    *ids.entry(sig).or_insert(len)
                })
                .collect();
            let before = class.iter().collect::<std::collections::HashSet<_>>().len();
            class = next;
            if ids.len() == before {
                break;
            }
        }
        let classes = class.iter().max().map_or(0, |m| m + 1);
        let mut out = Dfa::new(reach.alphabet.clone(), classes);
        out.initial = class[reach.initial];
        for q in 0..n {
            out.accepting[class[q]] = reach.accepting[q];
            for a in 0..k {
                out.delta[class[q] * k + a] = class[reach.step(q, a)];
            }
        }
        out.canonical()
    }

    /// The symbols of `word` as text, separated by spaces.
    pub fn spell(&self, word: &[usize]) -> String {
        let names: Vec<&str> = word.iter().map(|&a| self.alphabet[a].as_str()).collect();
        names.join(" ")
    }
}

/// A hasher for pairs of state numbers (a multiply and a rotate a word: SipHash's
/// resistance to chosen keys is not needed for them, and cost most of a search).
#[derive(Clone, Copy, Default)]
pub struct PairHash;

impl std::hash::BuildHasher for PairHash {
    type Hasher = PairHasher;

    fn build_hasher(&self) -> PairHasher {
        PairHasher(0)
    }
}

pub struct PairHasher(u64);

impl std::hash::Hasher for PairHasher {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.write_u64(u64::from(b));
        }
    }

    fn write_usize(&mut self, n: usize) {
        self.write_u64(n as u64);
    }

    fn write_u64(&mut self, n: u64) {
        self.0 = (self.0.rotate_left(26) ^ n).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// "Ends in aa" over a, b, with a redundant copy of the accepting state.
    fn aa() -> Dfa {
        let mut d = Dfa::new(vec!["a".into(), "b".into()], 4);
        d.accepting = vec![false, false, true, true];
        d.delta = vec![1, 0, 2, 0, 3, 0, 2, 0];
        d
    }

    #[test]
    fn minimal_and_separating_words() {
        let d = aa();
        let m = d.minimal();
        assert_eq!(m.states(), 3);
        assert!(m.separating_word(&d).is_none());
        assert!(m.accepts(&[1, 0, 0]) && !m.accepts(&[0, 1]));
        let mut other = m.clone();
        other.accepting[0] = true;
        assert_eq!(other.separating_word(&m), Some(vec![]));
        let mut other = m.clone();
        other.accepting[2] = false;
        assert_eq!(other.separating_word(&m), Some(vec![0, 0]));
    }
}
