//! The temporal operators as the engines run them: a metric [`Window`] on timestamp
//! differences, and the propositional operator set [`Op`] (the shape of a formula, which the
//! first-order plans also record for MonPoly's output timing).

use crate::Interval;

/// A metric interval on integer timestamp differences, closed on both ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub struct Window {
    pub lo: i64,
    /// `None`: unbounded.
    pub hi: Option<i64>,
}

impl Window {
    /// The window of a formula's interval. Bounds are clamped to a quarter of `i64`'s range,
    /// so that a timestamp plus or minus a bound never overflows.
    pub fn of(i: &Interval) -> Window {
        let clamp = |v: u64| v.min(i64::MAX as u64 / 4) as i64;
        Window {
            lo: clamp(i.min()),
            hi: i.max().map(clamp),
        }
    }

    #[inline]
    pub fn contains(&self, d: i64) -> bool {
        d >= self.lo && self.hi.is_none_or(|h| d <= h)
    }
}

/// A propositional operator node; children are node indices (post-order).
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum Op {
    Const(bool),
    /// Index into the program's proposition table.
    Atom(usize),
    Not(usize),
    And(usize, usize),
    Or(usize, usize),
    Prev(Window, usize),
    Next(Window, usize),
    Since(Window, usize, usize),
    Until(Window, usize, usize),
}
