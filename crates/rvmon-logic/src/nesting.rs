//! How deep and how large a formula may be, checked once when it is parsed (see
//! `rvmon_core::limits` for why).
//!
//! The parsers count their own recursion; this checks the tree they built, which can be
//! deeper than that recursion (a chain the parser could not regroup, `x + x + …` in a term)
//! and grows when a `LET` predicate is written out at its uses, which the engines do. It also
//! bounds the size of the formula written out: a `LET` predicate used twice in the next
//! definition, or `EQUIV` (MonPoly's normalisation writes `a EQUIV b` as `(NOT a OR b) AND (a
//! OR NOT b)`), doubles its operands at each level, and thirty levels would exhaust memory.

use rvmon_core::limits::{deeper_than, too_deep};
use rvmon_core::Error;

use crate::ast::*;

/// The deepest formula rvmon reads, counting operators, parentheses and terms (each nests one
/// level), with `LET` predicates written out where they are used. Every pass over a formula
/// recurses on it; at this depth the deepest of them (the first-order compiler after the
/// normalisation, which can triple the depth: `ALWAYS φ` is `NOT EVENTUALLY NOT φ`) fits in the
/// stacks rvmon's threads have (see ARCHITECTURE.md, "Limits").
pub const MAX_NESTING: usize = 1000;

/// The most operators a formula may have once `LET` predicates and `EQUIV` are written out.
pub const MAX_WRITTEN_OUT: usize = 1_000_000;

#[derive(Clone, Copy)]
enum Node<'a> {
    F(&'a Formula),
    T(&'a Term),
}

/// Checks `f`, parsed from `text`, against [`MAX_NESTING`] and [`MAX_WRITTEN_OUT`].
pub(crate) fn check(file: &str, text: &str, f: &Formula) -> Result<(), Error> {
    // A term has no span of its own: it is reported at the formula it is in.
    let deep = deeper_than(
        (Node::F(f), f.span.start),
        MAX_NESTING,
        |(n, at), out| match n {
            Node::F(g) => {
                let terms: Vec<&Term> = match &g.kind {
                    FormulaKind::Pred { args, .. } => args.iter().collect(),
                    FormulaKind::Cmp { lhs, rhs, .. } => vec![lhs, rhs],
                    FormulaKind::StrRel {
                        lhs, rhs, groups, ..
                    } => [lhs, rhs]
                        .into_iter()
                        .chain(groups.iter().flatten())
                        .collect(),
                    _ => Vec::new(),
                };
                out.extend(terms.into_iter().map(|t| (Node::T(t), g.span.start)));
                out.extend(g.children().into_iter().map(|c| (Node::F(c), c.span.start)));
            }
            Node::T(Term::Neg(a) | Term::Func(_, a)) => out.push((Node::T(a), at)),
            Node::T(Term::Arith(_, a, b)) => out.extend([(Node::T(a), at), (Node::T(b), at)]),
            Node::T(_) => {}
        },
    );
    if let Some((_, at)) = deep {
        return Err(Error::at_offset(file, text, at, too_deep(MAX_NESTING)));
    }
    // No deeper than the limit: the walk below may recurse.
    written_out(f, &mut Vec::new())
        .map(|_| ())
        .map_err(|(at, m)| Error::at_offset(file, text, at, m))
}

/// Height and operators of a formula written out.
#[derive(Clone, Copy)]
struct Size {
    height: usize,
    nodes: usize,
}

type Scope<'a> = Vec<(&'a str, usize, Size)>;

/// The [`Size`] of `f` with the `LET` predicates in `lets` (name, arity, size of the
/// definition) written out, and `EQUIV` as MonPoly's normalisation writes it; an error (offset,
/// message) past a limit.
fn written_out<'a>(f: &'a Formula, lets: &mut Scope<'a>) -> Result<Size, (usize, String)> {
    let size = match &f.kind {
        FormulaKind::Let {
            name,
            params,
            def,
            body,
        } => {
            let d = written_out(def, lets)?;
            lets.push((name, params.len(), d));
            let b = written_out(body, lets);
            lets.pop();
            let b = b?;
            Size {
                height: 1 + d.height.max(b.height),
                nodes: 1usize.saturating_add(d.nodes).saturating_add(b.nodes),
            }
        }
        FormulaKind::Pred { name, args } => {
            match lets
                .iter()
                .rev()
                .find(|(n, arity, _)| n == name && *arity == args.len())
            {
                // The definition, under an `EXISTS` and one `AND x = t` per argument at
                // most (`rvmon_fo::expand_lets`).
                Some((_, _, d)) => Size {
                    height: d.height + args.len() + 1,
                    nodes: d.nodes.saturating_add(2 * args.len() + 1),
                },
                None => Size {
                    height: 1 + args.iter().map(term_height).max().unwrap_or(0),
                    nodes: 1 + args.len(),
                },
            }
        }
        _ => {
            let mut height = 0;
            let mut nodes = 1usize;
            for c in f.children() {
                let s = written_out(c, lets)?;
                height = height.max(s.height);
                nodes = nodes.saturating_add(s.nodes);
            }
            if let FormulaKind::Bool2 {
                op: BoolOp::Equiv, ..
            } = f.kind
            {
                nodes = nodes.saturating_mul(2);
            }
            Size {
                height: height + 1,
                nodes,
            }
        }
    };
    if size.height > MAX_NESTING {
        return Err((
            f.span.start,
            format!(
                "{} once the LET predicates are written out where they are used",
                too_deep(MAX_NESTING)
            ),
        ));
    }
    if size.nodes > MAX_WRITTEN_OUT {
        return Err((
            f.span.start,
            format!(
                "the formula is too large once written out: LET predicates (at each use) and \
                 EQUIV (as (NOT a OR b) AND (a OR NOT b)) copy their operands, and the copies \
                 exceed {MAX_WRITTEN_OUT} operators"
            ),
        ));
    }
    Ok(size)
}

fn term_height(t: &Term) -> usize {
    match t {
        Term::Neg(a) | Term::Func(_, a) => 1 + term_height(a),
        Term::Arith(_, a, b) => 1 + term_height(a).max(term_height(b)),
        _ => 1,
    }
}
