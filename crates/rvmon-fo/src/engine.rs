//! Evaluation of a [`Plan`]: every node turns its operands' relation streams into its own, in
//! time-point order. Past operators decide a time point at once; `NEXT` when the next time point
//! arrives; `UNTIL` when its window has passed (MonPoly's timing — the eager per-tuple version
//! of the propositional engine is future work).

use smallvec::SmallVec;
use std::collections::VecDeque;
use std::rc::Rc;

use rustc_hash::{FxHashMap, FxHashSet};
use rvmon_core::{Error, Interner, TimePoint, Timestamp, Value};
use rvmon_logic::eval::eval_term_with;
use rvmon_logic::reference::compare;
use rvmon_logic::AggOp;

use crate::bucket::Bucket;
use crate::compile::{future_below, ArgPat, GroupOp, Guard, GuardTrigger, NodeKind, Plan};
use crate::rel::{project, unit, Rel, Tuple};
use serde::{Deserialize, Serialize};

/// A node's output: relations for consecutive positions from `head`. Relations are shared
/// (`Rc`), so a temporal operator can hand out its whole state without copying it: its parent
/// consumes and drops the snapshot in the same step, and the next update mutates in place.
#[derive(Default, Debug, Serialize, Deserialize)]
struct Stream {
    head: u64,
    vals: VecDeque<Rc<Rel>>,
    /// The empty relation this stream shares (a field, not a thread-local: it is pushed at
    /// most time points).
    empty: Rc<Rel>,
    /// When several nodes read the stream (a shared subplan): each reader, with the position
    /// below which it has released the stream. Relations are dropped once all have.
    readers: Vec<(usize, u64)>,
}

impl Stream {
    fn get(&self, pos: u64) -> Option<&Rc<Rel>> {
        if pos < self.head {
            return None;
        }
        self.vals.get((pos - self.head) as usize)
    }

    /// PERF: empty relations (most of them, at most time points) share one allocation.
    fn push(&mut self, r: Rel) {
        if r.is_empty() {
            self.vals.push_back(Rc::clone(&self.empty));
        } else {
            self.vals.push_back(Rc::new(r));
        }
    }

    fn end(&self) -> u64 {
        self.head + self.vals.len() as u64
    }

    #[inline(always)]
    fn drop_before(&mut self, pos: u64) {
        while self.head < pos && !self.vals.is_empty() {
            self.vals.pop_front();
            self.head += 1;
        }
    }

    /// Reader `reader` no longer needs the relations before `pos`.
    #[inline(always)]
    fn release(&mut self, reader: usize, pos: u64) {
        if self.readers.is_empty() {
            self.drop_before(pos);
        } else {
            self.release_shared(reader, pos);
        }
    }

    /// [`Stream::release`] for a stream that several nodes read.
    #[cold]
    fn release_shared(&mut self, reader: usize, pos: u64) {
        for r in &mut self.readers {
            if r.0 == reader {
                r.1 = r.1.max(pos);
            }
        }
        let all = self.readers.iter().map(|r| r.1).min().expect("readers");
        self.drop_before(all);
    }
}

thread_local! {
    /// What a probed `ONCE` shows at a position where its state is there to test (the
    /// relation itself stays in the state; see [`FoEngine::probed`]): a non-empty marker,
    /// against the empty relation where a fused `PREVIOUS` shows nothing. The readers learn
    /// from it whether the state counts, without reading the timeline, which may be trimmed.
    static PRESENT: Rc<Rel> = Rc::new(unit());
    static EMPTY: Rc<Rel> = Rc::new(Rel::default());
}

#[derive(Default, Debug, Serialize, Deserialize)]
struct SinceState {
    /// Right-operand tuples not yet old enough for the lower bound, with their timestamp,
    /// oldest first. PERF: one flat queue, not a relation per time point: they are only
    /// walked, never looked up, and nothing is allocated per time point.
    young: VecDeque<(Timestamp, Tuple)>,
    /// Tuples old enough, with the newest timestamp at which they were witnessed.
    ripe: FxHashMap<Tuple, Timestamp>,
    /// The keys of `ripe`: the operator's output, shared with the parent.
    out: Rc<Rel>,
    /// (timestamp, tuple) in witness order, to expire tuples past the upper bound lazily.
    expiry: VecDeque<(Timestamp, Tuple)>,
    /// For `NOT φ SINCE ψ` with `fv(φ) ⊂ fv(ψ)`: the ripe tuples by their `φ` key (not kept
    /// for a closed `φ`, see [`keeps_by_key`]).
    by_key: FxHashMap<Tuple, Vec<Tuple>>,
    /// The next position whose operands are to be absorbed.
    absorbed: u64,
    /// The plan nodes it reads (right operand, then left operand or guard leaves).
    inputs: Vec<usize>,
    /// What is kept in step with `out`.
    views: OutViews,
    /// Set for a state that its consumers probe in place (see [`FoEngine::probed`]): `ripe`
    /// then maps each tuple to the position at which it entered the state, tuples removed
    /// while a consumer may still test an earlier position go to `gone`, and `out` is not kept.
    versioned: bool,
    /// In a versioned state: tuples removed that a consumer may still test, with the positions
    /// [entered, left) at which they were in, oldest first (see [`visible`]).
    /// (Inline: a tuple is rarely removed twice before its purge, and a `Vec` per removal
    /// was an allocation per lock released.)
    gone: FxHashMap<Tuple, SmallVec<[(u64, u64); 1]>>,
    /// The removals behind `gone`, as (left, tuple) in the order made (`left` never
    /// decreases), to purge them once every consumer has passed them (see [`purge`]).
    tombs: VecDeque<(u64, Tuple)>,
}

/// Structures kept in step with a SINCE state's output: every insertion and removal updates
/// each of them that exists.
#[derive(Default, Debug, Serialize, Deserialize)]
struct OutViews {
    /// An index on some columns, for a parent join that probes this state with a few tuples
    /// (e.g. `sleep(t) AND held(t,l)`).
    join: Option<Index>,
    /// An index on the key of the guard's trigger, to find the tuples it may fail for (see
    /// [`GuardTrigger`]).
    guard: Option<Index>,
    /// Changes since a parent projection last read them (`true` = inserted), when a projection
    /// over this state maintains itself incrementally.
    log: Option<Vec<(bool, Tuple)>>,
}

/// An incrementally maintained projection of a SINCE state (`EXISTS s. held(s,l)`).
#[derive(Default, Debug, Serialize, Deserialize)]
struct ProjState {
    counts: FxHashMap<Tuple, usize>,
    out: Rc<Rel>,
    synced: bool,
}

/// A state's tuples by some of their columns, each with the position at which it entered a
/// versioned state ([`SinceState::versioned`]; 0 in others), or [`REMOVED`].
type Index = (Vec<usize>, FxHashMap<Tuple, Bucket>);

/// In a versioned state's index: a tuple removed, kept while a reader of an earlier position
/// may still find it (see [`retire`]).
const REMOVED: u64 = u64::MAX;

/// `l op r`, or the run's error when they are values of different types.
fn compared(
    op: rvmon_logic::CmpOp,
    l: &Value,
    r: &Value,
    interner: &Interner,
) -> Result<bool, Error> {
    compare(op, l, r, interner)
        .ok_or_else(|| Error::msg("type error: comparison of values of different types"))
}

/// The tuples of `a` for which `x op y` holds (fails, when `negated`), with both operands
/// resolved (see [`crate::compile::Operand`]).
#[inline(never)]
fn filter_resolved(
    a: &Rel,
    op: rvmon_logic::CmpOp,
    [x, y]: &[crate::compile::Operand; 2],
    negated: bool,
    interner: &Interner,
) -> Result<Rel, Error> {
    let mut v = Rel::default();
    for t in a.iter() {
        if compared(op, &x.value(t), &y.value(t), interner)? != negated {
            v.insert(t.clone());
        }
    }
    Ok(v)
}

/// Records an insertion into a SINCE state's output in its views.
#[inline]
fn note_insert(views: &mut OutViews, t: &Tuple) {
    note_insert_at(views, t, 0);
}

/// [`note_insert`] of a tuple that entered a versioned state at `at`.
#[inline]
fn note_insert_at(views: &mut OutViews, t: &Tuple, at: u64) {
    idx_insert(&mut views.join, t, at);
    idx_insert(&mut views.guard, t, at);
    if let Some(log) = &mut views.log {
        log.push((true, t.clone()));
    }
}

/// Whether a `NOT φ SINCE ψ` state keeps its tuples by their `φ` key ([`SinceState::by_key`]):
/// not when `φ` is on all of `ψ`'s columns (a tuple of `φ` removes itself), nor when `φ` is
/// closed (it removes every tuple: PERF, fifo's `(NOT EXISTS z. exit(z)) SINCE exit(x)` had an
/// allocation and two lookups per exit for a key that every tuple shares).
fn keeps_by_key(negated: bool, l_key: &[usize], identity: bool) -> bool {
    negated && !identity && !l_key.is_empty()
}

/// Records a removal from a SINCE state's output in its views.
#[inline]
fn note_remove(views: &mut OutViews, t: &[Value]) {
    idx_remove(&mut views.join, t);
    idx_remove(&mut views.guard, t);
    if let Some(log) = &mut views.log {
        log.push((false, t.into()));
    }
}

/// Enters `tuple` into a versioned state at position `at` (a tuple already in stays with its
/// first position). A tuple removed at this same position, and so still in `gone` with
/// `left == at`, was never out for any reader: its interval goes on.
#[inline]
fn enter(
    st: &mut SinceState,
    tuple: &Tuple,
    at: u64,
    negated: bool,
    l_key: &[usize],
    identity: bool,
) {
    // PERF: one lookup of the live state (most tuples offered are in it already).
    let std::collections::hash_map::Entry::Vacant(slot) = st.ripe.entry(tuple.clone()) else {
        return;
    };
    let mut entered = at;
    if let Some(spans) = st.gone.get_mut(tuple) {
        if spans.last().is_some_and(|&(_, left)| left == at) {
            entered = spans.pop().expect("checked").0;
            if spans.is_empty() {
                st.gone.remove(tuple);
            }
        }
    }
    slot.insert(entered as Timestamp);
    if keeps_by_key(negated, l_key, identity) {
        let key: Tuple = l_key.iter().map(|&c| tuple[c]).collect();
        st.by_key.entry(key).or_default().push(tuple.clone());
    }
    note_insert_at(&mut st.views, tuple, entered);
}

/// Removes `tuple`, which entered at `entered`, from a versioned state at the position being
/// absorbed: readers of earlier positions still see it, through `gone`, until [`purge`].
fn retire(st: &mut SinceState, tuple: Tuple, entered: Timestamp) {
    let (entered, left) = (entered as u64, st.absorbed);
    // The join index still finds it for readers of earlier positions (see [`purge`]); the
    // guard's index lists only the live tuples the guard may fail for.
    idx_remove(&mut st.views.guard, &tuple);
    if entered < left {
        idx_mark_removed(&mut st.views.join, &tuple);
        st.gone
            .entry(tuple.clone())
            .or_default()
            .push((entered, left));
        st.tombs.push_back((left, tuple));
    } else if st.gone.contains_key(&tuple) {
        // Never in at this position, but earlier intervals are still visible through it.
        idx_mark_removed(&mut st.views.join, &tuple);
    } else {
        idx_remove(&mut st.views.join, &tuple);
    }
}

/// Whether a versioned state held `t` at position `upto`.
#[inline]
fn visible(st: &SinceState, t: &[Value], upto: u64) -> bool {
    let entered = st.ripe.get(t).map_or(REMOVED, |&at| at as u64);
    visible_from(st, t, entered, upto)
}

/// [`visible`] for a tuple whose entry position (or [`REMOVED`]) is known, from an index.
#[inline]
fn visible_from(st: &SinceState, t: &[Value], entered: u64, upto: u64) -> bool {
    entered <= upto
        || (!st.gone.is_empty()
            && st
                .gone
                .get(t)
                .is_some_and(|spans| spans.iter().any(|&(e, l)| e <= upto && upto < l)))
}

/// Forgets the removals from a versioned state that no reader can see any more: those made at
/// or before `floor`, the lowest position a reader may still test.
fn purge(st: &mut SinceState, floor: u64) {
    while st.tombs.front().is_some_and(|(left, _)| *left <= floor) {
        let (_, tuple) = st.tombs.pop_front().expect("checked");
        // (One lookup of `gone`: PERF.)
        let still_gone = match st.gone.entry(tuple) {
            std::collections::hash_map::Entry::Occupied(mut spans) => {
                spans.get_mut().retain(|&mut (_, left)| left > floor);
                if spans.get().is_empty() {
                    let (tuple, _) = spans.remove_entry();
                    Err(tuple)
                } else {
                    Ok(())
                }
            }
            std::collections::hash_map::Entry::Vacant(slot) => Err(slot.into_key()),
        };
        if let Err(tuple) = still_gone {
            if st.views.join.is_some() && !st.ripe.contains_key(&tuple) {
                idx_remove(&mut st.views.join, &tuple);
            }
        }
    }
}

/// Calls `f` with `t`'s key in an index on `cols`, built on the stack when it is short (PERF:
/// an index is updated at every entry and removal; building the keys on the stack, with
/// `purge`'s single lookup, took locks-cycles from 911 M to 890 M instructions, and on
/// removal too from 800 M to 786 M).
#[inline]
fn with_idx_key<R>(cols: &[usize], t: &[Value], f: impl FnOnce(&[Value]) -> R) -> R {
    if cols.len() > 4 {
        let key: Vec<Value> = cols.iter().map(|&c| t[c]).collect();
        return f(&key);
    }
    let mut key = [Value::Int(0); 4];
    for (k, &c) in key.iter_mut().zip(cols) {
        *k = t[c];
    }
    f(&key[..cols.len()])
}

/// Records `t` in the secondary index.
#[inline]
fn idx_insert(index: &mut Option<Index>, t: &Tuple, at: u64) {
    if let Some((cols, map)) = index {
        with_idx_key(cols, t, |key| match map.get_mut(key) {
            Some(m) => m.insert(t.clone(), at),
            None => {
                map.insert(key.into(), Bucket::one(t.clone(), at));
            }
        });
    }
}

/// Marks `t` [`REMOVED`] in the secondary index.
#[inline]
fn idx_mark_removed(index: &mut Option<Index>, t: &[Value]) {
    if let Some((cols, map)) = index {
        with_idx_key(cols, t, |key| {
            if let Some(at) = map.get_mut(key).and_then(|m| m.get_mut(t)) {
                *at = REMOVED;
            }
        });
    }
}

/// Forgets `t` in the secondary index.
#[inline]
fn idx_remove(index: &mut Option<Index>, t: &[Value]) {
    if let Some((cols, map)) = index {
        with_idx_key(cols, t, |key| {
            if let Some(set) = map.get_mut(key) {
                set.remove(t);
                if set.is_empty() {
                    map.remove(key);
                }
            }
        });
    }
}

#[derive(Default, Debug, Serialize, Deserialize)]
struct UntilState {
    next: u64,
    /// First position not known to lie inside the oldest pending window (monotone).
    scan: u64,
    /// For `EVENTUALLY` (left operand `TRUE`): the witnesses inside the current window.
    window: EventuallyWindow,
}

/// The sliding union of the right operand's relations over `[ts_i + a, ts_i + b]`. The window
/// always ends at the newest position added, so a tuple is in the union exactly when its *latest*
/// presence is at or after the window's start: presences are queued in order, and a presence
/// that falls off the front takes its tuple out of the union only if it was the tuple's latest.
/// No snapshot of the operand is kept, so the operand also updates in place.
#[derive(Default, Debug, Serialize, Deserialize)]
struct EventuallyWindow {
    next_add: u64,
    /// The latest position at which each tuple was present.
    last: FxHashMap<Tuple, u64>,
    /// (position, timestamp, tuple) of each presence added, oldest first. An entry whose tuple
    /// was present again later is stale; stale entries are dropped when they reach the front
    /// or when they outnumber the live ones (see [`EventuallyWindow::compact`]), so memory
    /// stays proportional to the distinct tuples in the window.
    presences: VecDeque<(u64, Timestamp, Tuple)>,
    out: Rc<Rel>,
}

impl EventuallyWindow {
    /// PERF: a queue of presences with lazy deletion instead of one hash set per position:
    /// no allocation per position and no removal from an older bucket when a tuple recurs.
    /// Dropping the stale entries once they outnumber the live ones keeps that amortised O(1).
    fn compact(&mut self) {
        if self.presences.len() > 2 * self.last.len() + 64 {
            let last = &self.last;
            self.presences.retain(|(p, _, t)| last.get(t) == Some(p));
        }
    }
}

/// Positions fed so far with their time-point index and timestamp.
#[derive(Default, Debug, Serialize, Deserialize)]
struct Timeline {
    head: u64,
    points: VecDeque<(u64, Timestamp)>,
}

impl Timeline {
    fn ts(&self, pos: u64) -> Timestamp {
        self.points[(pos - self.head) as usize].1
    }

    fn end(&self) -> u64 {
        self.head + self.points.len() as u64
    }
}

/// A decided result: the satisfying tuples of the root at a time point.
#[derive(Debug)]
pub struct Answer {
    pub tp: u64,
    pub ts: Timestamp,
    pub rel: Rel,
}

/// Tuples a join produces in one update before it lets its consumer take them (see
/// [`FoEngine::step_batch`]: a batch would otherwise hold a join's output for every position).
const JOIN_BUDGET: usize = 1 << 16;

/// Tuples joined per time point above which batches are given up (the DejaVu data-race
/// lockset joins make 10^5 per time point; paper 04's and fifo's make a few).
const HEAVY_JOINS: usize = 4096;

/// Time points per [`FoEngine::step_batch`] for offline runs: enough to share each operator's
/// per-update overhead (16 or 256 change paper 04's instruction counts by under 2 %), few
/// enough that a batch stays in cache.
pub const OFFLINE_BATCH: usize = 64;

/// Timestamp of MonPoly's closing time point.
pub const CLOSING_TS: Timestamp = rvmon_core::CLOSING_TS;

/// Fields marked `skip` follow from the plan (or are scratch space): a saved state (see
/// [`FoEngine::save`]) holds the others, and [`FoEngine::restore`] takes the skipped ones from a
/// fresh engine for the same plan.
#[derive(Serialize, Deserialize)]
pub struct FoEngine {
    #[serde(skip)]
    plan: Plan,
    streams: Vec<Stream>,
    cursors: Vec<u64>,
    since: Vec<SinceState>,
    /// Incremental projections (over SINCE states), by node.
    proj: Vec<Option<ProjState>>,
    /// The relation of each constant node, shared at every time point.
    #[serde(skip)]
    consts: Vec<Option<Rc<Rel>>>,
    /// `ONCE`/`EVENTUALLY`: a `SINCE`/`UNTIL` whose left operand is the constant `TRUE`
    /// (and not negated, no guard). It reads its left operand from `consts`, not from a
    /// stream, and a constant read only so has no stream (PERF: P3/P4 of paper 04 have five
    /// such operands, which otherwise cost a push and a pop per time point each).
    #[serde(skip)]
    true_left: Vec<bool>,
    /// Constant nodes whose stream someone reads.
    #[serde(skip)]
    const_streamed: Vec<bool>,
    until: Vec<UntilState>,
    timeline: Timeline,
    emitted: u64,
    at_end: bool,
    /// Not saved: a run prints the warnings it produced itself.
    #[serde(skip)]
    warnings: Vec<String>,
    /// Scratch space for projected keys (lookups without allocation).
    #[serde(skip)]
    buf: Vec<Value>,
    /// For each join: positions below this had their waiting operand reduced (see
    /// [`reduce_waiting`]).
    reduced: Vec<u64>,
    #[serde(skip)]
    copies: CopyPolicy,
    /// The nodes each node reads.
    #[serde(skip)]
    reads: Vec<Vec<usize>>,
    /// Passes are numbered; `rerun[i]` is the pass in which node `i` must run even if
    /// nothing it reads changed, `changed[i]` the last pass in which it made progress.
    pass: u64,
    rerun: Vec<u64>,
    changed: Vec<u64>,
    /// For each join (or anti-join), by node: the bounds of its left operand when the right
    /// one waits for it, and the other way round (see [`reduce_waiting`]).
    #[serde(skip)]
    bounds: Vec<[Vec<Bound>; 2]>,
    /// The `PREVIOUS`, `NEXT`, `SINCE` and `UNTIL` nodes.
    #[serde(skip)]
    temporal: Vec<usize>,
    /// The relations each scan produced for the positions of the current batch.
    #[serde(skip)]
    scans: Vec<Vec<Rc<Rel>>>,
    /// For a scan, an earlier scan of the same atom (P3 of paper 04 scans `net(c)` three
    /// times): its relation is shared instead of scanning the events again.
    #[serde(skip)]
    same_scan: Vec<Option<usize>>,
    /// Tuples the joins made in the current batch, and whether batches proved heavy (joins
    /// of large states at every position: batches then only hold more memory, so time
    /// points go one by one).
    #[serde(skip)]
    joined: usize,
    #[serde(skip)]
    one_by_one: bool,
    #[serde(skip)]
    heavy_joins: usize,
    /// For each guarded SINCE, by node: where its guard can fail, when that is known.
    #[serde(skip)]
    triggers: Vec<Option<GuardTrigger>>,
    /// By node: an unbounded past-only `SINCE` (`ONCE` among them) whose every consumer only
    /// tests its tuples (a semi-join or anti-join, a join or existential join that probes it
    /// through its index on the shared columns, a projection tested through it (`through`), a
    /// past operator's guard; see [`probed_states`]), with the lag of a
    /// fused `PREVIOUS` (0 or 1). Each tuple of such a state carries the position at which it entered, and a
    /// tuple removed (its left operand failed) keeps the positions at which it was in while a
    /// consumer may still test them ([`retire`], [`purge`]): the consumers test the live state
    /// at their position ([`visible`]) instead of a snapshot per position. (PERF: a snapshot
    /// held by a consumer made each changing step wait for it, a pass per time point: fifo's
    /// five growing `ONCE` states, and access's `NOT logout(x) SINCE login(x)`, changed at
    /// almost every time point. Without snapshots, `out` is not kept either.)
    #[serde(skip)]
    probed: Vec<Option<u64>>,
    /// By node: a projection `EXISTS ys. φ` of such a probed state whose every reader only
    /// tests it (an anti-join, a semi-join, an existential join's test): the state's node.
    /// The state is then indexed on the projection's columns, the projection forwards the
    /// state's markers, and its readers test a tuple by looking for a tuple of the state with
    /// those columns that was there at their position ([`Tested::Through`]). (PERF: an
    /// incremental projection kept a projected relation that its reader held as a snapshot,
    /// so a changing state waited for it, a pass per time point: locks-basic's
    /// `acq(t,l) IMPLIES NOT EXISTS s. PREVIOUS (NOT rel(s,l) SINCE acq(s,l))`.)
    #[serde(skip)]
    through: Vec<Option<usize>>,
}

/// When a temporal operator may update its state in place although its last snapshot is
/// still held (which copies the state); see [`FoEngine::run_passes`].
#[derive(Debug, Default)]
struct CopyPolicy {
    /// States of at most this many tuples are copied rather than waited for or reduced.
    small: usize,
    /// Tuples a join makes in one update before it defers the rest to the next pass.
    join_budget: usize,
    /// The lowest node that waited in the current pass instead of copying its state.
    waiting: Option<usize>,
    /// The node allowed one copy of its state, to break a wait that no consumer will end.
    may_copy: Option<usize>,
    /// Every node that waited in the current pass (they run again in the next one).
    waited: Vec<usize>,
}

impl CopyPolicy {
    /// Whether node `i` must wait rather than update `state` in place; `false` also uses up a
    /// granted copy. `changes` says whether the update changes `state`; it is asked only
    /// when a snapshot of a large state is still held (PERF: a precise answer may cost a
    /// lookup per tuple).
    fn must_wait(&mut self, i: usize, state: &Rc<Rel>, changes: impl FnOnce() -> bool) -> bool {
        if Rc::strong_count(state) == 1 || state.len() <= self.small || !changes() {
            return false;
        }
        if self.may_copy == Some(i) {
            self.may_copy = None;
            return false;
        }
        self.defer(i);
        true
    }

    /// Node `i` stops for this pass with work left, and runs again in the next one.
    fn defer(&mut self, i: usize) {
        if self.waiting.is_none_or(|w| i < w) {
            self.waiting = Some(i);
        }
        self.waited.push(i);
    }
}

impl FoEngine {
    pub fn new(plan: Plan) -> FoEngine {
        let n = plan.nodes.len();
        let mut since: Vec<SinceState> = (0..n).map(|_| SinceState::default()).collect();
        // Joins that probe a SINCE state with a few tuples get an index on the shared columns
        // (so do the joins fused into exists-joins).
        for node in &plan.nodes {
            if let Some((l, r, shared, r_new)) = join_parts(&node.kind) {
                let r_cols: Vec<usize> = shared.iter().map(|p| p.1).collect();
                let l_cols: Vec<usize> = shared.iter().map(|p| p.0).collect();
                // A semi-join (no new right column) probes the right state itself.
                let r_cols = if r_new.is_empty() { vec![] } else { r_cols };
                for (side, cols) in [(r, r_cols), (l, l_cols)] {
                    let is_since = matches!(plan.nodes[side].kind, NodeKind::Since { .. });
                    if is_since && since[side].views.join.is_none() && !cols.is_empty() {
                        since[side].views.join = Some((cols, FxHashMap::default()));
                    }
                }
            }
        }
        // An exists-join probes its right operand with each left tuple.
        for node in &plan.nodes {
            if let NodeKind::ExistsJoin { r, shared, .. } = &node.kind {
                let cols: Vec<usize> = shared.iter().map(|p| p.1).collect();
                let is_since = matches!(plan.nodes[*r].kind, NodeKind::Since { .. });
                if is_since && since[*r].views.join.is_none() && !cols.is_empty() {
                    since[*r].views.join = Some((cols, FxHashMap::default()));
                }
            }
        }
        let triggers: Vec<Option<GuardTrigger>> = plan
            .nodes
            .iter()
            .map(|node| match &node.kind {
                NodeKind::Since { guard: Some(g), .. } => g.trigger(),
                _ => None,
            })
            .collect();
        for (st, trigger) in since.iter_mut().zip(&triggers) {
            // A trigger without leaves: the guard never fails, nothing is ever looked up.
            if let Some(trigger) = trigger.as_ref().filter(|t| !t.leaves.is_empty()) {
                st.views.guard = Some((trigger.key.clone(), FxHashMap::default()));
            }
        }
        let consts = plan
            .nodes
            .iter()
            .map(|n| match &n.kind {
                NodeKind::Const(rel) => Some(Rc::new(rel.clone())),
                _ => None,
            })
            .collect();
        let true_left: Vec<bool> = plan
            .nodes
            .iter()
            .map(|n| match &n.kind {
                NodeKind::Since {
                    l,
                    negated: false,
                    guard: None,
                    ..
                }
                | NodeKind::Until {
                    l,
                    negated: false,
                    guard: None,
                    ..
                } => matches!(&plan.nodes[*l].kind, NodeKind::Const(rel) if !rel.is_empty()),
                _ => false,
            })
            .collect();
        // A node reads the operands it takes from streams: not a `TRUE` left operand.
        let plan_reads: Vec<Vec<usize>> = plan
            .nodes
            .iter()
            .enumerate()
            .map(|(i, n)| {
                let mut reads = n.kind.reads();
                if let NodeKind::Since { l, r, guard, .. } | NodeKind::Until { l, r, guard, .. } =
                    &n.kind
                {
                    // A guard replaces the left operand (a `TRUE` constant): not read either.
                    let guard_reads_l = guard.as_ref().is_some_and(|g| {
                        let mut leaves = Vec::new();
                        g.leaves(&mut leaves);
                        leaves.contains(l)
                    });
                    if (true_left[i] || (guard.is_some() && !guard_reads_l)) && l != r {
                        reads.retain(|x| x != l);
                    }
                }
                reads
            })
            .collect();
        let mut readers: Vec<Vec<usize>> = vec![Vec::new(); n];
        for (i, node) in plan.nodes.iter().enumerate() {
            for c in node.kind.reads() {
                if !readers[c].contains(&i) {
                    readers[c].push(i);
                }
            }
        }
        let mut proj: Vec<Option<ProjState>> = (0..n).map(|_| None).collect();
        for (i, node) in plan.nodes.iter().enumerate() {
            if let NodeKind::Project { c, .. } = &node.kind {
                // A projection kept in step with a SINCE state reads (and clears) its change
                // log: only when it is the state's only projection. (Other readers do not read
                // the log. A state shared up to renaming is often read by a projection and a
                // test, as the lock properties' `EXISTS s. PREVIOUS held(s,l)` and
                // `PREVIOUS held(t,l)`: projecting it in full at every time point made
                // locks-basic ten times slower.)
                let projections = readers[*c]
                    .iter()
                    .filter(|&&x| matches!(plan.nodes[x].kind, NodeKind::Project { .. }))
                    .count();
                if matches!(plan.nodes[*c].kind, NodeKind::Since { .. }) && projections == 1 {
                    since[*c].views.log = Some(Vec::new());
                    proj[i] = Some(ProjState::default());
                }
            }
        }
        let mut const_streamed = vec![false; n];
        for reads in &plan_reads {
            for &c in reads {
                const_streamed[c] = true;
            }
        }
        const_streamed[plan.root()] = true;
        let future = future_below(&plan.nodes);
        // Projections that may be tested through their state (see `through`): decided with the
        // states' versioning, as such a projection is what tests its state.
        let mut through: Vec<Option<usize>> = plan
            .nodes
            .iter()
            .enumerate()
            .map(|(i, node)| match &node.kind {
                NodeKind::Project { c, keep }
                    if !keep.is_empty()
                        && i != plan.root()
                        // The state's other readers, if any (a state shared up to renaming,
                        // as locks-basic's `EXISTS s. PREVIOUS held(s,l)` and `PREVIOUS
                        // held(t,l)`), test it in place too.
                        && readers[*c]
                            .iter()
                            .all(|&x| x == i || tests_through(&plan.nodes[x].kind, *c))
                        && matches!(plan.nodes[*c].kind, NodeKind::Since { .. })
                        && since[*c].views.join.is_none()
                        && !readers[i].is_empty()
                        && readers[i]
                            .iter()
                            .all(|&x| tests_through(&plan.nodes[x].kind, i)) =>
                {
                    Some(*c)
                }
                _ => None,
            })
            .collect();
        let probed = probed_states(&plan, &plan_reads, &future, &since, &through, &triggers);
        for (st, p) in since.iter_mut().zip(&probed) {
            st.versioned = p.is_some();
        }
        for (i, via) in through.iter_mut().enumerate() {
            let Some(c) = *via else { continue };
            let NodeKind::Project { keep, .. } = &plan.nodes[i].kind else {
                unreachable!("a projection")
            };
            if probed[c].is_some() {
                since[c].views.join = Some((keep.clone(), FxHashMap::default()));
                // A versioned state keeps no `out` and streams markers: no projection of it
                // may project what it reads (it would project a marker), so the only
                // projection that may read it is this one, tested through the index.
                since[c].views.log = None;
                proj[i] = None;
            } else {
                *via = None;
            }
        }
        // By join: the bounds of its left operand for its right one, and the other way round.
        // Only an operand with a future operator can be late past the step that fed its
        // position; one that is late only within a step (its operator waits for a consumer to
        // release a snapshot, or a batch is halfway through) catches up in the same step, and
        // reducing the other operand's relations meanwhile would be wasted work.
        // A probed state's stream holds no relations (so it neither bounds nor is reduced),
        // and a shared operand's relations are read by others too (so it is not reduced).
        let bounds_of = |late: usize, early: usize| {
            let marked = |x: usize| probed[x].is_some() || through[x].is_some();
            if future[late] && !marked(early) && readers[early].len() <= 1 {
                let mut b = bound_candidates(&plan, late, early);
                b.retain(|b| !marked(b.node));
                b
            } else {
                Vec::new()
            }
        };
        let bounds: Vec<[Vec<Bound>; 2]> = plan
            .nodes
            .iter()
            .map(|node| match node.kind {
                NodeKind::Join { l, r, .. } | NodeKind::AntiJoin { l, r, .. } => {
                    [bounds_of(l, r), bounds_of(r, l)]
                }
                _ => [Vec::new(), Vec::new()],
            })
            .collect();
        // The nodes whose state holds back the timeline (see `trim`).
        let temporal: Vec<usize> = plan
            .nodes
            .iter()
            .enumerate()
            .filter(|(_, n)| {
                matches!(
                    n.kind,
                    NodeKind::Prev { .. }
                        | NodeKind::Next { .. }
                        | NodeKind::Since { .. }
                        | NodeKind::Until { .. }
                )
            })
            .map(|(i, _)| i)
            .collect();
        let same_scan: Vec<Option<usize>> = plan
            .nodes
            .iter()
            .enumerate()
            .map(|(i, n)| {
                let NodeKind::Pred { .. } = &n.kind else {
                    return None;
                };
                plan.nodes[..i]
                    .iter()
                    .position(|m| match (&m.kind, &n.kind) {
                        (
                            NodeKind::Pred { sym, arity, args },
                            NodeKind::Pred {
                                sym: s2,
                                arity: a2,
                                args: p2,
                            },
                        ) => sym == s2 && arity == a2 && args == p2,
                        _ => false,
                    })
            })
            .collect();
        FoEngine {
            consts,
            true_left,
            const_streamed,
            since,
            proj,
            plan,
            streams: readers
                .iter()
                .map(|rs| Stream {
                    readers: if rs.len() > 1 {
                        rs.iter().map(|&r| (r, 0)).collect()
                    } else {
                        Vec::new()
                    },
                    ..Stream::default()
                })
                .collect(),
            cursors: vec![0; n],
            until: (0..n).map(|_| UntilState::default()).collect(),
            timeline: Timeline::default(),
            emitted: 0,
            at_end: false,
            warnings: Vec::new(),
            buf: Vec::new(),
            reduced: vec![0; n],
            copies: CopyPolicy {
                small: 32,
                join_budget: JOIN_BUDGET,
                waiting: None,
                may_copy: None,
                waited: Vec::new(),
            },
            reads: plan_reads,
            bounds,
            temporal,
            scans: vec![Vec::new(); n],
            same_scan,
            joined: 0,
            one_by_one: false,
            heavy_joins: HEAVY_JOINS,
            triggers,
            probed,
            through,
            pass: 0,
            rerun: vec![0; n],
            changed: vec![0; n],
        }
    }

    /// Warnings produced so far (taken): MonPoly's notes on conventions it applied.
    pub fn take_warnings(&mut self) -> Vec<String> {
        std::mem::take(&mut self.warnings)
    }

    /// Sets the size up to which a state is copied rather than waited for or reduced (32 by
    /// default; tests set 0 so that small traces exercise the waiting and reducing paths).
    pub fn set_small_state(&mut self, tuples: usize) {
        self.copies.small = tuples;
    }

    /// Sets how many tuples a join makes in one update before it lets its consumer take them
    /// (2^16 by default; tests set 0 so that small traces exercise the deferral).
    pub fn set_join_budget(&mut self, tuples: usize) {
        self.copies.join_budget = tuples;
    }

    /// Sets the tuples joined per time point above which batches are given up (4096 by
    /// default; tests set 0 so that small traces switch to one time point at a time).
    pub fn set_heavy_joins(&mut self, tuples: usize) {
        self.heavy_joins = tuples;
    }

    /// How many passes over its operators the engine has made (see [`FoEngine::run_passes`]).
    #[doc(hidden)]
    pub fn passes(&self) -> u64 {
        self.pass
    }

    /// How many time points the engine still keeps (their timestamps): what its temporal
    /// operators may still read. Bounded for bounded formulas, whatever the trace's length.
    #[doc(hidden)]
    pub fn held_time_points(&self) -> usize {
        self.timeline.points.len()
    }

    pub fn plan(&self) -> &Plan {
        &self.plan
    }

    /// The engine's state between two time points, as bytes that [`FoEngine::restore`] turns
    /// back into this engine (MonPoly's `>save_state<`).
    pub fn save(&self) -> Vec<u8> {
        rvmon_core::encode_state(self)
    }

    /// Calls `mark` with every interned string the engine holds, so that the caller can free
    /// the others ([`rvmon_core::Interner::collect`]) between two steps. These are the strings
    /// of its saved state: what a saved state leaves out (the plan's constants, scratch space,
    /// the scans of the last batch) is either pinned in the interner or never read again.
    /// Returns the size of the walk.
    pub fn mark_strings(&self, mark: &mut dyn FnMut(rvmon_core::Sym)) -> usize {
        rvmon_core::mark_syms(self, mark)
    }

    /// The engine [`FoEngine::save`] saved, for `plan` (compiled again from the same formula).
    pub fn restore(plan: Plan, saved: &[u8]) -> Result<FoEngine, Error> {
        let saved: FoEngine = rvmon_core::decode_state(saved)
            .ok_or_else(|| Error::msg("the saved monitor state is damaged"))?;
        let fresh = FoEngine::new(plan);
        let n = fresh.streams.len();
        let sizes = [
            saved.cursors.len(),
            saved.since.len(),
            saved.proj.len(),
            saved.until.len(),
            saved.reduced.len(),
            saved.rerun.len(),
            saved.changed.len(),
        ];
        if saved.streams.len() != n || sizes.iter().any(|&k| k != n) {
            return Err(Error::msg(
                "the saved monitor state belongs to another formula",
            ));
        }
        Ok(FoEngine {
            plan: fresh.plan,
            consts: fresh.consts,
            true_left: fresh.true_left,
            const_streamed: fresh.const_streamed,
            buf: fresh.buf,
            warnings: fresh.warnings,
            copies: fresh.copies,
            reads: fresh.reads,
            bounds: fresh.bounds,
            temporal: fresh.temporal,
            scans: fresh.scans,
            same_scan: fresh.same_scan,
            joined: fresh.joined,
            one_by_one: fresh.one_by_one,
            heavy_joins: fresh.heavy_joins,
            triggers: fresh.triggers,
            probed: fresh.probed,
            through: fresh.through,
            ..saved
        })
    }

    /// Feeds a time point; appends decided answers in order.
    pub fn step(
        &mut self,
        tp: &TimePoint,
        interner: &mut Interner,
        out: &mut Vec<Answer>,
    ) -> Result<(), Error> {
        self.step_batch(std::slice::from_ref(tp), interner, out)
    }

    /// Feeds several time points at once; appends decided answers in order. The answers are
    /// those of feeding them one by one (unless evaluation fails: then, unlike `step`, answers
    /// of earlier time points of the batch may be lost with the error; see
    /// [`Plan::may_fail`]).
    ///
    /// PERF: every operator then updates once per batch rather than once per time point, and
    /// its per-update overhead (about half of an idle operator's cost) is shared by the batch.
    pub fn step_batch(
        &mut self,
        tps: &[TimePoint],
        interner: &mut Interner,
        out: &mut Vec<Answer>,
    ) -> Result<(), Error> {
        if self.one_by_one {
            for tp in tps {
                self.feed(std::slice::from_ref(tp), interner, out)?;
            }
            return Ok(());
        }
        self.joined = 0;
        self.feed(tps, interner, out)?;
        self.one_by_one = self.joined > self.heavy_joins * tps.len();
        Ok(())
    }

    fn feed(
        &mut self,
        tps: &[TimePoint],
        interner: &mut Interner,
        out: &mut Vec<Answer>,
    ) -> Result<(), Error> {
        let Some(last) = tps.len().checked_sub(1) else {
            return Ok(());
        };
        let pos = self.timeline.end() + last as u64;
        for tp in tps {
            self.timeline.points.push_back((tp.index, tp.ts));
        }
        self.scans.iter_mut().for_each(Vec::clear);
        self.run_passes(pos, tps, interner)?;
        self.drain(out);
        self.trim();
        Ok(())
    }

    /// Ends the trace with MonPoly's closing time point (maximal timestamp, no events).
    pub fn close(&mut self, interner: &mut Interner, out: &mut Vec<Answer>) -> Result<(), Error> {
        let index = self.timeline.points.back().map_or(0, |p| p.0 + 1);
        let closing = TimePoint {
            index,
            ts: CLOSING_TS,
            ..Default::default()
        };
        self.step(&closing, interner, out)?;
        self.at_end = true;
        let pos = self.timeline.end() - 1;
        self.run_passes(pos, &[], interner)?;
        self.drain(out);
        Ok(())
    }

    /// Updates every node, children first. A temporal operator hands out its state as a shared
    /// snapshot and then updates it in place, which copies the state if the snapshot is still
    /// held. When one step decides many positions at once (the end of the trace, a gap in the
    /// timestamps, a window that waited a day), that would be one copy per position. So such an
    /// operator emits one position and waits for its consumer to take it in the next pass. When
    /// a pass makes no progress (the consumer itself waits, for another operand or for a window
    /// that needs more of this operator), the lowest waiting operator copies once and the passes
    /// go on.
    ///
    /// PERF: after the first pass, a node runs again only if it waited or something it reads
    /// made progress in this pass; any other node would find nothing new to do. Nothing below
    /// the lowest waiting node runs again at all.
    fn run_passes(
        &mut self,
        pos: u64,
        batch: &[TimePoint],
        interner: &mut Interner,
    ) -> Result<(), Error> {
        let progress = |e: &FoEngine, i: usize| e.streams[i].end() + e.since[i].absorbed;
        let mut start = None;
        loop {
            self.pass += 1;
            let pass = self.pass;
            self.copies.waiting = None;
            let mut any = false;
            for i in start.unwrap_or(0)..self.plan.nodes.len() {
                let stale = start.is_none()
                    || self.rerun[i] == pass
                    || self.reads[i].iter().any(|&c| self.changed[c] == pass);
                if !stale {
                    continue;
                }
                let before = progress(self, i);
                self.update(i, pos, batch, interner)?;
                if progress(self, i) != before {
                    self.changed[i] = pass;
                    any = true;
                }
            }
            for i in self.copies.waited.drain(..) {
                self.rerun[i] = pass + 1;
            }
            match self.copies.waiting {
                None => return Ok(()),
                Some(w) if !any => self.copies.may_copy = Some(w),
                Some(_) => {}
            }
            start = self.copies.waiting;
        }
    }

    fn drain(&mut self, out: &mut Vec<Answer>) {
        let root = self.plan.root();
        while let Some(rel) = self.streams[root].get(self.emitted) {
            let (tp, ts) = self.timeline.points[(self.emitted - self.timeline.head) as usize];
            if ts != CLOSING_TS {
                out.push(Answer {
                    tp,
                    ts,
                    rel: if rel.is_empty() {
                        Rel::default()
                    } else {
                        (**rel).clone()
                    },
                });
            }
            self.emitted += 1;
        }
        self.streams[root].drop_before(self.emitted);
    }

    fn trim(&mut self) {
        let mut min = self.emitted;
        for &i in &self.temporal {
            let need = match self.plan.nodes[i].kind {
                NodeKind::Prev { .. } => self.cursors[i].saturating_sub(1),
                NodeKind::Next { .. } => self.cursors[i],
                NodeKind::Since { .. } => self.since[i].absorbed.saturating_sub(1),
                // Only `EVENTUALLY` keeps a window that starts before its next undecided
                // position (a general `UNTIL` never moves `window.next_add`, which pinned the
                // whole timeline: 16 bytes per time point).
                NodeKind::Until { .. } if self.true_left[i] => {
                    self.until[i].next.min(self.until[i].window.next_add)
                }
                NodeKind::Until { .. } => self.until[i].next,
                _ => continue,
            };
            min = min.min(need);
        }
        while self.timeline.head < min && !self.timeline.points.is_empty() {
            self.timeline.points.pop_front();
            self.timeline.head += 1;
        }
    }

    /// Updates node `i` with every position up to `pos` it can decide; `batch` holds the time
    /// points of the last positions (up to `pos`) that the scans have not read yet.
    fn update(
        &mut self,
        i: usize,
        pos: u64,
        batch: &[TimePoint],
        interner: &mut Interner,
    ) -> Result<(), Error> {
        let (children, rest) = self.streams.split_at_mut(i);
        let out = &mut rest[0];
        let tl = &self.timeline;
        let node = &self.plan.nodes[i];
        let warnings = &mut self.warnings;
        let buf = &mut self.buf;
        let arithmetic = self.plan.arithmetic;
        let eval_err =
            |e: rvmon_logic::eval::EvalError| Error::msg(format!("evaluation failed: {e}"));
        match &node.kind {
            NodeKind::Pred { sym, arity, args } => {
                // The batch holds the positions up to `pos`; a scan reads each one in the
                // first pass of its step.
                let first = (pos + 1).saturating_sub(batch.len() as u64);
                while out.end() <= pos {
                    let k = (out.end() - first) as usize;
                    let rel = if let Some(j) = self.same_scan[i] {
                        Rc::clone(&self.scans[j][k])
                    } else {
                        let tp = &batch[k];
                        let mut rel = Rel::default();
                        'events: for e in tp
                            .events
                            .iter()
                            .filter(|e| e.name == *sym && e.args_len as usize == *arity)
                        {
                            let vals = tp.args_of(e);
                            buf.clear();
                            buf.resize(node.vars.len(), Value::Int(0));
                            for (v, pat) in vals.iter().zip(args) {
                                match pat {
                                    ArgPat::Const(c) if c != v => continue 'events,
                                    ArgPat::Same(c) if buf[*c] != *v => continue 'events,
                                    ArgPat::Bind(c) => buf[*c] = *v,
                                    _ => {}
                                }
                            }
                            rel.insert_values(buf);
                        }
                        if rel.is_empty() {
                            Rc::clone(&out.empty)
                        } else {
                            Rc::new(rel)
                        }
                    };
                    self.scans[i].push(Rc::clone(&rel));
                    out.vals.push_back(rel);
                }
            }
            NodeKind::Const(_) => {
                while self.const_streamed[i] && out.end() <= pos {
                    // PERF: the same shared relation at every time point.
                    out.vals
                        .push_back(Rc::clone(self.consts[i].as_ref().expect("built in new")));
                }
            }
            NodeKind::Not(c) => {
                while let Some(r) = children[*c].get(out.end()) {
                    let v = if r.is_empty() { unit() } else { Rel::default() };
                    out.push(v);
                }
                children[*c].release(i, out.end());
            }
            NodeKind::Join {
                l,
                r,
                shared,
                r_new,
            } => {
                let mut made = 0;
                while let (Some(a), Some(b)) =
                    (children[*l].get(out.end()), children[*r].get(out.end()))
                {
                    let arities = (
                        self.plan.nodes[*l].vars.len(),
                        self.plan.nodes[*r].vars.len(),
                    );
                    let states = (&self.since[*l], &self.since[*r]);
                    let pos = out.end();
                    let (probed, through) = (&self.probed, &self.through);
                    let left = Tested::of(a, *l, pos, probed, through, &self.since);
                    let tested = Tested::of(b, *r, pos, probed, through, &self.since);
                    // PERF: most time points have an empty operand (a scan with no event).
                    if left.is_empty() || tested.is_empty() {
                        out.push(Rel::default());
                    } else if r_new.is_empty() && !matches!(left, Tested::Probe { .. }) {
                        // A semi-join: the right operand is its own index, probed with each
                        // left tuple (`enter(x) AND PREVIOUS ONCE enter(x)` costs the size of
                        // `enter`, not of the history).
                        let v = filter_shared(a, |x| {
                            buf.clear();
                            buf.resize(arities.1, Value::Int(0));
                            for &(li, ri) in shared {
                                buf[ri] = x[li];
                            }
                            tested.contains(&buf[..])
                        });
                        out.vals.push_back(v);
                    } else {
                        let mut v = Rel::default();
                        join_pairs(
                            a,
                            b,
                            shared,
                            r_new,
                            &left,
                            &tested,
                            states,
                            buf,
                            &mut |x, y| {
                                v.insert(joined(x, y, r_new));
                            },
                        );
                        made += v.len();
                        self.joined += v.len();
                        out.push(v);
                        // A batch of large joins would be held until the consumer runs:
                        // past a budget, let it take them first (memory as without batches).
                        if made > self.copies.join_budget {
                            self.copies.defer(i);
                            break;
                        }
                    }
                }
                // Either operand may be the one that waits.
                for (k, (late, early)) in [(*l, *r), (*r, *l)].into_iter().enumerate() {
                    let bounds = &self.bounds[i][k];
                    let small = self.copies.small;
                    reduce_waiting(bounds, children, small, &mut self.reduced[i], late, early);
                }
                let e = out.end();
                children[*l].release(i, e);
                children[*r].release(i, e);
            }
            NodeKind::ExistsJoin {
                l,
                r,
                shared,
                r_new,
                s,
                s_key,
                negated,
                over,
            } => {
                let (l_cols, r_cols) = join_cols(shared);
                let (mut key, mut cand) = (Vec::new(), Vec::new());
                loop {
                    let pos = out.end();
                    let (Some(a), Some(b), Some(c)) = (
                        children[*l].get(pos),
                        children[*r].get(pos),
                        children[*s].get(pos),
                    ) else {
                        break;
                    };
                    // A fused join's other operand (see `JoinOver`).
                    let other = match over {
                        Some(j) => match children[j.r].get(pos) {
                            Some(o) => Some((j, o)),
                            None => break,
                        },
                        None => None,
                    };
                    let st = &self.since[*r];
                    let (probed, through) = (&self.probed, &self.through);
                    let right = Tested::of(b, *r, pos, probed, through, &self.since);
                    let tested = Tested::of(c, *s, pos, probed, through, &self.since);
                    // Without `r` or `s`, no left tuple has a witness.
                    let testable = !right.is_empty() && !tested.is_empty();
                    // Whether `x` extended by some `y` is in `c`.
                    let witness = |x: &[Value], y: &Tuple, cand: &mut Vec<Value>| {
                        cand.clear();
                        cand.extend(s_key.iter().map(|&k| match k.checked_sub(x.len()) {
                            None => x[k],
                            Some(k) => y[r_new[k]],
                        }));
                        tested.contains(&cand[..])
                    };
                    // The right operand's tuples by the shared columns: its SINCE index when it
                    // is an indexed state (a versioned one's holds each tuple's entry
                    // position), otherwise an index built for this position.
                    // A versioned state's tuples are tested at this position (`upto`).
                    let upto = match right {
                        Tested::Probe { upto, .. } => Some(upto),
                        Tested::Rel(_) => None,
                        Tested::Through { .. } => unreachable!("walked, not tested"),
                    };
                    let indexed = match &st.views.join {
                        Some((cols, map)) if upto.is_some() => {
                            debug_assert!(*cols == r_cols);
                            Some(map)
                        }
                        Some((cols, map)) if Rc::ptr_eq(b, &st.out) && *cols == r_cols => Some(map),
                        _ => None,
                    };
                    let built = match indexed {
                        None if testable => index_by(b, &r_cols),
                        _ => FxHashMap::default(),
                    };
                    // The witnesses under the last key looked up. PERF: the pairs of a fused
                    // join's left tuple, and often consecutive left tuples, share their key
                    // (see `fuse_joins_into_exists_joins`); the data race looked the same
                    // lockset up for each of up to 50 threads.
                    let mut under = None;
                    // Whether the left tuple `x` is kept.
                    let mut keep = |x: &[Value], key: &mut Vec<Value>, buf: &mut Vec<Value>| {
                        if !testable {
                            return *negated;
                        }
                        if under.is_none() || !l_cols.iter().map(|&k| x[k]).eq(key.iter().copied())
                        {
                            key.clear();
                            key.extend(l_cols.iter().map(|&k| x[k]));
                            under = Some(match indexed {
                                Some(map) => Witnesses::Indexed(map.get(&key[..])),
                                None => Witnesses::Built(built.get(&key[..])),
                            });
                        }
                        *negated
                            != match under.expect("looked up") {
                                Witnesses::Indexed(ys) => ys.is_some_and(|ys| {
                                    ys.iter().any(|(y, &entered)| {
                                        upto.is_none_or(|v| visible_from(st, y, entered, v))
                                            && witness(x, y, buf)
                                    })
                                }),
                                Witnesses::Built(ys) => {
                                    ys.is_some_and(|ys| ys.iter().any(|y| witness(x, y, buf)))
                                }
                            }
                    };
                    let Some((j, o)) = other else {
                        let v = if testable {
                            filter_shared(a, |x| keep(x, &mut key, buf))
                        } else if *negated {
                            Rc::clone(a)
                        } else {
                            EMPTY.with(Rc::clone)
                        };
                        out.vals.push_back(v);
                        continue;
                    };
                    // The join's pairs, each tested as it is made: only those kept are built.
                    let left = Tested::of(a, *l, pos, probed, through, &self.since);
                    let right_j = Tested::of(o, j.r, pos, probed, through, &self.since);
                    let mut v = Rel::default();
                    if left.is_empty() || right_j.is_empty() || (!testable && !*negated) {
                        out.push(v);
                        continue;
                    }
                    let mut jbuf = Vec::new();
                    if j.r_new.is_empty() && !matches!(left, Tested::Probe { .. }) {
                        // A semi-join, as the join would make it: `o` tests each tuple of `a`.
                        let arity = self.plan.nodes[j.r].vars.len();
                        for x in a.iter() {
                            jbuf.clear();
                            jbuf.resize(arity, Value::Int(0));
                            for &(li, ri) in &j.shared {
                                jbuf[ri] = x[li];
                            }
                            if right_j.contains(&jbuf[..]) && keep(x, &mut key, buf) {
                                v.insert_values(x);
                            }
                        }
                    } else {
                        let states = (&self.since[*l], &self.since[j.r]);
                        join_pairs(
                            a,
                            o,
                            &j.shared,
                            &j.r_new,
                            &left,
                            &right_j,
                            states,
                            &mut jbuf,
                            &mut |x, y| {
                                cand.clear();
                                cand.extend_from_slice(x);
                                cand.extend(j.r_new.iter().map(|&c| y[c]));
                                if keep(&cand, &mut key, buf) {
                                    v.insert_values(&cand);
                                }
                            },
                        );
                    }
                    out.push(v);
                }
                let e = out.end();
                for n in [*l, *r, *s] {
                    children[n].release(i, e);
                }
                if let Some(j) = over {
                    children[j.r].release(i, e);
                }
            }
            NodeKind::AntiJoin { l, r, key } => {
                while let (Some(a), Some(b)) =
                    (children[*l].get(out.end()), children[*r].get(out.end()))
                {
                    let (probed, through) = (&self.probed, &self.through);
                    let tested = Tested::of(b, *r, out.end(), probed, through, &self.since);
                    let v = if tested.is_empty() {
                        Rc::clone(a)
                    } else {
                        filter_shared(a, |t| !tested.contains(key_in(buf, t, key)))
                    };
                    out.vals.push_back(v);
                }
                reduce_waiting(
                    &self.bounds[i][0],
                    children,
                    self.copies.small,
                    &mut self.reduced[i],
                    *l,
                    *r,
                );
                let e = out.end();
                children[*l].release(i, e);
                children[*r].release(i, e);
            }
            NodeKind::Filter {
                l,
                op,
                lhs,
                rhs,
                negated,
                resolved,
            } => {
                while let Some(a) = children[*l].get(out.end()) {
                    if let Some(operands) = resolved {
                        out.push(filter_resolved(a, *op, operands, *negated, interner)?);
                        continue;
                    }
                    let mut v = Rel::default();
                    for t in a.iter() {
                        let env = |x: &str| node.vars.iter().position(|y| y == x).map(|c| t[c]);
                        let lv =
                            eval_term_with(arithmetic, lhs, &env, interner).map_err(eval_err)?;
                        let rv =
                            eval_term_with(arithmetic, rhs, &env, interner).map_err(eval_err)?;
                        if compared(*op, &lv, &rv, interner)? != *negated {
                            v.insert(t.clone());
                        }
                    }
                    out.push(v);
                }
                let e = out.end();
                children[*l].release(i, e);
            }
            NodeKind::StrRel {
                l,
                lhs,
                rhs,
                regex,
                groups,
                negated,
            } => {
                // Its own names for its operand's columns (the first ones of its own): the
                // operand may be shared under other names.
                let lvars = &node.vars[..self.plan.nodes[*l].vars.len()];
                while let Some(a) = children[*l].get(out.end()) {
                    let mut v = Rel::default();
                    for t in a.iter() {
                        let env = |x: &str| lvars.iter().position(|y| y == x).map(|c| t[c]);
                        let text = |val: Value, interner: &Interner| match val {
                            Value::Str(s) => Ok(interner.resolve(s).to_string()),
                            _ => Err(Error::msg(
                                "type error: a string relation on a value that is not a string",
                            )),
                        };
                        let s = text(
                            eval_term_with(arithmetic, lhs, &env, interner).map_err(eval_err)?,
                            interner,
                        )?;
                        let mut extra: Vec<Value> = Vec::new();
                        let holds = match regex {
                            None => {
                                let r = text(
                                    eval_term_with(arithmetic, rhs, &env, interner)
                                        .map_err(eval_err)?,
                                    interner,
                                )?;
                                r.contains(&s)
                            }
                            Some(re) => match rvmon_logic::strrel::match_groups(re, &s) {
                                None => false,
                                Some(caps) => {
                                    let mut ok = true;
                                    for (k, g) in groups.iter().enumerate() {
                                        let cap = caps.get(k).cloned().flatten();
                                        ok = match (g, cap) {
                                            (GroupOp::Skip, _) => true,
                                            (_, None) => false,
                                            (GroupOp::Bind, Some(c)) => {
                                                extra.push(Value::Str(interner.intern(&c)));
                                                true
                                            }
                                            (GroupOp::SameCol(col), Some(c)) => {
                                                matches!(t[*col], Value::Str(x) if interner.resolve(x) == c)
                                            }
                                            (GroupOp::SameGroup(j), Some(c)) => {
                                                caps.get(*j).cloned().flatten().as_deref()
                                                    == Some(c.as_str())
                                            }
                                            (GroupOp::SameTerm(term), Some(c)) => {
                                                let x = eval_term_with(
                                                    arithmetic, term, &env, interner,
                                                )
                                                .map_err(eval_err)?;
                                                matches!(x, Value::Str(x) if interner.resolve(x) == c)
                                            }
                                        };
                                        if !ok {
                                            break;
                                        }
                                    }
                                    ok
                                }
                            },
                        };
                        if holds != *negated {
                            let mut nt = t.to_vec();
                            nt.extend(extra);
                            v.insert(nt.into());
                        }
                    }
                    out.push(v);
                }
                let e = out.end();
                children[*l].release(i, e);
            }
            NodeKind::Assign { l, term } => {
                // Its own names, as for a string relation.
                let lvars = &node.vars[..self.plan.nodes[*l].vars.len()];
                while let Some(a) = children[*l].get(out.end()) {
                    let mut v = Rel::default();
                    for t in a.iter() {
                        let env = |x: &str| lvars.iter().position(|y| y == x).map(|c| t[c]);
                        let x =
                            eval_term_with(arithmetic, term, &env, interner).map_err(eval_err)?;
                        let mut nt = t.to_vec();
                        nt.push(x);
                        v.insert(nt.into());
                    }
                    out.push(v);
                }
                let e = out.end();
                children[*l].release(i, e);
            }
            NodeKind::Union { l, r, r_order } => {
                while let (Some(a), Some(b)) =
                    (children[*l].get(out.end()), children[*r].get(out.end()))
                {
                    let mut v = (**a).clone();
                    v.extend(b.iter().map(|t| project(t, r_order)));
                    out.push(v);
                }
                let e = out.end();
                children[*l].release(i, e);
                children[*r].release(i, e);
            }
            NodeKind::Project { c, .. } if self.through[i].is_some() => {
                // Its readers test the state itself: only its markers pass. The state's
                // removals stay visible until this projection's readers have passed them
                // (see [`purge`]), so it is released only as far as they released this one.
                while let Some(a) = children[*c].get(out.end()) {
                    out.vals.push_back(Rc::clone(a));
                }
                children[*c].release(i, out.head);
            }
            NodeKind::Project { c, keep } => {
                while let Some(a) = children[*c].get(out.end()) {
                    // PERF: over a SINCE state that is current, apply its changes to a kept
                    // projection instead of projecting the whole state again.
                    let incremental = match (&mut self.proj[i], &mut self.since[*c]) {
                        (Some(ps), st) if Rc::ptr_eq(a, &st.out) => {
                            // A `PREVIOUS` above holds the last projection until its next
                            // position: wait for it rather than copy the projection at every
                            // time point (`EXISTS s. PREVIOUS (… SINCE acq(s,l))` of DejaVu's
                            // lock properties).
                            if self.copies.must_wait(i, &ps.out, || true) {
                                break;
                            }
                            let pout = Rc::make_mut(&mut ps.out);
                            let log = st.views.log.get_or_insert_with(Vec::new);
                            if !ps.synced {
                                ps.counts.clear();
                                pout.clear();
                                for t in a.iter() {
                                    *ps.counts.entry(project(t, keep)).or_default() += 1;
                                }
                                pout.extend(ps.counts.keys().cloned());
                                ps.synced = true;
                            } else {
                                for (ins, t) in log.iter() {
                                    let key = project(t, keep);
                                    if *ins {
                                        let n = ps.counts.entry(key.clone()).or_default();
                                        *n += 1;
                                        if *n == 1 {
                                            pout.insert(key);
                                        }
                                    } else if let Some(n) = ps.counts.get_mut(&key) {
                                        *n -= 1;
                                        if *n == 0 {
                                            ps.counts.remove(&key);
                                            pout.remove(&key);
                                        }
                                    }
                                }
                            }
                            log.clear();
                            Some(Rc::clone(&ps.out))
                        }
                        (Some(ps), st) => {
                            // Out of step (the parent lags): recompute from scratch next time.
                            ps.synced = false;
                            if let Some(log) = &mut st.views.log {
                                log.clear();
                            }
                            None
                        }
                        _ => None,
                    };
                    match incremental {
                        Some(v) => out.vals.push_back(v),
                        // PERF: a tuple is allocated only for a new projected tuple (most
                        // projections fold many tuples into few), and a projection onto no
                        // column is an emptiness test (a closed formula's violations).
                        None if keep.is_empty() => {
                            out.vals.push_back(if a.is_empty() {
                                Rc::clone(&out.empty)
                            } else {
                                PRESENT.with(Rc::clone)
                            });
                        }
                        None => {
                            let mut v = Rel::default();
                            for t in a.iter() {
                                v.insert_values(key_in(buf, t, keep));
                            }
                            out.push(v);
                        }
                    }
                }
                let e = out.end();
                children[*c].release(i, e);
            }
            NodeKind::Agg {
                c,
                op,
                over,
                group,
                default,
            } => {
                while let Some(a) = children[*c].get(out.end()) {
                    if a.is_empty() && group.is_empty() && !matches!(op, AggOp::Cnt | AggOp::Sum) {
                        // MonPoly's convention, and its warning.
                        warnings.push(format!(
                            "WARNING: {} applied on empty relation! Resulting value is {}, by (our) convention.",
                            op.keyword(),
                            crate::rel::value_text(default, interner)
                        ));
                    }
                    let v = aggregate(a, *op, *over, group, *default, interner)?;
                    out.push(v);
                }
                let e = out.end();
                children[*c].release(i, e);
            }
            NodeKind::Prev { w, c } => {
                let next = &mut self.cursors[i];
                while *next <= pos {
                    let v = if *next == 0 {
                        EMPTY.with(Rc::clone)
                    } else {
                        match children[*c].get(*next - 1) {
                            Some(r) if w.contains(tl.ts(*next) - tl.ts(*next - 1)) => Rc::clone(r),
                            Some(_) => EMPTY.with(Rc::clone),
                            None => break,
                        }
                    };
                    out.vals.push_back(v);
                    *next += 1;
                }
                children[*c].release(i, next.saturating_sub(1));
            }
            NodeKind::Next { w, c } => {
                let next = &mut self.cursors[i];
                while *next < pos || (self.at_end && *next == pos) {
                    let v = if *next == pos {
                        EMPTY.with(Rc::clone)
                    } else {
                        match children[*c].get(*next + 1) {
                            Some(r) if w.contains(tl.ts(*next + 1) - tl.ts(*next)) => Rc::clone(r),
                            Some(_) => EMPTY.with(Rc::clone),
                            None => break,
                        }
                    };
                    out.vals.push_back(v);
                    *next += 1;
                }
                children[*c].release(i, *next + 1);
            }
            NodeKind::Since {
                w,
                l,
                r,
                negated,
                l_key,
                guard,
                lag,
            } => {
                // A guard may test the states of the nodes below (its leaves) in place.
                let (below, here) = self.since.split_at_mut(i);
                let st = &mut here[0];
                let (probed, through) = (&self.probed, &self.through);
                let true_left = self.true_left[i];
                if st.inputs.is_empty() {
                    st.inputs.push(*r);
                    match guard {
                        Some(g) => g.leaves(&mut st.inputs),
                        None if true_left => {}
                        None => st.inputs.push(*l),
                    }
                }
                let consts = &self.consts;
                let trigger = self.triggers[i].as_ref();
                let inputs = std::mem::take(&mut st.inputs);
                let identity = l_key.len() == node.vars.len()
                    && l_key.iter().enumerate().all(|(k, &c)| k == c);
                // Absorbs the operands at `st.absorbed` into the state (in place when no
                // snapshot of the state is still held).
                let copies = &mut self.copies;
                let mut absorb = |st: &mut SinceState,
                                  children: &[Stream],
                                  buf: &mut Vec<Value>|
                 -> bool {
                    let at = st.absorbed;
                    if !inputs.iter().all(|&n| children[n].get(at).is_some()) {
                        return false;
                    }
                    let t = tl.ts(at);
                    let leaves = Leaves {
                        streams: children,
                        probed,
                        through,
                        since: below,
                    };
                    let b = children[*r].get(at).expect("checked");
                    let a = match guard {
                        Some(_) => None,
                        None if true_left => Some(consts[*l].as_ref().expect("a constant")),
                        None => Some(children[*l].get(at).expect("checked")),
                    };
                    // The tuples a guard with a trigger rejects now (the others hold).
                    let failed = match (guard, trigger) {
                        (Some(g), Some(trigger)) => {
                            guard_failures(st, g, trigger, &leaves, at, buf)
                        }
                        _ => Vec::new(),
                    };
                    // Only a step that changes the output must wait for its last snapshot to
                    // be released (most do not: with a batch of positions, the others go on).
                    let changes = || match a {
                        None if trigger.is_some() => {
                            !failed.is_empty() || since_add_changes_output(st, w, b, t)
                        }
                        None => true,
                        Some(a) => {
                            since_step_changes_output(a, *negated, l_key)
                                || since_add_changes_output(st, w, b, t)
                        }
                    };
                    if copies.must_wait(i, &st.out, changes) {
                        return false;
                    }
                    match (guard, a) {
                        (Some(g), _) if trigger.is_some() => {
                            since_remove(st, &failed);
                            st.young
                                .retain(|(_, tuple)| eval_guard(g, tuple, &leaves, at, buf));
                            since_add(st, w, b, t, false, &[], true);
                        }
                        (Some(g), _) => {
                            since_retain(st, &mut |tuple| eval_guard(g, tuple, &leaves, at, buf));
                            since_add(st, w, b, t, false, &[], true);
                        }
                        (None, a) => {
                            let a = a.expect("no guard: a left operand");
                            since_step(st, a, *negated, l_key, identity, buf);
                            since_add(st, w, b, t, *negated, l_key, identity);
                        }
                    }
                    st.absorbed += 1;
                    true
                };
                // A probed state hands out no snapshot: its consumers test it in place, and the
                // stream only says which positions are absorbed. Its readers have released the
                // positions below the stream's head, so removals at or before the head (less a
                // fused PREVIOUS's lag) are seen by none.
                let versioned = st.versioned;
                if versioned && !st.tombs.is_empty() {
                    let lag = self.probed[i].expect("a versioned state is probed");
                    purge(st, out.head.saturating_sub(lag));
                }
                let shown = |st: &SinceState| {
                    if versioned {
                        PRESENT.with(Rc::clone)
                    } else {
                        Rc::clone(&st.out)
                    }
                };
                match lag {
                    None => {
                        while absorb(st, children, buf) {
                            out.vals.push_back(shown(st));
                        }
                    }
                    // PREVIOUS fused in: position p shows the state after p-1, and p-1 is
                    // absorbed only now, after the parent has released p-1's snapshot.
                    Some(pw) => loop {
                        let p = out.end();
                        if p > pos {
                            break;
                        }
                        if st.absorbed < p && !absorb(st, children, buf) {
                            break;
                        }
                        let v = if p > 0 && pw.contains(tl.ts(p) - tl.ts(p - 1)) {
                            shown(st)
                        } else {
                            EMPTY.with(Rc::clone)
                        };
                        out.vals.push_back(v);
                    },
                }
                let e = st.absorbed;
                for &n in &inputs {
                    children[n].release(i, e);
                }
                // A `TRUE` left operand, or the one a guard replaces, is not read; but another
                // node may read the same (shared) constant, which waits for every reader.
                if !inputs.contains(l) {
                    children[*l].release(i, e);
                }
                st.inputs = inputs;
            }
            NodeKind::Until {
                w,
                l,
                r,
                negated,
                l_key,
                guard,
            } => {
                // (The compiler refuses a future window without an end, at its place in the
                // formula: `Compiler::bounded_future`.)
                let hi = w.hi.expect("a future window has an end");
                let st = &mut self.until[i];
                let eventually = self.true_left[i];
                let leaves = &self.reads[i];
                loop {
                    let n = st.next;
                    if n > pos {
                        break;
                    }
                    let tn = tl.ts(n);
                    // The first position beyond the window, if it has arrived.
                    let mut q = st.scan.max(n);
                    while q <= pos && tl.ts(q) - tn <= hi {
                        q += 1;
                    }
                    st.scan = q;
                    if q > pos && !self.at_end {
                        break;
                    }
                    // Operand streams are contiguous: the last position decides availability.
                    let last = q.max(n + 1) - 1;
                    // `end()` rather than `get()`: an EVENTUALLY drops its operand's positions
                    // as soon as its window has absorbed them.
                    if leaves.iter().any(|&c| children[c].end() <= last) {
                        break;
                    }
                    if eventually {
                        let win = &mut st.window;
                        win.next_add = win.next_add.max(n);
                        // The window starts at position n (later positions only) and at ts_n + a.
                        let gone =
                            |(pb, tb, _): &(u64, Timestamp, Tuple)| *pb < n || *tb - tn < w.lo;
                        let arrives = (win.next_add..q).any(|p| {
                            tl.ts(p) - tn >= w.lo
                                && !children[*r].get(p).expect("checked").is_empty()
                        });
                        // PERF: when no tuple enters or leaves (most positions: the windows of
                        // time points with equal timestamps differ by positions without
                        // tuples), the union is shared as it is: no copy, and no wait for the
                        // consumer to release the previous snapshot.
                        if !arrives && !win.presences.front().is_some_and(gone) {
                            win.next_add = win.next_add.max(q);
                            out.vals.push_back(Rc::clone(&win.out));
                            st.next += 1;
                            continue;
                        }
                        // PERF: only a tuple that enters the union or leaves it makes the step
                        // wait for the snapshot its consumer holds; a new presence of a tuple
                        // already in it (P4's `EVENTUALLY[10m,20m] net(c)`: a hundred computers,
                        // each on the network every few minutes) changes the window, not the
                        // union. A departure whose tuple is present again in this step counts
                        // as a change too (too often, never too rarely).
                        let changes = || {
                            let enters = (win.next_add..q).any(|p| {
                                tl.ts(p) - tn >= w.lo
                                    && children[*r]
                                        .get(p)
                                        .expect("checked")
                                        .iter()
                                        .any(|t| !win.last.contains_key(t))
                            });
                            enters
                                || win
                                    .presences
                                    .iter()
                                    .take_while(|x| gone(x))
                                    .any(|(pb, _, t)| win.last.get(t) == Some(pb))
                        };
                        if self.copies.must_wait(i, &win.out, changes) {
                            break;
                        }
                        // The union is made unique (copied if a snapshot is still held) only
                        // when it changes; once unique, `make_mut` is a check of the count.
                        while win.next_add < q {
                            let p = win.next_add;
                            let tp = tl.ts(p);
                            if tp - tn >= w.lo {
                                for t in children[*r].get(p).expect("checked").iter() {
                                    if win.last.insert(t.clone(), p).is_none() {
                                        Rc::make_mut(&mut win.out).insert(t.clone());
                                    }
                                    win.presences.push_back((p, tp, t.clone()));
                                }
                            }
                            win.next_add += 1;
                        }
                        while win.presences.front().is_some_and(gone) {
                            let (pb, _, t) = win.presences.pop_front().expect("checked");
                            if win.last.get(&t) == Some(&pb) {
                                win.last.remove(&t);
                                Rc::make_mut(&mut win.out).remove(&t);
                            }
                        }
                        win.compact();
                        out.vals.push_back(Rc::clone(&win.out));
                        st.next += 1;
                        continue;
                    }
                    // Backwards: S_j = R_j (if old enough) ∪ {t ∈ S_{j+1} | left holds for t at j}.
                    let mut acc = Rel::default();
                    for j in (n..q).rev() {
                        match guard {
                            Some(g) => {
                                let guard_leaves = Leaves {
                                    streams: children,
                                    probed: &self.probed,
                                    through: &self.through,
                                    since: &self.since,
                                };
                                acc.retain(|tuple| eval_guard(g, tuple, &guard_leaves, j, buf));
                            }
                            None => {
                                let a = children[*l].get(j).expect("checked");
                                acc.retain(|tuple| contains_key(a, tuple, l_key, buf) != *negated);
                            }
                        }
                        if tl.ts(j) - tn >= w.lo {
                            acc.extend(children[*r].get(j).expect("checked").iter().cloned());
                        }
                    }
                    out.push(acc);
                    st.next += 1;
                }
                let e = st.next;
                children[*l].release(i, e);
                // PERF: what the window has absorbed is not needed again; keeping it would pin
                // one snapshot of a changing operand per time point of the window.
                children[*r].release(
                    i,
                    if eventually {
                        e.max(st.window.next_add)
                    } else {
                        e
                    },
                );
                if let Some(g) = guard {
                    let mut leaves = Vec::new();
                    g.leaves(&mut leaves);
                    for n in leaves {
                        children[n].release(i, e);
                    }
                }
            }
        }
        Ok(())
    }
}

/// A join (or `AND NOT`) whose operand `early` has arrived while `late` has not keeps the
/// early relations until `late` catches up. When they are snapshots of a temporal operator's
/// state (P3 of paper 04: a day's window of logouts, waiting 20 minutes for the other side),
/// that is a copy of the state per waiting position. Only the early tuples that can meet a late
/// tuple matter, and a bound on the late operand is often already there: an operand of it that
/// is known at the same position (the scan in `ssh_login(c,s) AND EVENTUALLY …`). Early tuples
/// that agree with no tuple of that bound are dropped, which also releases the snapshot.
///
/// PERF: inlined to the check that anything waits (at most time points, nothing does); the
/// reduction itself is out of line.
#[inline]
fn reduce_waiting(
    bounds: &[Bound],
    children: &mut [Stream],
    small: usize,
    from: &mut u64,
    late: usize,
    early: usize,
) {
    let start = (*from).max(children[late].end()).max(children[early].head);
    if !bounds.is_empty() && start < children[early].end() {
        reduce_waiting_from(bounds, children, small, from, start, early);
    }
}

#[inline(never)]
fn reduce_waiting_from(
    bounds: &[Bound],
    children: &mut [Stream],
    small: usize,
    from: &mut u64,
    start: u64,
    early: usize,
) {
    let end = children[early].end();
    for p in start..end {
        let rel = children[early].get(p).expect("in range");
        // Small relations cost little to keep.
        if rel.len() <= small {
            continue;
        }
        let Some(b) = bounds.iter().find(|b| children[b.node].get(p).is_some()) else {
            continue;
        };
        let known = children[b.node].get(p).expect("found at p");
        let kept: Rel = match &b.whole {
            // The bound fixes whole early tuples: look them up.
            Some(order) => known
                .iter()
                .map(|t| project(t, order))
                .filter(|t| rel.contains(t))
                .collect(),
            None => {
                let keys: FxHashSet<Tuple> = known.iter().map(|t| project(t, &b.b_cols)).collect();
                rel.iter()
                    .filter(|t| keys.contains(&project(t, &b.e_cols)))
                    .cloned()
                    .collect()
            }
        };
        let k = (p - children[early].head) as usize;
        children[early].vals[k] = if kept.is_empty() {
            EMPTY.with(Rc::clone)
        } else {
            Rc::new(kept)
        };
    }
    *from = (*from).max(end);
}

/// A node at or below a join's late operand that bounds it wherever its relation is known:
/// every tuple of the late operand agrees with one of its tuples on the shared variables that
/// mean the same thing along the whole path down (narrowed on the way, so that a variable
/// renamed under a projection is not confused with another).
#[derive(Debug)]
struct Bound {
    node: usize,
    /// The columns of `node` and of the early operand on which they must agree.
    b_cols: Vec<usize>,
    e_cols: Vec<usize>,
    /// When those are all of the early operand's columns: for each early column, the column of
    /// `node` that gives it.
    whole: Option<Vec<usize>>,
}

/// The candidate bounds of `late` for `early` in depth-first order, computed once per join: at
/// a position, the first one whose relation is known is the bound (a node whose relation is
/// known is used before anything below it, as it comes first).
fn bound_candidates(plan: &Plan, late: usize, early: usize) -> Vec<Bound> {
    fn go(plan: &Plan, x: usize, early: usize, allowed: &[&str], out: &mut Vec<Bound>) {
        // A node shared under other names may name its columns differently from this path.
        if plan.nodes[x].renamed {
            return;
        }
        let vars = &plan.nodes[x].vars;
        let allowed: Vec<&str> = allowed
            .iter()
            .copied()
            .filter(|v| vars.iter().any(|x| x == v))
            .collect();
        if allowed.is_empty() {
            return;
        }
        let col = |node: usize, v: &str| plan.nodes[node].vars.iter().position(|x| x == v);
        let b_cols: Vec<usize> = allowed.iter().filter_map(|v| col(x, v)).collect();
        let e_cols: Vec<usize> = allowed.iter().filter_map(|v| col(early, v)).collect();
        let whole = (e_cols.len() == plan.nodes[early].vars.len()).then(|| {
            let mut order = vec![0; e_cols.len()];
            for (k, &c) in e_cols.iter().enumerate() {
                order[c] = b_cols[k];
            }
            order
        });
        out.push(Bound {
            node: x,
            b_cols,
            e_cols,
            whole,
        });
        let below: &[usize] = match &plan.nodes[x].kind {
            NodeKind::Join { l, r, .. } => &[*l, *r],
            NodeKind::AntiJoin { l, .. }
            | NodeKind::ExistsJoin { l, .. }
            | NodeKind::Filter { l, .. }
            | NodeKind::StrRel { l, .. }
            | NodeKind::Assign { l, .. } => std::slice::from_ref(l),
            NodeKind::Project { c, .. } => std::slice::from_ref(c),
            _ => &[],
        };
        for &c in below {
            go(plan, c, early, &allowed, out);
        }
    }
    if plan.nodes[early].renamed {
        return Vec::new();
    }
    let allowed: Vec<&str> = plan.nodes[late]
        .vars
        .iter()
        .filter(|v| plan.nodes[early].vars.contains(v))
        .map(String::as_str)
        .collect();
    let mut out = Vec::new();
    go(plan, late, early, &allowed, &mut out);
    out
}

/// See [`FoEngine::probed`].
fn probed_states(
    plan: &Plan,
    reads: &[Vec<usize>],
    future: &[bool],
    since: &[SinceState],
    through: &[Option<usize>],
    triggers: &[Option<GuardTrigger>],
) -> Vec<Option<u64>> {
    let mut probed: Vec<Option<u64>> = plan
        .nodes
        .iter()
        .enumerate()
        .map(|(i, node)| match &node.kind {
            NodeKind::Since { w, lag, .. } if w.hi.is_none() && !future[i] => {
                Some(u64::from(lag.is_some()))
            }
            _ => None,
        })
        .collect();
    probed[plan.root()] = None;
    // Whether state `x` keeps an index on exactly these columns.
    let indexed_on = |x: usize, cols: &[usize]| {
        !cols.is_empty()
            && since[x]
                .views
                .join
                .as_ref()
                .is_some_and(|(c, _)| c[..] == *cols)
    };
    // A semi-join tests its right operand; a join that adds columns probes either operand
    // through its index on the shared columns ([`probe_versioned`]), which holds each tuple's
    // entry position. (PERF: locks-cycles 1,103 M -> 895 M instructions on its 100 k log, the
    // data race 5.37 G -> 5.28 G; with a lookup of each candidate's position in the state
    // instead, the data race took 5.61 G.)
    let join_tests = |kind: &NodeKind, x: usize| {
        let Some((l, r, shared, r_new)) = join_parts(kind) else {
            return false;
        };
        let cols: Vec<usize> = if x == r {
            shared.iter().map(|p| p.1).collect()
        } else {
            shared.iter().map(|p| p.0).collect()
        };
        l != r && ((x == r && r_new.is_empty()) || indexed_on(x, &cols))
    };
    for (i, node) in plan.nodes.iter().enumerate() {
        let tests = |x: usize| match &node.kind {
            // A projection tested through its state's index (see [`FoEngine::through`]).
            NodeKind::Project { .. } => through[i] == Some(x),
            // A past operator's guard tests its leaves ([`eval_guard`]), but walks those of
            // its trigger ([`guard_failures`]).
            NodeKind::Since {
                r, guard: Some(g), ..
            } => {
                let mut leaves = Vec::new();
                g.leaves(&mut leaves);
                x != *r
                    && leaves.contains(&x)
                    && !triggers[i].as_ref().is_some_and(|t| t.leaves.contains(&x))
            }
            NodeKind::Join { .. } => join_tests(&node.kind, x),
            NodeKind::AntiJoin { l, r, .. } => *r == x && *l != x,
            // An existential join tests `s`, and probes `r` through its index. A join fused
            // into it probes its operands as the join would; an operand in both roles must
            // be probed in both.
            NodeKind::ExistsJoin {
                l,
                r,
                s,
                shared,
                over,
                ..
            } => {
                let cols: Vec<usize> = shared.iter().map(|p| p.1).collect();
                let in_join = over.as_ref().is_some_and(|j| x == *l || x == j.r);
                let in_test = x == *r || x == *s;
                // Probed as `r` through its index, and tested as `s`, or both (one state
                // shared up to renaming, as the data race's two locksets).
                let test_ok = x != *r || indexed_on(x, &cols);
                // Without a fused join, the left operand is walked: a state that is also the
                // witness or test operand (`ONCE R(x) AND NOT EXISTS y. (Q(x,y) AND ONCE
                // R(y))`, one state up to renaming) must hand out its tuples, not markers.
                let walked = over.is_none() && x == *l;
                (in_join || in_test)
                    && !walked
                    && (!in_join || join_tests(&node.kind, x))
                    && (!in_test || test_ok)
            }
            _ => false,
        };
        for &x in &reads[i] {
            if !tests(x) {
                probed[x] = None;
            }
        }
    }
    // A join probes one versioned operand, walking the other; a semi-join whose right operand
    // is tested through its state walks its left one.
    for node in &plan.nodes {
        if let Some((l, r, ..)) = join_parts(&node.kind) {
            let r_probed = probed[r].is_some() || through[r].is_some_and(|c| probed[c].is_some());
            if probed[l].is_some() && r_probed {
                probed[l] = None;
            }
        }
    }
    probed
}

/// (left operand, right operand, shared columns, new right columns).
type JoinParts<'a> = (usize, usize, &'a [(usize, usize)], &'a [usize]);

/// A join's operands, shared columns and new right columns: those of a [`NodeKind::Join`], or
/// of the join fused into an exists-join.
fn join_parts(kind: &NodeKind) -> Option<JoinParts<'_>> {
    match kind {
        NodeKind::Join {
            l,
            r,
            shared,
            r_new,
        } => Some((*l, *r, shared, r_new)),
        NodeKind::ExistsJoin {
            l, over: Some(j), ..
        } => Some((*l, j.r, &j.shared, &j.r_new)),
        _ => None,
    }
}

/// Whether node `reader` only tests the tuples of its operand `p`, so that `p` may be a
/// projection tested through its state (see [`FoEngine::through`]).
fn tests_through(reader: &NodeKind, p: usize) -> bool {
    match reader {
        NodeKind::AntiJoin { l, r, .. } => *r == p && *l != p,
        NodeKind::Join { l, r, r_new, .. } => *r == p && *l != p && r_new.is_empty(),
        NodeKind::ExistsJoin { l, r, s, over, .. } => {
            *s == p && *l != p && *r != p && over.as_ref().is_none_or(|j| j.r != p)
        }
        _ => false,
    }
}

/// An exists-join's witnesses under one key: from its right operand's index, or from an index
/// built for the position.
#[derive(Clone, Copy)]
enum Witnesses<'a> {
    Indexed(Option<&'a Bucket>),
    Built(Option<&'a Vec<&'a Tuple>>),
}

/// The right operand of a semi-join or anti-join as it tests tuples at one position: its
/// relation there, or, for a probed `ONCE` (see [`FoEngine::probed`]), its state as it was
/// there.
enum Tested<'a> {
    Rel(&'a Rel),
    Probe {
        st: &'a SinceState,
        /// The state as it was at this position (see [`visible`]).
        upto: u64,
    },
    /// A projection of a probed state, tested through the state's index on the projected
    /// columns (see [`FoEngine::through`]).
    Through {
        st: &'a SinceState,
        upto: u64,
    },
}

impl<'a> Tested<'a> {
    /// Node `node`'s relation `shown` at position `pos`. A probed state's stream holds a
    /// marker, empty where the state does not count (see [`PRESENT`]), and so does that of a
    /// projection tested through one; `probed` holds their lags, `since` the states.
    #[inline(always)]
    fn of(
        shown: &'a Rel,
        node: usize,
        pos: u64,
        probed: &[Option<u64>],
        through: &[Option<usize>],
        since: &'a [SinceState],
    ) -> Tested<'a> {
        if shown.is_empty() {
            return Tested::Rel(shown);
        }
        match (probed[node], through[node]) {
            (Some(lag), _) => Tested::Probe {
                st: &since[node],
                upto: pos - lag,
            },
            (None, Some(c)) => Tested::Through {
                st: &since[c],
                upto: pos - probed[c].expect("tested through a probed state"),
            },
            (None, None) => Tested::Rel(shown),
        }
    }

    fn is_empty(&self) -> bool {
        match self {
            Tested::Rel(rel) => rel.is_empty(),
            // (Not empty while a removed tuple may still be visible.)
            Tested::Probe { st, .. } | Tested::Through { st, .. } => {
                st.ripe.is_empty() && st.gone.is_empty()
            }
        }
    }

    fn contains(&self, t: &[Value]) -> bool {
        match self {
            Tested::Rel(rel) => rel.contains(t),
            Tested::Probe { st, upto } => visible(st, t, *upto),
            Tested::Through { st, upto } => any_visible_under(st, t, *upto, |_| true),
        }
    }
}

/// What a guard reads its leaves from: their streams and, for a leaf that is a probed state
/// (see [`FoEngine::probed`]), the state itself (`since` holds at least the states of the
/// nodes below the guard's operator).
struct Leaves<'a> {
    streams: &'a [Stream],
    probed: &'a [Option<u64>],
    through: &'a [Option<usize>],
    since: &'a [SinceState],
}

/// Evaluates a guard on `tuple` with the leaves' relations at position `at`.
fn eval_guard(g: &Guard, tuple: &[Value], leaves: &Leaves, at: u64, buf: &mut Vec<Value>) -> bool {
    match g {
        Guard::Const(b) => *b,
        Guard::Rel { node, key } => {
            let shown = leaves.streams[*node].get(at).expect("available");
            let tested = Tested::of(
                shown,
                *node,
                at,
                leaves.probed,
                leaves.through,
                leaves.since,
            );
            tested.contains(key_in(buf, tuple, key))
        }
        Guard::Not(h) => !eval_guard(h, tuple, leaves, at, buf),
        Guard::And(a, b) => {
            eval_guard(a, tuple, leaves, at, buf) && eval_guard(b, tuple, leaves, at, buf)
        }
        Guard::Or(a, b) => {
            eval_guard(a, tuple, leaves, at, buf) || eval_guard(b, tuple, leaves, at, buf)
        }
    }
}

/// `t` projected onto `cols`, in the scratch buffer `buf` (no allocation).
#[inline]
fn key_in<'b>(buf: &'b mut Vec<Value>, t: &[Value], cols: &[usize]) -> &'b [Value] {
    buf.clear();
    buf.extend(cols.iter().map(|&c| t[c]));
    buf
}

/// Whether `rel` contains `t` projected onto `cols`.
#[inline]
fn contains_key(rel: &Rel, t: &[Value], cols: &[usize], buf: &mut Vec<Value>) -> bool {
    rel.contains(key_in(buf, t, cols))
}

/// Whether `f` holds for one of the tuples of a versioned state `st` that its join index holds
/// under `key` and that were in the state at position `upto` (their entry positions are in the
/// index: no lookup in the state); stops at the first. (A loop, not an iterator chain: the
/// chain cost the data race 3 % more instructions.)
#[inline]
fn any_visible_under(
    st: &SinceState,
    key: &[Value],
    upto: u64,
    mut f: impl FnMut(&Tuple) -> bool,
) -> bool {
    let index = &st.views.join.as_ref().expect("probed by its index").1;
    let Some(bucket) = index.get(key) else {
        return false;
    };
    for (y, &entered) in bucket.iter() {
        if visible_from(st, y, entered, upto) && f(y) {
            return true;
        }
    }
    false
}

/// Whether [`since_step`] with left operand `a` may change the output (and makes it unique).
fn since_step_changes_output(a: &Rel, negated: bool, l_key: &[usize]) -> bool {
    if negated {
        !a.is_empty()
    } else {
        !l_key.is_empty() || a.is_empty()
    }
}

/// One step of `φ SINCE[a,b] ψ` (or `NOT φ SINCE ψ`): drop witnesses whose left condition
/// fails now, add the right operand's tuples, ripen and expire by the interval.
///
/// PERF: with `NOT φ`, only the tuples of `φ` are touched (through `by_key` when `φ` has fewer
/// variables than `ψ`); a positive `φ` other than `TRUE` needs a pass over the state.
#[allow(clippy::too_many_arguments)]
fn since_step(
    st: &mut SinceState,
    a: &Rel,
    negated: bool,
    l_key: &[usize],
    identity: bool,
    buf: &mut Vec<Value>,
) {
    // PERF: the state is made unique (copied if a snapshot is still held) only when this
    // step can change it: not for `TRUE` (`ONCE`), nor for an empty `NOT φ`.
    if !since_step_changes_output(a, negated, l_key) {
        return;
    }
    if st.versioned {
        return versioned_step(st, a, negated, l_key, identity, buf);
    }
    if negated && l_key.is_empty() {
        // A closed `φ` holds: every witness fails.
        for tuple in st.ripe.keys() {
            note_remove(&mut st.views, tuple);
        }
        st.ripe.clear();
        match Rc::get_mut(&mut st.out) {
            Some(out) => out.clear(),
            None => st.out = Rc::new(Rel::default()),
        }
        st.young.clear();
    } else if negated {
        let out = Rc::make_mut(&mut st.out);
        for u in a {
            if identity {
                if st.ripe.remove(&u[..]).is_some() {
                    out.remove(&u[..]);
                    note_remove(&mut st.views, u);
                }
            } else if let Some(tuples) = st.by_key.remove(&u[..]) {
                for tuple in tuples {
                    st.ripe.remove(&tuple);
                    if out.remove(&tuple) {
                        note_remove(&mut st.views, &tuple);
                    }
                }
            }
            st.young
                .retain(|(_, tuple)| !contains_key_eq(tuple, l_key, u));
        }
    } else if !l_key.is_empty() || a.is_empty() {
        // A positive left operand: keep only the tuples it holds for.
        let out = Rc::make_mut(&mut st.out);
        st.ripe
            .retain(|tuple, _| contains_key(a, tuple, l_key, buf));
        let views = &mut st.views;
        out.retain(|tuple| {
            let kept = st.ripe.contains_key(tuple);
            if !kept {
                note_remove(views, tuple);
            }
            kept
        });
        st.young
            .retain(|(_, tuple)| contains_key(a, tuple, l_key, buf));
    }
}

/// [`since_step`] for a versioned state: removed tuples become tombstones ([`retire`]).
fn versioned_step(
    st: &mut SinceState,
    a: &Rel,
    negated: bool,
    l_key: &[usize],
    identity: bool,
    buf: &mut Vec<Value>,
) {
    if negated && l_key.is_empty() {
        // A closed `φ` holds: every witness fails.
        let mut ripe = std::mem::take(&mut st.ripe);
        for (k, e) in ripe.drain() {
            retire(st, k, e);
        }
        st.ripe = ripe;
        st.young.clear();
    } else if negated {
        for u in a {
            if identity {
                if let Some((k, e)) = st.ripe.remove_entry(&u[..]) {
                    retire(st, k, e);
                }
            } else if let Some(tuples) = st.by_key.remove(&u[..]) {
                // (Entries may be stale: already removed, or listed twice.)
                for tuple in tuples {
                    if let Some((k, e)) = st.ripe.remove_entry(&tuple) {
                        retire(st, k, e);
                    }
                }
            }
            st.young
                .retain(|(_, tuple)| !contains_key_eq(tuple, l_key, u));
        }
    } else {
        versioned_retain(
            st,
            &mut |tuple, buf| contains_key(a, tuple, l_key, buf),
            buf,
        );
    }
}

/// Keeps the tuples of a versioned state that satisfy `keep` (ripe and young), retiring the
/// others.
fn versioned_retain(
    st: &mut SinceState,
    keep: &mut dyn FnMut(&Tuple, &mut Vec<Value>) -> bool,
    buf: &mut Vec<Value>,
) {
    let mut dropped = Vec::new();
    st.ripe.retain(|tuple, e| {
        let kept = keep(tuple, buf);
        if !kept {
            dropped.push((tuple.clone(), *e));
        }
        kept
    });
    for (tuple, e) in dropped {
        retire(st, tuple, e);
    }
    st.young.retain(|(_, tuple)| keep(tuple, buf));
}

/// The stored tuples that `g` rejects at position `at`, among those its trigger's leaves name
/// (every other stored tuple satisfies it; the young ones are not indexed, and are tested by
/// the caller).
fn guard_failures(
    st: &SinceState,
    g: &Guard,
    trigger: &GuardTrigger,
    leaves: &Leaves,
    at: u64,
    buf: &mut Vec<Value>,
) -> Vec<Tuple> {
    if trigger.leaves.is_empty() {
        return Vec::new();
    }
    let (_, index) = st.views.guard.as_ref().expect("a trigger has its index");
    let mut failed = Vec::new();
    for &leaf in &trigger.leaves {
        for u in leaves.streams[leaf].get(at).expect("available").iter() {
            for tuple in index.get(&u[..]).into_iter().flat_map(|m| m.keys()) {
                if !eval_guard(g, tuple, leaves, at, buf) {
                    failed.push(tuple.clone());
                }
            }
        }
    }
    failed
}

/// Drops these witnesses (a tuple listed twice is dropped once).
fn since_remove(st: &mut SinceState, failed: &[Tuple]) {
    if failed.is_empty() {
        return;
    }
    if st.versioned {
        for tuple in failed {
            if let Some((k, e)) = st.ripe.remove_entry(tuple) {
                retire(st, k, e);
            }
        }
        return;
    }
    let out = Rc::make_mut(&mut st.out);
    for tuple in failed {
        if st.ripe.remove(tuple).is_some() {
            out.remove(tuple);
            note_remove(&mut st.views, tuple);
        }
    }
}

/// Keeps only the witnesses whose tuple satisfies `keep` (a left operand tested tuple by tuple).
fn since_retain(st: &mut SinceState, keep: &mut dyn FnMut(&Tuple) -> bool) {
    if st.versioned {
        versioned_retain(st, &mut |tuple, _| keep(tuple), &mut Vec::new());
        st.by_key.clear();
        return;
    }
    let out = Rc::make_mut(&mut st.out);
    st.ripe.retain(|tuple, _| keep(tuple));
    let views = &mut st.views;
    out.retain(|tuple| {
        let kept = st.ripe.contains_key(tuple);
        if !kept {
            note_remove(views, tuple);
        }
        kept
    });
    st.young.retain(|(_, tuple)| keep(tuple));
    st.by_key.clear();
}

/// Whether [`since_add`] has more to do than queue the new tuples: a tuple arrives with a zero
/// lower bound, or one ripens, or one expires.
fn since_add_moves(st: &SinceState, w: &rvmon_logic::ops::Window, b: &Rel, t: Timestamp) -> bool {
    let ripens = st.young.front().is_some_and(|(tj, _)| t - tj >= w.lo);
    let expires =
        w.hi.is_some_and(|hi| st.expiry.front().is_some_and(|(tj, _)| t - tj > hi));
    ripens || expires || (w.lo == 0 && !b.is_empty())
}

/// Whether [`since_add`] changes the output: a tuple not in it arrives (zero lower bound) or
/// ripens, or a tuple's newest witness expires. A witness of a tuple already in the output
/// only makes its newest time newer.
///
/// PERF: a window whose tuples recur (P4's `ONCE[1d,2d] alive(c)`: a hundred computers, each
/// alive every few minutes) ripens a witness at almost every position and changes its output
/// at few. Answering "changes" for every witness made the step wait for the snapshot its
/// reader still held: about one pass per position. Ripening only makes witnesses newer, so
/// testing expiry against the state before the step can only answer "changes" too often.
/// (A versioned state hands out no snapshot; it keeps the cheaper test.)
fn since_add_changes_output(
    st: &SinceState,
    w: &rvmon_logic::ops::Window,
    b: &Rel,
    t: Timestamp,
) -> bool {
    if !since_add_moves(st, w, b, t) {
        return false;
    }
    if st.versioned {
        return true;
    }
    let new = |tuple: &Tuple| !st.ripe.contains_key(tuple);
    (w.lo == 0 && b.iter().any(new))
        || st
            .young
            .iter()
            .take_while(|(tj, _)| t - tj >= w.lo)
            .any(|(_, tuple)| new(tuple))
        || w.hi.is_some_and(|hi| {
            st.expiry
                .iter()
                .take_while(|(tj, _)| t - tj > hi)
                .any(|(tj, tuple)| st.ripe.get(tuple) == Some(tj))
        })
}

/// Queues the right operand's tuples at `t` until they reach the lower bound (a versioned
/// state skips those it holds already: whatever removes the held tuple later removes its young
/// copies too, by the same test).
fn age(st: &mut SinceState, b: &Rel, t: Timestamp) {
    if st.versioned {
        for tuple in b.iter().filter(|tuple| !st.ripe.contains_key(*tuple)) {
            st.young.push_back((t, tuple.clone()));
        }
    } else {
        st.young.extend(b.iter().map(|tuple| (t, tuple.clone())));
    }
}

/// The right operand's part of a `SINCE` step: add its tuples, ripen those that reached the
/// lower bound, expire those past the upper bound.
fn since_add(
    st: &mut SinceState,
    w: &rvmon_logic::ops::Window,
    b: &Rel,
    t: Timestamp,
    negated: bool,
    l_key: &[usize],
    identity: bool,
) {
    // PERF: most steps only queue what arrives (no tuple arrives with a zero lower bound, none
    // ripens, none expires).
    if !since_add_moves(st, w, b, t) {
        age(st, b, t);
        return;
    }
    if st.versioned {
        // No upper bound: a tuple keeps the position at which it entered until it is removed.
        let at = st.absorbed;
        if w.lo == 0 {
            for tuple in b {
                enter(st, tuple, at, negated, l_key, identity);
            }
        } else {
            age(st, b, t);
        }
        while st.young.front().is_some_and(|(tj, _)| t - tj >= w.lo) {
            let (_, tuple) = st.young.pop_front().expect("checked");
            enter(st, &tuple, at, negated, l_key, identity);
        }
        return;
    }
    // The output is made unique (copied if a snapshot is still held) only when it changes: a
    // witness of a tuple already in it changes only the state. (Once unique, `make_mut` is a
    // check of the count.)
    // A witness at timestamp `tj` is old enough: it joins the output, keeping its newest time.
    let mut ripen = |tuple: &Tuple, tj: Timestamp| {
        if w.hi.is_some() {
            st.expiry.push_back((tj, tuple.clone()));
        }
        match st.ripe.get_mut(tuple) {
            Some(old) => *old = (*old).max(tj),
            None => {
                if keeps_by_key(negated, l_key, identity) {
                    let key: Tuple = l_key.iter().map(|&c| tuple[c]).collect();
                    st.by_key.entry(key).or_default().push(tuple.clone());
                }
                Rc::make_mut(&mut st.out).insert(tuple.clone());
                note_insert(&mut st.views, tuple);
                st.ripe.insert(tuple.clone(), tj);
            }
        }
    };
    // PERF: with a zero lower bound the right operand's tuples ripen at once; only a positive
    // lower bound needs them kept (copied) while they age.
    if w.lo == 0 {
        b.iter().for_each(|tuple| ripen(tuple, t));
    } else {
        st.young.extend(b.iter().map(|tuple| (t, tuple.clone())));
    }
    while st.young.front().is_some_and(|(tj, _)| t - tj >= w.lo) {
        let (tj, tuple) = st.young.pop_front().expect("checked");
        ripen(&tuple, tj);
    }
    if let Some(hi) = w.hi {
        while st.expiry.front().is_some_and(|(tj, _)| t - tj > hi) {
            let (tj, tuple) = st.expiry.pop_front().expect("checked");
            // Only if this was the tuple's newest witness (a newer one keeps it alive).
            if st.ripe.get(&tuple) == Some(&tj) {
                st.ripe.remove(&tuple);
                Rc::make_mut(&mut st.out).remove(&tuple);
                note_remove(&mut st.views, &tuple);
                // `by_key` may keep a stale entry; removing a tuple twice is harmless.
            }
        }
    }
}

/// Whether `tuple` projected onto `cols` equals `key`.
#[inline]
fn contains_key_eq(tuple: &[Value], cols: &[usize], key: &[Value]) -> bool {
    cols.len() == key.len() && cols.iter().zip(key).all(|(&c, k)| tuple[c] == *k)
}

/// The columns of each operand that a join matches on.
fn join_cols(shared: &[(usize, usize)]) -> (Vec<usize>, Vec<usize>) {
    (
        shared.iter().map(|p| p.0).collect(),
        shared.iter().map(|p| p.1).collect(),
    )
}

/// The joined tuple: the left tuple, then the right tuple's new columns.
fn joined(x: &[Value], y: &[Value], r_new: &[usize]) -> Tuple {
    x.iter()
        .copied()
        .chain(r_new.iter().map(|&c| y[c]))
        .collect()
}

/// For each tuple of `walk`, calls `f(walked, found)` for every tuple `lookup` finds under
/// its key (`walk` projected on `walk_cols`).
fn probe<'a>(
    walk: &'a Rel,
    walk_cols: &[usize],
    buf: &mut Vec<Value>,
    lookup: impl Fn(&[Value], &mut dyn FnMut(&Tuple)),
    mut f: impl FnMut(&'a Tuple, &Tuple),
) {
    for w in walk {
        lookup(key_in(buf, w, walk_cols), &mut |m| f(w, m));
    }
}

/// An index of `rel` by `cols`.
fn index_by<'a>(rel: &'a Rel, cols: &[usize]) -> FxHashMap<Tuple, Vec<&'a Tuple>> {
    let mut index: FxHashMap<Tuple, Vec<&'a Tuple>> = FxHashMap::default();
    for t in rel {
        index.entry(project(t, cols)).or_default().push(t);
    }
    index
}

/// A join with a versioned operand (see [`FoEngine::probed`]) that adds columns, or whose left
/// operand is the versioned one: the other operand is walked, and each of its tuples probes
/// the state's index on the shared columns, keeping the tuples the state held at that
/// position. `None` when neither operand is probed this way (a semi-join tests its versioned
/// right operand directly).
#[allow(clippy::too_many_arguments)]
fn probe_versioned(
    a: &Rel,
    b: &Rel,
    shared: &[(usize, usize)],
    r_new: &[usize],
    left: &Tested,
    right: &Tested,
    buf: &mut Vec<Value>,
    emit: &mut dyn FnMut(&Tuple, &Tuple),
) -> bool {
    // Walks `walk`, finds each tuple's partners in `st`'s index by `walk_cols`, and passes
    // those `st` held at `upto` to `f` (their entry positions are in the index: no lookup).
    fn each(
        walk: &Rel,
        walk_cols: &[usize],
        st: &SinceState,
        upto: u64,
        buf: &mut Vec<Value>,
        mut f: impl FnMut(&Tuple, &Tuple),
    ) {
        for w in walk {
            any_visible_under(st, key_in(buf, w, walk_cols), upto, |m| {
                f(w, m);
                false
            });
        }
    }
    match (left, right) {
        (_, Tested::Probe { st, upto }) if !r_new.is_empty() => {
            each(a, &join_cols(shared).0, st, *upto, buf, |x, y| emit(x, y));
        }
        (Tested::Probe { st, upto }, _) => {
            each(b, &join_cols(shared).1, st, *upto, buf, |y, x| emit(x, y));
        }
        _ => return false,
    }
    true
}

/// A join that walks the small operand and probes the large one's SINCE index, when the large
/// operand is the current state of an indexed SINCE node on the shared columns.
fn indexed_join(
    a: &Rc<Rel>,
    b: &Rc<Rel>,
    shared: &[(usize, usize)],
    states: (&SinceState, &SinceState),
    buf: &mut Vec<Value>,
    emit: &mut dyn FnMut(&Tuple, &Tuple),
) -> bool {
    // Checked before building the column lists: most joins at most time points use no index.
    let usable =
        |big: &Rc<Rel>, small: &Rc<Rel>, st: &SinceState, side: fn(&(usize, usize)) -> usize| {
            big.len() > 4 * small.len()
                && Rc::ptr_eq(big, &st.out)
                && st
                    .views
                    .join
                    .as_ref()
                    .is_some_and(|(c, _)| c.iter().copied().eq(shared.iter().map(side)))
        };
    let (use_r, use_l) = (
        usable(b, a, states.1, |p| p.1),
        usable(a, b, states.0, |p| p.0),
    );
    if !use_r && !use_l {
        return false;
    }
    let (l_cols, r_cols) = join_cols(shared);
    let (walk, cols, st) = if use_r {
        (a, &l_cols, states.1)
    } else {
        (b, &r_cols, states.0)
    };
    let map = &st.views.join.as_ref().expect("checked").1;
    let lookup = |k: &[Value], g: &mut dyn FnMut(&Tuple)| {
        map.get(k).into_iter().flat_map(|m| m.keys()).for_each(g)
    };
    if use_r {
        probe(walk, cols, buf, lookup, |x, y| emit(x, y));
    } else {
        probe(walk, cols, buf, lookup, |y, x| emit(x, y));
    }
    true
}

/// The tuples of `a` that satisfy `keep`.
///
/// PERF: a semi-join or anti-join usually keeps all of its left operand or none of it; then
/// the result is `a` itself or the shared empty relation, and nothing is allocated.
fn filter_shared(a: &Rc<Rel>, mut keep: impl FnMut(&[Value]) -> bool) -> Rc<Rel> {
    let kept = a.iter().filter(|t| keep(t)).count();
    if kept == a.len() {
        Rc::clone(a)
    } else if kept == 0 {
        EMPTY.with(Rc::clone)
    } else {
        Rc::new(a.iter().filter(|t| keep(t)).cloned().collect())
    }
}

/// The pairs of a general join, by a hash join on the shared columns (the smaller operand
/// indexed), or every pair when nothing is shared.
fn join(
    a: &Rel,
    b: &Rel,
    shared: &[(usize, usize)],
    buf: &mut Vec<Value>,
    emit: &mut dyn FnMut(&Tuple, &Tuple),
) {
    if shared.is_empty() {
        for x in a {
            for y in b {
                emit(x, y);
            }
        }
        return;
    }
    let (l_cols, r_cols) = join_cols(shared);
    if a.len() <= b.len() {
        let index = index_by(a, &l_cols);
        let lookup = |k: &[Value], g: &mut dyn FnMut(&Tuple)| {
            index.get(k).into_iter().flatten().for_each(|t| g(t))
        };
        probe(b, &r_cols, buf, lookup, |y, x| emit(x, y));
    } else {
        let index = index_by(b, &r_cols);
        let lookup = |k: &[Value], g: &mut dyn FnMut(&Tuple)| {
            index.get(k).into_iter().flatten().for_each(|t| g(t))
        };
        probe(a, &l_cols, buf, lookup, |x, y| emit(x, y));
    }
}

/// The pairs (left tuple, right tuple) of a join of `a` (node relation, tested as `left`) and
/// `b` (tested as `right`) that agree on `shared`, by the cheapest way the operands allow: a
/// versioned operand probed through its index, a large SINCE state probed through its index,
/// or a hash join. (The join of a semi-join, whose right operand only tests, is
/// [`filter_shared`]'s.)
#[allow(clippy::too_many_arguments)]
fn join_pairs(
    a: &Rc<Rel>,
    b: &Rc<Rel>,
    shared: &[(usize, usize)],
    r_new: &[usize],
    left: &Tested,
    right: &Tested,
    states: (&SinceState, &SinceState),
    buf: &mut Vec<Value>,
    emit: &mut dyn FnMut(&Tuple, &Tuple),
) {
    if !probe_versioned(a, b, shared, r_new, left, right, buf, emit)
        && !indexed_join(a, b, shared, states, buf, emit)
    {
        join(a, b, shared, buf, emit);
    }
}

fn aggregate(
    rel: &Rel,
    op: AggOp,
    over: usize,
    group: &[usize],
    default: Value,
    interner: &Interner,
) -> Result<Rel, Error> {
    let mut out = Rel::default();
    if rel.is_empty() {
        if group.is_empty() {
            out.insert(Rc::from([default]) as Tuple);
        }
        return Ok(out);
    }
    let mut groups: FxHashMap<Tuple, Vec<Value>> = FxHashMap::default();
    for t in rel {
        groups.entry(project(t, group)).or_default().push(t[over]);
    }
    let num = |v: &Value| match v {
        Value::Int(i) => *i as f64,
        Value::Float(f) => *f,
        _ => 0.0,
    };
    for (g, mut vals) in groups {
        // Floats are added in the order of their values, not of the hash table's iteration:
        // that order follows the interned ids of the tuples' strings, which differ between a
        // run and its resumption, or with string collection, and float addition is not
        // associative.
        if matches!(op, AggOp::Sum | AggOp::Avg)
            && vals.iter().any(|v| matches!(v, Value::Float(_)))
        {
            vals.sort_by(|a, b| num(a).total_cmp(&num(b)));
        }
        let result = match op {
            AggOp::Cnt => Value::Int(vals.len() as i64),
            AggOp::Min => *vals
                .iter()
                .min_by(|a, b| a.cmp_in(b, interner))
                .expect("non-empty"),
            AggOp::Max => *vals
                .iter()
                .max_by(|a, b| a.cmp_in(b, interner))
                .expect("non-empty"),
            AggOp::Sum => match vals[0] {
                Value::Int(_) => Value::Int(
                    vals.iter()
                        .map(|v| if let Value::Int(i) = v { *i } else { 0 })
                        .sum(),
                ),
                _ => Value::Float(vals.iter().map(num).sum()),
            },
            AggOp::Avg => Value::Float(vals.iter().map(num).sum::<f64>() / vals.len() as f64),
            AggOp::Med => {
                vals.sort_by(|a, b| a.cmp_in(b, interner));
                let n = vals.len();
                let m = if n % 2 == 0 { n / 2 - 1 } else { n / 2 };
                let (x, y) = if n % 2 == 0 {
                    (vals[m], vals[m + 1])
                } else {
                    (vals[m], vals[m])
                };
                Value::Float((num(&x) + num(&y)) / 2.0)
            }
        };
        let mut t = vec![result];
        t.extend(g.iter().copied());
        out.insert(t.into());
    }
    Ok(out)
}
