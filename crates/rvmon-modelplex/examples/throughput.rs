//! The evaluator alone, without reading a trace: state pairs per second of a `.modelplex`
//! file's conditions on a compliant water-tank run held in memory (bench/modelplex.py).
//!
//! `cargo run --release -p rvmon-modelplex --example throughput -- SPEC PAIRS [TOLERANCE]`

use std::time::Instant;

use rvmon_core::event::{Event, Val};
use rvmon_core::{Collect, Interner, Monitor};
use rvmon_modelplex::ModelplexMonitor;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let spec = args.get(1).expect("SPEC PAIRS");
    let pairs: usize = args
        .get(2)
        .map_or(10_000_000, |n| n.parse().expect("PAIRS"));
    let text = std::fs::read_to_string(spec).expect("the spec");
    let tolerance = args.get(3).map(String::as_str);
    let mut m = ModelplexMonitor::new(spec, &text, tolerance).expect("a valid spec");
    let names: Vec<String> = m.inputs().into_iter().map(|i| i.0).collect();
    // A compliant run: x' = x + f'·t' with decimal inflows of two digits, the level kept in
    // [0, 10] (m = 10, ε = 1).
    let n = 4096;
    let mut states = Vec::with_capacity(n);
    let (mut x, mut k) = (5.0f64, 0u64);
    for _ in 0..n {
        k = k
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        // The inflow in hundredths, between max(-1, -x) and (m - x)/ε.
        let (down, up) = ((x * 100.0).floor() as i64, (x * 100.0).ceil() as i64);
        let (lo, hi) = ((-100).max(-down), 1000 - up);
        let f = (lo + (k >> 33) as i64 % (hi - lo + 1)) as f64 / 100.0;
        // The plant runs for 0.25 to 1 (ε), in quarters.
        let t = ((k >> 20) % 4 + 1) as f64 / 4.0;
        let next = ((x * 400.0).round() + (f * 100.0).round() * (t * 4.0)) / 400.0;
        let state: Vec<f64> = names
            .iter()
            .map(|s| match s.as_str() {
                "x" => next,
                "f" => f,
                _ => t,
            })
            .collect();
        states.push(state);
        x = next;
    }
    // Fed as the run loop feeds it: events in batches of its batch size, each pair's
    // posterior the next pair's prior (the pair from the last state back to the first is
    // a violation, once every 4096 pairs).
    let events: Vec<Event> = states
        .iter()
        .enumerate()
        .map(|(i, s)| Event {
            time: i as i64 * 1_000_000_000,
            values: s.iter().map(|x| Some(Val::Float(*x))).collect(),
        })
        .collect();
    let (mut interner, mut sink) = (Interner::new(), Collect::default());
    let start = Instant::now();
    let (mut fed, mut violations) = (0usize, 0usize);
    let batch = m.batch_size();
    while fed < pairs {
        for chunk in events.chunks(batch) {
            m.feed(chunk, &mut interner, &mut sink)
                .expect("finite samples");
            fed += chunk.len();
        }
        violations += sink.decisions.len();
        sink.decisions.clear();
    }
    let secs = start.elapsed().as_secs_f64();
    println!(
        "pairs={fed} seconds={secs:.3} pairs_per_second={:.0} violations={violations}",
        fed as f64 / secs
    );
}
