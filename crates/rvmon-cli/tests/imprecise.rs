//! Imprecise timestamps (issue 35, paper 16, note C §5) through the front door: the note's
//! worked examples, the engine (the continuous semantics compiled to cells) against a
//! reference written from the semantics, and the guarantee: a `violation` holds for every
//! shift of the timestamps within δ, checked by brute force.

use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use rvmon::cascade::{imprecise_monitor, FormulaSpec};
use rvmon::run::{run, RunOptions};
use rvmon_core::{Collect, Kind, StringCollection};
use rvmon_trace::monpoly::MonpolyLogReader;
use rvmon_trace::TraceReader;

/// Each observed time point's outcome: `Some(true)` satisfied, `Some(false)` violated (the
/// rewritten formula fails there), `None` undecided at the end; and the guarantees printed.
fn monitor(formula: &str, log: &str, delta: &str) -> Vec<(i64, Option<bool>, String)> {
    decisions(formula, log, delta, None)
        .unwrap()
        .into_iter()
        .map(|(ts, r, mut g)| (ts, r, g.remove(0)))
        .collect()
}

/// A decision: its time, outcome, and guarantee followed by its values.
type Outcome = (i64, Option<bool>, Vec<String>);

/// [`monitor`] for any formula (with a signature if first-order): each decision's time,
/// outcome, and its guarantee followed by its values; `None` if the formula is refused.
fn decisions(formula: &str, log: &str, delta: &str, sig: Option<&str>) -> Option<Vec<Outcome>> {
    let sig = sig.map(|s| rvmon_core::Signature::parse("s.sig", s).unwrap());
    let spec = FormulaSpec::parse("f.mtl", formula.to_string(), None)
        .and_then(|s| s.with_signature(sig))
        .ok()?;
    let mut reader = MonpolyLogReader::new(std::io::BufReader::new(log.as_bytes()), "log", None);
    let mut m = imprecise_monitor(&spec, delta, reader.interner_mut(), true).ok()?;
    let mut sink = Collect::default();
    let options = RunOptions {
        online: false,
        collect_strings: StringCollection::DEFAULT_FLOOR,
        progress: false,
        fallback: None,
    };
    run(
        &mut m,
        &mut reader as &mut dyn TraceReader,
        &mut sink,
        options,
        &mut Vec::new(),
    )
    .unwrap();
    Some(
        sink.decisions
            .into_iter()
            .map(|(_, ts, kind, mut values)| {
                if values.is_empty() {
                    values.push(String::new());
                }
                let r = match kind {
                    Kind::Satisfied => Some(true),
                    Kind::Violation => Some(false),
                    Kind::Inconclusive if values[0] == "undetermined" => Some(false),
                    _ => None,
                };
                (ts, r, values)
            })
            .collect(),
    )
}

fn at(out: &[(i64, Option<bool>, String)], ts: i64) -> (Option<bool>, String) {
    let (_, r, g) = out
        .iter()
        .find(|o| o.0 == ts)
        .unwrap_or_else(|| panic!("{ts}: {out:?}"));
    (*r, g.clone())
}

/// Note C5.3, example 1: a timeline is possible when each event can be moved to a distinct
/// time within ±δ of its timestamp; the real order may differ from the observed one.
#[test]
fn example_1_possible_timelines() {
    let observed = [("p", 1.0), ("q", 1.0), ("r", 2.0), ("s", 5.0)];
    let possible = |timeline: &[(&str, f64)]| {
        timeline.len() == observed.len()
            && observed
                .iter()
                .zip(timeline)
                .all(|((a, t), (b, u))| a == b && (t - u).abs() <= 1.0)
            && (0..timeline.len()).all(|i| (0..i).all(|j| timeline[i].1 != timeline[j].1))
    };
    assert!(possible(&[("p", 1.3), ("q", 0.6), ("r", 1.2), ("s", 5.0)]));
    assert!(!possible(&[("p", 2.5), ("q", 0.6), ("r", 1.2), ("s", 5.0)]));
    assert!(
        !possible(&[("p", 1.0), ("q", 1.0), ("r", 2.0), ("s", 5.0)]),
        "injective"
    );
}

/// Example 3: φ = ¬p → ◆[0,2] q. Its negation's NNF is (∀): a violation holds for every
/// timing. φ's is (∃): a satisfied verdict only for some.
#[test]
fn example_3_violations_hold_for_every_timing() {
    let phi = "(NOT p()) IMPLIES ONCE[0,2] q()";
    let log = "@1 q()\n@5 r()\n@8 p()\n@12 r()\n@20 r()\n";
    let out = monitor(phi, log, "1");
    // At 5, q was last at 1 (at most 2 + 1 from the truth), p is 3 away: violated for
    // every timing.
    assert_eq!(at(&out, 5), (Some(false), "every".into()));
    assert_eq!(at(&out, 1), (Some(true), String::new()));
    assert_eq!(at(&out, 12), (Some(false), "every".into()));
    // At 8, p (within ±1) may be at 8: satisfied, for some timing (nothing printed).
    assert_eq!(at(&out, 8).0, Some(true));
}

/// A formula whose negation is only (∃): `NOT p()` at p's observed time fails, and the
/// true time of p can be exactly there: a possible violation.
#[test]
fn possible_violations() {
    let out = monitor("NOT p()", "@3 p()\n@5 q()\n@9 q()\n", "1");
    assert_eq!(at(&out, 3), (Some(false), "some".into()));
    assert_eq!(at(&out, 5).0, Some(true));
    // Without an error, the one timeline: a violation.
    let out = monitor("NOT p()", "@3 p()\n@5 q()\n@9 q()\n", "0");
    assert_eq!(at(&out, 3), (Some(false), "every".into()));
}

/// Example 3's counterexample: (p ∧ ◆[1,1] q) ∧ (p ∧ ◇[1,1] q) with δ = 2 on
/// ({p},2)({q},3)({r},10): the rewritten formula holds at 2, yet no timeline satisfies it
/// (the one q would be at 1 and at 3). The labeller gives no label: undetermined, not a
/// wrong guarantee.
#[test]
fn two_existential_conjuncts_are_undetermined() {
    let f = "NOT ((p() AND ONCE[1,1] q()) AND (p() AND EVENTUALLY[1,1] q()))";
    let out = monitor(f, "@2 p()\n@3 q()\n@10 r()\n@20 r()\n", "2");
    assert_eq!(at(&out, 2), (Some(false), "undetermined".into()));
}

/// Decimal errors are scaled: ±0.5 around integer timestamps.
#[test]
fn decimal_errors() {
    let f = "p() IMPLIES ONCE[1,1] q()";
    let log = "@0 q()\n@1 p()\n@3 q()\n@5 p()\n@9 r()\n";
    let out = monitor(f, log, "0.5");
    assert_eq!(at(&out, 1).0, Some(true));
    // q at 3 ± 0.5: at 4 there is no q whatever the timing, and p holds at 5 if its true
    // time is 5: violated for that timing, a possible violation (the negation p ∧ ¬◆q is
    // (∃) ∧ (∀)).
    assert_eq!(at(&out, 5), (Some(false), "some".into()));
}

// ---------------------------------------------------------------------------------------
// The reference: the continuous semantics over point events, from the definitions.

#[derive(Clone, Debug)]
enum F {
    True,
    Atom(usize),
    Not(Box<F>),
    And(Box<F>, Box<F>),
    Or(Box<F>, Box<F>),
    /// (past, lo, lo open, hi (None: unbounded), hi open, lhs (None: TRUE), rhs)
    Temp(bool, u64, bool, Option<u64>, bool, Option<Box<F>>, Box<F>),
}

const ATOMS: [&str; 2] = ["p", "q"];

/// MonPoly's syntax, with the interval bounds multiplied by `scale`.
fn text(f: &F, scale: u64) -> String {
    match f {
        F::True => "TRUE".into(),
        F::Atom(a) => format!("{}()", ATOMS[*a]),
        F::Not(a) => format!("(NOT {})", text(a, scale)),
        F::And(a, b) => format!("({} AND {})", text(a, scale), text(b, scale)),
        F::Or(a, b) => format!("({} OR {})", text(a, scale), text(b, scale)),
        F::Temp(past, lo, lo_open, hi, hi_open, l, r) => {
            let open = if *lo_open { '(' } else { '[' };
            let close = if *hi_open || hi.is_none() { ')' } else { ']' };
            let hi = hi.map_or("*".to_string(), |h| (h * scale).to_string());
            let w = format!("{open}{},{hi}{close}", lo * scale);
            let rhs = text(r, scale);
            match (past, l) {
                (true, None) => format!("(ONCE{w} {rhs})"),
                (false, None) => format!("(EVENTUALLY{w} {rhs})"),
                (true, Some(l)) => format!("({} SINCE{w} {rhs})", text(l, scale)),
                (false, Some(l)) => format!("({} UNTIL{w} {rhs})", text(l, scale)),
            }
        }
    }
}

/// φ at time `k/4` on a timeline of point events at integer times (`events[n]`: the atoms at
/// time n). Truth is constant on each point and each open unit interval (all changes are at
/// integers), so a time is represented by its cell's point or midpoint, and a witness
/// `t' ∈ t - I` (or `t + I`) is searched on the quarter grid, where each piece of an open
/// interval that `t - I` meets has a point.
fn holds(f: &F, k: i64, events: &[Vec<usize>]) -> bool {
    let rep = |k: i64| if k % 4 == 0 { k } else { k - k % 4 + 2 };
    match f {
        F::True => true,
        F::Atom(a) => k % 4 == 0 && events.get((k / 4) as usize).is_some_and(|e| e.contains(a)),
        F::Not(a) => !holds(a, k, events),
        F::And(a, b) => holds(a, k, events) && holds(b, k, events),
        F::Or(a, b) => holds(a, k, events) || holds(b, k, events),
        F::Temp(past, lo, lo_open, hi, hi_open, l, r) => {
            let inside = |d: i64| {
                let (lo, d) = (*lo as i64 * 4, d);
                (if *lo_open { d > lo } else { d >= lo })
                    && hi.is_none_or(|h| {
                        let h = h as i64 * 4;
                        if *hi_open {
                            d < h
                        } else {
                            d <= h
                        }
                    })
            };
            let end = 4 * events.len() as i64 + 64;
            let candidates: Vec<i64> = if *past {
                (0..=k).rev().collect()
            } else {
                (k..end).collect()
            };
            candidates.into_iter().any(|w| {
                let d = (k - w).abs();
                if !inside(d) || !holds(r, rep(w), events) {
                    return false;
                }
                // The left operand on (w, k] (past) or [k, w) (future), open pieces included.
                let Some(l) = l else { return true };
                let (from, to) = if *past { (w, k) } else { (k, w) };
                // (The witness's own instant is out of the range if it is a point; inside an
                // open interval, the rest of that interval is in, both ways.)
                (from..=to).all(|j| (j == w && w % 4 == 0) || holds(l, rep(j), events))
            })
        }
    }
}

fn gen_formula(depth: u32) -> BoxedStrategy<F> {
    let leaf = prop_oneof![Just(F::True), (0..2usize).prop_map(F::Atom)];
    if depth == 0 {
        return leaf.boxed();
    }
    let sub = move || gen_formula(depth - 1);
    let window = (
        0u64..3,
        any::<bool>(),
        0u64..3,
        any::<bool>(),
        any::<bool>(),
    );
    prop_oneof![
        2 => leaf,
        1 => sub().prop_map(|a| F::Not(Box::new(a))),
        1 => (sub(), sub()).prop_map(|(a, b)| F::And(Box::new(a), Box::new(b))),
        1 => (sub(), sub()).prop_map(|(a, b)| F::Or(Box::new(a), Box::new(b))),
        3 => (any::<bool>(), window, prop::option::of(sub()), sub()).prop_map(
            |(past, (lo, lo_open, len, hi_open, unbounded), l, r)| {
                // (Future operators are bounded; an interval is never empty.)
                // (MonPoly's parser, for integer time, refuses `(a,a+1)`.)
                let hi = (!(past && unbounded))
                    .then_some(lo + len + u64::from(lo_open) + u64::from(hi_open));
                F::Temp(past, lo, lo_open, hi, hi_open, l.map(Box::new), Box::new(r))
            }
        ),
    ]
    .boxed()
}

/// A timeline of 2 to 7 time units, an event set at some integer times.
fn gen_events() -> impl Strategy<Value = Vec<Vec<usize>>> {
    prop::collection::vec(prop::collection::vec(0..2usize, 0..3), 2..8)
}

fn log_of(events: &[Vec<usize>], scale: i64, extra: Option<i64>) -> String {
    let mut points: Vec<(i64, String)> = events
        .iter()
        .enumerate()
        .filter(|(_, e)| !e.is_empty())
        .map(|(n, e)| {
            let names: Vec<String> = e.iter().map(|a| format!("{}()", ATOMS[*a])).collect();
            (n as i64 * scale, names.join(" "))
        })
        .collect();
    points.push((events.len() as i64 * scale + 40 * scale, String::new()));
    if let Some(t) = extra {
        points.push((t, String::new()));
    }
    points.sort();
    points.iter().map(|(t, e)| format!("@{t} {e}\n")).collect()
}

fn runner(cases: u32) -> TestRunner {
    let config = Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    };
    TestRunner::new_with_rng(config, TestRng::from_seed(RngAlgorithm::ChaCha, &[16; 32]))
}

/// Without an error, the engine (the formula compiled to cells, monitored pointwise) gives
/// the continuous semantics at every observed time point it decides.
#[test]
fn without_an_error_the_engine_is_the_continuous_semantics() {
    let (compared, violated) = (std::cell::Cell::new(0), std::cell::Cell::new(0));
    runner(400)
        .run(&(gen_formula(3), gen_events()), |(f, events)| {
            let formula = text(&f, 1);
            let log = log_of(&events, 1, None);
            for (ts, r, _) in monitor(&formula, &log, "0") {
                let Some(r) = r else { continue };
                if ts >= events.len() as i64 {
                    continue;
                }
                prop_assert_eq!(
                    r,
                    holds(&f, ts * 4, &events),
                    "{} at {} on {}",
                    formula,
                    ts,
                    log
                );
                compared.set(compared.get() + 1);
                violated.set(violated.get() + usize::from(!r));
            }
            Ok(())
        })
        .unwrap();
    println!(
        "continuous semantics: {} time points compared, {} violated",
        compared.get(),
        violated.get()
    );
    assert!(violated.get() > 50 && compared.get() > violated.get() + 50);
}

/// The guarantee (Theorem 2): where the monitor says `violation` with δ = 1, the formula is
/// violated at that time on every timeline the observations allow, brute force: each time
/// point moved by -1, -1/2, 0, 1/2 or 1, to distinct times not before 0, and the formula
/// evaluated there without an error (time counted in halves, the formula's bounds doubled).
#[test]
fn a_violation_holds_for_every_timing() {
    let (checked, timelines) = (std::cell::Cell::new(0), std::cell::Cell::new(0));
    let events = prop::collection::vec(prop::collection::vec(0..2usize, 1..3), 2..5);
    runner(150)
        .run(&(gen_formula(2), events), |(f, events)| {
            let formula = text(&f, 1);
            let log = log_of(&events, 1, None);
            let verdicts = monitor(&formula, &log, "1");
            let doubled = text(&f, 2);
            for (ts, _, guarantee) in verdicts.iter().filter(|v| v.2 == "every") {
                checked.set(checked.get() + 1);
                let n = events.len();
                for shifts in 0..5usize.pow(n as u32) {
                    let times: Vec<i64> = (0..n)
                        .map(|i| 2 * i as i64 + (shifts / 5usize.pow(i as u32) % 5) as i64 - 2)
                        .collect();
                    let distinct = (0..n).all(|i| (0..i).all(|j| times[i] != times[j]));
                    if !distinct || times.iter().any(|t| *t < 0) {
                        continue;
                    }
                    timelines.set(timelines.get() + 1);
                    let mut points: Vec<(i64, String)> = (0..n)
                        .filter(|i| !events[*i].is_empty())
                        .map(|i| {
                            let names: Vec<String> = events[i]
                                .iter()
                                .map(|a| format!("{}()", ATOMS[*a]))
                                .collect();
                            (times[i], names.join(" "))
                        })
                        .collect();
                    points.push((2 * ts, String::new()));
                    points.push((2 * (n as i64 + 40), String::new()));
                    points.sort();
                    let shifted: String =
                        points.iter().map(|(t, e)| format!("@{t} {e}\n")).collect();
                    let r = at(&monitor(&doubled, &shifted, "0"), 2 * ts).0;
                    prop_assert_eq!(
                        r,
                        Some(false),
                        "{} is a violation at {} ({}) on {} but not on {}",
                        formula,
                        ts,
                        guarantee,
                        log,
                        shifted
                    );
                }
            }
            Ok(())
        })
        .unwrap();
    println!(
        "guarantee: {} violations checked on {} timelines",
        checked.get(),
        timelines.get()
    );
    assert!(checked.get() > 20);
}

/// The same on sparse timelines (25 empty time units between events, more than any of the
/// generated formulas' horizons): the engine skips the middle of each empty stretch for
/// formulas with a bounded past, and must not change a verdict by it.
#[test]
fn long_empty_stretches_are_skipped_without_changing_a_verdict() {
    let compared = std::cell::Cell::new(0);
    runner(120)
        .run(&(gen_formula(3), gen_events()), |(f, events)| {
            let sparse: Vec<Vec<usize>> = events
                .iter()
                .flat_map(|e| std::iter::once(e.clone()).chain(std::iter::repeat_n(Vec::new(), 25)))
                .collect();
            let formula = text(&f, 1);
            let log = log_of(&sparse, 1, None);
            for (ts, r, _) in monitor(&formula, &log, "0") {
                let Some(r) = r else { continue };
                if ts >= sparse.len() as i64 {
                    continue;
                }
                prop_assert_eq!(
                    r,
                    holds(&f, ts * 4, &sparse),
                    "{} at {} on {}",
                    formula,
                    ts,
                    log
                );
                compared.set(compared.get() + 1);
            }
            Ok(())
        })
        .unwrap();
    assert!(compared.get() > 100);
}

/// First-order formulas with one free variable: the violations for each value are those of
/// the propositional formula on the trace of that value's events alone (every atom reads the
/// same variable), guarantees included.
#[test]
fn first_order_violations_are_the_propositional_ones_per_value() {
    let (compared, refused) = (std::cell::Cell::new(0), std::cell::Cell::new(0));
    let events = prop::collection::vec(prop::collection::vec((0..2usize, 1..3i64), 0..3), 2..7);
    runner(200)
        .run(&(gen_formula(2), events), |(f, events)| {
            let propositional = text(&f, 1);
            let first_order = propositional.replace("p()", "p(x)").replace("q()", "q(x)");
            if !first_order.contains("(x)") {
                return Ok(());
            }
            let log = |keep: Option<i64>| -> String {
                let mut lines: Vec<String> = events
                    .iter()
                    .enumerate()
                    .map(|(t, e)| {
                        let names: Vec<String> = e
                            .iter()
                            .filter(|(_, v)| keep.is_none_or(|k| k == *v))
                            .map(|(a, v)| match keep {
                                Some(_) => format!("{}()", ATOMS[*a]),
                                None => format!("{}({v})", ATOMS[*a]),
                            })
                            .collect();
                        format!("@{t} {}", names.join(" "))
                    })
                    .collect();
                lines.push(format!("@{}", events.len() + 40));
                lines.join("\n") + "\n"
            };
            let sig = "p(int)\nq(int)\n";
            let Some(got) = decisions(&first_order, &log(None), "1", Some(sig)) else {
                // (Not in the first-order engine's monitorable fragment.)
                refused.set(refused.get() + 1);
                return Ok(());
            };
            for value in 1..3i64 {
                if !events.iter().flatten().any(|(_, v)| *v == value) {
                    continue;
                }
                let expected: Vec<(i64, String)> = monitor(&propositional, &log(Some(value)), "1")
                    .into_iter()
                    .filter(|(_, r, _)| *r == Some(false))
                    .map(|(ts, _, g)| (ts, g))
                    .collect();
                let found: Vec<(i64, String)> = got
                    .iter()
                    .filter(|(_, r, v)| *r == Some(false) && v.get(1) == Some(&value.to_string()))
                    .map(|(ts, _, v)| (*ts, v[0].clone()))
                    .collect();
                prop_assert_eq!(
                    &found,
                    &expected,
                    "{} for x = {} on {}",
                    first_order,
                    value,
                    log(None)
                );
                compared.set(compared.get() + expected.len());
            }
            Ok(())
        })
        .unwrap();
    println!(
        "first order: {} violations compared, {} formulas refused",
        compared.get(),
        refused.get()
    );
    assert!(compared.get() > 30);
}
