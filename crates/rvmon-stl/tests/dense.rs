//! Dense time: the exact engine against the definition evaluated point by point
//! (`dense::reference`), on random formulas and traces with irregular timestamps, to the last
//! bit; and hand-worked examples, each value derived by hand from the definition.

use proptest::prelude::*;
use rvmon_stl::dense::{self, reference, DenseFormula};
use rvmon_testkit::stl;

const S: i64 = 1_000_000_000;

fn columns(f: &DenseFormula, samples: &[(f64, f64)]) -> Vec<Vec<f64>> {
    stl::columns(&f.formula().signals, samples)
}

fn same(a: f64, b: f64) -> bool {
    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
}

/// The exact robustness at each sample, and the reference's (times in seconds).
fn both(text: &str, times: &[i64], samples: &[(f64, f64)]) -> (Vec<f64>, Vec<f64>) {
    let f = DenseFormula::parse("t.stl", text).unwrap();
    let ns: Vec<i64> = times.iter().map(|t| t * S).collect();
    let cols = columns(&f, samples);
    (
        dense::robustness(&f, &ns, &cols),
        reference::robustness(&f, &ns, &cols, S),
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn exact_engine_is_the_definition(
        text in stl::dense_formula(),
        (times, samples) in (1usize..16).prop_flat_map(|n| (stl::dense_times(n..n + 1), stl::samples(n..n + 1))),
    ) {
        let (got, want) = both(&text, &times, &samples);
        prop_assert_eq!(got.len(), want.len());
        for (k, (g, w)) in got.iter().zip(&want).enumerate() {
            prop_assert!(same(*g, *w), "{} at t={}: exact {:?}, reference {:?}\n  times {:?}\n  samples {:?}",
                text, times[k], g, w, times, samples);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    /// Larger windows than the traces' gaps and wide gaps, on values that tie: each operator
    /// alone, where the breakpoint arithmetic of windows and shifts shows.
    #[test]
    fn each_operator_alone(
        op in prop::sample::select(vec!["always", "eventually", "historically", "once", "until", "since"]),
        (a, d) in (0i64..7, 0i64..7),
        bounded in any::<bool>(),
        (times, samples) in (1usize..12).prop_flat_map(|n| (
            prop::collection::vec(1i64..9, n).prop_map(|g| g.iter().scan(0, |t, &x| { *t += x; Some(*t) }).collect::<Vec<_>>()),
            prop::collection::vec((-2i32..3, -2i32..3).prop_map(|(x, y)| (f64::from(x), f64::from(y))), n),
        )),
    ) {
        let w = if bounded { format!("[{a},{}]", a + d) } else { String::new() };
        let text = match op {
            "until" | "since" => format!("(x > 0) {op}{w} (y > 0)"),
            _ => format!("{op}{w}(x)"),
        };
        let (got, want) = both(&text, &times, &samples);
        for (k, (g, w)) in got.iter().zip(&want).enumerate() {
            prop_assert!(same(*g, *w), "{} at t={}: exact {:?}, reference {:?}\n  times {:?}\n  samples {:?}",
                text, times[k], g, w, times, samples);
        }
    }
}

/// Evaluates `text` on `time,x,y` rows with the exact engine, and checks the reference
/// agrees.
fn exact(text: &str, rows: &[(i64, f64, f64)]) -> Vec<f64> {
    let times: Vec<i64> = rows.iter().map(|r| r.0).collect();
    let samples: Vec<(f64, f64)> = rows.iter().map(|r| (r.1, r.2)).collect();
    let (got, want) = both(text, &times, &samples);
    for (g, w) in got.iter().zip(&want) {
        assert!(same(*g, *w), "{text}: exact {got:?}, reference {want:?}");
    }
    got
}

/// The peers' shared trace (`../shared/peers/examples/stlrom/trace1.csv`).
const TRACE1: [(i64, f64, f64); 8] = [
    (0, 1.0, -1.0),
    (1, -1.0, 2.0),
    (2, 2.0, -1.0),
    (3, 3.0, 0.5),
    (4, -1.0, 1.0),
    (5, 1.0, -2.0),
    (6, 1.0, -3.0),
    (7, 1.0, -1.0),
];

/// stlrom's example (`alw_[0,3] (x[t] > 0 => ev_[0,2] (y[t] > 0))`): at t = 2 the window
/// `[2, 5]` is closed, so it holds t = 5, where `x > 0` and `eventually[0,2](y > 0)` is
/// max(y(5), y(6), y(7)) = -1: the implication is -1 there, and so is the `always`. stlrom
/// gives 1.0 at t = 2 (it leaves out the window's right end); rtamt's dense monitor and its
/// discrete one give -1.0, the exact value. With the last value held forever there is no
/// `inf` at the end.
#[test]
fn stlroms_example() {
    let got = exact(
        "always[0,3]((x > 0) implies eventually[0,2](y > 0))",
        &TRACE1,
    );
    assert_eq!(got, [1.0, 1.0, -1.0, -1.0, -1.0, -1.0, -1.0, -1.0]);
}

/// Irregular samples: x is 1 on [0,1), -1 on [1,3), 2 on [3,4), 3 from 4 on.
const IRREGULAR: [(i64, f64, f64); 4] = [
    (0, 1.0, -1.0),
    (1, -1.0, 2.0),
    (3, 2.0, -1.0),
    (4, 3.0, 0.5),
];

#[test]
fn past_windows_at_the_start_and_between_samples() {
    // once[1,2]: empty before t = 1 (-inf); at 3 the window [1,2] sees only -1; at 4, [2,3]
    // sees x(3) = 2.
    assert_eq!(
        exact("once[1,2](x > 0)", &IRREGULAR),
        [f64::NEG_INFINITY, 1.0, -1.0, 2.0]
    );
    assert_eq!(
        exact("historically[1,2](x > 0)", &IRREGULAR),
        [f64::INFINITY, 1.0, -1.0, -1.0]
    );
    // since[1,2]: at 4 the witnesses are [2,3]: y(3) = -1, and on [2,3) y = 2 but x = -1 on
    // [t', 4] — so -1; the witness t' = 4 enters only at t = 5.
    assert_eq!(
        exact("(x > 0) since[1,2] (y > 0)", &IRREGULAR),
        [f64::NEG_INFINITY, -1.0, -1.0, -1.0]
    );
}

/// `until`'s interval of φ is closed at the witness t': φ must hold there too.
#[test]
fn until_needs_phi_at_the_witness() {
    // At t = 0 the witnesses are [0,2]: y = -1 at 0; y = 2 on [1,2] but x = -1 there.
    assert_eq!(
        exact("(x > 0) until[0,2] (y > 0)", &IRREGULAR),
        [-1.0, -1.0, 0.5, 0.5]
    );
    // x > 0 on [0,2) and not at 2, where y > 0 begins: at t = 0 the witness t' = 2 gives
    // min(y(2), inf of x over [0,2]) = min(3, -1) = -1. An interval open at t' (rtamt's
    // discrete `until`, Reelay's `since` mirrored) would give min(3, 1) = 1.
    let rows = [(0, 1.0, -1.0), (2, -1.0, 3.0), (3, 1.0, -1.0)];
    assert_eq!(
        exact("(x > 0) until[1,2] (y > 0)", &rows),
        [-1.0, -1.0, -1.0]
    );
}

/// The last value lasts forever: a future window past the end reads it, never `±inf`.
#[test]
fn the_last_value_lasts_forever() {
    assert_eq!(
        exact("always[1,1](x > 0)", &IRREGULAR),
        [-1.0, -1.0, 3.0, 3.0]
    );
    assert_eq!(exact("eventually(x > 2)", &IRREGULAR), [1.0, 1.0, 1.0, 1.0]);
    assert_eq!(exact("always(x > 0)", &IRREGULAR), [-1.0, -1.0, 2.0, 3.0]);
}

#[test]
fn next_prev_rise_and_fall_are_refused_with_their_position() {
    for (text, col) in [
        ("x > 0 and next (y > 0)", 11),
        ("prev(x > 0)", 1),
        ("always[0,1](rise(x > 0))", 13),
        ("(x > 0) or\n  fall(x > 0)", 3),
    ] {
        let e = DenseFormula::parse("t.stl", text).unwrap_err().to_string();
        assert!(e.contains("has no meaning in dense time"), "{e}");
        let line = if text.contains('\n') { 2 } else { 1 };
        assert!(e.starts_with(&format!("t.stl:{line}:{col}:")), "{e}");
    }
}

#[test]
fn bounds_are_seconds_with_units_and_fractions() {
    let f = DenseFormula::parse("t.stl", "always[0.5s, 1500ms](x > 0)").unwrap();
    assert_eq!(
        f.formula().nodes[f.formula().root],
        rvmon_stl::ast::Node::Temporal(
            rvmon_stl::ast::Window1::Always,
            Some((500_000_000, 1_500_000_000)),
            2
        )
    );
    let f = DenseFormula::parse("t.stl", "once[0.3, 0.7](x > 0)").unwrap();
    let root = &f.formula().nodes[f.formula().root];
    assert!(matches!(
        root,
        rvmon_stl::ast::Node::Temporal(_, Some((300_000_000, 700_000_000)), _)
    ));
    assert!(DenseFormula::parse("t.stl", "always[0, 0.0000000001](x > 0)").is_err());
}

/// stlrom's other window error (bench/stl_dense_diff.py's first kind): over a compound
/// operand, `alw_`/`ev_` leave out the operand's last breakpoint inside the window, wherever
/// it is. `(x - y > 0) or (x - y > -0.5)` is `x - y > -0.5` (the larger of `d` and `d + 0.5`),
/// and the two must give the same robustness: at t = 7 the window [7, 8] reaches x - y = -3
/// at 8, so -2.5. stlrom gives -2.5 for the atomic form and -1.0 for the compound one (and
/// differs at 3, 5 and 9 too).
#[test]
fn equivalent_operands_give_the_same_windows() {
    let rows = [
        (0, -1.0, -1.0),
        (1, 1.0, 0.5),
        (3, 0.5, -2.0),
        (4, 0.5, -1.0),
        (5, 1.0, -2.0),
        (6, -1.0, 2.0),
        (7, -0.5, 1.0),
        (8, -1.0, 2.0),
        (9, -2.0, 0.0),
        (10, -2.0, 2.0),
    ];
    let compound = exact("always[0,1]((x - y > 0) or (x - y > -0.5))", &rows);
    let atomic = exact("always[0,1](x - y > -0.5)", &rows);
    assert_eq!(compound, atomic);
    assert_eq!(compound[6], -2.5);
}

/// Reelay's `since` (the dense-diff script's largest Reelay kind): at t = 1 the only witness
/// is t' = 0, where y > 0 is 1, but x > 0 is -2 on [1, 4), inside [t', t]: -2. Reelay gives
/// 0.5 (y's value now: it computes `since[1,2]` as min(once[1,2](y > 0), (x > 0) since
/// (y > 0)), two witnesses where the definition wants one).
#[test]
fn since_needs_one_witness_for_both_operands() {
    let rows = [
        (0, 1.0, 1.0),
        (1, -2.0, 0.5),
        (4, 1.0, -1.0),
        (6, 1.0, -1.0),
    ];
    assert_eq!(
        exact("(x > 0) since[1,2] (y > 0)", &rows),
        [f64::NEG_INFINITY, -2.0, -2.0, -1.0]
    );
}
