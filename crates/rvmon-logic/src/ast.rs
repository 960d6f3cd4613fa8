//! The abstract syntax of temporal formulas: MonPoly's MFOTL, which contains propositional MTL.

/// A byte range in the formula text.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Span {
    pub start: usize,
    pub end: usize,
}

/// One end of an interval, as written: MonPoly prints intervals back the way they were given
/// (`[0,*)`, `(1,5]`), so the bracket kind is kept, not normalised away.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    Closed(u64),
    Open(u64),
    Infinite,
}

/// A metric interval on timestamp differences.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Interval {
    pub lo: Bound,
    pub hi: Bound,
}

impl Interval {
    /// `[0,*)`, the interval of an operator written without one.
    pub const UNBOUNDED: Interval = Interval {
        lo: Bound::Closed(0),
        hi: Bound::Infinite,
    };

    pub fn closed(lo: u64, hi: Option<u64>) -> Interval {
        Interval {
            lo: Bound::Closed(lo),
            hi: hi.map_or(Bound::Infinite, Bound::Closed),
        }
    }

    /// The smallest distance in the interval (timestamps are integers, so `(a,` means `a+1`).
    pub fn min(&self) -> u64 {
        match self.lo {
            Bound::Closed(a) => a,
            Bound::Open(a) => a.saturating_add(1),
            Bound::Infinite => u64::MAX,
        }
    }

    /// The largest distance in the interval; `None` when unbounded.
    pub fn max(&self) -> Option<u64> {
        match self.hi {
            Bound::Closed(b) => Some(b),
            Bound::Open(b) => Some(b.wrapping_sub(1)).filter(|_| b > 0),
            Bound::Infinite => None,
        }
    }

    pub fn is_bounded(&self) -> bool {
        !matches!(self.hi, Bound::Infinite)
    }

    /// True when no distance satisfies the interval (e.g. `[3,2]`, `(1,2)`).
    pub fn is_empty(&self) -> bool {
        match (self.lo, self.max()) {
            (Bound::Infinite, _) => true,
            (_, None) => matches!(self.hi, Bound::Open(0)),
            (_, Some(hi)) => self.min() > hi,
        }
    }

    pub fn contains(&self, d: u64) -> bool {
        d >= self.min() && self.max().is_none_or(|hi| d <= hi)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BoolOp {
    And,
    Or,
    Implies,
    Equiv,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CmpOp {
    Eq,
    Lt,
    Le,
    Gt,
    Ge,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Quant {
    Exists,
    Forall,
}

/// Unary temporal operators. `PastAlways`/`Always` are kept (not desugared) so that formulas
/// print back as written and error messages name what the user wrote.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnaryTemporal {
    Previous,
    Next,
    Once,
    Eventually,
    PastAlways,
    Always,
}

impl UnaryTemporal {
    pub fn is_future(self) -> bool {
        matches!(
            self,
            UnaryTemporal::Next | UnaryTemporal::Eventually | UnaryTemporal::Always
        )
    }

    /// The operator that `NOT op NOT` equals: `ALWAYS` ↔ `EVENTUALLY`, `PAST_ALWAYS` ↔ `ONCE`.
    pub fn dual(self) -> Option<UnaryTemporal> {
        Some(match self {
            UnaryTemporal::Always => UnaryTemporal::Eventually,
            UnaryTemporal::Eventually => UnaryTemporal::Always,
            UnaryTemporal::PastAlways => UnaryTemporal::Once,
            UnaryTemporal::Once => UnaryTemporal::PastAlways,
            UnaryTemporal::Previous | UnaryTemporal::Next => return None,
        })
    }

    pub fn keyword(self) -> &'static str {
        match self {
            UnaryTemporal::Previous => "PREVIOUS",
            UnaryTemporal::Next => "NEXT",
            UnaryTemporal::Once => "ONCE",
            UnaryTemporal::Eventually => "EVENTUALLY",
            UnaryTemporal::PastAlways => "PAST_ALWAYS",
            UnaryTemporal::Always => "ALWAYS",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinaryTemporal {
    Since,
    Until,
}

impl BinaryTemporal {
    pub fn keyword(self) -> &'static str {
        match self {
            BinaryTemporal::Since => "SINCE",
            BinaryTemporal::Until => "UNTIL",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArithOp {
    Add,
    Sub,
    Mul,
    Div,
    Mod,
}

/// MonPoly's built-in term functions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Func {
    F2i,
    I2f,
    I2s,
    S2i,
    F2s,
    S2f,
    R2s,
    S2r,
    DayOfMonth,
    Month,
    Year,
    FormatDate,
}

impl Func {
    pub fn name(self) -> &'static str {
        match self {
            Func::F2i => "f2i",
            Func::I2f => "i2f",
            Func::I2s => "i2s",
            Func::S2i => "s2i",
            Func::F2s => "f2s",
            Func::S2f => "s2f",
            Func::R2s => "r2s",
            Func::S2r => "s2r",
            Func::DayOfMonth => "DAY_OF_MONTH",
            Func::Month => "MONTH",
            Func::Year => "YEAR",
            Func::FormatDate => "FORMAT_DATE",
        }
    }

    pub fn from_name(s: &str) -> Option<Func> {
        [
            Func::F2i,
            Func::I2f,
            Func::I2s,
            Func::S2i,
            Func::F2s,
            Func::S2f,
            Func::R2s,
            Func::S2r,
            Func::DayOfMonth,
            Func::Month,
            Func::Year,
            Func::FormatDate,
        ]
        .into_iter()
        .find(|f| f.name() == s)
    }
}

/// A term: an argument of a predicate or a side of a comparison.
#[derive(Clone, Debug, PartialEq)]
pub enum Term {
    Var(String),
    Int(i64),
    Float(f64),
    Str(String),
    /// A regular-expression constant `r"…"` (MonPoly's `regexp` type).
    Regexp(String),
    Neg(Box<Term>),
    Arith(ArithOp, Box<Term>, Box<Term>),
    Func(Func, Box<Term>),
}

impl Term {
    /// The term with each variable `v` renamed to `rename(v)` where that gives a name.
    pub fn rename_vars(&self, rename: &dyn Fn(&str) -> Option<String>) -> Term {
        match self {
            Term::Var(v) => Term::Var(rename(v).unwrap_or_else(|| v.clone())),
            Term::Neg(a) => Term::Neg(Box::new(a.rename_vars(rename))),
            Term::Func(f, a) => Term::Func(*f, Box::new(a.rename_vars(rename))),
            Term::Arith(op, a, b) => Term::Arith(
                *op,
                Box::new(a.rename_vars(rename)),
                Box::new(b.rename_vars(rename)),
            ),
            other => other.clone(),
        }
    }
}

/// MonPoly's string relations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StrOp {
    /// `t1 SUBSTRING t2`: `t1` occurs in `t2`.
    Substring,
    /// `t1 MATCHES t2 (g1, …)`: the regular expression `t2` occurs in `t1`; its groups match
    /// the optional terms (`_` for none).
    Matches,
}

/// Aggregation operators.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AggOp {
    Cnt,
    Sum,
    Min,
    Max,
    Avg,
    Med,
}

impl AggOp {
    pub fn keyword(self) -> &'static str {
        match self {
            AggOp::Cnt => "CNT",
            AggOp::Sum => "SUM",
            AggOp::Min => "MIN",
            AggOp::Max => "MAX",
            AggOp::Avg => "AVG",
            AggOp::Med => "MED",
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum FormulaKind {
    /// `TRUE` / `FALSE`.
    Bool(bool),
    Pred {
        name: String,
        args: Vec<Term>,
    },
    Cmp {
        op: CmpOp,
        lhs: Term,
        rhs: Term,
    },
    Not(Box<Formula>),
    Bool2 {
        op: BoolOp,
        lhs: Box<Formula>,
        rhs: Box<Formula>,
    },
    Quant {
        q: Quant,
        vars: Vec<String>,
        body: Box<Formula>,
    },
    Unary {
        op: UnaryTemporal,
        interval: Interval,
        body: Box<Formula>,
    },
    Binary {
        op: BinaryTemporal,
        interval: Interval,
        lhs: Box<Formula>,
        rhs: Box<Formula>,
    },
    /// `result <- OP over; group body`: for each value of the group variables, `result` is the
    /// aggregate of `over` across the body's satisfying assignments.
    Agg {
        result: String,
        op: AggOp,
        over: String,
        group: Vec<String>,
        body: Box<Formula>,
    },
    /// `t1 SUBSTRING t2`, `t1 MATCHES t2 (groups)`.
    StrRel {
        op: StrOp,
        lhs: Term,
        rhs: Term,
        groups: Vec<Option<Term>>,
    },
    /// `LET name(params) = def IN body`.
    Let {
        name: String,
        params: Vec<String>,
        def: Box<Formula>,
        body: Box<Formula>,
    },
}

#[derive(Clone, Debug, PartialEq)]
pub struct Formula {
    pub kind: FormulaKind,
    pub span: Span,
}

impl Formula {
    /// `lhs AND rhs`.
    pub fn and(lhs: Formula, rhs: Formula, span: Span) -> Formula {
        Formula::bool2(BoolOp::And, lhs, rhs, span)
    }

    /// `lhs op rhs` for a Boolean connective.
    pub fn bool2(op: BoolOp, lhs: Formula, rhs: Formula, span: Span) -> Formula {
        Formula::new(
            FormulaKind::Bool2 {
                op,
                lhs: Box::new(lhs),
                rhs: Box::new(rhs),
            },
            span,
        )
    }

    /// `NOT body`.
    pub fn not(body: Formula, span: Span) -> Formula {
        Formula::new(FormulaKind::Not(Box::new(body)), span)
    }

    /// A unary temporal operator with its interval.
    pub fn unary(op: UnaryTemporal, interval: Interval, body: Formula, span: Span) -> Formula {
        Formula::new(
            FormulaKind::Unary {
                op,
                interval,
                body: Box::new(body),
            },
            span,
        )
    }

    /// `lhs SINCE/UNTIL rhs` with its interval.
    pub fn binary(
        op: BinaryTemporal,
        interval: Interval,
        lhs: Formula,
        rhs: Formula,
        span: Span,
    ) -> Formula {
        Formula::new(
            FormulaKind::Binary {
                op,
                interval,
                lhs: Box::new(lhs),
                rhs: Box::new(rhs),
            },
            span,
        )
    }

    /// The proposition `name()`: a predicate without arguments. A bare `name` and Spot's
    /// atomic propositions are built by this too, so that every engine sees one shape.
    pub fn proposition(name: String, span: Span) -> Formula {
        Formula::new(
            FormulaKind::Pred {
                name,
                args: Vec::new(),
            },
            span,
        )
    }

    pub fn new(kind: FormulaKind, span: Span) -> Formula {
        Formula { kind, span }
    }

    /// The direct subformulas, left to right.
    pub fn children(&self) -> Vec<&Formula> {
        match &self.kind {
            FormulaKind::Bool(_)
            | FormulaKind::Pred { .. }
            | FormulaKind::Cmp { .. }
            | FormulaKind::StrRel { .. } => {
                vec![]
            }
            FormulaKind::Not(f)
            | FormulaKind::Quant { body: f, .. }
            | FormulaKind::Unary { body: f, .. }
            | FormulaKind::Agg { body: f, .. } => vec![f],
            FormulaKind::Bool2 { lhs, rhs, .. } | FormulaKind::Binary { lhs, rhs, .. } => {
                vec![lhs, rhs]
            }
            FormulaKind::Let { def, body, .. } => vec![def, body],
        }
    }
}

impl std::fmt::Display for Interval {
    /// Normalised to closed integer bounds: `[a,b]` or `[a,*)`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.max() {
            Some(b) => write!(f, "[{},{}]", self.min(), b),
            None => write!(f, "[{},*)", self.min()),
        }
    }
}

impl std::fmt::Display for Formula {
    /// A canonical, fully parenthesised rendering in MonPoly syntax: every operator application
    /// is wrapped in parentheses and intervals are closed, so other tools' syntaxes can be
    /// produced from it by replacing tokens (the benchmark harness does).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.kind {
            FormulaKind::Bool(b) => f.write_str(if *b { "TRUE" } else { "FALSE" }),
            FormulaKind::Pred { .. } | FormulaKind::Cmp { .. } | FormulaKind::StrRel { .. } => {
                f.write_str(&crate::monpoly::to_monpoly_string(self))
            }
            FormulaKind::Not(g) => write!(f, "(NOT {g})"),
            FormulaKind::Bool2 { op, lhs, rhs } => {
                let op = match op {
                    BoolOp::And => "AND",
                    BoolOp::Or => "OR",
                    BoolOp::Implies => "IMPLIES",
                    BoolOp::Equiv => "EQUIV",
                };
                write!(f, "({lhs} {op} {rhs})")
            }
            FormulaKind::Quant { q, vars, body } => {
                write!(
                    f,
                    "({} {}. {body})",
                    if *q == Quant::Exists {
                        "EXISTS"
                    } else {
                        "FORALL"
                    },
                    vars.join(", ")
                )
            }
            FormulaKind::Unary { op, interval, body } => {
                write!(f, "({}{interval} {body})", op.keyword())
            }
            FormulaKind::Binary {
                op,
                interval,
                lhs,
                rhs,
            } => write!(f, "({lhs} {}{interval} {rhs})", op.keyword()),
            FormulaKind::Agg {
                result,
                op,
                over,
                group,
                body,
            } => {
                let group = if group.is_empty() {
                    String::new()
                } else {
                    format!("; {}", group.join(","))
                };
                write!(f, "({result} <- {} {over}{group} {body})", op.keyword())
            }
            FormulaKind::Let {
                name,
                params,
                def,
                body,
            } => write!(f, "(LET {name}({}) = {def} IN {body})", params.join(",")),
        }
    }
}
