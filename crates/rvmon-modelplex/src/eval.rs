//! Evaluation of a compiled condition on one pair of states (the reference the batch
//! evaluator is tested against): each comparison by the `f64` filter, else in fixed point,
//! else with intervals (comparisons without a filter) and rationals; a quantifier by trying its
//! variable at the breakpoints of its (linear) comparisons and between them, which is exact:
//! the body's truth only changes at a breakpoint.

use std::cmp::Ordering;

use crate::ast::{BinOp, Func};
use crate::compile::{Atom, Cond, Expr, Test};
use crate::exact::{DivByZero, Exact};
use crate::filter::Lanes;
use crate::fixed::Dec;
use crate::interval::Interval;

/// One sample as the evaluator reads it: its doubles, and the decimals they stand for,
/// computed when a comparison first needs them (once a sample: the posterior of one pair is
/// the prior of the next).
#[derive(Clone, Debug, Default)]
pub struct Sample {
    pub values: Vec<f64>,
    /// Which values the caches hold: an entry is valid when its generation is this one (so
    /// that a new sample invalidates them without writing them).
    generation: u64,
    exact: Vec<(u64, Exact)>,
    dec: Vec<(u64, Option<Dec>)>,
}

impl Sample {
    /// Holds `values` (finite), forgetting the decimals of the previous ones.
    pub fn set(&mut self, values: &[f64]) {
        self.values.clear();
        self.values.extend_from_slice(values);
        self.generation += 1;
        if self.exact.len() != values.len() {
            self.exact = vec![(0, Exact::int(0)); values.len()];
            self.dec = vec![(0, None); values.len()];
        }
    }

    /// The decimal sample `i` stands for, in fixed point if it fits.
    pub fn dec(&mut self, i: usize) -> Option<Dec> {
        let entry = &mut self.dec[i];
        if entry.0 != self.generation {
            *entry = (self.generation, Dec::of_sample(self.values[i]));
        }
        entry.1
    }

    /// The decimal sample `i` stands for, exactly.
    fn exact(&mut self, i: usize) -> Exact {
        if self.exact[i].0 != self.generation {
            // (The monitor refuses samples that are not finite before evaluating.)
            let e = match self.dec(i) {
                Some(d) => d.to_exact(),
                None => Exact::of_sample(self.values[i]).unwrap_or(Exact::int(0)),
            };
            self.exact[i] = (self.generation, e);
        }
        self.exact[i].1.clone()
    }
}

/// What a condition reads: the pair of samples, the quantified variables' current values,
/// and scratch space for the passes.
pub struct Ctx<'a> {
    pub prior: &'a mut Sample,
    pub post: &'a mut Sample,
    pub bound: &'a mut [Exact],
    /// The filter's registers ([`crate::filter`]), and the fixed-point pass'.
    pub regs: &'a mut Lanes,
    pub decs: &'a mut Vec<Dec>,
}

impl Ctx<'_> {
    /// The same context, borrowed for a call.
    pub fn reborrow(&mut self) -> Ctx<'_> {
        Ctx {
            prior: self.prior,
            post: self.post,
            bound: self.bound,
            regs: self.regs,
            decs: self.decs,
        }
    }

    fn sample(&mut self, column: usize, post: bool) -> Exact {
        if post {
            self.post.exact(column)
        } else {
            self.prior.exact(column)
        }
    }
}

/// An interval around an exact number.
pub fn enclose(v: &Exact) -> Interval {
    const EXACT_INT: i128 = 1 << 53;
    let x = v.to_f64();
    let wide = Interval {
        lo: f64::MIN,
        hi: f64::MAX,
    };
    match v {
        Exact::Small(n, 1) if n.abs() < EXACT_INT => Interval::point(x),
        // Both exact doubles: their quotient is correctly rounded, within half a step.
        Exact::Small(n, d) if n.abs() < EXACT_INT && *d < EXACT_INT => Interval::around(x),
        _ => Interval::new(step(x, -4), step(x, 4)),
    }
    .unwrap_or(wide)
}

fn step(x: f64, n: i32) -> f64 {
    (0..n.abs()).fold(x, |y, _| if n < 0 { y.next_down() } else { y.next_up() })
}

/// The value of an expression that reads no state (constants, exponents).
pub fn constant(e: &Expr) -> Option<Exact> {
    let (mut none, mut a, mut b) = ([], Sample::default(), Sample::default());
    let (mut regs, mut decs) = (Lanes::default(), Vec::new());
    let mut ctx = Ctx {
        prior: &mut a,
        post: &mut b,
        bound: &mut none,
        regs: &mut regs,
        decs: &mut decs,
    };
    match e {
        _ if reads_state(e) => None,
        _ => exact(e, &mut ctx).ok(),
    }
}

fn reads_state(e: &Expr) -> bool {
    match e {
        Expr::Var { .. } | Expr::Bound(_) => true,
        Expr::Lit(..) => false,
        Expr::Neg(a) | Expr::Pow(a, _) => reads_state(a),
        Expr::Bin(_, a, b) => reads_state(a) || reads_state(b),
        Expr::Call(_, args) => args.iter().any(reads_state),
    }
}

/// Whether `c` holds; `Err` if it divides by zero on the way.
pub fn holds(c: &Cond, ctx: &mut Ctx<'_>) -> Result<bool, DivByZero> {
    match c {
        Cond::Const(b) => Ok(*b),
        Cond::Atom(a) => atom(a, ctx),
        Cond::Not(a) => Ok(!holds(a, ctx)?),
        Cond::And(cs) => {
            for c in cs {
                if !holds(c, ctx)? {
                    return Ok(false);
                }
            }
            Ok(true)
        }
        Cond::Or(cs) => {
            for c in cs {
                if holds(c, ctx)? {
                    return Ok(true);
                }
            }
            Ok(false)
        }
        Cond::Iff(a, b) => Ok(holds(a, ctx)? == holds(b, ctx)?),
        Cond::Quant {
            exists,
            slot,
            body,
            atoms,
        } => {
            for v in candidates(*slot, atoms, ctx)? {
                ctx.bound[*slot] = v;
                if holds(body, ctx)? == *exists {
                    return Ok(*exists);
                }
            }
            Ok(!*exists)
        }
    }
}

fn atom(a: &Atom, ctx: &mut Ctx<'_>) -> Result<bool, DivByZero> {
    if let Some(filter) = &a.filter {
        if let Some(b) = filter.decide(&a.test, &ctx.prior.values, &ctx.post.values, ctx.regs) {
            return Ok(b);
        }
    }
    atom_exactly(a, ctx.reborrow())
}

/// A comparison the `f64` filter left undecided: in fixed point if it can be, else with
/// intervals (for those without a filter) and rationals.
pub fn atom_exactly(a: &Atom, mut ctx: Ctx<'_>) -> Result<bool, DivByZero> {
    let ctx = &mut ctx;
    if let Some(filter) = &a.filter {
        if let Some(b) = filter.decide_fixed(&a.test, ctx.prior, ctx.post, ctx.decs) {
            return Ok(b);
        }
    } else if !a.bound {
        if let Some(b) = by_intervals(a, ctx) {
            return Ok(b);
        }
    }
    let d = exact(&a.lhs, ctx)?.sub(&exact(&a.rhs, ctx)?);
    Ok(decide(&a.test, &d))
}

/// The test on the exact difference.
pub fn decide(test: &Test, d: &Exact) -> bool {
    match test {
        Test::Le(k) => d.cmp(k) != Ordering::Greater,
        Test::Lt(k) => d.cmp(k) == Ordering::Less,
        Test::Ge(k) => d.cmp(k) != Ordering::Less,
        Test::Gt(k) => d.cmp(k) == Ordering::Greater,
        Test::Eq => d.is_zero(),
        Test::Ne => !d.is_zero(),
        Test::AbsLe(k) => d.abs().cmp(k) != Ordering::Greater,
        Test::AbsGt(k) => d.abs().cmp(k) == Ordering::Greater,
    }
}

/// The test decided by intervals, if they decide it.
fn by_intervals(a: &Atom, ctx: &Ctx<'_>) -> Option<bool> {
    let d = interval(&a.lhs, ctx)?.sub(interval(&a.rhs, ctx)?)?;
    let k = a.threshold;
    let (below, above) = (d.hi < k.lo, d.lo > k.hi);
    let (at_most, at_least) = (d.hi <= k.lo, d.lo >= k.hi);
    let abs = d.abs();
    match a.test {
        Test::Le(_) => decided(at_most, above),
        Test::Lt(_) => decided(below, at_least),
        Test::Ge(_) => decided(at_least, below),
        Test::Gt(_) => decided(above, at_most),
        Test::Eq => decided(false, below || above),
        Test::Ne => decided(below || above, false),
        Test::AbsLe(_) => decided(abs.hi <= k.lo, abs.lo > k.hi),
        Test::AbsGt(_) => decided(abs.lo > k.hi, abs.hi <= k.lo),
    }
}

fn decided(yes: bool, no: bool) -> Option<bool> {
    if yes {
        Some(true)
    } else if no {
        Some(false)
    } else {
        None
    }
}

fn interval(e: &Expr, ctx: &Ctx<'_>) -> Option<Interval> {
    match e {
        Expr::Lit(_, iv) => Some(*iv),
        Expr::Var { column, post } => {
            let sample: &Sample = if *post { ctx.post } else { ctx.prior };
            Interval::around(sample.values[*column])
        }
        Expr::Bound(_) => None,
        Expr::Neg(a) => Some(interval(a, ctx)?.neg()),
        Expr::Bin(op, a, b) => {
            let (a, b) = (interval(a, ctx)?, interval(b, ctx)?);
            match op {
                BinOp::Add => a.add(b),
                BinOp::Sub => a.sub(b),
                BinOp::Mul => a.mul(b),
                BinOp::Div => a.div(b),
            }
        }
        Expr::Pow(a, n) => u32::try_from(*n)
            .ok()
            .and_then(|n| interval(a, ctx)?.pow(n)),
        Expr::Call(f, args) => {
            let a = interval(&args[0], ctx)?;
            match f {
                Func::Abs => Some(a.abs()),
                Func::Min => Some(a.min(interval(&args[1], ctx)?)),
                Func::Max => Some(a.max(interval(&args[1], ctx)?)),
            }
        }
    }
}

/// The exact value (samples as the decimals they stand for: [`Exact::of_sample`]).
pub fn exact(e: &Expr, ctx: &mut Ctx<'_>) -> Result<Exact, DivByZero> {
    Ok(match e {
        Expr::Lit(v, _) => v.clone(),
        Expr::Var { column, post } => ctx.sample(*column, *post),
        Expr::Bound(slot) => ctx.bound[*slot].clone(),
        Expr::Neg(a) => exact(a, ctx)?.neg(),
        Expr::Bin(op, a, b) => {
            let (a, b) = (exact(a, ctx)?, exact(b, ctx)?);
            match op {
                BinOp::Add => a.add(&b),
                BinOp::Sub => a.sub(&b),
                BinOp::Mul => a.mul(&b),
                BinOp::Div => a.div(&b)?,
            }
        }
        Expr::Pow(a, n) => exact(a, ctx)?.pow(i64::from(*n))?,
        Expr::Call(f, args) => {
            let a = exact(&args[0], ctx)?;
            match f {
                Func::Abs => a.abs(),
                Func::Min => a.min(&exact(&args[1], ctx)?),
                Func::Max => a.max(&exact(&args[1], ctx)?),
            }
        }
    })
}

/// The values of slot `slot` to try: where a comparison of the body that reads it crosses
/// its threshold (each is linear in it: `c·v + d`), one value between each two such
/// points, and one beyond each end. (Divisions are by terms free of `v`, so whether the body
/// is defined does not depend on `v`.)
fn candidates(slot: usize, atoms: &[Atom], ctx: &mut Ctx<'_>) -> Result<Vec<Exact>, DivByZero> {
    let mut roots: Vec<Exact> = Vec::new();
    for a in atoms {
        ctx.bound[slot] = Exact::int(0);
        let d = exact(&a.lhs, ctx)?.sub(&exact(&a.rhs, ctx)?);
        ctx.bound[slot] = Exact::int(1);
        let c = exact(&a.lhs, ctx)?.sub(&exact(&a.rhs, ctx)?).sub(&d);
        if c.is_zero() {
            continue;
        }
        let k = a.test.threshold();
        let ks = match a.test {
            Test::AbsLe(_) | Test::AbsGt(_) => vec![k.clone(), k.neg()],
            _ => vec![k.clone()],
        };
        for k in ks {
            roots.push(k.sub(&d).div(&c)?);
        }
    }
    roots.sort_by(|a, b| a.cmp(b));
    roots.dedup_by(|a, b| a.cmp(b) == Ordering::Equal);
    let (Some(first), Some(last)) = (roots.first(), roots.last()) else {
        return Ok(vec![Exact::int(0)]);
    };
    let mut out = vec![first.sub(&Exact::int(1)), last.add(&Exact::int(1))];
    let half = Exact::Small(1, 2);
    for w in roots.windows(2) {
        out.push(w[0].add(&w[1]).mul(&half));
    }
    out.extend(roots);
    Ok(out)
}
