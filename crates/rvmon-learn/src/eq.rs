//! Equivalence oracles.

use crate::dfa::Dfa;
use crate::teacher::Teacher;
use crate::Equivalence;

pub use rvmon_core::rng::SplitMix;

/// The perfect oracle of a known target: the shortest word on which the hypothesis and the
/// target differ, least in the order of the alphabet list (AALpy's `bisimilar`, so counts
/// are reproducible and comparable). It runs nothing on the system.
pub struct Perfect<'t> {
    pub target: &'t Dfa,
}

impl Equivalence for Perfect<'_> {
    fn find(&mut self, hyp: &Dfa, _: &mut Teacher) -> Option<Vec<usize>> {
        hyp.separating_word(self.target)
    }
}

/// Random words of 1 to `length` symbols (uniform lengths, as AALpy's random-word oracle
/// draws them), at most `tests` of them an equivalence query, each run on the system (a
/// test word: counted in `eq_tests`, kept in the cache); a counterexample is the word cut
/// after its first symbol where the system and the hypothesis differ (the whole word, from a
/// system that answers whole words).
pub struct Random {
    pub length: usize,
    pub tests: usize,
    pub symbols: usize,
    pub rng: SplitMix,
}

impl Equivalence for Random {
    fn find(&mut self, hyp: &Dfa, teacher: &mut Teacher) -> Option<Vec<usize>> {
        if hyp.accepting[hyp.initial] != teacher.initial_answer() {
            return Some(vec![]);
        }
        for _ in 0..self.tests {
            let n = 1 + self.rng.below(self.length.max(1));
            let word: Vec<usize> = (0..n).map(|_| self.rng.below(self.symbols)).collect();
            let answers = teacher.test(&word);
            if answers.len() < word.len() {
                if answers.last().is_some_and(|&o| o != hyp.accepts(&word)) {
                    return Some(word);
                }
                continue;
            }
            let mut q = hyp.initial;
            for (i, (&a, &o)) in word.iter().zip(answers).enumerate() {
                q = hyp.step(q, a);
                if hyp.accepting[q] != o {
                    return Some(word[..=i].to_vec());
                }
            }
        }
        None
    }
}

/// Paper 26's equivalence oracle (learnlib-ttt's experiments): while the hypothesis differs
/// from the target, random walks of `length` symbols on the target, each symbol drawn among
/// those that keep it in its language (all of them once none does; the walk ends in a
/// rejecting state), until one ends where the hypothesis answers otherwise; that whole walk
/// is the counterexample, long on purpose. Walks are counted in `eq_tests` and run on the
/// target's automaton, not on the system (as the paper's runner does). A hypothesis that
/// errs only off the walks (one accepting everything, against a prefix-closed target) is
/// given the shortest counterexample after `limit` walks.
pub struct Walk<'t> {
    pub target: &'t Dfa,
    pub length: usize,
    pub limit: usize,
    pub rng: SplitMix,
}

impl Equivalence for Walk<'_> {
    fn find(&mut self, hyp: &Dfa, teacher: &mut Teacher) -> Option<Vec<usize>> {
        let shortest = hyp.separating_word(self.target)?;
        for _ in 0..self.limit {
            teacher.counters.eq_tests += 1;
            let w = self.walk();
            if self.target.accepts(&w) != hyp.accepts(&w) {
                return Some(w);
            }
        }
        Some(shortest)
    }
}

impl Walk<'_> {
    fn walk(&mut self) -> Vec<usize> {
        let t = self.target;
        let mut q = t.initial;
        let mut word = Vec::with_capacity(self.length);
        let mut stay = Vec::new();
        while word.len() < self.length && t.accepting[q] {
            stay.clear();
            stay.extend((0..t.symbols()).filter(|&a| t.accepting[t.step(q, a)]));
            let a = if stay.is_empty() {
                self.rng.below(t.symbols())
            } else {
                stay[self.rng.below(stay.len())]
            };
            word.push(a);
            q = t.step(q, a);
        }
        word
    }
}
