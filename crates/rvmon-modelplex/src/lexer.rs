//! Tokens of ModelPlex monitor conditions: rvmon's notation (`x'`, `∧ ∨ ¬ → ↔ ≤ ≥ ≠ ∀ ∃`,
//! `and or not`) and KeYmaera X's ASCII export (`xpost()`, `& | ! -> <->`, `\forall`,
//! `\exists`, nullary function symbols `m()`), which may be mixed.

use logos::Logos;

#[derive(Logos, Clone, Debug, PartialEq)]
#[logos(skip r"[ \t\r\n\f]+")]
#[logos(skip r"#[^\n]*")]
#[logos(skip r"//[^\n]*")]
pub enum Tok {
    /// `/* … */`, skipped; an unterminated one runs to the end.
    #[token("/*", block_comment)]
    BlockComment,
    #[token("const")]
    Const,
    #[token("monitor")]
    Monitor,
    #[token("true")]
    True,
    #[token("false")]
    False,
    #[token("!")]
    #[token("¬")]
    #[token("not")]
    Not,
    #[token("&")]
    #[token("&&")]
    #[token("∧")]
    #[token("and")]
    And,
    #[token("|")]
    #[token("||")]
    #[token("∨")]
    #[token("or")]
    Or,
    #[token("->")]
    #[token("→")]
    #[token("implies")]
    Implies,
    #[token("<->")]
    #[token("↔")]
    #[token("iff")]
    Iff,
    #[token("\\forall")]
    #[token("∀")]
    #[token("forall")]
    Forall,
    #[token("\\exists")]
    #[token("∃")]
    #[token("exists")]
    Exists,
    #[token("<=")]
    #[token("≤")]
    Le,
    #[token("<")]
    Lt,
    #[token(">=")]
    #[token("≥")]
    Ge,
    #[token(">")]
    Gt,
    #[token("=")]
    #[token("==")]
    Eq,
    #[token("!=")]
    #[token("≠")]
    Ne,
    #[token("+")]
    Plus,
    #[token("-")]
    #[token("−")]
    Minus,
    #[token("*")]
    #[token("·")]
    Times,
    #[token("/")]
    Divide,
    #[token("^")]
    Power,
    #[token("(")]
    LParen,
    #[token(")")]
    RParen,
    #[token(",")]
    Comma,
    #[token(":")]
    Colon,
    #[token(";")]
    Semi,
    #[token(".")]
    Dot,
    /// The posterior mark after a name: `x'` or `x⁺`.
    #[token("'")]
    #[token("⁺")]
    Post,
    /// A decimal number, kept as text: it is read exactly.
    #[regex(r"[0-9]+(\.[0-9]*)?([eE][+-]?[0-9]+)?", |l| l.slice().to_string())]
    #[regex(r"\.[0-9]+([eE][+-]?[0-9]+)?", |l| l.slice().to_string())]
    Number(String),
    #[regex(r"[A-Za-z_][A-Za-z0-9_]*", |l| l.slice().to_string())]
    Ident(String),
}

fn block_comment(lex: &mut logos::Lexer<Tok>) -> logos::Skip {
    let rest = lex.remainder();
    let end = rest.find("*/").map_or(rest.len(), |i| i + 2);
    lex.bump(end);
    logos::Skip
}

impl Tok {
    /// How a message names it.
    pub fn describe(&self) -> String {
        match self {
            Tok::Number(n) => format!("number `{n}`"),
            Tok::Ident(n) => format!("name `{n}`"),
            other => format!("`{}`", other.symbol()),
        }
    }

    fn symbol(&self) -> &'static str {
        match self {
            Tok::BlockComment => "/*",
            Tok::Const => "const",
            Tok::Monitor => "monitor",
            Tok::True => "true",
            Tok::False => "false",
            Tok::Not => "!",
            Tok::And => "&",
            Tok::Or => "|",
            Tok::Implies => "->",
            Tok::Iff => "<->",
            Tok::Forall => "\\forall",
            Tok::Exists => "\\exists",
            Tok::Le => "<=",
            Tok::Lt => "<",
            Tok::Ge => ">=",
            Tok::Gt => ">",
            Tok::Eq => "=",
            Tok::Ne => "!=",
            Tok::Plus => "+",
            Tok::Minus => "-",
            Tok::Times => "*",
            Tok::Divide => "/",
            Tok::Power => "^",
            Tok::LParen => "(",
            Tok::RParen => ")",
            Tok::Comma => ",",
            Tok::Colon => ":",
            Tok::Semi => ";",
            Tok::Dot => ".",
            Tok::Post => "'",
            Tok::Number(_) | Tok::Ident(_) => "",
        }
    }
}
