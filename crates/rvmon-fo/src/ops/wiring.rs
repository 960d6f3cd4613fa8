//! What each operator learns from the whole plan when the engine is built: which nodes it
//! reads from streams, which states its consumers probe in place, the indexes kept on a
//! state, the bounds a join reduces a waiting operand by. The decisions depend on each other
//! (a state is versioned only if every consumer can test it in place, which depends on the
//! indexes it has), so they are taken here in order, and then handed to each node's
//! [`OpState`].

use std::rc::Rc;

use super::project::{self, Project};
use super::reduce::{self, Waiting};
use super::scan::{self, Constant, Scan};
use super::since::{self, Since};
use super::until::Until;
use super::versioned::probed_states;
use super::views::since_states;
use super::OpState;
use crate::compile::{future_below, NodeKind, Plan};

/// The operators of a plan, and how they are connected.
pub(crate) struct Wiring {
    pub(crate) ops: Vec<OpState>,
    /// By node, the nodes it reads from streams.
    pub(crate) reads: Vec<Vec<usize>>,
    /// By node, the nodes that read it (its operands' and guard leaves' readers).
    pub(crate) readers: Vec<Vec<usize>>,
}

pub(crate) fn wire(plan: &Plan) -> Wiring {
    let n = plan.nodes.len();
    let (mut since, triggers) = since_states(plan);
    let true_left = since::true_lefts(plan);
    let reads = stream_reads(plan, &true_left);
    let mut readers: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (i, node) in plan.nodes.iter().enumerate() {
        for c in node.kind.reads() {
            if !readers[c].contains(&i) {
                readers[c].push(i);
            }
        }
    }
    let mut proj = project::incremental(plan, &readers, &mut since);
    let future = future_below(&plan.nodes);
    let mut through = project::tested_through(plan, &readers, &since);
    let probed = probed_states(plan, &reads, &future, &since, &through, &triggers);
    for (st, p) in since.iter_mut().zip(&probed) {
        st.versioned = p.is_some();
    }
    project::settle_through(plan, &probed, &mut through, &mut since, &mut proj);
    let marked = |x: usize| probed[x].is_some() || through[x].is_some();
    let mut bounds = reduce::join_bounds(plan, &future, &marked, &readers);
    let same = scan::same_scans(plan);
    // Constant nodes whose stream someone reads.
    let mut streamed = vec![false; n];
    for &c in reads.iter().flatten() {
        streamed[c] = true;
    }
    streamed[plan.root()] = true;
    let consts: Vec<Rc<_>> = plan
        .nodes
        .iter()
        .map(|node| match &node.kind {
            NodeKind::Const(rel) => Rc::new(rel.clone()),
            _ => Rc::default(),
        })
        .collect();
    let ops = plan
        .nodes
        .iter()
        .zip(since)
        .enumerate()
        .map(|(i, (node, state))| match &node.kind {
            NodeKind::Pred { .. } => OpState::Scan(Scan {
                same: same[i],
                scans: Vec::new(),
            }),
            NodeKind::Const(_) => OpState::Const(Constant {
                rel: Rc::clone(&consts[i]),
                streamed: streamed[i],
            }),
            NodeKind::Join { .. } | NodeKind::AntiJoin { .. } => OpState::Join(Waiting {
                bounds: std::mem::take(&mut bounds[i]),
                reduced: 0,
            }),
            NodeKind::Project { .. } => OpState::Project(Project {
                incremental: proj[i].take(),
                through: through[i],
            }),
            NodeKind::Prev { .. } => OpState::Prev(0),
            NodeKind::Next { .. } => OpState::Next(0),
            NodeKind::Since { l, .. } => OpState::Since(Since {
                state,
                true_left: true_left[i].then(|| Rc::clone(&consts[*l])),
                trigger: triggers[i].clone(),
                probed: probed[i],
            }),
            NodeKind::Until { .. } => OpState::Until(Until {
                state: Default::default(),
                eventually: true_left[i],
            }),
            _ => OpState::Plain,
        })
        .collect();
    Wiring {
        ops,
        reads,
        readers,
    }
}

/// By node, the nodes it reads from streams: its operands and guard leaves, but not a `TRUE`
/// left operand (see [`Since::true_left`]) nor the left operand a guard replaces.
fn stream_reads(plan: &Plan, true_left: &[bool]) -> Vec<Vec<usize>> {
    plan.nodes
        .iter()
        .enumerate()
        .map(|(i, n)| {
            let mut reads = n.kind.reads();
            if let NodeKind::Since { l, r, guard, .. } | NodeKind::Until { l, r, guard, .. } =
                &n.kind
            {
                // A guard replaces the left operand (a `TRUE` constant): not read either.
                let guard_reads_l = guard.as_ref().is_some_and(|g| {
                    let mut leaves = Vec::new();
                    g.leaves(&mut leaves);
                    leaves.contains(l)
                });
                if (true_left[i] || (guard.is_some() && !guard_reads_l)) && l != r {
                    reads.retain(|x| x != l);
                }
            }
            reads
        })
        .collect()
}
