use crate::Sym;

/// Timestamps are integers, as in MonPoly; their unit is the user's (seconds by convention).
pub type Timestamp = i64;

/// A data value carried by an event.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Value {
    Int(i64),
    Float(f64),
    Str(Sym),
    Bool(bool),
}

/// One event of a time point, as a view into the time point's flat argument storage.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EventRef {
    pub name: Sym,
    pub args_start: u32,
    pub args_len: u32,
}

/// A time point: its 0-based index in the trace, its timestamp and the events that happened
/// at it (a predicate may occur several times with different tuples).
///
/// Arguments of all events live in one `Vec` so that a reader can refill a `TimePoint` without
/// allocating per event: readers reuse one `TimePoint` for the whole trace.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TimePoint {
    pub index: u64,
    pub ts: Timestamp,
    pub events: Vec<EventRef>,
    pub args: Vec<Value>,
}

impl TimePoint {
    pub fn clear(&mut self) {
        self.events.clear();
        self.args.clear();
    }

    pub fn push_event(&mut self, name: Sym, args: &[Value]) {
        self.events.push(EventRef {
            name,
            args_start: self.args.len() as u32,
            args_len: args.len() as u32,
        });
        self.args.extend_from_slice(args);
    }

    pub fn args_of(&self, e: &EventRef) -> &[Value] {
        &self.args[e.args_start as usize..(e.args_start + e.args_len) as usize]
    }
}
