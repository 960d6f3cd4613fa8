//! A stream's write-ahead log: its accepted batches, each one record, written and fsynced
//! before the batch is acknowledged. A record is its length, a checksum, its kind and its
//! bytes; a record cut short or damaged (the process killed while writing it, before it was
//! acknowledged) ends the log, and is wiped when the log is opened again.
//!
//! PERF: the file is grown ahead in zeroed chunks, and records are written into them: then a
//! record's fsync has only its data to flush, not the file's new size (0.14 ms against
//! 0.69 ms for an append on this machine's ext4, and the service fsyncs once a batch). The
//! zeros after the last record end the log as a damaged record would.

use std::fs::{File, OpenOptions};
use std::hash::Hasher;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::Path;

use rustc_hash::FxHasher;
use rvmon_core::Error;

use crate::engine::Format;

/// What a record holds.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Record {
    /// A batch of time points (the request's body, in `format`), of which the first `skip`
    /// were already in the stream (a client resending after a crash).
    /// `source` is the client's name for where the batch comes from (its own count of time
    /// points); `drops` the events enforcement took out of it (`--drop`).
    Batch {
        skip: u64,
        format: Format,
        body: Vec<u8>,
        source: Option<String>,
        drops: Vec<Drop>,
    },
    /// The end of the stream.
    Close,
}

/// Events taken out of a batch's time point by enforcement: the time point's place in the
/// batch, and the names of the events taken out.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Drop {
    pub at: u64,
    pub names: Vec<String>,
}

/// Record kinds: a batch of MonPoly lines, the end, a batch of JSON Lines (the first
/// version's batches, still read), and a batch with its format, source and drops.
const BATCH: u8 = 1;
const CLOSE: u8 = 2;
const BATCH_JSONL: u8 = 3;
const BATCH_V2: u8 = 4;

/// Writes a batch record's payload ([`BATCH_V2`]): its format, skip, source and drops, then
/// its body.
fn encode_batch(
    skip: u64,
    format: Format,
    body: &[u8],
    source: &Option<String>,
    drops: &[Drop],
) -> Vec<u8> {
    fn text(p: &mut Vec<u8>, s: &str) {
        p.extend_from_slice(&(s.len() as u32).to_le_bytes());
        p.extend_from_slice(s.as_bytes());
    }
    let mut p = vec![match format {
        Format::Monpoly => 0,
        Format::Jsonl => 1,
    }];
    p.extend_from_slice(&skip.to_le_bytes());
    p.push(u8::from(source.is_some()));
    text(&mut p, source.as_deref().unwrap_or(""));
    p.extend_from_slice(&(drops.len() as u32).to_le_bytes());
    for d in drops {
        p.extend_from_slice(&d.at.to_le_bytes());
        p.extend_from_slice(&(d.names.len() as u32).to_le_bytes());
        for n in &d.names {
            text(&mut p, n);
        }
    }
    p.extend_from_slice(body);
    p
}

/// Reads a [`BATCH_V2`] payload; `None` if it is not one.
fn decode_batch(p: &[u8]) -> Option<Record> {
    struct Cursor<'a>(&'a [u8]);
    impl<'a> Cursor<'a> {
        fn take(&mut self, n: usize) -> Option<&'a [u8]> {
            let (a, b) = self.0.split_at_checked(n)?;
            self.0 = b;
            Some(a)
        }
        fn u32(&mut self) -> Option<u32> {
            Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
        }
        fn u64(&mut self) -> Option<u64> {
            Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
        }
        fn text(&mut self) -> Option<String> {
            let n = self.u32()? as usize;
            String::from_utf8(self.take(n)?.to_vec()).ok()
        }
    }
    let mut c = Cursor(p);
    let format = match c.take(1)?[0] {
        0 => Format::Monpoly,
        1 => Format::Jsonl,
        _ => return None,
    };
    let skip = c.u64()?;
    let has_source = c.take(1)?[0] == 1;
    let source = Some(c.text()?).filter(|_| has_source);
    let mut drops = Vec::new();
    for _ in 0..c.u32()? {
        let at = c.u64()?;
        let n = c.u32()?;
        // (No allocation sized by the record before its bytes are there.)
        let names = (0..n).map(|_| c.text()).collect::<Option<Vec<_>>>()?;
        drops.push(Drop { at, names });
    }
    Some(Record::Batch {
        skip,
        format,
        body: c.0.to_vec(),
        source,
        drops,
    })
}

/// The log, open for writing after its last record.
pub struct Wal {
    file: File,
    path: String,
    /// Where the next record goes.
    end: u64,
    /// The file's length (zeros after `end`).
    len: u64,
}

/// How much the file grows at a time.
const CHUNK: u64 = 4 << 20;

fn checksum(kind: u8, payload: &[u8]) -> u64 {
    let mut h = FxHasher::default();
    h.write_u8(kind);
    h.write(payload);
    h.write_usize(payload.len());
    h.finish()
}

fn io(path: &str, e: std::io::Error) -> Error {
    Error::msg(format!("{path}: {e}"))
}

impl Wal {
    /// Opens (or creates) the log at `path`: its records, in order, and the log positioned
    /// after the last whole one.
    pub fn open(path: &Path) -> Result<(Wal, Vec<Record>), Error> {
        let name = path.display().to_string();
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(path)
            .map_err(|e| io(&name, e))?;
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes).map_err(|e| io(&name, e))?;
        let (records, whole) = parse(&bytes);
        let mut wal = Wal {
            file,
            path: name,
            end: whole as u64,
            len: bytes.len() as u64,
        };
        if bytes[whole..].iter().any(|&b| b != 0) {
            // A record cut short: it was never acknowledged. Zeros over it, so that no part
            // of it is read after a shorter record written there.
            wal.zero(whole as u64, bytes.len() as u64)?;
        }
        Ok((wal, records))
    }

    /// Writes zeros from `from` to `to` and waits until they are on disk.
    fn zero(&mut self, from: u64, to: u64) -> Result<(), Error> {
        let zeros = vec![0u8; (to - from) as usize];
        self.file
            .seek(SeekFrom::Start(from))
            .and_then(|_| self.file.write_all(&zeros))
            .and_then(|()| self.file.sync_all())
            .map_err(|e| io(&self.path, e))
    }

    /// Appends `record` and waits until it is on disk.
    pub fn append(&mut self, record: &Record) -> Result<(), Error> {
        let (kind, payload): (u8, Vec<u8>) = match record {
            Record::Batch {
                skip,
                format,
                body,
                source,
                drops,
            } => (BATCH_V2, encode_batch(*skip, *format, body, source, drops)),
            Record::Close => (CLOSE, Vec::new()),
        };
        let mut bytes = Vec::with_capacity(17 + payload.len());
        bytes.extend_from_slice(&(payload.len() as u64).to_le_bytes());
        bytes.extend_from_slice(&checksum(kind, &payload).to_le_bytes());
        bytes.push(kind);
        bytes.extend_from_slice(&payload);
        let end = self.end + bytes.len() as u64;
        if end > self.len {
            let len = end.max(self.len + CHUNK);
            self.zero(self.len, len)?;
            self.len = len;
        }
        self.file
            .seek(SeekFrom::Start(self.end))
            .and_then(|_| self.file.write_all(&bytes))
            .and_then(|()| self.file.sync_data())
            .map_err(|e| io(&self.path, e))?;
        self.end = end;
        Ok(())
    }
}

/// The whole records at the start of `bytes`, and how many bytes they take.
fn parse(bytes: &[u8]) -> (Vec<Record>, usize) {
    let mut records = Vec::new();
    let mut at = 0;
    loop {
        let Some(head) = bytes.get(at..at + 17) else {
            return (records, at);
        };
        let len = u64::from_le_bytes(head[..8].try_into().expect("8 bytes"));
        let sum = u64::from_le_bytes(head[8..16].try_into().expect("8 bytes"));
        let kind = head[16];
        let Some(payload) = usize::try_from(len)
            .ok()
            .and_then(|len| bytes.get(at + 17..(at + 17).checked_add(len)?))
        else {
            return (records, at);
        };
        if checksum(kind, payload) != sum {
            return (records, at);
        }
        let record = match (kind, payload.split_at_checked(8)) {
            (BATCH | BATCH_JSONL, Some((skip, body))) => Record::Batch {
                skip: u64::from_le_bytes(skip.try_into().expect("8 bytes")),
                format: if kind == BATCH {
                    Format::Monpoly
                } else {
                    Format::Jsonl
                },
                body: body.to_vec(),
                source: None,
                drops: Vec::new(),
            },
            (BATCH_V2, _) => match decode_batch(payload) {
                Some(r) => r,
                None => return (records, at),
            },
            (CLOSE, _) => Record::Close,
            _ => return (records, at),
        };
        records.push(record);
        at += 17 + payload.len();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_come_back_and_a_torn_tail_is_cut() {
        let dir = std::env::temp_dir().join(format!("rvmon-wal-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("wal");
        let _ = std::fs::remove_file(&path);
        let a = Record::Batch {
            skip: 2,
            format: Format::Monpoly,
            body: b"@1 p()\n".to_vec(),
            source: Some("north".into()),
            drops: vec![Drop {
                at: 0,
                names: vec!["p".into(), "q".into()],
            }],
        };
        {
            let (mut wal, old) = Wal::open(&path).unwrap();
            assert!(old.is_empty());
            wal.append(&a).unwrap();
            wal.append(&Record::Close).unwrap();
        }
        // Half a record more, as if the process died while writing it.
        let whole = parse(&std::fs::read(&path).unwrap()).1;
        let mut f = OpenOptions::new().write(true).open(&path).unwrap();
        f.seek(SeekFrom::Start(whole as u64)).unwrap();
        f.write_all(&[9, 0, 0, 0, 0, 7, 7]).unwrap();
        drop(f);
        let (mut wal, old) = Wal::open(&path).unwrap();
        assert_eq!(old, vec![a.clone(), Record::Close]);
        let bytes = std::fs::read(&path).unwrap();
        assert!(
            bytes[whole..].iter().all(|&b| b == 0),
            "the torn record is wiped"
        );
        wal.append(&a).unwrap();
        drop(wal);
        let (_, old) = Wal::open(&path).unwrap();
        assert_eq!(old.len(), 3);
        // A damaged byte ends the log there.
        let mut bytes = std::fs::read(&path).unwrap();
        let end = parse(&bytes).1;
        bytes[end - 3] ^= 1;
        assert_eq!(parse(&bytes).0.len(), 2);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
