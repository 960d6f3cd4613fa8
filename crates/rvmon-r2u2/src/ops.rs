//! The operators' update rules, as R2U2 runs them: each gets its operands' next tuples (or
//! none, not ready yet) and its node's state, and returns the tuple it decides, if any.
//!
//! Notation: an operand's tuple `(t, v)` says `v` for every step up to `t` not yet read;
//! `next_time` is the first step the node still needs; `previous` the last step it decided
//! (`previous.truth`: whether it decided one yet; step 0 is special, since `previous.time`
//! starts at 0); `edge` (past time) the last step where the operand that starts a `Since`
//! window held.

use crate::engine::{State, Time, Verdict};

fn verdict(time: Time, truth: bool) -> Verdict {
    Verdict { time, truth }
}

/// A step is new to the node: after the last one decided, or step 0 when none was.
fn is_new(time: Time, previous: Verdict) -> bool {
    time > previous.time || (time == 0 && !previous.truth)
}

/// `a && b`: false as soon as one operand is, for as far as it is; true as far as both are.
pub(crate) fn and(a: Option<Verdict>, b: Option<Verdict>, s: State<'_>) -> Option<Verdict> {
    lattice(a, b, s, false)
}

/// `a || b`: the dual of [`and`].
pub(crate) fn or(a: Option<Verdict>, b: Option<Verdict>, s: State<'_>) -> Option<Verdict> {
    lattice(a, b, s, true)
}

/// And (`decisive` false) and or (`decisive` true): an operand with the decisive truth
/// decides alone; two with the other one decide as far as both reach.
fn lattice(
    a: Option<Verdict>,
    b: Option<Verdict>,
    s: State<'_>,
    decisive: bool,
) -> Option<Verdict> {
    let v = match (a, b) {
        (Some(a), Some(b)) if a.truth == b.truth => {
            // Both decisive: as far as the farther; both not: as far as the nearer.
            let time = if a.truth == decisive {
                a.time.max(b.time)
            } else {
                a.time.min(b.time)
            };
            verdict(time, a.truth)
        }
        (Some(a), _) if a.truth == decisive => a,
        (_, Some(b)) if b.truth == decisive => b,
        _ => return None,
    };
    *s.next_time = v.time.saturating_add(1);
    Some(v)
}

/// `a <-> b`, as far as both reach.
pub(crate) fn equiv(a: Option<Verdict>, b: Option<Verdict>, s: State<'_>) -> Option<Verdict> {
    let (a, b) = (a?, b?);
    let v = verdict(a.time.min(b.time), a.truth == b.truth);
    *s.next_time = v.time.saturating_add(1);
    Some(v)
}

/// `a U[lb,ub] b` (MLTL: `a` is required from `lb` on), and with `release` its dual
/// `a R[lb,ub] b` (every rule with the truths swapped; `G[lb,ub] b` is `false R b`).
pub(crate) fn until(
    a: Option<Verdict>,
    b: Option<Verdict>,
    lb: Time,
    ub: Time,
    s: State<'_>,
    release: bool,
) -> Option<Verdict> {
    // (Until: `b` true ends a window well, `a` false badly. Release: the other way round.)
    let good = !release;
    let b = b?;
    if b.truth == good {
        // `b` holds at `b.time`: every step from which it is within reach is decided.
        let v = verdict(b.time.wrapping_sub(lb), good);
        *s.next_time = b.time.saturating_add(1);
        *s.previous = verdict(v.time, true);
        return Some(v);
    }
    if let Some(a) = a {
        let tau = a.time.min(b.time);
        *s.next_time = tau.saturating_add(1);
        if a.truth != good {
            // `a` fails before `b` holds.
            let v = verdict(tau.wrapping_sub(lb), !good);
            *s.previous = verdict(v.time, true);
            return Some(v);
        }
    }
    if b.time >= s.previous.time.saturating_add(ub) {
        // The window of `b.time - ub` has closed without `b`.
        let v = verdict(b.time.wrapping_sub(ub), !good);
        if is_new(v.time, *s.previous) {
            let reach = v.time.saturating_add(lb).saturating_add(1);
            *s.next_time = (*s.next_time).max(reach);
            *s.previous = verdict(v.time, true);
            return Some(v);
        }
    }
    None
}

/// `a S[lb,ub] b`, and with `trigger` its dual `a T[lb,ub] b` (`H[lb,ub] b` is `false T b`,
/// `O[lb,ub] b` is `true S b`).
pub(crate) fn since(
    a: Option<Verdict>,
    b: Option<Verdict>,
    lb: Time,
    ub: Time,
    s: State<'_>,
    trigger: bool,
) -> Option<Verdict> {
    // (Since: `b` true opens a window, true; trigger: `b` false closes one, false.)
    let good = !trigger;
    if !s.previous.truth && s.previous.time < lb {
        // The steps before `lb` have no window yet.
        *s.previous = verdict(lb - 1, true);
        return Some(verdict(lb - 1, trigger));
    }
    let decide = |s: &mut State<'_>, time: Time, truth: bool| -> Option<Verdict> {
        let v = verdict(time, truth);
        is_new(v.time, *s.previous).then(|| {
            *s.previous = verdict(v.time, true);
            v
        })
    };
    let mut s = s;
    if let Some(b) = b {
        let reached = b.time >= s.previous.time.saturating_sub(lb);
        if b.truth == good {
            *s.edge = verdict(b.time, true);
            *s.next_time = b.time.saturating_add(1);
            if reached {
                if let Some(v) = decide(&mut s, b.time.saturating_add(lb), good) {
                    return Some(v);
                }
            }
        } else {
            let start = s.previous.time.checked_sub(ub);
            let closed = !s.edge.truth || start.is_some_and(|st| s.edge.time <= st);
            if closed {
                *s.next_time = b.time.saturating_add(1);
                if b.time >= s.previous.time.saturating_sub(lb) {
                    if let Some(v) = decide(&mut s, b.time.saturating_add(lb), !good) {
                        return Some(v);
                    }
                }
            }
            if a.is_some_and(|a| a.truth != good) {
                *s.next_time = b.time.saturating_add(1);
                if b.time >= s.previous.time.saturating_sub(lb) {
                    if let Some(v) = decide(&mut s, b.time.saturating_add(lb), !good) {
                        return Some(v);
                    }
                }
            }
        }
    }
    let start = s.previous.time.checked_sub(ub);
    let open = s.edge.truth && start.is_none_or(|st| s.edge.time > st);
    if let Some(a) = a.filter(|a| a.truth == good) {
        if open && a.time >= s.previous.time.saturating_sub(lb) {
            let time = a
                .time
                .saturating_add(lb)
                .min(s.edge.time.saturating_add(ub));
            let v = verdict(time, good);
            if is_new(v.time, *s.previous) {
                let reach = v.time.saturating_sub(ub).saturating_add(1);
                *s.next_time = (*s.next_time).max(reach);
                *s.previous = verdict(v.time, true);
                return Some(v);
            }
        }
    }
    None
}
