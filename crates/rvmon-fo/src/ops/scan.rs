//! Leaves of the plan: scans of a predicate's events, and constant relations.

use std::rc::Rc;

use rvmon_core::Value;
use serde::{Deserialize, Serialize};

use super::{Ctx, OpState};
use crate::compile::{ArgPat, NodeKind, Plan};
use crate::rel::Rel;

/// A scan: the relations it produced for the positions of the current batch, and an earlier
/// scan of the same atom whose relations it shares instead of scanning the events again (P3
/// of paper 04 scans `net(c)` three times). Nothing is saved.
#[derive(Default, Debug, Serialize, Deserialize)]
pub(crate) struct Scan {
    #[serde(skip)]
    pub(crate) same: Option<usize>,
    #[serde(skip)]
    pub(crate) scans: Vec<Rc<Rel>>,
}

/// A constant node: its relation, shared at every time point, and whether anyone reads its
/// stream (a `TRUE` left operand of `ONCE`/`EVENTUALLY` is read from the relation itself, see
/// [`super::since::Since::true_left`]). Nothing is saved.
#[derive(Default, Debug, Serialize, Deserialize)]
pub(crate) struct Constant {
    #[serde(skip)]
    pub(crate) rel: Rc<Rel>,
    #[serde(skip)]
    pub(crate) streamed: bool,
}

/// The tuples of the events named `sym` with `arity` values that match the argument patterns,
/// at every position of the batch. The batch holds the positions up to `pos`; a scan reads
/// each one in the first pass of its step.
pub(crate) fn pred(cx: &mut Ctx, kind: &NodeKind, st: &mut Scan) {
    let NodeKind::Pred { sym, arity, args } = kind else {
        unreachable!("a scan")
    };
    let (pos, batch) = (cx.pos, cx.batch);
    let width = cx.nodes[cx.i].vars.len();
    let out = &mut *cx.out;
    let buf = &mut *cx.buf;
    let first = (pos + 1).saturating_sub(batch.len() as u64);
    while out.end() <= pos {
        let k = (out.end() - first) as usize;
        let rel = if let Some(j) = st.same {
            let OpState::Scan(earlier) = &cx.below[j] else {
                unreachable!("the same scan")
            };
            Rc::clone(&earlier.scans[k])
        } else {
            let tp = &batch[k];
            let mut rel = Rel::default();
            'events: for e in tp
                .events
                .iter()
                .filter(|e| e.name == *sym && e.args_len as usize == *arity)
            {
                let vals = tp.args_of(e);
                buf.clear();
                buf.resize(width, Value::Int(0));
                for (v, pat) in vals.iter().zip(args) {
                    match pat {
                        ArgPat::Const(c) if c != v => continue 'events,
                        ArgPat::Same(c) if buf[*c] != *v => continue 'events,
                        ArgPat::Bind(c) => buf[*c] = *v,
                        _ => {}
                    }
                }
                rel.insert_values(buf);
            }
            if rel.is_empty() {
                Rc::clone(&out.empty)
            } else {
                Rc::new(rel)
            }
        };
        st.scans.push(Rc::clone(&rel));
        out.vals.push_back(rel);
    }
}

/// A constant: the same shared relation at every position (PERF), when its stream is read.
pub(crate) fn constant(cx: &mut Ctx, st: &Constant) {
    while st.streamed && cx.out.end() <= cx.pos {
        cx.out.vals.push_back(Rc::clone(&st.rel));
    }
}

/// For each scan, an earlier scan of the same atom, if any (see [`Scan::same`]).
pub(crate) fn same_scans(plan: &Plan) -> Vec<Option<usize>> {
    plan.nodes
        .iter()
        .enumerate()
        .map(|(i, n)| {
            let NodeKind::Pred { .. } = &n.kind else {
                return None;
            };
            plan.nodes[..i]
                .iter()
                .position(|m| match (&m.kind, &n.kind) {
                    (
                        NodeKind::Pred { sym, arity, args },
                        NodeKind::Pred {
                            sym: s2,
                            arity: a2,
                            args: p2,
                        },
                    ) => sym == s2 && arity == a2 && args == p2,
                    _ => false,
                })
        })
        .collect()
}
