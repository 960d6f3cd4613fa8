//! The ids of the bindings in an index entry ([`Ids`]), and the map from restrictions to
//! entries that holds most of them ([`Entries`]).

use rustc_hash::{FxHashMap, FxHashSet};

/// Ids in an index entry; most entries hold one, many hold a few. A set, because a binding
/// leaves its entry whenever its state changes (and may sit in an entry with every other
/// binding of a domain: UnsafeMapIterator's `(m, c)` in `useIter(i)`'s index). Up to
/// [`FEW`] ids are a fixed array (PERF: a hash set per entry of two or three ids cost the
/// allocation of a table and a hash per insert); more are a hash set, so that removing one
/// from a large entry stays cheap.
#[derive(Debug)]
pub(crate) enum Ids {
    One(u32),
    Few(u8, Box<[u32; FEW]>),
    Many(Box<FxHashSet<u32>>),
}

/// The most ids an entry keeps in an array.
const FEW: usize = 8;

impl Ids {
    pub(crate) fn for_each(&self, mut f: impl FnMut(u32)) {
        match self {
            Ids::One(id) => f(*id),
            Ids::Few(n, ids) => ids[..*n as usize].iter().for_each(|&id| f(id)),
            Ids::Many(v) => v.iter().for_each(|&id| f(id)),
        }
    }

    pub(crate) fn push(&mut self, id: u32) {
        match self {
            Ids::One(a) if *a == id => {}
            Ids::One(a) => {
                let mut ids = Box::new([0; FEW]);
                ids[..2].copy_from_slice(&[*a, id]);
                *self = Ids::Few(2, ids);
            }
            Ids::Few(n, ids) if ids[..*n as usize].contains(&id) => {}
            Ids::Few(n, ids) if (*n as usize) < FEW => {
                ids[*n as usize] = id;
                *n += 1;
            }
            Ids::Few(_, ids) => {
                *self = Ids::Many(Box::new(ids.iter().copied().chain([id]).collect()));
            }
            Ids::Many(v) => {
                v.insert(id);
            }
        }
    }

    /// Removes `id`; `true` when the entry is then empty.
    pub(crate) fn remove(&mut self, id: u32) -> bool {
        let single = match self {
            Ids::One(a) => return *a == id,
            Ids::Few(n, ids) => {
                if let Some(k) = ids[..*n as usize].iter().position(|&x| x == id) {
                    *n -= 1;
                    ids[k] = ids[*n as usize];
                }
                (*n == 1).then(|| ids[0])
            }
            Ids::Many(v) => {
                v.remove(&id);
                if v.is_empty() {
                    return true;
                }
                (v.len() == 1).then(|| *v.iter().next().expect("one"))
            }
        };
        if let Some(a) = single {
            *self = Ids::One(a);
        }
        false
    }
}

/// Index entries keyed by the hash of a restriction: one 8-byte slot per entry, the id itself
/// when the entry holds one (most do: UnsafeMapIterator's `(c, i)` and `(i)` entries),
/// else the number of a list of ids in `lists`.
///
/// Entries are found by 32 bits of the restriction's 64-bit hash. Two restrictions
/// that share it share an entry. That only makes a lookup return a binding it need not, as
/// with any hash collision here: every reader checks that a binding agrees with its event
/// (see [`crate::monitor`]'s `DomainIndex`). (PERF: a map from the full hash to [`Ids`] took
/// 24 bytes per entry, 100 of UnsafeMapIterator's 350 MB at 10^6 iterators.)
#[derive(Debug)]
pub(crate) struct Entries {
    slots: FxHashMap<u32, u32>,
    lists: Vec<Ids>,
    /// Numbers of lists no slot refers to.
    free: Vec<u32>,
    /// The bits of the folded hash that key an entry: all of them, or none when a test
    /// makes every restriction share one entry ([`Entries::colliding`]).
    keep: u32,
}

impl Default for Entries {
    fn default() -> Entries {
        Entries {
            slots: FxHashMap::default(),
            lists: Vec::new(),
            free: Vec::new(),
            keep: u32::MAX,
        }
    }
}

/// A slot that refers to a list: the list's number with this bit set.
const LIST: u32 = 1 << 31;

impl Entries {
    /// Every restriction shares one entry: lookups return every binding indexed, which must
    /// change no verdict (a property test checks it).
    pub(crate) fn colliding(mut self) -> Entries {
        self.keep = 0;
        self
    }

    /// Both halves folded: the upper half of an `FxHasher` hash depends only on the low 38
    /// bits of each value, so floats with short mantissas (`1.5`, `2.25`), or ids that
    /// differ by multiples of 2^38, would all share one entry.
    #[inline]
    fn short(&self, hash: u64) -> u32 {
        (hash ^ hash >> 32) as u32 & self.keep
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }

    /// Calls `f` with each id of the entry of `hash`.
    #[inline]
    pub(crate) fn for_each(&self, hash: u64, mut f: impl FnMut(u32)) {
        match self.slots.get(&self.short(hash)) {
            None => {}
            Some(&slot) if slot & LIST == 0 => f(slot),
            Some(&slot) => self.lists[(slot & !LIST) as usize].for_each(f),
        }
    }

    pub(crate) fn add(&mut self, hash: u64, id: u32) {
        assert!(id & LIST == 0, "fewer than 2^31 bindings");
        let key = self.short(hash);
        let slot = self.slots.entry(key).or_insert(id);
        if *slot == id {
            return; // new, or there already
        }
        if *slot & LIST != 0 {
            self.lists[(*slot & !LIST) as usize].push(id);
            return;
        }
        let mut ids = Ids::One(*slot);
        ids.push(id);
        let k = match self.free.pop() {
            Some(k) => {
                self.lists[k as usize] = ids;
                k
            }
            None => {
                self.lists.push(ids);
                self.lists.len() as u32 - 1
            }
        };
        *slot = LIST | k;
    }

    pub(crate) fn remove(&mut self, hash: u64, id: u32) {
        let key = self.short(hash);
        let Some(slot) = self.slots.get_mut(&key) else {
            return;
        };
        if *slot & LIST == 0 {
            if *slot == id {
                self.slots.remove(&key);
            }
            return;
        }
        let k = *slot & !LIST;
        let list = &mut self.lists[k as usize];
        // (A list holds two ids or more: it is never emptied by one removal.)
        list.remove(id);
        if let Ids::One(last) = *list {
            *slot = last;
            self.lists[k as usize] = Ids::One(0); // frees the list's allocation
            self.free.push(k);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(e: &Entries, hash: u64) -> Vec<u32> {
        let mut v = Vec::new();
        e.for_each(hash, |id| v.push(id));
        v.sort_unstable();
        v
    }

    /// Restrictions of short floats, and of integers 2^38 apart, have entries of their own
    /// (the upper half of their hashes alone is the same for all of them).
    #[test]
    fn entry_keys_use_every_bit_of_the_values() {
        use rvmon_core::Value;
        let e = Entries::default();
        let key = |v: Value| e.short(crate::bindings::hash_key(&[Value::Int(1), v]));
        let floats: std::collections::HashSet<u32> = (1..100)
            .map(|k| key(Value::Float(f64::from(k) + 0.5)))
            .collect();
        assert_eq!(floats.len(), 99);
        let ints: std::collections::HashSet<u32> =
            (1..100).map(|k| key(Value::Int(k << 38))).collect();
        assert_eq!(ints.len(), 99);
    }

    #[test]
    fn entries_grow_into_lists_and_back() {
        let mut e = Entries::default();
        let (h, g) = (7u64 << 32, 9u64 << 32);
        e.add(h, 1);
        e.add(h, 1);
        assert_eq!(ids(&e, h), [1]);
        for id in 2..20 {
            e.add(h, id);
        }
        e.add(g, 5);
        assert_eq!(ids(&e, h), (1..20).collect::<Vec<_>>());
        for id in 1..19 {
            e.remove(h, id);
        }
        assert_eq!(ids(&e, h), [19]);
        assert_eq!(e.free, [0], "the list is free again");
        e.add(h, 3);
        assert_eq!(ids(&e, h), [3, 19]);
        assert_eq!(e.lists.len(), 1, "the free list is reused");
        e.remove(h, 3);
        e.remove(h, 19);
        assert!(ids(&e, h).is_empty());
        assert_eq!(ids(&e, g), [5]);
        e.remove(g, 5);
        assert!(e.is_empty());
    }
}
