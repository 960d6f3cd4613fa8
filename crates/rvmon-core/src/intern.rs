use rustc_hash::FxHashMap;

/// An interned string: event names and string values compare as integers on the hot path.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub struct Sym(pub u32);

/// Maps strings to dense [`Sym`] ids (dense so that engines can index tables by them).
#[derive(Default, Debug, Clone)]
pub struct Interner {
    /// Fx, not SipHash: names and values are interned once per event, and traces are not
    /// adversarial hash-flooding input for a monitor run by their owner.
    ids: FxHashMap<Box<str>, Sym>,
    names: Vec<Box<str>>,
}

impl Interner {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn intern(&mut self, s: &str) -> Sym {
        if let Some(&id) = self.ids.get(s) {
            return id;
        }
        let id = Sym(self.names.len() as u32);
        self.names.push(s.into());
        self.ids.insert(s.into(), id);
        id
    }

    pub fn get(&self, s: &str) -> Option<Sym> {
        self.ids.get(s).copied()
    }

    pub fn resolve(&self, sym: Sym) -> &str {
        &self.names[sym.0 as usize]
    }

    pub fn len(&self) -> usize {
        self.names.len()
    }

    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }
}
