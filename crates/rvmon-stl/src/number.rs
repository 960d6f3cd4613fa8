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
        let t = self.text();
        f.write_str(std::str::from_utf8(t.as_bytes()).map_err(|_| fmt::Error)?)
    }
}

/// A number's text, on the stack (the longest, `-1.2345678901234568e+308`, is 24 bytes).
///
/// PERF: text is appended with copies of a fixed [`CHUNK`] bytes (the buffer has room past
/// the text), which compile to a few moves: a copy of a length known only at run time is a
/// call to `memcpy` for a handful of bytes, and a line took six of them (8 % of a run).
#[derive(Clone, Copy)]
pub struct NumText {
    buf: [u8; 64],
    len: usize,
}

/// The fixed length copied at once: at least any text's (24 bytes).
const CHUNK: usize = 32;

impl NumText {
    fn new() -> NumText {
        NumText {
            buf: [0; 64],
            len: 0,
        }
    }

    pub fn as_bytes(&self) -> &[u8] {
        &self.buf[..self.len]
    }

    /// Copies the text to `line` at `at` (which must have [`CHUNK`] bytes from there, more
    /// than the text), and returns where it ends.
    #[inline]
    pub fn copy_into(&self, line: &mut [u8], at: usize) -> usize {
        line[at..at + CHUNK].copy_from_slice(&self.buf[..CHUNK]);
        at + self.len
    }

    #[inline]
    fn push_byte(&mut self, b: u8) {
        self.buf[self.len] = b;
        self.len += 1;
    }

    /// Appends `n` bytes of `src` from `at` (`n` at most 24; `src` with [`CHUNK`] bytes from
    /// `at`).
    #[inline]
    fn append(&mut self, src: &[u8], at: usize, n: usize) {
        let len = self.len;
        self.buf[len..len + CHUNK].copy_from_slice(&src[at..at + CHUNK]);
        self.len = len + n;
    }

    #[inline]
    fn zeros(&mut self, n: usize) {
        let len = self.len;
        self.buf[len..len + CHUNK].fill(b'0');
        self.len = len + n;
    }

    /// Appends `u`'s decimal digits (itoa's: two at a time, from a table).
    fn integer(&mut self, u: u64) {
        let mut digits = itoa::Buffer::new();
        for &b in digits.format(u).as_bytes() {
            self.push_byte(b);
        }
    }

    fn literal(text: &[u8]) -> NumText {
        let mut t = NumText::new();
        for &b in text {
            t.push_byte(b);
        }
        t
    }
}

impl SampleTime {
    /// The text, without going through `fmt` (written once per sample).
    pub fn text(self) -> NumText {
        if self.0 % 1_000_000_000 != 0 {
            return PyFloat(self.0 as f64 / 1e9).text();
        }
        let mut t = NumText::new();
        let secs = self.0 / 1_000_000_000;
        if secs < 0 {
            t.push_byte(b'-');
        }
        t.integer(secs.unsigned_abs());
        t
    }
}

impl PyFloat {
    /// The text, without going through `fmt` (written once per sample).
    pub fn text(self) -> NumText {
        let v = self.0;
        if v.is_nan() {
            return NumText::literal(b"nan");
        }
        let mut t = NumText::new();
        if v.is_sign_negative() {
            t.push_byte(b'-');
        }
        if v.is_infinite() {
            for &b in b"inf" {
                t.push_byte(b);
            }
            return t;
        }
        if v == 0.0 {
            for &b in b"0.0" {
                t.push_byte(b);
            }
            return t;
        }
        // Ryu gives the shortest round-trip digits, as Python does: only the layout differs.
        let mut ryu = ryu::Buffer::new();
        let text = ryu.format_finite(v.abs()).as_bytes();
        // PERF: where Ryu writes fixed notation and Python does too (the first significant
        // digit at most four places after the point), the texts are the same: copied as they
        // are, without taking the digits apart (that was half the cost of a number).
        if !text.contains(&b'e') && !text.starts_with(b"0.0000") {
            for &b in text {
                t.push_byte(b);
            }
            return t;
        }
        let (digits, exp) = shortest(text);
        python_layout(&mut t, &digits, exp);
        t
    }
}

/// The significant digits of Ryu's text of a positive finite number (no leading or trailing
/// zeros) and the decimal exponent of the first: `d.ddd × 10^exp`.
fn shortest(text: &[u8]) -> (NumText, i32) {
    let (mantissa, exp) = match text.iter().position(|&c| c == b'e') {
        Some(e) => (&text[..e], parse_exp(&text[e + 1..])),
        None => (text, 0),
    };
    let point = mantissa.iter().position(|&c| c == b'.');
    let int_len = point.unwrap_or(mantissa.len());
    let mut digits = NumText::new();
    let mut first: Option<usize> = None;
    for (i, &c) in mantissa.iter().enumerate().filter(|&(_, &c)| c != b'.') {
        if first.is_none() && c != b'0' {
            first = Some(i);
        }
        if first.is_some() {
            digits.push_byte(c);
        }
    }
    while digits.len > 1 && digits.buf[digits.len - 1] == b'0' {
        digits.len -= 1;
    }
    // The first significant digit's power of ten, from its place around the point.
    let place = match first {
        Some(i) if i < int_len => (int_len - 1 - i) as i32,
        Some(i) => -((i - int_len) as i32),
        None => 0,
    };
    (digits, exp + place)
}

fn parse_exp(text: &[u8]) -> i32 {
    let (negative, digits) = match text.split_first() {
        Some((b'-', rest)) => (true, rest),
        _ => (false, text),
    };
    let e = digits
        .iter()
        .fold(0i32, |e, &c| e * 10 + i32::from(c.wrapping_sub(b'0')));
    if negative {
        -e
    } else {
        e
    }
}

/// Python's `repr` layout of `d.ddd × 10^exp` (at most 17 digits): fixed notation for
/// exponents from -4 to 15 (at least one digit after the point), else `d.ddde±XX`.
fn python_layout(t: &mut NumText, digits: &NumText, exp: i32) {
    let (n, d) = (digits.len, &digits.buf);
    if !(-4..16).contains(&exp) {
        t.push_byte(d[0]);
        if n > 1 {
            t.push_byte(b'.');
            t.append(d, 1, n - 1);
        }
        t.push_byte(b'e');
        t.push_byte(if exp < 0 { b'-' } else { b'+' });
        let e = exp.unsigned_abs();
        if e < 10 {
            t.push_byte(b'0');
        }
        t.integer(u64::from(e));
        return;
    }
    if exp < 0 {
        t.push_byte(b'0');
        t.push_byte(b'.');
        t.zeros((-exp - 1) as usize);
        t.append(d, 0, n);
        return;
    }
    let before = exp as usize + 1; // digits before the point
    if before >= n {
        t.append(d, 0, n);
        t.zeros(before - n);
        t.push_byte(b'.');
        t.push_byte(b'0');
    } else {
        t.append(d, 0, before);
        t.push_byte(b'.');
        t.append(d, before, n - before);
    }
}

impl fmt::Display for PyFloat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let t = self.text();
        f.write_str(std::str::from_utf8(t.as_bytes()).map_err(|_| fmt::Error)?)
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

    /// CPython's own `repr` of 1,999 values: random bit patterns, short decimals at every
    /// exponent, and halfway ties between two shortest candidates (`1690060720831323.25`:
    /// Python, like Ryu, rounds the tie to even, `…323.2`; Rust's `{:e}` gives `…323.3`).
    #[test]
    fn prints_what_cpython_prints() {
        let table = include_str!("../tests/data/python_repr.txt");
        let mut checked = 0;
        for line in table.lines().filter(|l| !l.starts_with('#')) {
            let (bits, want) = line.split_once(' ').unwrap();
            let v = f64::from_bits(u64::from_str_radix(bits, 16).unwrap());
            assert_eq!(python_repr(v), want, "{bits}");
            checked += 1;
        }
        assert_eq!(checked, 1999);
    }
}
