//! Signal CSV (`time,x,y,…` with a header), read with the `csv` crate: each row is a time point
//! at timestamp `time` (an integer); each other column is an event named after the column,
//! carrying the cell's value, present when the value is true or non-zero. A column thus acts as
//! a proposition ("x holds") for the propositional engine; empty cells are absent values.

use std::io::BufRead;

use rvmon_core::{Error, Interner, SourcePos, Sym, TimePoint, Timestamp, Value};

use crate::event::type_value;
use crate::TraceReader;

pub struct SignalCsvReader<R: std::io::Read> {
    csv: csv::Reader<R>,
    file: String,
    columns: Vec<Sym>,
    time_col: usize,
    record: csv::StringRecord,
    interner: Interner,
    next_index: u64,
    last_ts: Option<Timestamp>,
}

impl<R: BufRead> SignalCsvReader<R> {
    pub fn new(src: R, file: impl Into<String>, time_field: Option<String>) -> Result<Self, Error> {
        let file = file.into();
        let mut csv = csv::ReaderBuilder::new()
            .trim(csv::Trim::All)
            .from_reader(src);
        let headers = csv
            .byte_headers()
            .map_err(|e| Error::msg(format!("{file}: cannot read the CSV header: {e}")))?
            .clone();
        let headers = text_record(headers, &file, 1)?;
        // The `--time-field` column, or else the first called `time`, `ts` or `timestamp`.
        let time_col = match &time_field {
            Some(t) => headers.iter().position(|h| h == t),
            None => headers.iter().position(rvmon_core::is_time_field),
        };
        let time_col = time_col.ok_or_else(|| {
            Error::at(
                SourcePos {
                    file: file.clone(),
                    line: 1,
                    col: 1,
                },
                match &time_field {
                    Some(t) => format!("expected a `{t}` column in the header"),
                    None => "expected a time column (`time`, `ts` or `timestamp`) in the header"
                        .to_string(),
                },
            )
        })?;
        let mut interner = Interner::new();
        let columns = headers.iter().map(|h| interner.intern_name(h)).collect();
        Ok(SignalCsvReader {
            csv,
            file,
            columns,
            time_col,
            record: csv::StringRecord::new(),
            interner,
            next_index: 0,
            last_ts: None,
        })
    }
}

/// A record's cells as text, or the error at the first byte that is not UTF-8 (its column
/// counted over the cells before it, as other errors in a record are).
fn text_record(
    bytes: csv::ByteRecord,
    file: &str,
    line: usize,
) -> Result<csv::StringRecord, Error> {
    csv::StringRecord::from_byte_record(bytes).map_err(|e| {
        let (field, valid) = (e.utf8_error().field(), e.utf8_error().valid_up_to());
        let cells = e.into_byte_record();
        let before: usize = cells
            .iter()
            .take(field)
            .map(|c| String::from_utf8_lossy(c).chars().count() + 1)
            .sum();
        let cell = &cells[field];
        let mut at = rvmon_core::text::position_at(file, cell, line, valid);
        at.col += before;
        let rest = &cell[valid..];
        let len = std::str::from_utf8(rest)
            .err()
            .and_then(|e| e.error_len())
            .unwrap_or(0);
        rvmon_core::text::invalid_utf8(at, &rest[..len])
    })
}

impl<R: BufRead> TraceReader for SignalCsvReader<R> {
    fn next_time_point(&mut self, tp: &mut TimePoint) -> Result<bool, Error> {
        tp.clear();
        // Read as bytes and checked here, so that text that is not UTF-8 is placed by line and
        // column (the csv crate gives its record and field only); the buffers go round.
        let mut bytes = std::mem::take(&mut self.record).into_byte_record();
        let more = self.csv.read_byte_record(&mut bytes).map_err(|e| {
            let line = e.position().map_or(0, |p| p.line() as usize);
            Error::at(
                SourcePos {
                    file: self.file.clone(),
                    line,
                    col: 1,
                },
                format!("invalid CSV: {e}"),
            )
        })?;
        if !more {
            return Ok(false);
        }
        let line = bytes.position().map_or(0, |p| p.line() as usize);
        self.record = text_record(bytes, &self.file, line)?;
        let col_of = |record: &csv::StringRecord, i: usize| {
            // Column of cell `i`: the cells before it plus their separators.
            record
                .iter()
                .take(i)
                .map(|c| c.chars().count() + 1)
                .sum::<usize>()
                + 1
        };
        if self.record.len() != self.columns.len() {
            return Err(Error::at(
                SourcePos {
                    file: self.file.clone(),
                    line,
                    col: 1,
                },
                format!(
                    "expected {} cells as in the header, found {}",
                    self.columns.len(),
                    self.record.len()
                ),
            ));
        }
        let raw_ts = &self.record[self.time_col];
        let ts = raw_ts.parse::<Timestamp>().ok().filter(|t| *t >= 0).ok_or_else(|| {
            Error::at(
                SourcePos { file: self.file.clone(), line, col: col_of(&self.record, self.time_col) },
                format!("expected a non-negative integer time, found `{raw_ts}` (scale fractional times to integers)"),
            )
        })?;
        if let Some(last) = self.last_ts {
            if ts < last {
                return Err(Error::at(
                    SourcePos {
                        file: self.file.clone(),
                        line,
                        col: col_of(&self.record, self.time_col),
                    },
                    format!("timestamps must not decrease: {ts} comes after {last}"),
                ));
            }
        }
        self.last_ts = Some(ts);
        tp.index = self.next_index;
        tp.ts = ts;
        self.next_index += 1;
        for (i, cell) in self.record.iter().enumerate() {
            if i == self.time_col || cell.is_empty() {
                continue;
            }
            let v = type_value(cell, &mut self.interner);
            let holds = match v {
                Value::Int(i) => i != 0,
                Value::Float(f) => f != 0.0,
                Value::Bool(b) => b,
                Value::Str(_) => true,
            };
            if holds {
                tp.push_event(self.columns[i], &[v]);
            }
        }
        Ok(true)
    }

    fn interner(&self) -> &Interner {
        &self.interner
    }

    fn interner_mut(&mut self) -> &mut Interner {
        &mut self.interner
    }
}
