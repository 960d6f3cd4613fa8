//! `PREVIOUS[w] φ` and `NEXT[w] φ`: the operand's relation one position away, where the gap
//! between the two timestamps is in the window. (`PREVIOUS` over a past-only `SINCE` is fused
//! into it instead: see [`super::since`].)

use std::rc::Rc;

use rvmon_logic::ops::Window;

use super::{Ctx, EMPTY};

/// `PREVIOUS`; `next` is the next position to emit.
pub(crate) fn prev(cx: &mut Ctx, w: &Window, c: usize, next: &mut u64) {
    let (children, out, tl) = (&mut *cx.children, &mut *cx.out, cx.tl);
    while *next <= cx.pos {
        let v = if *next == 0 {
            EMPTY.with(Rc::clone)
        } else {
            match children[c].get(*next - 1) {
                Some(r) if w.contains(tl.ts(*next) - tl.ts(*next - 1)) => Rc::clone(r),
                Some(_) => EMPTY.with(Rc::clone),
                None => break,
            }
        };
        out.vals.push_back(v);
        *next += 1;
    }
    children[c].release(cx.i, next.saturating_sub(1));
}

/// `NEXT`: a position is decided when the next one arrives (the last one, at the end).
pub(crate) fn next(cx: &mut Ctx, w: &Window, c: usize, next: &mut u64) {
    let (children, out, tl, pos) = (&mut *cx.children, &mut *cx.out, cx.tl, cx.pos);
    while *next < pos || (cx.at_end && *next == pos) {
        let v = if *next == pos {
            EMPTY.with(Rc::clone)
        } else {
            match children[c].get(*next + 1) {
                Some(r) if w.contains(tl.ts(*next + 1) - tl.ts(*next)) => Rc::clone(r),
                Some(_) => EMPTY.with(Rc::clone),
                None => break,
            }
        };
        out.vals.push_back(v);
        *next += 1;
    }
    children[c].release(cx.i, *next + 1);
}
