//! One stream: its monitor, fed the stream's batches in order, and its two logs. The
//! write-ahead log holds every accepted batch; the verdict log every verdict, numbered. A
//! batch is acknowledged once it is on disk in the write-ahead log and its verdicts are in
//! the verdict log (written, not waited for: they follow from the batches). On start, the
//! stream replays its write-ahead log into a new monitor: the verdicts come out again, in the
//! same order and with the same numbers, and those the verdict log already has are not
//! written twice (the ones a crash kept from it are).

use std::fs::{File, OpenOptions};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use rvmon::sink::{FormatSink, Output};
use rvmon_core::{Error, Interner, Sink};

use crate::engine::{Batch, Engine};
pub use crate::engine::{Format, Spec};
use crate::snapshot;
use crate::wal::{Record, Wal};

/// Why a batch was not taken, with the HTTP status it answers.
#[derive(Debug)]
pub struct Refusal {
    pub status: u16,
    pub message: String,
}

fn refuse(status: u16, message: impl Into<String>) -> Refusal {
    Refusal {
        status,
        message: message.into(),
    }
}

impl From<Error> for Refusal {
    fn from(e: Error) -> Refusal {
        refuse(500, e.to_string())
    }
}

/// A stream's counters, as `GET /v1/streams/{name}` gives them.
#[derive(Clone, Copy, Debug)]
pub struct Status {
    /// Time points accepted.
    pub offset: u64,
    /// Verdicts written (the last one's `seq`).
    pub verdicts: u64,
    pub closed: bool,
}

impl Status {
    pub fn json(&self) -> String {
        format!(
            "{{\"offset\":{},\"verdicts\":{},\"closed\":{}}}",
            self.offset, self.verdicts, self.closed
        )
    }
}

/// A stream, owned by its worker thread.
pub struct Stream {
    spec: Spec,
    dir: PathBuf,
    engine: Engine,
    interner: Interner,
    wal: Wal,
    /// The write-ahead log's generation (see [`crate::snapshot`]).
    generation: u64,
    verdicts: VerdictLog,
    offset: u64,
    last_ts: Option<i64>,
    closed: bool,
    /// A snapshot after this many time points (`None`: never; also when the engine cannot
    /// take one, and then a restart replays the whole log).
    snapshot_every: Option<u64>,
    since_snapshot: u64,
    /// Told the number of the last verdict whenever there are new ones.
    notify: Option<tokio::sync::watch::Sender<(u64, bool)>>,
}

impl Stream {
    /// Opens the stream kept in `dir` (made if new): its monitor, from its snapshot if it has
    /// one, after the replay of the write-ahead log written since. A snapshot is taken every
    /// `snapshot_every` time points.
    pub fn open(dir: &Path, spec: &Spec, snapshot_every: Option<u64>) -> Result<Stream, Error> {
        std::fs::create_dir_all(dir).map_err(|e| Error::file(&dir.display().to_string(), &e))?;
        let saved = snapshot::load(dir)?;
        let mut interner = match &saved {
            Some(s) => Interner::restore(&s.strings),
            None => Interner::new(),
        };
        // (Built with the saved strings, the spec's constants get the ids the state uses.)
        let mut engine = spec.engine(&mut interner)?;
        let generation = saved.as_ref().map_or(0, |s| s.generation);
        snapshot::remove_old_logs(dir, generation);
        let (wal, records) = Wal::open(&snapshot::wal_path(dir, generation))?;
        let mut verdicts = VerdictLog::open(&dir.join("verdicts.jsonl"))?;
        let (mut offset, mut last_ts, mut closed) = (0, None, false);
        if let Some(s) = saved {
            engine.restore(&s.engine)?;
            (offset, last_ts, closed) = (s.offset, s.last_ts, s.closed);
            verdicts.next_seq = s.next_seq;
        }
        let mut stream = Stream {
            spec: spec.clone(),
            dir: dir.to_path_buf(),
            engine,
            interner,
            wal,
            generation,
            verdicts,
            offset,
            last_ts,
            closed,
            snapshot_every,
            since_snapshot: 0,
            notify: None,
        };
        for record in records {
            match record {
                Record::Batch { skip, format, body } => {
                    let first = stream.offset - skip;
                    let mut batch = stream.parse(format, &body, first)?;
                    stream.feed(&mut batch, skip as usize)?;
                }
                Record::Close => stream.finish()?,
            }
        }
        stream.verdicts.sync()?;
        Ok(stream)
    }

    /// The stream, telling `notify` the number of its last verdict and whether it is closed
    /// whenever they change.
    pub fn notifying(mut self, notify: tokio::sync::watch::Sender<(u64, bool)>) -> Stream {
        self.notify = Some(notify);
        self.tell();
        self
    }

    fn tell(&self) {
        if let Some(n) = &self.notify {
            n.send_replace((self.verdicts.next_seq - 1, self.closed));
        }
    }

    /// Takes a snapshot if `snapshot_every` time points came since the last one. A failure
    /// is said and changes nothing: the write-ahead log still has every batch.
    fn maybe_snapshot(&mut self) {
        let Some(every) = self.snapshot_every else {
            return;
        };
        if self.since_snapshot < every {
            return;
        }
        if let Err(e) = self.snapshot() {
            eprintln!(
                "rvmon: {}: no snapshot ({e}); a restart replays the whole log",
                self.dir.display()
            );
            self.snapshot_every = None;
        }
    }

    /// Saves the stream's state and starts a new write-ahead log (see [`crate::snapshot`]).
    fn snapshot(&mut self) -> Result<(), Error> {
        let engine = self.engine.snapshot()?;
        // (The verdicts are in the page cache; the snapshot's numbers must not get ahead of
        // the file on disk.)
        self.verdicts.sync()?;
        let next = self.generation + 1;
        let saved = snapshot::Snapshot {
            generation: next,
            offset: self.offset,
            last_ts: self.last_ts,
            closed: self.closed,
            next_seq: self.verdicts.next_seq,
            strings: self.interner.save(),
            engine,
        };
        snapshot::save(&self.dir, &saved)?;
        let (wal, _) = Wal::open(&snapshot::wal_path(&self.dir, next))?;
        self.wal = wal;
        self.generation = next;
        snapshot::remove_old_logs(&self.dir, next);
        self.since_snapshot = 0;
        Ok(())
    }

    pub fn status(&self) -> Status {
        Status {
            offset: self.offset,
            verdicts: self.verdicts.next_seq - 1,
            closed: self.closed,
        }
    }

    /// Takes a batch (`body`, in `format`) whose first time point is the stream's `from`-th
    /// (appended after the last if `None`): durable, then monitored. The stream's offset
    /// after it, or why it was refused (and then nothing changed).
    pub fn append(
        &mut self,
        format: Format,
        body: &[u8],
        from: Option<u64>,
    ) -> Result<u64, Refusal> {
        if self.closed {
            return Err(refuse(
                409,
                "the stream is closed: it takes no more time points",
            ));
        }
        let first = from.unwrap_or(self.offset);
        let mut batch = self
            .parse(format, body, first)
            .map_err(|e| refuse(400, e.to_string()))?;
        if first > self.offset {
            return Err(refuse(
                409,
                format!(
                    "from={first}: the stream has {} time points, so a batch from {first} \
                     would leave a gap",
                    self.offset
                ),
            ));
        }
        let skip = ((self.offset - first) as usize).min(batch.len());
        if skip == batch.len() {
            return Ok(self.offset);
        }
        if let (Some(last), Some(ts)) = (self.last_ts, batch.ts(skip)) {
            if ts < last {
                return Err(refuse(
                    409,
                    format!(
                        "time point {}: its time is earlier than the stream's last one \
                         (timestamps must not decrease)",
                        self.offset
                    ),
                ));
            }
        }
        self.wal.append(&Record::Batch {
            skip: skip as u64,
            format,
            body: body.to_vec(),
        })?;
        self.feed(&mut batch, skip)?;
        self.since_snapshot += (batch.len() - skip) as u64;
        self.maybe_snapshot();
        Ok(self.offset)
    }

    /// Ends the stream: its last verdicts, durable.
    pub fn close(&mut self) -> Result<(), Error> {
        if self.closed {
            return Ok(());
        }
        self.wal.append(&Record::Close)?;
        self.finish()?;
        self.verdicts.sync()
    }

    /// The batch's time points, read as the command line reads a trace, their strings in
    /// the stream's interner.
    fn parse(&mut self, format: Format, body: &[u8], first: u64) -> Result<Batch, Error> {
        self.engine
            .parse(&self.spec, format, body, &mut self.interner, first)
    }

    /// Monitors the batch's time points from the `skip`-th, numbered after the stream's.
    fn feed(&mut self, batch: &mut Batch, skip: usize) -> Result<(), Error> {
        let mut out = Vec::new();
        {
            let mut sink = FormatSink::new(&mut out, Output::Jsonl);
            self.engine
                .feed(batch, skip, self.offset, &mut self.interner, &mut sink)?;
            sink.end_batch()?;
        }
        self.verdicts.take(&out)?;
        self.tell();
        if let Some(ts) = batch.ts(batch.len() - 1) {
            self.last_ts = Some(ts);
        }
        self.offset += (batch.len() - skip) as u64;
        Ok(())
    }

    fn finish(&mut self) -> Result<(), Error> {
        let mut out = Vec::new();
        {
            let mut sink = FormatSink::new(&mut out, Output::Jsonl);
            self.engine.finish(&mut self.interner, &mut sink)?;
            sink.end_batch()?;
        }
        self.verdicts.take(&out)?;
        self.closed = true;
        self.tell();
        Ok(())
    }
}

/// The verdict log: a JSON object a line, numbered from 1 (`"seq"`). `written` lines are on
/// file; a verdict made again by a replay, with a number already there, is not written twice.
struct VerdictLog {
    file: File,
    path: String,
    written: u64,
    next_seq: u64,
    dirty: bool,
}

impl VerdictLog {
    fn open(path: &PathBuf) -> Result<VerdictLog, Error> {
        let name = path.display().to_string();
        let io = |e: std::io::Error| Error::msg(format!("{name}: {e}"));
        let mut file = OpenOptions::new()
            .read(true)
            .append(true)
            .create(true)
            .open(path)
            .map_err(io)?;
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes).map_err(io)?;
        // (A line cut short by a crash was never acknowledged: it goes, and comes again.)
        let whole = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
        // Whole lines numbered 1, 2, 3, … in order; anything else from the first line that is
        // not (what a machine crash may leave where the last writes were) goes too.
        let mut written = 0u64;
        let mut kept = 0;
        for line in bytes[..whole].split_inclusive(|&b| b == b'\n') {
            if !line.starts_with(format!("{{\"seq\":{},", written + 1).as_bytes()) {
                break;
            }
            written += 1;
            kept += line.len();
        }
        if kept < bytes.len() {
            file.set_len(kept as u64).map_err(io)?;
        }
        Ok(VerdictLog {
            file,
            path: name,
            written,
            next_seq: 1,
            dirty: false,
        })
    }

    /// Numbers the verdicts `jsonl` (the sink's lines) and writes those not on file yet.
    fn take(&mut self, jsonl: &[u8]) -> Result<(), Error> {
        let mut out = Vec::new();
        for line in jsonl.split(|&b| b == b'\n').filter(|l| l.starts_with(b"{")) {
            let seq = self.next_seq;
            self.next_seq += 1;
            if seq <= self.written {
                continue;
            }
            out.extend_from_slice(format!("{{\"seq\":{seq},").as_bytes());
            out.extend_from_slice(&line[1..]);
            out.push(b'\n');
            self.written = seq;
        }
        if !out.is_empty() {
            self.file
                .write_all(&out)
                .map_err(|e| Error::msg(format!("{}: {e}", self.path)))?;
            self.dirty = true;
        }
        Ok(())
    }

    fn sync(&mut self) -> Result<(), Error> {
        if std::mem::take(&mut self.dirty) {
            self.file
                .sync_data()
                .map_err(|e| Error::msg(format!("{}: {e}", self.path)))?;
        }
        Ok(())
    }
}

/// The verdicts of the log at `path` numbered after `after`, as JSON Lines (whole lines only:
/// a line being written is left for the next read).
pub fn read_verdicts(path: &Path, after: u64) -> Result<Vec<u8>, Error> {
    Ok(read_verdicts_from(path, after, None)?.0)
}

/// [`read_verdicts`], and where the lines returned end in the file. `at` is where the verdict
/// numbered `after` ends, when known (a live reader's place): then only what follows it is
/// read, not the file from its start.
pub fn read_verdicts_from(
    path: &Path,
    after: u64,
    at: Option<u64>,
) -> Result<(Vec<u8>, u64), Error> {
    use std::io::{Seek, SeekFrom};
    let name = || path.display().to_string();
    let mut bytes = Vec::new();
    let start = at.unwrap_or(0);
    match File::open(path) {
        Ok(mut f) => {
            f.seek(SeekFrom::Start(start))
                .and_then(|_| f.read_to_end(&mut bytes))
                .map_err(|e| Error::file(&name(), &e))?;
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok((Vec::new(), start)),
        Err(e) => return Err(Error::file(&name(), &e)),
    }
    let whole = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    let end = start + whole as u64;
    if at.is_some() {
        bytes.truncate(whole);
        return Ok((bytes, end));
    }
    let mut out = Vec::new();
    for (k, line) in bytes[..whole].split_inclusive(|&b| b == b'\n').enumerate() {
        if k as u64 + 1 > after {
            out.extend_from_slice(line);
        }
    }
    Ok((out, end))
}

#[cfg(test)]
mod tests {
    use super::*;

    const M: Format = Format::Monpoly;

    fn spec() -> Spec {
        Spec {
            name: "p.mtl".into(),
            text: "request() IMPLIES EVENTUALLY[0,5] grant()".into(),
            lang: None,
            sig: None,
        }
    }

    fn fresh(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("rvmon-stream-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        d
    }

    #[test]
    fn batches_are_monitored_and_replayed_without_duplicates() {
        let dir = fresh("replay");
        let mut s = Stream::open(&dir, &spec(), None).unwrap();
        assert_eq!(
            s.append(M, b"@0 request()\n@2 grant()\n@3 request()\n", None)
                .unwrap(),
            3
        );
        assert_eq!(s.append(M, b"@9 heartbeat()\n", None).unwrap(), 4);
        // A resend of time points it has: nothing changes.
        assert_eq!(
            s.append(M, b"@3 request()\n@9 heartbeat()\n", Some(2))
                .unwrap(),
            4
        );
        let bad = s.append(M, b"@10 request(\n", None).unwrap_err();
        assert_eq!(bad.status, 400, "{}", bad.message);
        assert!(bad.message.contains("<batch>:1:"), "{}", bad.message);
        assert_eq!(s.append(M, b"@12 p()\n", Some(7)).unwrap_err().status, 409);
        assert_eq!(s.append(M, b"@1 p()\n", None).unwrap_err().status, 409);
        let before = std::fs::read_to_string(dir.join("verdicts.jsonl")).unwrap();
        assert_eq!(
            before,
            "{\"seq\":1,\"tp\":2,\"ts\":3,\"verdict\":\"violation\"}\n"
        );
        drop(s);
        // A replay makes the same verdicts and writes none twice.
        let mut s = Stream::open(&dir, &spec(), None).unwrap();
        assert_eq!(s.status().offset, 4);
        assert_eq!(
            std::fs::read_to_string(dir.join("verdicts.jsonl")).unwrap(),
            before
        );
        s.close().unwrap();
        assert!(s.status().closed);
        assert_eq!(s.append(M, b"@20 p()\n", None).unwrap_err().status, 409);
    }

    #[test]
    fn snapshots_start_a_new_log_and_change_no_verdict() {
        let batches: Vec<String> = (0..12)
            .map(|k| format!("@{} request()\n@{} heartbeat()\n", 10 * k, 10 * k + 7))
            .collect();
        let plain = fresh("plain");
        let snapped = fresh("snapped");
        let mut a = Stream::open(&plain, &spec(), None).unwrap();
        let mut b = Stream::open(&snapped, &spec(), Some(4)).unwrap();
        for (k, batch) in batches.iter().enumerate() {
            a.append(M, batch.as_bytes(), None).unwrap();
            b.append(M, batch.as_bytes(), None).unwrap();
            if k == 6 {
                // A restart in the middle: from the snapshot and the log since.
                drop(b);
                b = Stream::open(&snapped, &spec(), Some(4)).unwrap();
                assert_eq!(b.status().offset, 14);
            }
        }
        assert!(snapped.join("snapshot").exists());
        let logs: Vec<_> = std::fs::read_dir(&snapped)
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".wal"))
            .collect();
        assert_eq!(logs.len(), 1, "the old logs are gone: {logs:?}");
        assert_ne!(logs[0], "events.0.wal");
        a.close().unwrap();
        b.close().unwrap();
        let read = |d: &Path| std::fs::read_to_string(d.join("verdicts.jsonl")).unwrap();
        assert_eq!(read(&snapped), read(&plain));
        assert_eq!(read(&plain).lines().count(), 12);
        drop(b);
        let b = Stream::open(&snapped, &spec(), Some(4)).unwrap();
        assert_eq!(b.status().offset, 24);
        assert!(b.status().closed);
    }

    #[test]
    fn verdicts_are_read_after_a_number_or_from_a_place() {
        let dir = fresh("read");
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("v.jsonl");
        std::fs::write(&path, "{\"seq\":1}\n{\"seq\":2}\n{\"seq\":3}\n{\"seq\":4").unwrap();
        let (lines, end) = read_verdicts_from(&path, 1, None).unwrap();
        assert_eq!(lines, b"{\"seq\":2}\n{\"seq\":3}\n");
        assert_eq!(read_verdicts(&path, 0).unwrap().len() as u64, end);
        let mut text = std::fs::read_to_string(&path).unwrap();
        text.push_str("}\n{\"seq\":5}\n");
        std::fs::write(&path, text).unwrap();
        let (lines, _) = read_verdicts_from(&path, 3, Some(end)).unwrap();
        assert_eq!(lines, b"{\"seq\":4}\n{\"seq\":5}\n");
        assert_eq!(read_verdicts(&dir.join("none"), 0).unwrap(), b"");
    }
}
