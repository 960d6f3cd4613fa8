//! Paper 17's water tank (note D §1.3) as tests: the model monitor on the note's derived
//! state pairs, the controller monitor as KeYmaera X exports it, and what the evaluator
//! promises beyond them: exact decimals, tolerance by polarity, quantifiers, and errors.

use rvmon_modelplex::{ModelplexMonitor, Outcome};

const MODEL: &str = "const m = 10\nconst eps = 1\n\
    monitor model: -1 <= f' <= (m - x)/eps & x' = x + f'*t' & t' >= 0 & x >= 0 \
    & eps >= t' & f'*t' + x >= 0";

/// The monitor of `text` and a checker of one pair given as `name=value` lists.
fn monitor(text: &str, tolerance: Option<&str>) -> ModelplexMonitor {
    ModelplexMonitor::new("test.modelplex", text, tolerance).unwrap()
}

fn check(m: &mut ModelplexMonitor, prior: &[(&str, f64)], post: &[(&str, f64)]) -> Vec<Outcome> {
    let pick = |state: &[(&str, f64)]| -> Vec<f64> {
        m.inputs()
            .iter()
            .map(|(n, _)| state.iter().find(|(k, _)| k == n).map_or(0.0, |(_, v)| *v))
            .collect()
    };
    let (a, b) = (pick(prior), pick(post));
    m.check(&a, &b).to_vec()
}

fn fails(conjunct: usize) -> Vec<Outcome> {
    vec![Outcome::Fails {
        conjunct,
        undefined: false,
    }]
}

/// Note D §1.3's derived tests: m = 10, ε = 1, prior x = 5.
#[test]
fn model_monitor_on_the_notes_pairs() {
    let mut m = monitor(MODEL, None);
    let prior = [("x", 5.0)];
    let ok = check(&mut m, &prior, &[("f", 2.0), ("t", 0.5), ("x", 6.0)]);
    assert_eq!(ok, vec![Outcome::Holds]);
    // The controller's bound (m - x)/ε = 5 exceeded: conjunct 2 (`f' <= (m - x)/eps`).
    let too_fast = check(&mut m, &prior, &[("f", 6.0), ("t", 0.5), ("x", 8.0)]);
    assert_eq!(too_fast, fails(1));
    // The plant deviates: x⁺ ≠ x + f⁺t⁺.
    let deviates = check(&mut m, &prior, &[("f", 2.0), ("t", 0.5), ("x", 6.5)]);
    assert_eq!(deviates, fails(2));
    // Too long between two decisions: t⁺ > ε.
    let late = check(&mut m, &prior, &[("f", 2.0), ("t", 1.5), ("x", 8.0)]);
    assert_eq!(late, fails(5));
}

/// The derived controller monitor χ_c ≡ −1 ≤ f⁺ ≤ (m−x)/ε ∧ t⁺ = 0 ∧ x⁺ = x, in KeYmaera X's
/// export (a witness `fpost_0()`, `xpost()`, nullary constants) and in rvmon's notation:
/// the same verdicts.
#[test]
fn controller_monitor_in_keymaera_x_syntax() {
    let kyx = "const m = 10\nconst ep = 1\n\
        (-1<=fpost_0()&fpost_0()<=(m()-x)/ep())&fpost()=fpost_0()&xpost()=x&tpost()=0";
    let ours = "const m = 10\nconst ep = 1\n-1 ≤ f⁺ ≤ (m − x)/ep ∧ t⁺ = 0 ∧ x⁺ = x";
    for text in [kyx, ours] {
        let mut m = monitor(text, None);
        let prior = [("x", 5.0), ("f", 1.0), ("t", 0.7)];
        let good = check(&mut m, &prior, &[("x", 5.0), ("f", 4.5), ("t", 0.0)]);
        assert_eq!(good, vec![Outcome::Holds], "{text}");
        let bad = check(&mut m, &prior, &[("x", 5.0), ("f", 5.5), ("t", 0.0)]);
        assert!(matches!(bad[0], Outcome::Fails { .. }), "{text}");
        let moved = check(&mut m, &prior, &[("x", 5.5), ("f", 1.0), ("t", 0.0)]);
        assert!(matches!(moved[0], Outcome::Fails { .. }), "{text}");
    }
}

/// Samples are the decimals written: 7.9 + (−0.35)·1 is 7.55 (in doubles, 7.550000000000001),
/// and 0.1 + 0.2 is 0.3.
#[test]
fn decimals_are_exact() {
    let mut m = monitor(MODEL, None);
    let ok = check(
        &mut m,
        &[("x", 7.9)],
        &[("f", -0.35), ("t", 1.0), ("x", 7.55)],
    );
    assert_eq!(ok, vec![Outcome::Holds]);
    let mut sum = monitor("x' = x + y", None);
    assert_eq!(
        check(&mut sum, &[("x", 0.1), ("y", 0.2)], &[("x", 0.3)]),
        vec![Outcome::Holds]
    );
    assert_eq!(
        check(&mut sum, &[("x", 0.1), ("y", 0.2)], &[("x", 0.1 + 0.2)]),
        fails(0)
    );
}

/// A tolerance forgives differences up to it in the condition's favour: an equality holds
/// within it, an inequality loosens, and under a negation comparisons tighten.
#[test]
fn tolerance_is_in_the_conditions_favour() {
    let mut m = monitor(MODEL, Some("0.001"));
    let near = check(
        &mut m,
        &[("x", 5.0)],
        &[("f", 2.0), ("t", 0.5), ("x", 6.0005)],
    );
    assert_eq!(near, vec![Outcome::Holds]);
    let far = check(
        &mut m,
        &[("x", 5.0)],
        &[("f", 2.0), ("t", 0.5), ("x", 6.002)],
    );
    assert_eq!(far, fails(2));
    // Under ¬, `x' <= x` must hold by more than 0.5 to count: `!(x' <= x)` is `x' > x - 0.5`.
    let mut gt = monitor("!(x' <= x)", Some("0.5"));
    assert_eq!(
        check(&mut gt, &[("x", 1.0)], &[("x", 0.6)]),
        vec![Outcome::Holds]
    );
    assert_eq!(check(&mut gt, &[("x", 1.0)], &[("x", 0.4)]), fails(0));
    // `x' != x` holds for some perturbation of any pair: with a tolerance it always holds.
    let mut ne = monitor("x' != x", Some("0.5"));
    assert_eq!(
        check(&mut ne, &[("x", 1.0)], &[("x", 1.0)]),
        vec![Outcome::Holds]
    );
    let mut le = monitor("x' <= x -> y' > 0", Some("0.5"));
    // The antecedent tightens: 1.3 <= 1 by more than 0.5 is false, so the implication holds.
    assert_eq!(
        check(&mut le, &[("x", 1.0)], &[("x", 1.3), ("y", -1.0)]),
        vec![Outcome::Holds]
    );
    assert_eq!(
        check(&mut le, &[("x", 1.0)], &[("x", 0.4), ("y", -1.0)]),
        fails(0)
    );
}

/// Quantifiers: bound by an equation (substituted), or linear in their variable (decided at
/// the breakpoints), exactly; others refused with a reason.
#[test]
fn quantifiers_over_the_reals() {
    // The plant's solution for some duration T in [0, eps]: ∃T (0 <= T <= eps ∧ x' = x + f'T).
    let text = "const eps = 1\n\\exists T (0 <= T & T <= eps & x' = x + f'*T)";
    let mut m = monitor(text, None);
    assert_eq!(
        check(&mut m, &[("x", 5.0)], &[("f", 2.0), ("x", 6.5)]),
        vec![Outcome::Holds]
    );
    assert_eq!(
        check(&mut m, &[("x", 5.0)], &[("f", 2.0), ("x", 7.5)]),
        fails(0)
    );
    assert_eq!(
        check(&mut m, &[("x", 5.0)], &[("f", 0.0), ("x", 5.0)]),
        vec![Outcome::Holds]
    );
    // Strict bounds: ∃T (0 < T < 1 ∧ x' = x + T) is false at the open ends.
    let mut open = monitor("exists T. 0 < T & T < 1 & x' = x + T", None);
    assert_eq!(check(&mut open, &[("x", 0.0)], &[("x", 1.0)]), fails(0));
    assert_eq!(
        check(&mut open, &[("x", 0.0)], &[("x", 0.999)]),
        vec![Outcome::Holds]
    );
    // ∀ over an interval: the level stays non-negative along the whole step.
    let mut all = monitor("∀s (0 <= s & s <= t' -> x + f'*s >= 0)", None);
    assert_eq!(
        check(&mut all, &[("x", 1.0)], &[("f", -1.0), ("t", 1.0)]),
        vec![Outcome::Holds]
    );
    assert_eq!(
        check(&mut all, &[("x", 1.0)], &[("f", -1.0), ("t", 1.5)]),
        fails(0)
    );
    // Bound by an equation, nonlinear around it: substituted.
    let mut sub = monitor("\\exists v (v = x'^2 & v*v <= 16)", None);
    assert_eq!(check(&mut sub, &[], &[("x", 2.0)]), vec![Outcome::Holds]);
    // (Substituted, `v = x'^2 & v*v <= 16` is two conjuncts.)
    assert_eq!(check(&mut sub, &[], &[("x", 2.5)]), fails(1));
    for (bad, why) in [
        ("\\exists v (v*v = x)", "not linear"),
        ("\\exists v \\exists w (v + w = x & v - w = 1)", "reads it"),
        ("\\exists v (v' = x)", "no posterior"),
    ] {
        let e = ModelplexMonitor::new("q.modelplex", bad, None)
            .err()
            .unwrap()
            .to_string();
        assert!(e.contains(why), "{bad}: {e}");
    }
}

/// A division by zero makes the conjunct undefined, which is a violation that says so.
#[test]
fn division_by_zero_is_reported() {
    let mut m = monitor("x' <= 1/y", None);
    assert_eq!(
        check(&mut m, &[("y", 0.0)], &[("x", 0.0)]),
        vec![Outcome::Fails {
            conjunct: 0,
            undefined: true
        }]
    );
}

/// Several monitors, `<->`, `min`/`max`/`abs`, powers, chains and comments.
#[test]
fn the_rest_of_the_language() {
    let text = "/* two monitors */ monitor a: abs(x' - x) <= 1 <-> y' = 1\n\
                monitor b: max(x, x') - min(x, x') >= 2^-1 | x'^2 = 4 // end";
    let mut m = monitor(text, None);
    let o = check(&mut m, &[("x", 2.0)], &[("x", 2.25), ("y", 1.0)]);
    assert_eq!(
        o,
        vec![
            Outcome::Holds,
            Outcome::Fails {
                conjunct: 0,
                undefined: false
            }
        ]
    );
    let o = check(&mut m, &[("x", 2.0)], &[("x", -2.0), ("y", 1.0)]);
    assert_eq!(
        o,
        vec![
            Outcome::Fails {
                conjunct: 0,
                undefined: false
            },
            Outcome::Holds
        ]
    );
}

/// Errors say where and what was expected.
#[test]
fn errors_have_line_and_column() {
    for (text, at, what) in [
        ("x' <= ", "1:7", "expected a number"),
        ("const m = 1\nx <= m &", "2:9", "expected a number"),
        ("x <= 1\ny <= 2", "2:1", "`monitor NAME:`"),
        ("monitor a: x < 1\nmonitor a: x < 2", "2:", "named twice"),
        ("x <= foo(1)", "1:6", "unknown function"),
        ("x <= 2^x", "1:8", "integer constant"),
        ("x ≤ 1 $", "1:7", "unexpected character"),
        ("m' = 1\nconst m = 2", "1:1", "no posterior"),
        ("", "1:1", "has none"),
        ("const m = 1\nconst m = 2\nx < m", "2:7", "declared twice"),
    ] {
        match ModelplexMonitor::new("e.modelplex", text, None) {
            Ok(_) => assert!(at.is_empty(), "{text:?} should fail"),
            Err(e) => {
                let e = e.to_string();
                assert!(e.contains(&format!("e.modelplex:{at}")), "{text:?}: {e}");
                assert!(e.contains(what), "{text:?}: {e}");
            }
        }
    }
    assert!(ModelplexMonitor::new("t", "x < 1", Some("-1")).is_err());
    assert!(ModelplexMonitor::new("t", "x < 1", Some("abc")).is_err());
}
