//! `ltl:` bodies: past- and future-time LTL over a property's events, compiled to the finite
//! machine every property runs as (so indexing, creation events and end-of-life events apply
//! unchanged).
//!
//! Syntax: JavaMOP's LTL plugin, with MonPoly's upper-case keywords as synonyms.
//!
//! | | |
//! |---|---|
//! | `!a`, `not a`, `NOT a` | negation |
//! | `a and b`, `a && b`, `a or b`, `a \|\| b`, `a xor b`, `a => b`, `a <=> b` | Boolean (also `AND OR IMPLIES EQUIV`) |
//! | `[] a`, `<> a`, `o a`, `a U b` | always, eventually, next, until (also `ALWAYS EVENTUALLY NEXT UNTIL`) |
//! | `[*] a`, `<*> a`, `(*) a`, `a S b` | historically, once, previously, since (also `HISTORICALLY ONCE PREVIOUS SINCE`) |
//! | `true`, `false`, event names, parentheses | |
//!
//! Binding, tightest first: the unary operators, `U`/`S` (right), `and`, `or`/`xor`, `=>`
//! (right), `<=>`. Event names are the property's events; `next` is an event name, not the
//! next operator (that is `o` or `NEXT`), so JavaMOP's HasNext reads as it does there.
//!
//! Semantics, over one binding's slice:
//! * A formula with past operators only is JavaMOP's `ptltl`: it is evaluated after every
//!   event of the slice, and the binding reports `@violation` when it is false there and
//!   `@validation` when it is true.
//! * A formula with a future operator is finite-trace LTL evaluated from the slice's first
//!   event (`o` is the strong next: there is a next event). The binding reports `@violation`
//!   after the event from which no continuation of the slice can satisfy the formula, and
//!   `@validation` after the event from which every continuation does. Such a verdict is final:
//!   the binding's monitoring ends there. Past operators may occur under future ones (they are
//!   evaluated at the position the future operator reaches), not the other way round.
//!
//! Construction: the past subformulas' values after an event are the state of a past
//! automaton (Havelund and Roşu's recurrences); future obligations are formula progression
//! over normalised positive Boolean combinations of "holds at the next position (strong or
//! weak)". The machine is the product of both, explored from the start; verdicts are
//! reachability questions on it.

use std::collections::VecDeque;

use logos::Logos;
use rustc_hash::FxHashMap;
use rvmon_core::Depth;

use crate::monitor::reaching;

/// The most tokens a body may have (the compiler recurses over the formula).
pub const MAX_TOKENS: usize = 2000;
/// The most conjunctions a residual may have.
pub const MAX_CONJUNCTIONS: usize = 4096;

/// The most states a compiled body may have.
pub const MAX_STATES: usize = 10_000;
const PAST_OVER_FUTURE: &str = "a past operator over a future one is not supported in ltl bodies";

/// The most subformulas a body's past part may have (their values are a 64-bit state).
pub const MAX_PAST: usize = 64;

/// A body formula; events are numbered as the property declares them.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Ltl {
    Bool(bool),
    Event(usize),
    Not(Box<Ltl>),
    And(Box<Ltl>, Box<Ltl>),
    Or(Box<Ltl>, Box<Ltl>),
    /// `a <=> b` (and, negated, `xor`): kept whole, as expanding it copies both sides.
    Iff(Box<Ltl>, Box<Ltl>),
    Previous(Box<Ltl>),
    Once(Box<Ltl>),
    Historically(Box<Ltl>),
    Since(Box<Ltl>, Box<Ltl>),
    Next(Box<Ltl>),
    Eventually(Box<Ltl>),
    Always(Box<Ltl>),
    Until(Box<Ltl>, Box<Ltl>),
}

impl Ltl {
    /// Whether a future operator occurs in the formula.
    pub fn has_future(&self) -> bool {
        match self {
            Ltl::Bool(_) | Ltl::Event(_) => false,
            Ltl::Next(_) | Ltl::Eventually(_) | Ltl::Always(_) | Ltl::Until(..) => true,
            Ltl::Not(a) | Ltl::Previous(a) | Ltl::Once(a) | Ltl::Historically(a) => a.has_future(),
            Ltl::And(a, b) | Ltl::Or(a, b) | Ltl::Iff(a, b) | Ltl::Since(a, b) => {
                a.has_future() || b.has_future()
            }
        }
    }

    /// Whether `self` holds at position `i` of `word` (straight from the semantics: the
    /// reference the compiled machine is tested against). Future operators see the word's end.
    pub fn holds(&self, word: &[usize], i: usize) -> bool {
        let n = word.len();
        match self {
            Ltl::Bool(b) => *b,
            Ltl::Event(e) => word[i] == *e,
            Ltl::Not(a) => !a.holds(word, i),
            Ltl::And(a, b) => a.holds(word, i) && b.holds(word, i),
            Ltl::Or(a, b) => a.holds(word, i) || b.holds(word, i),
            Ltl::Iff(a, b) => a.holds(word, i) == b.holds(word, i),
            Ltl::Previous(a) => i > 0 && a.holds(word, i - 1),
            Ltl::Once(a) => (0..=i).any(|j| a.holds(word, j)),
            Ltl::Historically(a) => (0..=i).all(|j| a.holds(word, j)),
            Ltl::Since(a, b) => {
                (0..=i).any(|j| b.holds(word, j) && (j + 1..=i).all(|k| a.holds(word, k)))
            }
            Ltl::Next(a) => i + 1 < n && a.holds(word, i + 1),
            Ltl::Eventually(a) => (i..n).any(|j| a.holds(word, j)),
            Ltl::Always(a) => (i..n).all(|j| a.holds(word, j)),
            Ltl::Until(a, b) => {
                (i..n).any(|j| b.holds(word, j) && (i..j).all(|k| a.holds(word, k)))
            }
        }
    }
}

#[derive(Logos, Clone, Debug, PartialEq)]
#[logos(skip r"[ \t\r\n\f]+")]
#[logos(skip r"//[^\n]*")]
enum Tok {
    #[token("/*", block_comment)]
    BlockComment,
    #[token("(")]
    LParen,
    #[token(")")]
    RParen,
    #[token("[]")]
    Always,
    #[token("<>")]
    Eventually,
    #[token("(*)")]
    Previous,
    #[token("<*>")]
    Once,
    #[token("[*]")]
    Historically,
    #[token("!")]
    Bang,
    #[token("&&")]
    AndSym,
    #[token("||")]
    OrSym,
    #[token("=>")]
    Implies,
    #[token("<=>")]
    Iff,
    #[regex(r"[A-Za-z_][A-Za-z0-9_]*", |l| l.slice().to_string())]
    Word(String),
}

/// Skips a `/* … */` comment (to the end of the text if it is not closed): the `.rvm` lexer's
/// and this one's.
pub(crate) fn block_comment<'s, T: Logos<'s, Source = str>>(
    lex: &mut logos::Lexer<'s, T>,
) -> logos::Skip {
    let rest = lex.remainder();
    lex.bump(rest.find("*/").map_or(rest.len(), |i| i + 2));
    logos::Skip
}

/// The tokens of `text` with their byte offsets, or the offset and character of the first
/// that is not one (the `.rvm` lexer's and this one's).
pub(crate) fn tokens<'s, T>(text: &'s str) -> Result<Vec<(T, usize)>, (usize, char)>
where
    T: Logos<'s, Source = str>,
    T::Extras: Default,
{
    let mut toks = Vec::new();
    for (t, span) in T::lexer(text).spanned() {
        match t {
            Ok(t) => toks.push((t, span.start)),
            Err(_) => {
                let c = text[span.start..].chars().next().unwrap_or(' ');
                return Err((span.start, c));
            }
        }
    }
    Ok(toks)
}

/// A parse error: byte offset in the parsed text, and what went wrong.
pub type ParseError = (usize, String);

/// Parses an `ltl:` body. `event` numbers an event name (or says it is not one).
pub fn parse(text: &str, event: &dyn Fn(&str) -> Option<usize>) -> Result<Ltl, ParseError> {
    let toks: Vec<(Tok, usize)> = tokens(text)
        .map_err(|(at, c)| (at, format!("unexpected character `{c}` in the ltl formula")))?;
    if toks.len() > MAX_TOKENS {
        return Err((
            toks[MAX_TOKENS].1,
            format!("an ltl formula has at most {MAX_TOKENS} tokens"),
        ));
    }
    let mut p = Parser {
        toks,
        pos: 0,
        end: text.len(),
        depth: Depth::new(crate::spec::MAX_NESTING),
        event,
    };
    let f = p.iff()?;
    if p.pos < p.toks.len() {
        return Err(p.expected("an operator or the end of the formula"));
    }
    Ok(f)
}

struct Parser<'a> {
    toks: Vec<(Tok, usize)>,
    pos: usize,
    end: usize,
    depth: Depth,
    event: &'a dyn Fn(&str) -> Option<usize>,
}

fn bx(f: Ltl) -> Box<Ltl> {
    Box::new(f)
}

impl Parser<'_> {
    fn at(&self) -> usize {
        self.toks.get(self.pos).map_or(self.end, |t| t.1)
    }

    fn expected(&self, what: &str) -> ParseError {
        let found = match self.toks.get(self.pos) {
            None => "the end of the formula".to_string(),
            Some((Tok::Word(w), _)) => format!("`{w}`"),
            Some((t, _)) => format!("{t:?}"),
        };
        (self.at(), format!("expected {what}, found {found}"))
    }

    /// Whether the next token is one of `toks` or a word among `words`; consumes it if so.
    fn eat(&mut self, toks: &[Tok], words: &[&str]) -> bool {
        let hit = match self.toks.get(self.pos) {
            Some((Tok::Word(w), _)) => words.contains(&w.as_str()),
            Some((t, _)) => toks.contains(t),
            None => false,
        };
        self.pos += usize::from(hit);
        hit
    }

    fn iff(&mut self) -> Result<Ltl, ParseError> {
        let mut f = self.implies()?;
        while self.eat(&[Tok::Iff], &["EQUIV"]) {
            let g = self.implies()?;
            f = iff(f, g);
        }
        Ok(f)
    }

    fn implies(&mut self) -> Result<Ltl, ParseError> {
        let f = self.or()?;
        if self.eat(&[Tok::Implies], &["IMPLIES"]) {
            let g = self.nested(Self::implies)?;
            return Ok(Ltl::Or(bx(Ltl::Not(bx(f))), bx(g)));
        }
        Ok(f)
    }

    fn or(&mut self) -> Result<Ltl, ParseError> {
        let mut f = self.and()?;
        loop {
            if self.eat(&[Tok::OrSym], &["or", "OR"]) {
                f = Ltl::Or(bx(f), bx(self.and()?));
            } else if self.eat(&[], &["xor"]) {
                let g = self.and()?;
                f = Ltl::Not(bx(iff(f, g)));
            } else {
                return Ok(f);
            }
        }
    }

    fn and(&mut self) -> Result<Ltl, ParseError> {
        let mut f = self.binary()?;
        while self.eat(&[Tok::AndSym], &["and", "AND"]) {
            f = Ltl::And(bx(f), bx(self.binary()?));
        }
        Ok(f)
    }

    fn binary(&mut self) -> Result<Ltl, ParseError> {
        let f = self.unary()?;
        if self.eat(&[], &["U", "UNTIL"]) {
            return Ok(Ltl::Until(bx(f), bx(self.nested(Self::binary)?)));
        }
        if self.eat(&[], &["S", "SINCE"]) {
            return Ok(Ltl::Since(bx(f), bx(self.nested(Self::binary)?)));
        }
        Ok(f)
    }

    /// Runs `rule` one level deeper, refusing formulas nested past
    /// [`crate::spec::MAX_NESTING`] levels (the compiler recurses over the formula).
    fn nested(
        &mut self,
        rule: fn(&mut Self) -> Result<Ltl, ParseError>,
    ) -> Result<Ltl, ParseError> {
        self.depth.enter().map_err(|m| (self.at(), m))?;
        let r = rule(self);
        self.depth.leave();
        r
    }

    fn unary(&mut self) -> Result<Ltl, ParseError> {
        type Make = fn(Box<Ltl>) -> Ltl;
        let ops: [(&[Tok], &[&str], Make); 7] = [
            (&[Tok::Bang], &["not", "NOT"], Ltl::Not),
            (&[Tok::Always], &["ALWAYS"], Ltl::Always),
            (&[Tok::Eventually], &["EVENTUALLY"], Ltl::Eventually),
            (&[], &["o", "NEXT"], Ltl::Next),
            (&[Tok::Historically], &["HISTORICALLY"], Ltl::Historically),
            (&[Tok::Once], &["ONCE"], Ltl::Once),
            (&[Tok::Previous], &["PREVIOUS"], Ltl::Previous),
        ];
        for (toks, words, make) in ops {
            if self.eat(toks, words) {
                return Ok(make(bx(self.nested(Self::unary)?)));
            }
        }
        self.atom()
    }

    fn atom(&mut self) -> Result<Ltl, ParseError> {
        if self.eat(&[Tok::LParen], &[]) {
            let f = self.nested(Self::iff)?;
            if !self.eat(&[Tok::RParen], &[]) {
                return Err(self.expected("`)`"));
            }
            return Ok(f);
        }
        if self.eat(&[], &["true", "TRUE"]) {
            return Ok(Ltl::Bool(true));
        }
        if self.eat(&[], &["false", "FALSE"]) {
            return Ok(Ltl::Bool(false));
        }
        match self.toks.get(self.pos) {
            Some((Tok::Word(w), at)) if !is_keyword(w) => match (self.event)(w) {
                Some(e) => {
                    self.pos += 1;
                    Ok(Ltl::Event(e))
                }
                None => Err((
                    *at,
                    format!(
                        "`{w}` is not an event of this property; declare it with `event {w}(…)`"
                    ),
                )),
            },
            _ => Err(self.expected("an event name, `true`, `false`, a unary operator or `(`")),
        }
    }
}

/// Words that are operators, so never event names.
pub fn is_keyword(w: &str) -> bool {
    const WORDS: [&str; 24] = [
        "not",
        "NOT",
        "and",
        "AND",
        "or",
        "OR",
        "xor",
        "IMPLIES",
        "EQUIV",
        "o",
        "NEXT",
        "U",
        "UNTIL",
        "S",
        "SINCE",
        "ALWAYS",
        "EVENTUALLY",
        "HISTORICALLY",
        "ONCE",
        "PREVIOUS",
        "true",
        "TRUE",
        "false",
        "FALSE",
    ];
    WORDS.contains(&w)
}

fn iff(f: Ltl, g: Ltl) -> Ltl {
    Ltl::Iff(bx(f), bx(g))
}

/// A compiled body: state 0 is the start (no event yet).
#[derive(Clone, Debug)]
pub struct Machine {
    /// `delta[state][event]`; `None` after a final verdict.
    pub delta: Vec<Vec<Option<usize>>>,
    /// `Some(true)`: validation, `Some(false)`: violation, after the event that led here.
    pub verdict: Vec<Option<bool>>,
    /// Whether the slice read so far satisfies the formula (evaluated at its first event for a
    /// formula with future operators, at its last event for a past-only one).
    pub holds: Vec<bool>,
}

/// One subformula of the past part; operands are earlier entries.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Past {
    Bool(bool),
    Event(usize),
    Not(usize),
    And(usize, usize),
    Or(usize, usize),
    Iff(usize, usize),
    Previous(usize),
    Once(usize),
    Historically(usize),
    Since(usize, usize),
}

/// A future formula in negation normal form, interned.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Fut {
    True,
    False,
    /// The past part's subformula, positively or negated.
    Atom(usize, bool),
    And(Vec<u32>),
    Or(Vec<u32>),
    Next(u32),
    WeakNext(u32),
    Eventually(u32),
    Always(u32),
    Until(u32, u32),
    Release(u32, u32),
}

/// What the slice still owes after an event: a disjunction of conjunctions of obligations on
/// the next position. An obligation is `2 f + 1` (formula `f` must hold there, and the slice
/// must go on: strong) or `2 f` (the same unless the slice ends first: weak). Kept canonical
/// (sorted, without duplicates, no conjunction containing another), so that equal residuals
/// are one state and there are finitely many.
type Residual = Vec<Vec<u32>>;

fn strong(f: u32) -> Residual {
    vec![vec![2 * f + 1]]
}

fn weak(f: u32) -> Residual {
    vec![vec![2 * f]]
}

fn constant(b: bool) -> Residual {
    if b {
        vec![vec![]]
    } else {
        vec![]
    }
}

fn canonical(mut d: Residual) -> Residual {
    for c in &mut d {
        c.sort_unstable();
        c.dedup();
    }
    d.sort_unstable_by(|a, b| a.len().cmp(&b.len()).then_with(|| a.cmp(b)));
    d.dedup();
    // Absorption: a conjunction that contains a shorter one adds nothing to the disjunction.
    let mut kept: Residual = Vec::with_capacity(d.len());
    for c in d {
        if !kept
            .iter()
            .any(|k| k.iter().all(|x| c.binary_search(x).is_ok()))
        {
            kept.push(c);
        }
    }
    kept
}

/// A residual that grew past [`MAX_CONJUNCTIONS`] (a formula whose obligations multiply).
const TOO_BIG: &str = "the formula's obligations grow past 4096 conjunctions";

fn or(mut a: Residual, b: Residual) -> Result<Residual, String> {
    a.extend(b);
    let d = canonical(a);
    if d.len() > MAX_CONJUNCTIONS {
        return Err(TOO_BIG.into());
    }
    Ok(d)
}

fn and(a: &Residual, b: &Residual) -> Result<Residual, String> {
    if a.len().saturating_mul(b.len()) > MAX_CONJUNCTIONS {
        return Err(TOO_BIG.into());
    }
    let mut d = Vec::with_capacity(a.len() * b.len());
    for x in a {
        for y in b {
            d.push(x.iter().chain(y).copied().collect());
        }
    }
    Ok(canonical(d))
}

#[derive(Default)]
struct Compiler {
    past: Vec<Past>,
    past_ids: FxHashMap<Past, usize>,
    fut: Vec<Fut>,
    fut_ids: FxHashMap<Fut, u32>,
    /// `nnf` of each subformula and polarity met (an `<=>` needs both polarities of both
    /// sides, and nested ones would otherwise redo them exponentially often).
    nnf_done: FxHashMap<(*const Ltl, bool), u32>,
}

impl Compiler {
    fn past_node(&mut self, p: Past) -> Result<usize, String> {
        if let Some(&id) = self.past_ids.get(&p) {
            return Ok(id);
        }
        if self.past.len() >= MAX_PAST {
            return Err(format!(
                "the formula's past part has more than {MAX_PAST} subformulas"
            ));
        }
        self.past.push(p);
        self.past_ids.insert(p, self.past.len() - 1);
        Ok(self.past.len() - 1)
    }

    /// Numbers a formula without future operators.
    fn past_of(&mut self, f: &Ltl) -> Result<usize, String> {
        let p = match f {
            Ltl::Bool(b) => Past::Bool(*b),
            Ltl::Event(e) => Past::Event(*e),
            Ltl::Not(a) => Past::Not(self.past_of(a)?),
            Ltl::And(a, b) => Past::And(self.past_of(a)?, self.past_of(b)?),
            Ltl::Or(a, b) => Past::Or(self.past_of(a)?, self.past_of(b)?),
            Ltl::Iff(a, b) => Past::Iff(self.past_of(a)?, self.past_of(b)?),
            Ltl::Previous(a) => Past::Previous(self.past_of(a)?),
            Ltl::Once(a) => Past::Once(self.past_of(a)?),
            Ltl::Historically(a) => Past::Historically(self.past_of(a)?),
            Ltl::Since(a, b) => Past::Since(self.past_of(a)?, self.past_of(b)?),
            _ => return Err(PAST_OVER_FUTURE.into()),
        };
        self.past_node(p)
    }

    /// The past part's values after `event`, given those after the previous event.
    fn past_step(&self, prev: Option<u64>, event: usize) -> u64 {
        let mut cur = 0u64;
        let was = |k: usize| prev.is_some_and(|p| p >> k & 1 == 1);
        for (k, p) in self.past.iter().enumerate() {
            let now = |j: usize| cur >> j & 1 == 1;
            let v = match *p {
                Past::Bool(b) => b,
                Past::Event(e) => e == event,
                Past::Not(a) => !now(a),
                Past::And(a, b) => now(a) && now(b),
                Past::Or(a, b) => now(a) || now(b),
                Past::Iff(a, b) => now(a) == now(b),
                Past::Previous(a) => was(a),
                Past::Once(a) => now(a) || was(k),
                Past::Historically(a) => now(a) && (prev.is_none() || was(k)),
                Past::Since(a, b) => now(b) || (now(a) && was(k)),
            };
            cur |= u64::from(v) << k;
        }
        cur
    }

    fn intern(&mut self, f: Fut) -> u32 {
        if let Some(&id) = self.fut_ids.get(&f) {
            return id;
        }
        self.fut.push(f.clone());
        let id = (self.fut.len() - 1) as u32;
        self.fut_ids.insert(f, id);
        id
    }

    /// `∧`/`∨` of `xs`, flattened, sorted and without duplicates, so that equal residuals
    /// are one state.
    fn junction(&mut self, and: bool, xs: Vec<u32>) -> u32 {
        let (unit, zero) = if and {
            (Fut::True, Fut::False)
        } else {
            (Fut::False, Fut::True)
        };
        let mut flat = Vec::new();
        for x in xs {
            match &self.fut[x as usize] {
                f if *f == zero => return self.intern(zero),
                f if *f == unit => {}
                Fut::And(ys) if and => flat.extend_from_slice(ys),
                Fut::Or(ys) if !and => flat.extend_from_slice(ys),
                _ => flat.push(x),
            }
        }
        flat.sort_unstable();
        flat.dedup();
        match flat.len() {
            0 => self.intern(unit),
            1 => flat[0],
            _ if and => self.intern(Fut::And(flat)),
            _ => self.intern(Fut::Or(flat)),
        }
    }

    /// The negation normal form of `f` (negated when `pos` is false) as an obligation.
    fn nnf(&mut self, f: &Ltl, pos: bool) -> Result<u32, String> {
        if let Some(&id) = self.nnf_done.get(&(f as *const Ltl, pos)) {
            return Ok(id);
        }
        let id = self.nnf_of(f, pos)?;
        self.nnf_done.insert((f as *const Ltl, pos), id);
        Ok(id)
    }

    fn nnf_of(&mut self, f: &Ltl, pos: bool) -> Result<u32, String> {
        if !f.has_future() {
            let p = self.past_of(f)?;
            return Ok(self.intern(Fut::Atom(p, pos)));
        }
        Ok(match f {
            // (a ∧ b) ∨ (¬a ∧ ¬b), or for its negation (a ∧ ¬b) ∨ (¬a ∧ b).
            Ltl::Iff(a, b) => {
                let (a1, a0) = (self.nnf(a, true)?, self.nnf(a, false)?);
                let (b1, b0) = (self.nnf(b, true)?, self.nnf(b, false)?);
                let both = self.junction(true, vec![a1, if pos { b1 } else { b0 }]);
                let neither = self.junction(true, vec![a0, if pos { b0 } else { b1 }]);
                self.junction(false, vec![both, neither])
            }
            Ltl::Not(a) => self.nnf(a, !pos)?,
            Ltl::And(a, b) | Ltl::Or(a, b) => {
                let and = matches!(f, Ltl::And(..)) == pos;
                let xs = vec![self.nnf(a, pos)?, self.nnf(b, pos)?];
                self.junction(and, xs)
            }
            Ltl::Next(a) => {
                let x = self.nnf(a, pos)?;
                self.intern(if pos { Fut::Next(x) } else { Fut::WeakNext(x) })
            }
            Ltl::Eventually(a) | Ltl::Always(a) => {
                let x = self.nnf(a, pos)?;
                let eventually = matches!(f, Ltl::Eventually(_)) == pos;
                self.intern(if eventually {
                    Fut::Eventually(x)
                } else {
                    Fut::Always(x)
                })
            }
            Ltl::Until(a, b) => {
                let (x, y) = (self.nnf(a, pos)?, self.nnf(b, pos)?);
                self.intern(if pos {
                    Fut::Until(x, y)
                } else {
                    Fut::Release(x, y)
                })
            }
            // What remains is a past operator with a future operand.
            _ => return Err(PAST_OVER_FUTURE.into()),
        })
    }

    /// What formula `f` leaves for the next position, at a position whose past part has
    /// values `cur`.
    fn progress(
        &mut self,
        f: u32,
        cur: u64,
        memo: &mut FxHashMap<u32, Residual>,
    ) -> Result<Residual, String> {
        if let Some(r) = memo.get(&f) {
            return Ok(r.clone());
        }
        let r = match self.fut[f as usize].clone() {
            Fut::True => constant(true),
            Fut::False => constant(false),
            Fut::Atom(p, pos) => constant((cur >> p & 1 == 1) == pos),
            Fut::And(xs) => {
                let mut d = constant(true);
                for x in xs {
                    d = and(&d, &self.progress(x, cur, memo)?)?;
                }
                d
            }
            Fut::Or(xs) => {
                let mut d = constant(false);
                for x in xs {
                    d = or(d, self.progress(x, cur, memo)?)?;
                }
                d
            }
            Fut::Next(x) => strong(x),
            Fut::WeakNext(x) => weak(x),
            Fut::Eventually(x) => or(self.progress(x, cur, memo)?, strong(f))?,
            Fut::Always(x) => and(&self.progress(x, cur, memo)?, &weak(f))?,
            Fut::Until(x, y) => {
                let keep = and(&self.progress(x, cur, memo)?, &strong(f))?;
                or(self.progress(y, cur, memo)?, keep)?
            }
            Fut::Release(x, y) => {
                let free = or(self.progress(x, cur, memo)?, weak(f))?;
                and(&self.progress(y, cur, memo)?, &free)?
            }
        };
        memo.insert(f, r.clone());
        Ok(r)
    }

    /// The residual after an event whose past part has values `cur`: every obligation
    /// falls due.
    fn step(
        &mut self,
        d: &Residual,
        cur: u64,
        memo: &mut FxHashMap<u32, Residual>,
    ) -> Result<Residual, String> {
        let mut out = constant(false);
        for c in d {
            let mut conj = constant(true);
            for &ob in c {
                conj = and(&conj, &self.progress(ob / 2, cur, memo)?)?;
            }
            out = or(out, conj)?;
        }
        Ok(out)
    }
}

/// Whether residual `d` is met if the slice ends here: some conjunction of weak obligations.
fn accepts(d: &Residual) -> bool {
    d.iter().any(|c| c.iter().all(|ob| ob & 1 == 0))
}

/// Compiles `f` over `events` event symbols; an error says why it cannot be.
pub fn compile(f: &Ltl, events: usize) -> Result<Machine, String> {
    let mut c = Compiler::default();
    let future = f.has_future();
    // A state: the past part's values after the last event (none at the start), and the
    // obligations left for the next position (unused by a past-only formula).
    let (root, start) = if future {
        (0, strong(c.nnf(f, true)?))
    } else {
        (c.past_of(f)?, constant(true))
    };
    let mut residuals: Vec<Residual> = vec![start.clone()];
    let mut residual_ids: FxHashMap<Residual, u32> = FxHashMap::from_iter([(start, 0)]);
    let mut ids: FxHashMap<(Option<u64>, u32), usize> = FxHashMap::default();
    let mut states = vec![(None, 0)];
    ids.insert((None, 0), 0);
    let mut delta: Vec<Vec<Option<usize>>> = Vec::new();
    let mut queue = VecDeque::from([0usize]);
    let mut memo = FxHashMap::default();
    while let Some(s) = queue.pop_front() {
        let (prev, res) = states[s];
        let mut row = Vec::with_capacity(events);
        for e in 0..events {
            let cur = c.past_step(prev, e);
            let next = if future {
                memo.clear();
                let d = c.step(&residuals[res as usize], cur, &mut memo)?;
                match residual_ids.get(&d) {
                    Some(&id) => id,
                    None => {
                        residuals.push(d.clone());
                        residual_ids.insert(d, residuals.len() as u32 - 1);
                        residuals.len() as u32 - 1
                    }
                }
            } else {
                0
            };
            let key = (Some(cur), next);
            let t = match ids.get(&key) {
                Some(&t) => t,
                None => {
                    if states.len() >= MAX_STATES {
                        return Err(format!("the formula needs more than {MAX_STATES} states"));
                    }
                    states.push(key);
                    ids.insert(key, states.len() - 1);
                    queue.push_back(states.len() - 1);
                    states.len() - 1
                }
            };
            row.push(Some(t));
        }
        delta.push(row);
    }
    let n = states.len();
    let holds: Vec<bool> = states
        .iter()
        .map(|&(cur, res)| match cur {
            None => false,
            Some(_) if future => accepts(&residuals[res as usize]),
            Some(bits) => bits >> root & 1 == 1,
        })
        .collect();
    let mut verdict: Vec<Option<bool>> = vec![None; n];
    if !future {
        for s in 1..n {
            verdict[s] = Some(holds[s]);
        }
        return Ok(Machine {
            delta,
            verdict,
            holds,
        });
    }
    // can[s]: some continuation from s satisfies the formula; all[s]: every one does.
    let can = reaching(&delta, |_| true, |s| holds[s]);
    let can_fail = reaching(&delta, |_| true, |s| !holds[s]);
    for s in 1..n {
        verdict[s] = if !can[s] {
            Some(false)
        } else if !can_fail[s] {
            Some(true)
        } else {
            None
        };
        if verdict[s].is_some() {
            delta[s].iter_mut().for_each(|t| *t = None);
        }
    }
    Ok(Machine {
        delta,
        verdict,
        holds,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn events(name: &str) -> Option<usize> {
        ["a", "b", "next"].iter().position(|e| *e == name)
    }

    fn run(m: &Machine, word: &[usize]) -> Option<usize> {
        word.iter().try_fold(0, |s, &e| m.delta[s][e])
    }

    fn formula() -> impl Strategy<Value = Ltl> {
        let leaf = prop_oneof![
            (0..3usize).prop_map(Ltl::Event),
            any::<bool>().prop_map(Ltl::Bool),
        ];
        leaf.prop_recursive(4, 24, 2, |f| {
            prop_oneof![
                f.clone().prop_map(|a| Ltl::Not(bx(a))),
                (f.clone(), f.clone()).prop_map(|(a, b)| Ltl::And(bx(a), bx(b))),
                (f.clone(), f.clone()).prop_map(|(a, b)| Ltl::Or(bx(a), bx(b))),
                (f.clone(), f.clone()).prop_map(|(a, b)| Ltl::Iff(bx(a), bx(b))),
                f.clone().prop_map(|a| Ltl::Previous(bx(a))),
                f.clone().prop_map(|a| Ltl::Once(bx(a))),
                f.clone().prop_map(|a| Ltl::Historically(bx(a))),
                (f.clone(), f.clone()).prop_map(|(a, b)| Ltl::Since(bx(a), bx(b))),
                f.clone().prop_map(|a| Ltl::Next(bx(a))),
                f.clone().prop_map(|a| Ltl::Eventually(bx(a))),
                f.clone().prop_map(|a| Ltl::Always(bx(a))),
                (f.clone(), f).prop_map(|(a, b)| Ltl::Until(bx(a), bx(b))),
            ]
        })
    }

    /// All words over three events of length `len`.
    fn words(len: usize) -> Vec<Vec<usize>> {
        (0..3usize.pow(len as u32))
            .map(|mut k| {
                (0..len)
                    .map(|_| {
                        let e = k % 3;
                        k /= 3;
                        e
                    })
                    .collect()
            })
            .collect()
    }

    fn past_over_future(f: &Ltl) -> bool {
        match f {
            Ltl::Previous(a) | Ltl::Once(a) | Ltl::Historically(a) => a.has_future(),
            Ltl::Since(a, b) => a.has_future() || b.has_future(),
            Ltl::Not(a) | Ltl::Next(a) | Ltl::Eventually(a) | Ltl::Always(a) => past_over_future(a),
            Ltl::And(a, b) | Ltl::Or(a, b) | Ltl::Iff(a, b) | Ltl::Until(a, b) => {
                past_over_future(a) || past_over_future(b)
            }
            _ => false,
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]
        /// The machine agrees with the semantics on every word up to length 5: a past-only
        /// formula at the last event, a future one at the first; a verdict is given exactly
        /// when every continuation (up to length 4) agrees, and then the machine stops.
        #[test]
        fn machines_follow_the_semantics(f in formula()) {
            let m = match compile(&f, 3) {
                Ok(m) => m,
                Err(e) => {
                    prop_assert!(
                        past_over_future(&f) || e.contains("states") || e.contains("conjunctions"),
                        "{e}"
                    );
                    return Ok(());
                }
            };
            prop_assert!(!past_over_future(&f));
            let future = f.has_future();
            for len in 1..=5 {
                for w in words(len) {
                    let at = if future { 0 } else { len - 1 };
                    match run(&m, &w) {
                        Some(s) => {
                            prop_assert_eq!(m.holds[s], f.holds(&w, at), "{:?} on {:?}", f, w);
                            if !future {
                                prop_assert_eq!(m.verdict[s], Some(m.holds[s]));
                                continue;
                            }
                            if m.delta.len() > 6 || len > 2 {
                                continue;
                            }
                            // With at most 6 states, a witness continuation (if any) is at
                            // most 5 events long.
                            let outcomes = (0..=5).flat_map(words).map(|u| {
                                let mut x = w.clone();
                                x.extend(u);
                                f.holds(&x, 0)
                            });
                            let (some, all) = outcomes.fold((false, true), |(s, a), h| (s || h, a && h));
                            let want = if !some { Some(false) } else if all { Some(true) } else { None };
                            prop_assert_eq!(m.verdict[s], want, "{:?} on {:?}", f, w);
                        }
                        None => {
                            // Stopped earlier: the verdict given then holds for this word too.
                            let k = (1..len).rev().find(|&k| run(&m, &w[..k]).is_some()).expect("start");
                            let s = run(&m, &w[..k]).unwrap();
                            prop_assert_eq!(m.verdict[s], Some(f.holds(&w, 0)), "{:?} on {:?}", f, w);
                        }
                    }
                }
            }
        }

        /// Any text parses to a formula or gives an error with an offset inside it.
        #[test]
        fn parsing_never_panics(text in "(a|b|next|o|U|S|\\[\\]|<>|\\(\\*\\)|<\\*>|\\[\\*\\]|!|&&|\\|\\||=>|<=>|\\(|\\)| |x){0,20}") {
            if let Err((at, _)) = parse(&text, &events) {
                prop_assert!(at <= text.len());
            }
        }
    }

    #[test]
    fn has_next_in_past_time_ltl() {
        let ev = |n: &str| {
            ["hasnexttrue", "hasnextfalse", "next"]
                .iter()
                .position(|e| *e == n)
        };
        let f = parse("next => (*) hasnexttrue", &ev).unwrap();
        let m = compile(&f, 3).unwrap();
        let (t, n) = (0, 2);
        let verdicts = |w: &[usize]| {
            let mut s = 0;
            w.iter()
                .map(|&e| {
                    s = m.delta[s][e].unwrap();
                    m.verdict[s]
                })
                .collect::<Vec<_>>()
        };
        assert_eq!(
            verdicts(&[t, n, n, t, n]),
            [Some(true), Some(true), Some(false), Some(true), Some(true)]
        );
    }

    #[test]
    fn future_verdicts_are_final() {
        let ev = |n: &str| ["open", "close", "write"].iter().position(|e| *e == n);
        // Every open is eventually closed, and nothing is written after a close.
        let f = parse("[] (open => <> close) and [] (close => [] !write)", &ev).unwrap();
        let m = compile(&f, 3).unwrap();
        let after = |w: &[usize]| run(&m, w).map(|s| (m.verdict[s], m.holds[s]));
        assert_eq!(after(&[0]), Some((None, false)));
        assert_eq!(after(&[0, 1]), Some((None, true)));
        assert_eq!(after(&[0, 1, 2]), Some((Some(false), false)));
        assert_eq!(
            after(&[0, 1, 2, 0]),
            None,
            "monitoring ended at the violation"
        );
    }

    #[test]
    fn errors_say_what_and_where() {
        let ev = |n: &str| ["a", "b"].iter().position(|e| *e == n);
        assert_eq!(parse("a and c", &ev).unwrap_err().0, 6);
        assert!(parse("a and c", &ev)
            .unwrap_err()
            .1
            .contains("`c` is not an event"));
        assert!(parse("a b", &ev)
            .unwrap_err()
            .1
            .starts_with("expected an operator"));
        assert!(parse("(a", &ev).unwrap_err().1.contains("expected `)`"));
        assert!(parse("a % b", &ev)
            .unwrap_err()
            .1
            .contains("unexpected character `%`"));
        let deep = format!("{}a{}", "(".repeat(500), ")".repeat(500));
        assert_eq!(parse(&deep, &ev).unwrap_err().1, "nesting deeper than 200");
        let f = parse("<*> <> a", &ev).unwrap();
        assert!(compile(&f, 2)
            .unwrap_err()
            .contains("past operator over a future one"));
        // `<=>` and `xor` are kept whole: a chain of 40 compiles at once.
        let chain = vec!["o a"; 41].join(" xor ");
        let f = parse(&chain, &ev).unwrap();
        assert!(compile(&f, 2).is_ok());
        let long = vec!["a"; 1001].join(" and ");
        assert!(parse(&long, &ev)
            .unwrap_err()
            .1
            .contains("at most 2000 tokens"));
        // Obligations that multiply are refused, not built.
        let wide = (1..14)
            .map(|k| format!("({} a or {} b)", "o ".repeat(k), "o ".repeat(k)))
            .collect::<Vec<_>>()
            .join(" and ");
        let f = parse(&wide, &ev).unwrap();
        assert!(compile(&f, 2).unwrap_err().contains("conjunctions"));
        // Comments of both kinds.
        assert_eq!(parse("a /* or */ => b // x", &ev), parse("a => b", &ev));
        // Keywords of both syntaxes.
        let g = parse("ALWAYS (b IMPLIES PREVIOUS (NOT b SINCE a))", &ev).unwrap();
        let h = parse("[] (b => (*) (!b S a))", &ev).unwrap();
        assert_eq!(g, h);
    }
}
