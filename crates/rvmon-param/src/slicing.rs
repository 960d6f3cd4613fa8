//! Algorithm A with patterns (paper 03, Fig. 3) and its constraint extension (Fig. 4).
//!
//! A *binding* maps parameters to values; the bindings form a join semilattice once the
//! inconsistent binding ⊤ is added. Events are matched against *patterns* `f(x, y)`: the
//! most general injective matcher of a pattern and an event binds the pattern's variables to
//! the event's values, or is ⊤ when they do not match (or two variables would get the same
//! value). The table maps every binding seen (joins included) to its slice: the events that
//! some pattern matches under that binding. Any binding's slice is then the slice of the
//! largest table entry below it (Theorem 2), which is what makes the table usable online.

use rustc_hash::{FxHashMap, FxHashSet};
use rvmon_core::Value;

/// A parameter binding: sorted (parameter, value) pairs, or the inconsistent binding ⊤.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Binding {
    Map(Vec<(usize, Value)>),
    Top,
}

impl Binding {
    /// The empty binding ⊥.
    pub fn bottom() -> Binding {
        Binding::Map(Vec::new())
    }

    /// `self ⊑ other`: `other` is ⊤ or extends `self`.
    pub fn below(&self, other: &Binding) -> bool {
        match (self, other) {
            (_, Binding::Top) => true,
            (Binding::Top, _) => false,
            (Binding::Map(a), Binding::Map(b)) => a.iter().all(|p| b.contains(p)),
        }
    }

    /// The injective least upper bound `⊔_i`: ⊤ if the two disagree on a parameter or two
    /// parameters would get the same value.
    pub fn join(&self, other: &Binding) -> Binding {
        self.lub(other, true)
    }

    /// The least upper bound `⊔`, injective (`⊔_i`, paper 03's pattern slicing) or not
    /// (Roşu and Chen's original, where each event name has its own parameters).
    pub fn lub(&self, other: &Binding, injective: bool) -> Binding {
        let (Binding::Map(a), Binding::Map(b)) = (self, other) else {
            return Binding::Top;
        };
        let mut out = a.clone();
        for &(x, v) in b {
            match out.iter().find(|p| p.0 == x) {
                Some(&(_, w)) if w != v => return Binding::Top,
                Some(_) => {}
                None => out.push((x, v)),
            }
        }
        out.sort_by_key(|p| p.0);
        if injective {
            let values: FxHashSet<Value> = out.iter().map(|p| p.1).collect();
            if values.len() < out.len() {
                return Binding::Top;
            }
        }
        Binding::Map(out)
    }
}

/// A pattern argument.
#[derive(Clone, Debug, PartialEq)]
pub enum Term {
    Var(usize),
    Const(Value),
    /// Any value, bound to nothing (`_`).
    Any,
}

/// An event pattern `name(t1, …, tn)`.
#[derive(Clone, Debug, PartialEq)]
pub struct Pattern {
    pub name: String,
    pub args: Vec<Term>,
}

/// An event with data.
#[derive(Clone, Debug, PartialEq)]
pub struct Event {
    pub name: String,
    pub args: Vec<Value>,
}

impl Pattern {
    /// The most general injective matcher of this pattern and `e` (`mgm_i`), ⊤ if none.
    pub fn matcher(&self, e: &Event) -> Binding {
        self.match_event(e, true)
    }

    /// The most general matcher, injective or not (see [`Binding::lub`]); ⊤ if none.
    pub fn match_event(&self, e: &Event, injective: bool) -> Binding {
        self.match_parts(&e.name, &e.args, injective)
    }

    /// [`Pattern::match_event`] on an event given as its name and arguments.
    pub fn match_parts(&self, name: &str, args: &[Value], injective: bool) -> Binding {
        if self.name != name || self.args.len() != args.len() {
            return Binding::Top;
        }
        let mut b: Vec<(usize, Value)> = Vec::new();
        for (t, &v) in self.args.iter().zip(args) {
            match t {
                Term::Const(c) if *c != v => return Binding::Top,
                Term::Const(_) | Term::Any => {}
                Term::Var(x) => match b.iter().find(|p| p.0 == *x) {
                    Some(&(_, w)) if w != v => return Binding::Top,
                    Some(_) => {}
                    None => b.push((*x, v)),
                },
            }
        }
        Binding::Map(b).lub(&Binding::bottom(), injective)
    }

    /// Whether `θ(p) = e`: the binding gives every variable of the pattern the event's value.
    fn instantiates_to(&self, theta: &[(usize, Value)], e: &Event) -> bool {
        self.name == e.name
            && self.args.len() == e.args.len()
            && self.args.iter().zip(&e.args).all(|(t, v)| match t {
                Term::Const(c) => c == v,
                Term::Any => true,
                Term::Var(x) => theta.iter().any(|p| p.0 == *x && p.1 == *v),
            })
    }
}

/// Σ of Fig. 3: the matchers of the event by every pattern (⊤ where one does not match).
///
/// Beyond the paper: with constants in patterns (`f(x, 2)`, `f(1, y)`), two matchers of the
/// same event can be compatible; Σ is closed under joins, which keeps the set of bindings seen
/// join-closed, as lookups need. (With variable-only patterns, as in the paper, distinct
/// matchers always join to ⊤ and this adds nothing.)
pub fn matchers(patterns: &[Pattern], e: &Event, injective: bool) -> FxHashSet<Binding> {
    matchers_of(patterns, &e.name, &e.args, injective)
}

/// [`matchers`] of an event given as its name and arguments, by the patterns given (the
/// monitor passes those of the event's name, without copying them or the event).
pub fn matchers_of<'a>(
    patterns: impl IntoIterator<Item = &'a Pattern>,
    name: &str,
    args: &[Value],
    injective: bool,
) -> FxHashSet<Binding> {
    let mut sigma: FxHashSet<Binding> = patterns
        .into_iter()
        .map(|p| p.match_parts(name, args, injective))
        .collect();
    loop {
        let joins: Vec<Binding> = sigma
            .iter()
            .flat_map(|a| sigma.iter().map(move |b| a.lub(b, injective)))
            .filter(|j| !sigma.contains(j))
            .collect();
        if joins.is_empty() {
            return sigma;
        }
        sigma.extend(joins);
    }
}

/// Definition 5 (the reference): the slice of `trace` for `theta` — the whole trace for ⊤,
/// otherwise the events `q` with `θ(p) = q` for some pattern `p` (indices into `trace`).
pub fn slice(patterns: &[Pattern], trace: &[Event], theta: &Binding) -> Vec<usize> {
    match theta {
        Binding::Top => (0..trace.len()).collect(),
        Binding::Map(m) => (0..trace.len())
            .filter(|&i| patterns.iter().any(|p| p.instantiates_to(m, &trace[i])))
            .collect(),
    }
}

/// A conjunction of order constraints between parameters (`x < y`, `x <= y`, `x != y`), read
/// over a dense order as the paper's solver does: a partial binding is kept when its values
/// can be extended to a solution. Order constraints compare numbers (integers and floats
/// alike); a value of another kind never satisfies one.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Constraints {
    /// (a, b, strict): `a < b` if strict, else `a <= b`.
    pub order: Vec<(usize, usize, bool)>,
    pub distinct: Vec<(usize, usize)>,
}

impl Constraints {
    /// Whether `b` (not ⊤) can be extended to satisfy every constraint.
    pub fn satisfiable(&self, b: &[(usize, Value)]) -> bool {
        self.check().admits(b)
    }

    /// The constraints closed once, to test many bindings.
    pub fn check(&self) -> ConstraintCheck {
        let n = self
            .order
            .iter()
            .flat_map(|&(a, b, _)| [a, b])
            .chain(self.distinct.iter().flat_map(|&(a, b)| [a, b]))
            .max()
            .map_or(0, |m| m + 1);
        // Strongest path between parameters: None, Some(false) for <=, Some(true) for <.
        let mut path = vec![vec![None::<bool>; n]; n];
        for &(a, c, strict) in &self.order {
            path[a][c] = Some(path[a][c].unwrap_or(false) || strict);
        }
        for k in 0..n {
            for i in 0..n {
                for j in 0..n {
                    if let (Some(x), Some(y)) = (path[i][k], path[k][j]) {
                        path[i][j] = Some(path[i][j].unwrap_or(false) || x || y);
                    }
                }
            }
        }
        // A strict cycle, or two parameters that must differ and are forced equal (the
        // paper's solver: some x ≠ y in one strongly connected component).
        let consistent = (0..n).all(|i| path[i][i] != Some(true))
            && self
                .distinct
                .iter()
                .all(|&(a, c)| a != c && !(path[a][c] == Some(false) && path[c][a] == Some(false)));
        let paths = (0..n)
            .flat_map(|i| (0..n).map(move |j| (i, j)))
            .filter_map(|(i, j)| path[i][j].map(|strict| (i, j, strict)))
            .filter(|&(i, j, _)| i != j)
            .collect();
        ConstraintCheck {
            consistent,
            paths,
            distinct: self.distinct.clone(),
            ordered: self
                .order
                .iter()
                .filter(|&&(a, b, _)| a < 64 && b < 64)
                .fold(0, |m, &(a, b, _)| m | 1 << a | 1 << b),
        }
    }
}

/// [`Constraints`] with their transitive closure, ready to test bindings.
#[derive(Clone, Debug)]
pub struct ConstraintCheck {
    /// Whether the constraints alone have a solution.
    consistent: bool,
    /// Every path `a → b` of the closure between two parameters: `a < b` (strict) or `a <= b`.
    paths: Vec<(usize, usize, bool)>,
    distinct: Vec<(usize, usize)>,
    /// The parameters an order constraint mentions (a mask): their values must be numbers.
    ordered: u64,
}

/// How two numbers compare, exactly (integers beyond 2^53 included); `None` when one is not a
/// number (or is NaN).
fn compare_numbers(a: Value, b: Value) -> Option<std::cmp::Ordering> {
    use std::cmp::Ordering;
    // An integer against a float, exactly: the float's integer part first, then its fraction.
    let int_float = |i: i64, f: f64| -> Option<Ordering> {
        if f.is_nan() {
            return None;
        }
        if f >= 9_223_372_036_854_775_808.0 {
            return Some(Ordering::Less);
        }
        if f < -9_223_372_036_854_775_808.0 {
            return Some(Ordering::Greater);
        }
        let whole = f.trunc() as i64;
        Some(
            i.cmp(&whole)
                .then_with(|| 0.0.partial_cmp(&f.fract()).expect("not NaN")),
        )
    };
    match (a, b) {
        (Value::Int(x), Value::Int(y)) => Some(x.cmp(&y)),
        (Value::Float(x), Value::Float(y)) => x.partial_cmp(&y),
        (Value::Int(x), Value::Float(y)) => int_float(x, y),
        (Value::Float(x), Value::Int(y)) => int_float(y, x).map(Ordering::reverse),
        _ => None,
    }
}

impl ConstraintCheck {
    /// Whether the constraints alone have a solution.
    pub fn is_consistent(&self) -> bool {
        self.consistent
    }

    /// Whether the partial binding `b` extends to a solution over a dense order: bound values
    /// ordered along every path; an unbound parameter squeezed to one value between bound
    /// ones (`x <= z <= y` with x = y) takes that value; and parameters that must differ do
    /// not have (or take) the same value.
    pub fn admits(&self, b: &[(usize, Value)]) -> bool {
        self.admits_values(|x| b.iter().find(|p| p.0 == x).map(|p| p.1))
    }

    /// [`ConstraintCheck::admits`] for the binding that gives parameter x the value `val(x)`.
    pub fn admits_values(&self, val: impl Fn(usize) -> Option<Value>) -> bool {
        use std::cmp::Ordering::{Equal, Greater, Less};
        if !self.consistent {
            return false;
        }
        let mut ordered = self.ordered;
        while ordered != 0 {
            let x = ordered.trailing_zeros() as usize;
            ordered &= ordered - 1;
            if val(x).is_some_and(|v| !matches!(v, Value::Int(_) | Value::Float(_))) {
                return false;
            }
        }
        for &(i, j, strict) in &self.paths {
            if let (Some(vi), Some(vj)) = (val(i), val(j)) {
                match compare_numbers(vi, vj) {
                    Some(Less) => {}
                    Some(Equal) if !strict => {}
                    _ => return false,
                }
            }
        }
        // The value an unbound parameter is forced to, if any: its greatest lower bound
        // equals its least upper bound, both reached by non-strict paths.
        let value_of = |x: usize| -> Option<Value> {
            if let Some(v) = val(x) {
                return Some(v);
            }
            // (value, strict) of the tightest bound below and above.
            let mut lo: Option<(Value, bool)> = None;
            let mut hi: Option<(Value, bool)> = None;
            for &(i, j, strict) in &self.paths {
                let (bound, tighter) = if j == x {
                    (&mut lo, Greater)
                } else if i == x {
                    (&mut hi, Less)
                } else {
                    continue;
                };
                let Some(v) = val(if j == x { i } else { j }) else {
                    continue;
                };
                let replace = match *bound {
                    None => true,
                    Some((b, s)) => match compare_numbers(v, b) {
                        Some(o) if o == tighter => true,
                        Some(Equal) => strict && !s,
                        _ => false,
                    },
                };
                if replace {
                    *bound = Some((v, strict));
                }
            }
            match (lo, hi) {
                (Some((l, false)), Some((h, false))) if compare_numbers(l, h) == Some(Equal) => {
                    Some(l)
                }
                _ => None,
            }
        };
        let same = |x: Value, y: Value| match compare_numbers(x, y) {
            Some(o) => o == Equal,
            None => x == y,
        };
        self.distinct
            .iter()
            .all(|&(a, c)| match (value_of(a), value_of(c)) {
                (Some(x), Some(y)) => !same(x, y),
                _ => true,
            })
    }
}

/// The table of slices of Algorithm A with patterns (and constraints): every binding seen,
/// with its slice as indices into the trace.
pub struct SliceTable {
    patterns: Vec<Pattern>,
    constraints: Option<ConstraintCheck>,
    table: FxHashMap<Binding, Vec<usize>>,
    events: usize,
}

impl SliceTable {
    pub fn new(patterns: Vec<Pattern>, constraints: Option<Constraints>) -> SliceTable {
        let mut table = FxHashMap::default();
        table.insert(Binding::bottom(), Vec::new());
        table.insert(Binding::Top, Vec::new());
        SliceTable {
            patterns,
            constraints: constraints.map(|c| c.check()),
            table,
            events: 0,
        }
    }

    /// The largest table entry below `theta` (`⨆_i Θ[θ]`).
    pub fn lookup_binding(&self, theta: &Binding) -> Binding {
        self.table
            .keys()
            .filter(|b| b.below(theta))
            .fold(Binding::bottom(), |acc, b| acc.join(b))
    }

    /// The slice of any binding, looked up in the table (Theorem 2 (8)).
    pub fn lookup(&self, theta: &Binding) -> &[usize] {
        &self.table[&self.lookup_binding(theta)]
    }

    fn allowed(&self, b: &Binding) -> bool {
        match (b, &self.constraints) {
            (Binding::Map(m), Some(c)) => c.admits(m),
            _ => true,
        }
    }

    /// Lines 3–7 of Fig. 3 for one event.
    pub fn push(&mut self, e: &Event) {
        let i = self.events;
        self.events += 1;
        let sigma = matchers(&self.patterns, e, true);
        let mut updated: FxHashSet<Binding> = FxHashSet::default();
        for s in &sigma {
            for t in self.table.keys() {
                let j = s.join(t);
                if self.allowed(&j) {
                    updated.insert(j);
                }
            }
        }
        // Every source slice is read before any is extended.
        let new: Vec<(Binding, Vec<usize>)> = updated
            .into_iter()
            .map(|b| {
                let mut sl = self.lookup(&b).to_vec();
                sl.push(i);
                (b, sl)
            })
            .collect();
        for (b, sl) in new {
            self.table.insert(b, sl);
        }
    }

    /// The table: every binding and its slice, sorted by binding (⊤ last).
    pub fn entries(&self) -> Vec<(Binding, Vec<usize>)> {
        let mut v: Vec<(Binding, Vec<usize>)> = self
            .table
            .iter()
            .map(|(b, s)| (b.clone(), s.clone()))
            .collect();
        v.sort_by_key(|(b, _)| match b {
            Binding::Top => (1, usize::MAX, String::new()),
            Binding::Map(m) => (0, m.len(), format!("{m:?}")),
        });
        v
    }

    pub fn patterns(&self) -> &[Pattern] {
        &self.patterns
    }
}
