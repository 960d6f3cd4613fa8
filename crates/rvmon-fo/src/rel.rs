//! Tuples and relations: the values of first-order subformulas at a time point.

use std::rc::Rc;

use rustc_hash::FxHashSet;
use rvmon_core::{Interner, Value};

/// An assignment of values to a node's variables, in the node's column order. Shared (`Rc`):
/// a tuple is stored in several places at once (a temporal state's output, its witness table,
/// its expiry queue, a window's buckets, the relations of the operators above), and cloning it
/// must not allocate.
pub type Tuple = Rc<[Value]>;

/// A finite relation. FxHash: tuples are short and hashed constantly.
pub type Rel = FxHashSet<Tuple>;

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
    match v {
        Value::Int(i) => i.to_string(),
        Value::Float(f) => rvmon_logic::monpoly::format_g(*f),
        Value::Str(s) => {
            let s = interner.resolve(*s);
            if s.len() >= 2 && s.starts_with('"') && s.ends_with('"') {
                s.to_string()
            } else {
                format!("\"{s}\"")
            }
        }
        Value::Bool(b) => b.to_string(),
    }
}

/// `(v1,v2)`, as MonPoly prints a tuple.
pub fn tuple_text(t: &[Value], interner: &Interner) -> String {
    let values: Vec<String> = t.iter().map(|v| value_text(v, interner)).collect();
    format!("({})", values.join(","))
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
    let mut tuples: Vec<Tuple> = rel.iter().map(|t| project(t, order)).collect();
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
