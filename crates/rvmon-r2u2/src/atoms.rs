//! The atoms: at each step, each one's expression over the signals (C2PO's "booleanizer"),
//! with R2U2's arithmetic: integers are 32-bit and saturate, floats compare within
//! 10⁻⁵ (R2U2's epsilon), an integer division by zero gives 0 (R2U2 reports an overflow).

use rvmon_core::event::{Event, Val};
use rvmon_core::Error;

use crate::syntax::{Expr, Op, Type};

/// R2U2's float tolerance (`R2U2_FLOAT_EPSILON`).
const EPSILON: f64 = 0.00001;

#[derive(Clone, Copy, Debug, PartialEq)]
enum Num {
    Int(i32),
    Float(f64),
}

impl Num {
    fn float(self) -> f64 {
        match self {
            Num::Int(i) => f64::from(i),
            Num::Float(f) => f,
        }
    }

    fn truth(self) -> bool {
        match self {
            Num::Int(i) => i != 0,
            // (R2U2 reads a float signal as a Boolean this way.)
            Num::Float(f) => !(-EPSILON < f && f < EPSILON),
        }
    }
}

/// Sets `out[k]` to atom `k`'s truth at the step `tau`, whose signals `ev` holds.
pub fn evaluate(
    atoms: &[Expr],
    signals: &[(String, Type)],
    ev: &Event,
    tau: u32,
    out: &mut [bool],
    warnings: &mut Vec<String>,
) -> Result<(), Error> {
    let ctx = Context { signals, ev, tau };
    for (k, a) in atoms.iter().enumerate() {
        out[k] = ctx.eval(a, warnings)?.truth();
    }
    Ok(())
}

struct Context<'a> {
    signals: &'a [(String, Type)],
    ev: &'a Event,
    tau: u32,
}

fn int(i: i64) -> Num {
    Num::Int(i.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32)
}

fn boolean(b: bool) -> Num {
    Num::Int(i32::from(b))
}

impl Context<'_> {
    fn eval(&self, e: &Expr, warnings: &mut Vec<String>) -> Result<Num, Error> {
        Ok(match e {
            Expr::Bool(b) => boolean(*b),
            Expr::Int(i) => int(*i),
            Expr::Float(f) => Num::Float(*f),
            Expr::Tau => int(i64::from(self.tau)),
            Expr::Signal(k) => self.signal(*k)?,
            Expr::Not(a) => boolean(!self.eval(a, warnings)?.truth()),
            Expr::Neg(a) => match self.eval(a, warnings)? {
                Num::Int(i) => int(-i64::from(i)),
                Num::Float(f) => Num::Float(-f),
            },
            Expr::Abs(a) => match self.eval(a, warnings)? {
                Num::Int(i) => int(i64::from(i).abs()),
                Num::Float(f) => Num::Float(f.abs()),
            },
            Expr::Binary(op, a, b) => {
                let (x, y) = (self.eval(a, warnings)?, self.eval(b, warnings)?);
                binary(*op, x, y, self.tau, warnings)
            }
            Expr::Unary(..) | Expr::Until(..) => {
                return Err(Error::msg(
                    "a temporal operator inside a comparison or arithmetic, which R2U2 does \
                     not evaluate",
                ))
            }
        })
    }

    fn signal(&self, k: usize) -> Result<Num, Error> {
        let (name, ty) = &self.signals[k];
        let value = self.ev.values.get(k).and_then(Option::as_ref);
        let num = match value {
            Some(Val::Int(i)) => int(*i),
            Some(Val::UInt(u)) => int(i64::try_from(*u).unwrap_or(i64::MAX)),
            Some(Val::Float(f)) => Num::Float(*f),
            Some(Val::Bool(b)) => boolean(*b),
            Some(Val::Str(_)) | None => {
                return Err(Error::msg(format!(
                    "step {}: no number for signal `{name}` (R2U2 reads every signal at every \
                     step)",
                    self.tau
                )))
            }
        };
        Ok(match (ty, num) {
            (Type::Float, n) => Num::Float(n.float()),
            (_, n) => n,
        })
    }
}

fn binary(op: Op, x: Num, y: Num, tau: u32, warnings: &mut Vec<String>) -> Num {
    use Num::{Float as F, Int as I};
    let float_eq = |a: f64, b: f64| (a - b).abs() <= EPSILON;
    match (op, x, y) {
        (Op::And, _, _) => boolean(x.truth() && y.truth()),
        (Op::Or, _, _) => boolean(x.truth() || y.truth()),
        (Op::Implies, _, _) => boolean(!x.truth() || y.truth()),
        (Op::Iff, _, _) => boolean(x.truth() == y.truth()),
        (Op::Xor, _, _) => boolean(x.truth() != y.truth()),
        (Op::Eq, I(a), I(b)) => boolean(a == b),
        (Op::Ne, I(a), I(b)) => boolean(a != b),
        (Op::Lt, I(a), I(b)) => boolean(a < b),
        (Op::Le, I(a), I(b)) => boolean(a <= b),
        (Op::Gt, I(a), I(b)) => boolean(a > b),
        (Op::Ge, I(a), I(b)) => boolean(a >= b),
        (Op::Add, I(a), I(b)) => int(i64::from(a) + i64::from(b)),
        (Op::Sub, I(a), I(b)) => int(i64::from(a) - i64::from(b)),
        (Op::Mul, I(a), I(b)) => int(i64::from(a) * i64::from(b)),
        (Op::Div | Op::Mod, I(a), I(b)) => {
            let r = if op == Op::Div {
                a.checked_div(b)
            } else {
                a.checked_rem(b)
            };
            r.map_or_else(
                || {
                    warnings.push(format!(
                        "step {tau}: integer division by zero (or overflow), taken as 0, as \
                         R2U2 does (it reports an overflow)"
                    ));
                    I(0)
                },
                I,
            )
        }
        (_, a, b) => {
            let (a, b) = (a.float(), b.float());
            match op {
                Op::Eq => boolean(float_eq(a, b)),
                Op::Ne => boolean(!float_eq(a, b)),
                Op::Lt => boolean(a < b && !float_eq(a, b)),
                Op::Gt => boolean(a > b && !float_eq(a, b)),
                Op::Le => boolean(a < b || float_eq(a, b)),
                Op::Ge => boolean(a > b || float_eq(a, b)),
                Op::Add => F(a + b),
                Op::Sub => F(a - b),
                Op::Mul => F(a * b),
                Op::Div => F(a / b),
                _ => F(a % b),
            }
        }
    }
}
