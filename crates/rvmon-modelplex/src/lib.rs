//! ModelPlex monitor conditions in rvmon (paper 17): formulas of real arithmetic over a
//! prior state (`x`) and a posterior state (`x'`), evaluated on every pair of consecutive
//! samples of a signal trace. A pair the verified model cannot explain is a violation, which
//! names the monitor, its first failing conjunct and both states.
//!
//! Numbers are exact: a sample stands for the decimal it was written as, and a comparison is
//! decided in passes, each exact or undecided, never with rounded floats: `f64` with a
//! rigorous error bound ([`filter`], over a batch of pairs at once), then 64-bit fixed point
//! ([`fixed`]), then rationals ([`exact`]). A tolerance, if asked, forgives differences up to
//! it, in the condition's favour.

// The arithmetic of `Exact`, `Interval` and `Dec` is fallible (overflow, a divisor that may be
// zero) or takes its operands by reference, so it is methods named as the operations, not
// the std operator traits.
#![allow(clippy::should_implement_trait)]

pub mod ast;
mod batch;
pub mod compile;
pub mod eval;
pub mod exact;
mod filter;
mod fixed;
mod fixed_lanes;
pub mod interval;
mod lexer;
pub mod parse;
mod subst;

use rvmon_core::event::{Event, Val, ValType};
use rvmon_core::{
    decode_state, encode_state, Decision, Description, Error, Interner, Kind, Payload, Sink,
};

use compile::Program;
use eval::{Ctx, Sample};
use exact::Exact;

/// A `.modelplex` file's monitors: fed one event (sample) at a time, whose values are the
/// state variables' columns.
pub struct ModelplexMonitor {
    program: Program,
    /// The previous sample's number and time (ns), once there is one.
    prior: Option<(u64, i64)>,
    /// The previous sample and the one being checked.
    samples: [Sample; 2],
    /// Quantified variables' values while evaluating.
    bound: Vec<Exact>,
    /// Scratch space of the passes, and each monitor's outcome on the pair.
    regs: filter::Lanes,
    decs: Vec<fixed::Dec>,
    outcomes: Vec<Outcome>,
    /// A batch's samples, row-major (the previous batch's last sample first), with each
    /// row's sample number and time; its scratch space and outcomes.
    rows: Vec<f64>,
    stamps: Vec<(u64, i64)>,
    batch: batch::Scratch,
    batch_outcomes: Vec<Outcome>,
    tp: u64,
}

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
struct Prior {
    tp: u64,
    time: i64,
    values: Vec<f64>,
}

/// What a snapshot holds.
#[derive(serde::Serialize, serde::Deserialize)]
struct State {
    prior: Option<Prior>,
    tp: u64,
    signals: Vec<String>,
}

/// The outcome of one monitor on one pair.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    Holds,
    /// Conjunct `n` (from 0) fails, or divides by zero if `undefined`.
    Fails {
        conjunct: usize,
        undefined: bool,
    },
}

impl ModelplexMonitor {
    /// Parses and compiles `text` (a `.modelplex` file named `name`); `tolerance` is the
    /// difference comparisons forgive (`None`: exact).
    pub fn new(name: &str, text: &str, tolerance: Option<&str>) -> Result<Self, Error> {
        let tolerance = match tolerance {
            None => Exact::int(0),
            Some(t) => Exact::parse_decimal(t)
                .filter(|v| v.signum() >= 0)
                .ok_or_else(|| {
                    Error::msg(format!(
                        "--tolerance {t}: expected a non-negative decimal number"
                    ))
                })?,
        };
        let file = parse::parse(name, text)?;
        let program = compile::compile(name, text, &file, tolerance)?;
        Ok(ModelplexMonitor {
            bound: vec![Exact::int(0); program.slots],
            program,
            prior: None,
            samples: Default::default(),
            regs: Default::default(),
            decs: Vec::new(),
            outcomes: Vec::new(),
            rows: Vec::new(),
            stamps: Vec::new(),
            batch: Default::default(),
            batch_outcomes: Vec::new(),
            tp: 0,
        })
    }

    /// The trace columns the conditions read, each a real number.
    pub fn inputs(&self) -> Vec<(String, ValType)> {
        self.program
            .signals
            .iter()
            .map(|s| (s.clone(), ValType::Float))
            .collect()
    }

    pub fn program(&self) -> &Program {
        &self.program
    }

    /// Each monitor's outcome on the pair `prior`, `post` (values in the order of
    /// [`ModelplexMonitor::inputs`], finite).
    pub fn check(&mut self, prior: &[f64], post: &[f64]) -> &[Outcome] {
        self.samples[0].set(prior);
        self.samples[1].set(post);
        self.evaluate()
    }

    /// Each monitor's outcome on the pair held in `samples`.
    fn evaluate(&mut self) -> &[Outcome] {
        let [prior, post] = &mut self.samples;
        let mut ctx = Ctx {
            prior,
            post,
            bound: &mut self.bound,
            regs: &mut self.regs,
            decs: &mut self.decs,
        };
        self.outcomes.clear();
        for m in &self.program.monitors {
            self.outcomes.push(outcome(m, &mut ctx));
        }
        &self.outcomes
    }

    /// The sample's values, each a finite number, as a row of `rows` (none if one is not).
    fn read(&mut self, ev: &Event) -> Result<(), Error> {
        let start = self.rows.len();
        let read = self.read_values(ev);
        if read.is_err() {
            self.rows.truncate(start);
        }
        read
    }

    fn read_values(&mut self, ev: &Event) -> Result<(), Error> {
        for (i, name) in self.program.signals.iter().enumerate() {
            let x = match ev.values.get(i) {
                Some(Some(Val::Float(x))) => *x,
                Some(Some(Val::Int(x))) => *x as f64,
                Some(Some(Val::UInt(x))) => *x as f64,
                _ => {
                    return Err(Error::msg(format!(
                        "sample {} (counted from 0): no number for `{name}` (a ModelPlex \
                         condition reads every state variable of every sample)",
                        self.tp
                    )))
                }
            };
            if !x.is_finite() {
                return Err(Error::msg(format!(
                    "sample {} (counted from 0): `{name}` is {x}: ModelPlex conditions are \
                     over real numbers",
                    self.tp
                )));
            }
            self.rows.push(x);
        }
        Ok(())
    }

    /// Emits a violation of each monitor whose condition the pair (`prior` at `from`,
    /// `post` at `to`: sample numbers and times) fails; `outcomes` are the monitors'.
    fn emit(
        &self,
        outcomes: impl Iterator<Item = Outcome>,
        (prior, post): (&[f64], &[f64]),
        ((from_tp, from_ts), (tp, ts)): ((u64, i64), (u64, i64)),
        interner: &Interner,
        sink: &mut dyn Sink,
    ) -> Result<(), Error> {
        for (m, o) in self.program.monitors.iter().zip(outcomes) {
            let Outcome::Fails {
                conjunct,
                undefined,
            } = o
            else {
                continue;
            };
            let d = Decision {
                tp,
                ts,
                kind: Kind::Violation,
                payload: Payload::Transition {
                    monitor: &m.name,
                    conjunct,
                    text: &m.conjuncts[conjunct].text,
                    undefined,
                    from_tp,
                    from_ts,
                    signals: &self.program.signals,
                    prior,
                    posterior: post,
                },
            };
            sink.emit(&d, interner)?;
        }
        Ok(())
    }
}

fn outcome(m: &compile::CompiledMonitor, ctx: &mut Ctx<'_>) -> Outcome {
    for (i, c) in m.conjuncts.iter().enumerate() {
        match eval::holds(&c.cond, ctx) {
            Ok(true) => {}
            Ok(false) => {
                return Outcome::Fails {
                    conjunct: i,
                    undefined: false,
                }
            }
            Err(_) => {
                return Outcome::Fails {
                    conjunct: i,
                    undefined: true,
                }
            }
        }
    }
    Outcome::Holds
}

impl rvmon_core::Monitor<Event> for ModelplexMonitor {
    /// The batch's samples are read first (up to a bad one), then its pairs are decided
    /// together ([`batch`]), then their violations are emitted in order, and then the error
    /// of a bad sample, if there was one.
    fn feed(
        &mut self,
        batch: &[Event],
        interner: &mut Interner,
        sink: &mut dyn Sink,
    ) -> Result<(), Error> {
        let width = self.program.signals.len();
        self.rows.clear();
        self.stamps.clear();
        if let Some(p) = self.prior {
            self.rows.extend_from_slice(&self.samples[0].values);
            self.stamps.push(p);
        }
        let mut bad = None;
        for ev in batch {
            if let Err(e) = self.read(ev) {
                bad = Some(e);
                break;
            }
            self.stamps.push((self.tp, ev.time));
            self.tp += 1;
        }
        let lanes = self.stamps.len().saturating_sub(1);
        if lanes > 0 {
            let pairs = batch::Pairs {
                rows: &self.rows,
                width,
                lanes,
            };
            let (monitors, bound) = (&self.program.monitors, &mut self.bound);
            batch::outcomes(
                monitors,
                &pairs,
                bound,
                &mut self.batch,
                &mut self.batch_outcomes,
            );
            let n = self.program.monitors.len();
            for j in 0..lanes {
                let of_pair = (0..n).map(|m| self.batch_outcomes[m * lanes + j]);
                if of_pair.clone().all(|o| o == Outcome::Holds) {
                    continue;
                }
                let rows = &self.rows;
                let states = (
                    &rows[j * width..(j + 1) * width],
                    &rows[(j + 1) * width..(j + 2) * width],
                );
                let stamps = (self.stamps[j], self.stamps[j + 1]);
                self.emit(of_pair, states, stamps, interner, sink)?;
            }
        }
        if let Some(&last) = self.stamps.last() {
            let at = (self.stamps.len() - 1) * width;
            self.samples[0].set(&self.rows[at..at + width]);
            self.prior = Some(last);
        }
        bad.map_or(Ok(()), Err)
    }

    /// Pairs are decided a batch at a time (each comparison over the whole batch).
    fn batch_size(&self) -> usize {
        128
    }

    /// Every pair is decided when its second sample arrives: nothing is left at the end.
    fn finish(&mut self, _: &mut Interner, _: &mut dyn Sink) -> Result<(), Error> {
        Ok(())
    }

    fn snapshot(&self) -> Result<Vec<u8>, Error> {
        let prior = self.prior.map(|(tp, time)| Prior {
            tp,
            time,
            values: self.samples[0].values.clone(),
        });
        Ok(encode_state(&State {
            prior,
            tp: self.tp,
            signals: self.program.signals.clone(),
        }))
    }

    fn restore(&mut self, state: &[u8]) -> Result<(), Error> {
        let s: State = decode_state(state)
            .filter(|s: &State| s.signals == self.program.signals)
            .ok_or_else(|| Error::msg("not a state of this ModelPlex specification's monitor"))?;
        self.prior = s.prior.as_ref().map(|p| (p.tp, p.time));
        if let Some(p) = s.prior {
            self.samples[0].set(&p.values);
        }
        self.tp = s.tp;
        Ok(())
    }

    fn describe(&self) -> Description {
        let names: Vec<String> = self
            .program
            .monitors
            .iter()
            .map(|m| format!("{} ({} conjuncts)", m.name, m.conjuncts.len()))
            .collect();
        let arithmetic = if self.program.tolerance.is_zero() {
            "exact rational arithmetic (intervals first)".to_string()
        } else {
            format!(
                "rational arithmetic, differences up to {} forgiven",
                self.program.tolerance.to_f64()
            )
        };
        Description {
            strategy: format!(
                "ModelPlex monitor conditions (rvmon-modelplex), on every pair of consecutive \
                 samples: {}; {arithmetic}",
                names.join(", ")
            ),
            memory: format!(
                "the previous sample ({} values): independent of the trace length",
                self.program.signals.len()
            ),
        }
    }

    fn decides_at_once(&self) -> bool {
        true
    }
}
