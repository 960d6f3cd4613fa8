//! Parameterized and spawned streams on the immediate engine, in RTLola's order within a
//! cycle: when a stream's turn comes (its place in the evaluation order), its spawn clause
//! first (a new instance is evaluated in the same cycle if its pacing holds), then each live
//! instance, oldest first; the close conditions after every stream, at the end of the cycle;
//! closed instances go when the next cycle starts.
//!
//! An instance of a stream with parameters keeps its own ring; while it is evaluated, its ring
//! takes the stream's place in the store, so its expression reads its own past (`s(p)`,
//! `s(p).offset(by: -1)`) as any stream reads its own. A spawned stream without parameters has
//! one instance, whose values are the stream's.

use std::cmp::Reverse;

use rvmon_core::Error;

use crate::analysis::{visit, CDynamic, CExpr, Pace};
use crate::ast::{BinOp, Type};
use crate::compiled::{compile, Code, Cx, Keyed, Ring, Stop, Store};
use crate::eval::bug;
use crate::immediate::{period_ns, ImmediateEngine};
use crate::instances::key;
use crate::schedule::Task;
use crate::value::Val;

/// A dynamic stream's clauses, compiled.
pub(crate) struct DynCode {
    spawn_with: Vec<Code>,
    spawn_when: Option<Code>,
    eval_when: Option<Code>,
    close_when: Option<Code>,
    /// When the filter pins every parameter (`eval when p = a`, RTLola's idiom for "the
    /// instance of this event"): the parameters' values, read outside any instance. Only that
    /// instance can pass the filter, so only it is looked at — not every live one, as RTLola
    /// does.
    selector: Option<Vec<Code>>,
}

/// The expressions a filter pins each parameter to (`p = e` conjuncts, `e` free of
/// parameters), when it pins them all and none is a float (whose `=` is not bit equality).
fn pinned(d: &CDynamic) -> Option<Vec<CExpr>> {
    fn conjuncts<'a>(e: &'a CExpr, out: &mut Vec<&'a CExpr>) {
        match e {
            CExpr::Bin(BinOp::And, a, b) => {
                conjuncts(a, out);
                conjuncts(b, out);
            }
            e => out.push(e),
        }
    }
    fn param_free(e: &CExpr) -> bool {
        let mut free = true;
        visit(e, &mut |x| free &= !matches!(x, CExpr::Param(_)));
        free
    }
    let mut parts = Vec::new();
    conjuncts(d.eval_when.as_ref()?, &mut parts);
    let mut pins: Vec<Option<CExpr>> = vec![None; d.params.len()];
    for c in parts {
        if let CExpr::Bin(BinOp::Eq, a, b) = c {
            match (&**a, &**b) {
                (CExpr::Param(i), e) | (e, CExpr::Param(i)) if param_free(e) => {
                    pins[*i] = Some(e.clone());
                }
                _ => {}
            }
        }
    }
    if d.params.is_empty() || d.params.iter().any(|p| p.1 == Type::Float) {
        return None;
    }
    pins.into_iter().collect()
}

impl DynCode {
    /// Compiles `d`'s spawn clause, which is read outside any instance.
    pub fn compile_spawn(d: &CDynamic, cx: &mut Cx) -> DynCode {
        cx.params = Vec::new();
        DynCode {
            spawn_with: d.spawn_with.iter().map(|e| compile(e, cx)).collect(),
            spawn_when: d.spawn_when.as_ref().map(|e| compile(e, cx)),
            eval_when: None,
            close_when: None,
            selector: None,
        }
    }

    /// Compiles `d`'s filter and close condition, read in an instance.
    pub fn compile_instance(&mut self, d: &CDynamic, cx: &mut Cx) {
        self.eval_when = d.eval_when.as_ref().map(|e| compile(e, cx));
        self.close_when = d.close_when.as_ref().map(|e| compile(e, cx));
        self.selector = pinned(d).map(|es| es.iter().map(|e| compile(e, cx)).collect());
    }
}

/// An instance's period in nanoseconds (cut, as RTLola cuts it; at most `i64::MAX`, so that
/// its next deadline never wraps into the past).
fn local_period(p: crate::ast::Ratio) -> i64 {
    i64::try_from(period_ns(p)).unwrap_or(i64::MAX)
}

/// What the current cycle is.
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
pub(crate) struct Cycle {
    /// An event (not a deadline).
    pub event: bool,
    /// The tasks due on the trace's clock.
    pub due: Vec<Task>,
    /// The instances due on their own clocks: (output, serial).
    pub local_due: Vec<(usize, u64)>,
    /// The instances evaluated so far: (output, serial).
    pub evaluated: Vec<(usize, u64)>,
}

/// A Boolean clause: `None` (no clause) holds; an absent value does not.
fn holds(code: &Option<Code>, st: &Store) -> Result<bool, Stop> {
    match code {
        None => Ok(true),
        Some(c) => match c.eval(st) {
            Ok(Val::Bool(b)) => Ok(b),
            Ok(_) | Err(Stop::Absent) => Ok(false),
            Err(e) => Err(e),
        },
    }
}

impl ImmediateEngine {
    /// Whether a clause paced `pace` (or the task `task` on the trace's clock) runs now.
    fn clause_now(&self, pace: &Pace, task: Task) -> bool {
        match pace {
            Pace::Event(d) => self.cycle.event && d.holds(&self.clock.fresh),
            Pace::Periodic(_) => self.cycle.due.contains(&task),
            Pace::Local(_) => false,
        }
    }

    fn failed(&self, k: usize, e: Stop) -> Error {
        let o = &self.prog.outputs[k];
        match e {
            Stop::Fail(err) => o.failed(*err, self.store.now - 1),
            Stop::Absent => *bug(&format!("`{}` has no value", o.name)),
        }
    }

    /// Output `k`'s turn in the cycle: its spawn clause, then its instances.
    pub(crate) fn dynamic_output(&mut self, k: usize, time: i64) -> Result<(), Error> {
        let d = self.prog.outputs[k]
            .dynamic
            .as_ref()
            .expect("a dynamic stream");
        // Without a spawn clause (never paced), the one instance exists from the start.
        let unspawned = matches!(&d.spawn_pace, Pace::Event(never) if never.0.is_empty());
        let spawn_now =
            unspawned && self.store.now == 1 || self.clause_now(&d.spawn_pace, Task::Spawn(k));
        if spawn_now {
            self.spawn(k, time)?;
        }
        let s = self.prog.inputs.len() + k;
        let all = match &self.prog.outputs[k].pacing {
            Pace::Event(_) => self.cycle.event && self.clock.ticked[k],
            Pace::Periodic(_) => self.cycle.due.contains(&Task::Eval(k)),
            Pace::Local(_) => false,
        };
        let serials: Vec<u64> = if all {
            match self.selected(k)? {
                Some(one) => one.into_iter().collect(),
                None => self.store.instances[s]
                    .as_ref()
                    .map_or(Vec::new(), |i| i.serials()),
            }
        } else {
            let due = &self.cycle.local_due;
            due.iter().filter(|d| d.0 == k).map(|d| d.1).collect()
        };
        for serial in serials {
            self.evaluate_instance(k, serial, time)?;
        }
        Ok(())
    }

    /// With a filter that pins the parameters: `Some` of the one instance that may pass it
    /// (or none).
    fn selected(&self, k: usize) -> Result<Option<Option<u64>>, Error> {
        let code = self.dyn_code[k].as_ref().expect("a dynamic stream");
        let Some(selector) = &code.selector else {
            return Ok(None);
        };
        let mut params = Vec::with_capacity(selector.len());
        for c in selector {
            match c.eval(&self.store) {
                Ok(v) => params.push(v),
                Err(Stop::Absent) => return Ok(Some(None)),
                Err(e) => return Err(self.failed(k, e)),
            }
        }
        let s = self.prog.inputs.len() + k;
        let instances = self.store.instances[s].as_ref();
        Ok(Some(instances.and_then(|i| i.serial_of(&params))))
    }

    /// The spawn clause of output `k`: a new instance unless one with these parameters lives.
    fn spawn(&mut self, k: usize, time: i64) -> Result<(), Error> {
        let code = self.dyn_code[k].as_ref().expect("a dynamic stream");
        let st = &mut self.store;
        st.params.clear();
        let when = holds(&code.spawn_when, st);
        if !when.map_err(|e| self.failed(k, e))? {
            return Ok(());
        }
        let mut params = Vec::with_capacity(code.spawn_with.len());
        for c in &code.spawn_with {
            match c.eval(&self.store) {
                Ok(v) => params.push(v),
                Err(Stop::Absent) => return Ok(()),
                Err(e) => return Err(self.failed(k, e)),
            }
        }
        let s = self.prog.inputs.len() + k;
        let o = &self.prog.outputs[k];
        let keep = self.prog.report[s].keep_past;
        let unparameterized = params.is_empty();
        // (Without parameters, the stream's ring is the instance's: a placeholder here.)
        let ring = Ring::new(if unparameterized { 0 } else { keep }, o.ty);
        // The instance's windows start now, empty.
        let windows = self.instance_windows[k]
            .clone()
            .into_iter()
            .flatten()
            .map(|w| self.store.windows[w].restarted(time))
            .collect();
        let instances = self.store.instances[s].as_mut().expect("instances");
        let instance_key = key(&params);
        let Some(serial) = instances.spawn(params, ring, windows) else {
            return Ok(());
        };
        // Windows over the new instance start at 0, as RTLola starts them.
        for &w in &self.windows_over[s] {
            if self.store.keyed[w].is_some() {
                let fresh = self.store.windows[w].restarted(0);
                if let Some(m) = self.store.keyed[w].as_mut() {
                    let keyed = Keyed {
                        window: fresh,
                        delete_after: None,
                    };
                    m.insert(instance_key.clone(), keyed);
                }
            }
        }
        if unparameterized {
            self.store.rings[s] = Ring::new(keep, o.ty);
        }
        if let Pace::Local(p) = o.pacing {
            let next = time.saturating_add(local_period(p));
            self.local.push(Reverse((next, serial, k)));
        }
        Ok(())
    }

    /// Evaluates one instance of output `k`: its filter, then its value.
    fn evaluate_instance(&mut self, k: usize, serial: u64, time: i64) -> Result<(), Error> {
        let s = self.prog.inputs.len() + k;
        if !self.enter(s, serial) {
            return Ok(()); // closed meanwhile
        }
        let result = self.evaluate_entered(k, serial, time);
        self.leave(s, serial);
        if let (Pace::Local(p), Ok(())) = (&self.prog.outputs[k].pacing, &result) {
            let next = time.saturating_add(local_period(*p));
            self.local.push(Reverse((next, serial, k)));
        }
        result
    }

    /// With the instance entered: its filter and value.
    fn evaluate_entered(&mut self, k: usize, serial: u64, time: i64) -> Result<(), Error> {
        let code = self.dyn_code[k].as_ref().expect("a dynamic stream");
        if !holds(&code.eval_when, &self.store).map_err(|e| self.failed(k, e))? {
            return Ok(());
        }
        let s = self.prog.inputs.len() + k;
        let e = self.store.now;
        self.store.rings[s].push(e);
        // (The parameters name the value only where values are recorded.)
        let label = self.decided.recording().then(|| self.store.params.clone());
        let slot = self.evaluate_output(k, time, label.as_deref())?;
        self.feed_windows(s, slot, self.prog.outputs[k].ty);
        self.cycle.evaluated.push((k, serial));
        Ok(())
    }

    /// Puts instance `serial` of stream `s` in the stream's place; its parameters.
    /// (Its windows too, moved on to the cycle's time.)
    fn enter(&mut self, s: usize, serial: u64) -> bool {
        let st = &mut self.store;
        let Some(inst) = st.instances[s]
            .as_mut()
            .and_then(|i| i.instance_mut(serial))
        else {
            return false;
        };
        if !inst.params.is_empty() {
            std::mem::swap(&mut st.rings[s], &mut inst.ring);
        }
        let owned = self.instance_windows[s - st.inputs]
            .clone()
            .into_iter()
            .flatten();
        for (i, w) in owned.enumerate() {
            std::mem::swap(&mut st.windows[w], &mut inst.windows[i]);
            st.windows[w].advance(st.time);
        }
        st.params.clone_from(&inst.params);
        st.entered = Some((s, serial));
        true
    }

    fn leave(&mut self, s: usize, serial: u64) {
        let st = &mut self.store;
        let owned = self.instance_windows[s - st.inputs].clone();
        if let Some(inst) = st.instances[s]
            .as_mut()
            .and_then(|i| i.instance_mut(serial))
        {
            if !inst.params.is_empty() {
                std::mem::swap(&mut st.rings[s], &mut inst.ring);
            }
            for (i, w) in owned.into_iter().flatten().enumerate() {
                std::mem::swap(&mut st.windows[w], &mut inst.windows[i]);
            }
        }
        st.params.clear();
        st.entered = None;
    }

    /// The close conditions due at the end of the cycle.
    pub(crate) fn closes(&mut self) -> Result<(), Error> {
        let n_in = self.prog.inputs.len();
        for k in 0..self.prog.outputs.len() {
            let Some(d) = &self.prog.outputs[k].dynamic else {
                continue;
            };
            let Some(pace) = &d.close_pace else {
                continue;
            };
            let s = n_in + k;
            let serials: Vec<u64> = if d.close_after_eval || matches!(pace, Pace::Local(_)) {
                let ev = &self.cycle.evaluated;
                ev.iter().filter(|e| e.0 == k).map(|e| e.1).collect()
            } else if self.clause_now(pace, Task::Close(k)) {
                self.store.instances[s]
                    .as_ref()
                    .map_or(Vec::new(), |i| i.serials())
            } else {
                continue;
            };
            for serial in serials {
                if !self.enter(s, serial) {
                    continue;
                }
                let code = self.dyn_code[k].as_ref().expect("a dynamic stream");
                let close = holds(&code.close_when, &self.store);
                self.leave(s, serial);
                if close.map_err(|e| self.failed(k, e))? {
                    self.close_instance(s, serial);
                }
            }
        }
        Ok(())
    }

    /// Closes an instance of stream `s`: the windows over it go too, a window over time one
    /// duration later (as in RTLola), one over values at once.
    fn close_instance(&mut self, s: usize, serial: u64) {
        let st = &mut self.store;
        let Some(i) = st.instances[s].as_mut() else {
            return;
        };
        let params = i.instance_mut(serial).map(|i| key(&i.params));
        i.close(serial);
        let Some(params) = params else {
            return;
        };
        for &w in &self.windows_over[s] {
            let Some(m) = st.keyed[w].as_mut() else {
                continue;
            };
            match m.get_mut(&params).map(|k| (k.window.duration(), k)) {
                Some((Some(d), k)) => k.delete_after = Some(st.time.saturating_add(d as i64)),
                Some((None, _)) => {
                    m.remove(&params);
                }
                None => {}
            }
        }
    }

    /// Removes the instances closed in the cycle before (a spawned stream without
    /// parameters loses its values: its one instance is gone).
    pub(crate) fn remove_closed(&mut self) {
        let n_in = self.prog.inputs.len();
        for s in n_in..self.store.instances.len() {
            let Some(i) = self.store.instances[s].as_mut() else {
                continue;
            };
            let removed = i.remove_closed();
            if removed.is_empty() {
                continue;
            }
            let o = &self.prog.outputs[s - n_in];
            if o.dynamic.as_ref().is_some_and(|d| d.params.is_empty()) {
                self.store.rings[s] = Ring::new(0, o.ty);
            }
        }
    }

    /// Drops the deadlines of instances that are gone or closed (RTLola unschedules them).
    pub(crate) fn drop_stale_local(&mut self) {
        let n_in = self.prog.inputs.len();
        while let Some(&Reverse((_, serial, k))) = self.local.peek() {
            let live = self.store.instances[n_in + k]
                .as_mut()
                .and_then(|i| i.instance_mut(serial))
                .is_some_and(|i| !i.closing);
            if live {
                return;
            }
            self.local.pop();
        }
    }
}
