//! `l AND NOT r` (`fv(r) ⊆ fv(l)`): the tuples of `l` whose projection onto `r`'s columns is
//! not in `r` (tested in place when `r` is a probed state; see [`super::tested`]).

use std::rc::Rc;

use super::reduce::Waiting;
use super::tested::Tested;
use super::{filter_shared, key_in, Ctx};

pub(crate) fn update(cx: &mut Ctx, l: usize, r: usize, key: &[usize], st: &mut Waiting) {
    let (children, out, below, buf) = (&mut *cx.children, &mut *cx.out, &*cx.below, &mut *cx.buf);
    while let (Some(a), Some(b)) = (children[l].get(out.end()), children[r].get(out.end())) {
        let tested = Tested::of(b, r, out.end(), below);
        let v = if tested.is_empty() {
            Rc::clone(a)
        } else {
            filter_shared(a, |t| !tested.contains(key_in(buf, t, key)))
        };
        out.vals.push_back(v);
    }
    st.reduce(0, children, cx.copies.small, l, r);
    let e = out.end();
    children[l].release(cx.i, e);
    children[r].release(cx.i, e);
}
