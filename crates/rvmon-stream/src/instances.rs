//! The live instances of a parameterized stream: one value history per parameter values,
//! created by the spawn clause, removed at the start of the cycle after the one that closed
//! them (RTLola's rule: a closed instance can still be read in the cycle that closes it).
//! Memory is proportional to the live instances.

use std::collections::BTreeMap;
use std::rc::Rc;

use rustc_hash::FxHashMap;

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
}

/// A stream's instances, in the order they were created.
#[derive(Debug, Default, serde::Serialize, serde::Deserialize)]
pub(crate) struct Instances {
    by_key: FxHashMap<Vec<KeyPart>, u64>,
    live: BTreeMap<u64, Instance>,
    serials: u64,
    closing: Vec<u64>,
}

impl Instances {
    /// The instance with these parameter values.
    pub fn get(&self, params: &[Val]) -> Option<&Instance> {
        self.by_key.get(&key(params)).and_then(|s| self.live.get(s))
    }

    /// Creates the instance unless it exists; returns its serial when created.
    pub fn spawn(
        &mut self,
        params: Vec<Val>,
        ring: Ring,
        windows: Vec<WindowState>,
    ) -> Option<u64> {
        let k = key(&params);
        if self.by_key.contains_key(&k) {
            return None;
        }
        let serial = self.serials;
        self.serials += 1;
        self.by_key.insert(k, serial);
        self.live.insert(
            serial,
            Instance {
                params,
                ring,
                windows,
                closing: false,
            },
        );
        Some(serial)
    }

    /// The live instances' serials, oldest first.
    pub fn serials(&self) -> Vec<u64> {
        self.live.keys().copied().collect()
    }

    pub fn iter_mut(&mut self) -> impl Iterator<Item = &mut Instance> {
        self.live.values_mut()
    }

    pub fn instance_mut(&mut self, serial: u64) -> Option<&mut Instance> {
        self.live.get_mut(&serial)
    }

    /// Marks an instance closed: it goes at the start of the next cycle.
    pub fn close(&mut self, serial: u64) {
        if let Some(i) = self.live.get_mut(&serial) {
            if !i.closing {
                i.closing = true;
                self.closing.push(serial);
            }
        }
    }

    /// Removes the instances closed in the cycle before; returns their parameters.
    pub fn remove_closed(&mut self) -> Vec<Vec<Val>> {
        let mut removed = Vec::new();
        for serial in self.closing.drain(..) {
            if let Some(i) = self.live.remove(&serial) {
                self.by_key.remove(&key(&i.params));
                removed.push(i.params);
            }
        }
        removed
    }

    /// How many instances live.
    pub fn len(&self) -> usize {
        self.live.len()
    }
}
