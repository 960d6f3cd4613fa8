//! Extended regular expressions over event names (JavaMOP's `ere:` bodies), compiled to the
//! deterministic machine the parametric monitor runs.
//!
//! `createColl updateMap* createIter useIter* updateMap updateMap* useIter` is a concatenation
//! of event names with `*`, `+`, `?`, `|`, parentheses and `epsilon`. The machine is the
//! subset construction of Thompson's automaton, minimised, without the states from which
//! nothing is accepted: a slice whose events are in the language enters an accepting state
//! (JavaMOP's `@match`), and an event after which no continuation can match has no transition
//! (JavaMOP's `@fail`), as in an `fsm:`.
//!
//! JavaMOP's complement `~r` (every sequence of the property's events that `r` does not
//! match) and intersection `r & s` are built on machines: the operand's machine is completed
//! with a sink state, then its accepting states are flipped, or two machines run as a product.
//! The result is embedded into the automaton as a fragment (its states, its transitions, an
//! ε-edge in and one out of each accepting state), so they combine freely with the other
//! operators.
//!
//! The property tests check the machines against the `regex` crate (without `~` and `&`) and
//! against a brute-force matcher written from the definitions (with them), and the dead
//! states against every continuation.

use std::collections::BTreeMap;

/// A regular expression over symbols (event numbers).
#[derive(Clone, Debug, PartialEq)]
pub enum Re {
    Epsilon,
    Symbol(usize),
    Concat(Box<Re>, Box<Re>),
    Alt(Box<Re>, Box<Re>),
    Star(Box<Re>),
    /// Every sequence of the alphabet's symbols that the operand does not match.
    Not(Box<Re>),
    /// The sequences both operands match.
    And(Box<Re>, Box<Re>),
}

impl Re {
    pub fn plus(r: Re) -> Re {
        Re::Concat(Box::new(r.clone()), Box::new(Re::Star(Box::new(r))))
    }

    pub fn optional(r: Re) -> Re {
        Re::Alt(Box::new(r), Box::new(Re::Epsilon))
    }
}

/// A deterministic machine: `delta[state][symbol]` (`None`: no continuation can match), and
/// which states accept. State 0 is the start.
#[derive(Clone, Debug, PartialEq)]
pub struct Dfa {
    pub delta: Vec<Vec<Option<usize>>>,
    pub accepting: Vec<bool>,
}

/// Thompson's automaton: ε-edges and symbol edges per state, over `symbols` symbols.
struct Nfa {
    symbols: usize,
    eps: Vec<Vec<usize>>,
    edges: Vec<Vec<(usize, usize)>>,
}

impl Dfa {
    /// The minimal machine of the same language (Moore's partition refinement), as partial as
    /// before: a transition into a state from which nothing is accepted is missing. Nested
    /// `~` and `&` embed their operands' machines, so keeping each minimal keeps the subset
    /// constructions above them small.
    fn minimize(self) -> Dfa {
        let d = self.complete();
        let n = d.delta.len();
        // One class to start with; the first round splits it by acceptance.
        let (mut class, mut count) = (vec![0; n], 1);
        loop {
            let mut ids: std::collections::HashMap<(bool, usize, Vec<usize>), usize> =
                std::collections::HashMap::new();
            let next: Vec<usize> = (0..n)
                .map(|q| {
                    let row = d.delta[q].iter().map(|t| class[t.expect("complete")]);
                    let key = (d.accepting[q], class[q], row.collect());
                    let fresh = ids.len();
                    *ids.entry(key).or_insert(fresh)
                })
                .collect();
            let stable = ids.len() == count;
            (class, count) = (next, ids.len());
            if stable {
                break;
            }
        }
        let mut rows = vec![Vec::new(); count];
        let mut accepting = vec![false; count];
        for q in 0..n {
            rows[class[q]] = d.delta[q]
                .iter()
                .map(|t| class[t.expect("complete")])
                .collect();
            accepting[class[q]] = d.accepting[q];
        }
        // Classes from which an accepting one is reachable.
        let mut live = accepting.clone();
        let mut grew = true;
        while grew {
            grew = false;
            for c in 0..count {
                if !live[c] && rows[c].iter().any(|&t| live[t]) {
                    live[c] = true;
                    grew = true;
                }
            }
        }
        // Number the classes from the start's, in the order they are reached.
        let mut number = vec![None; count];
        let mut order = vec![class[0]];
        number[class[0]] = Some(0);
        let mut min = Dfa {
            delta: Vec::new(),
            accepting: Vec::new(),
        };
        let mut i = 0;
        while i < order.len() {
            let c = order[i];
            let row = rows[c]
                .iter()
                .map(|&t| {
                    live[t].then(|| {
                        *number[t].get_or_insert_with(|| {
                            order.push(t);
                            order.len() - 1
                        })
                    })
                })
                .collect();
            min.delta.push(row);
            min.accepting.push(accepting[c]);
            i += 1;
        }
        min
    }

    /// The same language with every transition defined: a missing one goes to a new
    /// non-accepting sink.
    fn complete(mut self) -> Dfa {
        let sink = self.delta.len();
        let symbols = self.delta.first().map_or(0, Vec::len);
        self.delta.push(vec![Some(sink); symbols]);
        self.accepting.push(false);
        for row in &mut self.delta {
            for t in row.iter_mut() {
                t.get_or_insert(sink);
            }
        }
        self
    }

    /// The product of two complete machines, accepting where both do; `None` past
    /// [`MAX_STATES`] states.
    fn intersect(&self, other: &Dfa) -> Option<Dfa> {
        let mut ids = BTreeMap::from([((0, 0), 0)]);
        let mut pairs = vec![(0, 0)];
        let mut dfa = Dfa {
            delta: Vec::new(),
            accepting: Vec::new(),
        };
        let mut i = 0;
        while i < pairs.len() {
            let (p, q) = pairs[i];
            let row = (self.delta[p].iter().zip(&other.delta[q]))
                .map(|(a, b)| {
                    let next = (a.expect("complete"), b.expect("complete"));
                    Some(*ids.entry(next).or_insert_with(|| {
                        pairs.push(next);
                        pairs.len() - 1
                    }))
                })
                .collect();
            dfa.delta.push(row);
            dfa.accepting.push(self.accepting[p] && other.accepting[q]);
            i += 1;
            if pairs.len() > MAX_STATES {
                return None;
            }
        }
        Some(dfa)
    }
}

impl Nfa {
    fn new(symbols: usize) -> Nfa {
        Nfa {
            symbols,
            eps: Vec::new(),
            edges: Vec::new(),
        }
    }

    fn state(&mut self) -> usize {
        self.eps.push(Vec::new());
        self.edges.push(Vec::new());
        self.eps.len() - 1
    }

    /// Adds `re` between two new states; returns them (`None`: a machine for `~` or `&` needs
    /// more than [`MAX_STATES`] states).
    fn build(&mut self, re: &Re) -> Option<(usize, usize)> {
        let (s, e) = (self.state(), self.state());
        match re {
            Re::Epsilon => self.eps[s].push(e),
            Re::Symbol(a) => self.edges[s].push((*a, e)),
            Re::Concat(a, b) => {
                let (a0, a1) = self.build(a)?;
                let (b0, b1) = self.build(b)?;
                self.eps[s].push(a0);
                self.eps[a1].push(b0);
                self.eps[b1].push(e);
            }
            Re::Alt(a, b) => {
                for r in [a, b] {
                    let (r0, r1) = self.build(r)?;
                    self.eps[s].push(r0);
                    self.eps[r1].push(e);
                }
            }
            Re::Star(a) => {
                let (a0, a1) = self.build(a)?;
                self.eps[s].extend([a0, e]);
                self.eps[a1].extend([a0, e]);
            }
            Re::Not(a) => {
                let mut m = compile(a, self.symbols)?.complete();
                for acc in &mut m.accepting {
                    *acc = !*acc;
                }
                self.embed(&m, s, e);
            }
            Re::And(a, b) => {
                let x = compile(a, self.symbols)?.complete();
                let y = compile(b, self.symbols)?.complete();
                self.embed(&x.intersect(&y)?, s, e);
            }
        }
        Some((s, e))
    }

    /// Adds the machine `m` as a fragment from `s` to `e`.
    fn embed(&mut self, m: &Dfa, s: usize, e: usize) {
        let first = self.eps.len();
        for _ in &m.delta {
            self.state();
        }
        self.eps[s].push(first);
        for (q, row) in m.delta.iter().enumerate() {
            for (a, t) in row.iter().enumerate() {
                if let Some(t) = t {
                    self.edges[first + q].push((a, first + t));
                }
            }
            if m.accepting[q] {
                self.eps[first + q].push(e);
            }
        }
    }

    fn closure(&self, mut set: Vec<usize>) -> Vec<usize> {
        let mut i = 0;
        while i < set.len() {
            for &t in &self.eps[set[i]] {
                if !set.contains(&t) {
                    set.push(t);
                }
            }
            i += 1;
        }
        // An embedded machine has states entered from several others: the same target may
        // come from several edges.
        set.sort_unstable();
        set.dedup();
        set
    }
}

/// The most states a machine may have: the subset construction can be exponential
/// (`(a|b)* a (a|b)(a|b)…`).
pub const MAX_STATES: usize = 100_000;

/// The machine of `re` over `symbols` symbols; `None` past [`MAX_STATES`] states.
pub fn compile(re: &Re, symbols: usize) -> Option<Dfa> {
    let mut nfa = Nfa::new(symbols);
    let (start, accept) = nfa.build(re)?;
    let mut ids: BTreeMap<Vec<usize>, usize> = BTreeMap::new();
    let mut sets = vec![nfa.closure(vec![start])];
    ids.insert(sets[0].clone(), 0);
    let mut dfa = Dfa {
        delta: Vec::new(),
        accepting: Vec::new(),
    };
    let mut i = 0;
    while i < sets.len() {
        let set = sets[i].clone();
        let mut row = vec![None; symbols];
        for (a, slot) in row.iter_mut().enumerate() {
            let next: Vec<usize> = set
                .iter()
                .flat_map(|&s| nfa.edges[s].iter().filter(|e| e.0 == a).map(|e| e.1))
                .collect();
            if next.is_empty() {
                continue;
            }
            let next = nfa.closure(next);
            let id = *ids.entry(next.clone()).or_insert_with(|| {
                sets.push(next);
                sets.len() - 1
            });
            *slot = Some(id);
        }
        dfa.accepting.push(set.contains(&accept));
        dfa.delta.push(row);
        i += 1;
        if sets.len() > MAX_STATES {
            return None;
        }
    }
    Some(dfa.minimize())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Random expressions over 3 symbols; `extended` adds `~` and `&`.
    fn re_tree(extended: bool) -> BoxedStrategy<Re> {
        let leaf = prop_oneof![
            4 => (0usize..3).prop_map(Re::Symbol),
            1 => Just(Re::Epsilon),
        ];
        let size = if extended { 16 } else { 24 };
        leaf.prop_recursive(4, size, 2, move |inner| {
            let classic = prop_oneof![
                (inner.clone(), inner.clone())
                    .prop_map(|(a, b)| Re::Concat(Box::new(a), Box::new(b))),
                (inner.clone(), inner.clone()).prop_map(|(a, b)| Re::Alt(Box::new(a), Box::new(b))),
                inner.clone().prop_map(|a| Re::Star(Box::new(a))),
                inner.clone().prop_map(Re::plus),
                inner.clone().prop_map(Re::optional),
            ];
            if !extended {
                return classic.boxed();
            }
            prop_oneof![
                5 => classic,
                1 => inner.clone().prop_map(|a| Re::Not(Box::new(a))),
                1 => (inner.clone(), inner).prop_map(|(a, b)| Re::And(Box::new(a), Box::new(b))),
            ]
            .boxed()
        })
        .boxed()
    }

    /// Whether some continuation of `word` of fewer than `below` symbols (over 3) satisfies
    /// `matches`.
    fn extendable(word: &[usize], below: u32, matches: impl Fn(&[usize]) -> bool) -> bool {
        (0..below).any(|len| {
            (0..3usize.pow(len)).any(|code| {
                let mut more = word.to_vec();
                let mut c = code;
                for _ in 0..len {
                    more.push(c % 3);
                    c /= 3;
                }
                matches(&more)
            })
        })
    }

    /// The same language in the `regex` crate's syntax, symbols as `a`, `b`, `c`.
    fn to_regex(re: &Re) -> String {
        match re {
            Re::Epsilon => "(?:)".into(),
            Re::Symbol(a) => ((b'a' + *a as u8) as char).to_string(),
            Re::Concat(a, b) => format!("(?:{}{})", to_regex(a), to_regex(b)),
            Re::Alt(a, b) => format!("(?:{}|{})", to_regex(a), to_regex(b)),
            Re::Star(a) => format!("(?:{})*", to_regex(a)),
            Re::Not(_) | Re::And(..) => unreachable!("`re_tree(false)` draws neither `~` nor `&`"),
        }
    }

    fn run(dfa: &Dfa, word: &[usize]) -> Option<usize> {
        word.iter().try_fold(0, |s, &a| dfa.delta[s][a])
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 500, ..ProptestConfig::default() })]

        #[test]
        fn ere_machines_accept_their_language(
            re in re_tree(false),
            words in prop::collection::vec(prop::collection::vec(0usize..3, 0..7), 1..8),
        ) {
            let dfa = compile(&re, 3).unwrap();
            let pattern = regex::Regex::new(&format!("^(?:{})$", to_regex(&re))).unwrap();
            for w in &words {
                let text: String = w.iter().map(|&a| (b'a' + a as u8) as char).collect();
                let state = run(&dfa, w);
                prop_assert_eq!(
                    state.is_some_and(|s| dfa.accepting[s]),
                    pattern.is_match(&text),
                    "{:?} on {}", re, text
                );
                // No transition exactly when no continuation can match: a live state reaches
                // acceptance within as many steps as there are states (checked up to 4).
                let extendable = extendable(w, 5, |more| {
                    let text: String = more.iter().map(|&a| (b'a' + a as u8) as char).collect();
                    pattern.is_match(&text)
                });
                if state.is_none() {
                    prop_assert!(!extendable, "{:?}: {} was declared dead", re, text);
                } else if dfa.delta.len() <= 4 && !w.is_empty() {
                    prop_assert!(extendable, "{:?}: {} can never match", re, text);
                }
            }
        }
    }

    /// Whether `re` matches `word`, straight from the definitions (the alphabet: 3 symbols).
    fn holds(re: &Re, word: &[usize]) -> bool {
        holds_in(
            re,
            word,
            0,
            word.len(),
            &mut std::collections::HashMap::new(),
        )
    }

    /// Whether `re` matches `word[i..j]`, remembered per (subexpression, i, j) so that nested
    /// stars stay polynomial.
    fn holds_in(
        re: &Re,
        word: &[usize],
        i: usize,
        j: usize,
        memo: &mut std::collections::HashMap<(*const Re, usize, usize), bool>,
    ) -> bool {
        let key = (re as *const Re, i, j);
        if let Some(&v) = memo.get(&key) {
            return v;
        }
        let splits = |a: &Re, b: &Re, from: usize, memo: &mut _| {
            (from..=j).any(|k| holds_in(a, word, i, k, memo) && holds_in(b, word, k, j, memo))
        };
        let v = match re {
            Re::Epsilon => i == j,
            Re::Symbol(a) => j == i + 1 && word[i] == *a,
            Re::Concat(a, b) => splits(a, b, i, memo),
            Re::Alt(a, b) => holds_in(a, word, i, j, memo) || holds_in(b, word, i, j, memo),
            // A non-empty word in a* is a non-empty word of a, then a word of a*.
            Re::Star(a) => i == j || splits(a, re, i + 1, memo),
            Re::Not(a) => !holds_in(a, word, i, j, memo),
            Re::And(a, b) => holds_in(a, word, i, j, memo) && holds_in(b, word, i, j, memo),
        };
        memo.insert(key, v);
        v
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

        /// With complement and intersection: the machine accepts exactly the words the
        /// definitions give, and a word has no transition exactly when no continuation of
        /// it matches.
        #[test]
        fn extended_machines_follow_the_definitions(
            re in re_tree(true),
            words in prop::collection::vec(prop::collection::vec(0usize..3, 0..5), 1..6),
        ) {
            let dfa = compile(&re, 3).unwrap();
            for w in &words {
                let state = run(&dfa, w);
                prop_assert_eq!(state.is_some_and(|s| dfa.accepting[s]), holds(&re, w), "{:?} on {:?}", re, w);
                // A live state reaches acceptance in fewer steps than there are states.
                let reach = dfa.delta.len().min(4) as u32;
                let extendable = extendable(w, reach, |more| holds(&re, more));
                // (The start state exists even when nothing matches; it then has no
                // transition, as an empty word that cannot be extended.)
                if state.is_none() || (w.is_empty() && dfa.delta[0].iter().all(Option::is_none) && !dfa.accepting[0]) {
                    prop_assert!(!extendable, "{:?}: {:?} was declared dead", re, w);
                } else if dfa.delta.len() <= 4 {
                    prop_assert!(extendable, "{:?}: {:?} can never match", re, w);
                }
            }
        }
    }

    #[test]
    fn complement_and_intersection() {
        // Over {a, b}: ~(a*) is every word with a b; (a|b)* b & a (a|b)* starts with a and
        // ends with b; ~((a|b)*) matches nothing, so its machine has no transition at all.
        let (a, b) = (|| Box::new(Re::Symbol(0)), || Box::new(Re::Symbol(1)));
        let any = || Box::new(Re::Star(Box::new(Re::Alt(a(), b()))));
        let dfa = compile(&Re::Not(Box::new(Re::Star(a()))), 2).unwrap();
        let accepts = |dfa: &Dfa, w: &[usize]| run(dfa, w).is_some_and(|q| dfa.accepting[q]);
        assert!(!accepts(&dfa, &[0, 0]) && accepts(&dfa, &[0, 1, 0]) && !accepts(&dfa, &[]));
        let re = Re::And(
            Box::new(Re::Concat(any(), b())),
            Box::new(Re::Concat(a(), any())),
        );
        let dfa = compile(&re, 2).unwrap();
        assert!(accepts(&dfa, &[0, 1]) && accepts(&dfa, &[0, 0, 1]) && !accepts(&dfa, &[0, 1, 0]));
        assert_eq!(run(&dfa, &[1]), None, "no match can start with b");
        let none = compile(&Re::Not(any()), 2).unwrap();
        assert_eq!(none.delta, vec![vec![None, None]]);
        assert!(!none.accepting[0]);
    }

    #[test]
    fn exponential_machines_are_refused() {
        // (a|b)* a (a|b)^20: the machine must remember the last 21 symbols.
        let ab = || Re::Alt(Box::new(Re::Symbol(0)), Box::new(Re::Symbol(1)));
        let mut re = Re::Concat(Box::new(Re::Star(Box::new(ab()))), Box::new(Re::Symbol(0)));
        for _ in 0..20 {
            re = Re::Concat(Box::new(re), Box::new(ab()));
        }
        assert!(compile(&re, 2).is_none());
    }

    #[test]
    fn unsafe_map_iterator() {
        // createColl=0 createIter=1 useIter=2 updateMap=3:
        // createColl updateMap* createIter useIter* updateMap updateMap* useIter
        let s = |a| Box::new(Re::Symbol(a));
        let star = |a| Box::new(Re::Star(s(a)));
        let cat = |a: Box<Re>, b: Box<Re>| Box::new(Re::Concat(a, b));
        let re = cat(
            cat(
                cat(cat(cat(cat(s(0), star(3)), s(1)), star(2)), s(3)),
                star(3),
            ),
            s(2),
        );
        let dfa = compile(&re, 4).unwrap();
        let accepts = |w: &[usize]| run(&dfa, w).is_some_and(|q| dfa.accepting[q]);
        assert!(accepts(&[0, 1, 2, 3, 2]));
        assert!(accepts(&[0, 3, 1, 3, 3, 2]));
        assert!(!accepts(&[0, 1, 2, 2]));
        assert_eq!(run(&dfa, &[1]), None, "no match can start with createIter");
    }
}
