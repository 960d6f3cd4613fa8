use std::hash::BuildHasher;

use hashbrown::HashTable;
use rustc_hash::FxBuildHasher;

/// An interned string: event names and string values compare as integers on the hot path.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub struct Sym(pub u32);

/// Maps strings to dense [`Sym`] ids (dense so that engines can index tables by them).
///
/// PERF: one arena for all strings and a table of ids hashed by the string they name. A log
/// with a million distinct values (the DejaVu logs name every element and variable afresh)
/// costs one append and one table slot each, not two boxed copies, and dropping the interner
/// frees two buffers instead of every string.
#[derive(Default, Debug, Clone)]
pub struct Interner {
    /// Every interned string, back to back, in id order.
    text: String,
    /// Where string `i` ends in `text` (it starts where string `i - 1` ends).
    ends: Vec<usize>,
    /// The ids. Fx, not SipHash: names and values are interned once per event, and traces are
    /// not adversarial hash-flooding input for a monitor run by their owner.
    ids: HashTable<Sym>,
}

fn hash(s: &str) -> u64 {
    FxBuildHasher.hash_one(s)
}

/// String `sym` of an arena (a free function, so that it can borrow the arena while the
/// table is borrowed mutably).
fn name<'a>(text: &'a str, ends: &[usize], sym: Sym) -> &'a str {
    let i = sym.0 as usize;
    let start = if i == 0 { 0 } else { ends[i - 1] };
    &text[start..ends[i]]
}

impl Interner {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn intern(&mut self, s: &str) -> Sym {
        let h = hash(s);
        let Self { text, ends, ids } = self;
        if let Some(&id) = ids.find(h, |&id| name(text, ends, id) == s) {
            return id;
        }
        let id = Sym(ends.len() as u32);
        text.push_str(s);
        ends.push(text.len());
        ids.insert_unique(h, id, |&id| hash(name(text, ends, id)));
        id
    }

    pub fn get(&self, s: &str) -> Option<Sym> {
        self.ids.find(hash(s), |&id| self.resolve(id) == s).copied()
    }

    pub fn resolve(&self, sym: Sym) -> &str {
        name(&self.text, &self.ends, sym)
    }

    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_dense_stable_and_resolve_back() {
        let mut interner = Interner::new();
        // The empty string, a prefix of a later string and enough strings to regrow the table.
        let words: Vec<String> = ["", "a", "ab", "b"]
            .iter()
            .map(|s| s.to_string())
            .chain((0..10_000).map(|i| format!("v{i}")))
            .collect();
        for (i, w) in words.iter().enumerate() {
            assert_eq!(interner.get(w), None);
            assert_eq!(interner.intern(w), Sym(i as u32));
        }
        assert_eq!(interner.len(), words.len());
        for (i, w) in words.iter().enumerate() {
            assert_eq!(interner.intern(w), Sym(i as u32), "{w}");
            assert_eq!(interner.get(w), Some(Sym(i as u32)));
            assert_eq!(interner.resolve(Sym(i as u32)), w);
        }
        assert_eq!(interner.len(), words.len());
        assert_eq!(interner.get("v10000"), None);
    }
}
