//! Paper 06, Prop. 1: LTL with past translated to stream equations agrees with LTL's
//! finite-word semantics (the brute-force reference evaluator) at every position, and with
//! every verdict the propositional engine decides while the trace is still running.

use proptest::prelude::*;
use rvmon_core::{Interner, Truth};
use rvmon_logic::parse_formula;
use rvmon_logic::reference::{evaluate, RefTimePoint};
use rvmon_mtl::{Engine, Program};
use rvmon_stream::engine::Event;
use rvmon_stream::ltl::ltl_to_spec;
use rvmon_stream::value::Val;
use rvmon_stream::{compile, Step, StreamEngine};

const PROPS: [&str; 3] = ["p", "q", "r"];

fn formula() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        6 => prop::sample::select(&PROPS[..]).prop_map(|p| format!("{p}()")),
        1 => Just("TRUE".to_string()),
        1 => Just("FALSE".to_string()),
    ];
    leaf.prop_recursive(4, 16, 2, |inner| {
        prop_oneof![
            inner.clone().prop_map(|a| format!("(NOT {a})")),
            (
                inner.clone(),
                inner.clone(),
                prop::sample::select(&["AND", "OR", "IMPLIES", "EQUIV"][..])
            )
                .prop_map(|(a, b, op)| format!("({a} {op} {b})")),
            (
                inner.clone(),
                prop::sample::select(
                    &[
                        "PREVIOUS",
                        "ONCE",
                        "PAST_ALWAYS",
                        "NEXT",
                        "EVENTUALLY",
                        "ALWAYS"
                    ][..]
                )
            )
                .prop_map(|(a, op)| format!("({op} {a})")),
            (
                inner.clone(),
                inner.clone(),
                prop::sample::select(&["SINCE", "UNTIL"][..])
            )
                .prop_map(|(a, b, op)| format!("({a} {op} {b})")),
        ]
    })
}

fn trace() -> impl Strategy<Value = Vec<RefTimePoint>> {
    prop::collection::vec(
        prop::collection::vec(prop::sample::select(&PROPS[..]), 0..3),
        1..15,
    )
    .prop_map(|steps| {
        steps
            .into_iter()
            .enumerate()
            .map(|(i, ps)| (i as i64, ps.into_iter().map(String::from).collect()))
            .collect()
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1500, ..ProptestConfig::default() })]

    #[test]
    fn translation_agrees_with_ltl_and_the_propositional_engine(text in formula(), tr in trace()) {
        let f = parse_formula("f", &text).unwrap();
        let (spec, root) = ltl_to_spec(&f).unwrap();
        let prog = compile("ltl.lola", &spec).unwrap_or_else(|e| panic!("{e}\n{spec}"));
        // Only the unbounded future operators make a positive cycle (memory that can grow).
        let future = text.contains("UNTIL") || text.contains("EVENTUALLY") || text.replace("PAST_ALWAYS", "").contains("ALWAYS");
        prop_assert_eq!(prog.unbounded_cycle.is_some(), future, "{}", spec);
        let inputs: Vec<String> = prog.inputs.iter().map(|i| i.0.clone()).collect();
        let root_k = prog.outputs.iter().position(|o| o.name == root).unwrap();
        let mut engine = StreamEngine::new(prog);
        engine.record_outputs();
        let mut fired = Vec::new();
        for (ts, ps) in &tr {
            let values = inputs.iter().map(|p| Some(Val::Bool(ps.contains(p)))).collect();
            engine.step(&Event { time: *ts, values }, &mut fired).unwrap();
        }
        engine.finish(&mut fired).unwrap();
        let mut got = vec![None; tr.len()];
        for d in engine.take_decided() {
        let (k, idx, v) = (d.output, d.index, d.value);
            if k == root_k {
                got[idx as usize] = Some(v == Val::Bool(true));
            }
        }
        let expected: Vec<Option<bool>> = evaluate(&f, &tr).into_iter().map(Some).collect();
        prop_assert_eq!(&got, &expected, "{}\n{}", text, spec);

        // The propositional engine's verdicts decided before the end hold on every extension,
        // so also on this trace ending here.
        let mut interner = Interner::new();
        let program = Program::compile(&f, &mut interner, "f", &text).unwrap();
        let mut mtl = Engine::new(program.clone());
        let mut verdicts = Vec::new();
        for (i, (ts, ps)) in tr.iter().enumerate() {
            let holds: Vec<bool> = program.prop_names.iter().map(|n| ps.contains(n)).collect();
            mtl.set_holds(&holds);
            mtl.step_props(i as u64, *ts, &mut verdicts).unwrap();
        }
        for v in verdicts {
            if v.value != Truth::Unknown {
                prop_assert_eq!(Some(v.value == Truth::True), expected[v.tp as usize], "{} at {}", text, v.tp);
            }
        }
    }
}
