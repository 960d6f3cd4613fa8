//! Paper 26's worked example (Section 3, Fig. 3 and 4; note E §4): the target counts a's
//! modulo 4 (b loops) and accepts 3 of them; the first hypothesis (one rejecting state) gets
//! the counterexample `bbbaaabb` (errata: the paper prints `bbbaaabbb`), decomposed as
//! ⟨bbb, a, aabb⟩ (the paper prints ⟨bbbb, a, aabb⟩). The discrimination trees after each
//! step are the paper's: the temporary `aabb` and `abb`, replaced by the final `a` and then
//! `aa` (Fig. 4f shows the first replacement, "Fig. 4e" in the text).

use rvmon_learn::dfa::Dfa;
use rvmon_learn::eq::Perfect;
use rvmon_learn::teacher::Teacher;
use rvmon_learn::{ttt, Equivalence};

fn mod4() -> Dfa {
    let mut d = Dfa::new(vec!["a".into(), "b".into()], 4);
    d.accepting[3] = true;
    for q in 0..4 {
        d.delta[q * 2] = (q + 1) % 4;
        d.delta[q * 2 + 1] = q;
    }
    d
}

/// The paper's equivalence oracle: `bbbaaabb` first, then the truth.
struct Scripted<'t> {
    first: bool,
    perfect: Perfect<'t>,
}

impl Equivalence for Scripted<'_> {
    fn find(&mut self, hyp: &Dfa, teacher: &mut Teacher) -> Option<Vec<usize>> {
        if std::mem::take(&mut self.first) {
            return Some(vec![1, 1, 1, 0, 0, 0, 1, 1]);
        }
        self.perfect.find(hyp, teacher)
    }
}

/// The target, writing down each query that reaches it.
struct Logged(Dfa, Vec<String>);

impl rvmon_learn::teacher::System for Logged {
    fn initial(&mut self) -> bool {
        self.1.push("ε".into());
        self.0.initial()
    }

    fn run(&mut self, word: &[usize], out: &mut Vec<bool>) {
        self.1.push(word.iter().map(|&a| ["a", "b"][a]).collect());
        self.0.run(word, out)
    }
}

fn run(
    cache: bool,
) -> (
    Dfa,
    Vec<String>,
    rvmon_learn::teacher::Counters,
    Vec<String>,
) {
    let target = mod4();
    let mut system = Logged(target.clone(), vec![]);
    let mut teacher = Teacher::new(&mut system, 2, cache);
    let mut eq = Scripted {
        first: true,
        perfect: Perfect { target: &target },
    };
    let mut trace = Vec::new();
    let learned = ttt::learn_traced(&target.alphabet, &mut teacher, &mut eq, Some(&mut trace));
    let counters = teacher.counters;
    (learned.dfa, trace, counters, system.1)
}

#[test]
fn the_papers_run() {
    let (dfa, trace, counters, _) = run(true);
    assert_eq!(
        trace,
        [
            // The first hypothesis: one rejecting state.
            "ε[⊥:ε, ⊤:·]",
            // ⟨bbb, a, aabb⟩: state `a` split from ε by the temporary `aabb`; then the
            // inconsistency (`a`, `aabb`) splits ε by `abb` (state `aa`), and `aaa` fills
            // the accepting side.
            "ε[⊥:aabbᵗ[⊥:ε, ⊤:a], ⊤:·]",
            "ε[⊥:aabbᵗ[⊥:abbᵗ[⊥:ε, ⊤:aa], ⊤:a], ⊤:aaa]",
            // Finalization: `a` replaces `aabb`, then `aa` replaces `abb`.
            "ε[⊥:a[⊥:aabbᵗ[⊥:ε, ⊤:a], ⊤:aa], ⊤:aaa]",
            "ε[⊥:a[⊥:aa[⊥:ε, ⊤:a], ⊤:aa], ⊤:aaa]",
        ]
    );
    assert!(dfa.separating_word(&mod4()).is_none());
    assert_eq!(dfa.states(), 4);
    // Two equivalence queries: the scripted counterexample and the final "yes".
    assert_eq!(counters.eq, 2);
    // With the cache (AALpy's: a word that is a prefix of one already run is not sent).
    assert_eq!((counters.mq, counters.mq_steps), (14, 50));
}

/// Every membership query, without the cache: the first hypothesis (ε, a, b); the
/// counterexample's binary search (effects at 4, 2, 3: `aabb`, `baaabb`, `aaabb`); closing
/// (`aa`, `ab`); the inconsistency's decomposition, which sifts `a`'s `a`-transition hard
/// (`aaaabb`) and asks `abb` twice (effects at 2 and 1); closing (`aaa` makes state `aaa`);
/// the transitions into the block asked with the final `a`, then with `aa`.
#[test]
fn the_papers_queries() {
    let (_, _, counters, queries) = run(false);
    let expected = "ε a b aabb baaabb aaabb aa ab aaaabb abb abb aaa aab aaaa aaab ba aba aaba \
                    aaaaa baa abaa aaaaaa";
    assert_eq!(queries.join(" "), expected);
    assert_eq!((counters.mq, counters.mq_steps), (22, 74));
}
