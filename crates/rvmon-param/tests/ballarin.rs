//! Paper 03 (Ballarin), the worked example of §3.3 and §4.3, through the slice-table API;
//! and Algorithm A with patterns (and with constraints) against Definition 5 on random
//! patterns and traces (Theorem 2: every binding's slice can be looked up in the table).

use proptest::prelude::*;
use rvmon_core::Value;
use rvmon_param::monitor::{Fsm, ParamMonitor};
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

/// Table 1: every binding of the example and its slice.
fn table_1() -> Vec<(Binding, &'static str)> {
    vec![
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
    ]
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
    let expected = table_1();
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

/// Whether `b` extends to a solution of `c`, by brute force: the unbound parameters (of three)
/// range over the bound values and three points in every gap between them (enough for three
/// unbound parameters over a dense order).
fn solvable(c: &Constraints, b: &[(usize, Value)]) -> bool {
    let grid: Vec<f64> = (0..=16).map(|k| k as f64 / 4.0).collect();
    let num = |v: Value| match v {
        Value::Int(i) => i as f64,
        _ => unreachable!("integers only"),
    };
    let fixed = |p: usize| b.iter().find(|x| x.0 == p).map(|x| num(x.1));
    let choices = |p: usize| fixed(p).map_or(grid.clone(), |v| vec![v]);
    choices(0).iter().any(|&x| {
        choices(1).iter().any(|&y| {
            choices(2).iter().any(|&z| {
                let v = [x, y, z];
                c.order
                    .iter()
                    .all(|&(a, d, strict)| if strict { v[a] < v[d] } else { v[a] <= v[d] })
                    && c.distinct.iter().all(|&(a, d)| v[a] != v[d])
            })
        })
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, ..ProptestConfig::default() })]

    /// The constraint check the monitors use keeps exactly the partial bindings that extend to
    /// a solution over a dense order (values forced between bound ones included).
    #[test]
    fn constraint_check_is_exact_over_a_dense_order(
        order in prop::collection::vec((0usize..3, 0usize..3, any::<bool>()), 0..4),
        distinct in prop::collection::vec((0usize..3, 0usize..3), 0..3),
        values in prop::collection::vec(0i64..4, 3),
    ) {
        let c = Constraints { order, distinct };
        let b: Vec<(usize, Value)> = values
            .iter()
            .enumerate()
            .filter(|(_, v)| **v > 0)
            .map(|(p, &v)| (p, Value::Int(v)))
            .collect();
        prop_assert_eq!(c.satisfiable(&b), solvable(&c, &b), "{:?} with {:?}", c, b);
    }
}

/// `x <= z <= y` with x = y forces z to that value, which `z != x` then rules out; with x < y
/// there is room for z. (Random constraints rarely draw this case.)
#[test]
fn a_parameter_squeezed_between_equal_values_takes_that_value() {
    const Z: usize = 2;
    let c = Constraints {
        order: vec![(X, Z, false), (Z, Y, false)],
        distinct: vec![(Z, X)],
    };
    for (b, want) in [
        (vec![(X, 1), (Y, 1)], false),
        (vec![(X, 1), (Y, 2)], true),
        (vec![(X, 2), (Y, 1)], false),
        (vec![(X, 1)], true),
    ] {
        let b: Vec<(usize, Value)> = b.into_iter().map(|(p, v)| (p, Value::Int(v))).collect();
        assert_eq!(c.satisfiable(&b), want, "{b:?}");
        assert_eq!(solvable(&c, &b), want, "brute force, {b:?}");
    }
}

/// A machine over f and h whose state is the word read so far (every word up to length 8).
fn word_machine() -> (Fsm, Vec<String>) {
    let mut words = vec![String::new()];
    let mut delta = Vec::new();
    let mut k = 0;
    while k < words.len() {
        let row = ["f", "h"]
            .iter()
            .map(|s| {
                (words[k].len() < 8).then(|| {
                    words.push(format!("{}{s}", words[k]));
                    words.len() - 1
                })
            })
            .collect();
        delta.push(row);
        k += 1;
    }
    let fsm = Fsm {
        states: (0..words.len()).map(|i| format!("w{i}")).collect(),
        start: 0,
        symbols: vec!["f".into(), "h".into()],
        delta,
        verdicts: vec![None; words.len()],
        fail: None,
    };
    (fsm, words)
}

/// §4.3 through the monitor users run (`ParamMonitor`, a machine state per binding, not a
/// stored slice): with `x > y`, the bindings kept are the eleven entries of the constrained
/// table but ⊤, and the state of each is its slice (the machine's state is the word read).
/// The monitor's joins are not injective, so without the constraint it also keeps x = y.
#[test]
fn the_monitor_with_x_greater_than_y_keeps_the_eleven_slices() {
    let (patterns, trace) = example();
    let (fsm, words) = word_machine();
    let c = Constraints {
        order: vec![(Y, X, true)],
        distinct: vec![],
    };
    let mut m = ParamMonitor::new(patterns.clone(), fsm.clone()).with_constraints(&c);
    let mut plain = ParamMonitor::new(patterns, fsm);
    let mut out = Vec::new();
    for e in &trace {
        m.push(e, &mut out);
        plain.push(e, &mut out);
    }
    // Table 1 without ⊤ and without the three pairs where x < y.
    let gone = [
        Binding::Top,
        bind(&[(X, 1), (Y, 2)]),
        bind(&[(X, 1), (Y, 3)]),
        bind(&[(X, 2), (Y, 3)]),
    ];
    let expected: Vec<(Binding, &str)> = table_1()
        .into_iter()
        .filter(|e| !gone.contains(&e.0))
        .collect();
    let mut seen = m.seen();
    seen.sort_by_key(|b| format!("{b:?}"));
    let mut want: Vec<Binding> = expected.iter().map(|e| e.0.clone()).collect();
    want.sort_by_key(|b| format!("{b:?}"));
    assert_eq!(seen, want);
    for (b, slice_text) in &expected {
        let word: String = slice_text.split_whitespace().map(|e| &e[..1]).collect();
        let state = m.state_of(b).expect("a word of at most 8 events");
        assert_eq!(words[state], word, "{b:?}");
    }
    assert_eq!(
        m.state_of(&bind(&[(X, 1), (Y, 2)])),
        None,
        "no solution: not monitored"
    );
    // ⊥, three x, three y, the six pairs of Table 1 and the three with x = y.
    assert_eq!(plain.seen().len(), 16);
    assert!(plain.seen().contains(&bind(&[(X, 2), (Y, 2)])));
}

/// Integers beyond 2^53 (nanosecond timestamps, 64-bit ids) compare exactly, and so do
/// integers against floats; an order constraint wants numbers, even `x <= x`.
#[test]
fn constraints_compare_numbers_exactly() {
    let big = 1i64 << 53;
    let c = |order: Vec<(usize, usize, bool)>, distinct: Vec<(usize, usize)>| Constraints {
        order,
        distinct,
    };
    let b = |x: Value, y: Value| vec![(X, x), (Y, y)];
    let (i, f) = (Value::Int, Value::Float);
    for (constraints, binding, want) in [
        (c(vec![], vec![(X, Y)]), b(i(big), i(big + 1)), true),
        (c(vec![], vec![(X, Y)]), b(i(big), i(big)), false),
        (c(vec![(X, Y, false)], vec![]), b(i(big + 1), i(big)), false),
        (c(vec![(X, Y, true)], vec![]), b(i(big), i(big + 1)), true),
        (c(vec![(X, Y, true)], vec![]), b(i(1), f(1.5)), true),
        (c(vec![(X, Y, true)], vec![]), b(f(1.5), i(1)), false),
        (
            c(vec![(X, Y, true)], vec![]),
            b(i(big + 1), f(big as f64)),
            false,
        ),
        (c(vec![], vec![(X, Y)]), b(f(1.0), i(1)), false),
        (
            c(vec![(X, X, false)], vec![]),
            vec![(X, Value::Bool(true))],
            false,
        ),
        (c(vec![(X, X, false)], vec![]), vec![(X, i(3))], true),
    ] {
        assert_eq!(
            constraints.satisfiable(&binding),
            want,
            "{constraints:?} {binding:?}"
        );
    }
}
