//! Events for stream specifications, one per CSV row or JSON Lines object.
//!
//! CSV: a header naming the input streams (other columns are ignored) and a time column, then
//! one event per row. A cell `#` (RTLola's marker) or an empty cell means the stream has no
//! value at that event. JSON Lines: one object per line, `{"time": 0.5, "a": 3}`; a missing
//! key or `null` means no value. Times are decimal seconds, read exactly into nanoseconds
//! (`0.1` is 100 ms, not the nearest float), and must not decrease.

use std::io::BufRead;

use rvmon_core::{Error, SourcePos};

use crate::ast::Type;
use crate::engine::Event;
use crate::value::Val;

/// A source of events for a stream specification.
pub trait EventSource {
    /// Reads the next event into `ev`; `false` at the end.
    fn next_event(&mut self, ev: &mut Event) -> Result<bool, Error>;
}

pub struct CsvEvents<R> {
    reader: R,
    file: String,
    line: usize,
    /// Per column: the input it feeds.
    columns: Vec<Option<(usize, Type)>>,
    time_col: Option<usize>,
    n_inputs: usize,
    last_time: i64,
    rows: i64,
    buf: String,
    cells: Vec<(usize, usize)>,
}

impl<R: BufRead> CsvEvents<R> {
    /// Reads the header. `time_field` names the time column; by default the first column
    /// called `time`, `ts` or `timestamp` (any case). Without one, the row index is the time
    /// in seconds.
    pub fn new(
        mut reader: R,
        file: &str,
        inputs: &[(String, Type)],
        time_field: Option<&str>,
    ) -> Result<Self, Error> {
        let mut header = String::new();
        reader
            .read_line(&mut header)
            .map_err(|e| Error::msg(format!("{file}: cannot read: {e}")))?;
        let header = header.trim_start_matches('\u{feff}');
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
            None => names.iter().position(|n| {
                matches!(n.to_ascii_lowercase().as_str(), "time" | "ts" | "timestamp")
            }),
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
            reader,
            file: file.to_string(),
            line: 1,
            columns,
            time_col,
            n_inputs: inputs.len(),
            last_time: i64::MIN,
            rows: 0,
            buf: String::new(),
            cells: Vec::new(),
        })
    }

    fn err(&self, byte: usize, msg: String) -> Error {
        let col = self.buf[..byte.min(self.buf.len())].chars().count() + 1;
        Error::at(
            SourcePos {
                file: self.file.clone(),
                line: self.line,
                col,
            },
            msg,
        )
    }
}

impl<R: BufRead> EventSource for CsvEvents<R> {
    fn next_event(&mut self, ev: &mut Event) -> Result<bool, Error> {
        if !next_line(&mut self.reader, &mut self.buf, &mut self.line, &self.file)? {
            return Ok(false);
        }
        let line = self.buf.trim_end_matches(['\r', '\n']);
        split_cells_into(line, &mut self.cells);
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
        for (c, &(a, b)) in self.cells.iter().enumerate() {
            let Some((input, ty)) = self.columns[c] else {
                continue;
            };
            let cell = unquote(self.buf[a..b].trim_ascii());
            if cell.is_empty() || cell == "#" {
                continue;
            }
            let v = Val::parse(ty, cell).ok_or_else(|| {
                let lead = self.buf[a..b].len() - self.buf[a..b].trim_ascii_start().len();
                self.err(
                    a + lead,
                    format!(
                        "expected {} value or `#` (no value), found `{cell}`",
                        ty.a()
                    ),
                )
            })?;
            ev.values[input] = Some(v);
        }
        ev.time = match self.time_col {
            Some(c) => {
                let (a, b) = self.cells[c];
                let text = unquote(self.buf[a..b].trim_ascii());
                let t = parse_seconds(text).ok_or_else(|| {
                    self.err(
                        a,
                        format!("expected a time in seconds (a decimal number), found `{text}`"),
                    )
                })?;
                if t < self.last_time {
                    return Err(self.err(
                        a,
                        format!("time {text} is earlier than the previous event's"),
                    ));
                }
                t
            }
            None => self.rows.saturating_mul(1_000_000_000),
        };
        self.last_time = ev.time;
        self.rows += 1;
        Ok(true)
    }
}

/// Events from JSON Lines.
pub struct JsonlEvents<R> {
    reader: R,
    file: String,
    line: usize,
    inputs: Vec<(String, Type)>,
    time_field: Option<String>,
    last_time: i64,
    rows: i64,
    buf: String,
}

impl<R: BufRead> JsonlEvents<R> {
    /// `time_field` names the time key; by default `time`, `ts` or `timestamp`. Without one,
    /// the line's index is the time in seconds.
    pub fn new(reader: R, file: &str, inputs: &[(String, Type)], time_field: Option<&str>) -> Self {
        JsonlEvents {
            reader,
            file: file.to_string(),
            line: 0,
            inputs: inputs.to_vec(),
            time_field: time_field.map(str::to_string),
            last_time: i64::MIN,
            rows: 0,
            buf: String::new(),
        }
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
            Some(k) => Some(k.as_str()),
            None => ["time", "ts", "timestamp"]
                .into_iter()
                .find(|k| obj.contains_key(*k)),
        };
        ev.time = match key.map(|k| (k, obj.get(k))) {
            Some((_, Some(serde_json::Value::Number(n)))) => {
                let text = n.to_string();
                parse_seconds(&text)
                    .ok_or_else(|| self.err(format!("expected a time in seconds, found {text}")))?
            }
            Some((k, _)) => return Err(self.err(format!("expected a number of seconds in `{k}`"))),
            None => self.rows.saturating_mul(1_000_000_000),
        };
        if ev.time < self.last_time {
            return Err(self.err("time is earlier than the previous event's".into()));
        }
        self.last_time = ev.time;
        self.rows += 1;
        Ok(true)
    }
}

/// Reads the next line that is not blank into `buf`, counting lines; `false` at the end.
fn next_line(
    reader: &mut impl BufRead,
    buf: &mut String,
    line: &mut usize,
    file: &str,
) -> Result<bool, Error> {
    loop {
        buf.clear();
        let n = reader
            .read_line(buf)
            .map_err(|e| Error::msg(format!("{file}: cannot read: {e}")))?;
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
    split_cells_into(line, &mut cells);
    cells
}

fn split_cells_into(line: &str, cells: &mut Vec<(usize, usize)>) {
    cells.clear();
    let mut start = 0;
    let mut quoted = false;
    for (i, b) in line.bytes().enumerate() {
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
pub fn parse_seconds(s: &str) -> Option<i64> {
    let b = s.as_bytes();
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
        assert_eq!(parse_seconds("0.30"), Some(300_000_000));
        assert_eq!(parse_seconds("24.7"), Some(24_700_000_000));
        assert_eq!(parse_seconds("0.000536"), Some(536_000));
        assert_eq!(parse_seconds("3"), Some(3_000_000_000));
        assert_eq!(parse_seconds("1e3"), None);
        assert_eq!(parse_seconds("0.0000000001"), None);
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
}
