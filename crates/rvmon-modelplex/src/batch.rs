//! A batch of pairs evaluated together: each comparison's filter runs over every pair of the
//! batch at once ([`crate::filter::Program::decide_lanes`]), and only the pairs it leaves
//! undecided (ties, equalities that hold) go one by one through the exact passes; the
//! Boolean structure is then combined pair by pair with the one-pair evaluator's order, so
//! that a division by zero that one conjunct meets and an earlier one cuts short is treated
//! the same ([`crate::eval::holds`] is the reference, and a property test compares them).

use crate::compile::{Atom, CompiledMonitor, Cond, Test};
use crate::eval::{self, Ctx, Sample};
use crate::exact::Exact;
use crate::filter::{Lanes, UNDECIDED as UNDECIDED_LANE};
use crate::fixed::Dec;
use crate::fixed_lanes::{Columns, Regs};
use crate::Outcome;

/// A pair's value: false, true, or undefined (a division by zero).
const FALSE: u8 = 0;
const TRUE: u8 = 1;
const UNDEFINED: u8 = 2;

/// The pairs of a batch: row `j` and row `j + 1` of `rows` (row-major, `width` values a
/// row) are pair `j`'s prior and posterior.
pub struct Pairs<'a> {
    pub rows: &'a [f64],
    pub width: usize,
    pub lanes: usize,
}

/// Scratch space, kept between batches.
#[derive(Default)]
pub struct Scratch {
    lanes: Lanes,
    pair: [Sample; 2],
    decs: Vec<Dec>,
    /// The batch's samples as decimals, each computed once when first needed; `known` says
    /// which are (0: not yet, 1: in `cells`, 2: not a decimal that fits).
    cells: Vec<Dec>,
    known: Vec<u8>,
    /// Per column, the most fractional digits its decimals had (the first guess for the
    /// next: fewer are found by stripping zeros), and the scale the lane-wise fixed-point
    /// pass reads it at.
    digits: Vec<u32>,
    /// The batch's samples by column (`lanes + 1` a column), for the filter.
    by_column: Vec<f64>,
    /// The lane-wise fixed-point pass: the batch's columns as whole numbers, its registers,
    /// the lanes it runs on and what it decided.
    columns: Columns,
    regs: Regs,
    undecided: Vec<usize>,
    fixed: Vec<u8>,
}

/// Forgets the previous batch's decimals.
pub fn start(s: &mut Scratch, pairs: &Pairs<'_>) {
    s.cells.resize(pairs.rows.len(), Dec::ZERO);
    s.known.clear();
    s.known.resize(pairs.rows.len(), 0);
    s.digits.resize(pairs.width, 0);
    s.columns.start(pairs.lanes + 1, pairs.width);
    let rows = pairs.lanes + 1;
    s.by_column.resize(rows * pairs.width, 0.0);
    for (r, row) in pairs.rows.chunks_exact(pairs.width).take(rows).enumerate() {
        for (c, &x) in row.iter().enumerate() {
            s.by_column[c * rows + r] = x;
        }
    }
}

/// Each monitor's outcome on each pair: `out[m * lanes + j]`.
pub fn outcomes(
    monitors: &[CompiledMonitor],
    pairs: &Pairs<'_>,
    bound: &mut [Exact],
    scratch: &mut Scratch,
    out: &mut Vec<Outcome>,
) {
    out.clear();
    start(scratch, pairs);
    for m in monitors {
        let first = out.len();
        out.resize(first + pairs.lanes, Outcome::Holds);
        for (i, c) in m.conjuncts.iter().enumerate() {
            let values = cond(&c.cond, pairs, bound, scratch);
            for (o, v) in out[first..].iter_mut().zip(values) {
                if *o == Outcome::Holds && v != TRUE {
                    *o = Outcome::Fails {
                        conjunct: i,
                        undefined: v == UNDEFINED,
                    };
                }
            }
        }
    }
}

/// `c` on every pair.
fn cond(c: &Cond, pairs: &Pairs<'_>, bound: &mut [Exact], s: &mut Scratch) -> Vec<u8> {
    let n = pairs.lanes;
    match c {
        Cond::Const(b) => vec![u8::from(*b); n],
        Cond::Atom(a) => atom(a, pairs, bound, s),
        Cond::Not(a) => {
            let mut v = cond(a, pairs, bound, s);
            v.iter_mut()
                .filter(|x| **x != UNDEFINED)
                .for_each(|x| *x ^= 1);
            v
        }
        // (In order: the first false, or undefined, conjunct decides; later ones are not
        // looked at, as in the one-pair evaluator.)
        Cond::And(cs) | Cond::Or(cs) => {
            let go_on = if matches!(c, Cond::And(_)) {
                TRUE
            } else {
                FALSE
            };
            let mut acc = vec![go_on; n];
            for c in cs {
                let v = cond(c, pairs, bound, s);
                for (a, x) in acc.iter_mut().zip(v) {
                    if *a == go_on {
                        *a = x;
                    }
                }
            }
            acc
        }
        Cond::Iff(a, b) => {
            let (x, y) = (cond(a, pairs, bound, s), cond(b, pairs, bound, s));
            x.iter()
                .zip(y)
                .map(|(&x, y)| match (x, y) {
                    (UNDEFINED, _) | (_, UNDEFINED) => UNDEFINED,
                    (x, y) => u8::from(x == y),
                })
                .collect()
        }
        Cond::Quant { .. } => (0..n).map(|j| one(c, j, pairs, bound, s)).collect(),
    }
}

/// A comparison on every pair: the filter on all of them and the lane-wise fixed-point pass
/// on those it leaves (for an equality, which mostly holds and which the filter can only
/// refute, the other way round), then the one-pair passes on the rest.
fn atom(a: &Atom, pairs: &Pairs<'_>, bound: &mut [Exact], s: &mut Scratch) -> Vec<u8> {
    let Some(filter) = &a.filter else {
        let c = Cond::Atom(Box::new(a.clone()));
        return (0..pairs.lanes)
            .map(|j| one(&c, j, pairs, bound, s))
            .collect();
    };
    let mut out = vec![UNDECIDED_LANE; pairs.lanes];
    let by_filter = |out: &mut [u8], s: &mut Scratch| {
        let data = (&s.by_column[..], pairs.lanes + 1, pairs.lanes);
        filter.decide_lanes(&a.test, data, &mut s.lanes);
        for (o, &d) in out.iter_mut().zip(&s.lanes.decided) {
            if *o == UNDECIDED_LANE {
                *o = d;
            }
        }
    };
    let equality = matches!(a.test, Test::Eq | Test::Ne);
    if !equality {
        by_filter(&mut out, s);
    }
    fixed_lanes(a, s, &mut out);
    if equality && out.contains(&UNDECIDED_LANE) {
        by_filter(&mut out, s);
    }
    for (j, o) in out.iter_mut().enumerate() {
        if *o == UNDECIDED_LANE {
            *o = one_atom(a, j, pairs, bound, s);
        }
    }
    out
}

/// The lane-wise fixed-point pass on the lanes `out` leaves undecided.
fn fixed_lanes(a: &Atom, s: &mut Scratch, out: &mut [u8]) {
    let Some(filter) = &a.filter else { return };
    s.undecided.clear();
    s.undecided
        .extend((0..out.len()).filter(|&j| out[j] == UNDECIDED_LANE));
    if s.undecided.is_empty() {
        return;
    }
    s.fixed.resize(s.undecided.len(), UNDECIDED_LANE);
    let said = filter.decide_fixed_lanes(
        &a.test,
        &s.by_column,
        (&s.undecided, &s.digits),
        &mut s.columns,
        &mut s.regs,
        &mut s.fixed,
    );
    if said {
        for (&j, &d) in s.undecided.iter().zip(&s.fixed) {
            out[j] = d;
        }
    }
}

/// A comparison on pair `j` by the one-pair passes: fixed point (its samples' decimals
/// found one by one, and kept for the batch), then rationals.
fn one_atom(a: &Atom, j: usize, pairs: &Pairs<'_>, bound: &mut [Exact], s: &mut Scratch) -> u8 {
    let Some(filter) = &a.filter else {
        return one(&Cond::Atom(Box::new(a.clone())), j, pairs, bound, s);
    };
    let (rows, w) = (pairs.rows, pairs.width);
    let (cells, known, digits) = (&mut s.cells, &mut s.known, &mut s.digits);
    let mut sample = |column: usize, post: bool| {
        let at = (j + usize::from(post)) * w + column;
        match known[at] {
            1 => Some(cells[at]),
            2 => None,
            _ => {
                let d = Dec::of_sample_like(rows[at], digits[column]);
                match d {
                    Some(d) => {
                        (cells[at], known[at]) = (d, 1);
                        digits[column] = digits[column].max(d.digits());
                    }
                    None => known[at] = 2,
                }
                d
            }
        }
    };
    match filter.decide_fixed_with(&a.test, &mut sample, &mut s.decs) {
        Some(b) => u8::from(b),
        None => match eval::atom_exactly(a, pair(j, pairs, bound, s)) {
            Ok(b) => u8::from(b),
            Err(_) => UNDEFINED,
        },
    }
}

/// `c` on pair `j` alone, by the one-pair evaluator.
fn one(c: &Cond, j: usize, pairs: &Pairs<'_>, bound: &mut [Exact], s: &mut Scratch) -> u8 {
    let mut ctx = pair(j, pairs, bound, s);
    match eval::holds(c, &mut ctx) {
        Ok(b) => u8::from(b),
        Err(_) => UNDEFINED,
    }
}

/// The one-pair evaluator's context for pair `j`.
fn pair<'s>(j: usize, pairs: &Pairs<'_>, bound: &'s mut [Exact], s: &'s mut Scratch) -> Ctx<'s> {
    let w = pairs.width;
    let [prior, post] = &mut s.pair;
    prior.set(&pairs.rows[j * w..(j + 1) * w]);
    post.set(&pairs.rows[(j + 1) * w..(j + 2) * w]);
    Ctx {
        prior,
        post,
        bound,
        regs: &mut s.lanes,
        decs: &mut s.decs,
    }
}
