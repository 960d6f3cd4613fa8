//! Reading ahead on a second thread: a trace file's rows are read and parsed while the monitor
//! works on the rows before them.
//!
//! PERF: for a signal formula, reading and parsing the CSV is about 40 % of a run and the
//! monitor and the output the rest; on two cores the two halves overlap. Only for numeric
//! inputs read from a file: the values cross threads as plain numbers (an event's strings are
//! shared `Rc`s, which stay on one thread), and a live input is not batched (a decision must
//! not wait for a batch to fill).
//!
//! The rows come in order, in batches over a bounded channel (memory stays a few batches);
//! a bad row's error comes after the rows before it, so every decision before it is written
//! first, as without the thread. If the run stops early the receiver is dropped and the
//! thread stops at its next batch.

use std::sync::mpsc::{sync_channel, Receiver, SyncSender};

use rvmon_core::event::{Event, EventSource, Val};
use rvmon_core::Error;

/// Rows per batch sent across.
const ROWS: usize = 1024;
/// Batches in flight.
const IN_FLIGHT: usize = 4;

/// A value as it crosses threads.
#[derive(Clone, Copy, Debug)]
enum Num {
    Bool(bool),
    Int(i64),
    UInt(u64),
    Float(f64),
}

/// Rows read by the thread: `width` values per row, a time per row, then (in the last batch)
/// how the input ended.
#[derive(Default)]
struct Batch {
    times: Vec<i64>,
    values: Vec<Option<Num>>,
    /// `Some` in the last batch: the end of the input, or the error that stopped it.
    end: Option<Result<(), Error>>,
    /// Whether the source takes positions as times (known after the first row).
    positions_as_times: bool,
}

/// An [`EventSource`] whose rows a second thread reads from the source `open` builds.
pub struct ReadAhead {
    rows: Receiver<Batch>,
    recycle: SyncSender<Batch>,
    current: Batch,
    at: usize,
    width: usize,
    finished: bool,
}

impl ReadAhead {
    /// Starts the thread: it builds its source with `open` (a source need not be `Send`:
    /// it is made there) and reads rows of `width` values (numeric inputs only).
    pub fn spawn(
        width: usize,
        open: impl FnOnce() -> Result<Box<dyn EventSource>, Error> + Send + 'static,
    ) -> Result<ReadAhead, Error> {
        let (send, rows) = sync_channel(IN_FLIGHT);
        let (recycle, spare) = sync_channel(IN_FLIGHT + 2);
        std::thread::Builder::new()
            .name("rvmon-read-ahead".into())
            .spawn(move || read(open, width, &send, &spare))
            .map_err(|e| Error::msg(format!("cannot start the reading thread: {e}")))?;
        Ok(ReadAhead {
            rows,
            recycle,
            current: Batch::default(),
            at: 0,
            width,
            finished: false,
        })
    }
}

/// The thread: batches of rows until the end or an error.
fn read(
    open: impl FnOnce() -> Result<Box<dyn EventSource>, Error>,
    width: usize,
    send: &SyncSender<Batch>,
    spare: &Receiver<Batch>,
) {
    let mut source = match open() {
        Ok(s) => s,
        Err(e) => {
            let _ = send.send(Batch {
                end: Some(Err(e)),
                ..Batch::default()
            });
            return;
        }
    };
    let mut ev = Event::default();
    loop {
        let mut batch = spare.try_recv().unwrap_or_default();
        batch.times.clear();
        batch.values.clear();
        while batch.times.len() < ROWS && batch.end.is_none() {
            match source
                .next_event(&mut ev)
                .and_then(|more| numbers(&ev, width, more))
            {
                Ok(Some(values)) => {
                    batch.times.push(ev.time);
                    batch.values.extend(values);
                }
                Ok(None) => batch.end = Some(Ok(())),
                Err(e) => batch.end = Some(Err(e)),
            }
        }
        batch.positions_as_times = source.positions_as_times();
        let last = batch.end.is_some();
        if send.send(batch).is_err() || last {
            return; // the run stopped reading, or the input ended
        }
    }
}

/// An event's values as numbers (`None` at the end of the input).
fn numbers(
    ev: &Event,
    width: usize,
    more: bool,
) -> Result<Option<impl Iterator<Item = Option<Num>> + '_>, Error> {
    if !more {
        return Ok(None);
    }
    if ev.values.len() != width || ev.values.iter().any(|v| matches!(v, Some(Val::Str(_)))) {
        return Err(Error::msg(
            "internal: a row read ahead is not a row of numbers (RVMON_READ_AHEAD=0 reads on one thread)",
        ));
    }
    Ok(Some(ev.values.iter().map(|v| match v {
        Some(Val::Bool(b)) => Some(Num::Bool(*b)),
        Some(Val::Int(i)) => Some(Num::Int(*i)),
        Some(Val::UInt(u)) => Some(Num::UInt(*u)),
        Some(Val::Float(x)) => Some(Num::Float(*x)),
        Some(Val::Str(_)) | None => None,
    })))
}

impl EventSource for ReadAhead {
    fn next_event(&mut self, ev: &mut Event) -> Result<bool, Error> {
        while self.at == self.current.times.len() {
            if let Some(end) = self.current.end.take() {
                self.finished = true;
                return end.map(|()| false);
            }
            if self.finished {
                return Ok(false);
            }
            let next = self.rows.recv().map_err(|_| {
                Error::msg("the thread reading the trace stopped without saying why")
            })?;
            let used = std::mem::replace(&mut self.current, next);
            let _ = self.recycle.try_send(used);
            self.at = 0;
        }
        let row = &self.current.values[self.at * self.width..(self.at + 1) * self.width];
        ev.time = self.current.times[self.at];
        ev.values.clear();
        ev.values.extend(row.iter().map(|v| {
            v.map(|n| match n {
                Num::Bool(b) => Val::Bool(b),
                Num::Int(i) => Val::Int(i),
                Num::UInt(u) => Val::UInt(u),
                Num::Float(x) => Val::Float(x),
            })
        }));
        self.at += 1;
        Ok(true)
    }

    fn positions_as_times(&self) -> bool {
        self.current.positions_as_times
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `n` events `x = i` at time `i`, then an error (or the end).
    struct Counting {
        next: u64,
        n: u64,
        fail: bool,
    }

    impl EventSource for Counting {
        fn next_event(&mut self, ev: &mut Event) -> Result<bool, Error> {
            if self.next == self.n {
                return match self.fail {
                    true => Err(Error::msg("bad row")),
                    false => Ok(false),
                };
            }
            ev.time = self.next as i64;
            ev.values.clear();
            ev.values.push(Some(Val::Float(self.next as f64)));
            ev.values
                .push(self.next.is_multiple_of(3).then_some(Val::Int(-1)));
            self.next += 1;
            Ok(true)
        }

        fn positions_as_times(&self) -> bool {
            true
        }
    }

    fn read_all(n: u64, fail: bool) -> (Vec<Event>, Result<(), Error>, ReadAhead) {
        let mut ahead =
            ReadAhead::spawn(2, move || Ok(Box::new(Counting { next: 0, n, fail }))).unwrap();
        let (mut got, mut ev) = (Vec::new(), Event::default());
        let end = loop {
            match ahead.next_event(&mut ev) {
                Ok(true) => got.push(ev.clone()),
                Ok(false) => break Ok(()),
                Err(e) => break Err(e),
            }
        };
        (got, end, ahead)
    }

    /// Across several batches: every row, in order, with its gaps, then the error after
    /// the rows before it; the end stays the end.
    #[test]
    fn rows_in_order_then_the_error() {
        for (n, fail) in [
            (0, false),
            (1, true),
            (2500, true),
            (3 * ROWS as u64, false),
        ] {
            let (got, end, mut ahead) = read_all(n, fail);
            assert_eq!(got.len() as u64, n);
            for (i, ev) in got.iter().enumerate() {
                assert_eq!(ev.time, i as i64);
                assert!(matches!(ev.values[0], Some(Val::Float(x)) if x == i as f64));
                assert_eq!(ev.values[1].is_some(), i % 3 == 0);
            }
            assert_eq!(end.is_err(), fail, "{n}");
            if n > 0 {
                assert!(ahead.positions_as_times());
            }
            assert!(!ahead.next_event(&mut Event::default()).unwrap());
        }
    }

    /// A source that cannot be opened: its error, at the first read.
    #[test]
    fn an_error_opening_the_source() {
        let mut ahead = ReadAhead::spawn(1, || Err(Error::msg("no such file"))).unwrap();
        let e = ahead.next_event(&mut Event::default()).unwrap_err();
        assert!(e.to_string().contains("no such file"));
    }
}
