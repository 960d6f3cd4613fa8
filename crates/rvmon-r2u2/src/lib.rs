//! R2U2's observers in rvmon: mission-time LTL (MLTL) formulas over Boolean and numeric
//! signals, read from r2u2_cli's `.mltl` files or C2PO's `.c2po` files, monitored step by
//! step with R2U2's semantics, so that the verdicts are the ones r2u2_cli prints, line for
//! line ([`compile`] makes the operator tree C2PO makes; [`engine`] runs it as R2U2 does).

pub mod atoms;
pub mod compile;
pub mod engine;
mod graph;
mod ops;
pub mod syntax;

use rvmon_core::event::{Event, ValType};
use rvmon_core::{
    decode_state, encode_state, Decision, Description, Error, Interner, Kind, Payload, Sink,
};

use compile::{Options, Program};
use engine::{Engine, Verdict};
use syntax::{Spec, Type};

/// A specification's monitor: fed one event a step, whose values are its signals'.
pub struct R2u2Monitor {
    spec: Spec,
    program: Program,
    engine: Engine,
    /// Per formula, the first step its next verdict covers.
    from: Vec<u64>,
    atoms: Vec<bool>,
    out: Vec<(usize, Verdict)>,
    warnings: Vec<String>,
}

/// What a snapshot holds.
#[derive(serde::Serialize, serde::Deserialize)]
struct State {
    engine: Engine,
    from: Vec<u64>,
}

impl R2u2Monitor {
    /// Monitors `spec`, compiled as `r2u2_cli run` compiles it.
    pub fn new(spec: Spec) -> Result<R2u2Monitor, Error> {
        R2u2Monitor::with_options(spec, Options::default())
    }

    /// Monitors `spec` compiled with C2PO's `options`.
    pub fn with_options(spec: Spec, options: Options) -> Result<R2u2Monitor, Error> {
        let program = compile::compile(&spec, options)?;
        Ok(R2u2Monitor {
            engine: Engine::new(program.nodes.clone()),
            from: vec![0; program.labels.len()],
            atoms: vec![false; program.atoms.len()],
            spec,
            program,
            out: Vec::new(),
            warnings: Vec::new(),
        })
    }

    /// The same specification compiled with C2PO's `options` (before anything is fed).
    pub fn options(self, options: Options) -> Result<R2u2Monitor, Error> {
        R2u2Monitor::with_options(self.spec, options)
    }

    /// The signals an event holds, in order, with the types their values are read as (a
    /// Boolean signal is a number, 0 for false, as in R2U2's traces).
    pub fn inputs(&self) -> Vec<(String, ValType)> {
        self.spec
            .signals
            .iter()
            .map(|(name, ty)| {
                let t = match ty {
                    Type::Float => ValType::Float,
                    Type::Bool | Type::Int => ValType::Int,
                };
                (name.clone(), t)
            })
            .collect()
    }

    /// The program, its queues and their memory: what `--explain` prints.
    pub fn explain(&self, spec: &str) -> String {
        let nodes = self.engine.nodes();
        let mut s = format!("spec: {spec}\nengine: {}\n", self.strategy());
        let signals: Vec<String> = self.spec.signals.iter().map(|(n, _)| n.clone()).collect();
        s += &format!("signals: {}\n", signals.join(", "));
        s += "nodes (queue slots), in evaluation order:\n";
        for (k, n) in nodes.iter().enumerate() {
            s += &format!(
                "  n{k}: {} ({})\n",
                compile::describe(n, &self.program),
                n.size
            );
        }
        let slots: usize = nodes.iter().map(|n| n.size).sum();
        let bytes = slots * std::mem::size_of::<Verdict>();
        s += &format!(
            "memory: {} queues, {slots} slots of {} bytes: {bytes} bytes, fixed before the run\n",
            nodes.len(),
            std::mem::size_of::<Verdict>()
        );
        s
    }

    fn strategy(&self) -> String {
        "MLTL observers (rvmon-r2u2): R2U2's asynchronous operators over shared connection \
         queues, compiled as C2PO compiles"
            .to_string()
    }

    fn emit(&mut self, interner: &Interner, sink: &mut dyn Sink) -> Result<(), Error> {
        for (formula, v) in self.out.drain(..) {
            let from = std::mem::replace(&mut self.from[formula], u64::from(v.time) + 1);
            let d = Decision {
                tp: u64::from(v.time),
                ts: i64::from(v.time),
                kind: if v.truth {
                    Kind::Satisfied
                } else {
                    Kind::Violation
                },
                payload: Payload::Mltl {
                    formula,
                    label: self.program.labels[formula].as_deref(),
                    from: from.min(u64::from(v.time)),
                },
            };
            sink.emit(&d, interner)?;
        }
        Ok(())
    }
}

impl rvmon_core::Monitor<Event> for R2u2Monitor {
    fn feed(
        &mut self,
        batch: &[Event],
        interner: &mut Interner,
        sink: &mut dyn Sink,
    ) -> Result<(), Error> {
        for ev in batch {
            // (An event's time in seconds is its step; R2U2's clock jumps to it.)
            let step = u32::try_from(ev.time / 1_000_000_000)
                .ok()
                .filter(|_| ev.time % 1_000_000_000 == 0)
                .ok_or_else(|| {
                    Error::msg(format!(
                        "an event at {} s: R2U2's steps are whole numbers of seconds from 0 to \
                         2^32 - 1",
                        ev.time as f64 / 1e9
                    ))
                })?;
            if step != self.engine.time() {
                self.engine.set_time(step);
            }
            atoms::evaluate(
                &self.program.atoms,
                &self.spec.signals,
                ev,
                self.engine.time(),
                &mut self.atoms,
                &mut self.warnings,
            )?;
            self.engine.step(&self.atoms, &mut self.out);
            self.emit(interner, sink)?;
        }
        Ok(())
    }

    /// R2U2 decides nothing at the end: a verdict still waiting for steps is not printed.
    fn finish(&mut self, _: &mut Interner, _: &mut dyn Sink) -> Result<(), Error> {
        Ok(())
    }

    fn snapshot(&self) -> Result<Vec<u8>, Error> {
        Ok(encode_state(&State {
            engine: self.engine.clone(),
            from: self.from.clone(),
        }))
    }

    fn restore(&mut self, state: &[u8]) -> Result<(), Error> {
        let s: State = decode_state(state)
            .filter(|s: &State| s.engine.nodes() == self.engine.nodes())
            .ok_or_else(|| Error::msg("not a state of this R2U2 specification's monitor"))?;
        self.engine = s.engine;
        self.from = s.from;
        Ok(())
    }

    fn describe(&self) -> Description {
        let slots: usize = self.engine.nodes().iter().map(|n| n.size).sum();
        Description {
            strategy: self.strategy(),
            memory: format!(
                "{slots} queue slots ({} bytes), fixed before the run from the formulas' \
                 intervals: independent of the trace length",
                slots * std::mem::size_of::<Verdict>()
            ),
        }
    }

    fn take_warnings(&mut self) -> Vec<String> {
        std::mem::take(&mut self.warnings)
    }
}
