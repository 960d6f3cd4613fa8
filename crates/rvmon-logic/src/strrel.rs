//! MonPoly's string relations: `SUBSTRING`, and `MATCHES` with OCaml `Str` regular expressions
//! (`\(…\)` groups, `\|` alternation; plain parentheses, bars and braces are literal),
//! translated to the `regex` crate's syntax. Matching is a search (the expression may occur
//! anywhere), as `Str.search_forward` does.

use regex::Regex;

/// Translates an OCaml `Str` expression into `regex` syntax.
pub fn str_to_regex(pattern: &str) -> String {
    let mut out = String::with_capacity(pattern.len() + 8);
    let mut chars = pattern.chars().peekable();
    let mut in_class = false;
    while let Some(c) = chars.next() {
        if in_class {
            if c == ']' {
                in_class = false;
            }
            if c == '\\' || c == '[' {
                out.push('\\');
            }
            out.push(c);
            continue;
        }
        match c {
            '\\' => match chars.next() {
                Some('(') => out.push('('),
                Some(')') => out.push(')'),
                Some('|') => out.push('|'),
                Some(d) => {
                    out.push('\\');
                    out.push(d);
                }
                None => out.push_str("\\\\"),
            },
            '(' | ')' | '|' | '{' | '}' => {
                out.push('\\');
                out.push(c);
            }
            '[' => {
                in_class = true;
                out.push('[');
                // A `]` right after `[` (or `[^`) is a literal member of the class.
                if chars.peek() == Some(&'^') {
                    out.push(chars.next().expect("peeked"));
                }
                if chars.peek() == Some(&']') {
                    chars.next();
                    out.push_str("\\]");
                }
            }
            c => out.push(c),
        }
    }
    out
}

/// Compiles an OCaml `Str` expression.
pub fn compile_str_regex(pattern: &str) -> Result<Regex, String> {
    Regex::new(&str_to_regex(pattern))
        .map_err(|e| format!("invalid regular expression r\"{pattern}\": {e}"))
}

/// The groups of the first match of `re` in `s` (index 0 = group 1), `None` for a group that
/// did not take part; `None` overall when there is no match.
pub fn match_groups(re: &Regex, s: &str) -> Option<Vec<Option<String>>> {
    let caps = re.captures(s)?;
    Some(
        (1..caps.len())
            .map(|i| caps.get(i).map(|m| m.as_str().to_string()))
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn translation_and_matching() {
        assert_eq!(str_to_regex(r"\(z\)*\(a+\)b"), r"(z)*(a+)b");
        assert_eq!(str_to_regex(r"a(b)|c{2}"), r"a\(b\)\|c\{2\}");
        let re = compile_str_regex(r"\(z\)*\(a+\)b").unwrap();
        assert_eq!(
            match_groups(&re, "zzzab"),
            Some(vec![Some("z".into()), Some("a".into())])
        );
        assert_eq!(
            match_groups(&re, "aabc"),
            Some(vec![None, Some("aa".into())])
        );
        assert_eq!(match_groups(&re, "xyz"), None);
    }
}
