//! The fast first pass: each comparison's difference computed in plain `f64`, in a flat
//! program, together with a rigorous bound on how far it may be from the exact value (a
//! running error bound, as in floating-point filters for geometric predicates). When the
//! difference is farther from the threshold than its bound, the sign, so the comparison, is
//! that of the exact numbers; otherwise the comparison is decided exactly
//! ([`crate::exact`]). Cheaper than interval arithmetic: no change of rounding direction and
//! no step to the next double after every operation.
//!
//! The bounds: a sample stands for a decimal within half a step of it (`u|x|`, `u = 2^-53`);
//! a sum or difference adds its operands' bounds and its own rounding (`u|v|`); a product
//! `|a|·eb + |b|·ea + ea·eb + u|v|`; a quotient `(ea + |v|·eb)/(|b| - eb) + u|v|`, only when
//! `|b| > eb` (else the divisor may be zero: decided exactly). The bounds are computed with
//! rounding too, each operation's in at most 8 roundings of positive terms, so the last
//! bound is enlarged once by `16·n·u` relative for a program of `n` operations (which
//! covers them: `(1 - u)^(8n) > 1/(1 + 16nu)`), and by `n` times the smallest subnormal
//! step times 4 (which covers underflow, where `u|v|` does not bound a rounding).

use std::cmp::Ordering;

use crate::ast::{BinOp, Func};
use crate::compile::{Expr, Test};
use crate::eval::Sample;
use crate::exact::Exact;
use crate::fixed::Dec;

const U: f64 = 1.0 / 9_007_199_254_740_992.0; // 2^-53

/// A lane [`Program::decide_lanes`] leaves to the exact passes.
pub const UNDECIDED: u8 = 3;

/// The filter's scratch space: its registers (values and bounds, a lane each), its verdicts
/// a lane each (0 false, 1 true, [`UNDECIDED`]), and one pair's columns.
#[derive(Default)]
pub struct Lanes {
    v: Vec<f64>,
    e: Vec<f64>,
    pub decided: Vec<u8>,
    rows: Vec<f64>,
}
/// The smallest subnormal double.
const STEP: f64 = 5e-324;

/// One operation; its result is the register of its own index.
#[derive(Clone, Copy, Debug)]
pub enum Op {
    Sample {
        column: usize,
        post: bool,
    },
    /// A constant: its double, the bound on its distance to it, and it in fixed point if
    /// it is a decimal that fits.
    Const {
        v: f64,
        e: f64,
        dec: Option<Dec>,
    },
    Add(u32, u32),
    Sub(u32, u32),
    Mul(u32, u32),
    Div(u32, u32),
    Neg(u32),
    Abs(u32),
    Min(u32, u32),
    Max(u32, u32),
}

/// A comparison's difference `lhs - rhs` and the threshold(s) it is tested against, as a
/// flat program: the last register is `d - k` (and for the absolute tests, the one before
/// it is `d + k`).
#[derive(Clone, Debug)]
pub struct Program {
    ops: Vec<Op>,
    /// `1 + 16·n·u`, and `4·n` subnormal steps, for the last bound (see above).
    grow: f64,
    tiny: f64,
}

/// A constant: its nearest double (or close) and a bound on the distance to it.
fn constant(x: &Exact) -> Op {
    let v = x.to_f64();
    let e = match x {
        Exact::Small(n, 1) if n.abs() < 1 << 53 => 0.0,
        // Both exact doubles: their quotient is correctly rounded.
        Exact::Small(n, d) if n.abs() < 1 << 53 && *d < 1 << 53 => U * v.abs(),
        _ => 16.0 * U * v.abs() + 4.0 * STEP,
    };
    Op::Const {
        v,
        e,
        dec: Dec::of_exact(x),
    }
}

impl Program {
    /// The program of `lhs ~ rhs` tested by `test`; `None` if it cannot be (a power with a
    /// negative exponent is left to the exact pass).
    pub fn new(lhs: &Expr, rhs: &Expr, test: &Test) -> Option<Program> {
        let mut p = Program {
            ops: Vec::new(),
            grow: 1.0,
            tiny: 0.0,
        };
        let a = p.expr(lhs)?;
        let b = p.expr(rhs)?;
        let d = p.push(Op::Sub(a, b));
        let absolute = matches!(test, Test::AbsLe(_) | Test::AbsGt(_));
        // (d - 0 is d, the last register.)
        if !test.threshold().is_zero() || absolute {
            let k = p.push(constant(test.threshold()));
            if absolute {
                p.push(Op::Add(d, k));
            }
            p.push(Op::Sub(d, k));
        }
        let n = p.ops.len() as f64;
        p.grow = 1.0 + 16.0 * n * U * 2.0;
        p.tiny = 4.0 * n * STEP * 2.0;
        Some(p)
    }

    /// Its operations, in order.
    pub(crate) fn ops(&self) -> &[Op] {
        &self.ops
    }

    fn push(&mut self, op: Op) -> u32 {
        self.ops.push(op);
        (self.ops.len() - 1) as u32
    }

    fn expr(&mut self, e: &Expr) -> Option<u32> {
        Some(match e {
            Expr::Lit(x, _) => self.push(constant(x)),
            Expr::Var { column, post } => self.push(Op::Sample {
                column: *column,
                post: *post,
            }),
            Expr::Bound(_) => return None,
            Expr::Neg(a) => {
                let a = self.expr(a)?;
                self.push(Op::Neg(a))
            }
            Expr::Bin(op, a, b) => {
                let (a, b) = (self.expr(a)?, self.expr(b)?);
                self.push(match op {
                    BinOp::Add => Op::Add(a, b),
                    BinOp::Sub => Op::Sub(a, b),
                    BinOp::Mul => Op::Mul(a, b),
                    BinOp::Div => Op::Div(a, b),
                })
            }
            Expr::Pow(a, n) if *n >= 0 => {
                let a = self.expr(a)?;
                let mut out = self.push(constant(&Exact::int(1)));
                for _ in 0..*n {
                    out = self.push(Op::Mul(out, a));
                }
                out
            }
            Expr::Pow(..) => return None,
            Expr::Call(f, args) => {
                let a = self.expr(&args[0])?;
                match f {
                    Func::Abs => self.push(Op::Abs(a)),
                    Func::Min => {
                        let b = self.expr(&args[1])?;
                        self.push(Op::Min(a, b))
                    }
                    Func::Max => {
                        let b = self.expr(&args[1])?;
                        self.push(Op::Max(a, b))
                    }
                }
            }
        })
    }

    /// Runs the program on `lanes` pairs at once, each operation over every lane before the
    /// next (no dispatch per pair, and loops the compiler vectorises): the samples are by
    /// column (`stride` rows a column: a column's samples are a register's lanes as they
    /// are), pair `j`'s prior is row `j`, its posterior row `j + 1`. Then
    /// `decided[j]` is the comparison on pair `j`, where the bounds decide it. A lane the
    /// arithmetic cannot follow (a divisor that may be zero, an overflow) holds NaN, which
    /// decides nothing.
    pub fn decide_lanes(
        &self,
        test: &Test,
        (columns, stride, lanes): (&[f64], usize, usize),
        scratch: &mut Lanes,
    ) {
        let n = lanes;
        let Lanes { v, e, decided, .. } = scratch;
        // (Every register is written before it is read: no need to clear them.)
        let need = self.ops.len() * n;
        if v.len() < need {
            v.resize(need, 0.0);
            e.resize(need, 0.0);
        }
        for (i, op) in self.ops.iter().enumerate() {
            let (done_v, out_v) = v.split_at_mut(i * n);
            let (done_e, out_e) = e.split_at_mut(i * n);
            let (out_v, out_e) = (&mut out_v[..n], &mut out_e[..n]);
            let reg = |k: u32| {
                let k = k as usize * n;
                (&done_v[k..k + n], &done_e[k..k + n])
            };
            match *op {
                Op::Sample { column, post } => {
                    let first = column * stride + usize::from(post);
                    out_v.copy_from_slice(&columns[first..first + n]);
                    for (e, x) in out_e.iter_mut().zip(&*out_v) {
                        *e = U * x.abs();
                    }
                }
                Op::Const { v: c, e: ce, .. } => {
                    out_v.fill(c);
                    out_e.fill(ce);
                }
                Op::Add(a, b) | Op::Sub(a, b) => {
                    let ((xv, xe), (yv, ye)) = (reg(a), reg(b));
                    let sign = if matches!(op, Op::Add(..)) { 1.0 } else { -1.0 };
                    for j in 0..n {
                        let r = xv[j] + sign * yv[j];
                        out_v[j] = r;
                        out_e[j] = xe[j] + ye[j] + U * r.abs();
                    }
                }
                Op::Mul(a, b) => {
                    let ((xv, xe), (yv, ye)) = (reg(a), reg(b));
                    for j in 0..n {
                        let r = xv[j] * yv[j];
                        out_v[j] = r;
                        out_e[j] =
                            xv[j].abs() * ye[j] + yv[j].abs() * xe[j] + xe[j] * ye[j] + U * r.abs();
                    }
                }
                Op::Div(a, b) => {
                    let ((xv, xe), (yv, ye)) = (reg(a), reg(b));
                    for j in 0..n {
                        let room = yv[j].abs() - (ye[j] * self.grow + self.tiny);
                        let r = xv[j] / yv[j];
                        let bound = ((xe[j] + r.abs() * ye[j]) / room + U * r.abs()) * self.grow;
                        // (`!(room > 0)`: NaN too.)
                        out_v[j] = if room > 0.0 { r } else { f64::NAN };
                        out_e[j] = bound;
                    }
                }
                Op::Neg(a) | Op::Abs(a) => {
                    let (xv, xe) = reg(a);
                    let abs = matches!(op, Op::Abs(_));
                    for j in 0..n {
                        out_v[j] = if abs { xv[j].abs() } else { -xv[j] };
                        out_e[j] = xe[j];
                    }
                }
                Op::Min(a, b) | Op::Max(a, b) => {
                    let ((xv, xe), (yv, ye)) = (reg(a), reg(b));
                    let min = matches!(op, Op::Min(..));
                    for j in 0..n {
                        let (x, y) = (xv[j], yv[j]);
                        // (`f64::min` drops a NaN: one must stay undecided.)
                        out_v[j] = if x.is_nan() || y.is_nan() {
                            f64::NAN
                        } else if min {
                            x.min(y)
                        } else {
                            x.max(y)
                        };
                        out_e[j] = xe[j].max(ye[j]);
                    }
                }
            }
        }
        // The signs: 0 negative, 2 positive, 1 unknown (perhaps zero); then the test's
        // verdict from them, a table per test: 0 false, 1 true, UNDECIDED.
        let (grow, tiny) = (self.grow, self.tiny);
        let signs = |at: usize, out: &mut Vec<u8>| {
            out.clear();
            out.extend(v[at..at + n].iter().zip(&e[at..at + n]).map(|(&v, &e)| {
                let e = e * grow + tiny;
                // (NaN in `v` or `e`: neither comparison holds, the sign is unknown.)
                let (above, below) = (v > e, v < -e);
                u8::from(above) * 2 + u8::from(above == below)
            }));
        };
        // The test's verdict from the signs, as the exact passes decide it ([`by_signs`]).
        let ord = |s: u8| match s {
            0 => Some(Ordering::Less),
            2 => Some(Ordering::Greater),
            _ => None,
        };
        let code = |b: Option<bool>| b.map_or(UNDECIDED, u8::from);
        let last = (self.ops.len() - 1) * n;
        signs(last, decided);
        if matches!(test, Test::AbsLe(_) | Test::AbsGt(_)) {
            // (`d + k` is the register before `d - k`.)
            let mut above = Vec::with_capacity(n);
            signs(last - n, &mut above);
            for (b, a) in decided.iter_mut().zip(above) {
                *b = code(by_signs(test, ord(*b), ord(a)));
            }
            return;
        }
        let table = [0, 1, 2].map(|s| code(by_signs(test, ord(s), None)));
        for d in decided.iter_mut() {
            *d = table[*d as usize];
        }
    }

    /// The comparison on one pair, decided by the filter if it decides it.
    pub fn decide(
        &self,
        test: &Test,
        prior: &[f64],
        post: &[f64],
        scratch: &mut Lanes,
    ) -> Option<bool> {
        let mut columns = std::mem::take(&mut scratch.rows);
        columns.clear();
        columns.extend(prior.iter().zip(post).flat_map(|(&a, &b)| [a, b]));
        self.decide_lanes(test, (&columns, 2, 1), scratch);
        scratch.rows = columns;
        match scratch.decided[0] {
            UNDECIDED => None,
            b => Some(b == 1),
        }
    }

    /// The comparison decided exactly in fixed point, if every number on the way is a
    /// decimal that fits ([`crate::fixed`]).
    pub fn decide_fixed(
        &self,
        test: &Test,
        prior: &mut Sample,
        post: &mut Sample,
        regs: &mut Vec<Dec>,
    ) -> Option<bool> {
        let mut sample = |column: usize, p: bool| {
            if p {
                post.dec(column)
            } else {
                prior.dec(column)
            }
        };
        self.decide_fixed_with(test, &mut sample, regs)
    }

    /// [`Program::decide_fixed`], the samples' decimals given by `sample(column, post)`.
    pub fn decide_fixed_with(
        &self,
        test: &Test,
        sample: &mut dyn FnMut(usize, bool) -> Option<Dec>,
        regs: &mut Vec<Dec>,
    ) -> Option<bool> {
        regs.clear();
        for op in &self.ops {
            let r = |k: u32| regs[k as usize];
            let v = match *op {
                Op::Sample { column, post: p } => sample(column, p)?,
                Op::Const { dec, .. } => dec?,
                Op::Add(a, b) => r(a).add(r(b))?,
                Op::Sub(a, b) => r(a).sub(r(b))?,
                Op::Mul(a, b) => r(a).mul(r(b))?,
                Op::Div(..) => return None,
                Op::Neg(a) => r(a).neg()?,
                Op::Abs(a) => r(a).abs()?,
                Op::Min(a, b) | Op::Max(a, b) => {
                    let (x, y) = (r(a), r(b));
                    let less = x.cmp(y)? == Ordering::Less;
                    if less == matches!(op, Op::Min(..)) {
                        x
                    } else {
                        y
                    }
                }
            };
            regs.push(v);
        }
        let n = regs.len();
        let above = (n >= 2).then(|| regs[n - 2].signum());
        by_signs(test, Some(regs[n - 1].signum()), above)
    }
}

/// A test decided from the sign of `d - k` (`below`) and, for the absolute tests, of
/// `d + k` (`above`); `None` when a sign it needs is unknown.
pub(crate) fn by_signs(
    test: &Test,
    below: Option<Ordering>,
    above: Option<Ordering>,
) -> Option<bool> {
    use Ordering::{Equal, Greater, Less};
    Some(match test {
        Test::Le(_) => below? != Greater,
        Test::Lt(_) => below? == Less,
        Test::Ge(_) => below? != Less,
        Test::Gt(_) => below? == Greater,
        Test::Eq => below? == Equal,
        Test::Ne => below? != Equal,
        Test::AbsLe(_) | Test::AbsGt(_) => {
            // |d| <= k  ⟺  d - k <= 0 and d + k >= 0.
            let inside = match (below, above) {
                (Some(b), Some(a)) => b != Greater && a != Less,
                (Some(Greater), _) | (_, Some(Less)) => false,
                _ => return None,
            };
            inside == matches!(test, Test::AbsLe(_))
        }
    })
}
