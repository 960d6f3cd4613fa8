//! Time slicing (paper 04's time slicers): the log is cut into periods, and each period is
//! monitored by one engine that reads the period and its margins straight from the file.
//!
//! * **Periods** are cut at lines that start a time point and whose timestamp is above the one
//!   before, so a period is both a byte range and a timestamp range `[T_j, T_{j+1})`.
//! * **The past margin.** A verdict at a time point with timestamp `t` depends only on time
//!   points from `t - P` on (`P`: the formula's past horizon). Period j's reader starts at a
//!   cut before its first line after which every timestamp is at least `T_j - P`, and skips
//!   the time points below that. It starts at least one time point early, so that it also
//!   checks that timestamps do not decrease where the period starts.
//! * **The future margin.** After its own time points (the last with timestamp `L`), the
//!   engine reads those up to `L + F` (`F`: the future horizon), and `1 + NEXT depth` more, so
//!   that every one of its own time points is decided. It is closed (MonPoly's closing time
//!   point) only at the end of the log, as the single run is.
//! * **Restriction.** A period reports only its own time points, so each verdict is written
//!   once; time points are numbered in the period and renumbered at the merge.
//! * **Ends.** A bad line, an engine error or `>terminate<` in a period's own range ends the
//!   run there, after what that period and the earlier ones decided. In a margin it only
//!   stops that period's reader: the period that owns the line reports it.
//!
//! Every worker reads its own periods, so the log is read in parallel, and across processes
//! nothing but the verdicts crosses the network. Worker 0 writes the verdicts in order: those
//! of a later period wait until the earlier ones are done (memory follows the violations,
//! not the log). The formula must have bounded past and future horizons.

use std::collections::VecDeque;
use std::fs::File;
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};

use rvmon_core::{Error, Interner, SourcePos, TimePoint, Timestamp};
use rvmon_fo::{Answer, FoEngine};
use rvmon_slice::{split_one, DataSlicer, SliceEngine};
use rvmon_trace::monpoly::time_point_boundaries;
use rvmon_trace::{MonpolyLogReader, TraceReader};
use serde::{Deserialize, Serialize};

use crate::wire::WireValue;
use crate::{Job, Message};

/// How far a verdict looks back and ahead (time units), and the `NEXT` depth.
#[derive(Clone, Copy, Debug)]
pub struct Horizons {
    pub past: u64,
    pub future: u64,
    pub next_depth: u32,
}

/// A period of the log.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Period {
    /// Where its own time points start (a line starting with `@`).
    start: u64,
    /// Its first timestamp.
    first_ts: Timestamp,
    /// Where its reader starts.
    read_from: u64,
}

type Reader = MonpolyLogReader<Box<dyn BufRead>>;

fn open_at(path: &str, sig: &rvmon_trace::Signature, start: u64) -> Result<Reader, Error> {
    let cannot_read = |e: std::io::Error| Error::file(path, &e);
    let mut file = File::open(path).map_err(cannot_read)?;
    file.seek(SeekFrom::Start(start)).map_err(cannot_read)?;
    let src: Box<dyn BufRead> = Box::new(BufReader::with_capacity(1 << 16, file));
    Ok(MonpolyLogReader::new(src, path, Some(sig.clone())))
}

/// Cuts the log into at most `periods` periods of about equal size (fewer when the log has
/// fewer places to cut: equal timestamps, a bad line). Every process of a cluster computes
/// the same plan from the same file.
///
/// Also returns an estimate of the margins' cost: the bytes read in margins, as a share of
/// the log (a horizon longer than a period makes every period read most of the log).
pub(crate) fn plan(job: &Job, periods: usize, h: Horizons) -> Result<(Vec<Period>, f64), Error> {
    let path = job.trace.as_deref().expect("time slicing reads a file");
    if !crate::is_regular_file(path) {
        return Err(Error::msg(format!(
            "{path}: time slicing reads a regular file (each worker reads its own periods), not a pipe"
        )));
    }
    let cannot_read = |e: std::io::Error| Error::file(path, &e);
    let mut file = File::open(path).map_err(cannot_read)?;
    let len = file.metadata().map_err(cannot_read)?.len();
    // Cuts every `chunk_bytes`, and at least 64 per period: margins start at a cut, so finer
    // cuts read less before a period on small logs.
    let chunk = job
        .chunk_bytes
        .min((len / 64u64.saturating_mul(periods.max(1) as u64)).max(1));
    let cuts = time_point_boundaries(&mut file, len, chunk).map_err(cannot_read)?;
    // Each cut's first timestamp (None: it does not parse; the run will report that line).
    let mut tp = TimePoint::default();
    let first_ts: Vec<Option<Timestamp>> = cuts[..cuts.len() - 1]
        .iter()
        .map(|&c| {
            let mut r = open_at(path, &job.sig, c).ok()?;
            matches!(r.next_time_point(&mut tp), Ok(true)).then_some(tp.ts)
        })
        .collect();
    let mut out = vec![Period {
        start: 0,
        first_ts: Timestamp::MIN,
        read_from: 0,
    }];
    for j in 1..periods.max(1) {
        let target = len / periods as u64 * j as u64;
        let Some(k) = cuts.iter().position(|&c| c >= target && c < len) else {
            break;
        };
        let last = out.last().expect("period 0").start;
        let Some((start, ts)) = next_rise(path, &job.sig, cuts[k].max(last))? else {
            break;
        };
        if start <= last {
            continue;
        }
        // The last cut before the period after which every timestamp is within the past
        // horizon (strictly before the period: see the module's documentation).
        let floor = ts.saturating_sub(h.past.min(i64::MAX as u64) as i64);
        let read_from = (0..cuts.len() - 1)
            .rev()
            .find(|&i| cuts[i] < start && first_ts[i].is_some_and(|t| t < floor))
            .map_or(0, |i| cuts[i]);
        out.push(Period {
            start,
            first_ts: ts,
            read_from,
        });
    }
    // Past margins exactly; future margins up to the first cut beyond the horizon.
    let past: u64 = out.iter().map(|p| p.start - p.read_from).sum();
    let future: u64 = out[1..]
        .iter()
        .map(|next| {
            let limit = next
                .first_ts
                .saturating_add(h.future.min(i64::MAX as u64) as i64);
            let end = (0..cuts.len() - 1)
                .find(|&i| cuts[i] > next.start && first_ts[i].is_some_and(|t| t > limit))
                .map_or(len, |i| cuts[i]);
            end - next.start
        })
        .sum();
    let overhead = (past + future) as f64 / len.max(1) as f64;
    Ok((out, overhead))
}

/// The first line from `from` on that starts with a time point whose timestamp is above the
/// one before it: (its offset, its timestamp).
fn next_rise(
    path: &str,
    sig: &rvmon_trace::Signature,
    from: u64,
) -> Result<Option<(u64, Timestamp)>, Error> {
    let mut r = open_at(path, sig, from)?;
    let mut tp = TimePoint::default();
    let mut before: Option<Timestamp> = None;
    while let Ok(true) = r.next_time_point(&mut tp) {
        let (line, at_start) = r.time_point_line();
        if at_start && before.is_some_and(|b| tp.ts > b) {
            return Ok(Some((from + line, tp.ts)));
        }
        before = Some(tp.ts);
    }
    Ok(None)
}

/// How a period's reading ended.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) enum End {
    /// Its own time points are all decided.
    Done,
    /// A bad line or `>terminate<` in a margin: the period owning it reports it.
    Stopped,
    /// `>terminate<` in its own range: the log ends there.
    Terminated,
    /// A bad line in its own range: at line `line` of the reader that started at byte `from`
    /// (`None`: an engine error, which names no line), column `col`.
    Failed {
        at: Option<(u64, usize)>,
        col: usize,
        message: String,
    },
}

/// A worker's news about one of its periods.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub(crate) struct PeriodReport {
    pub period: u64,
    /// Violations at its own time points (numbered from its first), in order.
    pub answers: Vec<(u64, Timestamp, Vec<Vec<WireValue>>)>,
    /// How many own time points it has, once known.
    pub own: Option<u64>,
    /// Its own time points below this one are decided: every verdict among them is sent.
    pub decided: u64,
    pub end: Option<End>,
    /// At the end: events and time points the engine read, and the worker.
    pub sizes: Option<(u64, u64, u64)>,
    /// It was kept on disk by an earlier run (`--state-dir`), not run again.
    pub saved: bool,
}

impl PeriodReport {
    /// Whether it says something since the report that sent `decided` as `sent`: answers,
    /// the own count, or `decided` alone (which lets worker 0 write the period's other data
    /// slices up to there).
    fn has_news(&self, sent: u64) -> bool {
        !self.answers.is_empty() || self.own.is_some() || self.decided > sent
    }

    pub(crate) fn new(period: usize) -> PeriodReport {
        PeriodReport {
            period: period as u64,
            answers: Vec::new(),
            own: None,
            decided: 0,
            end: None,
            sizes: None,
            saved: false,
        }
    }

    /// Adds a later report of the same period.
    pub(crate) fn absorb(&mut self, r: &PeriodReport) {
        self.answers.extend(r.answers.iter().cloned());
        self.own = self.own.or(r.own);
        self.decided = self.decided.max(r.decided);
        if r.end.is_some() {
            self.end = r.end.clone();
            self.sizes = r.sizes;
        }
    }

    pub(crate) fn done(&self) -> bool {
        matches!(self.end, Some(End::Done))
    }
}

/// Finished periods kept on disk (`--state-dir`), so that a re-run of the same job (after a
/// process of the cluster died, say) skips them. A period's file is named by a key of the job:
/// the formula, the signature, the periods' cuts and first timestamps, and the log's length
/// and modification time; anything else finds no file and runs the period again.
pub(crate) struct Saved {
    dir: std::path::PathBuf,
    key: u64,
}

impl Saved {
    pub(crate) fn new(dir: &str, job: &Job, plan: &[Period]) -> Result<Saved, Error> {
        use std::hash::{Hash, Hasher};
        let path = job.trace.as_deref().expect("time slicing reads a file");
        let meta =
            std::fs::metadata(path).map_err(|e| Error::msg(format!("{path}: cannot read: {e}")))?;
        // The log's length and modification time stand for its content.
        let (len, modified) = (meta.len(), meta.modified().ok());
        std::fs::create_dir_all(dir)
            .map_err(|e| Error::msg(format!("{dir}: cannot create the state directory: {e}")))?;
        let mut h = std::collections::hash_map::DefaultHasher::new();
        (
            job.formula.to_string(),
            &job.free,
            format!("{:?}", job.sig),
            format!("{plan:?}"),
            job.period_slices,
            &job.var,
            len,
            modified,
        )
            .hash(&mut h);
        Ok(Saved {
            dir: dir.into(),
            key: h.finish(),
        })
    }

    fn path(&self, period: u64) -> std::path::PathBuf {
        self.dir
            .join(format!("period-{period}-{:016x}.bin", self.key))
    }

    /// A finished period's report, if a run of the same job kept it (an unreadable file is
    /// ignored: the period runs again).
    pub(crate) fn load(&self, period: usize) -> Option<PeriodReport> {
        let bytes = std::fs::read(self.path(period as u64)).ok()?;
        let mut r: PeriodReport = bincode::deserialize(&bytes).ok()?;
        (r.period == period as u64 && r.done()).then(|| {
            r.saved = true;
            r
        })
    }

    /// Keeps a finished period (written whole, then renamed: a crash leaves no half file).
    pub(crate) fn save(&self, r: &PeriodReport) -> Result<(), Error> {
        let path = self.path(r.period);
        let tmp = path.with_extension("tmp");
        let bytes = bincode::serialize(r).map_err(|e| Error::msg(e.to_string()))?;
        std::fs::write(&tmp, bytes)
            .and_then(|()| std::fs::rename(&tmp, &path))
            .map_err(|e| Error::msg(format!("{}: cannot write: {e}", path.display())))
    }
}

/// Where a time point or a line lies with respect to a period.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Region {
    Before,
    Own,
    After,
}

impl Region {
    /// Where the line at byte `at` is, for a period whose own lines start at `start` and end
    /// before `own_end` (the next period's start; `None` for the last).
    fn of(at: u64, start: u64, own_end: Option<u64>) -> Region {
        if at < start {
            Region::Before
        } else if own_end.is_none_or(|e| at < e) {
            Region::Own
        } else {
            Region::After
        }
    }
}

/// A task's monitor: the engine over the period's time points, or, when slicers compose,
/// one data slice of them (the slice's events only, and the answers its restriction permits).
/// (One per task, so the variants' sizes do not matter.)
#[allow(clippy::large_enum_variant)]
enum TaskEngine {
    Whole(FoEngine),
    Slice {
        engine: SliceEngine,
        slicer: DataSlicer,
        k: usize,
        /// The time points reduced to the slice (reused buffers).
        parts: Vec<TimePoint>,
    },
}

impl TaskEngine {
    /// Feeds time points; returns how many of their events the engine took.
    fn step_batch(
        &mut self,
        tps: &[TimePoint],
        interner: &mut Interner,
        out: &mut Vec<Answer>,
    ) -> Result<usize, Error> {
        match self {
            TaskEngine::Whole(e) => e
                .step_batch(tps, interner, out)
                .map(|()| tps.iter().map(|tp| tp.events.len()).sum()),
            TaskEngine::Slice {
                engine,
                slicer,
                k,
                parts,
            } => {
                if parts.len() < tps.len() {
                    parts.resize_with(tps.len(), TimePoint::default);
                }
                for (tp, part) in tps.iter().zip(parts.iter_mut()) {
                    split_one(tp, slicer, interner, *k, part);
                }
                let parts = &parts[..tps.len()];
                engine
                    .step_batch(parts, slicer, interner, out)
                    .map(|()| parts.iter().map(|p| p.events.len()).sum())
            }
        }
    }

    fn close(&mut self, interner: &mut Interner, out: &mut Vec<Answer>) -> Result<(), Error> {
        match self {
            TaskEngine::Whole(e) => e.close(interner, out),
            TaskEngine::Slice { engine, slicer, .. } => engine.close(slicer, interner, out),
        }
    }

    /// See [`FoEngine::mark_strings`].
    fn mark_strings(&self, mark: &mut dyn FnMut(rvmon_core::Sym)) -> usize {
        match self {
            TaskEngine::Whole(e) => e.mark_strings(mark),
            TaskEngine::Slice { engine, .. } => engine.mark_strings(mark),
        }
    }
}

/// The tasks of a time-sliced run: each period, or each data slice of each period when
/// slicers compose (`Job::period_slices`); task `t` is slice `t % K` of period `t / K`.
pub(crate) fn tasks(job: &Job, plan: &[Period]) -> usize {
    plan.len() * slices_per_period(job)
}

/// `K`: the data slices of each period (1: periods only).
pub(crate) fn slices_per_period(job: &Job) -> usize {
    job.period_slices.max(1)
}

/// The engine of task `task`: the formula compiled (with `interner`, the task's reader's), whole
/// or for one data slice of its period; whether the plan has future operators, and the batch
/// size (one time point at a time for a plan whose evaluation can fail).
fn task_engine(
    job: &Job,
    task: usize,
    interner: &mut rvmon_core::Interner,
) -> Result<(TaskEngine, bool, usize), Error> {
    let per_period = slices_per_period(job);
    let compiled = rvmon_fo::compile(
        &job.formula,
        &job.free,
        &job.sig,
        interner,
        &job.spec_name,
        &job.spec_text,
    )?;
    let has_future = compiled.has_future();
    // Offline: time points go to the engine in batches (see `FoEngine::step_batch`), except
    // for plans whose evaluation can fail, whose errors must stop at their time point.
    let batch_size = if compiled.may_fail() {
        1
    } else {
        rvmon_fo::OFFLINE_BATCH
    };
    let engine = if per_period > 1 {
        let slicer = DataSlicer::new(
            &job.formula,
            &job.free,
            &compiled.output_order,
            &job.var,
            per_period,
            interner,
        )?;
        TaskEngine::Slice {
            engine: SliceEngine::new(&compiled, task % per_period),
            slicer,
            k: task % per_period,
            parts: Vec::new(),
        }
    } else {
        TaskEngine::Whole(FoEngine::new(compiled))
    };
    Ok((engine, has_future, batch_size))
}

/// Monitors task `task` (a period of `plan`, or one data slice of it); `send` gets its
/// reports (answers every few thousand time points, so that worker 0 can write them while
/// the task runs).
pub(crate) fn run_period(
    job: &Job,
    plan: &[Period],
    task: usize,
    h: Horizons,
    worker: usize,
    over: &AtomicBool,
    mut send: impl FnMut(PeriodReport),
) -> Result<(), Error> {
    let path = job.trace.as_deref().expect("time slicing reads a file");
    let per_period = slices_per_period(job);
    let j = task / per_period;
    let period = &plan[j];
    let own_end = plan.get(j + 1).map(|p| p.start);
    let region = |at: u64| Region::of(at, period.start, own_end);
    let mut reader = open_at(path, &job.sig, period.read_from)?;
    let (mut engine, has_future, batch_size) = task_engine(job, task, reader.interner_mut())?;
    // The formula's constants and the slicer's names stay; values are freed once no state
    // holds them.
    reader.interner_mut().pin_all();
    let mut strings = rvmon_core::StringCollection::new(job.collect_strings);
    let floor = period
        .first_ts
        .saturating_sub(h.past.min(i64::MAX as u64) as i64);
    let mut batch: Vec<TimePoint> = (0..batch_size).map(|_| TimePoint::default()).collect();
    // Time points read and not yet fed, and the region of the first of them.
    let (mut pending, mut batch_region) = (0usize, Region::Own);
    let mut answers: Vec<Answer> = Vec::new();
    let mut report = PeriodReport::new(task);
    // The `decided` last sent.
    let mut sent = 0u64;
    let mut tally = Tally::default();
    let mut events = 0u64;
    // Where reading stopped early: a period stopped before its own range never gets written
    // (the period owning that line ends the run), so it has no count to report.
    let mut stop = Region::Own;
    // Feeds what is pending, and breaks out of the loop with the engine's failure if any.
    macro_rules! feed_pending {
        () => {{
            let n = std::mem::take(&mut pending);
            let fed_now = feed_batch(
                &batch[..n],
                batch_region,
                &mut engine,
                reader.interner_mut(),
                &mut answers,
                &mut stop,
            );
            match fed_now {
                Ok(n) => events += n,
                Err(end) => break end,
            }
            restrict(
                &mut answers,
                tally.first_own,
                tally.own,
                reader.interner(),
                &mut report,
            );
            // The answers went into the report as owned values: only the engine holds strings.
            strings.collect_if_due(reader.interner_mut(), |mark| engine.mark_strings(mark));
        }};
    }
    let end = loop {
        let next = reader.next_time_point(&mut batch[pending]);
        let at = period.read_from
            + match next {
                Ok(true) => reader.time_point_line().0,
                _ => reader.line_offset(),
            };
        match next {
            Ok(true) => {}
            Ok(false) if reader.terminated() => {
                feed_pending!();
                stop = region(at);
                break if stop == Region::Own {
                    End::Terminated
                } else {
                    End::Stopped
                };
            }
            Ok(false) => {
                feed_pending!();
                // The end of the log: closed as the single run is.
                let closed = has_future.then(|| engine.close(reader.interner_mut(), &mut answers));
                break match closed {
                    Some(Err(e)) => End::engine_failed(&e),
                    _ => End::Done,
                };
            }
            Err(e) => {
                // The time points before the bad line are fed: their verdicts are written.
                feed_pending!();
                stop = region(at);
                break End::bad_line(e, stop, period.read_from);
            }
        }
        let here = region(at);
        let tp = &mut batch[pending];
        match tally.admit(here, tp.ts, floor, h, &mut report) {
            Admit::Skip => continue,
            Admit::Take => {}
            Admit::PastHorizon => {
                feed_pending!();
                break End::Done;
            }
        }
        let fed = tally.fed;
        tp.index = fed;
        tally.fed += 1;
        if pending == 0 {
            batch_region = here;
        }
        pending += 1;
        let fed = tally.fed;
        if pending < batch.len() && fed % 4096 != 0 {
            continue;
        }
        feed_pending!();
        if fed % 4096 == 0 {
            if over.load(Ordering::Relaxed) {
                // The run ended earlier in the log (a bad line, `>terminate<`): nothing this
                // period decides will be written.
                break End::Stopped;
            }
            if report.has_news(sent) {
                sent = report.decided;
                send(std::mem::replace(&mut report, PeriodReport::new(task)));
            }
        }
    };
    restrict(
        &mut answers,
        tally.first_own,
        tally.own,
        reader.interner(),
        &mut report,
    );
    if report.own.is_none() && stop != Region::Before {
        report.own = Some(tally.own);
    }
    report.end = Some(end);
    report.sizes = Some((events, tally.fed, worker as u64));
    send(report);
    Ok(())
}

/// Feeds `batch` (read in `region`) to the engine; on an engine error, how the task ends
/// (and `stop` says where).
fn feed_batch(
    batch: &[TimePoint],
    region: Region,
    engine: &mut TaskEngine,
    interner: &mut rvmon_core::Interner,
    answers: &mut Vec<Answer>,
    stop: &mut Region,
) -> Result<u64, End> {
    engine
        .step_batch(batch, interner, answers)
        .map(|n| n as u64)
        .map_err(|e| {
            *stop = region;
            if region == Region::Own {
                End::engine_failed(&e)
            } else {
                End::Stopped
            }
        })
}

/// What a task has fed of its period: time points fed, the first own one, own ones, the last
/// own timestamp, and the extra ones fed past the future horizon.
#[derive(Default)]
struct Tally {
    fed: u64,
    first_own: Option<u64>,
    own: u64,
    last_own_ts: Option<Timestamp>,
    extra: u32,
}

/// What to do with a time point just read.
enum Admit {
    /// Before the margin the past horizon needs: not fed.
    Skip,
    Take,
    /// Past the future horizon of the last own time point, and past the `NEXT` steps: every
    /// own time point is decided.
    PastHorizon,
}

impl Tally {
    /// Counts a time point at `ts` in region `here` (the period's margins start at `floor`);
    /// the first one after the own range records the own count in `report`.
    fn admit(
        &mut self,
        here: Region,
        ts: Timestamp,
        floor: Timestamp,
        h: Horizons,
        report: &mut PeriodReport,
    ) -> Admit {
        match here {
            Region::Before if ts < floor => return Admit::Skip,
            Region::Before => {}
            Region::Own => {
                self.first_own.get_or_insert(self.fed);
                self.own += 1;
                self.last_own_ts = Some(ts);
            }
            Region::After => {
                if report.own.is_none() {
                    report.own = Some(self.own);
                }
                let horizon = self.last_own_ts.map_or(Timestamp::MIN, |t| {
                    t.saturating_add(h.future.min(i64::MAX as u64) as i64)
                });
                if ts > horizon {
                    if self.extra > h.next_depth {
                        return Admit::PastHorizon;
                    }
                    self.extra += 1;
                }
            }
        }
        Admit::Take
    }
}

impl End {
    /// The engine failed: an error that names no line.
    fn engine_failed(e: &Error) -> End {
        End::Failed {
            at: None,
            col: 0,
            message: e.to_string(),
        }
    }

    /// A bad line, read in `region` by the reader that started at byte `from`: the period
    /// reports it only when the line is its own.
    fn bad_line(e: Error, region: Region, from: u64) -> End {
        match region {
            Region::Own => End::Failed {
                at: e.pos.as_ref().map(|p| (from, p.line)),
                col: e.pos.as_ref().map_or(0, |p| p.col),
                message: e.message,
            },
            _ => End::Stopped,
        }
    }
}

/// Moves the answers at own time points into `report`, numbered from the period's first.
fn restrict(
    answers: &mut Vec<Answer>,
    first_own: Option<u64>,
    own: u64,
    interner: &rvmon_core::Interner,
    report: &mut PeriodReport,
) {
    for a in answers.drain(..) {
        let Some(first) = first_own else { continue };
        // The engine answers every time point it decides, in order, empty or not.
        if a.tp >= first {
            report.decided = report.decided.max((a.tp + 1 - first).min(own));
        }
        if a.rel.is_empty() || a.tp < first || a.tp >= first + own {
            continue;
        }
        let rows = crate::wire::rows_of(&a.rel, interner);
        report.answers.push((a.tp - first, a.ts, rows));
    }
}

/// Worker 0's merge: periods in order, each one's time points renumbered after the earlier
/// periods'. When slicers compose, a period's data slices (its tasks) are merged first: a
/// time point's verdicts are written once every slice has passed it.
pub(crate) struct PeriodMerger {
    path: String,
    tasks: Vec<MergeState>,
    /// Tasks per period.
    per_period: usize,
    /// The period being written, and the time points before it.
    current: usize,
    offset: u64,
    /// The run ended (at a bad line, `>terminate<`, or after the last period).
    over: bool,
    /// Tells this process's workers that the run ended.
    stop: Arc<AtomicBool>,
    sizes_sent: bool,
    tx: mpsc::Sender<Message>,
}

#[derive(Default)]
struct MergeState {
    answers: VecDeque<(u64, Timestamp, Vec<Vec<WireValue>>)>,
    /// Its own time points below this one are decided, their verdicts sent.
    decided: u64,
    own: Option<u64>,
    end: Option<End>,
    sizes: Option<(u64, u64, u64)>,
    saved: bool,
}

impl MergeState {
    /// Every verdict of this task at time points below the result has arrived. A task that
    /// failed or met `>terminate<` decides nothing more; one that is done has sent all.
    fn passed(&self) -> u64 {
        match self.end {
            Some(End::Done) | Some(End::Stopped) => u64::MAX,
            _ => self.decided,
        }
    }
}

/// How bad an end is: the worst end among a period's data slices is the period's.
fn severity(e: &End) -> u8 {
    match e {
        End::Done => 0,
        End::Stopped => 1,
        End::Terminated => 2,
        End::Failed { .. } => 3,
    }
}

impl PeriodMerger {
    pub(crate) fn new(
        path: &str,
        periods: usize,
        per_period: usize,
        tx: mpsc::Sender<Message>,
        stop: Arc<AtomicBool>,
    ) -> PeriodMerger {
        PeriodMerger {
            path: path.to_string(),
            tasks: (0..periods * per_period)
                .map(|_| MergeState::default())
                .collect(),
            per_period,
            current: 0,
            offset: 0,
            over: periods == 0,
            stop,
            sizes_sent: false,
            tx,
        }
    }

    pub(crate) fn take(&mut self, r: &PeriodReport) {
        let st = &mut self.tasks[r.period as usize];
        if !self.over {
            // (after the end, later periods' verdicts are never written)
            st.answers.extend(r.answers.iter().cloned());
        }
        st.own = st.own.or(r.own);
        st.decided = st.decided.max(r.decided);
        if r.end.is_some() {
            st.end = r.end.clone();
            st.sizes = r.sizes;
            st.saved = r.saved;
        }
        while !self.over {
            let first = self.current * self.per_period;
            let slices = &mut self.tasks[first..first + self.per_period];
            // The period's verdicts below `bound`, merged by time point across slices.
            let bound = slices.iter().map(MergeState::passed).min().unwrap_or(0);
            let mut merged: std::collections::BTreeMap<u64, (Timestamp, Vec<Vec<WireValue>>)> =
                std::collections::BTreeMap::new();
            for st in slices.iter_mut() {
                while st.answers.front().is_some_and(|a| a.0 < bound) {
                    let (tp, ts, rows) = st.answers.pop_front().expect("checked");
                    merged.entry(tp).or_insert((ts, Vec::new())).1.extend(rows);
                }
            }
            for (tp, (ts, rows)) in merged {
                let _ = self.tx.send(Message::Answer {
                    tp: self.offset + tp,
                    ts,
                    rows,
                });
            }
            if slices.iter().any(|st| st.end.is_none()) {
                break;
            }
            // The worst end, and among failures the earliest.
            let end = slices
                .iter()
                .filter_map(|st| {
                    let e = st.end.as_ref()?;
                    Some((
                        severity(e),
                        std::cmp::Reverse(st.own.unwrap_or(u64::MAX)),
                        e,
                    ))
                })
                .max_by_key(|(sev, at, _)| (*sev, *at))
                .expect("every slice ended")
                .2
                .clone();
            let own = slices.iter().find_map(|st| st.own);
            match end {
                End::Done | End::Stopped => {
                    let Some(own) = own else {
                        // Its reader stopped in its past margin, where the owning period
                        // went on: an engine error on the margin's partial history.
                        let _ = self.tx.send(Message::Error(format!(
                            "time slicing could not monitor period {}: its engine failed in the margin before it; run with --slicing data",
                            self.current
                        )));
                        self.over = true;
                        break;
                    };
                    self.offset += own;
                    self.current += 1;
                    self.over = self.current * self.per_period == self.tasks.len();
                }
                End::Terminated => self.over = true,
                End::Failed { at, col, message } => {
                    let error = match at {
                        Some((from, line)) => Error::at(
                            SourcePos {
                                file: self.path.clone(),
                                line: line_number(&self.path, from) - 1 + line,
                                col,
                            },
                            message,
                        )
                        .to_string(),
                        None => message,
                    };
                    let _ = self.tx.send(Message::Error(error));
                    self.over = true;
                }
            }
        }
        if self.over {
            self.stop.store(true, Ordering::Relaxed);
        }
        self.send_sizes();
    }

    /// Once every task has ended: their sizes, as slices.
    fn send_sizes(&mut self) {
        if self.sizes_sent || self.tasks.iter().any(|p| p.sizes.is_none()) {
            return;
        }
        self.sizes_sent = true;
        let sizes: Vec<(u64, u64, u64)> = self.tasks.iter().filter_map(|p| p.sizes).collect();
        let _ = self.tx.send(Message::Sizes(crate::Sizes {
            events: sizes.iter().map(|s| s.0).collect(),
            time_points: sizes.iter().map(|s| s.1).collect(),
            workers: sizes.iter().map(|s| Some(s.2)).collect(),
            saved: self.tasks.iter().map(|p| p.saved).collect(),
            // Each period's own time points: its first task's count.
            read: self
                .tasks
                .iter()
                .step_by(self.per_period.max(1))
                .filter_map(|t| t.own)
                .sum(),
            // Time slicing reads MonPoly logs, which always have timestamps.
            positions: false,
        }));
    }
}

/// The 1-based number of the line that starts at byte `at` of `path`.
fn line_number(path: &str, at: u64) -> usize {
    let Ok(file) = File::open(path) else {
        return 1;
    };
    let mut buf = vec![0u8; 1 << 16];
    let mut src = file.take(at);
    let mut lines = 1;
    while let Ok(n) = src.read(&mut buf) {
        if n == 0 {
            break;
        }
        lines += buf[..n].iter().filter(|&&b| b == b'\n').count();
    }
    lines
}
