//! Boolean stream specifications through the window automaton (paper 06, Thm. 1, Prop. 2,
//! Fig. 4): the definedness examples (Ex. 2), Ex. 3's language, and — on random small
//! specifications that need not be well-formed — the two-pass monitor and the definedness
//! analysis against brute-force enumeration of models.

use proptest::prelude::*;
use rvmon_stream::bsrv::{Bsrv, Letter, NoUniqueModel};
use rvmon_stream::parse_spec;

fn bsrv(text: &str) -> Bsrv {
    Bsrv::from_spec(&parse_spec("b.lola", text).unwrap()).unwrap()
}

/// Input bit strings (one input) as letters.
fn word(bits: &str) -> Vec<Letter> {
    bits.bytes().map(|b| Letter::from(b == b'1')).collect()
}

/// Output `k` (after `n_in` inputs) of a model as a bit string.
fn bits(model: &[Letter], n_in: usize, k: usize) -> String {
    model
        .iter()
        .map(|l| if l >> (n_in + k) & 1 == 1 { '1' } else { '0' })
        .collect()
}

#[test]
fn example_2_definedness() {
    let phi1 = bsrv("input x: Bool\noutput y := x && y");
    let d = phi1.automaton(10_000).unwrap().definedness().unwrap();
    assert!(
        d.ambiguous_input.is_some() && d.modelless_input.is_none(),
        "φ1 is under-defined: {d:?}"
    );
    let witness = d.ambiguous_input.unwrap();
    assert!(phi1.brute_force_models(&witness).len() >= 2);

    let phi2 = bsrv("input x: Bool\noutput y := x && !y");
    let d = phi2.automaton(10_000).unwrap().definedness().unwrap();
    assert!(
        d.modelless_input.is_some() && d.ambiguous_input.is_none(),
        "φ2 is over-defined: {d:?}"
    );
    assert!(phi2
        .brute_force_models(&d.modelless_input.unwrap())
        .is_empty());

    let phi3 = bsrv("input x: Bool\noutput y := if x then x[2, false] else x[-2, false]");
    let nfa = phi3.automaton(10_000).unwrap();
    assert!(nfa.definedness().unwrap().well_defined());
    for (x, y) in [
        ("1", "0"),
        ("10", "00"),
        ("0110", "0001"),
        ("10110", "10001"),
        ("111000", "100110"),
    ] {
        let m = nfa.two_pass(&word(x)).unwrap();
        assert_eq!(bits(&m, 1, 0), y, "x = {x}");
    }
}

#[test]
fn example_3_accepts_exactly_the_words_true_at_odd_positions() {
    // y = if E then y else ¬y, E := (first → (x ∧ y)) ∧ (y → ¬y[+1|0]) ∧ (¬y → (x[+1|1] ∧ y[+1|1])).
    let spec = "input x: Bool\noutput y := if ((x[-1, true] && !x[-1, false]) -> (x && y)) && (y -> !y[1, false]) && (!y -> (x[1, true] && y[1, true])) then y else !y";
    let b = bsrv(spec);
    let nfa = b.automaton(100_000).unwrap();
    for (x, y) in [
        ("1", "1"),
        ("10", "10"),
        ("11", "10"),
        ("101", "101"),
        ("1010", "1010"),
        ("1111", "1010"),
    ] {
        let m = nfa
            .two_pass(&word(x))
            .unwrap_or_else(|e| panic!("x = {x}: {e:?}"));
        assert_eq!(bits(&m, 1, 0), y, "x = {x}");
    }
    for x in ["0", "01", "110", "0111"] {
        assert_eq!(
            nfa.two_pass(&word(x)),
            Err(NoUniqueModel::None),
            "x = {x} is rejected"
        );
    }
    // The language: every word of length ≤ 6 with x = 1 at every odd position, and no other.
    for n in 1..=6 {
        for w in 0..1u32 << n {
            let input: Vec<Letter> = (0..n).map(|i| w >> i & 1).collect();
            let odd_ones = (0..n).step_by(2).all(|i| input[i] == 1);
            assert_eq!(nfa.two_pass(&input).is_ok(), odd_ones, "{input:?}");
        }
    }
}

fn expr(depth: u32) -> BoxedStrategy<String> {
    let leaf = prop_oneof![
        prop::sample::select(vec!["x", "y", "z"]).prop_map(String::from),
        Just("true".to_string()),
        (
            prop::sample::select(vec!["x", "y", "z"]),
            prop::sample::select(vec![-1i64, 1]),
            any::<bool>()
        )
            .prop_map(|(s, k, d)| format!("{s}[{k}, {d}]")),
    ];
    if depth == 0 {
        return leaf.boxed();
    }
    let e = || expr(depth - 1);
    prop_oneof![
        2 => leaf,
        1 => (e(), e()).prop_map(|(a, b)| format!("({a} && {b})")),
        1 => (e(), e()).prop_map(|(a, b)| format!("({a} || {b})")),
        1 => e().prop_map(|a| format!("!{a}")),
        1 => (e(), e(), e()).prop_map(|(c, a, b)| format!("(if {c} then {a} else {b})")),
    ]
    .boxed()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn automaton_agrees_with_brute_force(ey in expr(2), ez in expr(2), xs in prop::collection::vec(0u32..2, 1..6)) {
        let b = bsrv(&format!("input x: Bool\noutput y := {ey}\noutput z := {ez}"));
        let Ok(nfa) = b.automaton(20_000) else { return Ok(()) };
        let models = b.brute_force_models(&xs);
        match nfa.two_pass(&xs) {
            Ok(m) => prop_assert_eq!(models, vec![m]),
            Err(NoUniqueModel::None) => prop_assert!(models.is_empty()),
            Err(NoUniqueModel::Several(_)) => prop_assert!(models.len() >= 2),
        }
        let d = nfa.definedness().unwrap();
        if let Some(w) = &d.ambiguous_input {
            prop_assert!(b.brute_force_models(w).len() >= 2);
        }
        if let Some(w) = &d.modelless_input {
            prop_assert!(b.brute_force_models(w).is_empty());
        }
        if d.well_defined() {
            // Exactly one model for every input up to length 5.
            for n in 1..=5usize {
                for w in 0..1u32 << n {
                    let input: Vec<Letter> = (0..n).map(|i| w >> i & 1).collect();
                    prop_assert_eq!(b.brute_force_models(&input).len(), 1, "{:?}", input);
                }
            }
        }
    }
}

/// Deciding definedness searches pairs of runs (quadratic in the states) and subsets
/// (exponential): it has a budget, and says when it runs out instead of taking minutes and
/// gigabytes (a fuzzed 43,693-state automaton: over 60 s and 16 GB, now 0.7 s).
#[test]
fn definedness_has_a_budget() {
    let spec = "input x: Bool\n\
                output y := if ((x[-1, true] && !x[-1, false]) -> (x && y)) && (y -> !y[1, false]) \
                && (!y -> (x[6, true] && y[1, true])) then y else !y";
    let parsed = rvmon_stream::parse_spec("t.lola", spec).unwrap();
    let nfa = Bsrv::from_spec(&parsed)
        .unwrap()
        .automaton(200_000)
        .unwrap();
    let e = nfa.definedness_within(1000).unwrap_err();
    assert!(e.contains("more than 1000 steps"), "{e}");
}
