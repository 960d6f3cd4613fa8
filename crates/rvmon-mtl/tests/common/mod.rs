//! Random propositional formulas, shared by the engine's property tests.

use proptest::prelude::*;

pub const PROPS: [&str; 3] = ["p", "q", "r"];

/// Random formula text over [`PROPS`], with every operator; `past` and `future` give the
/// intervals written after past and future operators (an empty string writes none).
pub fn formula(
    past: BoxedStrategy<String>,
    future: BoxedStrategy<String>,
) -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        6 => prop::sample::select(&PROPS[..]).prop_map(|p| format!("{p}()")),
        1 => Just("TRUE".to_string()),
        1 => Just("FALSE".to_string()),
    ];
    leaf.prop_recursive(4, 16, 2, move |inner| {
        prop_oneof![
            inner.clone().prop_map(|a| format!("(NOT {a})")),
            (
                inner.clone(),
                inner.clone(),
                prop::sample::select(&["AND", "OR", "IMPLIES", "EQUIV"][..])
            )
                .prop_map(|(a, b, op)| format!("({a} {op} {b})")),
            (
                inner.clone(),
                past.clone(),
                prop::sample::select(&["PREVIOUS", "ONCE", "PAST_ALWAYS"][..])
            )
                .prop_map(|(a, i, op)| format!("({op}{i} {a})")),
            (
                inner.clone(),
                future.clone(),
                prop::sample::select(&["NEXT", "EVENTUALLY", "ALWAYS"][..])
            )
                .prop_map(|(a, i, op)| format!("({op}{i} {a})")),
            (inner.clone(), inner.clone(), past.clone())
                .prop_map(|(a, b, i)| format!("({a} SINCE{i} {b})")),
            (inner.clone(), inner, future.clone())
                .prop_map(|(a, b, i)| format!("({a} UNTIL{i} {b})")),
        ]
    })
}
