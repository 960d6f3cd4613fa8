//! The online stream engine: partial evaluation, as in Lola (note B §1.9).
//!
//! At each event the inputs that have values are appended to their histories, every output
//! whose pacing holds gets a new (still unknown) value, and those values are evaluated in
//! dependency order. A value that reads one not yet known — a future offset, or an output that
//! is itself waiting — becomes a *pending instance*: it keeps the positions it reads from
//! (each stream's value count and freshness at its event) and waits on the first unknown value
//! it met; when that value is decided, it is evaluated again. `&&`, `||` and `->` decide as
//! soon as one side does. At the end of the trace offsets past the end take their defaults
//! and everything is decided.
//!
//! Histories keep only what the offsets read (the analysis' `keep_past`) and what pending
//! instances may still read, so an efficiently monitorable specification runs in memory that
//! does not grow with the trace; triggers are reported in event order as soon as every
//! earlier trigger value is decided.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::rc::Rc;

use rustc_hash::FxHashMap;
use rvmon_core::Error;

use crate::analysis::{Program, Sid};
use crate::eval::{eval_output, Out, Reads, R};
use crate::value::Val;

pub use rvmon_core::event::Event;

/// An output value, decided (see [`StreamEngine::record_outputs`]).
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Decided {
    /// The output's index in declaration order.
    pub output: usize,
    /// For an instance of a parameterized (or spawned) stream: its parameters.
    pub instance: Option<Vec<Val>>,
    /// Which of the output's values (0-based).
    pub index: u64,
    pub event: u64,
    pub time: i64,
    pub value: Val,
}

/// A trigger that fired.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Firing {
    /// 0-based index of the event.
    pub event: u64,
    /// Its time in nanoseconds.
    pub time: i64,
    /// Index among the triggers (RTLola's `#i`).
    pub trigger: usize,
    pub message: Rc<str>,
}

#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
struct History {
    /// Absolute index of `vals[0]`.
    base: u64,
    /// `None`: the value is not decided yet.
    vals: VecDeque<Option<Val>>,
    /// Event index + 1 of the latest value (0: none yet).
    last_event: u64,
}

impl History {
    fn count(&self) -> u64 {
        self.base + self.vals.len() as u64
    }
}

#[derive(Debug, serde::Serialize, serde::Deserialize)]
struct Pending {
    /// Which instance this is, counted from 0 in the order they were created (an id in
    /// `pending` is reused once its instance is decided).
    serial: u64,
    out: usize,
    idx: u64,
    event: u64,
    time: i64,
    /// Per stream in the output's `reads`: its value count and freshness at the event.
    anchors: Vec<(u64, bool)>,
}

/// Where accesses are resolved from: the current event, or a pending instance's event.
enum At<'a> {
    Now(u64),
    Then(&'a [Sid], &'a [(u64, bool)]),
}

/// Events between two checks of the memory held ([`StreamEngine::memory_fits`]): it grows by
/// a few values per stream and event, so the limit is overshot by little.
const MEMORY_CHECK_EVERY: u64 = 1024;

/// A parked instance's entries in `waiters` (key, vector, its allocation and the hash table's
/// slack) and in `pending_triggers`, roughly.
const WAITER_BYTES: usize = 176;

/// How the two stream engines are driven one event at a time: events in, firings (and, when
/// recording, output values) out. The front door's [`rvmon_core::Monitor`] is implemented
/// once, on [`crate::StreamMonitor`], over this.
pub trait Step {
    /// Feeds one event; appends the triggers decided so far, in event order.
    fn step(&mut self, ev: &Event, out: &mut Vec<Firing>) -> Result<(), Error>;
    /// Ends the trace: every value is decided.
    fn finish(&mut self, out: &mut Vec<Firing>) -> Result<(), Error>;
    /// Records every output value as it is decided.
    fn record_outputs(&mut self);
    /// The output values decided since the last call, in the order they were decided.
    fn take_decided(&mut self) -> Vec<Decided>;
    /// The same, appended to `out` (which keeps its allocation from event to event).
    fn drain_decided(&mut self, out: &mut Vec<Decided>) {
        out.extend(self.take_decided());
    }
    /// The engine's state between two events (not its program), encoded.
    fn save(&self) -> Vec<u8>;
    /// Takes a state [`Step::save`] saved from an engine of the same program.
    fn load(&mut self, state: &[u8]) -> Result<(), Error>;
}

/// A saved state that does not decode.
pub(crate) fn damaged() -> Error {
    Error::msg("the saved stream monitor state is damaged")
}

/// The output values decided, when they are recorded (see [`Step::record_outputs`]).
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
pub(crate) struct DecidedLog(Option<Vec<Decided>>);

impl DecidedLog {
    pub fn enable(&mut self) {
        self.0 = Some(Vec::new());
    }

    pub fn recording(&self) -> bool {
        self.0.is_some()
    }

    /// The log to append to, when recording.
    pub fn log(&mut self) -> Option<&mut Vec<Decided>> {
        self.0.as_mut()
    }

    /// Appends the values recorded since the last call to `out`.
    pub fn drain_into(&mut self, out: &mut Vec<Decided>) {
        if let Some(v) = self.0.as_mut() {
            out.append(v);
        }
    }

    /// The values recorded since the last call.
    pub fn take(&mut self) -> Vec<Decided> {
        self.0.as_mut().map(std::mem::take).unwrap_or_default()
    }
}

/// Which outputs get a value at an event: each output's pacing against the inputs that have
/// one.
#[derive(serde::Serialize, serde::Deserialize)]
pub(crate) struct Clock {
    /// Each output's pacing as bit masks over inputs (`None`: over 64 inputs).
    masks: Vec<Option<Vec<u64>>>,
    pub fresh: Vec<bool>,
    /// Per output: whether it ticks at the current event.
    pub ticked: Vec<bool>,
}

impl Clock {
    pub fn new(prog: &Program) -> Clock {
        Clock {
            masks: prog
                .outputs
                .iter()
                .map(|o| o.pacing.at_events().masks())
                .collect(),
            fresh: vec![false; prog.inputs.len()],
            ticked: vec![false; prog.outputs.len()],
        }
    }

    /// Notes which outputs tick at `ev`.
    pub fn tick(&mut self, prog: &Program, ev: &Event) {
        let mut fresh_mask = 0u64;
        for (i, f) in self.fresh.iter_mut().enumerate() {
            *f = ev.values.get(i).is_some_and(Option::is_some);
            if *f && i < 64 {
                fresh_mask |= 1 << i;
            }
        }
        for (k, t) in self.ticked.iter_mut().enumerate() {
            *t = match &self.masks[k] {
                Some(masks) => masks.iter().any(|m| m & !fresh_mask == 0),
                None => prog.outputs[k].pacing.at_events().holds(&self.fresh),
            };
        }
    }
}

pub struct StreamEngine {
    prog: Program,
    hist: Vec<History>,
    events: u64,
    ended: bool,
    pending: Vec<Option<Pending>>,
    free: Vec<usize>,
    live_pending: usize,
    waiters: FxHashMap<(Sid, u64), Vec<usize>>,
    /// (event, trigger) of trigger values not decided yet.
    pending_triggers: BTreeSet<(u64, usize)>,
    ready: BTreeMap<(u64, usize), Firing>,
    /// The lowest value count a pending instance anchors at, per stream (conservative).
    floor: Vec<u64>,
    /// Per output, its pending instances (serial, id) oldest first, decided ones included
    /// until they reach the front: the oldest live one anchors lowest, since anchors are
    /// value counts, which only grow.
    by_age: Vec<VecDeque<(u64, usize)>>,
    serials: u64,
    clock: Clock,
    work: Vec<usize>,
    /// When recording: every decided output value.
    decided: DecidedLog,
}

impl StreamEngine {
    pub fn new(prog: Program) -> StreamEngine {
        let n = prog.stream_count();
        StreamEngine {
            hist: (0..n).map(|_| History::default()).collect(),
            events: 0,
            ended: false,
            pending: Vec::new(),
            free: Vec::new(),
            live_pending: 0,
            waiters: FxHashMap::default(),
            pending_triggers: BTreeSet::new(),
            ready: BTreeMap::new(),
            floor: vec![u64::MAX; n],
            by_age: vec![VecDeque::new(); prog.outputs.len()],
            serials: 0,
            clock: Clock::new(&prog),
            work: Vec::new(),
            decided: DecidedLog::default(),
            prog,
        }
    }

    pub fn program(&self) -> &Program {
        &self.prog
    }

    /// Values held in histories and pending instances (for memory checks).
    pub fn retained(&self) -> usize {
        self.hist.iter().map(|h| h.vals.len()).sum::<usize>() + self.live_pending
    }

    /// Whether what the engine holds at event `e` fits in the program's memory limit. Why at
    /// run time: a future offset (`a.offset(by: 100000000)`) or a cycle through the future
    /// keeps values until later events decide them, so the memory follows the trace up to the
    /// offset; the analysis cannot refuse it without refusing short traces too.
    fn memory_fits(&self, e: u64) -> Result<(), Error> {
        let values = self.hist.iter().map(|h| h.vals.len()).sum::<usize>() as u128;
        let reads: usize = self
            .prog
            .outputs
            .iter()
            .map(|o| o.reads.len())
            .max()
            .unwrap_or(0);
        // Deques and vectors grow by doubling: up to twice what they hold.
        let value = 2 * std::mem::size_of::<Option<Val>>();
        let instance = 2 * std::mem::size_of::<Option<Pending>>()
            + (reads * 16).max(32)
            + WAITER_BYTES
            + 2 * 16;
        let need = values * value as u128 + self.live_pending as u128 * instance as u128;
        let what = || {
            let latency = self.prog.report.iter().filter_map(|r| r.latency).max();
            let why = match (&self.prog.unbounded_cycle, latency) {
                (Some(cycle), _) => format!("the cycle {} reads the future", cycle.join(" -> ")),
                (None, Some(l)) => {
                    format!("its future offsets decide a value up to {l} events later")
                }
                (None, None) => "its offsets keep them".to_string(),
            };
            format!(
                "at event {}, the {} values held for later events ({why})",
                e + 1,
                values + self.live_pending as u128
            )
        };
        self.prog.memory.check(need, what).map_err(Error::msg)
    }

    fn park(&mut self, p: Pending, s: Sid, j: u64) {
        for (r, &(count, _)) in self.prog.outputs[p.out].reads.iter().zip(&p.anchors) {
            self.floor[*r] = self.floor[*r].min(count);
        }
        let (out, serial) = (p.out, p.serial);
        if let Some((t, _)) = &self.prog.outputs[p.out].trigger {
            self.pending_triggers.insert((p.event, *t));
        }
        let id = match self.free.pop() {
            Some(id) => {
                self.pending[id] = Some(p);
                id
            }
            None => {
                self.pending.push(Some(p));
                self.pending.len() - 1
            }
        };
        self.live_pending += 1;
        self.by_age[out].push_back((serial, id));
        self.waiters.entry((s, j)).or_default().push(id);
    }

    fn wake(&mut self, s: Sid, idx: u64) {
        if let Some(ids) = self.waiters.remove(&(s, idx)) {
            self.work.extend(ids);
        }
    }

    fn run_work(&mut self) -> Result<(), Error> {
        while let Some(id) = self.work.pop() {
            let p = self.pending[id].take().expect("a live pending instance");
            let at = At::Then(&self.prog.outputs[p.out].reads, &p.anchors);
            let o = &self.prog.outputs[p.out];
            match eval_output(o, &self.view(at)) {
                Out::Fail(e) => return Err(o.failed(*e, p.event)),
                Out::Done(v, msg) => {
                    self.live_pending -= 1;
                    self.free.push(id);
                    if let Some((t, _)) = &self.prog.outputs[p.out].trigger {
                        self.pending_triggers.remove(&(p.event, *t));
                    }
                    self.decide(p.out, p.idx, v, msg, p.event, p.time)?;
                }
                Out::Wait(s, j) => {
                    self.pending[id] = Some(p);
                    self.waiters.entry((s, j)).or_default().push(id);
                }
            }
        }
        Ok(())
    }

    /// Records output `k`'s value `idx`, fires its trigger, wakes its readers.
    fn decide(
        &mut self,
        k: usize,
        idx: u64,
        v: Val,
        msg: Option<Rc<str>>,
        event: u64,
        time: i64,
    ) -> Result<(), Error> {
        let s = self.prog.inputs.len() + k;
        let h = &mut self.hist[s];
        if idx >= h.base {
            h.vals[(idx - h.base) as usize] = Some(v.clone());
        }
        if let Some(d) = self.decided.log() {
            d.push(Decided {
                instance: None,
                output: k,
                index: idx,
                event,
                time,
                value: v.clone(),
            });
        }
        if let (Some((t, _)), Val::Bool(true)) = (&self.prog.outputs[k].trigger, &v) {
            self.ready.insert(
                (event, *t),
                Firing {
                    event,
                    time,
                    trigger: *t,
                    message: msg.unwrap_or_default(),
                },
            );
        }
        if !self.waiters.is_empty() {
            self.wake(s, idx);
        }
        Ok(())
    }

    fn release(&mut self, out: &mut Vec<Firing>) {
        let limit = self.pending_triggers.first().copied();
        while let Some(entry) = self.ready.first_entry() {
            if limit.is_some_and(|l| *entry.key() >= l) {
                break;
            }
            out.push(entry.remove());
        }
    }

    fn trim(&mut self) {
        // Let the floors rise again as old instances are decided: each output's oldest live
        // instance anchors lowest (PERF: a walk over every instance here made a long future
        // offset quadratic, 3 M events over 10 minutes).
        self.floor.iter_mut().for_each(|f| *f = u64::MAX);
        for (k, queue) in self.by_age.iter_mut().enumerate() {
            while let Some(&(serial, id)) = queue.front() {
                match &self.pending[id] {
                    Some(p) if p.serial == serial => {
                        let reads = &self.prog.outputs[k].reads;
                        for (r, &(count, _)) in reads.iter().zip(&p.anchors) {
                            self.floor[*r] = self.floor[*r].min(count);
                        }
                        break;
                    }
                    _ => {
                        queue.pop_front();
                    }
                }
            }
        }
        for (s, h) in self.hist.iter_mut().enumerate() {
            let newest = h.count().min(self.floor[s]);
            // The latest value (for `hold` and the current one) and `keep_past` before it.
            let keep_from = newest.saturating_sub(1 + self.prog.report[s].keep_past);
            while h.base < keep_from && h.vals.front().is_some_and(Option::is_some) {
                h.vals.pop_front();
                h.base += 1;
            }
        }
    }

    fn view<'a>(&'a self, at: At<'a>) -> View<'a> {
        View { engine: self, at }
    }
}

/// Everything [`StreamEngine`] holds but its program, in the order [`Step::save`] writes it.
type EngineState = (
    Vec<History>,
    (u64, bool, u64, usize),
    Vec<Option<Pending>>,
    Vec<usize>,
    FxHashMap<(Sid, u64), Vec<usize>>,
    BTreeSet<(u64, usize)>,
    BTreeMap<(u64, usize), Firing>,
    Vec<u64>,
    Vec<VecDeque<(u64, usize)>>,
    Clock,
    Vec<usize>,
    DecidedLog,
);

impl Step for StreamEngine {
    fn record_outputs(&mut self) {
        self.decided.enable();
    }

    fn save(&self) -> Vec<u8> {
        rvmon_core::encode_state(&(
            &self.hist,
            (self.events, self.ended, self.serials, self.live_pending),
            &self.pending,
            &self.free,
            &self.waiters,
            &self.pending_triggers,
            &self.ready,
            &self.floor,
            &self.by_age,
            &self.clock,
            &self.work,
            &self.decided,
        ))
    }

    fn load(&mut self, state: &[u8]) -> Result<(), Error> {
        let s: EngineState = rvmon_core::decode_state(state).ok_or_else(damaged)?;
        (
            self.hist,
            (self.events, self.ended, self.serials, self.live_pending),
        ) = (s.0, s.1);
        (self.pending, self.free, self.waiters) = (s.2, s.3, s.4);
        (self.pending_triggers, self.ready, self.floor, self.by_age) = (s.5, s.6, s.7, s.8);
        (self.clock, self.work, self.decided) = (s.9, s.10, s.11);
        Ok(())
    }

    fn take_decided(&mut self) -> Vec<Decided> {
        self.decided.take()
    }

    fn step(&mut self, ev: &Event, out: &mut Vec<Firing>) -> Result<(), Error> {
        let e = self.events;
        self.events += 1;
        let n_in = self.prog.inputs.len();
        self.clock.tick(&self.prog, ev);
        for (i, v) in ev.values.iter().enumerate().take(n_in) {
            if let Some(v) = v {
                let h = &mut self.hist[i];
                h.vals.push_back(Some(v.clone()));
                h.last_event = e + 1;
                if !self.waiters.is_empty() {
                    let idx = h.count() - 1;
                    self.wake(i, idx);
                }
            }
        }
        for k in 0..self.prog.outputs.len() {
            if self.clock.ticked[k] {
                let h = &mut self.hist[n_in + k];
                h.vals.push_back(None);
                h.last_event = e + 1;
            }
        }
        for j in 0..self.prog.order.len() {
            let k = self.prog.order[j];
            if !self.clock.ticked[k] {
                continue;
            }
            let idx = self.hist[n_in + k].count() - 1;
            match eval_output(&self.prog.outputs[k], &self.view(At::Now(e))) {
                Out::Done(v, msg) => self.decide(k, idx, v, msg, e, ev.time)?,
                Out::Fail(err) => return Err(self.prog.outputs[k].failed(*err, e)),
                Out::Wait(s, j) => {
                    let anchors = self.prog.outputs[k]
                        .reads
                        .iter()
                        .map(|&s| (self.hist[s].count(), self.hist[s].last_event == e + 1))
                        .collect();
                    self.serials += 1;
                    self.park(
                        Pending {
                            serial: self.serials,
                            out: k,
                            idx,
                            event: e,
                            time: ev.time,
                            anchors,
                        },
                        s,
                        j,
                    );
                }
            }
        }
        self.run_work()?;
        self.release(out);
        self.trim();
        if e.is_multiple_of(MEMORY_CHECK_EVERY) {
            self.memory_fits(e)?;
        }
        Ok(())
    }

    fn finish(&mut self, out: &mut Vec<Firing>) -> Result<(), Error> {
        self.ended = true;
        let mut ids: Vec<(u64, usize)> = self
            .pending
            .iter()
            .enumerate()
            .filter_map(|(id, p)| p.as_ref().map(|p| (p.event, id)))
            .collect();
        // Latest first: a chain of future reads (`y := x || y[1, false]`) then decides in one
        // pass instead of waking each instance once per later one.
        ids.sort_unstable_by(|a, b| b.cmp(a));
        self.waiters.clear();
        self.work.extend(ids.into_iter().map(|(_, id)| id));
        self.run_work()?;
        if self.live_pending > 0 {
            return Err(Error::msg(
                "internal error: stream values left undecided at the end of the trace",
            ));
        }
        self.release(out);
        Ok(())
    }
}

/// The engine's values as seen from one position.
struct View<'a> {
    engine: &'a StreamEngine,
    at: At<'a>,
}

impl Reads for View<'_> {
    fn anchor(&self, s: Sid) -> (u64, bool) {
        let hist = &self.engine.hist;
        match &self.at {
            At::Now(e) => (hist[s].count(), hist[s].last_event == e + 1),
            At::Then(reads, anchors) => {
                let k = reads
                    .iter()
                    .position(|&r| r == s)
                    .expect("read streams are anchored");
                anchors[k]
            }
        }
    }

    fn value(&self, s: Sid, idx: u64) -> R {
        let h = &self.engine.hist[s];
        if idx >= h.count() {
            return if self.engine.ended {
                R::Absent
            } else {
                R::Wait(s, idx)
            };
        }
        if idx < h.base {
            return R::Fail(crate::eval::bug(
                "a stream value was dropped while still needed",
            ));
        }
        match &h.vals[(idx - h.base) as usize] {
            Some(v) => R::V(v.clone()),
            None => R::Wait(s, idx),
        }
    }
}
