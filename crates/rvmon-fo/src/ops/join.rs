//! Natural joins (`l AND r`): a semi-join when the right operand adds no column (it tests the
//! left tuples), otherwise the pairs that agree on the shared columns, found through a
//! versioned operand's index, a large `SINCE` state's index, or a hash join.

use std::rc::Rc;

use rustc_hash::FxHashMap;
use rvmon_core::Value;

use super::reduce::Waiting;
use super::since::SinceState;
use super::tested::Tested;
use super::versioned::any_visible_under;
use super::{filter_shared, key_in, Ctx};
use crate::compile::NodeKind;
use crate::rel::{project, Rel, Tuple};

pub(crate) fn update(cx: &mut Ctx, kind: &NodeKind, st: &mut Waiting) {
    let NodeKind::Join {
        l,
        r,
        shared,
        r_new,
    } = kind
    else {
        unreachable!("a join")
    };
    let (l, r, i, nodes) = (*l, *r, cx.i, cx.nodes);
    let (children, out, below, buf) = (&mut *cx.children, &mut *cx.out, &*cx.below, &mut *cx.buf);
    let arities = (nodes[l].vars.len(), nodes[r].vars.len());
    let states = (below[l].since(), below[r].since());
    let mut made = 0;
    while let (Some(a), Some(b)) = (children[l].get(out.end()), children[r].get(out.end())) {
        let pos = out.end();
        let left = Tested::of(a, l, pos, below);
        let tested = Tested::of(b, r, pos, below);
        // PERF: most time points have an empty operand (a scan with no event).
        if left.is_empty() || tested.is_empty() {
            out.push(Rel::default());
        } else if r_new.is_empty() && !matches!(left, Tested::Probe { .. }) {
            // A semi-join: the right operand is its own index, probed with each left tuple
            // (`enter(x) AND PREVIOUS ONCE enter(x)` costs the size of `enter`, not of the
            // history).
            let v = filter_shared(a, |x| {
                buf.clear();
                buf.resize(arities.1, Value::Int(0));
                for &(li, ri) in shared {
                    buf[ri] = x[li];
                }
                tested.contains(&buf[..])
            });
            out.vals.push_back(v);
        } else {
            let mut v = Rel::default();
            join_pairs(
                a,
                b,
                shared,
                r_new,
                &left,
                &tested,
                states,
                buf,
                &mut |x, y| {
                    v.insert(joined(x, y, r_new));
                },
            );
            made += v.len();
            *cx.joined += v.len();
            out.push(v);
            // A batch of large joins would be held until the consumer runs: past a budget,
            // let it take them first (memory as without batches).
            if made > cx.copies.join_budget {
                cx.copies.defer(i);
                break;
            }
        }
    }
    // Either operand may be the one that waits.
    let small = cx.copies.small;
    st.reduce(0, children, small, l, r);
    st.reduce(1, children, small, r, l);
    let e = out.end();
    children[l].release(i, e);
    children[r].release(i, e);
}

/// The columns of each operand that a join matches on.
pub(crate) fn join_cols(shared: &[(usize, usize)]) -> (Vec<usize>, Vec<usize>) {
    (
        shared.iter().map(|p| p.0).collect(),
        shared.iter().map(|p| p.1).collect(),
    )
}

/// The joined tuple: the left tuple, then the right tuple's new columns.
pub(crate) fn joined(x: &[Value], y: &[Value], r_new: &[usize]) -> Tuple {
    x.iter()
        .copied()
        .chain(r_new.iter().map(|&c| y[c]))
        .collect()
}

/// For each tuple of `walk`, calls `f(walked, found)` for every tuple `lookup` finds under
/// its key (`walk` projected on `walk_cols`).
pub(crate) fn probe<'a>(
    walk: &'a Rel,
    walk_cols: &[usize],
    buf: &mut Vec<Value>,
    lookup: impl Fn(&[Value], &mut dyn FnMut(&Tuple)),
    mut f: impl FnMut(&'a Tuple, &Tuple),
) {
    for w in walk {
        lookup(key_in(buf, w, walk_cols), &mut |m| f(w, m));
    }
}

/// An index of `rel` by `cols`.
pub(crate) fn index_by<'a>(rel: &'a Rel, cols: &[usize]) -> FxHashMap<Tuple, Vec<&'a Tuple>> {
    let mut index: FxHashMap<Tuple, Vec<&'a Tuple>> = FxHashMap::default();
    for t in rel {
        index.entry(project(t, cols)).or_default().push(t);
    }
    index
}

/// A join with a versioned operand (see [`super::since::Since::probed`]) that adds columns, or whose left
/// operand is the versioned one: the other operand is walked, and each of its tuples probes
/// the state's index on the shared columns, keeping the tuples the state held at that
/// position. `None` when neither operand is probed this way (a semi-join tests its versioned
/// right operand directly).
#[allow(clippy::too_many_arguments)]
pub(crate) fn probe_versioned(
    a: &Rel,
    b: &Rel,
    shared: &[(usize, usize)],
    r_new: &[usize],
    left: &Tested,
    right: &Tested,
    buf: &mut Vec<Value>,
    emit: &mut dyn FnMut(&Tuple, &Tuple),
) -> bool {
    // Walks `walk`, finds each tuple's partners in `st`'s index by `walk_cols`, and passes
    // those `st` held at `upto` to `f` (their entry positions are in the index: no lookup).
    fn each(
        walk: &Rel,
        walk_cols: &[usize],
        st: &SinceState,
        upto: u64,
        buf: &mut Vec<Value>,
        mut f: impl FnMut(&Tuple, &Tuple),
    ) {
        for w in walk {
            any_visible_under(st, key_in(buf, w, walk_cols), upto, |m| {
                f(w, m);
                false
            });
        }
    }
    match (left, right) {
        (_, Tested::Probe { st, upto }) if !r_new.is_empty() => {
            each(a, &join_cols(shared).0, st, *upto, buf, |x, y| emit(x, y));
        }
        (Tested::Probe { st, upto }, _) => {
            each(b, &join_cols(shared).1, st, *upto, buf, |y, x| emit(x, y));
        }
        _ => return false,
    }
    true
}

/// A join that walks the small operand and probes the large one's SINCE index, when the large
/// operand is the current state of an indexed SINCE node on the shared columns.
pub(crate) fn indexed_join(
    a: &Rc<Rel>,
    b: &Rc<Rel>,
    shared: &[(usize, usize)],
    states: (Option<&SinceState>, Option<&SinceState>),
    buf: &mut Vec<Value>,
    emit: &mut dyn FnMut(&Tuple, &Tuple),
) -> bool {
    // Checked before building the column lists: most joins at most time points use no index.
    let usable = |big: &Rc<Rel>,
                  small: &Rc<Rel>,
                  st: Option<&SinceState>,
                  side: fn(&(usize, usize)) -> usize| {
        st.is_some_and(|st| {
            big.len() > 4 * small.len()
                && Rc::ptr_eq(big, &st.out)
                && st
                    .views
                    .join
                    .as_ref()
                    .is_some_and(|(c, _)| c.iter().copied().eq(shared.iter().map(side)))
        })
    };
    let (use_r, use_l) = (
        usable(b, a, states.1, |p| p.1),
        usable(a, b, states.0, |p| p.0),
    );
    if !use_r && !use_l {
        return false;
    }
    let (l_cols, r_cols) = join_cols(shared);
    let (walk, cols, st) = if use_r {
        (a, &l_cols, states.1)
    } else {
        (b, &r_cols, states.0)
    };
    let map = &st.expect("checked").views.join.as_ref().expect("checked").1;
    let lookup = |k: &[Value], g: &mut dyn FnMut(&Tuple)| {
        map.get(k).into_iter().flat_map(|m| m.keys()).for_each(g)
    };
    if use_r {
        probe(walk, cols, buf, lookup, |x, y| emit(x, y));
    } else {
        probe(walk, cols, buf, lookup, |y, x| emit(x, y));
    }
    true
}

/// The pairs of a general join, by a hash join on the shared columns (the smaller operand
/// indexed), or every pair when nothing is shared.
pub(crate) fn join(
    a: &Rel,
    b: &Rel,
    shared: &[(usize, usize)],
    buf: &mut Vec<Value>,
    emit: &mut dyn FnMut(&Tuple, &Tuple),
) {
    if shared.is_empty() {
        for x in a {
            for y in b {
                emit(x, y);
            }
        }
        return;
    }
    let (l_cols, r_cols) = join_cols(shared);
    if a.len() <= b.len() {
        let index = index_by(a, &l_cols);
        let lookup = |k: &[Value], g: &mut dyn FnMut(&Tuple)| {
            index.get(k).into_iter().flatten().for_each(|t| g(t))
        };
        probe(b, &r_cols, buf, lookup, |y, x| emit(x, y));
    } else {
        let index = index_by(b, &r_cols);
        let lookup = |k: &[Value], g: &mut dyn FnMut(&Tuple)| {
            index.get(k).into_iter().flatten().for_each(|t| g(t))
        };
        probe(a, &l_cols, buf, lookup, |x, y| emit(x, y));
    }
}

/// The pairs (left tuple, right tuple) of a join of `a` (node relation, tested as `left`) and
/// `b` (tested as `right`) that agree on `shared`, by the cheapest way the operands allow: a
/// versioned operand probed through its index, a large SINCE state probed through its index,
/// or a hash join. (The join of a semi-join, whose right operand only tests, is
/// [`filter_shared`]'s.)
#[allow(clippy::too_many_arguments)]
pub(crate) fn join_pairs(
    a: &Rc<Rel>,
    b: &Rc<Rel>,
    shared: &[(usize, usize)],
    r_new: &[usize],
    left: &Tested,
    right: &Tested,
    states: (Option<&SinceState>, Option<&SinceState>),
    buf: &mut Vec<Value>,
    emit: &mut dyn FnMut(&Tuple, &Tuple),
) {
    if !probe_versioned(a, b, shared, r_new, left, right, buf, emit)
        && !indexed_join(a, b, shared, states, buf, emit)
    {
        join(a, b, shared, buf, emit);
    }
}
