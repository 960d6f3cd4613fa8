//! MonPoly signature files: `pred(x:int, y:string)` or the untyped-name form `pred(int, string)`,
//! one declaration after another, separated by any whitespace.

use crate::Error;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Type {
    Int,
    Float,
    Str,
    /// MonPoly's `regexp` type: a string that is used as a pattern.
    Regexp,
}

impl Type {
    fn parse(s: &str) -> Option<Type> {
        Some(match s {
            "int" => Type::Int,
            "float" => Type::Float,
            "string" => Type::Str,
            "regexp" => Type::Regexp,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            Type::Int => "int",
            Type::Float => "float",
            Type::Str => "string",
            Type::Regexp => "regexp",
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PredDecl {
    pub name: String,
    /// Argument names where the signature gives them (`x:int`), and their types.
    pub args: Vec<(Option<String>, Type)>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Signature {
    pub preds: Vec<PredDecl>,
}

impl Signature {
    pub fn get(&self, name: &str) -> Option<&PredDecl> {
        self.preds.iter().find(|p| p.name == name)
    }

    /// Parses signature text; `file` names it in error messages.
    pub fn parse(file: &str, text: &str) -> Result<Signature, Error> {
        let mut p = SigParser { file, text, pos: 0 };
        let mut preds: Vec<PredDecl> = Vec::new();
        loop {
            p.skip_ws();
            if p.pos >= text.len() {
                break;
            }
            let start = p.pos;
            let name = p
                .ident()
                .ok_or_else(|| p.err("expected a predicate name"))?;
            if preds.iter().any(|d| d.name == name) {
                return Err(Error::at_offset(
                    file,
                    text,
                    start,
                    format!("predicate `{name}` is declared twice"),
                ));
            }
            p.skip_ws();
            p.expect(b'(', "expected `(` after the predicate name")?;
            let mut args = Vec::new();
            p.skip_ws();
            if !p.eat(b')') {
                loop {
                    p.skip_ws();
                    let first = p
                        .ident()
                        .ok_or_else(|| p.err("expected an argument type"))?;
                    p.skip_ws();
                    let (arg_name, ty_str, ty_pos) = if p.eat(b':') {
                        p.skip_ws();
                        let ty_pos = p.pos;
                        let ty = p
                            .ident()
                            .ok_or_else(|| p.err("expected a type after `:`"))?;
                        (Some(first), ty, ty_pos)
                    } else {
                        (None, first, p.pos)
                    };
                    let ty = Type::parse(&ty_str).ok_or_else(|| {
                        Error::at_offset(
                            file,
                            text,
                            ty_pos.saturating_sub(if arg_name.is_none() {
                                ty_str.len()
                            } else {
                                0
                            }),
                            format!(
                                "unknown type `{ty_str}`: expected int, float, string or regexp"
                            ),
                        )
                    })?;
                    args.push((arg_name, ty));
                    p.skip_ws();
                    if p.eat(b')') {
                        break;
                    }
                    p.expect(b',', "expected `,` or `)` in the argument list")?;
                }
            }
            preds.push(PredDecl { name, args });
        }
        Ok(Signature { preds })
    }
}

struct SigParser<'a> {
    file: &'a str,
    text: &'a str,
    pos: usize,
}

impl SigParser<'_> {
    fn skip_ws(&mut self) {
        let b = self.text.as_bytes();
        while self.pos < b.len() {
            if b[self.pos].is_ascii_whitespace() {
                self.pos += 1;
            } else if b[self.pos] == b'#' {
                while self.pos < b.len() && b[self.pos] != b'\n' {
                    self.pos += 1;
                }
            } else {
                break;
            }
        }
    }

    fn ident(&mut self) -> Option<String> {
        let b = self.text.as_bytes();
        let start = self.pos;
        while self.pos < b.len() && (b[self.pos].is_ascii_alphanumeric() || b[self.pos] == b'_') {
            self.pos += 1;
        }
        (self.pos > start).then(|| self.text[start..self.pos].to_string())
    }

    fn eat(&mut self, c: u8) -> bool {
        if self.text.as_bytes().get(self.pos) == Some(&c) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn expect(&mut self, c: u8, what: &str) -> Result<(), Error> {
        if self.eat(c) {
            Ok(())
        } else {
            Err(self.err(what))
        }
    }

    fn err(&self, what: &str) -> Error {
        let found = match self.text[self.pos..].chars().next() {
            Some(c) => format!("found `{c}`"),
            None => "found the end of the file".to_string(),
        };
        Error::at_offset(self.file, self.text, self.pos, format!("{what}, {found}"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typed_and_untyped_forms() {
        let s = Signature::parse("s", "p(x:int, y:string)\ntrans (int, float)\nr()").unwrap();
        assert_eq!(s.preds.len(), 3);
        assert_eq!(s.get("p").unwrap().args[1], (Some("y".into()), Type::Str));
        assert_eq!(
            s.get("trans").unwrap().args,
            vec![(None, Type::Int), (None, Type::Float)]
        );
        assert!(s.get("r").unwrap().args.is_empty());
    }

    #[test]
    fn bad_type_points_at_it() {
        let e = Signature::parse("s.sig", "p(int)\nq(x:integer)").unwrap_err();
        assert_eq!(
            e.to_string(),
            "s.sig:2:5: unknown type `integer`: expected int, float, string or regexp"
        );
    }

    #[test]
    fn missing_paren() {
        let e = Signature::parse("s.sig", "p int").unwrap_err();
        assert!(e.to_string().starts_with("s.sig:1:3: expected `(`"), "{e}");
    }
}
