//! Equivalence oracles.

use crate::dfa::Dfa;
use crate::teacher::Teacher;
use crate::Equivalence;

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

/// Random words of 1 to `length` symbols, at most `tests` of them an equivalence query, each run
/// on the system (a test word: counted in `eq_tests`, kept in the cache); a counterexample
/// is the word cut after its first symbol where the system and the hypothesis differ.
///
/// Uniform words (their lengths too, as AALpy's random-word oracle draws them), or, given
/// the target (`walk`), paper 26's walks of exactly `length` symbols: each symbol drawn among
/// those that keep the target in its language (all of them once none does). On a
/// prefix-closed system (every rejecting state a sink, as the paper's benchmarks) a uniform
/// word soon falls into the sink and tests nothing more; a walk finds long counterexamples,
/// but never one that leaves the language where the hypothesis stays in it.
pub struct Random<'t> {
    pub length: usize,
    pub tests: usize,
    pub symbols: usize,
    /// The target to walk in (`None`: uniform words).
    pub walk: Option<&'t Dfa>,
    pub rng: SplitMix,
}

impl Equivalence for Random<'_> {
    fn find(&mut self, hyp: &Dfa, teacher: &mut Teacher) -> Option<Vec<usize>> {
        for _ in 0..self.tests {
            let word = match self.walk {
                Some(t) => self.walk(t),
                None => {
                    let n = 1 + self.rng.below(self.length.max(1));
                    (0..n).map(|_| self.rng.below(self.symbols)).collect()
                }
            };
            let mut q = hyp.initial;
            if hyp.accepting[q] != teacher.initial_answer() {
                return Some(vec![]);
            }
            let answers = teacher.test(&word);
            if answers.len() < word.len() {
                // (A system that answers whole words: the word is the counterexample.)
                if answers.last().is_some_and(|&o| o != hyp.accepts(&word)) {
                    return Some(word);
                }
                continue;
            }
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

impl Random<'_> {
    /// A walk of `length` symbols in the target, each symbol drawn among those that stay in
    /// the language (all of them once none does).
    fn walk(&mut self, t: &Dfa) -> Vec<usize> {
        let mut q = t.initial;
        let mut word = Vec::with_capacity(self.length);
        let mut stay = Vec::new();
        for _ in 0..self.length {
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

/// Whether every rejecting state of `t` is a sink (its language is prefix-closed).
pub fn prefix_closed(t: &Dfa) -> bool {
    (0..t.states())
        .filter(|&q| !t.accepting[q])
        .all(|q| (0..t.symbols()).all(|a| !t.accepting[t.step(q, a)]))
}

/// A small, fast, seedable generator (SplitMix64): random words are reproducible from the
/// seed, without a dependency.
pub struct SplitMix(pub u64);

impl SplitMix {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        ((u128::from(self.next_u64()) * n as u128) >> 64) as usize
    }
}
