//! Expressions compiled to typed closures, for the immediate engine.
//!
//! The analysis knows every stream's type, so an expression's type is known before the
//! trace is read: `x > 0.0 && y.offset(by: -1).defaults(to: 1.0) <= 0.0` becomes closures over
//! `f64` and `bool` that read the rings directly, with no value enum to match on and no
//! arithmetic dispatch on operand types. The semantics are those of [`crate::eval`] (the
//! same helpers for arithmetic and comparisons; the rare nodes — functions, casts,
//! `format` — run through its `Val` functions); the property test `immediate_matches_general`
//! checks both on random specifications.

use std::rc::Rc;

use rvmon_core::Error;

use crate::analysis::{Aggregation, CExpr, CWindow, Sid};
use crate::ast::InstanceAccess;
use crate::ast::{BinOp, Type};
use crate::eval::{bug, call, cast, comparison_holds, format_template, is_arithmetic, Arith};
use crate::instances::{key, Instances, KeyPart};
use crate::value::Val;
use crate::window::WindowState;
use rustc_hash::FxHashMap;

/// Why an expression has no value.
pub(crate) enum Stop {
    /// No value (an offset before the first value, `get` of a stale stream, …); a default
    /// catches it.
    Absent,
    Fail(Box<Error>),
}

pub(crate) type Res<T> = Result<T, Stop>;
type F<T> = Box<dyn Fn(&Store) -> Res<T>>;

/// A compiled expression, by result type.
pub(crate) enum Code {
    Bool(F<bool>),
    Int(F<i64>),
    UInt(F<u64>),
    Float(F<f64>),
    Str(F<Rc<str>>),
}

/// A stream's latest values: slot `i & mask` holds value `i`. Numbers and Booleans are kept
/// as bits, strings beside them.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
pub(crate) struct Ring {
    pub bits: Vec<u64>,
    pub strs: Vec<Rc<str>>,
    pub mask: u64,
    /// How many values the stream has had.
    pub count: u64,
    /// Number (1-based) of the event of the latest value; 0: none yet.
    pub last_event: u64,
    /// For outputs: the event whose value has been computed (see [`Store::check_computed`]).
    pub computed: u64,
}

impl Ring {
    pub fn new(keep_past: u64, ty: Type) -> Ring {
        let len = (keep_past + 1).next_power_of_two();
        Ring {
            bits: vec![0; len as usize],
            strs: if ty == Type::Str {
                vec![Rc::from(""); len as usize]
            } else {
                Vec::new()
            },
            mask: len - 1,
            count: 0,
            last_event: 0,
            computed: 0,
        }
    }

    /// Appends a value (a slot to be written, for an output).
    pub fn push(&mut self, event: u64) -> usize {
        let slot = (self.count & self.mask) as usize;
        self.count += 1;
        self.last_event = event;
        slot
    }

    pub fn set(&mut self, slot: usize, v: &Val) {
        self.bits[slot] = match v {
            Val::Bool(b) => u64::from(*b),
            Val::Int(i) => *i as u64,
            Val::UInt(u) => *u,
            Val::Float(x) => x.to_bits(),
            Val::Str(s) => {
                self.strs[slot] = s.clone();
                0
            }
        };
    }

    pub fn get(&self, slot: usize, ty: Type) -> Val {
        let b = self.bits[slot];
        match ty {
            Type::Bool => Val::Bool(b != 0),
            Type::Int => Val::Int(b as i64),
            Type::UInt => Val::UInt(b),
            Type::Float => Val::Float(f64::from_bits(b)),
            Type::Str => Val::Str(self.strs[slot].clone()),
        }
    }
}

/// A window over one instance. When the instance closes, a window over time stays (sliding,
/// with no new values) for one duration, as RTLola keeps it; then it goes.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
pub(crate) struct Keyed {
    pub window: WindowState,
    /// Removed at the first cycle after this time.
    pub delete_after: Option<i64>,
}

/// What compiled code reads: every stream's ring and window, the current cycle's number
/// and time.
#[derive(serde::Serialize, serde::Deserialize)]
pub(crate) struct Store {
    pub rings: Vec<Ring>,
    pub windows: Vec<WindowState>,
    /// The cycle: an event, or a deadline of the periodic streams (counted from 1).
    pub now: u64,
    /// The cycle's time, in nanoseconds.
    pub time: i64,
    /// The parameters of the instance being evaluated, and its stream and handle (its ring
    /// is the stream's meanwhile).
    pub params: Vec<Val>,
    pub entered: Option<(Sid, u64)>,
    /// Per window over instances of a parameterized stream: each instance's, by parameters.
    pub keyed: Vec<Option<FxHashMap<Vec<KeyPart>, Keyed>>>,
    /// Per stream: its instances, for a parameterized one (the one being evaluated has its
    /// ring in `rings` meanwhile).
    pub instances: Vec<Option<Instances>>,
    /// Streams `0..inputs` are inputs; the rest are outputs.
    pub inputs: usize,
}

impl Store {
    /// The slot of value `idx` of stream `s`: an error if it is not held (the analysis'
    /// memory bound was wrong), `Absent` if before the first value.
    #[inline]
    fn slot(&self, s: Sid, idx: i64) -> Res<usize> {
        let r = &self.rings[s];
        if idx < 0 {
            return Err(Stop::Absent);
        }
        let idx = idx as u64;
        if idx >= r.count || r.count - idx > r.bits.len() as u64 {
            return Err(Stop::Fail(bug(
                "the immediate engine read outside a stream's ring",
            )));
        }
        Ok((idx & r.mask) as usize)
    }

    /// The latest value of an output whose value at this event is read must be computed
    /// already; the evaluation order guarantees it, and this checks it.
    #[inline]
    fn check_computed(&self, s: Sid) -> Res<()> {
        let r = &self.rings[s];
        if s >= self.inputs && r.last_event == self.now && r.computed != self.now {
            return Err(Stop::Fail(bug(
                "the immediate engine read a value before computing it",
            )));
        }
        Ok(())
    }
}

/// Numbers and Booleans as ring bits.
pub(crate) trait Bits: Copy + PartialOrd + 'static {
    fn from_bits(b: u64) -> Self;
}
impl Bits for bool {
    fn from_bits(b: u64) -> bool {
        b != 0
    }
}
impl Bits for i64 {
    fn from_bits(b: u64) -> i64 {
        b as i64
    }
}
impl Bits for u64 {
    fn from_bits(b: u64) -> u64 {
        b
    }
}
impl Bits for f64 {
    fn from_bits(b: u64) -> f64 {
        f64::from_bits(b)
    }
}

/// Where an access reads, relative to a stream's latest value.
#[derive(Clone, Copy)]
enum Access {
    /// The latest value, which exists (synchronous access, or offset 0).
    Latest,
    /// `k` values back (k ≤ 0).
    Offset(i64),
    /// The latest value if any.
    Hold,
    /// The latest value if it came at this event.
    Get,
}

fn locate(st: &Store, s: Sid, a: Access) -> Res<usize> {
    let r = &st.rings[s];
    let idx = match a {
        Access::Latest => {
            st.check_computed(s)?;
            r.count as i64 - 1
        }
        Access::Offset(k) => {
            if k == 0 {
                st.check_computed(s)?;
            }
            r.count as i64 - 1 + k
        }
        Access::Hold => {
            st.check_computed(s)?;
            r.count as i64 - 1
        }
        Access::Get => {
            if r.last_event != st.now {
                return Err(Stop::Absent);
            }
            st.check_computed(s)?;
            r.count as i64 - 1
        }
    };
    st.slot(s, idx)
}

fn read<T: Bits>(s: Sid, a: Access) -> F<T> {
    Box::new(move |st| Ok(T::from_bits(st.rings[s].bits[locate(st, s, a)?])))
}

/// What compiling needs and collects: every stream's type, and the windows met, in order
/// (the code of the `i`-th reads the store's `windows[i]`).
pub(crate) struct Cx<'a> {
    pub ty: &'a dyn Fn(Sid) -> Type,
    pub windows: Vec<CWindow>,
    /// The parameter types of the stream whose expressions are compiled.
    pub params: Vec<Type>,
}

/// Compiles `e`.
pub(crate) fn compile(e: &CExpr, cx: &mut Cx) -> Code {
    let ty = cx.ty;
    let access = |s: Sid, a: Access| match ty(s) {
        Type::Bool => Code::Bool(read(s, a)),
        Type::Int => Code::Int(read(s, a)),
        Type::UInt => Code::UInt(read(s, a)),
        Type::Float => Code::Float(read(s, a)),
        Type::Str => Code::Str(Box::new(move |st| {
            Ok(st.rings[s].strs[locate(st, s, a)?].clone())
        })),
    };
    match e {
        CExpr::Const(v) => {
            let v = v.clone();
            match v {
                Val::Bool(b) => Code::Bool(Box::new(move |_| Ok(b))),
                Val::Int(i) => Code::Int(Box::new(move |_| Ok(i))),
                Val::UInt(u) => Code::UInt(Box::new(move |_| Ok(u))),
                Val::Float(x) => Code::Float(Box::new(move |_| Ok(x))),
                Val::Str(s) => Code::Str(Box::new(move |_| Ok(s.clone()))),
            }
        }
        CExpr::Sync(s) => access(*s, Access::Latest),
        CExpr::Offset(s, k) => access(*s, Access::Offset(*k)),
        CExpr::Hold(s) => access(*s, Access::Hold),
        CExpr::Get(s) => access(*s, Access::Get),
        CExpr::Fresh(s) => {
            let s = *s;
            Code::Bool(Box::new(move |st| Ok(st.rings[s].last_event == st.now)))
        }
        CExpr::Default(a, d) => defaulted(a, d, cx),
        CExpr::Not(a) => match compile(a, cx) {
            Code::Bool(a) => Code::Bool(Box::new(move |st| Ok(!a(st)?))),
            other => generic(vec![other], Type::Bool, |_| {
                Err(bug("`!` of a non-Boolean"))
            }),
        },
        CExpr::Neg(a) => match compile(a, cx) {
            Code::Int(a) => Code::Int(Box::new(move |st| Ok(a(st)?.wrapping_neg()))),
            Code::Float(a) => Code::Float(Box::new(move |st| Ok(-a(st)?))),
            other => {
                let t = other.ty();
                generic(vec![other], t, |_| Err(bug("`-` of a non-number")))
            }
        },
        CExpr::Bin(op @ (BinOp::And | BinOp::Or | BinOp::Implies), a, b) => {
            match (compile(a, cx), compile(b, cx)) {
                (Code::Bool(a), Code::Bool(b)) => Code::Bool(logic(*op, a, b)),
                (a, b) => generic(vec![a, b], Type::Bool, |_| {
                    Err(bug("a Boolean operator on non-Booleans"))
                }),
            }
        }
        CExpr::Bin(op, a, b) if is_arithmetic(*op) => {
            let op = *op;
            fn arith<T: Arith + 'static>(op: BinOp, a: F<T>, b: F<T>) -> F<T> {
                Box::new(move |st| {
                    let x = a(st)?;
                    T::apply(op, x, b(st)?).map_err(Stop::Fail)
                })
            }
            same_type(compile(a, cx), compile(b, cx), |a, b| match (a, b) {
                (Code::Int(a), Code::Int(b)) => Ok(Code::Int(arith(op, a, b))),
                (Code::UInt(a), Code::UInt(b)) => Ok(Code::UInt(arith(op, a, b))),
                (Code::Float(a), Code::Float(b)) => Ok(Code::Float(arith(op, a, b))),
                (a, b) => Err((a, b)),
            })
        }
        CExpr::Bin(op, a, b) => {
            let op = *op;
            fn cmp<T: PartialOrd + 'static>(op: BinOp, a: F<T>, b: F<T>) -> F<bool> {
                Box::new(move |st| {
                    let x = a(st)?;
                    Ok(comparison_holds(op, x.partial_cmp(&b(st)?)))
                })
            }
            match (compile(a, cx), compile(b, cx)) {
                (Code::Bool(a), Code::Bool(b)) => Code::Bool(cmp(op, a, b)),
                (Code::Int(a), Code::Int(b)) => Code::Bool(cmp(op, a, b)),
                (Code::UInt(a), Code::UInt(b)) => Code::Bool(cmp(op, a, b)),
                (Code::Float(a), Code::Float(b)) => Code::Bool(cmp(op, a, b)),
                (Code::Str(a), Code::Str(b)) => Code::Bool(cmp(op, a, b)),
                (a, b) => generic(vec![a, b], Type::Bool, |_| {
                    Err(bug("a comparison of different types"))
                }),
            }
        }
        CExpr::Ite(c, a, b) => {
            fn ite<T: 'static>(c: F<bool>, a: F<T>, b: F<T>) -> F<T> {
                Box::new(move |st| if c(st)? { a(st) } else { b(st) })
            }
            let Code::Bool(c) = compile(c, cx) else {
                return generic(vec![], Type::Bool, |_| Err(bug("`if` on a non-Boolean")));
            };
            same_type(compile(a, cx), compile(b, cx), |a, b| match (a, b) {
                (Code::Bool(a), Code::Bool(b)) => Ok(Code::Bool(ite(c, a, b))),
                (Code::Int(a), Code::Int(b)) => Ok(Code::Int(ite(c, a, b))),
                (Code::UInt(a), Code::UInt(b)) => Ok(Code::UInt(ite(c, a, b))),
                (Code::Float(a), Code::Float(b)) => Ok(Code::Float(ite(c, a, b))),
                (Code::Str(a), Code::Str(b)) => Ok(Code::Str(ite(c, a, b))),
                (a, b) => Err((a, b)),
            })
        }
        CExpr::Call(f, args) => {
            let f = *f;
            let args: Vec<Code> = args.iter().map(|a| compile(a, cx)).collect();
            let result = match f {
                crate::analysis::Func::Min
                | crate::analysis::Func::Max
                | crate::analysis::Func::Abs => args.first().map_or(Type::Float, Code::ty),
                _ => Type::Float,
            };
            generic(args, result, move |vals| call(f, vals))
        }
        CExpr::Cast(to, a) => {
            let to = *to;
            generic(vec![compile(a, cx)], to, move |mut vals| {
                Ok(cast(to, vals.pop().expect("one argument")))
            })
        }
        CExpr::Window(w) => window(w, cx),
        CExpr::Param(i) => {
            let i = *i;
            let t = cx.params.get(i).copied().unwrap_or(Type::Int);
            typed(t, move |st: &Store| {
                st.params
                    .get(i)
                    .cloned()
                    .ok_or_else(|| Stop::Fail(bug("a parameter read outside an instance")))
            })
        }
        CExpr::Instance(s, args, access) => instance(*s, args, *access, cx),
        CExpr::Format(template, args) => {
            let template = template.clone();
            let args = args.iter().map(|a| compile(a, cx)).collect();
            generic(args, Type::Str, move |vals| {
                Ok(Val::Str(format_template(&template, &vals).into()))
            })
        }
    }
}

/// `a.defaults(to: d)`: `d` where `a` is absent.
fn defaulted(a: &CExpr, d: &CExpr, cx: &mut Cx) -> Code {
    fn default<T: 'static>(a: F<T>, d: F<T>) -> F<T> {
        Box::new(move |st| match a(st) {
            Err(Stop::Absent) => d(st),
            r => r,
        })
    }
    same_type(compile(a, cx), compile(d, cx), |a, d| match (a, d) {
        (Code::Bool(a), Code::Bool(d)) => Ok(Code::Bool(default(a, d))),
        (Code::Int(a), Code::Int(d)) => Ok(Code::Int(default(a, d))),
        (Code::UInt(a), Code::UInt(d)) => Ok(Code::UInt(default(a, d))),
        (Code::Float(a), Code::Float(d)) => Ok(Code::Float(default(a, d))),
        (Code::Str(a), Code::Str(d)) => Ok(Code::Str(default(a, d))),
        (a, d) => Err((a, d)),
    })
}

/// A window's aggregate: the store's window `i` (the `i`-th met), or, over one instance of a
/// parameterized stream, that instance's own.
fn window(w: &CWindow, cx: &mut Cx) -> Code {
    let i = cx.windows.len();
    cx.windows.push(w.clone());
    let result = match w.op {
        Aggregation::Count => Type::UInt,
        Aggregation::Integral => Type::Float,
        _ => w.target_ty,
    };
    if w.args.is_empty() {
        return typed(result, move |st: &Store| {
            st.windows[i].value(st.time).ok_or(Stop::Absent)
        });
    }
    // Over one instance: its own window, kept while it lives.
    let args: Vec<Code> = w.args.iter().map(|a| compile(a, cx)).collect();
    let empty = crate::window::empty_value(w.op, w.target_ty);
    typed(result, move |st: &Store| {
        let mut vals = Vec::with_capacity(args.len());
        for a in &args {
            vals.push(a.eval(st)?);
        }
        let window = st.keyed[i].as_ref().and_then(|m| m.get(&key(&vals)));
        let window = window.map(|k| &k.window);
        match window {
            Some(w) => w.value(st.time),
            None => empty.clone(),
        }
        .ok_or(Stop::Absent)
    })
}

/// `s(args…)` read with `access`: absent when there is no such instance or value.
fn instance(s: Sid, args: &[CExpr], access: InstanceAccess, cx: &mut Cx) -> Code {
    let args: Vec<Code> = args.iter().map(|a| compile(a, cx)).collect();
    let t = (cx.ty)(s);
    let result = if access == InstanceAccess::Fresh {
        Type::Bool
    } else {
        t
    };
    typed(result, move |st: &Store| {
        let mut vals = Vec::with_capacity(args.len());
        for a in &args {
            vals.push(a.eval(st)?);
        }
        let found = st.instances[s]
            .as_ref()
            .and_then(|i| i.get_with_handle(&vals));
        // The instance being evaluated, named by values: its ring is the stream's now.
        let r = match found {
            Some((h, _)) if st.entered == Some((s, h)) => Some(&st.rings[s]),
            found => found.map(|(_, i)| &i.ring),
        };
        let fresh = r.is_some_and(|r| r.count > 0 && r.last_event == st.now);
        let Some(r) = r else {
            return match access {
                InstanceAccess::Fresh => Ok(Val::Bool(false)),
                _ => Err(Stop::Absent),
            };
        };
        // How many values back from the latest (an offset counts from the value of this
        // cycle, or from the one before it when the instance has none yet).
        let back = match access {
            InstanceAccess::Fresh => return Ok(Val::Bool(fresh)),
            InstanceAccess::Sync | InstanceAccess::Hold => 0,
            InstanceAccess::Get if fresh => 0,
            InstanceAccess::Get => return Err(Stop::Absent),
            InstanceAccess::Offset(k) => k.unsigned_abs() - u64::from(!fresh && k != 0),
        };
        if back >= r.count {
            return Err(Stop::Absent);
        }
        if back >= r.bits.len() as u64 {
            return Err(Stop::Fail(bug(
                "an instance's offset reads outside its ring",
            )));
        }
        Ok(r.get(((r.count - 1 - back) & r.mask) as usize, t))
    })
}

/// Joins two operands of one type with `join`; operands of different types (which the
/// analysis rules out) compile to code that reports the bug when run.
fn same_type(
    a: Code,
    b: Code,
    join: impl FnOnce(Code, Code) -> Result<Code, (Code, Code)>,
) -> Code {
    match join(a, b) {
        Ok(c) => c,
        Err((a, _)) => {
            let t = a.ty();
            generic(vec![], t, |_| Err(bug("operands of different types")))
        }
    }
}

/// `&&`, `||`, `->`, deciding as the general engine does: an operand that decides the result
/// does so even if the other one fails.
fn logic(op: BinOp, a: F<bool>, b: F<bool>) -> F<bool> {
    // The operand value that decides the result whichever the other one is.
    let (left_decides, right_decides) = match op {
        BinOp::And => (false, false),
        BinOp::Or => (true, true),
        _ => (false, true),
    };
    let decided = op != BinOp::And;
    Box::new(move |st| {
        let ra = a(st);
        if matches!(ra, Ok(x) if x == left_decides) {
            return Ok(decided);
        }
        let rb = b(st);
        if matches!(rb, Ok(y) if y == right_decides) {
            return Ok(decided);
        }
        match (ra, rb) {
            (Ok(_), Ok(y)) => Ok(y),
            (Err(Stop::Fail(e)), _) | (_, Err(Stop::Fail(e))) => Err(Stop::Fail(e)),
            _ => Err(Stop::Fail(bug("a Boolean operand has no value"))),
        }
    })
}

/// A node evaluated on [`Val`]s: its arguments' values go to `f`, whose result must be of
/// type `result`.
fn generic(
    args: Vec<Code>,
    result: Type,
    f: impl Fn(Vec<Val>) -> Result<Val, Box<Error>> + 'static,
) -> Code {
    let f = Rc::new(f);
    let run = move |st: &Store| -> Res<Val> {
        let mut vals = Vec::with_capacity(args.len());
        for a in &args {
            vals.push(a.eval(st)?);
        }
        f(vals).map_err(Stop::Fail)
    };
    typed(result, run)
}

/// Code of type `result` from a computation of [`Val`]s.
fn typed(result: Type, run: impl Fn(&Store) -> Res<Val> + 'static) -> Code {
    let mismatch = |v: Val| Stop::Fail(bug(&format!("a value of the wrong type: {v}")));
    match result {
        Type::Bool => Code::Bool(Box::new(move |st| match run(st)? {
            Val::Bool(b) => Ok(b),
            v => Err(mismatch(v)),
        })),
        Type::Int => Code::Int(Box::new(move |st| match run(st)? {
            Val::Int(i) => Ok(i),
            v => Err(mismatch(v)),
        })),
        Type::UInt => Code::UInt(Box::new(move |st| match run(st)? {
            Val::UInt(u) => Ok(u),
            v => Err(mismatch(v)),
        })),
        Type::Float => Code::Float(Box::new(move |st| match run(st)? {
            Val::Float(x) => Ok(x),
            v => Err(mismatch(v)),
        })),
        Type::Str => Code::Str(Box::new(move |st| match run(st)? {
            Val::Str(s) => Ok(s),
            v => Err(mismatch(v)),
        })),
    }
}

impl Code {
    pub fn ty(&self) -> Type {
        match self {
            Code::Bool(_) => Type::Bool,
            Code::Int(_) => Type::Int,
            Code::UInt(_) => Type::UInt,
            Code::Float(_) => Type::Float,
            Code::Str(_) => Type::Str,
        }
    }

    pub fn eval(&self, st: &Store) -> Res<Val> {
        Ok(match self {
            Code::Bool(f) => Val::Bool(f(st)?),
            Code::Int(f) => Val::Int(f(st)?),
            Code::UInt(f) => Val::UInt(f(st)?),
            Code::Float(f) => Val::Float(f(st)?),
            Code::Str(f) => Val::Str(f(st)?),
        })
    }
}
