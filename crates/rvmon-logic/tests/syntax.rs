//! The formula syntaxes of `rvmon check`: bare propositions, Spot's LTL syntax in `.ltl`
//! files, and "did you mean" for misspelt keywords; `rvmon monpoly`'s syntax stays MonPoly's.

use proptest::prelude::*;
use rvmon_logic::{
    check_arities, parse_formula, parse_formula_with, Formula, FormulaKind, ParseOptions, Span,
};

fn ltl(text: &str) -> Result<Formula, String> {
    parse_formula_with("f.ltl", text, ParseOptions::for_check(Some("ltl")))
        .map_err(|e| e.to_string())
}

fn mtl(text: &str) -> Result<Formula, String> {
    parse_formula_with("f.mtl", text, ParseOptions::for_check(Some("mtl")))
        .map_err(|e| e.to_string())
}

fn monpoly(text: &str) -> Result<Formula, String> {
    parse_formula("f.mfotl", text).map_err(|e| e.to_string())
}

/// `f` with every span zeroed: formulas written differently (`p` and `p()`) have different
/// spans, and the same formula otherwise.
fn without_spans(f: &Formula) -> Formula {
    let b = |g: &Formula| Box::new(without_spans(g));
    let kind = match &f.kind {
        FormulaKind::Not(g) => FormulaKind::Not(b(g)),
        FormulaKind::Bool2 { op, lhs, rhs } => FormulaKind::Bool2 {
            op: *op,
            lhs: b(lhs),
            rhs: b(rhs),
        },
        FormulaKind::Quant { q, vars, body } => FormulaKind::Quant {
            q: *q,
            vars: vars.clone(),
            body: b(body),
        },
        FormulaKind::Unary { op, interval, body } => FormulaKind::Unary {
            op: *op,
            interval: *interval,
            body: b(body),
        },
        FormulaKind::Binary {
            op,
            interval,
            lhs,
            rhs,
        } => FormulaKind::Binary {
            op: *op,
            interval: *interval,
            lhs: b(lhs),
            rhs: b(rhs),
        },
        FormulaKind::Let {
            name,
            params,
            def,
            body,
        } => FormulaKind::Let {
            name: name.clone(),
            params: params.clone(),
            def: b(def),
            body: b(body),
        },
        FormulaKind::Agg {
            result,
            op,
            over,
            group,
            body,
        } => FormulaKind::Agg {
            result: result.clone(),
            op: *op,
            over: over.clone(),
            group: group.clone(),
            body: b(body),
        },
        leaf => leaf.clone(),
    };
    Formula::new(kind, Span::default())
}

/// Spot formulas, Spot's own reading of each (`str(spot.formula(…))` with Spot 2.13: it
/// normalises, e.g. sorts the operands of `&` and `|` and folds constants, but its
/// parenthesisation shows the precedence), and the formula rvmon builds, printed back in
/// MonPoly's syntax. Each rvmon formula, translated back to Spot's operators, was checked
/// with Spot to be the same formula as Spot's reading: `spot.formula` equal after Spot's
/// normalisation wherever no `R`/`W`/`M`/`xor` is expanded, `spot.are_equivalent` for all.
const SPOT_TABLE: &[(&str, &str, &str)] = &[
    ("a U b U c", "a U (b U c)", "(a() UNTIL[0,*) (b() UNTIL[0,*) c()))"),
    ("a & b | c", "c | (a & b)", "((a() AND b()) OR c())"),
    ("a | b & c", "a | (b & c)", "(a() OR (b() AND c()))"),
    ("a -> b -> c", "a -> (b -> c)", "(a() IMPLIES (b() IMPLIES c()))"),
    ("a <-> b <-> c", "a <-> (b <-> c)", "(a() EQUIV (b() EQUIV c()))"),
    ("a xor b xor c", "c xor (a xor b)", "(NOT ((NOT (a() EQUIV b())) EQUIV c()))"),
    ("a -> b <-> c", "a -> (b <-> c)", "(a() IMPLIES (b() EQUIV c()))"),
    ("a <-> b -> c", "a <-> (b -> c)", "(a() EQUIV (b() IMPLIES c()))"),
    ("a xor b <-> c", "c <-> (a xor b)", "((NOT (a() EQUIV b())) EQUIV c())"),
    ("a xor b -> c", "(a xor b) -> c", "((NOT (a() EQUIV b())) IMPLIES c())"),
    ("a -> b xor c", "a -> (b xor c)", "(a() IMPLIES (NOT (b() EQUIV c())))"),
    ("a | b xor c", "a | (b xor c)", "(a() OR (NOT (b() EQUIV c())))"),
    ("a xor b | c", "c | (a xor b)", "((NOT (a() EQUIV b())) OR c())"),
    ("a ^ b & c", "a xor (b & c)", "(NOT (a() EQUIV (b() AND c())))"),
    ("a & b ^ c", "c xor (a & b)", "(NOT ((a() AND b()) EQUIV c()))"),
    ("G a U b", "Ga U b", "((ALWAYS[0,*) a()) UNTIL[0,*) b())"),
    ("F a & b", "b & Fa", "((EVENTUALLY[0,*) a()) AND b())"),
    ("!a U b", "!a U b", "((NOT a()) UNTIL[0,*) b())"),
    ("a U b & c", "c & (a U b)", "((a() UNTIL[0,*) b()) AND c())"),
    ("a & b U c", "a & (b U c)", "(a() AND (b() UNTIL[0,*) c()))"),
    ("a U b | c", "c | (a U b)", "((a() UNTIL[0,*) b()) OR c())"),
    ("a R b U c", "a R (b U c)", "(NOT ((NOT a()) UNTIL[0,*) (NOT (b() UNTIL[0,*) c()))))"),
    ("a W b R c", "a W (b R c)", "((a() UNTIL[0,*) (NOT ((NOT b()) UNTIL[0,*) (NOT c())))) OR (ALWAYS[0,*) a()))"),
    ("a M b W c", "a M (b W c)", "(((b() UNTIL[0,*) c()) OR (ALWAYS[0,*) b())) UNTIL[0,*) (a() AND ((b() UNTIL[0,*) c()) OR (ALWAYS[0,*) b()))))"),
    ("X a U b", "Xa U b", "((NEXT[0,*) a()) UNTIL[0,*) b())"),
    ("a U b -> c", "(a U b) -> c", "((a() UNTIL[0,*) b()) IMPLIES c())"),
    ("a -> b U c", "a -> (b U c)", "(a() IMPLIES (b() UNTIL[0,*) c()))"),
    ("G a -> b", "Ga -> b", "((ALWAYS[0,*) a()) IMPLIES b())"),
    ("! a & b", "!a & b", "((NOT a()) AND b())"),
    ("a && b || c", "c | (a & b)", "((a() AND b()) OR c())"),
    ("a => b", "a -> b", "(a() IMPLIES b())"),
    ("a <=> b", "a <-> b", "(a() EQUIV b())"),
    ("a ^ b", "a xor b", "(NOT (a() EQUIV b()))"),
    ("[] a", "Ga", "(ALWAYS[0,*) a())"),
    ("<> a", "Fa", "(EVENTUALLY[0,*) a())"),
    ("true", "1", "TRUE"),
    ("1 U 0", "0", "(TRUE UNTIL[0,*) FALSE)"),
    ("F[2:4] a", "XX(a | X(a | Xa))", "(NEXT[0,*) (NEXT[0,*) (a() OR (NEXT[0,*) (a() OR (NEXT[0,*) a()))))))"),
    ("G[2:4] a", "XX(a & X(a & Xa))", "(NEXT[0,*) (NEXT[0,*) (a() AND (NEXT[0,*) (a() AND (NEXT[0,*) a()))))))"),
    ("X[3] a", "XXXa", "(NEXT[0,*) (NEXT[0,*) (NEXT[0,*) a())))"),
    ("F[2:4] a & b", "b & XX(a | X(a | Xa))", "((NEXT[0,*) (NEXT[0,*) (a() OR (NEXT[0,*) (a() OR (NEXT[0,*) a())))))) AND b())"),
    ("G F a", "GFa", "(ALWAYS[0,*) (EVENTUALLY[0,*) a()))"),
    ("a U G b", "a U Gb", "(a() UNTIL[0,*) (ALWAYS[0,*) b()))"),
    ("GFa", "GFa", "(ALWAYS[0,*) (EVENTUALLY[0,*) a()))"),
    ("Fa", "Fa", "(EVENTUALLY[0,*) a())"),
    ("X!a", "X!a", "(NEXT[0,*) (NOT a()))"),
    ("G(request -> F grant)", "G(request -> Fgrant)", "(ALWAYS[0,*) (request() IMPLIES (EVENTUALLY[0,*) grant())))"),
    ("F[0:0] a", "a", "a()"),
    ("X[0] a", "a", "a()"),
    ("G[0:2] a", "a & X(a & Xa)", "(a() AND (NEXT[0,*) (a() AND (NEXT[0,*) a()))))"),
    ("F[2..3] a", "XX(a | Xa)", "(NEXT[0,*) (NEXT[0,*) (a() OR (NEXT[0,*) a()))))"),
    ("F[2,3] a", "XX(a | Xa)", "(NEXT[0,*) (NEXT[0,*) (a() OR (NEXT[0,*) a()))))"),
    ("F[2 to 3] a", "XX(a | Xa)", "(NEXT[0,*) (NEXT[0,*) (a() OR (NEXT[0,*) a()))))"),
    ("F[2:] a", "XXFa", "(NEXT[0,*) (NEXT[0,*) (EVENTUALLY[0,*) a())))"),
    ("F[2:$] a", "XXFa", "(NEXT[0,*) (NEXT[0,*) (EVENTUALLY[0,*) a())))"),
    ("G[1:inf] a", "XGa", "(NEXT[0,*) (ALWAYS[0,*) a()))"),
    ("X [2] a", "XXa", "(NEXT[0,*) (NEXT[0,*) a()))"),
    ("X[]a", "XGa", "(NEXT[0,*) (ALWAYS[0,*) a()))"),
    ("aUb", "aUb", "aUb()"),
    ("Ftrue", "1", "(EVENTUALLY[0,*) TRUE)"),
    ("True", "1", "TRUE"),
    ("FALSE & a", "0", "(FALSE AND a())"),
    ("F1", "\"F1\"", "F1()"),
    ("a.b", "a.b", "a.b()"),
    ("\"a b\" U c", "\"a b\" U c", "(a b() UNTIL[0,*) c())"),
    ("a R b", "a R b", "(NOT ((NOT a()) UNTIL[0,*) (NOT b())))"),
    ("a V b", "a R b", "(NOT ((NOT a()) UNTIL[0,*) (NOT b())))"),
    ("a W b", "a W b", "((a() UNTIL[0,*) b()) OR (ALWAYS[0,*) a()))"),
    ("a M b", "a M b", "(b() UNTIL[0,*) (a() AND b()))"),
    ("G[2:4] a | b", "b | XX(a & X(a & Xa))", "((NEXT[0,*) (NEXT[0,*) (a() AND (NEXT[0,*) (a() AND (NEXT[0,*) a())))))) OR b())"),
    ("F[2:4] (a U b)", "XX((a U b) | X((a U b) | X(a U b)))", "(NEXT[0,*) (NEXT[0,*) ((a() UNTIL[0,*) b()) OR (NEXT[0,*) ((a() UNTIL[0,*) b()) OR (NEXT[0,*) (a() UNTIL[0,*) b())))))))"),
    ("X a U b R c", "Xa U (b R c)", "((NEXT[0,*) a()) UNTIL[0,*) (NOT ((NOT b()) UNTIL[0,*) (NOT c()))))"),
    ("!a -> b", "!a -> b", "((NOT a()) IMPLIES b())"),
    ("a -> !b U c", "a -> (!b U c)", "(a() IMPLIES ((NOT b()) UNTIL[0,*) c()))"),
    ("F G a U b", "FGa U b", "((EVENTUALLY[0,*) (ALWAYS[0,*) a())) UNTIL[0,*) b())"),
    ("G(a) U b", "Ga U b", "((ALWAYS[0,*) a()) UNTIL[0,*) b())"),
    ("a U b W c", "a U (b W c)", "(a() UNTIL[0,*) ((b() UNTIL[0,*) c()) OR (ALWAYS[0,*) b())))"),
    ("a & b -> c | d", "(a & b) -> (c | d)", "((a() AND b()) IMPLIES (c() OR d()))"),
    ("a | b -> c & d <-> e", "(a | b) -> (e <-> (c & d))", "((a() OR b()) IMPLIES ((c() AND d()) EQUIV e()))"),
    ("a <-> b & c", "a <-> (b & c)", "(a() EQUIV (b() AND c()))"),
    ("F[1:2] G[1:2] a", "X(X(a & Xa) | XX(a & Xa))", "(NEXT[0,*) ((NEXT[0,*) (a() AND (NEXT[0,*) a()))) OR (NEXT[0,*) (NEXT[0,*) (a() AND (NEXT[0,*) a()))))))"),
    ("a U F b & c", "c & (a U Fb)", "((a() UNTIL[0,*) (EVENTUALLY[0,*) b())) AND c())"),
    ("!F a", "!Fa", "(NOT (EVENTUALLY[0,*) a()))"),
    ("F !a U b", "F!a U b", "((EVENTUALLY[0,*) (NOT a())) UNTIL[0,*) b())"),
    ("X X a | b", "b | XXa", "((NEXT[0,*) (NEXT[0,*) a())) OR b())"),
    ("a --> b <--> c", "a -> (b <-> c)", "(a() IMPLIES (b() EQUIV c()))"),
    ("~a & b", "!a & b", "((NOT a()) AND b())"),
    ("(a U b) U c", "(a U b) U c", "((a() UNTIL[0,*) b()) UNTIL[0,*) c())"),
    ("a & (b | c)", "a & (b | c)", "(a() AND (b() OR c()))"),
    ("request U grant", "request U grant", "(request() UNTIL[0,*) grant())"),
    ("a & b & c | d & e", "(a & b & c) | (d & e)", "(((a() AND b()) AND c()) OR (d() AND e()))"),
    ("a | b | c", "a | b | c", "((a() OR b()) OR c())"),
    ("a -> (b -> c)", "a -> (b -> c)", "(a() IMPLIES (b() IMPLIES c()))"),
    ("(a -> b) -> c", "(a -> b) -> c", "((a() IMPLIES b()) IMPLIES c())"),
];

#[test]
fn spot_formulas_read_as_spot_reads_them() {
    for (text, spot, expected) in SPOT_TABLE {
        let f = ltl(text).unwrap_or_else(|e| panic!("{text} (Spot: {spot}): {e}"));
        assert_eq!(f.to_string(), *expected, "{text} (Spot: {spot})");
    }
}

/// A bare `p` is `p()`, wherever a formula may stand, in `.mtl` files and in `.ltl` files.
#[test]
fn a_bare_proposition_is_the_nullary_predicate() {
    for (bare, explicit) in [
        ("p", "p()"),
        (
            "request IMPLIES EVENTUALLY grant()",
            "request() IMPLIES EVENTUALLY grant()",
        ),
        ("NOT p SINCE[0,3] q", "NOT p() SINCE[0,3] q()"),
        ("(p AND (q OR r))", "(p() AND (q() OR r()))"),
        ("ONCE[1,2] p IMPLIES q", "ONCE[1,2] p() IMPLIES q()"),
        ("p UNTIL q", "p() UNTIL q()"),
        ("EXISTS x. r(x) AND p", "EXISTS x. r(x) AND p()"),
        (
            "LET s(x) = r(x) AND p IN s(y) OR q",
            "LET s(x) = r(x) AND p() IN s(y) OR q()",
        ),
        ("x < y AND p", "x < y AND p()"),
        ("p AND x = 3", "p() AND x = 3"),
        ("p EQUIV (q IMPLIES TRUE)", "p() EQUIV (q() IMPLIES TRUE)"),
    ] {
        let want = without_spans(&monpoly(explicit).unwrap());
        assert_eq!(without_spans(&mtl(bare).unwrap()), want, "{bare}");
        assert_eq!(without_spans(&ltl(bare).unwrap()), want, "{bare} in .ltl");
        assert_eq!(without_spans(&mtl(explicit).unwrap()), want, "{explicit}");
    }
    // Spot's names are the same predicates.
    assert_eq!(
        without_spans(&ltl("G(request -> F grant)").unwrap()),
        without_spans(&monpoly("ALWAYS (request() IMPLIES EVENTUALLY grant())").unwrap())
    );
    // Files without a known extension read as `.mtl`.
    assert_eq!(
        ParseOptions::for_check(None),
        ParseOptions::for_check(Some("mtl"))
    );
}

/// Terms stay terms: an identifier before a comparison or an arithmetic operator, or a
/// function, is not a proposition.
#[test]
fn comparisons_keep_their_terms() {
    for text in [
        "x = 3",
        "x < y",
        "x + 1 >= y",
        "f2i(x) = 3",
        "s SUBSTRING t",
        "x MOD 2 = 0",
    ] {
        let f = mtl(text).unwrap();
        assert!(
            matches!(f.kind, FormulaKind::Cmp { .. } | FormulaKind::StrRel { .. }),
            "{text}: {f}"
        );
        assert_eq!(f.to_string(), monpoly(text).unwrap().to_string(), "{text}");
    }
}

/// `rvmon monpoly` keeps MonPoly's syntax: a bare proposition is an error there (with a hint),
/// and so is Spot's syntax.
#[test]
fn monpoly_syntax_stays_strict() {
    let e = monpoly("request IMPLIES EVENTUALLY grant()").unwrap_err();
    assert_eq!(
        e,
        "f.mfotl:1:9: expected a comparison (`=`, `<`, `<=`, `>`, `>=`) after the term, found \
         `IMPLIES`: a proposition is written `request()`"
    );
    assert!(monpoly("p").is_err());
    assert!(monpoly("G(request -> F grant)").is_err());
    assert!(parse_formula_with("f", "p", ParseOptions::MONPOLY).is_err());
}

/// A keyword in the wrong case is not taken for a proposition that never holds.
#[test]
fn keywords_in_the_wrong_case_are_not_propositions() {
    assert_eq!(
        mtl("p OR true").unwrap_err(),
        "f.mtl:1:6: `true` is not a keyword: did you mean `TRUE`? (a proposition named `true` \
         is written `true()`)"
    );
    assert!(mtl("Always p")
        .unwrap_err()
        .contains("did you mean `ALWAYS`?"));
    // Written as a predicate, it is one.
    assert_eq!(mtl("p OR true()").unwrap().to_string(), "(p() OR true())");
    // In Spot's syntax, `true` is the constant in any case.
    assert_eq!(ltl("p | True").unwrap().to_string(), "(p() OR TRUE)");
}

#[test]
fn misspelt_keywords_are_named_with_the_nearest_keyword() {
    let eventually = "`EVENTUALY` is not a keyword: did you mean `EVENTUALLY`?";
    for (text, expected) in [
        ("EVENTUALY p()", format!("f:1:1: {eventually}")),
        ("EVENTUALY[0,5] p()", format!("f:1:1: {eventually}")),
        ("EVENTUALY(p())", format!("f:1:1: {eventually}")),
        (
            "eventualy p",
            "f:1:1: `eventualy` is not a keyword: did you mean `eventually`?".into(),
        ),
        (
            "p() UNTL q()",
            "f:1:5: `UNTL` is not a keyword: did you mean `UNTIL`?".into(),
        ),
        (
            "ALWAYS p() ADN q()",
            "f:1:12: `ADN` is not a keyword: did you mean `AND`?".into(),
        ),
        (
            "EXIST x. p(x)",
            "f:1:1: `EXIST` is not a keyword: did you mean `EXISTS`?".into(),
        ),
        (
            "p()\n  IMPLIES\n    ONCE[0,5] q() SINCEE r()",
            "f:3:19: `SINCEE` is not a keyword: did you mean `SINCE`?".into(),
        ),
    ] {
        for options in [ParseOptions::MONPOLY, ParseOptions::for_check(Some("mtl"))] {
            let e = parse_formula_with("f", text, options).unwrap_err();
            assert_eq!(e.to_string(), expected, "{text} with {options:?}");
        }
    }
    // Where a bare proposition may stand, the message also says how to write one.
    let historically = "f:1:1: `Historically` is not a keyword: did you mean `HISTORICALLY`?";
    assert_eq!(
        monpoly("Historically p()").unwrap_err(),
        historically.replace("f:", "f.mfotl:")
    );
    assert_eq!(
        mtl("Historically p()").unwrap_err(),
        format!(
            "{} (a proposition named `Historically` is written `Historically()`)",
            historically.replace("f:", "f.mtl:")
        )
    );
    // In a `.ltl` file too, when MonPoly's grammar read further than Spot's.
    assert_eq!(
        ltl("ALWAYS (request IMPLIES EVENTUALY grant)").unwrap_err(),
        format!("f.ltl:1:25: {eventually}")
    );
    // Short names are not taken for keywords: the ordinary message stays.
    assert_eq!(
        mtl("p q").unwrap_err(),
        "f.mtl:1:3: expected an operator or the end of the formula, found identifier `q`"
    );
}

/// MonPoly's syntax keeps working in `.ltl` files, metric intervals and data included.
#[test]
fn ltl_files_take_monpoly_syntax_too() {
    for text in [
        "ALWAYS (request() IMPLIES EVENTUALLY[0,5] grant())",
        "request IMPLIES EVENTUALLY grant",
        "p(x) IMPLIES ONCE[0,3] q(x)",
        "NOT p() SINCE (q() AND r())",
        "x = 3",
    ] {
        assert_eq!(
            ltl(text).unwrap().to_string(),
            mtl(text).unwrap().to_string(),
            "{text}"
        );
    }
}

/// When neither grammar accepts a `.ltl` file, the error is that of the grammar that read
/// further.
#[test]
fn ltl_errors_come_from_the_grammar_that_read_further() {
    let operator = "an operator (`&`, `|`, `->`, `U`, …)";
    for (text, expected) in [
        // Spot's: MonPoly's grammar stops at the `-` of `->`.
        (
            "G(request -> F gran t)",
            format!("f.ltl:1:21: expected `)` or {operator}, found `t`"),
        ),
        (
            "G a b",
            format!("f.ltl:1:5: expected {operator} or the end of the formula, found `b`"),
        ),
        (
            "a U",
            "f.ltl:1:4: expected a formula, found the end of the formula".into(),
        ),
        ("a & & b", "f.ltl:1:5: expected a formula, found `&`".into()),
        (
            "a /* never closed",
            "f.ltl:1:18: unterminated comment: expected `*/`".into(),
        ),
        (
            "\"a",
            "f.ltl:1:3: unterminated string opened at 1:1: expected a closing `\"`".into(),
        ),
        // MonPoly's: Spot's stops at `IMPLIES`, a name where an operator is expected.
        (
            "request IMPLIES EVENTUALLY grant)",
            "f.ltl:1:33: expected an operator or the end of the formula, found `)`".into(),
        ),
    ] {
        assert_eq!(ltl(text).unwrap_err(), expected, "{text}");
    }
}

/// The bounded sugar: Spot's expansion, its limits, and the forms Spot rejects.
#[test]
fn bounded_sugar_and_its_errors() {
    let same = |a: &str, b: &str| {
        assert_eq!(
            ltl(a).unwrap().to_string(),
            ltl(b).unwrap().to_string(),
            "{a}"
        )
    };
    same("F[2:4] a", "X X (a | X (a | X a))");
    same("G[2:4] a", "X X (a & X (a & X a))");
    same("X[3] a", "X X X a");
    same("F[1:] a", "X F a");
    same("F[0:0] a", "a");
    // `[]` is `G`, also right after `F`, `G` or `X`, as in Spot.
    same("F[] a", "F G a");
    assert_eq!(
        ltl("X[254] a").unwrap().to_string().matches("NEXT").count(),
        254
    );
    for (text, expected) in [
        (
            "F[2] a",
            "f.ltl:1:4: `F[2]`: `F[n:m]` takes two step counts",
        ),
        (
            "X[2:3] a",
            "f.ltl:1:5: `X[2:3]`: `X[n]` takes one step count (n nested X)",
        ),
        (
            "F[4:2] a",
            "f.ltl:1:5: `F[4:2]` is a reversed range: write `F[2:4]`",
        ),
        (
            "G[0:255] a",
            "f.ltl:1:5: `255` exceeds the largest supported step count (254)",
        ),
        ("F[2:4 a", "f.ltl:1:7: expected `]` to close `F[`"),
        (
            "X[2!] a",
            "f.ltl:1:4: strong operators (`!]`) are not supported",
        ),
        (
            "X[254] X[254] X[254] X[254] a",
            "f.ltl:1:1: `X[254]` nests its operand 1017 operators deep once expanded; at most \
             1000 are supported",
        ),
    ] {
        assert_eq!(ltl(text).unwrap_err(), expected, "{text}");
    }
    // Copies of copies would grow exponentially: refused, not built.
    for text in [
        "F[0:254] F[0:254] F[0:254] a".to_string(),
        format!("{}a{}", "(".repeat(40), " W b)".repeat(40)),
        format!("{}a{}", "b M (".repeat(40), ")".repeat(40)),
    ] {
        let e = ltl(&text).unwrap_err();
        assert!(e.contains("too large once expanded"), "{text}: {e}");
    }
}

/// A signature that declares a predicate with arguments makes a bare use of it an error,
/// whichever engine the formula would reach.
#[test]
fn signatures_give_predicates_their_arguments() {
    let declared = |p: &str| match p {
        "p" => Some(1),
        "q" => Some(2),
        "r" => Some(0),
        _ => None,
    };
    let check = |text: &str| {
        let f = mtl(text).unwrap();
        check_arities("f.mtl", text, &f, &declared).map_err(|e| e.to_string())
    };
    assert_eq!(
        check("r IMPLIES EVENTUALLY p"),
        Err("f.mtl:1:22: `p` takes 1 argument in the signature, but is used here with none".into())
    );
    assert_eq!(
        check("q(x) AND r"),
        Err("f.mtl:1:1: `q` takes 2 arguments in the signature, but is used here with 1".into())
    );
    assert_eq!(check("p(x) AND q(x,y) AND r AND other"), Ok(()));
    // A `LET` defines its own `p` within its body, not within its definition.
    assert_eq!(check("LET p() = r IN p AND q(1,2)"), Ok(()));
    assert!(check("LET s() = p IN s").is_err());
}

proptest! {
    /// No input makes either grammar panic.
    #[test]
    fn no_input_panics(
        words in prop::collection::vec(
            prop::sample::select(vec![
                "a", "p()", "G", "F", "X", "U", "R", "W", "M", "V", "GFa", "F[", "X[", "G [",
                "0", "1", "2", "254", "999", ":", "..", ",", "to", "$", "]", "!]", "[]", "<>",
                "!", "~", "&", "&&", "|", "||", "^", "xor", "->", "=>", "<->", "<=>", "(", ")",
                "\"", "\"q\"", "true", "FALSE", "AND", "EVENTUALY", "ONCE[0,3]", "x", "=",
                "<", "#", "\n", "/*", "*/", "(*", "*)", "é", "\\",
            ]),
            0..24,
        )
    ) {
        let text = words.join(" ");
        let glued = words.concat();
        for t in [&text, &glued] {
            let _ = ltl(t);
            let _ = mtl(t);
            let _ = monpoly(t);
        }
    }
}

/// MonPoly's `(* … *)` comments, anywhere, over several lines, with `*` and `)` inside; an
/// unterminated one is an error at its start. (The comment regex once matched none: logos
/// does not backtrack.)
#[test]
fn monpoly_comments_are_skipped() {
    for text in [
        "(* a *) p()",
        "p() (* a *)",
        "(* two\n lines *) p()",
        "(* it's (a * b) **) p()",
        "ONCE[0,3] (* inside *) p()",
    ] {
        let f =
            rvmon_logic::parse_formula("f.mtl", text).unwrap_or_else(|e| panic!("{text:?}: {e}"));
        let plain = rvmon_logic::parse_formula("f.mtl", &text.replace("(* inside *)", "")).ok();
        assert!(
            plain.is_some() || text.contains("inside"),
            "{text:?}: {f:?}"
        );
    }
    for (text, at) in [("(* open p()", "1:1"), ("p() (* open", "1:5")] {
        let e = rvmon_logic::parse_formula("f.mtl", text)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains(&format!("f.mtl:{at}: unterminated comment")),
            "{text:?}: {e}"
        );
    }
}
