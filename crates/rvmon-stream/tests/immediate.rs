//! The immediate engine (specifications whose values never wait) against the general engine,
//! on random RTLola specifications with past offsets, `hold`, `get`, `is_fresh`, explicit and
//! inferred pacing, self-references, computed trigger messages and events where inputs have
//! no value. Both must decide the same values at the same events and fire the same triggers
//! with the same messages, in the same order.

use proptest::prelude::*;
use rvmon_stream::engine::Event;
use rvmon_stream::value::Val;
use rvmon_stream::{compile, immediate, ImmediateEngine, Step, StreamEngine};

/// Where an expression is evaluated: the inputs it may read synchronously or with an offset
/// (those its pacing implies, as RTLola requires), itself (for offsets), and the outputs it
/// may read with `hold` (earlier ones, so that no value depends on itself).
#[derive(Clone, Debug)]
struct Scope {
    sync: Vec<&'static str>,
    me: &'static str,
    hold: Vec<&'static str>,
}

/// An Int64 expression over inputs `a`, `b` and outputs `o0`..`o2`.
fn int_expr(depth: u32, at: Scope) -> BoxedStrategy<String> {
    let mut holdable = vec!["a", "b"];
    holdable.extend(at.hold.iter().copied());
    let mut offsettable: Vec<&str> = at.sync.iter().copied().filter(|s| *s != "c").collect();
    if at.me != "o3" {
        offsettable.push(at.me);
    }
    let mut leaves = vec![
        (0i64..4).prop_map(|v| v.to_string()).boxed(),
        prop::sample::select(holdable)
            .prop_map(|s| format!("{s}.hold().defaults(to: 7)"))
            .boxed(),
        prop::sample::select(vec!["a", "b"])
            .prop_map(|s| format!("{s}.get().defaults(to: 5)"))
            .boxed(),
    ];
    if !offsettable.is_empty() {
        leaves.push(
            (prop::sample::select(offsettable), 1i64..4, 0i64..3)
                .prop_map(|(s, k, d)| format!("{s}.offset(by: -{k}).defaults(to: {d})"))
                .boxed(),
        );
    }
    let sync: Vec<&str> = at.sync.iter().copied().filter(|s| *s != "c").collect();
    if !sync.is_empty() {
        leaves.push(prop::sample::select(sync).prop_map(String::from).boxed());
    }
    let leaf = prop::strategy::Union::new(leaves);
    if depth == 0 {
        return leaf.boxed();
    }
    let i = || int_expr(depth - 1, at.clone());
    prop_oneof![
        3 => leaf,
        1 => (i(), i()).prop_map(|(x, y)| format!("({x} + {y})")),
        1 => (i(), i()).prop_map(|(x, y)| format!("({x} - {y})")),
        1 => (bool_expr(depth - 1, at.clone()), i(), i())
            .prop_map(|(c, x, y)| format!("(if {c} then {x} else {y})")),
    ]
    .boxed()
}

fn bool_expr(depth: u32, at: Scope) -> BoxedStrategy<String> {
    let mut leaves = vec![
        prop::sample::select(vec!["a", "b", "c"])
            .prop_map(|s| format!("{s}.is_fresh()"))
            .boxed(),
        Just("c.hold().defaults(to: false)".to_string()).boxed(),
    ];
    if at.sync.contains(&"c") {
        leaves.push(Just("c".to_string()).boxed());
        leaves.push(Just("c.offset(by: -1).defaults(to: true)".to_string()).boxed());
    }
    if at.me == "o3" {
        leaves.push(Just("o3.offset(by: -1).defaults(to: false)".to_string()).boxed());
    }
    let leaf = prop::strategy::Union::new(leaves);
    if depth == 0 {
        return leaf.boxed();
    }
    let b = || bool_expr(depth - 1, at.clone());
    let i = || int_expr(depth - 1, at.clone());
    prop_oneof![
        2 => leaf,
        1 => (b(), b()).prop_map(|(x, y)| format!("({x} && {y})")),
        1 => (b(), b()).prop_map(|(x, y)| format!("({x} || {y})")),
        1 => b().prop_map(|x| format!("!{x}")),
        1 => (i(), i()).prop_map(|(x, y)| format!("({x} < {y})")),
        1 => (i(), i()).prop_map(|(x, y)| format!("({x} == {y})")),
    ]
    .boxed()
}

/// A pacing annotation and the inputs it lets an expression read synchronously.
fn pacing() -> impl Strategy<Value = (&'static str, Vec<&'static str>)> {
    prop::sample::select(vec![
        ("", vec!["a", "b", "c"]),
        (" @a", vec!["a"]),
        (" @b", vec!["b"]),
        (" @(a && b)", vec!["a", "b"]),
        (" @(a || b)", vec![]),
        (" @c", vec!["c"]),
    ])
}

/// Output `o{k}`: a pacing and an expression that may hold the outputs before it.
fn output(k: usize, boolean: bool) -> impl Strategy<Value = (&'static str, Scope, String)> {
    pacing().prop_flat_map(move |(p, sync)| {
        let at = Scope {
            sync: sync.clone(),
            me: ["o0", "o1", "o2", "o3"][k],
            hold: ["o0", "o1", "o2"][..k.min(3)].to_vec(),
        };
        let e = if boolean {
            bool_expr(2, at.clone())
        } else {
            int_expr(2, at.clone())
        };
        (Just(p), Just(at), e)
    })
}

/// A Float64 expression for output `o4`, evaluated where `o0` is: casts, functions, float
/// arithmetic (division by zero gives infinities) and its own past.
fn float_expr(at: Scope) -> impl Strategy<Value = String> {
    let i = || int_expr(1, at.clone());
    let x = || {
        prop_oneof![
            i().prop_map(|e| format!("cast<Int64, Float64>({e})")),
            Just("o4.offset(by: -1).defaults(to: 0.5)".to_string()),
            Just("1.5".to_string()),
        ]
    };
    prop_oneof![
        (x(), x()).prop_map(|(a, b)| format!("({a} / {b})")),
        (x(), x()).prop_map(|(a, b)| format!("({a} * {b} - 0.25)")),
        (x(), x()).prop_map(|(a, b)| format!("max<Float64>({a}, {b})")),
        x().prop_map(|a| format!("sqrt(abs({a}))")),
        (i(), i()).prop_map(|(a, b)| format!("cast<Int64, Float64>(min<Int64>({a}, {b}))")),
    ]
}

fn spec() -> impl Strategy<Value = String> {
    let outputs = (
        output(0, false),
        output(1, false),
        output(2, false),
        output(3, true),
    );
    outputs
        .prop_flat_map(|(o0, o1, o2, o3)| {
            let t = bool_expr(1, o3.1.clone());
            let m = int_expr(1, o0.1.clone());
            let f = float_expr(o0.1.clone());
            (Just((o0, o1, o2, o3)), t, m, f)
        })
        .prop_map(|(((p0, _, e0), (p1, _, e1), (p2, _, e2), (p3, _, e3)), t, m, f)| {
            format!(
                "import math\ninput a: Int64\ninput b: Int64\ninput c: Bool\n\
                 output o0{p0} := {e0}\noutput o1{p1} := {e1}\noutput o2{p2} := {e2}\n\
                 output o3{p3} := {e3}\noutput o4: Float64{p0} := {f}\n\
                 trigger o3 \"o3 holds\"\n\
                 trigger{p3} {t} \"t\"\n\
                 trigger eval{p0} when o0 > 2 with \"o0 is {{{{}}}}, o4 is {{{{}}}}\".format({m}, o4)\n"
            )
        })
}

/// Events where each input has a value with probability 3/4 (at least one per event).
fn trace() -> impl Strategy<Value = Vec<Event>> {
    let cell = |v: Val| prop::option::weighted(0.75, Just(v));
    prop::collection::vec(
        (
            (0i64..4).prop_flat_map(move |n| cell(Val::Int(n))),
            (0i64..4).prop_flat_map(move |n| cell(Val::Int(n))),
            any::<bool>().prop_flat_map(move |x| cell(Val::Bool(x))),
        ),
        1..16,
    )
    .prop_map(|rows| {
        rows.into_iter()
            .enumerate()
            .filter(|(_, (a, b, c))| a.is_some() || b.is_some() || c.is_some())
            .map(|(i, (a, b, c))| Event {
                time: i as i64 * 1_000,
                values: vec![a, b, c],
            })
            .collect()
    })
}

/// The values decided (as `Debug` text, so that NaNs compare equal and -0.0 differs from
/// 0.0), the firings, and the error that stopped the run, if any.
fn run(mut engine: impl Step, trace: &[Event]) -> (Vec<String>, Vec<String>) {
    engine.record_outputs();
    let mut fired = Vec::new();
    let mut decided = Vec::new();
    let mut error = None;
    for ev in trace {
        if let Err(e) = engine.step(ev, &mut fired) {
            error = Some(e.to_string());
            break;
        }
        decided.extend(engine.take_decided());
    }
    if error.is_none() {
        if let Err(e) = engine.finish(&mut fired) {
            error = Some(e.to_string());
        }
    }
    decided.extend(engine.take_decided());
    decided.sort_by_key(|d| (d.event, d.output));
    let mut decided: Vec<String> = decided.iter().map(|d| format!("{d:?}")).collect();
    decided.extend(error.map(|e| format!("error: {e}")));
    let fired = fired
        .iter()
        .map(|f| format!("{} {} #{} {}", f.event, f.time, f.trigger, f.message))
        .collect();
    (decided, fired)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    #[test]
    fn immediate_matches_general(text in spec(), events in trace()) {
        let Ok(prog) = compile("p.lola", &text) else {
            return Ok(()); // rejected by the analysis (pacing, types)
        };
        prop_assert!(immediate::applies(&prog), "a past-only spec should run immediately:\n{}", text);
        let general = run(StreamEngine::new(prog.clone()), &events);
        let fast = run(ImmediateEngine::new(prog).ok().unwrap(), &events);
        prop_assert_eq!(&fast.0, &general.0, "values\n{}", text);
        prop_assert_eq!(&fast.1, &general.1, "triggers\n{}", text);
    }
}

/// The analysis accepts most generated specifications, so the property above tests something.
#[test]
fn most_generated_specs_are_accepted() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    let strategy = spec();
    let accepted = (0..200)
        .filter(|_| compile("p.lola", &strategy.new_tree(&mut runner).unwrap().current()).is_ok())
        .count();
    assert!(accepted >= 50, "only {accepted} of 200 accepted");
}

#[test]
fn future_offsets_need_the_general_engine() {
    let p = compile(
        "f.lola",
        "input a: Int64\noutput x := a.offset(by: 1).defaults(to: 0)\n",
    );
    // RTLola's syntax has no future offsets; Lola's does.
    let p = p.or_else(|_| compile("f.lola", "input a: Int64\noutput x := a[1, 0]\n"));
    assert!(!immediate::applies(&p.unwrap()));
    let past = compile("p.lola", "input a: Int64\noutput x := a[-1, 0] + a\n").unwrap();
    assert!(immediate::applies(&past));
}
