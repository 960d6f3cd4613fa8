//! Evaluation of terms over values, with MonPoly's semantics: integer `/` truncates and `MOD`
//! takes the dividend's sign (Zarith's `div`/`rem`), integer division by zero is an error
//! (MonPoly dies with `Division_by_zero`), float operations follow IEEE, `f2i` truncates,
//! `s2i`/`s2f` give 0 on text that is not a number, `f2s` prints like OCaml's `Float.to_string`.
//! Shared by the reference semantics and the engines so that they cannot disagree.

use rvmon_core::{Interner, Value};

use crate::ast::{ArithOp, Func, Term};

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EvalError {
    DivisionByZero,
    Overflow,
    /// Operands of the wrong type (the type checker rules this out for checked formulas).
    Type(String),
    Unsupported(String),
    UnboundVariable(String),
}

impl std::fmt::Display for EvalError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            EvalError::DivisionByZero => f.write_str("division by zero"),
            EvalError::Overflow => f.write_str("integer overflow"),
            EvalError::Type(w) => write!(f, "type error: {w}"),
            EvalError::Unsupported(w) => write!(f, "{w} is not supported yet"),
            EvalError::UnboundVariable(v) => write!(f, "variable `{v}` has no value here"),
        }
    }
}

/// OCaml's `Float.to_string`: `%.12g`, with a trailing `.` when that looks like an integer.
pub fn ocaml_float_to_string(x: f64) -> String {
    if x.is_nan() {
        return "nan".into();
    }
    if x.is_infinite() {
        return if x > 0.0 { "inf".into() } else { "-inf".into() };
    }
    let s = crate::monpoly::format_g_precision(x, 12);
    if s.contains(['.', 'e', 'n', 'i']) {
        s
    } else {
        s + "."
    }
}

/// Whose conventions decide the corner cases of arithmetic, where MonPoly and its verified
/// kernel VeriMon (`monpoly -verified`, code extracted from Isabelle) differ.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Arithmetic {
    /// Integer division or `MOD` by zero is an error (MonPoly dies with `Division_by_zero`);
    /// `f2i` of a value outside the integers gives 0.
    #[default]
    MonPoly,
    /// Isabelle's total division: `x / 0 = 0` and `x MOD 0 = x`; `f2i` of a value outside the
    /// integers is an error (VeriMon dies with `Z.Overflow`).
    VeriMon,
}

/// Evaluates `t` with MonPoly's arithmetic; `env` gives the values of variables.
pub fn eval_term(
    t: &Term,
    env: &dyn Fn(&str) -> Option<Value>,
    interner: &mut Interner,
) -> Result<Value, EvalError> {
    eval_term_with(Arithmetic::MonPoly, t, env, interner)
}

/// Evaluates `t` with the given arithmetic conventions.
pub fn eval_term_with(
    arithmetic: Arithmetic,
    t: &Term,
    env: &dyn Fn(&str) -> Option<Value>,
    interner: &mut Interner,
) -> Result<Value, EvalError> {
    let eval_term = |t: &Term, env: &dyn Fn(&str) -> Option<Value>, interner: &mut Interner| {
        eval_term_with(arithmetic, t, env, interner)
    };
    let verimon = arithmetic == Arithmetic::VeriMon;
    Ok(match t {
        Term::Var(v) => env(v).ok_or_else(|| EvalError::UnboundVariable(v.clone()))?,
        Term::Int(i) => Value::Int(*i),
        Term::Float(f) => Value::Float(*f),
        Term::Str(s) => Value::Str(interner.intern(s)),
        Term::Regexp(_) => return Err(EvalError::Unsupported("regular expressions".into())),
        Term::Neg(a) => match eval_term(a, env, interner)? {
            Value::Int(i) => Value::Int(i.checked_neg().ok_or(EvalError::Overflow)?),
            Value::Float(f) => Value::Float(-f),
            _ => return Err(EvalError::Type("unary - expects a number".into())),
        },
        Term::Arith(op, a, b) => match (eval_term(a, env, interner)?, eval_term(b, env, interner)?)
        {
            (Value::Int(x), Value::Int(y)) => Value::Int(match op {
                ArithOp::Add => x.checked_add(y).ok_or(EvalError::Overflow)?,
                ArithOp::Sub => x.checked_sub(y).ok_or(EvalError::Overflow)?,
                ArithOp::Mul => x.checked_mul(y).ok_or(EvalError::Overflow)?,
                ArithOp::Div if y == 0 && verimon => 0,
                ArithOp::Mod if y == 0 && verimon => x,
                ArithOp::Div if y == 0 => return Err(EvalError::DivisionByZero),
                ArithOp::Mod if y == 0 => return Err(EvalError::DivisionByZero),
                ArithOp::Div => x.checked_div(y).ok_or(EvalError::Overflow)?,
                ArithOp::Mod => x.checked_rem(y).ok_or(EvalError::Overflow)?,
            }),
            (Value::Float(x), Value::Float(y)) => Value::Float(match op {
                ArithOp::Add => x + y,
                ArithOp::Sub => x - y,
                ArithOp::Mul => x * y,
                ArithOp::Div => x / y,
                ArithOp::Mod => return Err(EvalError::Type("MOD expects integers".into())),
            }),
            _ => {
                return Err(EvalError::Type(
                    "arithmetic on operands of different types".into(),
                ))
            }
        },
        Term::Func(func, a) => {
            let v = eval_term(a, env, interner)?;
            let wrong = || EvalError::Type(format!("wrong argument type for {}", func.name()));
            match (func, v) {
                (Func::I2f, Value::Int(i)) => Value::Float(i as f64),
                // Out-of-range conversions give 0, as MonPoly does.
                (Func::F2i, Value::Float(f)) => Value::Int(if f.is_finite() && f.abs() < 9.2e18 {
                    f.trunc() as i64
                } else if verimon {
                    return Err(EvalError::Overflow);
                } else {
                    0
                }),
                (Func::I2s, Value::Int(i)) => Value::Str(interner.intern(&i.to_string())),
                (Func::S2i, Value::Str(s)) => {
                    Value::Int(interner.resolve(s).trim().parse().unwrap_or(0))
                }
                (Func::F2s, Value::Float(f)) => {
                    Value::Str(interner.intern(&ocaml_float_to_string(f)))
                }
                (Func::S2f, Value::Str(s)) => {
                    Value::Float(interner.resolve(s).trim().parse().unwrap_or(0.0))
                }
                (
                    Func::DayOfMonth | Func::Month | Func::Year | Func::FormatDate,
                    Value::Float(t),
                ) => {
                    let (y, m, d) = civil_from_unix(t);
                    match func {
                        Func::DayOfMonth => Value::Int(d),
                        Func::Month => Value::Int(m),
                        Func::Year => Value::Int(y),
                        _ => Value::Str(interner.intern(&format!("{y:04}-{m:02}-{d:02}"))),
                    }
                }
                (Func::R2s | Func::S2r, _) => {
                    return Err(EvalError::Unsupported("regular expressions".into()))
                }
                _ => return Err(wrong()),
            }
        }
    })
}

/// The UTC calendar date of a Unix time (seconds), clamped at 2100-01-01 like MonPoly's
/// `safe_gmtime`. Howard Hinnant's days-from-civil inverse.
fn civil_from_unix(t: f64) -> (i64, i64, i64) {
    let t = if t > 4_102_444_800.0 {
        4_102_444_800.0
    } else {
        t
    };
    let days = (t / 86_400.0).floor() as i64;
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_and_conversions() {
        assert_eq!(civil_from_unix(0.0), (1970, 1, 1));
        assert_eq!(civil_from_unix(951_782_400.0), (2000, 2, 29));
        assert_eq!(ocaml_float_to_string(3.0), "3.");
        assert_eq!(ocaml_float_to_string(0.5), "0.5");
        let mut i = Interner::new();
        let none = |_: &str| None;
        let t = Term::Arith(
            ArithOp::Div,
            Box::new(Term::Int(-7)),
            Box::new(Term::Int(2)),
        );
        assert_eq!(eval_term(&t, &none, &mut i), Ok(Value::Int(-3)));
        let t = Term::Arith(
            ArithOp::Mod,
            Box::new(Term::Int(-7)),
            Box::new(Term::Int(2)),
        );
        assert_eq!(eval_term(&t, &none, &mut i), Ok(Value::Int(-1)));
        let t = Term::Arith(ArithOp::Div, Box::new(Term::Int(1)), Box::new(Term::Int(0)));
        assert_eq!(eval_term(&t, &none, &mut i), Err(EvalError::DivisionByZero));
    }

    #[test]
    fn verimon_arithmetic_is_total_where_monpoly_fails_and_fails_where_it_saturates() {
        let mut i = Interner::new();
        let none = |_: &str| None;
        let int = |v| Box::new(Term::Int(v));
        let vm = |t: &Term, i: &mut Interner| eval_term_with(Arithmetic::VeriMon, t, &none, i);
        let div = Term::Arith(ArithOp::Div, int(7), int(0));
        let rem = Term::Arith(ArithOp::Mod, int(-7), int(0));
        assert_eq!(vm(&div, &mut i), Ok(Value::Int(0)));
        assert_eq!(vm(&rem, &mut i), Ok(Value::Int(-7)));
        assert_eq!(
            eval_term(&rem, &none, &mut i),
            Err(EvalError::DivisionByZero)
        );
        // Away from zero divisors both agree (truncating division).
        let t = Term::Arith(ArithOp::Div, int(-7), int(2));
        assert_eq!(vm(&t, &mut i), Ok(Value::Int(-3)));
        let inf = Term::Func(Func::F2i, Box::new(Term::Float(f64::INFINITY)));
        assert_eq!(vm(&inf, &mut i), Err(EvalError::Overflow));
        assert_eq!(eval_term(&inf, &none, &mut i), Ok(Value::Int(0)));
        let fine = Term::Func(Func::F2i, Box::new(Term::Float(-2.7)));
        assert_eq!(vm(&fine, &mut i), Ok(Value::Int(-2)));
    }
}
