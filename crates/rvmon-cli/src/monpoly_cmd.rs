//! `rvmon monpoly`: a drop-in for MonPoly's command line and output.
//!
//! The eager engine decides the verdicts; [`MonpolyTiming`] holds each one back until the time
//! point at which MonPoly would print it, so that `-verbose` output (which interleaves
//! `At time point i:` lines with verdicts) is byte-identical, and so that verdicts MonPoly
//! never prints (pending at the end with `-nonewlastts`) are not printed either.

use std::collections::VecDeque;
use std::io::{BufRead, Write};

use rvmon_core::{Error, TimePoint, Truth, Verdict};
use rvmon_logic::monitorable::is_monitorable;
use rvmon_logic::monpoly::{is_filterable_empty_tp, normalize, to_monpoly_string};
use rvmon_logic::{analyze, parse_formula, Formula, FormulaKind, TemporalClass};
use rvmon_mtl::{Engine, MonpolyTiming, Program};
use rvmon_trace::{MonpolyLogReader, Signature, TraceReader};

use crate::read_file;

/// MonPoly's options that rvmon understands.
#[derive(Debug, Default, Clone)]
pub struct MonpolyArgs {
    pub sig: Option<String>,
    pub formula: Option<String>,
    pub log: Option<String>,
    pub negate: bool,
    pub verbose: bool,
    pub nonewlastts: bool,
    pub nofilteremptytp: bool,
    pub no_rw: bool,
    pub verified: bool,
    pub check: bool,
}

impl MonpolyArgs {
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
                // VeriMon's semantics are MonPoly's; the verified kernel also disables the
                // empty-time-point filter.
                "-verified" => a.verified = true,
                "-check" => a.check = true,
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
    let sig_path = args
        .sig
        .as_deref()
        .ok_or_else(|| Error::msg("missing -sig FILE"))?;
    let formula_path = args
        .formula
        .as_deref()
        .ok_or_else(|| Error::msg("missing -formula FILE"))?;
    let sig = Signature::parse(sig_path, &read_file(sig_path)?)?;
    let text = read_file(formula_path)?;
    let mut f = parse_formula(formula_path, &text)?;
    if args.negate {
        let span = f.span;
        f = Formula::new(FormulaKind::Not(Box::new(f)), span);
    }
    let analysis = analyze(formula_path, &text, &f)?;
    if let Some((span, why)) = &analysis.first_order_at {
        return Err(Error::at_offset(
            formula_path,
            &text,
            span.start,
            format!("first-order formulas are not supported yet ({why})"),
        ));
    }
    if analysis.temporal == TemporalClass::UnboundedFuture {
        return Err(Error::msg(format!(
            "{formula_path}: the formula contains an unbounded future operator, which MonPoly cannot monitor \
             (use `rvmon check` for three-valued verdicts)"
        )));
    }
    let analyzed = if args.no_rw { f.clone() } else { normalize(&f) };
    if args.verbose || args.check {
        let (input, shown) = (to_monpoly_string(&f), to_monpoly_string(&analyzed));
        if input != shown {
            writeln!(err, "The input formula is:\n  {input}")?;
        }
        writeln!(err, "The analyzed formula is:\n  {shown}")?;
        writeln!(err, "The sequence of free variables is: ()")?;
    }
    if let Err((sub, why)) = is_monitorable(&analyzed) {
        if args.verbose || args.check {
            writeln!(
                err,
                "The analyzed formula is NOT monitorable, because of the subformula:\n  {}",
                to_monpoly_string(sub)
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
            // A closed formula without variables is trivially (TSF) safe-range.
            writeln!(
                err,
                "However, the input (and also the analyzed) formula is safe-range, "
            )?;
            writeln!(
                err,
                "hence one should be able to rewrite it into a monitorable formula."
            )?;
            writeln!(err, "By the way, the analyzed formula is TSF safe-range.")?;
        } else {
            writeln!(
                err,
                "The formula is NOT monitorable. Use the -check or -verbose flags."
            )?;
        }
        return Ok(0);
    }
    if args.check {
        writeln!(err, "The analyzed formula is monitorable.")?;
        return Ok(0);
    }
    let Some(log_path) = args.log.as_deref() else {
        return Err(Error::msg("missing -log FILE"));
    };
    let mut reader = MonpolyLogReader::new(open(log_path)?, log_path, Some(sig));
    reader.skip_out_of_order(true);
    let program = Program::compile(&analyzed, reader.interner_mut(), formula_path, &text)?;
    let filter_empty = !args.nofilteremptytp && !args.verified && is_filterable_empty_tp(&analyzed);
    let add_last_ts = !args.nonewlastts && program.has_future();
    let mut printer = Printer::new(program, args.verbose);
    let mut tp = TimePoint::default();
    let mut last_index = None;
    loop {
        let more = reader.next_time_point(&mut tp);
        for w in reader.take_warnings() {
            writeln!(err, "{w}")?;
        }
        if !more? {
            break;
        }
        last_index = Some(tp.index);
        if filter_empty && !printer.mentions_any(&tp) {
            continue;
        }
        printer.step(&tp, out)?;
    }
    if add_last_ts {
        printer.close(last_index.map_or(0, |i| i + 1), out)?;
    }
    out.flush()?;
    Ok(0)
}

fn open(path: &str) -> Result<Box<dyn BufRead>, Error> {
    let file =
        std::fs::File::open(path).map_err(|e| Error::msg(format!("{path}: cannot open: {e}")))?;
    Ok(Box::new(std::io::BufReader::with_capacity(1 << 16, file)))
}

/// Holds eager verdicts until MonPoly's timing releases them.
struct Printer {
    engine: Engine,
    timing: MonpolyTiming,
    verbose: bool,
    /// Decided verdicts not yet printed, for consecutive positions from `next`.
    decided: VecDeque<Verdict>,
    next: u64,
    /// Positions fed so far.
    fed: u64,
    scratch: Vec<Verdict>,
}

impl Printer {
    fn new(program: Program, verbose: bool) -> Printer {
        Printer {
            timing: MonpolyTiming::new(&program),
            engine: Engine::new(program),
            verbose,
            decided: VecDeque::new(),
            next: 0,
            fed: 0,
            scratch: Vec::new(),
        }
    }

    fn mentions_any(&self, tp: &TimePoint) -> bool {
        let props = &self.engine.program().props;
        tp.events.iter().any(|e| props.contains(&e.name))
    }

    fn step(&mut self, tp: &TimePoint, out: &mut dyn Write) -> Result<(), Error> {
        if self.verbose {
            writeln!(out, "At time point {}:", tp.index)?;
        }
        self.scratch.clear();
        rvmon_core::Monitor::step(&mut self.engine, tp, &mut self.scratch);
        self.decided.extend(self.scratch.drain(..));
        self.timing.step(tp.ts);
        self.fed += 1;
        self.release(out)
    }

    /// MonPoly's extra time point with the maximal timestamp, which closes every window.
    fn close(&mut self, index: u64, out: &mut dyn Write) -> Result<(), Error> {
        if self.verbose {
            writeln!(out, "At time point {index}:")?;
        }
        self.scratch.clear();
        self.engine.finish_trace(true, &mut self.scratch);
        self.decided
            .extend(self.scratch.drain(..).filter(|v| v.value != Truth::Unknown));
        self.timing.step(rvmon_mtl::CLOSING_TS);
        self.fed += 1;
        self.release(out)
    }

    fn release(&mut self, out: &mut dyn Write) -> Result<(), Error> {
        let now = self.fed - 1;
        while let Some(ready) = self.timing.ready(self.next) {
            if ready > now {
                break;
            }
            // The engine decides no later than MonPoly; if it has not, wait for it.
            let Some(v) = self.decided.front().copied() else {
                break;
            };
            self.decided.pop_front();
            self.next += 1;
            self.timing.consumed(self.next);
            match (v.value, self.verbose) {
                (Truth::True, _) => writeln!(out, "@{} (time point {}): true", v.ts, v.tp)?,
                (Truth::False, true) => writeln!(out, "@{} (time point {}): false", v.ts, v.tp)?,
                _ => {}
            }
        }
        Ok(())
    }
}
