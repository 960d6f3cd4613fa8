//! From a parsed specification to an executable [`Program`]: names resolved, types checked,
//! pacing inferred and checked, and the dependency graph analysed.
//!
//! The dependency graph has an edge `x -> s` of weight `k` when `x` reads `s`'s value `k`
//! steps away from its current one (0 for synchronous, `hold`, `get` and `is_fresh` accesses).
//! Lola's rules (paper 06, §4; note B §1.9):
//! * **well-formed** — no closed walk of weight 0, so every value is defined by values that
//!   are computed before it;
//! * **efficiently monitorable** — no closed walk of positive weight, so every value is
//!   decided a bounded number of steps after its position (its *latency*, the heaviest path
//!   from it) and memory does not grow with the trace. Other well-formed specifications run
//!   too, but keep their unresolved values until the end of the trace.

use rustc_hash::FxHashMap;
use rvmon_core::{Error, MemoryLimit, SourcePos};

pub use crate::ast::Aggregation;
use crate::ast::*;
use crate::value::Val;

pub type Sid = usize;

/// A type-checked expression over stream ids.
#[derive(Clone, Debug, PartialEq)]
pub enum CExpr {
    Const(Val),
    Sync(Sid),
    Offset(Sid, i64),
    Hold(Sid),
    Get(Sid),
    Fresh(Sid),
    Default(Box<CExpr>, Box<CExpr>),
    Neg(Box<CExpr>),
    Not(Box<CExpr>),
    Bin(BinOp, Box<CExpr>, Box<CExpr>),
    Ite(Box<CExpr>, Box<CExpr>, Box<CExpr>),
    Call(Func, Vec<CExpr>),
    Cast(Type, Box<CExpr>),
    Format(String, Vec<CExpr>),
    /// A sliding window's aggregate: absent when the aggregation has no value (see
    /// [`crate::window`]).
    Window(Box<CWindow>),
    /// The current instance's parameter `i`.
    Param(usize),
    /// An access to an instance of a parameterized stream, chosen by its parameters' values:
    /// absent when there is no such instance (or it has no such value).
    Instance(Sid, Vec<CExpr>, InstanceAccess),
}

/// A parameterized or spawned stream's clauses, checked.
#[derive(Clone, Debug)]
pub struct CDynamic {
    pub params: Vec<(String, Type)>,
    /// When the spawn clause is evaluated.
    pub spawn_pace: Pace,
    /// The new instance's parameters (one expression each).
    pub spawn_with: Vec<CExpr>,
    pub spawn_when: Option<CExpr>,
    /// The instance gets a value only where this holds.
    pub eval_when: Option<CExpr>,
    /// When the close condition is evaluated; `None`: instances are never closed.
    pub close_pace: Option<Pace>,
    pub close_when: Option<CExpr>,
    /// The close condition reads the stream itself: each instance's is evaluated right after
    /// the instance's own evaluation (RTLola's rule; with `close when if true then true else
    /// s`, an instance lives for one evaluation).
    pub close_after_eval: bool,
}

/// A sliding window, checked: its target stream and type, size and aggregation.
#[derive(Clone, Debug, PartialEq)]
pub struct CWindow {
    pub target: Sid,
    /// For a window over one instance of a parameterized stream: its parameters' values.
    pub args: Vec<CExpr>,
    pub target_ty: Type,
    pub size: CWindowSize,
    pub op: Aggregation,
    pub exact: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CWindowSize {
    /// A duration in nanoseconds (RTLola truncates it to whole nanoseconds).
    Time(u64),
    Discrete(u64),
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Func {
    Min,
    Max,
    Abs,
    Sqrt,
    Sin,
    Cos,
    Tan,
    Arcsin,
    Arccos,
    Arctan,
    Exp,
    Ln,
    Round,
    Floor,
    Ceil,
}

/// When a stream has a value: at events where one of the conjuncts' inputs all have values
/// (disjunctive normal form over input ids; `[[]]` is every event).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Dnf(pub Vec<Vec<Sid>>);

impl Dnf {
    fn input(i: Sid) -> Dnf {
        Dnf(vec![vec![i]])
    }

    fn every_event() -> Dnf {
        Dnf(vec![vec![]])
    }

    fn and(&self, o: &Dnf) -> Dnf {
        let mut out = Vec::new();
        for a in &self.0 {
            for b in &o.0 {
                let mut c = a.clone();
                c.extend(b.iter().copied());
                c.sort_unstable();
                c.dedup();
                out.push(c);
            }
        }
        Dnf(out).minimal()
    }

    fn or(&self, o: &Dnf) -> Dnf {
        Dnf(self.0.iter().chain(&o.0).cloned().collect()).minimal()
    }

    /// Drops conjuncts implied by smaller ones.
    fn minimal(mut self) -> Dnf {
        self.0.sort_by_key(Vec::len);
        self.0.dedup();
        let mut kept: Vec<Vec<Sid>> = Vec::new();
        for c in self.0 {
            if !kept.iter().any(|k| k.iter().all(|x| c.contains(x))) {
                kept.push(c);
            }
        }
        Dnf(kept)
    }

    /// Whether the stream has a value at an event where exactly the inputs in `fresh` do.
    pub fn holds(&self, fresh: &[bool]) -> bool {
        self.0.iter().any(|c| c.iter().all(|&i| fresh[i]))
    }

    /// The conjuncts as bit masks over input ids, when there are at most 64 inputs.
    pub fn masks(&self) -> Option<Vec<u64>> {
        self.0
            .iter()
            .map(|c| {
                c.iter()
                    .try_fold(0u64, |m, &i| (i < 64).then(|| m | 1 << i))
            })
            .collect()
    }

    pub fn describe(&self, names: &[String]) -> String {
        if self.0.iter().any(Vec::is_empty) {
            return "every event".into();
        }
        self.0
            .iter()
            .map(|c| {
                c.iter()
                    .map(|&i| names[i].as_str())
                    .collect::<Vec<_>>()
                    .join(" ∧ ")
            })
            .collect::<Vec<_>>()
            .join(" ∨ ")
    }
}

/// When an output is evaluated: at events (which ones: a [`Dnf`] over inputs), or
/// periodically.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Pace {
    Event(Dnf),
    /// At every multiple of the period (in seconds) from the start of the trace.
    Periodic(Ratio),
    /// Each instance at every multiple of the period from its spawn (`eval @ 1Hz` of a
    /// spawned stream, or `@Local(1Hz)`).
    Local(Ratio),
}

impl Pace {
    /// The events at which the stream is evaluated (none for a periodic one).
    pub fn at_events(&self) -> Dnf {
        match self {
            Pace::Event(d) => d.clone(),
            Pace::Periodic(_) | Pace::Local(_) => Dnf(Vec::new()),
        }
    }

    /// The period, on the trace's clock or an instance's.
    pub fn period(&self) -> Option<Ratio> {
        match self {
            Pace::Event(_) => None,
            Pace::Periodic(p) | Pace::Local(p) => Some(*p),
        }
    }

    pub fn describe(&self, names: &[String]) -> String {
        match self {
            Pace::Event(d) => d.describe(names),
            Pace::Periodic(p) => format!("every {}", ratio_seconds(*p)),
            Pace::Local(p) => format!("every {} from each instance's spawn", ratio_seconds(*p)),
        }
    }
}

/// A period or duration for messages: `0.1s`, `1/3s`.
pub fn ratio_seconds(r: Ratio) -> String {
    if r.den == 1 {
        format!("{}s", r.num)
    } else if 1_000_000_000 % r.den == 0 {
        let ns = r.num as i128 * (1_000_000_000 / r.den) as i128;
        let text = format!("{}.{:09}", ns / 1_000_000_000, ns % 1_000_000_000);
        format!("{}s", text.trim_end_matches('0'))
    } else {
        format!("{}/{}s", r.num, r.den)
    }
}

#[derive(Clone, Debug)]
pub struct OutputInfo {
    pub name: String,
    pub ty: Type,
    /// When the stream (each of its instances, for a parameterized one) is evaluated.
    pub pacing: Pace,
    /// A parameterized or spawned stream's clauses.
    pub dynamic: Option<Box<CDynamic>>,
    pub expr: CExpr,
    /// For a trigger: its index among triggers (RTLola's `#i`) and message.
    pub trigger: Option<(usize, CMessage)>,
    /// The streams the expression (and message) reads, each once.
    pub reads: Vec<Sid>,
    /// Where the expression is, for the errors of its evaluation.
    pub at: SourcePos,
}

impl OutputInfo {
    /// `e`, a failure of this output's evaluation at `event` (0-based, as triggers count
    /// them), at the output's expression when `e` has no position of its own.
    pub fn failed(&self, e: Error, event: u64) -> Error {
        if e.pos.is_some() {
            return e;
        }
        Error::at(
            self.at.clone(),
            format!(
                "{} (evaluating `{}` at event {event})",
                e.message, self.name
            ),
        )
    }
}

#[derive(Clone, Debug)]
pub enum CMessage {
    Text(std::rc::Rc<str>),
    Computed(CExpr),
}

/// What the analysis found about a stream, for `--explain` and memory bounds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StreamReport {
    /// How many of its own values later than its position a value is decided, at most;
    /// `None`: unbounded (a positive cycle; the value may wait until the end of the trace).
    pub latency: Option<u64>,
    /// How many past values of the stream must be kept for the offsets that read it.
    pub keep_past: u64,
}

#[derive(Clone, Debug)]
pub struct Program {
    /// Input names and types; stream ids `0..inputs.len()`.
    pub inputs: Vec<(String, Type)>,
    /// Outputs and triggers in declaration order; stream id `inputs.len() + k`.
    pub outputs: Vec<OutputInfo>,
    /// Output indices in an order where every value read with weight 0 is computed first.
    pub order: Vec<usize>,
    /// One report per stream id.
    pub report: Vec<StreamReport>,
    /// A positive cycle, when the specification is not efficiently monitorable.
    pub unbounded_cycle: Option<Vec<String>>,
    /// What the engines may hold: the past values offsets keep are checked against it here,
    /// the values that wait for later events (future offsets, unbounded cycles) as they run.
    pub memory: MemoryLimit,
}

impl Program {
    pub fn names(&self) -> Vec<String> {
        self.inputs
            .iter()
            .map(|i| i.0.clone())
            .chain(self.outputs.iter().map(|o| o.name.clone()))
            .collect()
    }

    pub fn stream_count(&self) -> usize {
        self.inputs.len() + self.outputs.len()
    }

    pub fn trigger_count(&self) -> usize {
        self.outputs.iter().filter(|o| o.trigger.is_some()).count()
    }
}

/// A type during checking: integer literals take the type their context needs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ty {
    Known(Type),
    IntLit,
}

struct Checker<'a> {
    file: &'a str,
    text: &'a str,
    ids: FxHashMap<String, Sid>,
    types: Vec<Option<Type>>,
    n_inputs: usize,
    /// What the past values the offsets keep may take.
    memory: MemoryLimit,
    /// The stream whose expressions are checked, and its parameters.
    current: Sid,
    params: Vec<(String, Type)>,
    /// Every parameterized stream's parameter types.
    param_types: FxHashMap<Sid, Vec<Type>>,
}

impl Checker<'_> {
    /// Checks the expressions of stream `s` next (its parameters are names in them).
    fn enter(&mut self, spec: &Spec, s: Sid) {
        self.current = s;
        self.params = match (s.checked_sub(self.n_inputs), self.param_types.get(&s)) {
            (Some(k), Some(types)) => spec.outputs[k]
                .dynamic
                .as_ref()
                .map(|d| {
                    d.params
                        .iter()
                        .map(|p| p.0.clone())
                        .zip(types.iter().copied())
                        .collect()
                })
                .unwrap_or_default(),
            _ => Vec::new(),
        };
    }

    fn err(&self, span: Span, msg: impl Into<String>) -> Error {
        Error::at_offset(self.file, self.text, span.0, msg)
    }

    fn stream(&self, name: &str, span: Span) -> Result<Sid, Error> {
        self.ids.get(name).copied().ok_or_else(|| {
            self.err(
                span,
                format!("unknown stream `{name}` (declare it with `input` or `output`)"),
            )
        })
    }

    fn type_of(&self, s: Sid, span: Span) -> Result<Ty, Error> {
        match self.types[s] {
            Some(t) => Ok(Ty::Known(t)),
            None => Err(self.err(span, "the type of this stream cannot be inferred here (it depends on itself); declare it: `output x: Int64 := …`")),
        }
    }

    /// Output `o`'s checked expression (`checked`) against its declared type (an integer
    /// literal takes it), and its trigger message: the compiled expression, its type, the
    /// message.
    fn output(
        &self,
        o: &OutputDecl,
        checked: (CExpr, Ty, bool),
    ) -> Result<(CExpr, Type, Option<CMessage>), Error> {
        let (c, t, optional) = checked;
        if optional {
            return Err(self.err(o.expr.span, format!("the value of `{}` may be absent (an offset, `hold()` or `get()`); resolve it with `.defaults(to: …)`", o.name)));
        }
        let c = match (o.ty, t) {
            (Some(want), Ty::IntLit) if matches!(want, Type::Int | Type::UInt | Type::Float) => {
                coerce(c, want)
            }
            (None, Ty::IntLit) => coerce(c, Type::Int),
            (Some(want), Ty::Known(got)) if want != got => {
                return Err(self.err(
                    o.expr.span,
                    format!(
                        "`{}` is declared {} but its expression is {}",
                        o.name,
                        want.name(),
                        got.name()
                    ),
                ))
            }
            (Some(want), Ty::IntLit) => {
                return Err(self.err(
                    o.expr.span,
                    format!(
                        "`{}` is declared {} but its expression is an integer",
                        o.name,
                        want.name()
                    ),
                ))
            }
            _ => c,
        };
        let t = match t {
            Ty::Known(t) => t,
            Ty::IntLit => o.ty.unwrap_or(Type::Int),
        };
        if o.message.is_some() && t != Type::Bool {
            return Err(self.err(
                o.expr.span,
                format!("a trigger's condition must be a Bool, found {}", t.name()),
            ));
        }
        let message = match &o.message {
            None => None,
            Some(Message::Text(s)) => Some(CMessage::Text(s.as_str().into())),
            Some(Message::Computed(m)) => {
                let (cm, tm, opt) = self.check(m)?;
                if opt || tm != Ty::Known(Type::Str) {
                    return Err(self.err(
                        m.span,
                        "a trigger's message must be a String (a literal or `\"…\".format(…)`)",
                    ));
                }
                Some(CMessage::Computed(cm))
            }
        };
        Ok((c, t, message))
    }

    /// Checks `e`; returns its compiled form, type and whether it is optional (may be absent).
    fn check(&self, e: &Expr) -> Result<(CExpr, Ty, bool), Error> {
        use ExprKind as K;
        Ok(match &e.kind {
            K::Lit(Lit::Bool(b)) => (CExpr::Const(Val::Bool(*b)), Ty::Known(Type::Bool), false),
            K::Lit(Lit::Int(i)) => (CExpr::Const(Val::Int(*i)), Ty::IntLit, false),
            K::Lit(Lit::Float(x)) => (CExpr::Const(Val::Float(*x)), Ty::Known(Type::Float), false),
            K::Lit(Lit::Str(s)) => (
                CExpr::Const(Val::Str(s.as_str().into())),
                Ty::Known(Type::Str),
                false,
            ),
            K::Stream(n) => {
                if let Some(i) = self.params.iter().position(|p| &p.0 == n) {
                    return Ok((CExpr::Param(i), Ty::Known(self.params[i].1), false));
                }
                let s = self.stream(n, e.span)?;
                (CExpr::Sync(s), self.type_of(s, e.span)?, false)
            }
            K::Instance {
                stream,
                args,
                access,
            } => self.check_instance(stream, args, *access, e.span)?,
            K::Offset { stream, by } => {
                let s = self.stream(stream, e.span)?;
                let t = self.type_of(s, e.span)?;
                self.offset_fits(e, stream, *by, t)?;
                (CExpr::Offset(s, *by), t, true)
            }
            K::Hold(n) => {
                let s = self.stream(n, e.span)?;
                (CExpr::Hold(s), self.type_of(s, e.span)?, true)
            }
            K::Get(n) => {
                let s = self.stream(n, e.span)?;
                (CExpr::Get(s), self.type_of(s, e.span)?, true)
            }
            K::IsFresh(n) => {
                let s = self.stream(n, e.span)?;
                (CExpr::Fresh(s), Ty::Known(Type::Bool), false)
            }
            K::Default(a, d) => {
                let ca = self.check(a)?;
                let cd = self.check(d)?;
                self.must_be_present(&cd, d.span)?;
                let (x, y, t) = self.unify(ca.0, ca.1, cd.0, cd.1, e.span, "`.defaults(to: …)`")?;
                (CExpr::Default(Box::new(x), Box::new(y)), t, false)
            }
            K::Unary(op, a) => {
                let ca = self.check(a)?;
                self.must_be_present(&ca, a.span)?;
                match op {
                    UnOp::BitNot if ca.1 == Ty::Known(Type::Bool) => {
                        (CExpr::Not(Box::new(ca.0)), Ty::Known(Type::Bool), false)
                    }
                    // `~x` is `x ^` all ones.
                    UnOp::BitNot => {
                        let (x, ones, t) = match ca.1 {
                            Ty::Known(Type::UInt) => (ca.0, Val::UInt(u64::MAX), Type::UInt),
                            Ty::Known(Type::Int) => (ca.0, Val::Int(-1), Type::Int),
                            Ty::IntLit => (coerce(ca.0, Type::Int), Val::Int(-1), Type::Int),
                            t => {
                                return Err(self.err(
                                    a.span,
                                    format!(
                                        "`~` needs a Boolean or an integer, found {}",
                                        ty_name(t)
                                    ),
                                ))
                            }
                        };
                        let c =
                            CExpr::Bin(BinOp::BitXor, Box::new(x), Box::new(CExpr::Const(ones)));
                        (c, Ty::Known(t), false)
                    }
                    UnOp::Not => {
                        self.expect(ca.1, Type::Bool, a.span, "`!`")?;
                        (CExpr::Not(Box::new(ca.0)), Ty::Known(Type::Bool), false)
                    }
                    UnOp::Neg => {
                        if !matches!(ca.1, Ty::IntLit | Ty::Known(Type::Int | Type::Float)) {
                            return Err(self.err(
                                a.span,
                                format!("`-` needs a signed number, found {}", ty_name(ca.1)),
                            ));
                        }
                        (CExpr::Neg(Box::new(ca.0)), ca.1, false)
                    }
                }
            }
            K::Binary(op, a, b) => self.check_binary(*op, a, b, e.span)?,
            K::Ite(c, a, b) => {
                let cc = self.check(c)?;
                self.must_be_present(&cc, c.span)?;
                self.expect(cc.1, Type::Bool, c.span, "the condition of `if`")?;
                let ca = self.check(a)?;
                let cb = self.check(b)?;
                let (x, y, t) =
                    self.unify(ca.0, ca.1, cb.0, cb.1, e.span, "the branches of `if`")?;
                (
                    CExpr::Ite(Box::new(cc.0), Box::new(x), Box::new(y)),
                    t,
                    ca.2 || cb.2,
                )
            }
            K::Call(name, args) if self.ids.contains_key(name) => {
                self.check_instance(name, args, InstanceAccess::Sync, e.span)?
            }
            K::Call(name, args) => self.check_call(name, args, e.span)?,
            K::Cast(to, a) => {
                let ca = self.check(a)?;
                self.must_be_present(&ca, a.span)?;
                let numeric = |t: Type| matches!(t, Type::Int | Type::UInt | Type::Float);
                let from = match ca.1 {
                    Ty::IntLit => Type::Int,
                    Ty::Known(t) => t,
                };
                if !numeric(from) || !numeric(*to) {
                    return Err(self.err(
                        e.span,
                        format!("cannot cast {} to {}", from.name(), to.name()),
                    ));
                }
                let x = if ca.1 == Ty::IntLit {
                    coerce(ca.0, Type::Int)
                } else {
                    ca.0
                };
                (CExpr::Cast(*to, Box::new(x)), Ty::Known(*to), false)
            }
            K::Window(w) => self.check_window(w, e.span)?,
            K::Format(t, args) => {
                let mut cs = Vec::new();
                for a in args {
                    let c = self.check(a)?;
                    self.must_be_present(&c, a.span)?;
                    cs.push(if c.1 == Ty::IntLit {
                        coerce(c.0, Type::Int)
                    } else {
                        c.0
                    });
                }
                (CExpr::Format(t.clone(), cs), Ty::Known(Type::Str), false)
            }
        })
    }

    /// `target.aggregate(…)`: RTLola's result types (`count` is a UInt64, `integral` a
    /// Float64, `sum` of the target's type, `forall`/`exists` Booleans over Booleans; `min`,
    /// `max`, `avg` and `last` may be absent, and so is everything `over_exactly`).
    fn check_window(&self, w: &Window, span: Span) -> Result<(CExpr, Ty, bool), Error> {
        let target = self.stream(&w.stream, span)?;
        let Ty::Known(t) = self.type_of(target, span)? else {
            unreachable!("streams have known types")
        };
        let numeric = matches!(t, Type::Int | Type::UInt | Type::Float);
        use Aggregation as A;
        let (result, optional) = match w.op {
            A::Count => (Type::UInt, false),
            A::Forall | A::Exists if t == Type::Bool => (Type::Bool, false),
            A::Forall | A::Exists => {
                return Err(self.err(
                    span,
                    format!(
                        "`{}` aggregates Booleans; `{}` is {}",
                        w.op.name(),
                        w.stream,
                        t.name()
                    ),
                ))
            }
            _ if !numeric => {
                return Err(self.err(
                    span,
                    format!(
                        "`{}` aggregates numbers; `{}` is {}",
                        w.op.name(),
                        w.stream,
                        t.name()
                    ),
                ))
            }
            A::Sum => (t, false),
            A::Integral => (Type::Float, false),
            A::Min | A::Max | A::Avg | A::Last => (t, true),
        };
        let size = match w.size {
            WindowSize::Discrete(n) => {
                // (Its slots are allocated at once: they count against the memory limit.)
                let slot = std::mem::size_of::<crate::window::Slot>() as u128;
                let what = || format!("`over_discrete: {n}` keeps {n} values, which");
                self.memory
                    .check(u128::from(n) * slot, what)
                    .map_err(|m| self.err(span, m))?;
                CWindowSize::Discrete(n)
            }
            WindowSize::Time(d) => {
                let ns = d
                    .times(Ratio::new(1_000_000_000, 1))
                    .map(|r| r.num / r.den)
                    .filter(|&ns| ns > 0)
                    .ok_or_else(|| {
                        self.err(
                            span,
                            "the window's duration is below a nanosecond or too long",
                        )
                    })?;
                CWindowSize::Time(ns as u64)
            }
        };
        let args = match (self.param_types.get(&target), w.args.is_empty()) {
            (Some(types), _) if !types.is_empty() => {
                self.check_args(target, &w.stream, &w.args, span)?
            }
            (_, true) => Vec::new(),
            (_, false) => return Err(self.err(span, format!("`{}` has no parameters", w.stream))),
        };
        let c = CWindow {
            args,
            target,
            target_ty: t,
            size,
            op: w.op,
            exact: w.exact,
        };
        Ok((
            CExpr::Window(Box::new(c)),
            Ty::Known(result),
            optional || w.exact,
        ))
    }

    /// `s(e1, …)` with an access: the instance of `s` whose parameters have those values. In
    /// `s`'s own expressions, `s(p1, …)` with its own parameters is the current instance.
    fn check_instance(
        &self,
        name: &str,
        args: &[Expr],
        access: InstanceAccess,
        span: Span,
    ) -> Result<(CExpr, Ty, bool), Error> {
        let s = self.stream(name, span)?;
        let t = self.type_of(s, span)?;
        let Some(types) = self.param_types.get(&s) else {
            return Err(self.err(
                span,
                format!("`{name}` has no parameters; read it as `{name}`"),
            ));
        };
        let cargs = self.check_args(s, name, args, span)?;
        // A spawned stream without parameters has one instance, read as the stream itself.
        let own = types.is_empty()
            || (s == self.current && cargs.iter().enumerate().all(|(i, c)| *c == CExpr::Param(i)));
        Ok(match (own, access) {
            (true, InstanceAccess::Sync) => (CExpr::Sync(s), t, false),
            (true, InstanceAccess::Offset(k)) => (CExpr::Offset(s, k), t, true),
            (true, InstanceAccess::Hold) => (CExpr::Hold(s), t, true),
            (true, InstanceAccess::Get) => (CExpr::Get(s), t, true),
            (true, InstanceAccess::Fresh) => (CExpr::Fresh(s), Ty::Known(Type::Bool), false),
            (false, InstanceAccess::Fresh) => (
                CExpr::Instance(s, cargs, access),
                Ty::Known(Type::Bool),
                false,
            ),
            (false, InstanceAccess::Offset(k)) if k > 0 => {
                return Err(self.err(span, "future offsets of instances are not supported"))
            }
            // A synchronous access reads the instance's value of this cycle, which the
            // pacing guarantees.
            (false, InstanceAccess::Sync) => (CExpr::Instance(s, cargs, access), t, false),
            (false, _) => (CExpr::Instance(s, cargs, access), t, true),
        })
    }

    /// The parameter values `args` of an instance of stream `s` (named `name`): one for each
    /// of its parameters, of the parameter's type.
    fn check_args(
        &self,
        s: Sid,
        name: &str,
        args: &[Expr],
        span: Span,
    ) -> Result<Vec<CExpr>, Error> {
        let types = self.param_types.get(&s).cloned().unwrap_or_default();
        if types.len() != args.len() {
            return Err(self.err(
                span,
                format!(
                    "`{name}` has {} parameter(s), given {}",
                    types.len(),
                    args.len()
                ),
            ));
        }
        let mut cargs = Vec::new();
        for (a, &want) in args.iter().zip(&types) {
            let c = self.check(a)?;
            self.must_be_present(&c, a.span)?;
            let found = ty_name(c.1);
            let (x, _, _) = self
                .unify(
                    c.0,
                    c.1,
                    CExpr::Const(Val::Int(0)),
                    Ty::Known(want),
                    a.span,
                    "a parameter",
                )
                .map_err(|_| {
                    let what = format!("a parameter of `{name}` is {}, found {found}", want.name());
                    self.err(a.span, what)
                })?;
            cargs.push(x);
        }
        Ok(cargs)
    }

    /// A value that may be absent where one is needed is an error at `span`.
    fn must_be_present(&self, c: &(CExpr, Ty, bool), span: Span) -> Result<(), Error> {
        if c.2 {
            Err(self.err(span, "this value may be absent (an offset, `hold()` or `get()`); resolve it with `.defaults(to: …)` first"))
        } else {
            Ok(())
        }
    }

    /// `a op b`: Boolean connectives, comparisons (Booleans are not ordered) and arithmetic.
    fn check_binary(
        &self,
        op: BinOp,
        a: &Expr,
        b: &Expr,
        span: Span,
    ) -> Result<(CExpr, Ty, bool), Error> {
        let ca = self.check(a)?;
        let cb = self.check(b)?;
        self.must_be_present(&ca, a.span)?;
        self.must_be_present(&cb, b.span)?;
        let what = format!("`{}`", binop_text(op));
        let integer = |t: Ty| matches!(t, Ty::IntLit | Ty::Known(Type::Int | Type::UInt));
        Ok(match op {
            // On Booleans `&` and `|` are `&&` and `||` (both sides defined: the same value).
            BinOp::BitAnd | BinOp::BitOr if ca.1 == Ty::Known(Type::Bool) => {
                self.expect(cb.1, Type::Bool, b.span, &what)?;
                let op = if op == BinOp::BitAnd {
                    BinOp::And
                } else {
                    BinOp::Or
                };
                (
                    CExpr::Bin(op, Box::new(ca.0), Box::new(cb.0)),
                    Ty::Known(Type::Bool),
                    false,
                )
            }
            BinOp::BitAnd | BinOp::BitOr | BinOp::BitXor => {
                let (x, y, t) = self.unify(ca.0, ca.1, cb.0, cb.1, span, &what)?;
                if !integer(t) {
                    return Err(
                        self.err(span, format!("{what} needs integers, found {}", ty_name(t)))
                    );
                }
                (CExpr::Bin(op, Box::new(x), Box::new(y)), t, false)
            }
            // A shift's count is unsigned; it shifts a value of its own type.
            BinOp::Shl | BinOp::Shr => {
                if !integer(ca.1) {
                    return Err(self.err(
                        a.span,
                        format!("{what} shifts an integer, found {}", ty_name(ca.1)),
                    ));
                }
                let count = match cb.1 {
                    Ty::IntLit => coerce(cb.0, Type::UInt),
                    Ty::Known(Type::UInt) => cb.0,
                    t => {
                        return Err(self.err(
                            b.span,
                            format!(
                                "{what} needs an unsigned count (UInt64), found {}",
                                ty_name(t)
                            ),
                        ))
                    }
                };
                let (lhs, t) = match ca.1 {
                    Ty::IntLit => (coerce(ca.0, Type::Int), Type::Int),
                    Ty::Known(t) => (ca.0, t),
                };
                let count = if t == Type::UInt {
                    count
                } else {
                    CExpr::Cast(t, Box::new(count))
                };
                (
                    CExpr::Bin(op, Box::new(lhs), Box::new(count)),
                    Ty::Known(t),
                    false,
                )
            }
            BinOp::And | BinOp::Or | BinOp::Implies => {
                self.expect(ca.1, Type::Bool, a.span, &what)?;
                self.expect(cb.1, Type::Bool, b.span, &what)?;
                (
                    CExpr::Bin(op, Box::new(ca.0), Box::new(cb.0)),
                    Ty::Known(Type::Bool),
                    false,
                )
            }
            BinOp::Eq | BinOp::Ne | BinOp::Lt | BinOp::Le | BinOp::Gt | BinOp::Ge => {
                let (x, y, t) = self.unify(ca.0, ca.1, cb.0, cb.1, span, &what)?;
                let ordered = !matches!(op, BinOp::Eq | BinOp::Ne);
                if ordered && t == Ty::Known(Type::Bool) {
                    return Err(self.err(span, format!("{what} does not order Booleans")));
                }
                (
                    CExpr::Bin(op, Box::new(x), Box::new(y)),
                    Ty::Known(Type::Bool),
                    false,
                )
            }
            _ => {
                let (x, y, t) = self.unify(ca.0, ca.1, cb.0, cb.1, span, &what)?;
                if !matches!(
                    t,
                    Ty::IntLit | Ty::Known(Type::Int | Type::UInt | Type::Float)
                ) {
                    return Err(
                        self.err(span, format!("{what} needs numbers, found {}", ty_name(t)))
                    );
                }
                (CExpr::Bin(op, Box::new(x), Box::new(y)), t, false)
            }
        })
    }

    /// A call of one of RTLola's functions: `min`/`max` of two numbers, `abs` of a signed
    /// one, the others of a Float64.
    fn check_call(
        &self,
        name: &str,
        args: &[Expr],
        span: Span,
    ) -> Result<(CExpr, Ty, bool), Error> {
        let f = match name {
            "min" => Func::Min,
            "max" => Func::Max,
            "abs" => Func::Abs,
            "sqrt" => Func::Sqrt,
            "sin" => Func::Sin,
            "cos" => Func::Cos,
            "tan" => Func::Tan,
            "arcsin" => Func::Arcsin,
            "arccos" => Func::Arccos,
            "arctan" => Func::Arctan,
            "exp" => Func::Exp,
            "ln" => Func::Ln,
            "round" => Func::Round,
            "floor" => Func::Floor,
            "ceil" => Func::Ceil,
            _ => return Err(self.err(span, format!("unknown function `{name}`"))),
        };
        let arity = if matches!(f, Func::Min | Func::Max) {
            2
        } else {
            1
        };
        if args.len() != arity {
            return Err(self.err(span, format!("`{name}` takes {arity} argument(s)")));
        }
        let mut cs = Vec::new();
        for a in args {
            let c = self.check(a)?;
            self.must_be_present(&c, a.span)?;
            cs.push(c);
        }
        Ok(match f {
            Func::Min | Func::Max => {
                let b = cs.pop().expect("two");
                let a = cs.pop().expect("two");
                let (x, y, t) = self.unify(a.0, a.1, b.0, b.1, span, &format!("`{name}`"))?;
                if !matches!(
                    t,
                    Ty::IntLit | Ty::Known(Type::Int | Type::UInt | Type::Float)
                ) {
                    return Err(self.err(span, format!("`{name}` needs numbers")));
                }
                (CExpr::Call(f, vec![x, y]), t, false)
            }
            Func::Abs => {
                let a = cs.pop().expect("one");
                if !matches!(a.1, Ty::IntLit | Ty::Known(Type::Int | Type::Float)) {
                    return Err(self.err(span, "`abs` needs a signed number"));
                }
                (CExpr::Call(f, vec![a.0]), a.1, false)
            }
            _ => {
                let a = cs.pop().expect("one");
                let x = match a.1 {
                    Ty::IntLit => coerce(a.0, Type::Float),
                    Ty::Known(Type::Float) => a.0,
                    t => {
                        return Err(self.err(
                            span,
                            format!("`{name}` needs a Float64, found {}", ty_name(t)),
                        ))
                    }
                };
                (CExpr::Call(f, vec![x]), Ty::Known(Type::Float), false)
            }
        })
    }

    /// Whether the past values that the offset `e` (by `by` into `stream`, of type `t`) keeps
    /// fit in the memory limit.
    fn offset_fits(&self, e: &Expr, stream: &str, by: i64, t: Ty) -> Result<(), Error> {
        let (Ty::Known(ty), true) = (t, by < 0) else {
            return Ok(());
        };
        let what = || {
            let written = &self.text[e.span.0..e.span.1];
            let keep = by.unsigned_abs();
            format!("`{written}` keeps {keep} past values of `{stream}`, which")
        };
        self.memory
            .check(past_bytes(by.unsigned_abs(), ty), what)
            .map_err(|m| self.err(e.span, m))
    }

    fn expect(&self, t: Ty, want: Type, span: Span, what: &str) -> Result<(), Error> {
        if t == Ty::Known(want) {
            Ok(())
        } else {
            Err(self.err(
                span,
                format!("{what} needs {}, found {}", want.a(), ty_name(t)),
            ))
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn unify(
        &self,
        a: CExpr,
        ta: Ty,
        b: CExpr,
        tb: Ty,
        span: Span,
        what: &str,
    ) -> Result<(CExpr, CExpr, Ty), Error> {
        match (ta, tb) {
            (x, y) if x == y => Ok((a, b, x)),
            (Ty::IntLit, Ty::Known(t)) if matches!(t, Type::Int | Type::UInt | Type::Float) => {
                Ok((coerce(a, t), b, tb))
            }
            (Ty::Known(t), Ty::IntLit) if matches!(t, Type::Int | Type::UInt | Type::Float) => {
                Ok((a, coerce(b, t), ta))
            }
            _ => Err(self.err(
                span,
                format!(
                    "type mismatch in {what}: {} and {}",
                    ty_name(ta),
                    ty_name(tb)
                ),
            )),
        }
    }
}

/// A parameterized or spawned stream's clauses, checked (their pacing comes later, from
/// [`clause_paces`]).
fn check_clauses(ck: &mut Checker, spec: &Spec, s: Sid, d: &Dynamic) -> Result<CDynamic, Error> {
    let boolean = |ck: &Checker, e: &Expr, what: &str| -> Result<CExpr, Error> {
        let c = ck.check(e)?;
        ck.must_be_present(&c, e.span)?;
        ck.expect(c.1, Type::Bool, e.span, what)?;
        Ok(c.0)
    };
    // The spawn clause is read outside any instance.
    ck.current = usize::MAX;
    ck.params.clear();
    let types = ck.param_types.get(&s).cloned().unwrap_or_default();
    let mut spawn_with = Vec::new();
    for (e, &t) in d.spawn_with.iter().zip(&types) {
        let c = ck.check(e)?;
        spawn_with.push(match c.1 {
            Ty::IntLit => coerce(c.0, t),
            _ => c.0,
        });
    }
    if d.params.is_empty() && !d.spawn_with.is_empty() {
        return Err(ck.err(d.span, "`spawn with` gives parameters, and the stream has none; declare them: `output s(p) spawn with …`"));
    }
    let spawn_when = match &d.spawn_when {
        Some(e) => Some(boolean(ck, e, "`spawn when`")?),
        None => None,
    };
    ck.enter(spec, s);
    let eval_when = match &d.eval_when {
        Some(e) => Some(boolean(ck, e, "`eval when`")?),
        None => None,
    };
    let close_when = match &d.close_when {
        Some(e) => Some(boolean(ck, e, "`close when`")?),
        None => None,
    };
    if !d.params.is_empty() && !d.has_spawn() {
        return Err(ck.err(
            d.span,
            "a parameterized stream needs `spawn with …` to make its instances",
        ));
    }
    Ok(CDynamic {
        params: d.params.iter().map(|p| p.0.clone()).zip(types).collect(),
        spawn_pace: Pace::Event(Dnf::every_event()),
        spawn_with,
        spawn_when,
        eval_when,
        close_pace: None,
        close_when,
        close_after_eval: false,
    })
}

/// When a stream's spawn and close clauses are evaluated: as annotated, or as what they read
/// synchronously says (a close that reads the stream itself runs after each evaluation).
fn clause_paces(
    d: &mut CDynamic,
    o: &OutputDecl,
    s: Sid,
    pacing: &[Option<Pace>],
    ck: &Checker,
) -> Result<(), Error> {
    let decl = o.dynamic.as_ref().expect("a dynamic stream");
    let inferred = |exprs: Vec<&CExpr>, what: &str| -> Result<(Option<Pace>, bool), Error> {
        let mut acc = Vec::new();
        exprs.into_iter().for_each(|e| accesses(e, &mut acc));
        let own = acc.iter().any(|a| a.0 == s);
        let mut pace: Option<Pace> = None;
        for (r, _, sync) in acc {
            if !sync || r == s {
                continue;
            }
            let p = pacing[r].clone().expect("inferred");
            pace = Some(match pace {
                None => p,
                Some(a) => meet(a, p).map_err(|why| {
                    ck.err(decl.span, format!("the {what} of `{}` {why}", o.name))
                })?,
            });
        }
        Ok((pace, own))
    };
    let explicit = |p: &Pacing| -> Result<Pace, Error> {
        Ok(match p {
            Pacing::Periodic(period, _, Clock::Local) => Pace::Local(*period),
            Pacing::Periodic(period, _, _) => Pace::Periodic(*period),
            p => Pace::Event(explicit(p, ck)?),
        })
    };
    let local = |p: &Pacing, what: &str| -> Result<(), Error> {
        match p {
            Pacing::Periodic(_, span, Clock::Local) => Err(ck.err(
                *span,
                format!("a {what} clause on an instance's own clock (`@Local`) is not supported: it runs on the trace's clock"),
            )),
            _ => Ok(()),
        }
    };
    if let Some(p) = &decl.spawn_pacing {
        local(p, "spawn")?;
    }
    if let Some(p) = &decl.close_pacing {
        local(p, "close")?;
    }
    d.spawn_pace = match &decl.spawn_pacing {
        Some(p) => explicit(p)?,
        None if decl.has_spawn() => {
            let (p, _) = inferred(
                d.spawn_with.iter().chain(&d.spawn_when).collect(),
                "spawn clause",
            )?;
            p.ok_or_else(|| ck.err(decl.span, format!("when to spawn `{}` cannot be inferred: its spawn clause reads no stream; annotate it (`spawn @a …`, `spawn @1Hz …`)", o.name)))?
        }
        // No spawn clause: the one instance exists from the start.
        None => Pace::Event(Dnf(Vec::new())),
    };
    if let Some(c) = &d.close_when {
        let (p, own) = inferred(vec![c], "close condition")?;
        d.close_after_eval = own && decl.close_pacing.is_none();
        d.close_pace = Some(match &decl.close_pacing {
            Some(p) => explicit(p)?,
            None => match p {
                Some(p) => p,
                None if own => pacing[s].clone().expect("inferred"),
                None => return Err(ck.err(decl.span, format!("the close condition of `{}` reads no stream, so it would never be evaluated; annotate it or make it read one", o.name))),
            },
        });
    }
    Ok(())
}

/// The windows in a stream's clauses follow the rules of windows in expressions: over time,
/// read by a periodic clause (spawn: its spawn pacing; filter and close: its own); never
/// over a spawned stream without parameters.
fn clause_windows(d: &CDynamic, own: &Pace, spec: &Spec, n_in: usize) -> Result<(), String> {
    let close = d
        .close_pace
        .as_ref()
        .filter(|_| !d.close_after_eval)
        .unwrap_or(own);
    let clauses = d
        .spawn_with
        .iter()
        .chain(&d.spawn_when)
        .map(|e| (e, &d.spawn_pace));
    let clauses = clauses
        .chain(d.eval_when.iter().map(|e| (e, own)))
        .chain(d.close_when.iter().map(|e| (e, close)));
    for (e, pace) in clauses {
        let mut problem = None;
        windows_of(e, &mut |w| {
            let target = w.target.checked_sub(n_in).map(|t| &spec.outputs[t]);
            if target.is_some_and(|t| t.dynamic.is_some()) && w.args.is_empty() {
                problem.get_or_insert(
                    "windows over a spawned stream without parameters are not supported yet",
                );
            }
            let over_time = matches!(w.size, CWindowSize::Time(_));
            if over_time && matches!(pace, Pace::Event(_)) {
                problem.get_or_insert("a window over time in a spawn, filter or close clause needs that clause to be periodic (`spawn @1Hz …`, `eval @1Hz …`, `close @1Hz …`)");
            }
        });
        if let Some(p) = problem {
            return Err(p.to_string());
        }
    }
    Ok(())
}

/// A parameterized stream's parameter types: as declared, or those of its `spawn with`
/// expressions (which are read outside any instance).
fn param_types(ck: &Checker, d: &Dynamic, o: &OutputDecl) -> Result<Vec<Type>, Error> {
    if d.params.is_empty() {
        return Ok(Vec::new());
    }
    if d.spawn_with.len() != d.params.len() {
        return Err(ck.err(
            d.span,
            format!(
                "`{}` has {} parameter(s); its `spawn with` gives {}",
                o.name,
                d.params.len(),
                d.spawn_with.len()
            ),
        ));
    }
    let outside = Checker {
        params: Vec::new(),
        current: usize::MAX,
        param_types: ck.param_types.clone(),
        ids: ck.ids.clone(),
        types: ck.types.clone(),
        ..*ck
    };
    d.params
        .iter()
        .zip(&d.spawn_with)
        .map(|((_, declared, _), e)| {
            let (_, t, optional) = outside.check(e)?;
            outside.must_be_present(&(CExpr::Const(Val::Bool(true)), t, optional), e.span)?;
            Ok(match (declared, t) {
                (Some(want), Ty::IntLit)
                    if matches!(want, Type::Int | Type::UInt | Type::Float) =>
                {
                    *want
                }
                (Some(want), Ty::Known(got)) if *want != got => {
                    return Err(ck.err(
                        e.span,
                        format!(
                            "the parameter is declared {} but `spawn with` gives {}",
                            want.name(),
                            got.name()
                        ),
                    ))
                }
                (Some(want), _) => *want,
                (None, Ty::IntLit) => Type::Int,
                (None, Ty::Known(t)) => t,
            })
        })
        .collect()
}

/// For an output whose type depends on itself (`y := x || y[1, false]`,
/// `c := c[-1, 0] + 1`): the first of Bool, Int64, Float64, UInt64, String under which its
/// expression has that same type. Returns whether one output got a type.
fn guess_a_type(
    ck: &mut Checker,
    spec: &Spec,
    compiled: &[Option<(CExpr, Option<CMessage>)>],
    n_in: usize,
) -> bool {
    for (k, o) in spec.outputs.iter().enumerate() {
        if compiled[k].is_some() || ck.types[n_in + k].is_some() {
            continue;
        }
        if o.dynamic.is_some() && !ck.param_types.contains_key(&(n_in + k)) {
            continue;
        }
        ck.enter(spec, n_in + k);
        for cand in [Type::Bool, Type::Int, Type::Float, Type::UInt, Type::Str] {
            ck.types[n_in + k] = Some(cand);
            let fits = match ck.check(&o.expr) {
                Ok((_, Ty::Known(t), false)) => t == cand,
                Ok((_, Ty::IntLit, false)) => matches!(cand, Type::Int | Type::UInt | Type::Float),
                _ => false,
            };
            if fits {
                return true;
            }
        }
        ck.types[n_in + k] = None;
    }
    // Mutually dependent outputs: the same type for all of them.
    let open: Vec<usize> = (0..spec.outputs.len())
        .filter(|&k| compiled[k].is_none() && ck.types[n_in + k].is_none())
        .collect();
    for cand in [Type::Bool, Type::Int, Type::Float, Type::UInt, Type::Str] {
        open.iter().for_each(|&k| ck.types[n_in + k] = Some(cand));
        let fits = open.iter().all(|&k| {
            ck.enter(spec, n_in + k);
            match ck.check(&spec.outputs[k].expr) {
                Ok((_, Ty::Known(t), false)) => t == cand,
                Ok((_, Ty::IntLit, false)) => matches!(cand, Type::Int | Type::UInt | Type::Float),
                _ => false,
            }
        });
        if fits && !open.is_empty() {
            return true;
        }
    }
    open.iter().for_each(|&k| ck.types[n_in + k] = None);
    false
}

fn ty_name(t: Ty) -> &'static str {
    match t {
        Ty::Known(t) => t.name(),
        Ty::IntLit => "an integer literal",
    }
}

fn binop_text(op: BinOp) -> &'static str {
    match op {
        BinOp::Implies => "->",
        BinOp::Or => "||",
        BinOp::And => "&&",
        BinOp::Eq => "==",
        BinOp::Ne => "!=",
        BinOp::Lt => "<",
        BinOp::Le => "<=",
        BinOp::Gt => ">",
        BinOp::Ge => ">=",
        BinOp::Add => "+",
        BinOp::Sub => "-",
        BinOp::Mul => "*",
        BinOp::Div => "/",
        BinOp::Rem => "%",
        BinOp::Pow => "**",
        BinOp::BitAnd => "&",
        BinOp::BitOr => "|",
        BinOp::BitXor => "^",
        BinOp::Shl => "<<",
        BinOp::Shr => ">>",
    }
}

/// Gives the integer literals of a literal-only expression the type `t`.
fn coerce(c: CExpr, t: Type) -> CExpr {
    let rec = |x: Box<CExpr>| Box::new(coerce(*x, t));
    match c {
        CExpr::Const(Val::Int(i)) => CExpr::Const(match t {
            Type::UInt => Val::UInt(i as u64),
            Type::Float => Val::Float(i as f64),
            _ => Val::Int(i),
        }),
        CExpr::Neg(x) => CExpr::Neg(rec(x)),
        CExpr::Bin(op, x, y) => CExpr::Bin(op, rec(x), rec(y)),
        CExpr::Ite(c, x, y) => CExpr::Ite(c, rec(x), rec(y)),
        CExpr::Default(x, y) => CExpr::Default(rec(x), rec(y)),
        CExpr::Call(f, args) => CExpr::Call(f, args.into_iter().map(|a| coerce(a, t)).collect()),
        other => other,
    }
}

/// Every stream access of `c`: (stream, weight, synchronous for pacing).
fn accesses(c: &CExpr, out: &mut Vec<(Sid, i64, bool)>) {
    visit(c, &mut |x| match x {
        CExpr::Sync(s) => out.push((*s, 0, true)),
        CExpr::Offset(s, k) => out.push((*s, *k, true)),
        CExpr::Hold(s) | CExpr::Get(s) | CExpr::Fresh(s) => out.push((*s, 0, false)),
        // A discrete window reads the target's values as they come, as a synchronous access
        // does; a window over time reads whatever values came.
        CExpr::Window(w) => out.push((w.target, 0, matches!(w.size, CWindowSize::Discrete(_)))),
        CExpr::Instance(s, _, access) => out.push(match access {
            InstanceAccess::Sync => (*s, 0, true),
            InstanceAccess::Offset(k) => (*s, *k, true),
            _ => (*s, 0, false),
        }),
        _ => {}
    });
}

/// Calls `f` on `c` and every expression in it.
pub fn visit<'a>(c: &'a CExpr, f: &mut impl FnMut(&'a CExpr)) {
    f(c);
    match c {
        CExpr::Const(_)
        | CExpr::Sync(_)
        | CExpr::Offset(..)
        | CExpr::Hold(_)
        | CExpr::Get(_)
        | CExpr::Fresh(_)
        | CExpr::Param(_) => {}
        CExpr::Window(w) => w.args.iter().for_each(|a| visit(a, f)),
        CExpr::Instance(_, args, _) | CExpr::Call(_, args) | CExpr::Format(_, args) => {
            args.iter().for_each(|a| visit(a, f))
        }
        CExpr::Default(a, b) | CExpr::Bin(_, a, b) => {
            visit(a, f);
            visit(b, f);
        }
        CExpr::Neg(a) | CExpr::Not(a) | CExpr::Cast(_, a) => visit(a, f),
        CExpr::Ite(a, b, d) => {
            visit(a, f);
            visit(b, f);
            visit(d, f);
        }
    }
}

/// Calls `f` on every window of `c`.
pub fn windows_of<'a>(c: &'a CExpr, f: &mut impl FnMut(&'a CWindow)) {
    visit(c, &mut |x| {
        if let CExpr::Window(w) = x {
            f(w)
        }
    });
}

/// How a window over time read by a stream of period `period_ns` is bucketed: (bucket
/// length, bucket count), both as RTLola computes them.
pub fn window_buckets(duration_ns: u64, period_ns: u64) -> (u64, u64) {
    fn gcd(a: u64, b: u64) -> u64 {
        if b == 0 {
            a
        } else {
            gcd(b, a % b)
        }
    }
    let bucket = gcd(duration_ns, period_ns).max(1);
    (bucket, duration_ns / bucket)
}

/// Windows over time are read by periodic streams only, with a bucket count that fits; and
/// real-time features do not mix with future offsets (RTLola has none; the engine that runs
/// periodic streams decides every value at once).
fn real_time_rules(
    spec: &Spec,
    compiled: &[Option<(CExpr, Option<CMessage>)>],
    pacing: &[Option<Pace>],
    n_in: usize,
) -> Result<(), (Span, String)> {
    let mut real_time = None;
    let mut ahead = None;
    for (k, o) in spec.outputs.iter().enumerate() {
        let (c, m) = compiled[k].as_ref().expect("compiled");
        let pace = pacing[n_in + k].as_ref().expect("inferred");
        if !matches!(pace, Pace::Event(_)) || o.dynamic.is_some() {
            real_time.get_or_insert(o.span);
        }
        let mut problem = None;
        let mut check = |w: &CWindow| {
            let target_dynamic = w
                .target
                .checked_sub(n_in)
                .is_some_and(|t| spec.outputs[t].dynamic.is_some());
            if target_dynamic && (w.args.is_empty() || o.dynamic.is_some()) {
                problem.get_or_insert(
                    "windows over a spawned stream without parameters, and windows in a parameterized stream over another's instances, are not supported yet"
                        .to_string(),
                );
            }
            if !matches!(w.size, CWindowSize::Time(_)) {
                return;
            }
            real_time.get_or_insert(o.span);
            if !matches!(pace, Pace::Periodic(_) | Pace::Local(_)) {
                problem.get_or_insert(format!("`{}` aggregates a window over time, so it must be periodic: give it a frequency (`output {} @ 1Hz := …`)", o.name, o.name));
            }
        };
        windows_of(c, &mut check);
        if let Some(CMessage::Computed(m)) = m {
            windows_of(m, &mut check);
        }
        if let Some(p) = problem {
            return Err((o.span, p));
        }
        let mut acc = Vec::new();
        accesses(c, &mut acc);
        if acc.iter().any(|&(_, w, _)| w > 0) {
            ahead.get_or_insert(o.span);
        }
    }
    match (real_time, ahead) {
        (Some(_), Some(span)) => Err((span, "future offsets cannot be combined with periodic streams or windows over time (RTLola has no future offsets; rvmon runs real-time specifications on an engine that decides every value at once)".to_string())),
        _ => Ok(()),
    }
}

/// The memory the engines may set aside to keep `keep` past values of a stream of type
/// `ty`: the immediate engine's ring (a power of two of slots, of 8 bytes and a string beside
/// each for a String stream) or the general engine's history (a deque of values, whose
/// capacity grows by doubling), whichever is larger.
pub fn past_bytes(keep: u64, ty: Type) -> u128 {
    let slots = (u128::from(keep) + 1).next_power_of_two();
    let ring = 8 + if ty == Type::Str {
        std::mem::size_of::<std::rc::Rc<str>>()
    } else {
        0
    };
    let history = std::mem::size_of::<Option<Val>>();
    slots * ring.max(history) as u128
}

/// Checks `spec` (from `file` with text `text`, for error positions) and compiles it, with
/// the default memory limit for what its offsets keep ([`analyze_within`]).
pub fn analyze(file: &str, text: &str, spec: &Spec) -> Result<Program, Error> {
    analyze_within(file, text, spec, MemoryLimit::DEFAULT)
}

/// Types: outputs without a declared type take their expression's, in as many rounds as
/// the references between them need (a parameterized stream's parameters first). Every
/// output's checked expression and message.
#[allow(clippy::type_complexity)]
fn check_outputs(
    ck: &mut Checker,
    spec: &Spec,
) -> Result<Vec<Option<(CExpr, Option<CMessage>)>>, Error> {
    let n_in = spec.inputs.len();
    let mut compiled: Vec<Option<(CExpr, Option<CMessage>)>> = vec![None; spec.outputs.len()];
    let mut first_error = None;
    for _round in 0..=2 * spec.outputs.len() + 1 {
        let mut progress = false;
        first_error = None;
        for (k, o) in spec.outputs.iter().enumerate() {
            if compiled[k].is_some() {
                continue;
            }
            if let Some(d) = &o.dynamic {
                if !ck.param_types.contains_key(&(n_in + k)) {
                    match param_types(ck, d, o) {
                        Ok(t) => {
                            ck.param_types.insert(n_in + k, t);
                            progress = true;
                        }
                        Err(e) => {
                            first_error.get_or_insert(e);
                            continue;
                        }
                    }
                }
            }
            ck.enter(spec, n_in + k);
            match ck.check(&o.expr) {
                Ok(checked) => {
                    let (c, t, message) = ck.output(o, checked)?;
                    ck.types[n_in + k] = Some(t);
                    compiled[k] = Some((c, message));
                    progress = true;
                }
                Err(e) => {
                    first_error.get_or_insert(e);
                }
            }
        }
        if !progress && !guess_a_type(ck, spec, &compiled, n_in) {
            break;
        }
    }
    if let Some(e) = first_error {
        return Err(e);
    }
    Ok(compiled)
}

/// The dependency graph (an edge `x -> s` of weight `k` per read of `s` `k` values away),
/// and per output the streams it reads, and those it reads synchronously (for pacing).
#[allow(clippy::type_complexity)]
fn dependencies(
    compiled: &[Option<(CExpr, Option<CMessage>)>],
    dynamics: &[Option<Box<CDynamic>>],
    n: usize,
    n_in: usize,
) -> (Vec<Vec<(Sid, i64)>>, Vec<Vec<Sid>>, Vec<Vec<Sid>>) {
    let mut edges: Vec<Vec<(Sid, i64)>> = vec![Vec::new(); n];
    let mut reads: Vec<Vec<Sid>> = vec![Vec::new(); compiled.len()];
    let mut sync_reads: Vec<Vec<Sid>> = vec![Vec::new(); compiled.len()];
    for (k, c) in compiled.iter().enumerate() {
        let (c, m) = c.as_ref().expect("all compiled");
        let mut acc = Vec::new();
        accesses(c, &mut acc);
        if let Some(CMessage::Computed(m)) = m {
            accesses(m, &mut acc);
        }
        if let Some(d) = &dynamics[k] {
            // The filter is evaluated with the expression; the spawn clause before it.
            if let Some(f) = &d.eval_when {
                accesses(f, &mut acc);
            }
            let mut spawn = Vec::new();
            d.spawn_with
                .iter()
                .chain(&d.spawn_when)
                .for_each(|e| accesses(e, &mut spawn));
            acc.extend(spawn.into_iter().map(|(s, w, _)| (s, w, false)));
        }
        for &(s, w, sync) in &acc {
            if !edges[n_in + k].contains(&(s, w)) {
                edges[n_in + k].push((s, w));
            }
            if !reads[k].contains(&s) {
                reads[k].push(s);
            }
            if sync && !sync_reads[k].contains(&s) {
                sync_reads[k].push(s);
            }
        }
    }
    (edges, reads, sync_reads)
}

/// Checks `spec` and compiles it; the past values its offsets keep ([`past_bytes`]) must fit
/// in `memory`, each offset and all streams together, or it is an error that says what they
/// would need (before any engine allocates them).
pub fn analyze_within(
    file: &str,
    text: &str,
    spec: &Spec,
    memory: MemoryLimit,
) -> Result<Program, Error> {
    let err = |span: Span, msg: String| Error::at_offset(file, text, span.0, msg);
    let n_in = spec.inputs.len();
    // Every stream, inputs first: its id, declared type and place.
    let mut ids: FxHashMap<String, Sid> = FxHashMap::default();
    let mut types: Vec<Option<Type>> = Vec::new();
    let mut spans: Vec<Span> = Vec::new();
    let inputs = spec.inputs.iter().map(|i| (&i.name, Some(i.ty), i.span));
    let outputs = spec.outputs.iter().map(|o| (&o.name, o.ty, o.span));
    for (name, ty, span) in inputs.chain(outputs) {
        if ids.insert(name.clone(), types.len()).is_some() {
            return Err(err(span, format!("stream `{name}` is declared twice")));
        }
        types.push(ty);
        spans.push(span);
    }
    let mut ck = Checker {
        file,
        text,
        ids,
        types,
        n_inputs: n_in,
        memory,
        current: 0,
        params: Vec::new(),
        param_types: FxHashMap::default(),
    };
    let mut compiled = check_outputs(&mut ck, spec)?;
    let mut dynamics: Vec<Option<Box<CDynamic>>> = Vec::new();
    for (k, o) in spec.outputs.iter().enumerate() {
        dynamics.push(match &o.dynamic {
            Some(d) => Some(Box::new(check_clauses(&mut ck, spec, n_in + k, d)?)),
            None => None,
        });
    }
    let names: Vec<String> = spec
        .inputs
        .iter()
        .map(|i| i.name.clone())
        .chain(spec.outputs.iter().map(|o| o.name.clone()))
        .collect();
    let n = names.len();
    let (edges, reads, sync_reads) = dependencies(&compiled, &dynamics, n, n_in);
    crate::graph::check_well_formed(&edges, &names).map_err(|(at, msg)| err(spans[at], msg))?;
    // Pacing: explicit, or the conjunction of what is read synchronously.
    let mut pacing: Vec<Option<Pace>> = (0..n)
        .map(|s| (s < n_in).then(|| Pace::Event(Dnf::input(s))))
        .collect();
    for k in 0..spec.outputs.len() {
        infer_pacing(
            n_in + k,
            spec,
            &sync_reads,
            &ck,
            &mut pacing,
            &mut vec![false; n],
            file,
            text,
        )?;
    }
    // Explicit pacing must guarantee the synchronous reads.
    sync_reads_paced(spec, &pacing, &sync_reads, &names).map_err(|(span, m)| err(span, m))?;
    real_time_rules(spec, &compiled, &pacing, n_in).map_err(|(span, m)| err(span, m))?;
    for (k, d) in dynamics.iter_mut().enumerate() {
        if let Some(d) = d {
            clause_paces(d, &spec.outputs[k], n_in + k, &pacing, &ck)?;
            let own = pacing[n_in + k].as_ref().expect("inferred");
            clause_windows(d, own, spec, n_in).map_err(|m| err(spec.outputs[k].span, m))?;
        }
    }
    let (report, unbounded_cycle) = crate::graph::report(&edges, &names, n_in);
    all_pasts_fit(&report, &ck.types, memory).map_err(|(s, m)| err(spans[s], m))?;
    let order = crate::graph::zero_weight_order(&edges, n_in);
    let mut trigger_index = 0;
    let outputs = spec
        .outputs
        .iter()
        .enumerate()
        .map(|(k, o)| {
            let (expr, message) = compiled[k].take().expect("compiled");
            let trigger = message.map(|m| {
                trigger_index += 1;
                (trigger_index - 1, m)
            });
            OutputInfo {
                name: o.name.clone(),
                ty: ck.types[n_in + k].expect("typed"),
                pacing: pacing[n_in + k].clone().expect("inferred"),
                dynamic: dynamics[k].take(),
                expr,
                trigger,
                reads: reads[k].clone(),
                at: err(o.expr.span, String::new()).pos.expect("a position"),
            }
        })
        .collect();
    let program = Program {
        inputs: spec.inputs.iter().map(|i| (i.name.clone(), i.ty)).collect(),
        outputs,
        order,
        report,
        unbounded_cycle,
        memory,
    };
    // The periods must make a schedule (as RTLola's analysis demands).
    if let Err(m) = crate::schedule::Schedule::new(&program) {
        let periodic = spec
            .outputs
            .iter()
            .find(|o| matches!(o.pacing, Some(Pacing::Periodic(..))));
        return Err(err(periodic.map_or((0, 0), |o| o.span), m.to_string()));
    }
    Ok(program)
}

/// Whether each output's pacing guarantees a value of every stream it reads synchronously;
/// if not, where (its pacing, or the output) and why. An event-based stream reads
/// event-based streams that have values at all its events; a periodic one reads periodic
/// streams whose period divides its own (they are evaluated at each of its deadlines).
fn sync_reads_paced(
    spec: &Spec,
    pacing: &[Option<Pace>],
    sync_reads: &[Vec<Sid>],
    names: &[String],
) -> Result<(), (Span, String)> {
    let n_in = spec.inputs.len();
    for (k, o) in spec.outputs.iter().enumerate() {
        let own = pacing[n_in + k].as_ref().expect("inferred");
        for &s in &sync_reads[k] {
            let theirs = pacing[s].as_ref().expect("inferred");
            if let Some(why) = unsynchronized(own, theirs, n_in) {
                let span = o.pacing.as_ref().and_then(pacing_span).unwrap_or(o.span);
                return Err((span, format!(
                    "`{}` is evaluated {}, but reads `{}` synchronously, which has values {}{why}; read it with `.hold()`{}",
                    o.name,
                    at_text(own, names),
                    names[s],
                    at_text(theirs, names),
                    if matches!(own, Pace::Periodic(_)) && matches!(theirs, Pace::Event(_)) {
                        " or a window (`.aggregate(over: …)`)"
                    } else {
                        " or change the pacing"
                    }
                )));
            }
        }
    }
    Ok(())
}

/// "at a ∨ b" or "every 0.1s".
fn at_text(p: &Pace, names: &[String]) -> String {
    match p {
        Pace::Event(_) => format!("at {}", p.describe(names)),
        Pace::Periodic(_) | Pace::Local(_) => p.describe(names),
    }
}

/// Why a stream paced `own` cannot read one paced `theirs` synchronously (`None`: it can).
fn unsynchronized(own: &Pace, theirs: &Pace, n_in: usize) -> Option<&'static str> {
    match (own, theirs) {
        (Pace::Event(own), Pace::Event(theirs)) => own
            .0
            .iter()
            .any(|c| {
                let mut fresh = vec![false; n_in];
                c.iter().for_each(|&i| fresh[i] = true);
                !theirs.holds(&fresh)
            })
            .then_some(""),
        (Pace::Periodic(own), Pace::Periodic(theirs)) | (Pace::Local(own), Pace::Local(theirs)) => {
            let ratio = own.times(theirs.recip());
            ratio
                .is_none_or(|r| r.den != 1)
                .then_some(" (its period does not divide this one's)")
        }
        _ => Some(""),
    }
}

/// Whether the past values that the offsets keep, of every stream together, fit in
/// `memory`; if not, the stream that keeps the most, and the message.
fn all_pasts_fit(
    report: &[StreamReport],
    types: &[Option<Type>],
    memory: MemoryLimit,
) -> Result<(), (Sid, String)> {
    let needs: Vec<u128> = report
        .iter()
        .zip(types)
        .map(|(r, t)| past_bytes(r.keep_past, t.expect("typed")))
        .collect();
    let what = || "the past values that the offsets of the specification keep".to_string();
    memory.check(needs.iter().sum(), what).map_err(|m| {
        let most = (0..needs.len()).max_by_key(|&s| needs[s]).unwrap_or(0);
        (most, m)
    })
}

fn pacing_span(p: &Pacing) -> Option<Span> {
    match p {
        Pacing::True => None,
        Pacing::Stream(_, s) | Pacing::Periodic(_, s, _) => Some(*s),
        Pacing::And(a, _) | Pacing::Or(a, _) => pacing_span(a),
    }
}

#[allow(clippy::too_many_arguments)]
fn infer_pacing(
    s: Sid,
    spec: &Spec,
    sync_reads: &[Vec<Sid>],
    ck: &Checker,
    pacing: &mut Vec<Option<Pace>>,
    visiting: &mut Vec<bool>,
    file: &str,
    text: &str,
) -> Result<Pace, Error> {
    if let Some(p) = &pacing[s] {
        return Ok(p.clone());
    }
    let k = s - spec.inputs.len();
    let o = &spec.outputs[k];
    let pace = if let Some(p) = &o.pacing {
        match p {
            Pacing::Periodic(period, _, clock) => {
                let spawned = o.dynamic.as_ref().is_some_and(|d| d.has_spawn());
                match clock {
                    Clock::Local => Pace::Local(*period),
                    Clock::Default if spawned => Pace::Local(*period),
                    _ => Pace::Periodic(*period),
                }
            }
            p => Pace::Event(explicit(p, ck)?),
        }
    } else {
        if sync_reads[k].is_empty() {
            return Err(Error::at_offset(file, text, o.span.0, format!(
                "`{}` reads no stream synchronously, so it would never be evaluated; give it a pacing (`@ true` for every event, `@ a` for the events where `a` has a value, or `@ 1Hz`)",
                o.name
            )));
        }
        visiting[s] = true;
        let mut acc: Option<Pace> = None;
        for &r in &sync_reads[k] {
            // A read through an offset back into a stream whose pacing is being inferred
            // (`c := c[-1, 0] + 1`) does not constrain it: the pacing is the largest solution.
            if visiting[r] {
                continue;
            }
            let p = infer_pacing(r, spec, sync_reads, ck, pacing, visiting, file, text)?;
            acc = Some(match acc {
                None => p,
                Some(a) => meet(a, p).map_err(|why| {
                    Error::at_offset(file, text, o.span.0, format!("`{}` {why}", o.name))
                })?,
            });
        }
        visiting[s] = false;
        match acc {
            Some(p) => p,
            None => return Err(Error::at_offset(file, text, o.span.0, format!(
                "the pacing of `{}` cannot be inferred: it reads only itself (through offsets); annotate it, e.g. `output {} @ a := …`",
                o.name, o.name
            ))),
        }
    };
    pacing[s] = Some(pace.clone());
    Ok(pace)
}

/// The pacing of a stream that reads streams paced `a` and `b` synchronously: the events
/// where both have values, or the deadlines they share. `Err`: why there is none.
fn meet(a: Pace, b: Pace) -> Result<Pace, &'static str> {
    Ok(match (a, b) {
        (Pace::Event(a), Pace::Event(b)) => Pace::Event(a.and(&b)),
        (Pace::Periodic(a), Pace::Periodic(b)) => Pace::Periodic(lcm(a, b).ok_or(TOO_FAR)?),
        (Pace::Local(a), Pace::Local(b)) => Pace::Local(lcm(a, b).ok_or(TOO_FAR)?),
        _ => return Err("reads event-based and periodic streams (or periodic ones on different clocks) synchronously; read one kind with `.hold()`, or annotate its pacing"),
    })
}

const TOO_FAR: &str =
    "reads periods that have no common multiple rvmon can represent; annotate its pacing";

/// The least common multiple of two periods: `lcm(a/b, c/d) = lcm(a, c) / gcd(b, d)`.
fn lcm(x: Ratio, y: Ratio) -> Option<Ratio> {
    fn gcd(a: i64, b: i64) -> i64 {
        if b == 0 {
            a
        } else {
            gcd(b, a % b)
        }
    }
    let num = (x.num / gcd(x.num, y.num)).checked_mul(y.num)?;
    Some(Ratio::new(num, gcd(x.den, y.den)))
}

/// An explicit pacing over input names (outputs in a pacing are not supported: their own
/// pacing would have to be used, which RTLola does not do either).
fn explicit(p: &Pacing, ck: &Checker) -> Result<Dnf, Error> {
    Ok(match p {
        Pacing::True => Dnf::every_event(),
        Pacing::Stream(name, span) => {
            let s = ck.stream(name, *span)?;
            if s >= ck.n_inputs {
                return Err(ck.err(
                    *span,
                    format!("a pacing names input streams; `{name}` is an output"),
                ));
            }
            Dnf::input(s)
        }
        Pacing::And(a, b) => explicit(a, ck)?.and(&explicit(b, ck)?),
        Pacing::Or(a, b) => explicit(a, ck)?.or(&explicit(b, ck)?),
        Pacing::Periodic(_, span, _) => {
            return Err(ck.err(
                *span,
                "a frequency cannot be combined with streams in a pacing",
            ))
        }
    })
}
