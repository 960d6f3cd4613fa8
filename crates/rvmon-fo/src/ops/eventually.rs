//! `EVENTUALLY[a,b] ψ` (an `UNTIL` whose left operand is `TRUE`): a sliding union of the
//! right operand's relations over each position's window.

use std::collections::VecDeque;
use std::rc::Rc;

use rustc_hash::FxHashMap;
use rvmon_core::Timestamp;
use rvmon_logic::ops::Window;
use serde::{Deserialize, Serialize};

use super::Ctx;
use crate::rel::{Rel, Tuple};

/// The sliding union of the right operand's relations over `[ts_i + a, ts_i + b]`. The window
/// always ends at the newest position added, so a tuple is in the union exactly when its *latest*
/// presence is at or after the window's start: presences are queued in order, and a presence
/// that falls off the front takes its tuple out of the union only if it was the tuple's latest.
/// No snapshot of the operand is kept, so the operand also updates in place.
#[derive(Default, Debug, Serialize, Deserialize)]
pub(crate) struct EventuallyWindow {
    pub(crate) next_add: u64,
    /// The latest position at which each tuple was present.
    pub(crate) last: FxHashMap<Tuple, u64>,
    /// (position, timestamp, tuple) of each presence added, oldest first. An entry whose tuple
    /// was present again later is stale; stale entries are dropped when they reach the front
    /// or when they outnumber the live ones (see [`EventuallyWindow::compact`]), so memory
    /// stays proportional to the distinct tuples in the window.
    pub(crate) presences: VecDeque<(u64, Timestamp, Tuple)>,
    pub(crate) out: Rc<Rel>,
}

impl EventuallyWindow {
    /// PERF: a queue of presences with lazy deletion instead of one hash set per position:
    /// no allocation per position and no removal from an older bucket when a tuple recurs.
    /// Dropping the stale entries once they outnumber the live ones keeps that amortised O(1).
    fn compact(&mut self) {
        if self.presences.len() > 2 * self.last.len() + 64 {
            let last = &self.last;
            self.presences.retain(|(p, _, t)| last.get(t) == Some(p));
        }
    }
}
/// Decides position `n` of `EVENTUALLY[w] r`, whose window's positions end before `q` (all
/// arrived); false when it must wait for its consumer to release the last snapshot.
pub(crate) fn decide(
    cx: &mut Ctx,
    win: &mut EventuallyWindow,
    w: &Window,
    r: usize,
    n: u64,
    q: u64,
) -> bool {
    let (tl, children, out) = (cx.tl, &*cx.children, &mut *cx.out);
    let tn = tl.ts(n);
    win.next_add = win.next_add.max(n);
    // The window starts at position n (later positions only) and at ts_n + a.
    let gone = |(pb, tb, _): &(u64, Timestamp, Tuple)| *pb < n || *tb - tn < w.lo;
    let arrives = (win.next_add..q)
        .any(|p| tl.ts(p) - tn >= w.lo && !children[r].get(p).expect("checked").is_empty());
    // PERF: when no tuple enters or leaves (most positions: the windows of time points with
    // equal timestamps differ by positions without tuples), the union is shared as it is: no
    // copy, and no wait for the consumer to release the previous snapshot.
    if !arrives && !win.presences.front().is_some_and(gone) {
        win.next_add = win.next_add.max(q);
        out.vals.push_back(Rc::clone(&win.out));
        return true;
    }
    // PERF: only a tuple that enters the union or leaves it makes the step wait for the
    // snapshot its consumer holds; a new presence of a tuple already in it (P4's
    // `EVENTUALLY[10m,20m] net(c)`: a hundred computers, each on the network every few
    // minutes) changes the window, not the union. A departure whose tuple is present again
    // in this step counts as a change too (too often, never too rarely).
    let changes = || {
        let enters = (win.next_add..q).any(|p| {
            tl.ts(p) - tn >= w.lo
                && children[r]
                    .get(p)
                    .expect("checked")
                    .iter()
                    .any(|t| !win.last.contains_key(t))
        });
        enters
            || win
                .presences
                .iter()
                .take_while(|x| gone(x))
                .any(|(pb, _, t)| win.last.get(t) == Some(pb))
    };
    if cx.copies.must_wait(cx.i, &win.out, changes) {
        return false;
    }
    // The union is made unique (copied if a snapshot is still held) only when it changes;
    // once unique, `make_mut` is a check of the count.
    while win.next_add < q {
        let p = win.next_add;
        let tp = tl.ts(p);
        if tp - tn >= w.lo {
            for t in children[r].get(p).expect("checked").iter() {
                if win.last.insert(t.clone(), p).is_none() {
                    Rc::make_mut(&mut win.out).insert(t.clone());
                }
                win.presences.push_back((p, tp, t.clone()));
            }
        }
        win.next_add += 1;
    }
    while win.presences.front().is_some_and(gone) {
        let (pb, _, t) = win.presences.pop_front().expect("checked");
        if win.last.get(&t) == Some(&pb) {
            win.last.remove(&t);
            Rc::make_mut(&mut win.out).remove(&t);
        }
    }
    win.compact();
    out.vals.push_back(Rc::clone(&win.out));
    true
}
