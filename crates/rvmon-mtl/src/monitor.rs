//! The propositional engine behind the front door's [`rvmon_core::Monitor`].

use rvmon_core::{
    decode_state, encode_state, Decision, Description, Error, Interner, Kind, Payload, Sink,
    TimePoint, Truth, Verdict,
};

use crate::{Engine, Step};

/// A propositional formula's monitor: the strategy [`Engine::three_valued`] picks, its
/// verdicts emitted as decisions (a violation, satisfied, or inconclusive at the end).
pub struct MtlMonitor {
    engine: Engine,
    scratch: Vec<Verdict>,
}

impl MtlMonitor {
    /// Monitors `engine`'s program.
    pub fn new(engine: Engine) -> MtlMonitor {
        MtlMonitor {
            engine,
            scratch: Vec::new(),
        }
    }

    /// The engine it runs.
    pub fn engine(&self) -> &Engine {
        &self.engine
    }

    fn emit(&mut self, interner: &Interner, sink: &mut dyn Sink) -> Result<(), Error> {
        for v in self.scratch.drain(..) {
            let kind = match v.value {
                Truth::True => Kind::Satisfied,
                Truth::False => Kind::Violation,
                Truth::Unknown => Kind::Inconclusive,
            };
            let d = Decision {
                tp: v.tp,
                ts: v.ts,
                kind,
                payload: Payload::None,
            };
            sink.emit(&d, interner)?;
        }
        Ok(())
    }
}

impl rvmon_core::Monitor for MtlMonitor {
    fn decides_at_once(&self) -> bool {
        self.engine.program().is_past_only()
    }

    fn feed(
        &mut self,
        batch: &[TimePoint],
        interner: &mut Interner,
        sink: &mut dyn Sink,
    ) -> Result<(), Error> {
        for tp in batch {
            let stepped = self.engine.step(tp, &mut self.scratch);
            if !self.scratch.is_empty() {
                self.emit(interner, sink)?;
            }
            stepped?;
        }
        Ok(())
    }

    fn finish(&mut self, interner: &mut Interner, sink: &mut dyn Sink) -> Result<(), Error> {
        self.engine.finish(&mut self.scratch);
        self.emit(interner, sink)
    }

    fn snapshot(&self) -> Result<Vec<u8>, Error> {
        Ok(encode_state(&self.engine))
    }

    fn restore(&mut self, state: &[u8]) -> Result<(), Error> {
        let engine: Engine =
            decode_state(state).ok_or_else(|| Error::msg("the saved monitor state is damaged"))?;
        if engine.program().ops != self.engine.program().ops {
            return Err(Error::msg(
                "the saved monitor state belongs to another formula",
            ));
        }
        self.engine = engine;
        Ok(())
    }

    /// PERF: the run loop's per-batch work (a sink's end of batch, string collection, the
    /// progress display) is shared by 64 time points; the engine itself steps one at a time.
    fn batch_size(&self) -> usize {
        64
    }

    fn describe(&self) -> Description {
        let engine = &self.engine;
        let memory = match engine {
            Engine::Past(_) => {
                "O(1) per operator for [0,b] and [a,*) intervals; otherwise at most one timestamp \
                 per distinct timestamp inside the interval's lower bound"
            }
            Engine::ThreeValued(_) => {
                "the residue of each pending time point (time points with the same residue share \
                 one), bounded by the formula and the timestamps inside its metric windows; the \
                 pending time points themselves until decided\n\
                 verdicts: three-valued (LTL3): a violation as soon as no continuation of the \
                 trace can satisfy the formula there, satisfied as soon as every one does, \
                 inconclusive at the end otherwise; exact when the temporal operators have no \
                 interval, metric windows are relaxed in the check of the continuations (a \
                 verdict is never wrong, one may stay inconclusive)"
            }
            Engine::Eager(_) if engine.program().has_unbounded_future() => {
                "undecided time points are kept until decided\n\
                 verdicts: decided by progression; a past operator over a future one keeps the \
                 formula off the exact three-valued engine: time points not decided by the end \
                 are inconclusive"
            }
            Engine::Eager(_) => {
                "pending time points within the future horizon, plus the past operators' \
                 windows; independent of the trace length"
            }
        };
        Description {
            strategy: format!("propositional MTL (rvmon-mtl), {}", engine.strategy()),
            memory: memory.to_string(),
        }
    }
}
