//! The propositional compiler and engines on what the parser's limits let through: formulas
//! nested to the limit, and `AND`/`OR` chains of any length (which a 25,000-term chain once
//! crashed: parsed, then too deep for every later pass).

use rvmon_core::{TimePoint, Truth, Verdict};
use rvmon_logic::{parse_formula, MAX_NESTING};
use rvmon_mtl::Step;
use rvmon_mtl::{Engine, Program};
use rvmon_trace::{MonpolyLogReader, TraceReader};

/// The violated time points of `formula` on `log`, as `rvmon check` runs it.
fn violations(formula: &str, log: &str) -> Vec<u64> {
    let f = parse_formula("spec", formula).unwrap();
    let mut reader = MonpolyLogReader::new(log.as_bytes(), "log", None);
    let program = Program::compile(&f, reader.interner_mut(), "spec", formula).unwrap();
    let mut engine = Engine::three_valued(program);
    let (mut point, mut verdicts) = (TimePoint::default(), Vec::<Verdict>::new());
    while reader.next_time_point(&mut point).unwrap() {
        engine.step(&point, &mut verdicts).unwrap();
    }
    engine.finish(&mut verdicts);
    let mut out: Vec<u64> = verdicts
        .iter()
        .filter(|v| v.value == Truth::False)
        .map(|v| v.tp)
        .collect();
    out.sort_unstable();
    out
}

/// `f` on a thread with the stack of a main thread under the usual `ulimit -s 8192` (test
/// threads have 2 MiB; `rvmon` itself gives its threads 32 MiB).
fn on_main_stack(f: impl FnOnce() + Send + 'static) {
    let t = std::thread::Builder::new().stack_size(8 << 20).spawn(f);
    t.expect("a thread").join().expect("no panic");
}

const LOG: &str = "@0 p()\n@1 p() q()\n@2 q()\n@3 p()\n";

#[test]
fn long_chains_compile_and_run() {
    on_main_stack(|| {
        for n in [25_000, 100_000] {
            let and = vec!["p()"; n].join(" AND ");
            assert_eq!(violations(&and, LOG), [2]);
            let or = vec!["q()"; n].join(" OR ");
            assert_eq!(violations(&or, LOG), [0, 3]);
        }
    });
}

#[test]
fn formulas_at_the_limit_compile_and_run() {
    on_main_stack(|| {
        let n = MAX_NESTING - 2;
        let shapes = [
            (format!("{}p()", "NOT NOT ".repeat(n / 2)), vec![2]),
            (format!("{}p()", "ONCE[0,0] ".repeat(n)), vec![2]),
            (format!("{}p()", "PAST_ALWAYS ".repeat(n)), vec![2, 3]),
            (format!("{}q()", "p() SINCE[0,5] ".repeat(n)), vec![0]),
            (format!("{}q()", "EVENTUALLY[0,1] ".repeat(n)), vec![3]),
            (format!("{}p()", "p() UNTIL[0,0] ".repeat(n)), vec![2]),
            (
                format!("{}p(){}", "(p() OR NOT ".repeat(n / 2), ")".repeat(n / 2)),
                vec![],
            ),
        ];
        for (text, expected) in shapes {
            assert_eq!(violations(&text, LOG), expected, "{}", &text[..20]);
        }
    });
}

/// `request R (!X a R (!X a R … R !grant))` (Spot's syntax) nested `n` deep, in MonPoly's:
/// `p R q` is `NOT (NOT p UNTIL NOT q)`.
fn release_chain(n: usize) -> String {
    let mut f = "NOT grant()".to_string();
    for _ in 0..n {
        f = format!("NOT ((NEXT a()) UNTIL NOT ({f}))");
    }
    format!("NOT ((NOT request()) UNTIL NOT ({f}))")
}

/// The three-valued engine's residues of a release chain grow exponentially with its depth
/// (2^21 BDD nodes, 10 GB, at 21 levels): past its budget, a time point is an error, with no
/// verdict of its own, and the verdicts before it stand.
#[test]
fn exponential_residues_are_an_error_not_a_hang() {
    let log = "@0 request()\n@1 a()\n@2 grant()\n";
    let run = |text: &str| {
        let f = parse_formula("spec", text).unwrap();
        let mut reader = MonpolyLogReader::new(log.as_bytes(), "log", None);
        let program = Program::compile(&f, reader.interner_mut(), "spec", text).unwrap();
        let mut engine = Engine::three_valued(program);
        assert!(engine.is_three_valued());
        let (mut point, mut verdicts) = (TimePoint::default(), Vec::<Verdict>::new());
        while reader.next_time_point(&mut point).unwrap() {
            engine.step(&point, &mut verdicts)?;
        }
        engine.finish(&mut verdicts);
        Ok::<_, rvmon_core::Error>(verdicts.len())
    };
    assert_eq!(run(&release_chain(3)).unwrap(), 3);
    let e = run(&release_chain(24)).unwrap_err().to_string();
    assert!(
        e.contains("at time point 0") && e.contains("BDD operations"),
        "{e}"
    );
}
