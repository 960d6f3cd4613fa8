//! `rvmon learn`: active automata learning (paper 26) of a target automaton file, another
//! program, or a specification (the monitor is the teacher), with TTT, L* or
//! Kearns–Vazirani ([`rvmon_learn`]); one line of counts, and the learned DFA if asked.

use std::io::Write;

use clap::Args;
use rvmon_core::{Error, Interner, Kind, Sink, TimePoint};
use rvmon_learn::dfa::Dfa;
use rvmon_learn::eq::{Perfect, Random, SplitMix, Walk};
use rvmon_learn::process::Process;
use rvmon_learn::teacher::{System, Teacher};
use rvmon_learn::{io as automata, learn, summary, Alg, Equivalence};

use crate::cascade::{any_monitor, AnyMonitor};

/// `rvmon learn`'s options.
#[derive(Args, Debug, Clone)]
pub struct LearnArgs {
    /// What to learn: an automaton file (AALpy's JSON, DOT as AALpy and LearnLib write it,
    /// or LearnLib's numeric `.dfa`), a specification (`.mtl`, `.ltl`: a word is accepted if the monitor finds no
    /// violation in it, each symbol a time point where that proposition holds), or, with
    /// `--process`, a command.
    pub target: String,
    /// The algorithm: `ttt` (paper 26), `lstar` (L* with Rivest–Schapire's counterexample
    /// analysis) or `kv` (Kearns–Vazirani's classification tree); `lstar` and `kv` ask the
    /// same queries as AALpy's `run_Lstar` and `run_KV`.
    #[arg(long, default_value = "ttt")]
    pub alg: String,
    /// The equivalence oracle: `perfect` (needs an automaton file: the shortest
    /// counterexample, least in the alphabet's order), `random` (uniform random words of up to
    /// `--length` symbols, `--tests` of them a query) or `walk` (paper 26's experiments: while
    /// the hypothesis is wrong, random walks of `--length` symbols that stay in the target's
    /// language while they can, until one is a counterexample, the whole walk; after
    /// `--tests` walks, the shortest counterexample; needs an automaton file). The default:
    /// `perfect` for a file, else `random`.
    #[arg(long)]
    pub eq: Option<String>,
    /// The length of `--eq random`'s words.
    #[arg(long, default_value_t = 50)]
    pub length: usize,
    /// How many random words `--eq random` tries before it says yes.
    #[arg(long, default_value_t = 1000)]
    pub tests: usize,
    /// The seed of `--eq random`.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// The symbols, comma-separated (for a process or a specification; an automaton file
    /// has its own).
    #[arg(long)]
    pub alphabet: Option<String>,
    /// TARGET is a command: it reads a word a line (symbols separated by spaces) and
    /// answers each with a line `1` or `0`.
    #[arg(long)]
    pub process: bool,
    /// Ask the system every query, even one a longer word already answered (AALpy's cache
    /// is on by default: `mq` and `mq_steps` count the queries that reach the system).
    #[arg(long)]
    pub no_cache: bool,
    /// Write the learned DFA to this file: DOT if it ends in `.dot`, else AALpy's JSON.
    #[arg(long)]
    pub output: Option<String>,
    /// Print the learned DFA after the line, as AALpy's oracle script does: `initial 0
    /// accepting …`, then `state symbol target` rows, states numbered breadth-first.
    #[arg(long)]
    pub print_model: bool,
    /// Say on standard error how long the learner took, apart from the equivalence queries
    /// (AALpy's `learning_time` and `eq_oracle_time`).
    #[arg(long)]
    pub time: bool,
}

/// An equivalence oracle, timed.
struct Timed<'e> {
    inner: Box<dyn Equivalence + 'e>,
    spent: std::time::Duration,
}

impl Equivalence for Timed<'_> {
    fn find(&mut self, hyp: &Dfa, teacher: &mut Teacher) -> Option<Vec<usize>> {
        let start = std::time::Instant::now();
        let found = self.inner.find(hyp, teacher);
        self.spent += start.elapsed();
        found
    }
}

/// Runs `rvmon learn`: the counts line on `out`; exit status 0.
pub fn run(args: &LearnArgs, out: &mut dyn Write) -> Result<i32, Error> {
    let alg = Alg::parse(&args.alg).ok_or_else(|| {
        Error::msg(format!(
            "--alg {}: expected one of {}",
            args.alg,
            Alg::NAMES.join(", ")
        ))
    })?;
    let alphabet = || -> Result<Vec<String>, Error> {
        let list = args.alphabet.as_deref().ok_or_else(|| {
            Error::msg("--alphabet: the symbols are needed (comma-separated) for this target")
        })?;
        let symbols: Vec<String> = list.split(',').map(|s| s.trim().to_string()).collect();
        if symbols.iter().any(String::is_empty) {
            return Err(Error::msg(format!("--alphabet {list}: an empty symbol")));
        }
        Ok(symbols)
    };
    // The target's automaton, when it is a file (the perfect oracle and `equivalent=` use
    // it), and the system the queries go to.
    let (target, mut chosen) = if args.process {
        let p = Process::start(&args.target, alphabet()?).map_err(Error::msg)?;
        (None, Target::Process(p))
    } else if matches!(extension(&args.target), "json" | "dot" | "gv" | "dfa") {
        let text = crate::read_file(&args.target)?;
        let dfa = automata::read(&args.target, &text).map_err(|e| Error::msg(e.0))?;
        (Some(dfa.clone()), Target::File(dfa))
    } else {
        let text = crate::read_file(&args.target)?;
        let spec = SpecSystem::new(&args.target, &text, alphabet()?)?;
        (None, Target::Spec(Box::new(spec)))
    };
    let symbols = match &target {
        Some(t) => t.alphabet.clone(),
        None => alphabet()?,
    };
    let system: &mut dyn System = match &mut chosen {
        Target::File(d) => d,
        Target::Process(p) => p,
        Target::Spec(s) => s.as_mut(),
    };
    let mut teacher = Teacher::new(system, symbols.len(), !args.no_cache);
    let eq_name = args.eq.as_deref().unwrap_or(if target.is_some() {
        "perfect"
    } else {
        "random"
    });
    let eq: Box<dyn Equivalence + '_> =
        match (eq_name, &target) {
            ("perfect", Some(t)) => Box::new(Perfect { target: t }),
            ("perfect", None) => return Err(Error::msg(
                "--eq perfect needs the target's automaton (a .json or .dot file); use --eq random",
            )),
            ("random", _) => Box::new(Random {
                length: args.length,
                tests: args.tests,
                symbols: symbols.len(),
                rng: SplitMix(args.seed),
            }),
            ("walk", Some(t)) => Box::new(Walk {
                target: t,
                length: args.length,
                limit: args.tests,
                rng: SplitMix(args.seed),
            }),
            ("walk", None) => {
                return Err(Error::msg(
                    "--eq walk needs the target's automaton (a .json, .dot or .dfa file)",
                ))
            }
            (other, _) => {
                return Err(Error::msg(format!(
                    "--eq {other}: expected `perfect`, `random` or `walk`"
                )))
            }
        };
    let mut eq = Timed {
        inner: eq,
        spent: std::time::Duration::ZERO,
    };
    let start = std::time::Instant::now();
    let learned = learn(alg, &symbols, &mut teacher, &mut eq).dfa;
    if args.time {
        let all = start.elapsed();
        eprintln!(
            "rvmon: learning {:.6} s, equivalence queries {:.6} s",
            (all - eq.spent).as_secs_f64(),
            eq.spent.as_secs_f64()
        );
    }
    let counters = teacher.counters;
    drop(teacher);
    match &mut chosen {
        Target::Process(p) => {
            if let Some(why) = p.failure() {
                return Err(Error::msg(why.to_string()));
            }
        }
        Target::Spec(s) => {
            if let Some(e) = s.failed.take() {
                return Err(e);
            }
        }
        Target::File(_) => {}
    }
    let equivalent = target
        .as_ref()
        .map(|t| learned.separating_word(t).is_none());
    writeln!(
        out,
        "{}",
        summary(&args.alg, learned.states(), &counters, equivalent)
    )?;
    if args.print_model {
        let d = learned.canonical();
        let accepting: Vec<String> = (0..d.states())
            .filter(|&q| d.accepting[q])
            .map(|q| q.to_string())
            .collect();
        writeln!(out, "  initial 0 accepting {}", accepting.join(" "))?;
        for q in 0..d.states() {
            for a in 0..d.symbols() {
                writeln!(out, "  {q} {} {}", d.alphabet[a], d.step(q, a))?;
            }
        }
    }
    if let Some(path) = &args.output {
        let text = if path.ends_with(".dot") {
            automata::write_dot(&learned)
        } else {
            automata::write_json(&learned)
        };
        std::fs::write(path, text).map_err(|e| Error::msg(format!("{path}: {e}")))?;
    }
    Ok(0)
}

fn extension(path: &str) -> &str {
    std::path::Path::new(path)
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("")
}

/// Where the queries go.
enum Target {
    File(Dfa),
    Process(Process),
    Spec(Box<SpecSystem>),
}

/// A specification as the system: a word is a trace, one time point a symbol (timestamps
/// 0, 1, …), where the symbol's proposition holds (`p&q`: both; `_`: none); it is accepted if
/// the monitor reports no violation, to the end of the trace included.
struct SpecSystem {
    monitor: AnyMonitor,
    initial: Vec<u8>,
    interner: Interner,
    /// Each symbol's propositions.
    symbols: Vec<Vec<rvmon_core::Sym>>,
    /// Whether the monitor decides each time point as it comes (a past-time formula): then
    /// a word's run answers for each of its prefixes too.
    at_once: bool,
    failed: Option<Error>,
}

impl SpecSystem {
    fn new(name: &str, text: &str, alphabet: Vec<String>) -> Result<SpecSystem, Error> {
        let mut interner = Interner::new();
        let (_, monitor) = any_monitor(name, text, None, None, &mut interner, None)?;
        if !matches!(monitor, AnyMonitor::Points(_)) {
            return Err(Error::msg(format!(
                "{name}: learning from a specification takes a temporal formula (.mtl, .ltl), \
                 whose propositions the symbols are"
            )));
        }
        let symbols = alphabet
            .iter()
            .map(|s| {
                s.split('&')
                    .filter(|p| *p != "_")
                    .map(|p| interner.intern_name(p))
                    .collect()
            })
            .collect();
        Ok(SpecSystem {
            initial: monitor.snapshot()?,
            at_once: monitor.decides_at_once(),
            monitor,
            interner,
            symbols,
            failed: None,
        })
    }

    /// Whether `word` is accepted.
    fn accepts(&mut self, word: &[usize]) -> Result<bool, Error> {
        Ok(self.first_violation(word)?.is_none())
    }

    /// The first time point of `word` the monitor reports a violation at, if any.
    fn first_violation(&mut self, word: &[usize]) -> Result<Option<u64>, Error> {
        let AnyMonitor::Points(m) = &mut self.monitor else {
            unreachable!("checked when built")
        };
        m.restore(&self.initial)?;
        let mut found = Violations(None);
        let points: Vec<TimePoint> = word
            .iter()
            .enumerate()
            .map(|(i, &a)| {
                let mut tp = TimePoint {
                    index: i as u64,
                    ts: i as i64,
                    ..TimePoint::default()
                };
                for &p in &self.symbols[a] {
                    tp.push_event(p, &[]);
                }
                tp
            })
            .collect();
        m.feed(&points, &mut self.interner, &mut found)?;
        m.finish(&mut self.interner, &mut found)?;
        Ok(found.0)
    }
}

/// The first time point a violation was reported at.
struct Violations(Option<u64>);

impl Sink for Violations {
    fn emit(&mut self, d: &rvmon_core::Decision<'_>, _: &Interner) -> Result<(), Error> {
        if d.kind == Kind::Violation {
            self.0 = Some(self.0.map_or(d.tp, |t| t.min(d.tp)));
        }
        Ok(())
    }
}

impl System for SpecSystem {
    fn initial(&mut self) -> bool {
        self.run_word(&[])
    }

    fn run(&mut self, word: &[usize], out: &mut Vec<bool>) {
        out.clear();
        if !self.at_once {
            let answer = self.run_word(word);
            out.push(answer);
            return;
        }
        // (A prefix is accepted until the first violation: it is decided when it comes.)
        let first = if self.failed.is_some() {
            Some(0)
        } else {
            self.first_violation(word).unwrap_or_else(|e| {
                self.failed = Some(e);
                Some(0)
            })
        };
        out.extend((0..word.len() as u64).map(|i| first.is_none_or(|f| i < f)));
    }

    fn prefixes(&self) -> bool {
        self.at_once
    }
}

impl SpecSystem {
    fn run_word(&mut self, word: &[usize]) -> bool {
        if self.failed.is_some() {
            return false;
        }
        self.accepts(word).unwrap_or_else(|e| {
            self.failed = Some(e);
            false
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_specification_answers_the_same_twice() {
        let mut s = SpecSystem::new(
            "rg.mtl",
            "request() IMPLIES ONCE[0,2] grant()",
            vec!["request".into(), "grant".into()],
        )
        .unwrap();
        let mut answers = vec![];
        for w in [&[][..], &[0], &[1, 0], &[], &[0], &[1, 0]] {
            answers.push(s.accepts(w).unwrap());
        }
        assert_eq!(answers, [true, false, true, true, false, true]);
        // Every word up to length 5, twice, in two orders.
        let words: Vec<Vec<usize>> = (0..6u32)
            .flat_map(|n| (0..2usize.pow(n)).map(move |i| (0..n).map(|j| (i >> j) & 1).collect()))
            .collect();
        let first: Vec<bool> = words.iter().map(|w| s.accepts(w).unwrap()).collect();
        let second: Vec<bool> = words.iter().rev().map(|w| s.accepts(w).unwrap()).collect();
        let second: Vec<bool> = second.into_iter().rev().collect();
        assert_eq!(first, second);
        // A request needs a grant at most 2 time units before, at the same point included.
        for (w, a) in words.iter().zip(&first) {
            let ok =
                (0..w.len()).all(|i| w[i] != 0 || (i.saturating_sub(2)..=i).any(|j| w[j] == 1));
            assert_eq!(*a, ok, "{w:?}");
        }
    }
}
