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

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use rvmon::sink::{FormatSink, Output};
use rvmon_core::{Decision, Error, Interner, Kind, Sink};

pub use crate::access::Policy;
use crate::engine::{Batch, Engine};
pub use crate::engine::{Format, Spec};
use crate::snapshot;
use crate::wal::{Drop, Record, Wal};

/// Why a batch was not taken, with the HTTP status it answers.
#[derive(Debug)]
pub struct Refusal {
    pub status: u16,
    pub message: String,
    /// The verdict an enforcement refusal is for (its JSON object).
    pub verdict: Option<String>,
}

pub(crate) fn refuse(status: u16, message: impl Into<String>) -> Refusal {
    Refusal {
        status,
        message: message.into(),
        verdict: None,
    }
}

impl From<Error> for Refusal {
    fn from(e: Error) -> Refusal {
        refuse(500, e.to_string())
    }
}

/// A stream's counters, as `GET /v1/streams/{name}` gives them.
#[derive(Clone, Debug)]
pub struct Status {
    /// Time points accepted.
    pub offset: u64,
    /// Time points monitored (the others wait for the watermark, `--max-lateness`).
    pub monitored: u64,
    /// Verdicts written (the last one's `seq`).
    pub verdicts: u64,
    pub closed: bool,
    /// Per source, the time points it sent that were accepted.
    pub sources: BTreeMap<String, u64>,
}

impl Status {
    pub fn json(&self) -> String {
        let sources: serde_json::Map<String, serde_json::Value> = self
            .sources
            .iter()
            .map(|(k, v)| (k.clone(), (*v).into()))
            .collect();
        format!(
            "{{\"offset\":{},\"monitored\":{},\"pending\":{},\"verdicts\":{},\"closed\":{},\"sources\":{}}}",
            self.offset,
            self.monitored,
            self.offset - self.monitored,
            self.verdicts,
            self.closed,
            serde_json::Value::Object(sources)
        )
    }
}

/// How a stream takes its batches, besides their specification.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// A snapshot after this many time points (`None`: never).
    pub snapshot_every: Option<u64>,
    /// How much earlier than the newest time point so far a time point may come
    /// (`--max-lateness`), in the trace's time unit (seconds for events). 0: in order.
    pub max_lateness: f64,
    /// Enforcement (`--enforce`): time points whose verdict is a violation are refused.
    pub enforce: Option<Enforce>,
}

/// What enforcement does with a time point whose verdict would be a violation (or a
/// trigger): refuse the batch, unless taking out the events named in `drop` makes the
/// violation go away (paper 20's monitors that drop a message).
#[derive(Clone, Debug, Default)]
pub struct Enforce {
    pub drop: Vec<String>,
}

/// A batch to take: its body and where it goes.
pub struct Post<'a> {
    pub format: Format,
    pub body: &'a [u8],
    /// The number of its first time point: the stream's, or the source's if it has one.
    pub from: Option<u64>,
    /// Where it comes from: a source counts its own time points (one of several clients).
    pub source: Option<&'a str>,
    /// Who sends it, and what they may send.
    pub client: Option<(&'a Policy, &'a str)>,
}

impl<'a> Post<'a> {
    pub fn new(format: Format, body: &'a [u8]) -> Post<'a> {
        Post {
            format,
            body,
            from: None,
            source: None,
            client: None,
        }
    }

    pub fn from(mut self, from: Option<u64>) -> Post<'a> {
        self.from = from;
        self
    }
}

/// What a taken batch did.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Accepted {
    /// The stream's time points accepted so far.
    pub offset: u64,
    /// The source's, when the batch had one.
    pub source_offset: Option<u64>,
    /// The events enforcement took out, by time point (of the stream).
    pub dropped: Vec<(u64, Vec<String>)>,
}

impl Accepted {
    pub fn json(&self) -> String {
        let mut out = format!("{{\"offset\":{}", self.offset);
        if let Some(s) = self.source_offset {
            out.push_str(&format!(",\"source_offset\":{s}"));
        }
        if !self.dropped.is_empty() {
            let dropped: Vec<serde_json::Value> = self
                .dropped
                .iter()
                .map(|(tp, names)| serde_json::json!({"tp": tp, "events": names}))
                .collect();
            out.push_str(&format!(
                ",\"dropped\":{}",
                serde_json::Value::from(dropped)
            ));
        }
        out.push('}');
        out
    }
}

/// A stream's numbers, as `/metrics` reads them while the stream's thread runs.
#[derive(Debug, Default)]
pub struct Gauges {
    /// Time points accepted, and monitored (the difference waits for the watermark).
    pub offset: AtomicU64,
    pub monitored: AtomicU64,
    pub verdicts: AtomicU64,
    /// Requests waiting for the stream's thread.
    pub queued: AtomicU64,
    /// When the last snapshot was taken (Unix seconds; 0: none since the service started).
    pub snapshot_at: AtomicU64,
}

/// A stream, owned by its worker thread.
pub struct Stream {
    spec: Spec,
    dir: PathBuf,
    engine: Engine,
    /// The names of the inputs (events of stream and signal specifications).
    inputs: Vec<String>,
    interner: Interner,
    wal: Wal,
    /// The write-ahead log's generation (see [`crate::snapshot`]).
    generation: u64,
    verdicts: VerdictLog,
    /// Time points accepted, and monitored.
    offset: u64,
    monitored: u64,
    sources: BTreeMap<String, u64>,
    /// The newest time so far (the watermark is it minus `lateness`).
    newest: Option<i64>,
    /// Time points accepted and not monitored yet, in time order.
    pending: Option<Batch>,
    /// `--max-lateness`, in the unit of the batches' times (nanoseconds for events).
    lateness: i64,
    enforce: Option<Enforce>,
    closed: bool,
    /// A snapshot after this many time points (`None`: never; also when the engine cannot
    /// take one, and then a restart replays the whole log).
    snapshot_every: Option<u64>,
    since_snapshot: u64,
    /// Told the number of the last verdict whenever there are new ones.
    notify: Option<tokio::sync::watch::Sender<(u64, bool)>>,
    gauges: Option<Arc<Gauges>>,
}

impl Stream {
    /// Opens the stream kept in `dir` (made if new): its monitor, from its snapshot if it has
    /// one, after the replay of the write-ahead log written since.
    pub fn open(dir: &Path, spec: &Spec, options: &Options) -> Result<Stream, Error> {
        std::fs::create_dir_all(dir).map_err(|e| Error::file(&dir.display().to_string(), &e))?;
        let saved = snapshot::load(dir)?;
        let mut interner = match &saved {
            Some(s) => Interner::restore(&s.strings),
            None => Interner::new(),
        };
        // (Built with the saved strings, the spec's constants get the ids the state uses.)
        let engine = spec.engine(&mut interner)?;
        let lateness = engine.lateness(options.max_lateness)?;
        let generation = saved.as_ref().map_or(0, |s| s.generation);
        snapshot::remove_old_logs(dir, generation);
        let (wal, records) = Wal::open(&snapshot::wal_path(dir, generation))?;
        let mut stream = Stream {
            spec: spec.clone(),
            dir: dir.to_path_buf(),
            inputs: engine.input_names(),
            engine,
            interner,
            wal,
            generation,
            verdicts: VerdictLog::open(&dir.join("verdicts.jsonl"))?,
            offset: 0,
            monitored: 0,
            sources: BTreeMap::new(),
            newest: None,
            pending: None,
            lateness,
            enforce: options.enforce.clone(),
            closed: false,
            snapshot_every: options.snapshot_every,
            since_snapshot: 0,
            notify: None,
            gauges: None,
        };
        if let Some(s) = saved {
            stream.engine.restore(&s.engine)?;
            stream.verdicts.next_seq = s.next_seq;
            (stream.offset, stream.monitored, stream.closed) = (s.offset, s.monitored, s.closed);
            (stream.newest, stream.pending, stream.sources) = (s.newest, s.pending, s.sources);
        }
        for record in records {
            match record {
                Record::Batch {
                    skip,
                    format,
                    body,
                    source,
                    drops,
                } => {
                    let known = stream.known(source.as_deref());
                    let mut batch = stream.parse(format, &body, known.saturating_sub(skip))?;
                    let len = batch.len() as u64;
                    for d in drops.iter().filter(|d| d.at < len) {
                        batch.drop_events(d.at as usize, &d.names, &stream.interner);
                    }
                    stream.admit(batch, skip as usize, source.as_deref())?;
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

    /// The stream, keeping `gauges` up to date.
    pub fn gauged(mut self, gauges: Arc<Gauges>) -> Stream {
        self.gauges = Some(gauges);
        self.tell();
        self
    }

    fn tell(&self) {
        if let Some(n) = &self.notify {
            n.send_replace((self.verdicts.next_seq - 1, self.closed));
        }
        if let Some(g) = &self.gauges {
            g.offset.store(self.offset, Ordering::Relaxed);
            g.monitored.store(self.monitored, Ordering::Relaxed);
            g.verdicts
                .store(self.verdicts.next_seq - 1, Ordering::Relaxed);
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
            monitored: self.monitored,
            closed: self.closed,
            next_seq: self.verdicts.next_seq,
            strings: self.interner.save(),
            engine,
            newest: self.newest,
            pending: self.pending.take(),
            sources: self.sources.clone(),
        };
        let written = snapshot::save(&self.dir, &saved);
        self.pending = saved.pending;
        written?;
        let (wal, _) = Wal::open(&snapshot::wal_path(&self.dir, next))?;
        self.wal = wal;
        self.generation = next;
        snapshot::remove_old_logs(&self.dir, next);
        self.since_snapshot = 0;
        if let Some(g) = &self.gauges {
            let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH);
            g.snapshot_at
                .store(now.map_or(0, |d| d.as_secs()), Ordering::Relaxed);
        }
        Ok(())
    }

    pub fn status(&self) -> Status {
        Status {
            offset: self.offset,
            monitored: self.monitored,
            verdicts: self.verdicts.next_seq - 1,
            closed: self.closed,
            sources: self.sources.clone(),
        }
    }

    /// The time points the stream (or `source`) has accepted.
    fn known(&self, source: Option<&str>) -> u64 {
        match source {
            Some(s) => self.sources.get(s).copied().unwrap_or(0),
            None => self.offset,
        }
    }

    /// Takes a batch: checked, durable, then monitored (or kept until the watermark passes
    /// it). What it did, or why it was refused (and then nothing changed).
    pub fn append(&mut self, post: Post<'_>) -> Result<Accepted, Refusal> {
        if self.closed {
            return Err(refuse(
                409,
                "the stream is closed: it takes no more time points",
            ));
        }
        let known = self.known(post.source);
        let first = post.from.unwrap_or(known);
        let mut batch = self
            .parse(post.format, post.body, first)
            .map_err(|e| refuse(400, e.to_string()))?;
        if first > known {
            let whose = post
                .source
                .map_or("the stream".into(), |s| format!("source `{s}`"));
            return Err(refuse(
                409,
                format!(
                    "from={first}: {whose} has {known} time points, so a batch from {first} \
                     would leave a gap"
                ),
            ));
        }
        let skip = ((known - first) as usize).min(batch.len());
        if skip == batch.len() {
            return Ok(self.accepted(post.source, Vec::new()));
        }
        let n = (batch.len() - skip) as u64;
        if let Some((policy, client)) = post.client {
            self.check_access(&batch, skip, policy, client)?;
        }
        self.check_time(&batch, skip)?;
        let (out, drops) = match self.enforce.clone() {
            Some(rules) => {
                let saved = self.engine.snapshot()?;
                let (monitored, newest) = (self.monitored, self.newest);
                let tried = self.enforce_batch(&mut batch, skip, &rules.drop);
                let durable = match &tried {
                    Ok((_, drops)) => self.log(&post, skip, drops),
                    Err(_) => Ok(()),
                };
                if tried.is_err() || durable.is_err() {
                    // (Undone: the stream is as it was before the batch.)
                    self.engine.restore(&saved)?;
                    (self.monitored, self.newest) = (monitored, newest);
                }
                durable?;
                let (out, drops) = tried?;
                self.count(&batch, skip, post.source);
                (out, drops)
            }
            None => {
                self.log(&post, skip, &[])?;
                let mut out = Vec::new();
                self.admit_into(batch, skip, post.source, &mut out)?;
                (out, Vec::new())
            }
        };
        self.verdicts.take(&out)?;
        self.tell();
        self.since_snapshot += n;
        self.maybe_snapshot();
        // (Enforcement monitors at once: the batch's time points are the last `n`.)
        let dropped = drops
            .into_iter()
            .map(|d| (self.monitored - n + d.at - skip as u64, d.names))
            .collect();
        Ok(self.accepted(post.source, dropped))
    }

    fn accepted(&self, source: Option<&str>, dropped: Vec<(u64, Vec<String>)>) -> Accepted {
        Accepted {
            offset: self.offset,
            source_offset: source.map(|s| self.known(Some(s))),
            dropped,
        }
    }

    /// Writes the batch to the write-ahead log (and waits until it is on disk).
    fn log(&mut self, post: &Post<'_>, skip: usize, drops: &[Drop]) -> Result<(), Error> {
        self.wal.append(&Record::Batch {
            skip: skip as u64,
            format: post.format,
            body: post.body.to_vec(),
            source: post.source.map(str::to_string),
            drops: drops.to_vec(),
        })
    }

    /// Refuses (403) a batch with an event its client may not send.
    fn check_access(
        &self,
        batch: &Batch,
        skip: usize,
        policy: &Policy,
        client: &str,
    ) -> Result<(), Refusal> {
        for (k, name) in batch.names(skip, &self.inputs, &self.interner) {
            if !policy.may_send(client, name) {
                return Err(refuse(
                    403,
                    format!(
                        "<batch>, its time point {}: client `{client}` may not send `{name}` \
                         events ([Events] of the token file)",
                        k + 1
                    ),
                ));
            }
        }
        Ok(())
    }

    /// Refuses (409) a batch that starts before the watermark: earlier than the stream's
    /// newest time point by more than `--max-lateness` (by anything, without it). Within
    /// a batch, times do not decrease (the readers check it).
    fn check_time(&self, batch: &Batch, skip: usize) -> Result<(), Refusal> {
        let (Some(newest), Some(ts)) = (self.newest, batch.ts(skip)) else {
            return Ok(());
        };
        let watermark = newest.saturating_sub(self.lateness);
        if ts >= watermark {
            return Ok(());
        }
        let what = if self.lateness == 0 {
            "its time is earlier than the stream's last one (timestamps must not decrease; \
             --max-lateness lets them come out of order)"
                .to_string()
        } else {
            format!(
                "its time is later than --max-lateness allows: the stream's watermark is at \
                 {watermark} (its newest time, {newest}, minus the lateness, {})",
                self.lateness
            )
        };
        Err(refuse(
            409,
            format!("<batch>, its time point {}: {what}", skip + 1),
        ))
    }

    /// Monitors the batch's time points from the `skip`-th, refusing (409) the batch at the
    /// first whose verdict is a violation, unless taking out the events `drop` names makes
    /// it none. The verdicts (JSON Lines) and the drops, or the refusal; the monitor is then
    /// left where it stopped (the caller puts it back).
    fn enforce_batch(
        &mut self,
        batch: &mut Batch,
        skip: usize,
        drop: &[String],
    ) -> Result<(Vec<u8>, Vec<Drop>), Refusal> {
        let mut out = Vec::new();
        let mut drops: Vec<Drop> = Vec::new();
        let mut at = skip;
        loop {
            let round = (self.engine.snapshot()?, self.monitored);
            let mut tried = Vec::new();
            let bad = self.monitor_watching(batch, at..batch.len(), &mut tried)?;
            let Some((k, verdict)) = bad else {
                out.extend_from_slice(&tried);
                if let Some(ts) = batch.ts(batch.len() - 1) {
                    self.newest = Some(self.newest.map_or(ts, |n| n.max(ts)));
                }
                return Ok((out, drops));
            };
            // Back to the round's start; the time points before the bad one are fine.
            self.engine.restore(&round.0)?;
            self.monitored = round.1;
            self.monitor_watching(batch, at..k, &mut out)?;
            let again = drops.last().is_some_and(|d| d.at == k as u64);
            let names = if again {
                Vec::new()
            } else {
                batch.drop_events(k, drop, &self.interner)
            };
            if names.is_empty() {
                let mut r = refuse(
                    409,
                    format!(
                        "enforcement: the batch's time point {} would violate the \
                         specification, so the batch is refused (and nothing of it taken)",
                        k + 1
                    ),
                );
                r.verdict = Some(verdict);
                return Err(r);
            }
            drops.push(Drop {
                at: k as u64,
                names,
            });
            at = k;
        }
    }

    /// Monitors the batch's time points in `range`, their verdicts into `out`; the first
    /// violation's (or trigger's) time point, by its place in the batch, with its verdict.
    fn monitor_watching(
        &mut self,
        batch: &mut Batch,
        range: std::ops::Range<usize>,
        out: &mut Vec<u8>,
    ) -> Result<Option<(usize, String)>, Error> {
        let (start, n) = (range.start, range.len());
        let first = self.monitored;
        let mut watch = Watch {
            out: FormatSink::new(out, Output::Jsonl),
            first_bad: None,
        };
        self.engine
            .feed(batch, range, first, &mut self.interner, &mut watch)?;
        watch.out.end_batch()?;
        self.monitored += n as u64;
        Ok(watch
            .first_bad
            .map(|(tp, v)| (start + (tp.saturating_sub(first)) as usize, v)))
    }

    /// Counts the batch's time points from the `skip`-th as accepted (from `source`).
    fn count(&mut self, batch: &Batch, skip: usize, source: Option<&str>) {
        let n = (batch.len() - skip) as u64;
        self.offset += n;
        if let Some(s) = source {
            *self.sources.entry(s.to_string()).or_insert(0) += n;
        }
    }

    /// Takes the batch's time points from the `skip`-th, already durable: counted, then
    /// monitored as the watermark passes them; their verdicts written.
    fn admit(&mut self, batch: Batch, skip: usize, source: Option<&str>) -> Result<(), Error> {
        let mut out = Vec::new();
        self.admit_into(batch, skip, source, &mut out)?;
        self.verdicts.take(&out)?;
        self.tell();
        Ok(())
    }

    fn admit_into(
        &mut self,
        batch: Batch,
        skip: usize,
        source: Option<&str>,
        out: &mut Vec<u8>,
    ) -> Result<(), Error> {
        self.count(&batch, skip, source);
        for k in skip..batch.len() {
            let ts = batch.ts(k).expect("within the batch");
            self.newest = Some(self.newest.map_or(ts, |n| n.max(ts)));
        }
        let pending = self.pending.get_or_insert_with(|| batch.empty_like());
        pending.merge(batch, skip);
        let watermark = self
            .newest
            .map_or(i64::MIN, |n| n.saturating_sub(self.lateness));
        self.release(watermark, out)
    }

    /// Monitors the waiting time points whose time is at most `until`.
    fn release(&mut self, until: i64, out: &mut Vec<u8>) -> Result<(), Error> {
        let Some(pending) = self.pending.as_mut() else {
            return Ok(());
        };
        let mut ready = pending.take_through(until);
        let n = ready.len();
        if n > 0 {
            self.monitor_watching(&mut ready, 0..n, out)?;
        }
        Ok(())
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

    /// The end: every time point still waiting is monitored, then the monitor's last
    /// verdicts.
    fn finish(&mut self) -> Result<(), Error> {
        let mut out = Vec::new();
        self.release(i64::MAX, &mut out)?;
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

/// A sink that writes the verdicts and remembers the first violation (or trigger): its time
/// point and its JSON object.
struct Watch<'a> {
    out: FormatSink<'a>,
    first_bad: Option<(u64, String)>,
}

impl Sink for Watch<'_> {
    fn emit(&mut self, d: &Decision<'_>, interner: &Interner) -> Result<(), Error> {
        if self.first_bad.is_none() && matches!(d.kind, Kind::Violation | Kind::Trigger) {
            let mut line = Vec::new();
            {
                let mut one = FormatSink::new(&mut line, Output::Jsonl);
                one.emit(d, interner)?;
                one.end_batch()?;
            }
            let text = String::from_utf8_lossy(&line).trim().to_string();
            self.first_bad = Some((d.tp, text));
        }
        self.out.emit(d, interner)
    }

    fn end_batch(&mut self) -> Result<(), Error> {
        self.out.end_batch()
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
/// numbered `after` ends, when known (a live reader's place); otherwise it is found by
/// [`place_after`]. Either way only what follows it is read, not the file from its start.
pub fn read_verdicts_from(
    path: &Path,
    after: u64,
    at: Option<u64>,
) -> Result<(Vec<u8>, u64), Error> {
    use std::io::{Seek, SeekFrom};
    let name = || path.display().to_string();
    let mut bytes = Vec::new();
    let mut start = at.unwrap_or(0);
    match File::open(path) {
        Ok(mut f) => {
            let mut read = |f: &mut File, start: &mut u64| -> std::io::Result<()> {
                if at.is_none() {
                    let len = f.metadata()?.len();
                    *start = place_after(f, len, after)?;
                }
                f.seek(SeekFrom::Start(*start))?;
                f.read_to_end(&mut bytes).map(drop)
            };
            read(&mut f, &mut start).map_err(|e| Error::file(&name(), &e))?;
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok((Vec::new(), start)),
        Err(e) => return Err(Error::file(&name(), &e)),
    }
    let whole = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    bytes.truncate(whole);
    Ok((bytes, start + whole as u64))
}

/// Where the verdict numbered `after + 1` starts in a verdict log of `len` bytes (or its
/// end): the lines are numbered 1, 2, 3, … in order, each starting `{"seq":N,`, so a binary
/// search over the bytes finds it, reading a little at each step. `GET …/verdicts?after=N`
/// then costs the verdicts it returns, not every verdict before them.
fn place_after(f: &mut File, len: u64, after: u64) -> std::io::Result<u64> {
    // The line starting at `lo` has a number at most `after + 1`; none starting at or after
    // `hi` has a smaller one than `after + 1`, or it is not whole.
    let (mut lo, mut hi) = (0u64, len);
    while hi - lo > 4096 {
        let mid = lo + (hi - lo) / 2;
        match line_after(f, mid, hi)? {
            Some((start, seq)) if seq <= after + 1 => lo = start,
            Some((start, _)) => hi = start,
            // (A line longer than the rest of the range: read from `lo` on.)
            None => break,
        }
    }
    // The rest, line by line, from `lo`.
    use std::io::{Seek, SeekFrom};
    let mut window = vec![0u8; (hi - lo) as usize];
    f.seek(SeekFrom::Start(lo))?;
    let got = read_up_to(f, &mut window)?;
    let mut at = lo;
    for line in window[..got].split_inclusive(|&b| b == b'\n') {
        match seq_of(line) {
            Some(seq) if seq <= after && line.ends_with(b"\n") => at += line.len() as u64,
            _ => break,
        }
    }
    Ok(at)
}

/// The first line that starts after `pos` and before `hi`: where, and its number.
fn line_after(f: &mut File, pos: u64, hi: u64) -> std::io::Result<Option<(u64, u64)>> {
    use std::io::{Seek, SeekFrom};
    let mut chunk = vec![0u8; (hi - pos).min(64 << 10) as usize];
    f.seek(SeekFrom::Start(pos))?;
    let got = read_up_to(f, &mut chunk)?;
    let Some(nl) = chunk[..got].iter().position(|&b| b == b'\n') else {
        return Ok(None);
    };
    let start = pos + nl as u64 + 1;
    if start >= hi {
        return Ok(None);
    }
    Ok(seq_of(&chunk[nl + 1..got]).map(|seq| (start, seq)))
}

/// The number `{"seq":N,` at the start of `line`.
fn seq_of(line: &[u8]) -> Option<u64> {
    let rest = line.strip_prefix(b"{\"seq\":")?;
    let digits = rest.iter().take_while(|b| b.is_ascii_digit()).count();
    std::str::from_utf8(&rest[..digits]).ok()?.parse().ok()
}

/// Reads into `buf` until it is full or the file ends; how much.
fn read_up_to(f: &mut File, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut got = 0;
    while got < buf.len() {
        match f.read(&mut buf[got..])? {
            0 => break,
            n => got += n,
        }
    }
    Ok(got)
}

#[cfg(test)]
mod tests {
    use super::*;

    const M: Format = Format::Monpoly;

    /// Takes a MonPoly batch; the stream's offset after it.
    fn put(s: &mut Stream, body: &[u8], from: Option<u64>) -> Result<u64, Refusal> {
        s.append(Post::new(M, body).from(from)).map(|a| a.offset)
    }

    fn every(n: u64) -> Options {
        Options {
            snapshot_every: Some(n),
            ..Options::default()
        }
    }

    fn spec() -> Spec {
        Spec {
            name: "p.mtl".into(),
            text: "request() IMPLIES EVENTUALLY[0,5] grant()".into(),
            lang: None,
            sig: None,
        }
    }

    /// A stream directory that does not exist yet, removed when the test is done with it (a
    /// test run must not leave directories behind).
    struct Fresh(PathBuf);

    impl std::ops::Deref for Fresh {
        type Target = Path;
        fn deref(&self) -> &Path {
            &self.0
        }
    }

    impl AsRef<Path> for Fresh {
        fn as_ref(&self) -> &Path {
            &self.0
        }
    }

    impl std::ops::Drop for Fresh {
        fn drop(&mut self) {
            let _ = std::fs::remove_dir_all(&self.0);
        }
    }

    fn fresh(name: &str) -> Fresh {
        let d = std::env::temp_dir().join(format!("rvmon-stream-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        Fresh(d)
    }

    #[test]
    fn batches_are_monitored_and_replayed_without_duplicates() {
        let dir = fresh("replay");
        let mut s = Stream::open(&dir, &spec(), &Options::default()).unwrap();
        assert_eq!(
            put(&mut s, b"@0 request()\n@2 grant()\n@3 request()\n", None).unwrap(),
            3
        );
        assert_eq!(put(&mut s, b"@9 heartbeat()\n", None).unwrap(), 4);
        // A resend of time points it has: nothing changes.
        assert_eq!(
            put(&mut s, b"@3 request()\n@9 heartbeat()\n", Some(2)).unwrap(),
            4
        );
        let bad = put(&mut s, b"@10 request(\n", None).unwrap_err();
        assert_eq!(bad.status, 400, "{}", bad.message);
        assert!(bad.message.contains("<batch>:1:"), "{}", bad.message);
        assert_eq!(put(&mut s, b"@12 p()\n", Some(7)).unwrap_err().status, 409);
        assert_eq!(put(&mut s, b"@1 p()\n", None).unwrap_err().status, 409);
        let before = std::fs::read_to_string(dir.join("verdicts.jsonl")).unwrap();
        assert_eq!(
            before,
            "{\"seq\":1,\"tp\":2,\"ts\":3,\"verdict\":\"violation\"}\n"
        );
        drop(s);
        // A replay makes the same verdicts and writes none twice.
        let mut s = Stream::open(&dir, &spec(), &Options::default()).unwrap();
        assert_eq!(s.status().offset, 4);
        assert_eq!(
            std::fs::read_to_string(dir.join("verdicts.jsonl")).unwrap(),
            before
        );
        s.close().unwrap();
        assert!(s.status().closed);
        assert_eq!(put(&mut s, b"@20 p()\n", None).unwrap_err().status, 409);
    }

    #[test]
    fn snapshots_start_a_new_log_and_change_no_verdict() {
        let batches: Vec<String> = (0..12)
            .map(|k| format!("@{} request()\n@{} heartbeat()\n", 10 * k, 10 * k + 7))
            .collect();
        let plain = fresh("plain");
        let snapped = fresh("snapped");
        let mut a = Stream::open(&plain, &spec(), &Options::default()).unwrap();
        let mut b = Stream::open(&snapped, &spec(), &every(4)).unwrap();
        for (k, batch) in batches.iter().enumerate() {
            put(&mut a, batch.as_bytes(), None).unwrap();
            put(&mut b, batch.as_bytes(), None).unwrap();
            if k == 6 {
                // A restart in the middle: from the snapshot and the log since.
                drop(b);
                b = Stream::open(&snapped, &spec(), &every(4)).unwrap();
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
        let b = Stream::open(&snapped, &spec(), &every(4)).unwrap();
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
        // A long log: every `after` finds its place by binary search, a torn last line left.
        let mut long = String::new();
        for seq in 1..=3000u64 {
            long.push_str(&format!(
                "{{\"seq\":{seq},\"tp\":{},\"x\":\"{}\"}}\n",
                seq * 7,
                "y".repeat((seq % 13) as usize)
            ));
        }
        long.push_str("{\"seq\":3001,\"tp");
        std::fs::write(&path, &long).unwrap();
        for after in [0, 1, 2, 17, 1500, 2999, 3000, 3001, 5000] {
            let got = read_verdicts(&path, after).unwrap();
            let text = String::from_utf8(got).unwrap();
            let first = text.lines().next().map(|l| seq_of(l.as_bytes()).unwrap());
            assert_eq!(first, (after < 3000).then_some(after + 1), "after {after}");
            assert_eq!(text.lines().count() as u64, 3000u64.saturating_sub(after));
        }
    }

    /// `n` time points from each of two sources, each source in time order, interleaved in
    /// batches of 3 so that the stream sees them out of order (by at most `late`).
    fn two_sources(n: u64, seed: u64) -> Vec<(&'static str, String)> {
        let mut rng = seed;
        let mut next = move || {
            rng = rng
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            rng >> 33
        };
        let mut batches = Vec::new();
        let (mut ta, mut tb) = (0, 0);
        for _ in 0..n / 6 {
            for (source, t) in [("a", &mut ta), ("b", &mut tb)] {
                let mut body = String::new();
                for _ in 0..3 {
                    *t += next() % 3;
                    let event = ["request()", "grant()", "tick()"][(next() % 3) as usize];
                    body.push_str(&format!("@{} {event}\n", *t));
                }
                batches.push((source, body));
            }
        }
        batches
    }

    #[test]
    fn out_of_order_sources_are_monitored_in_time_order() {
        let batches = two_sources(60, 7);
        // (NEXT: every verdict depends on which time point follows which.)
        let next_grant = Spec {
            text: "request() IMPLIES NEXT grant()".into(),
            ..spec()
        };
        // The reference: every time point, sorted by time (ties in the order they came).
        let mut all: Vec<(i64, usize, String)> = Vec::new();
        for (_, body) in &batches {
            for line in body.lines() {
                let ts: i64 = line[1..line.find(' ').unwrap()].parse().unwrap();
                all.push((ts, all.len(), line.to_string()));
            }
        }
        all.sort();
        let sorted: String = all.iter().map(|(_, _, l)| format!("{l}\n")).collect();
        let reference = fresh("sorted");
        let mut r = Stream::open(&reference, &next_grant, &Options::default()).unwrap();
        put(&mut r, sorted.as_bytes(), None).unwrap();
        r.close().unwrap();
        let options = Options {
            max_lateness: 1000.0,
            snapshot_every: Some(7),
            ..Options::default()
        };
        let dir = fresh("late");
        let mut s = Stream::open(&dir, &next_grant, &options).unwrap();
        for (k, (source, body)) in batches.iter().enumerate() {
            let post = Post {
                source: Some(source),
                ..Post::new(M, body.as_bytes())
            };
            let a = s.append(post).unwrap();
            if k == 9 {
                // A restart with time points waiting: they come back from the snapshot
                // and the log.
                let before = s.status();
                assert!(before.offset > before.monitored, "{before:?}");
                drop(s);
                s = Stream::open(&dir, &next_grant, &options).unwrap();
                assert_eq!(s.status().json(), before.json());
            }
            assert_eq!(a.source_offset, Some(s.status().sources[*source]));
        }
        // A source resending what it sent: nothing changes.
        let again = Post {
            source: Some("a"),
            ..Post::new(M, batches[0].1.as_bytes()).from(Some(0))
        };
        assert_eq!(s.append(again).unwrap().offset, 60);
        s.close().unwrap();
        let read = |d: &Path| std::fs::read_to_string(d.join("verdicts.jsonl")).unwrap();
        assert!(read(&reference).lines().count() > 3);
        assert_eq!(read(&dir), read(&reference));
    }

    #[test]
    fn a_time_point_later_than_the_lateness_bound_is_refused() {
        let options = Options {
            max_lateness: 5.0,
            ..Options::default()
        };
        let bound_dir = fresh("bound");
        let mut s = Stream::open(&bound_dir, &spec(), &options).unwrap();
        put(&mut s, b"@10 request()\n@20 tick()\n", None).unwrap();
        assert_eq!(s.status().monitored, 1, "20 - 5 passed 10 only");
        put(&mut s, b"@15 grant()\n", None).unwrap();
        let late = put(&mut s, b"@14 grant()\n", None).unwrap_err();
        assert_eq!(late.status, 409);
        assert!(
            late.message.contains("watermark is at 15"),
            "{}",
            late.message
        );
        assert_eq!(s.status().offset, 3);
        let order_dir = fresh("order");
        let in_order = Stream::open(&order_dir, &spec(), &Options::default());
        let mut in_order = in_order.unwrap();
        put(&mut in_order, b"@10 request()\n", None).unwrap();
        let back = put(&mut in_order, b"@9 grant()\n", None).unwrap_err();
        assert!(
            back.message.contains("must not decrease"),
            "{}",
            back.message
        );
    }

    fn past() -> Spec {
        Spec {
            name: "p.mtl".into(),
            text: "grant() IMPLIES ONCE[0,5] request()".into(),
            ..spec()
        }
    }

    fn enforcing(drop: &[&str]) -> Options {
        Options {
            enforce: Some(Enforce {
                drop: drop.iter().map(|d| d.to_string()).collect(),
            }),
            ..Options::default()
        }
    }

    #[test]
    fn enforcement_refuses_a_violating_batch_whole_and_changes_nothing() {
        let dir = fresh("enforce");
        let mut s = Stream::open(&dir, &past(), &enforcing(&[])).unwrap();
        put(&mut s, b"@0 request()\n@3 grant()\n", None).unwrap();
        let r = put(&mut s, b"@4 tick()\n@10 grant()\n@11 request()\n", None).unwrap_err();
        assert_eq!(r.status, 409, "{}", r.message);
        assert!(
            r.message.contains("time point 2 would violate"),
            "{}",
            r.message
        );
        assert_eq!(
            r.verdict.as_deref(),
            Some("{\"tp\":3,\"ts\":10,\"verdict\":\"violation\"}")
        );
        assert_eq!(s.status().offset, 2);
        // The monitor is as it was: the same time points without the bad one are taken.
        assert_eq!(
            put(&mut s, b"@4 tick()\n@11 request()\n@12 grant()\n", None).unwrap(),
            5
        );
        assert_eq!(
            std::fs::read_to_string(dir.join("verdicts.jsonl")).unwrap(),
            ""
        );
        drop(s);
        let s = Stream::open(&dir, &past(), &enforcing(&[])).unwrap();
        assert_eq!(s.status().offset, 5);
    }

    #[test]
    fn enforcement_drops_the_named_events_where_that_mends_the_time_point() {
        let dir = fresh("drop");
        let twin_dir = fresh("drop-twin");
        let mut s = Stream::open(&dir, &past(), &enforcing(&["grant"])).unwrap();
        let mut twin = Stream::open(&twin_dir, &past(), &enforcing(&["grant"])).unwrap();
        let batch = b"@0 request()\n@10 grant() tick()\n@11 grant()\n@12 request() grant()\n";
        let a = s.append(Post::new(M, batch)).unwrap();
        twin.append(Post::new(M, batch)).unwrap();
        let names = vec!["grant".to_string()];
        assert_eq!(a.dropped, vec![(1, names.clone()), (2, names)]);
        assert_eq!(
            a.json(),
            "{\"offset\":4,\"dropped\":[{\"tp\":1,\"events\":[\"grant\"]},{\"tp\":2,\"events\":[\"grant\"]}]}"
        );
        // A replay drops the same events: the restarted stream goes on as its twin.
        drop(s);
        let mut s = Stream::open(&dir, &past(), &enforcing(&["grant"])).unwrap();
        for t in [&mut s, &mut twin] {
            t.append(Post::new(M, b"@16 grant()\n@30 grant()\n"))
                .unwrap();
        }
        // Not mended by dropping what it does not have: refused.
        let none_dir = fresh("drop-none");
        let r = Stream::open(&none_dir, &past(), &enforcing(&["tick"]))
            .unwrap()
            .append(Post::new(M, b"@5 grant()\n"))
            .unwrap_err();
        assert_eq!(r.status, 409);
        let read = |d: &Path| std::fs::read_to_string(d.join("verdicts.jsonl")).unwrap();
        assert_eq!(read(&dir), read(&twin_dir));
        assert_eq!(s.status().offset, 6);
    }

    #[test]
    fn a_client_sends_only_the_events_its_policy_allows() {
        let policy = Policy::parse(
            "p.ini",
            "[Tokens]\nocu = ocu-0123456789abcdef\nradar = radar-0123456789abcd\n\
             [Events]\ndefault = radar ocu\ntrigger = ocu\n",
        )
        .unwrap();
        let access_dir = fresh("access");
        let mut s = Stream::open(&access_dir, &spec(), &Options::default()).unwrap();
        let post = |client| Post {
            client: Some((&policy, client)),
            ..Post::new(M, b"@1 request()\n@2 trigger()\n")
        };
        let r = s.append(post("radar")).unwrap_err();
        assert_eq!(r.status, 403);
        assert!(r
            .message
            .contains("time point 2: client `radar` may not send `trigger`"));
        assert_eq!(s.status().offset, 0);
        assert_eq!(s.append(post("ocu")).unwrap().offset, 2);
    }
}
