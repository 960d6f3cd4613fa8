//! The MonPoly reader's fast path: one line that is a whole time point of the common shape,
//! read by one scan with word-at-a-time digit and name matching.
//!
//! ```text
//! @1042 hasnexttrue(100012345) next(100012345)
//! @1043 acq (1,2) (3,4)
//! ```
//!
//! The shape: `@`, a timestamp of 1 to 18 digits, not smaller than the last, a blank, then
//! predicates of the [`FastPred`] table, each with one or more tuples written tightly
//! (`p(1,-2)`, `q (3) (4)`, `r()`; integers, or bare words where the signature declares a
//! `string`), blanks between them optional, to the end of the
//! line; and the next line starts with `@` (or there is none), so that the time point ends
//! with the line. Such a line reads here exactly as the general reader reads it: the same
//! events and positions (`lines_read` only counts the lines taken so far, where the general
//! reader has also read the next one). A property test in `monpoly.rs` checks it. Any other
//! line is left to the general reader, which also gives every error.

use rvmon_core::{Interner, Sym, TimePoint, Timestamp, Value};

use rvmon_core::sig::Type;

/// A predicate that may take the fast path: met before in the log, with a name the general
/// reader reads as one word, and no argument declared `float`.
struct FastPred {
    sym: Sym,
    name: Box<[u8]>,
    /// The name's first (up to) 8 bytes as a little-endian word, and the mask of those bytes.
    prefix: u64,
    mask: u64,
    /// The declared arity, if the signature declares the predicate.
    arity: Option<usize>,
    /// The argument positions declared `string` (or `regexp`): their values are bare words,
    /// interned. The others are integers (all of them when the predicate is undeclared: an
    /// undeclared bare word may be a float or a string, which the general reader decides).
    strings: Box<[bool]>,
}

impl FastPred {
    /// `declared`: the argument types, if the signature declares the predicate. `None` when
    /// the predicate cannot take the fast path: its name is quoted text that is not one word,
    /// or an argument is declared `float`.
    fn new(sym: Sym, name: &str, declared: Option<&[Type]>) -> Option<Self> {
        let (arity, strings) = match declared {
            None => (None, Box::default()),
            Some(types) if types.contains(&Type::Float) => return None,
            Some(types) => (
                Some(types.len()),
                types.iter().map(|t| *t != Type::Int).collect(),
            ),
        };
        let bytes = name.as_bytes();
        let first = *bytes.first()?;
        let one_word = (first.is_ascii_alphanumeric() || first == b'_')
            && bytes.iter().all(|&b| !ends_word(b));
        if !one_word {
            return None;
        }
        let n = bytes.len().min(8);
        Some(FastPred {
            sym,
            name: bytes.into(),
            prefix: name_prefix(bytes),
            mask: if n == 8 { !0 } else { (1u64 << (8 * n)) - 1 },
            arity,
            strings,
        })
    }
}

/// A name's first 8 bytes as a little-endian word, zero-padded.
#[inline]
pub(crate) fn name_prefix(b: &[u8]) -> u64 {
    match b.first_chunk::<8>() {
        Some(w) => u64::from_le_bytes(*w),
        None => b.iter().rev().fold(0, |w, &c| (w << 8) | u64::from(c)),
    }
}

/// Whether `b` ends a bare word for the general reader.
pub(crate) fn ends_word(b: u8) -> bool {
    b.is_ascii_whitespace()
        || matches!(
            b,
            b'(' | b')' | b',' | b';' | b'@' | b'"' | b'#' | b'<' | b'>'
        )
}

const ONES: u64 = 0x0101_0101_0101_0101;

/// The 8 bytes at `buf[i..]` as a little-endian word, zero-padded past the end (a zero byte
/// is neither a digit nor part of a name).
#[inline]
fn window(buf: &[u8], i: usize) -> u64 {
    match buf.get(i..i + 8) {
        Some(w) => u64::from_le_bytes(w.try_into().expect("8 bytes")),
        None => {
            let rest = buf.get(i..).unwrap_or(&[]);
            let mut w = [0u8; 8];
            w[..rest.len()].copy_from_slice(rest);
            u64::from_le_bytes(w)
        }
    }
}

/// How many of the word's bytes, from the first, are ASCII digits. A byte is a digit when its
/// high nibble is 3 and adding 6 keeps it so; a carry out of a byte (from 0xFA or more) only
/// reaches bytes after that non-digit, which are not counted.
#[inline]
fn leading_digits(w: u64) -> usize {
    let high = w & (0xF0 * ONES);
    let plus6 = w.wrapping_add(6 * ONES) & (0xF0 * ONES);
    let not_digit = (high ^ (0x30 * ONES)) | (plus6 ^ (0x30 * ONES));
    (not_digit.trailing_zeros() / 8) as usize
}

/// The value of the word's first `k` bytes (1 to 8 digits), most significant first: the digits
/// are moved to the top of the word, then pairs, quads and octets are combined.
#[inline]
fn digits_value(w: u64, k: usize) -> u64 {
    let v = w.wrapping_sub(0x30 * ONES) << (8 * (8 - k));
    let v = (v.wrapping_mul(10) + (v >> 8)) & 0x00FF_00FF_00FF_00FF;
    let v = (v.wrapping_mul(100) + (v >> 16)) & 0x0000_FFFF_0000_FFFF;
    (v.wrapping_mul(10_000) + (v >> 32)) & 0xFFFF_FFFF
}

const POW10: [u64; 9] = [
    1,
    10,
    100,
    1_000,
    10_000,
    100_000,
    1_000_000,
    10_000_000,
    100_000_000,
];

/// A decimal integer at `buf[i..end]`: an optional `-` and 1 to 18 digits (so that it cannot
/// overflow); the value and where it ends. Anything else is left to the general reader.
// PERF: inlined into `parse`'s two call sites (a call saves and restores six registers).
#[inline(always)]
fn int_at(buf: &[u8], end: usize, mut i: usize) -> Option<(i64, usize)> {
    let neg = i < end && buf[i] == b'-';
    i += usize::from(neg);
    let mut n = 0u64;
    let mut count = 0;
    loop {
        let w = window(buf, i);
        let k = leading_digits(w).min(end.saturating_sub(i));
        if k == 0 {
            break;
        }
        count += k;
        if count > 18 {
            return None;
        }
        n = n * POW10[k] + digits_value(w, k);
        i += k;
        if k < 8 {
            break;
        }
    }
    if count == 0 {
        return None;
    }
    let n = n as i64;
    Some((if neg { -n } else { n }, i))
}

/// The fast path's state: the predicates that may take it, and a reused tuple buffer.
#[derive(Default)]
pub(crate) struct SimpleLines {
    preds: Vec<FastPred>,
    values: Vec<Value>,
}

impl SimpleLines {
    /// Registers a predicate met for the first time (see [`FastPred::new`]).
    pub(crate) fn register(&mut self, sym: Sym, name: &str, declared: Option<&[Type]>) {
        self.preds.extend(FastPred::new(sym, name, declared));
    }

    /// Reads the line `buf[..end]` (without its line break; the bytes after `end` may be
    /// read but do not count) as a time point into `tp`, if it has the fast shape and its
    /// timestamp is not smaller than `last_ts`; returns the timestamp. On `None`, `tp` is
    /// cleared. String values are interned in `interner` (in the order the general reader
    /// would intern them).
    pub(crate) fn parse(
        &mut self,
        (buf, end): (&[u8], usize),
        last_ts: Option<Timestamp>,
        tp: &mut TimePoint,
        interner: &mut Interner,
    ) -> Option<Timestamp> {
        let ts = parse(
            buf,
            end,
            &self.preds,
            &mut self.values,
            last_ts,
            tp,
            interner,
        );
        if ts.is_none() {
            tp.clear();
        }
        ts
    }
}

/// [`SimpleLines::parse`].
fn parse(
    buf: &[u8],
    end: usize,
    preds: &[FastPred],
    values: &mut Vec<Value>,
    last_ts: Option<Timestamp>,
    tp: &mut TimePoint,
    interner: &mut Interner,
) -> Option<Timestamp> {
    let blank = |i: usize| i < end && matches!(buf[i], b' ' | b'\t');
    if buf.first() != Some(&b'@') {
        return None;
    }
    let (ts, mut i) = int_at(buf, end, 1)?;
    if ts < 0 || last_ts.is_some_and(|last| ts < last) || (i < end && !blank(i)) {
        return None;
    }
    loop {
        while blank(i) {
            i += 1;
        }
        if i >= end {
            break;
        }
        let w = window(buf, i);
        let pred = preds.iter().find(|p| {
            let after = i + p.name.len();
            w & p.mask == p.prefix
                && after < end
                && matches!(buf[after], b'(' | b' ' | b'\t')
                // The prefix compared the first 8 bytes; only a longer name has more.
                && (p.name.len() <= 8 || buf[i + 8..after] == p.name[8..])
        })?;
        i += pred.name.len();
        while blank(i) {
            i += 1;
        }
        if i >= end || buf[i] != b'(' {
            return None;
        }
        while i < end && buf[i] == b'(' {
            i += 1;
            values.clear();
            if i < end && buf[i] == b')' {
                i += 1;
            } else {
                loop {
                    let (v, next) = if pred.strings.get(values.len()) == Some(&true) {
                        // A bare word, as the general reader reads a `string` value.
                        let start = i;
                        while i < end && !ends_word(buf[i]) {
                            i += 1;
                        }
                        let word = std::str::from_utf8(&buf[start..i]).ok();
                        (
                            Value::Str(interner.intern(word.filter(|w| !w.is_empty())?)),
                            i,
                        )
                    } else {
                        let (v, next) = int_at(buf, end, i)?;
                        (Value::Int(v), next)
                    };
                    values.push(v);
                    if next >= end {
                        return None;
                    }
                    i = next + 1;
                    match buf[next] {
                        b',' => {}
                        b')' => break,
                        _ => return None,
                    }
                }
            }
            if pred.arity.is_some_and(|n| n != values.len()) {
                return None;
            }
            tp.push_event(pred.sym, values);
            while blank(i) {
                i += 1;
            }
        }
    }
    Some(ts)
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// Word-at-a-time integers read as the standard library reads them, wherever they
        /// stand in the buffer and whatever follows them.
        #[test]
        fn integers_read_as_the_standard_library_does(
            pad in "[ (]{0,9}",
            digits in "-?[0-9]{0,20}",
            tail in "[,)\\n a0-9\u{fa}\u{ff}]{0,9}",
            cut in 0usize..40,
        ) {
            let text = format!("{pad}{digits}{tail}");
            let buf = text.as_bytes();
            let end = (pad.len() + cut).min(buf.len());
            let got = int_at(buf, end, pad.len());
            // The reference: the longest run of digits (after an optional `-`) before `end`.
            let body = &buf[pad.len()..end];
            let neg = body.first() == Some(&b'-');
            let run = body[usize::from(neg)..].iter().take_while(|b| b.is_ascii_digit()).count();
            let span = usize::from(neg) + run;
            let want = (1..=18).contains(&run).then(|| {
                let s = std::str::from_utf8(&body[..span]).unwrap();
                (s.parse::<i64>().unwrap(), pad.len() + span)
            });
            proptest::prop_assert_eq!(got, want, "{:?} up to {}", text, end);
        }
    }

    #[test]
    fn digit_words() {
        assert_eq!(leading_digits(u64::from_le_bytes(*b"12345678")), 8);
        assert_eq!(leading_digits(u64::from_le_bytes(*b"123)5678")), 3);
        assert_eq!(leading_digits(u64::from_le_bytes(*b":2345678")), 0);
        assert_eq!(leading_digits(u64::from_le_bytes(*b"/2345678")), 0);
        assert_eq!(
            leading_digits(u64::from_le_bytes([b'1', 0xFA, b'1', 0, 0, 0, 0, 0])),
            1
        );
        assert_eq!(
            digits_value(u64::from_le_bytes(*b"12345678"), 8),
            12_345_678
        );
        assert_eq!(digits_value(u64::from_le_bytes(*b"907)5678"), 3), 907);
        assert_eq!(int_at(b"-0,", 3, 0), Some((0, 2)));
        assert_eq!(
            int_at(b"999999999999999999)", 19, 0),
            Some((999_999_999_999_999_999, 18))
        );
        assert_eq!(int_at(b"1000000000000000000)", 20, 0), None);
    }
}
