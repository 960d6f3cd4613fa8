//! Parametric monitoring with a finite-state machine per binding: Algorithm A with patterns,
//! keeping each binding's machine state instead of its slice (the step from slicing to
//! monitoring that JavaMOP and RV-Monitor take). Every event name has one pattern (its
//! parameters), so the symbol an event contributes to any slice is its name.
//!
//! The lookup of the largest binding below a new one is a scan over all bindings seen:
//! correct, and quadratic in the number of live bindings. RV-Monitor's indexing trees and the
//! freeing of monitors that can no longer reach a verdict are not built yet.

use rustc_hash::{FxHashMap, FxHashSet};

use crate::slicing::{Binding, Event, Pattern};

/// A deterministic machine over event names. A missing transition goes to no state: the
/// binding can no longer reach a verdict, and it is not monitored further.
#[derive(Clone, Debug)]
pub struct Fsm {
    pub states: Vec<String>,
    pub start: usize,
    pub symbols: Vec<String>,
    /// `delta[state][symbol]`.
    pub delta: Vec<Vec<Option<usize>>>,
    /// States that are verdicts (e.g. `error`), with the category reported on entering them.
    pub verdicts: Vec<Option<String>>,
}

impl Fsm {
    fn symbol(&self, name: &str) -> Option<usize> {
        self.symbols.iter().position(|s| s == name)
    }

    /// The state after reading `word` from the start (`None` once a transition is missing).
    pub fn run<'a>(&self, word: impl IntoIterator<Item = &'a str>) -> Option<usize> {
        word.into_iter()
            .try_fold(self.start, |s, w| self.delta[s][self.symbol(w)?])
    }
}

/// A verdict: the binding, the event (0-based) that produced it, and its category.
#[derive(Clone, Debug, PartialEq)]
pub struct Report {
    pub event: usize,
    pub binding: Binding,
    pub category: String,
}

pub struct ParamMonitor {
    patterns: Vec<Pattern>,
    fsm: Fsm,
    /// Every binding seen (⊤ excluded) and its machine state; `None`: dead.
    states: FxHashMap<Binding, Option<usize>>,
    events: usize,
}

impl ParamMonitor {
    /// `patterns` give each event name its parameters (one pattern per name).
    pub fn new(patterns: Vec<Pattern>, fsm: Fsm) -> ParamMonitor {
        let mut states = FxHashMap::default();
        states.insert(Binding::bottom(), Some(fsm.start));
        ParamMonitor {
            patterns,
            fsm,
            states,
            events: 0,
        }
    }

    /// The largest binding seen below `theta`.
    fn source(&self, theta: &Binding) -> Binding {
        self.states
            .keys()
            .filter(|b| b.below(theta))
            .fold(Binding::bottom(), |acc, b| acc.join(b))
    }

    /// The machine state of any binding (looked up as in Algorithm A).
    pub fn state_of(&self, theta: &Binding) -> Option<usize> {
        self.states[&self.source(theta)]
    }

    pub fn bindings(&self) -> usize {
        self.states.len()
    }

    /// Feeds one event; appends the verdicts it produces.
    pub fn push(&mut self, e: &Event, out: &mut Vec<Report>) {
        let i = self.events;
        self.events += 1;
        let Some(sym) = self.fsm.symbol(&e.name) else {
            return;
        };
        let sigma: FxHashSet<Binding> = self
            .patterns
            .iter()
            .map(|p| p.matcher(e))
            .filter(|b| *b != Binding::Top)
            .collect();
        let updated: FxHashSet<Binding> = sigma
            .iter()
            .flat_map(|s| self.states.keys().map(move |t| s.join(t)))
            .filter(|b| *b != Binding::Top)
            .collect();
        // Every source state is read before any is updated.
        let next: Vec<(Binding, Option<usize>)> = updated
            .into_iter()
            .map(|b| {
                let from = self.state_of(&b);
                (b, from.and_then(|s| self.fsm.delta[s][sym]))
            })
            .collect();
        for (b, s) in next {
            if let Some(cat) = s.and_then(|s| self.fsm.verdicts[s].clone()) {
                out.push(Report {
                    event: i,
                    binding: b.clone(),
                    category: cat,
                });
            }
            self.states.insert(b, s);
        }
    }
}
