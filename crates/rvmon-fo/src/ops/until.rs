//! `φ UNTIL[a,b] ψ` and `NOT φ UNTIL[a,b] ψ` (MonPoly's timing: a position is decided once its
//! window has passed), with a left operand given as a guard when it is not monitorable alone.
//! `EVENTUALLY` (a `TRUE` left operand) keeps a sliding window instead: see
//! [`super::eventually`].

use serde::{Deserialize, Serialize};

use super::eventually::{self, EventuallyWindow};
use super::tested::{eval_guard, Leaves};
use super::{contains_key, Ctx};
use crate::compile::NodeKind;
use crate::rel::Rel;

/// An `UNTIL` node: its state (saved), and whether it is an `EVENTUALLY` (not saved).
#[derive(Default, Debug, Serialize, Deserialize)]
pub(crate) struct Until {
    pub(crate) state: UntilState,
    #[serde(skip)]
    pub(crate) eventually: bool,
}

#[derive(Default, Debug, Serialize, Deserialize)]
pub(crate) struct UntilState {
    /// The next position to decide.
    pub(crate) next: u64,
    /// First position not known to lie inside the oldest pending window (monotone).
    pub(crate) scan: u64,
    /// For `EVENTUALLY` (left operand `TRUE`): the witnesses inside the current window.
    pub(crate) window: EventuallyWindow,
}

impl Until {
    /// The first position whose timestamp it may still read. Only `EVENTUALLY` keeps a window
    /// that starts before its next undecided position (a general `UNTIL` never moves
    /// `window.next_add`, which pinned the whole timeline: 16 bytes per time point).
    pub(crate) fn needs_timeline_from(&self) -> u64 {
        if self.eventually {
            self.state.next.min(self.state.window.next_add)
        } else {
            self.state.next
        }
    }
}

/// Decides every position whose window has passed (or, at the end of the trace, every one).
pub(crate) fn update(cx: &mut Ctx, kind: &NodeKind, op: &mut Until) {
    let NodeKind::Until {
        w,
        l,
        r,
        negated,
        l_key,
        guard,
    } = kind
    else {
        unreachable!("an UNTIL")
    };
    // (The compiler refuses a future window without an end, at its place in the formula:
    // `Compiler::bounded_future`.)
    let hi = w.hi.expect("a future window has an end");
    let (st, eventually) = (&mut op.state, op.eventually);
    let (pos, tl, i) = (cx.pos, cx.tl, cx.i);
    loop {
        let n = st.next;
        if n > pos {
            break;
        }
        let tn = tl.ts(n);
        // The first position beyond the window, if it has arrived.
        let mut q = st.scan.max(n);
        while q <= pos && tl.ts(q) - tn <= hi {
            q += 1;
        }
        st.scan = q;
        if q > pos && !cx.at_end {
            break;
        }
        // Operand streams are contiguous: the last position decides availability.
        let last = q.max(n + 1) - 1;
        // `end()` rather than `get()`: an EVENTUALLY drops its operand's positions as soon as
        // its window has absorbed them.
        if cx.reads.iter().any(|&c| cx.children[c].end() <= last) {
            break;
        }
        if eventually {
            if !eventually::decide(cx, &mut st.window, w, *r, n, q) {
                break;
            }
            st.next += 1;
            continue;
        }
        // Backwards: S_j = R_j (if old enough) ∪ {t ∈ S_{j+1} | left holds for t at j}.
        let (children, buf) = (&*cx.children, &mut *cx.buf);
        let mut acc = Rel::default();
        for j in (n..q).rev() {
            match guard {
                Some(g) => {
                    let leaves = Leaves {
                        streams: children,
                        ops: cx.below,
                    };
                    acc.retain(|tuple| eval_guard(g, tuple, &leaves, j, buf));
                }
                None => {
                    let a = children[*l].get(j).expect("checked");
                    acc.retain(|tuple| contains_key(a, tuple, l_key, buf) != *negated);
                }
            }
            if tl.ts(j) - tn >= w.lo {
                acc.extend(children[*r].get(j).expect("checked").iter().cloned());
            }
        }
        cx.out.push(acc);
        st.next += 1;
    }
    let e = st.next;
    let children = &mut *cx.children;
    children[*l].release(i, e);
    // PERF: what the window has absorbed is not needed again; keeping it would pin one
    // snapshot of a changing operand per time point of the window.
    children[*r].release(
        i,
        if eventually {
            e.max(st.window.next_add)
        } else {
            e
        },
    );
    if let Some(g) = guard {
        let mut leaves = Vec::new();
        g.leaves(&mut leaves);
        for n in leaves {
            children[n].release(i, e);
        }
    }
}
