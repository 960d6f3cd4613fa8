//! CSRV 2014 CSV: one event per line, `name, field = value, field = value`, no header.
//!
//! This is not RFC 4180 CSV (no quoting is defined and every column but the first is a
//! `field = value` pair), so it is split by hand; the real CSV with a header (signals) goes
//! through the `csv` crate in [`crate::signal`].

use std::io::BufRead;

use rvmon_core::{Error, Interner, TimePoint};

use crate::event::{pos_in, read_content_line, EventAssembler};
use crate::TraceReader;

pub struct CsrvCsvReader<R> {
    src: R,
    file: String,
    line: String,
    line_no: usize,
    interner: Interner,
    events: EventAssembler,
}

impl<R: BufRead> CsrvCsvReader<R> {
    pub fn new(src: R, file: impl Into<String>, time_field: Option<String>) -> Self {
        CsrvCsvReader {
            src,
            file: file.into(),
            line: String::new(),
            line_no: 0,
            interner: Interner::new(),
            events: EventAssembler::new(time_field),
        }
    }
}

impl<R: BufRead> TraceReader for CsrvCsvReader<R> {
    fn next_time_point(&mut self, tp: &mut TimePoint) -> Result<bool, Error> {
        if !read_content_line(&mut self.src, &mut self.line, &mut self.line_no, &self.file)? {
            return Ok(false);
        }
        self.events.begin(tp);
        let line = std::mem::take(&mut self.line);
        let (file, line_no) = (self.file.as_str(), self.line_no);
        let interner = &mut self.interner;
        let events = &mut self.events;
        let pos = |byte: usize| pos_in(file, line_no, &line, byte);
        let result = (|| {
            let mut cols = line.split(',');
            let name_col = cols.next().unwrap_or("");
            let name = name_col.trim_matches([' ', '\t']);
            if name.is_empty() || name.contains('=') {
                return Err(Error::at(
                    pos(0),
                    "expected an event name in the first column (`name, field = value, …`)",
                ));
            }
            let mut offset = name_col.len() + 1;
            for col in cols {
                let col_start = offset;
                offset += col.len() + 1;
                let Some((field, value)) = col.split_once('=') else {
                    let lead = col.len() - col.trim_start().len();
                    return Err(Error::at(
                        pos(col_start + lead),
                        format!("expected `field = value`, found `{}`", col.trim()),
                    ));
                };
                let field = field.trim_matches([' ', '\t']);
                if field.is_empty() {
                    return Err(Error::at(
                        pos(col_start),
                        "expected a field name before `=`",
                    ));
                }
                let value = value.trim_matches([' ', '\t']);
                let pos = pos(col_start);
                events.field(field, value, interner, || pos.clone())?;
            }
            let pos = pos(0);
            events.finish(name, tp, interner, || pos.clone())
        })();
        self.line = line;
        result.map(|_| true)
    }

    fn interner(&self) -> &Interner {
        &self.interner
    }

    fn interner_mut(&mut self) -> &mut Interner {
        &mut self.interner
    }

    fn name_fields(&mut self) -> bool {
        self.events.name_fields();
        true
    }

    fn positions_as_timestamps(&self) -> bool {
        self.events.positions_as_timestamps()
    }
}
