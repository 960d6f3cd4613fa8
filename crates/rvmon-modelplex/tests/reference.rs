//! The evaluator (intervals first, then 128-bit or big rationals, quantifiers at breakpoints)
//! against a reference written straight from the semantics: big rationals only, every
//! comparison as "some perturbation within the tolerance" (or "every", under a negation)
//! tried at the perturbations that matter, and a quantifier tried on a grid fine enough to
//! hit every breakpoint the generated conditions can have.

use num_bigint::BigInt;
use num_rational::BigRational;
use num_traits::{Signed, Zero};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};
use rvmon_modelplex::ast::{BinOp, Formula, Func, Rel, Term};
use rvmon_modelplex::{parse, ModelplexMonitor, Outcome};

const VALUES: [&str; 9] = ["0", "0.1", "0.2", "0.3", "0.5", "1", "-1", "2.5", "-0.25"];

fn dec(s: &str) -> BigRational {
    let neg = s.starts_with('-');
    let s = s.trim_start_matches('-');
    let (i, f) = s.split_once('.').unwrap_or((s, ""));
    let n: BigInt = format!("{i}{f}").parse().unwrap();
    let r = BigRational::new(n, num_traits::pow(BigInt::from(10), f.len()));
    if neg {
        -r
    } else {
        r
    }
}

/// A state: x, y (prior) and x', y' (posterior) as decimal text; T the quantified variable.
struct Env<'a> {
    vals: &'a [(&'a str, bool, BigRational)],
    t: Option<BigRational>,
}

fn term(t: &Term, env: &Env) -> BigRational {
    match t {
        Term::Num(s, _) => dec(s),
        Term::Name { name, post, .. } if name == "T" && !post => env.t.clone().unwrap(),
        Term::Name { name, post, .. } => env
            .vals
            .iter()
            .find(|(n, p, _)| n == name && p == post)
            .map(|v| v.2.clone())
            .unwrap(),
        Term::Neg(a, _) => -term(a, env),
        Term::Bin(op, a, b) => {
            let (a, b) = (term(a, env), term(b, env));
            match op {
                BinOp::Add => a + b,
                BinOp::Sub => a - b,
                BinOp::Mul => a * b,
                BinOp::Div => a / b,
            }
        }
        Term::Pow(a, _) => {
            let a = term(a, env);
            a.clone() * a
        }
        Term::Call { func, args, .. } => {
            let a = term(&args[0], env);
            match func {
                Func::Abs => a.abs(),
                Func::Min => a.min(term(&args[1], env)),
                Func::Max => a.max(term(&args[1], env)),
            }
        }
    }
}

fn rel(r: Rel, d: &BigRational) -> bool {
    let z = BigRational::zero();
    match r {
        Rel::Lt => d < &z,
        Rel::Le => d <= &z,
        Rel::Eq => d == &z,
        Rel::Ne => d != &z,
        Rel::Ge => d >= &z,
        Rel::Gt => d > &z,
    }
}

fn holds(f: &Formula, env: &mut Env, positive: bool, tau: &BigRational) -> bool {
    match f {
        Formula::Bool(b, _) => *b,
        Formula::Cmp {
            rel: r, lhs, rhs, ..
        } => {
            let d = term(lhs, env) - term(rhs, env);
            // The perturbations e in [-τ, τ] where `d + e ~ 0` can change: the ends, zero,
            // and -d (if it is inside).
            let mut es = vec![tau.clone(), -tau.clone(), BigRational::zero()];
            if (-d.clone()).abs() <= *tau {
                es.push(-d.clone());
            }
            let mut at = es.iter().map(|e| rel(*r, &(d.clone() + e)));
            if positive {
                at.any(|b| b)
            } else {
                // (Every perturbation: for `=` and `!=` the ends and -d decide.)
                at.all(|b| b)
            }
        }
        Formula::Not(a, _) => !holds(a, env, !positive, tau),
        Formula::And(a, b) => holds(a, env, positive, tau) && holds(b, env, positive, tau),
        Formula::Or(a, b) => holds(a, env, positive, tau) || holds(b, env, positive, tau),
        Formula::Implies(a, b) => !holds(a, env, !positive, tau) || holds(b, env, positive, tau),
        Formula::Iff(a, b) => {
            (!holds(a, env, !positive, tau) || holds(b, env, positive, tau))
                && (!holds(b, env, !positive, tau) || holds(a, env, positive, tau))
        }
        Formula::Quant { exists, body, .. } => {
            // Every breakpoint of the generated bodies is a multiple of 1/16 within ±20 (the
            // states are multiples of 1/8 then), so a grid of 1/32 holds them and a point
            // between each two.
            let saved = env.t.take();
            let mut result = !*exists;
            for k in -21 * 32..=21 * 32 {
                env.t = Some(BigRational::new(BigInt::from(k), BigInt::from(32)));
                if holds(body, env, positive, tau) == *exists {
                    result = *exists;
                    break;
                }
            }
            env.t = saved;
            result
        }
    }
}

fn gen_term(depth: u32) -> BoxedStrategy<String> {
    let leaf = prop_oneof![
        prop::sample::select(vec!["x", "y", "x'", "y'"]).prop_map(str::to_string),
        prop::sample::select(VALUES.to_vec()).prop_map(|v| format!("({v})")),
    ];
    if depth == 0 {
        return leaf.boxed();
    }
    let sub = || gen_term(depth - 1);
    prop_oneof![
        3 => leaf,
        1 => (sub(), prop::sample::select(vec!["+", "-", "*"]), sub())
            .prop_map(|(a, op, b)| format!("({a} {op} {b})")),
        1 => sub().prop_map(|a| format!("({a}) / (y*y + 1)")),
        1 => sub().prop_map(|a| format!("abs({a})")),
        1 => (sub(), sub()).prop_map(|(a, b)| format!("min({a}, {b})")),
        1 => (sub(), sub()).prop_map(|(a, b)| format!("max({a}, {b})")),
        1 => sub().prop_map(|a| format!("({a})^2")),
    ]
    .boxed()
}

fn gen_atom() -> BoxedStrategy<String> {
    let rels = vec!["<", "<=", "=", "!=", ">=", ">"];
    (gen_term(2), prop::sample::select(rels), gen_term(2))
        .prop_map(|(a, r, b)| format!("{a} {r} {b}"))
        .boxed()
}

/// A comparison linear in T, whose breakpoint is a multiple of 1/16 within ±20 when the
/// state's values are multiples of 1/8 ([`eighths`]).
fn gen_linear_atom() -> BoxedStrategy<String> {
    let rels = vec!["<", "<=", "=", "!=", ">=", ">"];
    (
        prop::sample::select(vec!["1", "-1", "2", "0.5", "0"]),
        prop::sample::select(vec!["x", "x'", "1", "-2.5", "0.5"]),
        prop::sample::select(rels),
        prop::sample::select(vec!["y", "y'", "0", "3", "-0.25"]),
    )
        .prop_map(|(a, b, r, c)| format!("({a})*T + {b} {r} {c}"))
        .boxed()
}

fn gen_formula(depth: u32, atom: fn() -> BoxedStrategy<String>) -> BoxedStrategy<String> {
    if depth == 0 {
        return atom();
    }
    let sub = move || gen_formula(depth - 1, atom);
    prop_oneof![
        2 => atom(),
        1 => sub().prop_map(|a| format!("!({a})")),
        1 => (sub(), prop::sample::select(vec!["&", "|", "->", "<->"]), sub())
            .prop_map(|(a, op, b)| format!("({a}) {op} ({b})")),
    ]
    .boxed()
}

fn gen_quantified() -> BoxedStrategy<String> {
    (prop::bool::ANY, gen_formula(2, gen_linear_atom))
        .prop_map(|(e, b)| format!("{} T ({b})", if e { "\\exists" } else { "\\forall" }))
        .boxed()
}

/// The monitor's verdict on the pair equals the reference's.
fn agree(text: &str, values: &[&str; 4], tolerance: Option<&str>) -> Result<(), TestCaseError> {
    let mut monitor = ModelplexMonitor::new("p.modelplex", text, tolerance)
        .map_err(|e| TestCaseError::fail(format!("{text}: {e}")))?;
    let file = parse::parse("p.modelplex", text).unwrap();
    let names = [("x", false), ("y", false), ("x", true), ("y", true)];
    let vals: Vec<(&str, bool, BigRational)> = names
        .iter()
        .zip(values)
        .map(|((n, p), v)| (*n, *p, dec(v)))
        .collect();
    let mut env = Env {
        vals: &vals,
        t: None,
    };
    let tau = tolerance.map_or(BigRational::zero(), dec);
    let expected = holds(&file.monitors[0].formula, &mut env, true, &tau);
    let pick = |post: bool| -> Vec<f64> {
        monitor
            .inputs()
            .iter()
            .map(|(n, _)| {
                let i = names
                    .iter()
                    .position(|(m, p)| m == n && *p == post)
                    .unwrap();
                values[i].parse::<f64>().unwrap()
            })
            .collect()
    };
    let (prior, post) = (pick(false), pick(true));
    let got = monitor.check(&prior, &post)[0] == Outcome::Holds;
    prop_assert_eq!(
        got,
        expected,
        "{} on x={} y={} x'={} y'={}",
        text,
        values[0],
        values[1],
        values[2],
        values[3]
    );
    Ok(())
}

fn runner(cases: u32) -> TestRunner {
    let config = Config {
        cases,
        failure_persistence: None,
        ..Config::default()
    };
    TestRunner::new_with_rng(config, TestRng::from_seed(RngAlgorithm::ChaCha, &[35; 32]))
}

fn state() -> impl Strategy<Value = [&'static str; 4]> {
    prop::array::uniform4(prop::sample::select(VALUES.to_vec()))
}

/// Values of every size too: the filter's error bounds and the fixed-point pass' overflow
/// to rationals are tried on them.
fn wide_state() -> impl Strategy<Value = [&'static str; 4]> {
    let mut values = VALUES.to_vec();
    values.extend([
        "1000000000000000",
        "-0.000000001",
        "123456.789",
        "0.3333333333333333",
        "99999999.99",
    ]);
    prop::array::uniform4(prop::sample::select(values))
}

fn eighths() -> impl Strategy<Value = [&'static str; 4]> {
    prop::array::uniform4(prop::sample::select(vec![
        "0", "0.5", "1", "-1", "2.5", "-0.25", "0.125",
    ]))
}

#[test]
fn quantifier_free_conditions_agree_with_the_reference() {
    runner(600)
        .run(&(gen_formula(3, gen_atom), state()), |(f, v)| {
            agree(&f, &v, None)
        })
        .unwrap();
}

#[test]
fn tolerances_agree_with_the_reference() {
    let tau = prop::sample::select(vec!["0.1", "0.25", "1"]);
    runner(400)
        .run(&(gen_formula(3, gen_atom), state(), tau), |(f, v, t)| {
            agree(&f, &v, Some(t))
        })
        .unwrap();
}

#[test]
fn quantifiers_agree_with_the_reference() {
    runner(200)
        .run(&(gen_quantified(), eighths()), |(f, v)| agree(&f, &v, None))
        .unwrap();
}

/// A term that may divide by zero (`y` is often 0): undefined conjuncts, in any order.
fn gen_dividing_atom() -> BoxedStrategy<String> {
    (gen_atom(), prop::bool::ANY)
        .prop_map(|(a, div)| if div { format!("x / y <= 1 | {a}") } else { a })
        .boxed()
}

/// A run fed in batches (the monitor's batch evaluator: the filter over all pairs at once)
/// reports exactly the pairs, monitors and conjuncts that the one-pair evaluator finds.
#[test]
fn batches_agree_with_one_pair_at_a_time() {
    let rows = prop::collection::vec(wide_state(), 1..40);
    let batch = 1usize..9;
    let formulas = prop_oneof![gen_formula(3, gen_dividing_atom), gen_quantified()];
    runner(300)
        .run(&(formulas, rows, batch), |(f, rows, batch)| {
            let rows: Vec<[f64; 2]> = rows
                .iter()
                .map(|r| [r[0].parse().unwrap(), r[1].parse().unwrap()])
                .collect();
            batches_agree(&f, &rows, batch)
        })
        .unwrap();
}

/// The same for equalities that hold on every pair, as a model's `x' = x + f'·t'` does on a
/// compliant run (the lane-wise fixed-point pass decides them in a batch): decimals of up to
/// 8 digits, some with more or large enough to overflow 64 bits at their column's scale,
/// which leave their lanes to the one-pair passes.
#[test]
fn equalities_that_hold_agree_in_batches() {
    const CONDITIONS: [&str; 6] = [
        "x' = x + y'*y'",
        "x' - y'*y' = x",
        "abs(x' - x - y'*y') <= 0",
        "x' != x + y'*y' | y' = y",
        "min(x', x) <= x + y'*y' & -x' + x + y'*y' = 0",
        "x' = x + y' * y' & y' * 3 = y' + y' + y'",
    ];
    // y as a whole number of 10^-8, x of 10^-16: x' = x + y'² exactly, printed in full
    // (the double read from it stands for its own shortest decimal, which both evaluators
    // use).
    let y = prop::sample::select(vec![
        0i128,
        1,
        25_000_000,
        -100_000_000,
        12_345_678_900,
        3_333_333_333,
        7,
        99_999_999_999_999,
    ]);
    let ys = prop::collection::vec(y, 1..60);
    let text = |n: i128, scale: u32| {
        let p = 10i128.pow(scale);
        let (neg, a) = (n < 0, n.unsigned_abs());
        let frac = format!("{:0w$}", a % p as u128, w = scale as usize);
        let s = format!("{}{}.{}", if neg { "-" } else { "" }, a / p as u128, frac);
        s.parse::<f64>().unwrap()
    };
    runner(200)
        .run(
            &(prop::sample::select(CONDITIONS.to_vec()), ys, 1usize..9),
            |(f, ys, batch)| {
                let mut x = 5 * 10i128.pow(16);
                let rows: Vec<[f64; 2]> = ys
                    .iter()
                    .map(|&y| {
                        x += y * y;
                        [text(x, 16), text(y, 8)]
                    })
                    .collect();
                batches_agree(f, &rows, batch)
            },
        )
        .unwrap();
}

/// Monitors `a: f` and `b: x' >= x & f` over `rows` (x, y), fed in batches of `batch`,
/// report what the one-pair evaluator reports.
fn batches_agree(f: &str, rows: &[[f64; 2]], batch: usize) -> Result<(), TestCaseError> {
    use rvmon_core::event::{Event, Val};
    use rvmon_core::{Collect, Interner, Monitor};
    let text = format!("monitor a: {f}\nmonitor b: x' >= x & {f}");
    let mut fed = ModelplexMonitor::new("b.modelplex", &text, None).unwrap();
    let mut one = ModelplexMonitor::new("b.modelplex", &text, None).unwrap();
    let names: Vec<String> = fed.inputs().into_iter().map(|i| i.0).collect();
    let values = |r: &[f64; 2]| -> Vec<f64> {
        names
            .iter()
            .map(|n| r[["x", "y"].iter().position(|m| m == n).unwrap()])
            .collect()
    };
    let events: Vec<Event> = rows
        .iter()
        .enumerate()
        .map(|(i, r)| Event {
            time: i as i64,
            values: values(r).into_iter().map(|x| Some(Val::Float(x))).collect(),
        })
        .collect();
    let (mut interner, mut sink) = (Interner::new(), Collect::default());
    for chunk in events.chunks(batch) {
        fed.feed(chunk, &mut interner, &mut sink).unwrap();
    }
    let got: Vec<Vec<String>> = sink.decisions.iter().map(|d| d.3.clone()).collect();
    let mut expected = Vec::new();
    for j in 1..rows.len() {
        let outcomes = one.check(&values(&rows[j - 1]), &values(&rows[j])).to_vec();
        for (m, o) in ["a", "b"].iter().zip(outcomes) {
            if let Outcome::Fails { conjunct, .. } = o {
                expected.push(vec![
                    m.to_string(),
                    conjunct.to_string(),
                    (j - 1).to_string(),
                ]);
            }
        }
    }
    prop_assert_eq!(got, expected, "{}", text);
    Ok(())
}
