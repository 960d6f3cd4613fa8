//! Worked examples of papers 12 (LTL progression, three-valued verdicts) and 15 (online MTL),
//! as recorded in note C §C1.3 and §C4.5, with the vectors machine-checked against Spot and a
//! brute-force evaluator of paper 15's definitions.
//!
//! rvmon reports the verdict of every time point; the papers judge the first one. Each test
//! lists the verdict of time point 0 after each prefix: `?` until decided, then final. rvmon's
//! `?` is *informative* detection (as paper 15's procedure and paper 12's progression): a prefix
//! that is bad only because of an unsatisfiable combination (note C pitfall P1, vector V6) stays
//! `?`. Paper 15 writes strict operators; with strictly increasing timestamps a strict `F_I`/`G_I`
//! is MonPoly's non-strict operator with a left-open interval, which is how the vectors are
//! written. Timestamps and constants are doubled where the paper uses 5.5.

use rvmon_core::{TimePoint, Truth, Verdict};
use rvmon_logic::parse_formula;
use rvmon_mtl::{Engine, Program};
use rvmon_trace::{MonpolyLogReader, TraceReader};

/// Verdict of time point `tp` after each prefix of `log`, as `?`, `T` or `F`.
fn verdicts_of(formula: &str, log: &str, tp: u64) -> String {
    verdicts_with(Engine::new, formula, log, tp)
}

/// As [`verdicts_of`], with the engine `rvmon check` runs (LTL3's exact verdicts where the
/// formula has an unbounded future operator).
fn three_valued_of(formula: &str, log: &str, tp: u64) -> String {
    verdicts_with(Engine::three_valued, formula, log, tp)
}

fn verdicts_with(engine: fn(Program) -> Engine, formula: &str, log: &str, tp: u64) -> String {
    let f = parse_formula("spec", formula).unwrap();
    let mut reader = MonpolyLogReader::new(log.as_bytes(), "log", None);
    let program = Program::compile(&f, reader.interner_mut(), "spec", formula).unwrap();
    let mut engine = engine(program);
    let mut point = TimePoint::default();
    let mut decided: Option<Truth> = None;
    let mut out = String::new();
    let mut verdicts: Vec<Verdict> = Vec::new();
    while reader.next_time_point(&mut point).unwrap() {
        verdicts.clear();
        rvmon_mtl::Step::step(&mut engine, &point, &mut verdicts).unwrap();
        if let Some(v) = verdicts.iter().find(|v| v.tp == tp) {
            assert!(decided.is_none(), "time point {tp} decided twice");
            decided = Some(v.value);
        }
        out.push(match decided {
            None => '?',
            Some(Truth::True) => 'T',
            Some(Truth::False) => 'F',
            Some(Truth::Unknown) => unreachable!("unknown is only reported at the end"),
        });
    }
    out
}

#[test]
fn paper12_example2_until_progression() {
    // V2: a U b on a; b — ? then ⊤.
    assert_eq!(verdicts_of("a() UNTIL b()", "@0 a()\n@1 b()\n", 0), "?T");
    assert_eq!(
        verdicts_of("a() UNTIL b()", "@0 a()\n@1 a()\n@2\n", 0),
        "??F"
    );
    assert_eq!(verdicts_of("a() UNTIL b()", "@0 a() b()\n", 0), "T");
    assert_eq!(verdicts_of("a() UNTIL b()", "@0\n", 0), "F");
}

#[test]
fn paper12_fig3_formula() {
    // V3: G(X(a1 ∧ c1) ∨ (b1 ∧ b2)) on {b1,b2}; {a1,c1}; {} — ?, ?, ⊥.
    let f = "ALWAYS ((NEXT (a1() AND c1())) OR (b1() AND b2()))";
    assert_eq!(verdicts_of(f, "@0 b1() b2()\n@1 a1() c1()\n@2\n", 0), "??F");
}

#[test]
fn paper12_reassociation_decides_at_first_letter() {
    let f = "(a1() AND a2()) AND ((a3() AND b1()) AND b2())";
    assert_eq!(verdicts_of(f, "@0 a1() a2() a3() b1() b2()\n", 0), "T");
    assert_eq!(verdicts_of(f, "@0 a1() a2() a3() b1()\n", 0), "F");
}

#[test]
fn paper12_verdicts_are_final() {
    // P3: once decided, a verdict never changes.
    assert_eq!(verdicts_of("a() UNTIL b()", "@0 b()\n@1\n@2\n", 0), "TTT");
    assert_eq!(
        verdicts_of("ALWAYS(0,*) (NOT p())", "@0\n@1 p()\n@2\n", 0),
        "?FF"
    );
}

const PHI: &str =
    "(EVENTUALLY(0,*) ALWAYS(0,*) NOT p1()) AND (ALWAYS(0,*) (p1() IMPLIES EVENTUALLY(0,6) p1()))";
const PHI_PRIME: &str =
    "(ALWAYS(0,*) NOT p1()) AND (ALWAYS(0,*) (p1() IMPLIES EVENTUALLY(0,6) p1()))";
const RHO: &str = "@0 p1()\n@4 p1()\n@11\n";
const RHO_PRIME: &str = "@0 p1()\n@4 p1()\n@8 p1()\n";

#[test]
fn paper15_example1_informative_prefixes() {
    // V5: the paper's procedure reports ⊥ at event 3 on ρ (the window (4,10) closes at 11).
    assert_eq!(verdicts_of(PHI, RHO, 0), "??F");
    // V6: ρ' is bad from event 2 but never informatively so: rvmon, like the paper, stays `?`.
    assert_eq!(verdicts_of(PHI, RHO_PRIME, 0), "???");
}

#[test]
fn paper15_example2_equivalent_formula_is_decided_early() {
    // V7, V8: φ' (equivalent to φ) has only informative bad prefixes: ⊥ from event 2.
    assert_eq!(verdicts_of(PHI_PRIME, RHO, 0), "?FF");
    assert_eq!(verdicts_of(PHI_PRIME, RHO_PRIME, 0), "?FF");
}

#[test]
fn paper15_weak_satisfaction_of_bounded_eventually() {
    // V9 with timestamps ×2: F_(0,10) p.
    let f = "EVENTUALLY(0,10) p()";
    assert_eq!(verdicts_of(f, "@0\n@9\n@10\n", 0), "??F");
    assert_eq!(
        verdicts_of(f, "@0 p()\n@9\n@10\n", 0),
        "??F",
        "the p at distance 0 is outside (0,10)"
    );
    assert_eq!(verdicts_of(f, "@0\n@6 p()\n", 0), "?T");
    assert_eq!(
        verdicts_of(f, "@0\n@10 p()\n", 0),
        "?F",
        "10 is outside (0,10)"
    );
}

#[test]
fn paper15_changegear_separation_agrees_with_original() {
    // V10: the separated form of the ChangeGear property (rule R3) gives the same verdict at the
    // cg time point after every prefix.
    let original = "cg() IMPLIES EVENTUALLY(0,30) (fuel() AND ONCE(0,*) lub())";
    let separated =
        "cg() IMPLIES ((EVENTUALLY(0,30) (fuel() AND ONCE(0,30) lub())) OR ((EVENTUALLY(0,30) fuel()) AND ONCE(0,*) lub()))";
    let cases = [
        ("@0\n@1 lub()\n@40 cg()\n@50 fuel()\n@80\n", 2, "???TT"),
        ("@0\n@40 cg()\n@50 fuel()\n@80\n", 1, "???F"),
        ("@0\n@40 cg() lub()\n@50 fuel()\n", 1, "??T"),
        ("@0 lub()\n@20 cg()\n@30 fuel()\n", 1, "??T"),
        ("@0\n@40 cg()\n@45 lub()\n@50 fuel()\n", 1, "???T"),
    ];
    for (log, cg_tp, expected) in cases {
        assert_eq!(
            verdicts_of(original, log, cg_tp),
            expected,
            "original on {log:?}"
        );
        assert_eq!(
            verdicts_of(separated, log, cg_tp),
            expected,
            "separated on {log:?}"
        );
    }
}

#[test]
fn ltl3_decides_what_progression_alone_cannot() {
    // Note C pitfall P1: EVENTUALLY p AND ALWAYS NOT p can never hold.
    let f = "EVENTUALLY p() AND ALWAYS NOT p()";
    assert_eq!(three_valued_of(f, "@0\n@1\n", 0), "FF");
    assert_eq!(three_valued_of(f, "@0\n@1\n", 1), "?F");
    // G F p AND F G NOT p: unsatisfiable, whatever the trace.
    let f = "ALWAYS EVENTUALLY p() AND EVENTUALLY ALWAYS NOT p()";
    assert_eq!(three_valued_of(f, "@0 p()\n", 0), "F");
    // Valid: satisfied at once.
    assert_eq!(
        three_valued_of("EVENTUALLY p() OR ALWAYS NOT p()", "@0\n", 0),
        "T"
    );
    // V6 of paper 15: from @4 p1 on, every continuation needs infinitely many p1 (each within
    // 6 of the last), which F G NOT p1 forbids: bad from event 2, where progression alone
    // (the eager engine above) never decides on ρ'. (`ALWAYS(0,*)` skips time point 0's own
    // timestamp, so @0 p1 alone settles nothing.)
    assert_eq!(three_valued_of(PHI, RHO_PRIME, 0), "?FF");
    assert_eq!(three_valued_of(PHI, RHO, 0), "?FF");
}

#[test]
fn ltl3_the_issue_examples() {
    // Time point 1 is violated whatever comes next: bad() holds there.
    let f = "(request() IMPLIES EVENTUALLY grant()) AND NOT bad()";
    let log = "@5 request()\n@9 bad()\n@10 heartbeat()\n";
    assert_eq!(three_valued_of(f, log, 1), "?FF");
    assert_eq!(three_valued_of(f, log, 2), "??T");
    assert_eq!(three_valued_of(f, log, 0), "???");
    // A request waits for its grant; the others are satisfied at once.
    let f = "request() IMPLIES EVENTUALLY grant()";
    let log = "@0 request()\n@1\n@2 grant()\n";
    assert_eq!(three_valued_of(f, log, 0), "??T");
    assert_eq!(three_valued_of(f, log, 1), "?TT");
}
