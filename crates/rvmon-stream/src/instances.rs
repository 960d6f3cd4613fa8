//! The live instances of a parameterized stream: one value history per parameter values,
//! created by the spawn clause, removed at the start of the cycle after the one that closed
//! them (RTLola's rule: a closed instance can still be read in the cycle that closes it).
//! Memory is proportional to the live instances.

use std::collections::BTreeMap;
use std::hash::{Hash, Hasher};
use std::rc::Rc;

use hashbrown::HashTable;
use rustc_hash::FxHasher;

use crate::compiled::Ring;
use crate::value::Val;
use crate::window::WindowState;

/// Parameter values in a form that hashes (floats by their bits).
#[derive(Clone, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub(crate) enum KeyPart {
    Bits(u8, u64),
    Str(Rc<str>),
}

pub(crate) fn key(vals: &[Val]) -> Vec<KeyPart> {
    vals.iter()
        .map(|v| match v {
            Val::Bool(b) => KeyPart::Bits(0, u64::from(*b)),
            Val::Int(i) => KeyPart::Bits(1, *i as u64),
            Val::UInt(u) => KeyPart::Bits(2, *u),
            Val::Float(x) => KeyPart::Bits(3, x.to_bits()),
            Val::Str(s) => KeyPart::Str(s.clone()),
        })
        .collect()
}

#[derive(Debug, serde::Serialize, serde::Deserialize)]
pub(crate) struct Instance {
    pub params: Vec<Val>,
    pub ring: Ring,
    /// The windows the instance owns (those in its stream's expressions).
    pub windows: Vec<WindowState>,
    /// Closed in the current cycle: removed when the next one starts.
    pub closing: bool,
    /// Its place in the order of creation.
    created: u64,
}

/// A stream's instances, in the order they were created. An instance is named by a handle
/// (its slot, and the slot's generation above bit 32, so that the handle of a removed
/// instance never names the next one in its slot). Parameters are looked up by hashing the
/// values themselves, without building a key.
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
pub(crate) struct Instances {
    slots: Vec<Option<Instance>>,
    generations: Vec<u32>,
    free: Vec<usize>,
    /// Creation order → handle.
    order: BTreeMap<u64, u64>,
    created: u64,
    closing: Vec<u64>,
    /// Slots by their parameters' hash, kept beside each slot so that a probe compares
    /// hashes before it reads an instance (rebuilt after a restore: [`Instances::rebuild`]).
    #[serde(skip)]
    table: HashTable<(u64, usize)>,
}

fn hash(params: &[Val]) -> u64 {
    let mut h = FxHasher::default();
    for v in params {
        match v {
            Val::Bool(b) => (0u8, u64::from(*b)).hash(&mut h),
            Val::Int(i) => (1u8, *i as u64).hash(&mut h),
            Val::UInt(u) => (2u8, *u).hash(&mut h),
            Val::Float(x) => (3u8, x.to_bits()).hash(&mut h),
            Val::Str(s) => (4u8, &**s).hash(&mut h),
        }
    }
    // Fx alone leaves sequential integers close in the top bits, which the table's control
    // bytes use: finish with SplitMix64's mixer.
    let mut z = h.finish();
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The same parameters (floats by their bits, as they are hashed).
fn same(a: &[Val], b: &[Val]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).all(|(x, y)| match (x, y) {
            (Val::Float(x), Val::Float(y)) => x.to_bits() == y.to_bits(),
            (x, y) => x == y,
        })
}

impl Instances {
    fn slot_of(&self, params: &[Val]) -> Option<usize> {
        let slots = &self.slots;
        let h = hash(params);
        self.table
            .find(h, |&(hi, i)| {
                hi == h
                    && slots[i]
                        .as_ref()
                        .is_some_and(|inst| same(&inst.params, params))
            })
            .map(|&(_, i)| i)
    }

    fn handle(&self, slot: usize) -> u64 {
        (u64::from(self.generations[slot]) << 32) | slot as u64
    }

    /// The handle of the instance with these parameter values.
    pub fn serial_of(&self, params: &[Val]) -> Option<u64> {
        self.slot_of(params).map(|i| self.handle(i))
    }

    /// The instance with these parameter values, and its handle.
    pub fn get_with_handle(&self, params: &[Val]) -> Option<(u64, &Instance)> {
        let i = self.slot_of(params)?;
        Some((self.handle(i), self.slots[i].as_ref()?))
    }

    /// Creates the instance unless it exists; returns its handle when created.
    pub fn spawn(
        &mut self,
        params: Vec<Val>,
        ring: Ring,
        windows: Vec<WindowState>,
    ) -> Option<u64> {
        if self.slot_of(&params).is_some() {
            return None;
        }
        let slot = match self.free.pop() {
            Some(i) => {
                self.generations[i] = self.generations[i].wrapping_add(1);
                i
            }
            None => {
                self.slots.push(None);
                self.generations.push(0);
                self.slots.len() - 1
            }
        };
        let h = hash(&params);
        let created = self.created;
        self.created += 1;
        self.slots[slot] = Some(Instance {
            params,
            ring,
            windows,
            closing: false,
            created,
        });
        self.table.insert_unique(h, (h, slot), |&(hi, _)| hi);
        let handle = self.handle(slot);
        self.order.insert(created, handle);
        Some(handle)
    }

    /// The live instances' handles, oldest first.
    pub fn serials(&self) -> Vec<u64> {
        self.order.values().copied().collect()
    }

    pub fn iter_mut(&mut self) -> impl Iterator<Item = &mut Instance> {
        self.slots.iter_mut().flatten()
    }

    pub fn instance_mut(&mut self, handle: u64) -> Option<&mut Instance> {
        let slot = (handle & 0xffff_ffff) as usize;
        if self.generations.get(slot) != Some(&((handle >> 32) as u32)) {
            return None;
        }
        self.slots[slot].as_mut()
    }

    /// Marks an instance closed: it goes at the start of the next cycle.
    pub fn close(&mut self, handle: u64) {
        if let Some(i) = self.instance_mut(handle) {
            if !i.closing {
                i.closing = true;
                self.closing.push(handle);
            }
        }
    }

    /// Removes the instances closed in the cycle before; returns their parameters.
    pub fn remove_closed(&mut self) -> Vec<Vec<Val>> {
        let mut removed = Vec::new();
        for handle in std::mem::take(&mut self.closing) {
            if self.instance_mut(handle).is_none() {
                continue;
            }
            let slot = (handle & 0xffff_ffff) as usize;
            let inst = self.slots[slot].take().expect("a live instance");
            let h = hash(&inst.params);
            if let Ok(entry) = self.table.find_entry(h, |&(_, i)| i == slot) {
                entry.remove();
            }
            self.order.remove(&inst.created);
            self.free.push(slot);
            removed.push(inst.params);
        }
        removed
    }

    /// Rebuilds the lookup table (after the instances were restored from a snapshot).
    pub fn rebuild(&mut self) {
        self.table.clear();
        for (i, inst) in self.slots.iter().enumerate() {
            if let Some(inst) = inst {
                let h = hash(&inst.params);
                self.table.insert_unique(h, (h, i), |&(hi, _)| hi);
            }
        }
    }

    /// How many instances live.
    pub fn len(&self) -> usize {
        self.order.len()
    }
}
