//! Paper 04's slicing framework: Example 8's slices, the filtering counterexample, and on
//! random formulas and logs the sliced run reporting exactly the unsliced run's violations
//! (Thm. 4), for any number of slices, every slicing variable, and with empty time points
//! dropped wherever the analysis allows it.

use proptest::prelude::*;
use rvmon_core::{Interner, TimePoint, Value};
use rvmon_fo::{compile, Answer, FoEngine};
use rvmon_logic::monpoly::analyzed_formula;
use rvmon_logic::reference::{evaluate_fo, time_point, RefFoTimePoint};
use rvmon_logic::{free_vars, parse_formula, Formula};
use rvmon_slice::{empty_points_removable, slicing_variables, DataSlicer, SlicedMonitor};
use rvmon_trace::{MonpolyLogReader, Signature, TraceReader};

/// The monitored form of a policy: its violations are the satisfying assignments of the
/// negation, as `rvmon check` and `rvmon monpoly -negate` evaluate it.
fn violations_formula(text: &str) -> (Formula, Vec<String>) {
    let f = parse_formula("f", text).unwrap();
    let vars = free_vars(&f);
    let negated = Formula::new(rvmon_logic::FormulaKind::Not(Box::new(f.clone())), f.span);
    (analyzed_formula(&negated), vars)
}

fn read_log(text: &str, sig: &Signature, interner: &mut Interner) -> Vec<TimePoint> {
    let mut r = MonpolyLogReader::new(text.as_bytes(), "log", Some(sig.clone()));
    let mut out = Vec::new();
    let mut tp = TimePoint::default();
    while r.next_time_point(&mut tp).unwrap() {
        out.push(tp.clone());
    }
    // Re-intern the reader's strings into the shared interner.
    let names: Vec<String> = (0..r.interner().len())
        .map(|i| r.interner().resolve(rvmon_core::Sym(i as u32)).to_string())
        .collect();
    for tp in &mut out {
        let mut copy = TimePoint {
            index: tp.index,
            ts: tp.ts,
            ..Default::default()
        };
        for e in &tp.events {
            let args: Vec<Value> = tp
                .args_of(e)
                .iter()
                .map(|v| match v {
                    Value::Str(s) => Value::Str(interner.intern(&names[s.0 as usize])),
                    v => *v,
                })
                .collect();
            copy.push_event(interner.intern(&names[e.name.0 as usize]), &args);
        }
        *tp = copy;
    }
    out
}

/// `(tp, sorted tuples as text)` of every non-empty answer.
fn texts(answers: &[Answer], interner: &Interner) -> Vec<(u64, Vec<String>)> {
    answers
        .iter()
        .filter(|a| !a.rel.is_empty())
        .map(|a| {
            let width = a.rel.iter().next().map_or(0, |t| t.len());
            let order: Vec<usize> = (0..width).collect();
            (a.tp, rvmon_fo::rel::sorted_texts(&a.rel, &order, interner))
        })
        .collect()
}

fn unsliced(
    f: &Formula,
    vars: &[String],
    sig: &Signature,
    log: &[TimePoint],
    interner: &mut Interner,
) -> Vec<Answer> {
    let plan = compile(f, vars, sig, interner, "f", "").unwrap();
    let has_future = plan.has_future();
    let mut engine = FoEngine::new(plan);
    let mut out = Vec::new();
    for tp in log {
        engine.step(tp, interner, &mut out).unwrap();
    }
    if has_future {
        engine.close(interner, &mut out).unwrap();
    }
    out
}

fn sliced(
    f: &Formula,
    vars: &[String],
    sig: &Signature,
    log: &[TimePoint],
    interner: &mut Interner,
    slicer: impl FnOnce(&[usize], &mut Interner) -> DataSlicer,
    drop_empty: bool,
) -> Vec<Answer> {
    let plan = compile(f, vars, sig, interner, "f", "").unwrap();
    let slicer = slicer(&plan.output_order, interner);
    let mut m = SlicedMonitor::new(&plan, slicer, drop_empty);
    let mut out = Vec::new();
    for tp in log {
        m.step(tp, interner, &mut out).unwrap();
    }
    m.close(interner, &mut out).unwrap();
    out
}

const EXAMPLE_8_SIG: &str = "ssh_login(c:int,s:int) notify(r:int,s:int)";
const EXAMPLE_8: &str = "ssh_login(c,s) IMPLIES EVENTUALLY[0,6) notify(0,s)";
const EXAMPLE_8_LOG: &str = "@0 ssh_login(1,1) ssh_login(1,2) ssh_login(3,3) ssh_login(4,4) notify(0,1) notify(0,2) notify(0,3) notify(0,4)
@1 notify(0,8)
@2 ssh_login(1,5) ssh_login(3,6) ssh_login(4,7) ssh_login(2,8)
@3 notify(7,7)
@7 notify(0,5)
@8 notify(0,6)
@20 notify(0,9)
";

/// Paper 04, Example 8 (with the note's extension of the log): the four slices' contents,
/// time point by time point, and each slicing reporting the log's violations.
#[test]
fn example_8_slices() {
    let sig = Signature::parse("sig", EXAMPLE_8_SIG).unwrap();
    let mut interner = Interner::new();
    let log = read_log(EXAMPLE_8_LOG, &sig, &mut interner);
    let (f, vars) = violations_formula(EXAMPLE_8);
    let s12 = [vec![Value::Int(1), Value::Int(2)]];
    // Slice contents: (variable, slice) -> per time point, the events as `name(a,b)`.
    let contents = |var: &str, k: usize, interner: &mut Interner| -> Vec<String> {
        let slicer = DataSlicer::new(&f, &vars, &[0, 1], var, 1, interner)
            .unwrap()
            .with_sets(&s12);
        log.iter()
            .map(|tp| {
                let mut evs = Vec::new();
                for e in &tp.events {
                    let args = tp.args_of(e);
                    let to = slicer.route(e.name, args, interner);
                    if to.includes(k) {
                        let a: Vec<String> = args
                            .iter()
                            .map(|v| format!("{v:?}").replace("Int(", "").replace(')', ""))
                            .collect();
                        evs.push(format!("{}({})", interner.resolve(e.name), a.join(",")));
                    }
                }
                format!("@{} {}", tp.ts, evs.join(" "))
            })
            .collect()
    };
    let all_notify = "notify(0,1) notify(0,2) notify(0,3) notify(0,4)";
    assert_eq!(
        contents("c", 0, &mut interner),
        [
            format!("@0 ssh_login(1,1) ssh_login(1,2) {all_notify}"),
            "@1 notify(0,8)".into(),
            "@2 ssh_login(1,5) ssh_login(2,8)".into(),
            "@3 ".into(),
            "@7 notify(0,5)".into(),
            "@8 notify(0,6)".into(),
            "@20 notify(0,9)".into(),
        ]
    );
    assert_eq!(
        contents("c", 1, &mut interner)[..3],
        [
            format!("@0 ssh_login(3,3) ssh_login(4,4) {all_notify}"),
            "@1 notify(0,8)".into(),
            "@2 ssh_login(3,6) ssh_login(4,7)".into(),
        ]
    );
    assert_eq!(
        contents("s", 0, &mut interner),
        [
            "@0 ssh_login(1,1) ssh_login(1,2) notify(0,1) notify(0,2)",
            "@1 ",
            "@2 ",
            "@3 ",
            "@7 ",
            "@8 ",
            "@20 ",
        ]
    );
    assert_eq!(
        contents("s", 1, &mut interner),
        [
            "@0 ssh_login(3,3) ssh_login(4,4) notify(0,3) notify(0,4)",
            "@1 notify(0,8)",
            "@2 ssh_login(1,5) ssh_login(3,6) ssh_login(4,7) ssh_login(2,8)",
            "@3 ",
            "@7 notify(0,5)",
            "@8 notify(0,6)",
            "@20 notify(0,9)",
        ]
    );
    // notify(7,7) fails D3 and is in no slice, for either variable.
    let expected = vec![(2, vec!["(2,8)".to_string(), "(3,6)".into(), "(4,7)".into()])];
    assert_eq!(
        texts(&unsliced(&f, &vars, &sig, &log, &mut interner), &interner),
        expected
    );
    for var in ["c", "s"] {
        for drop_empty in [false, true] {
            let got = sliced(
                &f,
                &vars,
                &sig,
                &log,
                &mut interner,
                |order, i| {
                    DataSlicer::new(&f, &vars, order, var, 1, i)
                        .unwrap()
                        .with_sets(&s12)
                },
                drop_empty,
            );
            assert_eq!(
                texts(&got, &interner),
                expected,
                "by {var}, drop_empty {drop_empty}"
            );
        }
    }
    assert!(empty_points_removable(&f).is_ok());
}

/// Paper 04's counterexample to filtering: `p(x) → ◆_[0,1] ¬q(x)`. An empty time point
/// satisfies `¬q(x)`; dropping it reports a violation the log does not have. The analysis
/// refuses to drop empty time points for it.
#[test]
fn filtering_counterexample() {
    let (f, _) = violations_formula("P(x) IMPLIES ONCE[0,1] NOT Q(x)");
    let why = empty_points_removable(&f).unwrap_err();
    assert!(why.contains("NOT"), "{why}");
    let body = parse_formula("f", "P(x) AND NOT ONCE[0,1] NOT Q(x)").unwrap();
    let mut interner = Interner::new();
    let q = |v| ("Q".to_string(), vec![Value::Int(v)]);
    let p = |v| ("P".to_string(), vec![Value::Int(v)]);
    let full: Vec<RefFoTimePoint> = vec![(0, vec![q(1)]), (1, vec![]), (1, vec![p(1), q(1)])];
    let filtered: Vec<RefFoTimePoint> = vec![full[0].clone(), full[2].clone()];
    let with = evaluate_fo(&body, &full, &mut interner);
    let without = evaluate_fo(&body, &filtered, &mut interner);
    assert!(with[2].is_empty(), "the empty time point is a witness");
    assert_eq!(without[1].len(), 1, "without it, a false violation");
}

#[test]
fn variables_bound_inside_cannot_slice() {
    let (f, vars) = violations_formula("P(x) IMPLIES EXISTS x. Q(x,y)");
    let mut interner = Interner::new();
    assert!(DataSlicer::new(&f, &vars, &[0], "x", 2, &mut interner).is_err());
    let (g, gvars) = violations_formula("Q(x,y) IMPLIES ONCE[0,2] P(y)");
    assert_eq!(slicing_variables(&g, &gvars), ["y", "x"]);
}

const SIG: &str = "P(int) Q(int,int) R(int)";

fn interval(bounded: bool) -> impl Strategy<Value = String> {
    let b = (0u64..3, 0u64..4).prop_map(|(a, len)| format!("[{a},{}]", a + len));
    if bounded {
        b.boxed()
    } else {
        prop_oneof![3 => b, 1 => (0u64..2).prop_map(|a| format!("[{a},*)"))].boxed()
    }
}

/// Policies over P, Q, R with constants, nested past and future operators, quantifiers.
fn policy() -> impl Strategy<Value = String> {
    let leaf = prop::sample::select(
        &[
            "P(x)",
            "P(y)",
            "Q(x,y)",
            "Q(y,x)",
            "Q(x,x)",
            "R(y)",
            "P(2)",
            "Q(x,1)",
            "Q(1,y)",
            // quantifiers, LET and aggregations: variables bound inside
            "(EXISTS z. Q(x,z))",
            "(LET r(u) = ONCE[0,2] P(u) IN r(x))",
            "(LET s(u) = Q(u,u) IN (ONCE[0,1] s(y)))",
            "(P(x) AND (n <- CNT z;x Q(x,z)) AND n < 2)",
        ][..],
    )
    .prop_map(String::from);
    let body = leaf.prop_recursive(3, 16, 2, |inner| {
        prop_oneof![
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("({a} AND {b})")),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("({a} OR {b})")),
            (inner.clone(), inner.clone()).prop_map(|(a, b)| format!("({a} AND NOT {b})")),
            (
                inner.clone(),
                interval(false),
                prop::sample::select(&["ONCE", "PREVIOUS"][..])
            )
                .prop_map(|(a, i, op)| format!("({op}{i} {a})")),
            (
                inner.clone(),
                interval(true),
                prop::sample::select(&["EVENTUALLY", "NEXT"][..])
            )
                .prop_map(|(a, i, op)| format!("({op}{i} {a})")),
            // MonPoly's "same timestamp" idiom ONCE[0,u] EVENTUALLY[0,b] and its mirror, with
            // windows from 0 or not: the shape whose empty time points need an argument.
            (
                inner.clone(),
                interval(true),
                interval(true),
                any::<(bool, bool, bool)>()
            )
                .prop_map(|(a, i, j, (past, zero_i, zero_j))| {
                    let from_zero = |x: String, z: bool| {
                        if z {
                            x.replacen(|c: char| c.is_ascii_digit(), "0", 1)
                        } else {
                            x
                        }
                    };
                    let (i, j) = (from_zero(i, zero_i), from_zero(j, zero_j));
                    if past {
                        format!("(ONCE{i} EVENTUALLY{j} {a})")
                    } else {
                        format!("(EVENTUALLY{i} ONCE{j} {a})")
                    }
                }),
            (inner.clone(), inner.clone(), interval(false))
                .prop_map(|(a, b, i)| format!("({a} SINCE{i} {b})")),
            (inner.clone(), inner, interval(true))
                .prop_map(|(a, b, i)| format!("({a} UNTIL{i} {b})")),
        ]
    });
    (
        prop::sample::select(&["P(x)", "Q(x,y)", "R(x)", "Q(y,x)"][..]),
        body,
    )
        .prop_map(|(trigger, b)| format!("{trigger} IMPLIES {b}"))
}

fn trace() -> impl Strategy<Value = Vec<RefFoTimePoint>> {
    let event = prop_oneof![
        (1i64..5).prop_map(|a| ("P".to_string(), vec![Value::Int(a)])),
        (1i64..5, 1i64..5).prop_map(|(a, b)| ("Q".to_string(), vec![Value::Int(a), Value::Int(b)])),
        (1i64..5).prop_map(|a| ("R".to_string(), vec![Value::Int(a)])),
    ];
    prop::collection::vec((0i64..3, prop::collection::vec(event, 0..4)), 0..12).prop_map(|steps| {
        let mut ts = 0;
        steps
            .into_iter()
            .map(|(d, evs)| {
                ts += d;
                (ts, evs)
            })
            .collect()
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1500, ..ProptestConfig::default() })]

    /// Thm. 4: the union of the slices' permitted violations is the log's violations.
    #[test]
    fn sliced_runs_report_the_unsliced_violations(
        text in policy(),
        tr in trace(),
        slices in 1usize..5,
        var_choice in 0usize..2,
    ) {
        let (f, vars) = violations_formula(&text);
        let sig = Signature::parse("sig", SIG).unwrap();
        let mut interner = Interner::new();
        if compile(&f, &vars, &sig, &mut interner, "f", "").is_err() {
            return Ok(()); // outside the monitorable fragment
        }
        let candidates = slicing_variables(&f, &vars);
        let Some(var) = candidates.get(var_choice % candidates.len().max(1)).cloned() else {
            return Ok(());
        };
        let log: Vec<TimePoint> = tr
            .iter()
            .enumerate()
            .map(|(i, step)| time_point(i, step, &mut interner))
            .collect();
        let expected = texts(&unsliced(&f, &vars, &sig, &log, &mut interner), &interner);
        let drop_empty = empty_points_removable(&f).is_ok();
        for drop in [false, drop_empty] {
            let got = sliced(&f, &vars, &sig, &log, &mut interner, |order, i| {
                DataSlicer::new(&f, &vars, order, &var, slices, i).unwrap()
            }, drop);
            prop_assert_eq!(&texts(&got, &interner), &expected, "{} by {} into {}, drop {}", text, var, slices, drop);
        }
    }
}

/// Paper 04's policies all allow dropping empty time points: their temporal operators read
/// atoms, or are `ONCE[0,u] EVENTUALLY[0,0]` (or its mirror) over atoms.
#[test]
fn empty_time_points_in_the_paper_04_policies() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/paper04");
    let mut removable = Vec::new();
    for p in 1..=6 {
        let text = std::fs::read_to_string(format!("{dir}/p{p}.mfotl")).unwrap();
        let (f, _) = violations_formula(&text);
        if empty_points_removable(&f).is_ok() {
            removable.push(p);
        }
    }
    assert_eq!(removable, [1, 2, 3, 4, 5, 6]);
}

/// The idiom's operand must be false at an empty time point: here `ONCE[0,1] P(x)` holds at
/// the empty time point @1 (through P(1) @0), which is the only witness of the outer
/// `ONCE[0,4]` for Q(1,1) @5. The analysis refuses to drop it, and dropping it would report a
/// false violation.
#[test]
fn the_idiom_needs_an_operand_false_at_empty_points() {
    let text = "Q(x,y) IMPLIES ONCE[0,4] EVENTUALLY[0,0] ONCE[0,1] P(x)";
    let (f, vars) = violations_formula(text);
    assert!(empty_points_removable(&f).is_err());
    let sig = Signature::parse("sig", SIG).unwrap();
    let mut interner = Interner::new();
    let log = read_log("@0 P(1)\n@1 R(9)\n@5 Q(1,1)\n", &sig, &mut interner);
    assert!(texts(&unsliced(&f, &vars, &sig, &log, &mut interner), &interner).is_empty());
    for drop_empty in [false, true] {
        let got = sliced(
            &f,
            &vars,
            &sig,
            &log,
            &mut interner,
            |order, i| DataSlicer::new(&f, &vars, order, "x", 1, i).unwrap(),
            drop_empty,
        );
        assert_eq!(
            texts(&got, &interner).is_empty(),
            !drop_empty,
            "drop_empty {drop_empty}"
        );
    }
}

/// A `LET`-defined predicate has its definition's value at an empty time point: here
/// `r(x) = ONCE Q(x)` can hold there, so the `ONCE[1,1]` over it may not lose empty points.
#[test]
fn let_predicates_have_their_definitions_value_at_empty_points() {
    let f = parse_formula("f", "P(x) AND (LET r(y) = ONCE Q(y,y) IN ONCE[1,1] r(x))").unwrap();
    assert!(empty_points_removable(&f).is_err());
    let g = parse_formula("f", "P(x) AND (LET r(y) = Q(y,y) IN ONCE[1,1] r(x))").unwrap();
    assert!(empty_points_removable(&g).is_ok());
}

/// An aggregation binds the variables of its body it does not group by: `x` below is
/// counted over, so slicing by it would count in each slice only its own tuples.
#[test]
fn aggregated_variables_are_bound() {
    let f = parse_formula("f", "P(c) AND (c <- CNT y;x Q(x,y))").unwrap();
    assert!(rvmon_slice::data::is_bound(&f, "y"));
    assert!(!rvmon_slice::data::is_bound(&f, "x"));
    let g = parse_formula("f", "P(c) AND (c <- CNT y Q(x,y))").unwrap();
    assert!(rvmon_slice::data::is_bound(&g, "x"), "not grouped by");
}
