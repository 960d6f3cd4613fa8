//! What flows between operators: each node's stream of relations, one per position, and the
//! timeline of the positions fed so far.

use std::collections::VecDeque;
use std::rc::Rc;

use rvmon_core::Timestamp;
use serde::{Deserialize, Serialize};

use crate::rel::Rel;

/// A node's output: relations for consecutive positions from `head`. Relations are shared
/// (`Rc`), so a temporal operator can hand out its whole state without copying it: its parent
/// consumes and drops the snapshot in the same step, and the next update mutates in place.
#[derive(Default, Debug, Serialize, Deserialize)]
pub(crate) struct Stream {
    pub(crate) head: u64,
    pub(crate) vals: VecDeque<Rc<Rel>>,
    /// The empty relation this stream shares (a field, not a thread-local: it is pushed at
    /// most time points).
    pub(crate) empty: Rc<Rel>,
    /// When several nodes read the stream (a shared subplan): each reader, with the position
    /// below which it has released the stream. Relations are dropped once all have.
    pub(crate) readers: Vec<(usize, u64)>,
}

impl Stream {
    pub(crate) fn get(&self, pos: u64) -> Option<&Rc<Rel>> {
        if pos < self.head {
            return None;
        }
        self.vals.get((pos - self.head) as usize)
    }

    /// PERF: empty relations (most of them, at most time points) share one allocation.
    pub(crate) fn push(&mut self, r: Rel) {
        if r.is_empty() {
            self.vals.push_back(Rc::clone(&self.empty));
        } else {
            self.vals.push_back(Rc::new(r));
        }
    }

    pub(crate) fn end(&self) -> u64 {
        self.head + self.vals.len() as u64
    }

    #[inline(always)]
    pub(crate) fn drop_before(&mut self, pos: u64) {
        while self.head < pos && !self.vals.is_empty() {
            self.vals.pop_front();
            self.head += 1;
        }
    }

    /// Reader `reader` no longer needs the relations before `pos`.
    #[inline(always)]
    pub(crate) fn release(&mut self, reader: usize, pos: u64) {
        if self.readers.is_empty() {
            self.drop_before(pos);
        } else {
            self.release_shared(reader, pos);
        }
    }

    /// [`Stream::release`] for a stream that several nodes read.
    #[cold]
    fn release_shared(&mut self, reader: usize, pos: u64) {
        for r in &mut self.readers {
            if r.0 == reader {
                r.1 = r.1.max(pos);
            }
        }
        let all = self.readers.iter().map(|r| r.1).min().expect("readers");
        self.drop_before(all);
    }
}

/// Positions fed so far with their time-point index and timestamp.
#[derive(Default, Debug, Serialize, Deserialize)]
pub(crate) struct Timeline {
    pub(crate) head: u64,
    pub(crate) points: VecDeque<(u64, Timestamp)>,
}

impl Timeline {
    pub(crate) fn ts(&self, pos: u64) -> Timestamp {
        self.points[(pos - self.head) as usize].1
    }

    pub(crate) fn end(&self) -> u64 {
        self.head + self.points.len() as u64
    }
}
