//! `l AND (NOT) t1 SUBSTRING t2` and `l AND (NOT) t1 MATCHES r"…" (groups)`: string relations
//! on the tuples of `l`, whose regular expression's groups may bind new columns.

use rvmon_core::{Error, Interner, Value};
use rvmon_logic::eval::eval_term_with;

use super::{eval_err, Ctx};
use crate::compile::{GroupOp, NodeKind};
use crate::rel::Rel;

pub(crate) fn update(cx: &mut Ctx, kind: &NodeKind) -> Result<(), Error> {
    let NodeKind::StrRel {
        l,
        lhs,
        rhs,
        regex,
        groups,
        negated,
    } = kind
    else {
        unreachable!("a string relation")
    };
    // Its own names for its operand's columns (the first ones of its own): the operand may be
    // shared under other names.
    let lvars = &cx.nodes[cx.i].vars[..cx.nodes[*l].vars.len()];
    let arithmetic = cx.arithmetic;
    let interner = &mut *cx.interner;
    let (children, out) = (&mut *cx.children, &mut *cx.out);
    while let Some(a) = children[*l].get(out.end()) {
        let mut v = Rel::default();
        for t in a.iter() {
            let env = |x: &str| lvars.iter().position(|y| y == x).map(|c| t[c]);
            let text = |val: Value, interner: &Interner| match val {
                Value::Str(s) => Ok(interner.resolve(s).to_string()),
                _ => Err(Error::msg(
                    "type error: a string relation on a value that is not a string",
                )),
            };
            let s = text(
                eval_term_with(arithmetic, lhs, &env, interner).map_err(eval_err)?,
                interner,
            )?;
            let mut extra: Vec<Value> = Vec::new();
            let holds = match regex {
                None => {
                    let r = text(
                        eval_term_with(arithmetic, rhs, &env, interner).map_err(eval_err)?,
                        interner,
                    )?;
                    r.contains(&s)
                }
                Some(re) => match rvmon_logic::strrel::match_groups(re, &s) {
                    None => false,
                    Some(caps) => {
                        let mut ok = true;
                        for (k, g) in groups.iter().enumerate() {
                            let cap = caps.get(k).cloned().flatten();
                            ok = match (g, cap) {
                                (GroupOp::Skip, _) => true,
                                (_, None) => false,
                                (GroupOp::Bind, Some(c)) => {
                                    extra.push(Value::Str(interner.intern(&c)));
                                    true
                                }
                                (GroupOp::SameCol(col), Some(c)) => {
                                    matches!(t[*col], Value::Str(x) if interner.resolve(x) == c)
                                }
                                (GroupOp::SameGroup(j), Some(c)) => {
                                    caps.get(*j).cloned().flatten().as_deref() == Some(c.as_str())
                                }
                                (GroupOp::SameTerm(term), Some(c)) => {
                                    let x = eval_term_with(arithmetic, term, &env, interner)
                                        .map_err(eval_err)?;
                                    matches!(x, Value::Str(x) if interner.resolve(x) == c)
                                }
                            };
                            if !ok {
                                break;
                            }
                        }
                        ok
                    }
                },
            };
            if holds != *negated {
                let mut nt = t.to_vec();
                nt.extend(extra);
                v.insert(nt.into());
            }
        }
        out.push(v);
    }
    let e = out.end();
    children[*l].release(cx.i, e);
    Ok(())
}
