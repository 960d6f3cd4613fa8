//! R2U2's traces, read as r2u2_cli reads them: CSV without a header row, where a line
//! starting with `#` is a comment, except that the first one names the columns (`# a0,a1`);
//! one row a step. A row may start with `@t ` to set the step's time to `t` (R2U2's clock
//! jumps there); otherwise a step's time is the previous one's plus 1, from 0. Cells are
//! trimmed; a value is a number (`0`/`1` for Boolean signals).
//!
//! Signals are found by name in the header line (C2PO's `.c2po`, whose compiler maps them
//! so), or by position (`.mltl`, whose atom `aN` reads column N).

use std::io::BufRead;

use rvmon_core::event::{Event, EventSource, Val, ValType};
use rvmon_core::{Error, SourcePos};

/// How signals find their columns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Columns {
    /// By the names of the first `#` line.
    ByName,
    /// Signal N is column N.
    ByPosition,
}

pub struct R2u2Events<R> {
    reader: R,
    file: String,
    line_no: usize,
    line: String,
    inputs: Vec<(String, ValType)>,
    columns: Columns,
    /// Per column, the signal it feeds (known once the header is read, by name).
    feeds: Option<Vec<Option<usize>>>,
    /// The next step's time.
    next: u64,
}

impl<R: BufRead> R2u2Events<R> {
    pub fn new(reader: R, file: &str, inputs: &[(String, ValType)], columns: Columns) -> Self {
        let feeds = match columns {
            Columns::ByPosition => Some((0..inputs.len()).map(Some).collect()),
            Columns::ByName => None,
        };
        R2u2Events {
            reader,
            file: file.to_string(),
            line_no: 0,
            line: String::new(),
            inputs: inputs.to_vec(),
            columns,
            feeds,
            next: 0,
        }
    }

    fn err(&self, col: usize, message: String) -> Error {
        Error::at(
            SourcePos {
                file: self.file.clone(),
                line: self.line_no,
                col,
            },
            message,
        )
    }

    /// Reads the header's names: each signal's column.
    fn header(&mut self, names: &str) -> Result<(), Error> {
        let names: Vec<&str> = names.split(',').map(str::trim).collect();
        let mut feeds = vec![None; names.len()];
        for (k, (name, _)) in self.inputs.iter().enumerate() {
            let c = names.iter().position(|n| n == name).ok_or_else(|| {
                self.err(
                    1,
                    format!(
                        "the header has no column for signal `{name}` (columns: {})",
                        names.join(", ")
                    ),
                )
            })?;
            feeds[c] = Some(k);
        }
        self.feeds = Some(feeds);
        Ok(())
    }
}

/// A number as R2U2 reads one: an integer, else a decimal.
fn number(ty: ValType, cell: &str) -> Option<Val> {
    match ty {
        ValType::Float => cell.parse().ok().map(Val::Float),
        _ => match cell.parse::<i64>() {
            Ok(i) => Some(Val::Int(i)),
            Err(_) => cell
                .parse::<f64>()
                .ok()
                .filter(|f| f.is_finite())
                .map(Val::Float),
        },
    }
}

impl<R: BufRead> EventSource for R2u2Events<R> {
    fn next_event(&mut self, ev: &mut Event) -> Result<bool, Error> {
        loop {
            self.line.clear();
            let n = self
                .reader
                .read_line(&mut self.line)
                .map_err(|e| Error::msg(format!("{}: {e}", self.file)))?;
            if n == 0 {
                if self.feeds.is_none() && !self.inputs.is_empty() {
                    self.line_no = self.line_no.max(1);
                    return Err(self.err(1, "expected a header line `# name,name,…`".into()));
                }
                return Ok(false);
            }
            self.line_no += 1;
            let text = self
                .line
                .trim_end_matches(['\n', '\r'])
                .trim_start_matches('\u{feff}');
            if let Some(rest) = text.strip_prefix('#') {
                if self.feeds.is_none() {
                    let rest = rest.to_string();
                    self.header(&rest)?;
                }
                continue;
            }
            if text.trim().is_empty() {
                continue;
            }
            if self.feeds.is_none() {
                return Err(self.err(1, "expected a header line `# name,name,…` first".into()));
            }
            // (Cells are read as they are split: a row allocates nothing.)
            let feeds = self.feeds.as_ref().expect("read above");
            ev.values.clear();
            ev.values.resize(self.inputs.len(), None);
            let (mut time, mut at, mut count) = (self.next, 0, 0);
            for (c, raw) in text.split(',').enumerate() {
                let col = at + 1;
                at += raw.len() + 1;
                count += 1;
                let mut cell = raw;
                if let Some(rest) = raw.trim_start().strip_prefix('@').filter(|_| c == 0) {
                    let (t, value) = rest.split_once(' ').unwrap_or((rest, ""));
                    let t: u32 = t.parse().map_err(|_| {
                        self.err(1, format!("expected a step after `@`, found `{t}`"))
                    })?;
                    (time, cell) = (u64::from(t), value);
                }
                let Some(Some(k)) = feeds.get(c) else {
                    continue;
                };
                let cell = cell.trim();
                let v = number(self.inputs[*k].1, cell).ok_or_else(|| {
                    self.err(
                        col,
                        format!(
                            "expected a number for `{}`, found `{cell}`",
                            self.inputs[*k].0
                        ),
                    )
                })?;
                ev.values[*k] = Some(v);
            }
            if self.columns == Columns::ByPosition && count < self.inputs.len() {
                return Err(self.err(
                    at,
                    format!(
                        "expected {} values (a0 … a{}), found {count}",
                        self.inputs.len(),
                        self.inputs.len().saturating_sub(1)
                    ),
                ));
            }
            if let Some(missing) = (0..self.inputs.len()).find(|&k| ev.values[k].is_none()) {
                let name = &self.inputs[missing].0;
                return Err(self.err(at, format!("no value for signal `{name}` in this row")));
            }
            ev.time = (time as i64).saturating_mul(1_000_000_000);
            self.next = time + 1;
            return Ok(true);
        }
    }
}
