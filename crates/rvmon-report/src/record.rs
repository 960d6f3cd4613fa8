//! What a report records of a run, and how: [`Reported`] wraps the run's monitor, records
//! each input it is fed ([`Recorded`]) and each decision on its way to the sink, and feeds the
//! same inputs to companion monitors (an STL formula's subformulas) whose decisions only the
//! report sees. Everything is summarised as it arrives ([`Downsampler`]), so the memory a
//! report takes does not grow with the trace.

use rvmon_core::event::{Event, Val};
use rvmon_core::{
    text, Decision, Description, Error, Interner, Kind, Monitor, Payload, Sink, Sym, TimePoint,
};

use crate::downsample::{Downsampler, DEFAULT_BUCKETS};

/// The decisions listed one by one in the report (the first ones; the rest are counted).
pub const LISTED: usize = 50;
/// Output streams whose values the report draws (stream specifications with `--values`).
pub const STREAMS: usize = 12;
/// Characters of a listed decision's text, or a subformula's title, kept.
const TEXT_CHARS: usize = 300;

/// What the report says about the specification and the run, besides what it records.
#[derive(Clone, Debug, Default)]
pub struct Meta {
    /// The specification's file.
    pub spec: String,
    /// Its language, in words (`signal temporal logic (.stl, rtamt's syntax)`).
    pub language: String,
    /// Its text (the formula).
    pub text: String,
    /// The trace (`<stdin>` for standard input).
    pub trace: String,
    /// The names of the inputs of an event (a stream or signal specification's inputs, in
    /// the order of [`Event::values`]).
    pub inputs: Vec<String>,
    /// The engine, as the monitor describes itself (filled in by [`Reported::new`]).
    pub engine: String,
    /// Notes to show (subformulas left out, say).
    pub notes: Vec<String>,
}

/// An input the report records: a time point (its events counted) or an event (its values
/// drawn, one series per input).
pub trait Recorded {
    /// Whether times are nanoseconds (events) rather than the trace's own unit.
    const NANOS: bool;
    /// What one input is called (`sample`, `time point`).
    const NAME: &'static str;
    /// Records it at position `pos` (its index if it has one, else the number of inputs
    /// before it).
    fn record(&self, pos: u64, inputs: &mut Inputs);
    /// Its own index, if it carries one.
    fn index(&self) -> Option<u64> {
        None
    }
}

impl Recorded for TimePoint {
    const NANOS: bool = false;
    const NAME: &'static str = "time point";
    fn record(&self, pos: u64, inputs: &mut Inputs) {
        inputs.clock.push(pos, self.ts, self.events.len() as f64);
    }
    fn index(&self) -> Option<u64> {
        Some(self.index)
    }
}

impl Recorded for Event {
    const NANOS: bool = true;
    const NAME: &'static str = "sample";
    fn record(&self, pos: u64, inputs: &mut Inputs) {
        inputs.clock.push(pos, self.time, 1.0);
        for (k, v) in self.values.iter().enumerate() {
            let x = match v {
                Some(Val::Float(x)) => *x,
                Some(Val::Int(i)) => *i as f64,
                Some(Val::UInt(u)) => *u as f64,
                Some(Val::Bool(b)) => f64::from(u8::from(*b)),
                Some(Val::Str(_)) | None => continue,
            };
            if let Some(s) = inputs.series.get_mut(k) {
                s.push(pos, self.time, x);
            }
        }
    }
}

/// The inputs as recorded: when each came (and, for time points, how many events each had),
/// and each named input's values.
#[derive(Clone, Debug)]
pub struct Inputs {
    /// Per position: its time; the value is the number of events there.
    pub clock: Downsampler,
    /// Per input of an event: its numeric values (none for strings).
    pub series: Vec<Downsampler>,
}

/// A series the report draws with its title: a subformula's robustness, or a stream's values.
#[derive(Clone, Debug)]
pub struct Titled {
    pub title: String,
    pub series: Downsampler,
    /// Why its monitor stopped early, if it did.
    pub failed: Option<String>,
}

/// One decision listed in the report.
#[derive(Clone, Debug, PartialEq)]
pub struct Listed {
    pub tp: u64,
    pub ts: i64,
    pub kind: Kind,
    /// Its data, as text (values, binding, message, robustness).
    pub text: String,
}

/// Everything a report shows, recorded in memory that does not grow with the trace.
#[derive(Clone, Debug)]
pub struct Report {
    pub meta: Meta,
    /// Whether times are nanoseconds (see [`Recorded::NANOS`]).
    pub nanos: bool,
    /// What an input is called (see [`Recorded::NAME`]).
    pub input_name: &'static str,
    pub inputs: Inputs,
    /// Inputs fed to the monitor.
    pub read: u64,
    /// Inputs the run loop left out, as the monitor allowed (they cannot change a decision:
    /// MonPoly's filter of time points without an event of the formula's predicates).
    pub skipped: u64,
    /// The robustness the monitor decided (STL).
    pub robustness: Downsampler,
    /// Per [`Kind`] (in the order of [`KINDS`]): where decisions of that kind are (value 1).
    pub verdicts: Vec<Downsampler>,
    /// Per [`Kind`]: how many.
    pub counts: Vec<u64>,
    /// The first violations, triggers and inconclusive verdicts (the rest are counted).
    pub listed: Vec<Listed>,
    /// Subformulas' robustness, from the companion monitors.
    pub subformulas: Vec<Titled>,
    /// Output streams' numeric values (stream specifications with `--values`).
    pub streams: Vec<Titled>,
    /// Why the run stopped early (a bad input, say), if it did.
    pub stopped: Option<String>,
}

/// The kinds of decisions, in the order of [`Report::verdicts`] and [`Report::counts`].
pub const KINDS: [Kind; 5] = [
    Kind::Violation,
    Kind::Trigger,
    Kind::Inconclusive,
    Kind::Satisfied,
    Kind::Value,
];

fn kind_index(k: Kind) -> usize {
    KINDS.iter().position(|&x| x == k).unwrap_or(0)
}

impl Report {
    /// An empty report of a run fed `In`s, whose subformulas are titled `subformulas`.
    pub fn new<In: Recorded>(meta: Meta, subformulas: Vec<String>) -> Report {
        let series = || Downsampler::new(DEFAULT_BUCKETS);
        Report {
            inputs: Inputs {
                clock: series(),
                series: meta.inputs.iter().map(|_| series()).collect(),
            },
            meta,
            nanos: In::NANOS,
            input_name: In::NAME,
            read: 0,
            skipped: 0,
            robustness: series(),
            verdicts: KINDS.iter().map(|_| series()).collect(),
            counts: vec![0; KINDS.len()],
            listed: Vec::new(),
            subformulas: subformulas
                .into_iter()
                .map(|title| Titled {
                    title: clip(&title),
                    series: series(),
                    failed: None,
                })
                .collect(),
            streams: Vec::new(),
            stopped: None,
        }
    }

    /// How many decisions of kind `k` there were.
    pub fn count(&self, k: Kind) -> u64 {
        self.counts[kind_index(k)]
    }

    /// Where the decisions of kind `k` are.
    pub fn verdicts_of(&self, k: Kind) -> &Downsampler {
        &self.verdicts[kind_index(k)]
    }

    /// Records an input (in the order fed).
    pub fn input<In: Recorded>(&mut self, item: &In) {
        let pos = item.index().unwrap_or(self.read);
        item.record(pos, &mut self.inputs);
        self.read += 1;
    }

    /// Records a decision of the monitor.
    pub fn decision(&mut self, d: &Decision<'_>, interner: &Interner) {
        if let Payload::Bounds { .. } = d.payload {
            return; // provisional (`--intervals`): the page draws the robustness decided
        }
        let k = kind_index(d.kind);
        self.counts[k] += 1;
        self.verdicts[k].push(d.tp, d.ts, 1.0);
        match d.payload {
            Payload::Robustness(r) => self.robustness.push(d.tp, d.ts, r),
            Payload::Value { stream, text, .. } => self.stream_value(d, stream, text),
            _ => {}
        }
        let listed = matches!(d.kind, Kind::Violation | Kind::Trigger | Kind::Inconclusive);
        if listed && self.listed.len() < LISTED {
            self.listed.push(Listed {
                tp: d.tp,
                ts: d.ts,
                kind: d.kind,
                text: clip(&payload_text(&d.payload, interner)),
            });
        }
    }

    fn stream_value(&mut self, d: &Decision<'_>, stream: &str, text: &str) {
        let v = match text {
            "true" => 1.0,
            "false" => 0.0,
            t => match t.parse::<f64>() {
                Ok(v) => v,
                Err(_) => return,
            },
        };
        let k = match self.streams.iter().position(|s| s.title == stream) {
            Some(k) => k,
            None if self.streams.len() < STREAMS => {
                self.streams.push(Titled {
                    title: clip(stream),
                    series: Downsampler::new(DEFAULT_BUCKETS),
                    failed: None,
                });
                self.streams.len() - 1
            }
            None => return,
        };
        self.streams[k].series.push(d.tp, d.ts, v);
    }
}

/// `s`, cut to [`TEXT_CHARS`] characters (with `…` where cut).
fn clip(s: &str) -> String {
    match s.char_indices().nth(TEXT_CHARS) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_string(),
    }
}

/// A decision's data as one line of text.
pub fn payload_text(p: &Payload<'_>, interner: &Interner) -> String {
    match *p {
        Payload::None => String::new(),
        Payload::Tuple { vars, values } => vars
            .iter()
            .zip(values)
            .map(|(n, v)| format!("{n}={}", text(v, interner)))
            .collect::<Vec<_>>()
            .join(", "),
        Payload::Binding {
            property,
            category,
            params,
            message,
        } => {
            let binding: Vec<String> = params
                .iter()
                .map(|(k, v)| format!("{k}={}", text(v, interner)))
                .collect();
            format!("{property} {category} ({}) {message}", binding.join(", "))
        }
        Payload::Trigger { index, message } => format!("#{index} {message}"),
        Payload::Value { stream, text, .. } => format!("{stream} = {text}"),
        Payload::Robustness(r) => format!("robustness {r}"),
        Payload::Bounds { lower, upper } => format!("robustness in [{lower}, {upper}]"),
        Payload::Mltl {
            formula,
            label,
            from,
        } => match label {
            Some(l) => format!("formula {formula} ({l}), from step {from}"),
            None => format!("formula {formula}, from step {from}"),
        },
        Payload::Transition {
            monitor,
            conjunct,
            text,
            from_tp,
            ..
        } => format!(
            "{monitor} monitor, conjunct {} `{text}`, from sample {from_tp}",
            conjunct + 1
        ),
        Payload::Timing { every, .. } => match every {
            Some(true) => "under every timing".into(),
            Some(false) => "under some timing".into(),
            None => "undetermined by timing".into(),
        },
    }
}

/// A monitor the report feeds the run's inputs besides the run's own (an STL formula's
/// subformula): its robustness (or values) become the series of [`Report::subformulas`]
/// with the same index.
pub struct Companion<In> {
    pub title: String,
    pub monitor: Box<dyn Monitor<In>>,
}

/// The run's monitor, with a report recording what it is fed and what it decides.
pub struct Reported<'a, In> {
    inner: &'a mut dyn Monitor<In>,
    report: Report,
    /// Inputs the monitor said may be left out ([`Monitor::may_skip`] is asked once per
    /// input, without `&mut`).
    skipped: std::cell::Cell<u64>,
    companions: Vec<Box<dyn Monitor<In>>>,
}

impl<'a, In: Recorded> Reported<'a, In> {
    /// Wraps `inner`; `companions` are fed the same inputs.
    pub fn new(
        inner: &'a mut dyn Monitor<In>,
        mut meta: Meta,
        companions: Vec<Companion<In>>,
    ) -> Reported<'a, In> {
        meta.engine = inner.describe().strategy;
        let (titles, monitors) = companions.into_iter().map(|c| (c.title, c.monitor)).unzip();
        Reported {
            inner,
            report: Report::new::<In>(meta, titles),
            skipped: std::cell::Cell::new(0),
            companions: monitors,
        }
    }

    /// What was recorded.
    pub fn into_report(mut self) -> Report {
        self.report.skipped = self.skipped.get();
        self.report
    }

    /// The companions' turn: the same inputs (or the end); a companion that fails stops, and
    /// the report says why (the run goes on: its output does not depend on them).
    fn companions(&mut self, batch: Option<&[In]>, interner: &mut Interner) {
        for (c, titled) in self.companions.iter_mut().zip(&mut self.report.subformulas) {
            if titled.failed.is_some() {
                continue;
            }
            let mut sink = SeriesSink(&mut titled.series);
            let done = match batch {
                Some(batch) => c.feed(batch, interner, &mut sink),
                None => c.finish(interner, &mut sink),
            };
            if let Err(e) = done {
                titled.failed = Some(e.to_string());
            }
        }
    }
}

/// A companion's sink: its robustness (or numeric values) into a series.
struct SeriesSink<'a>(&'a mut Downsampler);

impl Sink for SeriesSink<'_> {
    fn emit(&mut self, d: &Decision<'_>, _: &Interner) -> Result<(), Error> {
        let v = match d.payload {
            Payload::Robustness(r) => r,
            Payload::Value { text, .. } => text.parse().unwrap_or(f64::NAN),
            _ => return Ok(()),
        };
        self.0.push(d.tp, d.ts, v);
        Ok(())
    }
}

/// The run's sink, with the report recording each decision on its way.
struct Recording<'a> {
    sink: &'a mut dyn Sink,
    report: &'a mut Report,
}

impl Sink for Recording<'_> {
    fn emit(&mut self, d: &Decision<'_>, interner: &Interner) -> Result<(), Error> {
        self.report.decision(d, interner);
        self.sink.emit(d, interner)
    }
    fn end_batch(&mut self) -> Result<(), Error> {
        self.sink.end_batch()
    }
    fn flush(&mut self) -> Result<(), Error> {
        self.sink.flush()
    }
}

impl<In: Recorded> Monitor<In> for Reported<'_, In> {
    fn feed(
        &mut self,
        batch: &[In],
        interner: &mut Interner,
        sink: &mut dyn Sink,
    ) -> Result<(), Error> {
        for item in batch {
            self.report.input(item);
        }
        let mut recording = Recording {
            sink,
            report: &mut self.report,
        };
        let fed = self.inner.feed(batch, interner, &mut recording);
        self.companions(Some(batch), interner);
        fed
    }

    fn finish(&mut self, interner: &mut Interner, sink: &mut dyn Sink) -> Result<(), Error> {
        let mut recording = Recording {
            sink,
            report: &mut self.report,
        };
        let done = self.inner.finish(interner, &mut recording);
        self.companions(None, interner);
        done
    }

    fn snapshot(&self) -> Result<Vec<u8>, Error> {
        self.inner.snapshot()
    }
    fn restore(&mut self, state: &[u8]) -> Result<(), Error> {
        self.inner.restore(state)
    }
    fn describe(&self) -> Description {
        self.inner.describe()
    }
    fn batch_size(&self) -> usize {
        self.inner.batch_size()
    }
    fn decides_at_once(&self) -> bool {
        self.inner.decides_at_once()
    }
    fn may_skip(&self, tp: &In) -> bool {
        let skip = self.inner.may_skip(tp);
        self.skipped.set(self.skipped.get() + u64::from(skip));
        skip
    }
    /// The report holds no strings (it keeps decisions' data as text), and companions are
    /// fed only what the run's monitor is (an STL formula's, which hold none either).
    fn mark_strings(&self, mark: &mut dyn FnMut(Sym)) -> usize {
        self.inner.mark_strings(mark)
            + self
                .companions
                .iter()
                .map(|c| c.mark_strings(mark))
                .sum::<usize>()
    }
    fn take_warnings(&mut self) -> Vec<String> {
        self.inner.take_warnings()
    }
}
