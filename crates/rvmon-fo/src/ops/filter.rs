//! Operators over one operand that test or extend its tuples one by one: `NOT` of a closed
//! formula, comparisons (`l AND t1 op t2`) and assignments (`l AND x = t`).

use rvmon_core::{Error, Interner};
use rvmon_logic::eval::eval_term_with;
use rvmon_logic::Term;

use super::{compared, eval_err, Ctx};
use crate::compile::NodeKind;
use crate::rel::{unit, Rel};

/// `NOT φ` for a closed `φ`: true where `φ`'s relation is empty.
pub(crate) fn not(cx: &mut Ctx, c: usize) {
    let (children, out) = (&mut *cx.children, &mut *cx.out);
    while let Some(r) = children[c].get(out.end()) {
        let v = if r.is_empty() { unit() } else { Rel::default() };
        out.push(v);
    }
    children[c].release(cx.i, out.end());
}

/// `l AND (NOT) t1 op t2`: the tuples of `l` for which the comparison holds (fails).
pub(crate) fn filter(cx: &mut Ctx, kind: &NodeKind) -> Result<(), Error> {
    let NodeKind::Filter {
        l,
        op,
        lhs,
        rhs,
        negated,
        resolved,
    } = kind
    else {
        unreachable!("a filter")
    };
    let (arithmetic, vars) = (cx.arithmetic, &cx.nodes[cx.i].vars);
    let interner = &mut *cx.interner;
    let (children, out) = (&mut *cx.children, &mut *cx.out);
    while let Some(a) = children[*l].get(out.end()) {
        if let Some(operands) = resolved {
            out.push(filter_resolved(a, *op, operands, *negated, interner)?);
            continue;
        }
        let mut v = Rel::default();
        for t in a.iter() {
            let env = |x: &str| vars.iter().position(|y| y == x).map(|c| t[c]);
            let lv = eval_term_with(arithmetic, lhs, &env, interner).map_err(eval_err)?;
            let rv = eval_term_with(arithmetic, rhs, &env, interner).map_err(eval_err)?;
            if compared(*op, &lv, &rv, interner)? != *negated {
                v.insert(t.clone());
            }
        }
        out.push(v);
    }
    let e = out.end();
    children[*l].release(cx.i, e);
    Ok(())
}

/// `l AND x = t`: extends the tuples of `l` with the value of `t`.
pub(crate) fn assign(cx: &mut Ctx, l: usize, term: &Term) -> Result<(), Error> {
    // Its own names for its operand's columns (the first ones of its own): the operand may be
    // shared under other names.
    let lvars = &cx.nodes[cx.i].vars[..cx.nodes[l].vars.len()];
    let arithmetic = cx.arithmetic;
    let interner = &mut *cx.interner;
    let (children, out) = (&mut *cx.children, &mut *cx.out);
    while let Some(a) = children[l].get(out.end()) {
        let mut v = Rel::default();
        for t in a.iter() {
            let env = |x: &str| lvars.iter().position(|y| y == x).map(|c| t[c]);
            let x = eval_term_with(arithmetic, term, &env, interner).map_err(eval_err)?;
            let mut nt = t.to_vec();
            nt.push(x);
            v.insert(nt.into());
        }
        out.push(v);
    }
    let e = out.end();
    children[l].release(cx.i, e);
    Ok(())
}

/// The tuples of `a` for which `x op y` holds (fails, when `negated`), with both operands
/// resolved (see [`crate::compile::Operand`]).
#[inline(never)]
pub(crate) fn filter_resolved(
    a: &Rel,
    op: rvmon_logic::CmpOp,
    [x, y]: &[crate::compile::Operand; 2],
    negated: bool,
    interner: &Interner,
) -> Result<Rel, Error> {
    let mut v = Rel::default();
    for t in a.iter() {
        if compared(op, &x.value(t), &y.value(t), interner)? != negated {
            v.insert(t.clone());
        }
    }
    Ok(v)
}
