//! A piecewise-constant signal over dense time: right-open segments `[start, next start)`, the
//! last one lasting forever, from the trace's first sample on. Every subformula's robustness
//! over a piecewise-constant input is again one of these, so the exact engine computes whole
//! signals, bottom-up.
//!
//! Times are 128-bit nanoseconds: timestamps (64 bits) shifted by window bounds (at most 2^62
//! ns each) cannot overflow, so no breakpoint is ever clamped or lost.

use super::order::same;

/// A time in nanoseconds.
pub type Time = i128;

/// A time later than every breakpoint: the end of a segment that lasts forever, the bound
/// of an unbounded window.
pub const FOREVER: Time = 1 << 120;

/// Segments `(start, value)`: starts strictly increasing, adjacent values different
/// ([`same`]), at least one segment.
#[derive(Clone, Debug, PartialEq)]
pub struct Signal {
    segs: Vec<(Time, f64)>,
}

/// Builds a [`Signal`] from segments in order of time, merging what [`Signal`] must not
/// hold: a segment of no length (a later one at the same start replaces it) and adjacent
/// equal values.
pub struct Builder {
    segs: Vec<(Time, f64)>,
}

impl Builder {
    pub fn with_capacity(n: usize) -> Builder {
        Builder {
            segs: Vec::with_capacity(n),
        }
    }

    /// The value `v` from `t` on (`t` at or after the last start).
    pub fn push(&mut self, t: Time, v: f64) {
        if let Some(last) = self.segs.last_mut() {
            debug_assert!(t >= last.0, "segments out of order");
            if t <= last.0 {
                // The last segment had no length: it is replaced, and may now equal the one
                // before it.
                self.segs.pop();
                if self.segs.last().is_some_and(|p| same(p.1, v)) {
                    return;
                }
            } else if same(last.1, v) {
                return;
            }
        }
        self.segs.push((t, v));
    }

    /// The signal; `None` if nothing was pushed.
    pub fn finish(self) -> Option<Signal> {
        (!self.segs.is_empty()).then_some(Signal { segs: self.segs })
    }
}

impl Signal {
    /// A signal of these segments (tests).
    #[cfg(test)]
    pub(crate) fn of(segs: &[(Time, f64)]) -> Signal {
        let mut b = Builder::with_capacity(segs.len());
        for &(t, v) in segs {
            b.push(t, v);
        }
        b.finish().expect("at least one segment")
    }

    /// The value `v` at every time from `start` on.
    pub fn constant(start: Time, v: f64) -> Signal {
        Signal {
            segs: vec![(start, v)],
        }
    }

    /// The signal of samples at `times` (strictly increasing, at least one) with `values`:
    /// each value holds until the next sample, the last one forever.
    pub fn from_samples(times: &[i64], values: &[f64]) -> Option<Signal> {
        let mut b = Builder::with_capacity(times.len());
        for (&t, &v) in times.iter().zip(values) {
            b.push(Time::from(t), v);
        }
        b.finish()
    }

    pub fn segments(&self) -> &[(Time, f64)] {
        &self.segs
    }

    /// Where the signal starts (the trace's first sample).
    pub fn start(&self) -> Time {
        self.segs[0].0
    }

    /// Where segment `i` ends: the next one's start, or [`FOREVER`].
    pub fn end_of(&self, i: usize) -> Time {
        self.segs.get(i + 1).map_or(FOREVER, |s| s.0)
    }

    /// `f` of each value.
    pub fn map(&self, f: impl Fn(f64) -> f64) -> Signal {
        let mut b = Builder::with_capacity(self.segs.len());
        for &(t, v) in &self.segs {
            b.push(t, f(v));
        }
        b.finish().unwrap_or_else(|| self.clone())
    }

    /// `f` of the two signals' values at each time (both start at the same time), over
    /// their common segmentation ([`Signal::pairs`]).
    pub fn zip(&self, other: &Signal, f: impl Fn(f64, f64) -> f64) -> Signal {
        let mut b = Builder::with_capacity(self.segs.len() + other.segs.len());
        for (t, p, q) in self.pairs(other) {
            b.push(t, f(p, q));
        }
        b.finish().unwrap_or_else(|| self.clone())
    }

    /// The breakpoints of both signals, merged, each with both values from there on: the
    /// coarsest segmentation on which both are constant.
    pub fn pairs(&self, other: &Signal) -> Vec<(Time, f64, f64)> {
        let (a, b) = (&self.segs, &other.segs);
        let mut out = Vec::with_capacity(a.len() + b.len());
        let (mut i, mut j) = (0, 0);
        loop {
            let t = a[i].0.max(b[j].0);
            out.push((t, a[i].1, b[j].1));
            let (na, nb) = (self.end_of(i), other.end_of(j));
            let next = na.min(nb);
            if next >= FOREVER {
                return out;
            }
            i += usize::from(na == next);
            j += usize::from(nb == next);
        }
    }

    /// The values at `times` (increasing, none before the start).
    pub fn at_times(&self, times: &[i64]) -> Vec<f64> {
        let mut i = 0;
        times
            .iter()
            .map(|&t| {
                let t = Time::from(t);
                while i + 1 < self.segs.len() && self.segs[i + 1].0 <= t {
                    i += 1;
                }
                self.segs[i].1
            })
            .collect()
    }

    /// `y(t) = x(t + d)` (a future shift, `d` ≥ 0), from the same start: breakpoints move
    /// `d` earlier, and those that move to or before the start are gone.
    pub fn earlier_by(&self, d: Time) -> Signal {
        let start = self.start();
        let mut b = Builder::with_capacity(self.segs.len());
        // The segment in force at `start + d` is the first one.
        let first = self.segs.partition_point(|s| s.0 <= start + d) - 1;
        b.push(start, self.segs[first].1);
        for &(t, v) in &self.segs[first + 1..] {
            b.push(t - d, v);
        }
        b.finish().unwrap_or_else(|| self.clone())
    }

    /// `y(t) = x(t - d)` (a past shift, `d` ≥ 0), from the same start: breakpoints move `d`
    /// later, and before `start + d`, where `x` does not exist, `y` is `fill`.
    pub fn later_by(&self, d: Time, fill: f64) -> Signal {
        let mut b = Builder::with_capacity(self.segs.len() + 1);
        b.push(self.start(), fill);
        for &(t, v) in &self.segs {
            b.push(t + d, v);
        }
        b.finish().unwrap_or_else(|| self.clone())
    }

    /// The same signal, but `v` on `[start, until)`.
    pub fn with_prefix(&self, until: Time, v: f64) -> Signal {
        if until <= self.start() {
            return self.clone();
        }
        let mut b = Builder::with_capacity(self.segs.len() + 1);
        b.push(self.start(), v);
        // At least the first segment starts at or before `until`.
        let first = self.segs.partition_point(|s| s.0 <= until);
        b.push(until, self.segs[first - 1].1);
        for &(t, v) in &self.segs[first..] {
            b.push(t, v);
        }
        b.finish().unwrap_or_else(|| self.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builder_merges_equal_values_and_empty_segments() {
        let s = Signal::of(&[(0, 1.0), (2, 1.0), (3, 2.0), (3, 1.0), (5, 0.0), (5, -0.0)]);
        assert_eq!(s.segments(), &[(0, 1.0), (5, -0.0)]);
        assert!(s.segments()[1].1.is_sign_negative());
    }

    #[test]
    fn shifts_and_prefixes() {
        let s = Signal::of(&[(0, 1.0), (2, 2.0), (5, 3.0)]);
        assert_eq!(s.earlier_by(2).segments(), &[(0, 2.0), (3, 3.0)]);
        assert_eq!(s.earlier_by(9).segments(), &[(0, 3.0)]);
        let later = s.later_by(1, f64::NEG_INFINITY);
        assert_eq!(
            later.segments(),
            &[(0, f64::NEG_INFINITY), (1, 1.0), (3, 2.0), (6, 3.0)]
        );
        assert_eq!(
            s.with_prefix(3, 7.0).segments(),
            &[(0, 7.0), (3, 2.0), (5, 3.0)]
        );
        assert_eq!(s.with_prefix(0, 7.0).segments(), s.segments());
        assert_eq!(
            s.at_times(&[0, 1, 2, 4, 5, 100]),
            [1.0, 1.0, 2.0, 2.0, 3.0, 3.0]
        );
    }

    #[test]
    fn pairs_merge_breakpoints() {
        let a = Signal::of(&[(0, 1.0), (2, 2.0)]);
        let b = Signal::of(&[(0, 5.0), (1, 6.0), (2, 7.0), (4, 8.0)]);
        assert_eq!(
            a.pairs(&b),
            vec![(0, 1.0, 5.0), (1, 1.0, 6.0), (2, 2.0, 7.0), (4, 2.0, 8.0)]
        );
        assert_eq!(a.zip(&b, f64::min).segments(), &[(0, 1.0), (2, 2.0)]);
    }
}
