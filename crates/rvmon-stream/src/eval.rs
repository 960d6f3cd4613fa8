//! Evaluation of compiled expressions, shared by the engines: the general one, where a value
//! may wait for one not yet known ([`crate::engine`]), and the one for specifications whose
//! values never wait ([`crate::immediate`]). An engine says how a stream is read through
//! [`Reads`]; everything else — short-circuits, arithmetic, functions, messages — is here once.

use std::rc::Rc;

use rvmon_core::Error;

use crate::analysis::{CExpr, CMessage, Func, OutputInfo, Sid};
use crate::ast::{BinOp, Type};
use crate::value::Val;

/// A partial evaluation's result.
pub(crate) enum R {
    V(Val),
    Absent,
    /// Waiting for value `.1` of stream `.0`.
    Wait(Sid, u64),
    Fail(Box<Error>),
}

/// An output's evaluation: its value and trigger message, or what it waits for.
pub(crate) enum Out {
    Done(Val, Option<Rc<str>>),
    Wait(Sid, u64),
    Fail(Box<Error>),
}

/// How an engine resolves stream accesses at the position being evaluated.
pub(crate) trait Reads {
    /// Stream `s`'s value count at the position, and whether it got a value at its event.
    fn anchor(&self, s: Sid) -> (u64, bool);
    /// Value `idx` of stream `s` (0-based), or what evaluation must wait for.
    fn value(&self, s: Sid, idx: u64) -> R;
}

/// Evaluates output `o` (and its trigger message).
pub(crate) fn eval_output(o: &OutputInfo, at: &impl Reads) -> Out {
    let v = match eval(&o.expr, at) {
        R::V(v) => v,
        R::Wait(s, j) => return Out::Wait(s, j),
        R::Fail(e) => return Out::Fail(e),
        R::Absent => return Out::Fail(bug(&format!("`{}` has no value", o.name))),
    };
    let msg = match (&o.trigger, &v) {
        (Some((_, CMessage::Text(t))), Val::Bool(true)) => Some(t.clone()),
        (Some((_, CMessage::Computed(m))), Val::Bool(true)) => match eval(m, at) {
            R::V(m) => Some(m.to_string().into()),
            R::Wait(s, j) => return Out::Wait(s, j),
            R::Fail(e) => return Out::Fail(e),
            R::Absent => Some("".into()),
        },
        _ => None,
    };
    Out::Done(v, msg)
}

pub(crate) fn eval(c: &CExpr, at: &impl Reads) -> R {
    // The value of a subexpression, or the function's result if it has none yet.
    macro_rules! val {
        ($e:expr) => {
            match $e {
                R::V(v) => v,
                other => return other,
            }
        };
    }
    match c {
        CExpr::Const(v) => R::V(v.clone()),
        CExpr::Sync(s) => {
            let (n, _) = at.anchor(*s);
            at.value(*s, n - 1)
        }
        CExpr::Offset(s, k) => {
            let (n, _) = at.anchor(*s);
            let idx = n as i64 - 1 + k;
            if idx < 0 {
                R::Absent
            } else {
                at.value(*s, idx as u64)
            }
        }
        CExpr::Hold(s) => match at.anchor(*s) {
            (0, _) => R::Absent,
            (n, _) => at.value(*s, n - 1),
        },
        CExpr::Get(s) => match at.anchor(*s) {
            (n, true) => at.value(*s, n - 1),
            _ => R::Absent,
        },
        CExpr::Fresh(s) => R::V(Val::Bool(at.anchor(*s).1)),
        CExpr::Default(a, d) => match eval(a, at) {
            R::Absent => eval(d, at),
            r => r,
        },
        CExpr::Neg(a) => match val!(eval(a, at)) {
            Val::Int(i) => R::V(Val::Int(i.wrapping_neg())),
            Val::Float(x) => R::V(Val::Float(-x)),
            v => R::Fail(type_bug("-", &v)),
        },
        CExpr::Not(a) => match val!(eval(a, at)) {
            Val::Bool(b) => R::V(Val::Bool(!b)),
            v => R::Fail(type_bug("!", &v)),
        },
        CExpr::Bin(op @ (BinOp::And | BinOp::Or | BinOp::Implies), a, b) => {
            // The operand value that decides the result whichever the other one is.
            let (left_decides, right_decides) = match op {
                BinOp::And => (false, false),
                BinOp::Or => (true, true),
                _ => (false, true),
            };
            let decided = R::V(Val::Bool(*op != BinOp::And));
            let ra = eval(a, at);
            if matches!(ra, R::V(Val::Bool(x)) if x == left_decides) {
                return decided;
            }
            let rb = eval(b, at);
            if matches!(rb, R::V(Val::Bool(y)) if y == right_decides) {
                return decided;
            }
            match (ra, rb) {
                (R::V(Val::Bool(_)), R::V(Val::Bool(y))) => R::V(Val::Bool(y)),
                (R::Fail(e), _) | (_, R::Fail(e)) => R::Fail(e),
                (R::Wait(s, j), _) | (_, R::Wait(s, j)) => R::Wait(s, j),
                _ => R::Fail(bug("a Boolean operand has no value")),
            }
        }
        CExpr::Bin(op, a, b) => {
            let x = val!(eval(a, at));
            let y = val!(eval(b, at));
            match binary(*op, x, y) {
                Ok(v) => R::V(v),
                Err(e) => R::Fail(e),
            }
        }
        CExpr::Ite(cond, a, b) => match val!(eval(cond, at)) {
            Val::Bool(true) => eval(a, at),
            Val::Bool(false) => eval(b, at),
            v => R::Fail(type_bug("if", &v)),
        },
        CExpr::Call(f, args) => {
            let mut vals = Vec::with_capacity(args.len());
            for a in args {
                vals.push(val!(eval(a, at)));
            }
            match call(*f, vals) {
                Ok(v) => R::V(v),
                Err(e) => R::Fail(e),
            }
        }
        CExpr::Cast(to, a) => R::V(cast(*to, val!(eval(a, at)))),
        // The analysis sends every specification with windows to the immediate engine.
        CExpr::Window(_) | CExpr::Param(_) | CExpr::Instance(..) => R::Fail(bug(
            "the general stream engine has no windows and no instances",
        )),
        CExpr::Format(template, args) => {
            let mut vals = Vec::with_capacity(args.len());
            for a in args {
                vals.push(val!(eval(a, at)));
            }
            R::V(Val::Str(format_template(template, &vals).into()))
        }
    }
}

pub(crate) fn bug(what: &str) -> Box<Error> {
    Box::new(Error::msg(format!("internal error: {what}")))
}

fn type_bug(op: &str, v: &Val) -> Box<Error> {
    Box::new(Error::msg(format!("internal error: `{op}` applied to {v}")))
}

/// RTLola's `format`: each `{{…}}` is replaced by the next argument; extra ones stay.
pub fn format_template(t: &str, args: &[Val]) -> String {
    let mut out = String::new();
    let mut rest = t;
    let mut next = args.iter();
    while let Some(open) = rest.find("{{") {
        let Some(close) = rest[open + 2..].find("}}") else {
            break;
        };
        let inner = &rest[open + 2..open + 2 + close];
        if inner.contains('}') {
            break;
        }
        out.push_str(&rest[..open]);
        match next.next() {
            Some(v) => out.push_str(&v.to_string()),
            None => out.push_str(&rest[open..open + 4 + close]),
        }
        rest = &rest[open + 4 + close..];
    }
    out.push_str(rest);
    out
}

pub(crate) fn cast(to: Type, v: Val) -> Val {
    match (to, v) {
        (Type::Int, Val::Int(i)) => Val::Int(i),
        (Type::Int, Val::UInt(u)) => Val::Int(u as i64),
        (Type::Int, Val::Float(x)) => Val::Int(x as i64),
        (Type::UInt, Val::Int(i)) => Val::UInt(i as u64),
        (Type::UInt, Val::UInt(u)) => Val::UInt(u),
        (Type::UInt, Val::Float(x)) => Val::UInt(x as u64),
        (Type::Float, Val::Int(i)) => Val::Float(i as f64),
        (Type::Float, Val::UInt(u)) => Val::Float(u as f64),
        (_, v) => v,
    }
}

pub(crate) fn call(f: Func, mut args: Vec<Val>) -> Result<Val, Box<Error>> {
    let float = |g: fn(f64) -> f64, v: &Val| match v {
        Val::Float(x) => Ok(Val::Float(g(*x))),
        v => Err(type_bug("a math function", v)),
    };
    Ok(match f {
        Func::Min | Func::Max => {
            let b = args.pop().expect("two");
            let a = args.pop().expect("two");
            let less = match (&a, &b) {
                (Val::Int(x), Val::Int(y)) => x < y,
                (Val::UInt(x), Val::UInt(y)) => x < y,
                (Val::Float(x), Val::Float(y)) => x < y,
                _ => return Err(type_bug("min/max", &a)),
            };
            if less == (f == Func::Min) {
                a
            } else {
                b
            }
        }
        Func::Abs => match &args[0] {
            Val::Int(i) => Val::Int(i.wrapping_abs()),
            Val::Float(x) => Val::Float(x.abs()),
            v => return Err(type_bug("abs", v)),
        },
        Func::Sqrt => float(f64::sqrt, &args[0])?,
        Func::Sin => float(f64::sin, &args[0])?,
        Func::Cos => float(f64::cos, &args[0])?,
        Func::Tan => float(f64::tan, &args[0])?,
        Func::Arcsin => float(f64::asin, &args[0])?,
        Func::Arccos => float(f64::acos, &args[0])?,
        Func::Arctan => float(f64::atan, &args[0])?,
        Func::Exp => float(f64::exp, &args[0])?,
        Func::Ln => float(f64::ln, &args[0])?,
        Func::Round => float(f64::round, &args[0])?,
        Func::Floor => float(f64::floor, &args[0])?,
        Func::Ceil => float(f64::ceil, &args[0])?,
    })
}

/// Arithmetic and comparisons; integers wrap on overflow (as RTLola's interpreter does for
/// `+ - *`), and integer division by zero is an error instead of RTLola's crash.
fn binary(op: BinOp, x: Val, y: Val) -> Result<Val, Box<Error>> {
    if is_arithmetic(op) {
        return match (x, y) {
            (Val::Int(a), Val::Int(b)) => Ok(Val::Int(Arith::apply(op, a, b)?)),
            (Val::UInt(a), Val::UInt(b)) => Ok(Val::UInt(Arith::apply(op, a, b)?)),
            (Val::Float(a), Val::Float(b)) => Ok(Val::Float(Arith::apply(op, a, b)?)),
            (x, _) => Err(type_bug("arithmetic", &x)),
        };
    }
    let ord = match (&x, &y) {
        (Val::Int(a), Val::Int(b)) => a.partial_cmp(b),
        (Val::UInt(a), Val::UInt(b)) => a.partial_cmp(b),
        (Val::Float(a), Val::Float(b)) => a.partial_cmp(b),
        (Val::Str(a), Val::Str(b)) => a.partial_cmp(b),
        (Val::Bool(a), Val::Bool(b)) => a.partial_cmp(b),
        _ => return Err(type_bug("a comparison", &x)),
    };
    Ok(Val::Bool(comparison_holds(op, ord)))
}

pub(crate) fn is_arithmetic(op: BinOp) -> bool {
    matches!(
        op,
        BinOp::Add
            | BinOp::Sub
            | BinOp::Mul
            | BinOp::Div
            | BinOp::Rem
            | BinOp::Pow
            | BinOp::BitAnd
            | BinOp::BitOr
            | BinOp::BitXor
            | BinOp::Shl
            | BinOp::Shr
    )
}

/// Whether comparison `op` holds between operands ordered `ord` (`None`: a NaN).
pub(crate) fn comparison_holds(op: BinOp, ord: Option<std::cmp::Ordering>) -> bool {
    use std::cmp::Ordering;
    match op {
        BinOp::Eq => ord == Some(Ordering::Equal),
        BinOp::Ne => ord != Some(Ordering::Equal),
        BinOp::Lt => ord == Some(Ordering::Less),
        BinOp::Le => ord.is_some_and(|o| o != Ordering::Greater),
        BinOp::Gt => ord == Some(Ordering::Greater),
        BinOp::Ge => ord.is_some_and(|o| o != Ordering::Less),
        _ => unreachable!("not a comparison: {op:?}"),
    }
}

/// The arithmetic of one numeric type: signed and unsigned integers wrap and fail on division
/// by zero; floats follow IEEE. The one quotient that overflows, `i64::MIN / -1`, wraps to
/// `i64::MIN` (and `i64::MIN % -1` is 0), as every other integer overflow does: RTLola's
/// interpreter panics there, as on division by zero, but unlike division by zero the
/// quotient has a wrapped value, and it once failed here as "division by zero".
pub(crate) trait Arith: Copy {
    fn apply(op: BinOp, a: Self, b: Self) -> Result<Self, Box<Error>>;
}

macro_rules! integer_arith {
    ($t:ty) => {
        impl Arith for $t {
            fn apply(op: BinOp, a: $t, b: $t) -> Result<$t, Box<Error>> {
                if b == 0 && matches!(op, BinOp::Div | BinOp::Rem) {
                    return Err(Box::new(Error::msg("division by zero")));
                }
                Ok(match op {
                    BinOp::Add => a.wrapping_add(b),
                    BinOp::Sub => a.wrapping_sub(b),
                    BinOp::Mul => a.wrapping_mul(b),
                    BinOp::Div => a.wrapping_div(b),
                    BinOp::Rem => a.wrapping_rem(b),
                    BinOp::Pow => a.wrapping_pow(
                        u32::try_from(b)
                            .map_err(|_| Error::msg(format!("exponent {b} out of range")))?,
                    ),
                    BinOp::BitAnd => a & b,
                    BinOp::BitOr => a | b,
                    BinOp::BitXor => a ^ b,
                    // The shift counts modulo 64, as RTLola's (release) interpreter's `<<`.
                    BinOp::Shl => a.wrapping_shl(b as u32),
                    BinOp::Shr => a.wrapping_shr(b as u32),
                    _ => {
                        return Err(Box::new(Error::msg(format!(
                            "internal error: `{op:?}` is not arithmetic"
                        ))))
                    }
                })
            }
        }
    };
}
integer_arith!(i64);
integer_arith!(u64);

impl Arith for f64 {
    fn apply(op: BinOp, a: f64, b: f64) -> Result<f64, Box<Error>> {
        Ok(match op {
            BinOp::Add => a + b,
            BinOp::Sub => a - b,
            BinOp::Mul => a * b,
            BinOp::Div => a / b,
            BinOp::Rem => a % b,
            BinOp::Pow => a.powf(b),
            _ => {
                return Err(Box::new(Error::msg(format!(
                    "internal error: `{op:?}` on floats"
                ))))
            }
        })
    }
}
