//! The first-order compiler and engine on what the parser's limits let through: formulas
//! nested to the limit, and `AND`/`OR` chains of any length (a 25,000-term chain once passed
//! the parser and overflowed the stack of every later pass).

use rvmon_core::{Interner, TimePoint};
use rvmon_fo::{compile, expand_lets, FoEngine};
use rvmon_logic::{free_vars, parse_formula, MAX_NESTING};
use rvmon_trace::{MonpolyLogReader, Signature, TraceReader};

const SIG: &str = "p(int) q(int,int)";
const LOG: &str = "@0 p(1) q(1,2)\n@1 p(2)\n@2 p(1) q(2,3)\n";

/// The number of tuples `formula` is satisfied by at each time point of [`LOG`].
fn answers(formula: &str) -> Vec<usize> {
    let f = parse_formula("f", formula).unwrap();
    let sig = Signature::parse("sig", SIG).unwrap();
    let mut reader = MonpolyLogReader::new(LOG.as_bytes(), "log", Some(sig.clone()));
    let plan = compile(
        &f,
        &free_vars(&f),
        &sig,
        reader.interner_mut(),
        "f",
        formula,
    )
    .unwrap();
    let mut engine = FoEngine::new(plan);
    let (mut tp, mut out) = (TimePoint::default(), Vec::new());
    while reader.next_time_point(&mut tp).unwrap() {
        engine.step(&tp, reader.interner_mut(), &mut out).unwrap();
    }
    let interner: &mut Interner = reader.interner_mut();
    engine.close(interner, &mut out).unwrap();
    let mut counts = vec![0; 3];
    for a in out {
        counts[a.tp as usize] += a.rel.len();
    }
    counts
}

/// `f` on a thread with the stack of a main thread under the usual `ulimit -s 8192` (test
/// threads have 2 MiB; `rvmon` itself gives its threads 32 MiB).
fn on_main_stack(f: impl FnOnce() + Send + 'static) {
    let t = std::thread::Builder::new().stack_size(8 << 20).spawn(f);
    t.expect("a thread").join().expect("no panic");
}

#[test]
fn long_chains_compile_and_run() {
    on_main_stack(|| {
        // (Longer ones work as well, but take longer than linear: `rvmon check` prepares a
        // 25,000-term chain in about 8 s in a release build, mostly in MonPoly's rewriting.)
        let and = vec!["p(x)"; 5_000].join(" AND ");
        assert_eq!(answers(&and), [1, 1, 1]);
        let or = vec!["(EXISTS y. q(x,y))"; 5_000].join(" OR ");
        assert_eq!(answers(&or), [1, 0, 1]);
    });
}

#[test]
fn formulas_at_the_limit_compile_and_run() {
    on_main_stack(|| {
        let n = MAX_NESTING - 2;
        assert_eq!(
            answers(&format!("{}p(x)", "ONCE[0,5] ".repeat(n))),
            [1, 2, 2]
        );
        assert_eq!(
            answers(&format!("{}p(x)", "PREVIOUS ".repeat(n))),
            [0, 0, 0]
        );
        assert_eq!(
            answers(&format!("{}q(x,y)", "EXISTS y. ".repeat(n))),
            [1, 0, 1]
        );
        let until = format!("{}p(x)", "p(x) UNTIL[0,1] ".repeat(n));
        assert_eq!(answers(&until), [1, 1, 1]);
        // A LET predicate counts as its definition at its uses.
        let text = format!("LET r(x) = {}p(x) IN r(x) AND r(x)", "ONCE ".repeat(n - 10));
        assert_eq!(answers(&text), [1, 2, 2]);
        let _ = expand_lets(&parse_formula("f", &text).unwrap());
    });
}
