//! The run loop: time points from a reader, fed to a [`Monitor`] in batches, its decisions
//! written by a sink as soon as they are decided. Every engine runs through it.

use std::io::Write;

use rvmon_core::event::{Event, EventSource};
use rvmon_core::{Decision, Error, Interner, Kind, Monitor, Sink, StringCollection, TimePoint};
use rvmon_trace::TraceReader;

/// What the run loop reads: a trace reader's time points, or a stream specification's events.
pub trait Source {
    /// One input: a [`TimePoint`], or an [`Event`].
    type Item: Default;
    /// Refills `item` with the next input; `false` at the end. `err` takes notes (the trace
    /// has no time, say).
    fn next(&mut self, item: &mut Self::Item, err: &mut dyn Write) -> Result<bool, Error>;
    /// The interner of the input's strings.
    fn interner_mut(&mut self) -> &mut Interner;
    /// See [`TraceReader::watch_input`].
    fn watch_input(&mut self) {}
    /// See [`TraceReader::input_pending`].
    fn input_pending(&self) -> bool {
        false
    }
    /// The events in `item` (for the summary).
    fn events_in(item: &Self::Item) -> u64;
}

impl Source for dyn TraceReader + '_ {
    type Item = TimePoint;
    fn next(&mut self, tp: &mut TimePoint, err: &mut dyn Write) -> Result<bool, Error> {
        crate::next_time_point(self, tp, &mut std::io::sink(), err)
    }
    fn interner_mut(&mut self) -> &mut Interner {
        TraceReader::interner_mut(self)
    }
    fn watch_input(&mut self) {
        TraceReader::watch_input(self)
    }
    fn input_pending(&self) -> bool {
        TraceReader::input_pending(self)
    }
    fn events_in(tp: &TimePoint) -> u64 {
        tp.events.len() as u64
    }
}

/// A stream specification's events, as the run loop reads them. (Their string values are
/// owned, so the interner only ever holds what the specification interns: none.)
pub struct Events {
    source: Box<dyn EventSource>,
    interner: Interner,
    read: u64,
}

impl Events {
    /// The events of `source`.
    pub fn new(source: Box<dyn EventSource>) -> Events {
        Events {
            source,
            interner: Interner::new(),
            read: 0,
        }
    }
}

impl Source for Events {
    type Item = Event;
    /// Says on `err`, after the first event, when their positions are their times (the trace
    /// has no time), as runs over time points do.
    fn next(&mut self, ev: &mut Event, err: &mut dyn Write) -> Result<bool, Error> {
        let more = self.source.next_event(ev)?;
        self.read += u64::from(more);
        if more && self.read == 1 && self.source.positions_as_times() {
            crate::note_positions(err)?;
        }
        Ok(more)
    }
    fn interner_mut(&mut self) -> &mut Interner {
        &mut self.interner
    }
    fn events_in(_: &Event) -> u64 {
        1
    }
}

use crate::progress::Progress;
use crate::sink::Counts;

/// How a run goes.
#[derive(Clone, Debug, Default)]
pub struct RunOptions {
    /// The trace is a live input (standard input): a decision is written and flushed as soon
    /// as it is decided; batches hold only what the reader has already buffered; no time point
    /// is left out (one left out would not advance the monitor's clock).
    pub online: bool,
    /// Free the strings no state holds once this many are held (see
    /// [`StringCollection`]).
    pub collect_strings: usize,
    /// Show a progress display on standard error (a terminal, not `--quiet`).
    pub progress: bool,
    /// `--fallback CMD`: run after each violation is written (see [`crate::fallback`]).
    pub fallback: Option<String>,
}

/// What a run read, and decided.
#[derive(Clone, Copy, Debug, Default)]
pub struct RunStats {
    /// Time points read (including those left out as irrelevant).
    pub time_points: u64,
    /// Events in those time points.
    pub events: u64,
    /// Violations emitted.
    pub violations: u64,
}

/// Counts the violations (and a stream specification's triggers) on their way to the sink
/// (for the progress display).
struct Counting<'a> {
    sink: &'a mut dyn Sink,
    violations: u64,
}

impl Sink for Counting<'_> {
    fn emit(&mut self, d: &Decision<'_>, interner: &Interner) -> Result<(), Error> {
        self.violations += u64::from(matches!(d.kind, Kind::Violation | Kind::Trigger));
        self.sink.emit(d, interner)
    }
    fn end_batch(&mut self) -> Result<(), Error> {
        self.sink.end_batch()
    }
    fn flush(&mut self) -> Result<(), Error> {
        self.sink.flush()
    }
}

/// Runs `monitor` over `reader`'s time points, writing its decisions to `sink`, and says what
/// it read. On a bad input, every decision about the time points before it is written (and
/// flushed) before the error is returned.
pub fn run<S: Source + ?Sized>(
    monitor: &mut dyn Monitor<S::Item>,
    reader: &mut S,
    sink: &mut dyn Sink,
    options: RunOptions,
    err: &mut dyn Write,
) -> Result<RunStats, Error> {
    let mut fallback;
    let sink: &mut dyn Sink = match options.fallback.as_deref() {
        Some(command) => {
            fallback = crate::fallback::Fallback {
                inner: sink,
                command,
                runs: 0,
            };
            &mut fallback
        }
        None => sink,
    };
    let sink = &mut Counting {
        sink,
        violations: 0,
    };
    let online = options.online;
    // Strings interned so far (the specification's constants, the signature's names) are
    // never freed; values read from now on are, once no state holds them.
    reader.interner_mut().pin_all();
    let mut strings = StringCollection::new(options.collect_strings);
    let batch_size = monitor.batch_size().max(1);
    if online {
        reader.watch_input();
    }
    let mut progress = Progress::start(options.progress && !online);
    let mut batch: Vec<S::Item> = (0..batch_size).map(|_| S::Item::default()).collect();
    let (mut pending, mut stats) = (0, RunStats::default());
    let mut feed = |monitor: &mut dyn Monitor<S::Item>,
                    tps: &[S::Item],
                    reader: &mut S,
                    sink: &mut Counting<'_>,
                    err: &mut dyn Write|
     -> Result<(), Error> {
        let fed = monitor.feed(tps, reader.interner_mut(), sink);
        sink.end_batch()?;
        if let Err(e) = fed {
            sink.flush()?;
            return Err(e);
        }
        // Between batches, with the decisions written: the monitor's state holds every string
        // still needed (the reader keeps only names, which are pinned).
        strings.collect_if_due(reader.interner_mut(), |mark| monitor.mark_strings(mark));
        for w in monitor.take_warnings() {
            writeln!(err, "rvmon: {w}")?;
        }
        if online {
            sink.flush()?;
        }
        Ok(())
    };
    loop {
        // (On a bad input the loop flushes the sink itself, after the batch before it.)
        let read = reader.next(&mut batch[pending], err);
        let more = match read {
            Ok(more) => more,
            Err(e) => {
                // The decisions of the time points before the bad input come first.
                progress.clear();
                feed(monitor, &batch[..pending], &mut *reader, sink, err)?;
                sink.flush()?;
                return Err(e);
            }
        };
        if !more {
            break;
        }
        stats.time_points += 1;
        stats.events += S::events_in(&batch[pending]);
        if !online && monitor.may_skip(&batch[pending]) {
            continue;
        }
        pending += 1;
        if pending == batch_size || (online && !reader.input_pending()) {
            feed(monitor, &batch[..pending], &mut *reader, sink, err)?;
            pending = 0;
            progress.update(stats.time_points, sink.violations);
        }
    }
    feed(monitor, &batch[..pending], &mut *reader, sink, err)?;
    progress.clear();
    monitor.finish(reader.interner_mut(), sink)?;
    sink.end_batch()?;
    sink.flush()?;
    stats.violations = sink.violations;
    Ok(stats)
}

/// The summary line on standard error: violations, time points, and the inconclusive ones.
pub fn summary(counts: Counts, stats: RunStats, err: &mut dyn Write) -> Result<(), Error> {
    write!(
        err,
        "rvmon: {} violation(s) in {} time point(s)",
        counts.violations, stats.time_points
    )?;
    if let Some((tp, ts)) = counts.first_inconclusive {
        write!(
            err,
            "; {} inconclusive at the end of the trace (unbounded future), the first at time point {tp} @{ts}",
            counts.inconclusive
        )?;
    }
    if counts.undetermined > 0 {
        write!(
            err,
            "; {} undetermined (the observed timestamps violate the formula, the true ones may \
             or may not)",
            counts.undetermined
        )?;
    }
    writeln!(err)?;
    crate::warn_if_empty(stats.time_points, err)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cascade::{formula_monitor, FormulaSpec};
    use crate::sink::{FormatSink, Output};
    use rvmon_core::Interner;
    use rvmon_trace::monpoly::MonpolyLogReader;

    /// A MonPoly reader that records what the online loop asks of it: whether it was told to
    /// watch its buffer, and after how many time points it then said the next was buffered.
    struct Watched {
        inner: MonpolyLogReader<std::io::BufReader<&'static [u8]>>,
        watched: bool,
        pending: usize,
    }

    impl TraceReader for Watched {
        fn next_time_point(&mut self, tp: &mut TimePoint) -> Result<bool, Error> {
            let more = self.inner.next_time_point(tp);
            self.pending += usize::from(self.inner.input_pending());
            more
        }
        fn interner(&self) -> &Interner {
            self.inner.interner()
        }
        fn interner_mut(&mut self) -> &mut Interner {
            self.inner.interner_mut()
        }
        fn input_pending(&self) -> bool {
            self.inner.input_pending()
        }
        fn watch_input(&mut self) {
            self.watched = true;
            self.inner.watch_input();
        }
    }

    /// Online, the run loop has the reader watch its buffer and batches the time points it
    /// finds there (it feeds the monitor only when the next one is not buffered): with the
    /// whole log buffered, the reader says so at most of them, and the verdicts are those of
    /// the offline run, which asks nothing.
    #[test]
    fn online_batches_take_what_the_buffer_holds() {
        const FORMULA: &str = "p(x) IMPLIES PREVIOUS ONCE[0,3] p(x)";
        let log: &'static str = (0..200)
            .map(|t| format!("@{t} p({})\n", t % 7))
            .collect::<String>()
            .leak();
        let sig = rvmon_trace::Signature::parse("sig", "p(int)").unwrap();
        let spec = FormulaSpec::parse("f", FORMULA.to_string(), Some("mfotl"))
            .and_then(|s| s.with_signature(Some(sig)))
            .unwrap();
        let run = |online: bool| {
            let src = std::io::BufReader::new(log.as_bytes());
            let mut reader = Watched {
                inner: MonpolyLogReader::new(src, "log", None),
                watched: false,
                pending: 0,
            };
            let mut plan = formula_monitor(&spec, reader.interner_mut(), !online).unwrap();
            let (mut out, mut err) = (Vec::new(), Vec::new());
            let mut sink = FormatSink::new(&mut out, Output::Text);
            let options = RunOptions {
                online,
                collect_strings: StringCollection::DEFAULT_FLOOR,
                progress: false,
                fallback: None,
            };
            run(
                &mut *plan.monitor,
                &mut reader as &mut dyn TraceReader,
                &mut sink,
                options,
                &mut err,
            )
            .unwrap();
            let violations = sink.counts.violations;
            (violations, out, reader.watched, reader.pending)
        };
        let (violations, online, watched, pending) = run(true);
        assert!(
            watched,
            "the online loop did not ask the reader to watch its buffer"
        );
        assert!(pending > 150, "{pending} of 200 time points found buffered");
        let (offline_violations, offline, watched, pending) = run(false);
        assert_eq!((watched, pending), (false, 0));
        assert!(!online.is_empty());
        assert_eq!((violations, online), (offline_violations, offline));
    }
}
