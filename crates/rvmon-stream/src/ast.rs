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
}

/// When a stream is evaluated: at every event, or when a positive Boolean combination of
/// streams has values.
#[derive(Clone, Debug, PartialEq)]
pub enum Pacing {
    True,
    Stream(String, Span),
    And(Box<Pacing>, Box<Pacing>),
    Or(Box<Pacing>, Box<Pacing>),
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
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Spec {
    pub inputs: Vec<InputDecl>,
    /// Outputs and triggers, in declaration order.
    pub outputs: Vec<OutputDecl>,
}
