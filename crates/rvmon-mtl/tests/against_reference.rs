//! The eager engine against the brute-force reference semantics, on random formulas and random
//! traces with equal timestamps and empty time points.
//!
//! * Every verdict the engine emits on a prefix must equal the reference value on a longer
//!   trace (any extension must agree with an early verdict).
//! * For bounded formulas, after the end of the trace (closed by MonPoly's maximal timestamp)
//!   every time point has a verdict, equal to the reference.

use proptest::prelude::*;
use rvmon_core::{Interner, Truth, Verdict};
use rvmon_logic::reference::{evaluate, RefTimePoint};
use rvmon_logic::{analyze, parse_formula, TemporalClass};
use rvmon_mtl::{Engine, Program, CLOSING_TS};

mod common;

use common::PROPS;

fn interval(bounded: bool) -> BoxedStrategy<String> {
    let b =
        (0u64..4, 0u64..5, any::<bool>(), any::<bool>()).prop_map(|(a, len, lo_open, hi_open)| {
            // Keep the interval non-empty after opening its ends.
            let hi = a + len + u64::from(lo_open) + u64::from(hi_open);
            format!(
                "{}{a},{hi}{}",
                if lo_open { "(" } else { "[" },
                if hi_open { ")" } else { "]" }
            )
        });
    if bounded {
        b.boxed()
    } else {
        prop_oneof![3 => b, 1 => (0u64..3).prop_map(|a| format!("[{a},*)"))].boxed()
    }
}

/// Random formula text; `future_bounded` keeps future operators bounded.
fn formula(future_bounded: bool) -> impl Strategy<Value = String> {
    common::formula(interval(false), interval(future_bounded))
}

fn trace() -> impl Strategy<Value = Vec<RefTimePoint>> {
    prop::collection::vec(
        (
            0i64..3,
            prop::collection::vec(prop::sample::select(&PROPS[..]), 0..3),
        ),
        0..25,
    )
    .prop_map(|steps| {
        let mut ts = 0;
        steps
            .into_iter()
            .map(|(d, ps)| {
                ts += d;
                let mut names: Vec<String> = ps.into_iter().map(String::from).collect();
                names.dedup();
                (ts, names)
            })
            .collect()
    })
}

/// Runs the formula with the engine the front door picks and with the eager engine forced;
/// both must emit the same verdicts.
fn run(text: &str, tr: &[RefTimePoint], upto: usize, finish: bool) -> Vec<Verdict> {
    let f = parse_formula("f", text).unwrap();
    let mut interner = Interner::new();
    let program = Program::compile(&f, &mut interner, "f", text).unwrap();
    let mut results = Vec::new();
    for mut engine in [Engine::new(program.clone()), Engine::eager(program.clone())] {
        let mut out = Vec::new();
        for (i, (ts, ps)) in tr[..upto].iter().enumerate() {
            let holds: Vec<bool> = program.prop_names.iter().map(|n| ps.contains(n)).collect();
            engine.set_holds(&holds);
            engine.step_props(i as u64, *ts, &mut out).unwrap();
        }
        if finish {
            engine.finish_trace(!program.has_unbounded_future(), &mut out);
        }
        results.push(out);
    }
    assert_eq!(
        results[0], results[1],
        "the two strategies disagree on {text}"
    );
    results.pop().unwrap()
}

fn closed(tr: &[RefTimePoint]) -> Vec<RefTimePoint> {
    let mut t = tr.to_vec();
    t.push((CLOSING_TS, vec![]));
    t
}

fn check_early_verdicts(text: &str, tr: &[RefTimePoint], cut: usize) -> Result<(), TestCaseError> {
    let expected = evaluate(&parse_formula("f", text).unwrap(), &closed(tr));
    let cut = cut.min(tr.len());
    let verdicts = run(text, tr, cut, false);
    for (next, v) in verdicts.into_iter().enumerate() {
        prop_assert_eq!(
            v.tp,
            next as u64,
            "verdicts in order, none skipped: {}",
            text
        );
        prop_assert_eq!(
            v.value,
            Truth::from(expected[v.tp as usize]),
            "{} at tp {} (prefix of {})",
            text,
            v.tp,
            cut
        );
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn bounded_formulas_match_reference(text in formula(true), tr in trace(), cut in 0usize..30) {
        check_early_verdicts(&text, &tr, cut)?;
        let expected = evaluate(&parse_formula("f", &text).unwrap(), &closed(&tr));
        let verdicts = run(&text, &tr, tr.len(), true);
        prop_assert_eq!(verdicts.len(), tr.len(), "every time point decided: {}", text);
        for v in verdicts {
            prop_assert_eq!(v.value, Truth::from(expected[v.tp as usize]), "{} at tp {}", text, v.tp);
        }
    }

    #[test]
    fn unbounded_future_verdicts_are_final(text in formula(false), tr in trace(), cut in 0usize..30) {
        check_early_verdicts(&text, &tr, cut)?;
        let f = parse_formula("f", &text).unwrap();
        let a = analyze("f", &text, &f).unwrap();
        let verdicts = run(&text, &tr, tr.len(), true);
        prop_assert_eq!(verdicts.len(), tr.len());
        if a.temporal == TemporalClass::PastOnly {
            prop_assert!(verdicts.iter().all(|v| v.value != Truth::Unknown));
        }
    }
}

#[test]
fn past_only_verdicts_are_immediate() {
    let text = "p() SINCE[1,3] q()";
    let tr: Vec<RefTimePoint> = vec![(0, vec!["q".into()]), (2, vec!["p".into()]), (5, vec![])];
    for upto in 0..=tr.len() {
        assert_eq!(run(text, &tr, upto, false).len(), upto);
    }
}

#[test]
fn eventually_is_true_as_soon_as_witnessed() {
    // MonPoly would wait until a time point beyond ts 100 arrives; the eager engine answers at
    // the witness.
    let text = "EVENTUALLY[0,100] q()";
    let tr: Vec<RefTimePoint> = vec![(0, vec![]), (1, vec!["q".into()])];
    let v = run(text, &tr, 2, false);
    assert_eq!(v.len(), 2);
    assert!(v.iter().all(|v| v.value == Truth::True));
}
