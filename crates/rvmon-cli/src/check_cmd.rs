//! `rvmon check SPEC [TRACE]`: the main job. The spec must hold at every time point; rvmon
//! reports the time points where it does not, as soon as each is decided.

use std::io::Write;
use std::path::Path;

use clap::{Args, ValueEnum};
use rvmon_core::{
    json_string, Error, Interner, MemoryLimit, Monitor, StringCollection, TimePoint, Truth, Value,
    Verdict,
};
use rvmon_fo::FoEngine;
use rvmon_logic::monpoly::candidate_forms;
use rvmon_logic::order::order_conjuncts;
use rvmon_logic::pushdown::push_comparisons;
use rvmon_logic::{
    analyze, check_arities, free_vars, parse_formula_with, Analysis, Formula, FormulaKind,
    ParseOptions, TemporalClass,
};
use rvmon_mtl::{Engine, Program};
use rvmon_slice::empty_points_removable;
use rvmon_trace::TraceReader;
use rvmon_trace::{open_reader, Signature, TraceFormat, TraceOptions};

use crate::read_file;
use crate::relevance::Relevance;

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum Output {
    /// One line per violation: `violation: time point 3 @1000`.
    Text,
    /// One JSON object per verdict: `{"tp":3,"ts":1000,"verdict":"violation"}`.
    Jsonl,
    /// MonPoly's `-negate` output: `@1000 (time point 3): true`.
    Monpoly,
    /// RTLola's log lines, for stream specifications: `[0.6][Trigger][#0][Value] = "msg"`.
    Rtlola,
}

#[derive(Args, Debug, Clone)]
pub struct CheckArgs {
    /// The specification: `.mtl`, `.mfotl`, `.ltl` (a temporal formula in MonPoly syntax) or
    /// `.lola` (stream equations in RTLola's syntax) or `.rvm` (parametric properties).
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
    #[arg(long, value_enum, default_value = "text")]
    pub output: Output,
    /// Print the plan (engine, formula class, horizons, memory) and exit.
    #[arg(long)]
    pub explain: bool,
    /// The spec language when the extension does not say: `mtl` (also `mfotl`, `ltl`), `lola`
    /// or `rvm`.
    #[arg(long)]
    pub lang: Option<String>,
    /// Stream specifications: also write every output stream's value as it is decided
    /// (RTLola's `--verbosity outputs`).
    #[arg(long)]
    pub values: bool,
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
            output: Output::Text,
            explain: false,
            lang: None,
            values: false,
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
        }
    }

    /// Whether a first-order formula runs sliced (in parallel).
    pub fn sliced(&self) -> bool {
        self.workers > 1 || self.processes > 1 || self.slices.is_some()
    }
}

/// `--explain`'s lines for the formula's temporal class and how far a verdict looks back and
/// ahead (the same for every engine).
fn class_and_horizons(analysis: &Analysis) -> String {
    let fmt_h = |h: Option<u64>| h.map_or("unbounded".to_string(), |h| h.to_string());
    format!(
        "checked: at every time point (no ALWAYS is needed around the formula; one there asks \
         that it hold from each time point on)\nclass: {}\nhorizons: past {}, future {} time units{}\n",
        analysis.temporal,
        fmt_h(analysis.past_horizon),
        fmt_h(analysis.future_horizon),
        if analysis.next_depth > 0 {
            format!(" (+{} NEXT steps)", analysis.next_depth)
        } else {
            String::new()
        }
    )
}

/// The plan for a formula: which engine runs it and why.
pub fn explain(formula: &Formula, analysis: &Analysis, engine: &Engine) -> String {
    let program = engine.program();
    let mut s = String::new();
    s.push_str(&format!("formula: {formula}\n"));
    s.push_str(&format!(
        "engine: propositional MTL (rvmon-mtl), {}\n",
        engine.strategy()
    ));
    s.push_str(&format!(
        "  why: the formula has no variables or predicate arguments; {} operators\n",
        program.ops.len()
    ));
    s.push_str(&class_and_horizons(analysis));
    let memory = match analysis.temporal {
        TemporalClass::PastOnly => {
            "O(1) per operator for [0,b] and [a,*) intervals; otherwise at most one timestamp per distinct \
             timestamp inside the interval's lower bound"
        }
        TemporalClass::BoundedFuture => {
            "pending time points within the future horizon, plus the past operators' windows; independent of \
             the trace length"
        }
        TemporalClass::UnboundedFuture if engine.is_three_valued() => {
            "the residue of each pending time point (time points with the same residue share one), \
             bounded by the formula and the timestamps inside its metric windows; the pending time \
             points themselves until decided\n\
             verdicts: three-valued (LTL3): a violation as soon as no continuation of the trace can \
             satisfy the formula there, satisfied as soon as every one does, inconclusive at the end \
             otherwise; exact when the temporal operators have no interval, metric windows are relaxed \
             in the check of the continuations (a verdict is never wrong, one may stay inconclusive)"
        }
        TemporalClass::UnboundedFuture => {
            "undecided time points are kept until decided\n\
             verdicts: decided by progression; a past operator over a future one keeps the formula \
             off the exact three-valued engine: time points not decided by the end are inconclusive"
        }
    };
    s.push_str(&format!("memory: {memory}\n"));
    s.push_str(&format!(
        "propositions: {}\n",
        program.prop_names.join(", ")
    ));
    s
}

pub fn run(args: &CheckArgs, out: &mut dyn Write, err: &mut dyn Write) -> Result<i32, Error> {
    crate::parallel_cmd::check_cluster_args(args)?;
    let lang = args.lang.clone().or_else(|| {
        Path::new(&args.spec)
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_string)
    });
    let slices_formulas_only = "only temporal formulas are sliced";
    match lang.as_deref() {
        Some("lola" | "rtlola") => {
            return match single_run_instead(args, slices_formulas_only, err)? {
                Some(status) => Ok(status),
                None => crate::stream_cmd::run(args, out, err),
            }
        }
        Some("rvm") => {
            return match single_run_instead(args, slices_formulas_only, err)? {
                Some(status) => Ok(status),
                None => crate::param_cmd::run(args, out, err),
            }
        }
        _ => {}
    }
    if args.output == Output::Rtlola {
        return Err(Error::msg(
            "--output rtlola is for stream specifications (.lola); formulas write text, jsonl or monpoly",
        ));
    }
    let text = read_file(&args.spec)?;
    let f = parse_formula_with(&args.spec, &text, ParseOptions::for_check(lang.as_deref()))?;
    let analysis = analyze(&args.spec, &text, &f)?;
    let sig = crate::read_signature(args.sig.as_deref())?;
    if let Some(sig) = &sig {
        check_arities(&args.spec, &text, &f, &|p| sig.get(p).map(|d| d.args.len()))?;
    }
    let trace_path = args.trace.as_deref().filter(|t| *t != "-");
    let format = crate::trace_format(args.format, trace_path)?;
    let online = trace_path.is_none();
    if analysis.first_order_at.is_some() {
        let Some(sig) = sig else {
            return Err(Error::msg(format!(
                "{}: a first-order formula needs a signature (--sig FILE) to type its predicates",
                args.spec
            )));
        };
        if args.sliced() && !args.explain {
            // The form the engine runs decides how it can be sliced (its free variables).
            let (analyzed, _) = choose_form(args, &f, &sig, &text, &mut Interner::new())?;
            let vars = free_vars(&f);
            match crate::parallel_cmd::plan(args, &analyzed, &vars, &sig, &text)? {
                Ok(plan) => {
                    return crate::parallel_cmd::run(
                        args, &plan, analyzed, vars, &sig, &text, out, err,
                    )
                }
                Err(why) => {
                    if let Some(status) = single_run_instead(args, &why, err)? {
                        return Ok(status);
                    }
                }
            }
        }
        let mut reader = open(args, trace_path, format, Some(sig.clone()), err)?;
        return run_first_order(
            args,
            &f,
            &analysis,
            &text,
            &sig,
            &mut *reader,
            online,
            out,
            err,
        );
    }
    if args.sliced() && !args.explain {
        let why = "the formula is propositional, and the slicers split first-order formulas";
        if let Some(status) = single_run_instead(args, why, err)? {
            return Ok(status);
        }
    }
    let mut reader = open(args, trace_path, format, sig, err)?;
    let program = Program::compile(&f, reader.interner_mut(), &args.spec, &text)?;
    let mut engine = Engine::three_valued(program);
    if args.explain {
        write!(out, "{}", explain(&f, &analysis, &engine))?;
        return Ok(0);
    }
    let mut sink = Sink {
        output: args.output,
        violations: 0,
        unknown: 0,
        first_unknown: None,
        time_points: 0,
    };
    let mut tp = TimePoint::default();
    let mut verdicts = Vec::new();
    loop {
        if !crate::next_time_point(&mut *reader, &mut tp, out, err)? {
            break;
        }
        sink.time_points += 1;
        verdicts.clear();
        engine.step(&tp, &mut verdicts);
        sink.write(&verdicts, out)?;
        if online && !verdicts.is_empty() {
            out.flush()?;
        }
    }
    verdicts.clear();
    engine.finish(&mut verdicts);
    sink.write(&verdicts, out)?;
    out.flush()?;
    sink.summary(err)?;
    crate::warn_if_empty(sink.time_points, err)?;
    Ok(if sink.violations > 0 { 1 } else { 0 })
}

/// The reader of the trace at `path` (standard input if `None`).
fn open(
    args: &CheckArgs,
    path: Option<&str>,
    format: rvmon_trace::TraceFormat,
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

struct Sink {
    output: Output,
    violations: u64,
    unknown: u64,
    first_unknown: Option<Verdict>,
    time_points: u64,
}

impl Sink {
    fn write(&mut self, verdicts: &[Verdict], out: &mut dyn Write) -> Result<(), Error> {
        for v in verdicts {
            match v.value {
                Truth::True => {}
                Truth::False => {
                    self.violations += 1;
                    match self.output {
                        // (`--output rtlola` is rejected for formulas before monitoring.)
                        Output::Text | Output::Rtlola => {
                            writeln!(out, "violation: time point {} @{}", v.tp, v.ts)?
                        }
                        Output::Jsonl => writeln!(
                            out,
                            "{{\"tp\":{},\"ts\":{},\"verdict\":\"violation\"}}",
                            v.tp, v.ts
                        )?,
                        Output::Monpoly => writeln!(out, "@{} (time point {}): true", v.ts, v.tp)?,
                    }
                }
                Truth::Unknown => {
                    self.unknown += 1;
                    self.first_unknown.get_or_insert(*v);
                    if self.output == Output::Jsonl {
                        writeln!(
                            out,
                            "{{\"tp\":{},\"ts\":{},\"verdict\":\"inconclusive\"}}",
                            v.tp, v.ts
                        )?;
                    }
                }
            }
        }
        Ok(())
    }

    fn summary(&self, err: &mut dyn Write) -> Result<(), Error> {
        write!(
            err,
            "rvmon: {} violation(s) in {} time point(s)",
            self.violations, self.time_points
        )?;
        if let Some(u) = self.first_unknown {
            write!(
                err,
                "; {} inconclusive at the end of the trace (unbounded future), the first at time point {} @{}",
                self.unknown, u.tp, u.ts
            )?;
        }
        writeln!(err)?;
        Ok(())
    }
}

/// Writes the first-order engine's answers as violations with their data, in the chosen
/// output form (shared by the single and the sliced runs).
pub(crate) struct ViolationWriter<'a> {
    vars: &'a [String],
    output: Output,
}

impl<'a> ViolationWriter<'a> {
    pub(crate) fn new(vars: &'a [String], output: Output) -> Self {
        ViolationWriter { vars, output }
    }

    /// Writes (and drains) `answers`; returns the number of violations written.
    pub(crate) fn write(
        &mut self,
        answers: &mut Vec<rvmon_fo::Answer>,
        interner: &Interner,
        out: &mut dyn Write,
    ) -> Result<u64, Error> {
        let vars = self.vars;
        let mut violations = 0;
        for a in answers.drain(..) {
            if a.rel.is_empty() {
                continue;
            }
            let order: Vec<usize> = (0..vars.len()).collect();
            let rows = rvmon_fo::rel::sorted_tuples(&a.rel, &order, interner);
            violations += rows.len() as u64;
            match self.output {
                Output::Monpoly => {
                    write!(out, "@{} (time point {}):", a.ts, a.tp)?;
                    if vars.is_empty() {
                        out.write_all(b" true")?;
                    } else {
                        for t in &rows {
                            out.write_all(b" ")?;
                            rvmon_fo::rel::write_tuple(out, t, interner)?;
                        }
                    }
                    out.write_all(b"\n")?;
                }
                Output::Text | Output::Rtlola => {
                    for t in &rows {
                        write!(out, "violation: time point {} @{}", a.tp, a.ts)?;
                        for (k, (v, x)) in vars.iter().zip(t.iter()).enumerate() {
                            out.write_all(if k == 0 { b" (" } else { b", " })?;
                            out.write_all(v.as_bytes())?;
                            out.write_all(b"=")?;
                            rvmon_fo::rel::write_value(out, x, interner)?;
                        }
                        out.write_all(if vars.is_empty() { b"\n" } else { b")\n" })?;
                    }
                }
                Output::Jsonl => {
                    for t in &rows {
                        write!(
                            out,
                            "{{\"tp\":{},\"ts\":{},\"verdict\":\"violation\",\"values\":{{",
                            a.tp, a.ts
                        )?;
                        for (k, (v, x)) in vars.iter().zip(t.iter()).enumerate() {
                            if k > 0 {
                                out.write_all(b",")?;
                            }
                            out.write_all(json_string(v).as_bytes())?;
                            out.write_all(b":")?;
                            out.write_all(json_value(x, interner).as_bytes())?;
                        }
                        out.write_all(b"}}\n")?;
                    }
                }
            }
        }
        Ok(violations)
    }
}

/// The form of `f` the first-order engine monitors, and its plan: the violations of `f` are
/// the satisfying assignments of `NOT f`, analysed as MonPoly analyses `-negate` (normalised,
/// rewritten into its monitorable fragment). The first candidate form the engine can
/// compile, its conjuncts ordered for the engine (`order_conjuncts`, `push_comparisons`) or
/// else as they are; otherwise the first one's error. `interner` is the one the trace's
/// values will be in.
fn choose_form(
    args: &CheckArgs,
    f: &Formula,
    sig: &Signature,
    text: &str,
    interner: &mut Interner,
) -> Result<(Formula, rvmon_fo::Plan), Error> {
    let negated = Formula::new(FormulaKind::Not(Box::new(f.clone())), f.span);
    let vars = free_vars(f);
    let mut first_error = None;
    let mut chosen = None;
    'forms: for form in candidate_forms(&negated) {
        // Ordered with its `LET`s expanded, so that a defined predicate's future operators
        // count (the compiler expands them the same way); kept as written (`LET`s and all, for
        // `--explain`) when ordering moves nothing.
        let expanded = rvmon_fo::expand_lets(&form);
        // And with comparisons pushed into the temporal operators that bind their variables
        // (`push_comparisons`: the states keep only the tuples the comparisons keep).
        let ordered = order_conjuncts(&expanded);
        let pushed = push_comparisons(&ordered);
        // An error names a subformula as the user wrote it, so it is the unordered form's.
        let mut tries = Vec::new();
        for candidate in [pushed, ordered] {
            if candidate != expanded && !tries.iter().any(|(t, _)| *t == candidate) {
                tries.push((candidate, false));
            }
        }
        tries.push((form, true));
        for (candidate, as_written) in tries {
            match rvmon_fo::compile(&candidate, &vars, sig, interner, &args.spec, text) {
                Ok(plan) => {
                    chosen = Some((candidate, plan));
                    break 'forms;
                }
                Err(e) if as_written => {
                    first_error.get_or_insert(e);
                }
                Err(_) => {}
            }
        }
    }
    chosen.ok_or_else(|| {
        first_error.unwrap_or_else(|| Error::msg(format!("{}: no form to monitor", args.spec)))
    })
}

/// The first-order path: the violations of `f` are reported with their data.
#[allow(clippy::too_many_arguments)]
fn run_first_order(
    args: &CheckArgs,
    f: &Formula,
    analysis: &Analysis,
    text: &str,
    sig: &Signature,
    reader: &mut dyn TraceReader,
    online: bool,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<i32, Error> {
    let vars = free_vars(f);
    let (analyzed, plan) = choose_form(args, f, sig, text, reader.interner_mut())?;
    if args.explain {
        writeln!(out, "formula: {f}")?;
        writeln!(
            out,
            "engine: first-order MFOTL (rvmon-fo), relational plan of {} operators",
            plan.nodes.len()
        )?;
        if let Some((_, why)) = &analysis.first_order_at {
            writeln!(out, "  why: {why}")?;
        }
        writeln!(out, "  violations are the assignments of: {analyzed}")?;
        write!(out, "{}", class_and_horizons(analysis))?;
        let waiting = if analysis.temporal == TemporalClass::PastOnly {
            ""
        } else {
            ", plus the time points whose verdicts wait for the future horizon"
        };
        writeln!(
            out,
            "memory: each temporal operator keeps the tuples it must remember: those inside its \
             interval, and for an interval without end every tuple that still satisfies it (this \
             grows with the distinct values seen, not with the trace's length){waiting}"
        )?;
        writeln!(out, "free variables: ({})", vars.join(","))?;
        writeln!(out, "plan (operator -> its variables):")?;
        write!(out, "{}", plan.describe(reader.interner_mut()))?;
        return Ok(0);
    }
    let has_future = plan.has_future();
    let mut engine = FoEngine::new(plan);
    // PERF: MonPoly's empty-time-point filter. A time point without an event of the formula's
    // predicates is not fed when that provably changes no violation (the argument is the data
    // slicer's, `rvmon_slice::empty_points_removable`): no work at all for it, in any operator.
    // Paper 04's P3 reads 52 % of the time points of its log, P5 74 %. Not online: a time point
    // that is not fed does not advance the engine's clock, so a verdict waiting for a window to
    // close would wait for the next relevant event.
    let relevant = (!online && empty_points_removable(&analyzed).is_ok())
        .then(|| Relevance::of(&rvmon_fo::expand_lets(&analyzed), reader.interner_mut()));
    // Strings interned so far (the formula's constants, the signature's and the filter's
    // names) are never freed; values read from now on are, once no state holds them.
    reader.interner_mut().pin_all();
    let mut strings = StringCollection::new(args.collect_strings);
    let (mut violations, mut time_points) = (0u64, 0u64);
    let mut answers = Vec::new();
    let mut writer = ViolationWriter::new(&vars, args.output);
    let mut report = |answers: &mut Vec<rvmon_fo::Answer>,
                      interner: &Interner,
                      out: &mut dyn Write|
     -> Result<(), Error> {
        let n = writer.write(answers, interner, out)?;
        violations += n;
        Ok(())
    };
    // PERF: time points go to the engine in batches (`FoEngine::step_batch`), which shares
    // each operator's per-update overhead across the batch. Online, a batch holds only time
    // points that were already waiting in the reader's buffer: it goes to the engine, and its
    // verdicts are written, as soon as the next time point is not there yet
    // (`TraceReader::input_pending`), so a verdict never waits for input, and a monitor that
    // fell behind its input catches up in batches. A plan whose evaluation can fail gets them
    // one by one, so that the verdicts before the failing time point are all written.
    let batch_size = if engine.plan().may_fail() {
        1
    } else {
        rvmon_fo::OFFLINE_BATCH
    };
    if online {
        reader.watch_input();
    }
    let mut batch: Vec<TimePoint> = (0..batch_size).map(|_| TimePoint::default()).collect();
    let mut pending = 0;
    let mut feed = |tps: &[TimePoint],
                    reader: &mut dyn TraceReader,
                    out: &mut dyn Write,
                    err: &mut dyn Write|
     -> Result<(), Error> {
        let stepped = engine.step_batch(tps, reader.interner_mut(), &mut answers);
        let any = !answers.is_empty();
        report(&mut answers, reader.interner(), out)?;
        if let Err(e) = stepped {
            out.flush()?;
            return Err(e);
        }
        // Between batches, with the answers written: the engine's state holds every string
        // still needed (the reader keeps only names, which are pinned).
        strings.collect_if_due(reader.interner_mut(), |mark| engine.mark_strings(mark));
        for w in engine.take_warnings() {
            writeln!(err, "rvmon: {w}")?;
        }
        if online && any {
            out.flush()?;
        }
        Ok(())
    };
    loop {
        let more = match crate::next_time_point(&mut *reader, &mut batch[pending], out, err) {
            Ok(more) => more,
            Err(e) => {
                // The verdicts of the time points before the bad input come first.
                feed(&batch[..pending], &mut *reader, out, err)?;
                out.flush()?;
                return Err(e);
            }
        };
        if !more {
            break;
        }
        time_points += 1;
        if relevant.as_ref().is_some_and(|r| !r.any(&batch[pending])) {
            continue;
        }
        pending += 1;
        if pending == batch_size || (online && !reader.input_pending()) {
            feed(&batch[..pending], &mut *reader, out, err)?;
            pending = 0;
        }
    }
    feed(&batch[..pending], &mut *reader, out, err)?;
    if has_future {
        engine.close(reader.interner_mut(), &mut answers)?;
        report(&mut answers, reader.interner(), out)?;
    }
    crate::release(engine);
    out.flush()?;
    writeln!(
        err,
        "rvmon: {violations} violation(s) in {time_points} time point(s)"
    )?;
    crate::warn_if_empty(time_points, err)?;
    Ok(if violations > 0 { 1 } else { 0 })
}

pub(crate) fn json_value(v: &Value, interner: &Interner) -> String {
    match v {
        Value::Int(i) => i.to_string(),
        Value::Float(f) if f.is_finite() => format!("{f}"),
        Value::Float(f) => json_string(&f.to_string()),
        Value::Str(s) => json_string(interner.resolve(*s)),
        Value::Bool(b) => b.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;
    use rvmon_trace::monpoly::MonpolyLogReader;

    #[derive(Parser)]
    struct Cli {
        #[command(flatten)]
        check: CheckArgs,
    }

    /// A MonPoly reader that records what the online loop asks of it: whether it was told to
    /// watch its buffer, and after how many time points it then said the next was buffered.
    struct Watched {
        inner: MonpolyLogReader<std::io::BufReader<&'static [u8]>>,
        watched: bool,
        pending: usize,
    }

    impl TraceReader for Watched {
        fn next_time_point(&mut self, tp: &mut TimePoint) -> Result<bool, Error> {
            let more = self.inner.next_time_point(tp);
            self.pending += usize::from(self.inner.input_pending());
            more
        }
        fn interner(&self) -> &Interner {
            self.inner.interner()
        }
        fn interner_mut(&mut self) -> &mut Interner {
            self.inner.interner_mut()
        }
        fn input_pending(&self) -> bool {
            self.inner.input_pending()
        }
        fn watch_input(&mut self) {
            self.watched = true;
            self.inner.watch_input();
        }
    }

    /// Online, the first-order loop has the reader watch its buffer and batches the time
    /// points it finds there (it feeds the engine only when the next one is not buffered):
    /// with the whole log buffered, the reader says so at most of them, and the verdicts are
    /// those of the offline run, which asks nothing.
    #[test]
    fn online_batches_take_what_the_buffer_holds() {
        const FORMULA: &str = "p(x) IMPLIES PREVIOUS ONCE[0,3] p(x)";
        let log: &'static str = (0..200)
            .map(|t| format!("@{t} p({})\n", t % 7))
            .collect::<String>()
            .leak();
        let f = parse_formula_with("f", FORMULA, ParseOptions::MONPOLY).unwrap();
        let sig = rvmon_trace::Signature::parse("sig", "p(int)").unwrap();
        let args = Cli::parse_from(["t", "f.mfotl", "-"]).check;
        let run = |online: bool| {
            let src = std::io::BufReader::new(log.as_bytes());
            let mut reader = Watched {
                inner: MonpolyLogReader::new(src, "log", None),
                watched: false,
                pending: 0,
            };
            let (mut out, mut err) = (Vec::new(), Vec::new());
            let status = run_first_order(
                &args,
                &f,
                &analyze("f", FORMULA, &f).unwrap(),
                FORMULA,
                &sig,
                &mut reader,
                online,
                &mut out,
                &mut err,
            )
            .unwrap();
            (status, out, reader.watched, reader.pending)
        };
        let (status, online, watched, pending) = run(true);
        assert!(
            watched,
            "the online loop did not ask the reader to watch its buffer"
        );
        assert!(pending > 150, "{pending} of 200 time points found buffered");
        let (offline_status, offline, watched, pending) = run(false);
        assert_eq!((watched, pending), (false, 0));
        assert!(!online.is_empty());
        assert_eq!((status, online), (offline_status, offline));
    }
}

#[cfg(test)]
mod violation_writer_tests {
    use super::*;
    use std::rc::Rc;

    /// Each output form, byte for byte: tuples sorted as MonPoly sorts them, strings quoted
    /// (an already quoted one kept as it is), floats as `%g`, and a closed formula's
    /// violation without data.
    #[test]
    fn violations_print_with_their_data_in_each_form() {
        let mut interner = Interner::default();
        let (b, a, q) = (
            interner.intern("b"),
            interner.intern("a\"x"),
            interner.intern("\"q\""),
        );
        let tuple = |vals: &[Value]| -> rvmon_fo::rel::Tuple { Rc::from(vals) };
        let open = || {
            let mut rel = rvmon_fo::rel::Rel::default();
            rel.insert(tuple(&[Value::Str(b), Value::Float(0.5)]));
            rel.insert(tuple(&[Value::Str(a), Value::Int(-3)]));
            rel.insert(tuple(&[Value::Str(q), Value::Float(1e7)]));
            vec![rvmon_fo::Answer { tp: 4, ts: 10, rel }]
        };
        let closed = || {
            vec![rvmon_fo::Answer {
                tp: 2,
                ts: 7,
                rel: rvmon_fo::rel::unit(),
            }]
        };
        let vars = ["x".to_string(), "y".to_string()];
        let write = |vars: &[String], output, mut answers: Vec<rvmon_fo::Answer>| {
            let mut out = Vec::new();
            let n = ViolationWriter::new(vars, output)
                .write(&mut answers, &interner, &mut out)
                .unwrap();
            (n, String::from_utf8(out).unwrap())
        };
        assert_eq!(
            write(&vars, Output::Text, open()),
            (
                3,
                "violation: time point 4 @10 (x=\"q\", y=1e+07)\n\
                 violation: time point 4 @10 (x=\"a\"x\", y=-3)\n\
                 violation: time point 4 @10 (x=\"b\", y=0.5)\n"
                    .to_string()
            )
        );
        assert_eq!(
            write(&vars, Output::Monpoly, open()).1,
            "@10 (time point 4): (\"q\",1e+07) (\"a\"x\",-3) (\"b\",0.5)\n"
        );
        assert_eq!(
            write(&vars, Output::Jsonl, open()).1,
            "{\"tp\":4,\"ts\":10,\"verdict\":\"violation\",\"values\":{\"x\":\"\\\"q\\\"\",\"y\":10000000}}\n\
             {\"tp\":4,\"ts\":10,\"verdict\":\"violation\",\"values\":{\"x\":\"a\\\"x\",\"y\":-3}}\n\
             {\"tp\":4,\"ts\":10,\"verdict\":\"violation\",\"values\":{\"x\":\"b\",\"y\":0.5}}\n"
        );
        assert_eq!(
            write(&[], Output::Text, closed()),
            (1, "violation: time point 2 @7\n".to_string())
        );
        assert_eq!(
            write(&[], Output::Monpoly, closed()).1,
            "@7 (time point 2): true\n"
        );
        assert_eq!(
            write(&[], Output::Jsonl, closed()).1,
            "{\"tp\":2,\"ts\":7,\"verdict\":\"violation\",\"values\":{}}\n"
        );
    }
}
