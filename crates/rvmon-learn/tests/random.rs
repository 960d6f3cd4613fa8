//! Every learner ends with the minimal automaton of the target's language, on random DFAs
//! (fixed seeds: 10 to 200 states here, alphabets of 2 to 10 letters; `bench/learn.py` runs
//! up to 500), and TTT asks fewer query symbols than L* and KV in total.

use rvmon_learn::dfa::Dfa;
use rvmon_learn::eq::{Perfect, SplitMix};
use rvmon_learn::teacher::Teacher;
use rvmon_learn::{learn, Alg};

/// A random complete DFA of `n` states over `k` letters, each state accepting with
/// probability 1/2.
fn random_dfa(n: usize, k: usize, rng: &mut SplitMix) -> Dfa {
    let mut d = Dfa::new((0..k).map(|a| format!("i{a}")).collect(), n);
    for q in 0..n {
        d.accepting[q] = rng.below(2) == 1;
        for a in 0..k {
            d.delta[q * k + a] = rng.below(n);
        }
    }
    d
}

#[test]
fn every_learner_learns_the_minimal_automaton() {
    let mut rng = SplitMix(26);
    let mut symbols = [0u64; 3];
    for case in 0..24 {
        let n = [10, 25, 50, 100, 200][case % 5];
        let k = 2 + rng.below(9);
        let target = random_dfa(n, k, &mut rng);
        let minimal = target.minimal();
        for (i, alg) in [Alg::Ttt, Alg::Lstar, Alg::Kv].into_iter().enumerate() {
            let mut system = target.clone();
            let mut teacher = Teacher::new(&mut system, k, true);
            let mut eq = Perfect { target: &target };
            let learned = learn(alg, &target.alphabet, &mut teacher, &mut eq).dfa;
            assert!(
                learned.separating_word(&target).is_none(),
                "{alg:?}: case {case} ({n} states, {k} letters) is not equivalent"
            );
            assert_eq!(
                learned.minimal(),
                minimal,
                "{alg:?}: case {case} is not minimal"
            );
            assert_eq!(learned.states(), minimal.states());
            symbols[i] += teacher.counters.mq_steps;
        }
    }
    rvmon_testkit::summary(
        "learn random",
        &format!(
            "query symbols in all: ttt {} lstar {} kv {}",
            symbols[0], symbols[1], symbols[2]
        ),
    );
    assert!(
        symbols[0] < symbols[1] && symbols[0] < symbols[2],
        "{symbols:?}"
    );
}

/// A target that answers whole words only (as a program or a specification does).
struct Whole(Dfa);

impl rvmon_learn::teacher::System for Whole {
    fn initial(&mut self) -> bool {
        self.0.initial()
    }

    fn run(&mut self, word: &[usize], out: &mut Vec<bool>) {
        out.clear();
        out.push(self.0.accepts(word));
    }

    fn prefixes(&self) -> bool {
        false
    }
}

/// With random words as the equivalence oracle and a system that answers whole words, the
/// learners still end with the target (random words of 30 symbols find every difference of
/// these small targets).
#[test]
fn random_counterexamples_and_whole_word_answers() {
    let mut rng = SplitMix(34);
    for case in 0..40 {
        let n = 3 + rng.below(12);
        let k = 2 + rng.below(3);
        let target = random_dfa(n, k, &mut rng);
        for alg in [Alg::Ttt, Alg::Lstar, Alg::Kv] {
            for whole in [false, true] {
                let mut dfa = target.clone();
                let mut w = Whole(target.clone());
                let system: &mut dyn rvmon_learn::teacher::System =
                    if whole { &mut w } else { &mut dfa };
                let mut teacher = Teacher::new(system, k, true);
                let mut eq = rvmon_learn::eq::Random {
                    length: 30,
                    tests: 2000,
                    symbols: k,
                    rng: SplitMix(case as u64),
                };
                let learned = learn(alg, &target.alphabet, &mut teacher, &mut eq).dfa;
                assert!(
                    learned.separating_word(&target).is_none(),
                    "{alg:?} whole={whole}: case {case} ({n} states, {k} letters)"
                );
            }
        }
    }
}
