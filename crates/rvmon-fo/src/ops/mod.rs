//! The plan's operators, one per file (or per family of closely related ones), in the style of
//! timely-dataflow's operator layout. Each file owns its operator's state type (a variant of
//! [`OpState`], saved with the engine), what the operator learns from the plan when the engine
//! is built, and its update: turn the operands' relations (the streams below it) into its own
//! for every position it can decide. [`update`] dispatches a node to its operator; the engine
//! ([`crate::engine`]) schedules the nodes and owns the streams.
//!
//! * [`scan`]: event scans (`p(x,y)`) and constants;
//! * [`filter`]: `NOT` of a closed formula, comparisons, assignments; [`str_rel`]: `SUBSTRING`
//!   and `MATCHES`;
//! * [`join`]: natural joins (and semi-joins); [`antijoin`]: `AND NOT`; [`exists_join`]:
//!   `EXISTS ys. (l AND r AND s)` and its negation; [`reduce`]: what a join keeps of an operand
//!   that waits for the other;
//! * [`union`], [`project`] (`EXISTS`), [`aggregate`];
//! * [`prev_next`]: `PREVIOUS` and `NEXT`; [`since`]: `SINCE` and `ONCE` (with [`views`], the
//!   indexes kept in step with a state, and [`versioned`], states that consumers test in
//!   place); [`until`]: `UNTIL`, and [`eventually`]: `EVENTUALLY`;
//! * [`tested`]: how a consumer tests an operand's tuples (its relation, or a state in place),
//!   and guards; [`wiring`]: the per-operator decisions taken from the whole plan at build time.

pub(crate) mod aggregate;
pub(crate) mod antijoin;
pub(crate) mod eventually;
pub(crate) mod exists_join;
pub(crate) mod filter;
pub(crate) mod join;
pub(crate) mod prev_next;
pub(crate) mod project;
pub(crate) mod reduce;
pub(crate) mod scan;
pub(crate) mod since;
pub(crate) mod str_rel;
pub(crate) mod tested;
pub(crate) mod union;
pub(crate) mod until;
pub(crate) mod versioned;
pub(crate) mod views;
pub(crate) mod wiring;

use std::rc::Rc;

use rvmon_core::{Error, Interner, TimePoint, Value};
use rvmon_logic::eval::Arithmetic;
use rvmon_logic::reference::compare;
use serde::{Deserialize, Serialize};

use crate::compile::{Node, NodeKind};
use crate::engine::CopyPolicy;
use crate::rel::{unit, Rel};
use crate::stream::{Stream, Timeline};

thread_local! {
    /// What a probed `ONCE` shows at a position where its state is there to test (the
    /// relation itself stays in the state; see [`since::Since::probed`]): a non-empty marker,
    /// against the empty relation where a fused `PREVIOUS` shows nothing. The readers learn
    /// from it whether the state counts, without reading the timeline, which may be trimmed.
    pub(crate) static PRESENT: Rc<Rel> = Rc::new(unit());
    pub(crate) static EMPTY: Rc<Rel> = Rc::new(Rel::default());
}

/// A node's operator state: what it keeps between updates (saved with the engine, see
/// [`crate::FoEngine::save`]) and, in fields not saved, what it learnt from the plan when the
/// engine was built (see [`wiring`]).
///
/// (Not boxed: the states are read in place by other operators — a join probing a `SINCE`
/// state — at every position, and a plan has a few dozen nodes.)
#[allow(clippy::large_enum_variant)]
#[derive(Default, Debug, Serialize, Deserialize)]
pub(crate) enum OpState {
    /// No state between updates: `NOT`, filters, assignments, string relations, unions,
    /// existential joins and aggregations.
    #[default]
    Plain,
    Scan(scan::Scan),
    Const(scan::Constant),
    /// A join or an anti-join.
    Join(reduce::Waiting),
    Project(project::Project),
    /// `PREVIOUS`: the next position to emit.
    Prev(u64),
    /// `NEXT`: the next position to emit.
    Next(u64),
    Since(since::Since),
    Until(until::Until),
}

impl OpState {
    /// The state of a `SINCE` node.
    #[inline(always)]
    pub(crate) fn since(&self) -> Option<&since::SinceState> {
        match self {
            OpState::Since(s) => Some(&s.state),
            _ => None,
        }
    }

    /// Progress that does not show in the node's stream: positions a `SINCE` absorbed.
    #[inline]
    pub(crate) fn absorbed(&self) -> u64 {
        match self {
            OpState::Since(s) => s.state.absorbed,
            _ => 0,
        }
    }

    /// The first position whose timestamp a temporal operator may still read (see
    /// the engine's `trim`); `None` for the others.
    pub(crate) fn needs_timeline_from(&self) -> Option<u64> {
        match self {
            OpState::Prev(next) => Some(next.saturating_sub(1)),
            OpState::Next(next) => Some(*next),
            OpState::Since(s) => Some(s.state.absorbed.saturating_sub(1)),
            OpState::Until(u) => Some(u.needs_timeline_from()),
            _ => None,
        }
    }

    /// A new batch starts: scans forget the relations of the last one.
    pub(crate) fn start_batch(&mut self) {
        if let OpState::Scan(s) = self {
            s.scans.clear();
        }
    }

    /// This operator, fresh from the plan, with the state `saved` holds (see
    /// [`crate::FoEngine::restore`]); `None` when `saved` is another kind of operator.
    pub(crate) fn resume(self, saved: OpState) -> Option<OpState> {
        Some(match (self, saved) {
            (OpState::Plain, OpState::Plain) => OpState::Plain,
            (fresh @ OpState::Scan(_), OpState::Scan(_)) => fresh,
            (fresh @ OpState::Const(_), OpState::Const(_)) => fresh,
            (OpState::Join(fresh), OpState::Join(saved)) => OpState::Join(reduce::Waiting {
                reduced: saved.reduced,
                ..fresh
            }),
            (OpState::Project(fresh), OpState::Project(saved)) => {
                OpState::Project(project::Project {
                    incremental: saved.incremental,
                    ..fresh
                })
            }
            (OpState::Prev(_), saved @ OpState::Prev(_)) => saved,
            (OpState::Next(_), saved @ OpState::Next(_)) => saved,
            (OpState::Since(fresh), OpState::Since(saved)) => OpState::Since(since::Since {
                state: saved.state,
                ..fresh
            }),
            (OpState::Until(fresh), OpState::Until(saved)) => OpState::Until(until::Until {
                state: saved.state,
                ..fresh
            }),
            _ => return None,
        })
    }
}

/// What an operator's update reads and writes besides its own state: its operands' streams
/// (every node below it), its own stream, the states of the nodes below it (which some
/// operators test in place), and the engine's shared scratch space and policies.
pub(crate) struct Ctx<'a> {
    /// The node being updated.
    pub(crate) i: usize,
    /// The last position fed.
    pub(crate) pos: u64,
    /// The time points of the last positions (up to `pos`) that the scans have not read yet.
    pub(crate) batch: &'a [TimePoint],
    /// Whether the trace has ended (after MonPoly's closing time point).
    pub(crate) at_end: bool,
    pub(crate) nodes: &'a [Node],
    pub(crate) arithmetic: Arithmetic,
    pub(crate) tl: &'a Timeline,
    /// The nodes this one reads from streams.
    pub(crate) reads: &'a [usize],
    /// The streams of the nodes below this one.
    pub(crate) children: &'a mut [Stream],
    pub(crate) out: &'a mut Stream,
    /// The operators below this one.
    pub(crate) below: &'a mut [OpState],
    /// Scratch space for projected keys (lookups without allocation).
    pub(crate) buf: &'a mut Vec<Value>,
    pub(crate) copies: &'a mut CopyPolicy,
    /// Tuples the joins made in the current batch.
    pub(crate) joined: &'a mut usize,
    pub(crate) warnings: &'a mut Vec<String>,
    pub(crate) interner: &'a mut Interner,
}

/// Updates node `kind` (its state `op`) with every position up to `cx.pos` it can decide.
pub(crate) fn update(kind: &NodeKind, op: &mut OpState, cx: &mut Ctx) -> Result<(), Error> {
    match (kind, op) {
        (NodeKind::Pred { .. }, OpState::Scan(st)) => scan::pred(cx, kind, st),
        (NodeKind::Const(_), OpState::Const(st)) => scan::constant(cx, st),
        (NodeKind::Not(c), _) => filter::not(cx, *c),
        (NodeKind::Join { .. }, OpState::Join(st)) => join::update(cx, kind, st),
        (NodeKind::ExistsJoin { .. }, _) => exists_join::update(cx, kind),
        (NodeKind::AntiJoin { l, r, key }, OpState::Join(st)) => {
            antijoin::update(cx, *l, *r, key, st)
        }
        (NodeKind::Filter { .. }, _) => filter::filter(cx, kind)?,
        (NodeKind::StrRel { .. }, _) => str_rel::update(cx, kind)?,
        (NodeKind::Assign { l, term }, _) => filter::assign(cx, *l, term)?,
        (NodeKind::Union { l, r, r_order }, _) => union::update(cx, *l, *r, r_order),
        (NodeKind::Project { c, keep }, OpState::Project(st)) => project::update(cx, *c, keep, st),
        (NodeKind::Agg { .. }, _) => aggregate::update(cx, kind)?,
        (NodeKind::Prev { w, c }, OpState::Prev(next)) => prev_next::prev(cx, w, *c, next),
        (NodeKind::Next { w, c }, OpState::Next(next)) => prev_next::next(cx, w, *c, next),
        (NodeKind::Since { .. }, OpState::Since(st)) => since::update(cx, kind, st),
        (NodeKind::Until { .. }, OpState::Until(st)) => until::update(cx, kind, st),
        (kind, op) => unreachable!("node {kind:?} with the state of another operator: {op:?}"),
    }
    Ok(())
}

/// The error of a term that fails to evaluate.
pub(crate) fn eval_err(e: rvmon_logic::eval::EvalError) -> Error {
    Error::msg(format!("evaluation failed: {e}"))
}

/// `l op r`, or the run's error when they are values of different types.
pub(crate) fn compared(
    op: rvmon_logic::CmpOp,
    l: &Value,
    r: &Value,
    interner: &Interner,
) -> Result<bool, Error> {
    compare(op, l, r, interner)
        .ok_or_else(|| Error::msg("type error: comparison of values of different types"))
}

/// `t` projected onto `cols`, in the scratch buffer `buf` (no allocation).
#[inline]
pub(crate) fn key_in<'b>(buf: &'b mut Vec<Value>, t: &[Value], cols: &[usize]) -> &'b [Value] {
    buf.clear();
    buf.extend(cols.iter().map(|&c| t[c]));
    buf
}

/// Whether `rel` contains `t` projected onto `cols`.
#[inline]
pub(crate) fn contains_key(rel: &Rel, t: &[Value], cols: &[usize], buf: &mut Vec<Value>) -> bool {
    rel.contains(key_in(buf, t, cols))
}

/// Whether `tuple` projected onto `cols` equals `key`.
#[inline]
pub(crate) fn contains_key_eq(tuple: &[Value], cols: &[usize], key: &[Value]) -> bool {
    cols.len() == key.len() && cols.iter().zip(key).all(|(&c, k)| tuple[c] == *k)
}

/// The tuples of `a` that satisfy `keep`.
///
/// PERF: a semi-join or anti-join usually keeps all of its left operand or none of it; then
/// the result is `a` itself or the shared empty relation, and nothing is allocated.
pub(crate) fn filter_shared(a: &Rc<Rel>, mut keep: impl FnMut(&[Value]) -> bool) -> Rc<Rel> {
    let kept = a.iter().filter(|t| keep(t)).count();
    if kept == a.len() {
        Rc::clone(a)
    } else if kept == 0 {
        EMPTY.with(Rc::clone)
    } else {
        Rc::new(a.iter().filter(|t| keep(t)).cloned().collect())
    }
}
