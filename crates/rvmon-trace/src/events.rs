//! Events for stream specifications, one per CSV row or JSON Lines object.
//!
//! CSV: a header naming the input streams (other columns are ignored) and a time column, then
//! one event per row. A cell `#` (RTLola's marker) or an empty cell means the stream has no
//! value at that event. JSON Lines: one object per line, `{"time": 0.5, "a": 3}`; a missing
//! key or `null` means no value. Times are decimal seconds, read exactly into nanoseconds
//! (`0.1` is 100 ms, not the nearest float), and must not decrease.

use std::io::BufRead;

use rvmon_core::event::{Event, EventSource, Val, ValType as Type};
use rvmon_core::{Error, SourcePos};

/// Events from CSV, read as bytes: a line is found in a large buffer and split
/// in place, and numbers are parsed from the bytes, so a row costs no allocation. (Measured
/// on 1 M rows of `time,x,y`: about 20 ms to find and split the rows this way, 40–60 ms with
/// the `csv` crate's `ByteRecord`s; the whole run of a simple specification is about 100 ms.)
/// Rows with double quotes take a slower path that honours them.
pub struct CsvEvents<R> {
    reader: R,
    file: String,
    /// How the time column reads (rtlola-cli's `--offline` formats).
    mode: TimeMode,
    /// The previous row's time as written (offset modes add to it) and, for absolute
    /// times, the first row's (time zero).
    written: i64,
    start: Option<i64>,
    /// Number of the line last read.
    line: usize,
    /// Per column: the input it feeds.
    columns: Vec<Option<(usize, Type)>>,
    time_col: Option<usize>,
    n_inputs: usize,
    last_time: i64,
    rows: i64,
    /// Whether a time equal to the previous one is an error too (dense time).
    strict: bool,
    /// Bytes read and not yet consumed: `buf[pos..end]`.
    buf: Vec<u8>,
    pos: usize,
    end: usize,
    eof: bool,
    /// The current row (a range of `buf`) and its cells (relative to the row).
    row: (usize, usize),
    cells: Vec<(usize, usize)>,
}

const CHUNK: usize = 1 << 16;

/// How a trace's time column reads: rtlola-cli's `--offline` formats.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TimeMode {
    /// Whole nanoseconds (`…-nanos`), rather than seconds as a decimal (`…-secs`).
    pub nanos: bool,
    pub base: TimeBase,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TimeBase {
    /// The time since time zero (`relative-…`).
    #[default]
    Relative,
    /// The time since the previous row (`offset-…`).
    Offset,
    /// A wall-clock time in seconds since the Unix epoch; the first row is time zero
    /// (`absolute-unix`).
    Absolute,
}

impl TimeMode {
    /// rtlola-cli's name for a mode (`relative-secs`, `offset-nanos`, `absolute-unix`, …).
    pub fn named(name: &str) -> Option<TimeMode> {
        let (nanos, base) = match name {
            "relative" | "relative-secs" | "relative-float-secs" => (false, TimeBase::Relative),
            "relative-nanos" | "relative-uint-nanos" => (true, TimeBase::Relative),
            "offset" | "offset-secs" | "offset-float-secs" => (false, TimeBase::Offset),
            "offset-nanos" | "offset-uint-nanos" => (true, TimeBase::Offset),
            "absolute" | "absolute-unix" => (false, TimeBase::Absolute),
            _ => return None,
        };
        Some(TimeMode { nanos, base })
    }

    /// A time cell's value in nanoseconds, as written (before offsets and time zero).
    fn parse(self, text: &[u8]) -> Option<i64> {
        if self.nanos {
            std::str::from_utf8(text)
                .ok()?
                .parse::<u64>()
                .ok()
                .and_then(|n| i64::try_from(n).ok())
        } else {
            parse_seconds(text)
        }
    }

    /// What a time is expected to look like, for errors.
    fn expected(self) -> &'static str {
        if self.nanos {
            "a time in whole nanoseconds"
        } else {
            "a time in seconds (a decimal number)"
        }
    }
}

impl<R: BufRead> CsvEvents<R> {
    /// Reads the header. `time_field` names the time column; by default the first column
    /// called `time`, `ts` or `timestamp` (any case, [`rvmon_core::is_time_field`], as event
    /// traces). Without one, the row index is the time in seconds.
    pub fn new(
        mut reader: R,
        file: &str,
        inputs: &[(String, Type)],
        time_field: Option<&str>,
    ) -> Result<Self, Error> {
        let mut header = String::new();
        rvmon_core::text::read_line(&mut reader, &mut header, file, 1)?;
        let header = header.trim_start_matches('\u{feff}');
        // (R2U2's traces start their header with `#`: `# a0,a1`.)
        let header = header.strip_prefix('#').unwrap_or(header);
        let names: Vec<String> = split_cells(header.trim_end_matches(['\r', '\n']))
            .into_iter()
            .map(|(a, b)| unquote(header[a..b].trim()).to_string())
            .collect();
        let pos = |line: usize, col: usize| SourcePos {
            file: file.to_string(),
            line,
            col,
        };
        let time_col = match time_field {
            Some(t) => Some(names.iter().position(|n| n == t).ok_or_else(|| {
                Error::at(pos(1, 1), format!("the header has no time column `{t}`"))
            })?),
            None => names.iter().position(|n| rvmon_core::is_time_field(n)),
        };
        let mut columns = vec![None; names.len()];
        for (i, (name, ty)) in inputs.iter().enumerate() {
            let c = names.iter().position(|n| n == name).ok_or_else(|| {
                Error::at(
                    pos(1, 1),
                    format!(
                        "the header has no column for input stream `{name}` (columns: {})",
                        names.join(", ")
                    ),
                )
            })?;
            columns[c] = Some((i, *ty));
        }
        Ok(CsvEvents {
            mode: TimeMode::default(),
            written: 0,
            start: None,
            reader,
            file: file.to_string(),
            line: 1,
            columns,
            time_col,
            n_inputs: inputs.len(),
            last_time: i64::MIN,
            rows: 0,
            strict: false,
            buf: vec![0; CHUNK],
            pos: 0,
            end: 0,
            eof: false,
            row: (0, 0),
            cells: Vec::new(),
        })
    }

    /// Reads the time column as `mode` says.
    pub fn time_mode(mut self, mode: TimeMode) -> Self {
        self.mode = mode;
        self
    }

    /// With `yes`, a row whose time equals the previous row's is an error too (dense time,
    /// where each sample holds until the next one).
    pub fn strictly_increasing(mut self, yes: bool) -> Self {
        self.strict = yes;
        self
    }

    /// Finds the next line that is not blank (without its line break) in `row`, and its cells
    /// in `cells` (one pass over the bytes finds the line break, the commas and any double
    /// quote); `false` at the end. A line is returned as soon as its line break has been
    /// read, so rows from a pipe are handled as they come.
    fn next_row(&mut self) -> Result<bool, Error> {
        loop {
            let start = self.pos;
            let mut quoted = false;
            let mut cell_start = 0;
            self.cells.clear();
            let mut line_end = None;
            let bytes = &self.buf[start..self.end];
            // PERF: byte by byte, not with `memchr3`: cells are short (a number), and a
            // vector search per cell cost three times as much. The three bytes sought are
            // below every digit, `.`, `-` and letter, so most bytes take one comparison.
            for (i, &b) in bytes.iter().enumerate() {
                if b > b',' {
                    continue;
                }
                match b {
                    b',' => {
                        self.cells.push((cell_start, i));
                        cell_start = i + 1;
                    }
                    b'"' => quoted = true,
                    b'\n' => {
                        line_end = Some(i);
                        break;
                    }
                    _ => {}
                }
            }
            let end = match line_end {
                Some(n) => {
                    self.pos = start + n + 1;
                    start + n
                }
                None if self.eof => {
                    if start == self.end {
                        return Ok(false);
                    }
                    self.pos = self.end;
                    self.end
                }
                None => {
                    self.fill()?;
                    continue;
                }
            };
            self.line += 1;
            let end = if end > start && self.buf[end - 1] == b'\r' {
                end - 1
            } else {
                end
            };
            if self.buf[start..end].trim_ascii().is_empty() {
                continue;
            }
            // Cells are parsed from bytes; text that is not UTF-8 is refused where it is,
            // whichever column it is in. (PERF: ASCII, the common case, is checked a word at
            // a time.)
            if !self.buf[start..end].is_ascii() {
                rvmon_core::text::utf8(&self.file, self.line, &self.buf[start..end])?;
            }
            self.row = (start, end);
            if quoted {
                split_cells_into(&self.buf[start..end], &mut self.cells);
            } else {
                self.cells.push((cell_start, end - start));
            }
            return Ok(true);
        }
    }

    /// Reads more bytes after the unconsumed ones (moved to the front, the buffer grown if a
    /// line fills it).
    fn fill(&mut self) -> Result<(), Error> {
        if self.pos > 0 {
            self.buf.copy_within(self.pos..self.end, 0);
            self.end -= self.pos;
            self.pos = 0;
        }
        if self.end == self.buf.len() {
            self.buf.resize(self.buf.len() * 2, 0);
        }
        let n = loop {
            match self.reader.read(&mut self.buf[self.end..]) {
                Ok(n) => break n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(Error::msg(format!("{}: cannot read: {e}", self.file))),
            }
        };
        self.end += n;
        self.eof = n == 0;
        Ok(())
    }

    fn row_bytes(&self) -> &[u8] {
        &self.buf[self.row.0..self.row.1]
    }

    /// An error at byte `byte` of the current row.
    fn err(&self, byte: usize, msg: String) -> Error {
        let row = self.row_bytes();
        let col = String::from_utf8_lossy(&row[..byte.min(row.len())])
            .chars()
            .count()
            + 1;
        Error::at(
            SourcePos {
                file: self.file.clone(),
                line: self.line,
                col,
            },
            msg,
        )
    }

    /// Cell `c`'s bytes, trimmed and unquoted, and where they start in the row.
    fn cell(&self, c: usize) -> (&[u8], usize) {
        let (a, b) = self.cells[c];
        let raw = &self.row_bytes()[a..b];
        let lead = raw.len() - raw.trim_ascii_start().len();
        let t = raw.trim_ascii();
        let t = if t.len() >= 2 && t[0] == b'"' && t[t.len() - 1] == b'"' {
            &t[1..t.len() - 1]
        } else {
            t
        };
        (t, a + lead)
    }
}

impl<R: BufRead> EventSource for CsvEvents<R> {
    fn next_event(&mut self, ev: &mut Event) -> Result<bool, Error> {
        if !self.next_row()? {
            return Ok(false);
        }
        if self.cells.len() != self.columns.len() {
            let at = self.cells.last().map_or(0, |c| c.1);
            return Err(self.err(
                at,
                format!(
                    "expected {} cells as in the header, found {}",
                    self.columns.len(),
                    self.cells.len()
                ),
            ));
        }
        ev.values.clear();
        ev.values.resize(self.n_inputs, None);
        for c in 0..self.cells.len() {
            let Some((input, ty)) = self.columns[c] else {
                continue;
            };
            let (cell, at) = self.cell(c);
            if cell.is_empty() || cell == b"#" {
                continue;
            }
            let v = parse_value(ty, cell).ok_or_else(|| {
                self.err(
                    at,
                    format!(
                        "expected {} value or `#` (no value), found `{}`",
                        ty.a(),
                        String::from_utf8_lossy(cell)
                    ),
                )
            })?;
            ev.values[input] = Some(v);
        }
        let mut new_start = self.start;
        ev.time = match self.time_col {
            Some(c) => {
                let (text, at) = self.cell(c);
                let written = self.mode.parse(text).ok_or_else(|| {
                    self.err(
                        at,
                        format!(
                            "expected {}, found `{}`",
                            self.mode.expected(),
                            String::from_utf8_lossy(text)
                        ),
                    )
                })?;
                let mut start = self.start;
                let t = match self.mode.base {
                    TimeBase::Relative => written,
                    TimeBase::Offset => self.written.saturating_add(written),
                    TimeBase::Absolute => written.saturating_sub(*start.get_or_insert(written)),
                };
                new_start = start;
                if t < self.last_time {
                    return Err(self.err(
                        at,
                        format!(
                            "time {} is earlier than the previous event's",
                            String::from_utf8_lossy(text)
                        ),
                    ));
                }
                if self.strict && self.rows > 0 && t == self.last_time {
                    return Err(self.err(
                        at,
                        format!(
                            "time {} is the previous sample's too; dense time needs strictly \
                             increasing timestamps",
                            String::from_utf8_lossy(text)
                        ),
                    ));
                }
                t
            }
            None => self.rows.saturating_mul(1_000_000_000),
        };
        (self.last_time, self.written, self.start) = (ev.time, ev.time, new_start);
        self.rows += 1;
        Ok(true)
    }

    fn positions_as_times(&self) -> bool {
        self.time_col.is_none()
    }
}

/// A cell's value of type `ty`; floats in plain decimal notation are parsed here, the rest by
/// the standard library.
fn parse_value(ty: Type, cell: &[u8]) -> Option<Val> {
    if ty == Type::Float {
        if let Some(x) = parse_plain_decimal(cell) {
            return Some(Val::Float(x));
        }
    }
    Val::parse(ty, std::str::from_utf8(cell).ok()?)
}

/// `[+-]digits[.digits]` with at most 15 significant digits, correctly rounded: the digits
/// form an integer below 2^53 and the scale is a power of ten up to 10^22, both exact as
/// `f64`s, so one division rounds once (Clinger's fast path). `None` for anything else
/// (exponents, more digits, `inf`), which the standard parser then reads.
pub fn parse_plain_decimal(b: &[u8]) -> Option<f64> {
    const POW10: [f64; 23] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16,
        1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
    ];
    let (neg, digits) = match b.first()? {
        b'-' => (true, &b[1..]),
        b'+' => (false, &b[1..]),
        _ => (false, b),
    };
    // (At most 19 bytes: their digits cannot overflow `m`; the count is checked after.)
    if digits.is_empty() || digits.len() > 19 {
        return None;
    }
    let (mut m, mut frac, mut dot) = (0u64, 0usize, false);
    for &c in digits {
        let d = c.wrapping_sub(b'0');
        if d < 10 {
            m = m * 10 + u64::from(d);
            frac += usize::from(dot);
        } else if c == b'.' && !dot {
            dot = true;
        } else {
            return None;
        }
    }
    let n = digits.len() - usize::from(dot);
    if n == 0 || n > 15 {
        return None;
    }
    let x = m as f64 / POW10[frac];
    Some(if neg { -x } else { x })
}

/// Events from JSON Lines.
pub struct JsonlEvents<R> {
    reader: R,
    file: String,
    line: usize,
    inputs: Vec<(String, Type)>,
    /// The key that holds the time (`--time-field`); by default a key named as
    /// [`rvmon_core::is_time_field`] says.
    time_field: Option<String>,
    /// Whether lines have a time, as the first line decides (`None` before it).
    timed: Option<bool>,
    last_time: i64,
    rows: i64,
    /// Whether a time equal to the previous one is an error too.
    strict: bool,
    buf: String,
}

impl<R: BufRead> JsonlEvents<R> {
    /// `time_field` names the time key; by default `time`, `ts` or `timestamp` (any case),
    /// as the first line has it. Without one there, the line's index is the time in seconds
    /// (and a later line with a time key is an error: two clocks).
    pub fn new(reader: R, file: &str, inputs: &[(String, Type)], time_field: Option<&str>) -> Self {
        JsonlEvents {
            reader,
            file: file.to_string(),
            line: 0,
            inputs: inputs.to_vec(),
            time_field: time_field.map(str::to_string),
            timed: time_field.map(|_| true),
            last_time: i64::MIN,
            rows: 0,
            strict: false,
            buf: String::new(),
        }
    }

    /// With `yes`, a line whose time equals the previous line's is an error too (dense
    /// time, where each sample holds until the next one).
    pub fn strictly_increasing(mut self, yes: bool) -> Self {
        self.strict = yes;
        self
    }

    fn err(&self, msg: String) -> Error {
        Error::at(
            SourcePos {
                file: self.file.clone(),
                line: self.line,
                col: 1,
            },
            msg,
        )
    }
}

impl<R: BufRead> EventSource for JsonlEvents<R> {
    fn next_event(&mut self, ev: &mut Event) -> Result<bool, Error> {
        if !next_line(&mut self.reader, &mut self.buf, &mut self.line, &self.file)? {
            return Ok(false);
        }
        let obj: serde_json::Map<String, serde_json::Value> = serde_json::from_str(&self.buf)
            .map_err(|e| {
                Error::at(
                    SourcePos {
                        file: self.file.clone(),
                        line: self.line,
                        col: e.column().max(1),
                    },
                    format!("expected a JSON object with the inputs' values: {e}"),
                )
            })?;
        ev.values.clear();
        for (name, ty) in &self.inputs {
            let v = match obj.get(name) {
                None | Some(serde_json::Value::Null) => None,
                Some(j) => {
                    let text = match j {
                        serde_json::Value::String(s) if *ty == Type::Str => s.clone(),
                        serde_json::Value::Bool(b) if *ty == Type::Bool => b.to_string(),
                        serde_json::Value::Number(n)
                            if matches!(ty, Type::Int | Type::UInt | Type::Float) =>
                        {
                            n.to_string()
                        }
                        other => {
                            return Err(self.err(format!(
                                "`{name}`: expected {} value, found {other}",
                                ty.a()
                            )))
                        }
                    };
                    Some(Val::parse(*ty, &text).ok_or_else(|| {
                        self.err(format!("`{name}`: expected {} value, found {text}", ty.a()))
                    })?)
                }
            };
            ev.values.push(v);
        }
        let key = match &self.time_field {
            Some(k) => Some(k),
            None => {
                let mut keys = obj.keys().filter(|k| rvmon_core::is_time_field(k));
                let key = keys.next();
                if let (Some(a), Some(b)) = (key, keys.next()) {
                    return Err(self.err(format!(
                        "two time keys, `{a}` and `{b}`; --time-field names the one that holds the time"
                    )));
                }
                key
            }
        };
        let timed = *self.timed.get_or_insert(key.is_some());
        ev.time = match (timed, key) {
            (true, Some(k)) => match obj.get(k) {
                Some(serde_json::Value::Number(n)) => {
                    let text = n.to_string();
                    parse_seconds(text.as_bytes()).ok_or_else(|| {
                        self.err(format!("expected a time in seconds, found {text}"))
                    })?
                }
                _ => return Err(self.err(format!("expected a number of seconds in `{k}`"))),
            },
            (true, None) => {
                return Err(self.err(
                    "this line has no time (`time`, `ts` or `timestamp`), but the first line had one"
                        .into(),
                ))
            }
            (false, Some(k)) => {
                return Err(self.err(format!(
                    "this line has a time key `{k}`, but the first line had none, so line positions are the times; give every line its time, or none"
                )))
            }
            (false, None) => self.rows.saturating_mul(1_000_000_000),
        };
        if ev.time < self.last_time {
            return Err(self.err("time is earlier than the previous event's".into()));
        }
        if self.strict && self.rows > 0 && ev.time == self.last_time {
            return Err(self.err(
                "time is the previous sample's too; dense time needs strictly increasing \
                 timestamps"
                    .into(),
            ));
        }
        self.last_time = ev.time;
        self.rows += 1;
        Ok(true)
    }

    fn positions_as_times(&self) -> bool {
        self.timed == Some(false)
    }
}

/// Reads the next line that is not blank into `buf`, counting lines; `false` at the end. A
/// line that is not UTF-8 is an error at its bad byte.
fn next_line(
    reader: &mut impl BufRead,
    buf: &mut String,
    line: &mut usize,
    file: &str,
) -> Result<bool, Error> {
    loop {
        let n = rvmon_core::text::read_line(reader, buf, file, *line + 1)?;
        if n == 0 {
            return Ok(false);
        }
        *line += 1;
        if !buf.trim_ascii().is_empty() {
            return Ok(true);
        }
    }
}

/// Byte ranges of the comma-separated cells of `line` (commas inside double quotes do not
/// separate).
fn split_cells(line: &str) -> Vec<(usize, usize)> {
    let mut cells = Vec::new();
    split_cells_into(line.as_bytes(), &mut cells);
    cells
}

fn split_cells_into(line: &[u8], cells: &mut Vec<(usize, usize)>) {
    cells.clear();
    let mut start = 0;
    let mut quoted = false;
    for (i, &b) in line.iter().enumerate() {
        match b {
            b'"' => quoted = !quoted,
            b',' if !quoted => {
                cells.push((start, i));
                start = i + 1;
            }
            _ => {}
        }
    }
    cells.push((start, line.len()));
}

fn unquote(s: &str) -> &str {
    if s.len() >= 2 && s.starts_with('"') && s.ends_with('"') {
        &s[1..s.len() - 1]
    } else {
        s
    }
}

/// Decimal seconds to nanoseconds, exactly (at most 9 fractional digits). One pass over the
/// bytes: this runs once per event.
pub fn parse_seconds(b: &[u8]) -> Option<i64> {
    let (neg, mut i) = match b.first() {
        Some(b'-') => (true, 1),
        Some(b'+') => (false, 1),
        _ => (false, 0),
    };
    let (mut secs, mut digits) = (0i64, 0usize);
    while let Some(&c) = b.get(i).filter(|c| c.is_ascii_digit()) {
        secs = secs.checked_mul(10)?.checked_add(i64::from(c - b'0'))?;
        digits += 1;
        i += 1;
    }
    let (mut nanos, mut scale) = (0i64, 1_000_000_000i64);
    if b.get(i) == Some(&b'.') {
        i += 1;
        while let Some(&c) = b.get(i).filter(|c| c.is_ascii_digit()) {
            if scale == 1 {
                return None; // more than 9 fractional digits
            }
            scale /= 10;
            nanos += i64::from(c - b'0') * scale;
            digits += 1;
            i += 1;
        }
    }
    if i != b.len() || digits == 0 {
        return None;
    }
    let t = secs.checked_mul(1_000_000_000)?.checked_add(nanos)?;
    Some(if neg { -t } else { t })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seconds_are_exact() {
        assert_eq!(parse_seconds(b"0.30"), Some(300_000_000));
        assert_eq!(parse_seconds(b"24.7"), Some(24_700_000_000));
        assert_eq!(parse_seconds(b"0.000536"), Some(536_000));
        assert_eq!(parse_seconds(b"3"), Some(3_000_000_000));
        assert_eq!(parse_seconds(b"1e3"), None);
        assert_eq!(parse_seconds(b"0.0000000001"), None);
    }

    proptest::proptest! {
        /// The fast decimal parser agrees bit for bit with the standard one wherever it
        /// answers, and answers on the numbers traces are made of.
        #[test]
        fn plain_decimals_parse_as_the_standard_library_does(
            sign in proptest::sample::select(vec!["", "-", "+"]),
            int in "[0-9]{0,9}",
            frac in proptest::option::of("[0-9]{0,9}"),
        ) {
            let text = format!("{sign}{int}{}", frac.as_deref().map(|f| format!(".{f}")).unwrap_or_default());
            let std: Option<f64> = text.parse().ok();
            match parse_plain_decimal(text.as_bytes()) {
                Some(x) => proptest::prop_assert_eq!(Some(x.to_bits()), std.map(f64::to_bits), "{}", text),
                None => {
                    let digits = int.len() + frac.map_or(0, |f| f.len());
                    proptest::prop_assert!(digits == 0 || digits > 15, "{}", text);
                }
            }
        }

        #[test]
        fn any_text_parses_as_the_standard_library_does(text in "[-+0-9.eEinfa]{0,20}") {
            if let Some(x) = parse_plain_decimal(text.as_bytes()) {
                proptest::prop_assert_eq!(Some(x.to_bits()), text.parse::<f64>().ok().map(f64::to_bits), "{}", text);
            }
        }
    }

    #[test]
    fn rows_split_across_reads_and_quoted_cells() {
        // A reader that hands out one byte at a time: every row straddles reads.
        struct Trickle<'a>(&'a [u8]);
        impl std::io::Read for Trickle<'_> {
            fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
                let n = self.0.len().min(1).min(out.len());
                out[..n].copy_from_slice(&self.0[..n]);
                self.0 = &self.0[n..];
                Ok(n)
            }
        }
        let inputs = vec![("a".to_string(), Type::Float), ("s".to_string(), Type::Str)];
        let data = b"time,a,s\n0.5,1.25,\"x, y\"\n\n  \r\n1,-2,z";
        let reader = std::io::BufReader::with_capacity(1, Trickle(data));
        let mut r = CsvEvents::new(reader, "t.csv", &inputs, None).unwrap();
        let mut ev = Event::default();
        assert!(r.next_event(&mut ev).unwrap());
        assert_eq!(
            (ev.time, ev.values.clone()),
            (
                500_000_000,
                vec![Some(Val::Float(1.25)), Some(Val::Str("x, y".into()))]
            )
        );
        assert!(r.next_event(&mut ev).unwrap());
        assert_eq!(
            (ev.time, ev.values.clone()),
            (
                1_000_000_000,
                vec![Some(Val::Float(-2.0)), Some(Val::Str("z".into()))]
            )
        );
        assert!(!r.next_event(&mut ev).unwrap());
        assert_eq!(r.line, 5);
    }

    #[test]
    fn json_lines_with_missing_values() {
        let inputs = vec![("a".to_string(), Type::Int), ("s".to_string(), Type::Str)];
        let data = "{\"time\": 0.30, \"a\": 3}\n{\"ts\": 1, \"a\": null, \"s\": \"x\"}\n{\"time\": 2, \"a\": \"no\"}\n";
        let mut r = JsonlEvents::new(data.as_bytes(), "t.jsonl", &inputs, None);
        let mut ev = Event::default();
        assert!(r.next_event(&mut ev).unwrap());
        assert_eq!(
            (ev.time, ev.values.clone()),
            (300_000_000, vec![Some(Val::Int(3)), None])
        );
        assert!(r.next_event(&mut ev).unwrap());
        assert_eq!(
            (ev.time, ev.values.clone()),
            (1_000_000_000, vec![None, Some(Val::Str("x".into()))])
        );
        let e = r.next_event(&mut ev).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("t.jsonl:3:1: `a`: expected an Int64 value"),
            "{e}"
        );
    }

    /// Without a time key on the first line, line positions are the times (and the source
    /// says so); a later line with a time key is an error, not a second clock.
    #[test]
    fn json_lines_without_time_use_positions() {
        let inputs = vec![("a".to_string(), Type::Int)];
        let data = "{\"a\": 1}\n{\"a\": 2}\n{\"a\": 3, \"Time\": 5}\n";
        let mut r = JsonlEvents::new(data.as_bytes(), "t.jsonl", &inputs, None);
        let mut ev = Event::default();
        assert!(r.next_event(&mut ev).unwrap());
        assert!(r.positions_as_times());
        assert!(r.next_event(&mut ev).unwrap());
        assert_eq!(ev.time, 1_000_000_000);
        let e = r.next_event(&mut ev).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("t.jsonl:3:1: this line has a time key `Time`"),
            "{e}"
        );
        let csv = CsvEvents::new("a\n1\n".as_bytes(), "t.csv", &inputs, None).unwrap();
        assert!(csv.positions_as_times());
        let csv = CsvEvents::new("TS,a\n1,1\n".as_bytes(), "t.csv", &inputs, None).unwrap();
        assert!(!csv.positions_as_times());
    }

    #[test]
    fn rows_with_holes_and_errors_with_positions() {
        let inputs = vec![("a".to_string(), Type::Int), ("b".to_string(), Type::Int)];
        let data = "a,b,time\r\n#,#,0.000536\r\n3,#,0.100536\r\n1,x,0.2\r\n";
        let mut r = CsvEvents::new(data.as_bytes(), "t.csv", &inputs, None).unwrap();
        let mut ev = Event::default();
        assert!(r.next_event(&mut ev).unwrap());
        assert_eq!(ev.values, vec![None, None]);
        assert!(r.next_event(&mut ev).unwrap());
        assert_eq!(
            (ev.time, ev.values.clone()),
            (100_536_000, vec![Some(Val::Int(3)), None])
        );
        let e = r.next_event(&mut ev).unwrap_err();
        assert_eq!(
            e.to_string(),
            "t.csv:4:3: expected an Int64 value or `#` (no value), found `x`"
        );
        let missing = CsvEvents::new("b,time\n".as_bytes(), "t.csv", &inputs, None)
            .err()
            .unwrap();
        assert!(
            missing
                .to_string()
                .contains("no column for input stream `a`"),
            "{missing}"
        );
    }

    /// Text that is not UTF-8 is an error at its line and column, in a column the
    /// specification reads or not, in the header, and in JSON Lines.
    #[test]
    fn bytes_that_are_not_utf8_are_placed() {
        let inputs = vec![("a".to_string(), Type::Int)];
        let mut ev = Event::default();
        let data: &[u8] = b"a,note,time\n1,\xc3\xa9,0.1\n2,\xc3\xa9\xff,0.2\n";
        let mut r = CsvEvents::new(data, "t.csv", &inputs, None).unwrap();
        assert!(r.next_event(&mut ev).unwrap());
        let e = r.next_event(&mut ev).unwrap_err();
        assert_eq!(e.to_string(), "t.csv:3:4: invalid UTF-8 (byte 0xFF)");
        let header: &[u8] = b"a,\xfe\n";
        let e = CsvEvents::new(header, "t.csv", &inputs, None)
            .err()
            .unwrap();
        assert_eq!(e.to_string(), "t.csv:1:3: invalid UTF-8 (byte 0xFE)");
        let lines: &[u8] = b"{\"a\": 1}\n\n{\"a\": \"\x80\"}\n";
        let mut r = JsonlEvents::new(lines, "t.jsonl", &inputs, None);
        assert!(r.next_event(&mut ev).unwrap());
        let e = r.next_event(&mut ev).unwrap_err();
        assert_eq!(e.to_string(), "t.jsonl:3:8: invalid UTF-8 (byte 0x80)");
    }
}
