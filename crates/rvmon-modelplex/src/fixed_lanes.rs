//! The fixed-point pass ([`crate::fixed`]) over many pairs at once, for the comparisons the
//! `f64` filter leaves undecided in a batch (in a compliant run, every equality that holds:
//! `x' = x + f'·t'` on every pair).
//!
//! One pair at a time, each sample is first turned into its shortest decimal and each
//! operation then aligns its operands' scales; here a column's samples are read at one scale
//! for the whole batch (the most fractional digits the column has had), so a register's
//! scale is the same in every lane and known before the lanes are run: each operation is a
//! loop of integer arithmetic over the lanes, with a 128-bit check for overflow. A sample that
//! is not a decimal at its column's scale, or a result that leaves 64 bits, leaves its lane to
//! the one-pair passes; an operation with no fixed-point form (a division, a constant that is
//! not a decimal, a scale beyond 10^-18) leaves every lane to them.

use std::cmp::Ordering;

use crate::compile::Test;
use crate::filter::{by_signs, Op, Program, UNDECIDED};
use crate::fixed::{POW10, POW10_F64, UNIQUE_BELOW};

/// A batch's columns at their scales, each converted when a comparison first reads it.
#[derive(Default)]
pub struct Columns {
    /// Per column: its scale (fractional digits) for this batch, once converted.
    scale: Vec<Option<u32>>,
    /// Per column and row (`column * rows + row`): the sample times `10^scale`, and whether
    /// that whole number is the sample's decimal.
    m: Vec<i64>,
    ok: Vec<bool>,
    rows: usize,
}

impl Columns {
    /// Forgets the previous batch: `rows` rows of `width` columns.
    pub fn start(&mut self, rows: usize, width: usize) {
        self.scale.clear();
        self.scale.resize(width, None);
        self.rows = rows;
        self.m.resize(rows * width, 0);
        self.ok.resize(rows * width, false);
    }

    /// Column `column` of the samples `by_column` (as [`Columns::start`] said), at `digits`
    /// fractional digits: its scale.
    fn convert(&mut self, by_column: &[f64], column: usize, digits: u32) -> Option<u32> {
        if let Some(k) = self.scale[column] {
            return Some(k);
        }
        let scale = *POW10_F64.get(digits as usize)?;
        let at = column * self.rows;
        let (m, ok) = (
            &mut self.m[at..at + self.rows],
            &mut self.ok[at..at + self.rows],
        );
        let xs = &by_column[at..at + self.rows];
        for ((m, ok), &x) in m.iter_mut().zip(ok.iter_mut()).zip(xs) {
            let whole = (x * scale).round();
            // (As `Dec::of_sample_like`: a whole number below 2^51 whose quotient by the
            // scale, correctly rounded, is `x` is the decimal `x` stands for.)
            *ok = whole.abs() < UNIQUE_BELOW && whole / scale == x;
            *m = if *ok { whole as i64 } else { 0 };
        }
        self.scale[column] = Some(digits);
        Some(digits)
    }
}

/// The registers of a run over the lanes: values, a lane each, and one scale a register.
#[derive(Default)]
pub struct Regs {
    v: Vec<i64>,
    k: Vec<u32>,
    /// Lanes that left the pass (a sample not at its column's scale, an overflow).
    out: Vec<bool>,
}

/// The whole number `a · 10^(k - ka)` for aligning to scale `k`.
fn up(a: i64, by: i128) -> i128 {
    i128::from(a) * by
}

impl Program {
    /// The comparison in fixed point on the pairs `lanes` (pair `j`: rows `j`, `j + 1` of
    /// the samples `by_column`), whose columns are read at `digits[column]` fractional digits:
    /// `decided[i]` for lane `lanes[i]`, 0 false, 1 true, or [`UNDECIDED`] where it cannot
    /// say. `false` if it said nothing (an operation without a fixed-point form).
    pub fn decide_fixed_lanes(
        &self,
        test: &Test,
        by_column: &[f64],
        (lanes, digits): (&[usize], &[u32]),
        columns: &mut Columns,
        regs: &mut Regs,
        decided: &mut [u8],
    ) -> bool {
        let n = lanes.len();
        let Regs { v, k, out } = regs;
        let ops = self.ops();
        v.resize(ops.len() * n, 0);
        k.clear();
        out.clear();
        out.resize(n, false);
        for (i, op) in ops.iter().enumerate() {
            let (done, dst) = v.split_at_mut(i * n);
            let dst = &mut dst[..n];
            let reg = |r: u32| &done[r as usize * n..(r as usize + 1) * n];
            let scale = match *op {
                Op::Sample { column, post } => {
                    let Some(s) = columns.convert(by_column, column, digits[column]) else {
                        return false;
                    };
                    let at = column * columns.rows + usize::from(post);
                    let (m, ok) = (&columns.m[at..], &columns.ok[at..]);
                    for ((d, o), &j) in dst.iter_mut().zip(out.iter_mut()).zip(lanes) {
                        *d = m[j];
                        *o |= !ok[j];
                    }
                    s
                }
                Op::Const { dec, .. } => {
                    let Some(c) = dec else { return false };
                    dst.fill(c.mantissa());
                    c.digits()
                }
                Op::Add(a, b) | Op::Sub(a, b) | Op::Min(a, b) | Op::Max(a, b) => {
                    let (ka, kb) = (k[a as usize], k[b as usize]);
                    let s = ka.max(kb);
                    let (fa, fb) = (
                        i128::from(POW10[(s - ka) as usize]),
                        i128::from(POW10[(s - kb) as usize]),
                    );
                    let (x, y) = (reg(a), reg(b));
                    if fa == 1 && fb == 1 && matches!(op, Op::Add(..) | Op::Sub(..)) {
                        // (The common case, operands at one scale: 64-bit arithmetic with
                        // its overflow flag, which the compiler runs over several lanes.)
                        let add = matches!(op, Op::Add(..));
                        for j in 0..n {
                            let (r, o) = if add {
                                x[j].overflowing_add(y[j])
                            } else {
                                x[j].overflowing_sub(y[j])
                            };
                            dst[j] = r;
                            out[j] |= o;
                        }
                        k.push(s);
                        continue;
                    }
                    for j in 0..n {
                        let (p, q) = (up(x[j], fa), up(y[j], fb));
                        let r = match op {
                            Op::Add(..) => p + q,
                            Op::Sub(..) => p - q,
                            Op::Min(..) => p.min(q),
                            _ => p.max(q),
                        };
                        dst[j] = r as i64;
                        out[j] |= i128::from(r as i64) != r;
                    }
                    s
                }
                Op::Mul(a, b) => {
                    let s = k[a as usize] + k[b as usize];
                    if s > 18 {
                        return false;
                    }
                    let (x, y) = (reg(a), reg(b));
                    for j in 0..n {
                        let r = i128::from(x[j]) * i128::from(y[j]);
                        dst[j] = r as i64;
                        out[j] |= i128::from(r as i64) != r;
                    }
                    s
                }
                Op::Neg(a) | Op::Abs(a) => {
                    let x = reg(a);
                    let abs = matches!(op, Op::Abs(_));
                    for j in 0..n {
                        let r = if abs && x[j] >= 0 {
                            i128::from(x[j])
                        } else {
                            -i128::from(x[j])
                        };
                        dst[j] = r as i64;
                        out[j] |= i128::from(r as i64) != r;
                    }
                    k[a as usize]
                }
                Op::Div(..) => return false,
            };
            k.push(scale);
        }
        // The last register is `d - k`; for the absolute tests the one before is `d + k`.
        let last = (ops.len() - 1) * n;
        let absolute = matches!(test, Test::AbsLe(_) | Test::AbsGt(_));
        for j in 0..n {
            decided[j] = if out[j] {
                UNDECIDED
            } else {
                let below = v[last + j].cmp(&0);
                let above: Option<Ordering> = absolute.then(|| v[last - n + j].cmp(&0));
                by_signs(test, Some(below), above).map_or(UNDECIDED, u8::from)
            };
        }
        true
    }
}
