//! Paper 06 (Bozzelli & Sánchez, Boolean stream RV) and note B §1.11: the worked examples and
//! derived vectors, run through the online engine; the well-formedness examples through the
//! analysis.

use rvmon_stream::engine::Event;
use rvmon_stream::value::Val;
use rvmon_stream::{compile, Step, StreamEngine};

/// Runs `spec` over Boolean inputs given as bit strings (one character per event, all inputs
/// present at every event) and returns each output's values as a bit string.
fn run(spec: &str, inputs: &[&str]) -> Vec<String> {
    let prog = compile("spec.lola", spec).unwrap_or_else(|e| panic!("{e}"));
    let n_out = prog.outputs.len();
    let mut engine = StreamEngine::new(prog);
    engine.record_outputs();
    let len = inputs[0].len();
    let mut fired = Vec::new();
    for i in 0..len {
        let values = inputs
            .iter()
            .map(|bits| Some(Val::Bool(bits.as_bytes()[i] == b'1')))
            .collect();
        engine
            .step(
                &Event {
                    time: i as i64,
                    values,
                },
                &mut fired,
            )
            .unwrap();
    }
    engine.finish(&mut fired).unwrap();
    let mut out = vec![vec![b'?'; len]; n_out];
    for d in engine.take_decided() {
        let (k, idx, v) = (d.output, d.index, d.value);
        out[k][idx as usize] = if v == Val::Bool(true) { b'1' } else { b'0' };
    }
    out.into_iter()
        .map(|b| String::from_utf8(b).unwrap())
        .collect()
}

#[test]
fn example_1_if_x_then_x_else_next_x() {
    let spec = "input x: Bool\noutput e := if x then x else x[1, false]";
    for (x, e) in [("01", "11"), ("0101", "1111"), ("010101", "111111")] {
        assert_eq!(run(spec, &[x]), [e], "x = {x}");
    }
}

#[test]
fn example_2_phi3_is_well_defined_and_computes_the_vectors() {
    let spec = "input x: Bool\noutput y := if x then x[2, false] else x[-2, false]";
    for (x, y) in [
        ("1", "0"),
        ("10", "00"),
        ("0110", "0001"),
        ("10110", "10001"),
        ("111000", "100110"),
    ] {
        assert_eq!(run(spec, &[x]), [y], "x = {x}");
    }
}

#[test]
fn example_2_phi1_and_phi2_are_not_well_formed() {
    for spec in [
        "input x: Bool\noutput y := x && y",
        "input x: Bool\noutput y := x && !y",
    ] {
        let e = compile("spec.lola", spec).unwrap_err();
        assert!(
            e.message.contains("y -> y") && e.message.contains("weight 0"),
            "{e}"
        );
    }
    // A cycle of weight 0 through a future and a past offset.
    let e = compile(
        "spec.lola",
        "input x: Bool\noutput y @x := z[1, false]\noutput z @x := y[-1, false]",
    )
    .unwrap_err();
    assert!(e.message.contains("weight 0"), "{e}");
    // Past-only self-reference is well-formed (the counter idiom).
    compile("spec.lola", "input x: Bool\noutput c @x := c[-1, 0] + 1").unwrap();
}

#[test]
fn ltl_until_and_since_translations() {
    // Prop. 1 with the note's fix; `¬last` is implied by the default false of the offset.
    let until = "input p: Bool\ninput q: Bool\noutput u := q || (p && u[1, false])";
    assert_eq!(run(until, &["1101", "0010"]), ["1110"]);
    assert_eq!(run(until, &["11011", "00100"]), ["11100"]);
    let since = "input p: Bool\ninput q: Bool\noutput s := q || (p && s[-1, false])";
    assert_eq!(run(since, &["0111", "1000"]), ["1111"]);
    assert_eq!(run(since, &["0101", "1000"]), ["1100"]);
    assert_eq!(run(since, &["1111", "0010"]), ["0011"]);
}

#[test]
fn derived_vectors_next_previous_eventually_once_first_last() {
    let next = "input x: Bool\noutput y := x[1, false]";
    let prev = "input x: Bool\noutput y := x[-1, false]";
    let ev = "input x: Bool\noutput y := x || y[1, false]";
    let once = "input x: Bool\noutput y := x || y[-1, false]";
    for (spec, cases) in [
        (next, [("0010", "0100"), ("1001", "0010"), ("0000", "0000")]),
        (prev, [("0010", "0001"), ("1001", "0100"), ("0000", "0000")]),
        (ev, [("0010", "1110"), ("0000", "0000"), ("1001", "1111")]),
        (once, [("0010", "0011"), ("0000", "0000"), ("1001", "1111")]),
    ] {
        for (x, y) in cases {
            assert_eq!(run(spec, &[x]), [y], "{spec} on x = {x}");
        }
    }
    // `first` = 0[-1|1] and `last` = 0[+1|1], written over a stream that is present everywhere.
    let fl = "input x: Bool\noutput first := x[-1, true] && !x[-1, false]\noutput last := x[1, true] && !x[1, false]";
    assert_eq!(run(fl, &["0110"]), ["1000", "0001"]);
}

#[test]
fn efficient_monitorability_and_latency() {
    let ev = compile("spec.lola", "input x: Bool\noutput y := x || y[1, false]").unwrap();
    assert_eq!(ev.unbounded_cycle, Some(vec!["y".to_string()]));
    assert_eq!(ev.report[1].latency, None);
    let p = compile(
        "spec.lola",
        "input x: Bool\noutput a := x[2, false]\noutput b := a[1, false] || x[-3, false]",
    )
    .unwrap();
    assert_eq!(p.unbounded_cycle, None);
    assert_eq!(
        p.report[1].latency,
        Some(2),
        "a waits for x two values ahead"
    );
    assert_eq!(
        p.report[2].latency,
        Some(3),
        "b waits for a one value ahead"
    );
    assert_eq!(p.report[0].keep_past, 3, "x is read three values back");
}
