//! rtamt's STL syntax, parsed to a [`Formula`].
//!
//! Precedence follows rtamt's grammar exactly, loosest first: `xor`, `iff`, `implies`, `or`,
//! `and`, `since`, `until` (all left-associative); then the prefix operators (`not`,
//! `always[a,b]`, `eventually`, `historically`, `once`, `next`, `prev`), whose operand runs over
//! the comparisons and arithmetic that follow (`eventually[0,2](x) < 4` is
//! `eventually[0,2]((x) < 4)`, as in rtamt); then comparisons; then `-`, `+`, `/`, `*`, each a
//! level of its own (rtamt binds `+` tighter than `-` and `*` tighter than `/`: `x - y + 1` is
//! `x - (y + 1)`, and rvmon gives the same numbers). Where rtamt is stricter (it refuses
//! `x - 1 > 0`) rvmon reads the obvious meaning; where rtamt reads something surprising
//! without an error (several formulas one after another, of which only the last counts;
//! unknown characters dropped) rvmon gives an error.

use logos::Logos;
use rvmon_core::{Depth, Error};

use crate::ast::*;
use crate::lexer::Tok;

/// How deep formulas may nest (parentheses and prefix operators). Each parenthesis recurses
/// through every precedence level, about 3 KB of stack a level in a release build and 5 KB
/// in a debug one: 200 levels fit the 2 MiB stack of a thread Rust spawns (library callers:
/// the Python module, a service's workers, tests), where 1,000 overflowed it at about 650.
/// STL specifications nest a few levels.
pub const MAX_NESTING: usize = 200;

/// The sampling period bounds are divided by, in nanoseconds, unless said otherwise: rtamt's
/// default of one second, so that a bound without a unit counts samples.
pub const PERIOD_NS: u128 = 1_000_000_000;

/// The largest dense-time bound, in nanoseconds: sums of a few of them and of timestamps
/// (at most 2^63 ns) stay far inside the 128-bit times [`crate::dense`] computes with.
pub const MAX_DENSE_BOUND_NS: u64 = 1 << 62;

/// Parses `text` (from `file`, for error positions) as one STL formula, its windows in
/// samples (discrete time).
pub fn parse(file: &str, text: &str) -> Result<Formula, Error> {
    parse_in(file, text, Clock::Samples(PERIOD_NS))
}

/// What a window's bounds count: samples (discrete time) of a sampling period in nanoseconds
/// (rtamt's default [`PERIOD_NS`], or its `set_sampling_period`: a bound in seconds, or with
/// a unit, is divided by it), or nanoseconds (dense time, [`crate::dense`]), where `next`,
/// `prev`, `rise` and `fall` have no meaning and are refused.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Clock {
    Samples(u128),
    Nanoseconds,
}

/// [`parse`], with windows counted as `clock` says.
pub fn parse_in(file: &str, text: &str, clock: Clock) -> Result<Formula, Error> {
    let mut toks = Vec::new();
    for (tok, span) in Tok::lexer(text).spanned() {
        match tok {
            Ok(Tok::Foreign) => {
                let hint = match &text[span.clone()] {
                    "&&" => "`and` (or `&`)",
                    "||" => "`or` (or `|`)",
                    "=>" => "`implies` (or `->`)",
                    _ => "`!==`",
                };
                return Err(Error::at_offset(
                    file,
                    text,
                    span.start,
                    format!(
                        "`{}` is not STL's (rtamt's) syntax: write {hint}",
                        &text[span]
                    ),
                ));
            }
            Ok(t) => toks.push((t, span.start)),
            Err(()) => {
                return Err(Error::at_offset(
                    file,
                    text,
                    span.start,
                    format!("unexpected character `{}`", &text[span]),
                ))
            }
        }
    }
    let mut p = Parser {
        file,
        text,
        toks,
        at: 0,
        nodes: Vec::new(),
        signals: Vec::new(),
        depth: Depth::new(MAX_NESTING),
        clock,
    };
    if p.toks.is_empty() {
        return Err(p.err("expected a formula"));
    }
    let root = p.level(LOOSEST)?;
    if p.at < p.toks.len() {
        return Err(p.err("expected an operator or the end of the formula (one formula per file)"));
    }
    Ok(Formula {
        nodes: p.nodes,
        root,
        signals: p.signals,
    })
}

struct Parser<'a> {
    file: &'a str,
    text: &'a str,
    toks: Vec<(Tok, usize)>,
    at: usize,
    nodes: Vec<Node>,
    signals: Vec<String>,
    depth: Depth,
    clock: Clock,
}

/// The levels of binary operators, loosest first (level numbers as in rtamt's grammar).
const LOOSEST: u8 = 15;
const PREFIX: u8 = 7;

impl Parser<'_> {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.at).map(|t| &t.0)
    }

    fn err(&self, what: &str) -> Error {
        let offset = self.toks.get(self.at).map_or(self.text.len(), |t| t.1);
        let found = match self.toks.get(self.at) {
            None => "the end of the formula".to_string(),
            Some((_, start)) => {
                let word: String = self.text[*start..]
                    .chars()
                    .take_while(|c| !c.is_whitespace())
                    .take(20)
                    .collect();
                format!("`{word}`")
            }
        };
        Error::at_offset(
            self.file,
            self.text,
            offset,
            format!("{what}, found {found}"),
        )
    }

    fn expect(&mut self, tok: Tok, what: &str) -> Result<(), Error> {
        if self.peek() == Some(&tok) {
            self.at += 1;
            Ok(())
        } else {
            Err(self.err(&format!("expected {what}")))
        }
    }

    /// `next`, `prev`, `s_next`, `s_prev`, `rise` and `fall` (the token at hand) read the
    /// sample before or after, which a dense-time signal does not have: refused there.
    fn refuse_in_dense_time(&self) -> Result<(), Error> {
        if matches!(self.clock, Clock::Samples(_)) {
            return Ok(());
        }
        let offset = self.toks.get(self.at).map_or(self.text.len(), |t| t.1);
        let word: String = self.text[offset..]
            .chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect();
        Err(Error::at_offset(
            self.file,
            self.text,
            offset,
            format!(
                "`{word}` has no meaning in dense time (--dense): a piecewise-constant signal \
                 has no next or previous sample to read; use a window (`eventually[0,0.1]`, \
                 `once[0,0.1]`) or discrete time"
            ),
        ))
    }

    fn push(&mut self, node: Node) -> NodeId {
        self.nodes.push(node);
        self.nodes.len() - 1
    }

    /// The binary operator at `level` that the next token is, if any.
    fn binary_at(&self, level: u8) -> Option<Tok> {
        let t = self.peek()?;
        let l = match t {
            Tok::Star => 2,
            Tok::Slash => 3,
            Tok::Plus => 4,
            Tok::Minus => 5,
            Tok::Le | Tok::Ge | Tok::Lt | Tok::Gt | Tok::Eq | Tok::Ne => 6,
            Tok::Until => 8,
            Tok::Since => 10,
            Tok::And => 11,
            Tok::Or => 12,
            Tok::Implies => 13,
            Tok::Iff => 14,
            Tok::Xor => 15,
            _ => return None,
        };
        (l == level).then(|| t.clone())
    }

    /// An expression of operators at `level` or tighter; each level is left-associative and
    /// built in a loop, so chains of any length need no recursion on their length.
    fn level(&mut self, level: u8) -> Result<NodeId, Error> {
        match level {
            1 => return self.primary(),
            PREFIX => return self.prefix(),
            9 => return self.level(8), // rtamt's `unless`: not supported (see `binary`)
            _ => {}
        }
        let mut left = self.level(level - 1)?;
        while let Some(op) = self.binary_at(level) {
            self.at += 1;
            let window = match op {
                Tok::Until | Tok::Since => self.window()?,
                _ => None,
            };
            let right = self.level(level - 1)?;
            left = self.push(binary(op, window, left, right));
        }
        Ok(left)
    }

    /// `not`, `always[a,b]`, …, `next`, `prev` over an operand that is itself a prefix
    /// expression or a comparison.
    fn prefix(&mut self) -> Result<NodeId, Error> {
        let Some(tok) = self.peek().cloned() else {
            return self.level(PREFIX - 1);
        };
        let unary = |c| match tok {
            Tok::Not => Some(Node::Not(c)),
            Tok::Next => Some(Node::Shift(Shift::Next, c)),
            Tok::Prev => Some(Node::Shift(Shift::Prev, c)),
            Tok::StrongNext => Some(Node::Shift(Shift::StrongNext, c)),
            Tok::StrongPrev => Some(Node::Shift(Shift::StrongPrev, c)),
            _ => None,
        };
        let temporal = match tok {
            Tok::Always => Some(Window1::Always),
            Tok::Eventually => Some(Window1::Eventually),
            Tok::Historically => Some(Window1::Historically),
            Tok::Once => Some(Window1::Once),
            _ => None,
        };
        if unary(0).is_none() && temporal.is_none() {
            return self.level(PREFIX - 1);
        }
        if temporal.is_none() && tok != Tok::Not {
            self.refuse_in_dense_time()?;
        }
        self.depth.enter().map_err(|m| self.err(&m))?;
        self.at += 1;
        let window = if temporal.is_some() {
            self.window()?
        } else {
            None
        };
        let operand = self.prefix()?;
        self.depth.leave();
        let node = match temporal {
            Some(op) => Node::Temporal(op, window, operand),
            None => unary(operand).expect("a prefix operator"),
        };
        Ok(self.push(node))
    }

    /// An optional `[a, b]` (or `[a:b]`) after a temporal operator, in samples.
    fn window(&mut self) -> Result<Window, Error> {
        if self.peek() != Some(&Tok::LBracket) {
            return Ok(None);
        }
        let open = self.at;
        self.at += 1;
        let a = self.bound()?;
        match self.peek() {
            Some(Tok::Comma | Tok::Colon) => self.at += 1,
            _ => return Err(self.err("expected `,` between the bounds")),
        }
        let b = self.bound()?;
        self.expect(Tok::RBracket, "`]`")?;
        let (ua, ub) = (
            a.1.unwrap_or(b.1.unwrap_or(PERIOD_NS)),
            b.1.unwrap_or(PERIOD_NS),
        );
        let samples = |(v, _): (f64, Option<u128>), unit: u128, at: usize| -> Result<u64, Error> {
            let ns = v * unit as f64;
            let (n, what) = match self.clock {
                Clock::Samples(period) => (
                    ns / period as f64,
                    format!(
                        "a bound must be a whole number of samples (the sampling period is {}), \
                         not negative",
                        period_text(period)
                    ),
                ),
                // A decimal such as `0.3` (seconds) is a whole number of nanoseconds only up
                // to the float's rounding: the nearest whole number is meant.
                Clock::Nanoseconds => (
                    if (ns - ns.round()).abs() <= 1e-6 * ns.abs().max(1.0) {
                        ns.round()
                    } else {
                        ns
                    },
                    "a bound must be a whole number of nanoseconds, not negative, and at most \
                     2^62 ns (146 years)"
                        .to_string(),
                ),
            };
            let most = match self.clock {
                Clock::Samples(_) => 1e15,
                Clock::Nanoseconds => MAX_DENSE_BOUND_NS as f64,
            };
            if !(0.0..=most).contains(&n) || n.fract() != 0.0 {
                return Err(Error::at_offset(
                    self.file,
                    self.text,
                    self.toks[at].1,
                    what,
                ));
            }
            Ok(n as u64)
        };
        let (a, b) = (samples(a, ua, open + 1)?, samples(b, ub, open + 1)?);
        if b < a {
            return Err(Error::at_offset(
                self.file,
                self.text,
                self.toks[open].1,
                format!("the window [{a}, {b}] is empty: its end comes before its start"),
            ));
        }
        Ok(Some((a, b)))
    }

    /// A bound: a number and an optional unit (nanoseconds per unit).
    fn bound(&mut self) -> Result<(f64, Option<u128>), Error> {
        let Some(Tok::Number(n)) = self.peek().cloned() else {
            return Err(self.err("expected a number (a bound)"));
        };
        self.at += 1;
        let value = number(&n);
        let unit = match self.peek() {
            Some(Tok::Seconds) => Some(1_000_000_000),
            Some(Tok::Millis) => Some(1_000_000),
            Some(Tok::Micros) => Some(1_000),
            Some(Tok::Nanos) => Some(1),
            _ => None,
        };
        self.at += usize::from(unit.is_some());
        Ok((value, unit))
    }

    fn primary(&mut self) -> Result<NodeId, Error> {
        let Some(tok) = self.peek().cloned() else {
            return Err(self.err("expected a signal, a number or `(`"));
        };
        self.at += 1;
        match tok {
            Tok::Ident(name) => {
                let i = match self.signals.iter().position(|s| *s == name) {
                    Some(i) => i,
                    None => {
                        self.signals.push(name);
                        self.signals.len() - 1
                    }
                };
                Ok(self.push(Node::Signal(i)))
            }
            Tok::Number(n) => Ok(self.push(Node::Const(number(&n)))),
            Tok::Minus => match self.peek().cloned() {
                Some(Tok::Number(n)) => {
                    self.at += 1;
                    Ok(self.push(Node::Const(-number(&n))))
                }
                _ => Err(self
                    .err("expected a number after `-` (rtamt has no unary minus: write `0 - e`)")),
            },
            Tok::LParen => self.nested(|p| p.level(LOOSEST), Tok::RParen),
            Tok::Abs | Tok::Sqrt | Tok::Exp | Tok::Rise | Tok::Fall => {
                if matches!(tok, Tok::Rise | Tok::Fall) {
                    self.at -= 1;
                    self.refuse_in_dense_time()?;
                    self.at += 1;
                }
                self.expect(Tok::LParen, "`(`")?;
                let arg = self.nested(|p| p.level(LOOSEST), Tok::RParen)?;
                Ok(self.push(match tok {
                    Tok::Abs => Node::Fun(Fun::Abs, arg),
                    Tok::Sqrt => Node::Fun(Fun::Sqrt, arg),
                    Tok::Exp => Node::Fun(Fun::Exp, arg),
                    Tok::Rise => Node::Rise(arg),
                    _ => Node::Fall(arg),
                }))
            }
            Tok::Pow => {
                self.expect(Tok::LParen, "`(`")?;
                let base = self.nested(|p| p.level(LOOSEST), Tok::Comma)?;
                let exp = self.nested(|p| p.level(LOOSEST), Tok::RParen)?;
                Ok(self.push(Node::Pow(base, exp)))
            }
            _ => {
                self.at -= 1;
                Err(self.err("expected a signal, a number or `(`"))
            }
        }
    }

    /// `inner`, one level of nesting deeper, then `close`.
    fn nested(
        &mut self,
        inner: impl FnOnce(&mut Self) -> Result<NodeId, Error>,
        close: Tok,
    ) -> Result<NodeId, Error> {
        self.depth.enter().map_err(|m| self.err(&m))?;
        let e = inner(self)?;
        self.depth.leave();
        let what = if close == Tok::Comma { "`,`" } else { "`)`" };
        self.expect(close, what)?;
        Ok(e)
    }
}

fn binary(op: Tok, window: Window, l: NodeId, r: NodeId) -> Node {
    match op {
        Tok::Star => Node::Arith(Arith::Mul, l, r),
        Tok::Slash => Node::Arith(Arith::Div, l, r),
        Tok::Plus => Node::Arith(Arith::Add, l, r),
        Tok::Minus => Node::Arith(Arith::Sub, l, r),
        Tok::Gt | Tok::Ge => Node::Cmp(Cmp::Greater, l, r),
        Tok::Lt | Tok::Le => Node::Cmp(Cmp::Less, l, r),
        Tok::Eq => Node::Cmp(Cmp::Equal, l, r),
        Tok::Ne => Node::Cmp(Cmp::NotEqual, l, r),
        Tok::Until => Node::Until(window, l, r),
        Tok::Since => Node::Since(window, l, r),
        Tok::And => Node::Connective(Connective::And, l, r),
        Tok::Or => Node::Connective(Connective::Or, l, r),
        Tok::Implies => Node::Connective(Connective::Implies, l, r),
        Tok::Iff => Node::Connective(Connective::Iff, l, r),
        _ => Node::Connective(Connective::Xor, l, r),
    }
}

/// A number as rtamt reads it (Python's `float`, `_` between digits allowed).
fn number(text: &str) -> f64 {
    text.replace('_', "").parse().unwrap_or(f64::NAN)
}

/// A sampling period for messages: `1 s`, `500 ms`, `250 us`, `10 ns`.
fn period_text(ns: u128) -> String {
    let units = [
        (1_000_000_000, "s"),
        (1_000_000, "ms"),
        (1_000, "us"),
        (1, "ns"),
    ];
    let (per, unit) = units
        .into_iter()
        .find(|&(per, _)| ns.is_multiple_of(per))
        .unwrap_or((1, "ns"));
    format!("{} {unit}", ns / per)
}
