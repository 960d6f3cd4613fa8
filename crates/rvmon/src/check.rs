//! `rvmon check SPEC [TRACE]`: the main job. The spec must hold at every time point; rvmon
//! reports the time points where it does not, as soon as each is decided.

use std::io::{IsTerminal, Write};

use clap::Args;
use rvmon_core::{Error, Interner, MemoryLimit, StringCollection};
use rvmon_trace::{open_reader, Signature, TraceFormat, TraceOptions, TraceReader};

use crate::cascade::{self, FormulaSpec, Lang};
use crate::report::{self, ReportPlan};
use crate::run::{self, RunOptions};
use crate::sink::FormatSink;

pub use crate::sink::Output;

/// `rvmon check`'s options (also the library's options for a run).
#[derive(Args, Debug, Clone)]
pub struct CheckArgs {
    /// The specification: `.mtl`, `.mfotl`, `.ltl` (a temporal formula in MonPoly syntax),
    /// `.lola` (stream equations in RTLola's syntax), `.rvm` (parametric properties), `.stl`
    /// (a signal temporal logic formula in rtamt's syntax, over the columns of a CSV trace),
    /// `.mltl`/`.c2po` (R2U2's mission-time LTL) or `.modelplex` (ModelPlex monitor
    /// conditions over each pair of consecutive samples).
    pub spec: String,
    /// The trace; `-` or nothing reads standard input incrementally (online monitoring).
    pub trace: Option<String>,
    /// Trace format; by default from the extension (`.log` MonPoly, `.csv`, `.json`, `.jsonl`, `.xml`).
    #[arg(long, value_parser = clap::builder::ValueParser::new(|s: &str| s.parse::<TraceFormat>()))]
    pub format: Option<TraceFormat>,
    /// A MonPoly signature file: types values and rejects undeclared predicates.
    #[arg(long)]
    pub sig: Option<String>,
    /// Name of the field that holds the timestamp (CSRV CSV/XML, JSON, JSON Lines); by
    /// default a field named `time`, `ts` or `timestamp`, else the event's position.
    #[arg(long)]
    pub time_field: Option<String>,
    /// Stream specifications, CSV traces: how the time column reads, by rtlola-cli's
    /// `--offline` names: `relative-secs` (the default: seconds from time zero, as written),
    /// `relative-nanos` (whole nanoseconds), `offset-secs`/`offset-nanos` (since the previous
    /// row), `absolute-unix` (seconds since the epoch; the first row is time zero). Periodic
    /// streams count from time zero.
    #[arg(long, value_name = "MODE")]
    pub time_format: Option<String>,
    /// Stream specifications, `--output rtlola`: times written in seconds (`relative-secs`,
    /// the default, `12.000000000`) or in nanoseconds (`relative-nanos`), as rtlola-cli's
    /// `--output-time-format`.
    #[arg(long, value_name = "MODE")]
    pub output_time_format: Option<String>,
    /// The output format.
    #[arg(long, value_enum, default_value = "text")]
    pub output: Output,
    /// Print the plan (engine, formula class, horizons, memory) and exit.
    #[arg(long)]
    pub explain: bool,
    /// The spec language when the extension does not say: `mtl` (also `mfotl`, `ltl`), `lola`,
    /// `rvm`, `stl`, `mltl`, `c2po` or `modelplex`.
    #[arg(long)]
    pub lang: Option<String>,
    /// Stream specifications: also write every output stream's value as it is decided
    /// (RTLola's `--verbosity outputs`).
    #[arg(long)]
    pub values: bool,
    /// STL formulas: write the robustness at every sample, `<time> <robustness>` (as rtamt's
    /// `evaluate`, `inf` and `-inf` as such), and exit 0 whatever its signs. Without it, the
    /// samples where the robustness is negative are reported as violations.
    #[arg(long)]
    pub robustness: bool,
    /// R2U2 specifications: C2PO's optimisations to leave out, `no-rewrite` and `no-cse`
    /// (comma-separated). They change which operator tree runs, so R2U2's verdict lines
    /// (their grouping of steps, not their truth); `r2u2_cli run` has both on.
    #[arg(long, value_name = "OPTIONS", value_delimiter = ',', value_parser = ["no-rewrite", "no-cse"])]
    pub c2po: Vec<String>,
    /// ModelPlex conditions (.modelplex): forgive differences up to this much in each
    /// comparison, in the condition's favour (`x' = x + f'*t'` holds when the two sides
    /// differ by at most it; under a negation, a comparison must hold by more than it). A
    /// pair is then a violation only if it is one by more than the tolerance. Without it,
    /// comparisons are exact: each sample is the decimal written in the trace.
    #[arg(long, value_name = "T")]
    pub tolerance: Option<String>,
    /// Temporal formulas: each event's true time is only known within ± this
    /// much of its timestamp (in the trace's time unit; a decimal), as with clocks that
    /// disagree (paper 16). Each time point's verdict then says whether the formula is
    /// violated there for every true timing (`violation`), for some (`possible-violation`),
    /// or cannot be said (`undetermined`), by the paper's rewriting and labels. The formula
    /// is read in continuous time (between events no proposition holds); PREVIOUS, NEXT and
    /// unbounded future operators are refused. `--explain` shows the rewriting.
    #[arg(long, value_name = "δ")]
    pub timestamp_error: Option<String>,
    /// Run this shell command after each violation (or stream trigger) is written, and wait
    /// for it: a Simplex-style switch to a safe fallback (paper 17). It gets the decision as
    /// one JSON line on standard input and in RVMON_DECISION, and the time point in
    /// RVMON_TP. A fallback that fails stops the run (status 2).
    #[arg(long, value_name = "CMD")]
    pub fallback: Option<String>,
    /// STL formulas: dense time. Each sample's value holds from its time until the next
    /// sample's (piecewise constant), the last value forever (so no `inf` at the end); the
    /// windows `[a,b]` are closed and in seconds, like the `time` column (units allowed:
    /// `[0,500ms]`); timestamps must increase strictly. The robustness, exact for that
    /// signal, is reported at each sample time. Offline: the trace must be a file. No `next`,
    /// `prev`, `rise` or `fall`.
    #[arg(long)]
    pub dense: bool,
    /// STL formulas with bounded future operators: robustness intervals for the samples the
    /// horizon has not yet decided, as they tighten. After each sample, every undecided
    /// sample whose bounds changed gets a line `<time> <lower> <upper>`: its robustness will
    /// lie between them whatever the samples to come (the unknown samples count as any
    /// value; the trace may also end now). A decided sample's line has lower = upper, its
    /// robustness. Implies --robustness (every sample is written); with --output jsonl, the
    /// bounds are `"lower"` and `"upper"`.
    #[arg(long)]
    pub intervals: bool,
    /// Also write a report of the run to this HTML file, one self-contained page (inline
    /// SVG; nothing is loaded from the network): the inputs over time (an STL formula's
    /// signals), the robustness of an STL formula and of its subformulas (up to 12), the
    /// violations marked, and for every engine a verdict timeline with the counts and the
    /// first violations listed. A long trace is summarised (the minimum and maximum of each
    /// stretch), so the page does not grow with it. Standard output and the exit status are
    /// the same as without it; after a bad input the report shows what was decided before.
    /// Not for sliced runs (--workers, --processes, --slices).
    #[arg(long, value_name = "FILE.html")]
    pub report: Option<String>,
    /// First-order formulas: worker threads of a sliced parallel run (paper 04's data slicing
    /// on timely-dataflow). The output is the same as without. A formula the slicers cannot
    /// split (propositional, or without a variable to slice by and no time slicing) runs as a
    /// single run, with a note.
    #[arg(long, default_value_t = 1)]
    pub workers: usize,
    /// Processes of a cluster run; start each with the same arguments and its `--process-id`.
    /// Process 0 reads the log and writes the output.
    #[arg(long, default_value_t = 1)]
    pub processes: usize,
    /// This process's number in a cluster run (0 to --processes minus one).
    #[arg(long, default_value_t = 0)]
    pub process_id: usize,
    /// `host:port` of each process, one per line (line i for process i); by default
    /// 127.0.0.1:2101, 127.0.0.1:2102, …
    #[arg(long)]
    pub hostfile: Option<String>,
    /// Slices of a sliced run (default: one per worker, over all processes); with
    /// `--slicing both`, the data slices of each period (default 2).
    #[arg(long)]
    pub slices: Option<usize>,
    /// How a sliced run slices the log: `data` (by the values of a variable, `--slice-by`),
    /// `time` (into periods, each with the margins its formula's horizons need), `both`
    /// (periods, each sliced by data), or `auto`.
    #[arg(long, value_enum, default_value_t = Slicing::Auto)]
    pub slicing: Slicing,
    /// The free variable to slice by (default: the one most atoms mention).
    #[arg(long)]
    pub slice_by: Option<String>,
    /// After a sliced run, print how many events and time points each slice received.
    #[arg(long)]
    pub slice_report: bool,
    /// Seconds a cluster process waits for the others to connect.
    #[arg(long, default_value_t = 60)]
    pub connect_timeout: u64,
    /// Sliced runs: threads that read a MonPoly log file, in pieces (default: the cores
    /// available; 1 reads it in one pass). The output is the same.
    #[arg(long)]
    pub readers: Option<usize>,
    /// Time-sliced runs: keep each finished period's verdicts in this directory, and take
    /// them from it instead of running the period again (after a failed run, say).
    #[arg(long)]
    pub state_dir: Option<String>,
    /// Once this many distinct strings are held, free those that no state holds any more, and
    /// again whenever as many new ones have come as were kept (logs with ever new values, such
    /// as request ids, then run in memory that follows the policy, not the log).
    #[arg(long, default_value_t = StringCollection::DEFAULT_FLOOR, hide_short_help = true)]
    pub collect_strings: usize,
    /// Memory a specification may make rvmon set aside before reading the trace (the past
    /// values that `.lola` offsets keep, the Boolean window automaton): a spec that would
    /// need more is refused, with what it would need. Bytes, or K, M, G, T (powers of 1024).
    #[arg(long, default_value_t = MemoryLimit::DEFAULT,
          value_parser = clap::builder::ValueParser::new(|s: &str| s.parse::<MemoryLimit>()))]
    pub memory_limit: MemoryLimit,
    /// No progress display (shown on standard error, when it is a terminal, while a trace
    /// file is read).
    #[arg(long, short)]
    pub quiet: bool,
}

/// How a sliced run slices the log (paper 04's slicers).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Slicing {
    /// Data slicing, by the values of `--slice-by` (or the variable most atoms mention).
    Data,
    /// Time slicing: periods of the log, each read by its own worker with the margins the
    /// formula's horizons need (bounded past and future only; a MonPoly log file).
    Time,
    /// Time slicing when `--slice-by` is not given, the log is a MonPoly file, the formula's
    /// horizons are bounded, and its predicates occur in most time points (so that data
    /// slices could skip few of them); data slicing otherwise.
    Auto,
    /// Both slicers composed (paper 04): one period per worker, each cut into `--slices`
    /// data slices (default 2) by `--slice-by`; every (period, slice) is a task.
    Both,
}

impl CheckArgs {
    /// `rvmon check SPEC TRACE` with every option at its default (for callers in code).
    pub fn new(spec: impl Into<String>, trace: impl Into<String>) -> CheckArgs {
        CheckArgs {
            spec: spec.into(),
            trace: Some(trace.into()),
            format: None,
            sig: None,
            time_field: None,
            time_format: None,
            output_time_format: None,
            output: Output::Text,
            explain: false,
            lang: None,
            values: false,
            robustness: false,
            c2po: Vec::new(),
            tolerance: None,
            fallback: None,
            timestamp_error: None,
            dense: false,
            intervals: false,
            report: None,
            workers: 1,
            processes: 1,
            process_id: 0,
            hostfile: None,
            slices: None,
            slicing: Slicing::Auto,
            slice_by: None,
            slice_report: false,
            connect_timeout: 60,
            readers: None,
            state_dir: None,
            collect_strings: StringCollection::DEFAULT_FLOOR,
            memory_limit: MemoryLimit::DEFAULT,
            quiet: false,
        }
    }

    /// How a run over the trace goes (`online` for a live input): strings collected as
    /// `--collect-strings` says, progress on a terminal unless `--quiet`.
    pub fn run_options(&self, online: bool) -> RunOptions {
        RunOptions {
            online,
            collect_strings: self.collect_strings,
            progress: !self.quiet && std::io::stderr().is_terminal(),
            fallback: self.fallback.clone(),
        }
    }

    /// Whether a first-order formula runs sliced (in parallel).
    pub fn sliced(&self) -> bool {
        self.workers > 1 || self.processes > 1 || self.slices.is_some()
    }
}

/// Runs `rvmon check`: verdicts on `out`, notes and the summary on `err`. The exit status: 0
/// (no violation), 1 (violations); an error is status 2 for the caller.
pub fn run(args: &CheckArgs, out: &mut dyn Write, err: &mut dyn Write) -> Result<i32, Error> {
    crate::sliced::check_cluster_args(args)?;
    let (lang, lang_name) = Lang::of(&args.spec, args.lang.as_deref());
    for (set, flag) in [(args.dense, "--dense"), (args.intervals, "--intervals")] {
        if set && lang != Lang::Stl {
            return Err(Error::msg(format!(
                "{flag} is for signal temporal logic (.stl, or --lang stl); {} is not one",
                args.spec
            )));
        }
    }
    let slices_formulas_only = "only temporal formulas are sliced";
    match (lang, args.output) {
        (Lang::R2u2, Output::Monpoly | Output::Rtlola) => {
            return Err(Error::msg(
                "R2U2 specifications write text, jsonl or r2u2 (r2u2_cli's verdict lines)",
            ))
        }
        (l, Output::R2u2) if l != Lang::R2u2 => {
            return Err(Error::msg(
                "--output r2u2 is for R2U2 specifications (.mltl, .c2po)",
            ))
        }
        _ => {}
    }
    if args.timestamp_error.is_some() && lang != Lang::Formula {
        return Err(Error::msg(format!(
            "--timestamp-error is for temporal formulas (.mtl and the like); {} is not one",
            args.spec
        )));
    }
    if args.tolerance.is_some() && lang != Lang::Modelplex {
        return Err(Error::msg(format!(
            "--tolerance is for ModelPlex conditions (.modelplex); {} is not one",
            args.spec
        )));
    }
    match lang {
        Lang::Modelplex => {
            return match single_run_instead(args, slices_formulas_only, err)? {
                Some(status) => Ok(status),
                None => crate::modelplex::run(args, out, err),
            }
        }
        Lang::R2u2 => {
            return match single_run_instead(args, slices_formulas_only, err)? {
                Some(status) => Ok(status),
                None => crate::r2u2::run(args, out, err),
            }
        }
        Lang::Lola => {
            return match single_run_instead(args, slices_formulas_only, err)? {
                Some(status) => Ok(status),
                None => crate::stream::run(args, out, err),
            }
        }
        Lang::Rvm => {
            return match single_run_instead(args, slices_formulas_only, err)? {
                Some(status) => Ok(status),
                None => crate::param::run(args, out, err),
            }
        }
        Lang::Stl => {
            return match single_run_instead(args, slices_formulas_only, err)? {
                Some(status) => Ok(status),
                None => crate::stl::run(args, out, err),
            }
        }
        Lang::Formula => {}
    }
    if args.output == Output::Rtlola {
        return Err(Error::msg(
            "--output rtlola is for stream specifications (.lola); formulas write text, jsonl or monpoly",
        ));
    }
    let text = crate::read_file(&args.spec)?;
    let spec = FormulaSpec::parse(&args.spec, text, lang_name.as_deref())?
        .with_signature(crate::read_signature(args.sig.as_deref())?)?;
    if let Some(delta) = &args.timestamp_error {
        return crate::imprecise::run(args, &spec, delta, out, err);
    }
    let trace_path = args.trace.as_deref().filter(|t| *t != "-");
    let format = crate::trace_format(args.format, trace_path)?;
    if args.sliced() && !args.explain {
        if let Some(status) = sliced(args, &spec, out, err)? {
            return Ok(status);
        }
    }
    let online = trace_path.is_none();
    let mut reader = open(args, trace_path, format, spec.sig.clone(), err)?;
    let mut plan = cascade::formula_monitor(&spec, reader.interner_mut(), !online)?;
    if let (Some(path), false) = (trace_path, args.explain) {
        warn_if_no_event_is_named(args, path, format, &spec, err)?;
    }
    if args.explain {
        write!(out, "{}", plan.explain(&spec))?;
        return Ok(0);
    }
    let mut sink = FormatSink::new(out, args.output);
    let options = args.run_options(online);
    let language = "temporal formula (MonPoly's syntax)";
    let report = ReportPlan::new(args, language, &spec.text, Vec::new())?;
    let stats = report::run(
        report,
        &mut *plan.monitor,
        &mut *reader,
        &mut sink,
        options,
        err,
    )?;
    crate::release(plan.monitor);
    run::summary(sink.counts, stats, err)?;
    Ok(if sink.counts.violations > 0 { 1 } else { 0 })
}

/// How many time points [`warn_if_no_event_is_named`] looks at.
const NAMES_SAMPLE: usize = 1000;

/// Says on `err` when the trace file's first time points have events, none of which the
/// formula names (a misspelt or differently cased name would otherwise give no violation,
/// silently). Only the start of the file is read, again, with a reader of its own; what it
/// cannot read is left for the run to report.
fn warn_if_no_event_is_named(
    args: &CheckArgs,
    path: &str,
    format: TraceFormat,
    spec: &FormulaSpec,
    err: &mut dyn Write,
) -> Result<(), Error> {
    let named = rvmon_slice::predicates(&spec.formula);
    if named.is_empty() {
        return Ok(());
    }
    let Ok(mut reader) = open(
        args,
        Some(path),
        format,
        spec.sig.clone(),
        &mut std::io::sink(),
    ) else {
        return Ok(());
    };
    let mut seen = std::collections::BTreeSet::new();
    let mut tp = rvmon_core::TimePoint::default();
    for _ in 0..NAMES_SAMPLE {
        match reader.next_time_point(&mut tp) {
            Ok(true) => {}
            _ => break,
        }
        for e in &tp.events {
            let name = reader.interner().resolve(e.name);
            if named.iter().any(|n| n == name) {
                return Ok(());
            }
            if seen.len() < 8 {
                seen.insert(name.to_string());
            }
        }
    }
    if !seen.is_empty() {
        let seen: Vec<String> = seen.into_iter().collect();
        writeln!(
            err,
            "rvmon: warning: none of the events of the first {NAMES_SAMPLE} time points of \
             {path} is one the formula names (it names: {}; the trace has: {}): are the names \
             spelt alike?",
            named.join(", "),
            seen.join(", ")
        )?;
    }
    Ok(())
}

/// A run asked to be sliced: the sliced run's status, or `None` when the formula runs as a
/// single run instead (said on `err`; the output is the same).
fn sliced(
    args: &CheckArgs,
    spec: &FormulaSpec,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<Option<i32>, Error> {
    let why = match spec.analysis.first_order_at {
        None => "the formula is propositional, and the slicers split first-order formulas".into(),
        Some(_) => {
            let sig = cascade::first_order_signature(spec)?;
            // The form the engine runs decides how it can be sliced (its free variables).
            let (analyzed, _) = cascade::choose_form(spec, sig, &mut Interner::new())?;
            let vars = spec.free_vars();
            match crate::sliced::plan(args, &analyzed, &vars, sig, &spec.text)? {
                Ok(plan) => {
                    if args.report.is_some() {
                        return Err(Error::msg(
                            "--report is not available for a sliced run (--workers, --processes, \
                             --slices): its workers do not go through the run loop that \
                             records the report; run without them for a report",
                        ));
                    }
                    let status =
                        crate::sliced::run(args, &plan, analyzed, vars, sig, &spec.text, out, err)?;
                    return Ok(Some(status));
                }
                Err(why) => why,
            }
        }
    };
    single_run_instead(args, &why, err)
}

/// The reader of the trace at `path` (standard input if `None`).
pub(crate) fn open(
    args: &CheckArgs,
    path: Option<&str>,
    format: TraceFormat,
    sig: Option<Signature>,
    err: &mut dyn Write,
) -> Result<Box<dyn TraceReader>, Error> {
    let input = crate::open_trace(path, err)?;
    let options = TraceOptions {
        sig,
        time_field: args.time_field.clone(),
    };
    open_reader(format, input, path.unwrap_or("<stdin>"), options)
}

/// A run asked to be sliced that cannot be, for the reason `why`, runs as a single run, with
/// the same output: says so on `err`, in one line. Then a cluster's process 0 runs it alone,
/// and the other processes have nothing to do: for them, `Some(0)` (they return at once
/// instead of waiting for peers that never connect).
pub(crate) fn single_run_instead(
    args: &CheckArgs,
    why: &str,
    err: &mut dyn Write,
) -> Result<Option<i32>, Error> {
    if !args.sliced() || args.explain {
        return Ok(None);
    }
    if args.process_id != 0 {
        writeln!(
            err,
            "rvmon: note: {why}; process 0 runs it alone, as a single run, and process {} has nothing to do",
            args.process_id
        )?;
        return Ok(Some(0));
    }
    writeln!(err, "rvmon: note: {why}; it runs as a single run")?;
    Ok(None)
}
