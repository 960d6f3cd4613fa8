//! `rvmon smc`: statistical model checking on learned models (paper 28, [`rvmon_smc`]):
//! learn a labelled Markov chain from sequences with AAlergia, compute a property's
//! probability on a chain exactly and estimate it by simulation (PESTIM, SPRT), and sample
//! sequences from a chain.

use std::io::Write;

use clap::{Args, Subcommand};
use rvmon_core::rng::SplitMix;
use rvmon_core::Error;
use rvmon_smc::chain::Chain;
use rvmon_smc::check::{exact, pestim, sprt, Hypothesis};
use rvmon_smc::{alergia, prop};

/// `rvmon smc`'s options.
#[derive(Args, Debug, Clone)]
pub struct SmcArgs {
    /// What to do.
    #[command(subcommand)]
    pub command: SmcCommand,
}

/// `rvmon smc`'s subcommands.
#[derive(Subcommand, Debug, Clone)]
pub enum SmcCommand {
    /// Learn a labelled Markov chain from sequences (AAlergia as AALpy runs it): one sequence
    /// a line, labels separated by spaces, every line starting with the initial label;
    /// blank lines and lines starting with `#` are skipped. Prints the model as AALpy's
    /// oracle script does.
    Learn {
        /// The sequences file.
        sequences: String,
        /// Hoeffding's confidence parameter, in (0, 2], or `auto` (10 / the number of
        /// steps, as AALpy's), or `bic`: the one of a logarithmic grid from 10^-6 to 2 whose
        /// model has the highest BIC-style score, log-likelihood − ½·parameters·ln(steps)
        /// (said on standard error).
        #[arg(long, default_value = "0.05")]
        eps: String,
        /// Write the model as AALpy's DOT.
        #[arg(long)]
        output: Option<String>,
        /// Learn from the runs projected onto these propositions (comma-separated; paper 28's
        /// abstraction): each step keeps its propositions among them (`-` if none).
        #[arg(long)]
        project: Option<String>,
        /// `mc` (a Markov chain) or `mdp` (a Markov decision process: each step after the
        /// first is `input:output`; IOAlergia, as AALpy's).
        #[arg(long, default_value = "mc")]
        r#type: String,
    },
    /// A property's probability on a model (a chain's `.dot`, or sequences, learned first):
    /// exactly, and with `--pestim` or `--sprt` by simulation. Properties: `X s`, `F s`,
    /// `F<=L s`, `G s`, `G<=L s`, `s U s`, `s U<=L s`, where `s` is a proposition (a label,
    /// or one of its `&`-joined parts), `true`, `false`, `!s`, `s & s`, `s | s`, `(s)`.
    Check {
        /// The model: a chain's `.dot` (AALpy's), or a sequences file to learn it from.
        model: String,
        /// The property.
        property: String,
        /// PESTIM: `DELTA,ALPHA`, the estimate within DELTA with probability 1 − ALPHA; it
        /// runs ⌈(4/DELTA²)·ln(2/ALPHA)⌉ simulations.
        #[arg(long)]
        pestim: Option<String>,
        /// Wald's SPRT: `THETA,DELTA,ALPHA,BETA`, H0 p ≥ THETA+DELTA against H1 p ≤
        /// THETA−DELTA, with errors ALPHA and BETA.
        #[arg(long)]
        sprt: Option<String>,
        /// The seed of the simulations.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// For sequences: AAlergia's parameter (as `learn`'s).
        #[arg(long, default_value = "0.05")]
        eps: String,
        /// For sequences: learn from the runs projected onto the property's propositions
        /// (paper 28: the learner sees only what the property can tell apart).
        #[arg(long)]
        project: bool,
    },
    /// Sequences of a chain's labels, one a line (AAlergia's input).
    Sample {
        /// The chain's `.dot` (or sequences, learned first).
        model: String,
        /// How many sequences.
        #[arg(long, default_value_t = 1000)]
        traces: usize,
        /// Their length (the initial label included): `N`, or `MIN..MAX`, uniform.
        #[arg(long, default_value = "2..10")]
        length: String,
        /// The seed.
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
}

/// Runs `rvmon smc`.
pub fn run(args: &SmcArgs, out: &mut dyn Write) -> Result<i32, Error> {
    match &args.command {
        SmcCommand::Learn {
            sequences,
            eps,
            output,
            project,
            r#type,
        } => {
            if r#type == "mdp" {
                return learn_mdp(sequences, eps, out);
            }
            if r#type != "mc" {
                return Err(Error::msg(format!(
                    "--type {}: expected `mc` or `mdp`",
                    r#type
                )));
            }
            let keep: Option<Vec<String>> = project
                .as_ref()
                .map(|p| p.split(',').map(|x| x.trim().to_string()).collect());
            let (chain, count) = learn_from(sequences, eps, keep.as_deref())?;
            writeln!(
                out,
                "# alergia mc eps={eps} sequences={count} states={}",
                chain.states()
            )?;
            for line in chain.canonical() {
                writeln!(out, "{line}")?;
            }
            if let Some(path) = output {
                std::fs::write(path, chain.to_dot())
                    .map_err(|e| Error::msg(format!("{path}: {e}")))?;
            }
        }
        SmcCommand::Check {
            model,
            property,
            pestim: pe,
            sprt: sp,
            seed,
            eps,
            project,
        } => {
            let prop = prop::parse(property)
                .map_err(|m| Error::msg(format!("the property `{property}`: {m}")))?;
            let keep = project.then(|| prop.support());
            let (chain, learned) = model_of(model, eps, keep.as_deref())?;
            writeln!(
                out,
                "model={} states={} property=\"{property}\" exact={:.6}",
                if learned { "learned" } else { "given" },
                chain.states(),
                exact(&chain, &prop)
            )?;
            if let Some(text) = pe {
                let [delta, alpha] = numbers::<2>("--pestim", text)?;
                let (estimate, m) = pestim(&chain, &prop, delta, alpha, *seed);
                writeln!(
                    out,
                    "method=pestim delta={delta} alpha={alpha} samples={m} estimate={estimate:.6}"
                )?;
            }
            if let Some(text) = sp {
                let [theta, delta, alpha, beta] = numbers::<4>("--sprt", text)?;
                if !(0.0 < theta - delta && theta + delta < 1.0) {
                    return Err(Error::msg(format!(
                        "--sprt {text}: the indifference region [THETA−DELTA, THETA+DELTA] must lie in (0, 1)"
                    )));
                }
                let limit = 100_000_000;
                let (verdict, m, hits) =
                    sprt(&chain, &prop, (theta, delta, alpha, beta), *seed, limit).ok_or_else(
                        || Error::msg(format!("--sprt: no decision after {limit} runs")),
                    )?;
                let verdict = match verdict {
                    Hypothesis::AtLeast => "H0 (p >= theta + delta)",
                    Hypothesis::AtMost => "H1 (p <= theta - delta)",
                };
                writeln!(
                    out,
                    "method=sprt theta={theta} delta={delta} alpha={alpha} beta={beta} samples={m} successes={hits} verdict={verdict}"
                )?;
            }
        }
        SmcCommand::Sample {
            model,
            traces,
            length,
            seed,
        } => {
            let (chain, _) = model_of(model, "0.05", None)?;
            let (lo, hi) = match length.split_once("..") {
                Some((a, b)) => (
                    a.trim().parse::<usize>().ok(),
                    b.trim().parse::<usize>().ok(),
                ),
                None => (
                    length.trim().parse::<usize>().ok(),
                    length.trim().parse::<usize>().ok(),
                ),
            };
            let (Some(lo), Some(hi)) = (lo, hi) else {
                return Err(Error::msg(format!(
                    "--length {length}: expected N or MIN..MAX"
                )));
            };
            if lo == 0 || lo > hi {
                return Err(Error::msg(format!(
                    "--length {length}: expected 1 <= MIN <= MAX"
                )));
            }
            let mut rng = SplitMix(*seed);
            for _ in 0..*traces {
                let n: usize = lo + rng.below(hi - lo + 1);
                writeln!(out, "{}", chain.trace(n, &mut rng).join(" "))?;
            }
        }
    }
    Ok(0)
}

/// `rvmon smc learn --type mdp`: IOAlergia, printed as AALpy's oracle script prints it.
fn learn_mdp(path: &str, eps: &str, out: &mut dyn Write) -> Result<i32, Error> {
    let text = read_sequences(path)?;
    let data = text.lines();
    let e = parse_eps(eps, &data)?;
    let mdp = alergia::learn_mdp(&data, e).map_err(|m| Error::msg(format!("{path}: {m}")))?;
    writeln!(
        out,
        "# alergia mdp eps={eps} sequences={} states={}",
        data.len(),
        mdp.labels.len()
    )?;
    for line in mdp.canonical() {
        writeln!(out, "{line}")?;
    }
    Ok(0)
}

/// A chain from a `.dot` file, or learned from sequences (projected onto `keep`, if given).
fn model_of(path: &str, eps: &str, keep: Option<&[String]>) -> Result<(Chain, bool), Error> {
    if path.ends_with(".dot") || path.ends_with(".gv") {
        let text = crate::read_file(path)?;
        return Ok((Chain::from_dot(path, &text).map_err(Error::msg)?, false));
    }
    Ok((learn_from(path, eps, keep)?.0, true))
}

/// AAlergia on a sequences file, projected onto `keep` if given: the chain, and how many
/// sequences there were.
fn learn_from(path: &str, eps: &str, keep: Option<&[String]>) -> Result<(Chain, usize), Error> {
    let text = read_sequences(path)?;
    let data = text.lines();
    let projected = keep.map(|keep| rvmon_smc::project::project_all(&data, keep));
    let learned = if eps == "bic" {
        let chosen = match &projected {
            Some(p) => alergia::choose_eps(p),
            None => alergia::choose_eps(&data),
        };
        chosen.map(|(e, score, chain)| {
            eprintln!(
                "rvmon: --eps bic chose {e:.3e} (score {score:.3}, {} states)",
                chain.states()
            );
            chain
        })
    } else {
        let e = parse_eps(eps, &data)?;
        match &projected {
            Some(p) => alergia::learn(p, e),
            None => alergia::learn(&data, e),
        }
    };
    let chain = learned.map_err(|m| Error::msg(format!("{path}: {m}")))?;
    Ok((chain, data.len()))
}

/// A sequences file: its text, and each kept line's labels as ranges of it.
fn read_sequences(path: &str) -> Result<Sequences, Error> {
    Ok(Sequences(crate::read_file(path)?))
}

struct Sequences(String);

impl Sequences {
    /// One sequence a line, labels separated by white space; blank lines and lines starting
    /// with `#` are skipped.
    fn lines(&self) -> Vec<Vec<&str>> {
        self.0
            .lines()
            .map(|l| l.split_whitespace().collect::<Vec<_>>())
            .filter(|t| !t.is_empty() && !t[0].starts_with('#'))
            .collect()
    }
}

fn parse_eps(eps: &str, data: &[Vec<&str>]) -> Result<f64, Error> {
    if eps == "auto" {
        let steps: usize = data.iter().map(|d| d.len().saturating_sub(1)).sum();
        return Ok(10.0 / steps.max(1) as f64);
    }
    eps.parse::<f64>()
        .ok()
        .filter(|e| *e > 0.0 && *e <= 2.0)
        .ok_or_else(|| {
            Error::msg(format!(
                "--eps {eps}: expected a number in (0, 2], or `auto`"
            ))
        })
}

/// `N` comma-separated numbers, each in (0, 1).
fn numbers<const N: usize>(option: &str, text: &str) -> Result<[f64; N], Error> {
    let values: Vec<f64> = text
        .split(',')
        .filter_map(|v| v.trim().parse().ok())
        .filter(|v: &f64| *v > 0.0 && *v < 1.0)
        .collect();
    values.try_into().map_err(|_| {
        Error::msg(format!(
            "{option} {text}: expected {N} comma-separated numbers, each in (0, 1)"
        ))
    })
}
