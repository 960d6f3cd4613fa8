//! The data slicer of paper 04 (Def. 7 and 9, Thm. 10): slice `k` is responsible for the
//! valuations whose slicing variable `x` has a value in `S^k`, and receives the events that
//! atoms of the formula can match under such a valuation.
//!
//! The slicing sets are hash partitions: `S^k = {d | h(d) mod K = k}`, so they are disjoint and
//! cover the domain, as Thm. 10 requires. An event `r(a₁,…,aₙ)` goes to slice `k` when some
//! atom `r(t₁,…,tₙ)` of the formula has, at every position `j`, (D1) `tⱼ = x` and `h(aⱼ) mod K
//! = k`, or (D2) another variable, or (D3) a constant equal to `aⱼ`. An atom without `x` sends
//! its events to every slice; an event no atom can match goes nowhere.
//!
//! Two deliberate over-approximations, both sound: a slice may receive *more* events of the
//! log than Def. 7 gives it (an atom's truth under a valuation with `v(x) ∈ S^k` only depends on
//! the tuples that agree with `v(x)`, and the extra ones never do). So a complex term that
//! mentions `x` (`p(x + 1)`) sends its events everywhere, and a constant of another type than
//! the event's value (which the engine may convert) does not filter.

use std::hash::{Hash, Hasher};

use rustc_hash::{FxHashMap, FxHasher};
use rvmon_core::{Error, Interner, Sym, Value};
use rvmon_logic::{Formula, FormulaKind, Term};

/// Where an atom sends an event of its predicate.
#[derive(Clone, Debug)]
struct AtomRoute {
    arity: usize,
    /// Positions holding the slicing variable (D1).
    x_at: Vec<usize>,
    /// Positions holding constants (D3).
    constants: Vec<(usize, Value)>,
    /// The atom mentions `x` inside a complex term: every slice.
    everywhere: bool,
}

/// Which slices an event goes to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Target {
    /// No atom of the formula can match it.
    Nowhere,
    Every,
    /// One slice: the common case, routed without allocating.
    One(usize),
    /// Several slices (sorted, no duplicates), when several atoms match with different
    /// values of the slicing variable.
    Slices(Vec<usize>),
}

impl Target {
    /// Whether the event goes to slice `k`.
    pub fn includes(&self, k: usize) -> bool {
        match self {
            Target::Nowhere => false,
            Target::Every => true,
            Target::One(j) => *j == k,
            Target::Slices(ks) => ks.contains(&k),
        }
    }
}

/// The slicing sets `S^k`.
#[derive(Clone, Debug)]
enum Sets {
    /// `S^k = {d | h(d) mod K = k}` (see [`slice_of`]).
    Hash,
    /// Listed values go to their slice, every other value to the last slice.
    Listed(Vec<(Value, usize)>),
}

#[derive(Clone, Debug)]
pub struct DataSlicer {
    sets: Sets,
    var: String,
    /// `x`'s column in the engine's answers.
    column: usize,
    slices: usize,
    routes: FxHashMap<Sym, Vec<AtomRoute>>,
}

/// The slice of value `v` among `slices`: a hash of its content (not of interned ids, so that
/// every process computes the same slice), mixed so that consecutive integers spread.
pub fn slice_of(v: &Value, interner: &Interner, slices: usize) -> usize {
    let mut h = FxHasher::default();
    match v {
        Value::Int(i) => (0u8, i).hash(&mut h),
        Value::Float(f) => (1u8, f.to_bits()).hash(&mut h),
        Value::Str(s) => (2u8, interner.resolve(*s)).hash(&mut h),
        Value::Bool(b) => (3u8, b).hash(&mut h),
    }
    // splitmix64's finaliser: FxHash keeps consecutive integers in consecutive residues.
    let mut z = h.finish();
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^= z >> 31;
    (z % slices as u64) as usize
}

/// Whether `x` is bound somewhere in `f` (by a quantifier, an aggregation or a `LET`
/// parameter): Thm. 10 needs it free everywhere.
pub fn is_bound(f: &Formula, x: &str) -> bool {
    let here = match &f.kind {
        FormulaKind::Quant { vars, .. } => vars.iter().any(|v| v == x),
        // An aggregation binds its body's variables that are not grouped by.
        FormulaKind::Agg {
            over, group, body, ..
        } => {
            over == x
                || (rvmon_logic::free_vars(body).iter().any(|v| v == x)
                    && !group.iter().any(|g| g == x))
        }
        FormulaKind::Let { params, .. } => params.iter().any(|v| v == x),
        _ => false,
    };
    here || f.children().into_iter().any(|c| is_bound(c, x))
}

/// The log-predicate atoms of `f` (not calls of `LET`-defined predicates), with whether they
/// sit inside a `LET` definition.
fn atoms<'a>(f: &'a Formula, lets: &mut Vec<&'a str>, out: &mut Vec<(&'a str, &'a [Term])>) {
    match &f.kind {
        FormulaKind::Pred { name, args } => {
            if !lets.contains(&name.as_str()) {
                out.push((name, args));
            }
        }
        FormulaKind::Let {
            name, def, body, ..
        } => {
            atoms(def, lets, out);
            lets.push(name);
            atoms(body, lets, out);
            lets.pop();
        }
        _ => {
            for c in f.children() {
                atoms(c, lets, out);
            }
        }
    }
}

/// The log predicates `f` reads, sorted: a numbering every process computes alike.
pub fn predicates(f: &Formula) -> Vec<String> {
    let mut found = Vec::new();
    atoms(f, &mut Vec::new(), &mut found);
    let mut names: Vec<String> = found.into_iter().map(|(n, _)| n.to_string()).collect();
    names.sort();
    names.dedup();
    names
}

fn mentions(t: &Term, x: &str) -> bool {
    match t {
        Term::Var(v) => v == x,
        Term::Int(_) | Term::Float(_) | Term::Str(_) | Term::Regexp(_) => false,
        Term::Neg(a) | Term::Func(_, a) => mentions(a, x),
        Term::Arith(_, a, b) => mentions(a, x) || mentions(b, x),
    }
}

/// How many atoms mention `x` as an argument: a variable in more atoms sends fewer events to
/// every slice.
fn atoms_with(f: &Formula, x: &str) -> usize {
    let mut found = Vec::new();
    atoms(f, &mut Vec::new(), &mut found);
    found
        .iter()
        .filter(|(_, args)| args.iter().any(|t| matches!(t, Term::Var(v) if v == x)))
        .count()
}

/// The variables `f` can be sliced by, best first: free (`free` lists them in answer
/// order), never bound, and an argument of some atom. The best is the one most atoms
/// mention, so the fewest events are copied to every slice.
pub fn slicing_variables(f: &Formula, free: &[String]) -> Vec<String> {
    let mut ranked: Vec<(usize, usize, &String)> = free
        .iter()
        .enumerate()
        .filter(|(_, x)| !is_bound(f, x))
        .map(|(i, x)| (atoms_with(f, x), i, x))
        .filter(|(n, _, _)| *n > 0)
        .collect();
    ranked.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    ranked.into_iter().map(|(_, _, x)| x.clone()).collect()
}

impl DataSlicer {
    /// A slicer of `f` (the formula the engine evaluates; `free` its free variables, whose
    /// `i`-th is column `output_order[i]` of the engine's answers) by `var` into `slices`
    /// slices. Constants are interned in `interner`, the one the trace's values are interned
    /// in.
    pub fn new(
        f: &Formula,
        free: &[String],
        output_order: &[usize],
        var: &str,
        slices: usize,
        interner: &mut Interner,
    ) -> Result<DataSlicer, Error> {
        let position = free.iter().position(|v| v == var).ok_or_else(|| {
            Error::msg(format!(
                "cannot slice by `{var}`: it is not a free variable of the formula (free: {})",
                free.join(", ")
            ))
        })?;
        let column = output_order.get(position).copied().unwrap_or(position);
        if is_bound(f, var) {
            return Err(Error::msg(format!(
                "cannot slice by `{var}`: it is also bound inside the formula (paper 04, Thm. 10 needs it free)"
            )));
        }
        let mut found = Vec::new();
        atoms(f, &mut Vec::new(), &mut found);
        let mut routes: FxHashMap<Sym, Vec<AtomRoute>> = FxHashMap::default();
        for (name, args) in found {
            let mut route = AtomRoute {
                arity: args.len(),
                x_at: Vec::new(),
                constants: Vec::new(),
                everywhere: false,
            };
            for (j, t) in args.iter().enumerate() {
                match t {
                    Term::Var(v) if v == var => route.x_at.push(j),
                    Term::Var(_) => {}
                    Term::Int(i) => route.constants.push((j, Value::Int(*i))),
                    Term::Float(x) => route.constants.push((j, Value::Float(*x))),
                    Term::Str(s) => route.constants.push((j, Value::Str(interner.intern(s)))),
                    t => route.everywhere |= mentions(t, var),
                }
            }
            routes.entry(interner.intern(name)).or_default().push(route);
        }
        Ok(DataSlicer {
            sets: Sets::Hash,
            var: var.to_string(),
            column,
            slices: slices.max(1),
            routes,
        })
    }

    /// Slicing sets given by value (as paper 04's Example 8 has them): `sets[k]` is `S^k`, and
    /// every value not listed belongs to the last slice, so that the sets cover the domain.
    pub fn with_sets(mut self, sets: &[Vec<Value>]) -> DataSlicer {
        self.slices = sets.len() + 1;
        self.sets = Sets::Listed(
            sets.iter()
                .enumerate()
                .flat_map(|(k, vs)| vs.iter().map(move |v| (*v, k)))
                .collect(),
        );
        self
    }

    /// The slice of value `v`.
    pub fn slice(&self, v: &Value, interner: &Interner) -> usize {
        match &self.sets {
            Sets::Hash => slice_of(v, interner, self.slices),
            Sets::Listed(l) => l
                .iter()
                .find(|(w, _)| w == v)
                .map_or(self.slices - 1, |p| p.1),
        }
    }

    pub fn var(&self) -> &str {
        &self.var
    }

    pub fn slices(&self) -> usize {
        self.slices
    }

    /// The slices event `name(args)` goes to.
    pub fn route(&self, name: Sym, args: &[Value], interner: &Interner) -> Target {
        let Some(routes) = self.routes.get(&name) else {
            return Target::Nowhere;
        };
        let mut to = Target::Nowhere;
        for r in routes {
            if r.arity != args.len() {
                continue;
            }
            // D3: a constant of the event's type must be the event's value.
            let differs = r.constants.iter().any(|(j, c)| {
                std::mem::discriminant(c) == std::mem::discriminant(&args[*j]) && *c != args[*j]
            });
            if differs {
                continue;
            }
            if r.everywhere || r.x_at.is_empty() {
                return Target::Every;
            }
            // D1: every position of x names the same slice.
            let k = self.slice(&args[r.x_at[0]], interner);
            if r.x_at[1..]
                .iter()
                .all(|&j| self.slice(&args[j], interner) == k)
            {
                to = match to {
                    Target::Nowhere => Target::One(k),
                    Target::One(j) if j == k => Target::One(j),
                    Target::One(j) => Target::Slices(vec![j.min(k), j.max(k)]),
                    Target::Slices(mut ks) => {
                        if let Err(at) = ks.binary_search(&k) {
                            ks.insert(at, k);
                        }
                        Target::Slices(ks)
                    }
                    Target::Every => unreachable!("returned above"),
                };
            }
        }
        to
    }

    /// The restriction `ℛ^k`: whether slice `k` reports an answer tuple (as the engine gives
    /// it).
    pub fn permits(&self, k: usize, tuple: &[Value], interner: &Interner) -> bool {
        self.slice(&tuple[self.column], interner) == k
    }
}
