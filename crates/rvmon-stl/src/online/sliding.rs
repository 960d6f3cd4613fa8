//! A bounded `always`/`eventually`/`historically`/`once` window, slid one sample at a time in
//! amortised O(1): a deque of the window's candidates (Lemire's sliding minimum), kept as the
//! fold of [`crate::eval`] would choose. That fold keeps the first of equal values and passes
//! NaNs over, unless the window's first sample is one (then it is the result); before the
//! start of the trace the fold starts from the pad instead.

use std::collections::VecDeque;

use super::Ring;

/// A window's state: the samples that may still be its fold's result with their values,
/// oldest first (strictly better towards the front), and the next sample to take in.
#[derive(Clone, Debug, Default, serde::Serialize, serde::Deserialize)]
pub(super) struct Sliding {
    candidates: VecDeque<(u64, f64)>,
    next: u64,
}

/// The value of an empty window: the neutral element of the fold (`MIN`: a minimum).
#[inline]
fn pad<const MIN: bool>() -> f64 {
    if MIN {
        f64::INFINITY
    } else {
        f64::NEG_INFINITY
    }
}

impl Sliding {
    /// A future window (`always`: `MIN`, `eventually`) at `j` over `values`: samples
    /// `j+a ..= j+b`, cut at `end`.
    #[inline(always)]
    pub(super) fn future<const MIN: bool>(
        &mut self,
        values: &Ring,
        (a, b): (u64, u64),
        j: u64,
        end: u64,
    ) -> f64 {
        let (lo, hi) = (j.saturating_add(a), j.saturating_add(b).min(end));
        if lo > hi {
            return pad::<MIN>();
        }
        self.fold::<MIN>(values, Some(lo), hi)
    }

    /// A past window (`historically`: `MIN`, `once`) at `j` over `values`: samples
    /// `j-b ..= j-a`, those before the trace left out.
    #[inline(always)]
    pub(super) fn past<const MIN: bool>(
        &mut self,
        values: &Ring,
        (a, b): (u64, u64),
        j: u64,
    ) -> f64 {
        let Some(hi) = j.checked_sub(a) else {
            return pad::<MIN>();
        };
        self.fold::<MIN>(values, j.checked_sub(b), hi)
    }

    /// The fold over `first ..= hi` (`first`: `None` when the window starts before the
    /// trace, which then counts from sample 0), the window having only moved forward.
    #[inline(always)]
    fn fold<const MIN: bool>(&mut self, values: &Ring, first: Option<u64>, hi: u64) -> f64 {
        let lo = first.unwrap_or(0);
        // Out with the samples the window has left (their values may be gone too).
        while self.candidates.front().is_some_and(|&(i, _)| i < lo) {
            self.candidates.pop_front();
        }
        self.next = self.next.max(lo);
        while self.next <= hi {
            let v = values.get(self.next);
            if !v.is_nan() {
                // A later equal value never beats an earlier one: only strictly worse go.
                while let Some(&(_, u)) = self.candidates.back() {
                    if (MIN && u > v) || (!MIN && u < v) {
                        self.candidates.pop_back();
                    } else {
                        break;
                    }
                }
                self.candidates.push_back((self.next, v));
            }
            self.next += 1;
        }
        match (first.map(|i| values.get(i)), self.candidates.front()) {
            (Some(v), _) if v.is_nan() => v,
            (_, Some(&(_, v))) => v,
            (_, None) => pad::<MIN>(),
        }
    }
}

/// Whether `q` is strictly better than `p` for a fold (`MIN`: smaller); never if `q` is NaN.
#[inline(always)]
fn better<const MIN: bool>(q: f64, p: f64) -> bool {
    if MIN {
        q < p
    } else {
        q > p
    }
}

/// The folds of the windows of `w` samples over `xs`, the `i`-th over `xs[i .. i+w]`, handed
/// to `out` in order (`xs.len() - w + 1` of them), as [`Sliding`]'s fold gives them: the
/// first of equal values, NaNs passed over unless one is a window's first sample.
///
/// PERF: van Herk and Gil-Werman's blocks. `xs` is cut in blocks of `w`; each window is the
/// end of one block and the start of the next, so a running fold from each block's start
/// and one back from each block's end give it in one comparison: three per value, without
/// the deque's unpredictable branches (which made a window three times as slow).
pub(super) fn blocked<const MIN: bool>(
    xs: &[f64],
    w: usize,
    (ahead, back): (&mut Vec<f64>, &mut Vec<f64>),
    mut out: impl FnMut(f64),
) {
    let n = xs.len();
    debug_assert!(w >= 1 && n >= w);
    let pad = pad::<MIN>();
    // `ahead[i]`: the fold from the start of `i`'s block to `i`; `back[i]`: from `i` to the
    // end of its block. Both start from the pad, so NaNs are passed over; the earlier of
    // equal values stays (ahead: a later one must be strictly better; back: an earlier one
    // needs only be as good).
    ahead.clear();
    back.clear();
    back.resize(n, pad);
    for block in xs.chunks(w) {
        let mut acc = pad;
        for &x in block {
            if better::<MIN>(x, acc) {
                acc = x;
            }
            ahead.push(acc);
        }
    }
    for (block, folds) in xs.chunks(w).zip(back.chunks_mut(w)) {
        let mut acc = pad;
        for (&x, fold) in block.iter().zip(folds).rev() {
            if !better::<MIN>(acc, x) && !x.is_nan() {
                acc = x;
            }
            *fold = acc;
        }
    }
    for i in 0..=n - w {
        let (early, late) = (back[i], ahead[i + w - 1]);
        let v = if xs[i].is_nan() {
            xs[i]
        } else if better::<MIN>(late, early) {
            late
        } else {
            early
        };
        out(v);
    }
}
