//! Interval arithmetic over `f64` with outward rounding (each bound moved one step out after
//! every operation), the fast first pass: a comparison it decides is decided for the exact
//! values too; one it cannot decide (an equality that holds, a near tie, a division by an
//! interval around zero) is decided exactly ([`crate::exact`]).

/// `[lo, hi]`, both finite, containing the exact value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Interval {
    pub lo: f64,
    pub hi: f64,
}

impl Interval {
    /// The interval around a sample: the decimal it stands for is within half a step of it.
    pub fn around(x: f64) -> Option<Interval> {
        Interval::new(x.next_down(), x.next_up())
    }

    /// Exactly `x` (a double that is exactly the number meant).
    pub fn point(x: f64) -> Option<Interval> {
        Interval::new(x, x)
    }

    pub fn new(lo: f64, hi: f64) -> Option<Interval> {
        (lo.is_finite() && hi.is_finite()).then_some(Interval { lo, hi })
    }

    fn out(lo: f64, hi: f64) -> Option<Interval> {
        Interval::new(lo.next_down(), hi.next_up())
    }

    pub fn add(self, o: Interval) -> Option<Interval> {
        Interval::out(self.lo + o.lo, self.hi + o.hi)
    }

    pub fn sub(self, o: Interval) -> Option<Interval> {
        Interval::out(self.lo - o.hi, self.hi - o.lo)
    }

    pub fn neg(self) -> Interval {
        Interval {
            lo: -self.hi,
            hi: -self.lo,
        }
    }

    pub fn mul(self, o: Interval) -> Option<Interval> {
        let p = [
            self.lo * o.lo,
            self.lo * o.hi,
            self.hi * o.lo,
            self.hi * o.hi,
        ];
        let lo = p.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = p.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        Interval::out(lo, hi)
    }

    /// `None` when the divisor may be zero: decided exactly instead.
    pub fn div(self, o: Interval) -> Option<Interval> {
        if o.lo <= 0.0 && o.hi >= 0.0 {
            return None;
        }
        let p = [
            self.lo / o.lo,
            self.lo / o.hi,
            self.hi / o.lo,
            self.hi / o.hi,
        ];
        let lo = p.iter().copied().fold(f64::INFINITY, f64::min);
        let hi = p.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        Interval::out(lo, hi)
    }

    pub fn abs(self) -> Interval {
        if self.lo >= 0.0 {
            self
        } else if self.hi <= 0.0 {
            self.neg()
        } else {
            Interval {
                lo: 0.0,
                hi: self.hi.max(-self.lo),
            }
        }
    }

    pub fn min(self, o: Interval) -> Interval {
        Interval {
            lo: self.lo.min(o.lo),
            hi: self.hi.min(o.hi),
        }
    }

    pub fn max(self, o: Interval) -> Interval {
        Interval {
            lo: self.lo.max(o.lo),
            hi: self.hi.max(o.hi),
        }
    }

    /// `x^e`, `e >= 0`, by repeated multiplication (wider than the true range for even
    /// powers of an interval around zero, which is safe).
    pub fn pow(self, e: u32) -> Option<Interval> {
        let mut out = Interval::point(1.0)?;
        for _ in 0..e {
            out = out.mul(self)?;
        }
        Some(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn intervals_contain_the_exact_result() {
        let a = Interval::around(0.1).unwrap();
        let b = Interval::around(0.2).unwrap();
        let c = Interval::around(0.3).unwrap();
        let sum = a.add(b).unwrap();
        // 0.1 + 0.2 = 0.3 exactly: the interval cannot tell them apart, so it must overlap.
        assert!(sum.lo <= c.hi && c.lo <= sum.hi);
        assert!(Interval::point(1.0)
            .unwrap()
            .div(Interval { lo: -1.0, hi: 1.0 })
            .is_none());
        assert!(Interval::point(1e308)
            .unwrap()
            .mul(Interval::point(10.0).unwrap())
            .is_none());
        let sq = Interval { lo: -2.0, hi: 3.0 }.pow(2).unwrap();
        assert!(sq.lo <= 0.0 && sq.hi >= 9.0);
    }
}
