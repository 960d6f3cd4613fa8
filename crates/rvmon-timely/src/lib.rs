//! The parallel back end: paper 04's sliced monitoring on timely-dataflow, as one process with
//! several worker threads or as a cluster of processes.
//!
//! The dataflow, the same in every worker:
//!
//! ```text
//! log ─► reader (worker 0) ─► route events to slices (rvmon-slice) ─► exchange by slice ─►
//!   slice engines (one first-order engine per slice, fed in time-point order) ─►
//!   restricted answers + "decided before" watermarks ─► exchange to worker 0 ─► merge ─► out
//! ```
//!
//! * Time points are grouped into epochs of [`Job::batch`] time points; timely's time is the
//!   epoch, so progress tracking costs little per time point. A slice processes an epoch once
//!   the frontier has passed it, in time-point order.
//! * Each slice reports, with its answers, the first time point it has not decided; worker 0
//!   writes a time point's merged answer once every slice has decided it. Future operators
//!   make that later than the time point itself, so answers wait at worker 0, not in the
//!   slices.
//! * Values cross workers as owned data ([`wire`]), since every worker interns strings in its
//!   own interner; routing hashes string contents, so every process slices alike.
//! * A worker failure (a process of the cluster dies) ends the run with an error, never with
//!   partial output presented as complete.

pub mod net;
pub mod wire;

use std::cell::RefCell;
use std::collections::{BTreeMap, VecDeque};
use std::rc::Rc;
use std::sync::mpsc;
use std::sync::Arc;
use std::time::Duration;

use rvmon_core::{Error, Interner, Sym, TimePoint};
use rvmon_fo::rel::Rel;
use rvmon_fo::Answer;
use rvmon_logic::Formula;
use rvmon_slice::{split, DataSlicer, SliceEngine};
use rvmon_trace::{open_reader, Signature, TraceFormat, TraceOptions};
use timely::communication::allocator::zero_copy::initialize::initialize_networking_from_sockets;
use timely::communication::allocator::{AllocatorBuilder, ProcessBuilder};
use timely::communication::Hooks;
use timely::container::CapacityContainerBuilder;
use timely::dataflow::channels::pact::Exchange as ExchangePact;
use timely::dataflow::operators::{Capability, Exchange, Input, Inspect, Operator, Probe};
use timely::dataflow::{InputHandle, ProbeHandle};
use timely::{CommunicationConfig, Config, WorkerConfig};

use wire::{SliceRecord, SliceReport, WireValue};

/// What to monitor.
#[derive(Clone, Debug)]
pub struct Job {
    /// The formula the engine evaluates (its satisfying assignments are the violations).
    pub formula: Formula,
    /// Its free variables, in answer order.
    pub free: Vec<String>,
    pub sig: Signature,
    /// The spec's file name and text, for messages.
    pub spec_name: String,
    pub spec_text: String,
    /// The log (`None`: standard input), read by worker 0 of process 0.
    pub trace: Option<String>,
    pub format: TraceFormat,
    pub var: String,
    /// Slices (at least one per worker is best; slice `k` runs on worker `k mod workers`).
    pub slices: usize,
    /// Whether slices skip their empty time points (only when that is sound).
    pub drop_empty: bool,
    /// Time points per epoch.
    pub batch: u64,
}

/// Where the workers are.
#[derive(Clone, Debug)]
pub struct Cluster {
    /// Worker threads per process.
    pub workers: usize,
    pub processes: usize,
    pub process_id: usize,
    /// `host:port` of every process (with more than one).
    pub addresses: Vec<String>,
    /// How long to wait for the other processes.
    pub connect_timeout: Duration,
}

/// What the run reports, in order, on the calling thread.
#[derive(Debug)]
pub enum Report {
    /// A time point's violations (non-empty), in the engine's column order, strings interned
    /// in the interner handed to the callback.
    Answer(Answer),
    /// Events and time points each slice received.
    Sizes {
        events: Vec<u64>,
        time_points: Vec<u64>,
    },
}

type RecordInput = InputHandle<u64, CapacityContainerBuilder<Vec<SliceRecord>>>;

/// Epochs the reader may run ahead of the slowest slice.
const LAG: u64 = 8;

/// Runs `job` on `cluster`; `on` gets every report (only in process 0, which writes the
/// output). A bad log line ends the run with its error after every answer decided before it.
pub fn run(
    job: Job,
    cluster: &Cluster,
    mut on: impl FnMut(Report, &Interner) -> Result<(), Error>,
) -> Result<(), Error> {
    let (tx, rx) = mpsc::channel::<Message>();
    let job = Arc::new(job);
    let worker_job = Arc::clone(&job);
    let builders = builders(cluster)?;
    let guards = timely::execute::execute_from(
        builders.0,
        builders.1,
        WorkerConfig::default(),
        move |worker| {
            let tx = tx.clone();
            if let Err(e) = work(worker, &worker_job, &tx) {
                let _ = tx.send(Message::Error(e.to_string()));
            }
        },
    )
    .map_err(|e| Error::msg(format!("cannot start the workers: {e}")))?;
    // Process 0's worker 0 sends the output; this thread writes it as it comes.
    let mut interner = Interner::new();
    let mut first_error: Option<Error> = None;
    for m in rx {
        let result = match m {
            Message::Answer { tp, ts, rows } => {
                let rel: Rel = rows
                    .iter()
                    .map(|r| r.iter().map(|v| v.to_value(&mut interner)).collect())
                    .collect();
                on(Report::Answer(Answer { tp, ts, rel }), &interner)
            }
            Message::Sizes {
                events,
                time_points,
            } => on(
                Report::Sizes {
                    events,
                    time_points,
                },
                &interner,
            ),
            Message::Error(e) => Err(Error::msg(e)),
        };
        if let Err(e) = result {
            first_error.get_or_insert(e);
        }
    }
    let joined = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| guards.join()));
    let failed = match joined {
        Err(_) => Some("a process of the cluster stopped (its connection closed)".to_string()),
        Ok(results) => results.into_iter().find_map(Result::err),
    };
    if let Some(why) = failed {
        return Err(Error::msg(format!(
            "the parallel run failed: {why}; no result is complete"
        )));
    }
    match first_error {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

type Builders = (Vec<AllocatorBuilder>, Box<dyn std::any::Any + Send>);

fn builders(cluster: &Cluster) -> Result<Builders, Error> {
    if cluster.processes <= 1 {
        let communication = if cluster.workers > 1 {
            CommunicationConfig::Process(cluster.workers)
        } else {
            CommunicationConfig::Thread
        };
        return Config {
            communication,
            worker: WorkerConfig::default(),
        }
        .communication
        .try_build()
        .map_err(|e| Error::msg(format!("cannot start the workers: {e}")));
    }
    let sockets = net::connect(
        &cluster.addresses,
        cluster.process_id,
        cluster.connect_timeout,
    )?;
    let hooks = Hooks::default();
    let local = ProcessBuilder::new_typed_vector(
        cluster.workers,
        hooks.refill.clone(),
        hooks.spill.clone(),
    );
    let (tcp, guard) = initialize_networking_from_sockets(
        local,
        sockets,
        cluster.process_id,
        cluster.workers,
        hooks,
    )
    .map_err(|e| Error::msg(format!("cannot start the cluster's connections: {e}")))?;
    Ok((
        tcp.into_iter().map(AllocatorBuilder::Tcp).collect(),
        Box::new(guard),
    ))
}

/// What workers tell the calling thread.
enum Message {
    Answer {
        tp: u64,
        ts: i64,
        rows: Vec<Vec<WireValue>>,
    },
    Sizes {
        events: Vec<u64>,
        time_points: Vec<u64>,
    },
    Error(String),
}

/// One worker: builds the dataflow, reads the log if it is worker 0, and runs to the end.
fn work(
    worker: &mut timely::worker::Worker,
    job: &Job,
    tx: &mpsc::Sender<Message>,
) -> Result<(), Error> {
    let index = worker.index();
    let peers = worker.peers();
    let mut interner = Interner::new();
    let plan = rvmon_fo::compile(
        &job.formula,
        &job.free,
        &job.sig,
        &mut interner,
        &job.spec_name,
        &job.spec_text,
    )?;
    let slicer = DataSlicer::new(
        &job.formula,
        &job.free,
        &plan.output_order,
        &job.var,
        job.slices,
        &mut interner,
    )?;
    let preds: Vec<String> = rvmon_slice::predicates(&job.formula);
    let mut input: RecordInput = InputHandle::new_with_builder();
    let probe = ProbeHandle::new();
    let batch = job.batch.max(1);
    let slices = job.slices;
    let merged = Rc::new(RefCell::new(Merger::new(slices, tx.clone())));
    {
        let merged = Rc::clone(&merged);
        let slicer = slicer.clone();
        let preds = preds.clone();
        worker.dataflow::<u64, _, _>(|scope| {
            scope
                .input_from(&mut input)
                .unary_frontier(
                    ExchangePact::new(|r: &SliceRecord| r.slice),
                    "slices",
                    move |initial, _info| {
                        let mut held: Option<Capability<u64>> = Some(initial);
                        let mut stash: BTreeMap<u64, Vec<SliceRecord>> = BTreeMap::new();
                        let mut state = Slices::new(plan, slicer, interner, preds, index, peers);
                        move |(input, frontier), output| {
                            input.for_each_stamp(|cap, data| {
                                let time = *cap.least().expect("a totally ordered time");
                                let entry = stash.entry(time).or_default();
                                for batch in data {
                                    entry.append(batch);
                                }
                            });
                            let Some(cap) = held.as_mut() else {
                                return;
                            };
                            let mut reports = Vec::new();
                            while let Some(t) = stash
                                .keys()
                                .next()
                                .copied()
                                .filter(|t| !frontier.less_equal(t))
                            {
                                let mut records = stash.remove(&t).expect("present");
                                records.sort_by_key(|r| (r.tp, r.slice));
                                state.feed(records, &mut reports);
                            }
                            // Every slice of this worker has all its records before the
                            // frontier: what it has not been fed there, it skipped.
                            let bound = frontier
                                .frontier()
                                .first()
                                .map_or(u64::MAX, |t| t.saturating_mul(batch));
                            if frontier.is_empty() {
                                state.close(&mut reports);
                            }
                            state.watermarks(bound, &mut reports);
                            if !reports.is_empty() {
                                output.session(cap).give_iterator(reports.into_iter());
                            }
                            match frontier.frontier().first() {
                                Some(t) if t > cap.time() => cap.downgrade(t),
                                Some(_) => {}
                                None => held = None,
                            }
                        }
                    },
                )
                .container::<Vec<SliceReport>>()
                .exchange(|_| 0)
                .inspect(move |r: &SliceReport| merged.borrow_mut().take(r))
                .probe_with(&probe);
        });
    }
    if index == 0 {
        let result = read(worker, job, &mut input, &probe, batch, &slicer, &preds);
        input.close();
        worker.step_or_park_while(None, || !probe.done());
        merged.borrow_mut().finish();
        match result {
            Ok(sizes) => {
                let _ = tx.send(sizes);
            }
            Err(e) => {
                let _ = tx.send(Message::Error(e.to_string()));
            }
        }
    } else {
        input.close();
        worker.step_or_park_while(None, || !probe.done());
    }
    Ok(())
}

/// Worker 0: reads the log, routes each time point's events to the slices, and sends one
/// record per slice (none for an empty one when empty time points are dropped).
fn read(
    worker: &mut timely::worker::Worker,
    job: &Job,
    input: &mut RecordInput,
    probe: &ProbeHandle<u64>,
    batch: u64,
    slicer: &DataSlicer,
    preds: &[String],
) -> Result<Message, Error> {
    let options = TraceOptions {
        sig: Some(job.sig.clone()),
        time_field: None,
    };
    let name = job.trace.clone().unwrap_or_else(|| "<stdin>".into());
    let src: Box<dyn std::io::BufRead> = match &job.trace {
        Some(path) => Box::new(std::io::BufReader::with_capacity(
            1 << 16,
            std::fs::File::open(path).map_err(|e| Error::msg(format!("{path}: {e}")))?,
        )),
        None => Box::new(std::io::stdin().lock()),
    };
    let mut reader = open_reader(job.format, src, &name, options)?;
    // Routing needs the slicer's constants in the reader's interner.
    let slicer = DataSlicer::new(
        &job.formula,
        &job.free,
        &(0..job.free.len()).collect::<Vec<_>>(),
        slicer.var(),
        job.slices,
        reader.interner_mut(),
    )?;
    let mut pred_of: Vec<Option<u32>> = Vec::new();
    let mut split_tp = vec![TimePoint::default(); job.slices];
    let (mut events, mut time_points) = (vec![0u64; job.slices], vec![0u64; job.slices]);
    let mut tp = TimePoint::default();
    while reader.next_time_point(&mut tp)? {
        let epoch = tp.index / batch;
        if epoch > *input.time() {
            input.advance_to(epoch);
            worker.step();
            // Back-pressure: do not run more than LAG epochs ahead of the slowest slice.
            let behind = epoch.saturating_sub(LAG);
            worker.step_or_park_while(None, || probe.less_than(&behind));
        }
        let interner = reader.interner();
        split(&tp, &slicer, interner, &mut split_tp);
        for (k, part) in split_tp.iter().enumerate() {
            if job.drop_empty && part.events.is_empty() {
                continue;
            }
            let mut record = SliceRecord {
                slice: k as u64,
                tp: part.index,
                ts: part.ts,
                events: Vec::with_capacity(part.events.len()),
            };
            for e in &part.events {
                let slot = e.name.0 as usize;
                if pred_of.len() <= slot {
                    pred_of.resize(slot + 1, None);
                }
                let p = *pred_of[slot].get_or_insert_with(|| {
                    let name = interner.resolve(e.name);
                    preds.iter().position(|p| p == name).unwrap_or(0) as u32
                });
                let args = part
                    .args_of(e)
                    .iter()
                    .map(|v| WireValue::from_value(v, interner))
                    .collect();
                record.events.push((p, args));
            }
            events[k] += record.events.len() as u64;
            time_points[k] += 1;
            input.send(record);
        }
    }
    Ok(Message::Sizes {
        events,
        time_points,
    })
}

/// The slices a worker runs.
struct Slices {
    slicer: DataSlicer,
    interner: Interner,
    /// Predicate number -> name, interned here.
    preds: Vec<Sym>,
    engines: BTreeMap<u64, SliceEngine>,
    plan: rvmon_fo::Plan,
    /// Per slice: the last watermark reported.
    reported: BTreeMap<u64, u64>,
    closed: bool,
    answers: Vec<Answer>,
    tp: TimePoint,
    /// The slices of this worker (slice k runs on worker k mod peers).
    mine: Vec<u64>,
}

impl Slices {
    fn new(
        plan: rvmon_fo::Plan,
        slicer: DataSlicer,
        mut interner: Interner,
        preds: Vec<String>,
        index: usize,
        peers: usize,
    ) -> Slices {
        let preds = preds.iter().map(|p| interner.intern(p)).collect();
        let mine: Vec<u64> = (0..slicer.slices() as u64)
            .filter(|k| *k as usize % peers == index)
            .collect();
        let engines = mine
            .iter()
            .map(|&k| (k, SliceEngine::new(&plan, k as usize)))
            .collect();
        Slices {
            slicer,
            interner,
            preds,
            engines,
            plan,
            reported: BTreeMap::new(),
            closed: false,
            answers: Vec::new(),
            tp: TimePoint::default(),
            mine,
        }
    }

    /// Feeds an epoch's records, in time-point order.
    fn feed(&mut self, records: Vec<SliceRecord>, reports: &mut Vec<SliceReport>) {
        for r in records {
            self.tp.clear();
            self.tp.index = r.tp;
            self.tp.ts = r.ts;
            for (p, args) in &r.events {
                let values: Vec<rvmon_core::Value> = args
                    .iter()
                    .map(|v| v.to_value(&mut self.interner))
                    .collect();
                self.tp.push_event(self.preds[*p as usize], &values);
            }
            let engine = self
                .engines
                .entry(r.slice)
                .or_insert_with(|| SliceEngine::new(&self.plan, r.slice as usize));
            let result = engine.step(
                &self.tp,
                &self.slicer,
                &mut self.interner,
                &mut self.answers,
            );
            self.send_answers(r.slice, result, reports);
        }
    }

    fn close(&mut self, reports: &mut Vec<SliceReport>) {
        if self.closed {
            return;
        }
        self.closed = true;
        let slices: Vec<u64> = self.engines.keys().copied().collect();
        for k in slices {
            let engine = self.engines.get_mut(&k).expect("present");
            let result = engine.close(&self.slicer, &mut self.interner, &mut self.answers);
            self.send_answers(k, result, reports);
        }
    }

    fn send_answers(&mut self, k: u64, result: Result<(), Error>, reports: &mut Vec<SliceReport>) {
        let mut report = SliceReport {
            slice: k,
            decided_before: 0,
            answers: Vec::new(),
            error: result.err().map(|e| e.to_string()),
        };
        for a in self.answers.drain(..) {
            if a.rel.is_empty() {
                continue;
            }
            let rows = a
                .rel
                .iter()
                .map(|t| {
                    t.iter()
                        .map(|v| WireValue::from_value(v, &self.interner))
                        .collect()
                })
                .collect();
            report.answers.push((a.tp, a.ts, rows));
        }
        if !report.answers.is_empty() || report.error.is_some() {
            reports.push(report);
        }
    }

    /// Reports each slice's first undecided time point when it moved: what the slice was
    /// fed and has not answered, or `bound` (everything before it was fed or skipped).
    fn watermarks(&mut self, bound: u64, reports: &mut Vec<SliceReport>) {
        for &k in &self.mine {
            let mark = match self.engines.get(&k) {
                Some(e) => e.first_undecided().unwrap_or(bound),
                None => bound,
            };
            let mark = if self.closed { u64::MAX } else { mark };
            if self.reported.get(&k) != Some(&mark) {
                self.reported.insert(k, mark);
                reports.push(SliceReport {
                    slice: k,
                    decided_before: mark,
                    answers: Vec::new(),
                    error: None,
                });
            }
        }
    }
}

/// Worker 0's merge: answers per time point from every slice, written once every slice has
/// decided the time point.
struct Merger {
    marks: Vec<u64>,
    pending: BTreeMap<u64, (i64, Vec<Vec<WireValue>>)>,
    tx: mpsc::Sender<Message>,
    errors: VecDeque<String>,
}

impl Merger {
    fn new(slices: usize, tx: mpsc::Sender<Message>) -> Merger {
        Merger {
            marks: vec![0; slices],
            pending: BTreeMap::new(),
            tx,
            errors: VecDeque::new(),
        }
    }

    fn take(&mut self, r: &SliceReport) {
        if let Some(e) = &r.error {
            self.errors.push_back(e.clone());
        }
        for (tp, ts, rows) in &r.answers {
            let entry = self.pending.entry(*tp).or_insert_with(|| (*ts, Vec::new()));
            entry.1.extend(rows.iter().cloned());
        }
        let k = r.slice as usize;
        self.marks[k] = self.marks[k].max(r.decided_before);
        let decided = self.marks.iter().copied().min().unwrap_or(u64::MAX);
        while let Some(entry) = self.pending.first_entry() {
            if *entry.key() >= decided {
                break;
            }
            let (tp, (ts, rows)) = entry.remove_entry();
            let _ = self.tx.send(Message::Answer { tp, ts, rows });
        }
    }

    /// At the end: what an engine error left undecided is not written; the error is.
    fn finish(&mut self) {
        if let Some(e) = self.errors.pop_front() {
            let _ = self.tx.send(Message::Error(e));
        }
    }
}
