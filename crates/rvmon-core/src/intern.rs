use std::hash::BuildHasher;

use hashbrown::HashTable;
use rustc_hash::{FxBuildHasher, FxHashSet};

/// An interned string: event names and string values compare as integers on the hot path.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub struct Sym(pub u32);

/// Maps strings to dense [`Sym`] ids (dense so that engines can index tables by them).
///
/// PERF: one arena for all strings and a table of ids hashed by the string they name. A log
/// with a million distinct values (the DejaVu logs name every element and variable afresh)
/// costs one append and one table slot each, not two boxed copies.
///
/// Memory: a log's values keep coming (request ids, file names), while a bounded policy holds
/// only some of them. [`Interner::collect`] frees the strings no one holds any more and hands
/// their ids out again, so that monitoring runs in memory that follows the policy, not the log.
/// Names (of events and fields) and everything interned before [`Interner::pin_all`] stay.
#[derive(Default, Debug, Clone)]
pub struct Interner {
    /// Every interned string, back to back (in id order until a collection reorders them).
    text: String,
    /// Where string `i` lies in `text` (empty for a freed id).
    spans: Vec<(usize, usize)>,
    /// The ids in use. Fx, not SipHash: names and values are interned once per event, and
    /// traces are not adversarial hash-flooding input for a monitor run by their owner.
    ids: HashTable<Sym>,
    /// Freed ids, handed out again before new ones.
    free: Vec<Sym>,
    /// Ids below this are never freed (the signature's and formula's strings).
    pinned_below: usize,
    /// Names interned later (events and fields met in the trace), never freed either: readers
    /// keep their ids.
    names: FxHashSet<Sym>,
}

/// An interner's content in a saved monitor state (see [`Interner::save`]).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct SavedStrings {
    strings: Vec<Option<String>>,
    pinned_below: usize,
    names: Vec<Sym>,
}

fn hash(s: &str) -> u64 {
    FxBuildHasher.hash_one(s)
}

/// String `sym` of an arena (a free function, so that it can borrow the arena while the
/// table is borrowed mutably).
fn name<'a>(text: &'a str, spans: &[(usize, usize)], sym: Sym) -> &'a str {
    let (start, end) = spans[sym.0 as usize];
    &text[start..end]
}

impl Interner {
    pub fn new() -> Self {
        Self::default()
    }

    /// The id of the value `s`, which [`Interner::collect`] may free once no one holds it.
    pub fn intern(&mut self, s: &str) -> Sym {
        let h = hash(s);
        let Self {
            text,
            spans,
            ids,
            free,
            ..
        } = self;
        if let Some(&id) = ids.find(h, |&id| name(text, spans, id) == s) {
            return id;
        }
        let span = (text.len(), text.len() + s.len());
        text.push_str(s);
        let id = match free.pop() {
            Some(id) => {
                spans[id.0 as usize] = span;
                id
            }
            None => {
                spans.push(span);
                Sym(spans.len() as u32 - 1)
            }
        };
        ids.insert_unique(h, id, |&id| hash(name(text, spans, id)));
        id
    }

    /// The id of the name `s` (of an event or a field), which is never freed.
    pub fn intern_name(&mut self, s: &str) -> Sym {
        let id = self.intern(s);
        if id.0 as usize >= self.pinned_below {
            self.names.insert(id);
        }
        id
    }

    /// Everything interned so far is never freed (called before monitoring starts, once the
    /// formula's constants and the signature's names are in).
    pub fn pin_all(&mut self) {
        self.pinned_below = self.spans.len();
    }

    /// The strings interned since there were `len` ids are never freed (a resumed run's
    /// formula constants that the saved run did not have).
    pub fn pin_since(&mut self, len: usize) {
        let from = len.max(self.pinned_below);
        let freed = self.freed();
        let new = freed.iter().enumerate().skip(from).filter(|(_, &f)| !f);
        self.names.extend(new.map(|(i, _)| Sym(i as u32)));
    }

    /// Whether each id is freed.
    fn freed(&self) -> Vec<bool> {
        let mut freed = vec![false; self.spans.len()];
        for f in &self.free {
            freed[f.0 as usize] = true;
        }
        freed
    }

    pub fn get(&self, s: &str) -> Option<Sym> {
        self.ids.find(hash(s), |&id| self.resolve(id) == s).copied()
    }

    pub fn resolve(&self, sym: Sym) -> &str {
        name(&self.text, &self.spans, sym)
    }

    /// The number of ids handed out, including freed ones (ids are below it).
    pub fn len(&self) -> usize {
        self.spans.len()
    }

    pub fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }

    /// The number of strings held (ids handed out and not freed).
    pub fn in_use(&self) -> usize {
        self.spans.len() - self.free.len()
    }

    /// The strings by id (`None` for a freed id) and which are never freed, for a saved
    /// monitor state: [`Interner::restore`] gives back the same ids.
    pub fn save(&self) -> SavedStrings {
        let strings = self
            .freed()
            .into_iter()
            .enumerate()
            .map(|(i, freed)| (!freed).then(|| self.resolve(Sym(i as u32)).to_string()))
            .collect();
        let mut names: Vec<Sym> = self.names.iter().copied().collect();
        names.sort_unstable();
        SavedStrings {
            strings,
            pinned_below: self.pinned_below,
            names,
        }
    }

    /// The interner [`Interner::save`] saved.
    pub fn restore(saved: &SavedStrings) -> Interner {
        let mut interner = Interner::new();
        let mut free = Vec::new();
        for s in &saved.strings {
            match s {
                // (A string saved twice, which only a damaged file holds, keeps its first id.)
                Some(s) if interner.get(s).is_none() => {
                    interner.intern(s);
                }
                _ => {
                    interner.spans.push((0, 0));
                    free.push(Sym(interner.spans.len() as u32 - 1));
                }
            }
        }
        free.reverse();
        interner.free = free;
        interner.pinned_below = saved.pinned_below.min(interner.spans.len());
        interner.names = saved.names.iter().copied().collect();
        interner
    }

    /// Frees the strings that are neither pinned, nor names, nor `live` (indexed by id; ids
    /// beyond it are not live), and compacts the arena. The caller vouches that no one holds
    /// a freed id: it is handed out again for another string.
    pub fn collect(&mut self, live: &[bool]) {
        let freed = self.freed();
        let mut text = String::with_capacity(self.text.len() / 2);
        let mut ids = HashTable::with_capacity(self.in_use());
        for (i, span) in self.spans.iter_mut().enumerate() {
            if freed[i] {
                continue;
            }
            let sym = Sym(i as u32);
            let keep = i < self.pinned_below
                || live.get(i).copied().unwrap_or(false)
                || self.names.contains(&sym);
            if !keep {
                *span = (0, 0);
                self.free.push(sym);
                continue;
            }
            let s = &self.text[span.0..span.1];
            *span = (text.len(), text.len() + s.len());
            text.push_str(s);
            ids.insert_unique(hash(s), sym, |_| unreachable!("sized for every id kept"));
        }
        text.shrink_to_fit();
        self.text = text;
        self.ids = ids;
        // Lowest ids first: they are handed out from the end.
        self.free.sort_unstable_by(|a, b| b.cmp(a));
    }
}

/// When to free the strings no one holds ([`Interner::collect`]): once the strings in use reach
/// a floor, and then once as many new strings have come as the larger of the floor, the
/// strings kept, and a quarter of the last walk's size. Each collection walks the monitor's
/// state, so its cost is paid for by the new strings since the last one: a state of millions
/// of tuples that holds few strings is not walked every few thousand new values.
#[derive(Debug, Clone)]
pub struct StringCollection {
    floor: usize,
    next: usize,
}

impl StringCollection {
    /// Strings in use before the first collection, by default.
    pub const DEFAULT_FLOOR: usize = 1 << 16;

    /// A floor of 0 collects at every opportunity (for tests).
    pub fn new(floor: usize) -> StringCollection {
        StringCollection { floor, next: floor }
    }

    pub fn due(&self, interner: &Interner) -> bool {
        interner.in_use() >= self.next
    }

    /// When [`StringCollection::due`], frees every string that `mark` does not name (pinned
    /// strings and names stay); `mark` returns the size of its walk. Called between two steps,
    /// when only the monitor's state holds strings.
    pub fn collect_if_due(
        &mut self,
        interner: &mut Interner,
        mark: impl FnOnce(&mut dyn FnMut(Sym)) -> usize,
    ) {
        if !self.due(interner) {
            return;
        }
        let mut live = vec![false; interner.len()];
        let walked = mark(&mut |s| {
            if let Some(l) = live.get_mut(s.0 as usize) {
                *l = true;
            }
        });
        interner.collect(&live);
        if self.floor > 0 {
            let kept = interner.in_use();
            self.next = kept + self.floor.max(kept).max(walked / 4);
        }
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

    #[test]
    fn collection_frees_what_no_one_holds_and_hands_the_ids_out_again() {
        let mut interner = Interner::new();
        let pinned = interner.intern("formula constant");
        interner.pin_all();
        let values: Vec<Sym> = (0..100)
            .map(|i| interner.intern(&format!("v{i}")))
            .collect();
        let event = interner.intern_name("event name");
        // Even values are held.
        let live: Vec<bool> = (0..interner.len())
            .map(|i| {
                values
                    .iter()
                    .position(|v| v.0 as usize == i)
                    .is_some_and(|k| k % 2 == 0)
            })
            .collect();
        interner.collect(&live);
        assert_eq!(interner.in_use(), 1 + 50 + 1);
        assert_eq!(interner.resolve(pinned), "formula constant");
        assert_eq!(interner.resolve(event), "event name");
        assert_eq!(interner.intern_name("event name"), event);
        for (k, v) in values.iter().enumerate() {
            let text = format!("v{k}");
            if k % 2 == 0 {
                assert_eq!(interner.resolve(*v), text);
                assert_eq!(interner.get(&text), Some(*v));
                assert_eq!(interner.intern(&text), *v);
            } else {
                assert_eq!(interner.get(&text), None, "{text} was freed");
            }
        }
        // New strings take the freed ids, lowest first, and no id is handed out twice.
        let fresh: Vec<Sym> = (0..60).map(|i| interner.intern(&format!("w{i}"))).collect();
        assert_eq!(fresh[0], values[1]);
        let mut all: Vec<Sym> = fresh.clone();
        all.extend(values.iter().step_by(2));
        all.extend([pinned, event]);
        all.sort();
        all.dedup();
        assert_eq!(all.len(), 60 + 50 + 2);
        assert_eq!(interner.len(), 1 + 100 + 1 + 10);
        for (i, f) in fresh.iter().enumerate() {
            assert_eq!(interner.resolve(*f), format!("w{i}"));
        }
        // A second collection with nothing live keeps the pinned and the names only.
        interner.collect(&[]);
        assert_eq!(interner.in_use(), 2);
        assert_eq!(interner.get("w3"), None);
        assert_eq!(interner.get("event name"), Some(event));
    }

    #[test]
    fn a_restored_interner_has_the_same_ids_free_and_pinned() {
        let mut interner = Interner::new();
        interner.intern("constant");
        interner.pin_all();
        let a = interner.intern("a");
        let b = interner.intern("b");
        let name = interner.intern_name("event");
        let c = interner.intern("c");
        interner.collect(&[false, true, false, false, false]);
        let mut restored = Interner::restore(&interner.save());
        assert_eq!(restored.save(), interner.save());
        assert_eq!(restored.resolve(a), "a");
        assert_eq!(restored.get("b"), None);
        assert_eq!(restored.get("c"), None);
        // Freed ids are handed out again, lowest first, and the same survive collections.
        assert_eq!(restored.intern("d"), b);
        assert_eq!(restored.intern("e"), c);
        restored.collect(&[]);
        assert_eq!(restored.get("constant"), Some(Sym(0)));
        assert_eq!(restored.get("event"), Some(name));
        assert_eq!(restored.in_use(), 2);
    }

    #[test]
    fn strings_interned_after_a_restore_can_be_pinned() {
        let mut interner = Interner::new();
        interner.pin_all();
        interner.intern("held value");
        let saved = interner.save();
        let mut restored = Interner::restore(&saved);
        let len = restored.len();
        let constant = restored.intern("a constant the saved run did not have");
        restored.pin_since(len);
        restored.collect(&[]);
        assert_eq!(
            restored.get("a constant the saved run did not have"),
            Some(constant)
        );
        assert_eq!(restored.get("held value"), None);
    }

    #[test]
    fn a_large_walk_waits_for_more_new_strings() {
        let mut interner = Interner::new();
        let mut strings = StringCollection::new(10);
        for i in 0..10 {
            interner.intern(&format!("v{i}"));
        }
        assert!(strings.due(&interner));
        // A walk of a million values that holds none of the strings: the next collection
        // waits for a quarter of a million new strings, not for the floor's ten.
        strings.collect_if_due(&mut interner, |_| 1_000_000);
        assert_eq!(interner.in_use(), 0);
        for i in 0..249_999 {
            interner.intern(&format!("w{i}"));
        }
        assert!(!strings.due(&interner));
        interner.intern("one more");
        assert!(strings.due(&interner));
        // A small walk: the floor, or as many as are kept.
        strings.collect_if_due(&mut interner, |_| 0);
        assert!(!strings.due(&interner));
    }
}
