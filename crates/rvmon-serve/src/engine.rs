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

/// A batch, read for its engine.
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

    /// Monitors the batch's time points from the `skip`-th, numbered from `offset`.
    pub fn feed(
        &mut self,
        batch: &mut Batch,
        skip: usize,
        offset: u64,
        interner: &mut Interner,
        sink: &mut dyn Sink,
    ) -> Result<(), Error> {
        match (&mut self.0, batch) {
            (AnyMonitor::Points(m), Batch::Points(points)) => {
                let points = &mut points[skip..];
                for (k, tp) in points.iter_mut().enumerate() {
                    tp.index = offset + k as u64;
                }
                m.feed(points, interner, sink)
            }
            (AnyMonitor::Events { monitor, .. }, Batch::Events(events)) => {
                monitor.feed(&events[skip..], interner, sink)
            }
            _ => Err(Error::msg("a batch read for another engine")),
        }
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
