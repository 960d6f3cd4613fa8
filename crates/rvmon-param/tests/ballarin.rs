//! Paper 03 (Ballarin), the worked example of §3.3 and §4.3, through the slice-table API;
//! and Algorithm A with patterns (and with constraints) against Definition 5 on random
//! patterns and traces (Theorem 2: every binding's slice can be looked up in the table).

use proptest::prelude::*;
use rvmon_core::Value;
use rvmon_param::slicing::{slice, Binding, Constraints, Event, Pattern, SliceTable, Term};

const X: usize = 0;
const Y: usize = 1;

fn pat(name: &str, var: usize) -> Pattern {
    Pattern {
        name: name.into(),
        args: vec![Term::Var(var)],
    }
}

fn ev(name: &str, v: i64) -> Event {
    Event {
        name: name.into(),
        args: vec![Value::Int(v)],
    }
}

fn bind(pairs: &[(usize, i64)]) -> Binding {
    Binding::Map(pairs.iter().map(|&(p, v)| (p, Value::Int(v))).collect())
}

/// τ = f(2) h(2) f(1) f(2) h(2) f(3) h(3) h(1) with P = {f(x), f(y), h(x), h(y)}.
fn example() -> (Vec<Pattern>, Vec<Event>) {
    let patterns = vec![pat("f", X), pat("f", Y), pat("h", X), pat("h", Y)];
    let trace = [
        ("f", 2),
        ("h", 2),
        ("f", 1),
        ("f", 2),
        ("h", 2),
        ("f", 3),
        ("h", 3),
        ("h", 1),
    ]
    .iter()
    .map(|&(n, v)| ev(n, v))
    .collect();
    (patterns, trace)
}

/// A slice written as in the paper: `f(2) h(2) …`.
fn text(trace: &[Event], sl: &[usize]) -> String {
    sl.iter()
        .map(|&i| match trace[i].args[0] {
            Value::Int(v) => format!("{}({v})", trace[i].name),
            _ => unreachable!(),
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[test]
fn table_1_has_the_fourteen_slices() {
    let (patterns, trace) = example();
    let mut t = SliceTable::new(patterns, None);
    let sizes: Vec<usize> = trace
        .iter()
        .map(|e| {
            t.push(e);
            t.entries().len()
        })
        .collect();
    assert_eq!(
        sizes,
        [4, 4, 8, 8, 8, 14, 14, 14],
        "|Θ| after each event (⊥ and ⊤ included)"
    );
    let expected = [
        (bind(&[]), ""),
        (bind(&[(X, 1)]), "f(1) h(1)"),
        (bind(&[(X, 2)]), "f(2) h(2) f(2) h(2)"),
        (bind(&[(X, 3)]), "f(3) h(3)"),
        (bind(&[(Y, 1)]), "f(1) h(1)"),
        (bind(&[(Y, 2)]), "f(2) h(2) f(2) h(2)"),
        (bind(&[(Y, 3)]), "f(3) h(3)"),
        (bind(&[(X, 1), (Y, 2)]), "f(2) h(2) f(1) f(2) h(2) h(1)"),
        (bind(&[(X, 1), (Y, 3)]), "f(1) f(3) h(3) h(1)"),
        (bind(&[(X, 2), (Y, 1)]), "f(2) h(2) f(1) f(2) h(2) h(1)"),
        (bind(&[(X, 2), (Y, 3)]), "f(2) h(2) f(2) h(2) f(3) h(3)"),
        (bind(&[(X, 3), (Y, 1)]), "f(1) f(3) h(3) h(1)"),
        (bind(&[(X, 3), (Y, 2)]), "f(2) h(2) f(2) h(2) f(3) h(3)"),
        (Binding::Top, "f(2) h(2) f(1) f(2) h(2) f(3) h(3) h(1)"),
    ];
    let entries = t.entries();
    assert_eq!(entries.len(), 14);
    for (b, want) in &expected {
        let got = entries
            .iter()
            .find(|e| &e.0 == b)
            .unwrap_or_else(|| panic!("{b:?} missing"));
        assert_eq!(text(&trace, &got.1), *want, "{b:?}");
    }
    // The pair slices of §3.3: τ₂,₁, τ₃,₁, τ₃,₂.
    assert_eq!(
        text(&trace, t.lookup(&bind(&[(X, 2), (Y, 1)]))),
        "f(2) h(2) f(1) f(2) h(2) h(1)"
    );
}

#[test]
fn constraint_x_greater_than_y_leaves_eleven_slices() {
    let (patterns, trace) = example();
    let c = Constraints {
        order: vec![(Y, X, true)],
        distinct: vec![],
    };
    let mut t = SliceTable::new(patterns, Some(c));
    trace.iter().for_each(|e| t.push(e));
    let entries = t.entries();
    assert_eq!(entries.len(), 11);
    for gone in [
        bind(&[(X, 1), (Y, 2)]),
        bind(&[(X, 1), (Y, 3)]),
        bind(&[(X, 2), (Y, 3)]),
    ] {
        assert!(
            entries.iter().all(|e| e.0 != gone),
            "{gone:?} should be gone"
        );
    }
    assert_eq!(
        text(&trace, t.lookup(&bind(&[(X, 3), (Y, 1)]))),
        "f(1) f(3) h(3) h(1)"
    );
    assert_eq!(
        text(&trace, t.lookup(&bind(&[(X, 3), (Y, 2)]))),
        "f(2) h(2) f(2) h(2) f(3) h(3)"
    );
}

fn patterns() -> impl Strategy<Value = Vec<Pattern>> {
    let term = prop_oneof![5 => (0usize..3).prop_map(Term::Var), 1 => (1i64..3).prop_map(|v| Term::Const(Value::Int(v)))];
    let pattern = (
        prop::sample::select(vec!["f", "g"]),
        prop::collection::vec(term, 2),
    )
        .prop_map(|(n, args)| Pattern {
            name: n.into(),
            args,
        });
    prop::collection::vec(pattern, 1..5)
}

fn trace() -> impl Strategy<Value = Vec<Event>> {
    let event = (
        prop::sample::select(vec!["f", "g"]),
        prop::collection::vec(1i64..4, 2),
    )
        .prop_map(|(n, args)| Event {
            name: n.into(),
            args: args.into_iter().map(Value::Int).collect(),
        });
    prop::collection::vec(event, 0..10)
}

/// Every injective binding of parameters 0..3 over values 1..4, and ⊤.
fn all_bindings() -> Vec<Binding> {
    let mut out = vec![Binding::Top];
    for a in 0..4i64 {
        for b in 0..4i64 {
            for c in 0..4i64 {
                let pairs: Vec<(usize, i64)> = [(0, a), (1, b), (2, c)]
                    .into_iter()
                    .filter(|p| p.1 > 0)
                    .collect();
                if let Binding::Map(m) = bind(&pairs).join(&Binding::bottom()) {
                    out.push(Binding::Map(m));
                }
            }
        }
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn algorithm_a_matches_definition_5(ps in patterns(), tr in trace(), strict in any::<bool>()) {
        let mut plain = SliceTable::new(ps.clone(), None);
        let c = Constraints { order: vec![(0, 1, strict)], distinct: vec![] };
        let mut constrained = SliceTable::new(ps.clone(), Some(c.clone()));
        for e in &tr {
            plain.push(e);
            constrained.push(e);
        }
        for (b, sl) in plain.entries() {
            prop_assert_eq!(&sl, &slice(&ps, &tr, &b), "table entry {:?}", b);
        }
        for b in all_bindings() {
            prop_assert_eq!(plain.lookup(&b), &slice(&ps, &tr, &b)[..], "lookup {:?}", b);
            let ok = match &b { Binding::Map(m) => c.satisfiable(m), Binding::Top => true };
            if ok {
                prop_assert_eq!(constrained.lookup(&b), &slice(&ps, &tr, &b)[..], "constrained lookup {:?}", b);
            }
        }
    }
}
