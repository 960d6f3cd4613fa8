//! The system under learning behind its counters and cache: what a learner asks, and what
//! the run reports (`mq`, `mq_steps`).
//!
//! The cache follows AALpy's (`CacheSUL`), so the counts are comparable: running a word on
//! the system gives its output after every prefix, and all of them are kept (a tree of
//! words); a query is answered from the cache when its word is a prefix of one already
//! run. The empty word is always sent and never kept (AALpy's cache cannot hold it). Words
//! an equivalence oracle tests fill the cache without counting as membership queries.

/// A system that answers, for a word, whether it is accepted, and, if it can (an automaton,
/// a system that is stepped), whether each of its prefixes is.
pub trait System {
    /// Whether the empty word is accepted.
    fn initial(&mut self) -> bool;
    /// Whether each nonempty prefix of `word` is accepted, `out[i]` for `word[..=i]`; or,
    /// if it answers only whole words ([`System::prefixes`]), whether `word` is: `out[0]`.
    fn run(&mut self, word: &[usize], out: &mut Vec<bool>);
    /// Whether [`System::run`] answers for every prefix.
    fn prefixes(&self) -> bool {
        true
    }
}

impl System for crate::dfa::Dfa {
    fn initial(&mut self) -> bool {
        self.accepting[self.initial]
    }

    fn run(&mut self, word: &[usize], out: &mut Vec<bool>) {
        out.clear();
        let mut q = self.initial;
        for &a in word {
            q = self.step(q, a);
            out.push(self.accepting[q]);
        }
    }
}

/// What a run counts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counters {
    /// Membership queries that reached the system, and their symbols.
    pub mq: u64,
    pub mq_steps: u64,
    /// Equivalence queries, and the test words the equivalence oracle ran.
    pub eq: u64,
    pub eq_tests: u64,
}

/// A node of the cache: its children by symbol (`NONE` if absent) and its output.
const NONE: u32 = u32::MAX;

/// The system, counted and (optionally) cached.
pub struct Teacher<'s> {
    system: &'s mut dyn System,
    k: usize,
    cache: bool,
    /// The tree of words run: node 0 is the empty word; `children[n * k + a]`; the answer
    /// for a node's word, if known.
    children: Vec<u32>,
    output: Vec<Option<bool>>,
    pub counters: Counters,
    scratch: Vec<bool>,
}

impl<'s> Teacher<'s> {
    /// `system` over `symbols` symbols; `cache`: AALpy's query cache.
    pub fn new(system: &'s mut dyn System, symbols: usize, cache: bool) -> Self {
        Teacher {
            system,
            k: symbols,
            cache,
            children: vec![NONE; symbols],
            output: vec![None],
            counters: Counters::default(),
            scratch: Vec::new(),
        }
    }

    /// Whether `word` is accepted (one membership query, unless cached).
    pub fn member(&mut self, word: &[usize]) -> bool {
        if word.is_empty() {
            self.counters.mq += 1;
            return self.system.initial();
        }
        match self.cached(word) {
            Some(node) => self.output[node].unwrap_or_default(),
            None => {
                self.counters.mq += 1;
                self.counters.mq_steps += word.len() as u64;
                self.execute(word);
                *self.scratch.last().expect("a nonempty word")
            }
        }
    }

    /// The outputs after the last `n` prefixes of `word` (`n <= |word|`), oldest first:
    /// one membership query of `word`, unless cached. With `n = 0`, nothing is asked.
    /// A system that answers only whole words is asked each prefix.
    pub fn outputs(&mut self, word: &[usize], n: usize) -> Vec<bool> {
        if n == 0 {
            return Vec::new();
        }
        if !self.system.prefixes() {
            return (word.len() - n + 1..=word.len())
                .map(|i| self.member(&word[..i]))
                .collect();
        }
        if self.cached(word).is_none() {
            self.counters.mq += 1;
            self.counters.mq_steps += word.len() as u64;
            self.execute(word);
            return self.scratch[word.len() - n..].to_vec();
        }
        (word.len() - n + 1..=word.len())
            .map(|i| {
                let node = self.cached(&word[..i]).expect("a cached prefix");
                self.output[node].unwrap_or_default()
            })
            .collect()
    }

    /// Runs a test word of an equivalence oracle: counted as a test, not as a query, and
    /// kept in the cache. Whether each nonempty prefix is accepted (only the word, from a
    /// system that answers whole words).
    pub fn test(&mut self, word: &[usize]) -> &[bool] {
        self.counters.eq_tests += 1;
        self.scratch.clear();
        if word.is_empty() {
            return &self.scratch;
        }
        self.execute(word);
        &self.scratch
    }

    /// Whether the empty word is accepted, asked by an equivalence oracle (not counted: the
    /// learners have all asked it).
    pub fn initial_answer(&mut self) -> bool {
        self.system.initial()
    }

    /// The cache's node of `word`, if its answer is known (never with the cache off).
    fn cached(&self, word: &[usize]) -> Option<usize> {
        if !self.cache {
            return None;
        }
        let mut node = 0usize;
        for &a in word {
            match self.children[node * self.k + a] {
                NONE => return None,
                c => node = c as usize,
            }
        }
        self.output[node].is_some().then_some(node)
    }

    /// Runs `word` on the system (its outputs in `scratch`) and keeps them.
    fn execute(&mut self, word: &[usize]) {
        let mut out = std::mem::take(&mut self.scratch);
        self.system.run(word, &mut out);
        if self.cache {
            // (Whole-word answers: the last node only.)
            let skip = word.len() - out.len();
            let mut node = 0usize;
            for (i, &a) in word.iter().enumerate() {
                let at = node * self.k + a;
                node = match self.children[at] {
                    NONE => {
                        let n = self.output.len();
                        self.output.push(None);
                        self.children.extend(std::iter::repeat_n(NONE, self.k));
                        self.children[at] = n as u32;
                        n
                    }
                    c => c as usize,
                };
                if i >= skip {
                    self.output[node] = Some(out[i - skip]);
                }
            }
        }
        self.scratch = out;
    }
}
