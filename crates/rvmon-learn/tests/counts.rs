//! Query counts against AALpy's (2.0.0, recorded with `../shared/peers/oracles/aalpy_oracle.py
//! learn --eq perfect`): L* and KV follow AALpy's algorithms, so with the perfect oracle their
//! membership queries and symbols are the same numbers. (AALpy's KV prints its loop
//! iterations as `eq`; rvmon counts equivalence queries.) TTT's are paper 26's claim: fewer
//! symbols than both.

use rvmon_learn::dfa::Dfa;
use rvmon_learn::eq::Perfect;
use rvmon_learn::teacher::{Counters, Teacher};
use rvmon_learn::{io, learn, Alg};

/// Paper 26's Fig. 3a: a's counted modulo 4 (b loops), accepting 3 a's.
fn mod4() -> Dfa {
    let mut d = Dfa::new(vec!["a".into(), "b".into()], 4);
    d.accepting[3] = true;
    for q in 0..4 {
        d.delta[q * 2] = (q + 1) % 4;
        d.delta[q * 2 + 1] = q;
    }
    d
}

fn run(alg: Alg, target: &Dfa) -> (Dfa, Counters) {
    let mut system = target.clone();
    let mut teacher = Teacher::new(&mut system, target.symbols(), true);
    let mut eq = Perfect { target };
    let learned = learn(alg, &target.alphabet, &mut teacher, &mut eq);
    (learned.dfa, teacher.counters)
}

fn counts(alg: Alg, target: &Dfa) -> (usize, u64, u64, u64) {
    let (dfa, c) = run(alg, target);
    assert!(
        dfa.separating_word(target).is_none(),
        "{alg:?} learned a wrong automaton"
    );
    assert_eq!(
        dfa.states(),
        target.minimal().states(),
        "{alg:?} is not minimal"
    );
    (dfa.states(), c.mq, c.mq_steps, c.eq)
}

fn shared(name: &str) -> Option<Dfa> {
    let path = format!(
        "{}/../../../shared/peers/examples/aalpy/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    match std::fs::read_to_string(&path) {
        Ok(text) => Some(io::read(name, &text).unwrap()),
        Err(_) => {
            rvmon_testkit::skip(
                "counts",
                rvmon_testkit::Needs::Shared,
                &format!("{path} is not there"),
            );
            None
        }
    }
}

#[test]
fn lstar_and_kv_count_as_aalpy() {
    assert_eq!(counts(Alg::Lstar, &mod4()), (4, 14, 47, 2));
    assert_eq!(counts(Alg::Kv, &mod4()), (4, 12, 35, 2));
    let Some(aa) = shared("aa_suffix.json") else {
        return;
    };
    assert_eq!(counts(Alg::Lstar, &aa), (3, 11, 25, 2));
    assert_eq!(counts(Alg::Kv, &aa), (3, 10, 20, 2));
    let mod5 = shared("mod5.json").unwrap();
    assert_eq!(counts(Alg::Lstar, &mod5), (6, 45, 189, 3));
    assert_eq!(counts(Alg::Kv, &mod5), (6, 39, 156, 4));
}

/// Paper 26's target with the perfect oracle: `aaa` is the counterexample, decomposed as
/// ⟨ε, a, aa⟩; the inconsistency it leaves (state `a` on `aa`) splits again; two
/// finalizations replace the temporary `aa` and `a` by the final `a` and `aa`. Fifteen
/// queries: after the second, whose discriminator is the temporary one it replaces, the
/// transitions waiting at that node are sifted through it (`baa`, `abaa`, `aaaaaa`).
#[test]
fn ttt_on_the_papers_target() {
    assert_eq!(counts(Alg::Ttt, &mod4()), (4, 15, 44, 2));
}
