//! The parser of `.modelplex` files: `const` declarations, `monitor NAME:` conditions (or one
//! bare condition, the model monitor), each a formula of real arithmetic in rvmon's notation
//! or KeYmaera X's export. Precedence as KeYmaera X's: `!` over `&` over `|` over `->`
//! (right-associative) over `<->`; a quantifier binds like `!` (`\forall x (…)`), or, after
//! `.` or `:`, as far to the right as it can (`∃T. 0 <= T & …`). Comparisons may chain:
//! `-1 <= f' <= (m - x)/eps`.

use logos::Logos;
use rvmon_core::Error;

use crate::ast::{BinOp, File, Formula, Func, MonitorDecl, Rel, Span, Term};
use crate::lexer::Tok;

/// How deep formulas and terms may nest (a stack bound, so that no input overflows it).
const MAX_DEPTH: usize = 200;

/// Parses a `.modelplex` file; `name` is its path, for messages.
pub fn parse(name: &str, text: &str) -> Result<File, Error> {
    let mut toks = Vec::new();
    for (tok, span) in Tok::lexer(text).spanned() {
        match tok {
            Ok(t) => toks.push((t, span)),
            Err(()) => {
                let c = text[span.start..].chars().next().unwrap_or(' ');
                return Err(Error::at_offset(
                    name,
                    text,
                    span.start,
                    format!("unexpected character `{c}`"),
                ));
            }
        }
    }
    let mut p = Parser {
        name,
        text,
        toks,
        pos: 0,
        depth: 0,
        limit: usize::MAX,
    };
    p.file()
}

struct Parser<'a> {
    name: &'a str,
    text: &'a str,
    toks: Vec<(Tok, Span)>,
    pos: usize,
    depth: usize,
    /// Tokens from this offset on are out of reach (a constant's value ends with its line).
    limit: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<&Tok> {
        self.current().map(|t| &t.0)
    }

    fn current(&self) -> Option<&(Tok, Span)> {
        self.toks.get(self.pos).filter(|t| t.1.start < self.limit)
    }

    fn offset(&self) -> usize {
        self.toks
            .get(self.pos)
            .map_or(self.text.len(), |t| t.1.start)
    }

    fn end_of_previous(&self) -> usize {
        self.pos
            .checked_sub(1)
            .and_then(|i| self.toks.get(i))
            .map_or(0, |t| t.1.end)
    }

    fn error(&self, expected: &str) -> Error {
        let found = self
            .peek()
            .map_or("the end of the file".to_string(), Tok::describe);
        Error::at_offset(
            self.name,
            self.text,
            self.offset(),
            format!("expected {expected}, found {found}"),
        )
    }

    fn eat(&mut self, tok: &Tok) -> bool {
        if self.peek() == Some(tok) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn expect(&mut self, tok: &Tok, expected: &str) -> Result<Span, Error> {
        if self.peek() == Some(tok) {
            self.pos += 1;
            Ok(self.toks[self.pos - 1].1.clone())
        } else {
            Err(self.error(expected))
        }
    }

    fn ident(&mut self, expected: &str) -> Result<(String, Span), Error> {
        match self.current() {
            Some((Tok::Ident(n), s)) => {
                let r = (n.clone(), s.clone());
                self.pos += 1;
                Ok(r)
            }
            _ => Err(self.error(expected)),
        }
    }

    fn deeper(&mut self) -> Result<(), Error> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(Error::at_offset(
                self.name,
                self.text,
                self.offset(),
                format!("the condition nests deeper than {MAX_DEPTH} levels"),
            ));
        }
        Ok(())
    }

    fn file(&mut self) -> Result<File, Error> {
        let mut file = File::default();
        while self.peek().is_some() {
            if self.eat(&Tok::Semi) {
                continue;
            }
            if self.eat(&Tok::Const) {
                let (name, span) = self.ident("a constant's name")?;
                self.expect(&Tok::Eq, "`=` and the constant's value")?;
                // (Its value ends with the line: a bare condition may start on the next.)
                self.limit = self.text[span.end..]
                    .find('\n')
                    .map_or(self.text.len(), |i| span.end + i);
                let value = self.term();
                let end = self.item_end();
                self.limit = usize::MAX;
                let value = value?;
                end?;
                file.consts.push((name, value, span));
                continue;
            }
            let name = if self.eat(&Tok::Monitor) {
                let (name, _) = self.ident("the monitor's name (model, controller, prediction)")?;
                self.expect(&Tok::Colon, "`:` and the monitor's condition")?;
                name
            } else if file.monitors.is_empty() {
                "model".to_string()
            } else {
                return Err(self.error("`monitor NAME:` before a second condition"));
            };
            if file.monitors.iter().any(|m| m.name == name) {
                return Err(self.error(&format!("one monitor named `{name}` (it is named twice)")));
            }
            let formula = self.formula()?;
            self.item_end()?;
            file.monitors.push(MonitorDecl { name, formula });
        }
        if file.monitors.is_empty() {
            return Err(Error::at_offset(
                self.name,
                self.text,
                self.text.len(),
                "expected a monitor condition (the file has none)",
            ));
        }
        Ok(file)
    }

    fn item_end(&mut self) -> Result<(), Error> {
        if self.limit != usize::MAX && self.peek().is_none() {
            return Ok(());
        }
        match self.peek() {
            None | Some(Tok::Const | Tok::Monitor) => Ok(()),
            Some(Tok::Semi) => {
                self.pos += 1;
                Ok(())
            }
            _ => Err(self.error(
                "an operator, `;`, `const`, `monitor` or the end (a second condition needs \
                 `monitor NAME:` before it)",
            )),
        }
    }

    /// `<->`, the loosest.
    fn formula(&mut self) -> Result<Formula, Error> {
        self.deeper()?;
        let mut f = self.implication()?;
        while self.eat(&Tok::Iff) {
            let g = self.implication()?;
            f = Formula::Iff(Box::new(f), Box::new(g));
        }
        self.depth -= 1;
        Ok(f)
    }

    fn implication(&mut self) -> Result<Formula, Error> {
        let f = self.disjunction()?;
        if self.eat(&Tok::Implies) {
            self.deeper()?;
            let g = self.implication()?;
            self.depth -= 1;
            return Ok(Formula::Implies(Box::new(f), Box::new(g)));
        }
        Ok(f)
    }

    fn disjunction(&mut self) -> Result<Formula, Error> {
        self.chain(&Tok::Or, Parser::conjunction, Formula::Or)
    }

    fn conjunction(&mut self) -> Result<Formula, Error> {
        self.chain(&Tok::And, Parser::unary, Formula::And)
    }

    /// `next (op next)*`, left-associative.
    fn chain(
        &mut self,
        op: &Tok,
        next: fn(&mut Self) -> Result<Formula, Error>,
        make: fn(Box<Formula>, Box<Formula>) -> Formula,
    ) -> Result<Formula, Error> {
        let mut f = next(self)?;
        while self.eat(op) {
            let g = next(self)?;
            f = make(Box::new(f), Box::new(g));
        }
        Ok(f)
    }

    fn unary(&mut self) -> Result<Formula, Error> {
        self.deeper()?;
        let start = self.offset();
        let f = match self.peek() {
            Some(Tok::Not) => {
                self.pos += 1;
                let f = self.unary()?;
                Formula::Not(Box::new(f), start..self.end_of_previous())
            }
            Some(Tok::Forall | Tok::Exists) => {
                let exists = self.peek() == Some(&Tok::Exists);
                self.pos += 1;
                let (var, _) = self.ident("the quantified variable's name")?;
                let body = if self.eat(&Tok::Dot) || self.eat(&Tok::Colon) {
                    self.formula()?
                } else {
                    self.unary()?
                };
                Formula::Quant {
                    exists,
                    var,
                    body: Box::new(body),
                    span: start..self.end_of_previous(),
                }
            }
            Some(Tok::True | Tok::False) if !self.followed_by_term_operator(1) => {
                let b = self.peek() == Some(&Tok::True);
                self.pos += 1;
                Formula::Bool(b, start..self.end_of_previous())
            }
            Some(Tok::LParen) => self.parenthesised()?,
            _ => self.comparison()?,
        };
        self.depth -= 1;
        Ok(f)
    }

    /// `( … )`: a formula, unless a comparison or an arithmetic operator follows the closing
    /// parenthesis, which makes it a term (`(m - x)/eps >= f'`).
    fn parenthesised(&mut self) -> Result<Formula, Error> {
        let at = self.pos;
        self.pos += 1;
        if let Ok(f) = self.formula() {
            if self.eat(&Tok::RParen) && !self.followed_by_term_operator(0) {
                return Ok(f);
            }
        }
        self.pos = at;
        self.comparison()
    }

    fn followed_by_term_operator(&self, ahead: usize) -> bool {
        matches!(
            self.toks.get(self.pos + ahead).map(|t| &t.0),
            Some(
                Tok::Lt
                    | Tok::Le
                    | Tok::Eq
                    | Tok::Ne
                    | Tok::Ge
                    | Tok::Gt
                    | Tok::Plus
                    | Tok::Minus
                    | Tok::Times
                    | Tok::Divide
                    | Tok::Power
            )
        )
    }

    /// `a ~ b`, or a chain `a ~ b ~ c` (`a ~ b & b ~ c`).
    fn comparison(&mut self) -> Result<Formula, Error> {
        let mut lhs = self.term()?;
        let mut out: Option<Formula> = None;
        while let Some(rel) = self.relation() {
            self.pos += 1;
            let rhs = self.term()?;
            let span = lhs.span().start..rhs.span().end;
            let cmp = Formula::Cmp {
                rel,
                lhs,
                rhs: rhs.clone(),
                span,
            };
            out = Some(match out {
                None => cmp,
                Some(f) => Formula::And(Box::new(f), Box::new(cmp)),
            });
            lhs = rhs;
        }
        out.ok_or_else(|| self.error("a comparison (`<`, `<=`, `=`, `!=`, `>=`, `>`)"))
    }

    fn relation(&self) -> Option<Rel> {
        Some(match self.peek()? {
            Tok::Lt => Rel::Lt,
            Tok::Le => Rel::Le,
            Tok::Eq => Rel::Eq,
            Tok::Ne => Rel::Ne,
            Tok::Ge => Rel::Ge,
            Tok::Gt => Rel::Gt,
            _ => return None,
        })
    }

    fn term(&mut self) -> Result<Term, Error> {
        self.deeper()?;
        let mut t = self.product()?;
        loop {
            let op = match self.peek() {
                Some(Tok::Plus) => BinOp::Add,
                Some(Tok::Minus) => BinOp::Sub,
                _ => break,
            };
            self.pos += 1;
            let u = self.product()?;
            t = Term::Bin(op, Box::new(t), Box::new(u));
        }
        self.depth -= 1;
        Ok(t)
    }

    fn product(&mut self) -> Result<Term, Error> {
        let mut t = self.signed()?;
        loop {
            let op = match self.peek() {
                Some(Tok::Times) => BinOp::Mul,
                Some(Tok::Divide) => BinOp::Div,
                _ => break,
            };
            self.pos += 1;
            let u = self.signed()?;
            t = Term::Bin(op, Box::new(t), Box::new(u));
        }
        Ok(t)
    }

    /// `-t` binds looser than `^`: `-x^2` is `-(x^2)`, as in KeYmaera X.
    fn signed(&mut self) -> Result<Term, Error> {
        let start = self.offset();
        if self.eat(&Tok::Minus) {
            self.deeper()?;
            let t = self.signed()?;
            self.depth -= 1;
            return Ok(Term::Neg(Box::new(t), start..self.end_of_previous()));
        }
        self.power()
    }

    fn power(&mut self) -> Result<Term, Error> {
        let base = self.atom()?;
        if self.eat(&Tok::Power) {
            self.deeper()?;
            let exp = self.signed()?;
            self.depth -= 1;
            return Ok(Term::Pow(Box::new(base), Box::new(exp)));
        }
        Ok(base)
    }

    fn atom(&mut self) -> Result<Term, Error> {
        let start = self.offset();
        match self.current().map(|t| t.0.clone()) {
            Some(Tok::Number(n)) => {
                self.pos += 1;
                Ok(Term::Num(n, start..self.end_of_previous()))
            }
            Some(Tok::LParen) => {
                self.pos += 1;
                let t = self.term()?;
                self.expect(&Tok::RParen, "`)`")?;
                Ok(t)
            }
            Some(Tok::Ident(name)) => {
                self.pos += 1;
                self.name_or_call(name, start)
            }
            _ => Err(self.error("a number, a name or `(`")),
        }
    }

    /// `x`, `x'`, `x⁺`, `xpost`, `m()`, `xpost()`, `abs(t)`, `min(a, b)`, `max(a, b)`.
    fn name_or_call(&mut self, name: String, start: usize) -> Result<Term, Error> {
        if self.eat(&Tok::LParen) {
            let func = match name.as_str() {
                "abs" => Some(Func::Abs),
                "min" => Some(Func::Min),
                "max" => Some(Func::Max),
                _ => None,
            };
            let mut args = Vec::new();
            if !self.eat(&Tok::RParen) {
                loop {
                    args.push(self.term()?);
                    if self.eat(&Tok::RParen) {
                        break;
                    }
                    self.expect(&Tok::Comma, "`,` or `)`")?;
                }
            }
            let span = start..self.end_of_previous();
            return match (func, args.len()) {
                (None, 0) => Ok(posterior(name, span, false)),
                (Some(Func::Abs), 1) | (Some(Func::Min | Func::Max), 2) => Ok(Term::Call {
                    func: func.expect("matched"),
                    args,
                    span,
                }),
                (Some(_), n) => Err(Error::at_offset(
                    self.name,
                    self.text,
                    start,
                    format!(
                        "`{name}` takes {} argument(s), not {n}",
                        if name == "abs" { 1 } else { 2 }
                    ),
                )),
                (None, _) => Err(Error::at_offset(
                    self.name,
                    self.text,
                    start,
                    format!(
                        "unknown function `{name}`: the functions are abs, min and max \
                         (a nullary `{name}()` is a constant or a state variable)"
                    ),
                )),
            };
        }
        let post = self.eat(&Tok::Post);
        Ok(posterior(name, start..self.end_of_previous(), post))
    }
}

/// A name, with KeYmaera X's `xpost` read as `x'`.
fn posterior(name: String, span: Span, marked: bool) -> Term {
    match name.strip_suffix("post") {
        Some(stem) if !marked && !stem.is_empty() => Term::Name {
            name: stem.to_string(),
            post: true,
            span,
        },
        _ => Term::Name {
            name,
            post: marked,
            span,
        },
    }
}
