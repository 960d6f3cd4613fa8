//! The front door of the propositional engines: picks the cheapest correct strategy for a
//! program, the way regex-automata's meta engine does, and says which (for `--explain`).

use crate::Step;
use rvmon_core::{Error, TimePoint, Timestamp, Verdict};

use crate::engine::EagerEngine;
use crate::ltl3::Ltl3Engine;
use crate::past::PastEngine;
use crate::program::Program;

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub enum Engine {
    /// Past-only formulas: one pass over the nodes per time point, no queues.
    Past(PastEngine),
    /// Everything else: eager node streams.
    Eager(EagerEngine),
    /// Unbounded future operators (and no past operator over a future one): LTL3's
    /// three-valued verdicts, each as soon as it is certain.
    ThreeValued(Box<Ltl3Engine>),
}

impl Engine {
    pub fn new(program: Program) -> Engine {
        if program.is_past_only() {
            Engine::Past(PastEngine::new(program))
        } else {
            Engine::Eager(EagerEngine::new(program))
        }
    }

    /// The engine `rvmon check` runs: as [`Engine::new`], except that a formula with an
    /// unbounded future operator gets LTL3's exact verdicts ([`Ltl3Engine`]) instead of
    /// MonPoly's closing time point and `Unknown` for the rest.
    pub fn three_valued(program: Program) -> Engine {
        if Ltl3Engine::applies(&program) {
            Engine::ThreeValued(Box::new(Ltl3Engine::new(program)))
        } else {
            Engine::new(program)
        }
    }

    /// The general engine, whatever the formula (tests use it to check both strategies).
    pub fn eager(program: Program) -> Engine {
        Engine::Eager(EagerEngine::new(program))
    }

    /// Whether this is the exact three-valued strategy (LTL3).
    pub fn is_three_valued(&self) -> bool {
        matches!(self, Engine::ThreeValued(_))
    }

    /// The chosen strategy and why, in one line.
    pub fn strategy(&self) -> &'static str {
        match self {
            Engine::Past(_) => {
                "past-only single pass (every verdict decided at its own time point, no queues)"
            }
            Engine::Eager(_) => {
                "eager node streams (future operators decide as soon as their window allows)"
            }
            Engine::ThreeValued(_) => {
                "three-valued (LTL3): residues progressed at each time point, each checked for \
                 satisfiability on the continuations; a verdict as soon as it is certain"
            }
        }
    }

    pub fn program(&self) -> &Program {
        match self {
            Engine::Past(e) => e.program(),
            Engine::Eager(e) => e.program(),
            Engine::ThreeValued(e) => e.program(),
        }
    }

    #[inline]
    pub fn step_props(
        &mut self,
        index: u64,
        ts: Timestamp,
        out: &mut Vec<Verdict>,
    ) -> Result<(), Error> {
        match self {
            Engine::Past(e) => e.step_props(index, ts, out),
            Engine::Eager(e) => e.step_props(index, ts, out),
            Engine::ThreeValued(e) => return e.step_props(index, ts, out),
        }
        Ok(())
    }

    pub fn set_holds(&mut self, holds: &[bool]) {
        match self {
            Engine::Past(e) => e.set_holds(holds),
            Engine::Eager(e) => e.set_holds(holds),
            Engine::ThreeValued(e) => e.set_holds(holds),
        }
    }

    /// Ends the trace; `close` appends MonPoly's closing time point (see [`EagerEngine::finish_trace`]).
    pub fn finish_trace(&mut self, close: bool, out: &mut Vec<Verdict>) {
        match self {
            Engine::Past(_) => {}
            Engine::Eager(e) => e.finish_trace(close, out),
            Engine::ThreeValued(e) => e.finish_trace(out),
        }
    }

    pub fn held(&self) -> usize {
        match self {
            Engine::Past(e) => e.held(),
            Engine::Eager(e) => e.held(),
            Engine::ThreeValued(e) => e.held(),
        }
    }
}

impl Step for Engine {
    #[inline]
    fn step(&mut self, tp: &TimePoint, out: &mut Vec<Verdict>) -> Result<(), Error> {
        match self {
            Engine::Past(e) => e.step(tp, out),
            Engine::Eager(e) => e.step(tp, out),
            Engine::ThreeValued(e) => e.step(tp, out),
        }
    }

    fn finish(&mut self, out: &mut Vec<Verdict>) {
        match self {
            Engine::Past(e) => e.finish(out),
            Engine::Eager(e) => e.finish(out),
            Engine::ThreeValued(e) => e.finish(out),
        }
    }
}
