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
//! the number of bindings it updates, not the number seen.
//!
//! Representation (this is the hot path of every parametric run): a binding seen is a dense
//! id; its key is `[mask, values…]` (the parameters as a bit mask, then their values in
//! parameter order), kept in one flat array ([`Bindings`]), and lookups build keys in reused
//! buffers, so an event that creates no binding allocates nothing. The indexes give ids, and a binding's
//! state is kept by id, so updating a binding found through an index hashes nothing; only a
//! new join σ ⊔ t is looked up by key. Each event name's patterns, machine
//! symbol and end-of-life patterns are resolved once and cached.
//!
//! Properties whose every event binds the same one parameter (HasNext(i), a file's
//! open/close) skip all of this: each event's slice is its object's, so the states are one
//! map from object to state ([`OneObject`]), one lookup per event.

use std::collections::VecDeque;
use std::rc::Rc;

use rustc_hash::FxHashMap;
use rvmon_core::{Error, Value};

use crate::bindings::{
    code_state, hash_key, hash_restricted, mask_of, state_code, value_at, Bindings,
};
use crate::ids::{Entries, Ids};
use crate::slicing::{matchers_of, Binding, ConstraintCheck, Constraints, Event, Pattern, Term};

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

    /// The category a step from `from` to `to` reports: the verdict of the state entered, or
    /// `@fail` when a live binding's event has no transition.
    fn category(&self, from: Option<usize>, to: Option<usize>) -> Option<String> {
        match to {
            Some(q) => self.verdicts[q].clone(),
            None if from.is_some() => self.fail.clone(),
            None => None,
        }
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
    /// Events that end the life of the objects bound to their parameters.
    end_events: Vec<Pattern>,
    /// Creation-event semantics (see [`ParamMonitor::with_creation_events`]).
    creation: bool,
    /// New bindings not created because the event could not start them.
    skipped: u64,
    events: usize,
    /// Every binding seen (⊤ excluded): its id, key and machine state. An event reaches the
    /// bindings that contain its σ through the indexes, by id, and reads and writes their
    /// states without hashing their keys (only a new σ ⊔ t is looked up by key).
    store: Bindings,
    /// The parameters of the patterns (a mask): the largest binding binds them all.
    all_parameters: u32,
    /// Per pattern domain: the bindings seen that bind a parameter outside it (see
    /// [`DomainIndex`]). (A binding within the domain extends to the event's matcher σ exactly
    /// when it is a sub-binding of σ, and then σ ⊔ it is σ itself, so it need not be found.)
    index: Vec<DomainIndex>,
    /// Visit every partial binding of an index, whatever its state (see
    /// [`ParamMonitor::with_full_scan`]).
    full_scan: bool,
    /// Bindings by each (parameter, value) they contain, to free them when the object dies
    /// (kept only when there are end-of-life events).
    by_value: FxHashMap<(usize, Value), Ids>,
    /// Per parameter, per state: whether a verdict can still be reached from the state by
    /// events that do not mention that parameter (see [`ParamMonitor::end_object`]).
    verdict_without: Vec<Vec<bool>>,
    /// Whether `by_value` is kept: with end-of-life events, and whenever bindings can reach
    /// outside an event's domain (it finds the joins an event must keep dead, see
    /// [`ParamMonitor::push_event`]).
    value_index: bool,
    /// The parameters whose (parameter, value) pairs `by_value` keeps: those of end-of-life
    /// events, and those through which an event's new binding can make joins it must keep
    /// dead (see [`inert_lookups`]). (PERF: UnsafeMapIterator kept every binding of a map
    /// and of a collection in one growing set per object, though only iterators die.)
    value_params: u32,
    /// The parameters p that have a pattern domain {p} of their own: the exact entries of that
    /// domain's index already list every binding holding a value of p (but the binding {p ↦ v}
    /// itself, found by key), so `by_value` does not keep them twice (see
    /// [`ParamMonitor::holders`]). (PERF: UnsafeMapIterator's iterators sat in both, a table
    /// of 10⁶ entries and an insertion per binding more; a quarter of its memory.)
    own_domain: u32,
    /// Per event name: what it means to this property.
    kinds: FxHashMap<Box<str>, Rc<Kind>>,
    /// Reused buffers.
    key: Vec<Value>,
    search: Search,
    ended: Vec<(usize, Value)>,
    holding: Vec<u32>,
    /// Set when every pattern is `name(x)` with the same parameter x (see [`OneObject`]);
    /// then `store` holds only ⊥, and the other bindings live here.
    one: Option<OneObject>,
    /// Order and inequality constraints between parameters (see
    /// [`ParamMonitor::with_constraints`]).
    constraints: Option<ConstraintCheck>,
    /// By machine symbol: whether its events may start a binding from ⊥ (`None`: all may;
    /// see [`ParamMonitor::with_creators`]).
    creators: Option<Vec<bool>>,
    /// With creation events, the masks a binding seen can have (see [`Pruning::seeable`]):
    /// the search for the largest binding seen below another looks up no other. (PERF:
    /// UnsafeMapIterator's `createColl(m, c)` looked up (m) and (c), which no event creates,
    /// twice per event.)
    seeable: Vec<u32>,
}

/// The bindings of a property whose every event pattern is `name(x)` for one parameter x.
/// The bindings seen are then ⊥ and {x ↦ v} for objects v; an event on v updates exactly
/// {x ↦ v} (σ ⊔ ⊥), which starts from ⊥'s state, the machine's start (no event updates ⊥).
/// Algorithm A reduces to one map lookup per event (PERF: HasNext at 10⁶ live iterators
/// spent about 1,300 instructions and several cache misses per event in the general
/// indexes; a map slot here is 24 bytes, against about 200 per binding there).
#[derive(Debug)]
struct OneObject {
    param: usize,
    /// Machine state by object (see [`state_code`]; a binding kept dead without creation
    /// events has a code too).
    states: FxHashMap<Value, u32>,
}

/// The bindings seen that bind a parameter outside one pattern domain, by their restriction to
/// it. An event whose matcher σ has this domain updates σ ⊔ t for each such t whose
/// restriction is a sub-binding of σ.
///
/// Restrictions are kept as their hashes, not as keys: an index entry then costs no
/// allocation (a binding of three parameters sits in up to four indexes). A collision only
/// makes an event visit a binding it need not: visiting checks that t agrees with σ, and
/// σ ⊔ t for any t that agrees with σ is a binding Algorithm A updates anyway (an index only
/// saves looking at the others).
#[derive(Debug)]
struct DomainIndex {
    dom: u32,
    /// Those that bind every parameter of the domain: their restriction is the σ they extend,
    /// and every one of them is updated by σ.
    exact: Entries,
    /// Those that bind only some of it, then by machine state: RV-Monitor's enable sets. Such
    /// a t only ever gives a *new* binding σ ⊔ t, and with creation events a new binding is
    /// created only when the state of its largest sub-binding seen can take σ's event. That
    /// sub-binding is itself one of these t (it contains t and is contained in σ ⊔ t), so only
    /// the states that can take the event need visiting, not every t.
    partial: FxHashMap<u64, StateBuckets>,
    /// By machine symbol, what creation events make pointless to look up for an event of this
    /// domain, whatever the trace (see [`live_states`]): `own` when its σ is never a live
    /// binding (so not even whether σ was seen is looked up); `partial`, the restrictions whose
    /// entries never hold a binding whose state can take the event.
    inert: Vec<Inert>,
}

/// See [`DomainIndex::inert`].
#[derive(Debug, Default, Clone)]
struct Inert {
    own: bool,
    partial: Vec<u32>,
    /// `own`, and every restriction but the domain itself is in `partial`: the event then
    /// creates no binding, and updates exactly the bindings of the `exact` entry of its σ
    /// (see [`ParamMonitor::step_exact`]).
    exact_only: bool,
}

/// Ids by machine state (`None`: dead); a handful of states per entry.
type StateBuckets = Vec<(Option<usize>, Ids)>;

impl DomainIndex {
    fn new(dom: u32) -> DomainIndex {
        DomainIndex {
            dom,
            exact: Entries::default(),
            partial: FxHashMap::default(),
            inert: Vec::new(),
        }
    }

    /// Whether a binding with parameters `mask` is indexed here.
    fn holds(&self, mask: u32) -> bool {
        mask & !self.dom != 0
    }

    /// Adds the binding `id` with key `key` (bound outside the domain) in state `state`.
    fn add(&mut self, key: &[Value], id: u32, state: Option<usize>) {
        let (hash, kept) = hash_restricted(key, self.dom);
        if kept == self.dom {
            self.exact.add(hash, id);
            return;
        }
        let buckets = self.partial.entry(hash).or_default();
        match buckets.iter_mut().find(|(s, _)| *s == state) {
            Some((_, ids)) => ids.push(id),
            None => buckets.push((state, Ids::One(id))),
        }
    }

    fn remove(&mut self, key: &[Value], id: u32, state: Option<usize>) {
        let (hash, kept) = hash_restricted(key, self.dom);
        if kept == self.dom {
            self.exact.remove(hash, id);
            return;
        }
        let Some(buckets) = self.partial.get_mut(&hash) else {
            return;
        };
        if let Some(k) = buckets.iter().position(|(s, _)| *s == state) {
            if buckets[k].1.remove(id) {
                buckets.swap_remove(k);
                if buckets.is_empty() {
                    self.partial.remove(&hash);
                }
            }
        }
    }
}

/// What an event name means to a monitor, looked up once per name
/// ([`ParamMonitor::event_kind`]) and given back with each event
/// ([`ParamMonitor::push_kind`]), so that a caller with interned names looks nothing up per
/// event. Valid for the monitor that made it, once it is built.
#[derive(Clone, Debug)]
pub struct EventKind(Rc<Kind>);

impl EventKind {
    /// Whether events of this name concern the monitor: its machine reads them, or they end
    /// objects' lives.
    pub fn declared(&self) -> bool {
        self.0.symbol.is_some() || !self.0.patterns.is_empty() || !self.0.ends.is_empty()
    }
}

/// What an event name means to a property.
#[derive(Debug, Default)]
struct Kind {
    /// Indices of the patterns with this name.
    patterns: Vec<usize>,
    /// When there is one pattern and its arguments are distinct variables: (parameter,
    /// argument position), by parameter — the event's matcher is then read off directly.
    direct: Option<Positions>,
    /// The machine's symbol, if the machine reads this event.
    symbol: Option<usize>,
    /// With `direct`: the index of its σ's domain.
    index: Option<usize>,
    /// The end-of-life patterns with this name: index, and (parameter, argument position)
    /// when its arguments are distinct variables (the objects are then read off directly).
    ends: Vec<(usize, Option<Positions>)>,
}

/// Writes the key of `key` restricted to the parameters in `to` into `out`.
fn restrict_into(key: &[Value], to: u32, out: &mut Vec<Value>) {
    let mask = mask_of(key);
    out.clear();
    out.push(Value::Int(i64::from(mask & to)));
    let mut bits = mask;
    let mut k = 1;
    while bits != 0 {
        let p = bits.trailing_zeros();
        if to >> p & 1 == 1 {
            out.push(key[k]);
        }
        bits &= bits - 1;
        k += 1;
    }
}

/// Writes the least upper bound of `a` and `b` (not injective) into `out`; `false` if they
/// disagree on a parameter (⊤).
fn join_into(a: &[Value], b: &[Value], out: &mut Vec<Value>) -> bool {
    let (ma, mb) = (mask_of(a), mask_of(b));
    out.clear();
    out.push(Value::Int(i64::from(ma | mb)));
    let (mut i, mut j) = (1, 1);
    let mut bits = ma | mb;
    while bits != 0 {
        let p = bits.trailing_zeros();
        let (in_a, in_b) = (ma >> p & 1 == 1, mb >> p & 1 == 1);
        match (in_a, in_b) {
            (true, true) => {
                if a[i] != b[j] {
                    return false;
                }
                out.push(a[i]);
                i += 1;
                j += 1;
            }
            (true, false) => {
                out.push(a[i]);
                i += 1;
            }
            _ => {
                out.push(b[j]);
                j += 1;
            }
        }
        bits &= bits - 1;
    }
    true
}

/// Whether the binding `key` contains `sub` (binds its parameters to its values).
fn contains(key: &[Value], sub: &[Value]) -> bool {
    let (mask, of) = (mask_of(key), mask_of(sub));
    if of & !mask != 0 {
        return false;
    }
    let mut bits = of;
    sub[1..].iter().all(|v| {
        let p = bits.trailing_zeros();
        bits &= bits - 1;
        value_at(key, mask, p) == *v
    })
}

/// The submasks of `mask`, largest first (by enumeration order, not size).
fn submasks(mask: u32) -> impl Iterator<Item = u32> {
    let mut next = Some(mask);
    std::iter::from_fn(move || {
        let m = next?;
        next = (m != 0).then(|| (m - 1) & mask);
        Some(m)
    })
}

fn encode(b: &[(usize, Value)], out: &mut Vec<Value>) {
    out.clear();
    out.push(Value::Int(b.iter().fold(0i64, |m, p| m | 1 << p.0)));
    out.extend(b.iter().map(|p| p.1));
}

fn decode(key: &[Value]) -> Binding {
    Binding::Map(pairs(key).collect())
}

/// A key's (parameter, value) pairs, in parameter order.
fn pairs(key: &[Value]) -> impl Iterator<Item = (usize, Value)> + '_ {
    let mut bits = mask_of(key);
    key[1..].iter().map(move |&v| {
        let p = bits.trailing_zeros() as usize;
        bits &= bits - 1;
        (p, v)
    })
}

/// Adds the new binding `key` to the event's updates, once; `below` is the id of a seen
/// binding below it (the t it joins).
fn push_new(updated: &mut Vec<Step>, key: &[Value], below: u32) {
    if !updated
        .iter()
        .any(|st| matches!(&st.binding, Updated::New(k, _) if k[..] == *key))
    {
        updated.push(Step::new(Updated::New(key.into(), below)));
    }
}

/// The buffers of an event's search for the bindings it updates, taken from the monitor for
/// the event and put back after it (PERF: reused across events, so that an event that
/// creates no binding allocates nothing).
#[derive(Default)]
struct Search {
    /// The bindings updated, once each.
    updated: Vec<Step>,
    /// The ids of the bindings seen among them.
    seen_ids: Vec<u32>,
    /// A join σ ⊔ t, looked up by key.
    joined: Vec<Value>,
    /// The sub-bindings looked up for a binding's source state.
    sub: Vec<Value>,
}

/// A binding the current event updates, with the state it leaves and the state it enters.
struct Step {
    binding: Updated,
    from: Option<usize>,
    to: Option<usize>,
}

impl Step {
    fn new(binding: Updated) -> Step {
        Step {
            binding,
            from: None,
            to: None,
        }
    }
}

/// A binding the current event updates: one seen (its id), or a new one (its key, and the
/// id of a seen binding below it).
enum Updated {
    Seen(u32),
    New(Box<[Value]>, u32),
}

/// The largest parameter number a property may use (keys hold the parameters as a bit mask).
pub const MAX_PARAMETERS: usize = 31;

impl ParamMonitor {
    /// `patterns` give each event name its parameters (one pattern per name). Parameters are
    /// numbered below [`MAX_PARAMETERS`] (the `.rvm` reader checks it).
    pub fn new(patterns: Vec<Pattern>, fsm: Fsm) -> ParamMonitor {
        let mut domains: Vec<u32> = patterns
            .iter()
            .map(|p| {
                p.args.iter().fold(0u32, |m, t| match t {
                    Term::Var(x) => m | 1 << x,
                    _ => m,
                })
            })
            .collect();
        domains.sort_unstable();
        domains.dedup();
        // The largest binding joins every domain.
        let all_parameters = domains.iter().fold(0, |all, d| all | d);
        let one = match domains[..] {
            [dom]
                if dom.count_ones() == 1
                    && patterns
                        .iter()
                        .all(|p| matches!(p.args[..], [Term::Var(_)])) =>
            {
                Some(OneObject {
                    param: dom.trailing_zeros() as usize,
                    states: FxHashMap::default(),
                })
            }
            _ => None,
        };
        let Pruning {
            inert,
            outside: outside_params,
            seeable,
        } = inert_lookups(&patterns, &fsm, &domains);
        let mut m = ParamMonitor {
            patterns,
            fsm,
            end_events: Vec::new(),
            creation: false,
            skipped: 0,
            events: 0,
            store: Bindings::new(all_parameters.count_ones() as usize),
            all_parameters,
            index: domains
                .into_iter()
                .zip(inert)
                .map(|(dom, inert)| DomainIndex {
                    inert,
                    ..DomainIndex::new(dom)
                })
                .collect(),
            full_scan: false,
            by_value: FxHashMap::default(),
            verdict_without: Vec::new(),
            value_index: false,
            value_params: outside_params,
            own_domain: 0,
            kinds: FxHashMap::default(),
            key: Vec::new(),
            search: Search::default(),
            ended: Vec::new(),
            holding: Vec::new(),
            one,
            constraints: None,
            seeable,
            creators: None,
        };
        m.value_index = m.index.len() > 1;
        m.own_domain = m
            .index
            .iter()
            .filter(|ix| ix.dom.count_ones() == 1)
            .fold(0, |acc, ix| acc | ix.dom);
        let start = m.fsm.start;
        m.insert(&[Value::Int(0)], Some(start));
        m
    }

    /// Checks that the parameters fit the monitor's keys.
    pub fn check_parameters(patterns: &[Pattern]) -> Result<(), Error> {
        for p in patterns {
            for t in &p.args {
                if let Term::Var(x) = t {
                    if *x >= MAX_PARAMETERS {
                        return Err(Error::msg(format!(
                            "a property has at most {MAX_PARAMETERS} parameters"
                        )));
                    }
                }
            }
        }
        Ok(())
    }

    /// Events that end objects' lives (`end event dispose(i)`): when one occurs, the bindings
    /// of the dead objects are freed unless one of them can still reach a verdict (see
    /// [`ParamMonitor::end_object`]); memory then follows the live objects.
    pub fn with_end_events(mut self, patterns: Vec<Pattern>) -> ParamMonitor {
        self.end_events = patterns;
        let params = self
            .patterns
            .iter()
            .chain(&self.end_events)
            .flat_map(|p| &p.args)
            .filter_map(|t| match t {
                Term::Var(x) => Some(x + 1),
                _ => None,
            })
            .max()
            .unwrap_or(0);
        self.verdict_without = (0..params)
            .map(|param| {
                let allowed: Vec<bool> = (0..self.fsm.symbols.len())
                    .map(|s| {
                        !self.patterns.iter().any(|p| {
                            p.name == self.fsm.symbols[s] && p.args.contains(&Term::Var(param))
                        })
                    })
                    .collect();
                verdict_reachable(&self.fsm, &allowed)
            })
            .collect();
        self.kinds.clear();
        let ended = self
            .end_events
            .iter()
            .flat_map(|p| &p.args)
            .fold(0u32, |m, t| match t {
                Term::Var(x) => m | 1 << x,
                _ => m,
            });
        if ended & !self.value_params != 0 || (!self.end_events.is_empty() && !self.value_index) {
            self.value_params |= ended;
            self.value_index = true;
            self.by_value.clear();
            for id in self.store.ids() {
                self.index_values(id);
            }
        }
        self
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

    /// JavaMOP's marked creation events (`creation event create(c, i)`): only events named in
    /// `names` start a binding from nothing (one whose largest sub-binding seen is ⊥); the
    /// others only extend bindings that exist, as `createIter(c, i)` extends a `(m, c)`
    /// created by `createColl(m, c)`. With no names, every event may (as before). Implies
    /// creation events ([`ParamMonitor::with_creation_events`]): a marked event, too, starts a
    /// binding only when the machine can take it. Call it before the first event.
    pub fn with_creators(mut self, names: &[String]) -> ParamMonitor {
        assert!(self.events == 0, "called before the first event");
        self.creation = true;
        if !names.is_empty() {
            let marked = self.fsm.symbols.iter().map(|s| names.contains(s)).collect();
            self.creators = Some(marked);
        }
        self
    }

    /// Algorithm A with constraints (paper 03, §4): only bindings that can be extended to a
    /// solution of `c` (order constraints `x < y`, `x <= y` and inequalities `x != y` between
    /// parameters, over a dense order) are monitored. The others are never created, so they
    /// report nothing and cost nothing; the bindings that are monitored reach the states and
    /// verdicts they reach without constraints. (Each sub-binding of an admitted binding is
    /// admitted, so the bindings seen below an admitted one, their join included, are those
    /// of the run without constraints, and so is its state; a binding not admitted only ever
    /// gives joins that are not admitted either.) With end-of-life events more may be freed
    /// than without constraints (see [`ParamMonitor::end_object`]: all or none of an object's
    /// bindings, and fewer of them here), which changes no verdict while the trace keeps the
    /// end event's promise. Call it before the first event.
    pub fn with_constraints(mut self, c: &Constraints) -> ParamMonitor {
        assert!(self.events == 0, "called before the first event");
        if c.order.is_empty() && c.distinct.is_empty() {
            return self;
        }
        // A constraint between parameters needs bindings of more than one (the one-object
        // map holds {x ↦ v} only).
        self.one = None;
        self.constraints = Some(c.check());
        self
    }

    /// Whether the binding `key` can be extended to a solution of the constraints.
    fn admits(&self, key: &[Value]) -> bool {
        let Some(c) = &self.constraints else {
            return true;
        };
        let mask = mask_of(key);
        c.admits_values(|p| (p < 32 && mask >> p & 1 == 1).then(|| value_at(key, mask, p as u32)))
    }

    /// Turns the enable-set pruning off: every partial binding of an index is visited, as
    /// before it existed; and the shortcuts of creation events (an unseen σ that dies at once
    /// is not built; a new binding of every parameter starts no search for joins above it).
    /// The verdicts are the same; this is the reference the property tests compare with.
    #[doc(hidden)]
    pub fn with_full_scan(mut self) -> ParamMonitor {
        self.full_scan = true;
        self
    }

    /// Makes every restriction share one entry of each index's exact entries, as if all
    /// their hashes collided: every lookup then returns every binding indexed. Verdicts must
    /// not change (see [`crate::ids::Entries`]); the property tests check it. Call it before
    /// the first event.
    #[doc(hidden)]
    pub fn with_colliding_index_entries(mut self) -> ParamMonitor {
        assert!(self.events == 0, "called before the first event");
        for index in &mut self.index {
            index.exact = std::mem::take(&mut index.exact).colliding();
        }
        self
    }

    /// Whether every event of the property binds the same one parameter, so that it runs on
    /// a map from object to state instead of the general indexes (see [`OneObject`]).
    pub fn is_one_object(&self) -> bool {
        self.one.is_some()
    }

    /// Monitors one-parameter properties with the general indexes too, instead of
    /// [`OneObject`]'s map (same verdicts; the reference the property tests compare with).
    /// Call it before the first event.
    #[doc(hidden)]
    pub fn with_general_indexes(mut self) -> ParamMonitor {
        assert!(
            self.one.as_ref().is_none_or(|one| one.states.is_empty()),
            "called before the first event"
        );
        self.one = None;
        self
    }

    /// Calls `mark` with every interned string the monitor holds (the objects of its live
    /// bindings), so that the caller can free the others between two events
    /// ([`rvmon_core::Interner::collect`]). Freed bindings' slots are skipped: their objects
    /// are dead unless a live binding holds them too.
    /// Returns the size of the walk.
    pub fn mark_strings(&self, mark: &mut dyn FnMut(rvmon_core::Sym)) -> usize {
        let mut walked = 0;
        let mut value = |v: &Value| {
            walked += 1;
            if let Value::Str(s) = v {
                mark(*s);
            }
        };
        for id in self.store.ids() {
            // (A key starts with its mask, an integer.)
            self.store
                .key(id)
                .into_iter()
                .flatten()
                .for_each(&mut value);
        }
        self.by_value.keys().for_each(|(_, v)| value(v));
        if let Some(one) = &self.one {
            one.states.keys().for_each(&mut value);
        }
        walked
    }

    /// What events named `name` mean to this monitor (see [`EventKind`]; whether they concern
    /// it at all is [`EventKind::declared`]).
    pub fn event_kind(&mut self, name: &str) -> EventKind {
        EventKind(self.kind(name))
    }

    fn kind(&mut self, name: &str) -> Rc<Kind> {
        if let Some(k) = self.kinds.get(name) {
            return k.clone();
        }
        let patterns: Vec<usize> = (0..self.patterns.len())
            .filter(|&i| self.patterns[i].name == name)
            .collect();
        let direct = match patterns[..] {
            [p] => variable_positions(&self.patterns[p]),
            _ => None,
        };
        let index = direct.as_ref().and_then(|vars| {
            let dom = vars.iter().fold(0u32, |m, v| m | 1 << v.0);
            self.index.iter().position(|ix| ix.dom == dom)
        });
        let kind = Rc::new(Kind {
            index,
            direct,
            symbol: self.fsm.symbol(name),
            ends: (0..self.end_events.len())
                .filter(|&i| self.end_events[i].name == name)
                .map(|i| (i, variable_positions(&self.end_events[i])))
                .collect(),
            patterns,
        });
        self.kinds.insert(name.into(), kind.clone());
        kind
    }

    fn insert(&mut self, key: &[Value], state: Option<usize>) -> u32 {
        let id = self.store.insert(key, state);
        let mask = mask_of(key);
        for index in self.index.iter_mut().filter(|ix| ix.holds(mask)) {
            index.add(key, id, state);
        }
        if self.value_index {
            self.index_values(id);
        }
        id
    }

    fn index_values(&mut self, id: u32) {
        let indexed = self.value_params & !self.own_domain;
        let Some(key) = self.store.key(id).filter(|k| mask_of(k) & indexed != 0) else {
            return;
        };
        for pair in pairs(key).filter(|p| indexed >> p.0 & 1 == 1) {
            self.by_value
                .entry(pair)
                .and_modify(|ids| ids.push(id))
                .or_insert(Ids::One(id));
        }
    }

    /// Appends to `out` every binding seen that holds `value` for `param` (a parameter of
    /// `value_params`): from `by_value`, or, for a parameter with a pattern domain of its own,
    /// from that domain's index (whose entries are keyed by hash, so each is checked) and the
    /// binding {param ↦ value} itself.
    fn holders(&self, param: usize, value: Value, out: &mut Vec<u32>) {
        if self.own_domain >> param & 1 == 0 {
            if let Some(ids) = self.by_value.get(&(param, value)) {
                ids.for_each(|id| out.push(id));
            }
            return;
        }
        let own = [Value::Int(1 << param), value];
        out.extend(self.store.find(&own));
        let index = self
            .index
            .iter()
            .find(|ix| ix.dom == 1 << param)
            .expect("a domain of its own");
        index.exact.for_each(hash_key(&own), |id| {
            let holds = self
                .store
                .key(id)
                .is_some_and(|k| pairs(k).any(|pair| pair == (param, value)));
            if holds {
                out.push(id);
            }
        });
    }

    /// The object bound to `param` as `value` is dead: no later event mentions it. Its
    /// bindings are freed, all of them, unless one can still reach a verdict by events that
    /// do not mention it (`create(c,i) update(c)`, then `c` dies: `next(i)` is still a
    /// violation). That is RV-Monitor's coenable-set reasoning. Freeing all or none keeps
    /// the bindings seen join-closed. When all are freed, no binding that contains the
    /// object remains, and no event can create one. A kept binding stays until another of
    /// its objects dies.
    pub fn end_object(&mut self, param: usize, value: Value) {
        if let Some(one) = &mut self.one {
            // Only {x ↦ value} contains the object.
            if param != one.param {
                return;
            }
            if let Some(&code) = one.states.get(&value) {
                let reach = self.verdict_without.get(param);
                if !code_state(code).is_some_and(|q| reach.is_some_and(|r| r[q])) {
                    one.states.remove(&value);
                }
            }
            return;
        }
        let mut ids = std::mem::take(&mut self.holding);
        ids.clear();
        self.holders(param, value, &mut ids);
        let needed = self.verdict_without.get(param).is_some_and(|reach| {
            ids.iter()
                .any(|&id| self.store.state(id).is_some_and(|q| reach[q]))
        });
        if ids.is_empty() || needed {
            self.holding = ids;
            return;
        }
        self.by_value.remove(&(param, value));
        for &id in &ids {
            let Some(k) = self.store.key(id) else {
                continue;
            };
            let mut key = std::mem::take(&mut self.key);
            key.clear();
            key.extend_from_slice(k);
            let state = self.store.state(id);
            self.store.remove(id);
            let mask = mask_of(&key);
            for index in self.index.iter_mut().filter(|ix| ix.holds(mask)) {
                index.remove(&key, id, state);
            }
            let indexed = self.value_params & !self.own_domain;
            for pair in pairs(&key).filter(|p| *p != (param, value) && indexed >> p.0 & 1 == 1) {
                if let Some(list) = self.by_value.get_mut(&pair) {
                    if list.remove(id) {
                        self.by_value.remove(&pair);
                    }
                }
            }
            self.key = key;
        }
        self.holding = ids;
    }

    /// Sets the state of a binding seen, moving it between its indexes' state buckets.
    fn set_state(&mut self, id: u32, to: Option<usize>) {
        let from = self.store.state(id);
        if from == to {
            return;
        }
        self.store.set_state(id, to);
        let key = self.store.key(id).expect("a live id has a key");
        let mask = mask_of(key);
        for index in self.index.iter_mut().filter(|ix| ix.holds(mask)) {
            if mask & index.dom != index.dom {
                index.remove(key, id, from);
                index.add(key, id, to);
            }
        }
    }

    /// The state of the largest binding seen below `key`: the largest of its sub-bindings
    /// that was seen (the set seen is join-closed, so that is the join of all seen below it).
    fn source_state(&self, key: &[Value], buf: &mut Vec<Value>) -> Option<usize> {
        match self.store.find(key) {
            Some(id) => self.store.state(id),
            None => self.store.state(self.largest_below(key, 0, buf)),
        }
    }

    /// The largest binding seen below `key` (its id), which is not seen itself, knowing
    /// that the binding `below` (an id) is seen below it. The largest one is the join of all
    /// seen below `key` (the set seen is join-closed), so it contains `below`: only the
    /// sub-bindings that do are looked up, largest first, so the first found is the largest,
    /// and `below` itself is the last. (PERF: a new (m, c, i) joined from (m, c) takes (m, c)'s
    /// state without a lookup; in numeric order over every sub-binding it looked up four
    /// others first.)
    fn largest_below(&self, key: &[Value], below: u32, buf: &mut Vec<Value>) -> u32 {
        let floor = mask_of(self.store.key(below).expect("a binding seen below"));
        let rest = mask_of(key) & !floor;
        let pruned = self.creation && !self.full_scan;
        for size in (1..rest.count_ones()).rev() {
            for sub in submasks(rest).filter(|s| s.count_ones() == size) {
                if pruned && self.seeable.binary_search(&(floor | sub)).is_err() {
                    continue;
                }
                restrict_into(key, floor | sub, buf);
                if let Some(id) = self.store.find(buf) {
                    return id;
                }
            }
        }
        below
    }

    /// Whether events of machine symbol `sym` may start a binding from nothing (from ⊥): all
    /// of them, unless the property marks its creation events (see
    /// [`ParamMonitor::with_creators`]).
    fn starts(&self, sym: usize) -> bool {
        self.creators.as_ref().is_none_or(|marked| marked[sym])
    }

    /// The states `steps` leave (a new binding's is its largest sub-binding's) and enter on
    /// symbol `sym`. A new binding with only ⊥ below it enters none (it is not created)
    /// unless `sym` may start one.
    fn settle(&self, steps: &mut [Step], sym: usize, buf: &mut Vec<Value>) {
        for st in steps {
            let (from, starts) = match &st.binding {
                Updated::Seen(id) => (self.store.state(*id), true),
                Updated::New(k, below) => {
                    let below = self.largest_below(k, *below, buf);
                    (self.store.state(below), below != 0 || self.starts(sym))
                }
            };
            st.from = from;
            st.to = from.filter(|_| starts).and_then(|s| self.fsm.delta[s][sym]);
        }
    }

    /// The machine state of any binding (looked up as in Algorithm A).
    pub fn state_of(&self, theta: &Binding) -> Option<usize> {
        let Binding::Map(m) = theta else {
            return None; // ⊤: no event's slice
        };
        if let Some(one) = &self.one {
            // The largest binding seen below θ: {x ↦ v} if seen, else ⊥.
            let object = m.iter().find(|p| p.0 == one.param);
            return match object.and_then(|p| one.states.get(&p.1)) {
                Some(&code) => code_state(code),
                None => Some(self.fsm.start),
            };
        }
        let (mut key, mut buf) = (Vec::new(), Vec::new());
        encode(m, &mut key);
        if !self.admits(&key) {
            return None; // not monitored: no solution of the constraints
        }
        self.source_state(&key, &mut buf)
    }

    pub fn bindings(&self) -> usize {
        self.store.len() + self.one.as_ref().map_or(0, |one| one.states.len())
    }

    /// The bindings seen (and not freed).
    pub fn seen(&self) -> Vec<Binding> {
        // (⊥ is kept whatever the constraints; with inconsistent ones it is no solution.)
        let mut seen: Vec<Binding> = self
            .store
            .ids()
            .filter_map(|id| self.store.key(id).filter(|k| self.admits(k)).map(decode))
            .collect();
        if let Some(one) = &self.one {
            seen.extend(
                one.states
                    .keys()
                    .map(|&v| Binding::Map(vec![(one.param, v)])),
            );
        }
        seen
    }

    /// Whether `key` is the join of bindings seen (its proper sub-bindings seen join to it):
    /// then it must be kept, even dead, or the set seen would not be join-closed and its
    /// lookups would have two largest sub-bindings to choose from.
    fn needed(&self, key: &[Value], buf: &mut Vec<Value>) -> bool {
        let full = mask_of(key);
        let covered = submasks(full)
            .filter(|&s| s != full)
            .filter(|&s| {
                restrict_into(key, s, buf);
                self.store.find(buf).is_some()
            })
            .fold(0, |acc, s| acc | s);
        covered == full
    }

    /// How many bindings creation-event semantics declined to create among those it
    /// considered. With [`ParamMonitor::with_full_scan`] it considers every join, and 0 then
    /// means the run equals pure slicing; enable sets never consider most of them.
    pub fn skipped(&self) -> u64 {
        self.skipped
    }

    /// Feeds one event; appends the verdicts it produces.
    pub fn push(&mut self, e: &Event, out: &mut Vec<Report>) {
        self.push_event(&e.name, &e.args, out);
    }

    /// [`ParamMonitor::push`] without building an [`Event`].
    pub fn push_event(&mut self, name: &str, args: &[Value], out: &mut Vec<Report>) {
        let kind = EventKind(self.kind(name));
        self.push_kind(&kind, name, args, out);
    }

    /// [`ParamMonitor::push_event`] with the name's kind looked up already (PERF: a hash of
    /// the name per event and property was about 100 instructions, 5 % of HasNext).
    ///
    /// Algorithm A with creation events, in steps: end events (`end_objects_of`); the
    /// event's matchers σ (`matchers_into`); the search for the bindings they update
    /// (`find_updates`); applying the updates and reporting (`apply_updates`).
    pub fn push_kind(
        &mut self,
        kind: &EventKind,
        name: &str,
        args: &[Value],
        out: &mut Vec<Report>,
    ) {
        let i = self.events;
        self.events += 1;
        let kind = &kind.0;
        if !kind.ends.is_empty() && self.end_objects_of(kind, name, args) {
            return;
        }
        let Some(sym) = kind.symbol else {
            return;
        };
        if self
            .constraints
            .as_ref()
            .is_some_and(|c| !c.is_consistent())
        {
            return; // no binding, ⊥ included, is a solution: nothing is monitored
        }
        if self.one.is_some() {
            if !kind.patterns.is_empty() {
                self.push_one_object(sym, args, out);
            }
            return;
        }
        // Σ: the event's matchers, as keys.
        let mut sigmas: Vec<Vec<Value>> = Vec::new();
        let mut key = std::mem::take(&mut self.key);
        if !self.matchers_into(kind, name, args, &mut key, &mut sigmas) {
            self.key = key;
            return;
        }
        if let (Some(at), true) = (kind.index, self.creation && !self.full_scan) {
            if self.index[at].inert.get(sym).is_some_and(|x| x.exact_only) {
                self.step_exact(at, &key, sym, out);
                self.key = key;
                return;
            }
        }
        // The bindings updated: σ ⊔ t for every t seen that σ can extend. (Buffers are
        // reused across events: an event that creates no binding allocates nothing.)
        let mut search = std::mem::take(&mut self.search);
        let own = kind.direct.is_some().then_some(&key[..]);
        let own_skipped = self.find_updates(sym, own, &sigmas, &mut search);
        self.skipped += u64::from(own_skipped);
        self.key = key;
        self.apply_updates(i, &mut search, out);
        self.search = search;
    }

    /// An end event: the objects it names die ([`ParamMonitor::end_object`]). Returns
    /// whether it named any; the event is then not monitored further.
    fn end_objects_of(&mut self, kind: &Kind, name: &str, args: &[Value]) -> bool {
        // PERF: a buffer reused across events, and patterns of distinct variables read
        // off without building a binding (`dispose(i)` goes to every property).
        let mut ended = std::mem::take(&mut self.ended);
        ended.clear();
        for (p, vars) in &kind.ends {
            let pattern = &self.end_events[*p];
            match vars {
                Some(vars) if args.len() == pattern.args.len() => {
                    ended.extend(vars.iter().map(|&(x, pos)| (x, args[pos])));
                }
                Some(_) => {}
                None => {
                    if let Binding::Map(m) = pattern.match_parts(name, args, false) {
                        ended.extend(m);
                    }
                }
            }
        }
        let any = !ended.is_empty();
        for &(param, value) in &ended {
            self.end_object(param, value);
        }
        self.ended = ended;
        any
    }

    /// The event's matchers σ, as keys. A pattern of distinct variables (`kind.direct`) has
    /// one σ, read off the arguments into `key` (the event's own σ, found through its
    /// domain's index); otherwise every matcher goes into `sigmas`, and `key` is left empty.
    /// `false` when the event does not fit its direct pattern (no σ: nothing to do).
    fn matchers_into(
        &self,
        kind: &Kind,
        name: &str,
        args: &[Value],
        key: &mut Vec<Value>,
        sigmas: &mut Vec<Vec<Value>>,
    ) -> bool {
        match &kind.direct {
            Some(vars) => {
                if vars.iter().any(|&(_, pos)| pos >= args.len())
                    || args.len() != self.patterns[kind.patterns[0]].args.len()
                {
                    return false;
                }
                key.clear();
                key.push(Value::Int(vars.iter().fold(0i64, |m, v| m | 1 << v.0)));
                key.extend(vars.iter().map(|&(_, pos)| args[pos]));
            }
            None => {
                let own = kind.patterns.iter().map(|&p| &self.patterns[p]);
                for b in matchers_of(own, name, args, false) {
                    if let Binding::Map(m) = b {
                        let mut k = Vec::new();
                        encode(&m, &mut k);
                        sigmas.push(k);
                    }
                }
                key.clear();
            }
        }
        true
    }

    /// Finds the bindings the event's σs (`own`, then `sigmas`) update on symbol `sym`, into
    /// `search.updated`, settled (the states they leave and enter): σ ⊔ t for every binding
    /// t seen that σ can extend ([`ParamMonitor::visit_sigma`]). Returns whether the own σ
    /// was skipped without being built (see [`ParamMonitor::own_dies`]).
    ///
    /// Enable sets (see [`DomainIndex::partial`]) are exact as long as the event creates
    /// no live binding: a binding it would kill at once is only kept (dead) when it is the
    /// join of bindings seen, and only a binding created now can make it one. When one is
    /// created, the bindings that can make such joins are visited too: those holding its
    /// values outside σ ([`ParamMonitor::keep_dead_joins`]), or else every binding, by a
    /// second visit without pruning (the retry below).
    fn find_updates(
        &mut self,
        sym: usize,
        own: Option<&[Value]>,
        sigmas: &[Vec<Value>],
        search: &mut Search,
    ) -> bool {
        let mut prune = self.creation && !self.full_scan;
        let skip_own = self.creation && !self.full_scan && own.is_some();
        debug_assert_eq!(self.store.key(0), Some(&[Value::Int(0)][..]), "⊥ is id 0");
        loop {
            search.updated.clear();
            search.seen_ids.clear();
            let mut own_skipped = false;
            for sigma in own.into_iter().chain(sigmas.iter().map(Vec::as_slice)) {
                own_skipped |= self.visit_sigma(sigma, sym, prune, skip_own, search);
            }
            // Every source state is read before any is updated.
            self.settle(&mut search.updated, sym, &mut search.sub);
            if !prune {
                return own_skipped;
            }
            let first = own.or_else(|| sigmas.first().map(Vec::as_slice));
            let dom = first.map_or(0, mask_of);
            let several = sigmas.len() + usize::from(own.is_some()) > 1;
            let (every, outside) = self.made_live(dom, several, &search.updated);
            // (Asked only when needed: most events create no σ of their own.)
            if every && !self.pruned_nothing(dom, sigmas.is_empty() && own.is_some()) {
                prune = false;
                continue;
            }
            if !outside.is_empty() {
                let sigma = first.expect("one σ");
                self.keep_dead_joins(sigma, &outside, sym, search);
            }
            return own_skipped;
        }
    }

    /// Algorithm A for one σ: the bindings t seen that σ can extend are found through the
    /// index of σ's domain, by their restrictions to it (σ's sub-bindings), and σ ⊔ t is
    /// recorded for each ([`ParamMonitor::visit`]). With `prune` (creation events), the
    /// lookups they make pointless are not made ([`Inert`]), and of a partial entry only the
    /// states that can take the event are visited (enable sets). Returns whether σ itself
    /// was skipped (with `skip_own`, for the event's own σ).
    fn visit_sigma(
        &self,
        sigma: &[Value],
        sym: usize,
        prune: bool,
        skip_own: bool,
        search: &mut Search,
    ) -> bool {
        let dom = mask_of(sigma);
        let Some(index) = self.index.iter().find(|ix| ix.dom == dom) else {
            for t in self.store.ids() {
                self.visit(sigma, t, search);
            }
            return false;
        };
        let inert = index.inert.get(sym).filter(|_| prune);
        // The bindings within the domain that σ extends (⊥ among them) all give σ. (A σ
        // that is never live is not even looked up.)
        let own_skipped = skip_own
            && (inert.is_some_and(|x| x.own)
                || (self.store.find(sigma).is_none()
                    && self.own_dies(sigma, sym, &mut search.sub)));
        if !own_skipped {
            self.visit(sigma, 0, search);
        }
        if index.exact.is_empty() && index.partial.is_empty() {
            return own_skipped;
        }
        for s in submasks(dom) {
            if s != dom && inert.is_some_and(|x| x.partial.contains(&s)) {
                continue;
            }
            let (hash, _) = hash_restricted(sigma, s);
            if s == dom {
                index.exact.for_each(hash, |t| self.visit(sigma, t, search));
            } else if let Some(buckets) = index.partial.get(&hash) {
                for (state, ids) in buckets {
                    let enabled = state.is_some_and(|q| self.fsm.delta[q][sym].is_some());
                    if enabled || !prune {
                        ids.for_each(|t| self.visit(sigma, t, search));
                    }
                }
            }
        }
        own_skipped
    }

    /// Whether the event's own σ, unseen, would die at once. PERF: σ starts from its largest
    /// seen sub-binding. When that state cannot take the event, creation events skip σ, and
    /// σ is never kept dead either: it is not the join of bindings seen (its largest one
    /// below is not σ), and every binding this event creates contains σ, so none can make it
    /// one. So it is counted instead of built, settled and checked (UnsafeMapIterator's
    /// `useIter(i)` and `createIter(c, i)`, whose bindings all bind a map too).
    fn own_dies(&self, sigma: &[Value], sym: usize, buf: &mut Vec<Value>) -> bool {
        let below = match mask_of(sigma).count_ones() {
            0 | 1 => 0, // only ⊥ is below (or σ is ⊥, always seen)
            _ => self.largest_below(sigma, 0, buf),
        };
        (below == 0 && !self.starts(sym))
            || self
                .store
                .state(below)
                .is_none_or(|q| self.fsm.delta[q][sym].is_none())
    }

    /// Records the update of σ ⊔ t, for the binding seen `t` (an id): the binding seen that
    /// the join is (once), or a new binding (once; never one with no solution of the
    /// constraints). Nothing when σ and t disagree (the join is ⊤).
    #[inline]
    fn visit(&self, sigma: &[Value], t: u32, search: &mut Search) {
        let Some(tk) = self.store.key(t) else {
            return;
        };
        let joined = &mut search.joined;
        if !join_into(sigma, tk, joined) {
            return;
        }
        // σ ⊑ t (the join binds no more than t): σ ⊔ t is t itself, found by id.
        let found = if joined.len() == tk.len() {
            Some(t)
        } else {
            self.store.find(joined)
        };
        match found {
            Some(id) => {
                if !search.seen_ids.contains(&id) {
                    search.seen_ids.push(id);
                    search.updated.push(Step::new(Updated::Seen(id)));
                }
            }
            // A new binding with no solution of the constraints is never made.
            None => {
                if self.admits(joined) {
                    push_new(&mut search.updated, joined, t);
                }
            }
        }
    }

    /// After a pruned visit, what the live bindings n it creates (among `updated`) require
    /// for the joins σ ⊔ t this event would kill at once: they must be kept (dead) exactly
    /// when some such n lies below them (then they are the join of bindings seen). n ⊆ σ ⊔ t
    /// means that t binds n's parameters outside σ's domain `dom` to n's values, so the
    /// bindings holding one of those values are all the t to visit: one (parameter, value)
    /// per n, the second result. Only when n is σ itself (or patterns give `several` σ) is
    /// every binding to be visited again: the first result.
    fn made_live(&self, dom: u32, several: bool, updated: &[Step]) -> (bool, Vec<(usize, Value)>) {
        let mut outside: Vec<(usize, Value)> = Vec::new();
        let mut every = false;
        for st in updated {
            if let (Updated::New(k, _), Some(_)) = (&st.binding, st.to) {
                // A binding of every parameter has no binding above it but itself, so no
                // join lies above it. (PERF: UnsafeMapIterator's `createIter(c, i)`
                // creates an (m, c, i), and visiting every binding of m found nothing.)
                if mask_of(k) == self.all_parameters && !self.full_scan {
                    continue;
                }
                let extra = mask_of(k) & !dom;
                if extra == 0 || several {
                    every = true;
                } else {
                    let p = extra.trailing_zeros();
                    outside.push((p as usize, value_at(k, mask_of(k), p)));
                }
            }
        }
        (every, outside)
    }

    /// Whether the pruned visit skipped nothing, so that a visit of every binding would find
    /// the same bindings again. PERF: with one σ (`one_own_sigma`) whose index holds no
    /// partial binding, pruning skipped nothing (σ itself was not skipped: it was just
    /// created). (UnsafeMapIterator's `createColl(m, c)`, which creates its σ, made every one
    /// of its lookups twice.)
    fn pruned_nothing(&self, dom: u32, one_own_sigma: bool) -> bool {
        one_own_sigma
            && self
                .index
                .iter()
                .find(|ix| ix.dom == dom)
                .is_some_and(|ix| ix.partial.is_empty())
    }

    /// Adds to the updates, settled, the joins σ ⊔ t this event must keep dead, for the
    /// bindings t that hold one of the (parameter, value) pairs `outside` (see
    /// [`ParamMonitor::made_live`]).
    fn keep_dead_joins(
        &mut self,
        sigma: &[Value],
        outside: &[(usize, Value)],
        sym: usize,
        search: &mut Search,
    ) {
        let before = search.updated.len();
        let mut holding = std::mem::take(&mut self.holding);
        for &(param, value) in outside {
            holding.clear();
            self.holders(param, value, &mut holding);
            for &t in &holding {
                let Some(tk) = self.store.key(t) else {
                    continue;
                };
                if !join_into(sigma, tk, &mut search.joined)
                    || self.store.find(&search.joined).is_some()
                    || !self.admits(&search.joined)
                {
                    // Disagrees with σ, or found already (seen joins are exact). A join that
                    // is no solution of the constraints is not kept dead either: no lookup
                    // of an admitted binding can reach it (it lies below none), so keeping
                    // it would only cost memory.
                    continue;
                }
                push_new(&mut search.updated, &search.joined, t);
            }
        }
        self.holding = holding;
        self.settle(&mut search.updated[before..], sym, &mut search.sub);
    }

    /// Applies the settled updates of event number `event` (draining `search.updated`): each
    /// binding enters its state, a new one is created, and a verdict entered is reported.
    /// With creation events a new binding that would die at once is not created; whether it
    /// must be kept dead is asked once all are applied ([`ParamMonitor::keep_skipped_joins`]).
    fn apply_updates(&mut self, event: usize, search: &mut Search, out: &mut Vec<Report>) {
        let mut skipped = Vec::new();
        for Step {
            binding: u,
            from,
            to,
        } in search.updated.drain(..)
        {
            if self.creation && to.is_none() {
                if let Updated::New(k, _) = u {
                    skipped.push(k);
                    continue;
                }
            }
            let category = self.fsm.category(from, to);
            let id = match u {
                Updated::Seen(id) => {
                    self.set_state(id, to);
                    id
                }
                Updated::New(k, _) => self.insert(&k, to),
            };
            if let Some(category) = category {
                let key = self.store.key(id).expect("just updated");
                out.push(Report {
                    event,
                    binding: decode(key),
                    category,
                });
            }
        }
        self.keep_skipped_joins(skipped, &mut search.joined);
    }

    /// A skipped binding that is the join of bindings seen now (some created just above)
    /// is kept, dead, so that the bindings seen stay join-closed; the others are counted.
    fn keep_skipped_joins(&mut self, skipped: Vec<Box<[Value]>>, buf: &mut Vec<Value>) {
        for k in skipped {
            if self.needed(&k, buf) {
                self.insert(&k, None);
            } else {
                self.skipped += 1;
            }
        }
    }
}

impl ParamMonitor {
    /// [`ParamMonitor::push_kind`] for an event whose σ (`sigma`, of the domain of
    /// `self.index[at]`) creates no binding and is never live itself, by creation events
    /// ([`Inert::exact_only`]): the bindings it updates are those that contain σ and bind
    /// more, which are the `exact` entry of σ's restriction. Algorithm A's other candidates
    /// (σ itself, σ ⊔ t for the bindings t of the partial entries) are the ones creation
    /// events make pointless whatever the trace. (PERF: UnsafeMapIterator's `useIter(i)`,
    /// most of its events, went through the general search: about 900 instructions to step
    /// one binding.)
    fn step_exact(&mut self, at: usize, sigma: &[Value], sym: usize, out: &mut Vec<Report>) {
        let event = self.events - 1;
        // σ itself is considered and not created, as on the general path.
        self.skipped += 1;
        let index = &self.index[at];
        let (hash, _) = hash_restricted(sigma, index.dom);
        let mut ids = std::mem::take(&mut self.holding);
        ids.clear();
        // An entry is keyed by a hash: a binding of another restriction may share it.
        index.exact.for_each(hash, |t| {
            if self.store.key(t).is_some_and(|k| contains(k, sigma)) {
                ids.push(t);
            }
        });
        for &t in &ids {
            let from = self.store.state(t);
            let to = from.and_then(|q| self.fsm.delta[q][sym]);
            let category = self.fsm.category(from, to);
            self.set_state(t, to);
            if let Some(category) = category {
                let key = self.store.key(t).expect("just updated");
                out.push(Report {
                    event,
                    binding: decode(key),
                    category,
                });
            }
        }
        self.holding = ids;
    }

    /// [`ParamMonitor::push_kind`] for a [`OneObject`] property: the event's object is
    /// `args[0]` (its one pattern is `name(x)`), and its binding is the only one updated.
    fn push_one_object(&mut self, sym: usize, args: &[Value], out: &mut Vec<Report>) {
        let i = self.events - 1;
        let starts = self.starts(sym);
        let one = self.one.as_mut().expect("a one-object property");
        let [object] = args else {
            return; // another arity: the pattern does not match
        };
        // One probe of the map: the slot is read and written in place.
        let slot = one.states.get_mut(object);
        let from = slot
            .as_deref()
            .map_or(Some(self.fsm.start), |&c| code_state(c));
        let to = from.and_then(|q| self.fsm.delta[q][sym]);
        match slot {
            Some(code) => *code = state_code(to),
            // Creation events: the new binding would die at once (or its event may not start
            // one), and ⊥ alone is below it (it is not the join of bindings seen), so it is
            // not kept.
            None if self.creation && (to.is_none() || !starts) => {
                self.skipped += 1;
                return;
            }
            None => {
                one.states.insert(*object, state_code(to));
            }
        }
        let category = self.fsm.category(from, to);
        if let Some(category) = category {
            out.push(Report {
                event: i,
                binding: Binding::Map(vec![(one.param, *object)]),
                category,
            });
        }
    }
}

/// (parameter, argument position) pairs, by parameter.
type Positions = Vec<(usize, usize)>;

/// When `p`'s arguments are distinct variables: (parameter, argument position) for each, by
/// parameter (an event's binding is then read off its arguments).
fn variable_positions(p: &Pattern) -> Option<Positions> {
    let mut vars: Vec<(usize, usize)> = Vec::new();
    for (pos, t) in p.args.iter().enumerate() {
        match t {
            Term::Var(x) if !vars.iter().any(|v| v.0 == *x) => vars.push((*x, pos)),
            _ => return None,
        }
    }
    vars.sort_unstable();
    Some(vars)
}

/// What creation events make pointless to look up, whatever the trace, from [`live_states`].
struct Pruning {
    /// For each pattern domain (in order), by machine symbol (see [`DomainIndex::inert`]).
    inert: Vec<Vec<Inert>>,
    /// The parameters through which a new live binding can make joins an event must keep
    /// dead: when an event of domain D creates a live binding of mask K ⊋ D (other than the
    /// binding of every parameter), its search goes through the bindings holding its value of
    /// K's first parameter outside D.
    outside: u32,
    /// The masks a binding seen can have, sorted: ⊥'s, those of live bindings, and their
    /// unions (a binding is kept dead only as the join of bindings seen).
    seeable: Vec<u32>,
}

fn inert_lookups(patterns: &[Pattern], fsm: &Fsm, domains: &[u32]) -> Pruning {
    let dom_of = |p: &Pattern| {
        p.args.iter().fold(0u32, |m, t| match t {
            Term::Var(x) => m | 1 << x,
            _ => m,
        })
    };
    // The domains of each symbol's events.
    let sym_domains: Vec<Vec<u32>> = fsm
        .symbols
        .iter()
        .map(|name| {
            patterns
                .iter()
                .filter(|p| p.name == *name)
                .map(dom_of)
                .collect()
        })
        .collect();
    let live = live_states(fsm, &sym_domains, domains);
    let takes = |states: &[bool], sym: usize| {
        states
            .iter()
            .enumerate()
            .any(|(q, &l)| l && fsm.delta[q][sym].is_some())
    };
    let all = domains.iter().fold(0, |a, d| a | d);
    let mut outside = 0u32;
    for (sym, doms) in sym_domains.iter().enumerate() {
        for &d in doms {
            for (k, _) in &live {
                // Created by this event: from a binding below k whose state can take it.
                let created = live
                    .iter()
                    .any(|(b, st)| b & !k == 0 && b != k && takes(st, sym));
                if k & d == d && *k != d && *k != all && created {
                    outside |= 1 << (k & !d).trailing_zeros();
                }
            }
        }
    }
    let mut seeable: Vec<u32> = live
        .iter()
        .filter(|(m, st)| *m == 0 || st.contains(&true))
        .map(|p| p.0)
        .collect();
    close_under_unions(&mut seeable);
    seeable.sort_unstable();
    let inert = domains
        .iter()
        .map(|&d| {
            (0..fsm.symbols.len())
                .map(|sym| {
                    // σ starts from the state of a binding seen below it: ⊥ or a smaller mask.
                    let below_takes = live
                        .iter()
                        .any(|(m, st)| m & !d == 0 && *m != d && takes(st, sym));
                    let ever_live = live.iter().any(|(m, st)| *m == d && st.contains(&true));
                    let partial: Vec<u32> = submasks(d)
                        .filter(|&s| s != d)
                        .filter(|&s| {
                            !live
                                .iter()
                                .any(|(t, st)| t & d == s && t & !d != 0 && takes(st, sym))
                        })
                        .collect();
                    let own = !below_takes && !ever_live;
                    let exact_only = own && partial.len() + 1 == 1 << d.count_ones();
                    Inert {
                        own,
                        partial,
                        exact_only,
                    }
                })
                .collect()
        })
        .collect();
    Pruning {
        inert,
        outside,
        seeable,
    }
}

/// With creation events: for each parameter mask a binding can have (⊥'s, and unions of
/// pattern domains), the machine states a live binding of that mask can be in, as a superset.
/// ⊥ starts in the start state, and events without parameters move it. A binding of another
/// mask M is created by an event whose domain lies in M, from the state of its largest
/// sub-binding seen (⊥, or a live binding of a smaller mask), and only when that state can
/// take the event; afterwards only events whose domain lies in M reach it. A fixpoint over
/// masks by size. (PERF: UnsafeMapIterator's `useIter(i)` and
/// `createIter(c, i)` looked up their own σ and the bindings below it at every event, though
/// no (i) or (c, i) binding is ever live.)
fn live_states(fsm: &Fsm, sym_domains: &[Vec<u32>], domains: &[u32]) -> Vec<(u32, Vec<bool>)> {
    let mut masks: Vec<u32> = domains.to_vec();
    masks.push(0);
    close_under_unions(&mut masks);
    masks.sort_by_key(|m| (m.count_ones(), *m));
    let n = fsm.states.len();
    let mut live: Vec<(u32, Vec<bool>)> = Vec::new();
    for &m in &masks {
        let reaches = |sym: usize| sym_domains[sym].iter().any(|d| d & !m == 0);
        let mut from = vec![false; n];
        for (sub, st) in &live {
            if sub & !m == 0 {
                for q in 0..n {
                    from[q] |= st[q];
                }
            }
        }
        let mut states = vec![false; n];
        let mut queue: VecDeque<usize> = VecDeque::new();
        if m == 0 {
            states[fsm.start] = true;
            queue.push_back(fsm.start);
        }
        for q in (0..n).filter(|&q| from[q]) {
            for sym in (0..fsm.symbols.len()).filter(|&s| reaches(s)) {
                if let Some(t) = fsm.delta[q][sym] {
                    if !states[t] {
                        states[t] = true;
                        queue.push_back(t);
                    }
                }
            }
        }
        while let Some(q) = queue.pop_front() {
            for sym in (0..fsm.symbols.len()).filter(|&s| reaches(s)) {
                if let Some(t) = fsm.delta[q][sym] {
                    if !states[t] {
                        states[t] = true;
                        queue.push_back(t);
                    }
                }
            }
        }
        live.push((m, states));
    }
    live
}

/// Adds to `masks` the unions of any of them, until it holds every union.
fn close_under_unions(masks: &mut Vec<u32>) {
    let mut k = 0;
    while k < masks.len() {
        for j in 0..k {
            let u = masks[k] | masks[j];
            if !masks.contains(&u) {
                masks.push(u);
            }
        }
        k += 1;
    }
}

/// For each state: whether a verdict is reachable from it by at least one event among the
/// `allowed` symbols (a transition into a verdict state, or, with `@fail`, an allowed event
/// with no transition).
fn verdict_reachable(fsm: &Fsm, allowed: &[bool]) -> Vec<bool> {
    let hits = |q: usize| {
        fsm.delta[q]
            .iter()
            .zip(allowed)
            .any(|(t, &a)| a && t.map_or(fsm.fail.is_some(), |t| fsm.verdicts[t].is_some()))
    };
    reaching(&fsm.delta, |sym| allowed[sym], hits)
}

/// The states from which a state satisfying `seed` can be reached (the seeds included) by
/// transitions on symbols that `allowed` accepts: one breadth-first search backwards.
pub(crate) fn reaching(
    delta: &[Vec<Option<usize>>],
    allowed: impl Fn(usize) -> bool,
    seed: impl Fn(usize) -> bool,
) -> Vec<bool> {
    let n = delta.len();
    let mut back: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (q, row) in delta.iter().enumerate() {
        for (sym, t) in row.iter().enumerate() {
            if let Some(t) = t.filter(|_| allowed(sym)) {
                back[t].push(q);
            }
        }
    }
    let mut mark: Vec<bool> = (0..n).map(&seed).collect();
    let mut queue: VecDeque<usize> = (0..n).filter(|&q| mark[q]).collect();
    while let Some(t) = queue.pop_front() {
        for &q in &back[t] {
            if !mark[q] {
                mark[q] = true;
                queue.push_back(q);
            }
        }
    }
    mark
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::BTreeSet;

    proptest! {
        /// An index entry is the set of its ids through every representation (one, an
        /// array, a hash set), and `remove` says when it is empty.
        #[test]
        fn ids_are_a_set(ops in prop::collection::vec((any::<bool>(), 0u32..24), 1..200)) {
            let mut model = BTreeSet::from([ops[0].1]);
            let mut ids = Ids::One(ops[0].1);
            for &(push, id) in &ops[1..] {
                if push {
                    ids.push(id);
                    model.insert(id);
                } else {
                    model.remove(&id);
                    let empty = ids.remove(id);
                    prop_assert_eq!(empty, model.is_empty());
                    if empty {
                        break;
                    }
                }
                let mut got = BTreeSet::new();
                let mut count = 0;
                ids.for_each(|id| {
                    got.insert(id);
                    count += 1;
                });
                prop_assert_eq!(count, got.len(), "an id listed twice");
                prop_assert_eq!(&got, &model);
            }
        }
    }
}
