//! The front door (the `rvmon` library) against the command line: a monitor built through the
//! library alone gives the CLI's verdicts, and `rvmon check --output monpoly` writes what
//! `rvmon monpoly -negate` writes.

use std::path::PathBuf;

use proptest::prelude::*;
use rvmon::cascade::{formula_monitor, FormulaSpec, Lang};
use rvmon::run::{run, RunOptions};
use rvmon_cli::check_cmd::{self, CheckArgs, Output};
use rvmon_cli::monpoly_cmd::{self, MonpolyArgs};
use rvmon_core::{Collect, Kind, StringCollection};
use rvmon_logic::monpoly::{analyzed_formula, is_filterable_empty_tp};
use rvmon_testkit::gen;
use rvmon_trace::{open_reader, Signature, TraceFormat, TraceOptions};

fn dir(name: &str) -> PathBuf {
    let d = rvmon_testkit::scratch(env!("CARGO_TARGET_TMPDIR"), "front_door").join(name);
    std::fs::create_dir_all(&d).unwrap();
    d
}

/// An offline run, without progress.
fn offline() -> RunOptions {
    RunOptions {
        online: false,
        collect_strings: StringCollection::DEFAULT_FLOOR,
        progress: false,
        fallback: None,
    }
}

/// `rvmon check` in-process: its standard output and exit status.
fn check(args: &CheckArgs) -> (String, i32) {
    let mut out = Vec::new();
    let status = check_cmd::run(args, &mut out, &mut std::io::sink()).unwrap();
    (String::from_utf8(out).unwrap(), status)
}

/// The violations a monitor built through the library alone finds, as `(tp, ts, values)`.
fn through_the_library(
    spec_name: &str,
    text: &str,
    sig: Option<&str>,
    log: &str,
) -> Vec<(u64, i64, Vec<String>)> {
    let (lang, name) = Lang::of(spec_name, None);
    assert_eq!(lang, Lang::Formula);
    let sig = sig.map(|s| Signature::parse("sig", s).unwrap());
    let spec = FormulaSpec::parse(spec_name, text.to_string(), name.as_deref())
        .and_then(|s| s.with_signature(sig.clone()))
        .unwrap();
    let input = Box::new(std::io::BufReader::new(log.as_bytes()));
    let options = TraceOptions {
        sig,
        time_field: None,
    };
    let mut reader = open_reader(TraceFormat::Monpoly, input, "log", options).unwrap();
    let mut plan = formula_monitor(&spec, reader.interner_mut(), true).unwrap();
    let mut sink = Collect::default();
    let options = offline();
    let mut err = Vec::new();
    run(
        &mut *plan.monitor,
        &mut *reader,
        &mut sink,
        options,
        &mut err,
    )
    .unwrap();
    sink.decisions
        .into_iter()
        .filter(|d| d.2 == Kind::Violation)
        .map(|(tp, ts, _, values)| (tp, ts, values))
        .collect()
}

/// The violations in `rvmon check`'s JSON Lines, as `(tp, ts, values)` (values in the
/// variables' order, strings unquoted).
fn from_jsonl(out: &str) -> Vec<(u64, i64, Vec<String>)> {
    out.lines()
        .filter(|l| l.contains("\"violation\""))
        .map(|l| {
            let num = |key: &str| -> i64 {
                let at = l.find(key).unwrap() + key.len();
                let digits: String = l[at..]
                    .chars()
                    .take_while(|c| c.is_ascii_digit() || *c == '-')
                    .collect();
                digits.parse().unwrap()
            };
            let values = match l.find("\"values\":{") {
                None => Vec::new(),
                Some(at) => {
                    let body = &l[at + 10..l.len() - 2];
                    body.split(',')
                        .filter(|kv| !kv.is_empty())
                        .map(|kv| kv.split_once(':').unwrap().1.trim_matches('"').to_string())
                        .collect()
                }
            };
            (num("\"tp\":") as u64, num("\"ts\":"), values)
        })
        .collect()
}

/// Each formula language, through the library alone: MonPoly syntax (propositional and
/// first-order) and Spot's LTL syntax, with bounded and unbounded future operators.
#[test]
fn library_monitors_give_the_cli_verdicts() {
    let d = dir("library");
    let log = "@0 req() p(1)\n@1 p(2) grant()\n@3 req() q(1,1)\n@4 p(1)\n@9 req() p(3) grant()\n@10 p(3)\n";
    let sig = "req() grant() p(int) q(int,int)";
    let specs = [
        ("a.mtl", "req() IMPLIES EVENTUALLY[0,2] grant()"),
        ("b.mtl", "req() IMPLIES NEXT grant()"),
        ("c.mtl", "grant() IMPLIES ONCE[1,5] req()"),
        ("d.ltl", "req -> X (grant && !req)"),
        ("e.mfotl", "p(x) IMPLIES ONCE[1,10] p(x)"),
        ("f.mfotl", "p(x) IMPLIES EVENTUALLY[0,6] (EXISTS y. q(x,y))"),
    ];
    std::fs::write(d.join("t.log"), log).unwrap();
    std::fs::write(d.join("s.sig"), sig).unwrap();
    for (name, text) in specs {
        let path = d.join(name);
        std::fs::write(&path, text).unwrap();
        let mut args = CheckArgs::new(path.to_str().unwrap(), d.join("t.log").to_str().unwrap());
        args.output = Output::Jsonl;
        args.sig = Some(d.join("s.sig").to_str().unwrap().to_string());
        let (out, _) = check(&args);
        let cli = from_jsonl(&out);
        let library = through_the_library(name, text, Some(sig), log);
        assert_eq!(library, cli, "{name}: {text}\n{out}");
        // (A test that could not fail would prove nothing: each spec has violations.)
        assert!(!cli.is_empty(), "{name}: no violation");
    }
}

/// Parametric properties through the library alone (`cascade::build`), against `rvmon check`'s
/// JSON Lines: the same reports, with their bindings.
#[test]
fn library_parametric_monitors_give_the_cli_reports() {
    use rvmon::cascade::{build, Strategy};
    let examples = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/rvm");
    for (spec, log) in [
        ("acks.rvm", "acks.log"),
        ("locks-ere.rvm", "locks.log"),
        ("maps.rvm", "maps.log"),
    ] {
        let (spec, log) = (examples.join(spec), examples.join(log));
        let mut args = CheckArgs::new(spec.to_str().unwrap(), log.to_str().unwrap());
        args.output = Output::Jsonl;
        let (out, _) = check(&args);
        let cli: Vec<(u64, i64)> = from_jsonl_reports(&out);
        let text = std::fs::read_to_string(&spec).unwrap();
        let input = Box::new(std::io::BufReader::new(std::fs::File::open(&log).unwrap()));
        let options = TraceOptions {
            sig: None,
            time_field: None,
        };
        let mut reader = open_reader(TraceFormat::Monpoly, input, "log", options).unwrap();
        let (lang, name) = Lang::of(spec.to_str().unwrap(), None);
        let lang = (lang, name.as_deref());
        let (strategy, mut monitor) =
            build("spec", text, lang, None, reader.interner_mut(), true).unwrap();
        assert_eq!(strategy, Strategy::Parametric);
        let mut sink = Collect::default();
        let options = offline();
        run(
            &mut *monitor,
            &mut *reader,
            &mut sink,
            options,
            &mut Vec::new(),
        )
        .unwrap();
        let library: Vec<(u64, i64)> = sink.decisions.iter().map(|d| (d.0, d.1)).collect();
        assert_eq!(library, cli, "{}", spec.display());
        assert!(!cli.is_empty(), "{}: no report", spec.display());
    }
}

/// A stream specification through the library alone (`cascade::stream_monitor`, the run
/// loop over its events), against `rvmon check --output jsonl`: the same triggers and values,
/// at the same events and times.
#[test]
fn library_stream_monitors_give_the_cli_triggers() {
    use rvmon::cascade::stream_monitor;
    use rvmon::run::Events;
    use rvmon_core::MemoryLimit;
    let examples = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/lola");
    let (spec, trace) = (examples.join("engine.lola"), examples.join("engine.csv"));
    for values in [false, true] {
        let mut args = CheckArgs::new(spec.to_str().unwrap(), trace.to_str().unwrap());
        args.output = Output::Jsonl;
        args.values = values;
        let (out, _) = check(&args);
        let cli: Vec<String> = out.lines().map(str::to_string).collect();
        let text = std::fs::read_to_string(&spec).unwrap();
        let mut monitor =
            stream_monitor("engine.lola", &text, MemoryLimit::DEFAULT, values).unwrap();
        let input = std::io::BufReader::new(std::fs::File::open(&trace).unwrap());
        let inputs = rvmon_stream::compile("engine.lola", &text).unwrap().inputs;
        let csv = rvmon_trace::events::CsvEvents::new(input, "engine.csv", &inputs, None).unwrap();
        let mut events = Events::new(Box::new(csv));
        let mut sink = Collect::default();
        let options = offline();
        run(
            &mut monitor,
            &mut events,
            &mut sink,
            options,
            &mut Vec::new(),
        )
        .unwrap();
        assert_eq!(sink.decisions.len(), cli.len(), "{out}");
        for (d, line) in sink.decisions.iter().zip(&cli) {
            let (tp, ts, kind, values) = d;
            let seconds = rvmon_stream::output::time_text(*ts);
            assert!(
                line.starts_with(&format!("{{\"tp\":{tp},\"ts\":{seconds},")),
                "{line}"
            );
            match kind {
                Kind::Trigger => assert!(
                    line.contains(&format!("\"trigger\":{}", &values[0][1..]))
                        && line.contains(&*values[1]),
                    "{line} {values:?}"
                ),
                _ => assert!(
                    line.contains(&format!("\"stream\":\"{}\"", values[0])),
                    "{line} {values:?}"
                ),
            }
        }
        assert!(
            sink.decisions.iter().any(|d| d.2 == Kind::Trigger),
            "no trigger fired"
        );
    }
}

/// The `(tp, ts)` of each report in JSON Lines.
fn from_jsonl_reports(out: &str) -> Vec<(u64, i64)> {
    out.lines()
        .map(|l| {
            let num = |key: &str| -> i64 {
                let at = l.find(key).unwrap() + key.len();
                let digits: String = l[at..].chars().take_while(|c| c.is_ascii_digit()).collect();
                digits.parse().unwrap()
            };
            (num("\"tp\":") as u64, num("\"ts\":"))
        })
        .collect()
}

/// `rvmon check --output monpoly F` and `rvmon monpoly -negate -formula F` on one log, with
/// the signature `sig`; `None` if `rvmon check` refuses the formula (not monitorable), or
/// MonPoly would (rvmon's own rewriting takes more formulas than MonPoly's).
fn both(formula: &str, log: &str, sig: &str, name: &str) -> Option<(String, String)> {
    let d = dir(name);
    let (f, l, s) = (d.join("f.mfotl"), d.join("t.log"), d.join("s.sig"));
    std::fs::write(&f, formula).unwrap();
    std::fs::write(&l, log).unwrap();
    std::fs::write(&s, sig).unwrap();
    let path = |p: &PathBuf| p.to_str().unwrap().to_string();
    let mut args = CheckArgs::new(path(&f), path(&l));
    args.output = Output::Monpoly;
    args.sig = Some(path(&s));
    let mut out = Vec::new();
    check_cmd::run(&args, &mut out, &mut std::io::sink()).ok()?;
    let checked = String::from_utf8(out).unwrap();
    let mp = MonpolyArgs::parse(&[
        "-sig".into(),
        path(&s),
        "-formula".into(),
        path(&f),
        "-log".into(),
        path(&l),
        "-negate".into(),
    ])
    .unwrap();
    let (mut out, mut err) = (Vec::new(), Vec::new());
    monpoly_cmd::run(&mp, &mut out, &mut err).unwrap();
    let err = String::from_utf8(err).unwrap();
    if err.contains("NOT monitorable") {
        return None;
    }
    Some((checked, String::from_utf8(out).unwrap()))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    /// The two front doors run one plan: first-order formulas with free variables, closed
    /// ones, and propositional formulas whose future operators are bounded.
    #[test]
    fn check_output_monpoly_is_monpolys(
        formula in prop_oneof![gen::policy(), gen::closed_policy()],
        log in gen::log_with_props(),
    ) {
        let ran = both(&formula, &gen::text(&log), gen::SIG_WITH_PROPS, "random");
        prop_assume!(ran.is_some(), "not monitorable");
        let (checked, monpoly) = ran.unwrap();
        prop_assert_eq!(checked, monpoly, "{}", formula);
    }
}

/// `rvmon monpoly` with `F` (or its negation) on `log`, and with `-nofilteremptytp` added:
/// the first leaves out the time points without the formula's events where that provably
/// changes no output, the second feeds every one.
fn with_and_without_filters(formula: &str, log: &str, negate: bool) -> Option<(String, String)> {
    let d = dir("filters");
    let (f, l, s) = (d.join("f.mfotl"), d.join("t.log"), d.join("s.sig"));
    std::fs::write(&f, formula).unwrap();
    std::fs::write(&l, log).unwrap();
    std::fs::write(&s, gen::SIG_WITH_PROPS).unwrap();
    let path = |p: &PathBuf| p.to_str().unwrap().to_string();
    let run = |extra: &[&str]| -> Option<String> {
        let mut args = vec![
            "-sig".to_string(),
            path(&s),
            "-formula".into(),
            path(&f),
            "-log".into(),
            path(&l),
        ];
        if negate {
            args.push("-negate".into());
        }
        args.extend(extra.iter().map(|a| a.to_string()));
        let (mut out, mut err) = (Vec::new(), Vec::new());
        let mp = MonpolyArgs::parse(&args).unwrap();
        monpoly_cmd::run(&mp, &mut out, &mut err).ok()?;
        if String::from_utf8_lossy(&err).contains("NOT monitorable") {
            return None;
        }
        Some(String::from_utf8(out).unwrap())
    };
    Some((run(&[])?, run(&["-nofilteremptytp"])?))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    /// Leaving out the time points without the formula's events changes nothing MonPoly
    /// prints, also when the log ends with `>terminate<` (the verdicts due by then) — except
    /// where MonPoly's own filter applies: MonPoly then leaves them out too, and at
    /// `>terminate<` prints only what was due without them (as rvmon does).
    #[test]
    fn monpolys_output_does_not_depend_on_the_filter(
        formula in gen::policy(),
        log in gen::log(),
        negate in any::<bool>(),
        terminate in any::<bool>(),
    ) {
        let mut text = gen::text(&log);
        let f = rvmon_logic::parse_formula("f", &formula).unwrap();
        let f = if negate {
            rvmon_logic::Formula::new(rvmon_logic::FormulaKind::Not(Box::new(f.clone())), f.span)
        } else {
            f
        };
        let monpolys_filter = is_filterable_empty_tp(&analyzed_formula(&f));
        prop_assume!(!(terminate && monpolys_filter), "MonPoly's own filter");
        if terminate {
            text.push_str(">terminate<\n");
        }
        let ran = with_and_without_filters(&formula, &text, negate);
        prop_assume!(ran.is_some(), "not monitorable");
        let (filtered, every) = ran.unwrap();
        prop_assert_eq!(filtered, every, "{}", formula);
    }
}

/// Aggregations, under `NOT` and not, with the last time point deciding.
#[test]
fn aggregations_agree_at_the_last_time_point() {
    let log = "@0 Q(1,5) P(1)\n@1 Q(1,3) Q(2,9) P(2)\n@2 P(1) Q(1,1)\n@3 P(2)\n";
    let formulas = [
        "P(x) IMPLIES NOT (EXISTS m. (m <- MIN y; x ONCE[0,2] Q(x,y)) AND m < 2)",
        "P(x) IMPLIES (EXISTS m. (m <- MIN y; x ONCE[0,2] Q(x,y)) AND m < 4)",
        "P(x) IMPLIES NOT (EXISTS m. (m <- MAX y; x ONCE[0,1] Q(x,y)) AND m > 8)",
        "P(x) IMPLIES (EXISTS c. (c <- CNT y; x ONCE Q(x,y)) AND c > 1)",
    ];
    for (k, f) in formulas.iter().enumerate() {
        let ran = both(f, log, "P(int) Q(int,int)", &format!("agg{k}"));
        let (checked, monpoly) = ran.unwrap_or_else(|| panic!("{f}: not monitorable"));
        assert_eq!(checked, monpoly, "{f}");
        assert!(!checked.is_empty(), "{f}: no violation");
    }
}
