//! Tokens of RTLola's syntax (`rtlola-parser`'s grammar), with Unicode operator spellings.

use logos::Logos;

#[derive(Logos, Clone, Debug, PartialEq)]
#[logos(skip r"[ \t\r\n\f\u{FEFF}]+")]
#[logos(skip r"//[^\n]*")]
pub enum Tok {
    /// `/* … */`, skipped (not nested, as in RTLola); an unterminated one runs to the end.
    #[token("/*", block_comment)]
    BlockComment,
    #[token("input")]
    Input,
    #[token("output")]
    Output,
    #[token("trigger")]
    Trigger,
    #[token("import")]
    Import,
    #[token("eval")]
    Eval,
    #[token("when")]
    When,
    #[token("with")]
    With,
    #[token("spawn")]
    Spawn,
    #[token("close")]
    Close,
    #[token("if")]
    If,
    #[token("then")]
    Then,
    #[token("else")]
    Else,
    #[token("true")]
    #[token("⊤")]
    True,
    #[token("false")]
    #[token("⊥")]
    False,
    #[regex(r"[A-Za-z_][A-Za-z0-9_']*(::[A-Za-z_][A-Za-z0-9_']*)*", |l| l.slice().to_string(), priority = 1)]
    // The window aggregations' symbols (`using: Σ`) are names too.
    #[regex("Σ|∫|∀|∃|σ²?|µ", |l| l.slice().to_string())]
    Ident(String),
    /// `#`: the aggregation `count`'s symbol.
    #[token("#")]
    Hash,
    /// A number, possibly with a unit (`10Hz`, `0.5s`): the unit is kept for the error that
    /// says periodic streams are not supported.
    #[regex(r"[0-9]+(\.[0-9]+)?([eE][+-]?[0-9]+)?[A-Za-zμ]*", |l| l.slice().to_string())]
    Number(String),
    #[regex(r#""([^"\\]|\\.)*""#, |l| { let s = l.slice(); s[1..s.len() - 1].to_string() })]
    Str(String),
    #[token(":=")]
    Define,
    #[token(":")]
    Colon,
    #[token(",")]
    Comma,
    #[token("(")]
    LParen,
    #[token(")")]
    RParen,
    #[token("[")]
    LBracket,
    #[token("]")]
    RBracket,
    #[token("@")]
    At,
    #[token(".")]
    Dot,
    #[token("?")]
    Question,
    #[token("->")]
    #[token("→")]
    #[token("implies")]
    Implies,
    #[token("||")]
    #[token("∨")]
    #[token("or")]
    Or,
    #[token("&&")]
    #[token("∧")]
    #[token("and")]
    And,
    #[token("|")]
    Bar,
    #[token("&")]
    Amp,
    #[token("^")]
    Caret,
    #[token("==")]
    #[token("=")]
    Eq,
    #[token("!=")]
    #[token("≠")]
    Ne,
    #[token("<")]
    Lt,
    #[token("<=")]
    #[token("≤")]
    Le,
    #[token(">")]
    Gt,
    #[token(">=")]
    #[token("≥")]
    Ge,
    #[token("<<")]
    Shl,
    #[token(">>")]
    Shr,
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
    #[token("**")]
    Pow,
    #[token("!")]
    #[token("¬")]
    #[token("not")]
    Not,
    #[token("~")]
    Tilde,
}

fn block_comment(lex: &mut logos::Lexer<Tok>) -> logos::Skip {
    let rest = lex.remainder();
    lex.bump(rest.find("*/").map_or(rest.len(), |i| i + 2));
    logos::Skip
}

impl Tok {
    /// How the token reads in an error message.
    pub fn describe(&self) -> String {
        match self {
            Tok::Ident(s) => format!("name `{s}`"),
            Tok::Number(s) => format!("number `{s}`"),
            Tok::Str(s) => format!("string \"{s}\""),
            other => format!("`{}`", symbol(other)),
        }
    }
}

fn symbol(t: &Tok) -> &'static str {
    match t {
        Tok::Input => "input",
        Tok::Output => "output",
        Tok::Trigger => "trigger",
        Tok::Import => "import",
        Tok::Eval => "eval",
        Tok::When => "when",
        Tok::With => "with",
        Tok::Spawn => "spawn",
        Tok::Close => "close",
        Tok::If => "if",
        Tok::Then => "then",
        Tok::Else => "else",
        Tok::True => "true",
        Tok::False => "false",
        Tok::Define => ":=",
        Tok::Colon => ":",
        Tok::Comma => ",",
        Tok::LParen => "(",
        Tok::RParen => ")",
        Tok::LBracket => "[",
        Tok::RBracket => "]",
        Tok::At => "@",
        Tok::Dot => ".",
        Tok::Question => "?",
        Tok::Implies => "->",
        Tok::Or => "||",
        Tok::And => "&&",
        Tok::Bar => "|",
        Tok::Amp => "&",
        Tok::Caret => "^",
        Tok::Eq => "==",
        Tok::Ne => "!=",
        Tok::Lt => "<",
        Tok::Le => "<=",
        Tok::Gt => ">",
        Tok::Ge => ">=",
        Tok::Shl => "<<",
        Tok::Shr => ">>",
        Tok::Plus => "+",
        Tok::Minus => "-",
        Tok::Star => "*",
        Tok::Slash => "/",
        Tok::Percent => "%",
        Tok::Pow => "**",
        Tok::Not => "!",
        Tok::Tilde => "~",
        Tok::Hash => "#",
        Tok::BlockComment => "/*",
        Tok::Ident(_) | Tok::Number(_) | Tok::Str(_) => "",
    }
}
