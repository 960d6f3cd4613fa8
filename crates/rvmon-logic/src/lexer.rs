//! Tokens of the formula language. MonPoly's upper-case keywords, plus lower-case aliases for
//! people coming from rtamt/Reelay-style syntax (`historically` = `PAST_ALWAYS`).

use logos::Logos;

use crate::ast::AggOp;

fn comment(lex: &mut logos::Lexer<Tok>) -> logos::FilterResult<(), ()> {
    match lex.remainder().find("*)") {
        Some(end) => {
            lex.bump(end + 2);
            logos::FilterResult::Skip
        }
        None => {
            lex.bump(lex.remainder().len());
            logos::FilterResult::Error(())
        }
    }
}

#[derive(Logos, Clone, Debug, PartialEq)]
#[logos(skip r"[ \t\r\n\f]+")]
#[logos(skip r"#[^\n]*")]
pub enum Tok {
    /// `(* … *)`, MonPoly's comment, skipped (an unterminated one is an error). A callback
    /// and not a regex: logos does not backtrack, and the usual comment regex needs it (it
    /// matched no comment at all).
    #[token("(*", comment)]
    Comment,
    #[token("NOT")]
    #[token("not")]
    Not,
    #[token("AND")]
    #[token("and")]
    And,
    #[token("OR")]
    #[token("or")]
    Or,
    #[token("IMPLIES")]
    #[token("implies")]
    Implies,
    #[token("EQUIV")]
    #[token("equiv")]
    Equiv,
    #[token("EXISTS")]
    #[token("exists")]
    Exists,
    #[token("FORALL")]
    #[token("forall")]
    Forall,
    #[token("PREV")]
    #[token("PREVIOUS")]
    #[token("prev")]
    #[token("previous")]
    Previous,
    #[token("NEXT")]
    #[token("next")]
    Next,
    #[token("ONCE")]
    #[token("once")]
    Once,
    #[token("EVENTUALLY")]
    #[token("SOMETIMES")]
    #[token("eventually")]
    Eventually,
    #[token("PAST_ALWAYS")]
    #[token("HISTORICALLY")]
    #[token("past_always")]
    #[token("historically")]
    PastAlways,
    #[token("ALWAYS")]
    #[token("always")]
    Always,
    #[token("SINCE")]
    #[token("since")]
    Since,
    #[token("UNTIL")]
    #[token("until")]
    Until,
    #[token("TRUE")]
    True,
    #[token("FALSE")]
    False,
    #[token("LET")]
    Let,
    #[token("IN")]
    In,
    #[token("MOD")]
    Mod,
    #[token("SUBSTRING")]
    Substring,
    #[token("MATCHES")]
    Matches,
    #[regex(r"[A-Za-z_][A-Za-z0-9_']*", |lex| lex.slice().to_string())]
    Ident(String),
    #[regex(r"[0-9]+", |lex| lex.slice().to_string())]
    Int(String),
    #[regex(r"[0-9]+\.[0-9]*([eE][+-]?[0-9]+)?", |lex| lex.slice().to_string())]
    #[regex(r"[0-9]+[eE][+-]?[0-9]+", |lex| lex.slice().to_string())]
    Float(String),
    #[regex(r#""[^"\n]*""#, |lex| { let s = lex.slice(); s[1..s.len() - 1].to_string() })]
    Str(String),
    #[regex(r#"r"[^"\n]*""#, |lex| { let s = lex.slice(); s[2..s.len() - 1].to_string() })]
    Regexp(String),
    #[token("<-")]
    LArrow,
    #[token(";")]
    Semi,
    #[token("CNT", |_| AggOp::Cnt)]
    #[token("SUM", |_| AggOp::Sum)]
    #[token("MIN", |_| AggOp::Min)]
    #[token("MAX", |_| AggOp::Max)]
    #[token("AVG", |_| AggOp::Avg)]
    #[token("MED", |_| AggOp::Med)]
    Agg(AggOp),
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
    #[token(".")]
    Dot,
    #[token("=")]
    Eq,
    #[token("<")]
    Lt,
    #[token("<=")]
    Le,
    #[token(">")]
    Gt,
    #[token(">=")]
    Ge,
    #[token("+")]
    Plus,
    #[token("-")]
    Minus,
    #[token("*")]
    Star,
    #[token("/")]
    Slash,
}

/// Every spelling the lexer reads as a keyword, for "did you mean" suggestions. The `#[token]`
/// attributes above cannot be enumerated, so this repeats them; a test checks that each entry
/// lexes as a keyword.
#[rustfmt::skip]
pub const KEYWORDS: &[&str] = &[
    "NOT", "not", "AND", "and", "OR", "or", "IMPLIES", "implies", "EQUIV", "equiv",
    "EXISTS", "exists", "FORALL", "forall",
    "PREV", "PREVIOUS", "prev", "previous", "NEXT", "next",
    "ONCE", "once", "EVENTUALLY", "SOMETIMES", "eventually",
    "PAST_ALWAYS", "HISTORICALLY", "past_always", "historically", "ALWAYS", "always",
    "SINCE", "since", "UNTIL", "until",
    "TRUE", "FALSE", "LET", "IN", "MOD", "SUBSTRING", "MATCHES",
    "CNT", "SUM", "MIN", "MAX", "AVG", "MED",
];

impl Tok {
    /// How the token is named in "expected …, found …" messages.
    pub fn describe(&self) -> String {
        match self {
            Tok::Ident(s) => format!("identifier `{s}`"),
            Tok::Int(s) | Tok::Float(s) => format!("number `{s}`"),
            Tok::Str(s) => format!("string \"{s}\""),
            Tok::Regexp(s) => format!("regular expression r\"{s}\""),
            Tok::Agg(op) => format!("`{}`", op.keyword()),
            other => {
                let text = match other {
                    Tok::Comment => "(*",
                    Tok::Not => "NOT",
                    Tok::And => "AND",
                    Tok::Or => "OR",
                    Tok::Implies => "IMPLIES",
                    Tok::Equiv => "EQUIV",
                    Tok::Exists => "EXISTS",
                    Tok::Forall => "FORALL",
                    Tok::Previous => "PREVIOUS",
                    Tok::Next => "NEXT",
                    Tok::Once => "ONCE",
                    Tok::Eventually => "EVENTUALLY",
                    Tok::PastAlways => "PAST_ALWAYS",
                    Tok::Always => "ALWAYS",
                    Tok::Since => "SINCE",
                    Tok::Until => "UNTIL",
                    Tok::True => "TRUE",
                    Tok::False => "FALSE",
                    Tok::Let => "LET",
                    Tok::In => "IN",
                    Tok::Mod => "MOD",
                    Tok::Substring => "SUBSTRING",
                    Tok::Matches => "MATCHES",
                    Tok::LParen => "(",
                    Tok::RParen => ")",
                    Tok::LBracket => "[",
                    Tok::RBracket => "]",
                    Tok::Comma => ",",
                    Tok::Dot => ".",
                    Tok::Eq => "=",
                    Tok::Lt => "<",
                    Tok::Le => "<=",
                    Tok::Gt => ">",
                    Tok::Ge => ">=",
                    Tok::Plus => "+",
                    Tok::Minus => "-",
                    Tok::Star => "*",
                    Tok::Slash => "/",
                    Tok::LArrow => "<-",
                    Tok::Semi => ";",
                    Tok::Ident(_)
                    | Tok::Int(_)
                    | Tok::Float(_)
                    | Tok::Str(_)
                    | Tok::Regexp(_)
                    | Tok::Agg(_) => {
                        unreachable!()
                    }
                };
                format!("`{text}`")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `KEYWORDS` repeats the `#[token]` spellings: each must still lex as a keyword.
    #[test]
    fn every_listed_keyword_is_one() {
        for kw in KEYWORDS {
            let toks: Vec<_> = Tok::lexer(kw).collect();
            assert_eq!(toks.len(), 1, "{kw}");
            assert!(
                matches!(&toks[0], Ok(t) if !matches!(t, Tok::Ident(_))),
                "{kw} lexes as {:?}",
                toks[0]
            );
        }
    }
}
