//! The dense-time engine behind the front door's [`rvmon_core::Monitor`]: the samples are
//! kept until the end of the trace, then the robustness at each sample time is emitted, as a
//! [`Kind::Violation`] where it is negative and [`Kind::Satisfied`] elsewhere.

use rvmon_core::event::{Event, ValType};
use rvmon_core::{
    decode_state, encode_state, fingerprint, Decision, Description, Error, Interner, Kind, Payload,
    Sink,
};

use super::DenseFormula;
use crate::monitor::sample_values;
use crate::number::SampleTime;

/// A dense-time STL formula's monitor (offline: it decides at the end of the trace).
pub struct DenseMonitor {
    formula: DenseFormula,
    times: Vec<i64>,
    /// One column per signal of the formula.
    columns: Vec<Vec<f64>>,
    sample: Vec<f64>,
    fingerprint: u64,
}

impl DenseMonitor {
    pub fn new(formula: DenseFormula) -> DenseMonitor {
        DenseMonitor {
            fingerprint: fingerprint(&(&formula, "dense")),
            times: Vec::new(),
            columns: vec![Vec::new(); formula.formula().signals.len()],
            sample: Vec::new(),
            formula,
        }
    }

    /// The inputs the trace must have: the formula's signals, as numbers.
    pub fn inputs(&self) -> Vec<(String, ValType)> {
        let float = |s: &String| (s.clone(), ValType::Float);
        self.formula.formula().signals.iter().map(float).collect()
    }

    fn sample(&mut self, ev: &Event) -> Result<(), Error> {
        let index = self.times.len() as u64;
        if let Some(&last) = self.times.last() {
            // A sample's value holds until the next one: two at one time would leave the
            // first holding nowhere.
            if ev.time <= last {
                return Err(Error::msg(format!(
                    "sample {index}: its time {} is not after the previous sample's ({}); dense \
                     time needs strictly increasing timestamps",
                    SampleTime(ev.time),
                    SampleTime(last)
                )));
            }
        }
        sample_values(self.formula.formula(), ev, index, &mut self.sample)?;
        self.times.push(ev.time);
        for (col, &v) in self.columns.iter_mut().zip(&self.sample) {
            col.push(v);
        }
        Ok(())
    }
}

impl rvmon_core::Monitor<Event> for DenseMonitor {
    fn feed(
        &mut self,
        batch: &[Event],
        _interner: &mut Interner,
        _sink: &mut dyn Sink,
    ) -> Result<(), Error> {
        for ev in batch {
            self.sample(ev)?;
        }
        Ok(())
    }

    fn finish(&mut self, interner: &mut Interner, sink: &mut dyn Sink) -> Result<(), Error> {
        let rob = super::robustness(&self.formula, &self.times, &self.columns);
        for (k, (&ts, &r)) in self.times.iter().zip(&rob).enumerate() {
            let kind = if r < 0.0 {
                Kind::Violation
            } else {
                Kind::Satisfied
            };
            let d = Decision {
                tp: k as u64,
                ts,
                kind,
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
        if fingerprint != self.fingerprint
            || columns.len() != self.columns.len()
            || columns.iter().any(|c| c.len() != times.len())
        {
            return Err(Error::msg(
                "the saved monitor state belongs to another STL formula (or to discrete time)",
            ));
        }
        (self.times, self.columns) = (times, columns);
        Ok(())
    }

    fn describe(&self) -> Description {
        Description {
            strategy: "signal temporal logic (rvmon-stl), dense-time robustness, exact for \
                       piecewise-constant signals (each sample's value holds until the next, the \
                       last forever; closed windows in seconds), offline: every sample decided \
                       at the end of the trace"
                .to_string(),
            memory: "every sample until the end of the trace; then each subformula's robustness \
                     as segments, at most about twice its operands' (freed once its parent is \
                     computed)"
                .to_string(),
        }
    }

    /// The samples are only stored until the end: large batches.
    fn batch_size(&self) -> usize {
        4096
    }
}
