//! `rvmon monpoly`: a drop-in for MonPoly's command line and output.
//!
//! The eager engine decides the verdicts; [`MonpolyTiming`] holds each one back until the time
//! point at which MonPoly would print it, so that `-verbose` output (which interleaves
//! `At time point i:` lines with verdicts) is byte-identical, and so that verdicts MonPoly
//! never prints (pending at the end with `-nonewlastts`) are not printed either.

use std::collections::VecDeque;
use std::io::{BufRead, Write};

use rvmon_core::{
    decode_state, encode_state, Error, Interner, SavedStrings, StringCollection, Sym, TimePoint,
    Truth, Verdict,
};
use rvmon_fo::{expand_lets, FoEngine, Relevance};
use rvmon_logic::monitorable::{is_monitorable, is_saferange, is_tsfsaferange};
use rvmon_logic::monpoly::{
    analyzed_formula_within, is_filterable_empty_tp, rewrite_work, to_monpoly_string,
};
use rvmon_logic::{analyze, free_vars, parse_formula, Formula, FormulaKind, TemporalClass};
use rvmon_mtl::{Engine, MonpolyTiming, Program};
use rvmon_slice::empty_points_removable;
use rvmon_trace::{MonpolyLogReader, Signature, StateCommand, TraceReader};
use serde::{Deserialize, Serialize};

use crate::read_file;

/// MonPoly's options that rvmon understands.
#[derive(Debug, Default, Clone)]
pub struct MonpolyArgs {
    /// `-sig FILE`.
    pub sig: Option<String>,
    /// `-formula FILE`.
    pub formula: Option<String>,
    /// `-log FILE` (standard input without it).
    pub log: Option<String>,
    /// `-negate`: monitor the formula's negation.
    pub negate: bool,
    /// `-verbose`: the analysed formula, and every time point with its tuples.
    pub verbose: bool,
    /// `-nonewlastts`: no closing time point at the end of the log.
    pub nonewlastts: bool,
    /// `-nofilteremptytp`: keep the time points without the formula's predicates.
    pub nofilteremptytp: bool,
    /// `-no_rw`: do not rewrite the formula.
    pub no_rw: bool,
    /// `-verified`: VeriMon's arithmetic conventions.
    pub verified: bool,
    /// `-check`: say whether the formula is monitorable, and exit.
    pub check: bool,
    /// `-load FILE`: resume from a state saved by `>save_state FILE<`.
    pub load: Option<String>,
    /// rvmon's own `-collect_strings N`: free the strings no state holds once N are in use
    /// (as `rvmon check --collect-strings`); by default [`StringCollection::DEFAULT_FLOOR`].
    pub collect_strings: Option<usize>,
    /// `-help` or `--help`: print the options ([`HELP`]) and exit.
    pub help: bool,
}

/// What `rvmon monpoly -help` prints: the MonPoly options rvmon takes, one a line, as
/// MonPoly's own `-help` lists them.
pub const HELP: &str = "\
Usage: rvmon monpoly -sig <file> -formula <file> [-negate] [-log <file>] [options]
  -sig <file>           Choose the signature file
  -formula <file>       Choose the formula file
  -log <file>           Choose the log file (without it, or with -, the log is standard input and each verdict is written as it is decided)
  -negate               Monitor the negation of the formula
  -verbose              Print the analyzed formula, and every time point with its satisfying tuples
  -check                Tell whether the formula is monitorable, then exit
  -nonewlastts          Do not add a last time point with the largest timestamp at the end of the log
  -nofilteremptytp      Do not skip the time points without events of the formula's predicates
  -nofilterrel          Accepted; changes nothing (an optimisation of MonPoly's)
  -no_rw                Do not rewrite the formula
  -unfold_let <mode>    How LET expressions are unfolded: no, full or smart (the output is the same)
  -verified             VeriMon's semantics (x / 0 = 0, x MOD 0 = x, f2i of an infinite value is an error)
  -load <file>          Resume from the monitor state that >save_state FILE< saved in a log
  -collect_strings <n>  Free the strings no state holds once n are in use (rvmon's own option)
  -help                 Display this list of options
  --help                Display this list of options
";

impl MonpolyArgs {
    /// MonPoly's arguments, as its command line takes them.
    pub fn parse(args: &[String]) -> Result<MonpolyArgs, Error> {
        let mut a = MonpolyArgs::default();
        let mut it = args.iter();
        while let Some(arg) = it.next() {
            let mut value = |name: &str| {
                it.next()
                    .cloned()
                    .ok_or_else(|| Error::msg(format!("option {name} needs a value")))
            };
            match arg.as_str() {
                "-sig" => a.sig = Some(value("-sig")?),
                "-formula" => a.formula = Some(value("-formula")?),
                "-log" => a.log = Some(value("-log")?),
                "-negate" => a.negate = true,
                "-verbose" => a.verbose = true,
                "-nonewlastts" => a.nonewlastts = true,
                "-nofilteremptytp" => a.nofilteremptytp = true,
                "-no_rw" => a.no_rw = true,
                // VeriMon's semantics are MonPoly's except for arithmetic corner cases
                // (division by zero, f2i overflow); it names the whole formula when it is not
                // monitorable, and does not filter empty time points.
                "-verified" => a.verified = true,
                "-check" => a.check = true,
                // As MonPoly's: the list, whatever else is given.
                "-help" | "--help" => {
                    a.help = true;
                    return Ok(a);
                }
                "-load" => a.load = Some(value("-load")?),
                "-collect_strings" => {
                    let n = value("-collect_strings")?;
                    a.collect_strings = Some(n.parse().map_err(|_| {
                        Error::msg(format!("-collect_strings expects a number, not `{n}`"))
                    })?);
                }
                // Optimisations that do not change the output.
                "-nofilterrel" => {}
                "-unfold_let" => {
                    let mode = value("-unfold_let")?;
                    if !matches!(mode.as_str(), "no" | "full" | "smart") {
                        return Err(Error::msg(format!(
                            "-unfold_let expects no, full or smart, not `{mode}`"
                        )));
                    }
                }
                other => return Err(Error::msg(format!("unsupported MonPoly option `{other}`"))),
            }
        }
        Ok(a)
    }
}

/// Runs MonPoly's command; returns the exit status. `out` and `err` are MonPoly's stdout and
/// stderr.
pub fn run(args: &MonpolyArgs, out: &mut dyn Write, err: &mut dyn Write) -> Result<i32, Error> {
    if args.help {
        out.write_all(HELP.as_bytes())?;
        out.flush()?;
        return Ok(0);
    }
    let saved = match args.load.as_deref() {
        Some(path) => Some(Snapshot::read(path, args)?),
        None => None,
    };
    let args = &match &saved {
        Some(s) => s.args(args),
        None => args.clone(),
    };
    let sig_path = args
        .sig
        .as_deref()
        .ok_or_else(|| Error::msg("missing -sig FILE"))?;
    let formula_path = args
        .formula
        .as_deref()
        .ok_or_else(|| Error::msg("missing -formula FILE"))?;
    let (sig_text, text) = match &saved {
        Some(s) => (s.sig_text.clone(), s.formula_text.clone()),
        None => (read_file(sig_path)?, read_file(formula_path)?),
    };
    let sig = Signature::parse(sig_path, &sig_text)?;
    let mut f = parse_formula(formula_path, &text)?;
    if args.negate {
        let span = f.span;
        f = Formula::new(FormulaKind::Not(Box::new(f)), span);
    }
    let analysis = analyze(formula_path, &text, &f)?;
    if analysis.temporal == TemporalClass::UnboundedFuture {
        return Err(Error::msg(format!(
            "{formula_path}: the formula contains an unbounded future operator, which MonPoly cannot monitor \
             (use `rvmon check` for three-valued verdicts)"
        )));
    }
    let output_vars = free_vars(&f);
    // Unlike MonPoly, whose rewriting has no bound (it would hang on an OR of many misgrouped
    // aggregations), a rewriting past `rewrite_work` is an error that says so.
    let analyzed = if args.no_rw {
        f.clone()
    } else {
        analyzed_formula_within(&f, rewrite_work(&f))
            .map_err(|e| Error::msg(format!("{formula_path}: {e}")))?
    };
    // A resumed monitor goes on with its output; the analysis was printed when it started.
    if (args.verbose || args.check) && saved.is_none() {
        let (input, shown) = (to_monpoly_string(&f), to_monpoly_string(&analyzed));
        if input != shown {
            writeln!(err, "The input formula is:\n  {input}")?;
        }
        writeln!(err, "The analyzed formula is:\n  {shown}")?;
        writeln!(
            err,
            "The sequence of free variables is: ({})",
            output_vars.join(",")
        )?;
    }
    if let Err((sub, why)) = is_monitorable(&analyzed) {
        not_monitorable(args, &analyzed, sub, why, err)?;
        return Ok(0);
    }
    if args.check {
        writeln!(err, "The analyzed formula is monitorable.")?;
        return Ok(0);
    }
    // As MonPoly: without `-log` (or with `-log -`) the log is standard input, and each
    // verdict is written as soon as it is due (scripts pipe live logs in).
    let log_path = args.log.as_deref().filter(|l| *l != "-");
    let online = log_path.is_none();
    let input = match log_path {
        Some(path) => open(path)?,
        None => Box::new(std::io::BufReader::new(std::io::stdin())),
    };
    let log_path = log_path.unwrap_or("<stdin>");
    let mut reader = MonpolyLogReader::new(input, log_path, Some(sig.clone()));
    reader.skip_out_of_order(true);
    reader.accept_state_commands();
    if let Some(s) = &saved {
        // First, so that the formula's constants get the ids they had when it was saved.
        s.restore_reader(&mut reader);
    }
    let restored = reader.interner().len();
    let first_order = analysis.first_order_at.is_some();
    let compiled = (
        &analyzed,
        output_vars.as_slice(),
        &sig,
        formula_path,
        text.as_str(),
    );
    let decider = decider(
        args,
        first_order,
        compiled,
        reader.interner_mut(),
        saved.as_ref(),
    )?;
    let filter_empty = !args.nofilteremptytp && !args.verified && is_filterable_empty_tp(&analyzed);
    let add_last_ts = !args.nonewlastts && decider.has_future();
    // PERF: `rvmon check`'s filter where MonPoly's own does not apply (paper 04's P2: MonPoly
    // feeds all 1.2 M time points, of which under 1 % have the formula's events). Sound when
    // dropping the time points without them changes no answer (`empty_points_removable`, the
    // data slicer's argument) and only the answers are printed: not with `-verbose` (it prints
    // every time point), not with `-nonewlastts` (the answers pending at the end depend on
    // when they became due), not online (a verdict due at a time point left out would wait
    // for the next one fed). The last time point left out is fed before a command and at the
    // end, so that what is due by then is what MonPoly has printed by then.
    let leave_out = first_order
        && !online
        && !filter_empty
        && !args.nofilteremptytp
        && !args.verified
        && !args.verbose
        && !args.nonewlastts
        && empty_points_removable(&analyzed).is_ok();
    let mut printer = Printer {
        decider,
        verbose: args.verbose,
        decided: VecDeque::new(),
        next: 0,
        fed: 0,
        strings: StringCollection::new(
            args.collect_strings
                .unwrap_or(StringCollection::DEFAULT_FLOOR),
        ),
    };
    // Strings interned so far (the formula's constants, the signature's and the filter's
    // names) are never freed; values read from now on are, once no state holds them. A
    // resumed run has the saved interner, which says which strings are pinned; a string the
    // formula brought that the saved run did not have (another build's compilation, say) is
    // pinned too.
    match saved {
        None => reader.interner_mut().pin_all(),
        Some(_) => reader.interner_mut().pin_since(restored),
    }
    let run = LogRun {
        args,
        texts: (sig_text.as_str(), text.as_str()),
        online,
        filter_empty,
        leave_out,
        add_last_ts,
    };
    run.read(&mut reader, &mut printer, saved, out, err)
}

/// Reading the log, once the monitor is built.
struct LogRun<'a> {
    args: &'a MonpolyArgs,
    /// The signature's and the formula's text (a snapshot holds them).
    texts: (&'a str, &'a str),
    online: bool,
    /// MonPoly's filter of the time points without the formula's predicates.
    filter_empty: bool,
    /// `rvmon check`'s filter, where it provably changes no output (see `run`).
    leave_out: bool,
    /// MonPoly's closing time point at the end of the log.
    add_last_ts: bool,
}

impl LogRun<'_> {
    /// Feeds the log's time points to `printer` (in batches offline), saves the state when
    /// the log says so, and ends the trace as MonPoly does.
    fn read<R: BufRead>(
        &self,
        reader: &mut MonpolyLogReader<R>,
        printer: &mut Printer,
        saved: Option<Snapshot>,
        out: &mut dyn Write,
        err: &mut dyn Write,
    ) -> Result<i32, Error>
    where
        MonpolyLogReader<R>: TraceReader,
    {
        let (args, online, (sig_text, text)) = (self.args, self.online, self.texts);
        let (filter_empty, add_last_ts) = (self.filter_empty, self.add_last_ts);
        // The last time point left out by `leave_out`, if no later one was fed.
        let (mut spare, mut skipped) = (TimePoint::default(), false);
        // PERF: offline, time points go to the engine in batches, as in `rvmon check`; online,
        // one at a time, each verdict written as soon as MonPoly would write it.
        let batch_size = if online {
            1
        } else {
            printer.decider.batch_size()
        };
        let mut batch: Vec<TimePoint> = (0..batch_size).map(|_| TimePoint::default()).collect();
        let mut pending = 0;
        // Where reading starts (after a saved state's time points), and the last time point read.
        let mut read_from = ReadPosition::default();
        let (mut last_index, mut last_ts) = (None, None);
        if let Some(s) = saved {
            read_from = s.restore_printer(printer);
            last_index = read_from.last_index;
            writeln!(out, "Loaded state")?;
        }
        let mut exited = false;
        loop {
            let more = reader.next_time_point(&mut batch[pending]);
            for w in reader.take_warnings() {
                writeln!(err, "{w}")?;
            }
            let commands = reader.take_commands();
            if more.is_err() || !commands.is_empty() {
                // The time points before a bad one, or before a command, are fed first.
                printer.step(&batch[..pending], true, reader.interner_mut(), out)?;
                if std::mem::take(&mut skipped) {
                    printer.step(
                        std::slice::from_ref(&spare),
                        true,
                        reader.interner_mut(),
                        out,
                    )?;
                }
                // The time point just read goes first in the next batch.
                batch.swap(0, pending);
                pending = 0;
                out.flush()?;
            }
            // Commands come before the time point just read: save the state before feeding it.
            for command in commands {
                let (StateCommand::Save(file) | StateCommand::SaveAndExit(file)) = &command;
                let position = ReadPosition {
                    next_index: last_index.map_or(read_from.next_index, |i| i + 1),
                    last_ts: last_ts.or(read_from.last_ts),
                    last_index,
                };
                Snapshot::write(
                    file,
                    args,
                    (sig_text, text),
                    reader.interner(),
                    position,
                    printer,
                )?;
                writeln!(out, "Saved state")?;
                out.flush()?;
                exited |= matches!(command, StateCommand::SaveAndExit(_));
            }
            if !more? {
                break;
            }
            let tp = &batch[pending];
            last_index = Some(tp.index);
            last_ts = Some(tp.ts);
            if filter_empty && !printer.decider.relevant(tp) {
                continue;
            }
            if self.leave_out && !printer.decider.relevant(tp) {
                std::mem::swap(&mut batch[pending], &mut spare);
                skipped = true;
                continue;
            }
            skipped = false;
            pending += 1;
            if pending == batch_size {
                printer.step(&batch, false, reader.interner_mut(), out)?;
                pending = 0;
                if online {
                    out.flush()?;
                }
            }
        }
        printer.step(&batch[..pending], false, reader.interner_mut(), out)?;
        if skipped {
            printer.step(
                std::slice::from_ref(&spare),
                false,
                reader.interner_mut(),
                out,
            )?;
        }
        if reader.terminated() {
            // MonPoly stops at `>terminate<` without closing the trace: verdicts still pending
            // are not printed. It names the last time point read (-1 if none).
            writeln!(
                out,
                "Terminated at timepoint: {}",
                last_index.map_or(-1, |i| i as i64)
            )?;
        } else if add_last_ts && !exited {
            printer.close(last_index.map_or(0, |i| i + 1), reader.interner_mut(), out)?;
        }
        out.flush()?;
        // VeriMon (-verified) applies the same conventions without saying so.
        for w in printer.decider.take_warnings() {
            if !args.verified {
                writeln!(err, "{w}")?;
            }
        }
        Ok(0)
    }
}

/// The engine for the analysed formula (`compiled`: it, its free variables, the signature,
/// the formula's file and text), fresh or as `saved` left it.
fn decider(
    args: &MonpolyArgs,
    first_order: bool,
    compiled: (&Formula, &[String], &Signature, &str, &str),
    interner: &mut Interner,
    saved: Option<&Snapshot>,
) -> Result<Box<dyn Decider>, Error> {
    let (analyzed, output_vars, sig, formula_path, text) = compiled;
    Ok(if !first_order {
        let program = Program::compile(analyzed, interner, formula_path, text)?;
        let (engine, timing) = match saved {
            Some(s) => s.propositional(&program)?,
            None => {
                let timing = MonpolyTiming::new(&program);
                (Engine::new(program), timing)
            }
        };
        Box::new(Propositional {
            timing,
            engine,
            scratch: Vec::new(),
        })
    } else {
        let arithmetic = if args.verified {
            rvmon_fo::Arithmetic::VeriMon
        } else {
            rvmon_fo::Arithmetic::MonPoly
        };
        let plan = rvmon_fo::compile_with(
            arithmetic,
            analyzed,
            output_vars,
            sig,
            interner,
            formula_path,
            text,
        )?;
        let relevant = Relevance::of(&expand_lets(analyzed), interner);
        let (engine, timing) = match saved {
            Some(s) => s.first_order(plan)?,
            None => {
                let timing = MonpolyTiming::from_ops(plan.shape.clone());
                (FoEngine::new(plan), timing)
            }
        };
        Box::new(FirstOrder {
            timing,
            relevant,
            closed: output_vars.is_empty(),
            engine,
            scratch: Vec::new(),
        })
    })
}

/// What MonPoly says of a formula it cannot monitor: why, at length with `-verbose` or
/// `-check`.
fn not_monitorable(
    args: &MonpolyArgs,
    analyzed: &Formula,
    sub: &Formula,
    why: &str,
    err: &mut dyn Write,
) -> Result<(), Error> {
    if args.verbose || args.check {
        // VeriMon checks the formula as a whole and names all of it.
        let culprit = if args.verified { analyzed } else { sub };
        writeln!(
            err,
            "The analyzed formula is NOT monitorable, because of the subformula:\n  {}",
            to_monpoly_string(culprit)
        )?;
        writeln!(
            err,
            "{}",
            if args.verified {
                "MFODL formula is not monitorable"
            } else {
                why
            }
        )?;
        if is_saferange(analyzed) {
            writeln!(
                err,
                "However, the input (and also the analyzed) formula is safe-range, "
            )?;
            writeln!(
                err,
                "hence one should be able to rewrite it into a monitorable formula."
            )?;
        } else {
            writeln!(err, "The analyzed formula is neither safe-range.")?;
        }
        if is_tsfsaferange(analyzed) {
            writeln!(err, "By the way, the analyzed formula is TSF safe-range.")?;
        } else {
            writeln!(
                err,
                "By the way, the analyzed formula is not TSF safe-range."
            )?;
        }
    } else {
        writeln!(
            err,
            "The formula is NOT monitorable. Use the -check or -verbose flags."
        )?;
    }
    Ok(())
}

fn open(path: &str) -> Result<Box<dyn BufRead>, Error> {
    let file = std::fs::File::open(path).map_err(|e| Error::file(path, &e))?;
    Ok(Box::new(std::io::BufReader::with_capacity(1 << 16, file)))
}

/// What MonPoly prints for one time point.
#[derive(Clone, Serialize, Deserialize)]
enum Answer {
    /// A closed formula: `true` or `false`.
    Bool { tp: u64, ts: i64, holds: bool },
    /// Satisfying tuples, rendered and sorted.
    Tuples {
        tp: u64,
        ts: i64,
        tuples: Vec<String>,
    },
}

/// An engine as `rvmon monpoly` drives it: decided answers in time-point order, plus the
/// operator shape for MonPoly's timing.
trait Decider {
    /// Feeds time points in order; their decided answers go to `out`.
    fn feed(
        &mut self,
        tps: &[TimePoint],
        interner: &mut Interner,
        out: &mut VecDeque<Answer>,
    ) -> Result<(), Error>;
    /// Time points a batch holds offline (see [`rvmon_core::Monitor::batch_size`]).
    fn batch_size(&self) -> usize {
        1
    }
    fn close(&mut self, interner: &mut Interner, out: &mut VecDeque<Answer>) -> Result<(), Error>;
    fn timing(&mut self) -> &mut MonpolyTiming;
    fn has_future(&self) -> bool;
    /// Whether the time point has events that can matter (MonPoly's `Filter_rel`).
    fn relevant(&self, tp: &TimePoint) -> bool;
    /// Warnings to print at the end (MonPoly's buffered stderr shows them after the output).
    fn take_warnings(&mut self) -> Vec<String> {
        Vec::new()
    }
    /// The engine's state and the timing tracker's, for a snapshot.
    fn save(&self) -> (SavedEngine, MonpolyTiming);
    /// Calls `mark` with every interned string the engine holds (see
    /// [`FoEngine::mark_strings`]).
    fn mark_strings(&self, mark: &mut dyn FnMut(Sym)) -> usize;
}

struct Propositional {
    engine: Engine,
    timing: MonpolyTiming,
    scratch: Vec<Verdict>,
}

impl Decider for Propositional {
    fn feed(
        &mut self,
        tps: &[TimePoint],
        _: &mut Interner,
        out: &mut VecDeque<Answer>,
    ) -> Result<(), Error> {
        self.scratch.clear();
        for tp in tps {
            rvmon_mtl::Step::step(&mut self.engine, tp, &mut self.scratch)?;
        }
        out.extend(self.scratch.drain(..).map(|v| Answer::Bool {
            tp: v.tp,
            ts: v.ts,
            holds: v.value == Truth::True,
        }));
        Ok(())
    }

    fn close(&mut self, _: &mut Interner, out: &mut VecDeque<Answer>) -> Result<(), Error> {
        self.scratch.clear();
        self.engine.finish_trace(true, &mut self.scratch);
        out.extend(
            self.scratch
                .drain(..)
                .filter(|v| v.value != Truth::Unknown)
                .map(|v| Answer::Bool {
                    tp: v.tp,
                    ts: v.ts,
                    holds: v.value == Truth::True,
                }),
        );
        Ok(())
    }

    fn timing(&mut self) -> &mut MonpolyTiming {
        &mut self.timing
    }

    fn has_future(&self) -> bool {
        self.engine.program().has_future()
    }

    fn relevant(&self, tp: &TimePoint) -> bool {
        let props = &self.engine.program().props;
        tp.events.iter().any(|e| props.contains(&e.name))
    }

    fn save(&self) -> (SavedEngine, MonpolyTiming) {
        let engine = encode_state(&self.engine);
        (SavedEngine::Propositional(engine), self.timing.clone())
    }

    /// Propositional formulas hold no data.
    fn mark_strings(&self, _: &mut dyn FnMut(Sym)) -> usize {
        0
    }
}

struct FirstOrder {
    engine: FoEngine,
    timing: MonpolyTiming,
    relevant: Relevance,
    closed: bool,
    scratch: Vec<rvmon_fo::Answer>,
}

impl FirstOrder {
    fn render(&self, a: rvmon_fo::Answer, interner: &Interner) -> Answer {
        if self.closed {
            Answer::Bool {
                tp: a.tp,
                ts: a.ts,
                holds: !a.rel.is_empty(),
            }
        } else {
            let tuples =
                rvmon_fo::rel::sorted_texts(&a.rel, &self.engine.plan().output_order, interner);
            Answer::Tuples {
                tp: a.tp,
                ts: a.ts,
                tuples,
            }
        }
    }
}

impl Decider for FirstOrder {
    fn feed(
        &mut self,
        tps: &[TimePoint],
        interner: &mut Interner,
        out: &mut VecDeque<Answer>,
    ) -> Result<(), Error> {
        self.scratch.clear();
        let stepped = self.engine.step_batch(tps, interner, &mut self.scratch);
        for a in std::mem::take(&mut self.scratch) {
            out.push_back(self.render(a, interner));
        }
        stepped
    }

    /// As `rvmon check`'s first-order monitor: batches share each operator's per-update
    /// work, unless evaluation can fail (then the answers before the failure all count).
    fn batch_size(&self) -> usize {
        if self.engine.plan().may_fail() {
            1
        } else {
            rvmon_fo::OFFLINE_BATCH
        }
    }

    fn close(&mut self, interner: &mut Interner, out: &mut VecDeque<Answer>) -> Result<(), Error> {
        self.scratch.clear();
        self.engine.close(interner, &mut self.scratch)?;
        for a in std::mem::take(&mut self.scratch) {
            out.push_back(self.render(a, interner));
        }
        Ok(())
    }

    fn timing(&mut self) -> &mut MonpolyTiming {
        &mut self.timing
    }

    fn has_future(&self) -> bool {
        self.engine.plan().has_future()
    }

    fn relevant(&self, tp: &TimePoint) -> bool {
        self.relevant.any(tp)
    }

    fn take_warnings(&mut self) -> Vec<String> {
        self.engine.take_warnings()
    }

    fn save(&self) -> (SavedEngine, MonpolyTiming) {
        (
            SavedEngine::FirstOrder(self.engine.save()),
            self.timing.clone(),
        )
    }

    fn mark_strings(&self, mark: &mut dyn FnMut(Sym)) -> usize {
        self.engine.mark_strings(mark)
    }
}

/// Holds answers until MonPoly's timing releases them.
struct Printer {
    decider: Box<dyn Decider>,
    verbose: bool,
    /// Decided answers not yet printed, for consecutive positions from `next`.
    decided: VecDeque<Answer>,
    next: u64,
    /// Positions fed so far.
    fed: u64,
    strings: StringCollection,
}

impl Printer {
    /// Feeds `tps` (a batch) and prints what MonPoly prints at each of them: the engine
    /// decides the whole batch first, and each answer waits for the time point at which
    /// MonPoly's timing releases it.
    /// Strings no state holds are freed after it, unless `more` time points were read that
    /// are not in the batch (their strings are in no state yet).
    fn step(
        &mut self,
        tps: &[TimePoint],
        more: bool,
        interner: &mut Interner,
        out: &mut dyn Write,
    ) -> Result<(), Error> {
        if tps.is_empty() {
            return Ok(());
        }
        self.decider.feed(tps, interner, &mut self.decided)?;
        for tp in tps {
            if self.verbose {
                writeln!(out, "At time point {}:", tp.index)?;
            }
            self.decider.timing().step(tp.ts);
            self.fed += 1;
            self.release(out)?;
        }
        if !more {
            // Answers are held as text: the engine's state holds every string still needed.
            let decider = &self.decider;
            self.strings
                .collect_if_due(interner, |mark| decider.mark_strings(mark));
        }
        Ok(())
    }

    /// MonPoly's extra time point with the maximal timestamp, which closes every window.
    fn close(
        &mut self,
        index: u64,
        interner: &mut Interner,
        out: &mut dyn Write,
    ) -> Result<(), Error> {
        if self.verbose {
            writeln!(out, "At time point {index}:")?;
        }
        self.decider.close(interner, &mut self.decided)?;
        self.decider.timing().step(rvmon_mtl::CLOSING_TS);
        self.fed += 1;
        self.release(out)
    }

    fn release(&mut self, out: &mut dyn Write) -> Result<(), Error> {
        let now = self.fed - 1;
        while let Some(ready) = self.decider.timing().ready(self.next) {
            if ready > now {
                break;
            }
            // The engines decide no later than MonPoly; if one has not, wait for it.
            let Some(answer) = self.decided.pop_front() else {
                break;
            };
            self.next += 1;
            let next = self.next;
            self.decider.timing().consumed(next);
            match answer {
                Answer::Bool { tp, ts, holds } => {
                    if holds {
                        writeln!(out, "@{ts} (time point {tp}): true")?;
                    } else if self.verbose {
                        writeln!(out, "@{ts} (time point {tp}): false")?;
                    }
                }
                Answer::Tuples { tp, ts, tuples } => {
                    if self.verbose {
                        writeln!(out, "@{ts} (time point {tp}): ({})", tuples.join(","))?;
                    } else if !tuples.is_empty() {
                        writeln!(out, "@{ts} (time point {tp}): {}", tuples.join(" "))?;
                    }
                }
            }
        }
        Ok(())
    }
}

/// Where reading a log stands: the index the next time point gets, the last timestamp and the
/// last time point's index.
#[derive(Clone, Copy, Default, Serialize, Deserialize)]
struct ReadPosition {
    next_index: u64,
    last_ts: Option<i64>,
    last_index: Option<u64>,
}

/// An engine's saved state (its own encoding).
#[derive(Serialize, Deserialize)]
enum SavedEngine {
    Propositional(Vec<u8>),
    FirstOrder(Vec<u8>),
}

/// A monitor's state between two time points, as `>save_state FILE<` writes it and `-load FILE`
/// reads it: the signature and formula it monitors (their text, so that the file stands
/// alone), the options that change what the formula means, the strings met so far (values
/// are kept as interned ids), where the log stands, the verdicts decided but not yet due, and
/// the engine's own state.
#[derive(Serialize, Deserialize)]
struct Snapshot {
    magic: String,
    version: u32,
    sig_path: String,
    sig_text: String,
    formula_path: String,
    formula_text: String,
    negate: bool,
    no_rw: bool,
    verified: bool,
    strings: SavedStrings,
    position: ReadPosition,
    decided: VecDeque<Answer>,
    printed: u64,
    fed: u64,
    timing: MonpolyTiming,
    engine: SavedEngine,
}

const SNAPSHOT_MAGIC: &str = "rvmon monitor state";
/// Bumped whenever the layout of a snapshot or of an engine's state changes. A test
/// (`saved_state_layout_is_versioned` in `tests/monpoly_state.rs`) pins the bytes of sample
/// states to this number, so that a new layout cannot ship under an old number. It is also
/// bumped when the engine decides differently which states are versioned, a choice saved
/// with each state (8: a state shared up to renaming, read through a projection and tested
/// by another reader, is versioned; 9: offline, the engine is fed in batches, and a state
/// holds what a batch leaves behind; 10: the first-order engine saves one state per operator,
/// of its own kind, instead of parallel vectors of every kind's state for every node).
pub const SNAPSHOT_VERSION: u32 = 10;

/// The parts of the state saved at `path` whose layout [`SNAPSHOT_VERSION`] names (all but
/// the file names and texts, which vary with where a test writes them), encoded.
#[doc(hidden)]
pub fn saved_state_layout(path: &str) -> Result<Vec<u8>, Error> {
    let s = Snapshot::read(path, &MonpolyArgs::default())?;
    Ok(encode_state(&(
        &s.strings,
        &s.position,
        &s.decided,
        s.printed,
        s.fed,
        &s.timing,
        &s.engine,
    )))
}

impl Snapshot {
    fn write(
        path: &str,
        args: &MonpolyArgs,
        (sig_text, formula_text): (&str, &str),
        interner: &Interner,
        position: ReadPosition,
        printer: &Printer,
    ) -> Result<(), Error> {
        let (engine, timing) = printer.decider.save();
        let snapshot = Snapshot {
            magic: SNAPSHOT_MAGIC.into(),
            version: SNAPSHOT_VERSION,
            sig_path: args.sig.clone().unwrap_or_default(),
            sig_text: sig_text.into(),
            formula_path: args.formula.clone().unwrap_or_default(),
            formula_text: formula_text.into(),
            negate: args.negate,
            no_rw: args.no_rw,
            verified: args.verified,
            strings: interner.save(),
            position,
            decided: printer.decided.clone(),
            printed: printer.next,
            fed: printer.fed,
            timing,
            engine,
        };
        let bytes = encode_state(&snapshot);
        // Written next to the target and renamed: a crash mid-write leaves the old state whole.
        let partial = format!("{path}.partial");
        std::fs::write(&partial, bytes)
            .and_then(|()| std::fs::rename(&partial, path))
            .map_err(|e| Error::msg(format!("{path}: cannot save the monitor state: {e}")))
    }

    /// Reads a snapshot; options of `args` that change the formula's meaning must agree with it.
    fn read(path: &str, args: &MonpolyArgs) -> Result<Snapshot, Error> {
        let bytes = std::fs::read(path)
            .map_err(|e| Error::msg(format!("{path}: cannot read the saved state: {e}")))?;
        let not_ours = || {
            Error::msg(format!(
                "{path}: not a monitor state saved by this version of rvmon (`>save_state FILE<` in a log writes one)"
            ))
        };
        // The header first: a file of another kind or version is named as such.
        let header: Option<(String, u32)> = decode_state(&bytes);
        match header {
            Some((magic, SNAPSHOT_VERSION)) if magic == SNAPSHOT_MAGIC => {}
            Some((magic, version)) if magic == SNAPSHOT_MAGIC => {
                return Err(Error::msg(format!(
                    "{path}: the state was saved by another version of rvmon (state format {version}; this build reads format {SNAPSHOT_VERSION}); run the log again from its start, or resume with the build that saved it"
                )))
            }
            _ => return Err(not_ours()),
        }
        let s: Snapshot = decode_state(&bytes).ok_or_else(not_ours)?;
        let differs = |what: &str| {
            Error::msg(format!(
                "{path}: the state was saved with another {what}; -load takes the signature, formula, -negate, -no_rw and -verified of the saved state"
            ))
        };
        for (given, saved, what) in [
            (&args.sig, &s.sig_text, "signature"),
            (&args.formula, &s.formula_text, "formula"),
        ] {
            if let Some(given) = given {
                if read_file(given)? != *saved {
                    return Err(differs(what));
                }
            }
        }
        if (args.negate && !s.negate) || (args.no_rw && !s.no_rw) || (args.verified && !s.verified)
        {
            return Err(differs("option"));
        }
        if args.check {
            return Err(Error::msg(
                "-check analyses a formula; it does not take -load",
            ));
        }
        Ok(s)
    }

    /// `args` with the saved signature, formula and formula options.
    fn args(&self, args: &MonpolyArgs) -> MonpolyArgs {
        MonpolyArgs {
            sig: Some(self.sig_path.clone()),
            formula: Some(self.formula_path.clone()),
            negate: self.negate,
            no_rw: self.no_rw,
            verified: self.verified,
            ..args.clone()
        }
    }

    /// Gives a fresh reader the saved strings (with their ids) and numbering.
    fn restore_reader<R>(&self, reader: &mut MonpolyLogReader<R>)
    where
        MonpolyLogReader<R>: TraceReader,
    {
        debug_assert!(reader.interner().is_empty(), "the saved strings come first");
        *reader.interner_mut() = Interner::restore(&self.strings);
        reader.resume(0, self.position.next_index, self.position.last_ts);
    }

    /// The saved engine, which must run `program` (compiled again from the same formula).
    fn propositional(&self, program: &Program) -> Result<(Engine, MonpolyTiming), Error> {
        let another = || Error::msg("the saved monitor state belongs to another formula");
        let SavedEngine::Propositional(bytes) = &self.engine else {
            return Err(another());
        };
        let engine: Engine =
            decode_state(bytes).ok_or_else(|| Error::msg("the saved monitor state is damaged"))?;
        if engine.program().ops != program.ops {
            return Err(another());
        }
        Ok((engine, self.timing.clone()))
    }

    fn first_order(&self, plan: rvmon_fo::Plan) -> Result<(FoEngine, MonpolyTiming), Error> {
        match &self.engine {
            SavedEngine::FirstOrder(bytes) => {
                Ok((FoEngine::restore(plan, bytes)?, self.timing.clone()))
            }
            SavedEngine::Propositional(_) => Err(Error::msg(
                "the saved monitor state belongs to another formula",
            )),
        }
    }

    /// Puts the undelivered verdicts back; returns where reading stands.
    fn restore_printer(self, printer: &mut Printer) -> ReadPosition {
        printer.decided = self.decided;
        printer.next = self.printed;
        printer.fed = self.fed;
        self.position
    }
}
