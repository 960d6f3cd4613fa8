//! "Did you mean": the keyword a misspelt word most plausibly stands for.
//!
//! A misspelt keyword is an identifier to the lexer, so `EVENTUALY p()` reads as the term
//! `EVENTUALY` of a comparison and fails at `p` with a message about comparisons. Naming the
//! word and the keyword it resembles says what is actually wrong.

use crate::lexer::KEYWORDS;

/// Keywords are at most this long; a longer word is never within reach of one (and a huge
/// identifier must not cost a huge distance table).
const LONGEST_KEYWORD: usize = 12;

/// The optimal-string-alignment distance: Levenshtein's edits plus the transposition of two
/// adjacent characters, so that `ADN` is one edit from `AND`, as a typist would count it.
fn distance(a: &[char], b: &[char]) -> usize {
    let n = b.len();
    let mut before: Vec<usize> = vec![0; n + 1];
    let mut prev: Vec<usize> = (0..=n).collect();
    let mut cur: Vec<usize> = vec![0; n + 1];
    for i in 1..=a.len() {
        cur[0] = i;
        for j in 1..=n {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut d = (prev[j] + 1).min(cur[j - 1] + 1).min(prev[j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                d = d.min(before[j - 2] + 1);
            }
            cur[j] = d;
        }
        std::mem::swap(&mut before, &mut prev);
        std::mem::swap(&mut prev, &mut cur);
    }
    prev[n]
}

/// The keyword `word` most plausibly misspells: case-insensitive distance at most 2, and at
/// most 1 for words of 3 to 5 characters and 0 (a keyword in the wrong case, `Always`) for
/// shorter ones, so that short proposition names (`a`, `p`, `ok`) are not taken for `AND`,
/// `IN` or `OR`. Ties go to the keyword listed first. The suggestion is the lower-case alias
/// when the word is in lower case and the alias exists (`eventualy` → `eventually`).
pub fn nearest_keyword(word: &str) -> Option<&'static str> {
    if word.chars().count() > LONGEST_KEYWORD + 2 {
        return None;
    }
    let w: Vec<char> = word.to_uppercase().chars().collect();
    let allowed = match w.len() {
        0..=2 => 0,
        3..=5 => 1,
        _ => 2,
    };
    let mut best: Option<(usize, &'static str)> = None;
    for kw in KEYWORDS
        .iter()
        .filter(|k| !k.bytes().any(|b| b.is_ascii_lowercase()))
    {
        let d = distance(&w, &kw.chars().collect::<Vec<_>>());
        if d <= allowed && best.is_none_or(|(bd, _)| d < bd) {
            best = Some((d, kw));
        }
    }
    let (_, kw) = best?;
    if !word.bytes().any(|b| b.is_ascii_uppercase()) {
        let lower = kw.to_lowercase();
        if let Some(alias) = KEYWORDS.iter().find(|k| **k == lower) {
            return Some(alias);
        }
    }
    Some(kw)
}

/// The message for `word` taken for `keyword`.
pub fn did_you_mean(word: &str, keyword: &str) -> String {
    format!("`{word}` is not a keyword: did you mean `{keyword}`?")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn near_misses_are_found_and_short_names_left_alone() {
        assert_eq!(nearest_keyword("EVENTUALY"), Some("EVENTUALLY"));
        assert_eq!(nearest_keyword("eventualy"), Some("eventually"));
        assert_eq!(nearest_keyword("Eventually"), Some("EVENTUALLY"));
        assert_eq!(nearest_keyword("ADN"), Some("AND"));
        assert_eq!(nearest_keyword("UNTL"), Some("UNTIL"));
        assert_eq!(nearest_keyword("true"), Some("TRUE"));
        assert_eq!(nearest_keyword("PASTALWAYS"), Some("PAST_ALWAYS"));
        for name in ["a", "p", "ok", "request", "grant", "x", "EVENTUALLYYYY"] {
            assert_eq!(nearest_keyword(name), None, "{name}");
        }
        assert_eq!(nearest_keyword(&"A".repeat(10_000)), None);
    }

    #[test]
    fn distance_counts_a_transposition_as_one_edit() {
        let d = |a: &str, b: &str| {
            distance(
                &a.chars().collect::<Vec<_>>(),
                &b.chars().collect::<Vec<_>>(),
            )
        };
        assert_eq!(d("ADN", "AND"), 1);
        assert_eq!(d("", "AND"), 3);
        assert_eq!(d("KITTEN", "SITTING"), 3);
        assert_eq!(d("SINCE", "SINCE"), 0);
    }
}
