//! MonPoly's log format, read incrementally:
//!
//! ```text
//! @100 P (2) (3)      # a time point with timestamp 100; P holds for the tuples (2) and (3)
//!      Q ("a b", 1.5)  # events may continue on the following lines
//! @100 ;              # equal timestamps are allowed; `;` ends a time point explicitly
//! @105                # an empty time point
//! ```
//!
//! A time point ends at the next `@`, at `;` or at the end of the input. Reading never looks
//! further ahead than needed to finish the current time point, so a live producer that ends each
//! time point with `;` (or starts the next one) gets its verdicts immediately.

use std::io::BufRead;

use rvmon_core::{Error, Interner, SourcePos, TimePoint, Timestamp, Value};

use crate::simple_line::{ends_word, name_prefix, SimpleLines};
use crate::TraceReader;
use rvmon_core::sig::{Signature, Type};

pub struct MonpolyLogReader<R> {
    src: R,
    file: String,
    line: Vec<u8>,
    next_line: Vec<u8>,
    line_no: usize,
    /// Where `line` starts, in bytes from the start of this reader's input.
    line_offset: u64,
    /// Where the line of the last time point's `@` starts, and whether the `@` opens it.
    tp_line: (u64, bool),
    pos: usize,
    eof: bool,
    sig: Option<Signature>,
    interner: Interner,
    next_index: u64,
    last_ts: Option<Timestamp>,
    values: Vec<Value>,
    scratch: Vec<u8>,
    /// The current predicate name and its declared types (buffers reused across events).
    name: String,
    types: Vec<Type>,
    /// Set once `>terminate<` or the end of input is reached.
    done: bool,
    /// Set when `>terminate<` ended the trace (MonPoly then stops without closing it).
    terminated: bool,
    skip_out_of_order: bool,
    /// Whether `>save_state F<` and `>save_and_exit F<` are taken (for the caller to act on,
    /// see [`MonpolyLogReader::take_commands`]) rather than rejected.
    state_commands: bool,
    commands: Vec<StateCommand>,
    warnings: Vec<String>,
    /// The predicates met so far (the first 64): their symbol and declared types, so that an
    /// event costs no interner or signature lookup (logs name few predicates, many times).
    preds: Vec<PredInfo>,
    /// The fast path for lines of the common shape (`simple_line.rs`), with those of
    /// `preds` that may take it.
    fast: SimpleLines,
    /// Whether lines of the common shape take the fast path (always, but for the test that
    /// compares the two paths).
    simple_lines: bool,
    /// Set by the fast path when the buffer held, beyond the time point just read, two whole
    /// lines that start with `@`: the next time point then reads without waiting for input
    /// (see [`TraceReader::input_pending`]).
    ahead: bool,
    /// Whether `ahead` is kept ([`TraceReader::watch_input`]).
    watch: bool,
}

struct PredInfo {
    name: String,
    sym: rvmon_core::Sym,
    declared: bool,
    types: Vec<Type>,
    /// The name's first 8 bytes (zero-padded): most names differ there, so a name read by
    /// the general reader is compared one word before the bytes.
    prefix: u64,
}

impl PredInfo {
    fn new(name: String, sym: rvmon_core::Sym, declared: bool, types: Vec<Type>) -> Self {
        PredInfo {
            prefix: name_prefix(name.as_bytes()),
            name,
            sym,
            declared,
            types,
        }
    }

    /// Whether the predicate is named `bytes`, whose [`name_prefix`] is `prefix`.
    #[inline]
    fn is(&self, bytes: &[u8], prefix: u64) -> bool {
        self.prefix == prefix && self.name.as_bytes() == bytes
    }
}

impl<R: BufRead> MonpolyLogReader<R> {
    /// `sig`, when given, types the values and rejects undeclared predicates and wrong arities.
    pub fn new(src: R, file: impl Into<String>, sig: Option<Signature>) -> Self {
        MonpolyLogReader {
            src,
            file: file.into(),
            line: Vec::new(),
            next_line: Vec::new(),
            line_no: 0,
            line_offset: 0,
            tp_line: (0, false),
            pos: 0,
            eof: false,
            sig,
            interner: Interner::new(),
            next_index: 0,
            last_ts: None,
            values: Vec::new(),
            scratch: Vec::new(),
            name: String::new(),
            types: Vec::new(),
            done: false,
            terminated: false,
            skip_out_of_order: false,
            state_commands: false,
            commands: Vec::new(),
            warnings: Vec::new(),
            preds: Vec::new(),
            fast: SimpleLines::default(),
            simple_lines: true,
            ahead: false,
            watch: false,
        }
    }

    fn here(&self) -> SourcePos {
        let content = self.line.strip_suffix(b"\n").unwrap_or(&self.line);
        let content = content.strip_suffix(b"\r").unwrap_or(content);
        let col = String::from_utf8_lossy(&content[..self.pos.min(content.len())])
            .chars()
            .count()
            + 1;
        SourcePos {
            file: self.file.clone(),
            line: self.line_no.max(1),
            col,
        }
    }

    fn err(&self, msg: impl Into<String>) -> Error {
        Error::at(self.here(), msg)
    }

    fn found(&self) -> String {
        match self.line.get(self.pos) {
            None => "found the end of the input".into(),
            Some(b'\n') | Some(b'\r') => "found the end of the line".into(),
            Some(_) => {
                let rest = String::from_utf8_lossy(&self.line[self.pos..]);
                let c = rest.chars().next().unwrap_or('?');
                format!("found `{c}`")
            }
        }
    }

    fn fill(&mut self) -> Result<bool, Error> {
        if self.eof {
            return Ok(false);
        }
        self.next_line.clear();
        let n = read_line(&mut self.src, &mut self.next_line)
            .map_err(|e| Error::msg(format!("{}: cannot read: {e}", self.file)))?;
        if n == 0 {
            // Keep the last line so that an error at the end of the input points at its end.
            self.eof = true;
            self.pos = self.line.len();
            return Ok(false);
        }
        self.line_offset += self.line.len() as u64;
        std::mem::swap(&mut self.line, &mut self.next_line);
        self.pos = 0;
        self.line_no += 1;
        Ok(true)
    }

    /// Skips whitespace and comments, across lines; returns the next byte without consuming it.
    ///
    /// PERF: inlined for the common case, a byte that is already there (most calls); the
    /// loop, which may read lines and fail, is out of line.
    #[inline]
    fn peek(&mut self) -> Result<Option<u8>, Error> {
        match self.line.get(self.pos) {
            Some(&b) if !matches!(b, b' ' | b'\t' | b'\r' | b'\n' | b'#') => Ok(Some(b)),
            _ => self.skip_to_next(),
        }
    }

    #[inline(never)]
    fn skip_to_next(&mut self) -> Result<Option<u8>, Error> {
        loop {
            while let Some(&b) = self.line.get(self.pos) {
                match b {
                    b' ' | b'\t' | b'\r' | b'\n' => self.pos += 1,
                    b'#' => self.pos = self.line.len(),
                    _ => return Ok(Some(b)),
                }
            }
            if !self.fill()? {
                return Ok(None);
            }
        }
    }

    /// Reads a bare word (predicate name, number, unquoted string) at the current position.
    fn word(&mut self) -> std::ops::Range<usize> {
        let start = self.pos;
        while let Some(&b) = self.line.get(self.pos) {
            if ends_word(b) {
                break;
            }
            self.pos += 1;
        }
        start..self.pos
    }

    fn timestamp(&mut self) -> Result<Timestamp, Error> {
        let start = self.pos;
        let w = self.word();
        let ts = parse_int(&self.line[w]);
        match ts {
            Some(ts) if ts >= 0 => Ok(ts),
            _ => {
                self.pos = start;
                Err(self.err(format!(
                    "expected a timestamp (a non-negative integer) after `@`, {}",
                    self.found()
                )))
            }
        }
    }

    /// Reads one value (quoted string or bare word) into `self.scratch`; returns whether quoted.
    fn value_text(&mut self) -> Result<bool, Error> {
        self.scratch.clear();
        if self.line.get(self.pos) == Some(&b'"') {
            let open = self.pos;
            self.pos += 1;
            loop {
                match self.line.get(self.pos) {
                    Some(b'"') => {
                        self.pos += 1;
                        return Ok(true);
                    }
                    Some(b'\n') | None => {
                        self.pos = open;
                        return Err(self
                            .err("unterminated string: expected a closing `\"` on the same line"));
                    }
                    Some(&b) => {
                        self.scratch.push(b);
                        self.pos += 1;
                    }
                }
            }
        }
        let w = self.word();
        if w.is_empty() {
            let found = self.found();
            return Err(self.err(format!("expected a value, {found}")));
        }
        self.scratch.extend_from_slice(&self.line[w]);
        Ok(false)
    }

    /// Types the value in `self.scratch` (PERF: parsed in place, no allocation unless interned).
    fn typed_value(&mut self, ty: Option<Type>, quoted: bool, at: usize) -> Result<Value, Error> {
        // Integers (the common case) straight from the bytes.
        if matches!(ty, Some(Type::Int) | None) && !quoted {
            if let Some(i) = parse_int(&self.scratch) {
                return Ok(Value::Int(i));
            }
        }
        let text = std::str::from_utf8(&self.scratch).ok();
        let parsed = match (ty, text) {
            (_, None) => None,
            (Some(Type::Int), Some(_)) => None,
            (Some(Type::Float), Some(t)) => {
                t.parse::<f64>().ok().filter(|_| !quoted).map(Value::Float)
            }
            (Some(Type::Str) | Some(Type::Regexp), Some(t)) => {
                Some(Value::Str(self.interner.intern(t)))
            }
            (None, Some(t)) if quoted => Some(Value::Str(self.interner.intern(t))),
            (None, Some(t)) => Some(if let Ok(f) = t.parse::<f64>() {
                Value::Float(f)
            } else {
                Value::Str(self.interner.intern(t))
            }),
        };
        parsed.ok_or_else(|| {
            let found = String::from_utf8_lossy(&self.scratch).into_owned();
            let digits = found.strip_prefix('-').unwrap_or(&found);
            let what = match ty {
                // Digits that parse_int refused: too many for 64 bits.
                Some(Type::Int)
                    if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) =>
                {
                    "an integer of 64 bits (from -9223372036854775808 to 9223372036854775807)"
                }
                Some(Type::Int) => "an integer",
                Some(Type::Float) => "a float",
                _ => "UTF-8 text",
            };
            self.pos = at;
            self.err(format!("expected {what}, found `{found}`"))
        })
    }

    /// Column (1-based, in characters) of byte `byte` of line `line_no`, if it is the current line.
    fn pos_of(&self, line_no: usize, byte: usize) -> SourcePos {
        let col = if line_no == self.line_no {
            String::from_utf8_lossy(&self.line[..byte.min(self.line.len())])
                .chars()
                .count()
                + 1
        } else {
            byte + 1
        };
        SourcePos {
            file: self.file.clone(),
            line: line_no.max(1),
            col,
        }
    }

    /// Reads the tuples following the predicate in `self.name` and adds one event per tuple.
    fn tuples(
        &mut self,
        name_at: (usize, usize),
        known: Option<usize>,
        tp: &mut TimePoint,
    ) -> Result<(), Error> {
        // The declared argument types, copied into a reused buffer (no allocation per event).
        self.types.clear();
        let (sym, declared) = match known.map(|k| &self.preds[k]) {
            Some(p) => {
                self.types.extend_from_slice(&p.types);
                (p.sym, p.declared)
            }
            None => {
                let sym = self.interner.intern_name(&self.name);
                let declared = match &self.sig {
                    Some(sig) => match sig.get(&self.name) {
                        Some(d) => {
                            self.types.extend(d.args.iter().map(|a| a.1));
                            true
                        }
                        None => {
                            let msg = format!(
                                "predicate `{}` is not declared in the signature",
                                self.name
                            );
                            return Err(Error::at(self.pos_of(name_at.0, name_at.1), msg));
                        }
                    },
                    None => false,
                };
                if self.preds.len() < 64 {
                    let declared_types = declared.then_some(&self.types[..]);
                    self.fast.register(sym, &self.name, declared_types);
                    self.preds.push(PredInfo::new(
                        self.name.clone(),
                        sym,
                        declared,
                        self.types.clone(),
                    ));
                }
                (sym, declared)
            }
        };
        // MonPoly reads a predicate name without a tuple as one empty tuple (`@0 T` = `@0 T()`).
        if self.peek()? != Some(b'(') {
            if declared && !self.types.is_empty() {
                let msg = format!(
                    "`{}` has arity {}: expected a tuple `(…)` after it",
                    self.name,
                    self.types.len()
                );
                return Err(Error::at(self.pos_of(name_at.0, name_at.1), msg));
            }
            tp.push_event(sym, &[]);
            return Ok(());
        }
        while self.peek()? == Some(b'(') {
            let open = (self.line_no, self.pos);
            self.pos += 1;
            self.values.clear();
            if self.peek()? == Some(b')') {
                self.pos += 1;
            } else {
                loop {
                    self.peek()?;
                    let at = self.pos;
                    // PERF: an unquoted integer where one may stand (the common case) is read
                    // straight from the line, without copying it.
                    let int_allowed =
                        !declared || matches!(self.types.get(self.values.len()), Some(Type::Int));
                    if int_allowed && self.line.get(at) != Some(&b'"') {
                        let w = self.word();
                        if let Some(i) = parse_int(&self.line[w]) {
                            self.values.push(Value::Int(i));
                            if self.line.get(self.pos) == Some(&b',') {
                                self.pos += 1;
                                continue;
                            }
                            if self.line.get(self.pos) == Some(&b')') {
                                self.pos += 1;
                                break;
                            }
                            self.values.pop();
                        }
                        self.pos = at;
                    }
                    let quoted = self.value_text()?;
                    let k = self.values.len();
                    let ty = if declared {
                        match self.types.get(k) {
                            Some(&t) => Some(t),
                            None => {
                                self.pos = at;
                                let msg = format!(
                                    "too many values: `{}` has arity {}",
                                    self.name,
                                    self.types.len()
                                );
                                return Err(self.err(msg));
                            }
                        }
                    } else {
                        None
                    };
                    let v = self.typed_value(ty, quoted, at)?;
                    self.values.push(v);
                    match self.peek()? {
                        Some(b',') => self.pos += 1,
                        Some(b')') => {
                            self.pos += 1;
                            break;
                        }
                        _ => {
                            let found = self.found();
                            return Err(
                                self.err(format!("expected `,` or `)` in a tuple, {found}"))
                            );
                        }
                    }
                }
            }
            if declared && self.types.len() != self.values.len() {
                let msg = format!(
                    "`{}` has arity {}, this tuple has {} values",
                    self.name,
                    self.types.len(),
                    self.values.len()
                );
                return Err(Error::at(self.pos_of(open.0, open.1), msg));
            }
            tp.push_event(sym, &self.values);
        }
        Ok(())
    }
}

/// A decimal integer as `str::parse::<i64>` reads it (an optional sign, then digits; `None`
/// on overflow), from bytes: no UTF-8 check on the hot path.
fn parse_int(b: &[u8]) -> Option<i64> {
    let (neg, digits) = match b.first()? {
        b'-' => (true, &b[1..]),
        b'+' => (false, &b[1..]),
        _ => (false, b),
    };
    if digits.is_empty() {
        return None;
    }
    let mut n: i64 = 0;
    for &c in digits {
        let d = c.wrapping_sub(b'0');
        if d > 9 {
            return None;
        }
        n = if neg {
            n.checked_mul(10)?.checked_sub(i64::from(d))?
        } else {
            n.checked_mul(10)?.checked_add(i64::from(d))?
        };
    }
    Some(n)
}

/// The length of `line` without its line break (`\n` or `\r\n`).
fn content_end(line: &[u8]) -> usize {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    line.strip_suffix(b"\r").unwrap_or(line).len()
}

/// `BufRead::read_until(b'\n', line)`, with the line's end found by the `memchr` crate (SIMD;
/// the standard library's byte search costs about 100 instructions on a 30-byte line).
fn read_line(src: &mut impl BufRead, line: &mut Vec<u8>) -> std::io::Result<usize> {
    let mut n = 0;
    loop {
        let buf = match src.fill_buf() {
            Ok(buf) => buf,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        let (done, used) = match memchr::memchr(b'\n', buf) {
            Some(k) => (true, k + 1),
            None => (buf.is_empty(), buf.len()),
        };
        line.extend_from_slice(&buf[..used]);
        src.consume(used);
        n += used;
        if done {
            return Ok(n);
        }
    }
}

/// A MonPoly log command about the monitor's state, read between two time points.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StateCommand {
    /// `>save_state FILE<`: save the monitor's state to `FILE`, then go on.
    Save(String),
    /// `>save_and_exit FILE<`: save the monitor's state to `FILE`, then stop without closing
    /// the trace (the reader reports the end of the log).
    SaveAndExit(String),
}

impl<R> MonpolyLogReader<R> {
    /// Takes `>save_state F<` and `>save_and_exit F<` (otherwise they are errors, as for a
    /// caller that cannot save a monitor's state).
    pub fn accept_state_commands(&mut self) {
        self.state_commands = true;
    }

    /// The state commands read since the last call, in order. They came before the time point
    /// the reader returned last (or before the end of the log, if it returned none), after
    /// every earlier one.
    pub fn take_commands(&mut self) -> Vec<StateCommand> {
        std::mem::take(&mut self.commands)
    }

    /// Whether `>terminate<` ended the trace (rather than the end of the input).
    pub fn terminated(&self) -> bool {
        self.terminated
    }

    /// Continues a log read up to here by another reader: `lines` lines were read before this
    /// reader's input, `time_points` time points, the last with timestamp `last_ts`. Errors
    /// then name the whole log's line, time points are numbered in the whole log, and
    /// timestamps are checked against the last one before (see [`time_point_boundaries`]).
    pub fn resume(&mut self, lines: usize, time_points: u64, last_ts: Option<Timestamp>) {
        self.line_no = lines;
        self.next_index = time_points;
        self.last_ts = last_ts;
    }

    /// Lines read so far (with those before a [`MonpolyLogReader::resume`]).
    pub fn lines_read(&self) -> usize {
        self.line_no
    }

    /// Time points read so far (with those before a [`MonpolyLogReader::resume`]).
    pub fn time_points_read(&self) -> u64 {
        self.next_index
    }

    /// The last timestamp read.
    pub fn last_timestamp(&self) -> Option<Timestamp> {
        self.last_ts
    }

    /// Where the line of the last time point's `@` starts (in bytes from the start of this
    /// reader's input), and whether the `@` is its first byte.
    pub fn time_point_line(&self) -> (u64, bool) {
        self.tp_line
    }

    /// Where the line being read starts (after an error: the line it names).
    pub fn line_offset(&self) -> u64 {
        self.line_offset
    }
}

/// Where a MonPoly log of `len` bytes in `file` can be cut into pieces of about `chunk` bytes
/// that readers can read independently: offsets of lines that start with `@` (0 first, `len`
/// last). Such a line always starts a time point, since strings, comments and commands end
/// with their line, and a time point ends at the next `@`. Reading the pieces one after the
/// other, each [`MonpolyLogReader::resume`]d where the previous stopped, reads the log.
pub fn time_point_boundaries(
    file: &mut (impl std::io::Read + std::io::Seek),
    len: u64,
    chunk: u64,
) -> std::io::Result<Vec<u64>> {
    use std::io::SeekFrom;
    let chunk = chunk.max(1);
    let mut cuts = vec![0];
    let mut buf = vec![0u8; 1 << 16];
    let mut target = chunk;
    'cuts: while target < len {
        // Look for "\n@" starting just before the target.
        let mut at = target - 1;
        file.seek(SeekFrom::Start(at))?;
        let mut carry = false; // the previous block ended with '\n'
        loop {
            let n = file.read(&mut buf)?;
            if n == 0 {
                break 'cuts;
            }
            let block = &buf[..n];
            if carry && block[0] == b'@' {
                cuts.push(at);
                break;
            }
            if let Some(k) = memchr::memmem::find(block, b"\n@") {
                cuts.push(at + k as u64 + 1);
                break;
            }
            carry = block[n - 1] == b'\n';
            at += n as u64;
        }
        let last = *cuts.last().expect("0 is a cut");
        target = (last + chunk).max(target + 1);
    }
    cuts.retain(|&c| c < len || c == 0);
    cuts.dedup();
    cuts.push(len);
    Ok(cuts)
}

impl<R: BufRead> TraceReader for MonpolyLogReader<R> {
    fn next_time_point(&mut self, tp: &mut TimePoint) -> Result<bool, Error> {
        tp.clear();
        self.ahead = false;
        if self.done {
            return Ok(false);
        }
        // PERF: a time point on one line of the common shape is read by one scan
        // (`simple_line`), from the current line or, between lines, straight from the
        // reader's buffer; any other line, and every error, goes the general way below.
        if self.simple_lines {
            if self.pos == 0 && self.line.first() == Some(&b'@') {
                // The time point must end with its line: the next byte is `@`, or there is
                // none. (A read error is left to the general reader, which reports it.)
                let watch = self.watch;
                let next = self.src.fill_buf().map(|rest| {
                    self.ahead = watch && two_lines_ahead(rest);
                    rest.first().copied()
                });
                let ends = matches!(next, Ok(None | Some(b'@')));
                if ends {
                    let line = (&self.line[..], content_end(&self.line));
                    let (last, interner) = (self.last_ts, &mut self.interner);
                    if let Some(ts) = self.fast.parse(line, last, tp, interner) {
                        let at = self.line_offset;
                        if next.is_ok_and(|b| b.is_some()) {
                            // Between lines, as `buffered_line` leaves the reader.
                            self.line_offset += self.line.len() as u64;
                            self.line.clear();
                            self.pos = 0;
                        } else {
                            // At the end the last line stays, as the general reader keeps it.
                            self.pos = self.line.len();
                        }
                        self.start_time_point(tp, ts, at);
                        return Ok(true);
                    }
                }
            } else if self.pos >= self.line.len() && !self.eof && self.buffered_line(tp) {
                return Ok(true);
            }
        }
        // Find the `@` that starts the time point, executing commands on the way.
        loop {
            match self.peek()? {
                None => {
                    self.done = true;
                    return Ok(false);
                }
                Some(b'@') => {
                    self.tp_line = (self.line_offset, self.pos == 0);
                    self.pos += 1;
                    break;
                }
                Some(b'>') => {
                    if self.command()? {
                        self.done = true;
                        // `>save_and_exit F<` stops the log too, but it is no `>terminate<`.
                        self.terminated =
                            !matches!(self.commands.last(), Some(StateCommand::SaveAndExit(_)));
                        return Ok(false);
                    }
                }
                Some(_) => {
                    let found = self.found();
                    return Err(self.err(format!(
                        "expected `@` and a timestamp to start a time point, {found}"
                    )));
                }
            }
        }
        // Where the timestamp is, for an error about its order (built only then).
        let ts_at = (self.line_no, self.pos);
        let ts = self.timestamp()?;
        if let Some(last) = self.last_ts {
            if ts < last {
                if self.skip_out_of_order {
                    // MonPoly's behaviour: warn, and drop the time point with its events.
                    self.warnings.push(format!(
                        "WARNING: Skipping out of order timestamp {ts} (previous: {last})"
                    ));
                    let mut scratch = TimePoint::default();
                    self.events_into(&mut scratch)?;
                    return self.next_time_point(tp);
                }
                return Err(Error::at(
                    self.pos_of(ts_at.0, ts_at.1),
                    format!("timestamps must not decrease: {ts} comes after {last}"),
                ));
            }
        }
        self.last_ts = Some(ts);
        tp.index = self.next_index;
        tp.ts = ts;
        self.next_index += 1;
        self.events_into(tp)?;
        Ok(true)
    }

    fn interner(&self) -> &Interner {
        &self.interner
    }

    fn interner_mut(&mut self) -> &mut Interner {
        &mut self.interner
    }

    fn input_pending(&self) -> bool {
        // Skipping a time point out of order reads on to the next one, which the look-ahead
        // does not cover.
        self.ahead && !self.skip_out_of_order
    }

    fn watch_input(&mut self) {
        self.watch = true;
    }
}

/// Whether `buf` starts with two whole lines that both start with `@`: a time point that
/// ends with its line (the `@` after it says so), which either path reads without asking its
/// source for more. The fast path looks one byte past the line; the general reader reads the
/// whole next line to find where the time point ends.
fn two_lines_ahead(buf: &[u8]) -> bool {
    buf.first() == Some(&b'@')
        && memchr::memchr(b'\n', buf).is_some_and(|nl| {
            let next = &buf[nl + 1..];
            next.first() == Some(&b'@') && memchr::memchr(b'\n', next).is_some()
        })
}

impl<R: BufRead> MonpolyLogReader<R> {
    /// Skips time points whose timestamp is smaller than an earlier one, with a warning (as
    /// MonPoly does), instead of stopping with an error.
    pub fn skip_out_of_order(&mut self, skip: bool) {
        self.skip_out_of_order = skip;
    }

    /// Warnings produced so far (taken).
    pub fn take_warnings(&mut self) -> Vec<String> {
        std::mem::take(&mut self.warnings)
    }

    /// Numbers the time point just read, with timestamp `ts`, whose `@` line starts at `at`.
    fn start_time_point(&mut self, tp: &mut TimePoint, ts: Timestamp, at: u64) {
        self.tp_line = (at, true);
        self.last_ts = Some(ts);
        tp.index = self.next_index;
        tp.ts = ts;
        self.next_index += 1;
    }

    /// Between lines (the current line used up), reads the next line as a time point straight
    /// from the reader's buffer, without copying it, if it has the fast shape and the buffer
    /// also holds the next line's first byte, `@` (so that the time point ends with the
    /// line); returns whether it did, leaving the reader between lines again.
    fn buffered_line(&mut self, tp: &mut TimePoint) -> bool {
        // A read error is left to the general reader, which reports it.
        let Ok(buf) = self.src.fill_buf() else {
            return false;
        };
        let Some(nl) = memchr::memchr(b'\n', buf) else {
            return false;
        };
        if buf.get(nl + 1) != Some(&b'@') {
            return false;
        }
        let line = (buf, content_end(&buf[..=nl]));
        let Some(ts) = self.fast.parse(line, self.last_ts, tp, &mut self.interner) else {
            return false;
        };
        self.ahead = self.watch && two_lines_ahead(&buf[nl + 1..]);
        let at = self.line_offset + self.line.len() as u64;
        self.line.clear();
        self.line_no += 1;
        self.line_offset = at + nl as u64 + 1;
        self.pos = 0;
        self.src.consume(nl + 1);
        self.start_time_point(tp, ts, at);
        true
    }

    /// Reads the events of the current time point, up to the next `@`, `;`, command or end.
    fn events_into(&mut self, tp: &mut TimePoint) -> Result<(), Error> {
        loop {
            match self.peek()? {
                None | Some(b'@') | Some(b'>') => break,
                Some(b';') => {
                    self.pos += 1;
                    break;
                }
                Some(b) if b.is_ascii_alphanumeric() || b == b'_' || b == b'"' => {
                    let at = (self.line_no, self.pos);
                    self.name.clear();
                    let known = if b == b'"' {
                        self.value_text()?;
                        self.name.push_str(&String::from_utf8_lossy(&self.scratch));
                        self.preds.iter().position(|p| p.name == self.name)
                    } else {
                        // PERF: a name seen before is found by its bytes, without checking
                        // them as UTF-8 again.
                        let w = self.word();
                        let bytes = &self.line[w.clone()];
                        let prefix = name_prefix(bytes);
                        let known = self.preds.iter().position(|p| p.is(bytes, prefix));
                        match known {
                            Some(k) => self.name.push_str(&self.preds[k].name),
                            None => self.name.push_str(&String::from_utf8_lossy(bytes)),
                        }
                        known
                    };
                    self.tuples(at, known, tp)?;
                }
                Some(_) => {
                    let found = self.found();
                    return Err(self.err(format!("expected a predicate name, `@` or `;`, {found}")));
                }
            }
        }
        Ok(())
    }

    /// Executes a `>command args<`; returns true when the command ends the trace.
    fn command(&mut self) -> Result<bool, Error> {
        let start = self.here();
        self.pos += 1;
        let end = memchr::memchr(b'<', &self.line[self.pos..]).ok_or_else(|| {
            Error::at(
                start.clone(),
                "unterminated command: expected `<` on the same line",
            )
        })?;
        let body = String::from_utf8_lossy(&self.line[self.pos..self.pos + end])
            .trim()
            .to_string();
        self.pos += end + 1;
        let mut words = body.split_whitespace();
        let verb = words.next().unwrap_or("");
        match verb {
            "terminate" => Ok(true),
            "save_state" | "save_and_exit" if self.state_commands => {
                let (Some(file), None) = (words.next(), words.next()) else {
                    return Err(Error::at(
                        start,
                        format!("`>{verb}<` expects one file name, as in `>{verb} monitor.state<`"),
                    ));
                };
                let file = file.to_string();
                if verb == "save_state" {
                    self.commands.push(StateCommand::Save(file));
                    Ok(false)
                } else {
                    self.commands.push(StateCommand::SaveAndExit(file));
                    Ok(true)
                }
            }
            _ => Err(Error::at(
                start,
                format!(
                    "unsupported log command `>{body}<` (rvmon supports `>terminate<`{})",
                    if self.state_commands {
                        ", `>save_state FILE<` and `>save_and_exit FILE<`"
                    } else {
                        "; `rvmon monpoly` also takes `>save_state FILE<`"
                    }
                ),
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A decoded time point: timestamp and (event name, values) pairs.
    type Decoded = (i64, Vec<(String, Vec<Value>)>);

    fn read_all(text: &str, sig: Option<&str>) -> Result<Vec<Decoded>, Error> {
        read_with(text, sig, true, 1 << 16, &mut Vec::new())
    }

    /// Reads `text` through a buffer of `buffer` bytes, with or without the fast path; `where_` gets, for each time point, its
    /// index, where its `@` line starts and where the line being read starts.
    fn read_with(
        text: &str,
        sig: Option<&str>,
        simple_lines: bool,
        buffer: usize,
        where_: &mut Vec<(u64, (u64, bool), u64)>,
    ) -> Result<Vec<Decoded>, Error> {
        let sig = sig.map(|s| Signature::parse("sig", s).unwrap());
        let src = std::io::BufReader::with_capacity(buffer, text.as_bytes());
        let mut r = MonpolyLogReader::new(src, "log", sig);
        r.simple_lines = simple_lines;
        let mut tp = TimePoint::default();
        let mut out = Vec::new();
        while r.next_time_point(&mut tp)? {
            where_.push((tp.index, r.time_point_line(), r.line_offset()));
            let evs = tp
                .events
                .iter()
                .map(|e| {
                    (
                        r.interner().resolve(e.name).to_string(),
                        tp.args_of(e).to_vec(),
                    )
                })
                .collect();
            out.push((tp.ts, evs));
        }
        // At the end, both paths have read every line.
        where_.push((u64::MAX, (0, false), r.lines_read() as u64));
        Ok(out)
    }

    #[test]
    fn several_tuples_continuation_lines_and_empty_points() {
        let t = read_all(
            "@100 P (2) (3)\n  Q (1,\"a b\")\n@100;@105\n@106 T () () U\n",
            None,
        )
        .unwrap();
        assert_eq!(t.len(), 4);
        assert_eq!(t[0].1.len(), 3);
        assert_eq!(t[1], (100, vec![]));
        assert_eq!(t[2], (105, vec![]));
        assert_eq!(
            t[3].1.len(),
            3,
            "U without a tuple is one empty tuple, as in MonPoly"
        );
    }

    proptest::proptest! {
        /// The fast path for unquoted integers (taken when a `,` or `)` follows at once) reads
        /// the same values as the general path (forced here by spaces around the values).
        #[test]
        fn tight_and_spaced_tuples_read_alike(
            values in proptest::collection::vec(
                "[-+]?[0-9]{1,20}(\\.[0-9]{1,3})?|[b-d][b-d0-9]{0,3}|\"[b-d ]{0,3}\"",
                1..4,
            )
        ) {
            let tight = format!("@0 p({})", values.join(","));
            let spaced = format!("@0 p( {} )", values.join(" , "));
            let (a, b) = (read_all(&tight, None), read_all(&spaced, None));
            proptest::prop_assert_eq!(format!("{a:?}"), format!("{b:?}"));
        }

        #[test]
        fn integers_parse_as_the_standard_library_does(t in "[-+]?[0-9]{0,21}|[-+0-9a]{0,4}") {
            proptest::prop_assert_eq!(parse_int(t.as_bytes()), t.parse::<i64>().ok());
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]

        /// A log read with the fast path for lines of the common shape reads as it does
        /// without: the same time points, events, positions and errors. Most lines are
        /// well-formed (so that the fast path runs on a known predicate); the others, and the
        /// suffixes, mix in everything that must leave it: spaces, signs, long numbers,
        /// strings, floats, names without tuples, comments, `;`, continuation lines,
        /// decreasing and bad timestamps, arity and type errors under a signature.
        #[test]
        fn the_fast_path_reads_as_the_general_reader(
            lines in proptest::collection::vec(
                (
                    0..3u32,
                    proptest::collection::vec(
                        "p\\(-?[0-9]{1,3}\\)|q ?\\(-?[0-9]{1,3},-?[0-9]{1,3}\\)|pqrstuvwxyz ?\\([0-9]{1,19}\\)( ?\\(-?[0-9]{1,2}\\))?|r\\(\"s\"\\)|r\\([0-9]\\)|r\\([a-zé0-9.-]{1,3}\\)|r\\([a-z][ \"#(][a-z]\\)|f\\(-?[0-9](\\.5)?\\)|s\\(\\)",
                        0..3,
                    ),
                    proptest::option::weighted(0.15, "[ \t]{1,2}|[ \t]*(;|#c|\r|>terminate<)|\n[ \t]+q\\(1,2\\)|\n[ \t]*\\(1(,2)?\\)|\n(#c)?\n[ \t]*\\(3\\)|p\\(|\\(1\\)|q\\(1\\)"),
                    proptest::option::weighted(
                        0.1,
                        "(@(0|1|2|3|5|007|-1|[0-9]{18,19}|x)|  )([ \t]{0,2}(p|q|r|s|pqrstuvwxyz|\"p\")( ?)(\\((-?[0-9]{1,3}|-?[0-9]{18,19}|\\+1|x|1\\.5|\"s\")?(, ?(-?[0-9]{1,3}|x))?\\)){0,2}){0,3}",
                    ),
                ),
                1..12,
            ),
            typed in proptest::bool::ANY,
            newline_at_end in proptest::bool::ANY,
            primed in proptest::bool::ANY,
            buffer in proptest::prop_oneof![1..40usize, proptest::strategy::Just(1 << 16)],
        ) {
            // Half the logs start with every predicate, so that the next lines may go fast.
            let mut ts = 0;
            let primer = primed.then(|| "@0 p(0) q(0,0) s() pqrstuvwxyz(0) r(x) f(1)".to_string());
            let lines: Vec<String> = lines
                .into_iter()
                .map(|(step, events, suffix, odd)| {
                    ts += step;
                    odd.unwrap_or_else(|| {
                        format!("@{ts} {}{}", events.join(" "), suffix.unwrap_or_default())
                    })
                })
                .collect();
            let lines: Vec<String> = primer.into_iter().chain(lines).collect();
            let mut log = lines.join("\n");
            if newline_at_end {
                log.push('\n');
            }
            let sig = typed.then_some("p(int) q(int,int) r(string) s() pqrstuvwxyz(int) f(float)");
            let (mut wa, mut wb) = (Vec::new(), Vec::new());
            let fast = read_with(&log, sig, true, buffer, &mut wa);
            let general = read_with(&log, sig, false, 1 << 16, &mut wb);
            proptest::prop_assert_eq!(format!("{fast:?}"), format!("{general:?}"));
            proptest::prop_assert_eq!(wa, wb);
        }
    }

    #[test]
    fn extreme_integers() {
        for t in [
            "-9223372036854775808",
            "9223372036854775807",
            "9223372036854775808",
            "-0",
            "+7",
        ] {
            assert_eq!(parse_int(t.as_bytes()), t.parse::<i64>().ok(), "{t}");
        }
    }

    #[test]
    fn typed_by_signature() {
        let t = read_all("@0 p(1, 2.5, x)", Some("p(int, float, string)")).unwrap();
        assert!(
            matches!(t[0].1[0].1[..], [Value::Int(1), Value::Float(f), Value::Str(_)] if f == 2.5)
        );
    }

    /// A source whose input arrives in chunks: asking for more when a chunk is used up
    /// counts as a wait (a pipe whose writer has not written the next chunk yet).
    struct Chunked {
        chunks: Vec<Vec<u8>>,
        at: usize,
        pos: usize,
        waits: usize,
    }

    impl std::io::Read for Chunked {
        fn read(&mut self, out: &mut [u8]) -> std::io::Result<usize> {
            let n = {
                let buf = self.fill_buf()?;
                let n = buf.len().min(out.len());
                out[..n].copy_from_slice(&buf[..n]);
                n
            };
            self.consume(n);
            Ok(n)
        }
    }

    impl BufRead for Chunked {
        fn fill_buf(&mut self) -> std::io::Result<&[u8]> {
            while self.at < self.chunks.len() && self.pos >= self.chunks[self.at].len() {
                self.at += 1;
                self.pos = 0;
                self.waits += 1;
            }
            Ok(self.chunks.get(self.at).map_or(&[][..], |c| &c[self.pos..]))
        }

        fn consume(&mut self, n: usize) {
            self.pos += n;
        }
    }

    proptest::proptest! {
        /// `input_pending` promises that the next time point reads without waiting for input
        /// (an online monitor batches such time points and writes its verdicts otherwise). On
        /// logs of simple and other lines (strings, continuation lines, commands, empty time
        /// points), cut into chunks anywhere: no read after a promise waits, the promise is
        /// made for a time point whose line follows in the same chunk, and the time points
        /// are those read from one buffer.
        #[test]
        fn input_pending_promises_no_wait(
            lines in proptest::collection::vec(
                "@[0-9] p\\([0-9]\\)( q\\([0-9],[0-9]\\))?|@[0-9] r\\(\"a b\"\\)|@[0-9]|@[0-9] p\\(1\\)\n  p\\(2\\)|>terminate<|#c",
                1..12,
            ),
            cuts in proptest::collection::vec(0usize..200, 0..6),
        ) {
            let mut ts = 0;
            let text: String = lines
                .iter()
                .map(|l| {
                    // Timestamps that do not decrease.
                    let l = match l.strip_prefix('@') {
                        Some(rest) => {
                            ts += rest.as_bytes()[0] - b'0';
                            format!("@{ts}{}", &rest[1..])
                        }
                        None => l.clone(),
                    };
                    l + "\n"
                })
                .collect();
            let bytes = text.as_bytes();
            let mut cuts: Vec<usize> = cuts.into_iter().map(|c| c % (bytes.len() + 1)).collect();
            cuts.push(0);
            cuts.push(bytes.len());
            cuts.sort_unstable();
            cuts.dedup();
            let chunks = cuts.windows(2).map(|w| bytes[w[0]..w[1]].to_vec()).collect();
            let src = Chunked { chunks, at: 0, pos: 0, waits: 0 };
            let mut r = MonpolyLogReader::new(src, "log", None);
            r.watch_input();
            let mut tp = TimePoint::default();
            let mut got = Vec::new();
            loop {
                let (promised, waits) = (r.input_pending(), r.src.waits);
                let more = r.next_time_point(&mut tp);
                if promised {
                    proptest::prop_assert_eq!(r.src.waits, waits, "{:?}", text);
                }
                match more {
                    Ok(true) => got.push(tp.ts),
                    Ok(false) => break,
                    Err(e) => {
                        got.push(-1);
                        let _ = e;
                        break;
                    }
                }
            }
            let mut whole = Vec::new();
            let mut r = MonpolyLogReader::new(std::io::BufReader::new(bytes), "log", None);
            loop {
                match r.next_time_point(&mut tp) {
                    Ok(true) => whole.push(tp.ts),
                    Ok(false) => break,
                    Err(_) => {
                        whole.push(-1);
                        break;
                    }
                }
            }
            proptest::prop_assert_eq!(got, whole);
        }
    }

    #[test]
    fn input_pending_looks_one_line_ahead() {
        let chunks = vec![
            b"@0 p(1)\n@1 p(2)\n@2 p(3)\n@3 p(4)\n".to_vec(),
            b"@4 p(5)\n".to_vec(),
        ];
        let src = Chunked {
            chunks,
            at: 0,
            pos: 0,
            waits: 0,
        };
        let mut r = MonpolyLogReader::new(src, "log", None);
        r.watch_input();
        let mut tp = TimePoint::default();
        let mut pending = Vec::new();
        while r.next_time_point(&mut tp).unwrap() {
            pending.push(r.input_pending());
        }
        // The first line goes the general way, which promises nothing. After @1, the buffer
        // holds @2's line and @3's; after @2, @3's line but not the line after it, which is
        // in the next chunk: reading @3 may wait.
        assert_eq!(pending, [false, true, false, false, false]);
    }

    #[test]
    fn errors_point_at_the_problem() {
        let e = read_all("@0 p(1)\n@1 p(x)", Some("p(int)")).unwrap_err();
        assert_eq!(e.to_string(), "log:2:6: expected an integer, found `x`");
        let e = read_all("@0 p(-99999999999999999999)", Some("p(int)")).unwrap_err();
        assert_eq!(
            e.to_string(),
            "log:1:6: expected an integer of 64 bits (from -9223372036854775808 to \
             9223372036854775807), found `-99999999999999999999`"
        );
        let e = read_all("@0 p(1\n", None).unwrap_err();
        assert_eq!(
            e.to_string(),
            "log:1:7: expected `,` or `)` in a tuple, found the end of the input"
        );
        let e = read_all("@5 p()\n@4 p()", None).unwrap_err();
        assert_eq!(
            e.to_string(),
            "log:2:2: timestamps must not decrease: 4 comes after 5"
        );
        for log in ["@x", "@-1", "@-1\n@2"] {
            let e = read_all(log, None).unwrap_err();
            assert!(
                e.to_string().starts_with("log:1:2: expected a timestamp"),
                "{e}"
            );
        }
        let e = read_all("@1 q()", Some("p()")).unwrap_err();
        assert_eq!(
            e.to_string(),
            "log:1:4: predicate `q` is not declared in the signature"
        );
    }
}
