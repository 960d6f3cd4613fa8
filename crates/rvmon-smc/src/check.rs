//! A property's probability on a chain: exactly (by iteration), and by simulation, with
//! PESTIM's sample count (Chernoff–Hoeffding, paper 28's constant) or Wald's SPRT (with the
//! direction of the proceedings' rule corrected: accept H1 when the ratio reaches A).

use rvmon_core::rng::SplitMix;

use crate::chain::Chain;
use crate::prop::{Prop, State};

/// The probability that a run from the initial state satisfies `prop`.
pub fn exact(chain: &Chain, prop: &Prop) -> f64 {
    match prop {
        Prop::Next(s) => next(chain, s),
        Prop::Until {
            left,
            right,
            bound,
            negated,
        } => {
            let p = until(chain, left, right, *bound)[chain.initial];
            if *negated {
                1.0 - p
            } else {
                p
            }
        }
    }
}

fn next(chain: &Chain, s: &State) -> f64 {
    let i = chain.initial;
    if chain.trans[i].is_empty() {
        return f64::from(u8::from(s.holds(chain, i)));
    }
    chain.trans[i]
        .iter()
        .filter(|(d, _)| s.holds(chain, *d))
        .map(|(_, p)| p)
        .sum()
}

/// Each state's probability of `left U<=bound right`: bounded by `bound` steps of the
/// iteration `x' = [right] + [left ∧ ¬right]·P·x`; unbounded, the states that cannot reach
/// `right` through `left` are 0 and the iteration (Gauss–Seidel) runs to a fixed point
/// (changes below 1e-15, or 10^6 sweeps).
pub fn until(chain: &Chain, left: &State, right: &State, bound: Option<u64>) -> Vec<f64> {
    let n = chain.states();
    let yes: Vec<bool> = (0..n).map(|s| right.holds(chain, s)).collect();
    let maybe: Vec<bool> = (0..n).map(|s| !yes[s] && left.holds(chain, s)).collect();
    let succ = |s: usize| -> Vec<(usize, f64)> {
        if chain.trans[s].is_empty() {
            vec![(s, 1.0)]
        } else {
            chain.trans[s].clone()
        }
    };
    let succs: Vec<Vec<(usize, f64)>> = (0..n).map(succ).collect();
    let mut x: Vec<f64> = yes.iter().map(|&y| f64::from(u8::from(y))).collect();
    if let Some(steps) = bound {
        for _ in 0..steps {
            let next: Vec<f64> = (0..n)
                .map(|s| {
                    if yes[s] {
                        1.0
                    } else if maybe[s] {
                        succs[s].iter().map(|&(d, p)| p * x[d]).sum()
                    } else {
                        0.0
                    }
                })
                .collect();
            x = next;
        }
        return x;
    }
    // The states that can reach `right` through `left` (backwards from `right`).
    let mut reach = yes.clone();
    loop {
        let mut changed = false;
        for s in 0..n {
            if !reach[s] && maybe[s] && succs[s].iter().any(|&(d, p)| p > 0.0 && reach[d]) {
                reach[s] = true;
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    for _ in 0..1_000_000 {
        let mut change: f64 = 0.0;
        for s in 0..n {
            if maybe[s] && reach[s] {
                let v: f64 = succs[s].iter().map(|&(d, p)| p * x[d]).sum();
                change = change.max((v - x[s]).abs());
                x[s] = v;
            }
        }
        if change < 1e-15 {
            break;
        }
    }
    x
}

/// Whether one simulated run satisfies `prop`. Unbounded: the run stops where the answer is
/// certain (in `right`, out of `left`, or where `right` cannot be reached: `dead`).
pub fn sample(chain: &Chain, prop: &Prop, dead: &[bool], rng: &mut SplitMix) -> bool {
    match prop {
        Prop::Next(s) => s.holds(chain, chain.step(chain.initial, rng)),
        Prop::Until {
            left,
            right,
            bound,
            negated,
        } => {
            let mut s = chain.initial;
            let mut steps = 0u64;
            let hit = loop {
                if right.holds(chain, s) {
                    break true;
                }
                if !left.holds(chain, s) || dead[s] || bound.is_some_and(|b| steps >= b) {
                    break false;
                }
                s = chain.step(s, rng);
                steps += 1;
            };
            hit != *negated
        }
    }
}

/// The states from which `prop`'s target cannot be reached (where an unbounded run stops).
pub fn dead_states(chain: &Chain, prop: &Prop) -> Vec<bool> {
    match prop {
        Prop::Until { left, right, .. } => until(chain, left, right, None)
            .iter()
            .map(|&p| p == 0.0)
            .collect(),
        Prop::Next(_) => vec![false; chain.states()],
    }
}

/// PESTIM's sample count: `⌈(4/δ²)·ln(2/α)⌉`, so that `|estimate − p| ≤ δ` with
/// probability at least `1 − α` (paper 28: `Pr(|p' − p| > δ) < 2e^{−mδ²/4}`).
pub fn pestim_samples(delta: f64, alpha: f64) -> u64 {
    ((4.0 / (delta * delta)) * (2.0 / alpha).ln()).ceil() as u64
}

/// PESTIM: the estimate and the number of runs.
pub fn pestim(chain: &Chain, prop: &Prop, delta: f64, alpha: f64, seed: u64) -> (f64, u64) {
    let m = pestim_samples(delta, alpha);
    let dead = dead_states(chain, prop);
    let mut rng = SplitMix(seed);
    let hits = (0..m)
        .filter(|_| sample(chain, prop, &dead, &mut rng))
        .count();
    (hits as f64 / m as f64, m)
}

/// What the SPRT decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Hypothesis {
    /// `p ≥ θ + δ`.
    AtLeast,
    /// `p ≤ θ − δ`.
    AtMost,
}

/// Wald's SPRT of H0: `p ≥ θ + δ` against H1: `p ≤ θ − δ`, errors at most `alpha` (type I)
/// and `beta` (type II): the decision, the runs and the successes. The log of the ratio
/// `p1^d (1−p1)^(m−d) / (p0^d (1−p0)^(m−d))` is kept; H1 is accepted when it reaches
/// `ln((1−β)/α)`, H0 when it falls to `ln(β/(1−α))` (the proceedings print the rule the
/// other way round, note E §7.1).
pub fn sprt(
    chain: &Chain,
    prop: &Prop,
    (theta, delta, alpha, beta): (f64, f64, f64, f64),
    seed: u64,
    max_runs: u64,
) -> Option<(Hypothesis, u64, u64)> {
    let (p0, p1) = (theta + delta, theta - delta);
    let (a, b) = (((1.0 - beta) / alpha).ln(), (beta / (1.0 - alpha)).ln());
    let (up, down) = ((p1 / p0).ln(), ((1.0 - p1) / (1.0 - p0)).ln());
    let dead = dead_states(chain, prop);
    let mut rng = SplitMix(seed);
    let (mut ratio, mut hits) = (0.0, 0u64);
    for m in 1..=max_runs {
        if sample(chain, prop, &dead, &mut rng) {
            ratio += up;
            hits += 1;
        } else {
            ratio += down;
        }
        if ratio >= a {
            return Some((Hypothesis::AtMost, m, hits));
        }
        if ratio <= b {
            return Some((Hypothesis::AtLeast, m, hits));
        }
    }
    None
}
