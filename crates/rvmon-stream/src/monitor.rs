//! The stream engines behind the front door's [`rvmon_core::Monitor`]: events in, each fired
//! trigger (and, when asked, each output value) out as a decision as soon as it is decided.

use rvmon_core::{
    decode_state, encode_state, fingerprint, Decision, Description, Error, Interner, Kind,
    MemoryLimit, Payload, Sink,
};

use crate::ast::Type;
use crate::engine::{Decided, Event, Firing, Step, StreamEngine};
use crate::immediate::{self, ImmediateEngine};
use crate::value::Val;
use crate::Program;

/// A stream specification's monitor: the immediate engine when no value waits for a later
/// one, the general (partial evaluation) engine otherwise.
pub struct StreamMonitor {
    engine: Box<dyn Step>,
    immediate: bool,
    /// Output values are decisions too (`--values`), not only triggers.
    values: bool,
    names: Vec<String>,
    is_trigger: Vec<bool>,
    /// Per trigger index, the output it is (its place in declaration order).
    trigger_output: Vec<usize>,
    memory: String,
    /// The program (and `values`) a snapshot was taken of: a state restores only into a
    /// monitor of the same specification.
    fingerprint: u64,
    fired: Vec<Firing>,
    text: String,
    /// The input streams, with their types: what an event holds, in order.
    inputs: Vec<(String, Type)>,
    /// Buffers of [`StreamMonitor::emit`].
    decided: Vec<Decided>,
    order: Vec<(u64, usize, bool, usize)>,
}

impl StreamMonitor {
    /// Monitors `program`; with `values`, every output value is a decision
    /// ([`Kind::Value`]) besides the triggers ([`Kind::Trigger`]).
    pub fn new(program: Program, values: bool) -> StreamMonitor {
        let names: Vec<String> = program.outputs.iter().map(|o| o.name.clone()).collect();
        let is_trigger: Vec<bool> = program
            .outputs
            .iter()
            .map(|o| o.trigger.is_some())
            .collect();
        let trigger_output = (0..names.len()).filter(|&k| is_trigger[k]).collect();
        let memory = match &program.unbounded_cycle {
            None => "the past values the offsets read and the values waiting for future \
                     offsets: bounded by the specification, independent of the trace length"
                .to_string(),
            Some(c) => format!(
                "the cycle {} reads the future: its values wait until decided, at worst the \
                 end of the trace (bounded by --memory-limit)",
                c.join(" -> ")
            ),
        };
        let immediate = immediate::applies(&program);
        let inputs = program.inputs.clone();
        let fingerprint = {
            // (Not the memory limit: a run may resume with another.)
            let mut p = program.clone();
            p.memory = MemoryLimit::DEFAULT;
            fingerprint(&(p, values))
        };
        let mut engine: Box<dyn Step> = match ImmediateEngine::new(program) {
            Ok(e) => Box::new(e),
            Err(program) => Box::new(StreamEngine::new(*program)),
        };
        if values {
            engine.record_outputs();
        }
        StreamMonitor {
            engine,
            immediate,
            values,
            names,
            is_trigger,
            trigger_output,
            memory,
            fingerprint,
            fired: Vec::new(),
            text: String::new(),
            inputs,
            decided: Vec::new(),
            order: Vec::new(),
        }
    }

    /// The input streams with their types: an event holds a value (or none) for each, in
    /// this order.
    pub fn inputs(&self) -> &[(String, Type)] {
        &self.inputs
    }

    /// Emits what the last step decided. Within what one event decides, decisions follow the
    /// event, then declaration order, as RTLola prints them.
    fn emit(&mut self, interner: &Interner, sink: &mut dyn Sink) -> Result<(), Error> {
        if !self.values {
            for f in self.fired.drain(..) {
                sink.emit(&trigger(&f), interner)?;
            }
            return Ok(());
        }
        let is_trigger = &self.is_trigger;
        // (The buffers are kept from event to event: values are emitted at every one.)
        let mut decided = std::mem::take(&mut self.decided);
        decided.clear();
        self.engine.drain_decided(&mut decided);
        decided.retain(|d| !is_trigger[d.output]);
        // (event, declaration index, is a trigger, position in its list)
        let mut order = std::mem::take(&mut self.order);
        order.clear();
        order.extend(
            decided
                .iter()
                .enumerate()
                .map(|(i, d)| (d.event, d.output, false, i))
                .chain(
                    self.fired
                        .iter()
                        .enumerate()
                        .map(|(i, f)| (f.event, self.trigger_output[f.trigger], true, i)),
                ),
        );
        order.sort_unstable();
        let result = self.emit_in_order(&decided, &order, interner, sink);
        (self.decided, self.order) = (decided, order);
        self.fired.clear();
        result
    }

    /// Emits `decided` values and fired triggers in `order`.
    fn emit_in_order(
        &mut self,
        decided: &[Decided],
        order: &[(u64, usize, bool, usize)],
        interner: &Interner,
        sink: &mut dyn Sink,
    ) -> Result<(), Error> {
        for &(_, _, is_trigger, i) in order {
            if is_trigger {
                sink.emit(&trigger(&self.fired[i]), interner)?;
                continue;
            }
            let d = &decided[i];
            self.text.clear();
            d.value.write_to(&mut self.text);
            // An instance is named with its parameters, as RTLola names it: `s(1, a)`, `s()`.
            let instance_name;
            let stream = match &d.instance {
                None => &self.names[d.output],
                Some(params) => {
                    let params: Vec<String> = params.iter().map(Val::to_string).collect();
                    instance_name = format!("{}({})", self.names[d.output], params.join(", "));
                    &instance_name
                }
            };
            let value = Decision {
                tp: d.event,
                ts: d.time,
                kind: Kind::Value,
                payload: Payload::Value {
                    stream,
                    text: &self.text,
                    string: matches!(d.value, Val::Str(_)),
                },
            };
            sink.emit(&value, interner)?;
        }
        self.fired.clear();
        Ok(())
    }
}

/// The strategy a specification runs with (`immediate`: [`immediate::applies`] to it).
pub fn strategy(immediate: bool) -> &'static str {
    if immediate {
        "stream equations (rvmon-stream), immediate: no value waits, expressions compiled to \
         typed closures over fixed rings"
    } else {
        "stream equations (rvmon-stream), online partial evaluation (some values wait for \
         later ones)"
    }
}

fn trigger(f: &Firing) -> Decision<'_> {
    Decision {
        tp: f.event,
        ts: f.time,
        kind: Kind::Trigger,
        payload: Payload::Trigger {
            index: f.trigger,
            message: &f.message,
        },
    }
}

impl rvmon_core::Monitor<Event> for StreamMonitor {
    fn decides_at_once(&self) -> bool {
        self.immediate
    }

    /// On an error (a value that cannot be computed, the memory limit), what the events
    /// before it decided has been emitted.
    fn feed(
        &mut self,
        batch: &[Event],
        interner: &mut Interner,
        sink: &mut dyn Sink,
    ) -> Result<(), Error> {
        for ev in batch {
            self.engine.step(ev, &mut self.fired)?;
            if !self.fired.is_empty() || self.values {
                self.emit(interner, sink)?;
            }
        }
        Ok(())
    }

    fn finish(&mut self, interner: &mut Interner, sink: &mut dyn Sink) -> Result<(), Error> {
        self.engine.finish(&mut self.fired)?;
        self.emit(interner, sink)
    }

    /// Between two batches nothing is waiting to be emitted: the state is the engine's.
    fn snapshot(&self) -> Result<Vec<u8>, Error> {
        Ok(encode_state(&(self.fingerprint, self.engine.save())))
    }

    fn restore(&mut self, state: &[u8]) -> Result<(), Error> {
        let (fingerprint, engine): (u64, Vec<u8>) = decode_state(state)
            .ok_or_else(|| Error::msg("the saved stream monitor state is damaged"))?;
        if fingerprint != self.fingerprint {
            return Err(Error::msg(
                "the saved monitor state belongs to another stream specification",
            ));
        }
        self.engine.load(&engine)
    }

    fn describe(&self) -> Description {
        Description {
            strategy: strategy(self.immediate).to_string(),
            memory: self.memory.clone(),
        }
    }

    /// PERF: the run loop's per-batch work (the sink's end of batch, the progress display)
    /// is shared by 64 events; the engine steps one at a time.
    fn batch_size(&self) -> usize {
        64
    }
}
