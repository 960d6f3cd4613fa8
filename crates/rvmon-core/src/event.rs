//! Events of stream and signal specifications: a typed value (or none) per input, at a time in
//! nanoseconds. The stream engines and the signal engine are fed them; `rvmon-trace` reads
//! them from CSV and JSON Lines.

use std::fmt;
use std::rc::Rc;

use crate::Error;

/// The type of an input or output stream (RTLola's types, integers held in 64 bits).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ValType {
    Bool,
    /// Every signed width (`Int8` … `Int64`) is held as a 64-bit integer, as RTLola's
    /// interpreter does.
    Int,
    UInt,
    Float,
    Str,
}

impl ValType {
    pub fn name(self) -> &'static str {
        match self {
            ValType::Bool => "Bool",
            ValType::Int => "Int64",
            ValType::UInt => "UInt64",
            ValType::Float => "Float64",
            ValType::Str => "String",
        }
    }

    /// The name with its article, for messages: "an Int64", "a Bool".
    pub fn a(self) -> String {
        let article = if self == ValType::Int { "an" } else { "a" };
        format!("{article} {}", self.name())
    }
}

/// A value of a stream.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum Val {
    Bool(bool),
    Int(i64),
    UInt(u64),
    Float(f64),
    Str(Rc<str>),
}

impl Val {
    pub fn as_bool(&self) -> bool {
        matches!(self, Val::Bool(true))
    }

    /// Parses a trace cell as a value of `ty`; `None` if it is not one.
    pub fn parse(ty: ValType, cell: &str) -> Option<Val> {
        Some(match ty {
            ValType::Bool => match cell {
                "true" => Val::Bool(true),
                "false" => Val::Bool(false),
                _ => return None,
            },
            ValType::Int => Val::Int(cell.parse().ok()?),
            // RTLola accepts `0.0` for an unsigned zero.
            ValType::UInt => Val::UInt(if cell == "0.0" { 0 } else { cell.parse().ok()? }),
            ValType::Float => Val::Float(cell.parse().ok()?),
            ValType::Str => Val::Str(cell.into()),
        })
    }
}

impl Val {
    /// Appends the value as [`fmt::Display`] writes it, faster (values are written at every
    /// event with `--values`).
    pub fn write_to(&self, out: &mut String) {
        match self {
            Val::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Val::Int(i) => out.push_str(itoa::Buffer::new().format(*i)),
            Val::UInt(u) => out.push_str(itoa::Buffer::new().format(*u)),
            Val::Float(x) => write_f64(*x, out),
            Val::Str(s) => out.push_str(s),
        }
    }
}

/// `x` as Rust's `f64` display writes it (shortest round-trip digits, never an exponent,
/// `3` for 3.0, `-0`, `inf`, `NaN`), from ryu's shortest digits.
pub fn write_f64(x: f64, out: &mut String) {
    if !x.is_finite() {
        out.push_str(if x.is_nan() {
            "NaN"
        } else if x > 0.0 {
            "inf"
        } else {
            "-inf"
        });
        return;
    }
    // Where two shortest forms are equally close, ryu and `Display` may pick different
    // ones: the value goes the slow way when that can happen (`may_tie`).
    if may_tie(x) {
        use std::fmt::Write;
        let _ = write!(out, "{x}");
        return;
    }
    let mut buf = ryu::Buffer::new();
    let text = buf.format_finite(x);
    let (neg, text) = match text.strip_prefix('-') {
        Some(t) => (true, t),
        None => (false, text),
    };
    let (mantissa, exp) = match text.split_once(['e', 'E']) {
        Some((m, e)) => (m, e.parse::<i32>().unwrap_or(0)),
        None => (text, 0),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    // The digits (at most 17, and ryu's leading `0`), and where the decimal point goes.
    let mut all = [0u8; 40];
    let n = int.len() + frac.len();
    all[..int.len()].copy_from_slice(int.as_bytes());
    all[int.len()..n].copy_from_slice(frac.as_bytes());
    let mut point = int.len() as i32 + exp;
    let lead = all[..n].iter().take_while(|&&d| d == b'0').count();
    point -= lead as i32;
    let mut end = n;
    while end > lead && all[end - 1] == b'0' {
        end -= 1;
    }
    let digits = &all[lead..end];
    if neg {
        out.push('-');
    }
    if digits.is_empty() {
        out.push('0');
        return;
    }
    fn ascii(d: &[u8]) -> &str {
        std::str::from_utf8(d).unwrap_or("")
    }
    if point <= 0 {
        out.push_str("0.");
        (0..-point).for_each(|_| out.push('0'));
        out.push_str(ascii(digits));
    } else if point as usize >= digits.len() {
        out.push_str(ascii(digits));
        (0..point as usize - digits.len()).for_each(|_| out.push('0'));
    } else {
        out.push_str(ascii(&digits[..point as usize]));
        out.push('.');
        out.push_str(ascii(&digits[point as usize..]));
    }
}

/// Whether two shortest decimal forms of `x` can be equally close to it. The shortest form
/// of a double has at most 17 digits and is shorter than its exact value's only where the
/// digits' spacing is about an ulp (16 or 17 digits); a tie needs the exact value to be the
/// midpoint, i.e. to have at most 18 significant digits. `x = m · 2^e` (m odd) has
/// `digits(m · 5^-e)` of them when `e < 0`, and is an integer (with ties from 10^15 up)
/// otherwise.
fn may_tie(x: f64) -> bool {
    let bits = x.to_bits();
    let biased = ((bits >> 52) & 0x7ff) as i32;
    let mut m = bits & ((1u64 << 52) - 1);
    let mut e = if biased == 0 {
        -1074
    } else {
        m |= 1 << 52;
        biased - 1075
    };
    if m == 0 {
        return false;
    }
    let tz = m.trailing_zeros();
    m >>= tz;
    e += tz as i32;
    if e >= 0 {
        return x.abs() >= 1e15;
    }
    // (m < 2^53: from 27 fractional bits on, 5^f alone has over 18 digits.)
    if -e >= 27 {
        return false;
    }
    // log10(m · 5^f) + 1 ≤ 18, with a margin for the logarithms' rounding.
    (m as f64).log10() + f64::from(-e) * std::f64::consts::LOG10_2.mul_add(-1.0, 1.0) < 18.5
}

#[cfg(test)]
mod write_tests {
    use super::*;

    /// `write_to` writes what `Display` writes, on floats of every magnitude and pattern.
    #[test]
    fn fast_float_text_is_display_text() {
        let mut rng = crate::rng::SplitMix(7);
        let mut samples: Vec<f64> = vec![
            0.0,
            -0.0,
            1.0,
            3.0,
            0.1,
            1e20,
            1e21,
            1e22,
            1.5e-7,
            123456789.125,
            f64::MAX,
            f64::MIN_POSITIVE,
            5e-324,
            0.3333333333333333,
            2.5,
            -1e-300,
            1e15,
            1e16,
            1e17,
        ];
        for k in 0..200_000 {
            samples.push(f64::from_bits(rng.next_u64()));
            samples.push((rng.next_u64() % 2_000_001) as f64 / 1000.0 - 1000.0);
            // Short binary fractions at every magnitude: where ties are.
            let m = (rng.next_u64() >> (11 + k % 40)) as f64;
            samples.push(m / f64::from(1u32 << (k % 12)));
        }
        for x in samples {
            let mut s = String::new();
            Val::Float(x).write_to(&mut s);
            assert_eq!(s, format!("{x}"), "{:e}", x);
        }
        let mut s = String::new();
        Val::Int(-42).write_to(&mut s);
        Val::UInt(7).write_to(&mut s);
        assert_eq!(s, "-427");
    }
}

impl fmt::Display for Val {
    /// As RTLola prints values: integers in decimal, floats as Rust's `f64` display (`3` for
    /// 3.0), strings without quotes (the caller quotes where RTLola does).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Val::Bool(b) => write!(f, "{b}"),
            Val::Int(i) => write!(f, "{i}"),
            Val::UInt(u) => write!(f, "{u}"),
            Val::Float(x) => write!(f, "{x}"),
            Val::Str(s) => write!(f, "{s}"),
        }
    }
}

/// One event: its time in nanoseconds and a value (or none) per input stream.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Event {
    pub time: i64,
    pub values: Vec<Option<Val>>,
}

/// A source of events for a stream specification.
pub trait EventSource {
    /// Reads the next event into `ev`; `false` at the end.
    fn next_event(&mut self, ev: &mut Event) -> Result<bool, Error>;
    /// Whether events have no time, so that their positions are taken as seconds (known once
    /// the first event is read): a run says so, once.
    fn positions_as_times(&self) -> bool {
        false
    }
}
