//! A recursive-descent (Pratt) parser for MonPoly's concrete syntax.
//!
//! Precedence follows MonPoly's `formula_parser.mly`, from loosest to tightest:
//! `LET … IN`, `SINCE`/`UNTIL` (right-assoc.), prefix temporal operators, `EXISTS`/`FORALL`,
//! `EQUIV` (left), `IMPLIES` (right), `OR` (left), `AND` (left), `NOT`. A prefix operator's
//! operand therefore extends over every tighter binary operator to its right:
//! `ONCE p() AND q()` is `ONCE (p() AND q())`, while `ONCE p() SINCE q()` is
//! `(ONCE p()) SINCE q()`. Getting this exactly right matters: the timescales benchmark
//! formulas rely on it.

use logos::Logos;
use rvmon_core::limits::associate;
use rvmon_core::{Depth, Error};

use crate::ast::*;
use crate::lexer::Tok;
use crate::suggest::{did_you_mean, nearest_keyword};

const BP_TEMPORAL_BINARY: u8 = 10;
const BP_TEMPORAL_PREFIX: u8 = 20;
const BP_QUANTIFIER: u8 = 30;
const BP_EQUIV: u8 = 40;
const BP_IMPLIES: u8 = 50;
const BP_OR: u8 = 60;
const BP_AND: u8 = 70;
const BP_NOT: u8 = 80;

/// Which concrete syntaxes a formula file may use.
///
/// `rvmon monpoly` reads formulas exactly as MonPoly does ([`ParseOptions::MONPOLY`]): its
/// fatal-error cases include formulas that only fail because a proposition lacks its `()`.
/// `rvmon check` is for people as much as for MonPoly's files, so it also takes a bare
/// proposition, and Spot's LTL syntax in `.ltl` files ([`ParseOptions::for_check`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ParseOptions {
    /// A bare identifier in formula position is the proposition `p()`: one not followed by
    /// `(` and not a term of a comparison (`x = 3`, `x + 1 < y`).
    pub bare_propositions: bool,
    /// Spot's LTL syntax is accepted as well (see [`parse_formula_with`] for how the two
    /// grammars share a file).
    pub spot: bool,
}

impl ParseOptions {
    /// MonPoly's syntax and nothing else.
    pub const MONPOLY: ParseOptions = ParseOptions {
        bare_propositions: false,
        spot: false,
    };

    /// What `rvmon check` accepts in a formula file with extension (or `--lang`) `lang`:
    /// bare propositions always, Spot's syntax too in `.ltl` files.
    pub fn for_check(lang: Option<&str>) -> ParseOptions {
        ParseOptions {
            bare_propositions: true,
            spot: lang == Some("ltl"),
        }
    }
}

/// Parses a whole formula in MonPoly's syntax; `file` names the text in error messages.
pub fn parse_formula(file: &str, text: &str) -> Result<Formula, Error> {
    parse_formula_with(file, text, ParseOptions::MONPOLY)
}

/// Parses a whole formula in the syntaxes `options` allows.
///
/// With Spot's syntax allowed, the text is parsed with both grammars and the one that accepts
/// it wins. Both accept only formulas made of names, parentheses and `TRUE`/`FALSE` (the
/// grammars share no operator: MonPoly's are words such as `AND` and `ALWAYS`, which Spot reads
/// as names, and Spot's are symbols and the single letters `F G X U R V W M`, which MonPoly's
/// grammar cannot place between names); there Spot's reading is taken, as only it can differ
/// (`GFa` is `G F a` in Spot and a proposition named `GFa` in MonPoly's grammar, `G(a)` is
/// `G a` and a predicate `G` of `a`). When neither
/// accepts the text, the error of the grammar that read further is reported: it is where the
/// author's formula most plausibly goes wrong. On a tie MonPoly's is reported, unless its
/// lexer stopped there, at a character MonPoly's syntax does not have (`!`, `&`, `:`, …).
pub fn parse_formula_with(file: &str, text: &str, options: ParseOptions) -> Result<Formula, Error> {
    let monpoly = parse_monpoly(file, text, options.bare_propositions);
    let parsed = if !options.spot {
        monpoly.map_err(|(e, _)| e)
    } else {
        match (monpoly, crate::spot::parse(file, text)) {
            (_, Ok(f)) => Ok(f),
            (Ok(f), Err(_)) => Ok(f),
            (Err((m, reached)), Err((s, spot_reached))) => {
                Err(if (spot_reached, 1) > reached { s } else { m })
            }
        }
    }?;
    crate::nesting::check(file, text, &parsed)?;
    Ok(parsed)
}

fn lex(file: &str, text: &str) -> Result<Vec<(Tok, Span)>, Error> {
    let mut toks = Vec::new();
    let mut lex = Tok::lexer(text);
    while let Some(t) = lex.next() {
        let span = Span {
            start: lex.span().start,
            end: lex.span().end,
        };
        match t {
            Ok(t) => toks.push((t, span)),
            Err(()) => {
                let what = if lex.slice().starts_with("(*") {
                    "unterminated comment: expected `*)`".to_string()
                } else if lex.slice().starts_with('"') {
                    "unterminated string: expected a closing `\"` on the same line".to_string()
                } else {
                    format!(
                        "unexpected character `{}`",
                        lex.slice().chars().next().unwrap_or('?')
                    )
                };
                return Err(Error::at_offset(file, text, span.start, what));
            }
        }
    }
    Ok(toks)
}

/// The formula, or the error with how far this grammar read: the byte offset where the error
/// was found (before "did you mean" moves the message to the misspelt word), then 0 for an
/// error of the lexer and 2 for one of the grammar, which order errors at the same offset.
fn parse_monpoly(file: &str, text: &str, bare: bool) -> Result<Formula, (Error, (usize, u8))> {
    let reached = |e: &Error| {
        e.pos
            .as_ref()
            .map_or(0, |p| byte_offset(text, p.line, p.col))
    };
    let toks = lex(file, text).map_err(|e| {
        let at = reached(&e);
        (e, (at, 0))
    })?;
    let mut p = Parser {
        file,
        text,
        toks,
        pos: 0,
        bare,
        depth: Depth::new(crate::MAX_NESTING),
    };
    let parsed = p.formula(0).and_then(|f| {
        if p.pos < p.toks.len() {
            Err(p.error("expected an operator or the end of the formula"))
        } else {
            Ok(f)
        }
    });
    parsed.map_err(|e| {
        let at = reached(&e);
        (p.with_suggestion(e), (at, 2))
    })
}

struct Parser<'a> {
    file: &'a str,
    text: &'a str,
    toks: Vec<(Tok, Span)>,
    pos: usize,
    /// [`ParseOptions::bare_propositions`].
    bare: bool,
    /// How deep `prefix` and `term` recurse (see [`crate::MAX_NESTING`]).
    depth: Depth,
}

impl Parser<'_> {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos).map(|t| &t.0)
    }

    fn peek_at(&self, k: usize) -> Option<&Tok> {
        self.toks.get(self.pos + k).map(|t| &t.0)
    }

    fn span_here(&self) -> Span {
        match self.toks.get(self.pos) {
            Some(t) => t.1,
            None => Span {
                start: self.text.len(),
                end: self.text.len(),
            },
        }
    }

    fn prev_end(&self) -> usize {
        if self.pos == 0 {
            0
        } else {
            self.toks[self.pos - 1].1.end
        }
    }

    fn error(&self, expected: &str) -> Error {
        let found = match self.peek() {
            Some(t) => t.describe(),
            None => "the end of the formula".to_string(),
        };
        Error::at_offset(
            self.file,
            self.text,
            self.span_here().start,
            format!("{expected}, found {found}"),
        )
    }

    fn eat(&mut self, t: &Tok) -> bool {
        if self.peek() == Some(t) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn expect(&mut self, t: &Tok, expected: &str) -> Result<Span, Error> {
        let span = self.span_here();
        if self.eat(t) {
            Ok(span)
        } else {
            Err(self.error(expected))
        }
    }

    /// `f` one level of nesting deeper: an error at the cursor past [`crate::MAX_NESTING`].
    fn nested<T>(&mut self, f: impl FnOnce(&mut Self) -> Result<T, Error>) -> Result<T, Error> {
        if let Err(m) = self.depth.enter() {
            return Err(Error::at_offset(
                self.file,
                self.text,
                self.span_here().start,
                m,
            ));
        }
        let r = f(self);
        self.depth.leave();
        r
    }

    fn formula(&mut self, min_bp: u8) -> Result<Formula, Error> {
        let mut lhs = self.prefix()?;
        loop {
            // (left binding power, right operand's minimum binding power)
            let (lbp, rbp) = match self.peek() {
                Some(Tok::Since) | Some(Tok::Until) => (BP_TEMPORAL_BINARY, BP_TEMPORAL_BINARY),
                Some(Tok::Equiv) => (BP_EQUIV, BP_EQUIV + 1),
                Some(Tok::Implies) => (BP_IMPLIES, BP_IMPLIES),
                Some(Tok::Or) => (BP_OR, BP_OR + 1),
                Some(Tok::And) => (BP_AND, BP_AND + 1),
                _ => break,
            };
            if lbp < min_bp {
                break;
            }
            let op_tok = self.toks[self.pos].0.clone();
            if let Tok::And | Tok::Or = op_tok {
                lhs = self.chain(lhs, &op_tok, rbp)?;
                continue;
            }
            self.pos += 1;
            let start = lhs.span.start;
            let kind = match op_tok {
                Tok::Since | Tok::Until => {
                    let interval = self.opt_interval()?;
                    // Right-associative: the recursion on the right is the nesting.
                    let rhs = self.nested(|p| p.formula(rbp))?;
                    let op = if op_tok == Tok::Since {
                        BinaryTemporal::Since
                    } else {
                        BinaryTemporal::Until
                    };
                    FormulaKind::Binary {
                        op,
                        interval,
                        lhs: Box::new(lhs),
                        rhs: Box::new(rhs),
                    }
                }
                _ => {
                    let rhs = self.nested(|p| p.formula(rbp))?;
                    let op = match op_tok {
                        Tok::Equiv => BoolOp::Equiv,
                        _ => BoolOp::Implies,
                    };
                    FormulaKind::Bool2 {
                        op,
                        lhs: Box::new(lhs),
                        rhs: Box::new(rhs),
                    }
                }
            };
            lhs = Formula::new(
                kind,
                Span {
                    start,
                    end: self.prev_end(),
                },
            );
        }
        Ok(lhs)
    }

    /// `first op x₁ op x₂ …` for `AND` or `OR` (`op_tok`), as long as `op_tok` follows; each
    /// operand is parsed with `rbp`. Built by a loop, and shallow when long ([`chain`]).
    fn chain(&mut self, first: Formula, op_tok: &Tok, rbp: u8) -> Result<Formula, Error> {
        let op = if *op_tok == Tok::And {
            BoolOp::And
        } else {
            BoolOp::Or
        };
        let mut rest = Vec::new();
        while self.eat(op_tok) {
            rest.push(self.formula(rbp)?);
        }
        Ok(chain(op, first, rest))
    }

    /// An operand: a prefix operator and its operand, a parenthesised formula, an atom. Each
    /// nests one level: every recursion of the parser goes through here (or [`Self::term`]).
    fn prefix(&mut self) -> Result<Formula, Error> {
        self.nested(Self::prefix_at)
    }

    fn prefix_at(&mut self) -> Result<Formula, Error> {
        let start = self.span_here().start;
        let finish = |p: &Self, kind| {
            Formula::new(
                kind,
                Span {
                    start,
                    end: p.prev_end(),
                },
            )
        };
        let unary = match self.peek() {
            Some(Tok::Previous) => Some(UnaryTemporal::Previous),
            Some(Tok::Next) => Some(UnaryTemporal::Next),
            Some(Tok::Once) => Some(UnaryTemporal::Once),
            Some(Tok::Eventually) => Some(UnaryTemporal::Eventually),
            Some(Tok::PastAlways) => Some(UnaryTemporal::PastAlways),
            Some(Tok::Always) => Some(UnaryTemporal::Always),
            _ => None,
        };
        if let Some(op) = unary {
            self.pos += 1;
            let interval = self.opt_interval()?;
            let body = self.formula(BP_TEMPORAL_PREFIX + 1)?;
            return Ok(finish(
                self,
                FormulaKind::Unary {
                    op,
                    interval,
                    body: Box::new(body),
                },
            ));
        }
        match self.peek() {
            None => Err(self.error("expected a formula")),
            Some(Tok::Not) => {
                self.pos += 1;
                let body = self.formula(BP_NOT)?;
                Ok(finish(self, FormulaKind::Not(Box::new(body))))
            }
            Some(Tok::Exists) | Some(Tok::Forall) => {
                let q = if self.peek() == Some(&Tok::Exists) {
                    Quant::Exists
                } else {
                    Quant::Forall
                };
                self.pos += 1;
                let mut vars = vec![self.ident("expected a variable name after the quantifier")?];
                while self.eat(&Tok::Comma) {
                    vars.push(self.ident("expected a variable name after `,`")?);
                }
                self.expect(&Tok::Dot, "expected `.` after the quantified variables")?;
                let body = self.formula(BP_QUANTIFIER + 1)?;
                Ok(finish(
                    self,
                    FormulaKind::Quant {
                        q,
                        vars,
                        body: Box::new(body),
                    },
                ))
            }
            Some(Tok::Let) => {
                self.pos += 1;
                let name = self.ident("expected the name of the predicate that LET defines")?;
                self.expect(&Tok::LParen, "expected `(` after the LET predicate name")?;
                let mut params = Vec::new();
                if !self.eat(&Tok::RParen) {
                    loop {
                        params.push(self.ident("expected a parameter name")?);
                        if self.eat(&Tok::RParen) {
                            break;
                        }
                        self.expect(&Tok::Comma, "expected `,` or `)` in the parameter list")?;
                    }
                }
                self.expect(&Tok::Eq, "expected `=` after the LET predicate")?;
                let def = self.formula(0)?;
                self.expect(&Tok::In, "expected IN after the LET definition")?;
                let body = self.formula(0)?;
                Ok(finish(
                    self,
                    FormulaKind::Let {
                        name,
                        params,
                        def: Box::new(def),
                        body: Box::new(body),
                    },
                ))
            }
            Some(Tok::True) => {
                self.pos += 1;
                Ok(finish(self, FormulaKind::Bool(true)))
            }
            Some(Tok::False) => {
                self.pos += 1;
                Ok(finish(self, FormulaKind::Bool(false)))
            }
            Some(Tok::Ident(_)) if self.peek_at(1) == Some(&Tok::LArrow) => self.aggregation(),
            Some(Tok::Ident(name))
                if self.peek_at(1) == Some(&Tok::LParen) && Func::from_name(name).is_none() =>
            {
                self.predicate()
            }
            Some(Tok::Ident(_)) if self.bare && !self.ident_starts_term() => {
                self.bare_proposition()
            }
            _ => self.comparison_or_parenthesised(),
        }
    }

    /// Whether the identifier at the cursor begins a term rather than a bare proposition: it
    /// is followed by `(` (a function such as `f2i(x)`), or by what extends a term or makes
    /// it one side of a comparison (`x = 3`, `x + 1 < y`, `s SUBSTRING t`).
    fn ident_starts_term(&self) -> bool {
        matches!(
            self.peek_at(1),
            Some(
                Tok::LParen
                    | Tok::LArrow
                    | Tok::Eq
                    | Tok::Lt
                    | Tok::Le
                    | Tok::Gt
                    | Tok::Ge
                    | Tok::Plus
                    | Tok::Minus
                    | Tok::Star
                    | Tok::Slash
                    | Tok::Mod
                    | Tok::Substring
                    | Tok::Matches
            )
        )
    }

    /// A bare `p`: the same formula as `p()`.
    fn bare_proposition(&mut self) -> Result<Formula, Error> {
        let span = self.span_here();
        let name = self.ident("expected a proposition")?;
        // A keyword in the wrong case (`true`, `Always`) would otherwise be a proposition
        // that never holds: a silent wrong answer instead of an error.
        if let Some(kw) = nearest_keyword(&name).filter(|k| k.eq_ignore_ascii_case(&name)) {
            return Err(Error::at_offset(
                self.file,
                self.text,
                span.start,
                format!(
                    "{} (a proposition named `{name}` is written `{name}()`)",
                    did_you_mean(&name, kw)
                ),
            ));
        }
        Ok(Formula::proposition(name, span))
    }

    /// `err`, or "did you mean" instead when an identifier at the error, just before it, or
    /// naming the predicate whose arguments the error is in (`EVENTUALY(p())`) is near a
    /// keyword: a misspelt keyword is an identifier to the lexer, and the error it causes
    /// (`EVENTUALY p()` fails at `p`, expecting a comparison) says nothing about it.
    fn with_suggestion(&self, err: Error) -> Error {
        let Some(pos) = err
            .pos
            .as_ref()
            .filter(|_| !err.message.contains("did you mean"))
        else {
            return err;
        };
        let offset = byte_offset(self.text, pos.line, pos.col);
        let at = self.toks.partition_point(|(_, s)| s.start < offset);
        let mut candidates = vec![Some(at), at.checked_sub(1)];
        let mut depth = 0usize;
        for i in (0..at).rev() {
            match self.toks[i].0 {
                Tok::RParen => depth += 1,
                Tok::LParen if depth > 0 => depth -= 1,
                Tok::LParen => {
                    candidates.push(i.checked_sub(1));
                    break;
                }
                _ => {}
            }
        }
        for i in candidates.into_iter().flatten() {
            if let Some((Tok::Ident(word), span)) = self.toks.get(i) {
                if let Some(kw) = nearest_keyword(word) {
                    let message = did_you_mean(word, kw);
                    return Error::at_offset(self.file, self.text, span.start, message);
                }
            }
        }
        err
    }

    fn ident(&mut self, expected: &str) -> Result<String, Error> {
        match self.peek() {
            Some(Tok::Ident(s)) => {
                let s = s.clone();
                self.pos += 1;
                Ok(s)
            }
            _ => Err(self.error(expected)),
        }
    }

    /// `result <- OP over [; g1, g2] body`; the body extends as far as possible (MonPoly's
    /// rule has no precedence, so yacc shifts).
    fn aggregation(&mut self) -> Result<Formula, Error> {
        let start = self.span_here().start;
        let result = self.ident("expected the aggregation's result variable")?;
        self.expect(&Tok::LArrow, "expected `<-`")?;
        let op = match self.peek() {
            Some(Tok::Agg(op)) => *op,
            _ => {
                return Err(
                    self.error("expected an aggregation operator (CNT, SUM, MIN, MAX, AVG, MED)")
                )
            }
        };
        self.pos += 1;
        let over = self.ident("expected the aggregated variable")?;
        let mut group = Vec::new();
        if self.eat(&Tok::Semi) {
            group.push(self.ident("expected a group-by variable after `;`")?);
            while self.eat(&Tok::Comma) {
                group.push(self.ident("expected a group-by variable after `,`")?);
            }
        }
        let body = self.formula(0)?;
        Ok(Formula::new(
            FormulaKind::Agg {
                result,
                op,
                over,
                group,
                body: Box::new(body),
            },
            Span {
                start,
                end: self.prev_end(),
            },
        ))
    }

    fn predicate(&mut self) -> Result<Formula, Error> {
        let start = self.span_here().start;
        let name = self.ident("expected a predicate name")?;
        self.expect(&Tok::LParen, "expected `(`")?;
        let mut args = Vec::new();
        if !self.eat(&Tok::RParen) {
            loop {
                args.push(self.term(0)?);
                if self.eat(&Tok::RParen) {
                    break;
                }
                self.expect(&Tok::Comma, "expected `,` or `)` in the argument list")?;
            }
        }
        Ok(Formula::new(
            FormulaKind::Pred { name, args },
            Span {
                start,
                end: self.prev_end(),
            },
        ))
    }

    /// At `(` the text is either a parenthesised formula or the start of a comparison whose
    /// left term is parenthesised (`(a / b) - c = 8`); try the comparison first and fall back.
    fn comparison_or_parenthesised(&mut self) -> Result<Formula, Error> {
        let start_pos = self.pos;
        let start = self.span_here().start;
        let as_comparison = (|| {
            let lhs = self.term(0)?;
            let op = match self.peek() {
                Some(Tok::Substring) | Some(Tok::Matches) => {
                    let op = if self.peek() == Some(&Tok::Substring) {
                        StrOp::Substring
                    } else {
                        StrOp::Matches
                    };
                    self.pos += 1;
                    let rhs = self.term(0)?;
                    let mut groups = Vec::new();
                    if op == StrOp::Matches && self.eat(&Tok::LParen) {
                        loop {
                            match self.peek() {
                                Some(Tok::Ident(v)) if v == "_" => {
                                    self.pos += 1;
                                    groups.push(None);
                                }
                                _ => groups.push(Some(self.term(0)?)),
                            }
                            if self.eat(&Tok::RParen) {
                                break;
                            }
                            self.expect(&Tok::Comma, "expected `,` or `)` in the group list")?;
                        }
                    }
                    return Ok(Formula::new(
                        FormulaKind::StrRel {
                            op,
                            lhs,
                            rhs,
                            groups,
                        },
                        Span {
                            start,
                            end: self.prev_end(),
                        },
                    ));
                }
                Some(Tok::Eq) => CmpOp::Eq,
                Some(Tok::Lt) => CmpOp::Lt,
                Some(Tok::Le) => CmpOp::Le,
                Some(Tok::Gt) => CmpOp::Gt,
                Some(Tok::Ge) => CmpOp::Ge,
                _ => {
                    let mut e = self
                        .error("expected a comparison (`=`, `<`, `<=`, `>`, `>=`) after the term");
                    // Without bare propositions (MonPoly's syntax), `request IMPLIES …` ends
                    // here: say how a proposition is written.
                    if let Term::Var(v) = &lhs {
                        if matches!(
                            self.peek(),
                            None | Some(
                                Tok::And
                                    | Tok::Or
                                    | Tok::Implies
                                    | Tok::Equiv
                                    | Tok::Since
                                    | Tok::Until
                                    | Tok::RParen
                                    | Tok::In
                            )
                        ) {
                            e.message
                                .push_str(&format!(": a proposition is written `{v}()`"));
                        }
                    }
                    return Err(e);
                }
            };
            self.pos += 1;
            let rhs = self.term(0)?;
            Ok(Formula::new(
                FormulaKind::Cmp { op, lhs, rhs },
                Span {
                    start,
                    end: self.prev_end(),
                },
            ))
        })();
        match as_comparison {
            Ok(f) => Ok(f),
            Err(e) => {
                let term_end = self.pos;
                self.pos = start_pos;
                if self.eat(&Tok::LParen) {
                    let inner = self.formula(0);
                    match inner {
                        Ok(inner) => {
                            self.expect(&Tok::RParen, "expected `)`")?;
                            let mut f = inner;
                            f.span = Span {
                                start,
                                end: self.prev_end(),
                            };
                            Ok(f)
                        }
                        // Report whichever reading got further: that is where the user's
                        // formula most plausibly goes wrong.
                        Err(e2) => {
                            let formula_end = self.pos;
                            Err(if formula_end >= term_end { e2 } else { e })
                        }
                    }
                } else if start_pos == term_end || self.peek().is_none() {
                    self.pos = start_pos;
                    Err(self.error("expected a formula"))
                } else {
                    Err(e)
                }
            }
        }
    }

    fn term(&mut self, min_bp: u8) -> Result<Term, Error> {
        self.nested(|p| p.term_at(min_bp))
    }

    fn term_at(&mut self, min_bp: u8) -> Result<Term, Error> {
        let mut lhs = match self.peek().cloned() {
            Some(Tok::Ident(s))
                if self.peek_at(1) == Some(&Tok::LParen) && Func::from_name(&s).is_some() =>
            {
                let func = Func::from_name(&s).expect("checked");
                self.pos += 2;
                let arg = self.term(0)?;
                self.expect(&Tok::RParen, "expected `)` after the function's argument")?;
                Term::Func(func, Box::new(arg))
            }
            Some(Tok::Ident(s)) => {
                self.pos += 1;
                Term::Var(s)
            }
            Some(Tok::Regexp(s)) => {
                self.pos += 1;
                Term::Regexp(s)
            }
            Some(Tok::Int(s)) => {
                self.pos += 1;
                match s.parse::<i64>() {
                    Ok(v) => Term::Int(v),
                    Err(_) => {
                        self.pos -= 1;
                        return Err(self.error("expected an integer that fits in 64 bits"));
                    }
                }
            }
            Some(Tok::Float(s)) => {
                self.pos += 1;
                Term::Float(s.parse().unwrap_or(f64::NAN))
            }
            Some(Tok::Str(s)) => {
                self.pos += 1;
                Term::Str(s)
            }
            Some(Tok::Minus) => {
                self.pos += 1;
                let t = self.term(30)?;
                match t {
                    Term::Int(v) => Term::Int(-v),
                    Term::Float(v) => Term::Float(-v),
                    t => Term::Neg(Box::new(t)),
                }
            }
            Some(Tok::LParen) => {
                self.pos += 1;
                let t = self.term(0)?;
                self.expect(&Tok::RParen, "expected `)` after the term")?;
                t
            }
            _ => return Err(self.error("expected a term (a variable, a constant or `(`)")),
        };
        loop {
            let (bp, op) = match self.peek() {
                Some(Tok::Plus) => (10, ArithOp::Add),
                Some(Tok::Minus) => (10, ArithOp::Sub),
                Some(Tok::Star) => (20, ArithOp::Mul),
                Some(Tok::Slash) => (20, ArithOp::Div),
                Some(Tok::Mod) => (20, ArithOp::Mod),
                _ => break,
            };
            if bp < min_bp {
                break;
            }
            self.pos += 1;
            let rhs = self.term(bp + 1)?;
            lhs = Term::Arith(op, Box::new(lhs), Box::new(rhs));
        }
        Ok(lhs)
    }

    /// An optional interval after a temporal operator; absent means `[0,*)`.
    fn opt_interval(&mut self) -> Result<Interval, Error> {
        let opens_interval = match self.peek() {
            Some(Tok::LBracket) => true,
            // `(` starts an interval only when followed by a bound and a comma: `(1,5]`.
            Some(Tok::LParen) => {
                matches!(self.peek_at(1), Some(Tok::Int(_)))
                    && (self.peek_at(2) == Some(&Tok::Comma)
                        || (matches!(self.peek_at(2), Some(Tok::Ident(_)))
                            && self.peek_at(3) == Some(&Tok::Comma)))
            }
            _ => false,
        };
        if !opens_interval {
            return Ok(Interval::UNBOUNDED);
        }
        let open_lo = self.peek() == Some(&Tok::LParen);
        self.pos += 1;
        let lo = self.bound_value()?;
        self.expect(&Tok::Comma, "expected `,` between the interval's bounds")?;
        let hi_val = if self.eat(&Tok::Star) {
            None
        } else {
            Some(self.bound_value()?)
        };
        let hi_open = match self.peek() {
            Some(Tok::RParen) => true,
            Some(Tok::RBracket) => false,
            _ => return Err(self.error("expected `]` or `)` to close the interval")),
        };
        self.pos += 1;
        let lo = if open_lo {
            Bound::Open(lo)
        } else {
            Bound::Closed(lo)
        };
        let hi = match hi_val {
            None => Bound::Infinite,
            Some(v) if hi_open => Bound::Open(v),
            Some(v) => Bound::Closed(v),
        };
        Ok(Interval { lo, hi })
    }

    /// A bound: an integer with an optional unit directly attached (`5`, `7d`, `30m`).
    fn bound_value(&mut self) -> Result<u64, Error> {
        let span = self.span_here();
        let n = match self.peek() {
            Some(Tok::Int(s)) => s
                .parse::<u64>()
                .map_err(|_| self.error("expected a bound that fits in 64 bits"))?,
            _ => return Err(self.error("expected a non-negative integer bound")),
        };
        self.pos += 1;
        if let Some((Tok::Ident(unit), uspan)) = self.toks.get(self.pos) {
            if uspan.start == span.end {
                let factor = match unit.as_str() {
                    "s" => 1,
                    "m" => 60,
                    "h" => 3600,
                    "d" => 86_400,
                    _ => {
                        return Err(Error::at_offset(
                            self.file,
                            self.text,
                            uspan.start,
                            format!("unknown time unit `{unit}`: expected s, m, h or d"),
                        ))
                    }
                };
                self.pos += 1;
                return n
                    .checked_mul(factor)
                    .ok_or_else(|| self.error("the bound is too large"));
            }
        }
        Ok(n)
    }
}

/// The chain `first op rest₀ op rest₁ …` of `AND` or `OR`, left-associative as written, and
/// for a long chain regrouped so that its depth does not grow with its length
/// ([`associate`]). Both are associative, but MonPoly's monitorability is not: in `φ AND NOT
/// ψ` and `φ AND t₁ < t₂` the right operand's variables must be among `φ`'s, and a comparison
/// stands only there ([`needs_left`]). So an `AND` run never starts at such an operand, and a
/// chain with one that has free variables is not regrouped (its depth then counts against [`crate::MAX_NESTING`]); in the others, every
/// operand means for MonPoly what it meant in the chain as written.
pub(crate) fn chain(op: BoolOp, first: Formula, rest: Vec<Formula>) -> Formula {
    let regroup = op == BoolOp::Or
        || rest
            .iter()
            .all(|g| !needs_left(g) || crate::free_vars(g).is_empty());
    associate(
        first,
        rest.into_iter().map(|g| ((), g)).collect(),
        |(), g| regroup && (op == BoolOp::Or || !needs_left(g)),
        |(), l, r| {
            let span = Span {
                start: l.span.start,
                end: r.span.end,
            };
            Formula::bool2(op, l, r, span)
        },
    )
}

/// Whether MonPoly reads `g` only as the right operand of an `AND`: a comparison or string
/// relation (negated or not), or a negation with free variables.
fn needs_left(g: &Formula) -> bool {
    match &g.kind {
        FormulaKind::Cmp { .. } | FormulaKind::StrRel { .. } => true,
        FormulaKind::Not(h) => needs_left(h) || !crate::free_vars(h).is_empty(),
        _ => false,
    }
}

/// The byte offset of 1-based `line` and `col` (in characters) in `text`, as
/// [`Error::at_offset`] computed them.
pub(crate) fn byte_offset(text: &str, line: usize, col: usize) -> usize {
    let line_start: usize = text
        .split_inclusive('\n')
        .take(line.saturating_sub(1))
        .map(str::len)
        .sum();
    text[line_start..]
        .char_indices()
        .nth(col.saturating_sub(1))
        .map_or(text.len(), |(i, _)| line_start + i)
}
