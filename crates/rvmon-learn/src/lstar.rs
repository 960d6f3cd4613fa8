//! L* (Angluin) as AALpy's `run_Lstar` runs it by default, so that its query counts can be
//! compared with AALpy's: closing shortest-first, one suffix per counterexample found by
//! Rivest–Schapire's binary search (so no consistency check), each cell the outputs of a
//! suffix's every prefix (AALpy's `all_prefixes_in_obs_table`), the table filled from its
//! last row up (which decides what the cache answers).

use std::collections::HashMap;

use crate::dfa::Dfa;
use crate::rs::{rs_suffix, Hypothesis};
use crate::teacher::Teacher;
use crate::{Equivalence, Learned};

type Word = Vec<usize>;
/// A cell: the outputs after the suffix's prefixes (one for a suffix of length 0 or 1).
type Row = Vec<Vec<bool>>;

struct Table {
    k: usize,
    s: Vec<Word>,
    e: Vec<Word>,
    t: HashMap<Word, Row>,
}

impl Table {
    /// The one-symbol extensions of S not in S, in order.
    fn s_dot_a(&self) -> Vec<Word> {
        let in_s: std::collections::HashSet<&Word> = self.s.iter().collect();
        let mut out = Vec::new();
        for s in &self.s {
            for a in 0..self.k {
                let mut w = s.clone();
                w.push(a);
                if !in_s.contains(&w) {
                    out.push(w);
                }
            }
        }
        out
    }

    /// Completes the rows `rows` (all of S and S·A if `None`) with the cells of `suffixes`
    /// (all of E if `None`), from the last row up.
    fn fill(&mut self, rows: Option<Vec<Word>>, suffixes: Option<&[Word]>, teacher: &mut Teacher) {
        let rows = rows.unwrap_or_else(|| {
            let mut all = self.s.clone();
            all.extend(self.s_dot_a());
            all
        });
        let suffixes: Vec<Word> = suffixes.map_or_else(|| self.e.clone(), <[Word]>::to_vec);
        let width = self.e.len();
        for s in rows.iter().rev() {
            for e in &suffixes {
                let row = self.t.entry(s.clone()).or_default();
                if row.len() == width {
                    continue;
                }
                let mut w = s.clone();
                w.extend_from_slice(e);
                let cell = if e.len() <= 1 {
                    vec![teacher.member(&w)]
                } else {
                    teacher.outputs(&w, e.len())
                };
                self.t.get_mut(s).expect("the row").push(cell);
            }
        }
    }

    /// The rows of S·A to move into S, in order, one per new row value; `None` if closed.
    fn rows_to_close(&self) -> Option<Vec<Word>> {
        let in_s: std::collections::HashSet<&Row> = self.s.iter().map(|s| &self.t[s]).collect();
        let mut seen = std::collections::HashSet::new();
        let mut out = Vec::new();
        for t in self.s_dot_a() {
            let row = &self.t[&t];
            if !in_s.contains(row) && seen.insert(row.clone()) {
                out.push(t);
            }
        }
        (!out.is_empty()).then_some(out)
    }

    /// The hypothesis: a state per row of S (S's order), each transition to the last row of
    /// S with the extension's value.
    fn hypothesis(&self, alphabet: &[String]) -> Hypothesis {
        let mut by_row: HashMap<&Row, usize> = HashMap::new();
        for (q, s) in self.s.iter().enumerate() {
            by_row.insert(&self.t[s], q);
        }
        let mut dfa = Dfa::new(alphabet.to_vec(), self.s.len());
        for (q, s) in self.s.iter().enumerate() {
            dfa.accepting[q] = self.t[s][0][0];
            for a in 0..self.k {
                let mut w = s.clone();
                w.push(a);
                dfa.delta[q * self.k + a] = by_row[&self.t[&w]];
            }
        }
        Hypothesis {
            dfa,
            access: self.s.clone(),
        }
    }
}

/// Learns the system behind `teacher` over `alphabet`.
pub fn learn(alphabet: &[String], teacher: &mut Teacher, eq: &mut dyn Equivalence) -> Learned {
    let k = alphabet.len();
    let mut table = Table {
        k,
        s: vec![vec![]],
        e: vec![vec![]],
        t: HashMap::new(),
    };
    table.fill(None, None, teacher);
    let mut cex: Option<Word> = None;
    loop {
        while let Some(rows) = table.rows_to_close() {
            let mut extensions = Vec::new();
            for row in rows {
                table.s.push(row.clone());
                extensions.extend((0..k).map(|a| {
                    let mut w = row.clone();
                    w.push(a);
                    w
                }));
            }
            table.fill(Some(extensions), None, teacher);
        }
        let hyp = table.hypothesis(alphabet);
        // (A counterexample may still be one after its suffix is added: then it is used
        // again, without asking the oracle.)
        let still = cex
            .as_ref()
            .is_some_and(|c| teacher.member(c) != hyp.dfa.accepts(c));
        if !still {
            cex = eq.counterexample(&hyp.dfa, teacher);
        }
        let Some(c) = &cex else {
            return Learned { dfa: hyp.dfa };
        };
        let suffix = rs_suffix(c, &hyp, teacher);
        if !table.e.contains(&suffix) {
            table.e.push(suffix.clone());
            table.fill(None, Some(&[suffix]), teacher);
        }
    }
}
