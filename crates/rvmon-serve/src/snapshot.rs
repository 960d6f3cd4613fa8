//! A stream's snapshot: its monitor's state (the engine's own snapshot, with the strings it
//! refers to) and counters, so that a restart replays only the write-ahead log written since.
//!
//! Taking one: the state goes to `snapshot.tmp`, is fsynced and renamed over `snapshot` (a
//! reader sees the old one or the new one, never half of one), the directory fsynced; only
//! then does the stream start a new write-ahead log, `events.<generation>.wal`, and remove the
//! old one. A crash in between leaves a snapshot that names the new generation and an old log
//! that is no longer read (it is removed when the stream is opened again).

use std::path::{Path, PathBuf};

use std::collections::BTreeMap;

use rvmon_core::{decode_state, encode_state, Error, SavedStrings};

use crate::engine::Batch;

/// Bumped whenever what a snapshot holds changes.
const VERSION: u32 = 2;

/// What a snapshot holds.
#[derive(Debug, serde::Serialize, serde::Deserialize)]
pub struct Snapshot {
    /// The write-ahead log to replay after it.
    pub generation: u64,
    /// Time points accepted, and monitored.
    pub offset: u64,
    pub monitored: u64,
    pub closed: bool,
    /// The number the next verdict gets.
    pub next_seq: u64,
    pub strings: SavedStrings,
    pub engine: Vec<u8>,
    /// The newest time so far, the time points waiting for the watermark, and the time
    /// points each source sent.
    pub newest: Option<i64>,
    pub pending: Option<Batch>,
    pub sources: BTreeMap<String, u64>,
}

/// What the first version's snapshots held (time points were monitored as they came).
#[derive(serde::Deserialize)]
struct SnapshotV1 {
    generation: u64,
    offset: u64,
    last_ts: Option<i64>,
    closed: bool,
    next_seq: u64,
    strings: SavedStrings,
    engine: Vec<u8>,
}

impl From<SnapshotV1> for Snapshot {
    fn from(s: SnapshotV1) -> Snapshot {
        Snapshot {
            generation: s.generation,
            offset: s.offset,
            monitored: s.offset,
            closed: s.closed,
            next_seq: s.next_seq,
            strings: s.strings,
            engine: s.engine,
            newest: s.last_ts,
            pending: None,
            sources: BTreeMap::new(),
        }
    }
}

/// The write-ahead log of `generation` in `dir`.
pub fn wal_path(dir: &Path, generation: u64) -> PathBuf {
    dir.join(format!("events.{generation}.wal"))
}

fn io(path: &Path, e: std::io::Error) -> Error {
    Error::file(&path.display().to_string(), &e)
}

/// The snapshot kept in `dir`, if any.
pub fn load(dir: &Path) -> Result<Option<Snapshot>, Error> {
    let path = dir.join("snapshot");
    let bytes = match std::fs::read(&path) {
        Ok(b) => b,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(io(&path, e)),
    };
    if let Some((VERSION, s)) = decode_state::<(u32, Snapshot)>(&bytes) {
        return Ok(Some(s));
    }
    match decode_state::<(u32, SnapshotV1)>(&bytes) {
        Some((1, s)) => Ok(Some(s.into())),
        _ => Err(Error::msg(format!(
            "{}: not a snapshot this version of rvmon wrote (or damaged)",
            path.display()
        ))),
    }
}

/// Writes `snapshot` to `dir`, durably, in place of the last one.
pub fn save(dir: &Path, snapshot: &Snapshot) -> Result<(), Error> {
    let tmp = dir.join("snapshot.tmp");
    let path = dir.join("snapshot");
    let bytes = encode_state(&(VERSION, snapshot));
    let write = || -> std::io::Result<()> {
        let mut f = std::fs::File::create(&tmp)?;
        std::io::Write::write_all(&mut f, &bytes)?;
        f.sync_all()?;
        std::fs::rename(&tmp, &path)?;
        std::fs::File::open(dir)?.sync_all()
    };
    write().map_err(|e| io(&path, e))
}

/// Removes the write-ahead logs of `dir` older than `generation` (left by a crash).
pub fn remove_old_logs(dir: &Path, generation: u64) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let old = name
            .strip_prefix("events.")
            .and_then(|r| r.strip_suffix(".wal"))
            .and_then(|g| g.parse::<u64>().ok())
            .is_some_and(|g| g < generation);
        if old {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}
