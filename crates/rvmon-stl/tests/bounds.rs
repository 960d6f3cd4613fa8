//! Robustness bounds of the samples still inside the horizon (`--intervals`): on random
//! formulas and traces, every bound given after a prefix holds the robustness the sample
//! finally gets, whether the trace ends there (rtamt's cut windows) or goes on; the bounds
//! only tighten as samples arrive; and a worked example.

use proptest::prelude::*;
use rvmon_stl::eval::robustness;
use rvmon_stl::online::Bounds;
use rvmon_stl::{parse, Formula, Online};
use rvmon_testkit::stl;

fn columns(f: &Formula, samples: &[(f64, f64)]) -> Vec<Vec<f64>> {
    stl::columns(&f.signals, samples)
}

/// The engine after `n` samples, and the bounds it gives, from the first undecided sample.
fn bounds_after(f: &Formula, samples: &[(f64, f64)], n: usize) -> (u64, Vec<Bounds>) {
    let cols = columns(f, samples);
    let mut engine = Online::new(f);
    let mut decided = 0;
    for i in 0..n {
        let row: Vec<f64> = cols.iter().map(|c| c[i]).collect();
        engine.push(f, &row, |_, _| decided += 1);
    }
    (decided, engine.bounds(f))
}

/// Whether `v` is within `b`. (A NaN, which `iff` of two equal infinities gives, is in no
/// interval: such results are not bounded.)
fn holds(b: &Bounds, v: f64) -> bool {
    v.is_nan() || (b.lo <= v && v <= b.hi)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]

    #[test]
    fn bounds_hold_the_final_robustness(
        text in stl::formula(),
        samples in stl::samples(1..40),
        cut in 0.0..1.0f64,
    ) {
        let f = parse("t.stl", &text).unwrap();
        prop_assume!(Online::has_bounds(&f));
        let samples: Vec<(f64, f64)> =
            samples.iter().map(|&(x, y)| (x.max(-9.0), y.max(-9.0))).collect(); // no NaN
        let n = 1 + ((samples.len() - 1) as f64 * cut) as usize;
        let (first, bounds) = bounds_after(&f, &samples, n);
        prop_assert_eq!(first as usize + bounds.len(), n, "a bound per undecided sample");
        // The trace goes on, or ends after the prefix.
        let whole = robustness(&f, &columns(&f, &samples));
        let ended = robustness(&f, &columns(&f, &samples[..n]));
        for (i, b) in bounds.iter().enumerate() {
            let j = first as usize + i;
            prop_assert!(b.lo <= b.hi, "{}: {:?} at {}", text, b, j);
            prop_assert!(holds(b, whole[j]), "{} at {} after {}: {:?} misses {}", text, j, n, b, whole[j]);
            prop_assert!(holds(b, ended[j]), "{} at {} (ended at {}): {:?} misses {}", text, j, n, b, ended[j]);
        }
        // One more sample only tightens them.
        if n < samples.len() {
            let (first2, later) = bounds_after(&f, &samples, n + 1);
            for (i, b) in later.iter().enumerate() {
                let j = first2 as usize + i;
                if let Some(before) = bounds.get(j - first as usize) {
                    prop_assert!(before.lo <= b.lo && b.hi <= before.hi,
                        "{} at {}: {:?} then {:?}", text, j, before, b);
                }
            }
        }
    }
}

/// `always[0,2](x > 0)` over x = 1, 2: sample 0 can still fall to anything below 1 (x at 2
/// is to come), sample 1 below 2. A third sample decides sample 0.
#[test]
fn a_worked_example() {
    let f = parse("t.stl", "always[0,2](x > 0)").unwrap();
    let mut engine = Online::new(&f);
    let mut decided = Vec::new();
    engine.push(&f, &[1.0], |j, r| decided.push((j, r)));
    engine.push(&f, &[2.0], |j, r| decided.push((j, r)));
    let inf = f64::INFINITY;
    let b = |lo, hi| Bounds { lo, hi };
    assert_eq!(engine.bounds(&f), vec![b(-inf, 1.0), b(-inf, 2.0)]);
    engine.push(&f, &[0.5], |j, r| decided.push((j, r)));
    assert_eq!(decided, vec![(0, 0.5)]);
    assert_eq!(engine.bounds(&f), vec![b(-inf, 0.5), b(-inf, 0.5)]);
    // A lower bound appears where the formula's sign cannot flip: `eventually`.
    let f = parse("t.stl", "eventually[0,2](x > 0)").unwrap();
    let mut engine = Online::new(&f);
    engine.push(&f, &[1.0], |_, _| {});
    assert_eq!(engine.bounds(&f), vec![b(1.0, inf)]);
}
