//! From a parsed `.modelplex` file to what the evaluator runs: names resolved (constants
//! folded to exact values, state variables to trace columns, quantified variables to slots),
//! comparisons as `lhs - rhs` against a threshold (where a tolerance loosens or tightens
//! them by polarity), implications and equivalences to `¬ ∨ ∧`, quantifiers bound by an
//! equation substituted away, and each monitor cut into its top-level conjuncts, which a
//! violation names.

use rvmon_core::Error;

use crate::ast::{BinOp, File, Formula, Func, Rel, Span, Term};
use crate::exact::Exact;
use crate::interval::Interval;
use crate::subst;

/// A term, resolved.
#[derive(Clone, Debug)]
pub enum Expr {
    /// A number or a constant, exactly, and an interval around it.
    Lit(Exact, Interval),
    /// A trace column of the prior (`post == false`) or posterior state.
    Var {
        column: usize,
        post: bool,
    },
    /// A quantified variable's slot.
    Bound(usize),
    Neg(Box<Expr>),
    Bin(BinOp, Box<Expr>, Box<Expr>),
    Pow(Box<Expr>, i32),
    Call(Func, Vec<Expr>),
}

/// What a comparison's difference `d = lhs - rhs` is tested against. A tolerance `τ` turns
/// an atom under an even number of negations into "holds for some perturbation of `d` by at
/// most `τ`" and one under an odd number into "for every one": so a pair is a violation
/// only if it is one by more than `τ`. Without a tolerance the thresholds are zero.
#[derive(Clone, Debug)]
pub enum Test {
    Le(Exact),
    Lt(Exact),
    Ge(Exact),
    Gt(Exact),
    Eq,
    Ne,
    /// `|d| <= k`.
    AbsLe(Exact),
    /// `|d| > k`.
    AbsGt(Exact),
}

impl Test {
    /// What `d` is compared with (`|d|` for the absolute tests).
    pub fn threshold(&self) -> &Exact {
        static ZERO: Exact = Exact::Small(0, 1);
        match self {
            Test::Le(k)
            | Test::Lt(k)
            | Test::Ge(k)
            | Test::Gt(k)
            | Test::AbsLe(k)
            | Test::AbsGt(k) => k,
            Test::Eq | Test::Ne => &ZERO,
        }
    }
}

/// A comparison, resolved.
#[derive(Clone, Debug)]
pub struct Atom {
    pub lhs: Expr,
    pub rhs: Expr,
    pub test: Test,
    /// An interval around the test's threshold (zero without a tolerance).
    pub threshold: Interval,
    /// Whether it reads a quantified variable (then it is decided exactly, no interval pass).
    pub bound: bool,
    /// The `f64` filter that decides it first, when it reads no quantified variable.
    pub filter: Option<crate::filter::Program>,
}

/// A condition, resolved: `¬`, `→`, `↔` are gone (pushed into the atoms' tests where a
/// tolerance needs polarity, or kept as `Not` where it does not matter).
#[derive(Clone, Debug)]
pub enum Cond {
    Const(bool),
    Atom(Box<Atom>),
    Not(Box<Cond>),
    And(Vec<Cond>),
    Or(Vec<Cond>),
    /// `a ↔ b` without a tolerance (with one, each side is needed at both polarities, and
    /// it is `(¬a ∨ b) ∧ (¬b ∨ a)`).
    Iff(Box<Cond>, Box<Cond>),
    /// `∃v`/`∀v` over a body linear in `v`: decided by trying `v` at the body's breakpoints
    /// and between them ([`crate::eval`]).
    Quant {
        exists: bool,
        slot: usize,
        body: Box<Cond>,
        /// The atoms of the body that read `v` (their breakpoints are the candidates).
        atoms: Vec<Atom>,
    },
}

/// One top-level conjunct: its text (what a violation reports) and condition.
#[derive(Clone, Debug)]
pub struct Conjunct {
    pub text: String,
    pub cond: Cond,
}

/// One monitor: its name and conjuncts.
#[derive(Clone, Debug)]
pub struct CompiledMonitor {
    pub name: String,
    pub conjuncts: Vec<Conjunct>,
}

/// A whole file, compiled.
#[derive(Clone, Debug)]
pub struct Program {
    pub monitors: Vec<CompiledMonitor>,
    /// The trace columns the conditions read, in order of first use.
    pub signals: Vec<String>,
    /// How many quantified-variable slots evaluation needs.
    pub slots: usize,
    /// The tolerance, if one was asked (zero: exact comparisons).
    pub tolerance: Exact,
}

/// Compiles `file` (whose text is `text`, named `name`) with comparisons loosened by
/// `tolerance` (zero: exact).
pub fn compile(name: &str, text: &str, file: &File, tolerance: Exact) -> Result<Program, Error> {
    let mut c = Compiler {
        name,
        text,
        consts: Vec::new(),
        signals: Vec::new(),
        scope: Vec::new(),
        slots: 0,
        tolerance: tolerance.clone(),
        nodes: 0,
    };
    for (cname, term, span) in &file.consts {
        if c.consts.iter().any(|(n, _)| n == cname) {
            return Err(c.error(span.start, format!("constant `{cname}` is declared twice")));
        }
        let value = c.constant(term)?;
        c.consts.push((cname.clone(), value));
    }
    let mut monitors = Vec::new();
    for m in &file.monitors {
        let mut whole = with_witnesses(&m.formula);
        if c.tolerance.is_zero() {
            whole = subst::eliminate(whole);
        }
        let mut conjuncts = Vec::new();
        for (assumption, part) in top_conjuncts(&whole) {
            let mut piece = part.clone();
            let mut text = c.text[part.span()].to_string();
            if let Some(a) = assumption {
                text = format!("{text} (assuming {})", &c.text[a.span()]);
                piece = Formula::Implies(Box::new(a.clone()), Box::new(piece));
            }
            conjuncts.push(Conjunct {
                text,
                cond: c.formula(&piece, true)?,
            });
        }
        monitors.push(CompiledMonitor {
            name: m.name.clone(),
            conjuncts,
        });
    }
    Ok(Program {
        monitors,
        signals: c.signals,
        slots: c.slots,
        tolerance,
    })
}

/// KeYmaera X's witnesses (`fpost_0()`: a name ending in `post_` and digits, free in the
/// condition) are existentially quantified over the whole condition.
fn with_witnesses(f: &Formula) -> Formula {
    let mut names = Vec::new();
    free_witnesses(f, &mut Vec::new(), &mut names);
    names
        .into_iter()
        .rev()
        .fold(f.clone(), |out, w| exists_around(&w, out))
}

/// `∃w f`, the quantifier pushed in past the parts of `f` that do not read `w` (an
/// assumption, the other side of a conjunction), so that an equation can bind it.
fn exists_around(w: &str, f: Formula) -> Formula {
    let reads = |g: &Formula| {
        let mut found = false;
        free_witnesses_named(g, w, &mut found);
        found
    };
    match f {
        Formula::Implies(a, b) if !reads(&a) => Formula::Implies(a, Box::new(exists_around(w, *b))),
        Formula::And(a, b) if !reads(&a) => Formula::And(a, Box::new(exists_around(w, *b))),
        Formula::And(a, b) if !reads(&b) => Formula::And(Box::new(exists_around(w, *a)), b),
        f => {
            let span = f.span();
            Formula::Quant {
                exists: true,
                var: w.to_string(),
                body: Box::new(f),
                span,
            }
        }
    }
}

fn free_witnesses_named(f: &Formula, w: &str, found: &mut bool) {
    let mut names = Vec::new();
    free_witnesses(f, &mut Vec::new(), &mut names);
    *found |= names.iter().any(|n| n == w);
}

fn is_witness(name: &str) -> bool {
    name.rsplit_once("post_").is_some_and(|(stem, digits)| {
        !stem.is_empty() && !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
    })
}

fn free_witnesses(f: &Formula, bound: &mut Vec<String>, out: &mut Vec<String>) {
    match f {
        Formula::Bool(..) => {}
        Formula::Cmp { lhs, rhs, .. } => {
            for t in [lhs, rhs] {
                term_names(t, &mut |n| {
                    if is_witness(n) && !bound.iter().any(|b| b == n) && !out.iter().any(|o| o == n)
                    {
                        out.push(n.to_string());
                    }
                });
            }
        }
        Formula::Not(a, _) => free_witnesses(a, bound, out),
        Formula::And(a, b) | Formula::Or(a, b) | Formula::Implies(a, b) | Formula::Iff(a, b) => {
            free_witnesses(a, bound, out);
            free_witnesses(b, bound, out);
        }
        Formula::Quant { var, body, .. } => {
            bound.push(var.clone());
            free_witnesses(body, bound, out);
            bound.pop();
        }
    }
}

fn term_names(t: &Term, f: &mut dyn FnMut(&str)) {
    match t {
        Term::Num(..) => {}
        Term::Name { name, .. } => f(name),
        Term::Neg(a, _) => term_names(a, f),
        Term::Bin(_, a, b) | Term::Pow(a, b) => {
            term_names(a, f);
            term_names(b, f);
        }
        Term::Call { args, .. } => args.iter().for_each(|a| term_names(a, f)),
    }
}

/// The top-level conjuncts of a condition, each with the assumption it is under: `a & b`
/// gives `a`, `b`; `p -> (a & b)` gives `a` and `b`, both assuming `p`.
fn top_conjuncts(f: &Formula) -> Vec<(Option<&Formula>, &Formula)> {
    fn split<'f>(f: &'f Formula, out: &mut Vec<&'f Formula>) {
        match f {
            Formula::And(a, b) => {
                split(a, out);
                split(b, out);
            }
            other => out.push(other),
        }
    }
    let mut parts = Vec::new();
    match f {
        Formula::Implies(p, q) => {
            split(q, &mut parts);
            if parts.len() > 1 {
                return parts.into_iter().map(|c| (Some(&**p), c)).collect();
            }
            return vec![(None, f)];
        }
        _ => split(f, &mut parts),
    }
    parts.into_iter().map(|c| (None, c)).collect()
}

struct Compiler<'a> {
    name: &'a str,
    text: &'a str,
    consts: Vec<(String, Exact)>,
    signals: Vec<String>,
    /// Quantified variables in scope, innermost last, with their slots.
    scope: Vec<(String, usize)>,
    slots: usize,
    tolerance: Exact,
    /// Nodes compiled so far (a condition's `<->` under a tolerance, and substitutions,
    /// copy subformulas: the total is bounded).
    nodes: usize,
}

/// How many nodes a file may compile to.
const MAX_NODES: usize = 200_000;

impl Compiler<'_> {
    /// Counts a node; an error once the file is too large.
    fn node(&mut self, at: usize) -> Result<(), Error> {
        self.nodes += 1;
        if self.nodes > MAX_NODES {
            return Err(self.error(
                at,
                format!("the conditions are too large once expanded (more than {MAX_NODES} nodes)"),
            ));
        }
        Ok(())
    }

    fn error(&self, at: usize, message: String) -> Error {
        Error::at_offset(self.name, self.text, at, message)
    }

    /// A constant's value: a term over numbers and earlier constants.
    fn constant(&mut self, t: &Term) -> Result<Exact, Error> {
        let e = self.term(t)?;
        if size(&e) > MAX_SIZE {
            return Err(self.error(
                t.span().start,
                format!("this constant is larger than {MAX_SIZE} 64-bit words"),
            ));
        }
        crate::eval::constant(&e).ok_or_else(|| {
            self.error(
                t.span().start,
                "a constant's value is a term over numbers and earlier constants, defined \
                 (no division by zero)"
                    .into(),
            )
        })
    }

    fn formula(&mut self, f: &Formula, positive: bool) -> Result<Cond, Error> {
        self.node(f.span().start)?;
        Ok(match f {
            Formula::Bool(b, _) => Cond::Const(*b),
            Formula::Cmp {
                rel,
                lhs,
                rhs,
                span,
            } => {
                let (lhs, rhs) = (self.term(lhs)?, self.term(rhs)?);
                if size(&lhs).max(size(&rhs)) > MAX_SIZE {
                    return Err(self.error(
                        span.start,
                        format!(
                            "this comparison multiplies more than {MAX_SIZE} factors together                              (counting powers): exact arithmetic on it would have no bound"
                        ),
                    ));
                }
                let Some(test) = self.test(*rel, positive) else {
                    // (`x != y` loosened, `x = y` tightened, by a tolerance: decided.)
                    return Ok(Cond::Const(*rel == Rel::Ne));
                };
                let bound = reads_bound(&lhs) || reads_bound(&rhs);
                let threshold = crate::eval::enclose(test.threshold());
                let filter = (!bound)
                    .then(|| crate::filter::Program::new(&lhs, &rhs, &test))
                    .flatten();
                Cond::Atom(Box::new(Atom {
                    lhs,
                    rhs,
                    test,
                    threshold,
                    bound,
                    filter,
                }))
            }
            Formula::Not(a, _) => Cond::Not(Box::new(self.formula(a, !positive)?)),
            Formula::And(a, b) => {
                Cond::And(vec![self.formula(a, positive)?, self.formula(b, positive)?])
            }
            Formula::Or(a, b) => {
                Cond::Or(vec![self.formula(a, positive)?, self.formula(b, positive)?])
            }
            Formula::Implies(a, b) => Cond::Or(vec![
                Cond::Not(Box::new(self.formula(a, !positive)?)),
                self.formula(b, positive)?,
            ]),
            Formula::Iff(a, b) if self.tolerance.is_zero() => Cond::Iff(
                Box::new(self.formula(a, positive)?),
                Box::new(self.formula(b, positive)?),
            ),
            Formula::Iff(a, b) => {
                let one = Formula::Implies(a.clone(), b.clone());
                let other = Formula::Implies(b.clone(), a.clone());
                Cond::And(vec![
                    self.formula(&one, positive)?,
                    self.formula(&other, positive)?,
                ])
            }
            Formula::Quant {
                exists,
                var,
                body,
                span,
            } => self.quantifier(*exists, var, body, span, positive)?,
        })
    }

    /// The test of `rel` at this polarity (see [`Test`]); `None` when the tolerance decides
    /// it: `x != y` holds for some perturbation, `x = y` fails for some.
    fn test(&self, rel: Rel, positive: bool) -> Option<Test> {
        let tau = &self.tolerance;
        if tau.is_zero() {
            return Some(match rel {
                Rel::Le => Test::Le(Exact::int(0)),
                Rel::Lt => Test::Lt(Exact::int(0)),
                Rel::Ge => Test::Ge(Exact::int(0)),
                Rel::Gt => Test::Gt(Exact::int(0)),
                Rel::Eq => Test::Eq,
                Rel::Ne => Test::Ne,
            });
        }
        // Some perturbation (positive): the threshold moves away by τ; every one: toward.
        let (up, down) = if positive {
            (tau.clone(), tau.neg())
        } else {
            (tau.neg(), tau.clone())
        };
        Some(match (rel, positive) {
            (Rel::Le, _) => Test::Le(up),
            (Rel::Lt, _) => Test::Lt(up),
            (Rel::Ge, _) => Test::Ge(down),
            (Rel::Gt, _) => Test::Gt(down),
            (Rel::Eq, true) => Test::AbsLe(tau.clone()),
            (Rel::Ne, false) => Test::AbsGt(tau.clone()),
            (Rel::Eq, false) | (Rel::Ne, true) => return None,
        })
    }

    fn quantifier(
        &mut self,
        exists: bool,
        var: &str,
        body: &Formula,
        span: &Span,
        positive: bool,
    ) -> Result<Cond, Error> {
        let slot = self.slots;
        self.slots += 1;
        self.scope.push((var.to_string(), slot));
        let body = self.formula(body, positive);
        self.scope.pop();
        let body = body?;
        let mut atoms = Vec::new();
        let mut why = None;
        linear_atoms(&body, slot, &mut atoms, &mut why);
        if let Some(why) = why {
            return Err(self.error(
                span.start,
                format!(
                    "rvmon decides a quantifier over `{var}` when its condition is linear in \
                     `{var}` or binds it by an equation `{var} = …`: {why}"
                ),
            ));
        }
        Ok(Cond::Quant {
            exists,
            slot,
            body: Box::new(body),
            atoms,
        })
    }

    fn term(&mut self, t: &Term) -> Result<Expr, Error> {
        self.node(t.span().start)?;
        Ok(match t {
            Term::Num(text, span) => {
                let v = Exact::parse_decimal(text)
                    .ok_or_else(|| self.error(span.start, format!("`{text}` is not a number")))?;
                literal(v)
            }
            Term::Name { name, post, span } => self.name(name, *post, span)?,
            Term::Neg(a, _) => Expr::Neg(Box::new(self.term(a)?)),
            Term::Bin(op, a, b) => Expr::Bin(*op, Box::new(self.term(a)?), Box::new(self.term(b)?)),
            Term::Pow(a, b) => {
                let base = self.term(a)?;
                let exp = self.term(b)?;
                let n = crate::eval::constant(&exp)
                    .filter(
                        |e| matches!(e, Exact::Small(n, d) if n % d == 0 && (n / d).abs() <= 64),
                    )
                    .and_then(|e| match e {
                        Exact::Small(n, d) => i32::try_from(n / d).ok(),
                        Exact::Big(_) => None,
                    })
                    .ok_or_else(|| {
                        self.error(
                            b.span().start,
                            "an exponent is an integer constant between -64 and 64".into(),
                        )
                    })?;
                Expr::Pow(Box::new(base), n)
            }
            Term::Call { func, args, .. } => Expr::Call(
                *func,
                args.iter()
                    .map(|a| self.term(a))
                    .collect::<Result<_, _>>()?,
            ),
        })
    }

    fn name(&mut self, name: &str, post: bool, span: &Span) -> Result<Expr, Error> {
        if let Some((_, slot)) = self.scope.iter().rev().find(|(n, _)| n == name) {
            if post {
                return Err(self.error(
                    span.start,
                    format!("`{name}` is a quantified variable: it has no posterior value"),
                ));
            }
            return Ok(Expr::Bound(*slot));
        }
        if let Some((_, v)) = self.consts.iter().find(|(n, _)| n == name) {
            if post {
                return Err(self.error(
                    span.start,
                    format!("`{name}` is a constant: it has no posterior value"),
                ));
            }
            return Ok(literal(v.clone()));
        }
        let column = match self.signals.iter().position(|s| s == name) {
            Some(i) => i,
            None => {
                self.signals.push(name.to_string());
                self.signals.len() - 1
            }
        };
        Ok(Expr::Var { column, post })
    }
}

/// How many factors a term may multiply (powers counted): with it, an exact value has at
/// most that many times the bits of the largest number read.
const MAX_SIZE: u64 = 128;

/// The factors `e` multiplies at most (each variable one, each number its 64-bit words; a
/// power its exponent times).
fn size(e: &Expr) -> u64 {
    match e {
        Expr::Lit(v, _) => v.words(),
        Expr::Var { .. } | Expr::Bound(_) => 1,
        Expr::Neg(a) => size(a),
        Expr::Bin(BinOp::Add | BinOp::Sub, a, b) => size(a).max(size(b)),
        Expr::Bin(BinOp::Mul | BinOp::Div, a, b) => size(a).saturating_add(size(b)),
        Expr::Pow(a, n) => size(a).saturating_mul(u64::from(n.unsigned_abs())),
        Expr::Call(_, args) => args.iter().map(size).max().unwrap_or(1),
    }
}

/// A number as an expression: exactly, and an interval around it.
pub fn literal(v: Exact) -> Expr {
    let iv = crate::eval::enclose(&v);
    Expr::Lit(v, iv)
}

fn reads_bound(e: &Expr) -> bool {
    match e {
        Expr::Bound(_) => true,
        Expr::Lit(..) | Expr::Var { .. } => false,
        Expr::Neg(a) | Expr::Pow(a, _) => reads_bound(a),
        Expr::Bin(_, a, b) => reads_bound(a) || reads_bound(b),
        Expr::Call(_, args) => args.iter().any(reads_bound),
    }
}

/// The degree of `e` in slot `v`: `Some(0)` free of it, `Some(1)` linear; `None` when it
/// is neither (a product of two terms that read it, a division by one, `abs`…).
pub fn degree(e: &Expr, v: usize) -> Option<u32> {
    Some(match e {
        Expr::Bound(s) => u32::from(*s == v),
        Expr::Lit(..) | Expr::Var { .. } => 0,
        Expr::Neg(a) => degree(a, v)?,
        Expr::Bin(BinOp::Add | BinOp::Sub, a, b) => degree(a, v)?.max(degree(b, v)?),
        Expr::Bin(BinOp::Mul, a, b) => degree(a, v)? + degree(b, v)?,
        Expr::Bin(BinOp::Div, a, b) if degree(b, v)? == 0 => degree(a, v)?,
        Expr::Pow(a, n) if *n >= 0 => degree(a, v)?.checked_mul(*n as u32)?,
        Expr::Pow(a, _) if degree(a, v)? == 0 => 0,
        Expr::Call(_, args) if args.iter().all(|a| degree(a, v) == Some(0)) => 0,
        _ => return None,
    })
}

/// The atoms of `c` that read slot `v`, each checked linear in it; `why` says what is not.
fn linear_atoms(c: &Cond, v: usize, out: &mut Vec<Atom>, why: &mut Option<String>) {
    match c {
        Cond::Const(_) => {}
        Cond::Atom(a) => {
            let d = degree(&a.lhs, v)
                .zip(degree(&a.rhs, v))
                .map(|(x, y)| x.max(y));
            match d {
                Some(0) => {}
                Some(1) => out.push((**a).clone()),
                _ => *why = Some("a comparison in it is not linear in it".into()),
            }
        }
        Cond::Not(a) => linear_atoms(a, v, out, why),
        Cond::And(cs) | Cond::Or(cs) => cs.iter().for_each(|c| linear_atoms(c, v, out, why)),
        Cond::Iff(a, b) => {
            linear_atoms(a, v, out, why);
            linear_atoms(b, v, out, why);
        }
        Cond::Quant { body, .. } => {
            let mut inner = Vec::new();
            linear_atoms(body, v, &mut inner, why);
            if !inner.is_empty() {
                *why = Some("a quantifier inside it reads it".into());
            }
        }
    }
}
