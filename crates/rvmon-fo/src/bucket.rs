//! The tuples of one key in a SINCE state's secondary index, each with the position at which
//! it entered the state.
//!
//! PERF: most keys hold one or two tuples (the holder of a lock, the open modes of a file), and
//! a key comes and goes with its tuples. A hash map per key cost an allocation and a table
//! initialisation each time a key appeared (about 7 % of locks-cycles' instructions in a
//! profile), so a few tuples are kept inline and searched in order; a key with many tuples
//! (the variables a thread accessed) gets a hash map. locks-cycles 879 M -> 863 M, the data
//! race 5,120 M -> 5,051 M instructions on their 100 k logs.

use rustc_hash::FxHashMap;
use rvmon_core::Value;
use serde::{Deserialize, Serialize};
use smallvec::SmallVec;

use crate::rel::Tuple;

/// Past this many tuples a bucket is a hash map.
const INLINE_MAX: usize = 8;

#[derive(Debug, Serialize, Deserialize)]
pub(crate) enum Bucket {
    Few(SmallVec<[(Tuple, u64); 2]>),
    Many(FxHashMap<Tuple, u64>),
}

impl Bucket {
    /// A bucket of one tuple.
    pub(crate) fn one(t: Tuple, at: u64) -> Bucket {
        let mut few = SmallVec::new();
        few.push((t, at));
        Bucket::Few(few)
    }

    /// Sets `t`'s position (adding `t` if absent).
    pub(crate) fn insert(&mut self, t: Tuple, at: u64) {
        match self {
            Bucket::Few(few) => {
                if let Some(slot) = few.iter_mut().find(|(u, _)| **u == *t) {
                    slot.1 = at;
                } else if few.len() < INLINE_MAX {
                    few.push((t, at));
                } else {
                    let mut map: FxHashMap<Tuple, u64> = few.drain(..).collect();
                    map.insert(t, at);
                    *self = Bucket::Many(map);
                }
            }
            Bucket::Many(map) => {
                map.insert(t, at);
            }
        }
    }

    pub(crate) fn get_mut(&mut self, t: &[Value]) -> Option<&mut u64> {
        match self {
            Bucket::Few(few) => few.iter_mut().find(|(u, _)| **u == *t).map(|(_, at)| at),
            Bucket::Many(map) => map.get_mut(t),
        }
    }

    pub(crate) fn remove(&mut self, t: &[Value]) {
        match self {
            Bucket::Few(few) => {
                if let Some(i) = few.iter().position(|(u, _)| **u == *t) {
                    few.swap_remove(i);
                }
            }
            Bucket::Many(map) => {
                map.remove(t);
            }
        }
    }

    pub(crate) fn is_empty(&self) -> bool {
        match self {
            Bucket::Few(few) => few.is_empty(),
            Bucket::Many(map) => map.is_empty(),
        }
    }

    /// The tuples with their positions, in no particular order.
    pub(crate) fn iter(&self) -> Iter<'_> {
        match self {
            Bucket::Few(few) => Iter::Few(few.iter()),
            Bucket::Many(map) => Iter::Many(map.iter()),
        }
    }

    pub(crate) fn keys(&self) -> impl Iterator<Item = &Tuple> {
        self.iter().map(|(t, _)| t)
    }
}

/// See [`Bucket::iter`].
pub(crate) enum Iter<'a> {
    Few(std::slice::Iter<'a, (Tuple, u64)>),
    Many(std::collections::hash_map::Iter<'a, Tuple, u64>),
}

impl<'a> Iterator for Iter<'a> {
    type Item = (&'a Tuple, &'a u64);

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        match self {
            Iter::Few(few) => few.next().map(|(t, at)| (t, at)),
            Iter::Many(many) => many.next(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(i: i64) -> Tuple {
        vec![Value::Int(i)].into()
    }

    /// The bucket answers as a map would, across the switch to a hash map and back to empty.
    #[test]
    fn a_bucket_is_a_map_from_tuples_to_positions() {
        let mut bucket = Bucket::one(t(0), 0);
        let mut model: FxHashMap<Tuple, u64> = [(t(0), 0)].into_iter().collect();
        for step in 0..200u64 {
            let k = t((step * 7 % 13) as i64);
            if step % 3 == 2 {
                bucket.remove(&k);
                model.remove(&k);
            } else {
                bucket.insert(k.clone(), step);
                model.insert(k, step);
            }
            let seen: FxHashMap<Tuple, u64> = bucket.iter().map(|(k, v)| (k.clone(), *v)).collect();
            assert_eq!(seen, model, "after step {step}");
            assert_eq!(bucket.iter().count(), model.len(), "no tuple twice");
            assert_eq!(bucket.is_empty(), model.is_empty());
            for i in 0..13 {
                assert_eq!(bucket.get_mut(&t(i)).copied(), model.get(&t(i)).copied());
            }
        }
        for i in 0..13 {
            bucket.remove(&t(i));
        }
        assert!(bucket.is_empty());
    }
}
