//! The first-order engine behind the front door's [`rvmon_core::Monitor`].

use rvmon_core::{
    Decision, Description, Error, Interner, Kind, Payload, Sink, Sym, TimePoint, Value,
};

use crate::relevance::Relevance;
use crate::{Answer, FoEngine, Plan, OFFLINE_BATCH};

/// What a first-order monitor's answers mean.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reading {
    /// The plan's satisfying assignments are violations (`rvmon check` monitors `NOT f`).
    Violations,
    /// They are the formula's satisfying assignments (`rvmon monpoly` without `-negate` on a
    /// formula): emitted as [`Kind::Satisfied`].
    Satisfactions,
}

/// A first-order formula's monitor: each satisfying assignment of the plan, at each time point
/// in order, sorted, is one decision whose payload is the tuple of the free variables.
pub struct FoMonitor {
    engine: FoEngine,
    vars: Vec<String>,
    reading: Reading,
    /// MonPoly's empty-time-point filter, when it provably changes no decision.
    relevance: Option<Relevance>,
    answers: Vec<Answer>,
}

impl FoMonitor {
    /// Monitors `plan`, whose output columns are the free variables `vars`. With `relevance`,
    /// the run loop may leave out (offline) the time points it finds irrelevant.
    pub fn new(
        plan: Plan,
        vars: Vec<String>,
        reading: Reading,
        relevance: Option<Relevance>,
    ) -> FoMonitor {
        FoMonitor {
            engine: FoEngine::new(plan),
            vars,
            reading,
            relevance,
            answers: Vec::new(),
        }
    }

    /// The engine it runs.
    pub fn engine(&self) -> &FoEngine {
        &self.engine
    }

    /// Emits (and drains) the answers.
    fn emit(&mut self, interner: &Interner, sink: &mut dyn Sink) -> Result<(), Error> {
        let kind = match self.reading {
            Reading::Violations => Kind::Violation,
            Reading::Satisfactions => Kind::Satisfied,
        };
        let order = &self.engine.plan().output_order;
        for a in self.answers.drain(..) {
            emit_answer(&a, order, &self.vars, kind, interner, sink)?;
        }
        Ok(())
    }
}

/// Emits the answer `a` of a plan whose columns, reordered by `order`, are the free variables
/// `vars`: one decision of `kind` per tuple, sorted as MonPoly sorts them.
pub fn emit_answer(
    a: &Answer,
    order: &[usize],
    vars: &[String],
    kind: Kind,
    interner: &Interner,
    sink: &mut dyn Sink,
) -> Result<(), Error> {
    if a.rel.is_empty() {
        return Ok(());
    }
    for row in &crate::rel::sorted_tuples(&a.rel, order, interner) {
        let values: &[Value] = row;
        let d = Decision {
            tp: a.tp,
            ts: a.ts,
            kind,
            payload: Payload::Tuple { vars, values },
        };
        sink.emit(&d, interner)?;
    }
    Ok(())
}

impl rvmon_core::Monitor for FoMonitor {
    fn decides_at_once(&self) -> bool {
        !self.engine.plan().has_future()
    }

    fn feed(
        &mut self,
        batch: &[TimePoint],
        interner: &mut Interner,
        sink: &mut dyn Sink,
    ) -> Result<(), Error> {
        let stepped = self.engine.step_batch(batch, interner, &mut self.answers);
        // The answers decided before a failing time point are emitted before its error.
        self.emit(interner, sink)?;
        stepped
    }

    fn finish(&mut self, interner: &mut Interner, sink: &mut dyn Sink) -> Result<(), Error> {
        if self.engine.plan().has_future() {
            let closed = self.engine.close(interner, &mut self.answers);
            self.emit(interner, sink)?;
            closed?;
        }
        Ok(())
    }

    fn snapshot(&self) -> Result<Vec<u8>, Error> {
        Ok(self.engine.save())
    }

    fn restore(&mut self, state: &[u8]) -> Result<(), Error> {
        self.engine = FoEngine::restore(self.engine.plan().clone(), state)?;
        Ok(())
    }

    fn describe(&self) -> Description {
        let waiting = if self.engine.plan().has_future() {
            ", plus the time points whose verdicts wait for the future horizon"
        } else {
            ""
        };
        Description {
            strategy: format!(
                "first-order MFOTL (rvmon-fo), relational plan of {} operators",
                self.engine.plan().nodes.len()
            ),
            memory: format!(
                "each temporal operator keeps the tuples it must remember: those inside its \
                 interval, and for an interval without end every tuple that still satisfies it \
                 (this grows with the distinct values seen, not with the trace's length){waiting}"
            ),
        }
    }

    /// PERF: time points go to the engine in batches ([`FoEngine::step_batch`]), which shares
    /// each operator's per-update overhead across the batch. A plan whose evaluation can fail
    /// gets them one by one, so that the decisions before the failing time point are all
    /// emitted.
    fn batch_size(&self) -> usize {
        if self.engine.plan().may_fail() {
            1
        } else {
            OFFLINE_BATCH
        }
    }

    fn may_skip(&self, tp: &TimePoint) -> bool {
        self.relevance.as_ref().is_some_and(|r| !r.any(tp))
    }

    fn mark_strings(&self, mark: &mut dyn FnMut(Sym)) -> usize {
        self.engine.mark_strings(mark)
    }

    fn take_warnings(&mut self) -> Vec<String> {
        self.engine.take_warnings()
    }
}
