//! CSRV XML: `<log><event><name>e</name><field><name>f</name><value>v</value></field>…</event>…</log>`,
//! read with quick-xml's pull parser, one event (one time point) at a time.

use std::collections::VecDeque;
use std::io::BufRead;

use quick_xml::events::Event;
use rvmon_core::{Error, Interner, SourcePos, TimePoint};

use crate::event::EventAssembler;
use crate::TraceReader;

/// Counts lines of what the XML parser consumed, so errors can say `line:col`; it remembers
/// only the most recent line starts (errors point near the read head).
struct LineCounter<R> {
    inner: R,
    consumed: u64,
    lines: usize,
    starts: VecDeque<(u64, usize)>,
}

impl<R: BufRead> std::io::Read for LineCounter<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = {
            let avail = self.fill_buf()?;
            let n = avail.len().min(buf.len());
            buf[..n].copy_from_slice(&avail[..n]);
            n
        };
        self.consume(n);
        Ok(n)
    }
}

impl<R: BufRead> BufRead for LineCounter<R> {
    fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
        self.inner.fill_buf()
    }

    fn consume(&mut self, amt: usize) {
        if let Ok(buf) = self.inner.fill_buf() {
            let amt = amt.min(buf.len());
            for i in memchr::memchr_iter(b'\n', &buf[..amt]) {
                self.lines += 1;
                self.starts
                    .push_back((self.consumed + i as u64 + 1, self.lines));
                if self.starts.len() > 256 {
                    self.starts.pop_front();
                }
            }
            self.consumed += amt as u64;
            self.inner.consume(amt);
        }
    }
}

impl<R> LineCounter<R> {
    fn locate(&self, offset: u64) -> (usize, usize) {
        match self.starts.iter().rev().find(|(start, _)| *start <= offset) {
            Some((start, line)) => (*line, (offset - start) as usize + 1),
            None if self.starts.is_empty() || self.starts[0].1 == 2 => (1, offset as usize + 1),
            None => (self.starts[0].1 - 1, 1),
        }
    }
}

pub struct XmlReader<R> {
    xml: quick_xml::Reader<LineCounter<R>>,
    file: String,
    buf: Vec<u8>,
    interner: Interner,
    events: EventAssembler,
    /// Element path from the root, for validation.
    path: Vec<String>,
    text: String,
    event_name: Option<String>,
    field_name: Option<String>,
    field_value: Option<String>,
    fields: Vec<(String, String, SourcePos)>,
}

impl<R: BufRead> XmlReader<R> {
    pub fn new(src: R, file: impl Into<String>, time_field: Option<String>) -> Self {
        let counter = LineCounter {
            inner: src,
            consumed: 0,
            lines: 1,
            starts: VecDeque::new(),
        };
        XmlReader {
            xml: quick_xml::Reader::from_reader(counter),
            file: file.into(),
            buf: Vec::new(),
            interner: Interner::new(),
            events: EventAssembler::new(time_field),
            path: Vec::new(),
            text: String::new(),
            event_name: None,
            field_name: None,
            field_value: None,
            fields: Vec::new(),
        }
    }

    fn pos_at(&self, offset: u64) -> SourcePos {
        let (line, col) = self.xml.get_ref().locate(offset);
        SourcePos {
            file: self.file.clone(),
            line,
            col,
        }
    }

    fn here(&self) -> SourcePos {
        self.pos_at(self.xml.buffer_position())
    }
}

impl<R: BufRead> TraceReader for XmlReader<R> {
    fn next_time_point(&mut self, tp: &mut TimePoint) -> Result<bool, Error> {
        loop {
            self.buf.clear();
            let start = self.xml.buffer_position();
            let ev = match self.xml.read_event_into(&mut self.buf) {
                Ok(ev) => ev.into_owned(),
                Err(e) => {
                    let at = self.xml.error_position();
                    return Err(Error::at(self.pos_at(at), format!("invalid XML: {e}")));
                }
            };
            match ev {
                Event::Start(ref e) | Event::Empty(ref e) => {
                    let is_empty = matches!(ev, Event::Empty(_));
                    let name = String::from_utf8_lossy(e.name().as_ref()).into_owned();
                    let expected: &[&str] = match self
                        .path
                        .iter()
                        .map(String::as_str)
                        .collect::<Vec<_>>()
                        .as_slice()
                    {
                        [] => &["log"],
                        ["log"] => &["event"],
                        ["log", "event"] => &["name", "field"],
                        ["log", "event", "field"] => &["name", "value"],
                        _ => &[],
                    };
                    if !expected.contains(&name.as_str()) {
                        let what = if expected.is_empty() {
                            "no element here (only text)".to_string()
                        } else {
                            expected
                                .iter()
                                .map(|e| format!("<{e}>"))
                                .collect::<Vec<_>>()
                                .join(" or ")
                        };
                        return Err(Error::at(
                            self.pos_at(start),
                            format!("expected {what}, found <{name}>"),
                        ));
                    }
                    if e.attributes().next().is_some() {
                        return Err(Error::at(
                            self.pos_at(start),
                            format!("unexpected attribute on <{name}>"),
                        ));
                    }
                    self.path.push(name);
                    self.text.clear();
                    // `<value/>` is an empty value.
                    if is_empty {
                        tp.clear();
                        self.close_element(tp)?;
                        if !tp.events.is_empty() {
                            return Ok(true);
                        }
                    }
                }
                Event::Text(t) => {
                    let s = t.unescape().map_err(|e| {
                        Error::at(self.pos_at(start), format!("invalid XML text: {e}"))
                    })?;
                    if self.path.len() >= 3 {
                        self.text.push_str(&s);
                    } else if !s.trim().is_empty() {
                        return Err(Error::at(
                            self.pos_at(start),
                            format!("unexpected text `{}`", s.trim()),
                        ));
                    }
                }
                Event::CData(t) => self.text.push_str(&String::from_utf8_lossy(&t)),
                Event::End(_) => {
                    tp.clear();
                    self.close_element(tp)?;
                    if !tp.events.is_empty() {
                        return Ok(true);
                    }
                }
                Event::DocType(_) => {
                    return Err(Error::at(
                        self.pos_at(start),
                        "DOCTYPE declarations are not accepted",
                    ))
                }
                Event::Eof => {
                    if !self.path.is_empty() {
                        return Err(Error::at(
                            self.here(),
                            format!(
                                "unexpected end of input: <{}> is not closed",
                                self.path.last().unwrap()
                            ),
                        ));
                    }
                    return Ok(false);
                }
                Event::Decl(_) | Event::Comment(_) | Event::PI(_) => {}
            }
        }
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

impl<R: BufRead> XmlReader<R> {
    /// Handles the end of the innermost element; fills `tp` when an event ends.
    fn close_element(&mut self, tp: &mut TimePoint) -> Result<(), Error> {
        let pos = self.here();
        let Some(name) = self.path.pop() else {
            return Ok(());
        };
        let depth = self.path.len();
        let text = std::mem::take(&mut self.text).trim().to_string();
        match (depth, name.as_str()) {
            (2, "name") => set_once(
                &mut self.event_name,
                text,
                pos,
                "an <event> has more than one <name>",
            )?,
            (3, "name") => set_once(
                &mut self.field_name,
                text,
                pos,
                "a <field> has more than one <name>",
            )?,
            (3, "value") => set_once(
                &mut self.field_value,
                text,
                pos,
                "a <field> has more than one <value>",
            )?,
            (2, "field") => match (self.field_name.take(), self.field_value.take()) {
                (Some(n), Some(v)) => self.fields.push((n, v, pos)),
                _ => return Err(Error::at(pos, "a <field> needs one <name> and one <value>")),
            },
            (1, "event") => {
                let Some(ev) = self.event_name.take() else {
                    return Err(Error::at(pos, "an <event> needs a <name>"));
                };
                self.events.begin(tp);
                for (n, v, p) in std::mem::take(&mut self.fields) {
                    self.events
                        .field(&n, &v, &mut self.interner, || p.clone())?;
                }
                self.events
                    .finish(&ev, tp, &mut self.interner, || pos.clone())?;
            }
            _ => {}
        }
        Ok(())
    }
}

fn set_once(
    slot: &mut Option<String>,
    text: String,
    pos: SourcePos,
    duplicate: &str,
) -> Result<(), Error> {
    if slot.replace(text).is_some() {
        return Err(Error::at(pos, duplicate));
    }
    Ok(())
}
