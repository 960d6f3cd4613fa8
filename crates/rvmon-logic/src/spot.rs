//! Spot's LTL syntax, which `rvmon check` reads in `.ltl` files besides MonPoly's
//! (`parser::parse_formula_with` says how the two share a file).
//!
//! Precedence and associativity are Spot's (`parsetl.yy`), loosest first:
//!
//! | operators | associativity |
//! |---|---|
//! | `->` `-->` `=>` `<->` `<-->` `<=>` (one level) | right: `a -> b <-> c` = `a -> (b <-> c)` |
//! | `\|` `\|\|` | left |
//! | `xor` `^` | left |
//! | `&` `&&` | left |
//! | `U` `R` `V` `W` `M` (one level) | right: `a U b R c` = `a U (b R c)` |
//! | prefix `F` `<>` `G` `[]` `X` `!` `~`, also `F[n:m]` `G[n:m]` `X[n]` | apply to the operand right after them |
//!
//! So `F a & b` is `(F a) & b` and `G a U b` is `(G a) U b`, unlike MonPoly's prefix operators,
//! whose operand extends over tighter binary operators (`EVENTUALLY a AND b` =
//! `EVENTUALLY (a AND b)`): the same text must not mean two things, hence a grammar of its own.
//!
//! The result is MonPoly's AST, so every engine treats both syntaxes alike: `G` = `ALWAYS`,
//! `F` = `EVENTUALLY`, `X` = `NEXT`, `U` = `UNTIL`, all with the interval `[0,*)`;
//! `a R b` = `NOT (NOT a UNTIL NOT b)`, `a W b` = `(a UNTIL b) OR ALWAYS a`,
//! `a M b` = `b UNTIL (a AND b)`, `a xor b` = `NOT (a EQUIV b)`; `true`/`1`, `false`/`0`.
//! Spot's bounded sugar counts steps, as Spot expands it: `X[n] a` is `n` nested `X`;
//! `F[n:m] a` = `Xⁿ (a | X (a | … X a))` with `m − n` disjunctions, `G[n:m]` the same with
//! conjunctions (`F[2:4] a` = `X X (a | X (a | X a))`); `F[n:]` (also `F[n:$]`, `F[n:inf]`)
//! = `Xⁿ F a`. Bound separators `:` `..` `,` `to` as in Spot.
//!
//! Lexing follows Spot: names are `[A-Za-z_.][A-Za-z0-9_.]*` or double-quoted (`"a b"`,
//! with `\` escaping the next character); where a formula is expected, a name starting with
//! `F`, `G` or `X` not followed by a digit is that operator applied to the rest (`GFa` =
//! `G F a`, `Fgrant` = `F grant`, while `X1` is a name); `true` and `false` are constants in
//! any case. Comments: `#` to the end of the line (as in rvmon's other formula files),
//! `/* … */` and `(* … *)`, not nested.
//!
//! Deliberately not accepted (an error, never another reading): PSL/SERE operators, Wring's
//! `=0`/`=1`, `+` and `*`, strong next (`X[!]`), Unicode operators, reversed ranges (Spot reads
//! `F[4:2]` as `F[2:4]`), and an operator letter glued to a name after an operand: Spot reads
//! `a Ub` as `a U b`, by which `a Until b` would silently be `a U ntil`.

use rvmon_core::{Depth, Error};

use crate::ast::*;
use crate::parser::{byte_offset, chain};

/// Spot refuses step counts above this (`fnode::unbounded() - 1`); so does rvmon.
const MAX_STEPS: u64 = 254;
/// `W`, `M` and the bounded sugar copy an operand, and copies of copies grow exponentially
/// (`F[0:254] F[0:254] F[0:254] a` is 16 million copies of `a`): past this many copied
/// operators the formula is refused instead of exhausting memory.
const MAX_COPIED: usize = 100_000;
/// The bounded sugar turns a few characters into deep nesting (`X[254]`), which the later
/// passes walk recursively: what it builds counts against the nesting limit of formulas,
/// checked here so that the error names the operator that expands too deep.
const MAX_SUGAR_DEPTH: usize = crate::MAX_NESTING;

#[derive(Clone, Copy, Debug, PartialEq)]
enum BinOp {
    Implies,
    Equiv,
    Or,
    Xor,
    And,
    Until,
    Release,
    WeakUntil,
    StrongRelease,
}

impl BinOp {
    /// (left binding power, right operand's minimum binding power): equal for the
    /// right-associative levels, one more for the left-associative ones.
    fn binding(self) -> (u8, u8) {
        match self {
            BinOp::Implies | BinOp::Equiv => (10, 10),
            BinOp::Or => (20, 21),
            BinOp::Xor => (30, 31),
            BinOp::And => (40, 41),
            BinOp::Until | BinOp::Release | BinOp::WeakUntil | BinOp::StrongRelease => (50, 50),
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Prefix {
    Not,
    Temporal(UnaryTemporal),
    /// `F[n:m]`, `G[n:m]` (`None`: unbounded) and `X[n]` (as `X[n:n]`).
    Steps(UnaryTemporal, u64, Option<u64>),
}

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Name(String),
    Const(bool),
    Prefix(Prefix),
    Bin(BinOp),
    LParen,
    RParen,
    /// Text that is no token where it stands (a number other than 0 and 1, a name where an
    /// operator is expected): the parser reports it as found.
    Other,
}

/// Longest first, so that `<->` is not read as `<` and `->`.
const SYMBOLS: &[(&str, Tok)] = &[
    ("<-->", Tok::Bin(BinOp::Equiv)),
    ("-->", Tok::Bin(BinOp::Implies)),
    ("<->", Tok::Bin(BinOp::Equiv)),
    ("<=>", Tok::Bin(BinOp::Equiv)),
    ("->", Tok::Bin(BinOp::Implies)),
    ("=>", Tok::Bin(BinOp::Implies)),
    ("&&", Tok::Bin(BinOp::And)),
    ("||", Tok::Bin(BinOp::Or)),
    ("[]", Tok::Prefix(Prefix::Temporal(UnaryTemporal::Always))),
    (
        "<>",
        Tok::Prefix(Prefix::Temporal(UnaryTemporal::Eventually)),
    ),
    ("&", Tok::Bin(BinOp::And)),
    ("|", Tok::Bin(BinOp::Or)),
    ("^", Tok::Bin(BinOp::Xor)),
    ("!", Tok::Prefix(Prefix::Not)),
    ("~", Tok::Prefix(Prefix::Not)),
    ("(", Tok::LParen),
    (")", Tok::RParen),
];

/// Parses `text` as one formula in Spot's syntax. An error comes with the byte offset up to
/// which the text was read: the place of the error, or, when the error is about a whole
/// operand (too large once expanded), its end.
pub fn parse(file: &str, text: &str) -> Result<Formula, (Error, usize)> {
    let mut p = Parser {
        file,
        text,
        pos: 0,
        copied: 0,
        depth: Depth::new(crate::MAX_NESTING),
    };
    let parsed = p.formula(0).and_then(|f| match p.token(false)? {
        None => Ok(f),
        Some((_, span)) => Err(p.expected(
            "expected an operator (`&`, `|`, `->`, `U`, …) or the end of the formula",
            Some(span),
        )),
    });
    parsed.map_err(|e| {
        let at = e
            .pos
            .as_ref()
            .map_or(0, |at| byte_offset(text, at.line, at.col));
        (e, at.max(p.pos))
    })
}

struct Parser<'a> {
    file: &'a str,
    text: &'a str,
    /// Byte offset of the next character to read.
    pos: usize,
    /// Operators copied so far by `W`, `M` and the bounded sugar.
    copied: usize,
    /// How deep `unary` recurses (see [`crate::MAX_NESTING`]).
    depth: Depth,
}

impl Parser<'_> {
    fn error(&self, offset: usize, message: String) -> Error {
        Error::at_offset(self.file, self.text, offset, message)
    }

    fn expected(&self, what: &str, found: Option<Span>) -> Error {
        match found {
            Some(s) => self.error(
                s.start,
                format!("{what}, found `{}`", &self.text[s.start..s.end]),
            ),
            None => self.error(
                self.text.len(),
                format!("{what}, found the end of the formula"),
            ),
        }
    }

    /// Skips white space and comments.
    fn skip(&mut self) -> Result<(), Error> {
        loop {
            let rest = &self.text[self.pos..];
            let trimmed = rest.trim_start();
            self.pos += rest.len() - trimmed.len();
            if trimmed.starts_with('#') {
                self.pos += trimmed.find('\n').unwrap_or(trimmed.len());
            } else if let Some((open, close)) = [("/*", "*/"), ("(*", "*)")]
                .into_iter()
                .find(|(open, _)| trimmed.starts_with(open))
            {
                match trimmed[open.len()..].find(close) {
                    Some(i) => self.pos += open.len() + i + close.len(),
                    // Reported where `*/` was expected: the text was read to its end.
                    None => {
                        return Err(self.error(
                            self.text.len(),
                            format!("unterminated comment: expected `{close}`"),
                        ))
                    }
                }
            } else {
                return Ok(());
            }
        }
    }

    /// The token at the cursor, without consuming it; `operand` says whether a formula is
    /// expected there (Spot lexes names differently there and after an operand).
    fn token(&mut self, operand: bool) -> Result<Option<(Tok, Span)>, Error> {
        self.skip()?;
        let start = self.pos;
        let rest = &self.text[start..];
        let Some(c) = rest.chars().next() else {
            return Ok(None);
        };
        let span = |len: usize| Span {
            start,
            end: start + len,
        };
        if let Some((sym, tok)) = SYMBOLS.iter().find(|(s, _)| rest.starts_with(s)) {
            return Ok(Some((tok.clone(), span(sym.len()))));
        }
        if c == '"' {
            return self.quoted(start).map(Some);
        }
        if c.is_ascii_digit() {
            let len = rest
                .find(|c: char| !c.is_ascii_digit())
                .unwrap_or(rest.len());
            let tok = match &rest[..len] {
                "0" => Tok::Const(false),
                "1" => Tok::Const(true),
                _ => Tok::Other,
            };
            return Ok(Some((tok, span(len))));
        }
        if c.is_ascii_alphabetic() || c == '_' || c == '.' {
            let len = rest
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '.'))
                .unwrap_or(rest.len());
            return self.word(start, &rest[..len], operand).map(Some);
        }
        Err(self.error(start, format!("unexpected character `{c}`")))
    }

    fn word(&self, start: usize, w: &str, operand: bool) -> Result<(Tok, Span), Error> {
        let whole = Span {
            start,
            end: start + w.len(),
        };
        let tok = match w {
            "xor" => Tok::Bin(BinOp::Xor),
            "U" => Tok::Bin(BinOp::Until),
            "R" | "V" => Tok::Bin(BinOp::Release),
            "W" => Tok::Bin(BinOp::WeakUntil),
            "M" => Tok::Bin(BinOp::StrongRelease),
            // After an operand only an operator may follow.
            _ if !operand => Tok::Other,
            _ if w.eq_ignore_ascii_case("true") => Tok::Const(true),
            _ if w.eq_ignore_ascii_case("false") => Tok::Const(false),
            _ => {
                let b = w.as_bytes();
                let op = match b[0] {
                    b'F' => Some(UnaryTemporal::Eventually),
                    b'G' => Some(UnaryTemporal::Always),
                    b'X' => Some(UnaryTemporal::Next),
                    _ => None,
                };
                match op {
                    Some(op) if !b.get(1).is_some_and(u8::is_ascii_digit) => {
                        return self.prefix(op, start)
                    }
                    _ => Tok::Name(w.to_string()),
                }
            }
        };
        Ok((tok, whole))
    }

    /// The operator letter at `start` (`F`, `G` or `X`), with its step range if `[` follows.
    fn prefix(&self, op: UnaryTemporal, start: usize) -> Result<(Tok, Span), Error> {
        let after = start + 1;
        let open = self.blank(after);
        let rest = &self.text[open..];
        if !rest.starts_with('[') || rest.starts_with("[]") {
            return Ok((
                Tok::Prefix(Prefix::Temporal(op)),
                Span { start, end: after },
            ));
        }
        let letter = &self.text[start..after];
        let mut i = self.blank(open + 1);
        let Some((lo, j)) = self.count(i)? else {
            return Err(self.error(i, format!("expected a step count after `{letter}[`")));
        };
        i = self.blank(j);
        let sep_at = i;
        let sep = [":", "..", ",", "to"]
            .into_iter()
            .find(|s| self.text[i..].starts_with(s));
        let mut hi_at = i;
        let hi = match sep {
            None => Some(lo),
            Some(s) => {
                i = self.blank(i + s.len());
                hi_at = i;
                if let Some((hi, j)) = self.count(i)? {
                    i = j;
                    Some(hi)
                } else {
                    let unbounded = ["$", "inf"]
                        .into_iter()
                        .find(|u| self.text[i..].starts_with(u));
                    i += unbounded.map_or(0, str::len);
                    None
                }
            }
        };
        i = self.blank(i);
        if self.text[i..].starts_with("!]") {
            return Err(self.error(i, "strong operators (`!]`) are not supported".into()));
        }
        if !self.text[i..].starts_with(']') {
            return Err(self.error(i, format!("expected `]` to close `{letter}[`")));
        }
        let span = Span { start, end: i + 1 };
        let written = &self.text[span.start..span.end];
        // Each error points at the part of the brackets that is wrong.
        match (op, sep, hi) {
            (UnaryTemporal::Next, Some(_), _) => Err(self.error(
                hi_at,
                format!("`{written}`: `X[n]` takes one step count (n nested X)"),
            )),
            (UnaryTemporal::Eventually | UnaryTemporal::Always, None, _) => Err(self.error(
                sep_at,
                format!("`{written}`: `{letter}[n:m]` takes two step counts"),
            )),
            (_, _, Some(hi)) if hi < lo => Err(self.error(
                hi_at,
                format!("`{written}` is a reversed range: write `{letter}[{hi}:{lo}]`"),
            )),
            _ => Ok((Tok::Prefix(Prefix::Steps(op, lo, hi)), span)),
        }
    }

    /// The offset of the first character at or after `i` that is not a space, tab or line
    /// break (Spot allows these inside and before the brackets of `F[n:m]`).
    fn blank(&self, i: usize) -> usize {
        let rest = &self.text[i..];
        i + rest.len() - rest.trim_start_matches([' ', '\t', '\r', '\n']).len()
    }

    /// A step count at `i` and the offset after it, if digits start there.
    fn count(&self, i: usize) -> Result<Option<(u64, usize)>, Error> {
        let rest = &self.text[i..];
        let len = rest
            .find(|c: char| !c.is_ascii_digit())
            .unwrap_or(rest.len());
        if len == 0 {
            return Ok(None);
        }
        match rest[..len].parse::<u64>() {
            Ok(n) if n <= MAX_STEPS => Ok(Some((n, i + len))),
            _ => Err(self.error(
                i,
                format!(
                    "`{}` exceeds the largest supported step count ({MAX_STEPS})",
                    &rest[..len]
                ),
            )),
        }
    }

    /// A double-quoted name starting at `start`.
    fn quoted(&self, start: usize) -> Result<(Tok, Span), Error> {
        let mut name = String::new();
        let mut chars = self.text[start + 1..].char_indices();
        while let Some((i, c)) = chars.next() {
            match c {
                '"' if name.is_empty() => {
                    return Err(self.error(start, "empty proposition name `\"\"`".into()))
                }
                '"' => {
                    let end = start + 1 + i + 1;
                    return Ok((Tok::Name(name), Span { start, end }));
                }
                '\\' => match chars.next() {
                    Some((_, escaped)) => name.push(escaped),
                    None => break,
                },
                c => name.push(c),
            }
        }
        // Reported where the closing quote was expected: the text was read to its end.
        let opened = Error::at_offset(self.file, self.text, start, "");
        let opened = opened.pos.map_or(String::new(), |p| {
            format!(" opened at {}:{}", p.line, p.col)
        });
        Err(self.error(
            self.text.len(),
            format!("unterminated string{opened}: expected a closing `\"`"),
        ))
    }

    /// `f` one level of nesting deeper: an error at the next token past
    /// [`crate::MAX_NESTING`].
    fn nested<T>(&mut self, f: impl FnOnce(&mut Self) -> Result<T, Error>) -> Result<T, Error> {
        if let Err(m) = self.depth.enter() {
            let at = self.blank(self.pos);
            return Err(self.error(at, m));
        }
        let r = f(self);
        self.depth.leave();
        r
    }

    fn formula(&mut self, min_bp: u8) -> Result<Formula, Error> {
        let mut lhs = self.unary()?;
        while let Some((Tok::Bin(op), span)) = self.token(false)? {
            let (lbp, rbp) = op.binding();
            if lbp < min_bp {
                break;
            }
            if let BinOp::And | BinOp::Or = op {
                lhs = self.chain(op, lhs, rbp)?;
                continue;
            }
            self.pos = span.end;
            // Right-associative (`U`, `->`): the recursion on the right is the nesting.
            let rhs = self.nested(|p| p.formula(rbp))?;
            let whole = Span {
                start: lhs.span.start,
                end: rhs.span.end,
            };
            lhs = self.binary(op, lhs, rhs, span, whole)?;
        }
        Ok(lhs)
    }

    /// `a op b` in MonPoly's operators; `op_span` is the operator's text, `span` the whole.
    fn binary(
        &mut self,
        op: BinOp,
        a: Formula,
        b: Formula,
        op_span: Span,
        span: Span,
    ) -> Result<Formula, Error> {
        let until = |a, b| Formula::binary(BinaryTemporal::Until, Interval::UNBOUNDED, a, b, span);
        Ok(match op {
            BinOp::Implies => Formula::bool2(BoolOp::Implies, a, b, span),
            BinOp::Equiv => Formula::bool2(BoolOp::Equiv, a, b, span),
            BinOp::Or => Formula::bool2(BoolOp::Or, a, b, span),
            BinOp::And => Formula::and(a, b, span),
            BinOp::Xor => Formula::not(Formula::bool2(BoolOp::Equiv, a, b, span), span),
            BinOp::Until => until(a, b),
            BinOp::Release => {
                let (sa, sb) = (a.span, b.span);
                Formula::not(until(Formula::not(a, sa), Formula::not(b, sb)), span)
            }
            BinOp::WeakUntil => {
                self.charge(shape(&a).0, op_span)?;
                let always =
                    Formula::unary(UnaryTemporal::Always, Interval::UNBOUNDED, a.clone(), span);
                Formula::bool2(BoolOp::Or, until(a, b), always, span)
            }
            BinOp::StrongRelease => {
                self.charge(shape(&b).0, op_span)?;
                let both = Formula::and(a, b.clone(), span);
                until(b, both)
            }
        })
    }

    /// `first & x₁ & x₂ …` (or `|`), as long as `op` follows, each operand parsed with `rbp`:
    /// built by a loop, and shallow when long ([`chain`]).
    fn chain(&mut self, op: BinOp, first: Formula, rbp: u8) -> Result<Formula, Error> {
        let mut rest = Vec::new();
        while let Some((Tok::Bin(next), span)) = self.token(false)? {
            if next != op {
                break;
            }
            self.pos = span.end;
            rest.push(self.formula(rbp)?);
        }
        let op = if op == BinOp::And {
            BoolOp::And
        } else {
            BoolOp::Or
        };
        Ok(chain(op, first, rest))
    }

    /// An operand; every recursion of the parser goes through here, one level of nesting.
    fn unary(&mut self) -> Result<Formula, Error> {
        self.nested(Self::unary_at)
    }

    fn unary_at(&mut self) -> Result<Formula, Error> {
        let found = self.token(true)?;
        let Some((tok, span)) = found else {
            return Err(self.expected("expected a formula", None));
        };
        match tok {
            Tok::Name(name) => {
                self.pos = span.end;
                Ok(Formula::proposition(name, span))
            }
            Tok::Const(b) => {
                self.pos = span.end;
                Ok(Formula::new(FormulaKind::Bool(b), span))
            }
            Tok::LParen => {
                self.pos = span.end;
                let mut f = self.formula(0)?;
                match self.token(false)? {
                    Some((Tok::RParen, close)) => {
                        self.pos = close.end;
                        f.span = Span {
                            start: span.start,
                            end: close.end,
                        };
                        Ok(f)
                    }
                    other => Err(self.expected(
                        "expected `)` or an operator (`&`, `|`, `->`, `U`, …)",
                        other.map(|o| o.1),
                    )),
                }
            }
            Tok::Prefix(prefix) => {
                self.pos = span.end;
                let body = self.unary()?;
                let whole = Span {
                    start: span.start,
                    end: body.span.end,
                };
                match prefix {
                    Prefix::Not => Ok(Formula::not(body, whole)),
                    Prefix::Temporal(op) => {
                        Ok(Formula::unary(op, Interval::UNBOUNDED, body, whole))
                    }
                    Prefix::Steps(op, lo, hi) => self.expand(op, lo, hi, body, span, whole),
                }
            }
            Tok::Bin(_) | Tok::RParen | Tok::Other => {
                Err(self.expected("expected a formula", Some(span)))
            }
        }
    }

    /// Spot's expansion of `F[lo:hi]`, `G[lo:hi]` and `X[lo]` (as `X[lo:lo]`) applied to
    /// `body` (Spot's `nested_unop_range`); `op_span` is the operator's text, `span` the whole.
    fn expand(
        &mut self,
        op: UnaryTemporal,
        lo: u64,
        hi: Option<u64>,
        body: Formula,
        op_span: Span,
        span: Span,
    ) -> Result<Formula, Error> {
        let (nodes, depth) = shape(&body);
        // Both counts are at most MAX_STEPS (checked when lexed).
        let steps = hi.map_or(0, |hi| hi - lo) as usize;
        self.charge(nodes.saturating_mul(steps), op_span)?;
        let nested = depth + 2 * steps + lo as usize + usize::from(hi.is_none());
        if nested > MAX_SUGAR_DEPTH {
            let written = &self.text[op_span.start..op_span.end];
            return Err(self.error(
                op_span.start,
                format!(
                    "`{written}` nests its operand {nested} operators deep once expanded; at \
                     most {MAX_SUGAR_DEPTH} are supported"
                ),
            ));
        }
        let join = if op == UnaryTemporal::Always {
            BoolOp::And
        } else {
            BoolOp::Or
        };
        let next = |f| Formula::unary(UnaryTemporal::Next, Interval::UNBOUNDED, f, span);
        let mut acc = match hi {
            None => Formula::unary(op, Interval::UNBOUNDED, body, span),
            Some(_) => {
                let mut acc = body.clone();
                for _ in 0..steps {
                    acc = Formula::bool2(join, body.clone(), next(acc), span);
                }
                acc
            }
        };
        for _ in 0..lo {
            acc = next(acc);
        }
        Ok(acc)
    }

    /// Counts `nodes` copied operators against [`MAX_COPIED`].
    fn charge(&mut self, nodes: usize, span: Span) -> Result<(), Error> {
        self.copied = self.copied.saturating_add(nodes);
        if self.copied > MAX_COPIED {
            return Err(self.error(
                span.start,
                format!(
                    "the formula is too large once expanded: `W`, `M`, `F[n:m]` and `G[n:m]` copy \
                     their operands, and the copies exceed {MAX_COPIED} operators"
                ),
            ));
        }
        Ok(())
    }
}

/// The number of nodes of `f` and its depth, without recursion (it runs on the operands of
/// the bounded sugar, which may already be deep).
fn shape(f: &Formula) -> (usize, usize) {
    let (mut nodes, mut depth) = (0, 0);
    let mut stack = vec![(f, 1)];
    while let Some((g, d)) = stack.pop() {
        nodes += 1;
        depth = depth.max(d);
        stack.extend(g.children().into_iter().map(|c| (c, d + 1)));
    }
    (nodes, depth)
}
