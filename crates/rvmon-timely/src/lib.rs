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
//! * Time points are grouped into epochs of [`Job::batch`] time points; timely's time is an
//!   epoch's first time point, so progress tracking costs little per time point. A slice
//!   processes an epoch once the frontier has passed it, in time-point order.
//! * A MonPoly log file is read by several threads, in pieces ([`read`]).
//! * Each slice reports, with its answers, the first time point it has not decided; worker 0
//!   writes a time point's merged answer once every slice has decided it. Future operators
//!   make that later than the time point itself, so answers wait at worker 0, not in the
//!   slices.
//! * Values cross workers as owned data ([`wire`]), since every worker interns strings in its
//!   own interner; routing hashes string contents, so every process slices alike.
//! * A worker failure (a process of the cluster dies) ends the run with an error, never with
//!   partial output presented as complete.

pub mod net;
mod periods;
mod read;
pub mod wire;

use std::cell::RefCell;
use std::collections::{BTreeMap, VecDeque};
use std::rc::Rc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc, Once};
use std::time::Duration;

use rvmon_core::{Error, Interner, StringCollection, Sym, TimePoint};
use rvmon_fo::rel::Rel;
use rvmon_fo::Answer;
use rvmon_logic::Formula;
use rvmon_slice::{DataSlicer, SliceEngine};
use rvmon_trace::{Signature, TraceFormat};
use timely::communication::allocator::zero_copy::initialize::initialize_networking_from_sockets;
use timely::communication::allocator::{AllocatorBuilder, ProcessBuilder};
use timely::communication::Hooks;
use timely::container::CapacityContainerBuilder;
use timely::dataflow::channels::pact::Exchange as ExchangePact;
use timely::dataflow::operators::{Capability, Exchange, Input, Inspect, Operator, Probe};
use timely::dataflow::{InputHandle, ProbeHandle};
use timely::{CommunicationConfig, Config, WorkerConfig};

use wire::{SliceBatch, SliceReport, WireValue};

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
    /// The field that holds an event's time (`--time-field`; formats with named fields).
    pub time_field: Option<String>,
    pub var: String,
    /// Slices (at least one per worker; they are placed on workers by load).
    pub slices: usize,
    /// Whether slices skip their empty time points (only when that is sound).
    pub drop_empty: bool,
    /// Time points per epoch.
    pub batch: u64,
    /// Threads that read a MonPoly log file (in pieces of about `chunk_bytes`); 1 reads it
    /// sequentially, as any other log.
    pub readers: usize,
    pub chunk_bytes: u64,
    /// Time slicing into this many periods instead of data slicing (`var`, `slices` and
    /// `drop_empty` are then unused; see [`time_horizons`]).
    pub periods: Option<usize>,
    /// Time slicing: where finished periods are kept, so that a re-run skips them.
    pub state_dir: Option<String>,
    /// Time slicing composed with data slicing: each period is cut into this many data
    /// slices by `var` (1: periods only). Every (period, slice) is a task of its own.
    pub period_slices: usize,
    /// Each worker (and process 0's output) frees the strings its engines no longer hold once
    /// this many are in use (see [`rvmon_core::StringCollection`]).
    pub collect_strings: usize,
}

impl Job {
    /// What every process of a cluster must agree on (checked when they connect): the
    /// formula, signature, slicing and workers per process.
    fn fingerprint(&self, workers: usize, time_plan: Option<&TimePlan>) -> u64 {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        (
            self.formula.to_string(),
            format!("{:?}", self.sig),
            &self.var,
            self.slices,
            self.drop_empty,
            self.batch,
            self.period_slices,
            workers,
            // Every process cuts the periods from its own copy of the log: they must agree.
            time_plan.map(|p| format!("{:?}", p.0)),
        )
            .hash(&mut h);
        h.finish()
    }
}

pub use periods::Horizons;

/// A time-sliced run's periods, and the horizons they were cut for.
type TimePlan = (Vec<periods::Period>, Horizons);

/// The horizons time slicing needs, or why the formula cannot be time-sliced (an unbounded
/// past or future: a verdict may depend on the whole log before or after it).
pub fn time_horizons(job: &Job) -> Result<Horizons, Error> {
    let a = rvmon_logic::analyze(&job.spec_name, &job.spec_text, &job.formula)?;
    match (a.past_horizon, a.future_horizon) {
        (Some(past), Some(future)) => Ok(Horizons {
            past,
            future,
            next_depth: a.next_depth,
        }),
        (None, _) => Err(Error::msg(
            "time slicing needs a bounded past: a verdict of this formula may depend on the whole log before it",
        )),
        (_, None) => Err(Error::msg(
            "time slicing needs a bounded future: a verdict of this formula may depend on the whole log after it",
        )),
    }
}

/// Whether `path` is a regular file (not a pipe): only those can be cut into pieces.
pub fn is_regular_file(path: &str) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.is_file())
}

/// What time slicing into `periods` would read in margins, as a share of the log (an
/// estimate from the cuts; 0 for a formula that looks neither back nor ahead).
pub fn time_slicing_overhead(job: &Job, periods: usize) -> Result<f64, Error> {
    let h = time_horizons(job)?;
    Ok(periods::plan(job, periods, h)?.1)
}

/// The share of the time points among the log's first `bytes` that hold an event of the
/// formula's predicates. Data slicing with empty time points dropped skips the others in
/// every slice, which time slicing cannot.
pub fn relevant_share(job: &Job, bytes: u64) -> Result<f64, Error> {
    use std::io::Read;
    let path = job
        .trace
        .as_deref()
        .ok_or_else(|| Error::msg("no log file"))?;
    if !is_regular_file(path) {
        return Err(Error::msg(format!("{path}: not a regular file")));
    }
    let file = std::fs::File::open(path).map_err(|e| Error::file(path, &e))?;
    let src = std::io::BufReader::new(file.take(bytes));
    let mut reader = rvmon_trace::MonpolyLogReader::new(src, path, Some(job.sig.clone()));
    let names = rvmon_slice::predicates(&job.formula);
    let preds: Vec<Sym> = names
        .iter()
        .map(|n| rvmon_trace::TraceReader::interner_mut(&mut reader).intern(n))
        .collect();
    let mut tp = TimePoint::default();
    let (mut all, mut relevant) = (0u64, 0u64);
    // A bad line ends the sample; the run reports it.
    while let Ok(true) = rvmon_trace::TraceReader::next_time_point(&mut reader, &mut tp) {
        all += 1;
        relevant += u64::from(tp.events.iter().any(|e| preds.contains(&e.name)));
    }
    Ok(if all == 0 {
        1.0
    } else {
        relevant as f64 / all as f64
    })
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
    /// What the slices (or periods) read, at the end.
    Sizes(Sizes),
}

/// Events and time points each slice (or period) received, the worker each ran on (`None`:
/// it received nothing), and whether it was kept from an earlier run (`--state-dir`) instead
/// of run; the time points of the log, and whether its events had no time, so that their
/// positions were the timestamps.
#[derive(Debug, Clone, Default)]
pub struct Sizes {
    pub events: Vec<u64>,
    pub time_points: Vec<u64>,
    pub workers: Vec<Option<u64>>,
    pub saved: Vec<bool>,
    pub read: u64,
    pub positions: bool,
}

type RecordInput = InputHandle<u64, CapacityContainerBuilder<Vec<SliceBatch>>>;

/// Epochs the reader may run ahead of the slowest slice.
const LAG: u64 = 8;

/// Runs `job` on `cluster`; `on` gets every report (only in process 0, which writes the
/// output). A bad log line ends the run with its error after every answer decided before it.
pub fn run(
    job: Job,
    cluster: &Cluster,
    mut on: impl FnMut(Report, &Interner) -> Result<(), Error>,
) -> Result<(), Error> {
    if cluster.processes > 1 {
        fail_fast_when_a_peer_dies();
    }
    let (tx, rx) = mpsc::channel::<Message>();
    let output_floor = job.collect_strings;
    let job = Arc::new(job);
    let worker_job = Arc::clone(&job);
    let time_plan: Option<Arc<TimePlan>> = match job.periods {
        Some(k) => {
            if job.trace.is_none() || job.format != TraceFormat::Monpoly {
                return Err(Error::msg(
                    "time slicing reads a MonPoly log from a file (every worker reads its periods)",
                ));
            }
            let h = time_horizons(&job)?;
            Some(Arc::new((periods::plan(&job, k, h)?.0, h)))
        }
        None => None,
    };
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let builders = builders(
        cluster,
        job.fingerprint(cluster.workers, time_plan.as_deref()),
    )?;
    let guards = timely::execute::execute_from(
        builders.0,
        builders.1,
        WorkerConfig::default(),
        move |worker| {
            let tx = tx.clone();
            let result =
                std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| match &time_plan {
                    Some(plan) => work_periods(worker, &worker_job, &plan.0, plan.1, &tx, &stop),
                    None => work(worker, &worker_job, &tx),
                }));
            match result {
                Ok(Ok(())) => {}
                Ok(Err(e)) => {
                    let _ = tx.send(Message::Error(e.to_string()));
                }
                // The other workers may wait for this one forever: the run is over.
                Err(panic) => {
                    let why = panic
                        .downcast_ref::<String>()
                        .cloned()
                        .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                        .unwrap_or_else(|| "a worker stopped".into());
                    let _ = tx.send(Message::Fatal(why));
                }
            }
        },
    )
    .map_err(|e| Error::msg(format!("cannot start the workers: {e}")))?;
    // Process 0's worker 0 sends the output; this thread writes it as it comes. (Its strings
    // are freed once written: nothing here holds them afterwards.)
    let mut interner = Interner::new();
    let mut strings = StringCollection::new(output_floor);
    let mut first_error: Option<Error> = None;
    for m in rx {
        let result = match m {
            Message::Answer { tp, ts, rows } => {
                let rel: Rel = rows
                    .iter()
                    .map(|r| r.iter().map(|v| v.to_value(&mut interner)).collect())
                    .collect();
                let written = on(Report::Answer(Answer { tp, ts, rel }), &interner);
                strings.collect_if_due(&mut interner, |_| 0);
                written
            }
            Message::Sizes(sizes) => on(Report::Sizes(sizes), &interner),
            Message::Error(e) => Err(Error::msg(e)),
            Message::Fatal(why) => {
                // Without joining: the other workers may never finish.
                return Err(Error::msg(format!(
                    "the parallel run failed: {why}; no result is complete"
                )));
            }
        };
        if let Err(e) = result {
            first_error.get_or_insert(e);
        }
    }
    // The channel closed: every worker has returned, so the dataflow completed everywhere and
    // every verdict is written. In a cluster, what fails from here on is its shutdown: a peer
    // that hung up while this process still read (see `fail_fast_when_a_peer_dies`).
    let cluster_shutdown = cluster.processes > 1;
    if cluster_shutdown {
        LOCAL_WORK_DONE.store(true, Ordering::SeqCst);
    }
    let joined = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| guards.join()));
    let failed = match joined {
        _ if cluster_shutdown => None,
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

/// Set once this process's workers have all returned from their work: the dataflow completed
/// everywhere (a worker returns only when its probe says so, which takes every process's
/// progress), and every verdict has reached the writer.
static LOCAL_WORK_DONE: AtomicBool = AtomicBool::new(false);

/// When a process of the cluster dies, timely's network threads panic, the workers panic on
/// the poisoned queues, and their destructors panic again while unwinding, which aborts the
/// process with a screenful of backtraces. A panic hook stops the process at the first of
/// these panics instead, with one clear message and exit status 2.
///
/// Once the local work is done ([`LOCAL_WORK_DONE`]), a network error is the cluster shutting
/// down (a peer that closed its end while this one still read: "Connection reset by peer"),
/// not a failure: the thread ends quietly and the run stands. (CI's cluster property test
/// exited 2 this way, twice in a row, after runs that had written every verdict.)
fn fail_fast_when_a_peer_dies() {
    static INSTALL: Once = Once::new();
    INSTALL.call_once(install_fail_fast_hook);
}

fn install_fail_fast_hook() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let payload = info.payload();
        let msg = payload
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| payload.downcast_ref::<&str>().copied())
            .unwrap_or("");
        let in_timely = std::thread::current()
            .name()
            .is_some_and(|n| n.starts_with("timely:"));
        if in_timely
            && (msg.contains("communication error")
                || msg.contains("poisoned")
                || msg.contains("Broken pipe"))
        {
            if LOCAL_WORK_DONE.load(Ordering::SeqCst) {
                return;
            }
            // Written to the stream itself, not through `eprintln!`: a test harness captures
            // the macro's output and would lose it at the exit below (a cluster test once
            // exited this way under load with nothing to show why).
            use std::io::Write;
            let at = info
                .location()
                .map_or(String::new(), |l| format!(" at {}:{}", l.file(), l.line()));
            let _ = writeln!(
                std::io::stderr(),
                "rvmon: error: the parallel run failed: a process of the cluster stopped ({msg}{at}); no result is complete"
            );
            std::process::exit(2);
        }
        default(info);
    }));
}

type Builders = (Vec<AllocatorBuilder>, Box<dyn std::any::Any + Send>);

fn builders(cluster: &Cluster, fingerprint: u64) -> Result<Builders, Error> {
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
        fingerprint,
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
pub(crate) enum Message {
    Answer {
        tp: u64,
        ts: i64,
        rows: Vec<Vec<WireValue>>,
    },
    Sizes(Sizes),
    Error(String),
    /// A worker panicked (a peer process died, or a bug).
    Fatal(String),
}

/// One worker of a time-sliced run: monitors its periods, reading them from the log itself,
/// and sends the verdicts to worker 0, which writes them in order.
fn work_periods(
    worker: &mut timely::worker::Worker,
    job: &Job,
    plan: &[periods::Period],
    h: Horizons,
    tx: &mpsc::Sender<Message>,
    stop: &Arc<std::sync::atomic::AtomicBool>,
) -> Result<(), Error> {
    let (index, peers) = (worker.index(), worker.peers());
    let mut input: InputHandle<u64, CapacityContainerBuilder<Vec<periods::PeriodReport>>> =
        InputHandle::new_with_builder();
    let probe = ProbeHandle::new();
    let path = job.trace.as_deref().unwrap_or("<stdin>");
    let merger = Rc::new(RefCell::new(periods::PeriodMerger::new(
        path,
        plan.len(),
        periods::slices_per_period(job),
        tx.clone(),
        Arc::clone(stop),
    )));
    {
        let merger = Rc::clone(&merger);
        worker.dataflow::<u64, _, _>(|scope| {
            scope
                .input_from(&mut input)
                .exchange(|_| 0)
                .inspect(move |r: &periods::PeriodReport| merger.borrow_mut().take(r))
                .probe_with(&probe);
        });
    }
    let saved = match &job.state_dir {
        Some(dir) => Some(periods::Saved::new(dir, job, plan)?),
        None => None,
    };
    let mut result = Ok(());
    for j in (index..periods::tasks(job, plan)).step_by(peers) {
        if let Some(kept) = saved.as_ref().and_then(|s| s.load(j)) {
            input.send(kept);
            worker.step();
            continue;
        }
        let mut whole = saved.as_ref().map(|_| periods::PeriodReport::new(j));
        if stop.load(std::sync::atomic::Ordering::Relaxed) {
            break; // the run ended earlier in the log
        }
        result = periods::run_period(job, plan, j, h, index, stop, |r| {
            if let Some(w) = whole.as_mut() {
                w.absorb(&r);
            }
            input.send(r);
            worker.step();
        });
        if result.is_err() {
            break;
        }
        if let (Some(s), Some(w)) = (&saved, &whole) {
            if w.done() {
                s.save(w)?;
            }
        }
    }
    input.close();
    worker.step_or_park_while(None, || !probe.done());
    result
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
    let merged = Rc::new(RefCell::new(Merger::new(peers, tx.clone())));
    {
        let merged = Rc::clone(&merged);
        let slicer = slicer.clone();
        let preds = preds.clone();
        let collect_strings = job.collect_strings;
        worker.dataflow::<u64, _, _>(|scope| {
            scope
                .input_from(&mut input)
                .unary_frontier(
                    ExchangePact::new(|r: &SliceBatch| r.worker),
                    "slices",
                    move |initial, _info| {
                        let mut held: Option<Capability<u64>> = Some(initial);
                        let mut stash: BTreeMap<u64, Vec<SliceBatch>> = BTreeMap::new();
                        let mut state =
                            Slices::new(plan, slicer, interner, preds, index, collect_strings);
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
                                let mut batches = stash.remove(&t).expect("present");
                                batches.sort_by_key(|b| b.slice);
                                for b in &batches {
                                    state.feed(b, &mut reports);
                                }
                            }
                            // Every slice of this worker has all its records before the
                            // frontier: what it has not been fed there, it skipped.
                            let bound = frontier.frontier().first().map_or(u64::MAX, |t| *t);
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
        let result = feed_input(worker, job, &mut input, &probe, &preds, peers);
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

/// What the reader thread hands worker 0.
pub(crate) enum Epoch {
    /// The slices' batches of an epoch, by the index of its first time point (its time).
    Batches(u64, Vec<SliceBatch>),
    /// The end of the log (or its first bad line), with the slice sizes.
    End(Result<Message, Error>),
}

/// Worker 0: feeds the epochs the reader thread prepares into the dataflow, stepping its own
/// slices meanwhile. The reader runs in a thread of its own so that parsing does not sit on
/// worker 0's share of the monitoring.
fn feed_input(
    worker: &mut timely::worker::Worker,
    job: &Job,
    input: &mut RecordInput,
    probe: &ProbeHandle<u64>,
    preds: &[String],
    peers: usize,
) -> Result<Message, Error> {
    let (to_worker, epochs) = mpsc::sync_channel::<Epoch>(LAG as usize);
    let (job, preds) = (job.clone(), preds.to_vec());
    let reader = std::thread::Builder::new()
        .name("rvmon:reader".into())
        .spawn(move || {
            let to_worker = to_worker;
            let end = read::read(&job, &preds, peers, &to_worker);
            let _ = to_worker.send(Epoch::End(end));
        })
        .map_err(|e| Error::msg(format!("cannot start the reader thread: {e}")))?;
    let mut recent: VecDeque<u64> = VecDeque::new();
    let end = loop {
        match epochs.try_recv() {
            Ok(Epoch::Batches(epoch, batches)) => {
                if epoch > *input.time() {
                    input.advance_to(epoch);
                }
                for b in batches {
                    input.send(b);
                }
                worker.step();
                // Back-pressure: do not run more than LAG epochs ahead of the slowest slice.
                recent.push_back(epoch);
                if recent.len() > LAG as usize {
                    let behind = recent.pop_front().expect("more than LAG");
                    worker.step_or_park_while(None, || probe.less_than(&behind));
                }
            }
            Ok(Epoch::End(end)) => break end,
            Err(mpsc::TryRecvError::Empty) => {
                worker.step_or_park(Some(Duration::from_micros(200)));
            }
            Err(mpsc::TryRecvError::Disconnected) => {
                break Err(Error::msg("the log reader stopped unexpectedly"))
            }
        }
    };
    let _ = reader.join();
    if end.is_err() {
        // A bad line: the slices must not close their engines as if the log ended there,
        // since a time point waiting for later ones is not decided.
        for worker in 0..peers as u64 {
            input.send(SliceBatch {
                worker,
                abort: true,
                ..SliceBatch::default()
            });
        }
    }
    end
}

/// The slices a worker runs.
struct Slices {
    slicer: DataSlicer,
    interner: Interner,
    /// Predicate number -> name, interned here.
    preds: Vec<Sym>,
    engines: BTreeMap<u64, SliceEngine>,
    plan: rvmon_fo::Plan,
    /// The last watermark reported.
    reported: Option<u64>,
    closed: bool,
    /// The log had a bad line.
    aborted: bool,
    /// An engine failed.
    failed: bool,
    answers: Vec<Answer>,
    /// Time points rebuilt from a batch, fed to a slice's engine together (reused buffers).
    tps: Vec<TimePoint>,
    /// How many time points go to an engine at once: one when the plan's evaluation can
    /// fail, so that an error stops the slice exactly where the single run stops.
    batch_size: usize,
    values: Vec<rvmon_core::Value>,
    /// This worker.
    index: usize,
    /// When to free the strings no engine here holds.
    strings: StringCollection,
}

impl Slices {
    fn new(
        plan: rvmon_fo::Plan,
        slicer: DataSlicer,
        mut interner: Interner,
        preds: Vec<String>,
        index: usize,
        collect_strings: usize,
    ) -> Slices {
        let preds = preds.iter().map(|p| interner.intern(p)).collect();
        // The formula's constants and the slicer's and predicates' names stay.
        interner.pin_all();
        let engines = BTreeMap::new();
        let batch_size = if plan.may_fail() {
            1
        } else {
            rvmon_fo::OFFLINE_BATCH
        };
        Slices {
            slicer,
            interner,
            preds,
            engines,
            plan,
            reported: None,
            closed: false,
            aborted: false,
            failed: false,
            answers: Vec::new(),
            batch_size,
            tps: Vec::new(),
            values: Vec::new(),
            index,
            strings: StringCollection::new(collect_strings),
        }
    }

    /// Feeds a slice's epoch, in time-point order.
    fn feed(&mut self, batch: &SliceBatch, reports: &mut Vec<SliceReport>) {
        self.aborted |= batch.abort;
        if self.failed {
            return;
        }
        let (mut e, mut a) = (0, 0);
        for chunk in batch.time_points.chunks(self.batch_size) {
            if self.tps.len() < chunk.len() {
                self.tps.resize_with(chunk.len(), TimePoint::default);
            }
            for (slot, &(tp, ts, n)) in self.tps.iter_mut().zip(chunk) {
                slot.clear();
                slot.index = tp;
                slot.ts = ts;
                for &(p, arity) in &batch.events[e..e + n as usize] {
                    self.values.clear();
                    for v in &batch.args[a..a + arity as usize] {
                        let v = v.to_value(&mut self.interner);
                        self.values.push(v);
                    }
                    a += arity as usize;
                    slot.push_event(self.preds[p as usize], &self.values);
                }
                e += n as usize;
            }
            let engine = self
                .engines
                .entry(batch.slice)
                .or_insert_with(|| SliceEngine::new(&self.plan, batch.slice as usize));
            let result = engine.step_batch(
                &self.tps[..chunk.len()],
                &self.slicer,
                &mut self.interner,
                &mut self.answers,
            );
            self.send_answers(result, reports);
            if self.failed {
                return;
            }
        }
        // The answers went out as rows of owned values: only the engines hold strings.
        let engines = &self.engines;
        self.strings.collect_if_due(&mut self.interner, |mark| {
            engines.values().map(|e| e.mark_strings(mark)).sum()
        });
    }

    fn close(&mut self, reports: &mut Vec<SliceReport>) {
        if self.closed {
            return;
        }
        self.closed = true;
        if self.aborted {
            return; // the log had a bad line: what waits for later time points stays undecided
        }
        let slices: Vec<u64> = self.engines.keys().copied().collect();
        for k in slices {
            let engine = self.engines.get_mut(&k).expect("present");
            let result = engine.close(&self.slicer, &mut self.interner, &mut self.answers);
            self.send_answers(result, reports);
        }
    }

    fn send_answers(&mut self, result: Result<(), Error>, reports: &mut Vec<SliceReport>) {
        let mut report = SliceReport {
            worker: self.index as u64,
            decided_before: 0,
            answers: Vec::new(),
            error: result.err().map(|e| e.to_string()),
        };
        // An engine error stops this worker's slices, as it stops the single run.
        self.failed |= report.error.is_some();
        for a in self.answers.drain(..) {
            if a.rel.is_empty() {
                continue;
            }
            let rows = wire::rows_of(&a.rel, &self.interner);
            report.answers.push((a.tp, a.ts, rows));
        }
        if !report.answers.is_empty() || report.error.is_some() {
            reports.push(report);
        }
    }

    /// Reports this worker's first undecided time point when it moved: the earliest one a
    /// slice here was fed and has not answered, or `bound` (everything before it was fed or
    /// skipped).
    fn watermarks(&mut self, bound: u64, reports: &mut Vec<SliceReport>) {
        if self.failed {
            return; // what a failed engine had not decided stays undecided
        }
        let mark = if self.closed && !self.aborted {
            u64::MAX
        } else {
            self.engines
                .values()
                .filter_map(SliceEngine::first_undecided)
                .min()
                .unwrap_or(bound)
                .min(bound)
        };
        if self.reported != Some(mark) {
            self.reported = Some(mark);
            reports.push(SliceReport {
                worker: self.index as u64,
                decided_before: mark,
                answers: Vec::new(),
                error: None,
            });
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
    fn new(workers: usize, tx: mpsc::Sender<Message>) -> Merger {
        Merger {
            marks: vec![0; workers],
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
        let w = r.worker as usize;
        self.marks[w] = self.marks[w].max(r.decided_before);
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
