//! Active automata learning (paper 26): a learner asks a teacher membership queries (is this
//! word accepted?) and equivalence queries (is this automaton right? if not, a word where it
//! is wrong), and ends with the minimal DFA of the system's language.
//!
//! * [`teacher`]: the system under learning behind counters and AALpy's query cache.
//! * [`eq`]: equivalence oracles: the perfect one (a breadth-first product search against a
//!   known target: the shortest counterexample, least in alphabet order) and random words.
//! * The learners, one a file: TTT ([`ttt`], the paper's), and the baselines L* and
//!   Kearns–Vazirani as AALpy runs them (so that their counts can be compared with AALpy's).
//! * [`io`]: automata as AALpy's JSON and DOT files.

pub mod dfa;
pub mod eq;
pub mod io;
mod kv;
mod lstar;
pub mod process;
mod rs;
pub mod teacher;
pub mod ttt;

use dfa::Dfa;
use teacher::{Counters, Teacher};

/// A learning algorithm.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Alg {
    /// TTT (Isberner, Howar, Steffen; paper 26).
    Ttt,
    /// Angluin's L*, with Rivest–Schapire's counterexample analysis (AALpy's defaults).
    Lstar,
    /// Kearns–Vazirani's classification tree, with Rivest–Schapire's analysis (AALpy's).
    Kv,
}

impl Alg {
    pub const NAMES: [&'static str; 3] = ["ttt", "lstar", "kv"];

    pub fn parse(name: &str) -> Option<Alg> {
        Some(match name {
            "ttt" => Alg::Ttt,
            "lstar" => Alg::Lstar,
            "kv" => Alg::Kv,
            _ => return None,
        })
    }
}

/// What a learner returns.
pub struct Learned {
    pub dfa: Dfa,
}

/// An equivalence oracle: a word on which `hyp` and the system differ, or `None` if it
/// finds none. Test words it runs go through the teacher ([`Teacher::test`]).
pub trait Equivalence {
    fn find(&mut self, hyp: &Dfa, teacher: &mut Teacher) -> Option<Vec<usize>>;

    /// [`Equivalence::find`], counted as one equivalence query.
    fn counterexample(&mut self, hyp: &Dfa, teacher: &mut Teacher) -> Option<Vec<usize>> {
        teacher.counters.eq += 1;
        self.find(hyp, teacher)
    }
}

/// Learns the system behind `teacher`, over `alphabet`, with `alg`.
pub fn learn(
    alg: Alg,
    alphabet: &[String],
    teacher: &mut Teacher,
    eq: &mut dyn Equivalence,
) -> Learned {
    match alg {
        Alg::Ttt => ttt::learn(alphabet, teacher, eq),
        Alg::Lstar => lstar::learn(alphabet, teacher, eq),
        Alg::Kv => kv::learn(alphabet, teacher, eq),
    }
}

/// The line a run prints (as AALpy's oracle prints it): `alg=… states=… mq=… mq_steps=…
/// eq=… eq_tests=… equivalent=…`; `equivalent` is left out when there is no target to
/// compare with.
pub fn summary(alg: &str, states: usize, c: &Counters, equivalent: Option<bool>) -> String {
    let mut line = format!(
        "alg={alg} states={states} mq={} mq_steps={} eq={} eq_tests={}",
        c.mq, c.mq_steps, c.eq, c.eq_tests
    );
    if let Some(e) = equivalent {
        line.push_str(&format!(" equivalent={e}"));
    }
    line
}
