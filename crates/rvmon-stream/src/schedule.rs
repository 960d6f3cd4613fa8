//! When periodic streams are evaluated: RTLola's static schedule.
//!
//! Time zero is 0 (rtlola-cli's `--offline relative-secs`: the trace's times as they are), and a
//! stream of period `p` is due at `p, 2p, 3p, …` — never at 0. The periods are exact fractions;
//! the schedule steps by their greatest common divisor `g` (in nanoseconds, a fraction too),
//! and the pause from one deadline to the next is `g` times the steps between them, cut to
//! whole nanoseconds — as RTLola's schedule does, so that `@3Hz` falls at 0.333333333,
//! 0.666666666, 0.999999999, … and mixed frequencies drift exactly as they do there.

use crate::analysis::{Pace, Program};
use crate::ast::Ratio;

/// What a deadline evaluates: output `k`'s values, spawn clause or close condition.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(crate) enum Task {
    Eval(usize),
    Spawn(usize),
    Close(usize),
}

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub(crate) struct Schedule {
    /// The step, in nanoseconds: `g_num / g_den`.
    g_num: i128,
    g_den: i128,
    /// Per task on the trace's clock: the task and its period in steps.
    periods: Vec<(Task, u64)>,
    /// The next deadline: its step and time.
    step: u64,
    time: i64,
}

fn gcd(a: i128, b: i128) -> i128 {
    if b == 0 {
        a.abs()
    } else {
        gcd(b, a % b)
    }
}

impl Schedule {
    /// The schedule of `prog`'s periodic outputs; `None` when it has none. `Err` when the
    /// periods are too far apart to step through (more than RTLola's 10^7 steps in a
    /// hyper-period, or beyond 64 bits).
    pub fn new(prog: &Program) -> Result<Option<Schedule>, &'static str> {
        let mut periods: Vec<(Task, Ratio)> = Vec::new();
        for (k, o) in prog.outputs.iter().enumerate() {
            if let Pace::Periodic(p) = o.pacing {
                periods.push((Task::Eval(k), p));
            }
            if let Some(d) = &o.dynamic {
                if let Pace::Periodic(p) = d.spawn_pace {
                    periods.push((Task::Spawn(k), p));
                }
                if let (Some(Pace::Periodic(p)), false) = (&d.close_pace, d.close_after_eval) {
                    periods.push((Task::Close(k), *p));
                }
            }
        }
        if periods.is_empty() {
            return Ok(None);
        }
        // In nanoseconds: num · 10^9 / den.
        let ns = |r: Ratio| (i128::from(r.num) * 1_000_000_000, i128::from(r.den));
        let (mut g_num, mut g_den) = (0i128, 1i128);
        for &(_, p) in &periods {
            let (n, d) = ns(p);
            let g = gcd(n, d);
            let (n, d) = (n / g, d / g);
            // gcd(a/b, c/d) = gcd(a, c) / lcm(b, d)
            let lcm = (g_den / gcd(g_den, d))
                .checked_mul(d)
                .ok_or("the periodic streams' frequencies are too incompatible")?;
            g_num = gcd(g_num, n);
            g_den = lcm;
        }
        if periods.iter().any(|&(_, p)| {
            let (n, d) = ns(p);
            n < d
        }) {
            return Err(
                "a period is shorter than a nanosecond (RTLola counts time in nanoseconds)",
            );
        }
        let mut steps = Vec::new();
        let mut hyper: u64 = 1;
        for &(k, p) in &periods {
            let (n, d) = ns(p);
            // p / g = (n / d) · (g_den / g_num)
            let too_long = "a period is too long for the schedule";
            let m = n.checked_mul(g_den).ok_or(too_long)? / d.checked_mul(g_num).ok_or(too_long)?;
            let m = u64::try_from(m).ok().filter(|&m| m > 0).ok_or(too_long)?;
            hyper = (hyper / gcd(hyper as i128, m as i128) as u64)
                .checked_mul(m)
                .filter(|&h| h < 10_000_000)
                .ok_or("the periodic streams' frequencies are too incompatible: their schedule would need 10^7 steps or more before it repeats (as in RTLola)")?;
            steps.push((k, m));
        }
        let mut s = Schedule {
            g_num,
            g_den,
            periods: steps,
            step: 0,
            time: 0,
        };
        s.advance();
        Ok(Some(s))
    }

    /// The next deadline's time, in nanoseconds.
    pub fn due(&self) -> i64 {
        self.time
    }

    /// The tasks due at the next deadline.
    pub fn tasks_due(&self) -> impl Iterator<Item = Task> + '_ {
        self.periods
            .iter()
            .filter(|&&(_, m)| self.step.is_multiple_of(m))
            .map(|&(k, _)| k)
    }

    /// Moves to the deadline after the next one.
    pub fn advance(&mut self) {
        let next = self
            .periods
            .iter()
            .map(|&(_, m)| (self.step / m).saturating_add(1).saturating_mul(m))
            .min()
            .unwrap_or(u64::MAX);
        if next <= self.step {
            // Beyond 2^64 steps: no deadline any trace reaches.
            self.time = i64::MAX;
            return;
        }
        let gap = i128::from(next - self.step);
        let pause = self.g_num * gap / self.g_den;
        self.time = self
            .time
            .saturating_add(i64::try_from(pause).unwrap_or(i64::MAX));
        self.step = next;
    }
}
