//! The `.rvm` language: parametric properties in the style of JavaMOP / RV-Monitor specs, with
//! the trace's events instead of Java pointcuts.
//!
//! ```text
//! // next() on an iterator only after hasNext() returned true
//! HasNext(i) {
//!   event hasnexttrue(i)
//!   event hasnextfalse(i)
//!   event next(i)
//!   fsm:
//!     na    [ hasnexttrue -> more, hasnextfalse -> none, next -> error ]
//!     more  [ hasnexttrue -> more, next -> na ]
//!     none  [ hasnextfalse -> none, next -> error ]
//!     error [ ]
//!   @error "next() on iterator {i} without hasNext()"
//! }
//! ```
//!
//! * A property names its parameters. Each `event name(a, b, _)` binds the trace event `name`
//!   by position: its arguments become the named parameters (`_` ignores one). With named
//!   fields (CSRV CSV, JSON, XML), `event open(file: f, mode: m)` binds them by name instead,
//!   in any order; an event that lacks one of them does not match.
//!   `end event dispose(i)` declares that the object bound to `i` is gone: its monitors are
//!   freed (the program promises not to mention it again). `creation event create(c, i)`
//!   (JavaMOP's creation events): once a property marks some, only they start a binding from
//!   nothing; the others only extend bindings that exist.
//! * `fsm:` lists the states, the first being the start, each with its transitions. An event
//!   with no transition from the current state ends that binding's monitoring.
//! * `ere:` instead gives the body as an extended regular expression over event names
//!   (`create next* update update* next`, with `|`, `*`, `+`, `?`, parentheses, `epsilon`,
//!   and JavaMOP's complement `~` and intersection `&`: from loosest to tightest, `|`, `&`,
//!   concatenation, `~`, the postfix operators);
//!   `@match` reports a binding whose events are in the language, `@fail` one whose events
//!   can no longer be extended to a match (JavaMOP's ERE handlers).
//! * `ltl:` gives the body as past- or future-time LTL over event names (JavaMOP's syntax:
//!   `ltl: next => (*) hasnexttrue`); `@violation` and `@validation` report it (semantics in
//!   [`crate::ltl`]).
//! * `@state "message"` reports a violation when a binding enters `state`; `@fail "message"`
//!   when an event has no transition. `{p}` in a message is parameter `p`'s value.
//! * `where x > y, x != z` constrains the parameters (paper 03's Algorithm A with
//!   constraints): `<`, `<=`, `>`, `>=` between numbers, `!=` between any values. Only
//!   bindings that can be extended to a solution are monitored; the others report nothing.
//! * Several properties may share a file. Comments are `//` and `/* … */`.

use logos::Logos;
use rvmon_core::{Depth, Error};

use crate::ere::{self, Re};
use crate::ltl;
use crate::monitor::Fsm;
use crate::slicing::{Constraints, Pattern, Term};

#[derive(Logos, Clone, Debug, PartialEq)]
#[logos(skip r"[ \t\r\n\f]+")]
#[logos(skip r"//[^\n]*")]
enum Tok {
    #[token("/*", ltl::block_comment)]
    BlockComment,
    #[token("event")]
    Event,
    #[token("fsm")]
    Fsm,
    /// `ltl:` and the formula after it, taken whole (its operators are not `.rvm` tokens):
    /// the formula's offset in the file, and its text.
    #[regex(r"ltl[ \t]*:", ltl_body)]
    Ltl((usize, String)),
    #[regex(r"[A-Za-z_][A-Za-z0-9_]*", |l| l.slice().to_string())]
    Ident(String),
    #[regex(r#""([^"\\]|\\.)*""#, |l| { let s = l.slice(); s[1..s.len() - 1].to_string() })]
    Str(String),
    #[token("(")]
    LParen,
    #[token(")")]
    RParen,
    #[token("{")]
    LBrace,
    #[token("}")]
    RBrace,
    #[token("[")]
    LBracket,
    #[token("]")]
    RBracket,
    #[token(",")]
    Comma,
    #[token(":")]
    Colon,
    #[token("->")]
    Arrow,
    #[token("@")]
    At,
    #[token("|")]
    Pipe,
    #[token("*")]
    Star,
    #[token("+")]
    Plus,
    #[token("?")]
    Question,
    #[token("~")]
    Tilde,
    #[token("&")]
    Amp,
    #[token("<")]
    Less,
    #[token("<=")]
    LessEq,
    #[token(">")]
    Greater,
    #[token(">=")]
    GreaterEq,
    #[token("!=")]
    NotEq,
    /// Not an operator of `where`: read so that the error can say which are.
    #[token("=")]
    Eq,
}

/// The formula after `ltl:` runs to the next `@` (a handler), `}` (the property's end) or line
/// that starts another declaration, skipping comments.
fn ltl_body(lex: &mut logos::Lexer<Tok>) -> (usize, String) {
    let start = lex.span().end;
    let rest = lex.remainder();
    let mut i = 0;
    while i < rest.len() {
        let tail = &rest[i..];
        if tail.starts_with('@') || tail.starts_with('}') || starts_declaration(tail) {
            break;
        }
        i += if tail.starts_with("//") {
            tail.find('\n').unwrap_or(tail.len())
        } else if tail.starts_with("/*") {
            tail.find("*/").map_or(tail.len(), |j| j + 2)
        } else {
            tail.chars().next().map_or(1, char::len_utf8)
        };
    }
    lex.bump(i);
    (start, rest[..i].to_string())
}

/// Whether `tail` is a line break followed by `event`, `end event`, `creation event`, `where`,
/// `fsm:`, `ere:` or `ltl:`.
fn starts_declaration(tail: &str) -> bool {
    let Some(line) = tail.strip_prefix('\n') else {
        return false;
    };
    let line = line.trim_start();
    let word_len = line
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(line.len());
    let (word, after) = line.split_at(word_len);
    match word {
        "event" | "where" => after.starts_with(char::is_whitespace),
        "end" | "creation" => after.trim_start().starts_with("event"),
        "fsm" | "ere" | "ltl" => after.trim_start().starts_with(':'),
        _ => false,
    }
}

/// One parametric property.
#[derive(Clone, Debug)]
pub struct Property {
    pub name: String,
    pub params: Vec<String>,
    /// One pattern per event name.
    pub patterns: Vec<Pattern>,
    /// `end event dispose(i)`: events that end the life of the objects they bind.
    pub end_events: Vec<Pattern>,
    /// `creation event create(c, i)`: the events marked to start bindings (none marked: every
    /// event may, see [`crate::monitor::ParamMonitor::with_creators`]).
    pub creators: Vec<String>,
    pub fsm: Fsm,
    /// The message of each verdict category (a state name or `fail`).
    pub messages: Vec<(String, String)>,
    /// Whether category `validation` is good news (an `ltl:` body's `@validation`), not a
    /// violation.
    pub validates: bool,
    /// The body, for `--explain`: `fsm`, `ere`, or the `ltl:` formula and how it is read.
    pub body: String,
    /// `where …`: the constraints between parameters.
    pub constraints: Constraints,
    /// The events bound by field names (`event open(file: f)`): the name, and the fields in
    /// the order of its pattern's arguments.
    pub fields: Vec<(String, Vec<String>)>,
}

impl Property {
    /// Whether reports of `category` are violations.
    pub fn is_violation(&self, category: &str) -> bool {
        !(self.validates && category == "validation")
    }

    /// The message for `category`, with `{p}` replaced by `value(p)` for each parameter.
    pub fn message(&self, category: &str, value: impl Fn(usize) -> Option<String>) -> String {
        let mut m = self
            .messages
            .iter()
            .find(|(c, _)| c == category)
            .map_or_else(String::new, |(_, m)| m.clone());
        for (k, p) in self.params.iter().enumerate() {
            let v = value(k).unwrap_or_else(|| "?".to_string());
            m = m.replace(&format!("{{{p}}}"), &v);
        }
        m
    }
}

/// How deep the bodies of a `.rvm` file may nest: the parentheses and `~` of an `ere:`, the
/// operators of an `ltl:` formula. Their compilers recurse on them (the `ere:` machine's
/// construction also on its concatenations and alternatives, at most a thousand event names
/// long).
pub const MAX_NESTING: usize = 200;

/// An `ere:` as written, before event names are numbered.
#[derive(Clone, Debug)]
enum EreAst {
    Epsilon,
    Event(String, usize),
    Concat(Box<EreAst>, Box<EreAst>),
    Alt(Box<EreAst>, Box<EreAst>),
    Star(Box<EreAst>),
    Plus(Box<EreAst>),
    Optional(Box<EreAst>),
    Not(Box<EreAst>),
    And(Box<EreAst>, Box<EreAst>),
}

impl EreAst {
    fn resolve(
        &self,
        symbols: &[String],
        unknown: &dyn Fn(usize, &str) -> Error,
    ) -> Result<Re, Error> {
        let go = |e: &EreAst| e.resolve(symbols, unknown).map(Box::new);
        Ok(match self {
            EreAst::Epsilon => Re::Epsilon,
            EreAst::Event(n, at) => Re::Symbol(
                symbols
                    .iter()
                    .position(|s| s == n)
                    .ok_or_else(|| unknown(*at, n))?,
            ),
            EreAst::Concat(a, b) => Re::Concat(go(a)?, go(b)?),
            EreAst::Alt(a, b) => Re::Alt(go(a)?, go(b)?),
            EreAst::Star(a) => Re::Star(go(a)?),
            EreAst::Plus(a) => Re::plus(*go(a)?),
            EreAst::Optional(a) => Re::optional(*go(a)?),
            EreAst::Not(a) => Re::Not(go(a)?),
            EreAst::And(a, b) => Re::And(go(a)?, go(b)?),
        })
    }
}

/// What a property declares besides its body: name, parameters, events and handlers (with
/// where each handler is, for errors).
struct Decl {
    name: String,
    params: Vec<String>,
    patterns: Vec<Pattern>,
    end_events: Vec<Pattern>,
    creators: Vec<String>,
    messages: Vec<(String, String, usize)>,
    constraints: Constraints,
    fields: Vec<(String, Vec<String>)>,
}

/// A property's body as written, kept until its closing brace (a body may name events
/// declared after it): whether it has an `fsm:`, whose states (name, where) and transitions
/// (from, event, to state, where) are resolved by name then; its `ere:` (and where) and its
/// `ltl:` (where, text).
#[derive(Default)]
struct Bodies {
    fsm: bool,
    states: Vec<(String, usize)>,
    transitions: Vec<(usize, String, String, usize)>,
    ere: Option<(EreAst, usize)>,
    ltl: Option<(usize, String)>,
}

impl Decl {
    /// The machine's symbols: the events, in declaration order.
    fn symbols(&self) -> Vec<String> {
        self.patterns.iter().map(|p| p.name.clone()).collect()
    }

    /// `Some(category)` if a handler reports it.
    fn handles(&self, category: &str) -> Option<String> {
        self.messages
            .iter()
            .any(|m| m.0 == category)
            .then(|| category.to_string())
    }

    /// The property running a compiled body (`ere:`, `ltl:`): states named `q0`, `q1`, …
    fn into_property(
        self,
        delta: Vec<Vec<Option<usize>>>,
        verdicts: Vec<Option<String>>,
        fail: Option<String>,
        validates: bool,
        body: String,
    ) -> Property {
        Property {
            fsm: Fsm {
                states: (0..delta.len()).map(|i| format!("q{i}")).collect(),
                start: 0,
                symbols: self.symbols(),
                delta,
                verdicts,
                fail,
            },
            name: self.name,
            params: self.params,
            patterns: self.patterns,
            end_events: self.end_events,
            creators: self.creators,
            messages: self.messages.into_iter().map(|(c, m, _)| (c, m)).collect(),
            validates,
            body,
            constraints: self.constraints,
            fields: self.fields,
        }
    }
}

/// Parses a `.rvm` file.
pub fn parse_rvm(file: &str, text: &str) -> Result<Vec<Property>, Error> {
    let toks: Vec<(Tok, usize)> = ltl::tokens(text).map_err(|(at, c)| {
        Error::at_offset(file, text, at, format!("unexpected character `{c}`"))
    })?;
    let mut p = P {
        file,
        text,
        toks,
        pos: 0,
        depth: Depth::new(MAX_NESTING),
        atoms: 0,
    };
    let mut props = Vec::new();
    while p.pos < p.toks.len() {
        props.push(p.property()?);
    }
    if props.is_empty() {
        return Err(Error::at_offset(
            file,
            text,
            0,
            "expected a property: `Name(params) { … }`",
        ));
    }
    Ok(props)
}

struct P<'a> {
    file: &'a str,
    text: &'a str,
    toks: Vec<(Tok, usize)>,
    pos: usize,
    /// Parentheses and `~` open in an `ere:`, and the event names read in it (both bounded, so
    /// that compiling it cannot overflow the stack).
    depth: Depth,
    atoms: usize,
}

impl P<'_> {
    fn at(&self) -> usize {
        self.toks.get(self.pos).map_or(self.text.len(), |t| t.1)
    }

    fn err(&self, at: usize, msg: impl Into<String>) -> Error {
        Error::at_offset(self.file, self.text, at, msg)
    }

    fn expected(&self, what: &str) -> Error {
        let found = match self.toks.get(self.pos) {
            None => "the end of the file".to_string(),
            Some((Tok::Ident(s), _)) => format!("`{s}`"),
            Some((Tok::Str(s), _)) => format!("\"{s}\""),
            Some((t, _)) => format!("{t:?}"),
        };
        self.err(self.at(), format!("expected {what}, found {found}"))
    }

    fn eat(&mut self, t: &Tok) -> bool {
        if self.toks.get(self.pos).map(|x| &x.0) == Some(t) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn expect(&mut self, t: &Tok, what: &str) -> Result<(), Error> {
        if self.eat(t) {
            Ok(())
        } else {
            Err(self.expected(what))
        }
    }

    fn ident(&mut self, what: &str) -> Result<(String, usize), Error> {
        match self.toks.get(self.pos) {
            Some((Tok::Ident(s), at)) => {
                let r = (s.clone(), *at);
                self.pos += 1;
                Ok(r)
            }
            _ => Err(self.expected(what)),
        }
    }

    /// `a, b, c )` after the `(`.
    fn names(&mut self, what: &str) -> Result<Vec<(String, usize)>, Error> {
        let mut out = Vec::new();
        if self.eat(&Tok::RParen) {
            return Ok(out);
        }
        loop {
            out.push(self.ident(what)?);
            if self.eat(&Tok::RParen) {
                return Ok(out);
            }
            self.expect(&Tok::Comma, "`,` or `)`")?;
        }
    }

    /// `alt := and ("|" and)*`
    fn ere_alt(&mut self) -> Result<EreAst, Error> {
        let mut r = self.ere_and()?;
        while self.eat(&Tok::Pipe) {
            r = EreAst::Alt(Box::new(r), Box::new(self.ere_and()?));
        }
        Ok(r)
    }

    /// `and := cat ("&" cat)*`
    fn ere_and(&mut self) -> Result<EreAst, Error> {
        let mut r = self.ere_cat()?;
        while self.eat(&Tok::Amp) {
            r = EreAst::And(Box::new(r), Box::new(self.ere_cat()?));
        }
        Ok(r)
    }

    /// `cat := not+`: as long as an event name, `~` or `(` follows.
    fn ere_cat(&mut self) -> Result<EreAst, Error> {
        let mut r = self.ere_not()?;
        loop {
            let more = match self.toks.get(self.pos) {
                Some((Tok::LParen | Tok::Tilde, _)) => true,
                // `end event …`, `creation event …`, `where …` and `ere:` start the next
                // declaration.
                Some((Tok::Ident(w), _)) => {
                    !((w == "end" || w == "creation")
                        && self.toks.get(self.pos + 1).map(|t| &t.0) == Some(&Tok::Event))
                        && self.toks.get(self.pos + 1).map(|t| &t.0) != Some(&Tok::Colon)
                        && !self.at_where()
                }
                _ => false,
            };
            if !more {
                return Ok(r);
            }
            r = EreAst::Concat(Box::new(r), Box::new(self.ere_not()?));
        }
    }

    /// `post := atom ("*" | "+" | "?")*`. A run of postfix operators is one operator: `r**`
    /// = `r*`, `r++` = `r+`, `r??` = `r?`, and any other two make `r*` (`(r+)?` and `(r?)+`
    /// both match ε and any number of `r`). So they never nest (12,000 `*` in a row once
    /// overflowed the stack of the machine's construction).
    fn ere_post(&mut self) -> Result<EreAst, Error> {
        let r = self.ere_atom()?;
        let mut op = None;
        loop {
            let next = if self.eat(&Tok::Star) {
                '*'
            } else if self.eat(&Tok::Plus) {
                '+'
            } else if self.eat(&Tok::Question) {
                '?'
            } else {
                break;
            };
            op = Some(match op {
                Some(o) if o != next => '*',
                _ => next,
            });
        }
        Ok(match op {
            None => r,
            Some('*') => EreAst::Star(Box::new(r)),
            Some('+') => EreAst::Plus(Box::new(r)),
            Some(_) => EreAst::Optional(Box::new(r)),
        })
    }

    /// `not := "~" not | post`: as in JavaMOP's ERE grammar, the complement takes a postfix
    /// expression, so `~a*` is `~(a*)`.
    fn ere_not(&mut self) -> Result<EreAst, Error> {
        if !self.eat(&Tok::Tilde) {
            return self.ere_post();
        }
        let r = self.nested(Self::ere_not)?;
        Ok(EreAst::Not(Box::new(r)))
    }

    /// `rule` after the `(` or `~` just read, one level deeper: past [`MAX_NESTING`], an
    /// error at that `(` or `~`.
    fn nested(&mut self, rule: fn(&mut Self) -> Result<EreAst, Error>) -> Result<EreAst, Error> {
        let opened = self.toks[self.pos - 1].1;
        self.depth.enter().map_err(|m| self.err(opened, m))?;
        let r = rule(self);
        self.depth.leave();
        r
    }

    /// `atom := name | "epsilon" | "(" alt ")"`
    fn ere_atom(&mut self) -> Result<EreAst, Error> {
        if self.eat(&Tok::LParen) {
            let r = self.nested(Self::ere_alt)?;
            self.expect(&Tok::RParen, "`)`")?;
            return Ok(r);
        }
        let (name, at) = self.ident("an event name, `epsilon` or `(` in the ere")?;
        self.atoms += 1;
        if self.atoms > 1000 {
            return Err(self.err(at, "an ere has at most 1000 event names"));
        }
        Ok(if name == "epsilon" {
            EreAst::Epsilon
        } else {
            EreAst::Event(name, at)
        })
    }

    /// Checks that every handler of `decl` is one of `allowed` (for a body of kind `body`).
    fn check_handlers(&self, decl: &Decl, allowed: &[&str], body: &str) -> Result<(), Error> {
        for (cat, _, at) in &decl.messages {
            if !allowed.contains(&cat.as_str()) {
                let names: Vec<String> = allowed.iter().map(|c| format!("`@{c}`")).collect();
                return Err(self.err(
                    *at,
                    format!(
                        "`@{cat}`: an `{body}:` property reports {}",
                        names.join(" or ")
                    ),
                ));
            }
        }
        Ok(())
    }

    /// A property whose body is an `ere:`: its machine, with `@match` on the accepting states
    /// and `@fail` on an event after which nothing can match.
    fn ere_property(&self, decl: Decl, (body, at): (EreAst, usize)) -> Result<Property, Error> {
        let symbols = decl.symbols();
        let name = &decl.name;
        let re = body.resolve(&symbols, &|at, ev: &str| {
            self.err(
                at,
                format!("`{ev}` is not an event of {name}; declare it with `event {ev}(…)`"),
            )
        })?;
        self.check_handlers(&decl, &["match", "fail"], "ere")?;
        let dfa = ere::compile(&re, symbols.len()).ok_or_else(|| {
            self.err(
                at,
                format!(
                    "{name}'s ere needs more than {} states; write it as an `fsm:`",
                    ere::MAX_STATES
                ),
            )
        })?;
        let matched = decl.handles("match");
        let verdicts = dfa
            .accepting
            .iter()
            .map(|&a| if a { matched.clone() } else { None })
            .collect();
        let fail = decl.handles("fail");
        Ok(decl.into_property(dfa.delta, verdicts, fail, false, "ere".into()))
    }

    /// A property whose body is an `ltl:` formula: its machine, with `@violation` and
    /// `@validation` on the states where the formula's verdict is that.
    fn ltl_property(&self, decl: Decl, (at, body): (usize, String)) -> Result<Property, Error> {
        let symbols = decl.symbols();
        if let Some(k) = symbols.iter().position(|s| ltl::is_keyword(s)) {
            return Err(self.err(
                at,
                format!(
                    "event `{}` is an operator of ltl bodies; rename the event",
                    symbols[k]
                ),
            ));
        }
        self.check_handlers(&decl, &["violation", "validation"], "ltl")?;
        let event = |e: &str| symbols.iter().position(|s| s == e);
        let f = ltl::parse(&body, &event).map_err(|(off, msg)| self.err(at + off, msg))?;
        let m = ltl::compile(&f, symbols.len())
            .map_err(|e| self.err(at, format!("{}'s ltl formula: {e}", decl.name)))?;
        let (violation, validation) = (decl.handles("violation"), decl.handles("validation"));
        let verdicts = m
            .verdict
            .iter()
            .map(|v| match v {
                Some(true) => validation.clone(),
                Some(false) => violation.clone(),
                None => None,
            })
            .collect();
        let reading = if f.has_future() {
            "finite-trace LTL from the binding's first event; verdicts are final"
        } else {
            "past-time LTL, checked after every event of the binding"
        };
        let text = body.split_whitespace().collect::<Vec<_>>().join(" ");
        let body = format!("ltl: {text} ({reading})");
        Ok(decl.into_property(m.delta, verdicts, None, true, body))
    }

    /// A property: `Name(params) { … }`, whose braces hold its events, one body (`fsm:`,
    /// `ere:` or `ltl:`), `where` constraints and handlers, in any order
    /// ([`P::property_item`]). A body is resolved only after the closing brace: it may name
    /// events declared after it.
    fn property(&mut self) -> Result<Property, Error> {
        let (name, _) = self.ident("a property: `Name(params) { … }`")?;
        self.expect(&Tok::LParen, "`(` and the property's parameters")?;
        let (params, at): (Vec<String>, Vec<usize>) =
            self.names("a parameter name")?.into_iter().unzip();
        // Lookups enumerate a binding's sub-bindings: 2^k of them.
        if params.len() > 12 {
            return Err(self.err(at[12], "a property has at most 12 parameters"));
        }
        self.expect(&Tok::LBrace, "`{`")?;
        let mut decl = Decl {
            name,
            params,
            patterns: Vec::new(),
            end_events: Vec::new(),
            creators: Vec::new(),
            messages: Vec::new(),
            constraints: Constraints::default(),
            fields: Vec::new(),
        };
        let mut bodies = Bodies::default();
        while !self.eat(&Tok::RBrace) {
            self.property_item(&mut decl, &mut bodies)?;
        }
        // A compiled body instead of an `fsm:`.
        enum Body {
            Ltl((usize, String)),
            Ere((EreAst, usize)),
        }
        let name = &decl.name;
        let compiled = match (bodies.ltl, bodies.ere) {
            (Some((at, _)), ere) if bodies.fsm || ere.is_some() => {
                return Err(self.err(
                    at,
                    format!("{name} has more than one body (`fsm:`, `ere:`, `ltl:`)"),
                ));
            }
            (None, Some((_, at))) if bodies.fsm => {
                return Err(self.err(at, format!("{name} has both `fsm:` and `ere:`")));
            }
            (Some(b), _) => Some(Body::Ltl(b)),
            (None, ere) => ere.map(Body::Ere),
        };
        match compiled {
            Some(Body::Ltl(b)) => self.ltl_property(decl, b),
            Some(Body::Ere(b)) => self.ere_property(decl, b),
            None => self.fsm_property(decl, bodies.fsm, bodies.states, bodies.transitions),
        }
    }

    /// One item between a property's braces, into `decl` (declarations, constraints,
    /// handlers) or `bodies` (its body as written).
    fn property_item(&mut self, decl: &mut Decl, bodies: &mut Bodies) -> Result<(), Error> {
        // `end event …` or `creation event …`
        let marked = |this: &Self, word: &str| {
            matches!(this.toks.get(this.pos), Some((Tok::Ident(w), _)) if w == word)
                && this.toks.get(this.pos + 1).map(|t| &t.0) == Some(&Tok::Event)
        };
        let (ends, creates) = (marked(self, "end"), marked(self, "creation"));
        if ends || creates {
            self.pos += 1;
        }
        if self.eat(&Tok::Event) {
            self.event_decl(decl, ends, creates)?;
        } else if self.eat(&Tok::Fsm) {
            self.expect(&Tok::Colon, "`:` after `fsm`")?;
            bodies.fsm = true;
            self.fsm_states(&mut bodies.states, &mut bodies.transitions)?;
        } else if matches!(self.toks.get(self.pos), Some((Tok::Ident(w), _)) if w == "ere")
            && self.toks.get(self.pos + 1).map(|t| &t.0) == Some(&Tok::Colon)
        {
            let at = self.at();
            self.pos += 2;
            bodies.ere = Some((self.ere_alt()?, at));
        } else if let Some((Tok::Ltl(body), at)) = self.toks.get(self.pos) {
            if bodies.ltl.is_some() {
                return Err(self.err(*at, format!("{} has two `ltl:` bodies", decl.name)));
            }
            bodies.ltl = Some(body.clone());
            self.pos += 1;
        } else if matches!(self.toks.get(self.pos), Some((Tok::Ident(w), _)) if w == "where") {
            let at = self.at();
            self.pos += 1;
            self.constraints(&decl.name, &decl.params, &mut decl.constraints)?;
            if !decl.constraints.check().is_consistent() {
                let name = &decl.name;
                return Err(self.err(
                    at,
                    format!("no binding of {name}'s parameters satisfies these constraints"),
                ));
            }
        } else if self.eat(&Tok::At) {
            let handler = self.handler()?;
            decl.messages.push(handler);
        } else {
            return Err(self.expected(
                "`event`, `creation event`, `end event`, `where`, `fsm:`, `ere:`, `ltl:`, `@state \"message\"` or `}`",
            ));
        }
        Ok(())
    }

    /// After `event` (`ends`: `end event`; `creates`: `creation event`): the event's name and
    /// arguments, into `decl`'s patterns (or its end events, which the machine does not read).
    fn event_decl(&mut self, decl: &mut Decl, ends: bool, creates: bool) -> Result<(), Error> {
        let (ev, at) = self.ident("an event name")?;
        if decl
            .patterns
            .iter()
            .chain(&decl.end_events)
            .any(|p| p.name == ev)
        {
            return Err(self.err(at, format!("event `{ev}` is declared twice")));
        }
        self.expect(&Tok::LParen, "`(` and the event's parameters")?;
        let (named, args) = self.event_args()?;
        if !named.is_empty() {
            decl.fields.push((ev.clone(), named));
        }
        let args = args
            .into_iter()
            .map(|(a, at)| {
                if a == "_" {
                    return Ok(Term::Any);
                }
                self.param_index(&decl.name, &decl.params, &a, at)
                    .map(Term::Var)
            })
            .collect::<Result<Vec<Term>, Error>>()?;
        if ends {
            decl.end_events.push(Pattern { name: ev, args });
        } else {
            if creates {
                decl.creators.push(ev.clone());
            }
            decl.patterns.push(Pattern { name: ev, args });
        }
        Ok(())
    }

    /// After `fsm:`: its states, each `name [event -> state, …]`, as written (by name: events
    /// and states are resolved once the property is read, [`P::fsm_property`]).
    fn fsm_states(
        &mut self,
        states: &mut Vec<(String, usize)>,
        transitions: &mut Vec<(usize, String, String, usize)>,
    ) -> Result<(), Error> {
        while let Some((Tok::Ident(_), _)) = self.toks.get(self.pos) {
            // A state's name is followed by `[`; `where x …`, `end event …` and
            // `creation event …` start the next declaration.
            if self.at_where() || self.toks.get(self.pos + 1).map(|t| &t.0) == Some(&Tok::Event) {
                break;
            }
            let (state, at) = self.ident("a state name")?;
            if states.iter().any(|s| s.0 == state) {
                return Err(self.err(at, format!("state `{state}` is defined twice")));
            }
            let from = states.len();
            states.push((state, at));
            self.expect(&Tok::LBracket, "`[` and the state's transitions")?;
            if !self.eat(&Tok::RBracket) {
                loop {
                    let (ev, at) = self.ident("an event name")?;
                    self.expect(&Tok::Arrow, "`->`")?;
                    let (to, _) = self.ident("a state name")?;
                    transitions.push((from, ev, to, at));
                    if self.eat(&Tok::RBracket) {
                        break;
                    }
                    self.expect(&Tok::Comma, "`,` or `]`")?;
                }
            }
        }
        Ok(())
    }

    /// After `@`: a handler, `@category "message"` (the category, the message, where it is).
    fn handler(&mut self) -> Result<(String, String, usize), Error> {
        let (cat, at) = self.ident("a state name or `fail` after `@`")?;
        let msg = match self.toks.get(self.pos) {
            Some((Tok::Str(s), _)) => {
                let s = s.clone();
                self.pos += 1;
                s
            }
            _ => return Err(self.expected("the message (a string) of the handler")),
        };
        Ok((cat, msg, at))
    }

    /// A property whose body is an `fsm:` (`present`, with `states` and `transitions` as
    /// written): its machine, the first state the start, and each handler's category a state
    /// entered (or `@fail`).
    fn fsm_property(
        &self,
        decl: Decl,
        present: bool,
        states: Vec<(String, usize)>,
        transitions: Vec<(usize, String, String, usize)>,
    ) -> Result<Property, Error> {
        let name = &decl.name;
        if !present || states.is_empty() {
            return Err(self.err(
                self.at(),
                format!("property {name} has no `fsm:` with at least one state (or an `ere:` or `ltl:`)"),
            ));
        }
        let symbols = decl.symbols();
        let mut delta = vec![vec![None; symbols.len()]; states.len()];
        for (from, ev, to, at) in transitions {
            let sym = symbols.iter().position(|s| *s == ev).ok_or_else(|| {
                self.err(
                    at,
                    format!("`{ev}` is not an event of {name}; declare it with `event {ev}(…)`"),
                )
            })?;
            let target = states.iter().position(|s| s.0 == to).ok_or_else(|| {
                self.err(at, format!("state `{to}` is not defined in {name}'s fsm"))
            })?;
            if delta[from][sym].is_some() {
                return Err(self.err(
                    at,
                    format!("two transitions on `{ev}` from state `{}`", states[from].0),
                ));
            }
            delta[from][sym] = Some(target);
        }
        let mut verdicts = vec![None; states.len()];
        let mut fail = None;
        for (cat, _, at) in &decl.messages {
            if cat == "fail" {
                fail = Some(cat.clone());
            } else {
                let s = states.iter().position(|s| s.0 == *cat).ok_or_else(|| {
                    self.err(
                        *at,
                        format!("`@{cat}`: no state `{cat}` in {name}'s fsm (or use `@fail`)"),
                    )
                })?;
                verdicts[s] = Some(cat.clone());
            }
        }
        Ok(Property {
            name: decl.name,
            params: decl.params,
            patterns: decl.patterns,
            end_events: decl.end_events,
            creators: decl.creators,
            fsm: Fsm {
                states: states.into_iter().map(|s| s.0).collect(),
                start: 0,
                symbols,
                delta,
                verdicts,
                fail,
            },
            messages: decl.messages.into_iter().map(|(c, m, _)| (c, m)).collect(),
            validates: false,
            body: "fsm".into(),
            constraints: decl.constraints,
            fields: decl.fields,
        })
    }

    /// An event's arguments after `(`: parameter names (or `_`) by position, or all of them
    /// as `field: name`. Returns the fields (empty when positional) and the names.
    #[allow(clippy::type_complexity)]
    fn event_args(&mut self) -> Result<(Vec<String>, Vec<(String, usize)>), Error> {
        let (mut fields, mut args) = (Vec::new(), Vec::new());
        if self.eat(&Tok::RParen) {
            return Ok((fields, args));
        }
        loop {
            let first = self.ident("a parameter name, `_`, or `field: parameter`")?;
            let named = self.eat(&Tok::Colon);
            // The first argument sets the way for the others.
            if !args.is_empty() && named == fields.is_empty() {
                return Err(self.err(
                    first.1,
                    "an event binds its parameters either all by position or all by field name",
                ));
            }
            if named {
                if fields.contains(&first.0) {
                    return Err(self.err(first.1, format!("field `{}` is bound twice", first.0)));
                }
                fields.push(first.0);
                args.push(self.ident("a parameter name or `_` after `:`")?);
            } else {
                args.push(first);
            }
            if self.eat(&Tok::RParen) {
                return Ok((fields, args));
            }
            self.expect(&Tok::Comma, "`,` or `)`")?;
        }
    }

    /// The number of parameter `p` (written at `at`) of property `name`.
    fn param_index(
        &self,
        name: &str,
        params: &[String],
        p: &str,
        at: usize,
    ) -> Result<usize, Error> {
        params.iter().position(|q| q == p).ok_or_else(|| {
            self.err(
                at,
                format!("`{p}` is not a parameter of {name}({})", params.join(", ")),
            )
        })
    }

    /// Whether a `where` clause starts here: `where` and a parameter name (an event or a state
    /// may still be called `where`: then `(`, `[` or an operator of a body follows).
    fn at_where(&self) -> bool {
        matches!(self.toks.get(self.pos), Some((Tok::Ident(w), _)) if w == "where")
            && matches!(self.toks.get(self.pos + 1), Some((Tok::Ident(_), _)))
    }

    /// After `where`: `p OP q` (`<`, `<=`, `>`, `>=`, `!=`) between two parameters of the
    /// property, one or more separated by commas.
    fn constraints(
        &mut self,
        name: &str,
        params: &[String],
        into: &mut Constraints,
    ) -> Result<(), Error> {
        let param = |this: &mut Self| -> Result<usize, Error> {
            let (p, at) = this.ident("a parameter name")?;
            this.param_index(name, params, &p, at)
        };
        loop {
            let a = param(self)?;
            let op = self.toks.get(self.pos).map(|t| t.0.clone());
            let ops = [
                Tok::Less,
                Tok::LessEq,
                Tok::Greater,
                Tok::GreaterEq,
                Tok::NotEq,
            ];
            let Some(op) = op.filter(|op| ops.contains(op)) else {
                return Err(self.expected("`<`, `<=`, `>`, `>=` or `!=`"));
            };
            self.pos += 1;
            let b = param(self)?;
            match op {
                Tok::Less => into.order.push((a, b, true)),
                Tok::LessEq => into.order.push((a, b, false)),
                Tok::Greater => into.order.push((b, a, true)),
                Tok::GreaterEq => into.order.push((b, a, false)),
                _ => into.distinct.push((a, b)),
            }
            if !self.eat(&Tok::Comma) {
                return Ok(());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HAS_NEXT: &str = "// c\nHasNext(i) {\n event hasnexttrue(i)\n event hasnextfalse(i)\n event next(i)\n fsm:\n  na [ hasnexttrue -> more, hasnextfalse -> none, next -> error ]\n  more [ hasnexttrue -> more, next -> na ]\n  none [ hasnextfalse -> none, next -> error ]\n  error [ ]\n @error \"next on {i}\"\n}";

    proptest::proptest! {
        /// Any `ere:` text parses to a machine or gives an error; it never panics.
        #[test]
        fn ere_bodies_never_panic(body in "(a|b|epsilon|[()|*+?~& ]){0,24}") {
            let text = format!("P(i) {{\n event a(i)\n event b(i)\n ere: {body}\n @match \"m\"\n}}");
            let _ = parse_rvm("p.rvm", &text);
        }
    }

    #[test]
    fn deeply_nested_eres_are_an_error() {
        let body = format!("{}a{}", "(".repeat(100_000), ")".repeat(100_000));
        let text = format!("P(i) {{\n event a(i)\n ere: {body}\n @match \"m\"\n}}");
        let e = parse_rvm("p.rvm", &text).unwrap_err();
        assert_eq!(e.to_string(), "p.rvm:3:207: nesting deeper than 200");
        let text = format!(
            "P(i) {{\n event a(i)\n ere: {}a\n @match \"m\"\n}}",
            "~".repeat(100_000)
        );
        let e = parse_rvm("p.rvm", &text).unwrap_err();
        assert_eq!(e.to_string(), "p.rvm:3:207: nesting deeper than 200");
        let long = format!("P(i) {{\n event a(i)\n ere: {}\n}}", "a ".repeat(100_000));
        let e = parse_rvm("p.rvm", &long).unwrap_err();
        assert!(e.message.contains("at most 1000"), "{e}");
    }

    #[test]
    fn runs_of_postfix_operators_are_one_operator() {
        let machine = |body: &str| {
            let text =
                format!("P(i) {{\n event a(i)\n event b(i)\n ere: {body}\n @match \"m\"\n}}");
            let p = parse_rvm("p.rvm", &text).unwrap_or_else(|e| panic!("{body}: {e}"));
            (p[0].fsm.delta.clone(), p[0].fsm.verdicts.clone())
        };
        // 12,000 `*` in a row once overflowed the stack of the machine's construction.
        assert_eq!(
            machine(&format!("a{} b", "*".repeat(12_000))),
            machine("a* b")
        );
        let runs = [
            ("+?", "*"),
            ("?+", "*"),
            ("++", "+"),
            ("??", "?"),
            ("*+", "*"),
        ];
        for (run, one) in runs {
            assert_eq!(
                machine(&format!("(a b){run} b")),
                machine(&format!("(a b){one} b")),
                "{run}"
            );
        }
    }

    #[test]
    fn an_ere_becomes_a_machine() {
        let p = parse_rvm(
            "u.rvm",
            "U(c, i) {\n event create(c, i)\n event update(c)\n event next(i)\n ere: create next* update update* next\n @match \"bad\"\n @fail \"gone\"\n}",
        )
        .unwrap();
        let fsm = &p[0].fsm;
        assert_eq!(
            fsm.run(["create", "next", "update", "next"])
                .map(|s| fsm.verdicts[s].clone()),
            Some(Some("match".into()))
        );
        assert_eq!(fsm.run(["next"]), None, "no match starts with next: @fail");
        assert_eq!(fsm.fail, Some("fail".into()));
        let e = parse_rvm("u.rvm", "U(i) {\n event a(i)\n ere: a\n @error \"x\"\n}").unwrap_err();
        assert!(e.message.contains("reports `@match` or `@fail`"), "{e}");
    }

    #[test]
    fn complement_and_intersection_in_an_ere() {
        // Any use of a lock, but never two acquisitions in a row: `@fail` at the second one.
        let text = "L(l) {\n event acq(l)\n event rel(l)\n ere: (acq | rel)* & ~((acq | rel)* acq acq (acq | rel)*)\n @fail \"acquired twice\"\n}";
        let fsm = &parse_rvm("l.rvm", text).unwrap()[0].fsm;
        assert!(fsm.run(["acq", "rel", "acq"]).is_some());
        assert_eq!(fsm.run(["acq", "rel", "acq", "acq"]), None);
        // As in JavaMOP, `~` takes a postfix expression: `~acq*` is `~(acq*)`, which does not
        // match `acq acq` (`(~acq)*` would: it is one word other than `acq`).
        let machine = |ere: &str| {
            let text =
                format!("L(l) {{\n event acq(l)\n event rel(l)\n ere: {ere}\n @match \"m\"\n}}");
            parse_rvm("l.rvm", &text).unwrap()[0].fsm.clone()
        };
        let matches = |fsm: &Fsm, w: &[&str]| {
            fsm.run(w.iter().copied())
                .is_some_and(|s| fsm.verdicts[s].is_some())
        };
        let not_star = machine("~acq*");
        assert!(!matches(&not_star, &["acq", "acq"]) && matches(&not_star, &["rel"]));
        // `&` is looser than concatenation: `(acq rel) & (acq rel)`, not `acq (rel & acq) rel`.
        let and = machine("acq rel & acq rel");
        assert!(matches(&and, &["acq", "rel"]));
    }

    #[test]
    fn an_ltl_body_becomes_a_machine() {
        let text = "H(i) {\n event hasnexttrue(i)\n event next(i)\n ltl: next => (*) hasnexttrue // JavaMOP's\n @violation \"next on {i}\"\n}";
        let p = parse_rvm("h.rvm", text).unwrap();
        let fsm = &p[0].fsm;
        let verdict = |w: &[&str]| fsm.run(w.iter().copied()).map(|s| fsm.verdicts[s].clone());
        assert_eq!(verdict(&["hasnexttrue", "next"]), Some(None));
        assert_eq!(
            verdict(&["hasnexttrue", "next", "next"]),
            Some(Some("violation".into()))
        );
        assert_eq!(
            verdict(&["next", "hasnexttrue"]),
            Some(None),
            "past-only: checked per event"
        );
        let at = |text: &str| parse_rvm("h.rvm", text).unwrap_err().to_string();
        assert_eq!(
            at("H(i) {\n event a(i)\n ltl: [] (a => b)\n}"),
            "h.rvm:3:16: `b` is not an event of this property; declare it with `event b(…)`"
        );
        assert!(at("H(i) {\n event a(i)\n ltl: a\n @match \"m\"\n}")
            .contains("`@violation` or `@validation`"));
        assert!(at("H(i) {\n event o(i)\n ltl: o\n}").contains("event `o` is an operator"));
        assert!(at("H(i) {\n event a(i)\n ltl: a\n ere: a\n}").contains("more than one body"));
        assert!(at("H(i) {\n event a(i)\n ltl: <*> <> a\n}")
            .contains("h.rvm:3:6: H's ltl formula: a past operator over a future one"));
    }

    #[test]
    fn parses_has_next() {
        let p = parse_rvm("h.rvm", HAS_NEXT).unwrap();
        assert_eq!(p.len(), 1);
        assert_eq!(p[0].fsm.states, ["na", "more", "none", "error"]);
        assert_eq!(p[0].fsm.delta[0], [Some(1), Some(2), Some(3)]);
        assert_eq!(p[0].fsm.verdicts[3], Some("error".into()));
        assert_eq!(p[0].message("error", |_| Some("7".into())), "next on 7");
    }

    #[test]
    fn errors_point_at_the_problem() {
        let e = parse_rvm("h.rvm", "P(i) {\n event a(j)\n}").unwrap_err();
        assert_eq!(e.to_string(), "h.rvm:2:10: `j` is not a parameter of P(i)");
        let e = parse_rvm("h.rvm", "P(i) {\n event a(i)\n fsm:\n s [ b -> s ]\n}").unwrap_err();
        assert!(
            e.to_string()
                .starts_with("h.rvm:4:6: `b` is not an event of P"),
            "{e}"
        );
        let e = parse_rvm("h.rvm", "P(i) {\n event a(i)\n fsm:\n s [ a -> t ]\n}").unwrap_err();
        assert!(e.message.contains("state `t` is not defined"), "{e}");
    }

    /// `where` may come anywhere among the declarations, after a body too; constraints no
    /// binding can satisfy are an error, not a property that silently monitors nothing.
    #[test]
    fn where_clauses_anywhere() {
        let events = "P(x, y) {\n event f(x)\n event g(y)\n";
        for body in [
            "fsm:\n s [ f -> s, g -> t ]\n t [ ]\n where x < y\n @t \"m\"\n}",
            "ere: f g\n where x < y\n @match \"m\"\n}",
            "ltl: f => (*) g\n where x < y\n @violation \"m\"\n}",
            "where x < y\n fsm: where [ f -> where ]\n @where \"m\"\n}",
        ] {
            let props = parse_rvm("w.rvm", &format!("{events}{body}"))
                .unwrap_or_else(|e| panic!("{body}: {e}"));
            assert_eq!(props[0].constraints.order, vec![(0, 1, true)], "{body}");
        }
        for (clause, at) in [("where x < y, y < x", "3:2"), ("where x != x", "3:2")] {
            let text = format!("P(x, y) {{\n event f(x, y)\n {clause}\n fsm: s [ f -> s ]\n}}");
            let e = parse_rvm("w.rvm", &text).unwrap_err();
            assert_eq!(
                e.to_string(),
                format!("w.rvm:{at}: no binding of P's parameters satisfies these constraints")
            );
        }
    }

    /// `creation event` marks JavaMOP's creation events, after any body too (an `ere:` or
    /// `ltl:` body stops before it); `creation` without `event` is an error.
    #[test]
    fn creation_events_are_marked() {
        for body in [
            "fsm:\n s [ f -> s, g -> s ]\n creation event f(x)\n @s \"m\"\n}",
            "ere: f g*\n creation event f(x)\n @match \"m\"\n}",
            "ltl: g => (*) f\n creation event f(x)\n @violation \"m\"\n}",
        ] {
            let text = format!("P(x) {{\n event g(x)\n {body}");
            let props = parse_rvm("c.rvm", &text).unwrap_or_else(|e| panic!("{body}: {e}"));
            assert_eq!(props[0].creators, ["f"], "{body}");
            assert!(props[0].patterns.iter().any(|p| p.name == "f"), "{body}");
        }
        let props = parse_rvm("c.rvm", HAS_NEXT).unwrap();
        assert!(props[0].creators.is_empty());
        let e = parse_rvm("c.rvm", "P(x) {\n creation f(x)\n}").unwrap_err();
        assert!(e.to_string().starts_with("c.rvm:2:2: expected"), "{e}");
        let e = parse_rvm("c.rvm", "P(x) {\n creation event f(x)\n event f(x)\n}").unwrap_err();
        assert_eq!(e.to_string(), "c.rvm:3:8: event `f` is declared twice");
    }
}
