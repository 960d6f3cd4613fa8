//! Sliding windows and periodic streams against a reference written straight from RTLola's
//! semantics: a stream of period `p` is evaluated at `p, 2p, …` up to the last event's time,
//! after the events of the same time; a window of duration `d` read at `t` aggregates the
//! values of `(t - d, t]`, and a discrete window of `n` the last `n` values. The engine's
//! bucketed (and sparse) windows must give the same values on random traces.

use proptest::prelude::*;
use rvmon_core::Payload;
use rvmon_stream::{compile, run_events};
use rvmon_trace::events::CsvEvents;

const MS: i64 = 1_000_000;

/// The aggregations with their reference over the values of a window (Int64 values).
fn reference(op: &str, vals: &[i64]) -> Option<String> {
    let text = |v: i64| v.to_string();
    match op {
        "sum" => Some(text(vals.iter().sum())),
        "count" => Some(vals.len().to_string()),
        "min" => vals.iter().min().map(|&v| text(v)),
        "max" => vals.iter().max().map(|&v| text(v)),
        "last" => vals.last().map(|&v| text(v)),
        // Integers average as integers do (truncated).
        "avg" => (!vals.is_empty()).then(|| text(vals.iter().sum::<i64>() / vals.len() as i64)),
        _ => unreachable!(),
    }
}

fn run(spec: &str, rows: &[(i64, i64)]) -> Vec<(i64, String, String)> {
    let program = compile("w.lola", spec).unwrap();
    let mut csv = String::from("time,a\n");
    for (t, v) in rows {
        csv += &format!("{}.{:03},{v}\n", t / 1000, t % 1000);
    }
    let mut events = CsvEvents::new(csv.as_bytes(), "w.csv", &program.inputs, None).unwrap();
    let mut out = Vec::new();
    run_events(program, &mut events, true, |d| {
        if let Payload::Value { stream, text, .. } = d.payload {
            out.push((d.ts, stream.to_string(), text.to_string()));
        }
        Ok(())
    })
    .unwrap();
    out
}

/// Strictly increasing times in milliseconds (several events may share one), with values.
fn trace() -> impl Strategy<Value = Vec<(i64, i64)>> {
    prop::collection::vec((0i64..400, -9i64..10), 1..60).prop_map(|steps| {
        let mut t = 0;
        steps
            .into_iter()
            .map(|(dt, v)| {
                t += dt / 4 * 5; // multiples of 5 ms: many land on deadlines
                (t, v)
            })
            .collect()
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn windows_over_time_hold_the_interval_before_their_reading(
        rows in trace(),
        period_ms in prop::sample::select(vec![50i64, 100, 250, 1000]),
        duration_ms in prop::sample::select(vec![50i64, 100, 300, 1000, 2500]),
        op in prop::sample::select(vec!["sum", "count", "min", "max", "last", "avg"]),
        exact in any::<bool>(),
    ) {
        let over = if exact { "over_exactly" } else { "over" };
        let optional = exact || !matches!(op, "sum" | "count");
        let spec = format!(
            "input a: Int64\noutput w @ {period_ms}ms := a.aggregate({over}: {duration_ms}ms, using: {op}){}\n",
            if optional { ".defaults(to: 99999)" } else { "" }
        );
        let got = run(&spec, &rows);
        let last = rows.last().unwrap().0;
        let mut want = Vec::new();
        let mut k = 1;
        while k * period_ms <= last {
            let t = k * period_ms;
            let vals: Vec<i64> = rows
                .iter()
                .filter(|(u, _)| *u > t - duration_ms && *u <= t)
                .map(|r| r.1)
                .collect();
            let v = if exact && t < duration_ms { None } else { reference(op, &vals) };
            want.push((t * MS, "w".to_string(), v.unwrap_or_else(|| "99999".into())));
            k += 1;
        }
        prop_assert_eq!(got, want, "{}", spec);
    }

    #[test]
    fn discrete_windows_hold_the_last_values(
        rows in trace(),
        n in 1u64..6,
        op in prop::sample::select(vec!["sum", "count", "min", "max", "last", "avg"]),
    ) {
        let optional = !matches!(op, "sum" | "count");
        let spec = format!(
            "input a: Int64\noutput w := a.aggregate(over_discrete: {n}, using: {op}){}\n",
            if optional { ".defaults(to: 99999)" } else { "" }
        );
        let got = run(&spec, &rows);
        let want: Vec<_> = (0..rows.len())
            .map(|i| {
                let from = (i + 1).saturating_sub(n as usize);
                let vals: Vec<i64> = rows[from..=i].iter().map(|r| r.1).collect();
                let v = reference(op, &vals).unwrap_or_else(|| "99999".into());
                (rows[i].0 * MS, "w".to_string(), v)
            })
            .collect();
        prop_assert_eq!(got, want, "{}", spec);
    }
}

/// Periods the schedule cannot step through are errors of the specification, not a
/// silent fall-back: under a nanosecond, or frequencies whose schedule repeats only after
/// 10^7 steps (RTLola's limit).
#[test]
fn impossible_schedules_are_refused() {
    for (pacing, says) in [
        ("@2GHz", "shorter than a nanosecond"),
        ("@0.9999999Hz", "too incompatible"),
    ] {
        let spec = format!(
            "input a: Int64\noutput b @1Hz := a.hold(or: 0)\noutput c {pacing} := a.hold(or: 0)\n"
        );
        let e = compile("s.lola", &spec).unwrap_err();
        assert!(e.message.contains(says), "{pacing}: {}", e.message);
    }
    let ok = "input a: Int64\noutput b @3Hz := a.hold(or: 0)\noutput c @7Hz := a.hold(or: 0)\n";
    assert!(compile("s.lola", ok).is_ok());
}

/// An instance read by its parameters' values from its own expression is the instance
/// being evaluated (its ring is the stream's meanwhile).
#[test]
fn an_instance_reads_itself_by_value() {
    let spec = "input a: Int64\noutput c(p: Int64) spawn with a eval when p = a \
                with c(a).offset(by: -1).defaults(to: 0) + 1\n";
    let got = run(spec, &[(0, 1), (5, 1), (10, 1), (15, 2)]);
    let values: Vec<(String, String)> = got.into_iter().map(|(_, s, v)| (s, v)).collect();
    let want = [("c(1)", "1"), ("c(1)", "2"), ("c(1)", "3"), ("c(2)", "1")];
    assert_eq!(values, want.map(|(s, v)| (s.to_string(), v.to_string())));
}

/// Time at its end (i64::MAX nanoseconds): the clocks saturate, and the run ends.
#[test]
fn deadlines_at_the_end_of_time_end() {
    let spec = "input a: Int64\noutput y @300a := a.hold(or: 0)\n";
    let program = compile("e.lola", spec).unwrap();
    let csv = "time,a\n0,1\n9223372036.854775807,1\n";
    let mut events = CsvEvents::new(csv.as_bytes(), "e.csv", &program.inputs, None).unwrap();
    let mut n = 0u64;
    run_events(program, &mut events, true, |_| {
        n += 1;
        assert!(n < 100_000_000, "runaway deadlines");
        Ok(())
    })
    .unwrap();
}

/// Windows the engine could not run as written are refused: over time in an event-paced
/// clause, over a spawned stream without parameters, or keeping more values than the memory
/// limit; and clauses on an instance's own clock where only the trace's exists.
#[test]
fn windows_and_clocks_it_cannot_run_are_refused() {
    for (spec, says) in [
        (
            "input a: Int64\noutput x spawn when a > 0 eval with a close when x.aggregate(over_discrete: 2, using: count) >= 2\n",
            "without parameters",
        ),
        (
            "input a: Int64\noutput x(p) spawn with a when a.aggregate(over: 1s, using: count) > 2 eval with a\n",
            "needs that clause to be periodic",
        ),
        (
            "input a: Int64\noutput w := a.aggregate(over_discrete: 9223372036854775807, using: sum)\n",
            "keeps 9223372036854775807 values",
        ),
        (
            "input a: Int64\noutput x(p) spawn @Local(1Hz) with a eval with a\n",
            "own clock (`@Local`) is not supported",
        ),
    ] {
        let e = compile("r.lola", spec).unwrap_err();
        assert!(e.message.contains(says), "{spec}: {}", e.message);
    }
}
