//! Tuples and relations: the values of first-order subformulas at a time point.

use std::borrow::Borrow;
use std::hash::Hash;
use std::io::Write;
use std::rc::Rc;

use rustc_hash::FxHashSet;
use rvmon_core::{Interner, Value};
use smallvec::SmallVec;

/// An assignment of values to a node's variables, in the node's column order. Shared (`Rc`):
/// a tuple is stored in several places at once (a temporal state's output, its witness table,
/// its expiry queue, a window's buckets, the relations of the operators above), and cloning it
/// must not allocate.
pub type Tuple = Rc<[Value]>;

/// A finite relation: a set of tuples.
///
/// PERF: most relations of a run are small: one predicate's events at one time point, or what
/// a join of those makes, usually zero to two tuples. A hash set allocates a table and hashes
/// each tuple (about 240 instructions for a relation's first tuple, on paper 04's logs), so up
/// to [`FEW_MAX`] tuples are kept in a small vector, inline up to two, searched linearly; past
/// that they move to a hash set (FxHash: tuples are short and hashed constantly). Iteration
/// order is unspecified in both forms, as for a hash set.
#[derive(Clone, Default)]
pub struct Rel(Repr);

#[derive(Clone)]
enum Repr {
    Few(SmallVec<[Tuple; 2]>),
    Many(FxHashSet<Tuple>),
}

impl Default for Repr {
    fn default() -> Repr {
        Repr::Few(SmallVec::new())
    }
}

/// The most tuples a relation keeps in its small form. Past a few, comparing each new tuple
/// with every stored one costs more than hashing it (instructions on the data race's 100 k log
/// and paper 04's P4: 4,959 M and 1,506 M with 8, 4,928 M and 1,477 M with 4, 4,948 M and
/// 1,480 M with 2).
pub const FEW_MAX: usize = 4;

impl Rel {
    /// An empty relation with room for `n` tuples.
    pub fn with_capacity(n: usize) -> Rel {
        if n <= FEW_MAX {
            Rel::default()
        } else {
            Rel(Repr::Many(FxHashSet::with_capacity_and_hasher(
                n,
                Default::default(),
            )))
        }
    }

    pub fn len(&self) -> usize {
        match &self.0 {
            Repr::Few(few) => few.len(),
            Repr::Many(set) => set.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Adds `t`; false if it was already there.
    pub fn insert(&mut self, t: Tuple) -> bool {
        if self.contains(&t) {
            return false;
        }
        self.add_absent(t);
        true
    }

    /// Adds a tuple of the values `t` unless one is there, and allocates it only then (a
    /// projection or a scan meets the same values again and again).
    pub fn insert_values(&mut self, t: &[Value]) -> bool {
        if self.contains(t) {
            return false;
        }
        self.add_absent(t.into());
        true
    }

    /// Adds `t`, which is not there.
    fn add_absent(&mut self, t: Tuple) {
        match &mut self.0 {
            Repr::Few(few) if few.len() < FEW_MAX => few.push(t),
            Repr::Few(few) => {
                let mut set: FxHashSet<Tuple> =
                    FxHashSet::with_capacity_and_hasher(2 * FEW_MAX, Default::default());
                set.extend(few.drain(..));
                set.insert(t);
                self.0 = Repr::Many(set);
            }
            Repr::Many(set) => {
                set.insert(t);
            }
        }
    }

    pub fn contains<Q>(&self, q: &Q) -> bool
    where
        Tuple: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        match &self.0 {
            Repr::Few(few) => few.iter().any(|u| u.borrow() == q),
            Repr::Many(set) => set.contains(q),
        }
    }

    /// Removes the tuple equal to `q`; false if there was none.
    pub fn remove<Q>(&mut self, q: &Q) -> bool
    where
        Tuple: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        match &mut self.0 {
            Repr::Few(few) => match few.iter().position(|u| u.borrow() == q) {
                Some(i) => {
                    few.swap_remove(i);
                    true
                }
                None => false,
            },
            Repr::Many(set) => set.remove(q),
        }
    }

    /// Keeps the tuples for which `keep` holds.
    pub fn retain(&mut self, mut keep: impl FnMut(&Tuple) -> bool) {
        match &mut self.0 {
            Repr::Few(few) => few.retain(|t| keep(t)),
            Repr::Many(set) => set.retain(keep),
        }
    }

    /// Empties the relation, keeping a hash set's table for the tuples to come.
    pub fn clear(&mut self) {
        match &mut self.0 {
            Repr::Few(few) => few.clear(),
            Repr::Many(set) => set.clear(),
        }
    }

    pub fn iter(&self) -> Iter<'_> {
        match &self.0 {
            Repr::Few(few) => Iter::Few(few.iter()),
            Repr::Many(set) => Iter::Many(set.iter()),
        }
    }
}

/// The tuples of a [`Rel`], by reference.
pub enum Iter<'a> {
    Few(std::slice::Iter<'a, Tuple>),
    Many(std::collections::hash_set::Iter<'a, Tuple>),
}

impl<'a> Iterator for Iter<'a> {
    type Item = &'a Tuple;

    #[inline]
    fn next(&mut self) -> Option<&'a Tuple> {
        match self {
            Iter::Few(it) => it.next(),
            Iter::Many(it) => it.next(),
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        match self {
            Iter::Few(it) => it.size_hint(),
            Iter::Many(it) => it.size_hint(),
        }
    }

    // A fold (and so `for_each`) runs each form's own loop, without a branch per tuple.
    fn fold<B, F: FnMut(B, &'a Tuple) -> B>(self, init: B, f: F) -> B {
        match self {
            Iter::Few(it) => it.fold(init, f),
            Iter::Many(it) => it.fold(init, f),
        }
    }
}

impl ExactSizeIterator for Iter<'_> {}

/// The tuples of a [`Rel`], by value.
pub enum IntoIter {
    Few(smallvec::IntoIter<[Tuple; 2]>),
    Many(std::collections::hash_set::IntoIter<Tuple>),
}

impl Iterator for IntoIter {
    type Item = Tuple;

    #[inline]
    fn next(&mut self) -> Option<Tuple> {
        match self {
            IntoIter::Few(it) => it.next(),
            IntoIter::Many(it) => it.next(),
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        match self {
            IntoIter::Few(it) => it.size_hint(),
            IntoIter::Many(it) => it.size_hint(),
        }
    }
}

impl IntoIterator for Rel {
    type Item = Tuple;
    type IntoIter = IntoIter;

    fn into_iter(self) -> IntoIter {
        match self.0 {
            Repr::Few(few) => IntoIter::Few(few.into_iter()),
            Repr::Many(set) => IntoIter::Many(set.into_iter()),
        }
    }
}

impl<'a> IntoIterator for &'a Rel {
    type Item = &'a Tuple;
    type IntoIter = Iter<'a>;

    fn into_iter(self) -> Iter<'a> {
        self.iter()
    }
}

impl Extend<Tuple> for Rel {
    fn extend<I: IntoIterator<Item = Tuple>>(&mut self, tuples: I) {
        for t in tuples {
            self.insert(t);
        }
    }
}

impl FromIterator<Tuple> for Rel {
    fn from_iter<I: IntoIterator<Item = Tuple>>(tuples: I) -> Rel {
        let mut rel = Rel::default();
        rel.extend(tuples);
        rel
    }
}

/// Set equality, whatever the forms.
impl PartialEq for Rel {
    fn eq(&self, other: &Rel) -> bool {
        self.len() == other.len() && self.iter().all(|t| other.contains(t))
    }
}

impl Eq for Rel {}

impl std::fmt::Debug for Rel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}

/// A sequence of tuples, as a hash set is saved.
impl serde::Serialize for Rel {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.iter())
    }
}

impl<'de> serde::Deserialize<'de> for Rel {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Rel, D::Error> {
        Ok(Vec::<Tuple>::deserialize(d)?.into_iter().collect())
    }
}

/// `{()}`: the relation of a closed formula that holds.
pub fn unit() -> Rel {
    let mut r = Rel::default();
    r.insert(Rc::from([]) as Tuple);
    r
}

/// Picks `cols` of `t`, in that order.
#[inline]
pub fn project(t: &[Value], cols: &[usize]) -> Tuple {
    cols.iter().map(|&c| t[c]).collect()
}

/// MonPoly's rendering of a constant: strings quoted, floats with `%g`.
pub fn value_text(v: &Value, interner: &Interner) -> String {
    let mut out = Vec::new();
    write_value(&mut out, v, interner).expect("writing to memory");
    String::from_utf8(out).expect("the values are text")
}

/// Writes `v` as [`value_text`] renders it, without an intermediate string. PERF: a run
/// with many violations prints tens of millions of values (the data race's open form at
/// 1 M events writes 3.4 GB); a `String` per value was a fifth of its time.
pub fn write_value(out: &mut dyn Write, v: &Value, interner: &Interner) -> std::io::Result<()> {
    match v {
        Value::Int(i) => write!(out, "{i}"),
        Value::Float(f) => out.write_all(rvmon_logic::monpoly::format_g(*f).as_bytes()),
        Value::Str(s) => {
            let s = interner.resolve(*s);
            if s.len() >= 2 && s.starts_with('"') && s.ends_with('"') {
                out.write_all(s.as_bytes())
            } else {
                out.write_all(b"\"")?;
                out.write_all(s.as_bytes())?;
                out.write_all(b"\"")
            }
        }
        Value::Bool(b) => write!(out, "{b}"),
    }
}

/// `(v1,v2)`, as MonPoly prints a tuple.
pub fn tuple_text(t: &[Value], interner: &Interner) -> String {
    let mut out = Vec::new();
    write_tuple(&mut out, t, interner).expect("writing to memory");
    String::from_utf8(out).expect("the values are text")
}

/// Writes `t` as [`tuple_text`] renders it.
pub fn write_tuple(out: &mut dyn Write, t: &[Value], interner: &Interner) -> std::io::Result<()> {
    out.write_all(b"(")?;
    for (k, v) in t.iter().enumerate() {
        if k > 0 {
            out.write_all(b",")?;
        }
        write_value(out, v, interner)?;
    }
    out.write_all(b")")
}

/// The tuples of `rel` rendered `(v1,v2)` and sorted as MonPoly prints them.
pub fn sorted_texts(rel: &Rel, order: &[usize], interner: &Interner) -> Vec<String> {
    sorted_tuples(rel, order, interner)
        .iter()
        .map(|t| tuple_text(t, interner))
        .collect()
}

/// The tuples of `rel`, columns reordered by `order`, sorted as MonPoly sorts them.
pub fn sorted_tuples(rel: &Rel, order: &[usize], interner: &Interner) -> Vec<Tuple> {
    // PERF: in column order already (the common case), the tuples are shared, not copied.
    let identity = order.len() == rel.iter().next().map_or(0, |t| t.len())
        && order.iter().enumerate().all(|(k, &c)| k == c);
    let mut tuples: Vec<Tuple> = if identity {
        rel.iter().cloned().collect()
    } else {
        rel.iter().map(|t| project(t, order)).collect()
    };
    tuples.sort_by(|a, b| {
        for (x, y) in a.iter().zip(b.iter()) {
            let o = x.cmp_in(y, interner);
            if o.is_ne() {
                return o;
            }
        }
        a.len().cmp(&b.len())
    });
    tuples
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    proptest::proptest! {
        /// A relation is a set in both its forms and across the move from one to the other:
        /// random inserts (of tuples and of values), removals and retains answer as a
        /// `BTreeSet` does, and relations with the same tuples are equal whatever their form
        /// and order.
        #[test]
        fn relations_are_sets(
            ops in proptest::collection::vec((0u8..4, 0i64..12), 0..60)
        ) {
            let tuple = |k: i64| -> Tuple { Rc::from([Value::Int(k % 4), Value::Int(k)]) };
            let (mut rel, mut set) = (Rel::default(), BTreeSet::new());
            for (op, k) in ops {
                let got = match op {
                    0 => rel.insert(tuple(k)),
                    1 => rel.insert_values(&tuple(k)),
                    2 => rel.remove(&tuple(k)[..]),
                    _ => {
                        rel.retain(|t| t[1] != Value::Int(k));
                        set.retain(|&u| u != k);
                        true
                    }
                };
                let want = match op {
                    0 | 1 => set.insert(k),
                    2 => set.remove(&k),
                    _ => true,
                };
                proptest::prop_assert_eq!(got, want);
                proptest::prop_assert_eq!(rel.len(), set.len());
                proptest::prop_assert_eq!(rel.iter().len(), set.len());
                let listed: BTreeSet<i64> = rel
                    .iter()
                    .map(|t| match t[1] { Value::Int(k) => k, _ => unreachable!() })
                    .collect();
                proptest::prop_assert_eq!(&listed, &set);
                for k in 0..12 {
                    proptest::prop_assert_eq!(rel.contains(&tuple(k)[..]), set.contains(&k));
                }
                let rebuilt: Rel = set.iter().rev().map(|&k| tuple(k)).collect();
                proptest::prop_assert_eq!(&rebuilt, &rel);
            }
        }
    }
}
