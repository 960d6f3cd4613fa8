//! What the CSRV-style readers share: turning one `name, field = value, …` event into a time
//! point (one event per time point), typing values and taking the timestamp from a field.

use std::io::BufRead;

use rvmon_core::{Error, Interner, SourcePos, TimePoint, Timestamp, Value};

/// Types a raw value: integer, then float, then string (so `7`, `"7"` and `<value>7</value>`
/// decode alike). `inf`/`NaN` stay strings: only decimal notation counts as a number.
pub fn type_value(raw: &str, interner: &mut Interner) -> Value {
    let t = raw.trim();
    let numeric = !t.is_empty()
        && t.bytes()
            .all(|b| b.is_ascii_digit() || matches!(b, b'+' | b'-' | b'.' | b'e' | b'E'))
        && t.bytes().any(|b| b.is_ascii_digit());
    if numeric {
        if let Ok(i) = t.parse::<i64>() {
            return Value::Int(i);
        }
        if let Ok(f) = t.parse::<f64>() {
            return Value::Float(f);
        }
    }
    match t {
        "true" => Value::Bool(true),
        "false" => Value::Bool(false),
        _ => Value::Str(interner.intern(raw)),
    }
}

/// Where the events' timestamps come from.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
enum TimeSource {
    /// `--time-field NAME`: that field, which every event must have.
    Named(String),
    /// Not known before the first event: a field named as [`rvmon_core::is_time_field`]
    /// says there makes the trace timed, none makes it untimed.
    #[default]
    Undecided,
    /// The first event had this time field: every event must have one.
    Found(String),
    /// The first event had no time field: an event's position is its timestamp.
    Positions,
}

/// Builds one-event time points, numbering them and checking timestamps.
#[derive(Debug, Default)]
pub struct EventAssembler {
    time: TimeSource,
    next_index: u64,
    last_ts: Option<Timestamp>,
    values: Vec<Value>,
    /// Whether fields are named in the time points ([`EventAssembler::name_fields`]).
    naming: bool,
    /// The fields' names, for properties that bind fields by name.
    names: Vec<rvmon_core::Sym>,
    /// The names of the last event's fields by place, interned: the next event's are most
    /// often the same, and a comparison is cheaper than a lookup. (PERF: in one run of the
    /// reader benchmark, interning every name made the CSRV CSV reader about a third slower
    /// and JSON Lines a sixth; with this cache, about a tenth and a twentieth.)
    last_names: Vec<(String, rvmon_core::Sym)>,
    /// The current event's timestamp, and the name of the field it came from (a buffer
    /// reused from event to event).
    ts: Option<Timestamp>,
    ts_field: String,
}

impl EventAssembler {
    /// `time_field`: the field that holds each event's timestamp (`--time-field`); by default
    /// a field named `time`, `ts` or `timestamp`, or else the event's position.
    pub fn new(time_field: Option<String>) -> Self {
        EventAssembler {
            time: time_field.map_or(TimeSource::Undecided, TimeSource::Named),
            ..Default::default()
        }
    }

    /// Names the fields of the time points built from now on ([`TimePoint::fields`]).
    pub fn name_fields(&mut self) {
        self.naming = true;
    }

    /// Whether a field called `name` holds the event's time (and is no argument of it).
    pub fn is_time_field(&self, name: &str) -> bool {
        match &self.time {
            TimeSource::Named(f) => f == name,
            _ => rvmon_core::is_time_field(name),
        }
    }

    /// Whether the events' positions are their timestamps: the first event had no time field
    /// (false before it is read).
    pub fn positions_as_timestamps(&self) -> bool {
        self.time == TimeSource::Positions
    }

    pub fn begin(&mut self, tp: &mut TimePoint) {
        tp.clear();
        self.values.clear();
        self.names.clear();
        self.ts = None;
    }

    /// Adds a field; `pos` locates it for errors. The time field sets the timestamp and is no
    /// argument of the event.
    pub fn field(
        &mut self,
        name: &str,
        raw: &str,
        interner: &mut Interner,
        pos: impl Fn() -> SourcePos,
    ) -> Result<(), Error> {
        if self.is_time_field(name) {
            return self.time(name, raw, pos);
        }
        self.values.push(type_value(raw, interner));
        if !self.naming {
            return Ok(());
        }
        let k = self.names.len();
        let sym = match self.last_names.get(k) {
            Some((last, sym)) if last == name => *sym,
            _ => {
                let sym = interner.intern_name(name);
                self.last_names.truncate(k);
                self.last_names.push((name.to_string(), sym));
                sym
            }
        };
        self.names.push(sym);
        Ok(())
    }

    /// The event's time field `name`.
    fn time(&mut self, name: &str, raw: &str, pos: impl Fn() -> SourcePos) -> Result<(), Error> {
        if self.ts.is_some() {
            return Err(Error::at(
                pos(),
                format!(
                    "two time fields in one event, `{}` and `{name}`; --time-field names the one that holds the time",
                    self.ts_field
                ),
            ));
        }
        if self.time == TimeSource::Positions {
            // Taking it as an argument here would give this event one argument more than
            // the same event without it; taking it as the time would mix two clocks.
            return Err(Error::at(
                pos(),
                format!(
                    "this event has a time field `{name}`, but the trace's first event had none, so event positions are the timestamps; give every event its time, or none (or name another time field with --time-field)"
                ),
            ));
        }
        let ts = raw.trim().parse::<Timestamp>().ok().filter(|t| *t >= 0).ok_or_else(|| {
            Error::at(pos(), format!("expected a non-negative integer timestamp in field `{name}`, found `{raw}`"))
        })?;
        if let Some(last) = self.last_ts {
            if ts < last {
                return Err(Error::at(
                    pos(),
                    format!("timestamps must not decrease: {ts} comes after {last}"),
                ));
            }
        }
        self.ts = Some(ts);
        self.ts_field.clear();
        self.ts_field.push_str(name);
        Ok(())
    }

    /// Completes the time point with event `name`; `pos` locates the event for errors.
    pub fn finish(
        &mut self,
        name: &str,
        tp: &mut TimePoint,
        interner: &mut Interner,
        pos: impl Fn() -> SourcePos,
    ) -> Result<(), Error> {
        let ts = match (&self.time, self.ts) {
            (TimeSource::Named(f) | TimeSource::Found(f), None) => {
                return Err(Error::at(
                    pos(),
                    format!("event `{name}` has no timestamp field `{f}`"),
                ))
            }
            (TimeSource::Undecided, Some(ts)) => {
                self.time = TimeSource::Found(self.ts_field.clone());
                ts
            }
            (TimeSource::Undecided, None) => {
                self.time = TimeSource::Positions;
                self.next_index as Timestamp
            }
            (_, Some(ts)) => ts,
            (TimeSource::Positions, None) => self.next_index as Timestamp,
        };
        self.last_ts = Some(ts);
        tp.index = self.next_index;
        tp.ts = ts;
        self.next_index += 1;
        let sym = interner.intern_name(name);
        if self.naming {
            tp.push_named_event(sym, &self.values, &self.names);
        } else {
            tp.push_event(sym, &self.values);
        }
        Ok(())
    }
}

/// Reads the next line that is not blank into `line` (without its line ending), counting lines
/// in `line_no` and dropping a leading byte-order mark; returns `false` at the end of the input.
/// A line that is not UTF-8 is an error at its bad byte.
pub(crate) fn read_content_line(
    src: &mut dyn BufRead,
    line: &mut String,
    line_no: &mut usize,
    file: &str,
) -> Result<bool, Error> {
    loop {
        let n = rvmon_core::text::read_line(src, line, file, *line_no + 1)?;
        if n == 0 {
            return Ok(false);
        }
        *line_no += 1;
        if *line_no == 1 && line.starts_with('\u{feff}') {
            line.drain(..3);
        }
        let content_len = line.trim_end_matches(['\n', '\r']).len();
        line.truncate(content_len);
        if !line.trim().is_empty() {
            return Ok(true);
        }
    }
}

/// The position of byte `byte` of line `line_no`, `line` (columns count characters).
pub(crate) fn pos_in(file: &str, line_no: usize, line: &str, byte: usize) -> SourcePos {
    rvmon_core::text::position_at(file, line.as_bytes(), line_no, byte)
}
