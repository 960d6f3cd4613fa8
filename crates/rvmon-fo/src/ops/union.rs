//! `l OR r` over the same variables: the union of the two relations, the right one's columns
//! put in the left one's order.

use super::Ctx;
use crate::rel::project;

pub(crate) fn update(cx: &mut Ctx, l: usize, r: usize, r_order: &[usize]) {
    let (children, out) = (&mut *cx.children, &mut *cx.out);
    while let (Some(a), Some(b)) = (children[l].get(out.end()), children[r].get(out.end())) {
        let mut v = (**a).clone();
        v.extend(b.iter().map(|t| project(t, r_order)));
        out.push(v);
    }
    let e = out.end();
    children[l].release(cx.i, e);
    children[r].release(cx.i, e);
}
