//! How an operator tests the tuples of an operand at one position: in the operand's relation,
//! or, for a `SINCE` state its consumers probe in place (see [`super::since::Since::probed`])
//! and for a projection tested through such a state (see [`super::project::Project::through`]),
//! in the state as it was at that position. Guards test their leaves the same way.

use rvmon_core::Value;

use super::since::SinceState;
use super::versioned::{any_visible_under, visible};
use super::{key_in, OpState};
use crate::compile::Guard;
use crate::rel::Rel;
use crate::stream::Stream;

/// The right operand of a semi-join or anti-join as it tests tuples at one position: its
/// relation there, or, for a probed `ONCE` (see [`super::since::Since::probed`]), its state as
/// it was there.
pub(crate) enum Tested<'a> {
    Rel(&'a Rel),
    Probe {
        st: &'a SinceState,
        /// The state as it was at this position (see [`visible`]).
        upto: u64,
    },
    /// A projection of a probed state, tested through the state's index on the projected
    /// columns (see [`super::project::Project::through`]).
    Through {
        st: &'a SinceState,
        upto: u64,
    },
}

impl<'a> Tested<'a> {
    /// Node `node`'s relation `shown` at position `pos`. A probed state's stream holds a
    /// marker, empty where the state does not count (see [`super::PRESENT`]), and so does that
    /// of a projection tested through one; `ops` holds the operators (at least those up to
    /// `node`, and the states they test through).
    #[inline(always)]
    pub(crate) fn of(shown: &'a Rel, node: usize, pos: u64, ops: &'a [OpState]) -> Tested<'a> {
        if shown.is_empty() {
            return Tested::Rel(shown);
        }
        match &ops[node] {
            OpState::Since(s) => match s.probed {
                Some(lag) => Tested::Probe {
                    st: &s.state,
                    upto: pos - lag,
                },
                None => Tested::Rel(shown),
            },
            OpState::Project(p) => match p.through {
                Some(c) => {
                    let OpState::Since(s) = &ops[c] else {
                        unreachable!("tested through a state")
                    };
                    Tested::Through {
                        st: &s.state,
                        upto: pos - s.probed.expect("tested through a probed state"),
                    }
                }
                None => Tested::Rel(shown),
            },
            _ => Tested::Rel(shown),
        }
    }

    pub(crate) fn is_empty(&self) -> bool {
        match self {
            Tested::Rel(rel) => rel.is_empty(),
            // (Not empty while a removed tuple may still be visible.)
            Tested::Probe { st, .. } | Tested::Through { st, .. } => {
                st.ripe.is_empty() && st.gone.is_empty()
            }
        }
    }

    pub(crate) fn contains(&self, t: &[Value]) -> bool {
        match self {
            Tested::Rel(rel) => rel.contains(t),
            Tested::Probe { st, upto } => visible(st, t, *upto),
            Tested::Through { st, upto } => any_visible_under(st, t, *upto, |_| true),
        }
    }
}

/// What a guard reads its leaves from: their streams and, for a leaf that is a probed state
/// (see [`super::since::Since::probed`]), the state itself (`ops` holds at least the
/// operators below the guard's).
pub(crate) struct Leaves<'a> {
    pub(crate) streams: &'a [Stream],
    pub(crate) ops: &'a [OpState],
}

/// Evaluates a guard on `tuple` with the leaves' relations at position `at`.
pub(crate) fn eval_guard(
    g: &Guard,
    tuple: &[Value],
    leaves: &Leaves,
    at: u64,
    buf: &mut Vec<Value>,
) -> bool {
    match g {
        Guard::Const(b) => *b,
        Guard::Rel { node, key } => {
            let shown = leaves.streams[*node].get(at).expect("available");
            let tested = Tested::of(shown, *node, at, leaves.ops);
            tested.contains(key_in(buf, tuple, key))
        }
        Guard::Not(h) => !eval_guard(h, tuple, leaves, at, buf),
        Guard::And(a, b) => {
            eval_guard(a, tuple, leaves, at, buf) && eval_guard(b, tuple, leaves, at, buf)
        }
        Guard::Or(a, b) => {
            eval_guard(a, tuple, leaves, at, buf) || eval_guard(b, tuple, leaves, at, buf)
        }
    }
}
