//! Parser for stream specifications in RTLola's syntax (event-based fragment), extended with
//! Lola's offsets with defaults in both directions: `s[k, d]`, `s.offset(by: k)` with k > 0.
//!
//! Operator precedence is RTLola's (lowest first): `->`; `||`; `&&`; `|`; `^`; `&`; `==` `!=`;
//! `<` `<=` `>` `>=`; `<<` `>>`; `+` `-`; `*` `/` `%`; `**`; then method calls and `[…]`.
//! A unary operator applies to the whole postfix chain: `-a.hold()` is `-(a.hold())`.

use logos::Logos;
use rvmon_core::limits::{associate, deeper_than};
use rvmon_core::{too_deep, Depth, Error};

use crate::ast::*;
use crate::lexer::Tok;

/// Parses a whole specification; `file` names it in errors.
pub fn parse_spec(file: &str, text: &str) -> Result<Spec, Error> {
    let mut toks = Vec::new();
    for (t, span) in Tok::lexer(text).spanned() {
        match t {
            Ok(t) => toks.push((t, (span.start, span.end))),
            Err(()) => {
                let bad = text[span.start..].chars().next().unwrap_or(' ');
                return Err(Error::at_offset(
                    file,
                    text,
                    span.start,
                    format!("unexpected character `{bad}`"),
                ));
            }
        }
    }
    let mut p = Parser {
        file,
        text,
        toks,
        pos: 0,
        triggers: 0,
        depth: Depth::new(MAX_NESTING),
    };
    let spec = p.spec()?;
    check_depth(&spec).map_err(|at| Error::at_offset(file, text, at, too_deep(MAX_NESTING)))?;
    Ok(spec)
}

/// The deepest expression (or pacing) a specification may have, counting operators,
/// parentheses and method calls. The parser, the analysis, the compiled closures and both
/// engines' evaluations recurse on expressions; at this depth all of them fit in the main
/// thread's stack (see ARCHITECTURE.md, "Limits").
pub const MAX_NESTING: usize = 1000;

/// The offset of the first expression or pacing nested deeper than [`MAX_NESTING`]. The
/// parser's recursion is bounded by the same limit, but a chain it could not regroup
/// (`a - b - c - …`, see [`Parser::expr`]) is as deep as it is long.
fn check_depth(spec: &Spec) -> Result<(), usize> {
    #[derive(Clone, Copy)]
    enum Node<'a> {
        E(&'a Expr),
        P(&'a Pacing, usize),
    }
    for o in &spec.outputs {
        let exprs = std::iter::once(&o.expr).chain(match &o.message {
            Some(Message::Computed(m)) => Some(m),
            _ => None,
        });
        let roots = exprs
            .map(Node::E)
            .chain(o.pacing.as_ref().map(|p| Node::P(p, o.span.0)));
        for root in roots {
            let deep = deeper_than(root, MAX_NESTING, |n, out| match n {
                Node::E(e) => out.extend(children(e).into_iter().map(Node::E)),
                Node::P(Pacing::And(a, b) | Pacing::Or(a, b), at) => {
                    out.extend([Node::P(a, at), Node::P(b, at)])
                }
                Node::P(..) => {}
            });
            match deep {
                Some(Node::E(e)) => return Err(e.span.0),
                Some(Node::P(Pacing::Stream(_, span), _)) => return Err(span.0),
                Some(Node::P(_, at)) => return Err(at),
                None => {}
            }
        }
    }
    Ok(())
}

fn children(e: &Expr) -> Vec<&Expr> {
    match &e.kind {
        ExprKind::Lit(_)
        | ExprKind::Stream(_)
        | ExprKind::Offset { .. }
        | ExprKind::Hold(_)
        | ExprKind::Get(_)
        | ExprKind::IsFresh(_) => Vec::new(),
        ExprKind::Window(w) => w.args.iter().collect(),
        ExprKind::Instance { args, .. } => args.iter().collect(),
        ExprKind::Unary(_, a) | ExprKind::Cast(_, a) => vec![a],
        ExprKind::Default(a, b) | ExprKind::Binary(_, a, b) => vec![a, b],
        ExprKind::Ite(a, b, c) => vec![a, b, c],
        ExprKind::Call(_, args) | ExprKind::Format(_, args) => args.iter().collect(),
    }
}

struct Parser<'a> {
    file: &'a str,
    text: &'a str,
    toks: Vec<(Tok, Span)>,
    pos: usize,
    triggers: usize,
    /// How deep `unary` and the pacing recurse (see [`MAX_NESTING`]).
    depth: Depth,
}

type PResult<T> = Result<T, Error>;

impl Parser<'_> {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos).map(|t| &t.0)
    }

    fn peek_at(&self, k: usize) -> Option<&Tok> {
        self.toks.get(self.pos + k).map(|t| &t.0)
    }

    fn here(&self) -> usize {
        self.toks.get(self.pos).map_or(self.text.len(), |t| t.1 .0)
    }

    fn prev_end(&self) -> usize {
        self.pos
            .checked_sub(1)
            .and_then(|k| self.toks.get(k))
            .map_or(0, |t| t.1 .1)
    }

    fn err_at(&self, offset: usize, msg: impl Into<String>) -> Error {
        Error::at_offset(self.file, self.text, offset, msg)
    }

    fn unexpected(&self, expected: &str) -> Error {
        let found = self
            .peek()
            .map_or("the end of the specification".to_string(), Tok::describe);
        self.err_at(self.here(), format!("expected {expected}, found {found}"))
    }

    fn eat(&mut self, t: &Tok) -> bool {
        if self.peek() == Some(t) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn expect(&mut self, t: &Tok, what: &str) -> PResult<()> {
        if self.eat(t) {
            Ok(())
        } else {
            Err(self.unexpected(what))
        }
    }

    fn ident(&mut self, what: &str) -> PResult<(String, Span)> {
        match self.toks.get(self.pos) {
            Some((Tok::Ident(s), span)) => {
                let r = (s.clone(), *span);
                self.pos += 1;
                Ok(r)
            }
            _ => Err(self.unexpected(what)),
        }
    }

    fn spec(&mut self) -> PResult<Spec> {
        let mut spec = Spec::default();
        while self.eat(&Tok::Import) {
            let (lib, span) = self.ident("a library name after `import`")?;
            if !matches!(lib.as_str(), "math") {
                return Err(self.err_at(
                    span.0,
                    format!("unknown library `{lib}` (rvmon knows `math`)"),
                ));
            }
        }
        while let Some(t) = self.peek() {
            match t {
                Tok::Input => self.input(&mut spec)?,
                Tok::Output => {
                    let o = self.output()?;
                    spec.outputs.push(o);
                }
                Tok::Trigger => {
                    let o = self.trigger()?;
                    spec.outputs.push(o);
                }
                Tok::Import => {
                    return Err(
                        self.err_at(self.here(), "`import` must come before the declarations")
                    )
                }
                Tok::Ident(w) if w == "constant" || w == "type" || w == "include" => {
                    return Err(
                        self.err_at(self.here(), format!("`{w}` declarations are not supported"))
                    )
                }
                _ => return Err(self.unexpected("`input`, `output` or `trigger`")),
            }
        }
        Ok(spec)
    }

    fn input(&mut self, spec: &mut Spec) -> PResult<()> {
        self.pos += 1;
        loop {
            let (name, span) = self.ident("an input stream name")?;
            self.expect(&Tok::Colon, "`:` and the input's type")?;
            let ty = self.ty()?;
            spec.inputs.push(InputDecl { name, ty, span });
            if !self.eat(&Tok::Comma) {
                return Ok(());
            }
        }
    }

    fn ty(&mut self) -> PResult<Type> {
        if self.peek() == Some(&Tok::LParen) {
            return Err(self.err_at(self.here(), "tuple types are not supported"));
        }
        let (name, span) = self.ident("a type (Bool, Int64, UInt64, Float64, String)")?;
        let ty = match name.as_str() {
            "Bool" => Type::Bool,
            "Int" | "Int8" | "Int16" | "Int32" | "Int64" => Type::Int,
            "UInt" | "UInt8" | "UInt16" | "UInt32" | "UInt64" => Type::UInt,
            "Float" | "Float32" | "Float64" => Type::Float,
            "String" => Type::Str,
            _ => {
                return Err(self.err_at(
                    span.0,
                    format!("unknown or unsupported type `{name}` (rvmon has Bool, Int8–Int64, UInt8–UInt64, Float32/Float64, String)"),
                ))
            }
        };
        if self.peek() == Some(&Tok::Question) {
            return Err(self.err_at(
                self.here(),
                "optional types in declarations are not supported",
            ));
        }
        Ok(ty)
    }

    fn output(&mut self) -> PResult<OutputDecl> {
        let start = self.here();
        self.pos += 1;
        let (name, _) = self.ident("an output stream name")?;
        let params = if self.peek() == Some(&Tok::LParen) {
            self.params()?
        } else {
            Vec::new()
        };
        let ty = if self.eat(&Tok::Colon) {
            Some(self.ty()?)
        } else {
            None
        };
        if !matches!(self.peek(), Some(Tok::Spawn | Tok::Close | Tok::Eval)) {
            if !params.is_empty() {
                return Err(self.unexpected("`spawn with …` (a parameterized stream's instances are made by its spawn clause)"));
            }
            let pacing = self.pacing()?;
            self.expect(&Tok::Define, "`:=` and the stream's expression")?;
            let expr = self.expr(0)?;
            return Ok(OutputDecl {
                name,
                ty,
                pacing,
                expr,
                message: None,
                span: (start, self.prev_end()),
                dynamic: None,
            });
        }
        let clauses_at = self.here();
        let mut d = Dynamic {
            params,
            ..Dynamic::default()
        };
        let (mut pacing, mut expr, mut seen) = (None, None, [false; 3]);
        loop {
            let at = self.here();
            let which = match self.peek() {
                Some(Tok::Spawn) => 0,
                Some(Tok::Eval) => 1,
                Some(Tok::Close) => 2,
                _ => break,
            };
            if seen[which] {
                let what = ["spawn", "eval", "close"][which];
                return Err(self.err_at(
                    at,
                    format!("a second `{what}` clause (rvmon takes one of each)"),
                ));
            }
            seen[which] = true;
            self.pos += 1;
            let clause_pacing = self.pacing()?;
            let (mut when, mut with) = (None, None);
            loop {
                if self.eat(&Tok::When) {
                    when = Some(self.expr(0)?);
                } else if self.eat(&Tok::With) {
                    with = Some(if which == 0 {
                        self.tuple_or_expr()?
                    } else {
                        vec![self.expr(0)?]
                    });
                } else {
                    break;
                }
            }
            match which {
                0 => {
                    d.spawn_pacing = clause_pacing;
                    d.spawn_with = with.unwrap_or_default();
                    d.spawn_when = when;
                }
                1 => {
                    pacing = clause_pacing;
                    d.eval_when = when;
                    expr = with.and_then(|mut w| w.pop());
                }
                _ => {
                    if with.is_some() {
                        return Err(self.err_at(at, "`close` takes `when`, not `with`"));
                    }
                    d.close_pacing = clause_pacing;
                    d.close_when = when;
                }
            }
        }
        let Some(expr) = expr else {
            return Err(self.err_at(
                clauses_at,
                format!("`{name}` needs `eval with …`: the expression of its values"),
            ));
        };
        d.span = (clauses_at, self.prev_end());
        Ok(OutputDecl {
            name,
            ty,
            pacing,
            expr,
            message: None,
            span: (start, self.prev_end()),
            dynamic: Some(Box::new(d)),
        })
    }

    /// `(p: T, q)`: a parameter list.
    fn params(&mut self) -> PResult<Vec<(String, Option<Type>, Span)>> {
        self.pos += 1;
        let mut params = Vec::new();
        if self.eat(&Tok::RParen) {
            return Ok(params);
        }
        loop {
            let (p, span) = self.ident("a parameter name")?;
            let ty = if self.eat(&Tok::Colon) {
                Some(self.ty()?)
            } else {
                None
            };
            params.push((p, ty, span));
            if self.eat(&Tok::RParen) {
                return Ok(params);
            }
            self.expect(&Tok::Comma, "`,` or `)` in the parameters")?;
        }
    }

    /// `(e1, e2, …)` or one expression.
    fn tuple_or_expr(&mut self) -> PResult<Vec<Expr>> {
        if self.peek() == Some(&Tok::LParen) {
            let save = self.pos;
            self.pos += 1;
            let first = self.expr(0)?;
            if self.eat(&Tok::Comma) {
                let mut all = vec![first];
                loop {
                    all.push(self.expr(0)?);
                    if self.eat(&Tok::RParen) {
                        return Ok(all);
                    }
                    self.expect(&Tok::Comma, "`,` or `)` in the tuple")?;
                }
            }
            self.pos = save;
        }
        Ok(vec![self.expr(0)?])
    }

    fn trigger(&mut self) -> PResult<OutputDecl> {
        let start = self.here();
        self.pos += 1;
        let name = format!("trigger_{}", self.triggers);
        self.triggers += 1;
        if self.eat(&Tok::Eval) {
            // The long form: `trigger eval [@ac] when COND with MESSAGE`.
            let pacing = self.pacing()?;
            let (mut cond, mut msg) = (None, None);
            loop {
                if self.eat(&Tok::When) {
                    cond = Some(self.expr(0)?);
                } else if self.eat(&Tok::With) {
                    msg = Some(self.expr(0)?);
                } else {
                    break;
                }
            }
            let cond = cond.unwrap_or(Expr {
                kind: ExprKind::Lit(Lit::Bool(true)),
                span: (start, start),
            });
            let message = match msg {
                None => Message::Text(String::new()),
                Some(Expr {
                    kind: ExprKind::Lit(Lit::Str(s)),
                    ..
                }) => Message::Text(s),
                Some(e) => Message::Computed(e),
            };
            return Ok(OutputDecl {
                name,
                ty: Some(Type::Bool),
                pacing,
                expr: cond,
                message: Some(message),
                span: (start, self.prev_end()),
                dynamic: None,
            });
        }
        let pacing = self.pacing()?;
        let expr = self.expr(0)?;
        let message = match self.toks.get(self.pos) {
            Some((Tok::Str(s), _)) => {
                let s = s.clone();
                self.pos += 1;
                s
            }
            _ => String::new(),
        };
        Ok(OutputDecl {
            name,
            ty: Some(Type::Bool),
            pacing,
            expr,
            message: Some(Message::Text(message)),
            span: (start, self.prev_end()),
            dynamic: None,
        })
    }

    fn pacing(&mut self) -> PResult<Option<Pacing>> {
        if !self.eat(&Tok::At) {
            return Ok(None);
        }
        // `@(…)` around the whole pacing, and `@Global(…)`/`@Local(…)`.
        let clock = match (self.peek(), self.peek_at(1)) {
            (Some(Tok::Ident(w)), Some(Tok::LParen)) if w == "Global" || w == "Local" => {
                let c = if w == "Global" {
                    Clock::Global
                } else {
                    Clock::Local
                };
                self.pos += 2;
                Some(c)
            }
            _ => None,
        };
        let p = self.pacing_inner(clock.unwrap_or(Clock::Default))?;
        if clock.is_some() {
            self.expect(&Tok::RParen, "`)` closing the pacing")?;
        }
        Ok(Some(p))
    }

    fn pacing_inner(&mut self, clock: Clock) -> PResult<Pacing> {
        if let Some((Tok::Number(n), span)) = self.toks.get(self.pos).cloned() {
            self.pos += 1;
            let period = match quantity(&n) {
                Some((q, Unit::Time)) => q,
                Some((q, Unit::Frequency)) => q.recip(),
                Some((_, Unit::None)) | None => {
                    return Err(self.err_at(
                        span.0,
                        format!("expected a frequency (`10Hz`) or a period (`0.5s`), found `{n}`"),
                    ))
                }
            };
            if !period.is_positive() {
                return Err(self.err_at(span.0, format!("`{n}`: a period must be positive")));
            }
            return Ok(Pacing::Periodic(period, span, clock));
        }
        if clock != Clock::Default {
            return Err(self.unexpected("a frequency (`Global(1Hz)`, `Local(1Hz)`)"));
        }
        self.pacing_or()
    }

    /// `f` one level of nesting deeper: an error at the cursor past [`MAX_NESTING`].
    fn nested<T>(&mut self, f: impl FnOnce(&mut Self) -> PResult<T>) -> PResult<T> {
        if let Err(m) = self.depth.enter() {
            return Err(self.err_at(self.here(), m));
        }
        let r = f(self);
        self.depth.leave();
        r
    }

    /// A pacing's `||` and `&&` chains are built by loops, and shallow when long
    /// ([`associate`]: a pacing is a positive Boolean combination, so any grouping is the same).
    fn pacing_or(&mut self) -> PResult<Pacing> {
        self.nested(|p| {
            let first = p.pacing_and()?;
            let mut rest = Vec::new();
            while matches!(p.peek(), Some(Tok::Or | Tok::Bar)) {
                p.pos += 1;
                rest.push(((), p.pacing_and()?));
            }
            Ok(associate(
                first,
                rest,
                |_, _| true,
                |(), l, r| Pacing::Or(Box::new(l), Box::new(r)),
            ))
        })
    }

    fn pacing_and(&mut self) -> PResult<Pacing> {
        let first = self.pacing_atom()?;
        let mut rest = Vec::new();
        while matches!(self.peek(), Some(Tok::And | Tok::Amp)) {
            self.pos += 1;
            rest.push(((), self.pacing_atom()?));
        }
        Ok(associate(
            first,
            rest,
            |_, _| true,
            |(), l, r| Pacing::And(Box::new(l), Box::new(r)),
        ))
    }

    fn pacing_atom(&mut self) -> PResult<Pacing> {
        if self.eat(&Tok::True) {
            return Ok(Pacing::True);
        }
        if self.eat(&Tok::LParen) {
            let p = self.pacing_or()?;
            self.expect(&Tok::RParen, "`)` closing the pacing")?;
            return Ok(p);
        }
        let (name, span) = self.ident("a stream name, `true` or `(` in the pacing")?;
        Ok(Pacing::Stream(name, span))
    }

    /// Binding power of a binary operator: (left, right); right-associative ones have right < left.
    fn infix(t: &Tok) -> Option<(u8, u8, Option<BinOp>)> {
        Some(match t {
            Tok::Implies => (2, 1, Some(BinOp::Implies)),
            Tok::Or => (3, 4, Some(BinOp::Or)),
            Tok::And => (5, 6, Some(BinOp::And)),
            Tok::Bar => (7, 8, Some(BinOp::BitOr)),
            Tok::Caret => (9, 10, Some(BinOp::BitXor)),
            Tok::Amp => (11, 12, Some(BinOp::BitAnd)),
            Tok::Eq => (13, 14, Some(BinOp::Eq)),
            Tok::Ne => (13, 14, Some(BinOp::Ne)),
            Tok::Lt => (15, 16, Some(BinOp::Lt)),
            Tok::Le => (15, 16, Some(BinOp::Le)),
            Tok::Gt => (15, 16, Some(BinOp::Gt)),
            Tok::Ge => (15, 16, Some(BinOp::Ge)),
            Tok::Shl => (17, 18, Some(BinOp::Shl)),
            Tok::Shr => (17, 18, Some(BinOp::Shr)),
            Tok::Plus => (19, 20, Some(BinOp::Add)),
            Tok::Minus => (19, 20, Some(BinOp::Sub)),
            Tok::Star => (21, 22, Some(BinOp::Mul)),
            Tok::Slash => (21, 22, Some(BinOp::Div)),
            Tok::Percent => (21, 22, Some(BinOp::Rem)),
            Tok::Pow => (24, 23, Some(BinOp::Pow)),
            _ => return None,
        })
    }

    /// An expression whose operators bind at least `min_bp`. The operands of a
    /// left-associative operator level (`a + b - c + …`) are read by a loop, and the chain is
    /// built by [`associate`]: as written when short; when long, regrouped where that keeps its
    /// value. `&&` and `||` regroup anywhere; `+` and `-` only before a `+` (`(a - b) + (c - d)`
    /// = `a - b + c - d`: the same for integers, which wrap; floats may round differently in
    /// their last bits), and `*` only in a chain of `*` alone (integer `/` and `%` do not
    /// regroup). Comparisons and chains of `-` alone are left as they are, and the depth limit
    /// applies to them.
    fn expr(&mut self, min_bp: u8) -> PResult<Expr> {
        let mut lhs = self.unary()?;
        while let Some((lbp, rbp, op)) = self.peek().and_then(Self::infix) {
            if lbp < min_bp {
                break;
            }
            let Some(op) = op else {
                return Err(self.err_at(
                    self.here(),
                    format!(
                        "bitwise operator {} is not supported",
                        self.peek().map_or(String::new(), Tok::describe)
                    ),
                ));
            };
            self.pos += 1;
            if rbp < lbp {
                // Right-associative (`->`, `**`): the recursion on the right is the nesting.
                let rhs = self.nested(|p| p.expr(rbp))?;
                lhs = binary(op, lhs, rhs);
                continue;
            }
            let rhs = self.expr(rbp)?;
            let mut rest = vec![(op, rhs)];
            while let Some((l, r, Some(op))) = self.peek().and_then(Self::infix) {
                if l != lbp {
                    break;
                }
                self.pos += 1;
                rest.push((op, self.expr(r)?));
            }
            let only_mul = rest.iter().all(|(o, _)| *o == BinOp::Mul);
            let may_start_run = |o: BinOp, _: &Expr| match o {
                BinOp::And | BinOp::Or | BinOp::Add => true,
                BinOp::Mul => only_mul,
                _ => false,
            };
            lhs = associate(lhs, rest, may_start_run, binary);
        }
        Ok(lhs)
    }

    /// An operand; every recursion of an expression goes through here, one level of nesting.
    fn unary(&mut self) -> PResult<Expr> {
        self.nested(Self::unary_at)
    }

    fn unary_at(&mut self) -> PResult<Expr> {
        let start = self.here();
        let op = match self.peek() {
            Some(Tok::Minus) => Some(UnOp::Neg),
            Some(Tok::Not) => Some(UnOp::Not),
            Some(Tok::Plus) => {
                self.pos += 1;
                return self.unary();
            }
            Some(Tok::Tilde) => Some(UnOp::BitNot),
            _ => None,
        };
        match op {
            Some(op) => {
                self.pos += 1;
                let e = self.unary()?;
                let span = (start, e.span.1);
                // A negated number literal is a literal (offsets take literals).
                let kind = match (op, e.kind) {
                    (UnOp::Neg, ExprKind::Lit(Lit::Int(n))) => {
                        ExprKind::Lit(Lit::Int(n.wrapping_neg()))
                    }
                    (UnOp::Neg, ExprKind::Lit(Lit::Float(x))) => ExprKind::Lit(Lit::Float(-x)),
                    (op, kind) => ExprKind::Unary(op, Box::new(Expr { kind, span: e.span })),
                };
                Ok(Expr { kind, span })
            }
            None => self.postfix(),
        }
    }

    fn postfix(&mut self) -> PResult<Expr> {
        let mut e = self.term()?;
        loop {
            if self.eat(&Tok::Dot) {
                e = self.method(e)?;
            } else if self.peek() == Some(&Tok::LBracket) {
                let at = self.here();
                self.pos += 1;
                let stream = self.stream_of(&e, at, "an offset `[k]`")?;
                let by = self.int_literal("an integer offset")?;
                let default = if self.eat(&Tok::Comma) {
                    Some(self.expr(0)?)
                } else {
                    None
                };
                self.expect(&Tok::RBracket, "`]` closing the offset")?;
                let span = (e.span.0, self.prev_end());
                e = offset_expr(stream, by, span);
                if let Some(d) = default {
                    e = Expr {
                        kind: ExprKind::Default(Box::new(e), Box::new(d)),
                        span,
                    };
                }
            } else {
                return Ok(e);
            }
        }
    }

    /// The stream named by `e`, for accesses that apply to a stream only.
    fn stream_of(&self, e: &Expr, at: usize, what: &str) -> PResult<String> {
        match &e.kind {
            ExprKind::Stream(s) => Ok(s.clone()),
            _ => Err(self.err_at(at, format!("{what} applies to a stream name, not to an expression; define an output stream for the expression"))),
        }
    }

    fn int_literal(&mut self, what: &str) -> PResult<i64> {
        let neg = self.eat(&Tok::Minus);
        if !neg {
            self.eat(&Tok::Plus);
        }
        match self.toks.get(self.pos) {
            Some((Tok::Number(n), span)) => match n.parse::<i64>() {
                Ok(k) => {
                    self.pos += 1;
                    Ok(if neg { -k } else { k })
                }
                Err(_) => Err(self.err_at(span.0, format!("expected {what}, found `{n}`"))),
            },
            _ => Err(self.unexpected(what)),
        }
    }

    /// `label: expr` inside a method call.
    fn labelled(&mut self, label: &str) -> PResult<Expr> {
        let (name, span) = self.ident(&format!("`{label}:`"))?;
        if name != label {
            return Err(self.err_at(span.0, format!("expected `{label}:`, found `{name}`")));
        }
        self.expect(&Tok::Colon, &format!("`:` after `{label}`"))?;
        self.expr(0)
    }

    fn method(&mut self, recv: Expr) -> PResult<Expr> {
        let (name, span) = self.ident("a method name after `.`")?;
        self.expect(&Tok::LParen, "`(` after the method name")?;
        let start = recv.span.0;
        // `s(e, …).hold()` and the like: an access to an instance.
        if let ExprKind::Call(stream, args) = &recv.kind {
            if name == "aggregate" {
                let mut w = self.window(stream.clone())?;
                w.args = args.clone();
                return Ok(Expr {
                    kind: ExprKind::Window(Box::new(w)),
                    span: (start, self.prev_end()),
                });
            }
            let access = match name.as_str() {
                "offset" => {
                    let (l, lspan) = self.ident("`by:`")?;
                    if l != "by" {
                        return Err(self.err_at(lspan.0, format!("expected `by:`, found `{l}`")));
                    }
                    self.expect(&Tok::Colon, "`:` after `by`")?;
                    InstanceAccess::Offset(self.int_literal("an integer offset")?)
                }
                "hold" => InstanceAccess::Hold,
                "get" => InstanceAccess::Get,
                "is_fresh" => InstanceAccess::Fresh,
                "defaults" | "format" => InstanceAccess::Sync,
                _ => {
                    return Err(self.err_at(span.0, format!("`.{name}` of a stream instance is not supported (rvmon knows offset, hold, get, is_fresh, defaults)")))
                }
            };
            if !matches!(name.as_str(), "defaults" | "format") {
                let access_expr = Expr {
                    kind: ExprKind::Instance {
                        stream: stream.clone(),
                        args: args.clone(),
                        access,
                    },
                    span: (start, self.prev_end()),
                };
                let kind = if self.eat(&Tok::RParen) {
                    access_expr.kind
                } else if matches!(access, InstanceAccess::Hold | InstanceAccess::Get) {
                    let d = self.labelled("or")?;
                    self.expect(&Tok::RParen, &format!("`)` closing `.{name}(or: …)`"))?;
                    ExprKind::Default(Box::new(access_expr), Box::new(d))
                } else {
                    return Err(self.unexpected(&format!("`)` closing `.{name}(…)`")));
                };
                return Ok(Expr {
                    kind,
                    span: (start, self.prev_end()),
                });
            }
        }
        let kind = match name.as_str() {
            "offset" => {
                let stream = self.stream_of(&recv, span.0, "`.offset`")?;
                let (l, lspan) = self.ident("`by:`")?;
                if l != "by" {
                    return Err(self.err_at(lspan.0, format!("expected `by:`, found `{l}`")));
                }
                self.expect(&Tok::Colon, "`:` after `by`")?;
                let by = self.int_literal("an integer offset")?;
                self.expect(&Tok::RParen, "`)` closing `.offset(by: …)`")?;
                offset_expr(stream, by, (start, self.prev_end())).kind
            }
            "defaults" => {
                let d = self.labelled("to")?;
                self.expect(&Tok::RParen, "`)` closing `.defaults(to: …)`")?;
                ExprKind::Default(Box::new(recv), Box::new(d))
            }
            "hold" | "get" => {
                let stream = self.stream_of(&recv, span.0, &format!("`.{name}`"))?;
                let access = Expr {
                    kind: if name == "hold" {
                        ExprKind::Hold(stream)
                    } else {
                        ExprKind::Get(stream)
                    },
                    span: (start, self.prev_end()),
                };
                if self.eat(&Tok::RParen) {
                    access.kind
                } else {
                    let d = self.labelled("or")?;
                    self.expect(&Tok::RParen, &format!("`)` closing `.{name}(or: …)`"))?;
                    ExprKind::Default(Box::new(access), Box::new(d))
                }
            }
            "is_fresh" => {
                let stream = self.stream_of(&recv, span.0, "`.is_fresh`")?;
                self.expect(&Tok::RParen, "`)` after `.is_fresh(`")?;
                ExprKind::IsFresh(stream)
            }
            "format" => {
                let ExprKind::Lit(Lit::Str(template)) = recv.kind else {
                    return Err(self.err_at(span.0, "`.format` applies to a string literal"));
                };
                let args = self.args_after_paren()?;
                ExprKind::Format(template, args)
            }
            "aggregate" => {
                let stream = self.stream_of(&recv, span.0, "`.aggregate`")?;
                ExprKind::Window(Box::new(self.window(stream)?))
            }
            _ => {
                return Err(self.err_at(
                    span.0,
                    format!("unknown method `.{name}` (rvmon knows offset, defaults, hold, get, is_fresh, format)"),
                ))
            }
        };
        Ok(Expr {
            kind,
            span: (start, self.prev_end()),
        })
    }

    /// `over…: size, using: op)` of `.aggregate(`, in either order.
    fn window(&mut self, stream: String) -> PResult<Window> {
        let (mut size, mut op, mut exact) = (None, None, false);
        loop {
            let (label, lspan) =
                self.ident("`over:`, `over_discrete:`, `over_exactly:` or `using:`")?;
            self.expect(&Tok::Colon, &format!("`:` after `{label}`"))?;
            let at = self.here();
            match label.as_str() {
                "over" | "over_exactly" | "over_discrete" | "over_exactly_discrete" => {
                    let Some((Tok::Number(n), _)) = self.toks.get(self.pos).cloned() else {
                        return Err(self.unexpected("a duration (`5s`) or a count"));
                    };
                    self.pos += 1;
                    let q = quantity(&n);
                    size = Some(match (label.as_str(), q) {
                        ("over_discrete" | "over_exactly_discrete", Some((q, Unit::None))) if q.den == 1 && q.num > 0 => {
                            WindowSize::Discrete(q.num as u64)
                        }
                        ("over_discrete" | "over_exactly_discrete", _) => {
                            return Err(self.err_at(at, format!("`over_discrete:` takes a positive number of values, found `{n}`")))
                        }
                        (_, Some((q, Unit::Time))) if q.is_positive() => WindowSize::Time(q),
                        _ => {
                            return Err(self.err_at(at, format!("`{label}:` takes a positive duration (`5s`, `100ms`), found `{n}`")))
                        }
                    });
                    exact = label.starts_with("over_exactly");
                }
                "using" => {
                    let name = match self.toks.get(self.pos).cloned() {
                        Some((Tok::Ident(n), _)) => n,
                        Some((Tok::Hash, _)) => "#".to_string(),
                        Some((Tok::And, _)) => "forall".to_string(),
                        Some((Tok::Or, _)) => "exists".to_string(),
                        _ => return Err(self.unexpected("an aggregation (sum, count, min, max, avg, integral, last, forall, exists)")),
                    };
                    self.pos += 1;
                    op = Some(Aggregation::named(&name).ok_or_else(|| {
                        let known = matches!(name.as_str(), "var" | "variance" | "σ²" | "cov" | "covariance" | "sd" | "standard_deviation" | "σ" | "median" | "med" | "µ" | "ratio" | "true_ratio" | "trueRatio")
                            || name.starts_with("pctl");
                        if known {
                            self.err_at(at, format!("the aggregation `{name}` is not supported (rvmon has sum, count, min, max, avg, integral, last, forall, exists)"))
                        } else {
                            self.err_at(at, format!("unknown aggregation `{name}` (RTLola has sum/Σ, count, min, max, avg/average, integral/∫, last, forall/∀, exists/∃)"))
                        }
                    })?);
                }
                "over_instances" => {
                    return Err(self.err_at(lspan.0, "`over_instances` aggregations need parameterized streams, which are not supported yet"))
                }
                _ => {
                    return Err(self.err_at(lspan.0, format!("expected `over:`, `over_discrete:`, `over_exactly:` or `using:`, found `{label}`")))
                }
            }
            if self.eat(&Tok::RParen) {
                break;
            }
            self.expect(&Tok::Comma, "`,` or `)` in `.aggregate(…)`")?;
        }
        match (size, op) {
            (Some(size), Some(op)) => Ok(Window {
                stream,
                args: Vec::new(),
                size,
                op,
                exact,
            }),
            (None, _) => Err(self.err_at(
                self.prev_end(),
                "`.aggregate` needs `over:` (a duration) or `over_discrete:` (a count)",
            )),
            (_, None) => Err(self.err_at(
                self.prev_end(),
                "`.aggregate` needs `using:` (an aggregation)",
            )),
        }
    }

    /// Arguments up to and including `)`, the `(` already read.
    fn args_after_paren(&mut self) -> PResult<Vec<Expr>> {
        let mut args = Vec::new();
        if self.eat(&Tok::RParen) {
            return Ok(args);
        }
        loop {
            args.push(self.expr(0)?);
            if self.eat(&Tok::RParen) {
                return Ok(args);
            }
            self.expect(&Tok::Comma, "`,` or `)` in the arguments")?;
        }
    }

    /// Whether the tokens from here read `< Type {, Type} > (`: a call with type arguments
    /// (`min<Int64>(x, y)`) rather than a comparison.
    fn generic_call_ahead(&self) -> bool {
        let mut k = 0;
        if self.peek_at(k) != Some(&Tok::Lt) {
            return false;
        }
        k += 1;
        loop {
            if !matches!(self.peek_at(k), Some(Tok::Ident(_))) {
                return false;
            }
            k += 1;
            match self.peek_at(k) {
                Some(Tok::Comma) => k += 1,
                Some(Tok::Gt) => return self.peek_at(k + 1) == Some(&Tok::LParen),
                _ => return false,
            }
        }
    }

    fn term(&mut self) -> PResult<Expr> {
        let start = self.here();
        let Some((t, span)) = self.toks.get(self.pos).cloned() else {
            return Err(self.unexpected("an expression"));
        };
        self.pos += 1;
        let kind = match t {
            Tok::True => ExprKind::Lit(Lit::Bool(true)),
            Tok::False => ExprKind::Lit(Lit::Bool(false)),
            Tok::Str(s) => ExprKind::Lit(Lit::Str(s)),
            Tok::Number(n) => ExprKind::Lit(number(&n).ok_or_else(|| {
                if n.chars().any(|c| c.is_alphabetic() && c != 'e' && c != 'E') {
                    self.err_at(span.0, format!("`{n}`: durations and frequencies are only meaningful for periodic streams and windows, which are not supported yet"))
                } else {
                    self.err_at(span.0, format!("`{n}` is not a number rvmon can represent"))
                }
            })?),
            Tok::LParen => {
                let e = self.expr(0)?;
                if self.peek() == Some(&Tok::Comma) {
                    return Err(self.err_at(self.here(), "tuples are not supported"));
                }
                self.expect(&Tok::RParen, "`)`")?;
                return Ok(Expr {
                    kind: e.kind,
                    span: (start, self.prev_end()),
                });
            }
            Tok::If => {
                let c = self.expr(0)?;
                self.expect(&Tok::Then, "`then`")?;
                let a = self.expr(0)?;
                self.expect(&Tok::Else, "`else`")?;
                let b = self.expr(0)?;
                ExprKind::Ite(Box::new(c), Box::new(a), Box::new(b))
            }
            Tok::Ident(name) => {
                let mut types = Vec::new();
                if self.generic_call_ahead() {
                    self.pos += 1;
                    loop {
                        types.push(self.ty()?);
                        if !self.eat(&Tok::Comma) {
                            break;
                        }
                    }
                    self.expect(&Tok::Gt, "`>`")?;
                }
                if self.eat(&Tok::LParen) {
                    let args = self.args_after_paren()?;
                    if name == "cast" {
                        let (Some(&to), [arg]) = (types.last(), &args[..]) else {
                            return Err(self.err_at(span.0, "`cast<From, To>(x)` takes two types and one argument"));
                        };
                        ExprKind::Cast(to, Box::new(arg.clone()))
                    } else {
                        ExprKind::Call(name, args)
                    }
                } else if !types.is_empty() {
                    return Err(self.unexpected("`(`"));
                } else {
                    ExprKind::Stream(name)
                }
            }
            other => {
                self.pos -= 1;
                return Err(self.unexpected(&format!("an expression (not {})", other.describe())));
            }
        };
        Ok(Expr {
            kind,
            span: (start, self.prev_end()),
        })
    }
}

/// `lhs op rhs`, spanning both.
fn binary(op: BinOp, lhs: Expr, rhs: Expr) -> Expr {
    let span = (lhs.span.0, rhs.span.1);
    Expr {
        kind: ExprKind::Binary(op, Box::new(lhs), Box::new(rhs)),
        span,
    }
}

fn offset_expr(stream: String, by: i64, span: Span) -> Expr {
    Expr {
        kind: if by == 0 {
            ExprKind::Stream(stream)
        } else {
            ExprKind::Offset { stream, by }
        },
        span,
    }
}

/// What a number's unit measures.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Unit {
    None,
    /// Seconds.
    Time,
    /// Hertz.
    Frequency,
}

/// A number literal with its unit (`2.5Hz`, `100ms`, `1e-3s`, `4`), exactly as RTLola reads
/// it: the decimal as a fraction, times the unit's factor. `None`: not a number, an unknown
/// unit or out of range.
fn quantity(n: &str) -> Option<(Ratio, Unit)> {
    let split = n
        .char_indices()
        .find(|&(i, c)| {
            c.is_alphabetic()
                && !((c == 'e' || c == 'E')
                    && n[i + 1..]
                        .chars()
                        .next()
                        .is_some_and(|d| d.is_ascii_digit() || d == '-' || d == '+'))
        })
        .map_or(n.len(), |(i, _)| i);
    let (digits, unit) = n.split_at(split);
    let (mantissa, exp) = match digits.find(['e', 'E']) {
        Some(i) => (&digits[..i], digits[i + 1..].parse::<i32>().ok()?),
        None => (digits, 0),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let mut value = Ratio::new(format!("{int}{frac}").parse().ok()?, 1);
    let ten = |k: i32| -> Option<Ratio> {
        let p = 10i64.checked_pow(k.unsigned_abs())?;
        Some(if k >= 0 {
            Ratio::new(p, 1)
        } else {
            Ratio::new(1, p)
        })
    };
    value = value.times(ten(exp.checked_sub(i32::try_from(frac.len()).ok()?)?)?)?;
    let (factor, kind) = match unit {
        "" => (Ratio::new(1, 1), Unit::None),
        "ns" => (Ratio::new(1, 1_000_000_000), Unit::Time),
        "μs" | "us" => (Ratio::new(1, 1_000_000), Unit::Time),
        "ms" => (Ratio::new(1, 1_000), Unit::Time),
        "s" => (Ratio::new(1, 1), Unit::Time),
        "min" => (Ratio::new(60, 1), Unit::Time),
        "h" => (Ratio::new(3_600, 1), Unit::Time),
        "d" => (Ratio::new(86_400, 1), Unit::Time),
        "w" => (Ratio::new(7 * 86_400, 1), Unit::Time),
        "a" => (Ratio::new(365 * 86_400, 1), Unit::Time),
        "μHz" | "uHz" => (Ratio::new(1, 1_000_000), Unit::Frequency),
        "mHz" => (Ratio::new(1, 1_000), Unit::Frequency),
        "Hz" => (Ratio::new(1, 1), Unit::Frequency),
        "kHz" => (Ratio::new(1_000, 1), Unit::Frequency),
        "MHz" => (Ratio::new(1_000_000, 1), Unit::Frequency),
        "GHz" => (Ratio::new(1_000_000_000, 1), Unit::Frequency),
        _ => return None,
    };
    Some((value.times(factor)?, kind))
}

fn number(n: &str) -> Option<Lit> {
    if n.bytes().all(|b| b.is_ascii_digit()) {
        return n.parse().ok().map(Lit::Int);
    }
    if n.chars().any(|c| c.is_alphabetic() && c != 'e' && c != 'E') {
        return None;
    }
    n.parse().ok().map(Lit::Float)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(s: &str) -> Spec {
        parse_spec("t.lola", s).unwrap()
    }

    #[test]
    fn precedence_and_unary_over_methods() {
        let s = parse("input a: Int64\noutput x := -a.hold().defaults(to: 5) * 2 + 1 < 3 && true");
        let e = &s.outputs[0].expr;
        let ExprKind::Binary(BinOp::And, l, _) = &e.kind else {
            panic!("{e:?}")
        };
        let ExprKind::Binary(BinOp::Lt, l, _) = &l.kind else {
            panic!()
        };
        let ExprKind::Binary(BinOp::Add, l, _) = &l.kind else {
            panic!()
        };
        let ExprKind::Binary(BinOp::Mul, l, _) = &l.kind else {
            panic!()
        };
        let ExprKind::Unary(UnOp::Neg, inner) = &l.kind else {
            panic!()
        };
        assert!(matches!(inner.kind, ExprKind::Default(_, _)));
    }

    #[test]
    fn offsets_in_both_spellings() {
        let s = parse(
            "input a: Int64\noutput x := a.offset(by:-256).defaults(to:0) + a[-1, 3] + a[2, 0]",
        );
        let text = format!("{:?}", s.outputs[0].expr);
        assert!(text.contains("by: -256"));
        assert!(text.contains("by: -1"));
        assert!(text.contains("by: 2"));
    }

    #[test]
    fn triggers_short_and_long_forms() {
        let s = parse(
            "input a: Int64\ntrigger a > 2 \"big\"\ntrigger eval when a > 2 with \"a is {{}}\".format(a)\ntrigger a = 1",
        );
        assert_eq!(s.outputs.len(), 3);
        assert_eq!(s.outputs[0].message, Some(Message::Text("big".into())));
        assert!(matches!(s.outputs[1].message, Some(Message::Computed(_))));
        assert_eq!(s.outputs[2].message, Some(Message::Text(String::new())));
        assert_eq!(s.outputs[2].name, "trigger_2");
    }

    #[test]
    fn generic_calls_and_comparisons() {
        let s =
            parse("import math\ninput x: Int64\noutput m := min<Int64>(x, -x)\noutput c := x < x");
        assert!(
            matches!(&s.outputs[0].expr.kind, ExprKind::Call(n, a) if n == "min" && a.len() == 2)
        );
        assert!(matches!(
            &s.outputs[1].expr.kind,
            ExprKind::Binary(BinOp::Lt, _, _)
        ));
    }

    #[test]
    fn errors_name_line_and_column() {
        let e = parse_spec("t.lola", "input a: Int64\noutput b @5 := a").unwrap_err();
        assert_eq!(e.pos.as_ref().map(|p| (p.line, p.col)), Some((2, 11)));
        assert!(e.message.contains("expected a frequency"), "{}", e.message);
        let e = parse_spec("t.lola", "input a: Int64\noutput b := a +").unwrap_err();
        assert!(
            e.message.contains("expected an expression"),
            "{}",
            e.message
        );
        let e = parse_spec("t.lola", "input a: Int64\noutput b := (a + 1)[-1]").unwrap_err();
        assert!(
            e.message.contains("applies to a stream name"),
            "{}",
            e.message
        );
        for (window, says) in [
            ("over: 1s, using: mean", "unknown aggregation `mean`"),
            ("over: 1s, using: median", "`median` is not supported"),
            (
                "over_discrete: 1.5, using: sum",
                "positive number of values",
            ),
        ] {
            let text = format!("input a: Int64\noutput b @1Hz := a.aggregate({window})");
            let e = parse_spec("t.lola", &text).unwrap_err();
            assert!(e.message.contains(says), "{}", e.message);
        }
    }

    #[test]
    fn periods_and_durations_are_exact_fractions() {
        let cases = [
            ("10Hz", Unit::Frequency, (10, 1)),
            ("2.5Hz", Unit::Frequency, (5, 2)),
            ("0.1s", Unit::Time, (1, 10)),
            ("100ms", Unit::Time, (1, 10)),
            ("1e-3s", Unit::Time, (1, 1000)),
            ("1.5e2ms", Unit::Time, (3, 20)),
            ("2min", Unit::Time, (120, 1)),
            ("3", Unit::None, (3, 1)),
            ("500μs", Unit::Time, (1, 2000)),
        ];
        for (text, unit, (num, den)) in cases {
            assert_eq!(quantity(text), Some((Ratio { num, den }, unit)), "{text}");
        }
        assert_eq!(quantity("3parsecs"), None);
        let s = parse("input a: Int64\noutput b @ 3Hz := a.hold().defaults(to: 0)");
        assert!(matches!(
            s.outputs[0].pacing,
            Some(Pacing::Periodic(
                Ratio { num: 1, den: 3 },
                _,
                Clock::Default
            ))
        ));
        let s = parse("input a: Int64\noutput b @1Hz := a.aggregate(over_exactly: 2s, using: Σ) + a.aggregate(using: #, over: 1s)");
        let text = format!("{:?}", s.outputs[0].expr);
        assert!(text.contains("op: Sum, exact: true"), "{text}");
        assert!(text.contains("op: Count, exact: false"), "{text}");
    }
}

#[cfg(test)]
mod comment_tests {
    #[test]
    fn comments_are_skipped() {
        let s = super::parse_spec(
            "t.lola",
            "input a: Int64 // x\n/* block\n * more */ output b := a /* y */ + 1",
        )
        .unwrap();
        assert_eq!(s.outputs.len(), 1);
    }
}
