//! rvmon's formulation of DejaVu's data-race property (`examples/dejavu/datarace.mfotl`:
//! locksets, and races looked for only at accesses) against DejaVu's own formula, which MonPoly
//! cannot monitor but the brute-force reference evaluator can: the same racing triples
//! (t1, t2, x) at every time point of random traces.

use std::collections::BTreeSet;
use std::path::Path;

use proptest::prelude::*;
use rvmon_core::{Interner, Value};
use rvmon_fo::{compile, FoEngine};
use rvmon_logic::monpoly::analyzed_formula;
use rvmon_logic::reference::{evaluate_fo, time_point, OrdValue, RefFoTimePoint};
use rvmon_logic::{free_vars, parse_formula, Formula, FormulaKind};
use rvmon_trace::Signature;

const SIG: &str = "acq(int,int) rel(int,int) read(int,int) write(int,int)";

/// DejaVu's property (FMSD, property 6), its violations: the triples for which the
/// implication fails.
const DEJAVU: &str = "(ONCE (read(t1,x) OR write(t1,x))) AND (ONCE write(t2,x)) AND NOT EXISTS l. \
    ((PAST_ALWAYS ((read(t1,x) OR write(t1,x)) IMPLIES (NOT rel(t1,l) SINCE acq(t1,l)))) \
    AND (PAST_ALWAYS ((read(t2,x) OR write(t2,x)) IMPLIES (NOT rel(t2,l) SINCE acq(t2,l)))))";

fn trace() -> impl Strategy<Value = Vec<RefFoTimePoint>> {
    let event = (0usize..4, 1i64..4, 1i64..4).prop_map(|(k, a, b)| {
        let name = ["acq", "rel", "read", "write"][k];
        (name.to_string(), vec![Value::Int(a), Value::Int(b)])
    });
    // Mostly one event per time point, as in DejaVu's logs; sometimes none or two.
    prop::collection::vec(prop::collection::vec(event, 0..3), 0..14).prop_map(|steps| {
        steps
            .into_iter()
            .enumerate()
            .map(|(i, evs)| (i as i64, evs))
            .collect()
    })
}

/// The example's policy, negated as `rvmon check` negates it: its violations.
fn example() -> (Formula, Vec<String>, String) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/dejavu/datarace.mfotl");
    let text = std::fs::read_to_string(path).unwrap();
    let f = parse_formula("datarace.mfotl", &text).unwrap();
    let vars = free_vars(&f);
    let negated = Formula::new(FormulaKind::Not(Box::new(f.clone())), f.span);
    (analyzed_formula(&negated), vars, text)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn the_example_finds_the_races_dejavus_formula_defines(tr in trace()) {
        let (violations, vars, text) = example();
        let sig = Signature::parse("sig", SIG).unwrap();
        let mut interner = Interner::new();
        let plan = compile(&violations, &vars, &sig, &mut interner, "datarace.mfotl", &text)
            .unwrap();
        let order = plan.output_order.clone();
        let mut engine = FoEngine::new(plan);
        let mut answers = Vec::new();
        for (i, step) in tr.iter().enumerate() {
            let tp = time_point(i, step, &mut interner);
            engine.step(&tp, &mut interner, &mut answers).unwrap();
        }
        let dejavu = parse_formula("dejavu", DEJAVU).unwrap();
        let dejavu_vars = free_vars(&dejavu);
        let expected = evaluate_fo(&dejavu, &tr, &mut interner);
        prop_assert_eq!(answers.len(), tr.len());
        for a in answers {
            // The engine's columns, in the order of the reference's variables.
            let got: BTreeSet<Vec<OrdValue>> = a
                .rel
                .iter()
                .map(|t| {
                    dejavu_vars
                        .iter()
                        .map(|v| OrdValue(t[order[vars.iter().position(|w| w == v).unwrap()]]))
                        .collect()
                })
                .collect();
            prop_assert_eq!(&got, &expected[a.tp as usize], "time point {}", a.tp);
        }
    }
}
