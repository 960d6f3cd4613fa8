//! Tokens of rtamt's STL syntax (its grammar as of rtamt 0.4.10), with its aliases: `!` for
//! `not`, `&` and `|`, `->` and `<->`, and the one-letter temporal operators `G F H O U S X Y`.
//! `&&`, `||`, `=>`, `!=` are not rtamt's and are refused with a hint.

use logos::Logos;

#[derive(Logos, Clone, Debug, PartialEq)]
#[logos(skip r"[ \t\r\n\f]+")]
#[logos(skip r"//[^\n]*")]
pub enum Tok {
    /// `/* … */`, skipped; an unterminated one runs to the end.
    #[token("/*", block_comment)]
    BlockComment,
    #[token("not")]
    #[token("!")]
    Not,
    #[token("and")]
    #[token("&")]
    And,
    #[token("or")]
    #[token("|")]
    Or,
    #[token("implies")]
    #[token("->")]
    Implies,
    #[token("iff")]
    #[token("<->")]
    Iff,
    #[token("xor")]
    Xor,
    #[token("always")]
    #[token("G")]
    Always,
    #[token("eventually")]
    #[token("F")]
    Eventually,
    #[token("historically")]
    #[token("H")]
    Historically,
    #[token("once")]
    #[token("O")]
    Once,
    #[token("until")]
    #[token("U")]
    Until,
    #[token("since")]
    #[token("S")]
    Since,
    #[token("next")]
    #[token("X")]
    Next,
    #[token("prev")]
    #[token("Y")]
    Prev,
    #[token("s_next")]
    #[token("sX")]
    StrongNext,
    #[token("s_prev")]
    #[token("sY")]
    StrongPrev,
    #[token("rise")]
    Rise,
    #[token("fall")]
    Fall,
    #[token("abs")]
    Abs,
    #[token("sqrt")]
    Sqrt,
    #[token("exp")]
    Exp,
    #[token("pow")]
    Pow,
    #[token("s")]
    Seconds,
    #[token("ms")]
    Millis,
    #[token("us")]
    Micros,
    #[token("ns")]
    Nanos,
    /// A signal: rtamt's identifiers take `.` and `/` after the first character.
    #[regex(r"[A-Za-z_$][A-Za-z_$0-9./]*", |l| l.slice().to_string(), priority = 1)]
    Ident(String),
    #[regex(r"(0|[1-9]([0-9_]*[0-9])?)|([0-9]+\.[0-9]*([eE][+-]?[0-9]+)?)|(\.[0-9]+([eE][+-]?[0-9]+)?)|([0-9]+[eE][+-]?[0-9]+)", |l| l.slice().to_string())]
    Number(String),
    #[token("<=")]
    Le,
    #[token(">=")]
    Ge,
    #[token("<")]
    Lt,
    #[token(">")]
    Gt,
    #[token("==")]
    Eq,
    #[token("!==")]
    Ne,
    #[token("+")]
    Plus,
    #[token("-")]
    Minus,
    #[token("*")]
    Star,
    #[token("/")]
    Slash,
    #[token("(")]
    LParen,
    #[token(")")]
    RParen,
    #[token("[")]
    LBracket,
    #[token("]")]
    RBracket,
    #[token(",")]
    Comma,
    #[token(":")]
    Colon,
    /// Spellings of other logics that rtamt does not take (`&&`, `||`, `=>`, `!=`): an error
    /// that names rtamt's.
    #[token("&&")]
    #[token("||")]
    #[token("=>")]
    #[token("!=")]
    Foreign,
}

fn block_comment(lex: &mut logos::Lexer<Tok>) -> logos::Skip {
    let rest = lex.remainder();
    lex.bump(rest.find("*/").map_or(rest.len(), |i| i + 2));
    logos::Skip
}
