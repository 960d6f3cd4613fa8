//! Reading the log for the slices: each time point's events are routed to the slices and
//! grouped into epochs, which worker 0 feeds into the dataflow.
//!
//! A MonPoly log in a file is read in parallel: it is cut into pieces at lines that start a
//! time point ([`time_point_boundaries`]), reader threads parse and route the pieces
//! independently (numbering time points from 0), and the pieces are handed over in order,
//! renumbered. Anything a piece cannot decide alone falls back to reading the rest of the log
//! in one reader resumed at that piece: a bad line (its message must name the whole log's
//! line, and what it found after the cut), a `>terminate<`, or a timestamp below the previous
//! piece's last. So the output, errors included, is the sequential reader's.
//!
//! An epoch's timely time is the index of its first time point: every time point before the
//! frontier has then been handed over, whatever the epochs' sizes.

use std::fs::File;
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom};
use std::sync::mpsc;

use rvmon_core::{Error, Interner, TimePoint, Timestamp};
use rvmon_slice::{split, DataSlicer};
use rvmon_trace::monpoly::time_point_boundaries;
use rvmon_trace::{open_reader, MonpolyLogReader, TraceFormat, TraceOptions, TraceReader};

use crate::wire::{SliceBatch, WireValue};
use crate::{Epoch, Job, Message};

/// Routes time points to the slices, into the batches of the current epoch.
struct Router {
    slicer: DataSlicer,
    preds: Vec<String>,
    drop_empty: bool,
    batches: Vec<SliceBatch>,
    /// Predicate number by event name symbol (in the reader's interner).
    pred_of: Vec<Option<u32>>,
    split_tp: Vec<TimePoint>,
}

impl Router {
    /// `interner` is the reader's: routing needs the slicer's constants in it.
    fn new(job: &Job, preds: &[String], interner: &mut Interner) -> Result<Router, Error> {
        let slicer = DataSlicer::new(
            &job.formula,
            &job.free,
            &(0..job.free.len()).collect::<Vec<_>>(),
            &job.var,
            job.slices,
            interner,
        )?;
        Ok(Router {
            slicer,
            preds: preds.to_vec(),
            drop_empty: job.drop_empty,
            batches: (0..job.slices as u64).map(fresh).collect(),
            pred_of: Vec::new(),
            split_tp: vec![TimePoint::default(); job.slices],
        })
    }

    fn route(&mut self, tp: &TimePoint, interner: &Interner) {
        split(tp, &self.slicer, interner, &mut self.split_tp);
        for (k, part) in self.split_tp.iter().enumerate() {
            if self.drop_empty && part.events.is_empty() {
                continue;
            }
            let b = &mut self.batches[k];
            b.time_points
                .push((part.index, part.ts, part.events.len() as u32));
            for e in &part.events {
                let slot = e.name.0 as usize;
                if self.pred_of.len() <= slot {
                    self.pred_of.resize(slot + 1, None);
                }
                let preds = &self.preds;
                let p = *self.pred_of[slot].get_or_insert_with(|| {
                    let name = interner.resolve(e.name);
                    // The slicer routes only the formula's predicates, which `preds` lists.
                    preds
                        .iter()
                        .position(|p| p == name)
                        .expect("a routed event's predicate is one of the formula's")
                        as u32
                });
                let args = part.args_of(e);
                b.events.push((p, args.len() as u32));
                b.args
                    .extend(args.iter().map(|v| WireValue::from_value(v, interner)));
            }
        }
    }

    /// The epoch's non-empty batches; the router starts the next epoch.
    fn take(&mut self) -> Vec<SliceBatch> {
        self.batches
            .iter_mut()
            .filter(|b| !b.is_empty())
            .map(|b| std::mem::replace(b, fresh(b.slice)))
            .collect()
    }
}

fn fresh(slice: u64) -> SliceBatch {
    SliceBatch {
        slice,
        ..SliceBatch::default()
    }
}

/// The first and last time points a reader read (index, timestamp).
#[derive(Default)]
struct Span {
    first: Option<(u64, Timestamp)>,
    last: Option<(u64, Timestamp)>,
}

/// Reads time points to the end (or the first bad line), routing them and handing each epoch
/// of `batch` time points (counted from the first one read) to `epoch`. Returns what was read,
/// and how reading ended.
fn route_all(
    reader: &mut dyn TraceReader,
    router: &mut Router,
    batch: u64,
    mut epoch: impl FnMut(u64, Vec<SliceBatch>) -> Result<(), Error>,
) -> (Span, Result<(), Error>) {
    let mut tp = TimePoint::default();
    let mut span = Span::default();
    let mut current = None;
    let result = loop {
        match reader.next_time_point(&mut tp) {
            Ok(true) => {}
            Ok(false) => break Ok(()),
            Err(e) => break Err(e),
        }
        let base = span.first.get_or_insert((tp.index, tp.ts)).0;
        let start = base + (tp.index - base) / batch * batch;
        if current != Some(start) {
            if let Some(time) = current {
                if let Err(e) = epoch(time, router.take()) {
                    return (span, Err(e));
                }
            }
            current = Some(start);
        }
        router.route(&tp, reader.interner());
        span.last = Some((tp.index, tp.ts));
    };
    if let Some(time) = current {
        if let Err(e) = epoch(time, router.take()) {
            return (span, Err(e));
        }
    }
    (span, result)
}

/// Hands epochs to worker 0, placing their slices on workers. The last epoch is held back
/// until the next one comes: a bad line may still add to it.
struct Feeder<'a> {
    to_worker: &'a mpsc::SyncSender<Epoch>,
    placement: Placement,
    pending: Option<(u64, Vec<SliceBatch>)>,
    /// The last time point read, and the last one each slice got.
    last: Option<(u64, Timestamp)>,
    last_fed: Vec<Option<u64>>,
    events: Vec<u64>,
    time_points: Vec<u64>,
    /// The log's events had no time: their positions were the timestamps.
    positions: bool,
}

impl<'a> Feeder<'a> {
    fn new(job: &Job, workers: usize, to_worker: &'a mpsc::SyncSender<Epoch>) -> Feeder<'a> {
        Feeder {
            to_worker,
            placement: Placement::new(job.slices, workers),
            pending: None,
            last: None,
            last_fed: vec![None; job.slices],
            events: vec![0; job.slices],
            time_points: vec![0; job.slices],
            positions: false,
        }
    }

    /// An epoch: its first time point's index, and its slices' batches.
    fn epoch(&mut self, time: u64, batches: Vec<SliceBatch>) -> Result<(), Error> {
        for b in &batches {
            let k = b.slice as usize;
            self.events[k] += b.events.len() as u64;
            self.time_points[k] += b.time_points.len() as u64;
            if let Some(&(index, _, _)) = b.time_points.last() {
                self.last_fed[k] = Some(index);
            }
        }
        match self.pending.replace((time, batches)) {
            Some(previous) => self.send(previous),
            None => Ok(()),
        }
    }

    fn send(&mut self, (time, mut batches): (u64, Vec<SliceBatch>)) -> Result<(), Error> {
        self.placement.place(&mut batches);
        self.to_worker
            .send(Epoch::Batches(time, batches))
            .map_err(|_| Error::msg("the parallel run stopped"))
    }

    /// The end of the log: the slice sizes.
    fn finish(mut self) -> Result<Message, Error> {
        if let Some(p) = self.pending.take() {
            self.send(p)?;
        }
        Ok(Message::Sizes(crate::Sizes {
            saved: vec![false; self.events.len()],
            events: self.events,
            time_points: self.time_points,
            workers: self.placement.worker_of,
            read: self.last.map_or(0, |(index, _)| index + 1),
            positions: self.positions,
        }))
    }

    /// A bad line: every slice sees the last time point read, empty if need be (keeping an
    /// empty time point is always sound), so that it decides what the single run decides
    /// before the bad line.
    fn fail(mut self, e: Error) -> Result<Message, Error> {
        if let (Some((index, ts)), Some((_, batches))) = (self.last, self.pending.as_mut()) {
            for k in 0..self.last_fed.len() {
                if self.last_fed[k] == Some(index) {
                    continue;
                }
                match batches.iter_mut().find(|b| b.slice == k as u64) {
                    Some(b) => b.time_points.push((index, ts, 0)),
                    None => {
                        let mut b = fresh(k as u64);
                        b.time_points.push((index, ts, 0));
                        batches.push(b);
                    }
                }
            }
        }
        if let Some(p) = self.pending.take() {
            self.send(p)?;
        }
        Err(e)
    }
}

/// The reader thread: reads the log and hands worker 0 each epoch's batches (a slice's empty
/// time points are left out when they may be dropped). On a bad line, what was read before it
/// is handed over first.
pub(crate) fn read(
    job: &Job,
    preds: &[String],
    workers: usize,
    to_worker: &mpsc::SyncSender<Epoch>,
) -> Result<Message, Error> {
    let batch = job.batch.max(1);
    let mut feed = Feeder::new(job, workers, to_worker);
    let name = job.trace.clone().unwrap_or_else(|| "<stdin>".into());
    let options = TraceOptions {
        sig: Some(job.sig.clone()),
        time_field: job.time_field.clone(),
    };
    let cannot_read = |e: std::io::Error| Error::file(&name, &e);
    let result = match &job.trace {
        // A pipe (`<(zcat log.gz)`) has no length to cut: read in one pass.
        Some(path)
            if job.format == TraceFormat::Monpoly
                && job.readers > 1
                && crate::is_regular_file(path) =>
        {
            let mut file = File::open(path).map_err(cannot_read)?;
            let len = file.metadata().map_err(cannot_read)?.len();
            let cuts =
                time_point_boundaries(&mut file, len, job.chunk_bytes).map_err(cannot_read)?;
            read_pieces(job, preds, &cuts, &mut feed)
        }
        _ => {
            let src: Box<dyn BufRead> = match &job.trace {
                Some(path) => Box::new(BufReader::with_capacity(
                    1 << 16,
                    File::open(path).map_err(cannot_read)?,
                )),
                None => Box::new(std::io::stdin().lock()),
            };
            let mut reader = open_reader(job.format, src, &name, options)?;
            let mut router = Router::new(job, preds, reader.interner_mut())?;
            let (span, result) =
                route_all(reader.as_mut(), &mut router, batch, |t, b| feed.epoch(t, b));
            feed.last = span.last.or(feed.last);
            feed.positions = reader.positions_as_timestamps();
            result
        }
    };
    match result {
        Ok(()) => feed.finish(),
        Err(e) => feed.fail(e),
    }
}

/// A piece of the log, read on its own: its epochs (numbered from its first time point, 0),
/// and what the next piece needs to continue.
struct Piece {
    epochs: Vec<(u64, Vec<SliceBatch>)>,
    span: Span,
    last_ts: Option<Timestamp>,
    time_points: u64,
    lines: usize,
    /// It ended with a bad line or `>terminate<`: the rest is read sequentially.
    undecided: bool,
}

/// A MonPoly reader of the log from byte `start`, for `len` bytes or to the end.
fn open_at(
    job: &Job,
    start: u64,
    len: Option<u64>,
) -> Result<MonpolyLogReader<Box<dyn BufRead>>, Error> {
    let path = job.trace.as_deref().expect("pieces are read from a file");
    let cannot_read = |e: std::io::Error| Error::file(path, &e);
    let mut file = File::open(path).map_err(cannot_read)?;
    file.seek(SeekFrom::Start(start)).map_err(cannot_read)?;
    let src: Box<dyn BufRead> = match len {
        Some(n) => Box::new(BufReader::with_capacity(1 << 16, file.take(n))),
        None => Box::new(BufReader::with_capacity(1 << 16, file)),
    };
    Ok(MonpolyLogReader::new(src, path, Some(job.sig.clone())))
}

fn read_piece(job: &Job, preds: &[String], start: u64, end: u64) -> Result<Piece, Error> {
    let mut reader = open_at(job, start, Some(end - start))?;
    let mut router = Router::new(job, preds, reader.interner_mut())?;
    let mut epochs = Vec::new();
    let (span, result) = route_all(&mut reader, &mut router, job.batch.max(1), |t, b| {
        epochs.push((t, b));
        Ok(())
    });
    Ok(Piece {
        epochs,
        span,
        last_ts: reader.last_timestamp(),
        time_points: reader.time_points_read(),
        lines: reader.lines_read(),
        undecided: result.is_err() || reader.terminated(),
    })
}

/// Reads the log's pieces (between consecutive `cuts`) on `job.readers` threads and feeds them
/// in order (see the module's documentation).
fn read_pieces(job: &Job, preds: &[String], cuts: &[u64], feed: &mut Feeder) -> Result<(), Error> {
    let pieces = cuts.len().saturating_sub(1);
    let readers = job.readers.clamp(1, pieces.max(1));
    std::thread::scope(|scope| {
        let mut from_readers = Vec::with_capacity(readers);
        for r in 0..readers {
            // One piece read ahead per reader: memory stays a few pieces.
            let (tx, rx) = mpsc::sync_channel::<Result<Piece, Error>>(1);
            from_readers.push(rx);
            std::thread::Builder::new()
                .name(format!("rvmon:reader-{r}"))
                .spawn_scoped(scope, move || {
                    for j in (r..pieces).step_by(readers) {
                        if tx
                            .send(read_piece(job, preds, cuts[j], cuts[j + 1]))
                            .is_err()
                        {
                            return; // the pieces are no longer needed
                        }
                    }
                })
                .map_err(|e| Error::msg(format!("cannot start a reader thread: {e}")))?;
        }
        let (mut lines, mut time_points, mut last_ts) = (0usize, 0u64, None);
        for j in 0..pieces {
            let piece = from_readers[j % readers]
                .recv()
                .map_err(|_| Error::msg("a log reader stopped unexpectedly"))??;
            let in_order = match (piece.span.first, last_ts) {
                (Some((_, first)), Some(last)) => first >= last,
                _ => true,
            };
            if piece.undecided || !in_order {
                drop(from_readers);
                let mut reader = open_at(job, cuts[j], None)?;
                reader.resume(lines, time_points, last_ts);
                let mut router = Router::new(job, preds, reader.interner_mut())?;
                let (span, result) =
                    route_all(&mut reader, &mut router, job.batch.max(1), |t, b| {
                        feed.epoch(t, b)
                    });
                feed.last = span.last.or(feed.last);
                return result;
            }
            for (t, mut batches) in piece.epochs {
                for b in &mut batches {
                    for tp in &mut b.time_points {
                        tp.0 += time_points;
                    }
                }
                feed.epoch(time_points + t, batches)?;
            }
            if let Some((index, ts)) = piece.span.last {
                feed.last = Some((index + time_points, ts));
            }
            lines += piece.lines;
            time_points += piece.time_points;
            last_ts = piece.last_ts.or(last_ts);
        }
        Ok(())
    })
}

/// Which worker runs each slice. A slice is placed when it first has events, on the worker
/// with the least load so far (events and time points routed), the slices new in an epoch
/// largest first: a hash spreads values evenly, but not their events (a few busy computers
/// can put 57 % of a log on one of two workers).
struct Placement {
    worker_of: Vec<Option<u64>>,
    load: Vec<u64>,
}

impl Placement {
    fn new(slices: usize, workers: usize) -> Placement {
        Placement {
            worker_of: vec![None; slices],
            load: vec![0; workers],
        }
    }

    fn place(&mut self, batches: &mut [SliceBatch]) {
        let size = |b: &SliceBatch| (b.events.len() + b.time_points.len()) as u64;
        let mut new: Vec<&SliceBatch> = batches
            .iter()
            .filter(|b| !b.is_empty() && self.worker_of[b.slice as usize].is_none())
            .collect();
        new.sort_by_key(|b| std::cmp::Reverse(size(b)));
        for b in new {
            let w = (0..self.load.len())
                .min_by_key(|&w| self.load[w])
                .expect("a worker");
            self.worker_of[b.slice as usize] = Some(w as u64);
            self.load[w] += size(b);
        }
        for b in batches.iter_mut().filter(|b| !b.is_empty()) {
            let w = self.worker_of[b.slice as usize].expect("placed");
            b.worker = w;
            self.load[w as usize] += size(b);
        }
    }
}
