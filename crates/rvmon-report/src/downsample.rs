//! A streaming min/max downsampler: values at positions (a sample's or a time point's index)
//! summarised in a fixed number of buckets, each the minimum and maximum of the values of a
//! run of consecutive positions. When a position falls past the last bucket, adjacent buckets
//! are merged in pairs and the width of a bucket doubles, so memory does not depend on the
//! length of the trace, and the extremes of every stretch of the trace survive (the minimum
//! of a bucket is the minimum of its positions' values, whatever the merges).

/// The positions `[first, last]` that a bucket has values of, their times, and the values'
/// minimum and maximum (over the values that are not NaN; NaNs are counted apart).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bucket {
    /// The first and last positions with a value in the bucket.
    pub first: u64,
    pub last: u64,
    /// The times of those positions (the trace's unit: nanoseconds for samples).
    pub t_first: i64,
    pub t_last: i64,
    /// Values added (NaNs included).
    pub n: u64,
    /// NaNs among them.
    pub nan: u64,
    /// The least and greatest value that is not NaN (`+inf`/`-inf` included), or NaN when
    /// every value was NaN.
    pub min: f64,
    pub max: f64,
    /// Where the minimum and the maximum are (the first position that has each).
    pub min_at: (u64, i64),
    pub max_at: (u64, i64),
}

impl Bucket {
    fn of(pos: u64, t: i64, v: f64) -> Bucket {
        Bucket {
            first: pos,
            last: pos,
            t_first: t,
            t_last: t,
            n: 1,
            nan: u64::from(v.is_nan()),
            min: v,
            max: v,
            min_at: (pos, t),
            max_at: (pos, t),
        }
    }

    /// Both buckets' values in one (either may come first in position).
    fn merge(self, o: Bucket) -> Bucket {
        let mut b = self;
        if o.first < b.first {
            (b.first, b.t_first) = (o.first, o.t_first);
        }
        if o.last > b.last {
            (b.last, b.t_last) = (o.last, o.t_last);
        }
        b.n += o.n;
        b.nan += o.nan;
        // NaN means "no value": the other side's extreme wins; ties keep the earlier one.
        let earlier = |x: (u64, i64), y: (u64, i64)| if y.0 < x.0 { y } else { x };
        if b.min.is_nan() || o.min < b.min {
            (b.min, b.min_at) = (o.min, o.min_at);
        } else if o.min == b.min {
            b.min_at = earlier(b.min_at, o.min_at);
        }
        if b.max.is_nan() || o.max > b.max {
            (b.max, b.max_at) = (o.max, o.max_at);
        } else if o.max == b.max {
            b.max_at = earlier(b.max_at, o.max_at);
        }
        b
    }

    /// Whether the bucket has a value that is not NaN.
    pub fn has_value(&self) -> bool {
        !self.min.is_nan()
    }
}

/// The summary of a series of values at positions, in at most `capacity` buckets.
#[derive(Clone, Debug)]
pub struct Downsampler {
    capacity: usize,
    /// Positions per bucket: bucket `k` holds positions `k * width .. (k + 1) * width`.
    width: u64,
    buckets: Vec<Option<Bucket>>,
    /// Values added, in all.
    count: u64,
}

/// The buckets a series keeps by default: about two per pixel of a panel's width.
pub const DEFAULT_BUCKETS: usize = 2048;

impl Downsampler {
    /// A downsampler of at most `capacity` buckets (at least 2, and even, so that pairs merge).
    pub fn new(capacity: usize) -> Downsampler {
        let capacity = capacity.max(2).next_multiple_of(2);
        Downsampler {
            capacity,
            width: 1,
            buckets: Vec::new(),
            count: 0,
        }
    }

    /// Adds the value `v` at position `pos` (time `t`). Positions may come in any order, and
    /// repeat (a time point with several decisions).
    pub fn push(&mut self, pos: u64, t: i64, v: f64) {
        while pos / self.width >= self.capacity as u64 {
            self.halve();
        }
        let k = (pos / self.width) as usize;
        if self.buckets.len() <= k {
            // All at once, exactly: a series holds `capacity` buckets, never more.
            self.buckets
                .reserve_exact(self.capacity - self.buckets.len());
            self.buckets.resize(k + 1, None);
        }
        let new = Bucket::of(pos, t, v);
        let slot = &mut self.buckets[k];
        *slot = Some(match *slot {
            Some(b) => b.merge(new),
            None => new,
        });
        self.count += 1;
    }

    /// Merges adjacent buckets in pairs: twice the positions per bucket, half the buckets.
    fn halve(&mut self) {
        let mut merged = Vec::with_capacity(self.capacity);
        merged.extend(self.buckets.chunks(2).map(|pair| match pair {
            [Some(a), Some(b)] => Some(a.merge(*b)),
            [a, b] => a.or(*b),
            [a] => *a,
            _ => None,
        }));
        self.buckets = merged;
        self.width = self.width.saturating_mul(2);
    }

    /// The buckets that have values, in order of position.
    pub fn buckets(&self) -> impl Iterator<Item = &Bucket> + '_ {
        self.buckets.iter().flatten()
    }

    /// Positions per bucket (1 until the trace is longer than the buckets).
    pub fn width(&self) -> u64 {
        self.width
    }

    /// The most buckets it keeps.
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// Buckets allocated (at most [`Downsampler::capacity`]).
    pub fn allocated(&self) -> usize {
        self.buckets.capacity()
    }

    /// Values added.
    pub fn count(&self) -> u64 {
        self.count
    }

    /// The whole series as one bucket (its extremes and where they are), if it has values.
    pub fn total(&self) -> Option<Bucket> {
        self.buckets().copied().reduce(Bucket::merge)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A million values in 64 buckets: never more than 64 kept (nor allocated past the
    /// first doubling of the vector), and the extremes and their places are the true ones.
    #[test]
    fn memory_is_bounded_and_extremes_survive() {
        let mut d = Downsampler::new(64);
        let value = |i: u64| ((i as f64) * 0.001).sin() * (1.0 + (i % 7) as f64);
        let (mut lo, mut hi) = ((f64::INFINITY, 0), (f64::NEG_INFINITY, 0));
        for i in 0..1_000_000u64 {
            let v = value(i);
            if v < lo.0 {
                lo = (v, i);
            }
            if v > hi.0 {
                hi = (v, i);
            }
            d.push(i, i as i64 * 10, v);
            assert!(d.buckets.len() <= 64);
        }
        assert_eq!(d.allocated(), 64);
        assert_eq!(d.count(), 1_000_000);
        assert!(d.width() >= 1_000_000 / 64);
        let t = d.total().unwrap();
        assert_eq!((t.min, t.min_at), (lo.0, (lo.1, lo.1 as i64 * 10)));
        assert_eq!((t.max, t.max_at), (hi.0, (hi.1, hi.1 as i64 * 10)));
        assert_eq!((t.first, t.last, t.n), (0, 999_999, 1_000_000));
    }

    #[test]
    fn nan_and_infinities() {
        let mut d = Downsampler::new(4);
        d.push(0, 0, f64::NAN);
        assert!(!d.total().unwrap().has_value());
        for (i, v) in [1.0, f64::NEG_INFINITY, f64::NAN, f64::INFINITY, 2.0]
            .into_iter()
            .enumerate()
        {
            d.push(i as u64 + 1, 0, v);
        }
        let t = d.total().unwrap();
        assert_eq!(
            (t.min, t.max, t.nan, t.n),
            (f64::NEG_INFINITY, f64::INFINITY, 2, 6)
        );
        assert_eq!((t.min_at.0, t.max_at.0), (2, 4));
    }

    #[test]
    fn far_positions_and_none() {
        let mut d = Downsampler::new(8);
        assert!(d.total().is_none());
        d.push(u64::MAX, 1, 1.0);
        d.push(0, 0, -1.0);
        assert_eq!(d.buckets().count(), 2);
        assert!(d.buckets.len() <= 8);
        let t = d.total().unwrap();
        assert_eq!((t.first, t.last, t.min, t.max), (0, u64::MAX, -1.0, 1.0));
    }

    proptest! {
        /// Each bucket is exactly the min, max and count of the values of its positions,
        /// whatever the order of the positions.
        #[test]
        fn buckets_are_exact(values in prop::collection::vec((0u64..5000, -100i32..100), 0..3000),
                             capacity in 2usize..40) {
            let mut d = Downsampler::new(capacity);
            for &(p, v) in &values {
                d.push(p, p as i64, f64::from(v));
            }
            prop_assert!(d.buckets.len() <= d.capacity());
            let w = d.width();
            let mut seen = 0;
            for b in d.buckets() {
                let k = b.first / w;
                prop_assert_eq!(b.last / w, k);
                let inside: Vec<f64> = values.iter().filter(|(p, _)| p / w == k)
                    .map(|&(_, v)| f64::from(v)).collect();
                prop_assert_eq!(b.n, inside.len() as u64);
                prop_assert_eq!(b.min, inside.iter().copied().fold(f64::INFINITY, f64::min));
                prop_assert_eq!(b.max, inside.iter().copied().fold(f64::NEG_INFINITY, f64::max));
                seen += b.n;
            }
            prop_assert_eq!(seen, values.len() as u64);
        }
    }
}
