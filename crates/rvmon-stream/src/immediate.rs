//! The engine for specifications whose values never wait: no future offsets, and every
//! output's latency 0 (the analysis' [`crate::analysis::StreamReport::latency`]). Most RTLola
//! specifications are of this kind.
//!
//! Every value is then decided at its own event, in the analysis' evaluation order, so the
//! general engine's machinery — pending instances, wake-ups, a trigger queue kept in event
//! order, trimming of histories — has nothing to do. Here each stream keeps its last values in
//! a ring of fixed size (the latest value and the `keep_past` before it), an event writes one
//! slot per stream that gets a value, expressions are compiled to typed closures
//! ([`crate::compiled`]), and the triggers fired at an event are written at once. The
//! property test `immediate_matches_general` checks that both engines give the same values
//! and triggers.

use rvmon_core::Error;

use std::rc::Rc;

use crate::analysis::{CExpr, CMessage, Program, Sid};
use crate::ast::Type;
use crate::compiled::{compile, Code, Ring, Stop, Store};
use crate::engine::{damaged, Clock, Decided, DecidedLog, Event, Firing, Step};
use crate::eval::bug;

/// Whether `prog` can run on [`ImmediateEngine`]: no offset reads ahead and every stream is
/// decided at its own event.
pub fn applies(prog: &Program) -> bool {
    fn ahead(e: &CExpr) -> bool {
        match e {
            CExpr::Offset(_, k) => *k > 0,
            CExpr::Const(_) | CExpr::Sync(_) | CExpr::Hold(_) | CExpr::Get(_) | CExpr::Fresh(_) => {
                false
            }
            CExpr::Default(a, b) | CExpr::Bin(_, a, b) => ahead(a) || ahead(b),
            CExpr::Neg(a) | CExpr::Not(a) | CExpr::Cast(_, a) => ahead(a),
            CExpr::Ite(a, b, c) => ahead(a) || ahead(b) || ahead(c),
            CExpr::Call(_, args) | CExpr::Format(_, args) => args.iter().any(ahead),
        }
    }
    prog.unbounded_cycle.is_none()
        && prog.report.iter().all(|r| r.latency == Some(0))
        && prog.outputs.iter().all(|o| {
            !ahead(&o.expr) && !matches!(&o.trigger, Some((_, CMessage::Computed(m))) if ahead(m))
        })
}

pub struct ImmediateEngine {
    prog: Program,
    store: Store,
    /// Per output: its compiled expression and, for a trigger with a computed message, the
    /// message's.
    code: Vec<(Code, Option<Code>)>,
    clock: Clock,
    /// The current event's firings, before they are put in trigger order.
    firings: Vec<Firing>,
    /// When recording: every decided output value.
    decided: DecidedLog,
}

impl ImmediateEngine {
    /// Gives `prog` back when it needs the general engine (see [`applies`]).
    pub fn new(prog: Program) -> Result<ImmediateEngine, Box<Program>> {
        if !applies(&prog) {
            return Err(Box::new(prog));
        }
        let types: Vec<Type> = prog
            .inputs
            .iter()
            .map(|i| i.1)
            .chain(prog.outputs.iter().map(|o| o.ty))
            .collect();
        let ty = |s: Sid| types[s];
        let code = prog
            .outputs
            .iter()
            .map(|o| {
                let message = match &o.trigger {
                    Some((_, CMessage::Computed(m))) => Some(compile(m, &ty)),
                    _ => None,
                };
                (compile(&o.expr, &ty), message)
            })
            .collect();
        Ok(ImmediateEngine {
            store: Store {
                rings: prog
                    .report
                    .iter()
                    .zip(&types)
                    .map(|(r, &t)| Ring::new(r.keep_past, t))
                    .collect(),
                now: 0,
                inputs: prog.inputs.len(),
            },
            code,
            clock: Clock::new(&prog),
            firings: Vec::new(),
            decided: DecidedLog::default(),
            prog,
        })
    }

    /// Values held (for memory checks): the rings' slots.
    pub fn retained(&self) -> usize {
        self.store.rings.iter().map(|r| r.bits.len()).sum()
    }
}

impl Step for ImmediateEngine {
    fn record_outputs(&mut self) {
        self.decided.enable();
    }

    fn save(&self) -> Vec<u8> {
        rvmon_core::encode_state(&(&self.store, &self.clock, &self.decided))
    }

    fn load(&mut self, state: &[u8]) -> Result<(), Error> {
        let (store, clock, decided) = rvmon_core::decode_state(state).ok_or_else(damaged)?;
        (self.store, self.clock, self.decided) = (store, clock, decided);
        Ok(())
    }

    fn take_decided(&mut self) -> Vec<Decided> {
        self.decided.take()
    }

    fn step(&mut self, ev: &Event, out: &mut Vec<Firing>) -> Result<(), Error> {
        let st = &mut self.store;
        st.now += 1;
        let e = st.now;
        let n_in = self.prog.inputs.len();
        self.clock.tick(&self.prog, ev);
        for (i, v) in ev.values.iter().enumerate().take(n_in) {
            if let Some(v) = v {
                let ring = &mut st.rings[i];
                let slot = ring.push(e);
                ring.set(slot, v);
            }
        }
        // Every output of this event gets its slot first, as in the general engine: an
        // offset of an output evaluated later counts from its new value.
        for k in 0..self.prog.outputs.len() {
            if self.clock.ticked[k] {
                st.rings[n_in + k].push(e);
            }
        }
        for &k in &self.prog.order {
            if !self.clock.ticked[k] {
                continue;
            }
            let o = &self.prog.outputs[k];
            let (code, message) = &self.code[k];
            let stop = |s: Stop, what: &str| match s {
                Stop::Fail(err) => o.failed(*err, e - 1),
                Stop::Absent => *bug(&format!("`{}` has no {what}", o.name)),
            };
            let s = n_in + k;
            let slot = ((st.rings[s].count - 1) & st.rings[s].mask) as usize;
            // Booleans and numbers go to the ring without passing through `Val` unless
            // values are recorded or a trigger fires.
            let fired = match code {
                Code::Bool(f) => {
                    let b = f(st).map_err(|x| stop(x, "value"))?;
                    st.rings[s].bits[slot] = u64::from(b);
                    b && o.trigger.is_some()
                }
                Code::Float(f) => {
                    st.rings[s].bits[slot] = f(st).map_err(|x| stop(x, "value"))?.to_bits();
                    false
                }
                Code::Int(f) => {
                    st.rings[s].bits[slot] = f(st).map_err(|x| stop(x, "value"))? as u64;
                    false
                }
                other => {
                    let v = other.eval(st).map_err(|x| stop(x, "value"))?;
                    st.rings[s].set(slot, &v);
                    false
                }
            };
            st.rings[s].computed = e;
            if let Some(d) = self.decided.log() {
                d.push(Decided {
                    output: k,
                    index: st.rings[s].count - 1,
                    event: e - 1,
                    time: ev.time,
                    value: st.rings[s].get(slot, o.ty),
                });
            }
            if fired {
                let (t, text) = o.trigger.as_ref().expect("a trigger");
                let message: Rc<str> = match (message, text) {
                    (Some(m), _) => match m.eval(st) {
                        Ok(v) => v.to_string().into(),
                        Err(Stop::Absent) => "".into(),
                        Err(Stop::Fail(err)) => return Err(o.failed(*err, e - 1)),
                    },
                    (None, CMessage::Text(t)) => t.clone(),
                    (None, CMessage::Computed(_)) => unreachable!("compiled above"),
                };
                self.firings.push(Firing {
                    event: e - 1,
                    time: ev.time,
                    trigger: *t,
                    message,
                });
            }
        }
        if self.firings.len() > 1 {
            self.firings.sort_unstable_by_key(|f| f.trigger);
        }
        out.append(&mut self.firings);
        Ok(())
    }

    fn finish(&mut self, _out: &mut Vec<Firing>) -> Result<(), Error> {
        Ok(()) // every value was decided at its event
    }
}
