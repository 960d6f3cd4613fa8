use crate::Sym;

/// Timestamps are integers, as in MonPoly; their unit is the user's (seconds by convention).
pub type Timestamp = i64;

/// A data value carried by an event.
///
/// Equality and hashing are structural, with floats compared by their bits (so values can key
/// hash tables; `NaN` equals itself, as in MonPoly's OCaml `compare`). Ordering needs the
/// interner, because strings order by their text: see [`Value::cmp_in`].
#[derive(Clone, Copy, Debug, serde::Serialize, serde::Deserialize)]
pub enum Value {
    Int(i64),
    Float(f64),
    Str(Sym),
    Bool(bool),
}

impl PartialEq for Value {
    fn eq(&self, other: &Value) -> bool {
        match (self, other) {
            (Value::Int(a), Value::Int(b)) => a == b,
            (Value::Float(a), Value::Float(b)) => a.to_bits() == b.to_bits(),
            (Value::Str(a), Value::Str(b)) => a == b,
            (Value::Bool(a), Value::Bool(b)) => a == b,
            _ => false,
        }
    }
}

impl Eq for Value {}

/// One word per value, without the kind: values of different kinds that share their bits
/// only collide (equality still tells them apart), and a well-typed formula never puts two
/// kinds in one column. PERF: tuples are hashed at every lookup of the engines' tables; the
/// kind as a second write cost the data race 2 % of its instructions.
impl std::hash::Hash for Value {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        h.write_u64(match self {
            Value::Int(i) => *i as u64,
            Value::Float(f) => f.to_bits(),
            Value::Str(s) => u64::from(s.0),
            Value::Bool(b) => u64::from(*b),
        })
    }
}

impl Value {
    /// Total order as MonPoly's output uses it: numbers numerically, strings by their bytes,
    /// and values of different kinds by kind (which a well-typed formula never mixes).
    pub fn cmp_in(&self, other: &Value, interner: &crate::Interner) -> std::cmp::Ordering {
        use std::cmp::Ordering;
        let rank = |v: &Value| match v {
            Value::Int(_) => 0,
            Value::Float(_) => 1,
            Value::Str(_) => 2,
            Value::Bool(_) => 3,
        };
        match (self, other) {
            (Value::Int(a), Value::Int(b)) => a.cmp(b),
            (Value::Float(a), Value::Float(b)) => a
                .partial_cmp(b)
                .unwrap_or_else(|| a.is_nan().cmp(&b.is_nan())),
            (Value::Str(a), Value::Str(b)) => {
                if a == b {
                    Ordering::Equal
                } else {
                    interner
                        .resolve(*a)
                        .as_bytes()
                        .cmp(interner.resolve(*b).as_bytes())
                }
            }
            (Value::Bool(a), Value::Bool(b)) => a.cmp(b),
            _ => rank(self).cmp(&rank(other)),
        }
    }
}

/// One event of a time point, as a view into the time point's flat argument storage.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
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
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct TimePoint {
    pub index: u64,
    pub ts: Timestamp,
    pub events: Vec<EventRef>,
    pub args: Vec<Value>,
    /// The field names of `args`, one each, from readers of named fields (CSRV CSV, JSON,
    /// XML: one event per time point); empty from readers without names (MonPoly's logs).
    pub fields: Vec<Sym>,
}

impl TimePoint {
    pub fn clear(&mut self) {
        self.events.clear();
        self.args.clear();
        self.fields.clear();
    }

    /// [`TimePoint::push_event`] for an event whose arguments are the fields `fields`.
    pub fn push_named_event(&mut self, name: Sym, args: &[Value], fields: &[Sym]) {
        debug_assert!(
            self.fields.len() == self.args.len() && args.len() == fields.len(),
            "named events have a name per argument, and share no time point with others"
        );
        self.push_event(name, args);
        self.fields.extend_from_slice(fields);
    }

    /// The field names of `e`'s arguments, if its reader names fields.
    pub fn fields_of(&self, e: &EventRef) -> Option<&[Sym]> {
        self.fields
            .get(e.args_start as usize..(e.args_start + e.args_len) as usize)
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
