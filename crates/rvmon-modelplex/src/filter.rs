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
//! `|b| > eb` (else the divisor may be zero: decided exactly). Each bound is computed with
//! rounding too, so it is enlarged by `2^-48` relative (which covers a few roundings) and by
//! the smallest normal double (which covers underflow).

use crate::ast::{BinOp, Func};
use crate::compile::{Expr, Test};
use crate::exact::Exact;

const U: f64 = 1.0 / 9_007_199_254_740_992.0; // 2^-53
const GROW: f64 = 1.0 + 1.0 / 281_474_976_710_656.0; // 1 + 2^-48
const TINY: f64 = f64::MIN_POSITIVE;

/// One operation; its result is the register of its own index.
#[derive(Clone, Copy, Debug)]
pub enum Op {
    Sample { column: usize, post: bool },
    Const { v: f64, e: f64 },
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
}

/// A constant: its nearest double (or close) and a bound on the distance to it.
fn constant(x: &Exact) -> Op {
    let v = x.to_f64();
    let e = match x {
        Exact::Small(n, 1) if n.abs() < 1 << 53 => 0.0,
        // Both exact doubles: their quotient is correctly rounded.
        Exact::Small(n, d) if n.abs() < 1 << 53 && *d < 1 << 53 => U * v.abs(),
        _ => 16.0 * U * v.abs() + TINY,
    };
    Op::Const { v, e }
}

impl Program {
    /// The program of `lhs ~ rhs` tested by `test`; `None` if it cannot be (a power with a
    /// negative exponent is left to the exact pass).
    pub fn new(lhs: &Expr, rhs: &Expr, test: &Test) -> Option<Program> {
        let mut p = Program { ops: Vec::new() };
        let a = p.expr(lhs)?;
        let b = p.expr(rhs)?;
        let d = p.push(Op::Sub(a, b));
        let k = p.push(constant(test.threshold()));
        if matches!(test, Test::AbsLe(_) | Test::AbsGt(_)) {
            p.push(Op::Add(d, k));
        }
        p.push(Op::Sub(d, k));
        Some(p)
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
                let mut out = self.push(Op::Const { v: 1.0, e: 0.0 });
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

    /// Runs the program on a pair of samples (`regs` is scratch space). `Some(sign)` of
    /// `d - k` (and, for the absolute tests, of `d + k` first) when the bounds decide them:
    /// `None` when one may be zero or the arithmetic left the doubles.
    fn run(&self, prior: &[f64], post: &[f64], regs: &mut Vec<(f64, f64)>) -> Option<()> {
        regs.resize(self.ops.len(), (0.0, 0.0));
        for (i, op) in self.ops.iter().enumerate() {
            let r = |k: u32| regs[k as usize];
            // (Overflow and NaN need no test here: they make a bound infinite or NaN, which
            // decides nothing at the end; only `min`/`max`, which drop a NaN, test.)
            regs[i] = match *op {
                Op::Sample { column, post: p } => {
                    let x = if p { post[column] } else { prior[column] };
                    (x, U * x.abs())
                }
                Op::Const { v, e } => (v, e),
                Op::Add(a, b) => {
                    let ((x, ex), (y, ey)) = (r(a), r(b));
                    let v = x + y;
                    (v, (ex + ey + U * v.abs()) * GROW + TINY)
                }
                Op::Sub(a, b) => {
                    let ((x, ex), (y, ey)) = (r(a), r(b));
                    let v = x - y;
                    (v, (ex + ey + U * v.abs()) * GROW + TINY)
                }
                Op::Mul(a, b) => {
                    let ((x, ex), (y, ey)) = (r(a), r(b));
                    let v = x * y;
                    let e = x.abs() * ey + y.abs() * ex + ex * ey + U * v.abs();
                    (v, e * GROW + TINY)
                }
                Op::Div(a, b) => {
                    let ((x, ex), (y, ey)) = (r(a), r(b));
                    let room = y.abs() - ey * GROW;
                    if room.is_nan() || room <= 0.0 {
                        return None;
                    }
                    let v = x / y;
                    (v, ((ex + v.abs() * ey) / room + U * v.abs()) * GROW + TINY)
                }
                Op::Neg(a) => {
                    let (x, e) = r(a);
                    (-x, e)
                }
                Op::Abs(a) => {
                    let (x, e) = r(a);
                    (x.abs(), e)
                }
                Op::Min(a, b) | Op::Max(a, b) => {
                    let ((x, ex), (y, ey)) = (r(a), r(b));
                    if !(x.is_finite() && y.is_finite() && ex.is_finite() && ey.is_finite()) {
                        return None;
                    }
                    let v = if matches!(op, Op::Min(..)) { x.min(y) } else { x.max(y) };
                    (v, ex.max(ey))
                }
            };
        }
        Some(())
    }

    /// The comparison decided by the filter, if it decides it.
    pub fn decide(
        &self,
        test: &Test,
        prior: &[f64],
        post: &[f64],
        regs: &mut Vec<(f64, f64)>,
    ) -> Option<bool> {
        self.run(prior, post, regs)?;
        let sign = |(v, e): (f64, f64)| -> Option<std::cmp::Ordering> {
            if v > e {
                Some(std::cmp::Ordering::Greater)
            } else if v < -e {
                Some(std::cmp::Ordering::Less)
            } else {
                None
            }
        };
        use std::cmp::Ordering::{Greater, Less};
        let n = regs.len();
        let below = regs[n - 1]; // d - k
        Some(match test {
            Test::Le(_) => sign(below)? == Less,
            Test::Lt(_) => sign(below)? == Less,
            Test::Ge(_) => sign(below)? == Greater,
            Test::Gt(_) => sign(below)? == Greater,
            Test::Eq => match sign(below) {
                Some(_) => false,
                None => return None,
            },
            Test::Ne => match sign(below) {
                Some(_) => true,
                None => return None,
            },
            Test::AbsLe(_) | Test::AbsGt(_) => {
                let above = regs[n - 2]; // d + k
                let inside = match (sign(below), sign(above)) {
                    (Some(Less), Some(Greater)) => true,
                    (Some(Greater), _) | (_, Some(Less)) => false,
                    _ => return None,
                };
                inside == matches!(test, Test::AbsLe(_))
            }
        })
    }
}
