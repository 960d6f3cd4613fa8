//! The continuous semantics over point events, as a pointwise formula over *cells*.
//!
//! With integer timestamps and integer interval bounds (after scaling by `q`, so that δ is
//! an integer too), every formula's truth value is constant on each point `n` and on each
//! open interval `(n, n+1)`: all its changes are at sums and differences of integers. So the
//! timeline is cut into cells, cell `2n` the point `n` and cell `2n+1` the open interval
//! `(n, n+1)`, and each cell is one time point of a trace whose timestamp is its number. On
//! that trace the paper's continuous `SINCE` is MonPoly's pointwise one, with two changes:
//! * the window depends on the cell's kind: from a point `t` the distances `d ∈ I` reach the
//!   cells `[2a(+1 if open), 2b(−1 if open)]` back; from inside an open interval they reach
//!   `[2a, 2b]` whatever the ends (a point just inside the interval is always reachable);
//! * a witness `ψ` inside an open cell needs `φ` on that cell too (`(t', t]` contains the
//!   rest of it): the witness is `ψ ∧ (point ∨ φ)`.
//!
//! `UNTIL` mirrors it. The proposition `p` holds at the cell of each event with `p`, and
//! paper 16's `tf(p) = ◆[0,δ] p ∨ ◇[0,δ] p` is the window `[0, 2δ]` both ways. The
//! propositional engine then monitors the cell trace, online, in memory bounded by the
//! horizons (in cells: twice the time units).

use crate::formula::{Prop, Win};

/// The proposition true on the point cells (even numbers); reserved.
pub const EVEN: &str = "rvmon_even";

/// `p`'s rewriting `tf(p)` in the continuous semantics, as a pointwise formula over cells
/// (MonPoly's syntax), for time scaled by `q` (cells per time unit: `2q`) and `delta` in
/// scaled units.
pub fn cell_formula(p: &Prop, q: u64, delta: u64) -> String {
    let sub = |a: &Prop| cell_formula(a, q, delta);
    match p {
        Prop::True => "TRUE".into(),
        Prop::False => "FALSE".into(),
        Prop::Atom(_, text) if delta == 0 => text.clone(),
        Prop::Atom(_, text) => {
            let d = 2 * delta;
            format!("(ONCE[0,{d}] {text} OR EVENTUALLY[0,{d}] {text})")
        }
        Prop::Rigid(text) => text.clone(),
        Prop::Exists(vars, a) | Prop::Forall(vars, a) => {
            let q = if matches!(p, Prop::Exists(..)) {
                "EXISTS"
            } else {
                "FORALL"
            };
            format!("({q} {}. {})", vars.join(", "), sub(a))
        }
        // (`¬◆¬b` and `¬◇¬b` are written as PAST_ALWAYS and ALWAYS, which the first-order
        // engine monitors with free variables.)
        Prop::Not(a) => match &**a {
            Prop::Since(w, l, r) | Prop::Until(w, l, r) if **l == Prop::True => match &**r {
                Prop::Not(b) => {
                    let op = if matches!(**a, Prop::Since(..)) {
                        "PAST_ALWAYS"
                    } else {
                        "ALWAYS"
                    };
                    unary(op, *w, q, &sub(b))
                }
                _ => format!("(NOT {})", sub(a)),
            },
            _ => format!("(NOT {})", sub(a)),
        },
        Prop::And(a, b) => format!("({} AND {})", sub(a), sub(b)),
        Prop::Or(a, b) => format!("({} OR {})", sub(a), sub(b)),
        Prop::Since(w, a, b) | Prop::Until(w, a, b) => {
            let op = if matches!(p, Prop::Since(..)) {
                "SINCE"
            } else {
                "UNTIL"
            };
            if **a == Prop::True {
                let op = if op == "SINCE" { "ONCE" } else { "EVENTUALLY" };
                return unary(op, *w, q, &sub(b));
            }
            let (lhs, rhs) = (sub(a), sub(b));
            // (A witness inside an open cell needs the left operand there too; written as a
            // disjunction for the first-order engine's fragment.)
            let witness = format!("(({rhs} AND {EVEN}()) OR ({rhs} AND {lhs}))");
            by_kind(*w, q, "FALSE", |window| {
                format!("({lhs} {op}{window} {witness})")
            })
        }
    }
}

/// `OP_w body` over cells (`ONCE`, `EVENTUALLY`, `PAST_ALWAYS`, `ALWAYS`).
fn unary(op: &str, w: Win, q: u64, body: &str) -> String {
    let empty = if op.ends_with("ALWAYS") {
        "TRUE"
    } else {
        "FALSE"
    };
    by_kind(w, q, empty, |window| format!("({op}{window} {body})"))
}

/// `make(window)` with the window of cells `w` reaches: from an open cell `[2a, 2b]`, from
/// a point cell open ends one cell in; one formula if both are the same, else split on the
/// cell's kind. An empty window makes `empty`.
fn by_kind(w: Win, q: u64, empty: &str, make: impl Fn(&str) -> String) -> String {
    let scaled = |x: u64| x.saturating_mul(2 * q);
    let (lo, hi) = (scaled(w.lo), w.hi.map(scaled));
    let from_open = (lo, hi);
    let from_point = (
        lo + u64::from(w.lo_open),
        hi.map(|h| h.saturating_sub(u64::from(w.hi_open))),
    );
    let one = |(lo, hi): (u64, Option<u64>)| -> String {
        match hi {
            Some(h) if h < lo => empty.to_string(),
            Some(h) => make(&format!("[{lo},{h}]")),
            None => make(&format!("[{lo},*)")),
        }
    };
    if from_point == from_open {
        return one(from_open);
    }
    format!(
        "(({EVEN}() AND {}) OR ((NOT {EVEN}()) AND {}))",
        one(from_point),
        one(from_open)
    )
}

/// What `--explain` says about the rewriting: each proposition widened by ±δ, the operators'
/// intervals unchanged (paper 16's tf), and the cells.
pub fn explain(p: &Prop, delta_text: &str) -> String {
    let mut atoms = Vec::new();
    crate::formula::atoms(p, &mut atoms);
    let widened: Vec<String> = atoms
        .iter()
        .map(|a| format!("{a} → ONCE[0,{delta_text}] {a} OR EVENTUALLY[0,{delta_text}] {a}"))
        .collect();
    format!(
        "each proposition holds within ±{delta_text} of its observed time: {}; the temporal \
         operators' intervals are unchanged (paper 16's tf)",
        widened.join("; ")
    )
}
