//! Numbers printed as rtamt users read them: Python's `repr` of a float (the shortest digits
//! that read back to the same value; `3.0`, `-0.0`, `1e-05`, `1.2345678901234568e+17`), and a
//! sample's time as the peers' oracles print it (an integer when it is one).

/// Python's `repr(v)`, with `inf`, `-inf` and `nan` as such.
pub fn python_repr(v: f64) -> String {
    if v.is_nan() {
        return "nan".into();
    }
    if v.is_infinite() {
        return if v > 0.0 { "inf" } else { "-inf" }.into();
    }
    // Rust's `{:e}` gives the shortest round-trip digits, as Python does: only the layout
    // differs.
    let sci = format!("{v:e}");
    let (mantissa, exp) = sci.split_once('e').expect("`{:e}` has an exponent");
    let exp: i32 = exp.parse().expect("a decimal exponent");
    let (sign, mantissa) = match mantissa.strip_prefix('-') {
        Some(m) => ("-", m),
        None => ("", mantissa),
    };
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    if (-4..16).contains(&exp) {
        let point = exp + 1; // digits before the decimal point
        let (int, frac) = if point <= 0 {
            (
                "0".to_string(),
                format!("{}{digits}", "0".repeat((-point) as usize)),
            )
        } else if point as usize >= digits.len() {
            (
                format!("{digits}{}", "0".repeat(point as usize - digits.len())),
                String::new(),
            )
        } else {
            (
                digits[..point as usize].to_string(),
                digits[point as usize..].to_string(),
            )
        };
        let frac = if frac.is_empty() {
            "0".to_string()
        } else {
            frac
        };
        format!("{sign}{int}.{frac}")
    } else {
        let (first, rest) = digits.split_at(1);
        let rest = if rest.is_empty() {
            String::new()
        } else {
            format!(".{rest}")
        };
        let esign = if exp < 0 { '-' } else { '+' };
        format!("{sign}{first}{rest}e{esign}{:02}", exp.abs())
    }
}

/// A sample's time (nanoseconds) in seconds, as the oracles print it: an integer when it is
/// a whole number of seconds, else Python's `repr` of the float.
pub fn time_text(ns: i64) -> String {
    if ns % 1_000_000_000 == 0 {
        (ns / 1_000_000_000).to_string()
    } else {
        python_repr(ns as f64 / 1e9)
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
            (1e-5, "1e-05"),
            (1.5e-7, "1.5e-07"),
            (1e16, "1e+16"),
            (9999999999999998.0, "9999999999999998.0"),
            (1.2345678901234568e17, "1.2345678901234568e+17"),
            (0.30000000000000004, "0.30000000000000004"),
            (1.2000000000000002, "1.2000000000000002"),
            (-0.09999999999999998, "-0.09999999999999998"),
            (5e-324, "5e-324"),
            (123.456, "123.456"),
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
