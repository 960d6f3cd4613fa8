//! The fuzz targets' runs: `short::TARGET` (a fixed seed, seconds; `cargo test`),
//! `long::TARGET` (ignored: `RVMON_FUZZ_CASES=1000000 cargo test --release -p rvmon-fuzz --
//! --ignored`, or `bench/fuzz.sh`), and the regression inputs kept in `regressions/`.

use rvmon_fuzz::targets::{target, TARGETS};
use rvmon_fuzz::{fuzz, replay, Settings};

fn short(name: &str) {
    let t = target(name);
    let report = fuzz(t, &Settings::short(t));
    eprintln!("{}", report.summary(name));
    assert!(
        report.crashes.is_empty() && report.hangs.is_empty(),
        "{report:#?}"
    );
}

fn long(name: &str) {
    let t = target(name);
    let settings = Settings::long();
    let report = fuzz(t, &settings);
    // One line a target, which bench/fuzz.sh collects.
    println!("{} (seed {})", report.summary(name), settings.seed);
    for (path, why) in &report.crashes {
        println!("fuzz {name}: crash {}: {why}", path.display());
    }
    for path in &report.hangs {
        println!("fuzz {name}: hang {}", path.display());
    }
    assert!(
        report.crashes.is_empty() && report.hangs.is_empty(),
        "{report:#?}"
    );
}

macro_rules! targets {
    ($($name:ident),* $(,)?) => {
        const NAMES: &[&str] = &[$(stringify!($name)),*];
        mod short {
            $(#[test] fn $name() { super::short(stringify!($name)) })*
        }
        mod long {
            $(
                #[test]
                #[ignore = "the long run (bench/fuzz.sh)"]
                fn $name() { super::long(stringify!($name)) }
            )*
        }
    };
}

targets!(
    formula,
    ltl,
    imprecise,
    monpoly_formula,
    signature,
    monpoly_log,
    csv,
    csrv_csv,
    signal_csv,
    json,
    jsonl,
    xml,
    lola,
    stl,
    lola_csv,
    lola_jsonl,
    rvm,
    monpoly_args,
    monpoly_state,
    serve_batch,
    r2u2_spec,
    r2u2_trace,
    modelplex,
    automaton,
    smc,
    token_file,
);

#[test]
fn every_target_has_its_runs() {
    let names: Vec<&str> = TARGETS.iter().map(|t| t.name).collect();
    assert_eq!(names, NAMES);
}

/// Inputs that once crashed a target, kept as files (`regressions/fixed/TARGET/`): none may.
#[test]
fn regressions() {
    let failed: Vec<String> = TARGETS.iter().flat_map(|t| replay("fixed", t)).collect();
    assert!(failed.is_empty(), "these inputs crash: {failed:#?}");
}

/// Inputs that crash, hang or abort today, kept until their fix lands
/// (`regressions/pending/TARGET/`); this test fails while any of them does, and the input
/// moves to `fixed/` with its fix.
#[test]
#[ignore = "inputs that still crash, hang or abort (regressions/README.md); run under ulimit -v"]
fn pending_regressions() {
    let failed: Vec<String> = TARGETS.iter().flat_map(|t| replay("pending", t)).collect();
    assert!(failed.is_empty(), "these inputs crash: {failed:#?}");
}

/// Each target accepts some of its seeds, and the specification targets every bundled
/// example (so that their mutants reach the compilers and the engines).
#[test]
fn seeds_are_accepted() {
    let accepts = |t: &'static rvmon_fuzz::targets::Target, s: &[u8]| {
        rvmon_fuzz::on_big_stack(|| (t.run)(s)).expect("a seed does not crash")
    };
    for t in TARGETS {
        let seeds = t.grammar(2).seeds;
        assert!(seeds.iter().any(|s| accepts(t, s)), "{}", t.name);
        if [
            "formula",
            "ltl",
            "monpoly_formula",
            "lola",
            "stl",
            "rvm",
            "monpoly_log",
        ]
        .contains(&t.name)
        {
            for example in t.bundled_examples() {
                let text = String::from_utf8_lossy(&example);
                assert!(accepts(t, &example), "{}: {text}", t.name);
            }
        }
    }
}
