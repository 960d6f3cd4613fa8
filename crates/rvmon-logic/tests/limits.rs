//! Formulas that once crashed rvmon (a fuzz campaign's stack overflows) give a positioned
//! error, or parse into a tree every pass can walk: nesting past [`MAX_NESTING`] is refused
//! where it happens, long `AND`/`OR` chains are built shallow, and every pass over a formula
//! at the limit runs in the stack rvmon's main thread has.

use rvmon_logic::monitorable::is_monitorable;
use rvmon_logic::monpoly::{candidate_forms, normalize, to_monpoly_string};
use rvmon_logic::order::order_conjuncts;
use rvmon_logic::pushdown::push_comparisons;
use rvmon_logic::reference::evaluate;
use rvmon_logic::{
    analyze, free_vars, parse_formula, parse_formula_with, BoolOp, Formula, FormulaKind,
    ParseOptions, MAX_NESTING,
};

fn check(text: &str) -> Result<Formula, String> {
    parse_formula_with("f.mtl", text, ParseOptions::for_check(Some("mtl")))
        .map_err(|e| e.to_string())
}

fn spot(text: &str) -> Result<Formula, String> {
    parse_formula_with("f.ltl", text, ParseOptions::for_check(Some("ltl")))
        .map_err(|e| e.to_string())
}

fn depth(f: &Formula) -> usize {
    1 + f.children().into_iter().map(depth).max().unwrap_or(0)
}

/// `f` on a thread with the stack of a main thread under the usual `ulimit -s 8192`, where
/// rvmon parses and compiles a formula (test threads have 2 MiB).
fn on_main_stack(f: impl FnOnce() + Send + 'static) {
    let t = std::thread::Builder::new().stack_size(8 << 20).spawn(f);
    t.expect("a thread").join().expect("no panic");
}

#[test]
fn nesting_past_the_limit_is_an_error_where_it_happens() {
    on_main_stack(nesting_past_the_limit);
}

fn nesting_past_the_limit() {
    let deep = |unit: &str, n: usize, atom: &str, close: &str| {
        format!("{}{atom}{}", unit.repeat(n), close.repeat(n))
    };
    // The 1,001st level is the error, at its first character.
    let at = |unit: &str| {
        format!(
            "f.mtl:1:{}: nesting deeper than 1000",
            1 + 1000 * unit.len()
        )
    };
    for unit in ["(", "NOT ", "ONCE ", "NEXT ", "EXISTS x. ", "p() SINCE "] {
        let close = if unit == "(" { ")" } else { "" };
        assert_eq!(
            check(&deep(unit, 4_500, "p()", close)),
            Err(at(unit)),
            "{unit}"
        );
        // At the limit, it is read.
        let ok = deep(unit, MAX_NESTING - 1, "p()", close);
        assert!(check(&ok).is_ok(), "{unit}");
    }
    assert_eq!(
        check(&deep("p() SINCE ", 12_000, "p()", "")),
        Err(at("p() SINCE "))
    );
    // A 9 KB file of a prefix operator.
    let nine_kb = deep("ONCE ", 9 * 1024 / 5, "p()", "");
    assert_eq!(check(&nine_kb), Err(at("ONCE ")));
    // Terms nest too.
    let term = format!("{}x{} = 1", "(".repeat(4_500), ")".repeat(4_500));
    assert!(check(&term)
        .unwrap_err()
        .ends_with("nesting deeper than 1000"));
    let minus = format!("{}x = 1", "-".repeat(4_500));
    assert!(check(&minus)
        .unwrap_err()
        .ends_with("nesting deeper than 1000"));
    // Spot's syntax, in `.ltl` files.
    for unit in ["(", "!", "X ", "G ", "a U "] {
        let close = if unit == "(" { ")" } else { "" };
        let e = spot(&deep(unit, 4_500, "a", close)).unwrap_err();
        assert!(e.ends_with("nesting deeper than 1000"), "{unit}: {e}");
    }
    // MonPoly's syntax in `rvmon monpoly`.
    let e = parse_formula("f.mfotl", &deep("(", 4_500, "p()", ")")).unwrap_err();
    assert_eq!(e.to_string(), "f.mfotl:1:1001: nesting deeper than 1000");
}

#[test]
fn long_chains_are_shallow_and_short_ones_as_written() {
    on_main_stack(long_chains);
}

fn long_chains() {
    for (op, spot_op) in [(" AND ", " & "), (" OR ", " | ")] {
        let long = vec!["p()"; 100_000].join(op);
        let f = check(&long).unwrap();
        assert!(depth(&f) <= 64 + 12, "{}", depth(&f));
        assert_eq!(f.span.end, long.len());
        // Every pass works on it.
        let a = analyze("f.mtl", &long, &f).unwrap();
        assert!(a.propositional);
        assert!(is_monitorable(&normalize(&f)).is_ok());
        assert_eq!(evaluate(&f, &[(0, vec!["p".into()])]), [true]);
        assert!(to_monpoly_string(&f).len() > long.len());
        let s = spot(&vec!["a"; 100_000].join(spot_op)).unwrap();
        assert!(depth(&s) <= 64 + 12);
    }
    // Up to 64 operands, a chain is the left comb it always was.
    let short = check(&vec!["p()"; 64].join(" AND ")).unwrap();
    assert_eq!(depth(&short), 64);
    let mut f = &short;
    while let FormulaKind::Bool2 {
        op: BoolOp::And,
        lhs,
        rhs,
    } = &f.kind
    {
        assert!(matches!(rhs.kind, FormulaKind::Pred { .. }));
        f = lhs;
    }
    // Free variables stay in the order written.
    let vars: Vec<String> = (0..200).map(|i| format!("x{i}")).collect();
    let preds: Vec<String> = vars.iter().map(|v| format!("p({v})")).collect();
    let f = check(&preds.join(" AND ")).unwrap();
    assert_eq!(free_vars(&f), vars);
}

#[test]
fn chains_whose_grouping_matters_are_kept_as_written() {
    // In `p(x) AND NOT q(x) AND …` each negated conjunct needs `p(x)` on its left (MonPoly's
    // monitorability): the chain is not regrouped, and counts as nesting.
    let chain = |n: usize| format!("p(x){}", " AND NOT q(x)".repeat(n));
    let f = check(&chain(500)).unwrap();
    assert_eq!(depth(&f), 502);
    let e = check(&chain(2_000)).unwrap_err();
    assert!(e.ends_with("nesting deeper than 1000"), "{e}");
    // Closed negations regroup; comparisons never start a run.
    let f = check(&format!("p(){}", " AND NOT q()".repeat(5_000))).unwrap();
    assert!(depth(&f) < 100);
    assert!(is_monitorable(&f).is_ok());
    let f = check(&format!("p(){}", " AND p() AND 1 < 2".repeat(5_000))).unwrap();
    assert!(depth(&f) < 100);
    assert!(is_monitorable(&f).is_ok());
}

#[test]
fn let_and_equiv_are_bounded_once_written_out() {
    // Each definition uses the previous one twice: 2^40 copies written out.
    let mut text = "LET p0() = a() IN ".to_string();
    for i in 1..=40 {
        text.push_str(&format!("LET p{i}() = p{}() AND p{}() IN ", i - 1, i - 1));
    }
    text.push_str("p40()");
    let e = check(&text).unwrap_err();
    assert!(e.contains("too large once written out"), "{e}");
    let equiv = format!("{}a(){}", "a() EQUIV (".repeat(40), ")".repeat(40));
    let e = check(&equiv).unwrap_err();
    assert!(e.contains("too large once written out"), "{e}");
    // Depth adds up through definitions.
    let deep = format!(
        "LET p() = {}a() IN LET q() = {}p() IN q()",
        "NOT ".repeat(600),
        "ONCE ".repeat(600)
    );
    let e = check(&deep).unwrap_err();
    assert!(e.contains("nesting deeper than 1000 once the LET"), "{e}");
}

/// Formulas at the limit, each through every pass `rvmon check` and `rvmon monpoly` make in
/// rvmon-logic: the depth limit has to leave room for the deepest of them.
#[test]
fn every_pass_runs_at_the_limit() {
    on_main_stack(every_pass_at_the_limit);
}

fn every_pass_at_the_limit() {
    let n = MAX_NESTING - 2;
    // The normalisation makes some deeper: `ALWAYS φ` is `NOT EVENTUALLY NOT φ`.
    let shapes = [
        format!("{}p()", "ALWAYS[0,5] ".repeat(n)),
        format!("{}p()", "PAST_ALWAYS ".repeat(n)),
        format!("{}p()", "p() IMPLIES ".repeat(n)),
        format!("{}p()", "NOT ".repeat(n)),
        format!("{}p()", "p() UNTIL[0,3] ".repeat(n)),
        format!("{}TRUE", "FORALL x. ".repeat(n)),
        format!("{}p(x)", "EXISTS y. ".repeat(n)),
    ];
    for text in shapes {
        let f = check(&text).unwrap_or_else(|e| panic!("{e}"));
        let a = analyze("f.mtl", &text, &f).unwrap();
        let _ = free_vars(&f);
        let _ = f.to_string();
        let _ = to_monpoly_string(&f);
        // (`analyzed_formula` and `normalize` run inside.)
        for form in candidate_forms(&f) {
            let _ = is_monitorable(&form);
            let _ = push_comparisons(&order_conjuncts(&form));
            let _ = to_monpoly_string(&form);
        }
        if a.propositional {
            let _ = evaluate(&f, &[(0, vec!["p".into()]), (1, vec![])]);
        }
        assert_eq!(f.clone(), f);
    }
}
