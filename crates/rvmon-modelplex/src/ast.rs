//! What a `.modelplex` file says, as parsed: names are still names (the compiler resolves
//! them to constants, columns of the trace, or quantified variables) and every node keeps its
//! place in the text, for messages and for the conjunct a violation reports.

use std::ops::Range;

/// A place in the specification's text (byte offsets).
pub type Span = Range<usize>;

/// A term of real arithmetic.
#[derive(Clone, Debug, PartialEq)]
pub enum Term {
    /// A decimal literal, as written (read exactly).
    Num(String, Span),
    /// A name: a constant, a state variable of the prior state (`x`) or of the posterior
    /// one (`x'`, `x⁺`, KeYmaera X's `xpost()`), or a quantified variable.
    Name {
        name: String,
        post: bool,
        span: Span,
    },
    /// `-t`; the span starts at the sign.
    Neg(Box<Term>, Span),
    Bin(BinOp, Box<Term>, Box<Term>),
    /// `base ^ exponent`: the exponent must be an integer constant.
    Pow(Box<Term>, Box<Term>),
    /// `abs(t)`, `min(a, b)`, `max(a, b)`.
    Call {
        func: Func,
        args: Vec<Term>,
        span: Span,
    },
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    Add,
    Sub,
    Mul,
    Div,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Func {
    Abs,
    Min,
    Max,
}

/// A comparison.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Rel {
    Lt,
    Le,
    Eq,
    Ne,
    Ge,
    Gt,
}

/// A formula of first-order real arithmetic.
#[derive(Clone, Debug, PartialEq)]
pub enum Formula {
    Bool(bool, Span),
    Cmp {
        rel: Rel,
        lhs: Term,
        rhs: Term,
        span: Span,
    },
    Not(Box<Formula>, Span),
    And(Box<Formula>, Box<Formula>),
    Or(Box<Formula>, Box<Formula>),
    Implies(Box<Formula>, Box<Formula>),
    Iff(Box<Formula>, Box<Formula>),
    Quant {
        exists: bool,
        var: String,
        body: Box<Formula>,
        span: Span,
    },
}

impl Term {
    pub fn span(&self) -> Span {
        match self {
            Term::Num(_, s)
            | Term::Name { span: s, .. }
            | Term::Call { span: s, .. }
            | Term::Neg(_, s) => s.clone(),
            Term::Bin(_, a, b) | Term::Pow(a, b) => {
                a.span().start.min(b.span().start)..b.span().end
            }
        }
    }
}

impl Formula {
    /// Where it is in the text (a conjunct's text is the monitor's report).
    pub fn span(&self) -> Span {
        match self {
            Formula::Bool(_, s)
            | Formula::Cmp { span: s, .. }
            | Formula::Not(_, s)
            | Formula::Quant { span: s, .. } => s.clone(),
            Formula::And(a, b)
            | Formula::Or(a, b)
            | Formula::Implies(a, b)
            | Formula::Iff(a, b) => a.span().start..b.span().end,
        }
    }
}

/// One monitor condition: its name (`model`, `controller`, `prediction`, or the user's) and
/// formula.
#[derive(Clone, Debug, PartialEq)]
pub struct MonitorDecl {
    pub name: String,
    pub formula: Formula,
}

/// A `.modelplex` file: constants (each a term over numbers and earlier constants) and
/// monitor conditions.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct File {
    pub consts: Vec<(String, Term, Span)>,
    pub monitors: Vec<MonitorDecl>,
}
