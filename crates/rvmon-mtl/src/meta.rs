//! The front door of the propositional engines: picks the cheapest correct strategy for a
//! program, the way regex-automata's meta engine does, and says which (for `--explain`).

use rvmon_core::{Monitor, TimePoint, Timestamp, Verdict};

use crate::engine::EagerEngine;
use crate::past::PastEngine;
use crate::program::Program;

#[derive(Clone, Debug, serde::Serialize, serde::Deserialize)]
pub enum Engine {
    /// Past-only formulas: one pass over the nodes per time point, no queues.
    Past(PastEngine),
    /// Everything else: eager node streams.
    Eager(EagerEngine),
}

impl Engine {
    pub fn new(program: Program) -> Engine {
        if program.is_past_only() {
            Engine::Past(PastEngine::new(program))
        } else {
            Engine::Eager(EagerEngine::new(program))
        }
    }

    /// The general engine, whatever the formula (tests use it to check both strategies).
    pub fn eager(program: Program) -> Engine {
        Engine::Eager(EagerEngine::new(program))
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
        }
    }

    pub fn program(&self) -> &Program {
        match self {
            Engine::Past(e) => e.program(),
            Engine::Eager(e) => e.program(),
        }
    }

    #[inline]
    pub fn step_props(&mut self, index: u64, ts: Timestamp, out: &mut Vec<Verdict>) {
        match self {
            Engine::Past(e) => e.step_props(index, ts, out),
            Engine::Eager(e) => e.step_props(index, ts, out),
        }
    }

    pub fn set_holds(&mut self, holds: &[bool]) {
        match self {
            Engine::Past(e) => e.set_holds(holds),
            Engine::Eager(e) => e.set_holds(holds),
        }
    }

    /// Ends the trace; `close` appends MonPoly's closing time point (see [`EagerEngine::finish_trace`]).
    pub fn finish_trace(&mut self, close: bool, out: &mut Vec<Verdict>) {
        if let Engine::Eager(e) = self {
            e.finish_trace(close, out)
        }
    }

    pub fn held(&self) -> usize {
        match self {
            Engine::Past(e) => e.held(),
            Engine::Eager(e) => e.held(),
        }
    }
}

impl Monitor for Engine {
    #[inline]
    fn step(&mut self, tp: &TimePoint, out: &mut Vec<Verdict>) {
        match self {
            Engine::Past(e) => e.step(tp, out),
            Engine::Eager(e) => e.step(tp, out),
        }
    }

    fn finish(&mut self, out: &mut Vec<Verdict>) {
        match self {
            Engine::Past(e) => e.finish(out),
            Engine::Eager(e) => e.finish(out),
        }
    }
}
