use crate::Timestamp;

/// A three-valued truth value: LTL3's ⊤/⊥/? (paper 12). Bounded specifications only ever
/// produce `True` and `False`; `Unknown` is what an unbounded-future property is after a prefix
/// that settles nothing.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Truth {
    True,
    False,
    Unknown,
}

impl From<bool> for Truth {
    fn from(b: bool) -> Self {
        if b {
            Truth::True
        } else {
            Truth::False
        }
    }
}

/// The decided value of the specification at one time point.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Verdict {
    pub tp: u64,
    pub ts: Timestamp,
    pub value: Truth,
}
