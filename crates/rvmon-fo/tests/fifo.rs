//! rvmon's formulation of DejaVu's FIFO property (`examples/dejavu/fifo.mfotl`) against DejaVu's
//! own formula, which MonPoly rejects but the brute-force reference evaluator can run.
//!
//! The formulation relies on the property's own well-formedness conditions (each element enters
//! once, exits once, after entering), so after a first violation the two may disagree. What it
//! claims, and what is checked here on random traces, is that **the first violation is the
//! same**: every time point up to the first violation of either gets the same verdict. The
//! traces are mostly well-formed FIFO runs with occasional faults (an exit out of order, an
//! element entering or exiting twice, an exit of an element that never entered), one event per
//! time point as in DejaVu's logs, sometimes none.

use std::path::Path;

use proptest::prelude::*;
use rvmon_core::{Interner, Value};
use rvmon_fo::{compile, FoEngine};
use rvmon_logic::monpoly::candidate_forms;
use rvmon_logic::reference::{evaluate_fo, time_point, RefFoTimePoint};
use rvmon_logic::{parse_formula, Formula, FormulaKind};
use rvmon_trace::Signature;

const SIG: &str = "enter(int) exit(int)";

/// DejaVu's property (FMSD, property 3), as in `property3-fifo/prop3.mfotl`.
const DEJAVU: &str = "FORALL x. ( \
    (enter(x) IMPLIES NOT PREVIOUS ONCE enter(x)) AND \
    (exit(x) IMPLIES NOT PREVIOUS ONCE exit(x)) AND \
    (exit(x) IMPLIES PREVIOUS ONCE enter(x)) AND \
    FORALL y. ((exit(y) AND ONCE (enter(y) AND PREVIOUS ONCE enter(x))) IMPLIES PREVIOUS ONCE exit(x)))";

#[derive(Clone, Debug)]
enum Step {
    /// A new element enters.
    Enter,
    /// The oldest element in the queue exits.
    Exit,
    /// A time point without events.
    Nothing,
    /// A fault: `enter(v)` or `exit(v)` of a value chosen among the first few.
    Fault(bool, i64),
}

fn trace() -> impl Strategy<Value = Vec<RefFoTimePoint>> {
    let step = prop_oneof![
        4 => Just(Step::Enter),
        4 => Just(Step::Exit),
        1 => Just(Step::Nothing),
        1 => (any::<bool>(), 0i64..4).prop_map(|(enter, v)| Step::Fault(enter, v)),
    ];
    prop::collection::vec(step, 0..16).prop_map(|steps| {
        let (mut next, mut queue) = (0i64, std::collections::VecDeque::new());
        let event = |name: &str, v: i64| vec![(name.to_string(), vec![Value::Int(v)])];
        steps
            .into_iter()
            .enumerate()
            .map(|(i, step)| {
                let events = match step {
                    Step::Enter => {
                        queue.push_back(next);
                        next += 1;
                        event("enter", next - 1)
                    }
                    Step::Exit => match queue.pop_front() {
                        Some(v) => event("exit", v),
                        None => vec![],
                    },
                    Step::Nothing => vec![],
                    Step::Fault(true, v) => event("enter", v),
                    Step::Fault(false, v) => event("exit", v),
                };
                (i as i64, events)
            })
            .collect()
    })
}

fn negated(f: Formula) -> Formula {
    let span = f.span;
    Formula::new(FormulaKind::Not(Box::new(f)), span)
}

/// The first time point at which `verdicts` (one per time point) reports a violation.
fn first(verdicts: &[bool]) -> Option<usize> {
    verdicts.iter().position(|&v| v)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 500, ..ProptestConfig::default() })]

    #[test]
    fn the_example_finds_the_first_violation_of_dejavus_formula(tr in trace()) {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/dejavu/fifo.mfotl");
        let text = std::fs::read_to_string(path).unwrap();
        let sig = Signature::parse("sig", SIG).unwrap();
        let mut interner = Interner::new();
        // As `rvmon check` does: the first normal form the engine compiles.
        let plan = candidate_forms(&negated(parse_formula("fifo.mfotl", &text).unwrap()))
            .iter()
            .find_map(|f| compile(f, &[], &sig, &mut interner, "fifo.mfotl", &text).ok())
            .expect("the example compiles");
        let mut engine = FoEngine::new(plan);
        let mut answers = Vec::new();
        for (i, step) in tr.iter().enumerate() {
            let tp = time_point(i, step, &mut interner);
            engine.step(&tp, &mut interner, &mut answers).unwrap();
        }
        prop_assert_eq!(answers.len(), tr.len());
        let got: Vec<bool> = answers.iter().map(|a| !a.rel.is_empty()).collect();
        let dejavu = negated(parse_formula("dejavu", DEJAVU).unwrap());
        let expected: Vec<bool> = evaluate_fo(&dejavu, &tr, &mut interner)
            .iter()
            .map(|r| !r.is_empty())
            .collect();
        prop_assert_eq!(first(&got), first(&expected), "rvmon {:?}, DejaVu {:?}", got, expected);
    }
}
