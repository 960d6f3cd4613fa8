//! Aggregations (`r <- CNT x; g φ`, …): group the operand's tuples by the group-by columns
//! and aggregate one column per group.

use std::rc::Rc;

use rustc_hash::FxHashMap;
use rvmon_core::{Error, Interner, Value};
use rvmon_logic::AggOp;

use super::Ctx;
use crate::compile::NodeKind;
use crate::rel::{project, Rel, Tuple};

pub(crate) fn update(cx: &mut Ctx, kind: &NodeKind) -> Result<(), Error> {
    let NodeKind::Agg {
        c,
        op,
        over,
        group,
        default,
    } = kind
    else {
        unreachable!("an aggregation")
    };
    let interner = &*cx.interner;
    let (children, out) = (&mut *cx.children, &mut *cx.out);
    while let Some(a) = children[*c].get(out.end()) {
        if a.is_empty() && group.is_empty() && !matches!(op, AggOp::Cnt | AggOp::Sum) {
            // MonPoly's convention, and its warning.
            cx.warnings.push(format!(
                "WARNING: {} applied on empty relation! Resulting value is {}, by (our) convention.",
                op.keyword(),
                crate::rel::value_text(default, interner)
            ));
        }
        let v = aggregate(a, *op, *over, group, *default, interner)?;
        out.push(v);
    }
    let e = out.end();
    children[*c].release(cx.i, e);
    Ok(())
}

fn aggregate(
    rel: &Rel,
    op: AggOp,
    over: usize,
    group: &[usize],
    default: Value,
    interner: &Interner,
) -> Result<Rel, Error> {
    let mut out = Rel::default();
    if rel.is_empty() {
        if group.is_empty() {
            out.insert(Rc::from([default]) as Tuple);
        }
        return Ok(out);
    }
    let mut groups: FxHashMap<Tuple, Vec<Value>> = FxHashMap::default();
    for t in rel {
        groups.entry(project(t, group)).or_default().push(t[over]);
    }
    let num = |v: &Value| match v {
        Value::Int(i) => *i as f64,
        Value::Float(f) => *f,
        _ => 0.0,
    };
    for (g, mut vals) in groups {
        // Floats are added in the order of their values, not of the hash table's iteration:
        // that order follows the interned ids of the tuples' strings, which differ between a
        // run and its resumption, or with string collection, and float addition is not
        // associative.
        if matches!(op, AggOp::Sum | AggOp::Avg)
            && vals.iter().any(|v| matches!(v, Value::Float(_)))
        {
            vals.sort_by(|a, b| num(a).total_cmp(&num(b)));
        }
        let result = match op {
            AggOp::Cnt => Value::Int(vals.len() as i64),
            AggOp::Min => *vals
                .iter()
                .min_by(|a, b| a.cmp_in(b, interner))
                .expect("non-empty"),
            AggOp::Max => *vals
                .iter()
                .max_by(|a, b| a.cmp_in(b, interner))
                .expect("non-empty"),
            AggOp::Sum => match vals[0] {
                Value::Int(_) => Value::Int(
                    vals.iter()
                        .map(|v| if let Value::Int(i) = v { *i } else { 0 })
                        .sum(),
                ),
                _ => Value::Float(vals.iter().map(num).sum()),
            },
            AggOp::Avg => Value::Float(vals.iter().map(num).sum::<f64>() / vals.len() as f64),
            AggOp::Med => {
                vals.sort_by(|a, b| a.cmp_in(b, interner));
                let n = vals.len();
                let m = if n % 2 == 0 { n / 2 - 1 } else { n / 2 };
                let (x, y) = if n % 2 == 0 {
                    (vals[m], vals[m + 1])
                } else {
                    (vals[m], vals[m])
                };
                Value::Float((num(&x) + num(&y)) / 2.0)
            }
        };
        let mut t = vec![result];
        t.extend(g.iter().copied());
        out.insert(t.into());
    }
    Ok(out)
}
