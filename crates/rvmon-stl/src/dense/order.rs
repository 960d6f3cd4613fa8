//! Min and max for dense time: one total order on `f64`, so that a window's minimum is the
//! same whichever way it is computed (a deque over segments, or a fold over points in the
//! brute-force reference), and the lattice laws the exact `until`/`since` rely on
//! (`min(c, sup g) = sup min(c, g)`) hold for every value.
//!
//! The order is the usual one, with `-0.0` below `0.0` and NaN below everything (`-inf`
//! included): a NaN robustness (`inf - inf`, `0 / 0`) is never evidence of satisfaction, so
//! `and`/`always` keep it and `or`/`eventually` pass over it when something else is there.
//! Python's `min`/`max`, which rtamt uses, depend on the order of the operands instead; there is
//! no such order in dense time.

/// Whether `a` comes strictly before `b` in the order.
#[inline]
pub fn below(a: f64, b: f64) -> bool {
    match (a.is_nan(), b.is_nan()) {
        (true, b_nan) => !b_nan,
        (false, true) => false,
        _ => a < b || (a == b && a.is_sign_negative() && !b.is_sign_negative()),
    }
}

/// The smaller of `a` and `b` in the order.
#[inline]
pub fn min(a: f64, b: f64) -> f64 {
    if below(b, a) {
        b
    } else {
        a
    }
}

/// The larger of `a` and `b` in the order.
#[inline]
pub fn max(a: f64, b: f64) -> f64 {
    if below(a, b) {
        b
    } else {
        a
    }
}

/// Whether `a` and `b` print the same (every NaN prints `nan`): adjacent segments with such
/// values are one segment.
#[inline]
pub fn same(a: f64, b: f64) -> bool {
    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_total_order() {
        let vals = [
            f64::NAN,
            f64::NEG_INFINITY,
            -1.0,
            -0.0,
            0.0,
            1.0,
            f64::INFINITY,
        ];
        for (i, &a) in vals.iter().enumerate() {
            for (j, &b) in vals.iter().enumerate() {
                assert_eq!(below(a, b), i < j, "{a} {b}");
                let (lo, hi) = (min(a, b), max(a, b));
                assert!(same(lo, vals[i.min(j)]) && same(hi, vals[i.max(j)]));
            }
        }
        assert!(same(min(-f64::NAN, 1.0), f64::NAN));
        assert!(!below(f64::NAN, -f64::NAN) && !below(-f64::NAN, f64::NAN));
    }
}
