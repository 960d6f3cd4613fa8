//! Extended regular expressions over event names (JavaMOP's `ere:` bodies), compiled to the
//! deterministic machine the parametric monitor runs.
//!
//! `createColl updateMap* createIter useIter* updateMap updateMap* useIter` is a concatenation
//! of event names with `*`, `+`, `?`, `|`, parentheses and `epsilon`. The machine is the
//! subset construction of Thompson's automaton, without the empty set: a slice whose events
//! are in the language enters an accepting state (JavaMOP's `@match`), and an event after
//! which no continuation can match has no transition (JavaMOP's `@fail`), as in an `fsm:`.
//! (Every state of Thompson's automaton lies on a path to its accepting state, so a
//! non-empty set of them can always still match.) JavaMOP's complement `~` and intersection
//! `&` are not supported.
//! The property test `ere_machines_accept_their_language` checks the machines against the
//! `regex` crate and the dead states against every continuation.

use std::collections::BTreeMap;

/// A regular expression over symbols (event numbers).
#[derive(Clone, Debug, PartialEq)]
pub enum Re {
    Epsilon,
    Symbol(usize),
    Concat(Box<Re>, Box<Re>),
    Alt(Box<Re>, Box<Re>),
    Star(Box<Re>),
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

/// Thompson's automaton: ε-edges and symbol edges per state.
#[derive(Default)]
struct Nfa {
    eps: Vec<Vec<usize>>,
    edges: Vec<Vec<(usize, usize)>>,
}

impl Nfa {
    fn state(&mut self) -> usize {
        self.eps.push(Vec::new());
        self.edges.push(Vec::new());
        self.eps.len() - 1
    }

    /// Adds `re` between two new states; returns them.
    fn build(&mut self, re: &Re) -> (usize, usize) {
        let (s, e) = (self.state(), self.state());
        match re {
            Re::Epsilon => self.eps[s].push(e),
            Re::Symbol(a) => self.edges[s].push((*a, e)),
            Re::Concat(a, b) => {
                let (a0, a1) = self.build(a);
                let (b0, b1) = self.build(b);
                self.eps[s].push(a0);
                self.eps[a1].push(b0);
                self.eps[b1].push(e);
            }
            Re::Alt(a, b) => {
                for r in [a, b] {
                    let (r0, r1) = self.build(r);
                    self.eps[s].push(r0);
                    self.eps[r1].push(e);
                }
            }
            Re::Star(a) => {
                let (a0, a1) = self.build(a);
                self.eps[s].extend([a0, e]);
                self.eps[a1].extend([a0, e]);
            }
        }
        (s, e)
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
        set.sort_unstable();
        set
    }
}

/// The most states a machine may have: the subset construction can be exponential
/// (`(a|b)* a (a|b)(a|b)…`).
pub const MAX_STATES: usize = 100_000;

/// The machine of `re` over `symbols` symbols; `None` past [`MAX_STATES`] states.
pub fn compile(re: &Re, symbols: usize) -> Option<Dfa> {
    let mut nfa = Nfa::default();
    let (start, accept) = nfa.build(re);
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
    Some(dfa)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn re() -> impl Strategy<Value = Re> {
        let leaf = prop_oneof![
            4 => (0usize..3).prop_map(Re::Symbol),
            1 => Just(Re::Epsilon),
        ];
        leaf.prop_recursive(4, 24, 2, |inner| {
            prop_oneof![
                (inner.clone(), inner.clone())
                    .prop_map(|(a, b)| Re::Concat(Box::new(a), Box::new(b))),
                (inner.clone(), inner.clone()).prop_map(|(a, b)| Re::Alt(Box::new(a), Box::new(b))),
                inner.clone().prop_map(|a| Re::Star(Box::new(a))),
                inner.clone().prop_map(Re::plus),
                inner.prop_map(Re::optional),
            ]
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
        }
    }

    fn run(dfa: &Dfa, word: &[usize]) -> Option<usize> {
        word.iter().try_fold(0, |s, &a| dfa.delta[s][a])
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 500, ..ProptestConfig::default() })]

        #[test]
        fn ere_machines_accept_their_language(
            re in re(),
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
                let extendable = (0..=4u32).any(|len| {
                    (0..3usize.pow(len)).any(|code| {
                        let mut more = text.clone();
                        let mut c = code;
                        for _ in 0..len {
                            more.push((b'a' + (c % 3) as u8) as char);
                            c /= 3;
                        }
                        pattern.is_match(&more)
                    })
                });
                if state.is_none() {
                    prop_assert!(!extendable, "{:?}: {} was declared dead", re, text);
                } else if dfa.delta.len() <= 4 && !w.is_empty() {
                    prop_assert!(extendable, "{:?}: {} can never match", re, text);
                }
            }
        }
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
