//! Dense-time robustness, exact for piecewise-constant signals (`rvmon check --dense`).
//!
//! The signals: sample `k`'s value holds on `[t_k, t_{k+1})`, the last one forever; before
//! the first sample there is no signal. The windows `[t+a, t+b]` (future) and `[t-b, t-a]`
//! (past) are closed, in nanoseconds (a bound without a unit is in seconds, as the `time`
//! column is). A past window is clipped to the first sample; an empty one (in the first `a`
//! of the trace) gives `+inf` for `historically`, `-inf` for `once` and `since`, as rtamt's
//! and Reelay's dense monitors do on a trace that starts at time 0 (they start every signal
//! at 0, not at the first sample, and so their values change when the timestamps are
//! shifted; here they do not). A future window is never empty, since the last value lasts
//! forever: no `±inf` at the end. `until`/`since` are in [`until`]; `next`, `prev`,
//! `rise` and `fall` have no dense meaning and are refused by the parser.
//!
//! Each subformula's robustness is again piecewise constant ([`Signal`]), so the engine
//! computes whole signals, operands first, each operator in time linear in its operands'
//! segments; the robustness is then read at every sample time. Min and max are those of one
//! total order ([`order`]). [`reference`] is the definition evaluated point by point, which
//! the property tests compare this with.
//!
//! Offline only: a future operator at the last sample reads the last value forever, so no
//! sample is decided before the end of the trace unless the formula's horizon says so, and
//! that bookkeeping is the discrete online engine's job, not repeated here.

mod monitor;
pub mod order;
pub mod reference;
mod signal;
mod until;
mod window;

use rvmon_core::Error;

use crate::ast::*;
use crate::parse::{parse_in, Clock};

pub use monitor::DenseMonitor;
pub use signal::{Signal, Time};
use window::{shifts, slide, Fold};

/// A formula for dense time: parsed with its windows in nanoseconds, and without `next`,
/// `prev`, `rise` or `fall` (only [`DenseFormula::parse`] makes one).
#[derive(Clone, Debug, PartialEq)]
pub struct DenseFormula {
    formula: Formula,
}

impl DenseFormula {
    /// Parses `text` (from `file`, for error positions) in rtamt's syntax, for dense time.
    pub fn parse(file: &str, text: &str) -> Result<DenseFormula, Error> {
        Ok(DenseFormula {
            formula: parse_in(file, text, Clock::Nanoseconds)?,
        })
    }

    /// The formula; its windows are in nanoseconds.
    pub fn formula(&self) -> &Formula {
        &self.formula
    }
}

/// The robustness of `f` at each of `times` (nanoseconds, strictly increasing), the signals
/// sampled there (`signals[s][k]`: signal `s` of [`Formula::signals`] at `times[k]`).
pub fn robustness(f: &DenseFormula, times: &[i64], signals: &[Vec<f64>]) -> Vec<f64> {
    match root_signal(f, times, signals) {
        Some(s) => s.at_times(times),
        None => Vec::new(),
    }
}

/// The robustness of `f` as a signal, from the first sample on (`None` without samples).
pub fn root_signal(f: &DenseFormula, times: &[i64], signals: &[Vec<f64>]) -> Option<Signal> {
    let start = Time::from(*times.first()?);
    let f = &f.formula;
    let mut vals: Vec<Option<Signal>> = Vec::with_capacity(f.nodes.len());
    for node in &f.nodes {
        let s = node_signal(node, &vals, start, times, signals);
        // Each node is read by its parent only (the parser builds a tree): its operands'
        // signals are not needed any more.
        for c in node.operands() {
            vals[c] = None;
        }
        vals.push(Some(s));
    }
    vals.swap_remove(f.root)
}

fn node_signal(
    node: &Node,
    vals: &[Option<Signal>],
    start: Time,
    times: &[i64],
    signals: &[Vec<f64>],
) -> Signal {
    // Not reached with a formula the parser built (a tree, operands first); a NaN signal
    // rather than a panic if it ever is.
    let nan = || Signal::constant(start, f64::NAN);
    let get = |c: NodeId| vals.get(c).and_then(Option::as_ref);
    match *node {
        Node::Signal(s) => signals
            .get(s)
            .and_then(|col| Signal::from_samples(times, col))
            .unwrap_or_else(nan),
        Node::Const(c) => Signal::constant(start, c),
        Node::Temporal(op, w, c) => {
            let Some(x) = get(c) else { return nan() };
            let future = matches!(op, Window1::Always | Window1::Eventually);
            let (enter, leave) = shifts(future, w);
            match op {
                Window1::Always | Window1::Historically => {
                    slide(x, enter, leave, Fold::Min, f64::INFINITY)
                }
                Window1::Eventually | Window1::Once => {
                    slide(x, enter, leave, Fold::Max, f64::NEG_INFINITY)
                }
            }
        }
        Node::Until(w, l, r) => match (get(l), get(r)) {
            (Some(p), Some(q)) => until::until(p, q, w),
            _ => nan(),
        },
        Node::Since(w, l, r) => match (get(l), get(r)) {
            (Some(p), Some(q)) => until::since(p, q, w),
            _ => nan(),
        },
        Node::Shift(..) | Node::Rise(_) | Node::Fall(_) => nan(),
        _ => match node.operand_pair() {
            [Some(a), None] => match get(a) {
                Some(x) => x.map(|v| pointwise(node, v, v)),
                None => nan(),
            },
            [Some(a), Some(b)] => match (get(a), get(b)) {
                (Some(p), Some(q)) => p.zip(q, |v, w| pointwise(node, v, w)),
                _ => nan(),
            },
            _ => nan(),
        },
    }
}

/// A pointwise node's value from its operands' values (`p` the first, `q` the second):
/// rtamt's arithmetic and comparisons ([`crate::eval`]'s), and `and`/`or`/`implies` with the
/// total order's min and max, as every window of dense time.
pub fn pointwise(node: &Node, p: f64, q: f64) -> f64 {
    match *node {
        // rtamt's dense monitor computes `p < q` and `p <= q` as `-(p - q)`, its discrete
        // one as `q - p`: the same number but where they are equal, `-0.0` against `0.0`.
        Node::Cmp(Cmp::Less, ..) => -(p - q),
        Node::Connective(Connective::And, ..) => order::min(p, q),
        Node::Connective(Connective::Or, ..) => order::max(p, q),
        Node::Connective(Connective::Implies, ..) => order::max(-p, q),
        _ => {
            let first = node.operand_pair()[0];
            let now = |c: NodeId| if Some(c) == first { p } else { q };
            crate::eval::pointwise(node, now, |_| None).unwrap_or(f64::NAN)
        }
    }
}
