//! Specifications that once crashed rvmon (a fuzz campaign's stack overflows and one failed
//! allocation) give a positioned error or run: nesting past the limit, long flat chains,
//! offsets past the memory limit, and the one integer quotient that overflows.

use rvmon_core::MemoryLimit;
use rvmon_stream::parse::MAX_NESTING;
mod common;

use common::run_csv;
use rvmon_stream::{analyze_within, compile, parse_spec};

/// The triggers `spec` fires on the CSV `events` (`time,a` rows), by message.
fn fired(spec: &str, events: &str) -> Result<Vec<String>, rvmon_core::Error> {
    let program = compile("t.lola", spec)?;
    let mut out = Vec::new();
    run_csv(program, events.as_bytes(), "t.csv", |f| {
        out.push(f.message.to_string());
        Ok(())
    })?;
    Ok(out)
}

fn error(spec: &str) -> String {
    compile("t.lola", spec).unwrap_err().to_string()
}

/// `f` on a thread with the stack of a main thread under the usual `ulimit -s 8192`, where
/// rvmon parses and runs a specification: one at the nesting limit must run there, and the
/// parser must reach the limit there (test threads have 2 MiB).
fn on_main_stack(f: impl FnOnce() + Send + 'static) {
    let t = std::thread::Builder::new().stack_size(8 << 20).spawn(f);
    t.expect("a thread").join().expect("no panic");
}

#[test]
fn nesting_past_the_limit_is_an_error_where_it_happens() {
    on_main_stack(nesting_past_the_limit);
}

fn nesting_past_the_limit() {
    let head = "input a: Int64\noutput o := ";
    // Nesting 1,000 deep is read and runs; one more level is the error, at its token.
    for (open, close) in [
        ("(", ")"),
        ("abs(", ")"),
        ("-", ""),
        ("a.offset(by: -1).defaults(to: ", ")"),
    ] {
        let ok = format!(
            "{head}{}a{}\ntrigger o > 100 \"x\"",
            open.repeat(MAX_NESTING - 2),
            close.repeat(MAX_NESTING - 2)
        );
        on_main_stack(move || {
            assert_eq!(
                fired(&ok, "time,a\n0,1\n1,2\n").map_err(|e| e.to_string()),
                Ok(vec![])
            );
        });
    }
    let deep = format!("{head}{}a{}", "(".repeat(5_700), ")".repeat(5_700));
    let col = 13 + MAX_NESTING;
    assert_eq!(
        error(&deep),
        format!("t.lola:2:{col}: nesting deeper than 1000")
    );
    let minus = format!("{head}{}a", "-".repeat(9_500));
    assert_eq!(
        error(&minus),
        format!("t.lola:2:{col}: nesting deeper than 1000")
    );
    let not = format!("input a: Bool\noutput o := {}a", "!".repeat(9_500));
    assert_eq!(
        error(&not),
        format!("t.lola:2:{col}: nesting deeper than 1000")
    );
    let calls = format!("{head}{}a{}", "abs(".repeat(5_000), ")".repeat(5_000));
    assert!(error(&calls).ends_with("nesting deeper than 1000"));
    let pacing = format!(
        "input a: Int64\noutput o @ {}a{} := a",
        "(".repeat(5_000),
        ")".repeat(5_000)
    );
    assert!(error(&pacing).ends_with("nesting deeper than 1000"));
    let right = format!("input a: Bool\noutput o := {}a", "a -> ".repeat(5_000));
    assert!(error(&right).ends_with("nesting deeper than 1000"));
}

#[test]
fn long_flat_chains_run() {
    on_main_stack(long_flat_chains);
}

fn long_flat_chains() {
    let n = 100_000;
    let sum = format!(
        "input a: Int64\noutput o := {}\ntrigger o == {} \"sum\"",
        vec!["a"; n].join(" + "),
        3 * n
    );
    assert_eq!(fired(&sum, "time,a\n0,3\n").unwrap(), ["sum"]);
    // Mixed `+` and `-`: regrouped only before a `+`, the same value.
    let terms: Vec<&str> = (0..n)
        .map(|i| if i % 3 == 2 { "- a" } else { "+ a" })
        .collect();
    let minus = terms.iter().filter(|t| t.starts_with('-')).count();
    let mixed = format!(
        "input a: Int64\noutput o := 0 {}\ntrigger o == {} \"mixed\"",
        terms.join(" "),
        n - 2 * minus
    );
    assert_eq!(fired(&mixed, "time,a\n0,1\n").unwrap(), ["mixed"]);
    let and = format!(
        "input a: Bool\ntrigger {} \"all\"",
        vec!["a"; n].join(" && ")
    );
    assert_eq!(fired(&and, "time,a\n0,true\n1,false\n").unwrap(), ["all"]);
    let or = format!(
        "input a: Int64\ntrigger {} \"any\"",
        vec!["a > 2"; n].join(" || ")
    );
    assert_eq!(fired(&or, "time,a\n0,1\n1,5\n").unwrap(), ["any"]);
    let product = format!(
        "input a: Int64\noutput o := {}\ntrigger o == 1 \"one\"",
        vec!["a"; n].join(" * ")
    );
    assert_eq!(fired(&product, "time,a\n0,1\n").unwrap(), ["one"]);
    let pacing = format!(
        "input a: Int64\noutput o @ {} := a.hold().defaults(to: 0)\ntrigger o == 4 \"paced\"",
        vec!["a"; n].join(" && ")
    );
    assert_eq!(fired(&pacing, "time,a\n0,4\n").unwrap(), ["paced"]);
}

#[test]
fn chains_that_do_not_regroup_count_as_nesting() {
    on_main_stack(chains_that_do_not_regroup);
}

fn chains_that_do_not_regroup() {
    // `a - a - a …` and `a / a / …` mean their left-to-right grouping: no regrouping, so
    // past the limit they are an error, not a crash.
    for op in [" - ", " / ", " == "] {
        let spec = format!("input a: Int64\noutput o := {}", vec!["a"; 5_000].join(op));
        assert!(error(&spec).ends_with("nesting deeper than 1000"), "{op}");
    }
    // Short ones are as they were.
    assert_eq!(
        fired(
            "input a: Int64\noutput o := 100 - a - a / 2 * 3\ntrigger o == 90 \"x\"",
            "time,a\n0,4\n"
        )
        .unwrap(),
        ["x"]
    );
}

#[test]
fn offsets_past_the_memory_limit_are_refused_before_allocation() {
    let spec = "input a: Int64\noutput o := a.offset(by: -100000000).defaults(to: 0)";
    assert_eq!(
        error(spec),
        "t.lola:2:13: `a.offset(by: -100000000)` keeps 100000000 past values of `a`, which \
         would need 3 GiB of memory, more than the memory limit of 1 GiB (--memory-limit)"
    );
    // The same with room for it, and a small one under a tight limit.
    let parsed = parse_spec("t.lola", spec).unwrap();
    assert!(analyze_within("t.lola", spec, &parsed, MemoryLimit::bytes(8 << 30)).is_ok());
    let small = "input a: Int64\noutput o := a[-1000, 0]";
    let parsed = parse_spec("t.lola", small).unwrap();
    let e = analyze_within("t.lola", small, &parsed, MemoryLimit::bytes(1000)).unwrap_err();
    assert_eq!(
        e.to_string(),
        "t.lola:2:13: `a[-1000, 0]` keeps 1000 past values of `a`, which would need 24 KiB of \
         memory, more than the memory limit of 1000 bytes (--memory-limit)"
    );
    // Each offset fits, all of them together do not.
    let many: String = (0..50)
        .map(|i| format!("input a{i}: Int64\noutput o{i} := a{i}[-1000000, 0]\n"))
        .collect();
    assert!(error(&many)
        .contains("the past values that the offsets of the specification keep would need"));
}

#[test]
fn integer_quotients_wrap_and_division_by_zero_says_where() {
    let spec = "input a: Int64\noutput q := a / -1\noutput r := a % -1\n\
                trigger q == a && r == 0 \"wrapped\"";
    let min = i64::MIN;
    assert_eq!(
        fired(spec, &format!("time,a\n0,{min}\n")).unwrap(),
        ["wrapped"]
    );
    let zero = "input a: Int64\noutput q := 10 / a\ntrigger q > 1 \"x\"";
    let e = fired(zero, "time,a\n0,5\n1,0\n").unwrap_err();
    assert_eq!(
        e.to_string(),
        "t.lola:2:13: division by zero (evaluating `q` at event 1)"
    );
}

#[test]
fn the_window_automaton_is_bounded_before_it_is_built() {
    use rvmon_stream::bsrv::Bsrv;
    let automaton = |text: &str| {
        let spec = parse_spec("t.lola", text).unwrap();
        Bsrv::from_spec(&spec)
            .unwrap()
            .automaton(200_000)
            .map(|_| ())
    };
    let far = "input a: Bool\noutput y := a[-100000000, false] || y[1, false]";
    let e = automaton(far).unwrap_err();
    assert!(e.starts_with("the window automaton's states"), "{e}");
    assert!(
        e.ends_with("more than the memory limit of 1 GiB (--memory-limit)"),
        "{e}"
    );
    // The initial windows are every future of the forward offsets: 5^30 of them here.
    let ahead = "input a: Bool\noutput y := a[30, false] || y[1, false]";
    assert_eq!(
        automaton(ahead),
        Err("the automaton has more than 200000 states".to_string())
    );
}

/// A future offset keeps values until the event it reads arrives: the memory follows the
/// trace up to the offset, so it is checked as the engine runs. Past the limit, an error
/// that names the event and says why; the triggers decided before it were reported.
#[test]
fn values_held_for_a_future_offset_stop_at_the_memory_limit() {
    let spec = "input a: Int64\n\
                output o := a.offset(by: 100000000).defaults(to: 0)\n\
                output near := a.offset(by: 1).defaults(to: 0)\n\
                trigger near > 5 \"next is big\"";
    let parsed = parse_spec("t.lola", spec).unwrap();
    let program = analyze_within("t.lola", spec, &parsed, MemoryLimit::bytes(4 << 20)).unwrap();
    let events: String = std::iter::once("time,a\n".to_string())
        .chain((0..200_000).map(|i| format!("{i},{}\n", i % 7)))
        .collect();
    let mut fired = 0;
    let e = run_csv(program, events.as_bytes(), "t.csv", |_| {
        fired += 1;
        Ok(())
    })
    .unwrap_err()
    .to_string();
    assert!(
        e.contains(
            "values held for later events (its future offsets decide a value up to \
             100000000 events later)"
        ) && e.contains("more than the memory limit of 4 MiB"),
        "{e}"
    );
    let at: u64 = e["at event ".len()..]
        .split(',')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1000..200_000).contains(&at), "{e}");
    // `near` fires at every event before a 6 (one in 7), decided one event later.
    assert!(
        fired as u64 >= at / 7 - 2,
        "{fired} triggers before event {at}"
    );
    // With the default limit the same trace runs to its end.
    assert!(fired_ok(spec, &events));
}

fn fired_ok(spec: &str, events: &str) -> bool {
    fired(spec, events).is_ok()
}
