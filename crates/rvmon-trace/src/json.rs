//! CSRV JSON and JSON Lines: each event is an object, either keyed by the event name
//! (`{"open": {"file": "f1"}}`) or explicit (`{"name": "open", "fields": {"file": "f1"}}`).
//! Its time is a field named `time`, `ts` or `timestamp` (or `--time-field`'s), among its
//! fields or beside them (`{"name": "open", "time": 3, "fields": {…}}`, `{"open": {…},
//! "time": 3}`); it is no argument of the event. Without one, positions are timestamps.
//! A `.jsonl` trace holds one event per line and is read line by line (online); a `.json` trace
//! is a stream of event objects or one array of them (an array is read whole).

use std::io::BufRead;

use rvmon_core::{Error, Interner, SourcePos, TimePoint};
use serde_json::Value as Json;

use crate::event::{read_content_line, EventAssembler};
use crate::TraceReader;

pub struct JsonReader<R> {
    src: R,
    file: String,
    lines: bool,
    line: String,
    line_no: usize,
    /// For `.json`: the parsed events not yet delivered, and the document read.
    queue: std::collections::VecDeque<(Json, usize)>,
    loaded: bool,
    pending_error: Option<Error>,
    interner: Interner,
    events: EventAssembler,
}

impl<R: BufRead> JsonReader<R> {
    /// `lines`: JSON Lines (one event per line, streamed).
    pub fn new(src: R, file: impl Into<String>, lines: bool, time_field: Option<String>) -> Self {
        JsonReader {
            src,
            file: file.into(),
            lines,
            line: String::new(),
            line_no: 0,
            queue: Default::default(),
            loaded: false,
            pending_error: None,
            interner: Interner::new(),
            events: EventAssembler::new(time_field),
        }
    }

    fn pos(&self, line: usize, col: usize) -> SourcePos {
        SourcePos {
            file: self.file.clone(),
            line,
            col,
        }
    }

    fn load_document(&mut self) -> Result<(), Error> {
        self.loaded = true;
        let mut text = String::new();
        self.src
            .read_to_string(&mut text)
            .map_err(|e| Error::msg(format!("{}: cannot read: {e}", self.file)))?;
        let line_of = |offset: usize| {
            text[..offset.min(text.len())]
                .bytes()
                .filter(|&b| b == b'\n')
                .count()
                + 1
        };
        let trimmed = text.trim_start();
        if trimmed.starts_with('[') {
            let v: Json = serde_json::from_str(&text).map_err(|e| {
                Error::at(self.pos(e.line(), e.column()), format!("invalid JSON: {e}"))
            })?;
            // Line numbers of array elements are not tracked by serde_json; report the array's.
            let start_line = line_of(text.len() - trimmed.len());
            if let Json::Array(items) = v {
                self.queue
                    .extend(items.into_iter().map(|i| (i, start_line)));
            }
        } else {
            let mut stream = serde_json::Deserializer::from_str(&text).into_iter::<Json>();
            loop {
                let offset = stream.byte_offset();
                match stream.next() {
                    None => break,
                    Some(Ok(v)) => {
                        let skipped = text[offset..].len() - text[offset..].trim_start().len();
                        self.queue.push_back((v, line_of(offset + skipped)));
                    }
                    // Deliver the events before the error first: their verdicts must be written.
                    Some(Err(e)) => {
                        let at = self.pos(e.line(), e.column());
                        self.pending_error = Some(Error::at(at, format!("invalid JSON: {e}")));
                        break;
                    }
                }
            }
        }
        Ok(())
    }
}

/// A field's value as the text the event assembler types: a string, number or boolean.
fn field_text(key: &str, v: &Json, pos: &SourcePos) -> Result<String, Error> {
    match v {
        Json::String(s) => Ok(s.clone()),
        Json::Number(n) => Ok(n.to_string()),
        Json::Bool(b) => Ok(b.to_string()),
        _ => Err(Error::at(
            pos.clone(),
            format!("field `{key}`: expected a string, number or boolean"),
        )),
    }
}

impl<R: BufRead> TraceReader for JsonReader<R> {
    fn next_time_point(&mut self, tp: &mut TimePoint) -> Result<bool, Error> {
        let (value, line) = if self.lines {
            if !read_content_line(&mut self.src, &mut self.line, &mut self.line_no, &self.file)? {
                return Ok(false);
            }
            let v: Json = serde_json::from_str(&self.line).map_err(|e| {
                Error::at(
                    self.pos(self.line_no, e.column()),
                    format!("invalid JSON: {e}"),
                )
            })?;
            (v, self.line_no)
        } else {
            if !self.loaded {
                self.load_document()?;
            }
            match self.queue.pop_front() {
                Some(v) => v,
                None => return self.pending_error.take().map_or(Ok(false), Err),
            }
        };
        let pos = self.pos(line, 1);
        let bad = || {
            Error::at(
                pos.clone(),
                "expected an event object: {\"name\": \"e\", \"fields\": {…}} or {\"e\": {…}}",
            )
        };
        let Json::Object(mut obj) = value else {
            return Err(bad());
        };
        // A time field may sit beside the event (`{"name": "e", "time": 3}`, `{"e": {…},
        // "time": 3}`) as well as among its fields. (A key `time` whose value is an object is
        // an event called `time`.)
        let beside: Vec<String> = obj
            .iter()
            .filter(|(k, v)| self.events.is_time_field(k) && !v.is_object())
            .map(|(k, _)| k.clone())
            .collect();
        let beside: Vec<(String, Json)> = beside
            .into_iter()
            .filter_map(|k| obj.remove_entry(&k))
            .collect();
        let (name, fields) = match (obj.get("name"), obj.len()) {
            (Some(Json::String(n)), _) => {
                if let Some(k) = obj.keys().find(|k| *k != "name" && *k != "fields") {
                    return Err(Error::at(
                        pos.clone(),
                        format!(
                            "unexpected key `{k}` in an explicit event (only `name`, `fields` and a time field)"
                        ),
                    ));
                }
                match obj.get("fields") {
                    None => (n.clone(), serde_json::Map::new()),
                    Some(Json::Object(f)) => (n.clone(), f.clone()),
                    Some(_) => return Err(Error::at(pos.clone(), "`fields` must be an object")),
                }
            }
            (_, 1) => match obj.into_iter().next() {
                Some((n, Json::Object(f))) => (n, f),
                _ => return Err(bad()),
            },
            _ => return Err(bad()),
        };
        self.events.begin(tp);
        for (k, v) in beside.iter().map(|(k, v)| (k, v)).chain(&fields) {
            let raw = field_text(k, v, &pos)?;
            self.events
                .field(k, &raw, &mut self.interner, || pos.clone())?;
        }
        self.events
            .finish(&name, tp, &mut self.interner, || pos.clone())?;
        Ok(true)
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
