//! Numbers printed as rtamt users read them: Python's `repr` of a float (the shortest digits
//! that read back to the same value; `3.0`, `-0.0`, `1e-05`, `1.2345678901234568e+17`), and a
//! sample's time as the peers' oracles print it (an integer when it is one). Both are
//! `Display` types that allocate nothing: they are written once per sample.

use std::fmt;

/// Python's `repr` of a float, with `inf`, `-inf` and `nan` as such.
#[derive(Clone, Copy, Debug)]
pub struct PyFloat(pub f64);

/// A sample's time (nanoseconds) in seconds, as the oracles print it: an integer when it is a
/// whole number of seconds, else Python's `repr` of the float.
#[derive(Clone, Copy, Debug)]
pub struct SampleTime(pub i64);

/// Python's `repr(v)` as a `String` (tests and messages; output uses [`PyFloat`]).
pub fn python_repr(v: f64) -> String {
    PyFloat(v).to_string()
}

/// A sample's time as a `String` (see [`SampleTime`]).
pub fn time_text(ns: i64) -> String {
    SampleTime(ns).to_string()
}

impl fmt::Display for SampleTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0 % 1_000_000_000 == 0 {
            write!(f, "{}", self.0 / 1_000_000_000)
        } else {
            PyFloat(self.0 as f64 / 1e9).fmt(f)
        }
    }
}

/// A fixed buffer that `{:e}` of an `f64` (at most 24 bytes) is written into.
struct Digits {
    buf: [u8; 32],
    len: usize,
}

impl fmt::Write for Digits {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        let end = self.len + s.len();
        self.buf
            .get_mut(self.len..end)
            .ok_or(fmt::Error)?
            .copy_from_slice(s.as_bytes());
        self.len = end;
        Ok(())
    }
}

impl fmt::Display for PyFloat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let v = self.0;
        if v.is_nan() {
            return f.write_str("nan");
        }
        if v.is_infinite() {
            return f.write_str(if v > 0.0 { "inf" } else { "-inf" });
        }
        // Rust's `{:e}` gives the shortest round-trip digits, as Python does: only the
        // layout differs.
        let mut sci = Digits {
            buf: [0; 32],
            len: 0,
        };
        fmt::Write::write_fmt(&mut sci, format_args!("{:e}", v.abs()))?;
        let sci = std::str::from_utf8(&sci.buf[..sci.len]).map_err(|_| fmt::Error)?;
        let (mantissa, exp) = sci.split_once('e').ok_or(fmt::Error)?;
        let exp: i32 = exp.parse().map_err(|_| fmt::Error)?;
        if v.is_sign_negative() {
            f.write_str("-")?;
        }
        let (first, rest) = mantissa.split_at(1);
        let rest = rest.strip_prefix('.').unwrap_or(rest);
        if !(-4..16).contains(&exp) {
            f.write_str(first)?;
            if !rest.is_empty() {
                write!(f, ".{rest}")?;
            }
            let sign = if exp < 0 { '-' } else { '+' };
            return write!(f, "e{sign}{:02}", exp.abs());
        }
        // Fixed notation: `exp + 1` digits before the point (zeros added), at least one after.
        if exp < 0 {
            f.write_str("0.")?;
            for _ in 0..(-exp - 1) {
                f.write_str("0")?;
            }
            f.write_str(first)?;
            return f.write_str(rest);
        }
        let after = exp as usize; // digits of `rest` before the point
        f.write_str(first)?;
        if after >= rest.len() {
            f.write_str(rest)?;
            for _ in rest.len()..after {
                f.write_str("0")?;
            }
            return f.write_str(".0");
        }
        write!(f, "{}.{}", &rest[..after], &rest[after..])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats_print_as_python_does() {
        for (v, want) in [
            (3.0, "3.0"),
            (-0.0, "-0.0"),
            (0.0, "0.0"),
            (0.0001, "0.0001"),
            (-0.00012, "-0.00012"),
            (1e-5, "1e-05"),
            (1.5e-7, "1.5e-07"),
            (1e16, "1e+16"),
            (-2.5e20, "-2.5e+20"),
            (9999999999999998.0, "9999999999999998.0"),
            (1.2345678901234568e17, "1.2345678901234568e+17"),
            (0.30000000000000004, "0.30000000000000004"),
            (1.2000000000000002, "1.2000000000000002"),
            (-0.09999999999999998, "-0.09999999999999998"),
            (5e-324, "5e-324"),
            (123.456, "123.456"),
            (1200.0, "1200.0"),
            (-2.5, "-2.5"),
            (f64::INFINITY, "inf"),
            (f64::NEG_INFINITY, "-inf"),
            (f64::NAN, "nan"),
        ] {
            assert_eq!(python_repr(v), want, "{v:?}");
        }
        assert_eq!(time_text(0), "0");
        assert_eq!(time_text(7_000_000_000), "7");
        assert_eq!(time_text(500_000_000), "0.5");
        assert_eq!(time_text(-3_000_000_000), "-3");
    }
}
