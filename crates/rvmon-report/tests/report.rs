//! The report end to end, with stand-in monitors: what it records through `Reported`, and
//! the page it draws (its panels, its structure, nothing loaded from elsewhere), on ordinary
//! runs, on NaN and infinities, on no input and one, and on a long trace (the page's size
//! does not grow with it).

use proptest::prelude::*;
use rvmon_core::event::{Event, Val};
use rvmon_core::{
    Collect, Decision, Description, Error, Interner, Kind, Monitor, Payload, Sink, TimePoint, Value,
};
use rvmon_report::html::problems;
use rvmon_report::{html, Companion, Meta, Report, Reported};

/// A signal monitor's stand-in: the robustness of a sample is `x - y - offset` (a violation
/// where negative), decided at once.
struct Difference {
    offset: f64,
    fed: u64,
}

impl Monitor<Event> for Difference {
    fn feed(
        &mut self,
        batch: &[Event],
        i: &mut Interner,
        sink: &mut dyn Sink,
    ) -> Result<(), Error> {
        for ev in batch {
            let v = |k: usize| match ev.values.get(k) {
                Some(Some(Val::Float(x))) => *x,
                _ => f64::NAN,
            };
            let r = v(0) - v(1) - self.offset;
            let kind = if r < 0.0 {
                Kind::Violation
            } else {
                Kind::Satisfied
            };
            let d = Decision {
                tp: self.fed,
                ts: ev.time,
                kind,
                payload: Payload::Robustness(r),
            };
            sink.emit(&d, i)?;
            self.fed += 1;
        }
        Ok(())
    }
    fn finish(&mut self, _: &mut Interner, _: &mut dyn Sink) -> Result<(), Error> {
        Ok(())
    }
    fn snapshot(&self) -> Result<Vec<u8>, Error> {
        Ok(Vec::new())
    }
    fn restore(&mut self, _: &[u8]) -> Result<(), Error> {
        Ok(())
    }
    fn describe(&self) -> Description {
        Description {
            strategy: "difference (a stand-in)".into(),
            memory: String::new(),
        }
    }
}

fn meta(inputs: &[&str]) -> Meta {
    Meta {
        spec: "spec.stl".into(),
        language: "signal temporal logic".into(),
        text: "x - y > 0.5 <and> \"quoted\"".into(),
        trace: "trace.csv".into(),
        inputs: inputs.iter().map(|s| s.to_string()).collect(),
        ..Meta::default()
    }
}

fn event(t: i64, x: f64, y: f64) -> Event {
    Event {
        time: t,
        values: vec![Some(Val::Float(x)), Some(Val::Float(y))],
    }
}

/// Runs `Difference` over `samples` (in batches of 7) with a companion of another offset;
/// returns the report and what reached the run's own sink.
fn run(samples: &[(f64, f64)]) -> (Report, Collect) {
    let mut main = Difference {
        offset: 0.5,
        fed: 0,
    };
    let companion = Companion {
        title: "x - y > 0 <b>".into(),
        monitor: Box::new(Difference {
            offset: 0.0,
            fed: 0,
        }) as Box<dyn Monitor<Event>>,
    };
    let mut reported = Reported::new(&mut main, meta(&["x", "y"]), vec![companion]);
    let events: Vec<Event> = samples
        .iter()
        .enumerate()
        .map(|(i, &(x, y))| event(i as i64 * 1_000_000_000, x, y))
        .collect();
    let (mut sink, mut interner) = (Collect::default(), Interner::new());
    for batch in events.chunks(7) {
        reported.feed(batch, &mut interner, &mut sink).unwrap();
    }
    reported.finish(&mut interner, &mut sink).unwrap();
    (reported.into_report(), sink)
}

#[test]
fn a_run_is_recorded_and_passed_through() {
    let samples: Vec<(f64, f64)> = (0..40).map(|i| ((i as f64 / 5.0).sin(), 0.1)).collect();
    let (report, sink) = run(&samples);
    let want = run(&samples).1.decisions;
    assert_eq!(sink.decisions, want);
    assert_eq!(
        sink.decisions.len(),
        40,
        "every decision reaches the run's sink"
    );
    let violations = sink
        .decisions
        .iter()
        .filter(|d| d.2 == Kind::Violation)
        .count() as u64;
    assert_eq!(report.count(Kind::Violation), violations);
    assert_eq!(report.read, 40);
    assert_eq!(report.meta.engine, "difference (a stand-in)");
    assert_eq!(report.subformulas[0].series.count(), 40);
    assert_eq!(report.listed.len(), violations as usize);
    let t = report.robustness.total().unwrap();
    let least = samples
        .iter()
        .map(|(x, y)| x - y - 0.5)
        .fold(f64::INFINITY, f64::min);
    assert_eq!(t.min, least);

    let page = html(&report);
    assert_eq!(problems(&page), Vec::<String>::new());
    for needle in [
        "signal x",
        "signal y",
        "robustness of the formula: x - y &gt; 0.5 &lt;and&gt; &quot;quoted&quot;",
        "subformula 1: x - y &gt; 0 &lt;b&gt;",
        "verdict timeline",
        "40</b> sample(s) read",
        "minimum robustness",
        "data-kind=\"listed\"",
    ] {
        assert!(page.contains(needle), "no {needle:?} in the page");
    }
    assert!(!page.contains("<b>\"") && !page.contains("x - y > 0 <b>"));
    assert_eq!(
        page.matches("<svg").count(),
        5,
        "x, y, the formula, a subformula, the timeline"
    );
    assert!(page.contains("fill-opacity=\"0.12\""), "violations shaded");
}

#[test]
fn no_input_one_input_and_odd_values() {
    for samples in [
        vec![],
        vec![(1.0, 0.0)],
        vec![(f64::NAN, 0.0); 3],
        vec![
            (f64::INFINITY, 0.0),
            (f64::NEG_INFINITY, 0.0),
            (f64::NAN, 1.0),
            (2.0, 2.0),
        ],
        vec![(f64::MAX, -f64::MAX), (-f64::MAX, f64::MAX)],
    ] {
        let (report, _) = run(&samples);
        let page = html(&report);
        assert_eq!(problems(&page), Vec::<String>::new(), "{samples:?}");
        assert!(page.contains("verdict timeline"));
    }
}

/// A million samples: the page is no larger than for a few thousand, says it is downsampled,
/// and keeps the extremes.
#[test]
fn a_long_trace_is_summarised() {
    let n = 1_000_000;
    let samples: Vec<(f64, f64)> = (0..n)
        .map(|i| {
            (
                if i == 765_432 {
                    -50.0
                } else {
                    (i as f64 / 1e4).sin()
                },
                0.0,
            )
        })
        .collect();
    let (report, _) = run(&samples);
    assert!(report.robustness.buckets().count() <= 2048);
    let page = html(&report);
    assert!(page.len() < 2_000_000, "{} bytes", page.len());
    assert!(page.contains("downsampled: each point is the min and max of 512 samples"));
    assert!(
        page.contains("min -50.5 at sample 765432 (765432 s)"),
        "the extreme is lost"
    );
    assert_eq!(problems(&page), Vec::<String>::new());
}

/// A first-order monitor's stand-in: a violation with data at every third time point, and an
/// inconclusive one at the end.
struct Every3;

impl Monitor for Every3 {
    fn feed(
        &mut self,
        batch: &[TimePoint],
        i: &mut Interner,
        sink: &mut dyn Sink,
    ) -> Result<(), Error> {
        let vars = ["user".to_string()];
        for tp in batch.iter().filter(|tp| tp.index % 3 == 0) {
            let values = [Value::Int(tp.index as i64)];
            let payload = Payload::Tuple {
                vars: &vars,
                values: &values,
            };
            sink.emit(
                &Decision {
                    tp: tp.index,
                    ts: tp.ts,
                    kind: Kind::Violation,
                    payload,
                },
                i,
            )?;
        }
        Ok(())
    }
    fn finish(&mut self, i: &mut Interner, sink: &mut dyn Sink) -> Result<(), Error> {
        let d = Decision {
            tp: 99,
            ts: 990,
            kind: Kind::Inconclusive,
            payload: Payload::None,
        };
        sink.emit(&d, i)
    }
    fn snapshot(&self) -> Result<Vec<u8>, Error> {
        Ok(Vec::new())
    }
    fn restore(&mut self, _: &[u8]) -> Result<(), Error> {
        Ok(())
    }
    fn describe(&self) -> Description {
        Description::default()
    }
}

#[test]
fn a_first_order_run_gets_a_verdict_timeline() {
    let mut m = Every3;
    let mut reported = Reported::new(&mut m, meta(&[]), Vec::new());
    let (mut sink, mut interner) = (Collect::default(), Interner::new());
    let p = interner.intern("p");
    let tps: Vec<TimePoint> = (0..100)
        .map(|k| {
            let mut tp = TimePoint {
                index: k,
                ts: k as i64 * 10,
                ..TimePoint::default()
            };
            tp.push_event(p, &[Value::Int(1)]);
            tp
        })
        .collect();
    reported.feed(&tps, &mut interner, &mut sink).unwrap();
    reported.finish(&mut interner, &mut sink).unwrap();
    let report = reported.into_report();
    assert_eq!(
        (
            report.count(Kind::Violation),
            report.count(Kind::Inconclusive)
        ),
        (34, 1)
    );
    assert_eq!(report.listed.len(), 35);
    let page = html(&report);
    assert_eq!(problems(&page), Vec::<String>::new());
    for needle in [
        "100</b> time point(s) read",
        "34 violations",
        "1 inconclusive",
        "user=33",
        "@990",
        "<td>99</td>",
    ] {
        assert!(page.contains(needle), "no {needle:?}");
    }
    assert_eq!(page.matches("<svg").count(), 1, "the timeline only");
}

#[test]
fn problems_are_found() {
    assert!(problems("<!DOCTYPE html><html><body><div></body></html>").len() >= 2);
    assert!(!problems("<!DOCTYPE html><html><img src=\"https://x/y.png\"></html>").is_empty());
    assert!(!problems("<!DOCTYPE html><html><style>@import 'x.css'</style></html>").is_empty());
    assert!(
        problems("<!DOCTYPE html><html><meta charset=\"utf-8\"><svg><rect/></svg></html>")
            .is_empty()
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    /// Whatever the values (NaN, infinities, huge, tiny) and the buckets, the page is well formed.
    #[test]
    fn any_values_draw_a_well_formed_page(
        samples in prop::collection::vec((any::<f64>(), prop::sample::select(vec![0.0, -0.0, f64::NAN, f64::INFINITY, 1e-300, -1e300])), 0..300)
    ) {
        let (report, _) = run(&samples);
        let page = html(&report);
        prop_assert_eq!(problems(&page), Vec::<String>::new());
        prop_assert!(!page.contains("NaN,") && !page.contains(",NaN"), "a NaN coordinate");
    }
}
