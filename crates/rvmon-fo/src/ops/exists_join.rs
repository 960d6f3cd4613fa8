//! `EXISTS ys. (l AND r AND s)` and `l AND NOT EXISTS ys. (r AND s)`: the tuples of `l` that
//! some tuple of `r` extends to one in `s` (or that none does), searched per left tuple and
//! stopped at the first witness; the left tuples may be a join made pair by pair (`over`).

use std::rc::Rc;

use rustc_hash::FxHashMap;
use rvmon_core::Value;

use super::join::{index_by, join_cols, join_pairs};
use super::since::SinceState;
use super::tested::Tested;
use super::versioned::visible_from;
use super::{filter_shared, Ctx, EMPTY};
use crate::bucket::Bucket;
use crate::compile::NodeKind;
use crate::rel::{Rel, Tuple};

/// Whether a left tuple is kept, at one position.
struct Test<'a> {
    negated: bool,
    /// Without `r` or `s`, no left tuple has a witness.
    testable: bool,
    l_cols: &'a [usize],
    s_key: &'a [usize],
    r_new: &'a [usize],
    /// `s` at this position.
    tested: Tested<'a>,
    /// A versioned state's tuples are tested at this position.
    upto: Option<u64>,
    /// The right operand's tuples by the shared columns: its SINCE index when it is an
    /// indexed state (a versioned one's holds each tuple's entry position), otherwise
    /// (`built`) an index built for this position.
    indexed: Option<(&'a SinceState, &'a FxHashMap<Tuple, Bucket>)>,
    built: &'a FxHashMap<Tuple, Vec<&'a Tuple>>,
    /// The witnesses under the last key looked up. PERF: the pairs of a fused join's left
    /// tuple, and often consecutive left tuples, share their key (see
    /// `fuse_joins_into_exists_joins`); the data race looked the same lockset up for each of
    /// up to 50 threads.
    under: Option<Witnesses<'a>>,
}

impl Test<'_> {
    /// Whether `x` extended by `y` is in `s`.
    #[inline]
    fn witness(&self, x: &[Value], y: &Tuple, cand: &mut Vec<Value>) -> bool {
        cand.clear();
        cand.extend(self.s_key.iter().map(|&k| match k.checked_sub(x.len()) {
            None => x[k],
            Some(k) => y[self.r_new[k]],
        }));
        self.tested.contains(&cand[..])
    }

    /// Whether the left tuple `x` is kept; `key` is the key of `under`.
    #[inline]
    fn keep(&mut self, x: &[Value], key: &mut Vec<Value>, buf: &mut Vec<Value>) -> bool {
        if !self.testable {
            return self.negated;
        }
        let l_cols = self.l_cols;
        if self.under.is_none() || !l_cols.iter().map(|&k| x[k]).eq(key.iter().copied()) {
            key.clear();
            key.extend(l_cols.iter().map(|&k| x[k]));
            self.under = Some(match self.indexed {
                Some((st, map)) => Witnesses::Indexed(st, map.get(&key[..])),
                None => Witnesses::Built(self.built.get(&key[..])),
            });
        }
        let upto = self.upto;
        self.negated
            != match self.under.expect("looked up") {
                Witnesses::Indexed(st, ys) => ys.is_some_and(|ys| {
                    ys.iter().any(|(y, &entered)| {
                        upto.is_none_or(|v| visible_from(st, y, entered, v))
                            && self.witness(x, y, buf)
                    })
                }),
                Witnesses::Built(ys) => {
                    ys.is_some_and(|ys| ys.iter().any(|y| self.witness(x, y, buf)))
                }
            }
    }
}

/// An exists-join's witnesses under one key: from its right operand's index (with the state
/// the index belongs to), or from an index built for the position.
#[derive(Clone, Copy)]
enum Witnesses<'a> {
    Indexed(&'a SinceState, Option<&'a Bucket>),
    Built(Option<&'a Vec<&'a Tuple>>),
}

pub(crate) fn update(cx: &mut Ctx, kind: &NodeKind) {
    let NodeKind::ExistsJoin {
        l,
        r,
        shared,
        r_new,
        s,
        s_key,
        negated,
        over,
    } = kind
    else {
        unreachable!("an exists-join")
    };
    let (l, r, s, negated, i, nodes) = (*l, *r, *s, *negated, cx.i, cx.nodes);
    let (children, out, below, buf) = (&mut *cx.children, &mut *cx.out, &*cx.below, &mut *cx.buf);
    let (l_cols, r_cols) = join_cols(shared);
    let (mut key, mut cand) = (Vec::new(), Vec::new());
    loop {
        let pos = out.end();
        let (Some(a), Some(b), Some(c)) = (
            children[l].get(pos),
            children[r].get(pos),
            children[s].get(pos),
        ) else {
            break;
        };
        // A fused join's other operand (see `JoinOver`).
        let other = match over {
            Some(j) => match children[j.r].get(pos) {
                Some(o) => Some((j, o)),
                None => break,
            },
            None => None,
        };
        let right = Tested::of(b, r, pos, below);
        let tested = Tested::of(c, s, pos, below);
        // Without `r` or `s`, no left tuple has a witness.
        let testable = !right.is_empty() && !tested.is_empty();
        // The right operand's tuples by the shared columns: its SINCE index when it is an
        // indexed state (a versioned one's holds each tuple's entry position), otherwise an
        // index built for this position. A versioned state's tuples are tested at this
        // position (`upto`).
        let upto = match right {
            Tested::Probe { upto, .. } => Some(upto),
            Tested::Rel(_) => None,
            Tested::Through { .. } => unreachable!("walked, not tested"),
        };
        let indexed = below[r].since().and_then(|st| match &st.views.join {
            Some((cols, map)) if upto.is_some() => {
                debug_assert!(*cols == r_cols);
                Some((st, map))
            }
            Some((cols, map)) if Rc::ptr_eq(b, &st.out) && *cols == r_cols => Some((st, map)),
            _ => None,
        });
        let built = match indexed {
            None if testable => index_by(b, &r_cols),
            _ => FxHashMap::default(),
        };
        let mut test = Test {
            negated,
            testable,
            l_cols: &l_cols,
            s_key,
            r_new,
            tested,
            upto,
            indexed,
            built: &built,
            under: None,
        };
        let mut keep =
            |x: &[Value], key: &mut Vec<Value>, buf: &mut Vec<Value>| test.keep(x, key, buf);
        let Some((j, o)) = other else {
            let v = if testable {
                filter_shared(a, |x| keep(x, &mut key, buf))
            } else if negated {
                Rc::clone(a)
            } else {
                EMPTY.with(Rc::clone)
            };
            out.vals.push_back(v);
            continue;
        };
        // The join's pairs, each tested as it is made: only those kept are built.
        let left = Tested::of(a, l, pos, below);
        let right_j = Tested::of(o, j.r, pos, below);
        let mut v = Rel::default();
        if left.is_empty() || right_j.is_empty() || (!testable && !negated) {
            out.push(v);
            continue;
        }
        let mut jbuf = Vec::new();
        if j.r_new.is_empty() && !matches!(left, Tested::Probe { .. }) {
            // A semi-join, as the join would make it: `o` tests each tuple of `a`.
            let arity = nodes[j.r].vars.len();
            for x in a.iter() {
                jbuf.clear();
                jbuf.resize(arity, Value::Int(0));
                for &(li, ri) in &j.shared {
                    jbuf[ri] = x[li];
                }
                if right_j.contains(&jbuf[..]) && keep(x, &mut key, buf) {
                    v.insert_values(x);
                }
            }
        } else {
            let states = (below[l].since(), below[j.r].since());
            join_pairs(
                a,
                o,
                &j.shared,
                &j.r_new,
                &left,
                &right_j,
                states,
                &mut jbuf,
                &mut |x, y| {
                    cand.clear();
                    cand.extend_from_slice(x);
                    cand.extend(j.r_new.iter().map(|&c| y[c]));
                    if keep(&cand, &mut key, buf) {
                        v.insert_values(&cand);
                    }
                },
            );
        }
        out.push(v);
    }
    let e = out.end();
    for n in [l, r, s] {
        children[n].release(i, e);
    }
    if let Some(j) = over {
        children[j.r].release(i, e);
    }
}
