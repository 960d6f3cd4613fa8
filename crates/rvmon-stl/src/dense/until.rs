//! `until` and `since` in dense time, exactly, in time linear in the segments.
//!
//! The definitions (rtamt's dense ones, and Donzé and Maler's: the interval of `φ` is closed
//! at both ends, so `φ` must also hold at the witness `t'`):
//!
//! * `φ until[a,b] ψ` at `t` = sup over `t'` in `[t+a, t+b]` of
//!   min(ψ(t'), inf over `[t, t']` of φ);
//! * `φ since[a,b] ψ` at `t` = sup over `t'` in `[t-b, t-a]`, `t' >= start`, of
//!   min(ψ(t'), inf over `[t', t]` of φ); `-inf` where no `t'` exists (`t < start + a`).
//!
//! Unbounded (`[0, ∞)`), both are one pass over the common segments: on segment `j`,
//! `U_j = min(φ_j, max(ψ_j, U_{j+1}))` from the last segment back (`S_j` the same forward), since
//! a witness in segment `k` sees φ on segments `j..=k`, whatever its place in them.
//!
//! Bounded, with `c = b - a`: `[t, t']` splits at `t+a` into `[t, t+a]` and `[t+a, t']`, and a
//! minimum with a constant comes out of a supremum, so
//! `φ until[a,b] ψ (t) = min(always[0,a] φ (t), W(t+a))` with `W = φ until[0,c] ψ`; and
//! `W = min(eventually[0,c] ψ, φ until ψ)`: a witness past `u+c` that beats every one inside
//! would need φ above that value on all of `[u, u+c]` and ψ above it somewhere there, which is
//! a better witness inside. The mirror images give `since`. Every piece is a [`slide`], a
//! shift or a pointwise minimum, so `until` costs what `always` does.

use super::order::{max, min};
use super::signal::{Builder, Signal, Time};
use super::window::{shifts, slide, Fold};

/// `phi until[w] psi` (`w` in nanoseconds, `None` unbounded).
pub fn until(phi: &Signal, psi: &Signal, w: Option<(u64, u64)>) -> Signal {
    let pairs = phi.pairs(psi);
    let mut vals = vec![0.0; pairs.len()];
    let mut next: Option<f64> = None;
    for (k, &(_, p, q)) in pairs.iter().enumerate().rev() {
        // The last segment lasts forever: its witnesses see only it.
        let u = match next {
            None => min(p, q),
            Some(n) => min(p, max(q, n)),
        };
        vals[k] = u;
        next = Some(u);
    }
    let untimed = signal_of(&pairs, &vals);
    let Some((a, b)) = w else {
        return untimed;
    };
    let (e, l) = shifts(true, Some((0, b.saturating_sub(a))));
    let within = slide(psi, e, l, Fold::Max, f64::NEG_INFINITY).zip(&untimed, min);
    if a == 0 {
        return within;
    }
    let (e, l) = shifts(true, Some((0, a)));
    let always = slide(phi, e, l, Fold::Min, f64::INFINITY);
    always.zip(&within.earlier_by(Time::from(a)), min)
}

/// `phi since[w] psi` (`w` in nanoseconds, `None` unbounded).
pub fn since(phi: &Signal, psi: &Signal, w: Option<(u64, u64)>) -> Signal {
    let pairs = phi.pairs(psi);
    let mut vals = Vec::with_capacity(pairs.len());
    let mut prev: Option<f64> = None;
    for &(_, p, q) in &pairs {
        // The first segment starts the trace: its witnesses see only it.
        let s = match prev {
            None => min(p, q),
            Some(s) => min(p, max(q, s)),
        };
        vals.push(s);
        prev = Some(s);
    }
    let untimed = signal_of(&pairs, &vals);
    let Some((a, b)) = w else {
        return untimed;
    };
    let (e, l) = shifts(false, Some((0, b.saturating_sub(a))));
    let within = slide(psi, e, l, Fold::Max, f64::NEG_INFINITY).zip(&untimed, min);
    if a == 0 {
        return within;
    }
    let (e, l) = shifts(false, Some((0, a)));
    let historically = slide(phi, e, l, Fold::Min, f64::INFINITY);
    let a = Time::from(a);
    // Before `start + a` there is no witness: `-inf`, whatever φ is (a NaN, below `-inf` in
    // the order, must not come through the minimum).
    historically
        .zip(&within.later_by(a, f64::NEG_INFINITY), min)
        .with_prefix(phi.start() + a, f64::NEG_INFINITY)
}

fn signal_of(pairs: &[(Time, f64, f64)], vals: &[f64]) -> Signal {
    let mut b = Builder::with_capacity(pairs.len());
    for (&(t, _, _), &v) in pairs.iter().zip(vals) {
        b.push(t, v);
    }
    b.finish()
        .unwrap_or_else(|| Signal::constant(pairs.first().map_or(0, |p| p.0), f64::NAN))
}
