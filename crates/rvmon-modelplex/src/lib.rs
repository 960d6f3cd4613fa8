//! ModelPlex monitor conditions in rvmon (paper 17): formulas of real arithmetic over a
//! prior state (`x`) and a posterior state (`x'`), evaluated on every pair of consecutive
//! samples of a signal trace. A pair the verified model cannot explain is a violation, which
//! names the monitor, its first failing conjunct and both states.
//!
//! Numbers are exact: a sample stands for the decimal it was written as, and the comparisons
//! are decided with intervals when they can be and with exact rationals when they cannot
//! (an equality that holds, a near tie), never with rounded floats. A tolerance, if asked,
//! forgives differences up to it, in the condition's favour.

pub mod ast;
pub mod compile;
pub mod eval;
pub mod exact;
mod filter;
pub mod interval;
mod lexer;
pub mod parse;
mod subst;

use rvmon_core::event::{Event, Val, ValType};
use rvmon_core::{
    decode_state, encode_state, Decision, Description, Error, Interner, Kind, Payload, Sink,
};

use compile::Program;
use eval::Ctx;
use exact::Exact;
use interval::Interval;

/// A `.modelplex` file's monitors: fed one event (sample) at a time, whose values are the
/// state variables' columns.
pub struct ModelplexMonitor {
    program: Program,
    /// The previous sample: its number, time (ns) and values.
    prior: Option<Prior>,
    /// The sample being checked.
    current: Vec<f64>,
    /// Quantified variables' values while evaluating.
    bound: Vec<Exact>,
    /// Per pair: the samples as intervals and (once needed) as exact decimals, and each
    /// monitor's outcome.
    scratch: Scratch,

    tp: u64,
}

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
struct Prior {
    tp: u64,
    time: i64,
    values: Vec<f64>,
}

#[derive(Default)]
struct Scratch {
    prior: Vec<Interval>,
    post: Vec<Interval>,
    prior_exact: Vec<Option<Exact>>,
    post_exact: Vec<Option<Exact>>,
    outcomes: Vec<Outcome>,
    /// The filter's registers.
    regs: Vec<(f64, f64)>,
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
            current: vec![0.0; program.signals.len()],
            bound: vec![Exact::int(0); program.slots],
            scratch: Scratch::default(),
            program,
            prior: None,
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
        let s = &mut self.scratch;
        let around = |x: &f64| Interval::around(*x).unwrap_or(Interval { lo: f64::MIN, hi: f64::MAX });
        s.prior.clear();
        s.prior.extend(prior.iter().map(around));
        s.post.clear();
        s.post.extend(post.iter().map(around));
        s.prior_exact.clear();
        s.prior_exact.resize(prior.len(), None);
        s.post_exact.clear();
        s.post_exact.resize(post.len(), None);
        let mut ctx = Ctx {
            prior: &s.prior,
            post: &s.post,
            prior_values: prior,
            post_values: post,
            prior_exact: &mut s.prior_exact,
            post_exact: &mut s.post_exact,
            bound: &mut self.bound,
            regs: &mut s.regs,
        };
        s.outcomes.clear();
        for m in &self.program.monitors {
            s.outcomes.push(outcome(m, &mut ctx));
        }
        &s.outcomes
    }

    /// The sample's values, each a finite number.
    fn read(&mut self, ev: &Event) -> Result<(), Error> {
        for (i, name) in self.program.signals.iter().enumerate() {
            let x = match ev.values.get(i) {
                Some(Some(Val::Float(x))) => *x,
                Some(Some(Val::Int(x))) => *x as f64,
                Some(Some(Val::UInt(x))) => *x as f64,
                _ => {
                    return Err(Error::msg(format!(
                        "sample {}: no number for `{name}` (a ModelPlex condition reads every \
                         state variable of every sample)",
                        self.tp
                    )))
                }
            };
            if !x.is_finite() {
                return Err(Error::msg(format!(
                    "sample {}: `{name}` is {x}: ModelPlex conditions are over real numbers",
                    self.tp
                )));
            }
            self.current[i] = x;
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
    fn feed(
        &mut self,
        batch: &[Event],
        interner: &mut Interner,
        sink: &mut dyn Sink,
    ) -> Result<(), Error> {
        for ev in batch {
            self.read(ev)?;
            if let Some(prior) = self.prior.take() {
                let current = std::mem::take(&mut self.current);
                let outcomes = self.check(&prior.values, &current).to_vec();
                for (m, o) in self.program.monitors.iter().zip(outcomes) {
                    let Outcome::Fails {
                        conjunct,
                        undefined,
                    } = o
                    else {
                        continue;
                    };
                    let d = Decision {
                        tp: self.tp,
                        ts: ev.time,
                        kind: Kind::Violation,
                        payload: Payload::Transition {
                            monitor: &m.name,
                            conjunct,
                            text: &m.conjuncts[conjunct].text,
                            undefined,
                            from_tp: prior.tp,
                            from_ts: prior.time,
                            signals: &self.program.signals,
                            prior: &prior.values,
                            posterior: &current,
                        },
                    };
                    sink.emit(&d, interner)?;
                }
                // (The two buffers swap roles: no allocation a sample.)
                self.current = prior.values;
                self.prior = Some(Prior {
                    tp: self.tp,
                    time: ev.time,
                    values: current,
                });
            } else {
                self.prior = Some(Prior {
                    tp: self.tp,
                    time: ev.time,
                    values: self.current.clone(),
                });
            }
            self.tp += 1;
        }
        Ok(())
    }

    /// Every pair is decided when its second sample arrives: nothing is left at the end.
    fn finish(&mut self, _: &mut Interner, _: &mut dyn Sink) -> Result<(), Error> {
        Ok(())
    }

    fn snapshot(&self) -> Result<Vec<u8>, Error> {
        Ok(encode_state(&State {
            prior: self.prior.clone(),
            tp: self.tp,
            signals: self.program.signals.clone(),
        }))
    }

    fn restore(&mut self, state: &[u8]) -> Result<(), Error> {
        let s: State = decode_state(state)
            .filter(|s: &State| s.signals == self.program.signals)
            .ok_or_else(|| Error::msg("not a state of this ModelPlex specification's monitor"))?;
        self.prior = s.prior;
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
