//! Sliding windows (RTLola's `aggregate`), as RTLola's interpreter evaluates them.
//!
//! **Over time** (`over: d`): a ring of buckets, each the aggregate of the values that came in
//! its slice of time, as RTLola splits a window read by a stream of period `p`: buckets of
//! `gcd(d, p)`, `d / gcd(d, p)` of them (see [`crate::analysis::window_buckets`]). A bucket
//! covers `(x, x + b]`; time passing clears the buckets it leaves behind; reading folds the
//! buckets oldest first. The reader is evaluated at multiples of its period, which the
//! buckets divide, so the window read at `t` holds exactly the values of `(t - d, t]`.
//! Memory is at most the bucket count — proportional to the window's length over the
//! period, not to the event rate — and only buckets that received values are kept.
//!
//! **Over values** (`over_discrete: n`): the last `n` values, in `n` slots (a slot not yet
//! written holds the aggregation's neutral value).
//!
//! The aggregations keep RTLola's types and its empty values: `count` and `sum` are 0 on an
//! empty window, `forall` true and `exists` false, `min`, `max`, `avg` and `last` absent;
//! `avg` of integers divides as integers do. One difference, deliberate: `integral` is the
//! trapezoid area in seconds; rtlola-cli 0.1.2 counts the fractions of a second ten times
//! (`subsec_nanos / 10^8`), so its integrals differ wherever samples are not whole seconds
//! apart.

use std::collections::VecDeque;

use crate::analysis::{CWindow, CWindowSize};
use crate::ast::{Aggregation, Type};
use crate::value::Val;

/// The aggregate of some values (one bucket's, or a whole window's).
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub(crate) enum Acc {
    Sum(Val),
    Count(u64),
    Min(Option<Val>),
    Max(Option<Val>),
    /// Sum and count.
    Avg(Option<Val>, u64),
    Integral(Option<Area>),
    /// The value with the latest time (a later one wins a tie).
    Last(Option<(Val, i64)>),
    Forall(bool),
    Exists(bool),
}

/// The area under samples joined by straight lines, from the first sample to the last.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub(crate) struct Area {
    volume: f64,
    first: (i64, f64),
    last: (i64, f64),
}

fn zero(ty: Type) -> Val {
    match ty {
        Type::UInt => Val::UInt(0),
        Type::Float => Val::Float(0.0),
        _ => Val::Int(0),
    }
}

/// `a + b` of two numbers of one type (integers wrap, as RTLola's do).
fn plus(a: &Val, b: &Val) -> Val {
    match (a, b) {
        (Val::Int(x), Val::Int(y)) => Val::Int(x.wrapping_add(*y)),
        (Val::UInt(x), Val::UInt(y)) => Val::UInt(x.wrapping_add(*y)),
        (Val::Float(x), Val::Float(y)) => Val::Float(x + y),
        _ => a.clone(),
    }
}

fn as_f64(v: &Val) -> f64 {
    match v {
        Val::Int(i) => *i as f64,
        Val::UInt(u) => *u as f64,
        Val::Float(x) => *x,
        _ => 0.0,
    }
}

/// The larger (`max`) or smaller of two numbers of one type.
fn extreme(a: Val, b: Val, max: bool) -> Val {
    // The earlier value wins only when strictly larger (smaller): on a tie the later one
    // does, as RTLola's `Ord::max` gives it (`-0` and `0` tie).
    let a_wins = match (&a, &b) {
        (Val::Int(x), Val::Int(y)) => {
            if max {
                x > y
            } else {
                x < y
            }
        }
        (Val::UInt(x), Val::UInt(y)) => {
            if max {
                x > y
            } else {
                x < y
            }
        }
        (Val::Float(x), Val::Float(y)) => {
            if max {
                x > y
            } else {
                x < y
            }
        }
        _ => true,
    };
    if a_wins {
        a
    } else {
        b
    }
}

impl Acc {
    /// The aggregate of no values, for `op` over values of type `ty`.
    pub fn empty(op: Aggregation, ty: Type) -> Acc {
        match op {
            Aggregation::Sum => Acc::Sum(zero(ty)),
            Aggregation::Count => Acc::Count(0),
            Aggregation::Min => Acc::Min(None),
            Aggregation::Max => Acc::Max(None),
            Aggregation::Avg => Acc::Avg(None, 0),
            Aggregation::Integral => Acc::Integral(None),
            Aggregation::Last => Acc::Last(None),
            Aggregation::Forall => Acc::Forall(true),
            Aggregation::Exists => Acc::Exists(false),
        }
    }

    /// Adds value `v`, which came at time `t`.
    pub fn add(&mut self, v: &Val, t: i64) {
        // PERF: the common aggregations in place, without building a one-value aggregate.
        match (&mut *self, v) {
            (Acc::Count(n), _) => {
                *n += 1;
                return;
            }
            (Acc::Sum(Val::Float(s)), Val::Float(x)) => {
                *s += x;
                return;
            }
            (Acc::Sum(Val::Int(s)), Val::Int(x)) => {
                *s = s.wrapping_add(*x);
                return;
            }
            (Acc::Avg(Some(Val::Float(s)), n), Val::Float(x)) => {
                *s += x;
                *n += 1;
                return;
            }
            (Acc::Max(Some(Val::Float(m))), Val::Float(x)) => {
                if *x >= *m {
                    *m = *x;
                }
                return;
            }
            (Acc::Min(Some(Val::Float(m))), Val::Float(x)) => {
                if *x <= *m {
                    *m = *x;
                }
                return;
            }
            _ => {}
        }
        let one = match self {
            Acc::Sum(_) => Acc::Sum(v.clone()),
            Acc::Count(_) => Acc::Count(1),
            Acc::Min(_) => Acc::Min(Some(v.clone())),
            Acc::Max(_) => Acc::Max(Some(v.clone())),
            Acc::Avg(..) => Acc::Avg(Some(v.clone()), 1),
            Acc::Integral(_) => {
                let x = as_f64(v);
                Acc::Integral(Some(Area {
                    volume: 0.0,
                    first: (t, x),
                    last: (t, x),
                }))
            }
            Acc::Last(_) => Acc::Last(Some((v.clone(), t))),
            Acc::Forall(_) => Acc::Forall(matches!(v, Val::Bool(true))),
            Acc::Exists(_) => Acc::Exists(matches!(v, Val::Bool(true))),
        };
        self.join(one);
    }

    /// Joins the aggregate of later values (`later`) into this one.
    pub fn join(&mut self, later: Acc) {
        let joined = match (std::mem::replace(self, Acc::Count(0)), later) {
            (Acc::Sum(a), Acc::Sum(b)) => Acc::Sum(plus(&a, &b)),
            (Acc::Count(a), Acc::Count(b)) => Acc::Count(a + b),
            (Acc::Min(a), Acc::Min(b)) => Acc::Min(either(a, b, |a, b| extreme(a, b, false))),
            (Acc::Max(a), Acc::Max(b)) => Acc::Max(either(a, b, |a, b| extreme(a, b, true))),
            (Acc::Avg(a, n), Acc::Avg(b, m)) => match (a, b) {
                (Some(a), Some(b)) => Acc::Avg(Some(plus(&a, &b)), n + m),
                (Some(a), None) => Acc::Avg(Some(a), n),
                (None, b) => Acc::Avg(b, m),
            },
            (Acc::Integral(a), Acc::Integral(b)) => Acc::Integral(either(a, b, |a, b| {
                let dt = (i128::from(b.first.0) - i128::from(a.last.0)) as f64 / 1e9;
                Area {
                    volume: a.volume + b.volume + (a.last.1 + b.first.1) * dt / 2.0,
                    first: a.first,
                    last: b.last,
                }
            })),
            (Acc::Last(a), Acc::Last(b)) => {
                Acc::Last(either(a, b, |a, b| if a.1 > b.1 { a } else { b }))
            }
            (Acc::Forall(a), Acc::Forall(b)) => Acc::Forall(a && b),
            (Acc::Exists(a), Acc::Exists(b)) => Acc::Exists(a || b),
            (a, _) => a, // different aggregations never meet
        };
        *self = joined;
    }

    /// The aggregate's value; `None` when it has none (`min` of no values, …).
    pub fn value(&self) -> Option<Val> {
        match self {
            Acc::Sum(v) => Some(v.clone()),
            Acc::Count(n) => Some(Val::UInt(*n)),
            Acc::Min(v) | Acc::Max(v) => v.clone(),
            Acc::Avg(sum, n) => sum.as_ref().map(|s| match s {
                Val::Int(i) => Val::Int(i.wrapping_div((*n).max(1) as i64)),
                Val::UInt(u) => Val::UInt(u / (*n).max(1)),
                other => Val::Float(as_f64(other) / *n as f64),
            }),
            Acc::Integral(a) => Some(Val::Float(a.map_or(0.0, |a| a.volume))),
            Acc::Last(v) => v.as_ref().map(|(v, _)| v.clone()),
            Acc::Forall(b) | Acc::Exists(b) => Some(Val::Bool(*b)),
        }
    }
}

/// The value of `op` over no values (what a window over an instance that does not exist
/// gives).
pub(crate) fn empty_value(op: Aggregation, ty: Type) -> Option<Val> {
    Acc::empty(op, ty).value()
}

/// Joins two optional aggregates: one absent side leaves the other.
fn either<T>(a: Option<T>, b: Option<T>, f: impl FnOnce(T, T) -> T) -> Option<T> {
    match (a, b) {
        (Some(a), Some(b)) => Some(f(a, b)),
        (a, None) => a,
        (None, b) => b,
    }
}

/// One slot of a window over values (for memory bounds).
pub(crate) type Slot = Acc;

/// One window's state.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub(crate) enum WindowState {
    Time(TimeWindow),
    Discrete(DiscreteWindow),
}

impl WindowState {
    /// The state of window `w` read by a stream of period `period_ns` (for a window over
    /// time), started at time 0.
    pub fn new(w: &CWindow, period_ns: u64) -> WindowState {
        let empty = Acc::empty(w.op, w.target_ty);
        match w.size {
            CWindowSize::Time(d) => {
                let (bucket, count) = crate::analysis::window_buckets(d, period_ns.max(1));
                WindowState::Time(TimeWindow {
                    buckets: VecDeque::new(),
                    empty,
                    start: 0,
                    total: d,
                    bucket,
                    count: i64::try_from(count.max(1)).unwrap_or(i64::MAX),
                    current: -1,
                    current_end: 0,
                    exact: w.exact,
                })
            }
            CWindowSize::Discrete(n) => WindowState::Discrete(DiscreteWindow {
                slots: vec![empty.clone(); n.max(1) as usize],
                empty,
                next: 0,
                received: 0,
                exact: w.exact,
            }),
        }
    }

    /// This window's empty copy, started at `t` (an instance's, at its spawn).
    pub fn restarted(&self, t: i64) -> WindowState {
        let t = t.max(0) as u64;
        match self {
            WindowState::Time(w) => WindowState::Time(TimeWindow {
                buckets: VecDeque::new(),
                start: t,
                current: -1,
                current_end: t,
                ..w.clone()
            }),
            WindowState::Discrete(w) => WindowState::Discrete(DiscreteWindow {
                slots: vec![w.empty.clone(); w.slots.len()],
                next: 0,
                received: 0,
                ..w.clone()
            }),
        }
    }

    /// Time has come to `t` (clears the buckets it left behind).
    pub fn advance(&mut self, t: i64) {
        if let WindowState::Time(w) = self {
            w.advance(t.max(0) as u64);
        }
    }

    /// The target's value `v` came at time `t`.
    pub fn accept(&mut self, v: &Val, t: i64) {
        match self {
            WindowState::Time(w) => w.accept(v, t),
            WindowState::Discrete(w) => w.accept(v, t),
        }
    }

    /// The window's aggregate at time `t` (after [`WindowState::advance`] to `t`).
    pub fn value(&self, t: i64) -> Option<Val> {
        match self {
            WindowState::Time(w) => w.value(t.max(0) as u64),
            WindowState::Discrete(w) => w.value(),
        }
    }

    /// A window over time's duration, in nanoseconds.
    pub fn duration(&self) -> Option<u64> {
        match self {
            WindowState::Time(w) => Some(w.total),
            WindowState::Discrete(_) => None,
        }
    }

    /// The number of buckets or slots held.
    pub fn cells(&self) -> usize {
        match self {
            WindowState::Time(w) => w.cells(),
            WindowState::Discrete(w) => w.slots.len(),
        }
    }
}

/// A window over time: RTLola's ring of buckets, kept sparse. Bucket `i` (counted from the
/// start, from -1) covers `(start + i·b, start + (i+1)·b]`; the ring holds the `n` latest,
/// and only those that received values are stored — at most `n`, at most as many as values
/// came in the window's duration. (A ring of `n` buckets allocated at once, as RTLola's, would
/// take 2 GB for a 1 s window read at 0.7 Hz: 250 M buckets of 4 ns.)
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub(crate) struct TimeWindow {
    /// The buckets that hold values, oldest first: (index, aggregate).
    buckets: VecDeque<(i64, Acc)>,
    empty: Acc,
    start: u64,
    /// The duration, one bucket's length, and how many buckets the ring has.
    total: u64,
    bucket: u64,
    count: i64,
    /// The bucket time is in, and its end.
    current: i64,
    current_end: u64,
    /// `over_exactly`: no value until a whole duration has passed since the start.
    exact: bool,
}

impl TimeWindow {
    fn advance(&mut self, t: u64) {
        if t <= self.current_end {
            return;
        }
        let since = t - self.start;
        self.current = since.div_ceil(self.bucket) as i64 - 1;
        self.current_end = self.start + (self.current as u64 + 1) * self.bucket;
        while self
            .buckets
            .front()
            .is_some_and(|(i, _)| *i <= self.current - self.count)
        {
            self.buckets.pop_front();
        }
    }

    fn accept(&mut self, v: &Val, t: i64) {
        self.advance(t.max(0) as u64);
        match self.buckets.back_mut() {
            Some((i, acc)) if *i == self.current => acc.add(v, t),
            _ => {
                let mut acc = self.empty.clone();
                acc.add(v, t);
                self.buckets.push_back((self.current, acc));
            }
        }
    }

    fn value(&self, t: u64) -> Option<Val> {
        if self.exact && t.saturating_sub(self.start) < self.total {
            return None;
        }
        let mut acc = self.empty.clone();
        for (_, b) in &self.buckets {
            acc.join(b.clone());
        }
        acc.value()
    }

    fn cells(&self) -> usize {
        self.buckets.len()
    }
}

/// A window over the last values: `slots[next]` is the oldest.
#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub(crate) struct DiscreteWindow {
    slots: Vec<Acc>,
    empty: Acc,
    next: usize,
    received: u64,
    /// `over_exactly_discrete`: no value until the window is full.
    exact: bool,
}

impl DiscreteWindow {
    fn accept(&mut self, v: &Val, t: i64) {
        let mut one = self.empty.clone();
        one.add(v, t);
        self.slots[self.next] = one;
        self.next = (self.next + 1) % self.slots.len();
        self.received = (self.received + 1).min(self.slots.len() as u64);
    }

    fn value(&self) -> Option<Val> {
        let n = self.slots.len();
        if self.exact && (self.received as usize) < n {
            return None;
        }
        let mut acc = self.empty.clone();
        for k in 0..n {
            acc.join(self.slots[(self.next + k) % n].clone());
        }
        acc.value()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn window(op: Aggregation, ty: Type, d: u64, period: u64) -> WindowState {
        WindowState::new(
            &CWindow {
                args: Vec::new(),
                target: 0,
                target_ty: ty,
                size: CWindowSize::Time(d),
                op,
                exact: false,
            },
            period,
        )
    }

    const S: i64 = 1_000_000_000;

    /// count_1_4 of RTLola's suite: a 4 s window read each second, values every 0.5 s from 0.
    #[test]
    fn a_window_holds_the_half_open_interval_before_its_reading() {
        let mut w = window(Aggregation::Count, Type::Int, 4 * S as u64, S as u64);
        let mut counts = Vec::new();
        for k in 0..=12 {
            let t = k * S / 2;
            w.advance(t);
            w.accept(&Val::Int(0), t);
            if t % S == 0 && t > 0 {
                w.advance(t);
                counts.push(w.value(t));
            }
        }
        let want: Vec<Option<Val>> = [3, 5, 7, 8, 8, 8]
            .iter()
            .map(|&n| Some(Val::UInt(n)))
            .collect();
        assert_eq!(counts, want);
    }

    #[test]
    fn empty_windows_take_rtlola_s_values() {
        for (op, want) in [
            (Aggregation::Sum, Some(Val::Int(0))),
            (Aggregation::Count, Some(Val::UInt(0))),
            (Aggregation::Min, None),
            (Aggregation::Avg, None),
            (Aggregation::Last, None),
            (Aggregation::Integral, Some(Val::Float(0.0))),
        ] {
            let w = window(op, Type::Int, S as u64, S as u64);
            assert_eq!(w.value(S), want, "{op:?}");
        }
    }

    #[test]
    fn averages_of_integers_divide_as_integers() {
        let mut w = window(Aggregation::Avg, Type::Int, S as u64, S as u64 / 10);
        w.accept(&Val::Int(3), 10);
        w.accept(&Val::Int(4), 20);
        assert_eq!(w.value(100), Some(Val::Int(3)));
    }

    #[test]
    fn integral_is_the_trapezoid_area_in_seconds() {
        let mut w = window(
            Aggregation::Integral,
            Type::Float,
            2 * S as u64,
            S as u64 / 2,
        );
        for (t, v) in [(0, 1.0), (S / 2, 2.0), (S, 3.0)] {
            w.accept(&Val::Float(v), t);
        }
        w.advance(S);
        assert_eq!(w.value(S), Some(Val::Float(2.0)));
    }

    #[test]
    fn discrete_windows_fill_before_they_slide() {
        let d = CWindow {
            args: Vec::new(),
            target: 0,
            target_ty: Type::Int,
            size: CWindowSize::Discrete(2),
            op: Aggregation::Sum,
            exact: false,
        };
        let mut w = WindowState::new(&d, 0);
        let mut sums = Vec::new();
        for v in 0..4 {
            w.accept(&Val::Int(v), v);
            sums.push(w.value(v));
        }
        assert_eq!(sums, [0, 1, 3, 5].map(|n| Some(Val::Int(n))));
        let mut exact = WindowState::new(
            &CWindow {
                exact: true,
                ..d.clone()
            },
            0,
        );
        exact.accept(&Val::Int(1), 0);
        assert_eq!(exact.value(0), None);
        exact.accept(&Val::Int(1), 1);
        assert_eq!(exact.value(1), Some(Val::Int(2)));
    }
}
