//! Exact rational numbers: a fraction of two 128-bit integers, not reduced until an operation
//! would overflow (then reduced, and only if it still overflows, moved to big integers). The
//! common case, decimal samples of a few digits, stays in registers.

use std::cmp::Ordering;

use num_bigint::BigInt;
use num_integer::Integer;
use num_rational::BigRational;
use num_traits::{Signed, ToPrimitive, Zero};

/// An exact rational.
#[derive(Clone, Debug)]
pub enum Exact {
    /// `n / d`, `d > 0`, not necessarily reduced.
    Small(i128, i128),
    Big(BigRational),
}

/// A division by zero (the condition is undefined on that pair of states).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DivByZero;

impl Exact {
    pub fn int(n: i128) -> Exact {
        Exact::Small(n, 1)
    }

    /// A decimal literal (`12`, `0.25`, `1e-3`, `.5`) exactly; `None` if it is not one.
    pub fn parse_decimal(text: &str) -> Option<Exact> {
        let (mantissa, exp) = match text.find(['e', 'E']) {
            Some(i) => (&text[..i], text[i + 1..].parse::<i32>().ok()?),
            None => (text, 0),
        };
        let (negative, mantissa) = match mantissa.strip_prefix('-') {
            Some(m) => (true, m),
            None => (false, mantissa),
        };
        let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
        if int.is_empty() && frac.is_empty()
            || !int.bytes().chain(frac.bytes()).all(|b| b.is_ascii_digit())
        {
            return None;
        }
        let digits: String = format!("{int}{frac}");
        let mut n: BigInt = digits.parse().ok()?;
        if negative {
            n = -n;
        }
        let scale = exp.checked_sub(i32::try_from(frac.len()).ok()?)?;
        // (Beyond a double's range: no sample or sensible constant is that large or small.)
        if scale.unsigned_abs() > 400 {
            return None;
        }
        let ten = BigInt::from(10);
        let r = if scale >= 0 {
            BigRational::from_integer(n * num_traits::pow(ten, scale as usize))
        } else {
            BigRational::new(n, num_traits::pow(ten, scale.unsigned_abs() as usize))
        };
        Some(Exact::Big(r).shrink())
    }

    /// The decimal an `f64` sample stands for: the shortest decimal that reads back as it
    /// (exactly the decimal written in the trace when it has at most 15 significant digits,
    /// and the number printed by any shortest-round-trip printer: Python's `repr`, Rust's,
    /// Java's). `None` for infinities and NaN.
    pub fn of_sample(x: f64) -> Option<Exact> {
        if !x.is_finite() {
            return None;
        }
        // (The common case in fixed point; large or tiny magnitudes: Rust prints the
        // shortest round-trip decimal.)
        crate::fixed::Dec::of_sample(x)
            .map(crate::fixed::Dec::to_exact)
            .or_else(|| Exact::parse_decimal(&format!("{x:e}")))
    }

    /// Its size in 64-bit words (numerator and denominator), at least 1.
    pub fn words(&self) -> u64 {
        match self {
            Exact::Small(..) => 1,
            Exact::Big(r) => ((r.numer().bits() + r.denom().bits()) / 64).max(1),
        }
    }

    /// As an `f64` (nearest, or close to it), for messages.
    pub fn to_f64(&self) -> f64 {
        match self {
            Exact::Small(n, d) => *n as f64 / *d as f64,
            Exact::Big(r) => r.to_f64().unwrap_or(f64::NAN),
        }
    }

    fn big(&self) -> BigRational {
        match self {
            Exact::Small(n, d) => BigRational::new_raw(BigInt::from(*n), BigInt::from(*d)),
            Exact::Big(r) => r.clone(),
        }
    }

    /// Back to 128 bits when it fits (reduced).
    fn shrink(self) -> Exact {
        match self {
            Exact::Big(r) => {
                let r = r.reduced();
                match (r.numer().to_i128(), r.denom().to_i128()) {
                    (Some(n), Some(d)) => Exact::Small(n, d),
                    _ => Exact::Big(r),
                }
            }
            small => small,
        }
    }

    fn reduce(n: i128, d: i128) -> (i128, i128) {
        let g = n.gcd(&d);
        if g > 1 {
            (n / g, d / g)
        } else {
            (n, d)
        }
    }

    /// `op` on 128-bit fractions; on overflow, again on the reduced fractions; then on big
    /// integers.
    fn combine(
        &self,
        other: &Exact,
        small: impl Fn(i128, i128, i128, i128) -> Option<(i128, i128)>,
        big: impl Fn(BigRational, BigRational) -> BigRational,
    ) -> Exact {
        if let (Exact::Small(a, b), Exact::Small(c, d)) = (self, other) {
            if let Some((n, d)) = small(*a, *b, *c, *d) {
                return Exact::Small(n, d);
            }
            let ((a, b), (c, d)) = (Exact::reduce(*a, *b), Exact::reduce(*c, *d));
            if let Some((n, d)) = small(a, b, c, d).map(|(n, d)| Exact::reduce(n, d)) {
                return Exact::Small(n, d);
            }
        }
        Exact::Big(big(self.big(), other.big())).shrink()
    }

    pub fn add(&self, o: &Exact) -> Exact {
        self.combine(
            o,
            |a, b, c, d| {
                if b == d {
                    return Some((a.checked_add(c)?, b));
                }
                Some((
                    a.checked_mul(d)?.checked_add(c.checked_mul(b)?)?,
                    b.checked_mul(d)?,
                ))
            },
            |x, y| x + y,
        )
    }

    pub fn sub(&self, o: &Exact) -> Exact {
        self.add(&o.neg())
    }

    pub fn mul(&self, o: &Exact) -> Exact {
        self.combine(
            o,
            |a, b, c, d| Some((a.checked_mul(c)?, b.checked_mul(d)?)),
            |x, y| x * y,
        )
    }

    pub fn div(&self, o: &Exact) -> Result<Exact, DivByZero> {
        if o.is_zero() {
            return Err(DivByZero);
        }
        Ok(self.mul(&o.recip()))
    }

    pub fn neg(&self) -> Exact {
        match self {
            Exact::Small(n, d) => match n.checked_neg() {
                Some(n) => Exact::Small(n, *d),
                None => Exact::Big(-self.big()),
            },
            Exact::Big(r) => Exact::Big(-r),
        }
    }

    /// `1/x` of a non-zero `x`.
    fn recip(&self) -> Exact {
        match self {
            Exact::Small(n, d) if *n > 0 => Exact::Small(*d, *n),
            Exact::Small(n, d) => match (d.checked_neg(), n.checked_neg()) {
                (Some(d), Some(n)) => Exact::Small(d, n),
                _ => Exact::Big(self.big().recip()),
            },
            Exact::Big(r) => Exact::Big(r.recip()),
        }
    }

    pub fn abs(&self) -> Exact {
        if self.signum() < 0 {
            self.neg()
        } else {
            self.clone()
        }
    }

    /// `x^e` for an integer `e` (a negative one divides).
    pub fn pow(&self, e: i64) -> Result<Exact, DivByZero> {
        let mut out = Exact::int(1);
        for _ in 0..e.unsigned_abs() {
            out = out.mul(self);
        }
        if e < 0 {
            return Exact::int(1).div(&out);
        }
        Ok(out)
    }

    pub fn is_zero(&self) -> bool {
        match self {
            Exact::Small(n, _) => *n == 0,
            Exact::Big(r) => r.is_zero(),
        }
    }

    pub fn signum(&self) -> i32 {
        match self {
            Exact::Small(n, _) => n.signum() as i32,
            Exact::Big(r) if r.is_positive() => 1,
            Exact::Big(r) if r.is_negative() => -1,
            Exact::Big(_) => 0,
        }
    }

    pub fn cmp(&self, o: &Exact) -> Ordering {
        if let (Exact::Small(a, b), Exact::Small(c, d)) = (self, o) {
            if let (Some(x), Some(y)) = (a.checked_mul(*d), c.checked_mul(*b)) {
                return x.cmp(&y);
            }
        }
        self.sub(o).signum().cmp(&0)
    }

    pub fn min(&self, o: &Exact) -> Exact {
        if self.cmp(o) == Ordering::Greater {
            o.clone()
        } else {
            self.clone()
        }
    }

    pub fn max(&self, o: &Exact) -> Exact {
        if self.cmp(o) == Ordering::Less {
            o.clone()
        } else {
            self.clone()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(s: &str) -> Exact {
        Exact::parse_decimal(s).unwrap()
    }

    #[test]
    fn decimals_are_read_exactly() {
        assert_eq!(q("0.1").add(&q("0.2")).cmp(&q("0.3")), Ordering::Equal);
        assert_eq!(q("1e-3").cmp(&q("0.001")), Ordering::Equal);
        assert_eq!(q(".5").cmp(&q("0.5")), Ordering::Equal);
        assert_eq!(q("-2.50").cmp(&q("-2.5")), Ordering::Equal);
        assert_eq!(q("1e3").cmp(&Exact::int(1000)), Ordering::Equal);
        for bad in ["", ".", "1.2.3", "e5", "1e", "x"] {
            assert!(Exact::parse_decimal(bad).is_none(), "{bad}");
        }
    }

    #[test]
    fn samples_stand_for_their_shortest_decimal() {
        for (x, s) in [
            (0.1, "0.1"),
            (6.5, "6.5"),
            (-3.0, "-3"),
            (5.51, "5.51"),
            (1e300, "1e300"),
            (1.5e-20, "1.5e-20"),
            (0.1 + 0.2, "0.30000000000000004"),
        ] {
            let e = Exact::of_sample(x).unwrap();
            assert_eq!(e.cmp(&q(s)), Ordering::Equal, "{x} is {s}");
        }
        assert!(Exact::of_sample(f64::NAN).is_none());
        assert!(Exact::of_sample(f64::INFINITY).is_none());
    }

    #[test]
    fn overflowing_fractions_move_to_big_integers_and_back() {
        let big = Exact::int(i128::MAX / 3);
        let square = big.mul(&big);
        assert!(matches!(square, Exact::Big(_)));
        let back = square.div(&big).unwrap();
        assert_eq!(back.cmp(&big), Ordering::Equal);
        assert!(matches!(back, Exact::Small(..)));
        let third = Exact::int(1).div(&Exact::int(3)).unwrap();
        let mut sum = Exact::int(0);
        for _ in 0..300 {
            sum = sum.add(&third.mul(&q("1.0000001")));
        }
        assert_eq!(sum.cmp(&q("100.00001")), Ordering::Equal);
        assert_eq!(Exact::int(1).div(&Exact::int(0)).unwrap_err(), DivByZero);
        assert_eq!(
            Exact::int(2).pow(-2).unwrap().cmp(&q("0.25")),
            Ordering::Equal
        );
    }
}
