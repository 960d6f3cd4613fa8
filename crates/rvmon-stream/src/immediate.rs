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
use crate::compiled::{compile, Code, Cx, Ring, Stop, Store};
use crate::dynamic::{Cycle, DynCode};
use crate::engine::{damaged, Clock, Decided, DecidedLog, Event, Firing, Step};
use crate::eval::bug;
use crate::instances::{key, Instances};
use crate::schedule::{Schedule, Task};
use crate::value::Val;
use crate::window::WindowState;
use rustc_hash::FxHashMap;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// Whether `prog` can run on [`ImmediateEngine`]: no offset reads ahead and every stream is
/// decided at its own event.
pub fn applies(prog: &Program) -> bool {
    fn ahead(e: &CExpr) -> bool {
        match e {
            CExpr::Offset(_, k) => *k > 0,
            CExpr::Const(_)
            | CExpr::Sync(_)
            | CExpr::Hold(_)
            | CExpr::Get(_)
            | CExpr::Fresh(_)
            | CExpr::Window(_)
            | CExpr::Param(_) => false,
            CExpr::Instance(_, args, _) => args.iter().any(ahead),
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
    pub(crate) prog: Program,
    pub(crate) store: Store,
    /// Per output: its compiled expression and, for a trigger with a computed message, the
    /// message's.
    code: Vec<(Code, Option<Code>)>,
    pub(crate) clock: Clock,
    /// Per stream: the windows over it (indices into the store's windows).
    pub(crate) windows_over: Vec<Vec<usize>>,
    /// Per window: the dynamic output whose instances each have their own copy.
    pub(crate) window_owner: Vec<Option<usize>>,
    /// Per output: for a dynamic one, the windows its instances own.
    pub(crate) instance_windows: Vec<Option<std::ops::Range<usize>>>,
    /// The periodic streams' deadlines on the trace's clock, when there are any.
    pub(crate) schedule: Option<Schedule>,
    /// Parameterized and spawned streams: per output, its clauses' code.
    pub(crate) dyn_code: Vec<Option<DynCode>>,
    /// Deadlines on instances' own clocks: (time, instance serial, output).
    pub(crate) local: BinaryHeap<Reverse<(i64, u64, usize)>>,
    /// The current cycle: an event (or a deadline), the tasks due on the trace's clock and
    /// the instances due on their own, and the instances evaluated so far.
    pub(crate) cycle: Cycle,
    /// The latest event's time: deadlines up to it are evaluated at the end of the trace.
    last_time: Option<i64>,
    /// The current cycle's firings, before they are put in trigger order.
    firings: Vec<Firing>,
    /// When recording: every decided output value.
    pub(crate) decided: DecidedLog,
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
        let mut cx = Cx {
            ty: &ty,
            windows: Vec::new(),
            params: Vec::new(),
        };
        let mut dyn_code = Vec::new();
        // Per window: the period of the output that reads it, which its buckets divide.
        let mut periods = Vec::new();
        let mut code = Vec::new();
        // Per dynamic output: the windows its instances own (in its filter, close condition
        // and expression), each instance a copy started at its spawn.
        let mut instance_windows = Vec::new();
        for o in &prog.outputs {
            let mut dc = None;
            if let Some(d) = &o.dynamic {
                dc = Some(DynCode::compile_spawn(d, &mut cx));
                periods.resize(cx.windows.len(), d.spawn_pace.period().map_or(1, period_ns));
            }
            let lo = cx.windows.len();
            cx.params = o
                .dynamic
                .as_ref()
                .map_or(Vec::new(), |d| d.params.iter().map(|p| p.1).collect());
            if let (Some(dc), Some(d)) = (&mut dc, &o.dynamic) {
                dc.compile_instance(d, &mut cx);
            }
            let message = match &o.trigger {
                Some((_, CMessage::Computed(m))) => Some(compile(m, &mut cx)),
                _ => None,
            };
            let expr = compile(&o.expr, &mut cx);
            periods.resize(cx.windows.len(), o.pacing.period().map_or(1, period_ns));
            instance_windows.push(o.dynamic.as_ref().map(|_| lo..cx.windows.len()));
            dyn_code.push(dc);
            code.push((expr, message));
        }
        let windows: Vec<_> = cx.windows.into_iter().zip(periods).collect();
        let mut windows_over = vec![Vec::new(); types.len()];
        for (i, (w, _)) in windows.iter().enumerate() {
            windows_over[w.target].push(i);
        }
        let mut window_owner = vec![None; windows.len()];
        for (k, range) in instance_windows.iter().enumerate() {
            for w in range.clone().into_iter().flatten() {
                window_owner[w] = Some(k);
            }
        }
        let schedule = match Schedule::new(&prog) {
            Ok(s) => s,
            // (The analysis checked the periods; a schedule it let through always builds.)
            Err(_) => return Err(Box::new(prog)),
        };
        Ok(ImmediateEngine {
            store: Store {
                rings: prog
                    .report
                    .iter()
                    .zip(&types)
                    .map(|(r, &t)| Ring::new(r.keep_past, t))
                    .collect(),
                windows: windows
                    .iter()
                    .map(|(w, p)| WindowState::new(w, *p))
                    .collect(),
                now: 0,
                time: 0,
                inputs: prog.inputs.len(),
                params: Vec::new(),
                entered: None,
                keyed: windows
                    .iter()
                    .map(|(w, _)| (!w.args.is_empty()).then(FxHashMap::default))
                    .collect(),
                instances: (0..types.len())
                    .map(|s| {
                        let k = s.checked_sub(prog.inputs.len())?;
                        prog.outputs[k]
                            .dynamic
                            .as_ref()
                            .map(|_| Instances::default())
                    })
                    .collect(),
            },
            code,
            clock: Clock::new(&prog),
            windows_over,
            window_owner,
            instance_windows,
            schedule,
            dyn_code,
            local: BinaryHeap::new(),
            cycle: Cycle::default(),
            last_time: None,
            firings: Vec::new(),
            decided: DecidedLog::default(),
            prog,
        })
    }

    /// Values held (for memory checks): the rings' slots, the instances' and the windows' buckets.
    pub fn retained(&self) -> usize {
        let st = &self.store;
        let rings: usize = st.rings.iter().map(|r| r.bits.len()).sum();
        // Each instance has a ring of its stream's size.
        let instances: usize = (0..st.instances.len())
            .filter_map(|s| Some(st.instances[s].as_ref()?.len() * st.rings[s].bits.len()))
            .sum();
        let windows: usize = st.windows.iter().map(WindowState::cells).sum();
        rings + instances + windows
    }

    /// Starts a cycle at `time`: windows over time move on to it.
    fn begin_cycle(&mut self, time: i64) {
        self.remove_closed();
        let st = &mut self.store;
        st.now += 1;
        st.time = time;
        for w in &mut st.windows {
            w.advance(time);
        }
        for m in st.keyed.iter_mut().flatten() {
            m.retain(|_, k| k.delete_after.is_none_or(|t| time <= t));
            m.values_mut().for_each(|k| k.window.advance(time));
        }
        self.cycle.evaluated.clear();
    }

    /// Stream `s` got the value in ring slot `slot`: the windows over it take it.
    pub(crate) fn feed_windows(&mut self, s: Sid, slot: usize, ty: Type) {
        if self.windows_over[s].is_empty() {
            return;
        }
        let st = &mut self.store;
        let v = st.rings[s].get(slot, ty);
        let n_in = self.prog.inputs.len();
        for &w in &self.windows_over[s] {
            if let Some(m) = st.keyed[w].as_mut() {
                // Over instances: the one being evaluated.
                if let Some(k) = m.get_mut(&key(&st.params)) {
                    k.window.accept(&v, st.time);
                }
                continue;
            }
            match self.window_owner[w] {
                None => st.windows[w].accept(&v, st.time),
                Some(k) => {
                    let lo = self.instance_windows[k].as_ref().map_or(0, |r| r.start);
                    if let Some(instances) = st.instances[n_in + k].as_mut() {
                        for inst in instances.iter_mut() {
                            inst.windows[w - lo].accept(&v, st.time);
                        }
                    }
                }
            }
        }
    }

    /// Evaluates the periodic streams due at every deadline before `until` (or, with
    /// `inclusive`, up to and including it): the trace's clock's and the instances' own, one
    /// cycle per time.
    fn deadlines(
        &mut self,
        until: i64,
        inclusive: bool,
        out: &mut Vec<Firing>,
    ) -> Result<(), Error> {
        while let Some(due) = self.next_deadline() {
            // (A clock saturated at the end of time has no deadline left.)
            if due > until || (due == until && !inclusive) || due == i64::MAX {
                return Ok(());
            }
            self.cycle.event = false;
            self.cycle.due.clear();
            self.cycle.local_due.clear();
            if let Some(s) = &mut self.schedule {
                if s.due() == due {
                    self.cycle.due.extend(s.tasks_due());
                    s.advance();
                }
            }
            while let Some(&Reverse((t, serial, k))) = self.local.peek() {
                if t != due {
                    break;
                }
                self.local.pop();
                self.cycle.local_due.push((k, serial));
            }
            self.clock.ticked.iter_mut().for_each(|t| *t = false);
            for task in &self.cycle.due {
                if let Task::Eval(k) = task {
                    self.clock.ticked[*k] = true;
                }
            }
            self.begin_cycle(due);
            self.evaluate(due, out)?;
        }
        Ok(())
    }

    /// The next deadline on any clock.
    fn next_deadline(&mut self) -> Option<i64> {
        self.drop_stale_local();
        let s = self.schedule.as_ref().map(Schedule::due);
        let l = self.local.peek().map(|Reverse((t, ..))| *t);
        match (s, l) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// Evaluates the outputs that tick in this cycle (`clock.ticked`), in evaluation order;
    /// appends the triggers fired, in trigger order.
    fn evaluate(&mut self, time: i64, out: &mut Vec<Firing>) -> Result<(), Error> {
        let n_in = self.prog.inputs.len();
        let e = self.store.now;
        // Every output of this cycle gets its slot first, as in the general engine: an
        // offset of an output evaluated later counts from its new value.
        for k in 0..self.prog.outputs.len() {
            if self.clock.ticked[k] && self.dyn_code[k].is_none() {
                self.store.rings[n_in + k].push(e);
            }
        }
        for i in 0..self.prog.order.len() {
            let k = self.prog.order[i];
            if self.dyn_code[k].is_some() {
                self.dynamic_output(k, time)?;
                continue;
            }
            if !self.clock.ticked[k] {
                continue;
            }
            let slot = self.evaluate_output(k, time, None)?;
            self.feed_windows(n_in + k, slot, self.prog.outputs[k].ty);
        }
        self.closes()?;
        if self.firings.len() > 1 {
            self.firings.sort_unstable_by_key(|f| f.trigger);
        }
        out.append(&mut self.firings);
        Ok(())
    }

    /// Computes output `k`'s value of this cycle into its ring (of `instance`, with its
    /// parameters); returns the slot.
    pub(crate) fn evaluate_output(
        &mut self,
        k: usize,
        time: i64,
        instance: Option<&[Val]>,
    ) -> Result<usize, Error> {
        let n_in = self.prog.inputs.len();
        let st = &mut self.store;
        let e = st.now;
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
                instance: instance.map(<[Val]>::to_vec),
                output: k,
                index: st.rings[s].count - 1,
                event: e - 1,
                time,
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
                time,
                trigger: *t,
                message,
            });
        }
        Ok(slot)
    }
}

/// A period in whole nanoseconds (cut, as RTLola cuts it), at least 1.
pub(crate) fn period_ns(p: crate::ast::Ratio) -> u64 {
    let ns = i128::from(p.num) * 1_000_000_000 / i128::from(p.den);
    u64::try_from(ns).unwrap_or(u64::MAX).max(1)
}

impl Step for ImmediateEngine {
    fn record_outputs(&mut self) {
        self.decided.enable();
    }

    fn save(&self) -> Vec<u8> {
        rvmon_core::encode_state(&(
            &self.store,
            &self.clock,
            &self.decided,
            &self.schedule,
            self.last_time,
            (&self.local, &self.cycle),
        ))
    }

    fn load(&mut self, state: &[u8]) -> Result<(), Error> {
        let (store, clock, decided, schedule, last_time, (local, cycle)) =
            rvmon_core::decode_state(state).ok_or_else(damaged)?;
        (
            self.store,
            self.clock,
            self.decided,
            self.schedule,
            self.last_time,
            self.local,
            self.cycle,
        ) = (store, clock, decided, schedule, last_time, local, cycle);
        for i in self.store.instances.iter_mut().flatten() {
            i.rebuild();
        }
        Ok(())
    }

    fn take_decided(&mut self) -> Vec<Decided> {
        self.decided.take()
    }

    fn drain_decided(&mut self, out: &mut Vec<Decided>) {
        self.decided.drain_into(out);
    }

    /// Deadlines before the event first, then the event (at a deadline's time, the event
    /// comes first, as in RTLola).
    fn step(&mut self, ev: &Event, out: &mut Vec<Firing>) -> Result<(), Error> {
        if self.schedule.is_some() || !self.local.is_empty() {
            self.deadlines(ev.time, false, out)?;
        }
        self.last_time = Some(ev.time);
        self.cycle.event = true;
        self.cycle.due.clear();
        self.cycle.local_due.clear();
        self.begin_cycle(ev.time);
        let e = self.store.now;
        let n_in = self.prog.inputs.len();
        self.clock.tick(&self.prog, ev);
        for (i, v) in ev.values.iter().enumerate().take(n_in) {
            if let Some(v) = v {
                let ring = &mut self.store.rings[i];
                let slot = ring.push(e);
                ring.set(slot, v);
                self.feed_windows(i, slot, self.prog.inputs[i].1);
            }
        }
        self.evaluate(ev.time, out)
    }

    /// Every value was decided at its event; the deadlines up to the last event's time
    /// remain (RTLola evaluates them, and none after).
    fn finish(&mut self, out: &mut Vec<Firing>) -> Result<(), Error> {
        match self.last_time {
            Some(t) => self.deadlines(t, true, out),
            None => Ok(()),
        }
    }
}
