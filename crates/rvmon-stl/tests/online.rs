//! The online engine against the offline evaluation (the brute-force reference, checked
//! against rtamt itself): on random formulas and samples, each sample's robustness is the
//! same to the last bit (signed zeros and NaN included), emitted once, in order; and a
//! bounded formula holds a number of values that does not grow with the trace.

use proptest::prelude::*;
use rvmon_stl::eval::robustness;
use rvmon_stl::{parse, Formula, Online};
use rvmon_testkit::stl;

fn columns(f: &Formula, samples: &[(f64, f64)]) -> Vec<Vec<f64>> {
    stl::columns(&f.signals, samples)
}

fn online(f: &Formula, samples: &[(f64, f64)]) -> Vec<(u64, f64)> {
    online_in_chunks(f, samples, 1)
}

/// The online engine fed `chunk` samples at a time (`push_rows`, or `push_columns` when an
/// odd number; 1: `push`).
fn online_in_chunks(f: &Formula, samples: &[(f64, f64)], chunk: usize) -> Vec<(u64, f64)> {
    let cols = columns(f, samples);
    let mut engine = Online::new(f);
    let mut out = Vec::new();
    let row = |i: usize| cols.iter().map(move |c| c[i]);
    for at in (0..samples.len()).step_by(chunk) {
        let count = chunk.min(samples.len() - at);
        if count == 1 {
            let sample: Vec<f64> = row(at).collect();
            engine.push(f, &sample, |j, r| out.push((j, r)));
        } else if count % 2 == 1 {
            // (Odd batches as columns, the Python module's way in; the same engine.)
            let slices: Vec<&[f64]> = cols.iter().map(|c| &c[at..at + count]).collect();
            engine.push_columns(f, &slices, |j, r| out.push((j, r)));
        } else {
            let rows: Vec<f64> = (at..at + count).flat_map(row).collect();
            engine.push_rows(f, &rows, count, |j, r| out.push((j, r)));
        }
    }
    engine.finish(f, |j, r| out.push((j, r)));
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(500))]

    #[test]
    fn online_gives_the_offline_robustness(text in stl::formula(), samples in stl::samples(1..25)) {
        let f = parse("t.stl", &text).unwrap();
        let want = robustness(&f, &columns(&f, &samples));
        let got = online(&f, &samples);
        prop_assert_eq!(got.len(), want.len(), "{}", text);
        for (i, ((j, r), w)) in got.iter().zip(&want).enumerate() {
            prop_assert_eq!(*j, i as u64);
            prop_assert!(r.to_bits() == w.to_bits() || (r.is_nan() && w.is_nan()),
                "{} at {}: online {:?}, offline {:?}", text, i, r, w);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// Traces longer than the formulas' delays and spans, fed in batches of every size
    /// around the engine's own: every node reaches its steady lag and its ring of values wraps
    /// around many times.
    #[test]
    fn long_traces_wrap_the_rings(
        text in stl::formula(),
        samples in stl::samples(40..700),
        chunk in prop::sample::select(vec![1usize, 2, 7, 64, 255, 256, 257, 600]),
    ) {
        let f = parse("t.stl", &text).unwrap();
        let want = robustness(&f, &columns(&f, &samples));
        let got = online_in_chunks(&f, &samples, chunk);
        prop_assert_eq!(got.len(), want.len(), "{}", text);
        for (i, ((_, r), w)) in got.iter().zip(&want).enumerate() {
            prop_assert!(r.to_bits() == w.to_bits() || (r.is_nan() && w.is_nan()),
                "{} at {}: online {:?}, offline {:?}", text, i, r, w);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    /// The sliding windows on values that tie (`0.0` and `-0.0`) and NaNs, where the fold's
    /// choice of the first of equal values and its passing over NaNs show: short windows
    /// (slid in blocks) and long ones (through the deque, and in blocks once a batch is
    /// long next to them), fed a sample or many at a time.
    #[test]
    fn windows_choose_as_the_fold_does(
        op in prop::sample::select(vec!["always", "eventually", "historically", "once"]),
        (a, d) in (0u32..4, prop::sample::select(vec![0u32, 1, 2, 3, 9, 40, 1100])),
        xs in prop::collection::vec(prop::sample::select(vec![0.0, -0.0, 1.0, -1.0, f64::NAN]), 1..1300),
        chunk in prop::sample::select(vec![1usize, 3, 256, 1300]),
    ) {
        let text = format!("{op}[{a},{}](x)", a + d);
        let f = parse("t.stl", &text).unwrap();
        let samples: Vec<(f64, f64)> = xs.iter().map(|&x| (x, 0.0)).collect();
        let want = robustness(&f, &columns(&f, &samples));
        let got = online_in_chunks(&f, &samples, chunk);
        for (i, ((_, r), w)) in got.iter().zip(&want).enumerate() {
            prop_assert!(r.to_bits() == w.to_bits() || (r.is_nan() && w.is_nan()),
                "{} on {:?} at {}: online {:?}, offline {:?}", text, xs, i, r, w);
        }
    }
}

/// Paper 19's point: a bounded formula is monitored in memory independent of the trace. Its
/// values are decided the horizon after their sample.
#[test]
fn bounded_formulas_hold_what_their_windows_read() {
    let text = "always[0,100]((x > 0.5) implies eventually[0,20](y < 0.0)) and \
                historically[0,30](x < 2) and (x > 0) since[2,10] (y > 1)";
    let f = parse("t.stl", text).unwrap();
    assert_eq!(f.horizon(), Some(120));
    let mut engine = Online::new(&f);
    let (mut most, mut decided, mut after_warmup) = (0, 0u64, 0);
    for i in 0..20_000u64 {
        let x = ((i * 7919) % 100) as f64 / 25.0 - 2.0;
        let y = ((i * 104_729) % 100) as f64 / 25.0 - 2.0;
        engine.push(&f, &[x, y], |j, _| {
            assert_eq!(j, decided);
            decided += 1;
        });
        if i > 1000 {
            assert_eq!(decided, i + 1 - 120, "decided the horizon after");
        }
        most = most.max(engine.held());
        if i == 2_000 {
            after_warmup = most;
        }
    }
    // Each node's ring holds what its parents read plus a batch (256 values), in a power of
    // two: a bound from the formula, reached early, never passed.
    assert_eq!(most, after_warmup, "the memory grew with the trace");
    assert!(most < 16_384, "held {most} values");
}
