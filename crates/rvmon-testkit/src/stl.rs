//! Random STL formulas over two signals `x` and `y` and random samples of them, for the tests
//! of `rvmon-stl` (its online engine against its offline evaluation) and of `rvmon check`
//! against rtamt.

use proptest::prelude::*;

/// A formula over `x` and `y`, fully parenthesised, with every operator rtamt has; windows
/// `[a, a+d]` with small bounds, or none.
pub fn formula() -> impl Strategy<Value = String> {
    formula_with(true)
}

/// [`formula`] without `next`, `prev`, `rise` and `fall`, which dense time does not have.
pub fn dense_formula() -> impl Strategy<Value = String> {
    formula_with(false)
}

fn formula_with(shifts: bool) -> impl Strategy<Value = String> {
    let atom = prop_oneof![
        (
            prop::sample::select(vec!["x", "y", "x + y", "abs(x)", "x * y"]),
            prop::sample::select(vec![">", ">=", "<", "<=", "==", "!=="]),
            -2i32..=2
        )
            .prop_map(|(e, op, c)| format!("({e} {op} {c})")),
        Just("(x > y)".to_string()),
    ];
    atom.prop_recursive(4, 24, 2, move |inner| {
        let window = (0u32..3, 0u32..3).prop_map(|(a, d)| format!("[{a},{}]", a + d));
        let window = prop_oneof![3 => window, 1 => Just(String::new())];
        let connective = prop::sample::select(vec!["and", "or", "implies", "iff", "xor"]);
        let unary = prop::sample::select(vec!["always", "eventually", "historically", "once"]);
        let shift = prop::sample::select(if shifts {
            vec!["next", "prev", "rise", "fall"]
        } else {
            // Without shifts, this branch is one more negation (the weights stay as they are).
            vec!["not"]
        });
        prop_oneof![
            inner.clone().prop_map(|f| format!("(not {f})")),
            (inner.clone(), inner.clone(), connective)
                .prop_map(|(a, b, op)| format!("({a} {op} {b})")),
            (unary, window.clone(), inner.clone()).prop_map(|(op, w, f)| format!("({op}{w}({f}))")),
            (
                inner.clone(),
                prop::sample::select(vec!["until", "since"]),
                window,
                inner.clone()
            )
                .prop_map(|(a, op, w, b)| format!("({a} {op}{w} {b})")),
            (shift, inner).prop_map(|(op, f)| match op {
                "rise" | "fall" | "not" => format!("{op}({f})"),
                _ => format!("({op} {f})"),
            }),
        ]
    })
}

/// Samples `(x, y)`: many ties and zeros (`-1.5` … `1.5` by halves) and now and then a NaN
/// (where the order of Python's min and max shows), `len` samples.
pub fn samples(len: std::ops::Range<usize>) -> impl Strategy<Value = Vec<(f64, f64)>> {
    let value = (-3i32..=4).prop_map(|v| if v == 4 { f64::NAN } else { f64::from(v) / 2.0 });
    prop::collection::vec((value.clone(), value), len)
}

/// Irregular timestamps in whole seconds, strictly increasing (gaps of 1 to 4 s, from 0 to
/// 3 s), `len` of them: dense time's traces, on a grid of one second.
pub fn dense_times(len: std::ops::Range<usize>) -> impl Strategy<Value = Vec<i64>> {
    (0i64..4, prop::collection::vec(1i64..5, len)).prop_map(|(start, gaps)| {
        gaps.iter()
            .scan(start, |t, &g| {
                let now = *t;
                *t += g;
                Some(now)
            })
            .collect()
    })
}

/// The columns of `samples` for the signals `signals` names (`x` the first of each pair, any
/// other the second), as the engines take them.
pub fn columns(signals: &[String], samples: &[(f64, f64)]) -> Vec<Vec<f64>> {
    let pick = |s: &String, p: &(f64, f64)| if s == "x" { p.0 } else { p.1 };
    signals
        .iter()
        .map(|s| samples.iter().map(|p| pick(s, p)).collect())
        .collect()
}

/// `samples`' first (`second`: second) values as the items of a JSON array, for a Python peer
/// (`NaN` as Python's `json` reads it).
pub fn json_values(samples: &[(f64, f64)], second: bool) -> String {
    let pick = |p: &(f64, f64)| if second { p.1 } else { p.0 };
    let v: Vec<String> = samples.iter().map(|p| format!("{:?}", pick(p))).collect();
    v.join(",")
}
