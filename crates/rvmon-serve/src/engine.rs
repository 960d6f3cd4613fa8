//! What a stream's monitor is fed, by the kind of specification: time points of events with
//! data (temporal formulas, parametric properties), or events holding a value per input
//! (stream specifications, STL formulas); and how a request's body becomes them.

use rvmon::cascade::{any_monitor, AnyMonitor};
use rvmon_core::event::{Event, EventSource};
use rvmon_core::{Error, Interner, Sink, TimePoint};
use rvmon_trace::events::JsonlEvents;
use rvmon_trace::{open_reader, Signature, TraceFormat, TraceOptions};

/// The specification every stream monitors.
#[derive(Clone, Debug)]
pub struct Spec {
    pub name: String,
    pub text: String,
    pub lang: Option<String>,
    pub sig: Option<Signature>,
}

/// A request body's format.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// MonPoly log lines (`text/plain`).
    Monpoly,
    /// rvmon's JSON Lines trace format (`application/x-ndjson`).
    Jsonl,
}

/// A stream's monitor: the front door's, by what it is fed.
pub struct Engine(pub AnyMonitor);

/// A batch, read for its engine; also the time points accepted but not monitored yet (see
/// [`crate::stream`]'s lateness), kept in time order.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
pub enum Batch {
    Points(Vec<TimePoint>),
    Events(Vec<Event>),
}

impl Batch {
    pub fn len(&self) -> usize {
        match self {
            Batch::Points(p) => p.len(),
            Batch::Events(e) => e.len(),
        }
    }

    /// The `k`-th time point's timestamp (the trace's unit; nanoseconds for events).
    pub fn ts(&self, k: usize) -> Option<i64> {
        match self {
            Batch::Points(p) => p.get(k).map(|t| t.ts),
            Batch::Events(e) => e.get(k).map(|e| e.time),
        }
    }

    /// An empty batch of the same kind.
    pub fn empty_like(&self) -> Batch {
        match self {
            Batch::Points(_) => Batch::Points(Vec::new()),
            Batch::Events(_) => Batch::Events(Vec::new()),
        }
    }

    /// Adds `other`'s time points from the `skip`-th, keeping the time order: by time, then
    /// in the order they came (a stable sort; already sorted runs cost one pass).
    pub fn merge(&mut self, other: Batch, skip: usize) {
        fn merge<T>(a: &mut Vec<T>, b: Vec<T>, skip: usize, time: fn(&T) -> i64) {
            let sorted = a
                .last()
                .zip(b.get(skip))
                .is_none_or(|(x, y)| time(x) <= time(y));
            a.extend(b.into_iter().skip(skip));
            if !sorted {
                a.sort_by_key(time);
            }
        }
        match (self, other) {
            (Batch::Points(a), Batch::Points(b)) => merge(a, b, skip, |t| t.ts),
            (Batch::Events(a), Batch::Events(b)) => merge(a, b, skip, |e| e.time),
            _ => unreachable!("one stream's batches are all read for its engine"),
        }
    }

    /// Takes out the first time points, those whose time is at most `until`, in order.
    pub fn take_through(&mut self, until: i64) -> Batch {
        fn take<T>(a: &mut Vec<T>, until: i64, time: fn(&T) -> i64) -> Vec<T> {
            let n = a.partition_point(|x| time(x) <= until);
            if n == a.len() {
                return std::mem::take(a);
            }
            a.drain(..n).collect()
        }
        match self {
            Batch::Points(p) => Batch::Points(take(p, until, |t| t.ts)),
            Batch::Events(e) => Batch::Events(take(e, until, |e| e.time)),
        }
    }

    /// The names of the events of the time points from the `skip`-th, each with its
    /// time point's place in the batch: predicates for time points; for events, the inputs
    /// that have a value.
    pub fn names<'a>(
        &'a self,
        skip: usize,
        inputs: &'a [String],
        interner: &'a Interner,
    ) -> Box<dyn Iterator<Item = (usize, &'a str)> + 'a> {
        match self {
            Batch::Points(p) => {
                Box::new(p.iter().enumerate().skip(skip).flat_map(move |(k, tp)| {
                    tp.events.iter().map(move |e| (k, interner.resolve(e.name)))
                }))
            }
            Batch::Events(e) => {
                Box::new(e.iter().enumerate().skip(skip).flat_map(move |(k, ev)| {
                    ev.values
                        .iter()
                        .zip(inputs)
                        .filter(|(v, _)| v.is_some())
                        .map(move |(_, name)| (k, name.as_str()))
                }))
            }
        }
    }

    /// Removes the events named in `names` from the `k`-th time point; the names removed.
    pub fn drop_events(&mut self, k: usize, names: &[String], interner: &Interner) -> Vec<String> {
        let Batch::Points(points) = self else {
            return Vec::new();
        };
        let tp = &mut points[k];
        let mut dropped: Vec<String> = Vec::new();
        tp.events.retain(|e| {
            let name = interner.resolve(e.name);
            let drop = names.iter().any(|n| n == name);
            if drop && !dropped.iter().any(|d| d == name) {
                dropped.push(name.to_string());
            }
            !drop
        });
        dropped
    }
}

impl Spec {
    /// The monitor of a new stream (its strings in `interner`).
    pub fn engine(&self, interner: &mut Interner) -> Result<Engine, Error> {
        let (lang, sig) = (self.lang.as_deref(), self.sig.clone());
        let (_, m) = any_monitor(&self.name, &self.text, lang, sig, interner, None)?;
        Ok(Engine(m))
    }
}

impl Engine {
    /// Reads `body` for this engine; `first` is the stream's number of its first time point
    /// (the time of an event or a JSON line without one: its place in the stream, in
    /// seconds, as in a file).
    pub fn parse(
        &self,
        spec: &Spec,
        format: Format,
        body: &[u8],
        interner: &mut Interner,
        first: u64,
    ) -> Result<Batch, Error> {
        let input = Box::new(std::io::Cursor::new(body));
        match &self.0 {
            AnyMonitor::Points(_) => {
                let options = TraceOptions {
                    sig: spec.sig.clone(),
                    time_field: None,
                };
                let f = match format {
                    Format::Monpoly => TraceFormat::Monpoly,
                    Format::Jsonl => TraceFormat::Jsonl,
                };
                let mut reader = open_reader(f, input, "<batch>", options)?;
                // (The reader reads into the stream's interner, lent for the batch; a refused
                // batch may leave a few strings there: unused, harmless.)
                std::mem::swap(reader.interner_mut(), interner);
                let mut points = Vec::new();
                let mut tp = TimePoint::default();
                let read = loop {
                    match reader.next_time_point(&mut tp) {
                        // (Moved out, not copied: the reader refills a new one.)
                        Ok(true) => points.push(std::mem::take(&mut tp)),
                        Ok(false) => break Ok(()),
                        Err(e) => break Err(e),
                    }
                };
                std::mem::swap(reader.interner_mut(), interner);
                read?;
                if reader.positions_as_timestamps() {
                    for (k, tp) in points.iter_mut().enumerate() {
                        tp.ts = (first + k as u64) as i64;
                    }
                }
                Ok(Batch::Points(points))
            }
            AnyMonitor::Events { inputs, .. } => {
                if format != Format::Jsonl {
                    return Err(Error::msg(
                        "a stream or signal specification takes events as JSON Lines \
                         (content type application/x-ndjson), one object per time point",
                    ));
                }
                let mut source = JsonlEvents::new(input, "<batch>", inputs, None);
                let mut events = Vec::new();
                let mut ev = Event::default();
                while source.next_event(&mut ev)? {
                    events.push(std::mem::take(&mut ev));
                }
                if source.positions_as_times() {
                    for (k, ev) in events.iter_mut().enumerate() {
                        ev.time = ((first + k as u64) as i64).saturating_mul(1_000_000_000);
                    }
                }
                Ok(Batch::Events(events))
            }
        }
    }

    /// Monitors the batch's time points in `range`, numbered from `first`.
    pub fn feed(
        &mut self,
        batch: &mut Batch,
        range: std::ops::Range<usize>,
        first: u64,
        interner: &mut Interner,
        sink: &mut dyn Sink,
    ) -> Result<(), Error> {
        match (&mut self.0, batch) {
            (AnyMonitor::Points(m), Batch::Points(points)) => {
                let points = &mut points[range];
                for (k, tp) in points.iter_mut().enumerate() {
                    tp.index = first + k as u64;
                }
                m.feed(points, interner, sink)
            }
            (AnyMonitor::Events { monitor, .. }, Batch::Events(events)) => {
                monitor.feed(&events[range], interner, sink)
            }
            _ => Err(Error::msg("a batch read for another engine")),
        }
    }

    /// The names of the inputs of an engine fed events (none for time points).
    pub fn input_names(&self) -> Vec<String> {
        match &self.0 {
            AnyMonitor::Points(_) => Vec::new(),
            AnyMonitor::Events { inputs, .. } => inputs.iter().map(|i| i.0.clone()).collect(),
        }
    }

    /// `--max-lateness` (in the trace's time unit) in the unit of this engine's batches'
    /// times: time stamps for time points, which are integers; nanoseconds for events,
    /// whose times are seconds.
    pub fn lateness(&self, given: f64) -> Result<i64, Error> {
        let bad = |what: &str| Error::msg(format!("--max-lateness {given}: expected {what}"));
        if !given.is_finite() || given < 0.0 {
            return Err(bad("a number of time units, 0 or more"));
        }
        match self.0 {
            AnyMonitor::Points(_) if given.fract() != 0.0 => Err(bad(
                "a whole number: the time stamps of time points are integers",
            )),
            AnyMonitor::Points(_) => Ok(given.min(i64::MAX as f64) as i64),
            AnyMonitor::Events { .. } => Ok((given * 1e9).round().min(i64::MAX as f64) as i64),
        }
    }

    /// Whether it decides each time point as it is fed (what `--enforce` needs).
    pub fn decides_at_once(&self) -> bool {
        self.0.decides_at_once()
    }

    /// Whether it is fed time points (events with names), not a value per input.
    pub fn takes_points(&self) -> bool {
        matches!(self.0, AnyMonitor::Points(_))
    }

    /// The engine's state; an error for an engine that has none.
    pub fn snapshot(&self) -> Result<Vec<u8>, Error> {
        self.0.snapshot()
    }

    pub fn restore(&mut self, state: &[u8]) -> Result<(), Error> {
        self.0.restore(state)
    }

    pub fn finish(&mut self, interner: &mut Interner, sink: &mut dyn Sink) -> Result<(), Error> {
        self.0.finish(interner, sink)
    }
}
