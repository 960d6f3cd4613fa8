//! Which time points can matter to a formula: MonPoly's `Filter_rel`, shared by `rvmon monpoly`
//! (its empty-time-point filter) and `rvmon check` (the same filter, when
//! `rvmon_slice::empty_points_removable` proves it changes no violation).

use rvmon_core::{Interner, Sym, TimePoint, Value};
use rvmon_logic::{Formula, FormulaKind};

/// MonPoly's `Filter_rel`: the predicates of the formula, and for argument positions where the
/// formula only ever has constants, the constants allowed there.
pub struct Relevance {
    preds: Vec<(Sym, Vec<Option<Vec<Value>>>)>,
}

impl Relevance {
    pub fn of(f: &Formula, interner: &mut Interner) -> Relevance {
        fn collect(
            f: &Formula,
            interner: &mut Interner,
            preds: &mut Vec<(Sym, Vec<Option<Vec<Value>>>)>,
        ) {
            if let FormulaKind::Pred { name, args } = &f.kind {
                let sym = interner.intern(name);
                let consts: Vec<Option<Value>> = args
                    .iter()
                    .map(|a| match a {
                        rvmon_logic::Term::Var(_) => None,
                        t => rvmon_logic::eval::eval_term(t, &|_| None, interner).ok(),
                    })
                    .collect();
                match preds
                    .iter_mut()
                    .find(|p| p.0 == sym && p.1.len() == consts.len())
                {
                    Some((_, positions)) => {
                        for (slot, c) in positions.iter_mut().zip(consts) {
                            match (slot.as_mut(), c) {
                                (Some(vals), Some(c)) => vals.push(c),
                                _ => *slot = None,
                            }
                        }
                    }
                    None => preds.push((
                        sym,
                        consts.into_iter().map(|c| c.map(|c| vec![c])).collect(),
                    )),
                }
            }
            for c in f.children() {
                collect(c, interner, preds);
            }
        }
        let mut preds = Vec::new();
        collect(f, interner, &mut preds);
        Relevance { preds }
    }

    /// Whether `tp` has an event that can match an atom of the formula.
    pub fn any(&self, tp: &TimePoint) -> bool {
        tp.events.iter().any(|e| {
            self.preds.iter().any(|(sym, positions)| {
                *sym == e.name
                    && positions.len() == e.args_len as usize
                    && tp
                        .args_of(e)
                        .iter()
                        .zip(positions)
                        .all(|(v, allowed)| allowed.as_ref().is_none_or(|a| a.contains(v)))
            })
        })
    }
}
