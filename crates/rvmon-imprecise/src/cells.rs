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
    match p {
        Prop::True => "TRUE".into(),
        Prop::False => "FALSE".into(),
        Prop::Atom(a) if delta == 0 => format!("{a}()"),
        Prop::Atom(a) => {
            let d = 2 * delta;
            format!("(ONCE[0,{d}] {a}() OR EVENTUALLY[0,{d}] {a}())")
        }
        Prop::Not(a) => format!("(NOT {})", cell_formula(a, q, delta)),
        Prop::And(a, b) => format!(
            "({} AND {})",
            cell_formula(a, q, delta),
            cell_formula(b, q, delta)
        ),
        Prop::Or(a, b) => format!(
            "({} OR {})",
            cell_formula(a, q, delta),
            cell_formula(b, q, delta)
        ),
        Prop::Since(w, a, b) | Prop::Until(w, a, b) => {
            let op = if matches!(p, Prop::Since(..)) {
                "SINCE"
            } else {
                "UNTIL"
            };
            let (lhs, rhs) = (cell_formula(a, q, delta), cell_formula(b, q, delta));
            let lhs = if **a == Prop::True { None } else { Some(lhs) };
            temporal(op, *w, q, lhs, rhs)
        }
    }
}

/// `lhs OP_w rhs` over cells (`lhs` `None`: `TRUE`, then a `ONCE`/`EVENTUALLY`).
fn temporal(op: &str, w: Win, q: u64, lhs: Option<String>, rhs: String) -> String {
    let scaled = |x: u64| x.saturating_mul(2 * q);
    let (lo, hi) = (scaled(w.lo), w.hi.map(scaled));
    // From an open cell: [2a, 2b]; from a point: open ends one cell in.
    let from_open = (lo, hi);
    let from_point = (
        lo + u64::from(w.lo_open),
        hi.map(|h| h.saturating_sub(u64::from(w.hi_open))),
    );
    let one = |(lo, hi): (u64, Option<u64>)| -> String {
        let (hi_text, empty) = match hi {
            Some(h) => (h.to_string(), h < lo),
            None => ("*".into(), false),
        };
        if empty {
            return "FALSE".into();
        }
        let window = if hi.is_some() {
            format!("[{lo},{hi_text}]")
        } else {
            format!("[{lo},*)")
        };
        match &lhs {
            None if op == "SINCE" => format!("(ONCE{window} {rhs})"),
            None => format!("(EVENTUALLY{window} {rhs})"),
            // (A witness inside an open cell needs the left operand there too.)
            Some(l) => format!("({l} {op}{window} ({rhs} AND ({EVEN}() OR {l})))"),
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
