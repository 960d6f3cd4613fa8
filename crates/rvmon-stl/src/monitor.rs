//! The signal engine behind the front door's [`rvmon_core::Monitor`]: samples in (events of
//! the trace, a value per signal), the robustness of the formula at each sample out, as a
//! [`Kind::Violation`] where it is negative and [`Kind::Satisfied`] elsewhere.

use std::hash::Hasher;

use rvmon_core::event::{Event, Val, ValType};
use rvmon_core::{
    decode_state, encode_state, Decision, Description, Error, Interner, Kind, Payload, Sink,
};

use crate::ast::Formula;
use crate::eval::robustness;

/// An STL formula's monitor. This first engine keeps the samples and evaluates the formula
/// over the whole trace at its end, exactly as rtamt's offline `evaluate` does (the
/// reference for the online engines to come).
pub struct StlMonitor {
    formula: Formula,
    times: Vec<i64>,
    /// One column per signal of the formula.
    columns: Vec<Vec<f64>>,
    fingerprint: u64,
}

impl StlMonitor {
    pub fn new(formula: Formula) -> StlMonitor {
        let fingerprint = {
            let mut h = std::hash::DefaultHasher::new();
            h.write(format!("{formula:?}").as_bytes());
            h.finish()
        };
        StlMonitor {
            columns: vec![Vec::new(); formula.signals.len()],
            times: Vec::new(),
            formula,
            fingerprint,
        }
    }

    /// The inputs the trace must have: the formula's signals, as numbers.
    pub fn inputs(&self) -> Vec<(String, ValType)> {
        let float = |s: &String| (s.clone(), ValType::Float);
        self.formula.signals.iter().map(float).collect()
    }

    fn sample(&mut self, ev: &Event) -> Result<(), Error> {
        let n = self.times.len();
        for (k, column) in self.columns.iter_mut().enumerate() {
            let v = match ev.values.get(k) {
                Some(Some(Val::Float(x))) => *x,
                Some(Some(Val::Int(i))) => *i as f64,
                Some(Some(Val::UInt(u))) => *u as f64,
                Some(Some(Val::Bool(b))) => f64::from(u8::from(*b)),
                _ => {
                    return Err(Error::msg(format!(
                        "sample {n}: the signal `{}` has no value (every sample needs a value \
                         of every signal the formula reads)",
                        self.formula.signals[k]
                    )))
                }
            };
            column.push(v);
        }
        self.times.push(ev.time);
        Ok(())
    }
}

impl rvmon_core::Monitor<Event> for StlMonitor {
    fn feed(&mut self, batch: &[Event], _: &mut Interner, _: &mut dyn Sink) -> Result<(), Error> {
        batch.iter().try_for_each(|ev| self.sample(ev))
    }

    fn finish(&mut self, interner: &mut Interner, sink: &mut dyn Sink) -> Result<(), Error> {
        let rob = robustness(&self.formula, &self.columns);
        for (i, (&r, &ts)) in rob.iter().zip(&self.times).enumerate() {
            let d = Decision {
                tp: i as u64,
                ts,
                kind: if r < 0.0 {
                    Kind::Violation
                } else {
                    Kind::Satisfied
                },
                payload: Payload::Robustness(r),
            };
            sink.emit(&d, interner)?;
        }
        Ok(())
    }

    fn snapshot(&self) -> Result<Vec<u8>, Error> {
        Ok(encode_state(&(
            self.fingerprint,
            &self.times,
            &self.columns,
        )))
    }

    fn restore(&mut self, state: &[u8]) -> Result<(), Error> {
        let (fingerprint, times, columns): (u64, Vec<i64>, Vec<Vec<f64>>) = decode_state(state)
            .ok_or_else(|| Error::msg("the saved signal monitor state is damaged"))?;
        if fingerprint != self.fingerprint || columns.len() != self.columns.len() {
            return Err(Error::msg(
                "the saved monitor state belongs to another STL formula",
            ));
        }
        (self.times, self.columns) = (times, columns);
        Ok(())
    }

    fn describe(&self) -> Description {
        let horizon = match self.formula.horizon() {
            Some(h) => format!("{h} sample(s)"),
            None => "unbounded (an unbounded future operator)".to_string(),
        };
        Description {
            strategy: format!(
                "signal temporal logic (rvmon-stl), discrete-time robustness as rtamt computes \
                 it offline; future horizon {horizon}"
            ),
            memory: "every sample of the signals the formula reads: the formula is evaluated \
                     over the whole trace at its end (no online engine yet)"
                .to_string(),
        }
    }

    fn batch_size(&self) -> usize {
        256
    }
}
