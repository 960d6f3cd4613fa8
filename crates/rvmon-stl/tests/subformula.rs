//! `Formula::subformula` and `Formula::text` (the HTML report draws each subformula's
//! robustness with a monitor of its own, titled with its text): on random formulas, every
//! subformula's text parses back to a formula with the same robustness, to the last bit, as
//! the extracted subformula, and the root's text to one with the whole formula's.

use proptest::prelude::*;
use rvmon_stl::eval::robustness;
use rvmon_stl::{parse, Formula};
use rvmon_testkit::stl;

fn columns(f: &Formula, samples: &[(f64, f64)]) -> Vec<Vec<f64>> {
    stl::columns(&f.signals, samples)
}

fn bits(v: Vec<f64>) -> Vec<u64> {
    v.into_iter().map(f64::to_bits).collect()
}

#[test]
fn texts_of_the_example() {
    let f = parse(
        "t.stl",
        "always[0,3]((x > 0) implies eventually[0,2](y > 0))",
    )
    .unwrap();
    assert_eq!(
        f.text(f.root),
        "always[0,3]((x > 0) implies (eventually[0,2](y > 0)))"
    );
    let texts: Vec<String> = (0..f.nodes.len()).map(|i| f.text(i)).collect();
    assert!(texts.contains(&"x > 0".to_string()), "{texts:?}");
    assert!(texts.contains(&"eventually[0,2](y > 0)".to_string()));
    let f = parse(
        "t.stl",
        "(x - -0.0 + 1.5e300) until[1,2] not(rise(y) >= pow(x, 2))",
    )
    .unwrap();
    assert_eq!(
        f.text(f.root),
        "(x - (-0 + 1.5e+300)) until[1,2] (not(rise(y) > pow(x, 2)))"
    );
}

#[test]
fn a_subformula_keeps_the_signals_and_its_operands_only() {
    let f = parse("t.stl", "(y > 1) and once[0,2](x < 3)").unwrap();
    let once = f
        .nodes
        .iter()
        .position(|n| matches!(n, rvmon_stl::ast::Node::Temporal(..)))
        .unwrap();
    let sub = f.subformula(once);
    assert_eq!(sub.signals, f.signals);
    assert_eq!(sub.nodes.len(), 4);
    assert_eq!(sub.text(sub.root), "once[0,2](x < 3)");
    assert_eq!(f.subformula(f.root), f);
}

/// A chain of 100,000 conjunctions is written without recursion.
#[test]
fn long_chains_are_written_without_recursion() {
    let text = vec!["x > 0"; 100_000].join(" and ");
    let f = parse("t.stl", &text).unwrap();
    let written = f.text(f.root);
    assert!(written.len() > text.len());
    assert_eq!(parse("t.stl", &written).unwrap().nodes.len(), f.nodes.len());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn every_subformula_text_parses_back_to_the_same_robustness(
        text in stl::formula(), samples in stl::samples(1..20)
    ) {
        let f = parse("t.stl", &text).unwrap();
        for id in 0..f.nodes.len() {
            let sub = f.subformula(id);
            let want = bits(robustness(&sub, &columns(&sub, &samples)));
            let written = f.text(id);
            let back = parse("t.stl", &written)
                .map_err(|e| TestCaseError::fail(format!("{written}: {e}")))?;
            if back.signals.is_empty() {
                continue; // a number: no signal gives the trace's length
            }
            let got = bits(robustness(&back, &columns(&back, &samples)));
            prop_assert_eq!(got, want, "{} (from {})", written, text);
        }
        let whole = bits(robustness(&f, &columns(&f, &samples)));
        let sub = bits(robustness(&f.subformula(f.root), &columns(&f, &samples)));
        prop_assert_eq!(sub, whole);
    }
}
