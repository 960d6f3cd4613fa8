//! The online stream engine: partial evaluation, as in Lola (note B §1.9).
//!
//! At each event the inputs that have values are appended to their histories, every output
//! whose pacing holds gets a new (still unknown) value, and those values are evaluated in
//! dependency order. A value that reads one not yet known — a future offset, or an output that
//! is itself waiting — becomes a *pending instance*: it keeps the positions it reads from
//! (each stream's value count and freshness at its event) and waits on the first unknown value
//! it met; when that value is decided, it is evaluated again. `&&`, `||` and `->` decide as
//! soon as one side does. At the end of the trace offsets past the end take their defaults
//! and everything is decided.
//!
//! Histories keep only what the offsets read (the analysis' `keep_past`) and what pending
//! instances may still read, so an efficiently monitorable specification runs in memory that
//! does not grow with the trace; triggers are reported in event order as soon as every
//! earlier trigger value is decided.

use std::collections::{BTreeMap, BTreeSet, VecDeque};

use rustc_hash::FxHashMap;
use rvmon_core::Error;

use crate::analysis::{CExpr, CMessage, Func, Program, Sid};
use crate::ast::{BinOp, Type};
use crate::value::Val;

/// One event: its time in nanoseconds and a value (or none) per input stream.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Event {
    pub time: i64,
    pub values: Vec<Option<Val>>,
}

/// An output value, decided (see [`StreamEngine::record_outputs`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Decided {
    /// The output's index in declaration order.
    pub output: usize,
    /// Which of the output's values (0-based).
    pub index: u64,
    pub event: u64,
    pub time: i64,
    pub value: Val,
}

/// A trigger that fired.
#[derive(Clone, Debug, PartialEq)]
pub struct Firing {
    /// 0-based index of the event.
    pub event: u64,
    /// Its time in nanoseconds.
    pub time: i64,
    /// Index among the triggers (RTLola's `#i`).
    pub trigger: usize,
    pub message: String,
}

#[derive(Debug, Default)]
struct History {
    /// Absolute index of `vals[0]`.
    base: u64,
    /// `None`: the value is not decided yet.
    vals: VecDeque<Option<Val>>,
    /// Event index + 1 of the latest value (0: none yet).
    last_event: u64,
}

impl History {
    fn count(&self) -> u64 {
        self.base + self.vals.len() as u64
    }
}

#[derive(Debug)]
struct Pending {
    out: usize,
    idx: u64,
    event: u64,
    time: i64,
    /// Per stream in the output's `reads`: its value count and freshness at the event.
    anchors: Vec<(u64, bool)>,
}

/// A partial evaluation's result.
enum R {
    V(Val),
    Absent,
    /// Waiting for value `.1` of stream `.0`.
    Wait(Sid, u64),
    Fail(Box<Error>),
}

/// An output's evaluation: its value and trigger message, or what it waits for.
enum Out {
    Done(Val, Option<String>),
    Wait(Sid, u64),
    Fail(Box<Error>),
}

/// Where accesses are resolved from: the current event, or a pending instance's event.
enum At<'a> {
    Now(u64),
    Then(&'a [Sid], &'a [(u64, bool)]),
}

pub struct StreamEngine {
    prog: Program,
    hist: Vec<History>,
    events: u64,
    ended: bool,
    pending: Vec<Option<Pending>>,
    free: Vec<usize>,
    live_pending: usize,
    waiters: FxHashMap<(Sid, u64), Vec<usize>>,
    /// (event, trigger) of trigger values not decided yet.
    pending_triggers: BTreeSet<(u64, usize)>,
    ready: BTreeMap<(u64, usize), Firing>,
    /// The lowest value count a pending instance anchors at, per stream (conservative).
    floor: Vec<u64>,
    fresh: Vec<bool>,
    /// `fresh` as a bit mask, and each output's pacing as masks (`None`: over 64 inputs).
    fresh_mask: u64,
    pacing_masks: Vec<Option<Vec<u64>>>,
    ticked: Vec<bool>,
    work: Vec<usize>,
    /// When recording: every decided output value.
    decided: Option<Vec<Decided>>,
}

impl StreamEngine {
    pub fn new(prog: Program) -> StreamEngine {
        let n = prog.stream_count();
        StreamEngine {
            hist: (0..n).map(|_| History::default()).collect(),
            events: 0,
            ended: false,
            pending: Vec::new(),
            free: Vec::new(),
            live_pending: 0,
            waiters: FxHashMap::default(),
            pending_triggers: BTreeSet::new(),
            ready: BTreeMap::new(),
            floor: vec![u64::MAX; n],
            fresh: vec![false; prog.inputs.len()],
            fresh_mask: 0,
            pacing_masks: prog.outputs.iter().map(|o| o.pacing.masks()).collect(),
            ticked: vec![false; prog.outputs.len()],
            work: Vec::new(),
            decided: None,
            prog,
        }
    }

    /// Records every output value as it is decided (see [`StreamEngine::take_decided`]).
    pub fn record_outputs(&mut self) {
        self.decided = Some(Vec::new());
    }

    /// The output values decided since the last call, in the order they were decided.
    pub fn take_decided(&mut self) -> Vec<Decided> {
        self.decided
            .as_mut()
            .map(std::mem::take)
            .unwrap_or_default()
    }

    pub fn program(&self) -> &Program {
        &self.prog
    }

    /// Values held in histories and pending instances (for memory checks).
    pub fn retained(&self) -> usize {
        self.hist.iter().map(|h| h.vals.len()).sum::<usize>() + self.live_pending
    }

    /// Feeds one event; appends the triggers decided so far, in event order.
    pub fn step(&mut self, ev: &Event, out: &mut Vec<Firing>) -> Result<(), Error> {
        let e = self.events;
        self.events += 1;
        let n_in = self.prog.inputs.len();
        self.fresh_mask = 0;
        for i in 0..n_in {
            let v = ev.values.get(i).cloned().flatten();
            self.fresh[i] = v.is_some();
            if v.is_some() && i < 64 {
                self.fresh_mask |= 1 << i;
            }
            if let Some(v) = v {
                let h = &mut self.hist[i];
                h.vals.push_back(Some(v));
                h.last_event = e + 1;
                if !self.waiters.is_empty() {
                    let idx = h.count() - 1;
                    self.wake(i, idx);
                }
            }
        }
        for k in 0..self.prog.outputs.len() {
            let t = match &self.pacing_masks[k] {
                Some(masks) => masks.iter().any(|m| m & !self.fresh_mask == 0),
                None => self.prog.outputs[k].pacing.holds(&self.fresh),
            };
            self.ticked[k] = t;
            if t {
                let h = &mut self.hist[n_in + k];
                h.vals.push_back(None);
                h.last_event = e + 1;
            }
        }
        for j in 0..self.prog.order.len() {
            let k = self.prog.order[j];
            if !self.ticked[k] {
                continue;
            }
            let idx = self.hist[n_in + k].count() - 1;
            match self.eval_output(k, &At::Now(e)) {
                Out::Done(v, msg) => self.decide(k, idx, v, msg, e, ev.time)?,
                Out::Fail(err) => return Err(*err),
                Out::Wait(s, j) => {
                    let anchors = self.prog.outputs[k]
                        .reads
                        .iter()
                        .map(|&s| (self.hist[s].count(), self.hist[s].last_event == e + 1))
                        .collect();
                    self.park(
                        Pending {
                            out: k,
                            idx,
                            event: e,
                            time: ev.time,
                            anchors,
                        },
                        s,
                        j,
                    );
                }
            }
        }
        self.run_work()?;
        self.release(out);
        self.trim();
        Ok(())
    }

    /// Ends the trace: offsets past the end take their defaults; every value is decided.
    pub fn finish(&mut self, out: &mut Vec<Firing>) -> Result<(), Error> {
        self.ended = true;
        let mut ids: Vec<(u64, usize)> = self
            .pending
            .iter()
            .enumerate()
            .filter_map(|(id, p)| p.as_ref().map(|p| (p.event, id)))
            .collect();
        // Latest first: a chain of future reads (`y := x || y[1, false]`) then decides in one
        // pass instead of waking each instance once per later one.
        ids.sort_unstable_by(|a, b| b.cmp(a));
        self.waiters.clear();
        self.work.extend(ids.into_iter().map(|(_, id)| id));
        self.run_work()?;
        if self.live_pending > 0 {
            return Err(Error::msg(
                "internal error: stream values left undecided at the end of the trace",
            ));
        }
        self.release(out);
        Ok(())
    }

    fn park(&mut self, p: Pending, s: Sid, j: u64) {
        for (r, &(count, _)) in self.prog.outputs[p.out].reads.iter().zip(&p.anchors) {
            self.floor[*r] = self.floor[*r].min(count);
        }
        if let Some((t, _)) = &self.prog.outputs[p.out].trigger {
            self.pending_triggers.insert((p.event, *t));
        }
        let id = match self.free.pop() {
            Some(id) => {
                self.pending[id] = Some(p);
                id
            }
            None => {
                self.pending.push(Some(p));
                self.pending.len() - 1
            }
        };
        self.live_pending += 1;
        self.waiters.entry((s, j)).or_default().push(id);
    }

    fn wake(&mut self, s: Sid, idx: u64) {
        if let Some(ids) = self.waiters.remove(&(s, idx)) {
            self.work.extend(ids);
        }
    }

    fn run_work(&mut self) -> Result<(), Error> {
        while let Some(id) = self.work.pop() {
            let p = self.pending[id].take().expect("a live pending instance");
            let at = At::Then(&self.prog.outputs[p.out].reads, &p.anchors);
            match self.eval_output(p.out, &at) {
                Out::Fail(e) => return Err(*e),
                Out::Done(v, msg) => {
                    self.live_pending -= 1;
                    self.free.push(id);
                    if let Some((t, _)) = &self.prog.outputs[p.out].trigger {
                        self.pending_triggers.remove(&(p.event, *t));
                    }
                    self.decide(p.out, p.idx, v, msg, p.event, p.time)?;
                }
                Out::Wait(s, j) => {
                    self.pending[id] = Some(p);
                    self.waiters.entry((s, j)).or_default().push(id);
                }
            }
        }
        Ok(())
    }

    /// Records output `k`'s value `idx`, fires its trigger, wakes its readers.
    fn decide(
        &mut self,
        k: usize,
        idx: u64,
        v: Val,
        msg: Option<String>,
        event: u64,
        time: i64,
    ) -> Result<(), Error> {
        let s = self.prog.inputs.len() + k;
        let h = &mut self.hist[s];
        if idx >= h.base {
            h.vals[(idx - h.base) as usize] = Some(v.clone());
        }
        if let Some(d) = &mut self.decided {
            d.push(Decided {
                output: k,
                index: idx,
                event,
                time,
                value: v.clone(),
            });
        }
        if let (Some((t, _)), Val::Bool(true)) = (&self.prog.outputs[k].trigger, &v) {
            self.ready.insert(
                (event, *t),
                Firing {
                    event,
                    time,
                    trigger: *t,
                    message: msg.unwrap_or_default(),
                },
            );
        }
        if !self.waiters.is_empty() {
            self.wake(s, idx);
        }
        Ok(())
    }

    fn release(&mut self, out: &mut Vec<Firing>) {
        let limit = self.pending_triggers.first().copied();
        while let Some(entry) = self.ready.first_entry() {
            if limit.is_some_and(|l| *entry.key() >= l) {
                break;
            }
            out.push(entry.remove());
        }
    }

    fn trim(&mut self) {
        if self.live_pending == 0 {
            self.floor.iter_mut().for_each(|f| *f = u64::MAX);
        } else if self.live_pending <= 32 || self.events & 63 == 0 {
            // Let the floors rise again as old instances are decided (every event while
            // that is cheap).
            self.floor.iter_mut().for_each(|f| *f = u64::MAX);
            for p in self.pending.iter().flatten() {
                for (r, &(count, _)) in self.prog.outputs[p.out].reads.iter().zip(&p.anchors) {
                    self.floor[*r] = self.floor[*r].min(count);
                }
            }
        }
        for (s, h) in self.hist.iter_mut().enumerate() {
            let newest = h.count().min(self.floor[s]);
            // The latest value (for `hold` and the current one) and `keep_past` before it.
            let keep_from = newest.saturating_sub(1 + self.prog.report[s].keep_past);
            while h.base < keep_from && h.vals.front().is_some_and(Option::is_some) {
                h.vals.pop_front();
                h.base += 1;
            }
        }
    }

    /// Evaluates output `k` (and its trigger message).
    fn eval_output(&self, k: usize, at: &At) -> Out {
        let o = &self.prog.outputs[k];
        let v = match self.eval(&o.expr, at) {
            R::V(v) => v,
            R::Wait(s, j) => return Out::Wait(s, j),
            R::Fail(e) => return Out::Fail(e),
            R::Absent => return Out::Fail(bug(&format!("`{}` has no value", o.name))),
        };
        let msg = match (&o.trigger, &v) {
            (Some((_, CMessage::Text(t))), Val::Bool(true)) => Some(t.clone()),
            (Some((_, CMessage::Computed(m))), Val::Bool(true)) => match self.eval(m, at) {
                R::V(m) => Some(m.to_string()),
                R::Wait(s, j) => return Out::Wait(s, j),
                R::Fail(e) => return Out::Fail(e),
                R::Absent => Some(String::new()),
            },
            _ => None,
        };
        Out::Done(v, msg)
    }

    fn anchor(&self, s: Sid, at: &At) -> (u64, bool) {
        match at {
            At::Now(e) => (self.hist[s].count(), self.hist[s].last_event == e + 1),
            At::Then(reads, anchors) => {
                let k = reads
                    .iter()
                    .position(|&r| r == s)
                    .expect("read streams are anchored");
                anchors[k]
            }
        }
    }

    fn value(&self, s: Sid, idx: u64) -> R {
        let h = &self.hist[s];
        if idx >= h.count() {
            return if self.ended {
                R::Absent
            } else {
                R::Wait(s, idx)
            };
        }
        if idx < h.base {
            return R::Fail(bug("a stream value was dropped while still needed"));
        }
        match &h.vals[(idx - h.base) as usize] {
            Some(v) => R::V(v.clone()),
            None => R::Wait(s, idx),
        }
    }

    fn eval(&self, c: &CExpr, at: &At) -> R {
        // The value of a subexpression, or the function's result if it has none yet.
        macro_rules! val {
            ($e:expr) => {
                match $e {
                    R::V(v) => v,
                    other => return other,
                }
            };
        }
        match c {
            CExpr::Const(v) => R::V(v.clone()),
            CExpr::Sync(s) => {
                let (n, _) = self.anchor(*s, at);
                self.value(*s, n - 1)
            }
            CExpr::Offset(s, k) => {
                let (n, _) = self.anchor(*s, at);
                let idx = n as i64 - 1 + k;
                if idx < 0 {
                    R::Absent
                } else {
                    self.value(*s, idx as u64)
                }
            }
            CExpr::Hold(s) => match self.anchor(*s, at) {
                (0, _) => R::Absent,
                (n, _) => self.value(*s, n - 1),
            },
            CExpr::Get(s) => match self.anchor(*s, at) {
                (n, true) => self.value(*s, n - 1),
                _ => R::Absent,
            },
            CExpr::Fresh(s) => R::V(Val::Bool(self.anchor(*s, at).1)),
            CExpr::Default(a, d) => match self.eval(a, at) {
                R::Absent => self.eval(d, at),
                r => r,
            },
            CExpr::Neg(a) => match val!(self.eval(a, at)) {
                Val::Int(i) => R::V(Val::Int(i.wrapping_neg())),
                Val::Float(x) => R::V(Val::Float(-x)),
                v => R::Fail(type_bug("-", &v)),
            },
            CExpr::Not(a) => match val!(self.eval(a, at)) {
                Val::Bool(b) => R::V(Val::Bool(!b)),
                v => R::Fail(type_bug("!", &v)),
            },
            CExpr::Bin(op @ (BinOp::And | BinOp::Or | BinOp::Implies), a, b) => {
                // The operand value that decides the result whichever the other one is.
                let (left_decides, right_decides) = match op {
                    BinOp::And => (false, false),
                    BinOp::Or => (true, true),
                    _ => (false, true),
                };
                let decided = R::V(Val::Bool(*op != BinOp::And));
                let ra = self.eval(a, at);
                if matches!(ra, R::V(Val::Bool(x)) if x == left_decides) {
                    return decided;
                }
                let rb = self.eval(b, at);
                if matches!(rb, R::V(Val::Bool(y)) if y == right_decides) {
                    return decided;
                }
                match (ra, rb) {
                    (R::V(Val::Bool(_)), R::V(Val::Bool(y))) => R::V(Val::Bool(y)),
                    (R::Fail(e), _) | (_, R::Fail(e)) => R::Fail(e),
                    (R::Wait(s, j), _) | (_, R::Wait(s, j)) => R::Wait(s, j),
                    _ => R::Fail(bug("a Boolean operand has no value")),
                }
            }
            CExpr::Bin(op, a, b) => {
                let x = val!(self.eval(a, at));
                let y = val!(self.eval(b, at));
                match binary(*op, x, y) {
                    Ok(v) => R::V(v),
                    Err(e) => R::Fail(e),
                }
            }
            CExpr::Ite(cond, a, b) => match val!(self.eval(cond, at)) {
                Val::Bool(true) => self.eval(a, at),
                Val::Bool(false) => self.eval(b, at),
                v => R::Fail(type_bug("if", &v)),
            },
            CExpr::Call(f, args) => {
                let mut vals = Vec::with_capacity(args.len());
                for a in args {
                    vals.push(val!(self.eval(a, at)));
                }
                match call(*f, vals) {
                    Ok(v) => R::V(v),
                    Err(e) => R::Fail(e),
                }
            }
            CExpr::Cast(to, a) => R::V(cast(*to, val!(self.eval(a, at)))),
            CExpr::Format(template, args) => {
                let mut vals = Vec::with_capacity(args.len());
                for a in args {
                    vals.push(val!(self.eval(a, at)));
                }
                R::V(Val::Str(format_template(template, &vals).into()))
            }
        }
    }
}

fn bug(what: &str) -> Box<Error> {
    Box::new(Error::msg(format!("internal error: {what}")))
}

fn type_bug(op: &str, v: &Val) -> Box<Error> {
    Box::new(Error::msg(format!("internal error: `{op}` applied to {v}")))
}

/// RTLola's `format`: each `{{…}}` is replaced by the next argument; extra ones stay.
pub fn format_template(t: &str, args: &[Val]) -> String {
    let mut out = String::new();
    let mut rest = t;
    let mut next = args.iter();
    while let Some(open) = rest.find("{{") {
        let Some(close) = rest[open + 2..].find("}}") else {
            break;
        };
        let inner = &rest[open + 2..open + 2 + close];
        if inner.contains('}') {
            break;
        }
        out.push_str(&rest[..open]);
        match next.next() {
            Some(v) => out.push_str(&v.to_string()),
            None => out.push_str(&rest[open..open + 4 + close]),
        }
        rest = &rest[open + 4 + close..];
    }
    out.push_str(rest);
    out
}

fn cast(to: Type, v: Val) -> Val {
    match (to, v) {
        (Type::Int, Val::Int(i)) => Val::Int(i),
        (Type::Int, Val::UInt(u)) => Val::Int(u as i64),
        (Type::Int, Val::Float(x)) => Val::Int(x as i64),
        (Type::UInt, Val::Int(i)) => Val::UInt(i as u64),
        (Type::UInt, Val::UInt(u)) => Val::UInt(u),
        (Type::UInt, Val::Float(x)) => Val::UInt(x as u64),
        (Type::Float, Val::Int(i)) => Val::Float(i as f64),
        (Type::Float, Val::UInt(u)) => Val::Float(u as f64),
        (_, v) => v,
    }
}

fn call(f: Func, mut args: Vec<Val>) -> Result<Val, Box<Error>> {
    let float = |g: fn(f64) -> f64, v: &Val| match v {
        Val::Float(x) => Ok(Val::Float(g(*x))),
        v => Err(type_bug("a math function", v)),
    };
    Ok(match f {
        Func::Min | Func::Max => {
            let b = args.pop().expect("two");
            let a = args.pop().expect("two");
            let less = match (&a, &b) {
                (Val::Int(x), Val::Int(y)) => x < y,
                (Val::UInt(x), Val::UInt(y)) => x < y,
                (Val::Float(x), Val::Float(y)) => x < y,
                _ => return Err(type_bug("min/max", &a)),
            };
            if less == (f == Func::Min) {
                a
            } else {
                b
            }
        }
        Func::Abs => match &args[0] {
            Val::Int(i) => Val::Int(i.wrapping_abs()),
            Val::Float(x) => Val::Float(x.abs()),
            v => return Err(type_bug("abs", v)),
        },
        Func::Sqrt => float(f64::sqrt, &args[0])?,
        Func::Sin => float(f64::sin, &args[0])?,
        Func::Cos => float(f64::cos, &args[0])?,
        Func::Tan => float(f64::tan, &args[0])?,
        Func::Arcsin => float(f64::asin, &args[0])?,
        Func::Arccos => float(f64::acos, &args[0])?,
        Func::Arctan => float(f64::atan, &args[0])?,
        Func::Exp => float(f64::exp, &args[0])?,
        Func::Ln => float(f64::ln, &args[0])?,
        Func::Round => float(f64::round, &args[0])?,
        Func::Floor => float(f64::floor, &args[0])?,
        Func::Ceil => float(f64::ceil, &args[0])?,
    })
}

/// Arithmetic and comparisons; integers wrap on overflow (as RTLola's interpreter does), and
/// integer division by zero is an error instead of RTLola's crash.
fn binary(op: BinOp, x: Val, y: Val) -> Result<Val, Box<Error>> {
    use std::cmp::Ordering;
    if matches!(
        op,
        BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::Div | BinOp::Rem | BinOp::Pow
    ) {
        return arithmetic(op, x, y);
    }
    let ord = match (&x, &y) {
        (Val::Int(a), Val::Int(b)) => a.partial_cmp(b),
        (Val::UInt(a), Val::UInt(b)) => a.partial_cmp(b),
        (Val::Float(a), Val::Float(b)) => a.partial_cmp(b),
        (Val::Str(a), Val::Str(b)) => a.partial_cmp(b),
        (Val::Bool(a), Val::Bool(b)) => a.partial_cmp(b),
        _ => return Err(type_bug("a comparison", &x)),
    };
    let cmp = |f: fn(Ordering) -> bool| Val::Bool(ord.is_some_and(f));
    Ok(match op {
        BinOp::Eq => cmp(|o| o == Ordering::Equal),
        BinOp::Ne => Val::Bool(ord != Some(Ordering::Equal)),
        BinOp::Lt => cmp(|o| o == Ordering::Less),
        BinOp::Le => cmp(|o| o != Ordering::Greater),
        BinOp::Gt => cmp(|o| o == Ordering::Greater),
        BinOp::Ge => cmp(|o| o != Ordering::Less),
        _ => unreachable!("arithmetic is handled above"),
    })
}

fn arithmetic(op: BinOp, x: Val, y: Val) -> Result<Val, Box<Error>> {
    let div_zero = || Box::new(Error::msg("division by zero"));
    // Signed and unsigned integers alike: wrapping, division by zero an error.
    macro_rules! integer {
        ($a:expr, $b:expr) => {
            match op {
                BinOp::Add => $a.wrapping_add($b),
                BinOp::Sub => $a.wrapping_sub($b),
                BinOp::Mul => $a.wrapping_mul($b),
                BinOp::Div => $a.checked_div($b).ok_or_else(div_zero)?,
                BinOp::Rem => $a.checked_rem($b).ok_or_else(div_zero)?,
                BinOp::Pow => $a.wrapping_pow(
                    u32::try_from($b)
                        .map_err(|_| Error::msg(format!("exponent {} out of range", $b)))?,
                ),
                _ => unreachable!("handled above"),
            }
        };
    }
    Ok(match (x, y) {
        (Val::Int(a), Val::Int(b)) => Val::Int(integer!(a, b)),
        (Val::UInt(a), Val::UInt(b)) => Val::UInt(integer!(a, b)),
        (Val::Float(a), Val::Float(b)) => Val::Float(match op {
            BinOp::Add => a + b,
            BinOp::Sub => a - b,
            BinOp::Mul => a * b,
            BinOp::Div => a / b,
            BinOp::Rem => a % b,
            BinOp::Pow => a.powf(b),
            _ => unreachable!("handled above"),
        }),
        (x, _) => return Err(type_bug("arithmetic", &x)),
    })
}
