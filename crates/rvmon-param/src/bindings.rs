//! The bindings a parametric monitor has seen, each with a dense id and a machine state.
//!
//! A binding's key is `[mask, values…]` (its parameters as a bit mask, then their values in
//! parameter order). Keys live in one flat array, a fixed stride apart, so that an id leads to
//! its key in one memory access; the hash table holds only ids, and compares a probed id's
//! key in place. (PERF: with one `Rc<[Value]>` per key, the table, the slot and the key's
//! allocation were three cache lines per binding visited; five properties monitored
//! together missed the cache about three times as often as the five alone.)

use hashbrown::HashTable;
use rustc_hash::FxHasher;
use rvmon_core::Value;
use std::hash::{Hash, Hasher};

/// The mask of a freed id's key.
const FREED: i64 = -1;

/// A state that can no longer reach a verdict.
const DEAD: u32 = u32::MAX;

pub(crate) fn state_code(state: Option<usize>) -> u32 {
    state.map_or(DEAD, |q| q as u32)
}

pub(crate) fn code_state(code: u32) -> Option<usize> {
    (code != DEAD).then_some(code as usize)
}

/// The hash a key is found by: its mask, then its values.
pub(crate) fn hash_key(key: &[Value]) -> u64 {
    hash_restricted(key, u32::MAX).0
}

/// The hash of `key` restricted to the parameters in `to` ([`hash_key`] of that restriction),
/// and the restriction's mask. The indexes key bindings by such hashes. (PERF: building each
/// restriction in a buffer, then hashing it, was a tenth of UnsafeMapIterator's instructions.)
pub(crate) fn hash_restricted(key: &[Value], to: u32) -> (u64, u32) {
    let mask = mask_of(key);
    let kept = mask & to;
    let mut h = FxHasher::default();
    h.write_u32(kept);
    if kept == mask {
        key[1..].iter().for_each(|v| v.hash(&mut h));
    } else {
        let mut bits = kept;
        while bits != 0 {
            value_at(key, mask, bits.trailing_zeros()).hash(&mut h);
            bits &= bits - 1;
        }
    }
    (h.finish(), kept)
}

/// The value of parameter `p` in a key of mask `mask` that binds it: keys list values in
/// parameter order, so p's follows those of the parameters below it.
#[inline]
pub(crate) fn value_at(key: &[Value], mask: u32, p: u32) -> Value {
    key[1 + (mask & ((1u32 << p) - 1)).count_ones() as usize]
}

/// A key's parameter mask.
pub(crate) fn mask_of(key: &[Value]) -> u32 {
    match key[0] {
        Value::Int(m) => m as u32,
        _ => unreachable!("a key starts with its mask"),
    }
}

#[derive(Debug)]
pub(crate) struct Bindings {
    /// Key slots by id; a freed id's mask is [`FREED`].
    keys: KeySlots,
    /// Machine states by id (see [`state_code`]).
    states: Vec<u32>,
    /// Ids by their key's hash.
    table: HashTable<u32>,
    free: Vec<u32>,
}

impl Bindings {
    /// Bindings over `parameters` parameters at most.
    pub(crate) fn new(parameters: usize) -> Bindings {
        Bindings {
            keys: KeySlots {
                stride: 1 + parameters,
                chunks: Vec::new(),
            },
            states: Vec::new(),
            table: HashTable::new(),
            free: Vec::new(),
        }
    }

    /// The key of `id`, `None` once freed.
    #[inline]
    pub(crate) fn key(&self, id: u32) -> Option<&[Value]> {
        self.keys.get(id)
    }

    pub(crate) fn state(&self, id: u32) -> Option<usize> {
        code_state(self.states[id as usize])
    }

    pub(crate) fn set_state(&mut self, id: u32, state: Option<usize>) {
        self.states[id as usize] = state_code(state);
    }

    /// The id of the binding with this key.
    pub(crate) fn find(&self, key: &[Value]) -> Option<u32> {
        let keys = &self.keys;
        self.table
            .find(hash_key(key), |&id| keys.get(id) == Some(key))
            .copied()
    }

    /// Adds a binding not seen yet; its id.
    pub(crate) fn insert(&mut self, key: &[Value], state: Option<usize>) -> u32 {
        debug_assert!(self.find(key).is_none(), "inserted twice");
        assert!(key.len() <= self.keys.stride, "a key within the parameters");
        let id = match self.free.pop() {
            Some(id) => id,
            None => {
                let id = self.states.len() as u32;
                self.states.push(DEAD);
                id
            }
        };
        self.keys.set(id, key);
        self.states[id as usize] = state_code(state);
        let keys = &self.keys;
        self.table.insert_unique(hash_key(key), id, |&other| {
            hash_key(keys.get(other).expect("a live id has a key"))
        });
        id
    }

    /// Frees a live id.
    pub(crate) fn remove(&mut self, id: u32) {
        let key = self.keys.get(id).expect("a live id has a key");
        match self.table.find_entry(hash_key(key), |&other| other == id) {
            Ok(entry) => {
                entry.remove();
            }
            Err(_) => unreachable!("a live id is in the table"),
        }
        self.keys.free(id);
        self.free.push(id);
    }

    /// How many bindings are live.
    pub(crate) fn len(&self) -> usize {
        self.table.len()
    }

    /// Every id ever given (freed ones included).
    pub(crate) fn ids(&self) -> std::ops::Range<u32> {
        0..self.states.len() as u32
    }
}

/// Key slots by id, `stride` values each (the mask, then at most one value per parameter),
/// in chunks of [`CHUNK`] slots that are allocated once and never moved (but the first,
/// which grows to that size). (PERF: one vector
/// of slots doubled as UnsafeMapIterator's 10^6 bindings came, and each doubling copied the
/// slots into fresh pages; reserving the final size up front took its 1.2 M creation events
/// from 1.9–3.5 s to 1.3–1.4 s, and their system time from 0.4–0.6 s to under 0.05 s.) The
/// first chunk starts at [`FIRST`] slots and doubles up to [`CHUNK`], so that a monitor that
/// holds a few bindings (⊥ alone, for a one-object property) does not take a whole chunk.
#[derive(Debug)]
struct KeySlots {
    stride: usize,
    chunks: Vec<Vec<Value>>,
}

/// Slots of the first chunk when it is made.
const FIRST: usize = 16;

/// Slots per chunk of [`KeySlots`] (a chunk of three-parameter keys is 1 MiB).
const CHUNK_BITS: u32 = 14;
const CHUNK: usize = 1 << CHUNK_BITS;

impl KeySlots {
    #[inline]
    fn slot(&self, id: u32) -> &[Value] {
        let base = (id as usize & (CHUNK - 1)) * self.stride;
        &self.chunks[(id >> CHUNK_BITS) as usize][base..base + self.stride]
    }

    /// The key in slot `id`, `None` once freed.
    #[inline]
    fn get(&self, id: u32) -> Option<&[Value]> {
        let slot = self.slot(id);
        match slot[0] {
            Value::Int(FREED) => None,
            Value::Int(mask) => Some(&slot[..1 + (mask as u32).count_ones() as usize]),
            _ => unreachable!("a key starts with its mask"),
        }
    }

    /// Writes `key` into slot `id`, the next slot never used or a freed one.
    fn set(&mut self, id: u32, key: &[Value]) {
        let chunk = (id >> CHUNK_BITS) as usize;
        let base = (id as usize & (CHUNK - 1)) * self.stride;
        if chunk == self.chunks.len() {
            let slots = if chunk == 0 { FIRST } else { CHUNK };
            self.chunks
                .push(vec![Value::Int(FREED); slots * self.stride]);
        }
        let slots = &mut self.chunks[chunk];
        if base >= slots.len() {
            // Only the first chunk grows (each later one is made whole).
            slots.resize(
                (2 * slots.len()).min(CHUNK * self.stride),
                Value::Int(FREED),
            );
        }
        self.chunks[chunk][base..base + key.len()].copy_from_slice(key);
    }

    fn free(&mut self, id: u32) {
        let base = (id as usize & (CHUNK - 1)) * self.stride;
        self.chunks[(id >> CHUNK_BITS) as usize][base] = Value::Int(FREED);
    }
}
