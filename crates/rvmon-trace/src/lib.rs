//! Trace readers. Each reader turns bytes into [`TimePoint`]s one at a time, reusing the caller's
//! `TimePoint`, so memory does not grow with the length of the trace and a live stream is read
//! only as far as the current time point.

pub mod csrv_csv;
mod event;
pub mod events;
pub mod json;
pub mod monpoly;
pub mod r2u2;
pub mod signal;
mod simple_line;
pub mod xml;

use std::io::BufRead;
use std::path::Path;

use rvmon_core::{Error, Interner, TimePoint};

pub use csrv_csv::CsrvCsvReader;
pub use event::type_value;
pub use json::JsonReader;
pub use monpoly::{MonpolyLogReader, StateCommand};
/// The signature vocabulary lives in rvmon-core (engines type their formulas by it without
/// depending on the readers); re-exported for the readers' users.
pub use rvmon_core::sig::{self, PredDecl, Signature, Type};
pub use signal::SignalCsvReader;
pub use xml::XmlReader;

/// The trace formats rvmon reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TraceFormat {
    /// MonPoly's log format (`@ts p(1,2) q()`), several events per time point.
    Monpoly,
    /// CSRV CSV (`name, field = value, …`), or signal CSV when the header names a `time` column.
    Csv,
    /// CSRV CSV, forced.
    CsrvCsv,
    /// Signal CSV (`time,x,y`), forced.
    Signal,
    /// JSON: a stream or an array of event objects.
    Json,
    /// JSON Lines: one event object per line.
    Jsonl,
    /// CSRV XML.
    Xml,
}

impl TraceFormat {
    pub const NAMES: &'static [&'static str] = &[
        "monpoly", "csv", "csrv-csv", "signal", "json", "jsonl", "xml",
    ];

    pub fn from_path(path: &Path) -> Option<TraceFormat> {
        Some(match path.extension()?.to_str()? {
            "log" => TraceFormat::Monpoly,
            "csv" => TraceFormat::Csv,
            "json" => TraceFormat::Json,
            "jsonl" | "ndjson" => TraceFormat::Jsonl,
            "xml" => TraceFormat::Xml,
            _ => return None,
        })
    }
}

impl std::str::FromStr for TraceFormat {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        Ok(match s {
            "monpoly" | "log" => TraceFormat::Monpoly,
            "csv" => TraceFormat::Csv,
            "csrv-csv" => TraceFormat::CsrvCsv,
            "signal" => TraceFormat::Signal,
            "json" => TraceFormat::Json,
            "jsonl" => TraceFormat::Jsonl,
            "xml" => TraceFormat::Xml,
            _ => {
                return Err(format!(
                    "unknown trace format `{s}`; expected one of {}",
                    TraceFormat::NAMES.join(", ")
                ))
            }
        })
    }
}

/// Options that apply across formats.
#[derive(Clone, Debug, Default)]
pub struct TraceOptions {
    /// MonPoly signature (MonPoly logs).
    pub sig: Option<Signature>,
    /// Field holding the timestamp (CSRV formats, JSON, signal CSV); by default a field named
    /// `time`, `ts` or `timestamp` ([`rvmon_core::TIME_FIELDS`]), else the event's position.
    pub time_field: Option<String>,
}

/// Opens a reader for `format`. For `Csv`, the first line decides: a header with a time
/// column (`time`, `ts`, `timestamp`, or the `--time-field` column) and no `=` is a signal
/// CSV, anything else CSRV.
pub fn open_reader<'a>(
    format: TraceFormat,
    mut src: Box<dyn BufRead + 'a>,
    name: &str,
    options: TraceOptions,
) -> Result<Box<dyn TraceReader + 'a>, Error> {
    Ok(match format {
        TraceFormat::Monpoly => Box::new(MonpolyLogReader::new(src, name, options.sig)),
        TraceFormat::Csv => {
            let head = src
                .fill_buf()
                .map_err(|e| Error::msg(format!("{name}: cannot read: {e}")))?;
            let first_line = head.split(|&b| b == b'\n').next().unwrap_or(&[]);
            let first_line = String::from_utf8_lossy(first_line);
            let is_time = |c: &str| match options.time_field.as_deref() {
                Some(t) => c == t,
                None => rvmon_core::is_time_field(c),
            };
            let is_signal =
                !first_line.contains('=') && first_line.split(',').any(|c| is_time(c.trim()));
            let f = if is_signal {
                TraceFormat::Signal
            } else {
                TraceFormat::CsrvCsv
            };
            return open_reader(f, src, name, options);
        }
        TraceFormat::CsrvCsv => Box::new(CsrvCsvReader::new(src, name, options.time_field)),
        TraceFormat::Signal => Box::new(SignalCsvReader::new(src, name, options.time_field)?),
        TraceFormat::Json => Box::new(JsonReader::new(src, name, false, options.time_field)),
        TraceFormat::Jsonl => Box::new(JsonReader::new(src, name, true, options.time_field)),
        TraceFormat::Xml => Box::new(XmlReader::new(src, name, options.time_field)),
    })
}

/// A source of time points.
pub trait TraceReader {
    /// Refills `tp` with the next time point; returns `Ok(false)` at the end of the trace.
    fn next_time_point(&mut self, tp: &mut TimePoint) -> Result<bool, Error>;
    /// The interner that event names and string values of this trace are interned in.
    fn interner(&self) -> &Interner;
    fn interner_mut(&mut self) -> &mut Interner;
    /// Whether the next time point is already in the reader's buffer, so that reading it
    /// cannot wait for input. An online monitor that is behind its input gives the engine
    /// the time points so buffered as one batch, and writes its verdicts whenever this is
    /// false (before the read that may wait). False when a reader cannot tell, and unless
    /// [`TraceReader::watch_input`] was called.
    fn input_pending(&self) -> bool {
        false
    }
    /// Makes the reader tell [`TraceReader::input_pending`], which costs a look at the
    /// buffer per time point (so offline runs do not ask).
    fn watch_input(&mut self) {}
    /// Makes a reader of named fields (CSRV CSV, JSON, XML) give their names
    /// ([`rvmon_core::TimePoint::fields`]), for properties that bind fields by name; `false`
    /// from a reader whose events have no field names (MonPoly's logs, signals). (Off by
    /// default: naming costs the CSV reader about a tenth of its time.)
    fn name_fields(&mut self) -> bool {
        false
    }
    /// Whether the timestamps are the events' positions, because the trace's events have no
    /// time field (known once the first time point is read): a run says so, once.
    fn positions_as_timestamps(&self) -> bool {
        false
    }
}
