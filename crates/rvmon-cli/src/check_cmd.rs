//! `rvmon check SPEC [TRACE]`: the main job. The spec must hold at every time point; rvmon
//! reports the time points where it does not, as soon as each is decided.

use std::io::{BufRead, IsTerminal, Write};
use std::path::Path;

use clap::{Args, ValueEnum};
use rvmon_core::{Error, Monitor, TimePoint, Truth, Verdict};
use rvmon_logic::{analyze, parse_formula, Analysis, Formula, TemporalClass};
use rvmon_mtl::{Engine, Program};
use rvmon_trace::{open_reader, Signature, TraceFormat, TraceOptions};

use crate::read_file;

#[derive(Copy, Clone, Debug, PartialEq, Eq, ValueEnum)]
pub enum Output {
    /// One line per violation: `violation: time point 3 @1000`.
    Text,
    /// One JSON object per verdict: `{"tp":3,"ts":1000,"verdict":"violation"}`.
    Jsonl,
    /// MonPoly's `-negate` output: `@1000 (time point 3): true`.
    Monpoly,
}

#[derive(Args, Debug, Clone)]
pub struct CheckArgs {
    /// The specification (`.mtl`, `.mfotl`, `.ltl`: a temporal formula in MonPoly syntax).
    pub spec: String,
    /// The trace; `-` or nothing reads standard input incrementally (online monitoring).
    pub trace: Option<String>,
    /// Trace format; by default from the extension (`.log` MonPoly, `.csv`, `.json`, `.jsonl`, `.xml`).
    #[arg(long, value_parser = clap::builder::ValueParser::new(|s: &str| s.parse::<TraceFormat>()))]
    pub format: Option<TraceFormat>,
    /// A MonPoly signature file: types values and rejects undeclared predicates.
    #[arg(long)]
    pub sig: Option<String>,
    /// Name of the field that holds the timestamp (CSRV CSV/XML/JSON traces); otherwise the
    /// event's position is its timestamp.
    #[arg(long)]
    pub time_field: Option<String>,
    #[arg(long, value_enum, default_value = "text")]
    pub output: Output,
    /// Print the plan (engine, formula class, horizons, memory) and exit.
    #[arg(long)]
    pub explain: bool,
    /// The spec language when the extension does not say: `mtl` (also `mfotl`, `ltl`).
    #[arg(long)]
    pub lang: Option<String>,
}

/// The plan for a formula: which engine runs it and why.
pub fn explain(formula: &Formula, analysis: &Analysis, engine: &Engine) -> String {
    let program = engine.program();
    let fmt_h = |h: Option<u64>| h.map_or("unbounded".to_string(), |h| h.to_string());
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
    s.push_str(&format!("class: {}\n", analysis.temporal));
    s.push_str(&format!(
        "horizons: past {}, future {} time units{}\n",
        fmt_h(analysis.past_horizon),
        fmt_h(analysis.future_horizon),
        if analysis.next_depth > 0 {
            format!(" (+{} NEXT steps)", analysis.next_depth)
        } else {
            String::new()
        }
    ));
    let memory = match analysis.temporal {
        TemporalClass::PastOnly => {
            "O(1) per operator for [0,b] and [a,*) intervals; otherwise at most one timestamp per distinct \
             timestamp inside the interval's lower bound"
        }
        TemporalClass::BoundedFuture => {
            "pending time points within the future horizon, plus the past operators' windows; independent of \
             the trace length"
        }
        TemporalClass::UnboundedFuture => {
            "undecided time points are kept until decided; verdicts are three-valued (violation, satisfied, \
             inconclusive at the end)"
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
    let lang = args.lang.clone().or_else(|| {
        Path::new(&args.spec)
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_string)
    });
    match lang.as_deref() {
        Some("lola" | "rtlola") => {
            return Err(Error::msg(format!(
                "{}: stream specifications (.lola) are not supported yet",
                args.spec
            )))
        }
        Some("rvm") => {
            return Err(Error::msg(format!(
                "{}: parametric specifications (.rvm) are not supported yet",
                args.spec
            )))
        }
        _ => {}
    }
    let text = read_file(&args.spec)?;
    let f = parse_formula(&args.spec, &text)?;
    let analysis = analyze(&args.spec, &text, &f)?;
    if let Some((span, why)) = &analysis.first_order_at {
        return Err(Error::at_offset(
            &args.spec,
            &text,
            span.start,
            format!("first-order formulas are not supported yet ({why})"),
        ));
    }
    let sig = match &args.sig {
        Some(p) => Some(Signature::parse(p, &read_file(p)?)?),
        None => None,
    };
    let trace_path = args.trace.as_deref().filter(|t| *t != "-");
    let format = match (args.format, trace_path) {
        (Some(f), _) => f,
        (None, Some(p)) => TraceFormat::from_path(Path::new(p)).ok_or_else(|| {
            Error::msg(format!(
                "{p}: cannot tell the trace format from the extension; use --format"
            ))
        })?,
        (None, None) => TraceFormat::Monpoly,
    };
    let online = trace_path.is_none();
    let input: Box<dyn BufRead> = match trace_path {
        Some(p) => Box::new(std::io::BufReader::with_capacity(
            1 << 16,
            std::fs::File::open(p).map_err(|e| Error::msg(format!("{p}: cannot open: {e}")))?,
        )),
        None => {
            if std::io::stdin().is_terminal() {
                writeln!(
                    err,
                    "rvmon: reading the trace from standard input (end with Ctrl-D)"
                )?;
            }
            Box::new(std::io::BufReader::new(std::io::stdin()))
        }
    };
    let name = trace_path.unwrap_or("<stdin>").to_string();
    let options = TraceOptions {
        sig,
        time_field: args.time_field.clone(),
    };
    let mut reader = open_reader(format, input, &name, options)?;
    let program = Program::compile(&f, reader.interner_mut(), &args.spec, &text)?;
    let mut engine = Engine::new(program);
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
        match reader.next_time_point(&mut tp) {
            Ok(true) => {}
            Ok(false) => break,
            Err(e) => {
                out.flush()?;
                return Err(e);
            }
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
    Ok(if sink.violations > 0 { 1 } else { 0 })
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
                        Output::Text => writeln!(out, "violation: time point {} @{}", v.tp, v.ts)?,
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
