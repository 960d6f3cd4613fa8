//! The signal engine behind the front door's [`rvmon_core::Monitor`]: samples in (events of
//! the trace, a value per signal), the robustness of the formula at each sample out, as a
//! [`Kind::Violation`] where it is negative and [`Kind::Satisfied`] elsewhere.

use std::collections::VecDeque;

use rvmon_core::event::{Event, Val, ValType};
use rvmon_core::{
    decode_state, encode_state, fingerprint, Decision, Description, Error, Interner, Kind, Payload,
    Sink,
};

use crate::ast::Formula;
use crate::online::{Bounds, Online};

/// An STL formula's monitor: the online engine ([`Online`]), each sample's robustness
/// emitted as soon as the samples its windows read have arrived.
pub struct StlMonitor {
    formula: Formula,
    online: Online,
    /// The times of the samples not yet decided, from `times_from` on.
    times: VecDeque<i64>,
    times_from: u64,
    sample: Vec<f64>,
    /// A batch's samples, a row per sample.
    rows: Vec<f64>,
    decided: Vec<(u64, f64)>,
    fingerprint: u64,
    /// With `--intervals`: the bounds last written for each sample from the first (a sample
    /// number) on (`None`: no bounds are written).
    bounds: Option<(u64, VecDeque<Bounds>)>,
}

impl StlMonitor {
    pub fn new(formula: Formula) -> StlMonitor {
        let fingerprint = fingerprint(&formula);
        StlMonitor {
            online: Online::new(&formula),
            times: VecDeque::new(),
            times_from: 0,
            sample: Vec::new(),
            rows: Vec::new(),
            decided: Vec::new(),
            formula,
            fingerprint,
            bounds: None,
        }
    }

    /// Also writes the bounds of the robustness at the samples not yet decided, after each
    /// sample, where they tightened ([`Payload::Bounds`]). For formulas whose future
    /// operators all have windows.
    pub fn with_intervals(mut self) -> Result<StlMonitor, Error> {
        if !Online::has_bounds(&self.formula) {
            return Err(Error::msg(
                "--intervals needs every future operator bounded: `always`, `eventually` and \
                 `until` without a window are decided only at the end of the trace",
            ));
        }
        self.bounds = Some((0, VecDeque::new()));
        Ok(self)
    }

    /// The bounds at the undecided samples that changed since last written.
    fn emit_bounds(&mut self, interner: &Interner, sink: &mut dyn Sink) -> Result<(), Error> {
        let Some((from, written)) = &mut self.bounds else {
            return Ok(());
        };
        let now = self.online.bounds(&self.formula);
        // (The samples decided since were written with their robustness.)
        let gone = (self.times_from - *from).min(written.len() as u64) as usize;
        written.drain(..gone);
        *from = self.times_from;
        for (i, b) in now.iter().enumerate() {
            if written.get(i) == Some(b) {
                continue;
            }
            match written.get_mut(i) {
                Some(w) => *w = *b,
                None => written.push_back(*b),
            }
            let d = Decision {
                tp: self.times_from + i as u64,
                ts: self.times[i],
                kind: Kind::Inconclusive,
                payload: Payload::Bounds {
                    lower: b.lo,
                    upper: b.hi,
                },
            };
            sink.emit(&d, interner)?;
        }
        Ok(())
    }

    /// The formula it monitors.
    pub fn formula(&self) -> &Formula {
        &self.formula
    }

    /// The inputs the trace must have: the formula's signals, as numbers.
    pub fn inputs(&self) -> Vec<(String, ValType)> {
        let float = |s: &String| (s.clone(), ValType::Float);
        self.formula.signals.iter().map(float).collect()
    }

    /// Emits the robustness decided so far: a violation where it is negative.
    fn emit(&mut self, interner: &Interner, sink: &mut dyn Sink) -> Result<(), Error> {
        for (j, r) in self.decided.drain(..) {
            debug_assert_eq!(j, self.times_from);
            let ts = self.times.pop_front().expect("a time per sample");
            self.times_from += 1;
            let kind = if r < 0.0 {
                Kind::Violation
            } else {
                Kind::Satisfied
            };
            let d = Decision {
                tp: j,
                ts,
                kind,
                payload: Payload::Robustness(r),
            };
            sink.emit(&d, interner)?;
        }
        Ok(())
    }
}

/// The values in `ev` (sample number `index`) of `f`'s signals, in order, into `out`: a
/// number (an integer or Boolean as one) for every signal, or an error.
pub(crate) fn sample_values(
    f: &Formula,
    ev: &Event,
    index: u64,
    out: &mut Vec<f64>,
) -> Result<(), Error> {
    out.clear();
    for (k, name) in f.signals.iter().enumerate() {
        let v = match ev.values.get(k) {
            Some(Some(Val::Float(x))) => *x,
            Some(Some(Val::Int(i))) => *i as f64,
            Some(Some(Val::UInt(u))) => *u as f64,
            Some(Some(Val::Bool(b))) => f64::from(u8::from(*b)),
            _ => {
                return Err(Error::msg(format!(
                    "sample {index}: the signal `{name}` has no value (every sample needs a \
                     value of every signal the formula reads)"
                )))
            }
        };
        out.push(v);
    }
    Ok(())
}

impl rvmon_core::Monitor<Event> for StlMonitor {
    fn decides_at_once(&self) -> bool {
        self.formula.horizon() == Some(0)
    }

    fn feed(
        &mut self,
        batch: &[Event],
        interner: &mut Interner,
        sink: &mut dyn Sink,
    ) -> Result<(), Error> {
        if self.bounds.is_some() && batch.len() > 1 {
            // Bounds are written after every sample, whatever the batch.
            for ev in batch {
                self.feed(std::slice::from_ref(ev), interner, sink)?;
            }
            return Ok(());
        }
        // The batch's samples go in together (the engine computes node by node); those
        // before a bad event are decided and written before its error.
        self.rows.clear();
        let (mut bad, mut count) = (Ok(()), 0);
        for ev in batch {
            let index = self.times_from + self.times.len() as u64;
            if let Err(e) = sample_values(&self.formula, ev, index, &mut self.sample) {
                bad = Err(e);
                break;
            }
            self.rows.extend_from_slice(&self.sample);
            self.times.push_back(ev.time);
            count += 1;
        }
        let decided = &mut self.decided;
        self.online
            .push_rows(&self.formula, &self.rows, count, |j, r| {
                decided.push((j, r))
            });
        self.emit(interner, sink)?;
        self.emit_bounds(interner, sink)?;
        bad
    }

    fn finish(&mut self, interner: &mut Interner, sink: &mut dyn Sink) -> Result<(), Error> {
        let decided = &mut self.decided;
        self.online
            .finish(&self.formula, |j, r| decided.push((j, r)));
        self.emit(interner, sink)
    }

    fn snapshot(&self) -> Result<Vec<u8>, Error> {
        let state = (
            self.fingerprint,
            &self.online,
            &self.times,
            self.times_from,
            &self.bounds,
        );
        Ok(encode_state(&state))
    }

    fn restore(&mut self, state: &[u8]) -> Result<(), Error> {
        type State = (
            u64,
            Online,
            VecDeque<i64>,
            u64,
            Option<(u64, VecDeque<Bounds>)>,
        );
        let (fingerprint, mut online, times, times_from, bounds): State = decode_state(state)
            .ok_or_else(|| Error::msg("the saved signal monitor state is damaged"))?;
        if fingerprint != self.fingerprint {
            return Err(Error::msg(
                "the saved monitor state belongs to another STL formula",
            ));
        }
        online.rebuild(&self.formula);
        (self.online, self.times, self.times_from) = (online, times, times_from);
        // The bounds written before, if this run writes them too (else they are news).
        if self.bounds.is_some() {
            self.bounds = Some(bounds.unwrap_or((times_from, VecDeque::new())));
        }
        Ok(())
    }

    fn describe(&self) -> Description {
        let (horizon, memory) = match self.formula.horizon() {
            Some(h) => (
                format!("{h} sample(s)"),
                "the values each subformula's windows still read (its bounds, back and \
                 forward): independent of the trace length"
                    .to_string(),
            ),
            None => (
                "unbounded (an unbounded future operator)".to_string(),
                "the operand of each unbounded future operator, until the end of the trace \
                 (it decides them); the rest as for bounded windows"
                    .to_string(),
            ),
        };
        Description {
            strategy: format!(
                "signal temporal logic (rvmon-stl), discrete-time robustness (rtamt's), online: \
                 each sample decided {horizon} after it (paper 19's delayed exact mode)"
            ),
            memory,
        }
    }

    /// PERF: the run loop's per-batch work (the sink's end of batch, the progress display)
    /// is shared by 256 samples; each is decided as soon as its windows have their samples.
    fn batch_size(&self) -> usize {
        if self.bounds.is_some() {
            1 // bounds are written after every sample
        } else {
            256
        }
    }
}
