//! The syntax tree of a stream specification.

/// Byte range in the specification text.
pub type Span = (usize, usize);

pub use rvmon_core::event::ValType as Type;

#[derive(Clone, Debug, PartialEq)]
pub enum Lit {
    Bool(bool),
    /// An integer literal; its type comes from the context (`Int`, `UInt` or `Float`).
    Int(i64),
    Float(f64),
    Str(String),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UnOp {
    Neg,
    Not,
    /// `~`: Booleans' negation, integers' bitwise complement.
    BitNot,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinOp {
    Implies,
    Or,
    And,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    Add,
    Sub,
    Mul,
    Div,
    Rem,
    Pow,
    /// `&`, `|` (also on Booleans), `^`, `<<`, `>>` (on integers).
    BitAnd,
    BitOr,
    BitXor,
    Shl,
    Shr,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Expr {
    pub kind: ExprKind,
    pub span: Span,
}

#[derive(Clone, Debug, PartialEq)]
pub enum ExprKind {
    Lit(Lit),
    /// Synchronous access: the stream's value at this evaluation.
    Stream(String),
    /// `s.offset(by: k)` or `s[k]`: the stream's k-th value from the current one in its own
    /// history (k < 0 past, k > 0 future); absent when there is none.
    Offset {
        stream: String,
        by: i64,
    },
    /// `s.hold()`: the stream's latest value; absent before the first.
    Hold(String),
    /// `s.get()`: the stream's value if it has one at this event.
    Get(String),
    /// `s.is_fresh()`: whether the stream has a value at this event.
    IsFresh(String),
    /// `e.defaults(to: d)`: `e`, or `d` where `e` is absent.
    Default(Box<Expr>, Box<Expr>),
    Unary(UnOp, Box<Expr>),
    Binary(BinOp, Box<Expr>, Box<Expr>),
    Ite(Box<Expr>, Box<Expr>, Box<Expr>),
    /// A built-in function (`min`, `max`, `abs`, `sqrt`, …).
    Call(String, Vec<Expr>),
    /// `cast<From, To>(e)`.
    Cast(Type, Box<Expr>),
    /// `"… {{}} …".format(args)`.
    Format(String, Vec<Expr>),
    /// `s.aggregate(over: d, using: op)` and its discrete and exact forms: `op` over the
    /// stream's values in the window that ends at the current evaluation.
    Window(Box<Window>),
    /// An access to one instance of a parameterized stream: `s(e1, …)`, `s(e).hold()`, ….
    Instance {
        stream: String,
        args: Vec<Expr>,
        access: InstanceAccess,
    },
}

/// How an instance is read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InstanceAccess {
    Sync,
    Offset(i64),
    Hold,
    Get,
    Fresh,
}

/// A sliding window over one stream (RTLola's `aggregate`).
#[derive(Clone, Debug, PartialEq)]
pub struct Window {
    pub stream: String,
    /// For a window over one instance of a parameterized stream: its parameters.
    pub args: Vec<Expr>,
    pub size: WindowSize,
    pub op: Aggregation,
    /// `over_exactly`: no value until a whole window of time has passed.
    pub exact: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WindowSize {
    /// A duration, in seconds.
    Time(Ratio),
    /// The last `n` values (`over_discrete: n`).
    Discrete(u64),
}

/// RTLola's window aggregations (`using:`), with their symbols.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Aggregation {
    Sum,
    Count,
    Min,
    Max,
    Avg,
    Integral,
    Last,
    Forall,
    Exists,
}

impl Aggregation {
    /// The aggregation a `using:` name or symbol stands for.
    pub fn named(name: &str) -> Option<Aggregation> {
        use Aggregation::*;
        Some(match name {
            "sum" | "Σ" => Sum,
            "count" | "#" => Count,
            "min" => Min,
            "max" => Max,
            "avg" | "average" => Avg,
            "integral" | "∫" => Integral,
            "last" => Last,
            "forall" | "∀" | "conjunction" => Forall,
            "exists" | "∃" | "disjunction" => Exists,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        use Aggregation::*;
        match self {
            Sum => "sum",
            Count => "count",
            Min => "min",
            Max => "max",
            Avg => "avg",
            Integral => "integral",
            Last => "last",
            Forall => "forall",
            Exists => "exists",
        }
    }
}

/// An exact positive rational (RTLola keeps durations and frequencies as fractions, so
/// `3Hz` is a period of exactly 1/3 s).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Ratio {
    pub num: i64,
    pub den: i64,
}

impl Ratio {
    /// `num / den` in lowest terms (`den > 0`).
    pub fn new(num: i64, den: i64) -> Ratio {
        fn gcd(a: i64, b: i64) -> i64 {
            if b == 0 {
                a.abs()
            } else {
                gcd(b, a % b)
            }
        }
        let g = gcd(num, den).max(1);
        let s = if den < 0 { -1 } else { 1 };
        Ratio {
            num: s * num / g,
            den: s * den / g,
        }
    }

    /// `self · k`, `None` on overflow.
    pub fn times(self, k: Ratio) -> Option<Ratio> {
        let num = (self.num as i128) * (k.num as i128);
        let den = (self.den as i128) * (k.den as i128);
        let g = {
            let (mut a, mut b) = (num.abs(), den.abs());
            while b != 0 {
                (a, b) = (b, a % b);
            }
            a.max(1)
        };
        Some(Ratio {
            num: i64::try_from(num / g).ok()?,
            den: i64::try_from(den / g).ok()?,
        })
    }

    pub fn recip(self) -> Ratio {
        Ratio::new(self.den, self.num)
    }

    pub fn is_positive(self) -> bool {
        self.num > 0
    }
}

/// When a stream is evaluated: at every event, or when a positive Boolean combination of
/// streams has values.
#[derive(Clone, Debug, PartialEq)]
pub enum Pacing {
    True,
    Stream(String, Span),
    And(Box<Pacing>, Box<Pacing>),
    Or(Box<Pacing>, Box<Pacing>),
    /// `@ 10Hz`, `@ 0.5s`: evaluated periodically; the period, in seconds. `@Global(…)` and
    /// `@Local(…)` set the clock: the trace's, or each instance's from its spawn.
    Periodic(Ratio, Span, Clock),
}

/// Whose clock a period counts on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Clock {
    /// As written without `Global`/`Local`: an instance's own for a spawned stream's `eval`,
    /// the trace's otherwise.
    Default,
    Global,
    Local,
}

#[derive(Clone, Debug, PartialEq)]
pub struct InputDecl {
    pub name: String,
    pub ty: Type,
    pub span: Span,
}

/// A trigger's message: fixed text, or computed (`"…".format(…)`).
#[derive(Clone, Debug, PartialEq)]
pub enum Message {
    Text(String),
    Computed(Expr),
}

#[derive(Clone, Debug, PartialEq)]
pub struct OutputDecl {
    /// Triggers are named `trigger_<i>`.
    pub name: String,
    pub ty: Option<Type>,
    pub pacing: Option<Pacing>,
    pub expr: Expr,
    /// For a trigger: its message (it fires when `expr` is true).
    pub message: Option<Message>,
    pub span: Span,
    /// A parameterized or spawned stream's parameters and clauses.
    pub dynamic: Option<Box<Dynamic>>,
}

impl Dynamic {
    /// Whether the stream has a spawn clause (instances come and go), rather than only
    /// parameters or a close.
    pub fn has_spawn(&self) -> bool {
        self.spawn_pacing.is_some() || !self.spawn_with.is_empty() || self.spawn_when.is_some()
    }
}

/// `output s(p: T, …) spawn … eval … close …`: instances created, evaluated and closed as
/// the clauses say.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Dynamic {
    /// Parameters, with their declared types (inferred from `spawn with` otherwise).
    pub params: Vec<(String, Option<Type>, Span)>,
    pub spawn_pacing: Option<Pacing>,
    /// `spawn with (e1, e2)`: one expression per parameter.
    pub spawn_with: Vec<Expr>,
    pub spawn_when: Option<Expr>,
    /// `eval when f`: an instance gets a value only where `f` holds.
    pub eval_when: Option<Expr>,
    pub close_pacing: Option<Pacing>,
    pub close_when: Option<Expr>,
    /// Where the clauses are, for errors.
    pub span: Span,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Spec {
    pub inputs: Vec<InputDecl>,
    /// Outputs and triggers, in declaration order.
    pub outputs: Vec<OutputDecl>,
}
