//! A stream monitor's state survives a snapshot: a run stopped after any event, saved,
//! restored into a monitor built afresh from the same specification and fed the rest, decides
//! exactly what the uninterrupted run decides (both engines, triggers and values, values still
//! waiting for future offsets at the cut).

use proptest::prelude::*;
use rvmon_core::{Collect, Interner, MemoryLimit, Monitor};
use rvmon_stream::engine::Event;
use rvmon_stream::value::Val;
use rvmon_stream::{analyze_within, parse_spec, StreamMonitor};

const SPECS: &[&str] = &[
    // The immediate engine: past offsets, counters, a computed message.
    "input x: Float64\ninput y: Float64\n\
     output viol := x > 0.0 && y.offset(by: -1).defaults(to: 1.0) <= 0.0\n\
     output count @x := count.offset(by: -1).defaults(to: 0) + 1\n\
     trigger viol \"x up, y was down\"\n\
     trigger count > 3 && x < -0.5 \"low after three\"",
    // The general engine: future offsets, a value that waits, strings.
    "input x: Float64\ninput y: Float64\n\
     output next := x.offset(by: 2).defaults(to: 0.0)\n\
     output rising := next > x\n\
     output label := if rising then \"up\" else \"down\"\n\
     trigger rising && y > 0.5 \"rises soon\"",
];

fn monitor(spec: &str, values: bool) -> StreamMonitor {
    let parsed = parse_spec("t.lola", spec).unwrap();
    let program = analyze_within("t.lola", spec, &parsed, MemoryLimit::DEFAULT).unwrap();
    StreamMonitor::new(program, values)
}

fn events(trace: &[(Option<i8>, Option<i8>)]) -> Vec<Event> {
    let val = |v: &Option<i8>| v.map(|v| Val::Float(f64::from(v) / 8.0));
    trace
        .iter()
        .enumerate()
        .map(|(i, (x, y))| Event {
            time: i as i64 * 250_000_000,
            values: vec![val(x), val(y)],
        })
        .collect()
}

fn run(m: &mut StreamMonitor, evs: &[Event], sink: &mut Collect, finish: bool) {
    let mut interner = Interner::new();
    for chunk in evs.chunks(3) {
        m.feed(chunk, &mut interner, sink).unwrap();
    }
    if finish {
        m.finish(&mut interner, sink).unwrap();
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn a_restored_monitor_continues_the_run(
        spec in 0..SPECS.len(),
        values in any::<bool>(),
        trace in prop::collection::vec((prop::option::of(-8i8..8), prop::option::of(-8i8..8)), 1..40),
        cut in 0usize..40,
    ) {
        let evs = events(&trace);
        let cut = cut.min(evs.len());
        let mut whole = Collect::default();
        run(&mut monitor(SPECS[spec], values), &evs, &mut whole, true);
        let mut resumed = Collect::default();
        let mut first = monitor(SPECS[spec], values);
        run(&mut first, &evs[..cut], &mut resumed, false);
        let state = first.snapshot().unwrap();
        drop(first);
        let mut second = monitor(SPECS[spec], values);
        second.restore(&state).unwrap();
        run(&mut second, &evs[cut..], &mut resumed, true);
        prop_assert_eq!(&resumed.decisions, &whole.decisions);
    }
}

/// A state restores only into a monitor of the specification it was saved from, and a
/// damaged one is refused.
#[test]
fn states_of_other_specifications_and_damaged_states_are_refused() {
    let mut m = monitor(SPECS[0], false);
    let evs = events(&[(Some(1), Some(-1)), (Some(2), None)]);
    run(&mut m, &evs, &mut Collect::default(), false);
    let state = m.snapshot().unwrap();
    let e = monitor(SPECS[1], false).restore(&state).unwrap_err();
    assert!(
        e.to_string().contains("another stream specification"),
        "{e}"
    );
    let e = monitor(SPECS[0], true).restore(&state).unwrap_err();
    assert!(
        e.to_string().contains("another stream specification"),
        "{e}"
    );
    let mut damaged = state.clone();
    let last = damaged.len() - 1;
    damaged[last] ^= 1;
    let e = monitor(SPECS[0], false).restore(&damaged).unwrap_err();
    assert!(e.to_string().contains("damaged"), "{e}");
    assert!(monitor(SPECS[0], false).restore(&state).is_ok());
}
