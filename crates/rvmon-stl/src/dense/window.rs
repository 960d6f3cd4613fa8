//! `always`, `eventually`, `historically` and `once` over a closed window, exactly, on a
//! piecewise-constant signal: a sliding minimum or maximum over segments.
//!
//! Segment `i`, `[s_i, s_{i+1})`, meets the future window `[t+a, t+b]` exactly when
//! `s_i - b <= t < s_{i+1} - a`, and the past window `[t-b, t-a]` exactly when
//! `s_i + a <= t < s_{i+1} + b` (the closed window and the right-open segment give a
//! right-open interval of `t` again). So each segment enters the window at one time and
//! leaves it at a later one, and both times increase with `i`: a sweep over those times with
//! a monotone deque (Lemire's) gives the window's fold as a signal, in time linear in the
//! number of segments. A past window is clipped to the trace's start because the signal
//! starts there; before any segment has entered (`t < start + a`) it is empty, and the fold
//! is the operator's neutral value.

use std::collections::VecDeque;

use super::order::below;
use super::signal::{Builder, Signal, Time, FOREVER};

/// Which end of the order a window keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fold {
    Min,
    Max,
}

/// The window's fold at every time from the signal's start: segment `i` is in the window for
/// `t` in `[s_i + enter, s_{i+1} + leave)` (`enter <= leave`), `neutral` where none is.
pub fn slide(x: &Signal, enter: Time, leave: Time, fold: Fold, neutral: f64) -> Signal {
    let segs = x.segments();
    let n = segs.len();
    let enter_at = |i: usize| segs[i].0 + enter;
    let leave_at = |i: usize| {
        let end = x.end_of(i);
        if end >= FOREVER {
            FOREVER
        } else {
            end + leave
        }
    };
    // `keep(a, b)`: a candidate `a` is not dropped for a later `b` (strictly better).
    let keep = |a: f64, b: f64| match fold {
        Fold::Min => below(a, b),
        Fold::Max => below(b, a),
    };
    let mut out = Builder::with_capacity(2 * n);
    let mut deque: VecDeque<usize> = VecDeque::new();
    let (mut entered, mut left) = (0, 0);
    let mut t = x.start();
    loop {
        while entered < n && enter_at(entered) <= t {
            let v = segs[entered].1;
            while deque.back().is_some_and(|&k| !keep(segs[k].1, v)) {
                deque.pop_back();
            }
            deque.push_back(entered);
            entered += 1;
        }
        while left < n && leave_at(left) <= t {
            left += 1;
        }
        while deque.front().is_some_and(|&k| k < left) {
            deque.pop_front();
        }
        out.push(t, deque.front().map_or(neutral, |&k| segs[k].1));
        let next_enter = if entered < n {
            enter_at(entered)
        } else {
            FOREVER
        };
        let next_leave = if left < n { leave_at(left) } else { FOREVER };
        let next = next_enter.min(next_leave);
        if next >= FOREVER {
            break;
        }
        t = next;
    }
    out.finish()
        .unwrap_or_else(|| Signal::constant(x.start(), neutral))
}

/// The window bounds as [`slide`]'s enter and leave shifts: a future window `[a, b]` (or
/// `[0, ∞)` unbounded), a past one `[a, b]` (or `[0, ∞)`).
pub fn shifts(future: bool, w: Option<(u64, u64)>) -> (Time, Time) {
    let (a, b) = match w {
        Some((a, b)) => (Time::from(a), Time::from(b)),
        None => (0, FOREVER),
    };
    if future {
        (-b, -a)
    } else {
        (a, b)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn future_and_past_windows() {
        // x: 1 on [0,1), -1 on [1,3), 2 on [3,4), 3 from 4.
        let x = Signal::of(&[(0, 1.0), (1, -1.0), (3, 2.0), (4, 3.0)]);
        let (e, l) = shifts(true, Some((0, 1)));
        let always = slide(&x, e, l, Fold::Min, f64::INFINITY);
        assert_eq!(always.segments(), &[(0, -1.0), (3, 2.0), (4, 3.0)]);
        let (e, l) = shifts(false, Some((1, 2)));
        let once = slide(&x, e, l, Fold::Max, f64::NEG_INFINITY);
        assert_eq!(
            once.segments(),
            &[
                (0, f64::NEG_INFINITY),
                (1, 1.0),
                (3, -1.0),
                (4, 2.0),
                (5, 3.0)
            ]
        );
        let (e, l) = shifts(false, None);
        let hist = slide(&x, e, l, Fold::Min, f64::INFINITY);
        assert_eq!(hist.segments(), &[(0, 1.0), (1, -1.0)]);
        let (e, l) = shifts(true, None);
        let ev = slide(&x, e, l, Fold::Max, f64::NEG_INFINITY);
        assert_eq!(ev.segments(), &[(0, 3.0)]);
    }
}
