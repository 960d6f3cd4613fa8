//! Parametric monitoring with a finite-state machine per binding: Algorithm A, keeping each
//! binding's machine state instead of its slice (the step from slicing to monitoring that
//! JavaMOP and RV-Monitor take). Every event name has one pattern (its parameters), so the
//! symbol an event contributes to any slice is its name, and bindings need not be injective
//! (Roşu and Chen's original setting): a collection and an iterator may carry the same id
//! number.
//!
//! Indexing, in the spirit of RV-Monitor's indexing trees: the bindings seen form a
//! join-closed set, so the largest one below a binding θ is one of θ's sub-bindings (at most
//! 2^k for k parameters) and is found by hash lookups. The bindings an event's matcher σ
//! extends are those whose restriction to σ's parameters is a sub-binding of σ; they are kept
//! in one index per pattern domain, keyed by that restriction. The cost of an event is then
//! the number of bindings it updates, not the number seen. Monitors are not freed yet (no
//! end-of-life events or coenable sets), so memory grows with the objects seen.

use rustc_hash::{FxHashMap, FxHashSet};
use rvmon_core::Value;

use crate::slicing::{matchers, Binding, Event, Pattern, Term};

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
    /// The category reported when a binding's event has no transition (JavaMOP's `@fail`).
    pub fail: Option<String>,
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
    /// Per pattern domain (sorted parameters): bindings by their restriction to it.
    index: FxHashMap<Vec<usize>, FxHashMap<Binding, Vec<Binding>>>,
    events: usize,
    /// Bindings by each (parameter, value) they contain, to free them when the object dies.
    by_value: FxHashMap<(usize, Value), Vec<Binding>>,
    /// Events that end the life of the objects bound to their parameters.
    end_events: Vec<Pattern>,
    /// Creation-event semantics (see [`ParamMonitor::with_creation_events`]).
    creation: bool,
    /// New bindings not created because the event could not start them.
    skipped: u64,
}

/// Every sub-binding of `m` (2^|m| of them).
fn sub_bindings(m: &[(usize, Value)]) -> Vec<Binding> {
    (0u32..1 << m.len())
        .map(|mask| {
            Binding::Map(
                m.iter()
                    .enumerate()
                    .filter(|(k, _)| mask >> k & 1 == 1)
                    .map(|(_, p)| *p)
                    .collect(),
            )
        })
        .collect()
}

fn restrict(b: &Binding, dom: &[usize]) -> Binding {
    match b {
        Binding::Map(m) => Binding::Map(m.iter().filter(|p| dom.contains(&p.0)).copied().collect()),
        Binding::Top => Binding::Top,
    }
}

impl ParamMonitor {
    /// `patterns` give each event name its parameters (one pattern per name).
    pub fn new(patterns: Vec<Pattern>, fsm: Fsm) -> ParamMonitor {
        let mut index: FxHashMap<Vec<usize>, FxHashMap<Binding, Vec<Binding>>> =
            FxHashMap::default();
        for p in &patterns {
            let mut dom: Vec<usize> = p
                .args
                .iter()
                .filter_map(|t| match t {
                    Term::Var(x) => Some(*x),
                    _ => None,
                })
                .collect();
            dom.sort_unstable();
            dom.dedup();
            index.entry(dom).or_default();
        }
        let mut m = ParamMonitor {
            patterns,
            fsm,
            states: FxHashMap::default(),
            index,
            by_value: FxHashMap::default(),
            end_events: Vec::new(),
            events: 0,
            creation: false,
            skipped: 0,
        };
        m.insert(Binding::bottom(), Some(m.fsm.start));
        m
    }

    fn insert(&mut self, b: Binding, state: Option<usize>) {
        if self.states.insert(b.clone(), state).is_none() {
            for (dom, by_key) in self.index.iter_mut() {
                by_key.entry(restrict(&b, dom)).or_default().push(b.clone());
            }
            // PERF: only a property with end-of-life events needs this index.
            if let (Binding::Map(m), false) = (&b, self.end_events.is_empty()) {
                for &pair in m {
                    self.by_value.entry(pair).or_default().push(b.clone());
                }
            }
        }
    }

    /// Events that end objects' lives (`end event dispose(i)`): when one occurs, every binding
    /// of the dead objects is freed. No later event can mention a dead object, so no lookup
    /// or join will need those bindings again (the reasoning behind RV-Monitor's weak
    /// references); memory then follows the live objects.
    pub fn with_end_events(mut self, patterns: Vec<Pattern>) -> ParamMonitor {
        self.end_events = patterns;
        self
    }

    /// Frees every binding that binds `param` to `value`.
    pub fn end_object(&mut self, param: usize, value: Value) {
        let Some(dead) = self.by_value.remove(&(param, value)) else {
            return;
        };
        for b in dead {
            if self.states.remove(&b).is_none() {
                continue;
            }
            for (dom, by_key) in self.index.iter_mut() {
                let key = restrict(&b, dom);
                if let Some(list) = by_key.get_mut(&key) {
                    list.retain(|x| *x != b);
                    if list.is_empty() {
                        by_key.remove(&key);
                    }
                }
            }
            if let Binding::Map(m) = &b {
                for pair in m.iter().filter(|p| **p != (param, value)) {
                    if let Some(list) = self.by_value.get_mut(pair) {
                        list.retain(|x| *x != b);
                        if list.is_empty() {
                            self.by_value.remove(pair);
                        }
                    }
                }
            }
        }
    }

    /// The largest binding seen below `theta`: the largest of its sub-bindings that was seen
    /// (the set seen is join-closed, so that is the join of all seen below it).
    fn source(&self, theta: &Binding) -> Binding {
        let Binding::Map(m) = theta else {
            return Binding::Top;
        };
        sub_bindings(m)
            .into_iter()
            .filter(|b| self.states.contains_key(b))
            .max_by_key(|b| match b {
                Binding::Map(m) => m.len(),
                Binding::Top => usize::MAX,
            })
            .unwrap_or_else(Binding::bottom)
    }

    /// The bindings seen that `sigma` can extend: those whose restriction to its domain is a
    /// sub-binding of it.
    fn compatible(&self, sigma: &Binding) -> Vec<Binding> {
        let Binding::Map(m) = sigma else {
            return Vec::new();
        };
        let dom: Vec<usize> = m.iter().map(|p| p.0).collect();
        match self.index.get(&dom) {
            Some(by_key) => sub_bindings(m)
                .iter()
                .filter_map(|s| by_key.get(s))
                .flatten()
                .cloned()
                .collect(),
            None => self.states.keys().cloned().collect(),
        }
    }

    /// The machine state of any binding (looked up as in Algorithm A).
    pub fn state_of(&self, theta: &Binding) -> Option<usize> {
        self.states[&self.source(theta)]
    }

    pub fn bindings(&self) -> usize {
        self.states.len()
    }

    /// The bindings seen (and not freed).
    pub fn seen(&self) -> Vec<Binding> {
        self.states.keys().cloned().collect()
    }

    /// JavaMOP's creation events, generalised: a binding the monitor has not seen is created
    /// only by an event its machine can take (from the state of its largest sub-binding seen).
    /// Pure slicing would also create the bindings such an event kills at once; with
    /// `update(c)` and many iterators seen, that is every (collection, iterator) pair
    /// (UnsafeIterator), which no monitor can afford. The difference: an event that no
    /// binding can take is ignored for the bindings it would have killed, instead of ending
    /// them, so `next(i) create(c,i) update(c) next(i)` is still a violation.
    pub fn with_creation_events(mut self) -> ParamMonitor {
        self.creation = true;
        self
    }

    /// Whether `theta` is the join of bindings seen (its proper sub-bindings seen join to it):
    /// then it must be kept, even dead, or the set seen would not be join-closed and its
    /// lookups would have two largest sub-bindings to choose from.
    fn needed(&self, theta: &Binding) -> bool {
        let Binding::Map(m) = theta else {
            return false;
        };
        sub_bindings(m)
            .into_iter()
            .filter(|b| b != theta && self.states.contains_key(b))
            .fold(Binding::bottom(), |acc, b| acc.lub(&b, false))
            == *theta
    }

    /// How many bindings creation-event semantics did not create (0: the run equals pure
    /// slicing).
    pub fn skipped(&self) -> u64 {
        self.skipped
    }

    /// Feeds one event; appends the verdicts it produces.
    pub fn push(&mut self, e: &Event, out: &mut Vec<Report>) {
        let i = self.events;
        self.events += 1;
        let ended: Vec<(usize, Value)> = self
            .end_events
            .iter()
            .filter_map(|p| match p.match_event(e, false) {
                Binding::Map(m) => Some(m),
                Binding::Top => None,
            })
            .flatten()
            .collect();
        if !ended.is_empty() {
            for (param, value) in ended {
                self.end_object(param, value);
            }
            return;
        }
        let Some(sym) = self.fsm.symbol(&e.name) else {
            return;
        };
        let mut sigma = matchers(&self.patterns, e, false);
        sigma.remove(&Binding::Top);
        let updated: FxHashSet<Binding> = sigma
            .iter()
            .flat_map(|s| {
                self.compatible(s)
                    .into_iter()
                    .map(move |t| s.lub(&t, false))
            })
            .filter(|b| *b != Binding::Top)
            .collect();
        // Every source state is read before any is updated.
        let next: Vec<(Binding, Option<usize>, Option<usize>)> = updated
            .into_iter()
            .map(|b| {
                let from = self.state_of(&b);
                (b, from, from.and_then(|s| self.fsm.delta[s][sym]))
            })
            .collect();
        let mut skipped = Vec::new();
        for (b, from, to) in next {
            if self.creation && to.is_none() && !self.states.contains_key(&b) {
                skipped.push(b);
                continue;
            }
            let category = match to {
                Some(s) => self.fsm.verdicts[s].clone(),
                None if from.is_some() => self.fsm.fail.clone(),
                None => None,
            };
            if let Some(category) = category {
                out.push(Report {
                    event: i,
                    binding: b.clone(),
                    category,
                });
            }
            self.insert(b, to);
        }
        // A skipped binding that is the join of bindings seen now (some created just above)
        // is kept, dead, so that the bindings seen stay join-closed.
        for b in skipped {
            if self.needed(&b) {
                self.insert(b, None);
            } else {
                self.skipped += 1;
            }
        }
    }
}
