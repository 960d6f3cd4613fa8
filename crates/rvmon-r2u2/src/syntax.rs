//! The specifications r2u2_cli reads: `.mltl` files (one formula a line over atoms `a0`,
//! `a1`, …, `&` and `|` for and and or, `#` comments) and C2PO's `.c2po` files (an `INPUT`
//! section declaring typed signals, then `FTSPEC` and `PTSPEC` sections of formulas ending in
//! `;`, each with an optional `label:`; `&&`/`||`, `--` comments; comparisons and arithmetic
//! over numeric signals, which C2PO's "booleanizer" evaluates at each step).
//!
//! Precedence, loosest first, as C2PO's parsers declare it: `->` `<->` `xor`; `||`; `&&`;
//! the binary temporal operators `U R S T`; the prefix temporal operators `G F H O` (their
//! operand extends over tighter operators only: `G[0,2] a && b` is `(G[0,2] a) && b`);
//! then, in `.c2po`, `== !=`, `< <= > >=`, `+ -`, `* / %`, and the prefix `!` and `-`.
//! Every binary operator groups to the left. An interval `[b]` is `[0,b]`.

use logos::Logos;
use rvmon_core::Error;

/// A signal's type (`.mltl` atoms are `bool`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Type {
    Bool,
    Int,
    Float,
}

/// A formula or a numeric term.
#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    Bool(bool),
    Int(i64),
    Float(f64),
    /// A signal, by its index among the inputs.
    Signal(usize),
    /// The time step (C2PO's `TAU`).
    Tau,
    Not(Box<Expr>),
    /// `!`, `&&`, … and the comparisons and arithmetic, by operator.
    Binary(Op, Box<Expr>, Box<Expr>),
    Neg(Box<Expr>),
    Abs(Box<Expr>),
    /// A prefix temporal operator over `[lb, ub]`.
    Unary(Temporal, u32, u32, Box<Expr>),
    /// A binary temporal operator over `[lb, ub]`.
    Until(Temporal, u32, u32, Box<Expr>, Box<Expr>),
}

/// Binary operators other than the temporal ones.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    And,
    Or,
    Implies,
    Iff,
    Xor,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    Add,
    Sub,
    Mul,
    Div,
    Mod,
}

/// Temporal operators: future `G F U R`, past `H O S T`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Temporal {
    Global,
    Future,
    Until,
    Release,
    Historically,
    Once,
    Since,
    Trigger,
}

impl Temporal {
    pub fn is_past(self) -> bool {
        matches!(
            self,
            Temporal::Historically | Temporal::Once | Temporal::Since | Temporal::Trigger
        )
    }
}

/// One formula of a specification: its number (its place among all the formulas, which the
/// verdict lines print), its label, whether it is past-time, and the formula.
#[derive(Clone, Debug, PartialEq)]
pub struct Formula {
    pub id: usize,
    pub label: Option<String>,
    pub past: bool,
    pub expr: Expr,
}

/// A specification: its signals, in the trace's column order for `.mltl` (`a3` reads
/// column 3) or declaration order for `.c2po` (read by name from the trace's header).
#[derive(Clone, Debug, PartialEq)]
pub struct Spec {
    pub signals: Vec<(String, Type)>,
    pub formulas: Vec<Formula>,
}

#[derive(Logos, Clone, Copy, Debug, PartialEq)]
#[logos(skip r"[ \t\r\f]+")]
enum Tok {
    #[token("\n")]
    Newline,
    #[token("!")]
    #[token("¬")]
    Not,
    #[token("&&")]
    #[token("∧")]
    AndAnd,
    #[token("&")]
    Amp,
    #[token("||")]
    #[token("∨")]
    OrOr,
    #[token("|")]
    Pipe,
    #[token("->")]
    #[token("→")]
    Implies,
    #[token("<->")]
    #[token("↔")]
    Iff,
    #[token("==")]
    Eq,
    #[token("!=")]
    #[token("≠")]
    Ne,
    #[token("<=")]
    #[token("≤")]
    Le,
    #[token(">=")]
    #[token("≥")]
    Ge,
    #[token("<")]
    Lt,
    #[token(">")]
    Gt,
    #[token("+")]
    Plus,
    #[token("-")]
    Minus,
    #[token("*")]
    Star,
    #[token("/")]
    Slash,
    #[token("%")]
    Percent,
    #[token(":=")]
    Assign,
    #[token(":")]
    Colon,
    #[token(";")]
    Semi,
    #[token(",")]
    Comma,
    #[token("[")]
    LBrack,
    #[token("]")]
    RBrack,
    #[token("(")]
    LParen,
    // (C2PO that rvmon does not read yet: structs, sets, bitwise operators, contracts.)
    #[token("{")]
    #[token("}")]
    #[token(".")]
    #[token("..")]
    #[token("^")]
    #[token("~")]
    #[token("<<")]
    #[token(">>")]
    #[token("=>")]
    Unsupported,
    #[token(")")]
    RParen,
    #[regex(r"[0-9]+\.[0-9]+|\.[0-9]+")]
    Decimal,
    #[regex(r"[0-9]+")]
    Numeral,
    #[regex(r"[A-Za-z_][A-Za-z0-9_]*")]
    Word,
}

/// Which file's syntax.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Dialect {
    Mltl,
    C2po,
}

struct Parser<'a> {
    file: &'a str,
    text: &'a str,
    toks: Vec<(Tok, std::ops::Range<usize>)>,
    at: usize,
    dialect: Dialect,
    signals: Vec<(String, Type)>,
    /// `DEFINE`d names and what they stand for.
    defines: Vec<(String, Expr)>,
}

/// Reads a `.mltl` file: one formula a line (a line of only spaces or a comment is none);
/// atoms `a<N>` read column N of the trace.
pub fn parse_mltl(file: &str, text: &str) -> Result<Spec, Error> {
    let mut p = Parser::new(file, text, Dialect::Mltl)?;
    let mut formulas: Vec<Formula> = Vec::new();
    while p.peek().is_some() {
        if p.eat(Tok::Newline) {
            continue;
        }
        let expr = p.expr(0)?;
        p.expect_end_of_line()?;
        let past = p.kind_of(&expr, formulas.len())?;
        formulas.push(Formula {
            id: formulas.len(),
            label: None,
            past,
            expr,
        });
    }
    // (`.mltl` formulas are all future or all past, as r2u2_cli's compiler requires.)
    if formulas.iter().any(|f| f.past) && formulas.iter().any(|f| !f.past && has_temporal(&f.expr))
    {
        return Err(Error::msg(format!(
            "{file}: past-time and future-time formulas are mixed; r2u2_cli's .mltl takes one \
             kind a file (use a .c2po file with FTSPEC and PTSPEC sections)"
        )));
    }
    // (A file with a past-time formula is a past-time specification, its propositional
    // formulas included.)
    let past = formulas.iter().any(|f| f.past);
    for f in &mut formulas {
        f.past = past;
    }
    Ok(Spec {
        signals: p.signals,
        formulas,
    })
}

/// Reads a `.c2po` file.
pub fn parse_c2po(file: &str, text: &str) -> Result<Spec, Error> {
    let mut p = Parser::new(file, text, Dialect::C2po)?;
    let mut formulas = Vec::new();
    let mut section: Option<bool> = None;
    while let Some(tok) = p.peek() {
        if tok != Tok::Word {
            if section.is_none() {
                return Err(p.err("expected a section: INPUT, DEFINE, FTSPEC or PTSPEC"));
            }
            let past = section == Some(true);
            formulas.push(p.c2po_formula(formulas.len(), past)?);
            continue;
        }
        match p.word() {
            "INPUT" => {
                p.at += 1;
                p.inputs()?;
                section = None;
            }
            "DEFINE" => {
                p.at += 1;
                p.defines()?;
                section = None;
            }
            "FTSPEC" => {
                p.at += 1;
                section = Some(false);
            }
            "PTSPEC" => {
                p.at += 1;
                section = Some(true);
            }
            w @ ("STRUCT" | "ENUM" | "foreach" | "forsome" | "forexactly" | "foratleast"
            | "foratmost" | "prev" | "pow" | "sqrt") => {
                return Err(p.err(&format!(
                    "`{w}` is C2PO that rvmon does not read yet (see the README's R2U2 section)"
                )))
            }
            _ if section.is_none() => {
                return Err(p.err("expected a section: INPUT, DEFINE, FTSPEC or PTSPEC"))
            }
            _ => {
                let past = section == Some(true);
                formulas.push(p.c2po_formula(formulas.len(), past)?);
            }
        }
    }
    Ok(Spec {
        signals: p.signals,
        formulas,
    })
}

fn has_temporal(e: &Expr) -> bool {
    match e {
        Expr::Unary(..) | Expr::Until(..) => true,
        Expr::Not(a) | Expr::Neg(a) | Expr::Abs(a) => has_temporal(a),
        Expr::Binary(_, a, b) => has_temporal(a) || has_temporal(b),
        _ => false,
    }
}

/// Whether `e` has a past-time operator and a future-time one.
fn mixed(e: &Expr) -> (bool, bool) {
    match e {
        Expr::Unary(t, _, _, a) => {
            let (p, f) = mixed(a);
            (p || t.is_past(), f || !t.is_past())
        }
        Expr::Until(t, _, _, a, b) => {
            let ((p1, f1), (p2, f2)) = (mixed(a), mixed(b));
            (p1 || p2 || t.is_past(), f1 || f2 || !t.is_past())
        }
        Expr::Not(a) | Expr::Neg(a) | Expr::Abs(a) => mixed(a),
        Expr::Binary(_, a, b) => {
            let ((p1, f1), (p2, f2)) = (mixed(a), mixed(b));
            (p1 || p2, f1 || f2)
        }
        _ => (false, false),
    }
}

impl<'a> Parser<'a> {
    fn new(file: &'a str, text: &'a str, dialect: Dialect) -> Result<Parser<'a>, Error> {
        // Comments become spaces, so that columns stay where they were.
        let comment = if dialect == Dialect::Mltl { "#" } else { "--" };
        let mut toks = Vec::new();
        let mut offset = 0;
        for line in text.split_inclusive('\n') {
            let code = line.find(comment).map_or(line, |c| &line[..c]);
            let tail = if line.ends_with('\n') && code.len() < line.len() {
                "\n"
            } else {
                ""
            };
            for (tok, span) in Tok::lexer(code).spanned() {
                let span = offset + span.start..offset + span.end;
                match tok {
                    Ok(t) => toks.push((t, span)),
                    Err(()) => {
                        let found = text[span.start..].chars().next().unwrap_or(' ');
                        return Err(Error::at_offset(
                            file,
                            text,
                            span.start,
                            format!("unexpected character `{found}`"),
                        ));
                    }
                }
            }
            if !tail.is_empty() {
                toks.push((Tok::Newline, offset + line.len() - 1..offset + line.len()));
            }
            offset += line.len();
        }
        if dialect == Dialect::C2po {
            toks.retain(|(t, _)| *t != Tok::Newline);
        }
        Ok(Parser {
            file,
            text,
            toks,
            at: 0,
            dialect,
            signals: Vec::new(),
            defines: Vec::new(),
        })
    }

    fn peek(&self) -> Option<Tok> {
        self.toks.get(self.at).map(|t| t.0)
    }

    fn word(&self) -> &'a str {
        let span = self.toks[self.at].1.clone();
        &self.text[span]
    }

    fn eat(&mut self, t: Tok) -> bool {
        if self.peek() == Some(t) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    /// An error at the next token (or the end).
    fn err(&self, message: &str) -> Error {
        let offset = self
            .toks
            .get(self.at)
            .map_or(self.text.len(), |t| t.1.start);
        let found = match self.toks.get(self.at) {
            Some((Tok::Newline, _)) => "the end of the line".to_string(),
            Some((_, span)) => format!("`{}`", &self.text[span.clone()]),
            None => "the end of the file".to_string(),
        };
        Error::at_offset(
            self.file,
            self.text,
            offset,
            format!("{message}, found {found}"),
        )
    }

    fn expect(&mut self, t: Tok, what: &str) -> Result<(), Error> {
        if self.eat(t) {
            Ok(())
        } else {
            Err(self.err(&format!("expected {what}")))
        }
    }

    fn expect_end_of_line(&mut self) -> Result<(), Error> {
        if self.peek().is_none() || self.eat(Tok::Newline) {
            return Ok(());
        }
        if self.peek() == Some(Tok::Semi) {
            return Err(self
                .err("expected the end of the line (r2u2_cli's .mltl formulas end without `;`)"));
        }
        Err(self.err("expected an operator or the end of the line"))
    }

    /// Whether the formula `e` (the `k`-th) is past-time; an error if it mixes both kinds.
    fn kind_of(&self, e: &Expr, k: usize) -> Result<bool, Error> {
        match mixed(e) {
            (true, true) => Err(Error::msg(format!(
                "{}: formula {k} mixes past-time and future-time operators, which R2U2 does not \
                 monitor",
                self.file
            ))),
            (past, _) => Ok(past),
        }
    }

    /// `name, name: type;` lines, up to the next section.
    fn inputs(&mut self) -> Result<(), Error> {
        while self.peek() == Some(Tok::Word) && !is_section(self.word()) {
            let mut names = Vec::new();
            loop {
                if self.peek() != Some(Tok::Word) {
                    return Err(self.err("expected a signal's name"));
                }
                names.push((self.word().to_string(), self.at));
                self.at += 1;
                if !self.eat(Tok::Comma) {
                    break;
                }
            }
            self.expect(Tok::Colon, "`:` and a type")?;
            let ty = match (self.peek(), self.peek().map(|_| self.word())) {
                (Some(Tok::Word), Some("bool")) => Type::Bool,
                (Some(Tok::Word), Some("int")) => Type::Int,
                (Some(Tok::Word), Some("float")) => Type::Float,
                _ => return Err(self.err("expected a type: bool, int or float")),
            };
            self.at += 1;
            self.expect(Tok::Semi, "`;` ending the declaration")?;
            for (name, at) in names {
                if self.signals.iter().any(|s| s.0 == name) {
                    self.at = at;
                    return Err(self.err("a signal declared twice"));
                }
                self.signals.push((name, ty));
            }
        }
        Ok(())
    }

    /// `name := expr;` lines, up to the next section.
    fn defines(&mut self) -> Result<(), Error> {
        while self.peek() == Some(Tok::Word) && !is_section(self.word()) {
            let name = self.word().to_string();
            self.at += 1;
            self.expect(Tok::Assign, "`:=`")?;
            let e = self.expr(0)?;
            self.expect(Tok::Semi, "`;` ending the definition")?;
            self.defines.push((name, e));
        }
        Ok(())
    }

    /// `[label:] expr;`
    fn c2po_formula(&mut self, id: usize, past: bool) -> Result<Formula, Error> {
        let mut label = None;
        if self.peek() == Some(Tok::Word)
            && self.toks.get(self.at + 1).map(|t| t.0) == Some(Tok::Colon)
        {
            label = Some(self.word().to_string());
            self.at += 2;
        }
        let expr = self.expr(0)?;
        self.expect(Tok::Semi, "`;` ending the formula")?;
        let (has_past, has_future) = mixed(&expr);
        if (past && has_future) || (!past && has_past) {
            let (section, other) = if past {
                ("PTSPEC", "future")
            } else {
                ("FTSPEC", "past")
            };
            return Err(Error::msg(format!(
                "{}: formula {id}{}: a {other}-time operator in {section}",
                self.file,
                label.as_ref().map_or(String::new(), |l| format!(" ({l})"))
            )));
        }
        Ok(Formula {
            id,
            label,
            past,
            expr,
        })
    }

    /// An expression whose binary operators bind tighter than `min`.
    fn expr(&mut self, min: u8) -> Result<Expr, Error> {
        let mut left = self.prefix()?;
        while let Some(tok) = self.peek() {
            if tok == Tok::Word && self.word() == "pow" && self.dialect == Dialect::C2po {
                return Err(self.err(
                    "`pow` is C2PO that rvmon does not read yet (see the \
                                     README's R2U2 section)",
                ));
            }
            let bitwise = matches!(tok, Tok::Amp | Tok::Pipe) && self.dialect == Dialect::C2po;
            if bitwise || tok == Tok::Unsupported {
                return Err(self.err(
                    "C2PO that rvmon does not read yet (structs, sets, bitwise \
                                     operators, contracts; see the README's R2U2 section)",
                ));
            }
            let Some((level, op)) = self.binary(tok) else {
                break;
            };
            if level <= min {
                break;
            }
            self.at += 1;
            left = match op {
                Binary::Plain(op) => {
                    let right = self.expr(level)?;
                    Expr::Binary(op, Box::new(left), Box::new(right))
                }
                Binary::Temporal(t) => {
                    let (lb, ub) = self.interval()?;
                    let right = self.expr(level)?;
                    Expr::Until(t, lb, ub, Box::new(left), Box::new(right))
                }
            };
        }
        Ok(left)
    }

    /// The binary operator `tok` is here, with its level (higher binds tighter).
    fn binary(&self, tok: Tok) -> Option<(u8, Binary)> {
        let mltl = self.dialect == Dialect::Mltl;
        Some(match tok {
            Tok::Implies => (1, Binary::Plain(Op::Implies)),
            Tok::Iff => (1, Binary::Plain(Op::Iff)),
            Tok::Word if self.word() == "xor" && !mltl => (1, Binary::Plain(Op::Xor)),
            Tok::OrOr if !mltl => (2, Binary::Plain(Op::Or)),
            Tok::Pipe if mltl => (2, Binary::Plain(Op::Or)),
            Tok::AndAnd if !mltl => (3, Binary::Plain(Op::And)),
            Tok::Amp if mltl => (3, Binary::Plain(Op::And)),
            Tok::Word => {
                let t = match self.word() {
                    "U" => Temporal::Until,
                    "R" => Temporal::Release,
                    "S" => Temporal::Since,
                    "T" => Temporal::Trigger,
                    _ => return None,
                };
                (4, Binary::Temporal(t))
            }
            _ if mltl => return None,
            Tok::Eq => (6, Binary::Plain(Op::Eq)),
            Tok::Ne => (6, Binary::Plain(Op::Ne)),
            Tok::Lt => (7, Binary::Plain(Op::Lt)),
            Tok::Le => (7, Binary::Plain(Op::Le)),
            Tok::Gt => (7, Binary::Plain(Op::Gt)),
            Tok::Ge => (7, Binary::Plain(Op::Ge)),
            Tok::Plus => (8, Binary::Plain(Op::Add)),
            Tok::Minus => (8, Binary::Plain(Op::Sub)),
            Tok::Star => (9, Binary::Plain(Op::Mul)),
            Tok::Slash => (9, Binary::Plain(Op::Div)),
            Tok::Percent => (9, Binary::Plain(Op::Mod)),
            _ => return None,
        })
    }

    /// A prefix operator and its operand, or an atom.
    fn prefix(&mut self) -> Result<Expr, Error> {
        /// The level of the prefix temporal operators (their operand takes only tighter
        /// operators), and of `!` and unary `-` (tighter than every binary one).
        const TEMPORAL: u8 = 5;
        const UNARY: u8 = 10;
        let Some(tok) = self.peek() else {
            return Err(self.err("expected a formula"));
        };
        let start = self.at;
        self.at += 1;
        Ok(match tok {
            Tok::Not => Expr::Not(Box::new(self.expr(UNARY)?)),
            Tok::Minus if self.dialect == Dialect::C2po => Expr::Neg(Box::new(self.expr(UNARY)?)),
            Tok::LParen => {
                let e = self.expr(0)?;
                self.expect(Tok::RParen, "`)`")?;
                e
            }
            Tok::Numeral if self.dialect == Dialect::C2po => {
                let text = &self.text[self.toks[start].1.clone()];
                match text.parse() {
                    Ok(n) => Expr::Int(n),
                    Err(_) => {
                        self.at = start;
                        return Err(self.err("expected a number that fits in 64 bits"));
                    }
                }
            }
            Tok::Decimal if self.dialect == Dialect::C2po => Expr::Float(
                self.text[self.toks[start].1.clone()]
                    .parse()
                    .unwrap_or(f64::NAN),
            ),
            Tok::Word => {
                self.at = start;
                let w = self.word();
                self.at += 1;
                match w {
                    "true" => Expr::Bool(true),
                    "false" => Expr::Bool(false),
                    "G" | "F" | "H" | "O" => {
                        let t = match w {
                            "G" => Temporal::Global,
                            "F" => Temporal::Future,
                            "H" => Temporal::Historically,
                            _ => Temporal::Once,
                        };
                        let (lb, ub) = self.interval()?;
                        Expr::Unary(t, lb, ub, Box::new(self.expr(TEMPORAL)?))
                    }
                    "TAU" if self.dialect == Dialect::C2po => Expr::Tau,
                    "sqrt" | "prev" | "pow" if self.dialect == Dialect::C2po => {
                        self.at = start;
                        return Err(self.err(&format!(
                            "`{w}` is C2PO that rvmon does not read yet (see the README's R2U2 \
                             section)"
                        )));
                    }
                    "abs" if self.dialect == Dialect::C2po => {
                        self.expect(Tok::LParen, "`(`")?;
                        let e = self.expr(0)?;
                        self.expect(Tok::RParen, "`)`")?;
                        Expr::Abs(Box::new(e))
                    }
                    _ => {
                        self.at = start;
                        self.name()?
                    }
                }
            }
            Tok::Unsupported => {
                self.at = start;
                return Err(self.err(
                    "C2PO that rvmon does not read yet (structs, sets, bitwise \
                                     operators, contracts; see the README's R2U2 section)",
                ));
            }
            _ => {
                self.at = start;
                return Err(self.err("expected a formula"));
            }
        })
    }

    /// A signal or a definition, by name.
    fn name(&mut self) -> Result<Expr, Error> {
        let w = self.word();
        if self.dialect == Dialect::Mltl {
            let n = w
                .strip_prefix('a')
                .filter(|d| d == &"0" || !d.starts_with('0'))
                .and_then(|d| d.parse::<usize>().ok())
                .filter(|&n| n < 1 << 16);
            let Some(n) = n else {
                return Err(self.err("expected an atom a0, a1, … (the trace's columns)"));
            };
            self.at += 1;
            while self.signals.len() <= n {
                let k = self.signals.len();
                self.signals.push((format!("a{k}"), Type::Bool));
            }
            return Ok(Expr::Signal(n));
        }
        if let Some(k) = self.signals.iter().position(|s| s.0 == w) {
            self.at += 1;
            return Ok(Expr::Signal(k));
        }
        if let Some((_, e)) = self.defines.iter().find(|d| d.0 == w) {
            self.at += 1;
            return Ok(e.clone());
        }
        Err(self.err("expected a signal declared in INPUT or a name defined in DEFINE"))
    }

    /// `[ub]` (from 0) or `[lb,ub]`.
    fn interval(&mut self) -> Result<(u32, u32), Error> {
        self.expect(Tok::LBrack, "an interval `[lb,ub]`")?;
        let first = self.bound()?;
        let (lb, ub) = if self.eat(Tok::Comma) {
            (first, self.bound()?)
        } else {
            (0, first)
        };
        self.expect(Tok::RBrack, "`]` closing the interval")?;
        if lb > ub {
            self.at -= 1;
            return Err(self.err(&format!(
                "an interval [{lb},{ub}] whose lower bound is above its upper"
            )));
        }
        Ok((lb, ub))
    }

    fn bound(&mut self) -> Result<u32, Error> {
        if self.peek() == Some(Tok::Numeral) {
            if let Ok(n) = self.word().parse::<u32>() {
                self.at += 1;
                return Ok(n);
            }
        }
        if self.peek() == Some(Tok::Word) && self.word() == "M" {
            return Err(
                self.err("the mission time `M` is not supported; give the bound as a number")
            );
        }
        Err(self.err("expected a bound: a whole number below 2^32"))
    }
}

enum Binary {
    Plain(Op),
    Temporal(Temporal),
}

fn is_section(w: &str) -> bool {
    matches!(
        w,
        "INPUT" | "DEFINE" | "FTSPEC" | "PTSPEC" | "STRUCT" | "ENUM"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn g(lb: u32, ub: u32, e: Expr) -> Expr {
        Expr::Unary(Temporal::Global, lb, ub, Box::new(e))
    }

    fn and(a: Expr, b: Expr) -> Expr {
        Expr::Binary(Op::And, Box::new(a), Box::new(b))
    }

    #[test]
    fn mltl_lines_and_precedence() {
        let s = parse_mltl(
            "s.mltl",
            "G[2] a0 & a1\n# a comment\n\na1 U[1,3] a0 | !a2\n",
        )
        .unwrap();
        assert_eq!(s.signals.len(), 3);
        assert_eq!(s.formulas.len(), 2);
        assert_eq!(
            s.formulas[0].expr,
            and(g(0, 2, Expr::Signal(0)), Expr::Signal(1))
        );
        let until = Expr::Until(
            Temporal::Until,
            1,
            3,
            Box::new(Expr::Signal(1)),
            Box::new(Expr::Signal(0)),
        );
        let not = Expr::Not(Box::new(Expr::Signal(2)));
        assert_eq!(
            s.formulas[1].expr,
            Expr::Binary(Op::Or, Box::new(until), Box::new(not))
        );
    }

    #[test]
    fn c2po_sections_labels_and_booleanizer() {
        let text = "INPUT\n  p, q: bool; x: int;\nDEFINE\n  hot := x > 3;\nFTSPEC\n  \
                    spec: F[2,3] p; -- a comment\n  G[1] (hot && q);\nPTSPEC\n  H[2] p;\n";
        let s = parse_c2po("s.c2po", text).unwrap();
        assert_eq!(s.signals[2], ("x".to_string(), Type::Int));
        assert_eq!(s.formulas.len(), 3);
        assert_eq!(s.formulas[0].label.as_deref(), Some("spec"));
        assert!(!s.formulas[1].past && s.formulas[2].past);
        let hot = Expr::Binary(Op::Gt, Box::new(Expr::Signal(2)), Box::new(Expr::Int(3)));
        assert_eq!(s.formulas[1].expr, g(0, 1, and(hot, Expr::Signal(1))));
    }

    #[test]
    fn mistakes_say_where() {
        let cases = [
            ("s.mltl", "G[2] a0;\n", "s.mltl:1:8: expected the end of the line (r2u2_cli's .mltl formulas end without `;`), found `;`"),
            ("s.mltl", "G[3,2] a0\n", "s.mltl:1:6: an interval [3,2]"),
            ("s.mltl", "G[2] b0\n", "s.mltl:1:6: expected an atom"),
            ("s.mltl", "a0 & H[2] a1 & G[1] a0\n", "mixes past-time and future-time"),
            ("s.c2po", "INPUT a: bool;\nFTSPEC\nH[1] a;\n", "a past-time operator in FTSPEC"),
            ("s.c2po", "INPUT a: bool;\nFTSPEC\nG[1] b;\n", "s.c2po:3:6: expected a signal declared"),
            ("s.c2po", "STRUCT S { x: int; }\n", "`STRUCT` is C2PO that rvmon does not read yet"),
            ("s.c2po", "INPUT a: bool;\nFTSPEC\nG[1] a\n", "s.c2po:4:1: expected `;` ending the formula, found the end of the file"),
            ("s.mltl", "G[1] a0 $\n", "s.mltl:1:9: unexpected character `$`"),
        ];
        for (file, text, want) in cases {
            let got = if file.ends_with(".mltl") {
                parse_mltl(file, text)
            } else {
                parse_c2po(file, text)
            };
            let e = got.unwrap_err().to_string();
            assert!(e.contains(want), "{text:?}: {e}");
        }
    }
}
