//! The three-valued engine (LTL3) on random formulas with past, bounded and unbounded future
//! operators, against the eager engine and against itself on longer traces.
//!
//! * Verdicts are final: every verdict decided on a prefix is the verdict of that time point
//!   on the whole trace (which is one of the prefix's continuations).
//! * It is at least as informed as the eager engine: every verdict the eager engine decides
//!   before the end of a prefix (those are certain: progression without any guess) is decided
//!   by the three-valued engine on the same prefix, with the same value.
//!
//! Exactness of the verdicts the eager engine cannot reach is checked against Spot's LTL3
//! monitors on random LTL formulas (`bench/spot_ltl3.py`, run by rvmon-cli's `spot_ltl3`).

use std::collections::BTreeMap;

use proptest::prelude::*;
use rvmon_core::{Interner, Truth, Verdict};
use rvmon_logic::parse_formula;
use rvmon_mtl::{Engine, Program};

mod common;

use common::PROPS;

fn interval() -> BoxedStrategy<String> {
    prop_oneof![
        3 => Just(String::new()),
        1 => (0u64..3, 0u64..4).prop_map(|(a, len)| format!("[{a},{}]", a + len)),
        1 => (0u64..3).prop_map(|a| format!("[{a},*)")),
    ]
    .boxed()
}

fn formula() -> impl Strategy<Value = String> {
    common::formula(interval(), interval())
}

type Trace = Vec<(i64, Vec<&'static str>)>;

fn trace() -> impl Strategy<Value = Trace> {
    prop::collection::vec(
        (
            0i64..3,
            prop::collection::vec(prop::sample::select(&PROPS[..]), 0..3),
        ),
        1..16,
    )
    .prop_map(|steps| {
        let mut ts = 0;
        steps
            .into_iter()
            .map(|(d, ps)| {
                ts += d;
                (ts, ps)
            })
            .collect()
    })
}

/// The verdicts decided on the first `upto` time points (no end of trace), by time point.
fn decided(
    engine: &mut Engine,
    program: &Program,
    tr: &Trace,
    upto: usize,
) -> BTreeMap<u64, Truth> {
    let mut out: Vec<Verdict> = Vec::new();
    for (i, (ts, ps)) in tr[..upto].iter().enumerate() {
        let holds: Vec<bool> = program
            .prop_names
            .iter()
            .map(|n| ps.contains(&n.as_str()))
            .collect();
        engine.set_holds(&holds);
        engine.step_props(i as u64, *ts, &mut out).unwrap();
    }
    let mut map = BTreeMap::new();
    for v in out {
        assert!(
            map.insert(v.tp, v.value).is_none(),
            "time point {} decided twice",
            v.tp
        );
    }
    map
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 600, ..ProptestConfig::default() })]

    #[test]
    fn verdicts_are_final_and_at_least_as_early_as_progression(
        text in formula(),
        tr in trace(),
        cut in 0usize..16,
    ) {
        let f = parse_formula("f", &text).unwrap();
        let mut interner = Interner::new();
        let program = Program::compile(&f, &mut interner, "f", &text).unwrap();
        let cut = cut.min(tr.len());
        let prefix = decided(&mut Engine::three_valued(program.clone()), &program, &tr, cut);
        let whole = decided(&mut Engine::three_valued(program.clone()), &program, &tr, tr.len());
        for (tp, v) in &prefix {
            prop_assert_eq!(whole.get(tp), Some(v), "{} at tp {} after {} points", text, tp, cut);
        }
        let eager = decided(&mut Engine::eager(program.clone()), &program, &tr, cut);
        for (tp, v) in &eager {
            prop_assert_eq!(prefix.get(tp), Some(v), "{} at tp {}: progression decided it", text, tp);
        }
    }
}
