//! Paper 16's labels (Fig. 1): which guarantee a verdict of the rewritten formula gives about
//! the true timings. On a formula in negation normal form (`true false ∨ T R` primitive):
//! `true`, `false` and `¬p` are (∀), `p` is (∃); a connective or temporal operator of two
//! (∀) operands is (∀); `φ ∧ ψ` is (∃) when one side is (∃) and the other (∀); `φ ∨ ψ` is
//! (∃) when both are; a temporal operator with a (∀) left and an (∃) right operand is (∃);
//! and (∀) is also (∃). `(∃) ∧ (∃)` is deliberately not (∃) (the note's counterexample).
//! First-order, by the same rules: `∃x` is a disjunction over the values, `∀x` a
//! conjunction; a comparison depends on no event's time, so it is (∀) either way.
//!
//! Theorem 2: if the formula's NNF is labelled ℓ and the rewritten formula holds on the
//! observed timeline at t, then the formula holds at t for every (ℓ = ∀) or some (ℓ = ∃)
//! possible timeline. Applied to ¬φ, a violation of the rewritten φ is a violation of φ for
//! every or some timing, by the label of NNF(¬φ).

use crate::formula::Prop;

/// The strongest label, from weakest to strongest.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Label {
    /// No guarantee.
    None,
    /// (∃): some possible timeline.
    Some,
    /// (∀): every possible timeline.
    All,
}

impl Label {
    pub fn name(self) -> &'static str {
        match self {
            Label::None => "none",
            Label::Some => "(∃) some timing",
            Label::All => "(∀) every timing",
        }
    }
}

/// The label of the NNF of `p` (`negated`: of `¬p`).
pub fn label(p: &Prop, negated: bool) -> Label {
    match p {
        Prop::True | Prop::False | Prop::Rigid(_) => Label::All,
        Prop::Atom(..) if negated => Label::All,
        Prop::Atom(..) => Label::Some,
        // ∃ is a disjunction over the values, ∀ a conjunction (¬∃ = ∀¬): (∃) ∨ (∃) is (∃),
        // (∃) ∧ (∃) is not.
        Prop::Exists(_, a) | Prop::Forall(_, a) => {
            let inner = label(a, negated);
            if matches!(p, Prop::Exists(..)) != negated {
                inner
            } else if inner == Label::All {
                Label::All
            } else {
                Label::None
            }
        }
        Prop::Not(a) => label(a, !negated),
        // ¬(a ∧ b) = ¬a ∨ ¬b, ¬(a ∨ b) = ¬a ∧ ¬b.
        Prop::And(a, b) | Prop::Or(a, b) => {
            let (x, y) = (label(a, negated), label(b, negated));
            if matches!(p, Prop::And(..)) != negated {
                conjunction(x, y)
            } else {
                disjunction(x, y)
            }
        }
        // ¬(a S b) = ¬a T ¬b, ¬(a U b) = ¬a R ¬b: the same rule for all four.
        Prop::Since(_, a, b) | Prop::Until(_, a, b) => {
            temporal(label(a, negated), label(b, negated))
        }
    }
}

fn conjunction(x: Label, y: Label) -> Label {
    match (x, y) {
        (Label::All, Label::All) => Label::All,
        (Label::All, Label::Some) | (Label::Some, Label::All) => Label::Some,
        _ => Label::None,
    }
}

fn disjunction(x: Label, y: Label) -> Label {
    x.min(y)
}

fn temporal(left: Label, right: Label) -> Label {
    match (left, right) {
        (Label::All, r) => r,
        _ => Label::None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::formula::Win;

    fn atom(p: &str) -> Box<Prop> {
        Box::new(Prop::Atom(p.into(), format!("{p}()")))
    }

    fn once(w: Win, p: Box<Prop>) -> Prop {
        Prop::Since(w, Box::new(Prop::True), p)
    }

    /// Note C5.3, example 3: φ = ¬p → ◆_I q. NNF(φ) = p ∨ (true S_I q) is (∃), NNF(¬φ) =
    /// ¬p ∧ (false T_I ¬q) is (∀): a satisfied verdict holds for some timing, a violation
    /// for every one.
    #[test]
    fn example_3() {
        let w = Win {
            lo: 1,
            lo_open: false,
            hi: Some(3),
            hi_open: false,
        };
        let phi = Prop::Or(
            Box::new(Prop::negated(Prop::negated(*atom("p")))),
            Box::new(once(w, atom("q"))),
        );
        assert_eq!(label(&phi, false), Label::Some);
        assert_eq!(label(&phi, true), Label::All);
    }

    /// Note C5.3, example 3's counterexample: (p ∧ ◆[1,1] q) ∧ (p ∧ ◇[1,1] q) has no label.
    #[test]
    fn two_existential_conjuncts_have_no_label() {
        let one = Win {
            lo: 1,
            lo_open: false,
            hi: Some(1),
            hi_open: false,
        };
        let past = Prop::And(atom("p"), Box::new(once(one, atom("q"))));
        let future = Prop::And(
            atom("p"),
            Box::new(Prop::Until(one, Box::new(Prop::True), atom("q"))),
        );
        // (p is (∃), ◆q is (∃): already each half has no label.)
        assert_eq!(label(&past, false), Label::None);
        assert_eq!(
            label(&Prop::And(Box::new(past.clone()), Box::new(future)), false),
            Label::None
        );
        // Its negation, a disjunction of (∀)s: every timing.
        assert_eq!(label(&past, true), Label::All);
    }

    /// The (∀) fragment is the formulas whose propositions occur only negatively.
    #[test]
    fn universal_fragment() {
        let w = Win::ALL;
        let neg = Prop::Since(w, Box::new(Prop::negated(*atom("p"))), Box::new(Prop::True));
        assert_eq!(label(&neg, false), Label::All);
        assert_eq!(label(&atom("p"), false), Label::Some);
        assert_eq!(
            label(&Prop::Since(w, atom("p"), atom("q")), false),
            Label::None
        );
    }
}
