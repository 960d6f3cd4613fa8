//! Exact decimals in fixed point: `m · 10^-k` in 128 bits. The second pass, for the
//! comparisons the `f64` filter cannot decide (an equality that holds, a near tie): samples
//! are decimals of a few digits, and sums and products of those stay decimals, so this
//! decides them without fractions. It gives up (to [`crate::exact`]'s rationals) on a
//! division, a constant that is not a decimal, or a number too long for 128 bits.

use std::cmp::Ordering;

use crate::exact::Exact;

/// Powers of ten that fit an `i128`.
const POW10: [i128; 39] = {
    let mut p = [1i128; 39];
    let mut i = 1;
    while i < 39 {
        p[i] = p[i - 1] * 10;
        i += 1;
    }
    p
};

/// `m · 10^-k`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dec {
    m: i128,
    k: u32,
}

impl Dec {
    /// The decimal an `f64` sample stands for (as [`Exact::of_sample`]), when it has at most
    /// 17 fractional digits and 16 significant ones.
    pub fn of_sample(x: f64) -> Option<Dec> {
        let mut scale = 1.0f64;
        for k in 0..=17u32 {
            let m = (x * scale).round();
            if m.abs() >= 9_007_199_254_740_992.0 || !m.is_finite() {
                return None;
            }
            if m / scale == x {
                return Some(Dec { m: m as i128, k });
            }
            scale *= 10.0;
        }
        None
    }

    /// A constant as a decimal, if it is one that fits.
    pub fn of_exact(x: &Exact) -> Option<Dec> {
        let Exact::Small(n, d) = x else {
            return None;
        };
        let k = POW10.iter().position(|p| p == d)?;
        Some(Dec { m: *n, k: k as u32 })
    }

    pub fn to_exact(self) -> Exact {
        Exact::Small(self.m, POW10[self.k as usize])
    }

    /// Both at the larger scale.
    fn align(self, o: Dec) -> Option<(i128, i128, u32)> {
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
        if k > 38 {
            return None;
        }
        // (Two 64-bit mantissas, the usual case, multiply without overflow.)
        let m = match (i64::try_from(self.m), i64::try_from(o.m)) {
            (Ok(a), Ok(b)) => i128::from(a) * i128::from(b),
            _ => self.m.checked_mul(o.m)?,
        };
        Some(Dec { m, k })
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
        assert_eq!(d(7.9).add(d(-0.35)).unwrap().cmp(d(7.55)), Some(Ordering::Equal));
        assert_eq!(d(0.1).add(d(0.2)).unwrap().cmp(d(0.3)), Some(Ordering::Equal));
        assert_eq!(d(2.5).mul(d(-0.5)).unwrap().cmp(d(-1.25)), Some(Ordering::Equal));
        assert_eq!(d(1e15).mul(d(1e15)).unwrap().signum(), Ordering::Greater);
        assert!(Dec::of_sample(1e300).is_none());
        assert!(Dec::of_sample(1e-20).is_none());
        let third = Exact::int(1).div(&Exact::int(3)).unwrap();
        assert!(Dec::of_exact(&third).is_none());
        assert_eq!(Dec::of_exact(&Exact::Small(25, 10)), Some(Dec { m: 25, k: 1 }));
        let tiny = Dec { m: 1, k: 38 };
        assert!(tiny.mul(tiny).is_none());
        assert_eq!(d(7.55).to_exact().cmp(&Exact::parse_decimal("7.55").unwrap()), Ordering::Equal);
    }
}
