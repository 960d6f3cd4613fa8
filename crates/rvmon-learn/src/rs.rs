//! Rivest–Schapire's counterexample analysis, as AALpy's `rs_cex_processing` does it (so
//! that counts compare): a binary search over the counterexample `w` for the point where
//! replacing the prefix read so far by the access word of the hypothesis state it leads to
//! changes the system's answer; the suffix after that point distinguishes two states the
//! hypothesis merges.

use crate::dfa::Dfa;
use crate::teacher::Teacher;

/// A hypothesis with each state's access word.
pub struct Hypothesis {
    pub dfa: Dfa,
    pub access: Vec<Vec<usize>>,
}

impl Hypothesis {
    /// The access word of the state `prefix` leads to.
    pub fn access_of(&self, prefix: &[usize]) -> &[usize] {
        &self.access[self.dfa.run_from(self.dfa.initial, prefix)]
    }
}

/// The distinguishing suffix of the counterexample `cex` (AALpy's search bounds: from 1 to
/// `|cex| - 2`, halves rounded down).
pub fn rs_suffix(cex: &[usize], hyp: &Hypothesis, teacher: &mut Teacher) -> Vec<usize> {
    let out = teacher.member(cex);
    let (mut lower, mut upper) = (1i64, cex.len() as i64 - 2);
    loop {
        let mid = (lower + upper).div_euclid(2);
        let mid_at = mid.max(0) as usize;
        let d = &cex[mid_at..];
        let mut w = hyp.access_of(&cex[..mid_at]).to_vec();
        w.extend_from_slice(d);
        if teacher.member(&w) == out {
            lower = mid + 1;
            if upper < lower {
                return d[1..].to_vec();
            }
        } else {
            upper = mid - 1;
            if upper < lower {
                return d.to_vec();
            }
        }
    }
}
