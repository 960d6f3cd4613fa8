//! LTL with past as stream equations: paper 06, Proposition 1, with note B's fix (the *next*
//! operator is `y_○θ = y_θ[+1|0]`; the paper prints it as a second `⊖` line).
//!
//! Every subformula θ becomes a Boolean output `y_θ` defined from its operands' outputs;
//! `U` and `S` refer to their own next or previous value, so the result is well-formed
//! (no weight-0 cycle) and computes every subformula at every position under LTL's
//! finite-word semantics (strong next, strong until). `init` of the proposition, which only
//! restricts the language to words satisfying the formula at position 1, is left out: rvmon
//! reports where the formula fails instead.

use rustc_hash::FxHashMap;
use rvmon_core::Error;
use rvmon_logic::{BinaryTemporal, BoolOp, Formula, FormulaKind, Interval, UnaryTemporal};

/// A stream specification for `f` (propositions `p()` become Boolean inputs `p`); returns the
/// specification text and the name of the output for `f` itself.
pub fn ltl_to_spec(f: &Formula) -> Result<(String, String), Error> {
    let mut t = Translation::default();
    collect_props(f, &mut t.props)?;
    let root = t.output(f)?;
    let pacing = if t.props.is_empty() {
        "true".to_string()
    } else {
        t.props.join(" && ")
    };
    let mut spec = String::new();
    for p in &t.props {
        spec += &format!("input {p}: Bool\n");
    }
    for (name, expr) in &t.defs {
        spec += &format!("output {name}: Bool @ ({pacing}) := {expr}\n");
    }
    Ok((spec, root))
}

#[derive(Default)]
struct Translation {
    props: Vec<String>,
    /// (output name, expression), operands before the formulas that use them.
    defs: Vec<(String, String)>,
    /// Each distinct subformula once.
    seen: FxHashMap<String, String>,
}

fn collect_props(f: &Formula, props: &mut Vec<String>) -> Result<(), Error> {
    match &f.kind {
        FormulaKind::Pred { name, args } if args.is_empty() => {
            if !props.contains(name) {
                props.push(name.clone());
            }
            Ok(())
        }
        FormulaKind::Bool(_) => Ok(()),
        FormulaKind::Not(a) | FormulaKind::Unary { body: a, .. } => collect_props(a, props),
        FormulaKind::Bool2 { lhs, rhs, .. } | FormulaKind::Binary { lhs, rhs, .. } => {
            collect_props(lhs, props)?;
            collect_props(rhs, props)
        }
        _ => Err(Error::msg(format!(
            "only propositional LTL translates to stream equations; `{f}` is not"
        ))),
    }
}

impl Translation {
    fn output(&mut self, f: &Formula) -> Result<String, Error> {
        let key = f.to_string();
        if let Some(name) = self.seen.get(&key) {
            return Ok(name.clone());
        }
        let unbounded = |iv: &Interval| {
            if *iv == Interval::UNBOUNDED {
                Ok(())
            } else {
                Err(Error::msg(format!(
                    "`{f}` has a metric interval; the translation is for LTL (no intervals)"
                )))
            }
        };
        // Operands first, so that every output is defined after those it reads.
        let (a, b) = match &f.kind {
            FormulaKind::Not(x) => (Some(self.output(x)?), None),
            FormulaKind::Unary { interval, body, .. } => {
                unbounded(interval)?;
                (Some(self.output(body)?), None)
            }
            FormulaKind::Bool2 { lhs, rhs, .. } | FormulaKind::Binary { lhs, rhs, .. } => {
                if let FormulaKind::Binary { interval, .. } = &f.kind {
                    unbounded(interval)?;
                }
                (Some(self.output(lhs)?), Some(self.output(rhs)?))
            }
            _ => (None, None),
        };
        let name = format!("y{}", self.defs.len());
        let (a, b) = (a.unwrap_or_default(), b.unwrap_or_default());
        let expr = match &f.kind {
            FormulaKind::Bool(v) => v.to_string(),
            FormulaKind::Pred { name, .. } => name.clone(),
            FormulaKind::Not(_) => format!("!{a}"),
            FormulaKind::Bool2 { op, .. } => match op {
                BoolOp::And => format!("{a} && {b}"),
                BoolOp::Or => format!("{a} || {b}"),
                BoolOp::Implies => format!("{a} -> {b}"),
                BoolOp::Equiv => format!("{a} == {b}"),
            },
            FormulaKind::Unary { op, .. } => match op {
                UnaryTemporal::Previous => format!("{a}[-1, false]"),
                UnaryTemporal::Next => format!("{a}[1, false]"),
                UnaryTemporal::Once => format!("{a} || {name}[-1, false]"),
                UnaryTemporal::Eventually => format!("{a} || {name}[1, false]"),
                UnaryTemporal::PastAlways => format!("{a} && {name}[-1, true]"),
                UnaryTemporal::Always => format!("{a} && {name}[1, true]"),
            },
            FormulaKind::Binary { op, .. } => match op {
                BinaryTemporal::Since => format!("{b} || ({a} && {name}[-1, false])"),
                BinaryTemporal::Until => format!("{b} || ({a} && {name}[1, false])"),
            },
            _ => unreachable!("rejected by collect_props"),
        };
        self.defs.push((name.clone(), expr));
        self.seen.insert(key, name.clone());
        Ok(name)
    }
}
