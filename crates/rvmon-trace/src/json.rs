//! CSRV JSON and JSON Lines: each event is an object, either keyed by the event name
//! (`{"open": {"file": "f1"}}`) or explicit (`{"name": "open", "fields": {"file": "f1"}}`).
//! Its time is a field named `time`, `ts` or `timestamp` (or `--time-field`'s), among its
//! fields or beside them (`{"name": "open", "time": 3, "fields": {…}}`, `{"open": {…},
//! "time": 3}`); it is no argument of the event. Without one, positions are timestamps.
//!
//! A `.jsonl` trace holds one event per line and is read line by line. A `.json` trace is a
//! stream of event objects or one array of them; either way it is read one event at a time
//! ([`TextInput`]): serde_json parses each value from the reader, and the array's `[`, `,`
//! and `]` are read here between values. So a `.json` trace is read in time linear in its
//! length, online from a pipe, and the events before a bad one (bad JSON, a bad event, bytes
//! that are not UTF-8) are delivered before its error, as in every other format.

use std::io::{BufRead, Read};

use rvmon_core::{Error, Interner, SourcePos, TimePoint};
use serde_json::Value as Json;

use crate::event::{read_content_line, EventAssembler};
use crate::TraceReader;

pub struct JsonReader<R> {
    src: Source<R>,
    file: String,
    interner: Interner,
    events: EventAssembler,
}

enum Source<R> {
    /// JSON Lines: the current line and its number.
    Lines {
        src: R,
        line: String,
        line_no: usize,
    },
    /// JSON: the input, and where in the document the next value is.
    Document { input: TextInput<R>, shape: Shape },
}

/// Where a `.json` document is, between values.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Shape {
    /// Nothing read yet: the first byte tells a stream of values from an array.
    Start,
    /// A stream of values.
    Stream,
    /// Inside the top-level array; `first`: no element read yet.
    Array { first: bool },
    /// After the array's `]`, or after an error.
    Done,
}

impl<R: BufRead> JsonReader<R> {
    /// `lines`: JSON Lines (one event per line).
    pub fn new(src: R, file: impl Into<String>, lines: bool, time_field: Option<String>) -> Self {
        let file = file.into();
        let src = if lines {
            Source::Lines {
                src,
                line: String::new(),
                line_no: 0,
            }
        } else {
            Source::Document {
                input: TextInput::new(src, &file),
                shape: Shape::Start,
            }
        };
        JsonReader {
            src,
            file,
            interner: Interner::new(),
            events: EventAssembler::new(time_field),
        }
    }

    /// The next event's value and where it starts; `None` at the end.
    fn next_value(&mut self) -> Result<Option<(Json, SourcePos)>, Error> {
        match &mut self.src {
            Source::Lines { src, line, line_no } => {
                if !read_content_line(src, line, line_no, &self.file)? {
                    return Ok(None);
                }
                let pos = |byte: usize| crate::event::pos_in(&self.file, *line_no, line, byte);
                let v = serde_json::from_str(line).map_err(|e| {
                    // serde_json's column counts bytes (from 1); ours, characters.
                    let byte = match e.classify() {
                        serde_json::error::Category::Eof => line.len(),
                        _ => e.column().saturating_sub(1),
                    };
                    Error::at(pos(byte), format!("invalid JSON: {}", json_message(&e)))
                })?;
                Ok(Some((v, pos(0))))
            }
            Source::Document { input, shape } => {
                let next = document_value(input, shape);
                if next.is_err() {
                    *shape = Shape::Done;
                }
                next
            }
        }
    }
}

/// serde_json's message without the position it appends (that of the piece it was given,
/// which the caller replaces by the position in the file).
fn json_message(e: &serde_json::Error) -> String {
    let text = e.to_string();
    let suffix = format!(" at line {} column {}", e.line(), e.column());
    match text.strip_suffix(&suffix) {
        Some(m) if e.line() > 0 => m.to_string(),
        _ => text,
    }
}

/// The next value of a `.json` document, reading the array's punctuation around it.
fn document_value<R: Read>(
    input: &mut TextInput<R>,
    shape: &mut Shape,
) -> Result<Option<(Json, SourcePos)>, Error> {
    match *shape {
        Shape::Done => return Ok(None),
        Shape::Start => {
            input.skip_bom()?;
            *shape = match input.peek_content()? {
                Some(b'[') => {
                    input.consume(1);
                    Shape::Array { first: true }
                }
                _ => Shape::Stream,
            };
        }
        _ => {}
    }
    let next = input.peek_content()?;
    match (*shape, next) {
        (Shape::Stream, None) => {
            *shape = Shape::Done;
            return Ok(None);
        }
        (Shape::Array { .. }, Some(b']')) => {
            input.consume(1);
            *shape = Shape::Done;
            return match input.peek_content()? {
                None => Ok(None),
                Some(_) => Err(Error::at(
                    input.pos(),
                    "expected the end of the input after the array of events",
                )),
            };
        }
        (Shape::Array { first: false }, Some(b',')) => input.consume(1),
        (Shape::Array { first: true }, Some(_)) => {}
        (Shape::Array { first }, _) => {
            let expected = if first {
                "an event object or `]`"
            } else {
                "`,` or `]` after an event"
            };
            let found = next.map_or("the end of the input".to_string(), |b| {
                format!("`{}`", input.char_at_next(b))
            });
            return Err(Error::at(
                input.pos(),
                format!("expected {expected}, found {found}"),
            ));
        }
        _ => {}
    }
    if let Shape::Array { first } = shape {
        *first = false;
    }
    // Whitespace may follow the comma; the value starts at the next byte.
    input.peek_content()?;
    let at = input.pos();
    let mut values = serde_json::Deserializer::from_reader(&mut *input).into_iter::<Json>();
    match values.next() {
        Some(Ok(v)) => Ok(Some((v, at))),
        Some(Err(e)) => Err(input.json_error(&e)),
        None => Err(Error::at(
            input.pos(),
            "invalid JSON: EOF while parsing a value",
        )),
    }
}

/// The bytes of a `.json` document, taken from the source as they are needed and checked to
/// be UTF-8 as they come, with the line and column of the next byte and of the last one read.
/// (The reader it replaces read the whole document first and counted lines from its start
/// for every value: quadratic, 13.5 s for 100 k events.) serde_json reads it through `Read`,
/// a byte at a time, so it takes no byte after an object's `}`.
struct TextInput<R> {
    src: R,
    file: String,
    /// `buf[start..valid]`: bytes not yet consumed, UTF-8; `buf[valid..end]`: the start of a
    /// character whose other bytes have not been read yet (or bytes after a bad one).
    buf: Vec<u8>,
    start: usize,
    valid: usize,
    end: usize,
    eof: bool,
    /// What stops the input at `buf[valid]`: bytes that are not UTF-8, or a failed read.
    stop: Option<Error>,
    /// Line and column (characters) of `buf[start]`, and of the last character consumed.
    next: (usize, usize),
    last: (usize, usize),
}

const CHUNK: usize = 1 << 16;

impl<R: Read> TextInput<R> {
    fn new(src: R, file: &str) -> Self {
        TextInput {
            src,
            file: file.to_string(),
            buf: Vec::new(),
            start: 0,
            valid: 0,
            end: 0,
            eof: false,
            stop: None,
            next: (1, 1),
            last: (1, 1),
        }
    }

    fn at(&self, (line, col): (usize, usize)) -> SourcePos {
        SourcePos {
            file: self.file.clone(),
            line,
            col,
        }
    }

    /// The position of the next byte.
    fn pos(&self) -> SourcePos {
        self.at(self.next)
    }

    /// The unconsumed bytes (read more when there are none); empty at the end of the input.
    /// An error when the input stops before its end (bad UTF-8, a failed read).
    fn available(&mut self) -> Result<&[u8], Error> {
        while self.start == self.valid {
            if let Some(e) = &self.stop {
                return Err(e.clone());
            }
            if self.eof {
                break;
            }
            self.refill();
        }
        Ok(&self.buf[self.start..self.valid])
    }

    /// Reads more bytes after those held and checks the new ones; sets `eof` or `stop`.
    fn refill(&mut self) {
        if self.start > 0 {
            self.buf.copy_within(self.start..self.end, 0);
            self.valid -= self.start;
            self.end -= self.start;
            self.start = 0;
        }
        if self.end == self.buf.len() {
            self.buf.resize((2 * self.buf.len()).max(CHUNK), 0);
        }
        let n = loop {
            match self.src.read(&mut self.buf[self.end..]) {
                Ok(n) => break n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => {
                    self.stop = Some(Error::msg(format!("{}: cannot read: {e}", self.file)));
                    return;
                }
            }
        };
        self.end += n;
        self.eof = n == 0;
        match std::str::from_utf8(&self.buf[self.valid..self.end]) {
            Ok(_) => self.valid = self.end,
            Err(e) => {
                self.valid += e.valid_up_to();
                // A character cut by the read is completed by the next one (unless none comes).
                if e.error_len().is_some() || self.eof {
                    let bad = &self.buf[self.valid..self.valid + e.error_len().unwrap_or(0)];
                    let (mut next, mut last) = (self.next, self.last);
                    advance(&mut next, &mut last, &self.buf[self.start..self.valid]);
                    self.stop = Some(rvmon_core::text::invalid_utf8(self.at(next), bad));
                }
            }
        }
    }

    /// Consumes `n` of the available bytes.
    fn consume(&mut self, n: usize) {
        advance(
            &mut self.next,
            &mut self.last,
            &self.buf[self.start..self.start + n],
        );
        self.start += n;
    }

    /// Consumes the bytes up to the next one that is not JSON whitespace, and returns that
    /// one (not consumed); `None` at the end of the input.
    fn peek_content(&mut self) -> Result<Option<u8>, Error> {
        loop {
            let bytes = self.available()?;
            let Some(&first) = bytes.first() else {
                return Ok(None);
            };
            let blank = bytes
                .iter()
                .position(|b| !matches!(b, b' ' | b'\t' | b'\n' | b'\r'))
                .unwrap_or(bytes.len());
            if blank == 0 {
                return Ok(Some(first));
            }
            self.consume(blank);
        }
    }

    /// Drops a byte-order mark at the start (columns count from after it, as in every reader).
    fn skip_bom(&mut self) -> Result<(), Error> {
        while self.valid - self.start < 3 && !self.eof && self.stop.is_none() {
            self.refill();
        }
        if self.buf[self.start..self.valid].starts_with("\u{feff}".as_bytes()) {
            self.start += 3;
        }
        Ok(())
    }

    /// The character that starts with the next byte `b` (for messages).
    fn char_at_next(&self, b: u8) -> char {
        std::str::from_utf8(&self.buf[self.start..self.valid])
            .ok()
            .and_then(|s| s.chars().next())
            .unwrap_or(char::from(b))
    }

    /// serde_json's error, placed: a failed read is what stopped the input; the end of the
    /// input is after the last byte; anything else is at the last byte read.
    fn json_error(&self, e: &serde_json::Error) -> Error {
        use serde_json::error::Category;
        match e.classify() {
            Category::Io => self
                .stop
                .clone()
                .unwrap_or_else(|| Error::msg(format!("{}: cannot read: {e}", self.file))),
            Category::Eof => Error::at(self.pos(), format!("invalid JSON: {}", json_message(e))),
            Category::Syntax | Category::Data => Error::at(
                self.at(self.last),
                format!("invalid JSON: {}", json_message(e)),
            ),
        }
    }
}

/// Moves the position `next` over `bytes` (UTF-8), and `last` to the last character's.
fn advance(next: &mut (usize, usize), last: &mut (usize, usize), bytes: &[u8]) {
    for &b in bytes {
        // A continuation byte is no character of its own.
        if b & 0xC0 != 0x80 {
            *last = *next;
            if b == b'\n' {
                *next = (next.0 + 1, 1);
            } else {
                next.1 += 1;
            }
        }
    }
}

impl<R: Read> Read for TextInput<R> {
    fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
        let bytes = self
            .available()
            .map_err(|e| std::io::Error::new(std::io::ErrorKind::InvalidData, e.to_string()))?;
        let n = bytes.len().min(out.len());
        out[..n].copy_from_slice(&bytes[..n]);
        self.consume(n);
        Ok(n)
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
        let Some((value, pos)) = self.next_value()? else {
            return Ok(false);
        };
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
