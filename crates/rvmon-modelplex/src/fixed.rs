//! Exact decimals in fixed point: `m · 10^-k` in 64 bits. The second pass, for the
//! comparisons the `f64` filter cannot decide (an equality that holds, a near tie): samples
//! are decimals of a few digits, and sums and products of those stay decimals, so this
//! decides them without fractions, each operation one machine instruction and an overflow
//! test. It gives up (to [`crate::exact`]'s rationals) on a division, a constant that is
//! not a decimal, or a number too long for 64 bits.

use std::cmp::Ordering;

use crate::exact::Exact;

/// Powers of ten that fit an `i64`.
pub(crate) const POW10: [i64; 19] = {
    let mut p = [1i64; 19];
    let mut i = 1;
    while i < 19 {
        p[i] = p[i - 1] * 10;
        i += 1;
    }
    p
};

/// Powers of ten as doubles (exact up to 10^22).
pub(crate) const POW10_F64: [f64; 19] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
    1e17, 1e18,
];

/// Below this, a whole number `m` with `m/10^k` reading back as `x` is the only decimal of
/// at most `k` digits that does (see [`Dec::of_sample_like`]).
pub const UNIQUE_BELOW: f64 = 2_251_799_813_685_248.0; // 2^51

/// `m · 10^-k`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dec {
    m: i64,
    k: u32,
}

impl Dec {
    pub const ZERO: Dec = Dec { m: 0, k: 0 };

    /// The decimal an `f64` sample stands for (as [`Exact::of_sample`]), when it has at most
    /// 17 fractional digits and 16 significant ones.
    pub fn of_sample(x: f64) -> Option<Dec> {
        let mut scale = 1.0f64;
        for k in 0..=17u32 {
            let scaled = x * scale;
            let m = scaled.round();
            if m.abs() >= 9_007_199_254_740_992.0 || !m.is_finite() {
                return None;
            }
            // (A division is slow: only a scale at which x is nearly a whole number is a
            // candidate, and the division decides. Near: within 4e-15 relative, more than
            // the rounding of `x * scale` and the distance from x to its decimal (2^-53
            // relative each), so the right scale is never skipped.)
            if (scaled - m).abs() <= scaled.abs() * 4e-15 && m / scale == x {
                return Some(Dec { m: m as i64, k });
            }
            scale *= 10.0;
        }
        None
    }

    /// [`Dec::of_sample`], trying first `k` fractional digits (a column's samples tend to
    /// have the same number): if `m = round(x·10^k)` is below 2^51 and `m/10^k` reads back
    /// as `x`, its trailing zeros stripped give the shortest decimal; else the full search.
    ///
    /// Why 2^51: then `x`'s step is below `10^-k` (`ulp(x)·10^k ≤ |x·10^k|·2^-52 < 1`), so
    /// no two decimals of at most `k` digits read back as `x`, and the shortest, which has
    /// at most `k` digits if any such decimal reads back, is `m`. Above it two can:
    /// 8.00000000000001 and 8.000000000000011 are the same double, and at 15 digits the
    /// product `x·10^15` rounds to the longer one.
    pub fn of_sample_like(x: f64, k: u32) -> Option<Dec> {
        if let Some(&scale) = POW10_F64.get(k as usize) {
            let m = (x * scale).round();
            if m.abs() < UNIQUE_BELOW && m / scale == x {
                let (mut m, mut k) = (m as i64, k);
                while k > 0 && m % 10 == 0 {
                    m /= 10;
                    k -= 1;
                }
                return Some(Dec { m, k });
            }
        }
        Dec::of_sample(x)
    }

    /// `m` of `m · 10^-k`.
    pub fn mantissa(self) -> i64 {
        self.m
    }

    /// Its number of fractional digits.
    pub fn digits(self) -> u32 {
        self.k
    }

    /// A constant as a decimal, if it is one that fits.
    pub fn of_exact(x: &Exact) -> Option<Dec> {
        let Exact::Small(n, d) = x else {
            return None;
        };
        let k = POW10.iter().position(|p| i128::from(*p) == *d)?;
        Some(Dec {
            m: i64::try_from(*n).ok()?,
            k: k as u32,
        })
    }

    pub fn to_exact(self) -> Exact {
        Exact::Small(i128::from(self.m), i128::from(POW10[self.k as usize]))
    }

    /// Both at the larger scale.
    fn align(self, o: Dec) -> Option<(i64, i64, u32)> {
        if self.k == o.k {
            return Some((self.m, o.m, self.k));
        }
        let k = self.k.max(o.k);
        let a = self.m.checked_mul(*POW10.get((k - self.k) as usize)?)?;
        let b = o.m.checked_mul(*POW10.get((k - o.k) as usize)?)?;
        Some((a, b, k))
    }

    pub fn add(self, o: Dec) -> Option<Dec> {
        let (a, b, k) = self.align(o)?;
        Some(Dec {
            m: a.checked_add(b)?,
            k,
        })
    }

    pub fn sub(self, o: Dec) -> Option<Dec> {
        let (a, b, k) = self.align(o)?;
        Some(Dec {
            m: a.checked_sub(b)?,
            k,
        })
    }

    pub fn mul(self, o: Dec) -> Option<Dec> {
        let k = self.k + o.k;
        if k > 18 {
            return None;
        }
        Some(Dec {
            m: self.m.checked_mul(o.m)?,
            k,
        })
    }

    pub fn neg(self) -> Option<Dec> {
        Some(Dec {
            m: self.m.checked_neg()?,
            k: self.k,
        })
    }

    pub fn abs(self) -> Option<Dec> {
        if self.m < 0 {
            self.neg()
        } else {
            Some(self)
        }
    }

    pub fn cmp(self, o: Dec) -> Option<Ordering> {
        let (a, b, _) = self.align(o)?;
        Some(a.cmp(&b))
    }

    pub fn signum(self) -> Ordering {
        self.m.cmp(&0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decimals_in_fixed_point() {
        let d = |x: f64| Dec::of_sample(x).unwrap();
        assert_eq!(
            d(7.9).add(d(-0.35)).unwrap().cmp(d(7.55)),
            Some(Ordering::Equal)
        );
        assert_eq!(
            d(0.1).add(d(0.2)).unwrap().cmp(d(0.3)),
            Some(Ordering::Equal)
        );
        assert_eq!(
            d(2.5).mul(d(-0.5)).unwrap().cmp(d(-1.25)),
            Some(Ordering::Equal)
        );
        assert!(d(1e15).mul(d(1e15)).is_none());
        assert_eq!(d(1e9).mul(d(1e9)).unwrap().signum(), Ordering::Greater);
        assert!(Dec::of_sample(1e300).is_none());
        for (x, k) in [
            (7.55, 5),
            (7.55, 2),
            (7.55, 0),
            (0.0, 3),
            (100.0, 2),
            (0.1 + 0.2, 1),
            (8.00000000000001, 15),
            (8.00000000000001, 14),
            (-1234.5678, 12),
        ] {
            assert_eq!(
                Dec::of_sample_like(x, k),
                Dec::of_sample(x),
                "{x} from {k} digits"
            );
        }
        assert!(Dec::of_sample(1e-20).is_none());
        let third = Exact::int(1).div(&Exact::int(3)).unwrap();
        assert!(Dec::of_exact(&third).is_none());
        assert_eq!(
            Dec::of_exact(&Exact::Small(25, 10)),
            Some(Dec { m: 25, k: 1 })
        );
        let tiny = Dec { m: 1, k: 18 };
        assert!(tiny.mul(tiny).is_none());
        assert_eq!(
            d(7.55)
                .to_exact()
                .cmp(&Exact::parse_decimal("7.55").unwrap()),
            Ordering::Equal
        );
    }
}
