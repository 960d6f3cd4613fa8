//! Boolean stream specifications as automata (paper 06, §3–§5): the window automaton of
//! Theorem 1, the definedness analyses it decides, and the two-pass offline monitor of
//! Fig. 4. These handle specifications that are not well-formed (a value may depend on
//! itself, as in `y := if E then y else !y`), which the online engine rejects; they are
//! exponential in the number of streams and offsets, so they are meant for small specs.
//!
//! A *window* is the valuation of all streams at positions `i-b … i+f` (`b`, `f`: the largest
//! backward and forward offsets), `⊥` where the position does not exist. The automaton reads
//! the input valuation of position `i` and guesses the outputs; its states are the windows in
//! which every equation holds at the centre. A run over the whole input is a model, and its
//! centres are the outputs (Lemma 1).

use std::collections::VecDeque;

use rustc_hash::{FxHashMap, FxHashSet};
use rvmon_core::MemoryLimit;

use crate::ast::{BinOp, Expr, ExprKind, Lit, Spec, Type, UnOp};

/// A valuation of all streams at one position: bit `s` for stream `s` (inputs first).
pub type Letter = u32;
/// A position outside the word.
const BOT: Letter = u32::MAX;

#[derive(Clone, Debug, PartialEq)]
enum B {
    Const(bool),
    /// Stream `s` at offset `k` with default `d` (offset 0: the stream itself).
    At(usize, i64, bool),
    Not(Box<B>),
    And(Box<B>, Box<B>),
    Or(Box<B>, Box<B>),
    Eq(Box<B>, Box<B>),
    Ite(Box<B>, Box<B>, Box<B>),
}

/// A Boolean stream specification: inputs, then outputs with their equations.
#[derive(Clone, Debug)]
pub struct Bsrv {
    pub inputs: Vec<String>,
    pub outputs: Vec<String>,
    eqs: Vec<B>,
    /// Largest backward and forward offsets.
    pub back: usize,
    pub fwd: usize,
}

impl Bsrv {
    /// The Boolean specification in `spec`, if it is one: Bool inputs and outputs, logic,
    /// `if`, `==` and offsets with constant defaults. `Err` says what is outside.
    pub fn from_spec(spec: &Spec) -> Result<Bsrv, String> {
        let mut names: Vec<String> = Vec::new();
        for i in &spec.inputs {
            if i.ty != Type::Bool {
                return Err(format!("input `{}` is not Bool", i.name));
            }
            names.push(i.name.clone());
        }
        for o in &spec.outputs {
            if o.message.is_some() {
                return Err("triggers are not part of a Boolean stream specification".into());
            }
            if o.ty.is_some_and(|t| t != Type::Bool) || o.pacing.is_some() {
                return Err(format!("output `{}` is not a plain Bool stream", o.name));
            }
            names.push(o.name.clone());
        }
        let mut b = Bsrv {
            inputs: spec.inputs.iter().map(|i| i.name.clone()).collect(),
            outputs: spec.outputs.iter().map(|o| o.name.clone()).collect(),
            eqs: Vec::new(),
            back: 0,
            fwd: 0,
        };
        if names.len() > 8 {
            return Err("more than 8 streams: too large for the automaton".into());
        }
        for o in &spec.outputs {
            let e = b.convert(&o.expr, &names)?;
            b.eqs.push(e);
        }
        Ok(b)
    }

    fn convert(&mut self, e: &Expr, names: &[String]) -> Result<B, String> {
        let id = |n: &str| {
            names
                .iter()
                .position(|x| x == n)
                .ok_or_else(|| format!("unknown stream `{n}`"))
        };
        let at = |s: &str, k: i64, d: bool, me: &mut Bsrv| -> Result<B, String> {
            if k < 0 {
                me.back = me.back.max(k.unsigned_abs() as usize);
            } else {
                me.fwd = me.fwd.max(k as usize);
            }
            Ok(B::At(id(s)?, k, d))
        };
        let rec = |x: &Expr, me: &mut Bsrv| me.convert(x, names).map(Box::new);
        Ok(match &e.kind {
            ExprKind::Lit(Lit::Bool(v)) => B::Const(*v),
            ExprKind::Stream(s) => at(s, 0, false, self)?,
            ExprKind::Default(x, d) => match (&x.kind, &d.kind) {
                (ExprKind::Offset { stream, by }, ExprKind::Lit(Lit::Bool(v))) => at(stream, *by, *v, self)?,
                _ => return Err("only offsets with a constant default (`s[k, true]`) are Boolean stream expressions".into()),
            },
            ExprKind::Unary(UnOp::Not, x) => B::Not(rec(x, self)?),
            ExprKind::Binary(op, x, y) => {
                let (x, y) = (rec(x, self)?, rec(y, self)?);
                match op {
                    BinOp::And => B::And(x, y),
                    BinOp::Or => B::Or(x, y),
                    BinOp::Implies => B::Or(Box::new(B::Not(x)), y),
                    BinOp::Eq => B::Eq(x, y),
                    BinOp::Ne => B::Not(Box::new(B::Eq(x, y))),
                    _ => return Err("only logical operators are Boolean stream expressions".into()),
                }
            }
            ExprKind::Ite(c, x, y) => B::Ite(rec(c, self)?, rec(x, self)?, rec(y, self)?),
            _ => return Err("not a Boolean stream expression".into()),
        })
    }

    fn width(&self) -> usize {
        self.back + 1 + self.fwd
    }

    fn streams(&self) -> usize {
        self.inputs.len() + self.outputs.len()
    }

    /// Whether every equation holds at the centre of window `w`.
    fn consistent(&self, w: &[Letter]) -> bool {
        let centre = w[self.back];
        let n_in = self.inputs.len();
        self.eqs.iter().enumerate().all(|(k, e)| {
            let y = centre >> (n_in + k) & 1 == 1;
            self.eval(e, w) == y
        })
    }

    fn eval(&self, e: &B, w: &[Letter]) -> bool {
        match e {
            B::Const(v) => *v,
            B::At(s, k, d) => {
                let j = self.back as i64 + k;
                match w.get(j as usize) {
                    Some(&l) if j >= 0 && l != BOT => l >> s & 1 == 1,
                    _ => *d,
                }
            }
            B::Not(x) => !self.eval(x, w),
            B::And(x, y) => self.eval(x, w) && self.eval(y, w),
            B::Or(x, y) => self.eval(x, w) || self.eval(y, w),
            B::Eq(x, y) => self.eval(x, w) == self.eval(y, w),
            B::Ite(c, x, y) => {
                if self.eval(c, w) {
                    self.eval(x, w)
                } else {
                    self.eval(y, w)
                }
            }
        }
    }

    /// Every model of the input word (each position's input letter: bit `i` for input `i`),
    /// by enumerating all output valuations: the reference for the automaton.
    pub fn brute_force_models(&self, input: &[Letter]) -> Vec<Vec<Letter>> {
        let n = input.len();
        let n_in = self.inputs.len();
        let bits = self.outputs.len() * n;
        assert!(bits <= 20, "brute force is for tiny cases");
        let mut models = Vec::new();
        for guess in 0u64..(1 << bits) {
            let word: Vec<Letter> = (0..n)
                .map(|i| {
                    let outs =
                        (guess >> (i * self.outputs.len())) & ((1 << self.outputs.len()) - 1);
                    input[i] | (outs as Letter) << n_in
                })
                .collect();
            let ok = (0..n).all(|i| {
                let w: Vec<Letter> = (0..self.width())
                    .map(|j| {
                        let p = i as i64 + j as i64 - self.back as i64;
                        if p < 0 || p >= n as i64 {
                            BOT
                        } else {
                            word[p as usize]
                        }
                    })
                    .collect();
                self.consistent(&w)
            });
            if ok {
                models.push(word);
            }
        }
        models
    }

    /// Builds the reachable part of the window automaton (at most `limit` states), within
    /// the default memory limit ([`Bsrv::automaton_within`]).
    pub fn automaton(&self, limit: usize) -> Result<Nfa, String> {
        self.automaton_within(limit, MemoryLimit::DEFAULT)
    }

    /// Builds the reachable part of the window automaton: at most `limit` states, whose
    /// windows (`back + 1 + fwd` letters each, from the offsets) fit in `memory`. Both are
    /// checked before the windows are built: the initial windows alone are all the futures of
    /// `fwd` letters, and one window of an offset of 10⁸ is 400 MB.
    pub fn automaton_within(&self, limit: usize, memory: MemoryLimit) -> Result<Nfa, String> {
        let n_in = self.inputs.len();
        let letters: Vec<Letter> = (0..1u32 << self.streams()).collect();
        let futures = (letters.len() as u128 + 1).saturating_pow(self.fwd.min(128) as u32);
        if futures > limit as u128 {
            return Err(format!("the automaton has more than {limit} states"));
        }
        let window = (self.back as u128 + 1 + self.fwd as u128) * size_of::<Letter>() as u128;
        memory.check(window.saturating_mul(limit as u128), || {
            format!(
                "the window automaton's states (up to {limit}, of {} letters each)",
                self.back + 1 + self.fwd
            )
        })?;
        let mut nfa = Nfa {
            n_inputs: n_in,
            back: self.back,
            states: Vec::new(),
            index: FxHashMap::default(),
            init: FxHashMap::default(),
            next: Vec::new(),
            accepting: Vec::new(),
        };
        let mut queue = VecDeque::new();
        // Initial windows: nothing before, the centre and a future with ⊥ only as a suffix.
        let mut futures: Vec<Vec<Letter>> = vec![Vec::new()];
        for _ in 0..self.fwd {
            futures = futures
                .into_iter()
                .flat_map(|f| {
                    let ended = f.last() == Some(&BOT);
                    let choices: Vec<Letter> = if ended {
                        vec![BOT]
                    } else {
                        letters.iter().copied().chain([BOT]).collect()
                    };
                    choices.into_iter().map(move |d| {
                        let mut g = f.clone();
                        g.push(d);
                        g
                    })
                })
                .collect();
        }
        for &c in &letters {
            for fut in &futures {
                let mut w = vec![BOT; self.back];
                w.push(c);
                w.extend(fut);
                if self.consistent(&w) {
                    let id = nfa.add(w, &mut queue, limit)?;
                    nfa.init.entry(c & ((1 << n_in) - 1)).or_default().push(id);
                }
            }
        }
        while let Some(id) = queue.pop_front() {
            let w = nfa.states[id].clone();
            let mut succ: Vec<(Letter, usize)> = Vec::new();
            let new_centre = w.get(self.back + 1).copied().unwrap_or(BOT);
            let ended = w.last() == Some(&BOT);
            let appended: Vec<Letter> = if self.fwd == 0 {
                letters.clone()
            } else if ended {
                vec![BOT]
            } else {
                letters.iter().copied().chain([BOT]).collect()
            };
            if self.fwd > 0 && new_centre == BOT {
                nfa.next.push(succ);
                continue;
            }
            for d in appended {
                let mut v: Vec<Letter> = w[1..].to_vec();
                v.push(d);
                if self.consistent(&v) {
                    let iota = v[self.back] & ((1 << n_in) - 1);
                    let to = nfa.add(v, &mut queue, limit)?;
                    succ.push((iota, to));
                }
            }
            nfa.next.push(succ);
        }
        nfa.accepting = nfa
            .states
            .iter()
            .map(|w| w[self.back + 1..].iter().all(|&l| l == BOT))
            .collect();
        Ok(nfa)
    }
}

/// The window automaton over input letters.
#[derive(Debug)]
pub struct Nfa {
    n_inputs: usize,
    back: usize,
    states: Vec<Vec<Letter>>,
    index: FxHashMap<Vec<Letter>, usize>,
    /// Initial states per first input letter.
    init: FxHashMap<Letter, Vec<usize>>,
    /// Per state: (input letter of the next position, successor).
    next: Vec<Vec<(Letter, usize)>>,
    accepting: Vec<bool>,
}

/// Why the two-pass monitor could not give the outputs of an input.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NoUniqueModel {
    /// The input has no model: the specification is over-defined on it.
    None,
    /// Two models differ at this position (0-based): under-defined on this input.
    Several(usize),
}

/// What the automaton decides about a specification (Prop. 2 and its corollaries).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Definedness {
    /// An input with two models, if there is one (under-defined).
    pub ambiguous_input: Option<Vec<Letter>>,
    /// An input with no model, if there is one (over-defined).
    pub modelless_input: Option<Vec<Letter>>,
}

impl Definedness {
    pub fn well_defined(&self) -> bool {
        self.ambiguous_input.is_none() && self.modelless_input.is_none()
    }
}

impl Nfa {
    fn add(
        &mut self,
        w: Vec<Letter>,
        queue: &mut VecDeque<usize>,
        limit: usize,
    ) -> Result<usize, String> {
        if let Some(&id) = self.index.get(&w) {
            return Ok(id);
        }
        if self.states.len() >= limit {
            return Err(format!("the automaton has more than {limit} states"));
        }
        let id = self.states.len();
        self.index.insert(w.clone(), id);
        self.states.push(w);
        queue.push_back(id);
        Ok(id)
    }

    pub fn state_count(&self) -> usize {
        self.states.len()
    }

    fn letters(&self) -> impl Iterator<Item = Letter> {
        0..1u32 << self.n_inputs
    }

    /// The full valuation at the centre of state `s`.
    fn centre(&self, s: usize) -> Letter {
        self.states[s][self.back]
    }

    /// Decides under- and over-definedness with witnesses: ambiguity by searching pairs of
    /// runs on the same input that have diverged, universality by the subset construction;
    /// within [`DEFINEDNESS_WORK`].
    pub fn definedness(&self) -> Result<Definedness, String> {
        self.definedness_within(DEFINEDNESS_WORK)
    }

    /// [`Nfa::definedness`], or an error once the two searches have visited `work` pairs
    /// and subset members (the pairs grow with the square of the states, the subsets
    /// exponentially: a 13,699-state automaton took 7 s and 2 GB, one more 60 s and 16 GB).
    pub fn definedness_within(&self, work: usize) -> Result<Definedness, String> {
        let mut spent = 0usize;
        let mut spend = |n: usize| -> Result<(), String> {
            spent += n;
            if spent > work {
                return Err(format!(
                    "deciding definedness needs more than {work} steps over the automaton's \
                     {} states",
                    self.states.len()
                ));
            }
            Ok(())
        };
        // Pairs of runs: (state, state, diverged); the input that reaches each is kept as a
        // parent pointer and a letter (a word per entry would be quadratic in memory).
        let mut ambiguous_input = None;
        let mut seen: FxHashSet<(usize, usize, bool)> = FxHashSet::default();
        let mut found: Vec<((usize, usize, bool), usize, Letter)> = Vec::new();
        for (&iota, starts) in &self.init {
            for &p in starts {
                for &q in starts {
                    spend(1)?;
                    let key = (p, q, p != q);
                    if seen.insert(key) {
                        found.push((key, usize::MAX, iota));
                    }
                }
            }
        }
        let mut at = 0;
        while at < found.len() {
            let ((p, q, diverged), _, _) = found[at];
            spend(1)?;
            if diverged && self.accepting[p] && self.accepting[q] {
                ambiguous_input = Some(word(&found, at, |e| (e.1, e.2)));
                break;
            }
            for &(a, p2) in &self.next[p] {
                for &(b, q2) in &self.next[q] {
                    if a == b {
                        spend(1)?;
                        let key = (p2, q2, diverged || p2 != q2);
                        if seen.insert(key) {
                            found.push((key, at, a));
                        }
                    }
                }
            }
            at += 1;
        }
        // Subsets reachable by some input: one without an accepting state has no model.
        let mut modelless_input = None;
        let mut seen: FxHashSet<Vec<usize>> = FxHashSet::default();
        let mut found: Vec<(Vec<usize>, usize, Letter)> = Vec::new();
        for iota in self.letters() {
            let mut s = self.init.get(&iota).cloned().unwrap_or_default();
            s.sort_unstable();
            s.dedup();
            spend(s.len() + 1)?;
            if seen.insert(s.clone()) {
                found.push((s, usize::MAX, iota));
            }
        }
        let mut at = 0;
        'search: while at < found.len() {
            if !found[at].0.iter().any(|&s| self.accepting[s]) {
                modelless_input = Some(word(&found, at, |e| (e.1, e.2)));
                break 'search;
            }
            for iota in self.letters() {
                let mut t: Vec<usize> = found[at]
                    .0
                    .iter()
                    .flat_map(|&s| self.next[s].iter().filter(|e| e.0 == iota).map(|e| e.1))
                    .collect();
                t.sort_unstable();
                t.dedup();
                spend(t.len() + 1)?;
                if seen.insert(t.clone()) {
                    found.push((t, at, iota));
                }
            }
            at += 1;
        }
        Ok(Definedness {
            ambiguous_input,
            modelless_input,
        })
    }

    /// Fig. 4: a forward pass keeps the set of states after each position; a backward pass
    /// picks the unique accepting state at the end and the unique predecessor before it. The
    /// result is the valuation of all streams at every position.
    pub fn two_pass(&self, input: &[Letter]) -> Result<Vec<Letter>, NoUniqueModel> {
        let Some(&first) = input.first() else {
            return Ok(Vec::new());
        };
        let mut sets: Vec<Vec<usize>> = Vec::with_capacity(input.len());
        let mut cur = self.init.get(&first).cloned().unwrap_or_default();
        for &iota in &input[1..] {
            let mut next: Vec<usize> = cur
                .iter()
                .flat_map(|&s| self.next[s].iter().filter(|e| e.0 == iota).map(|e| e.1))
                .collect();
            next.sort_unstable();
            next.dedup();
            sets.push(std::mem::replace(&mut cur, next));
        }
        sets.push(cur);
        let n = input.len();
        let finals: Vec<usize> = sets[n - 1]
            .iter()
            .copied()
            .filter(|&s| self.accepting[s])
            .collect();
        let mut p = match finals[..] {
            [] => return Err(NoUniqueModel::None),
            [s] => s,
            _ => return Err(NoUniqueModel::Several(n - 1)),
        };
        let mut out = vec![0; n];
        out[n - 1] = self.centre(p);
        for i in (0..n - 1).rev() {
            let preds: Vec<usize> = sets[i]
                .iter()
                .copied()
                .filter(|&q| self.next[q].iter().any(|e| e.0 == input[i + 1] && e.1 == p))
                .collect();
            p = match preds[..] {
                [q] => q,
                [] => return Err(NoUniqueModel::None),
                _ => return Err(NoUniqueModel::Several(i)),
            };
            out[i] = self.centre(p);
        }
        Ok(out)
    }
}

/// The steps [`Nfa::definedness`] may take: a few seconds and a few hundred megabytes.
pub const DEFINEDNESS_WORK: usize = 2_000_000;

/// The input that reaches entry `at` of a breadth-first search whose entries know their
/// parent and the letter read from it (`link`).
fn word<E>(found: &[E], mut at: usize, link: impl Fn(&E) -> (usize, Letter)) -> Vec<Letter> {
    let mut w = Vec::new();
    loop {
        let (parent, letter) = link(&found[at]);
        w.push(letter);
        if parent == usize::MAX {
            break;
        }
        at = parent;
    }
    w.reverse();
    w
}
