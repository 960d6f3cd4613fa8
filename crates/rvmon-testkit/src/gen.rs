//! Random policies and logs for the tests that compare sliced runs with the single run
//! (`rvmon-timely`'s `against_single`, `rvmon-cli`'s `parallel`): constants, nested past and
//! future operators with bounded intervals, logs with equal timestamps and empty time points.

use proptest::prelude::*;

/// The predicates of [`policy`]'s formulas. String values (written unquoted in the logs):
/// every run frees the strings its engines no longer hold, and a freed id is handed out again.
pub const SIG: &str = "P(string) Q(string,string) R(string)";

/// [`SIG`] and the propositions `A()`, `B()` of [`closed_policy`] and [`log_with_props`].
pub const SIG_WITH_PROPS: &str = "P(string) Q(string,string) R(string) A() B()";

/// A bounded interval `[a,b]`.
pub fn interval() -> impl Strategy<Value = String> {
    (0u64..3, 0u64..4).prop_map(|(a, len)| format!("[{a},{}]", a + len))
}

/// `TRIGGER IMPLIES BODY`: the body a temporal operator over one atom, combined with another
/// by a Boolean or a binary temporal operator.
fn shaped(
    triggers: &'static [&'static str],
    atoms: &'static [&'static str],
) -> impl Strategy<Value = String> {
    let atom = prop::sample::select(atoms);
    let body = (
        atom.clone(),
        atom,
        interval(),
        prop::sample::select(&["ONCE", "EVENTUALLY", "PREVIOUS", "NEXT"][..]),
        prop::sample::select(&["AND", "OR", "SINCE", "UNTIL"][..]),
    )
        .prop_map(|(a, b, i, op, bin)| match bin {
            "SINCE" | "UNTIL" => format!("({a} {bin}{i} {op}{i} {b})"),
            _ => format!("({op}{i} {a}) {bin} {b}"),
        });
    (prop::sample::select(triggers), body).prop_map(|(t, b)| format!("{t} IMPLIES {b}"))
}

/// A first-order policy over [`SIG`] with free variables `x` (always) and `y` (often).
pub fn policy() -> impl Strategy<Value = String> {
    shaped(
        &["Q(x,y)", "P(x)", "Q(y,x)"],
        &[
            "P(x)",
            "P(y)",
            "Q(x,y)",
            "Q(y,x)",
            "Q(x,\"1\")",
            "R(y)",
            "P(\"2\")",
        ],
    )
}

/// A policy without free variables: propositional (over `A()`, `B()`), first-order over
/// constants only, or a [`policy`] with its variables bound (`FORALL x.`), so that no
/// variable is left to slice its data by.
pub fn closed_policy() -> impl Strategy<Value = String> {
    prop_oneof![
        shaped(&["A()", "B()"], &["A()", "B()", "(NOT B())", "TRUE"]),
        shaped(
            &["A()", "P(\"1\")"],
            &["B()", "P(\"2\")", "R(\"1\")", "A()"]
        ),
        policy().prop_map(|p| {
            let bound = if p.contains('y') {
                "FORALL x. FORALL y."
            } else {
                "FORALL x."
            };
            format!("{bound} ({p})")
        }),
    ]
}

/// A log: time points `(timestamp, events)`, each event a predicate and its arguments.
pub type Log = Vec<(i64, Vec<(String, Vec<i64>)>)>;

fn steps(event: BoxedStrategy<(String, Vec<i64>)>) -> impl Strategy<Value = Log> {
    prop::collection::vec((0i64..3, prop::collection::vec(event, 0..4)), 1..25).prop_map(|steps| {
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

fn data_event() -> BoxedStrategy<(String, Vec<i64>)> {
    prop_oneof![
        (1i64..5).prop_map(|a| ("P".to_string(), vec![a])),
        (1i64..5, 1i64..5).prop_map(|(a, b)| ("Q".to_string(), vec![a, b])),
        (1i64..5).prop_map(|a| ("R".to_string(), vec![a])),
    ]
    .boxed()
}

/// A log of [`SIG`]'s events.
pub fn log() -> impl Strategy<Value = Log> {
    steps(data_event())
}

/// A log of [`SIG_WITH_PROPS`]'s events: [`log`]'s and the propositions `A()`, `B()`.
pub fn log_with_props() -> impl Strategy<Value = Log> {
    let event = prop_oneof![
        3 => data_event(),
        1 => Just(("A".to_string(), Vec::new())),
        1 => Just(("B".to_string(), Vec::new())),
    ];
    steps(event.boxed())
}

/// The log in MonPoly's format, one time point a line.
pub fn text(log: &Log) -> String {
    let mut s = String::new();
    for (ts, evs) in log {
        s.push_str(&format!("@{ts}"));
        for (name, args) in evs {
            let a: Vec<String> = args.iter().map(i64::to_string).collect();
            s.push_str(&format!(" {name}({})", a.join(",")));
        }
        s.push('\n');
    }
    s
}
