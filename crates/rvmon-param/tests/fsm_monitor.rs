//! The per-binding machine monitor: JavaMOP's HasNext on interleaved iterators, and on random
//! machines and traces the same state for every binding as running the machine over the
//! binding's slice (Definition 5).

use proptest::prelude::*;
use rvmon_core::Value;
use rvmon_param::monitor::{Fsm, ParamMonitor, Report};
use rvmon_param::slicing::{slice, Binding, Constraints, Event, Pattern, Term};

fn ev(name: &str, args: &[i64]) -> Event {
    Event {
        name: name.into(),
        args: args.iter().map(|&v| Value::Int(v)).collect(),
    }
}

/// JavaMOP's HasNext (from JavaMOP's property library, not the paper): `next` only after
/// `hasnexttrue`.
fn has_next() -> (Vec<Pattern>, Fsm) {
    let i = || vec![Term::Var(0)];
    let patterns = ["hasnexttrue", "hasnextfalse", "next"]
        .iter()
        .map(|n| Pattern {
            name: n.to_string(),
            args: i(),
        })
        .collect();
    // states: 0 na, 1 more, 2 none, 3 error; symbols: hasnexttrue, hasnextfalse, next
    let fsm = Fsm {
        states: vec!["na".into(), "more".into(), "none".into(), "error".into()],
        start: 0,
        symbols: vec!["hasnexttrue".into(), "hasnextfalse".into(), "next".into()],
        delta: vec![
            vec![Some(1), Some(2), Some(3)],
            vec![Some(1), None, Some(0)],
            vec![None, Some(2), Some(3)],
            vec![None, None, None],
        ],
        verdicts: vec![None, None, None, Some("violation".into())],
        fail: None,
    };
    (patterns, fsm)
}

#[test]
fn has_next_on_interleaved_iterators() {
    let (patterns, fsm) = has_next();
    let mut m = ParamMonitor::new(patterns, fsm);
    let trace = [
        ev("hasnexttrue", &[1]),
        ev("hasnexttrue", &[2]),
        ev("next", &[1]),
        ev("next", &[2]),
        ev("next", &[2]),
        ev("hasnextfalse", &[1]),
        ev("next", &[1]),
    ];
    let mut out = Vec::new();
    trace.iter().for_each(|e| m.push(e, &mut out));
    let b = |v| Binding::Map(vec![(0, Value::Int(v))]);
    assert_eq!(
        out,
        vec![
            Report {
                event: 4,
                binding: b(2),
                category: "violation".into()
            },
            Report {
                event: 6,
                binding: b(1),
                category: "violation".into()
            },
        ]
    );
}

/// Events a(x, y) and b(y) (bindings of one and two parameters), a random three-state machine
/// over them whose state 2 reports, and the trace.
#[allow(clippy::type_complexity)]
fn machine_and_trace(
    delta: Vec<Vec<Option<usize>>>,
    tr: &[(&str, i64, i64)],
) -> (Vec<Pattern>, Fsm, Vec<Event>) {
    let patterns = vec![
        Pattern {
            name: "a".into(),
            args: vec![Term::Var(0), Term::Var(1)],
        },
        Pattern {
            name: "b".into(),
            args: vec![Term::Var(1)],
        },
    ];
    let fsm = Fsm {
        states: vec!["s0".into(), "s1".into(), "s2".into()],
        start: 0,
        symbols: vec!["a".into(), "b".into()],
        delta,
        verdicts: vec![None, None, Some("hit".into())],
        fail: None,
    };
    let trace = tr
        .iter()
        .map(|&(n, x, y)| {
            if n == "a" {
                ev(n, &[x, y])
            } else {
                ev(n, &[y])
            }
        })
        .collect();
    (patterns, fsm, trace)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn states_are_the_machine_over_each_slice(
        delta in prop::collection::vec(prop::collection::vec(prop::option::weighted(0.9, 0usize..3), 2), 3),
        tr in prop::collection::vec((prop::sample::select(vec!["a", "b"]), 1i64..4, 1i64..4), 0..8),
    ) {
        let (patterns, fsm, trace) = machine_and_trace(delta, &tr);
        let mut m = ParamMonitor::new(patterns.clone(), fsm.clone());
        let mut out = Vec::new();
        for (k, e) in trace.iter().enumerate() {
            m.push(e, &mut out);
            // Every binding over values 1..3 (x = y included) has the state of its slice so far.
            for x in 0..4i64 {
                for y in 1..4i64 {
                    let mut pairs = vec![(1, Value::Int(y))];
                    if x > 0 { pairs.insert(0, (0, Value::Int(x))); }
                    let b = Binding::Map(pairs);
                    let sl = slice(&patterns, &trace[..=k], &b);
                    let want = fsm.run(sl.iter().map(|&i| trace[i].name.as_str()));
                    prop_assert_eq!(m.state_of(&b), want, "{:?} after {} events", b, k + 1);
                }
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    /// Creation events only skip bindings that an event would kill at once: when none was
    /// skipped, every state and verdict equals pure slicing's; and the verdicts it reports are
    /// never for bindings pure slicing has dead.
    #[test]
    fn creation_events_agree_with_slicing_when_nothing_is_skipped(
        delta in prop::collection::vec(prop::collection::vec(prop::option::weighted(0.8, 0usize..3), 2), 3),
        tr in prop::collection::vec((prop::sample::select(vec!["a", "b"]), 1i64..4, 1i64..4), 0..10),
    ) {
        let (patterns, fsm, trace) = machine_and_trace(delta, &tr);
        let mut plain = ParamMonitor::new(patterns.clone(), fsm.clone());
        // Full scan: `skipped` counts every binding declined, which enable sets never visit.
        let mut creation = ParamMonitor::new(patterns, fsm).with_creation_events().with_full_scan();
        let (mut a, mut b) = (Vec::new(), Vec::new());
        for e in &trace {
            plain.push(e, &mut a);
            creation.push(e, &mut b);
        }
        if creation.skipped() == 0 {
            prop_assert_eq!(&a, &b);
        }
        // Lookups stay well defined: the bindings seen are join-closed.
        let seen = creation.seen();
        for x in &seen {
            for y in &seen {
                let j = x.lub(y, false);
                prop_assert!(j == Binding::Top || seen.contains(&j), "{:?} ⊔ {:?} missing", x, y);
            }
        }
        prop_assert!(creation.bindings() <= plain.bindings());
    }
}

#[test]
fn end_events_free_the_monitors_of_dead_objects() {
    let (patterns, fsm) = has_next();
    let dispose = Pattern {
        name: "dispose".into(),
        args: vec![Term::Var(0)],
    };
    let mut m = ParamMonitor::new(patterns, fsm)
        .with_creation_events()
        .with_end_events(vec![dispose]);
    let mut out = Vec::new();
    for i in 1..=3 {
        m.push(&ev("hasnexttrue", &[i]), &mut out);
    }
    assert_eq!(m.bindings(), 4, "⊥ and three iterators");
    m.push(&ev("dispose", &[1]), &mut out);
    m.push(&ev("dispose", &[2]), &mut out);
    assert_eq!(m.bindings(), 2, "memory follows the live iterators");
    m.push(&ev("next", &[3]), &mut out);
    m.push(&ev("next", &[3]), &mut out);
    assert_eq!(out.len(), 1, "iterator 3 is still monitored: {out:?}");
    assert_eq!(out[0].binding, Binding::Map(vec![(0, Value::Int(3))]));
}

/// UnsafeIterator where the collection dies after its update: the iterator's next use is
/// still a violation (the binding can reach its verdict without the collection), and the
/// iterator's own death then frees it.
#[test]
fn a_dead_object_keeps_the_bindings_that_can_still_fail() {
    let patterns = vec![
        Pattern {
            name: "create".into(),
            args: vec![Term::Var(0), Term::Var(1)],
        },
        Pattern {
            name: "update".into(),
            args: vec![Term::Var(0)],
        },
        Pattern {
            name: "next".into(),
            args: vec![Term::Var(1)],
        },
    ];
    let fsm = Fsm {
        states: vec![
            "start".into(),
            "using".into(),
            "modified".into(),
            "error".into(),
        ],
        start: 0,
        symbols: vec!["create".into(), "update".into(), "next".into()],
        delta: vec![
            vec![Some(1), None, None],
            vec![None, Some(2), Some(1)],
            vec![None, Some(2), Some(3)],
            vec![None, None, None],
        ],
        verdicts: vec![None, None, None, Some("error".into())],
        fail: None,
    };
    let ends = vec![
        Pattern {
            name: "gone".into(),
            args: vec![Term::Var(0)],
        },
        Pattern {
            name: "dispose".into(),
            args: vec![Term::Var(1)],
        },
    ];
    let mut m = ParamMonitor::new(patterns, fsm)
        .with_creation_events()
        .with_end_events(ends);
    let mut out = Vec::new();
    for e in [
        ev("create", &[1, 10]),
        ev("create", &[2, 20]),
        ev("update", &[1]),
        ev("gone", &[1]),
        ev("gone", &[2]),
    ] {
        m.push(&e, &mut out);
    }
    let before = m.bindings();
    m.push(&ev("next", &[10]), &mut out);
    assert_eq!(out.len(), 1, "{out:?}");
    assert_eq!(
        out[0].binding,
        Binding::Map(vec![(0, Value::Int(1)), (1, Value::Int(10))])
    );
    m.push(&ev("dispose", &[10]), &mut out);
    m.push(&ev("dispose", &[20]), &mut out);
    assert!(m.bindings() < before, "{} -> {}", before, m.bindings());
    assert_eq!(m.bindings(), 1, "only ⊥ is left");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 500, ..ProptestConfig::default() })]

    /// An object's end event, placed after its last mention, changes no verdict: random
    /// machines (with and without `@fail`), traces over a(x, y) and b(y), and end events for
    /// some x and y values. With random constraints too, the verdicts are those of the run
    /// without end events or constraints, for the bindings the constraints admit (a
    /// constrained run frees all of an object's bindings more often: it has fewer of them).
    #[test]
    fn end_events_change_no_verdict(
        delta in prop::collection::vec(prop::collection::vec(prop::option::weighted(0.8, 0usize..3), 2), 3),
        tr in prop::collection::vec((prop::sample::select(vec!["a", "b"]), 1i64..4, 1i64..4), 0..10),
        ended in prop::collection::vec(any::<bool>(), 6),
        fail in any::<bool>(),
        creation in any::<bool>(),
        c in constraints(),
    ) {
        let (patterns, mut fsm, trace) = machine_and_trace(delta, &tr);
        fsm.fail = fail.then(|| "fail".to_string());
        let ends = vec![
            Pattern { name: "ex".into(), args: vec![Term::Var(0)] },
            Pattern { name: "ey".into(), args: vec![Term::Var(1)] },
        ];
        let run = |with_ends: bool, constrained: bool| {
            let mut m = ParamMonitor::new(patterns.clone(), fsm.clone());
            if creation {
                m = m.with_creation_events();
            }
            if with_ends {
                m = m.with_end_events(ends.clone());
            }
            if constrained {
                m = m.with_constraints(&c);
            }
            let mut out = Vec::new();
            let mut reports = Vec::new();
            for (k, e) in trace.iter().enumerate() {
                out.clear();
                m.push(e, &mut out);
                reports.extend(out.drain(..).map(|r| (k, r.binding, r.category)));
                if !with_ends {
                    continue;
                }
                // Objects mentioned for the last time at event k end here, if chosen.
                for (param, name) in [(0usize, "ex"), (1, "ey")] {
                    for v in 1..4i64 {
                        let mentions = |e: &Event| {
                            let pos = match (e.name.as_str(), param) {
                                ("a", p) => p,
                                (_, 1) => 0,
                                _ => return false,
                            };
                            e.args[pos] == Value::Int(v)
                        };
                        let last = trace.iter().rposition(mentions);
                        if last == Some(k) && ended[param * 3 + v as usize - 1] {
                            m.push(&ev(name, &[v]), &mut out);
                            prop_assert!(out.is_empty());
                        }
                    }
                }
            }
            // Reports of one event come in binding-id order, and freed ids are reused.
            reports.sort_by_key(|r| format!("{r:?}"));
            Ok(reports)
        };
        let plain = run(false, false)?;
        prop_assert_eq!(run(true, false)?, plain.clone());
        let check = c.check();
        let admitted: Vec<_> = plain
            .into_iter()
            .filter(|r| matches!(&r.1, Binding::Map(m) if check.admits(m)))
            .collect();
        prop_assert_eq!(run(true, true)?, admitted);
    }

    /// With events binding x alone, y alone and both, creation events may skip a join whose
    /// parts exist; the set of bindings seen must still be join-closed (else a lookup would have
    /// two largest sub-bindings).
    #[test]
    fn creation_events_keep_bindings_join_closed(
        delta in prop::collection::vec(prop::collection::vec(prop::option::weighted(0.6, 0usize..3), 3), 3),
        tr in prop::collection::vec((0usize..3, 1i64..3, 1i64..3), 0..12),
    ) {
        let names = ["a", "b", "c"];
        let patterns = vec![
            Pattern { name: "a".into(), args: vec![Term::Var(0)] },
            Pattern { name: "b".into(), args: vec![Term::Var(1)] },
            Pattern { name: "c".into(), args: vec![Term::Var(0), Term::Var(1)] },
        ];
        let fsm = Fsm {
            states: vec!["s0".into(), "s1".into(), "s2".into()],
            start: 0,
            symbols: names.iter().map(|n| n.to_string()).collect(),
            delta,
            verdicts: vec![None, None, Some("hit".into())],
            fail: None,
        };
        let mut m = ParamMonitor::new(patterns, fsm).with_creation_events();
        let mut out = Vec::new();
        for &(k, x, y) in &tr {
            let e = match k {
                0 => ev("a", &[x]),
                1 => ev("b", &[y]),
                _ => ev("c", &[x, y]),
            };
            m.push(&e, &mut out);
            let seen = m.seen();
            for p in &seen {
                for q in &seen {
                    let j = p.lub(q, false);
                    prop_assert!(j == Binding::Top || seen.contains(&j), "{:?} ⊔ {:?} missing", p, q);
                }
            }
        }
    }
}

/// A pattern argument for the general matcher path: a variable, a constant, `_`.
fn term() -> impl Strategy<Value = Term> {
    prop_oneof![
        3 => (0usize..2).prop_map(Term::Var),
        1 => (1i64..3).prop_map(|c| Term::Const(Value::Int(c))),
        1 => Just(Term::Any),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    /// Patterns with constants, `_` and repeated variables (the matcher is not read off the
    /// event directly then): every binding still has the state of the machine over its slice.
    #[test]
    fn general_patterns_follow_their_slices(
        args_a in prop::collection::vec(term(), 1..3),
        args_b in prop::collection::vec(term(), 1..3),
        delta in prop::collection::vec(prop::collection::vec(prop::option::weighted(0.9, 0usize..3), 2), 3),
        tr in prop::collection::vec((prop::sample::select(vec!["a", "b"]), prop::collection::vec(1i64..3, 1..3)), 0..8),
    ) {
        let patterns = vec![
            Pattern { name: "a".into(), args: args_a },
            Pattern { name: "b".into(), args: args_b },
        ];
        let fsm = Fsm {
            states: vec!["s0".into(), "s1".into(), "s2".into()],
            start: 0,
            symbols: vec!["a".into(), "b".into()],
            delta,
            verdicts: vec![None, None, Some("hit".into())],
            fail: None,
        };
        let trace: Vec<Event> = tr.iter().map(|(n, args)| ev(n, args)).collect();
        let mut m = ParamMonitor::new(patterns.clone(), fsm.clone());
        let mut out = Vec::new();
        for (k, e) in trace.iter().enumerate() {
            m.push(e, &mut out);
            for x in 0..3i64 {
                for y in 0..3i64 {
                    let mut pairs = Vec::new();
                    if x > 0 { pairs.push((0, Value::Int(x))); }
                    if y > 0 { pairs.push((1, Value::Int(y))); }
                    let b = Binding::Map(pairs);
                    let sl = slice(&patterns, &trace[..=k], &b);
                    let want = fsm.run(sl.iter().map(|&i| trace[i].name.as_str()));
                    prop_assert_eq!(m.state_of(&b), want, "{:?} after {} events", b, k + 1);
                }
            }
        }
    }
}

/// Events over three parameters, binding none, one, two and all three of them (the shape of
/// UnsafeMapIterator, and "z", which binds nothing: it moves ⊥, the state every unseen
/// binding starts from).
const THREE_NAMES: [&str; 6] = ["a", "b", "c", "d", "e", "z"];
const THREE_PARAMS: [&[usize]; 6] = [&[0, 1], &[1, 2], &[2], &[0], &[0, 1, 2], &[]];

/// The patterns of [`THREE_NAMES`] and a four-state machine over them with transitions
/// `delta`, whose state 2 reports `hit` and which reports `fail`.
fn three_parameters(delta: Vec<Vec<Option<usize>>>) -> (Vec<Pattern>, Fsm) {
    let patterns = THREE_NAMES
        .iter()
        .zip(THREE_PARAMS)
        .map(|(n, ps)| Pattern {
            name: n.to_string(),
            args: ps.iter().map(|&x| Term::Var(x)).collect(),
        })
        .collect();
    let fsm = Fsm {
        states: vec!["s0".into(), "s1".into(), "s2".into(), "s3".into()],
        start: 0,
        symbols: THREE_NAMES.iter().map(|n| n.to_string()).collect(),
        delta,
        verdicts: vec![None, None, Some("hit".into()), None],
        fail: Some("fail".into()),
    };
    (patterns, fsm)
}

/// Event `k` of [`THREE_NAMES`], its parameters taken from `values`.
fn three_event(k: usize, values: [i64; 3]) -> Event {
    let args: Vec<i64> = THREE_PARAMS[k].iter().map(|&p| values[p]).collect();
    ev(THREE_NAMES[k], &args)
}

/// Every binding of some of the three parameters to values 1..=`max`.
fn three_bindings(max: i64) -> Vec<Binding> {
    let mut out = Vec::new();
    for x in 0..=max {
        for y in 0..=max {
            for z in 0..=max {
                let pairs = [x, y, z]
                    .iter()
                    .enumerate()
                    .filter(|(_, v)| **v > 0)
                    .map(|(p, v)| (p, Value::Int(*v)))
                    .collect();
                out.push(Binding::Map(pairs));
            }
        }
    }
    out
}

/// The names whose flag in `marked` is set (the events marked `creation event`).
fn marked_names(names: &[&str], marked: &[bool]) -> Vec<String> {
    names
        .iter()
        .zip(marked)
        .filter(|(_, m)| **m)
        .map(|(n, _)| n.to_string())
        .collect()
}

/// Two monitors of [`three_parameters`] keep the same bindings and give every binding of
/// values 1 and 2 the same state, after event `step` (0-based).
fn same_bindings_and_states(
    a: &ParamMonitor,
    b: &ParamMonitor,
    step: usize,
) -> Result<(), TestCaseError> {
    let (mut sa, mut sb) = (a.seen(), b.seen());
    sa.sort_by_key(|b| format!("{b:?}"));
    sb.sort_by_key(|b| format!("{b:?}"));
    prop_assert_eq!(&sa, &sb, "bindings after {} events", step + 1);
    for theta in three_bindings(2) {
        prop_assert_eq!(a.state_of(&theta), b.state_of(&theta), "{:?}", theta);
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1000, ..ProptestConfig::default() })]

    /// Enable sets (visiting only the partial bindings whose state can take the event) and the
    /// shortcuts of creation events change nothing: on three parameters and events over none,
    /// one, two and all three of them (the shape of UnsafeMapIterator, and an event that moves
    /// ⊥), the pruned monitor reports the same verdicts, keeps the same bindings and gives
    /// every binding the same state as one that visits every binding without shortcuts;
    /// also when only some events are marked to start bindings (JavaMOP's `creation event`).
    #[test]
    fn enable_sets_change_no_verdict(
        delta in prop::collection::vec(prop::collection::vec(prop::option::weighted(0.6, 0usize..4), 6), 4),
        tr in prop::collection::vec((0usize..6, 1i64..3, 1i64..3, 1i64..3), 0..16),
        marked in prop::collection::vec(any::<bool>(), 6),
    ) {
        let (patterns, fsm) = three_parameters(delta);
        let creators = marked_names(&THREE_NAMES, &marked);
        let mut pruned = ParamMonitor::new(patterns.clone(), fsm.clone()).with_creators(&creators);
        let mut full = ParamMonitor::new(patterns, fsm).with_creators(&creators).with_full_scan();
        let (mut a, mut b) = (Vec::new(), Vec::new());
        for (step, &(k, x, y, z)) in tr.iter().enumerate() {
            let e = three_event(k, [x, y, z]);
            pruned.push(&e, &mut a);
            full.push(&e, &mut b);
            prop_assert_eq!(&a, &b, "verdicts after {} events", step + 1);
            same_bindings_and_states(&pruned, &full, step)?;
        }
    }

    /// Index entries are found by a 32-bit hash of the restriction, so two restrictions may
    /// share one: a lookup may return bindings that do not agree with the event. Making
    /// every restriction share one entry changes no verdict, binding or state, with and
    /// without creation events (whose shortcuts step an entry's bindings directly; with
    /// random `creation event` marks) and with end events (which remove bindings from
    /// entries).
    #[test]
    fn index_collisions_change_no_verdict(
        delta in prop::collection::vec(prop::collection::vec(prop::option::weighted(0.6, 0usize..4), 6), 4),
        tr in prop::collection::vec((0usize..7, 1i64..3, 1i64..3, 1i64..3), 0..16),
        creation in any::<bool>(),
        marked in prop::collection::vec(any::<bool>(), 6),
    ) {
        let (patterns, fsm) = three_parameters(delta);
        let creators = marked_names(&THREE_NAMES, &marked);
        let make = |colliding: bool| {
            let mut m = ParamMonitor::new(patterns.clone(), fsm.clone())
                .with_end_events(vec![Pattern { name: "end".into(), args: vec![Term::Var(2)] }]);
            if creation {
                m = m.with_creators(&creators);
            }
            if colliding {
                m = m.with_colliding_index_entries();
            }
            m
        };
        let (mut plain, mut colliding) = (make(false), make(true));
        let (mut a, mut b) = (Vec::new(), Vec::new());
        for (step, &(k, x, y, z)) in tr.iter().enumerate() {
            let e = if k == 6 { ev("end", &[z]) } else { three_event(k, [x, y, z]) };
            plain.push(&e, &mut a);
            colliding.push(&e, &mut b);
            // (The reports of one event come in the order its entries are visited.)
            a.sort_by_key(|r| format!("{r:?}"));
            b.sort_by_key(|r| format!("{r:?}"));
            prop_assert_eq!(&a, &b, "verdicts after {} events", step + 1);
            same_bindings_and_states(&plain, &colliding, step)?;
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 500, ..ProptestConfig::default() })]

    /// Properties whose every event is `name(x)` for one parameter x run on a map from object
    /// to state instead of the general indexes: the same reports, states, bindings seen and
    /// bindings skipped, on random machines (any start, with and without `@fail`), with and
    /// without creation events, with and without end events (on x, anywhere, even before an
    /// object comes back, and on another parameter), with events of the wrong arity (none or
    /// two arguments) and a machine symbol no event declares.
    #[test]
    fn one_object_properties_run_as_with_the_general_indexes(
        delta in prop::collection::vec(prop::collection::vec(prop::option::weighted(0.8, 0usize..3), 4), 3),
        start in 0usize..3,
        param in 0usize..3,
        tr in prop::collection::vec((0usize..8, 1i64..5), 0..16),
        fail in any::<bool>(),
        creation in any::<bool>(),
        ends in any::<bool>(),
        marked in prop::collection::vec(any::<bool>(), 4),
    ) {
        let names = ["a", "b", "c"];
        let creators = marked_names(&["a", "b", "c", "d"], &marked);
        let patterns: Vec<Pattern> = names
            .iter()
            .map(|n| Pattern { name: n.to_string(), args: vec![Term::Var(param)] })
            .collect();
        let fsm = Fsm {
            states: vec!["s0".into(), "s1".into(), "s2".into()],
            start,
            // "d" is read by the machine but declared by no event.
            symbols: ["a", "b", "c", "d"].iter().map(|n| n.to_string()).collect(),
            delta,
            verdicts: vec![None, Some("seen".into()), Some("hit".into())],
            fail: fail.then(|| "fail".to_string()),
        };
        let end_patterns = vec![
            Pattern { name: "end".into(), args: vec![Term::Var(param)] },
            Pattern { name: "other".into(), args: vec![Term::Var((param + 1) % 3)] },
        ];
        let make = |general: bool| {
            let mut m = ParamMonitor::new(patterns.clone(), fsm.clone());
            if general {
                m = m.with_general_indexes();
            }
            if creation {
                m = m.with_creators(&creators);
            }
            if ends {
                m = m.with_end_events(end_patterns.clone());
            }
            m
        };
        let (mut fast, mut general) = (make(false), make(true));
        prop_assert!(fast.is_one_object() && !general.is_one_object());
        let (mut a, mut b) = (Vec::new(), Vec::new());
        for (k, &(n, v)) in tr.iter().enumerate() {
            let e = match n {
                3 => ev("end", &[v]),
                4 => ev("a", &[v, v]), // the wrong arity: matches no pattern
                5 => ev("b", &[]),
                6 => ev("d", &[v]),
                7 => ev("other", &[v]),
                _ => ev(names[n], &[v]),
            };
            a.clear();
            b.clear();
            fast.push(&e, &mut a);
            general.push(&e, &mut b);
            prop_assert_eq!(&a, &b, "reports of event {}", k);
            let bindings = (0..5i64).flat_map(|v| {
                let object = (param, Value::Int(v));
                let other = ((param + 1) % 3, Value::Int(1));
                let mut both = vec![object, other];
                both.sort_unstable_by_key(|p| p.0);
                [
                    Binding::Map(vec![object]),
                    Binding::Map(vec![other]),
                    Binding::Map(both),
                ]
            });
            for theta in bindings {
                prop_assert_eq!(fast.state_of(&theta), general.state_of(&theta), "{:?} after {}", theta, k);
            }
            prop_assert_eq!(fast.bindings(), general.bindings());
            prop_assert_eq!(fast.skipped(), general.skipped());
            let (mut x, mut y) = (fast.seen(), general.seen());
            x.sort_by_key(|b| format!("{b:?}"));
            y.sort_by_key(|b| format!("{b:?}"));
            prop_assert_eq!(x, y);
        }
    }
}

/// Random constraints between three parameters: order constraints (strict or not) and
/// inequalities.
fn constraints() -> impl Strategy<Value = Constraints> {
    let pair = (0usize..3, 0usize..3);
    (
        prop::collection::vec((pair.clone(), any::<bool>()), 0..3),
        prop::collection::vec(pair, 0..2),
    )
        .prop_map(|(order, distinct)| Constraints {
            order: order.into_iter().map(|((a, b), s)| (a, b, s)).collect(),
            distinct,
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1000, ..ProptestConfig::default() })]

    /// Algorithm A with constraints (paper 03): on three parameters and events over none, one,
    /// two and all three of them, with and without creation events and enable sets, the
    /// constrained monitor keeps exactly the bindings seen without constraints that can be
    /// extended to a solution, gives each of them the same state, reports their verdicts and
    /// only theirs, and answers `None` for every other binding. Values are 1..3 and constraints
    /// random (inconsistent ones included: nothing is monitored then, ⊥ included).
    #[test]
    fn constraints_keep_the_bindings_that_can_be_solutions(
        delta in prop::collection::vec(prop::collection::vec(prop::option::weighted(0.7, 0usize..4), 6), 4),
        tr in prop::collection::vec((0usize..6, 1i64..4, 1i64..4, 1i64..4), 0..14),
        c in constraints(),
        creation in any::<bool>(),
        full in any::<bool>(),
    ) {
        let (patterns, fsm) = three_parameters(delta);
        let make = || {
            let mut m = ParamMonitor::new(patterns.clone(), fsm.clone());
            if creation {
                m = m.with_creation_events();
            }
            if full {
                m = m.with_full_scan();
            }
            m
        };
        let check = c.check();
        let admitted = |b: &Binding| match b {
            Binding::Map(m) => check.admits(m),
            Binding::Top => false,
        };
        let (mut plain, mut constrained) = (make(), make().with_constraints(&c));
        let (mut a, mut b) = (Vec::new(), Vec::new());
        for (step, &(k, x, y, z)) in tr.iter().enumerate() {
            let e = three_event(k, [x, y, z]);
            a.clear();
            b.clear();
            plain.push(&e, &mut a);
            constrained.push(&e, &mut b);
            a.retain(|r| admitted(&r.binding));
            // Reports of one event come in binding-id order, and ids differ.
            a.sort_by_key(|r| format!("{r:?}"));
            b.sort_by_key(|r| format!("{r:?}"));
            prop_assert_eq!(&a, &b, "verdicts of event {}", step);
            let mut sp: Vec<Binding> = plain.seen().into_iter().filter(|b| admitted(b)).collect();
            let mut sc = constrained.seen();
            sp.sort_by_key(|b| format!("{b:?}"));
            sc.sort_by_key(|b| format!("{b:?}"));
            prop_assert_eq!(&sp, &sc, "bindings after {} events", step + 1);
            for theta in three_bindings(3) {
                let want = if admitted(&theta) { plain.state_of(&theta) } else { None };
                prop_assert_eq!(constrained.state_of(&theta), want, "{:?}", theta);
            }
        }
    }
}

/// JavaMOP's marked creation events: once a property marks some, only they start a binding
/// from nothing; the others still extend the bindings that exist.
#[test]
fn only_marked_events_start_bindings() {
    // P(x, y): a(x) then b(x, y) is `late`; b(x, y) with nothing before it is `early`.
    let patterns = vec![
        Pattern {
            name: "a".into(),
            args: vec![Term::Var(0)],
        },
        Pattern {
            name: "b".into(),
            args: vec![Term::Var(0), Term::Var(1)],
        },
    ];
    let fsm = Fsm {
        states: vec!["start".into(), "seen".into(), "early".into(), "late".into()],
        start: 0,
        symbols: vec!["a".into(), "b".into()],
        delta: vec![
            vec![Some(1), Some(2)],
            vec![None, Some(3)],
            vec![None, None],
            vec![None, None],
        ],
        verdicts: vec![None, None, Some("early".into()), Some("late".into())],
        fail: None,
    };
    let trace = [
        ev("b", &[1, 2]),
        ev("a", &[1]),
        ev("b", &[1, 2]),
        ev("b", &[3, 4]),
    ];
    let run = |creators: &[String]| {
        let mut m = ParamMonitor::new(patterns.clone(), fsm.clone()).with_creators(creators);
        let mut out = Vec::new();
        for e in &trace {
            m.push(e, &mut out);
        }
        let reports: Vec<(usize, String)> =
            out.into_iter().map(|r| (r.event, r.category)).collect();
        (
            reports,
            m.state_of(&Binding::Map(vec![(0, Value::Int(3)), (1, Value::Int(4))])),
        )
    };
    // Unmarked: every event the machine can take starts a binding.
    let (reports, _) = run(&[]);
    assert_eq!(reports, [(0, "early".into()), (3, "early".into())]);
    // Marked `a`: b(1, 2) and b(3, 4) start nothing; b(1, 2) after a(1) extends (x ↦ 1).
    let (reports, state) = run(&["a".to_string()]);
    assert_eq!(reports, [(2, "late".into())]);
    assert_eq!(
        state,
        Some(0),
        "(3, 4) was never created: it is still ⊥'s start"
    );
    // Marking every event is the same as marking none.
    assert_eq!(run(&["a".to_string(), "b".to_string()]).0, run(&[]).0);
}

/// The same for a one-object property (a map from object to state).
#[test]
fn only_marked_events_start_one_object_bindings() {
    let (patterns, fsm) = has_next();
    let trace = [
        ev("next", &[1]),
        ev("hasnexttrue", &[2]),
        ev("next", &[2]),
        ev("next", &[2]),
    ];
    let mut m = ParamMonitor::new(patterns, fsm).with_creators(&["hasnexttrue".to_string()]);
    assert!(m.is_one_object());
    let mut out = Vec::new();
    for e in &trace {
        m.push(e, &mut out);
    }
    // next(1) starts nothing; iterator 2's second next is the violation.
    let events: Vec<usize> = out.iter().map(|r| r.event).collect();
    assert_eq!(events, [3]);
    assert_eq!(m.bindings(), 2, "⊥ and iterator 2");
}
