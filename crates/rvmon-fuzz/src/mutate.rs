//! Inputs: arbitrary bytes, and seeds (valid inputs of the target) changed by a few edits
//! that know a little of the grammar: the target's tokens inserted, lines dropped, doubled
//! or swapped, pieces of seeds spliced in, a piece repeated, a range wrapped in nesting pairs,
//! numbers replaced by edge values. Random bytes rarely get past a lexer; mutated seeds reach
//! the parsers' deep states, the compilers and the engines. Each input is a seed and a list of
//! edits, so proptest shrinks a failure to the fewest edits.

use proptest::prelude::*;
use proptest::sample::Index;

/// What a target's inputs are made from.
#[derive(Clone, Debug)]
pub struct Grammar {
    pub seeds: Vec<Vec<u8>>,
    /// Tokens of the target's language, inserted whole.
    pub tokens: Vec<&'static str>,
    /// Pairs that nest (`(` and `)`, `NOT ` and nothing), wrapped around a range.
    pub nests: Vec<(&'static str, &'static str)>,
    /// The deepest nesting and the most repetitions an edit makes.
    pub max_depth: usize,
}

#[derive(Clone, Debug)]
enum Edit {
    /// Replace, insert or delete one byte.
    Byte(Index, u8, u8),
    Token(Index, Index),
    /// Delete (0), duplicate (1) or swap with another (2) a line.
    Line(u8, Index, Index),
    /// Copy a piece of any seed to a place.
    Splice(Index, Index, Index, Index),
    /// Repeat a piece of the input in place.
    Repeat(Index, Index, usize),
    /// Wrap a range in a nesting pair, `depth` times.
    Nest(Index, Index, Index, usize),
    /// Replace the number at or after a place by an edge value.
    Number(Index, Index),
}

const NUMBERS: [&str; 14] = [
    "0",
    "-1",
    "-0",
    "9223372036854775807",
    "9223372036854775808",
    "-9223372036854775808",
    "18446744073709551616",
    "4294967296",
    "1e308",
    "1e999",
    "-1e-999",
    "0.0000000001",
    "NaN",
    "inf",
];

/// The longest input made (the seeds are far shorter): bounds a case's time.
const MAX_LEN: usize = 1 << 16;

/// Inputs for a target of grammar `g`.
pub fn inputs(g: Grammar) -> impl Strategy<Value = Vec<u8>> {
    // Mostly shallow: deep nesting and long repetitions are slow to run and few are needed.
    let most = g.max_depth.clamp(3, 64);
    let depth = prop_oneof![9 => 2..most, 1 => 2..g.max_depth.max(3)];
    let edit = prop_oneof![
        4 => (any::<Index>(), any::<u8>(), 0u8..3).prop_map(|(i, b, k)| Edit::Byte(i, b, k)),
        3 => (any::<Index>(), any::<Index>()).prop_map(|(i, t)| Edit::Token(i, t)),
        2 => (0u8..3, any::<Index>(), any::<Index>()).prop_map(|(k, a, b)| Edit::Line(k, a, b)),
        2 => (any::<Index>(), any::<Index>(), any::<Index>(), any::<Index>())
            .prop_map(|(s, a, n, at)| Edit::Splice(s, a, n, at)),
        1 => (any::<Index>(), any::<Index>(), depth.clone()).prop_map(|(a, n, k)| Edit::Repeat(a, n, k)),
        1 => (any::<Index>(), any::<Index>(), any::<Index>(), depth)
            .prop_map(|(a, b, p, d)| Edit::Nest(a, b, p, d)),
        1 => (any::<Index>(), any::<Index>()).prop_map(|(a, n)| Edit::Number(a, n)),
    ];
    let seeds = g.seeds.clone();
    // Mostly one or two edits, which keep much of the seed valid, so that the input gets far.
    let edits = prop_oneof![
        3 => prop::collection::vec(edit.clone(), 1..3),
        1 => prop::collection::vec(edit, 0..8),
    ];
    let mutated = (any::<Index>(), edits).prop_map(move |(seed, edits)| {
        let mut b = seeds[seed.index(seeds.len())].clone();
        for e in &edits {
            apply(&mut b, e, &g);
            b.truncate(MAX_LEN);
        }
        b
    });
    prop_oneof![
        1 => prop::collection::vec(any::<u8>(), 0..256),
        1 => "[ -~\n\t]{0,120}".prop_map(String::into_bytes),
        8 => mutated,
    ]
}

fn apply(b: &mut Vec<u8>, edit: &Edit, g: &Grammar) {
    let at = |i: &Index, len: usize| i.index(len + 1);
    match edit {
        Edit::Byte(i, byte, kind) => match kind {
            0 if !b.is_empty() => {
                let i = i.index(b.len());
                b[i] = *byte;
            }
            1 if !b.is_empty() => {
                b.remove(i.index(b.len()));
            }
            _ => b.insert(at(i, b.len()), *byte),
        },
        Edit::Token(i, t) if !g.tokens.is_empty() => {
            let token = g.tokens[t.index(g.tokens.len())].as_bytes();
            let i = at(i, b.len());
            b.splice(i..i, token.iter().copied());
        }
        Edit::Line(kind, x, y) => edit_lines(b, *kind, x, y),
        Edit::Splice(s, start, len, to) => {
            let seed = &g.seeds[s.index(g.seeds.len())];
            let a = start.index(seed.len() + 1);
            let n = len.index(seed.len() - a + 1);
            let piece = seed[a..a + n].to_vec();
            let to = at(to, b.len());
            b.splice(to..to, piece);
        }
        Edit::Repeat(start, len, k) => {
            let a = start.index(b.len() + 1);
            let n = len.index((b.len() - a).min(64) + 1);
            let piece = b[a..a + n].to_vec();
            let copies: Vec<u8> = piece.iter().copied().cycle().take(n * (k - 1)).collect();
            b.splice(a..a, copies);
        }
        Edit::Nest(x, y, p, depth) if !g.nests.is_empty() => {
            let pair = g.nests[p.index(g.nests.len())];
            let (x, y) = (at(x, b.len()), at(y, b.len()));
            wrap(b, x.min(y)..x.max(y), pair, *depth);
        }
        Edit::Number(i, n) => {
            let from = at(i, b.len());
            let Some(start) = b[from..].iter().position(u8::is_ascii_digit) else {
                return;
            };
            let start = from + start;
            let end = start + b[start..].iter().take_while(|c| c.is_ascii_digit()).count();
            let value = NUMBERS[n.index(NUMBERS.len())].bytes();
            b.splice(start..end, value);
        }
        Edit::Token(..) | Edit::Nest(..) => {}
    }
}

/// Wraps `range` of `b` in `depth` pairs `open`…`close`.
fn wrap(b: &mut Vec<u8>, range: std::ops::Range<usize>, (open, close): (&str, &str), depth: usize) {
    b.splice(
        range.end..range.end,
        close.bytes().cycle().take(close.len() * depth),
    );
    b.splice(
        range.start..range.start,
        open.bytes().cycle().take(open.len() * depth),
    );
}

fn edit_lines(b: &mut Vec<u8>, kind: u8, x: &Index, y: &Index) {
    let mut lines: Vec<Vec<u8>> = b.split(|&c| c == b'\n').map(<[u8]>::to_vec).collect();
    let i = x.index(lines.len());
    match kind {
        0 if lines.len() > 1 => {
            lines.remove(i);
        }
        1 => {
            let line = lines[i].clone();
            lines.insert(y.index(lines.len() + 1), line);
        }
        _ => {
            let j = y.index(lines.len());
            lines.swap(i, j);
        }
    }
    *b = lines.join(&b'\n');
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;

    /// Most inputs differ from their seeds, and nesting reaches the depth asked for.
    #[test]
    fn edits_change_the_seeds() {
        let g = Grammar {
            seeds: vec![b"p(1) AND q(2)\nr()".to_vec()],
            tokens: vec!["NOT "],
            nests: vec![("(", ")")],
            max_depth: 50,
        };
        let mut runner = TestRunner::deterministic();
        let s = inputs(g.clone());
        let changed = (0..200)
            .filter(|_| s.new_tree(&mut runner).unwrap().current() != g.seeds[0])
            .count();
        assert!(changed > 150, "{changed}");
        let mut b = b"xaby".to_vec();
        wrap(&mut b, 1..3, ("(", ")"), 5);
        assert_eq!(b, b"x(((((ab)))))y");
    }
}
