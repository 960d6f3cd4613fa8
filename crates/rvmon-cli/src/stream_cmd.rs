//! `rvmon check SPEC.lola TRACE.csv`: stream specifications (Lola equations in RTLola's
//! syntax). Triggers are the violations: each is written as soon as it is decided.

use std::io::{BufRead, IsTerminal, Write};

use rvmon_core::Error;
use rvmon_stream::output::{jsonl_line, rtlola_line, text_line};
use rvmon_stream::Program;
use rvmon_trace::TraceFormat;

use crate::check_cmd::{CheckArgs, Output};
use crate::read_file;

/// What `--explain` prints: the streams, their pacing, evaluation order, latency and memory.
pub fn explain(spec: &str, p: &Program) -> String {
    let names = p.names();
    let n_in = p.inputs.len();
    let mut s = format!(
        "spec: {spec}\nengine: stream equations (rvmon-stream), online partial evaluation\n"
    );
    let inputs: Vec<String> = p
        .inputs
        .iter()
        .map(|(n, t)| format!("{n}: {}", t.name()))
        .collect();
    s += &format!("inputs: {}\n", inputs.join(", "));
    s += "outputs, in evaluation order:\n";
    for &k in &p.order {
        let o = &p.outputs[k];
        let r = &p.report[n_in + k];
        let label = match &o.trigger {
            Some((t, _)) => format!("trigger #{t}"),
            None => format!("{}: {}", o.name, o.ty.name()),
        };
        let latency = match r.latency {
            Some(0) => "decided at its event".to_string(),
            Some(l) => format!("decided after {l} more value(s) of what it reads"),
            None => "may wait until the end of the trace".to_string(),
        };
        s += &format!(
            "  {label} — evaluated at {}; {latency}\n",
            o.pacing.describe(&names)
        );
    }
    let kept: Vec<String> = (0..names.len())
        .filter(|&v| p.report[v].keep_past > 0)
        .map(|v| format!("{} ({} past values)", names[v], p.report[v].keep_past))
        .collect();
    if !kept.is_empty() {
        s += &format!("past values kept: {}\n", kept.join(", "));
    }
    s += &match &p.unbounded_cycle {
        None => "efficiently monitorable: yes — memory does not grow with the trace\n".to_string(),
        Some(c) => format!(
            "efficiently monitorable: no — the dependency cycle {} -> {} reads the future, so its values may wait until the end of the trace (memory grows with it)\n",
            c.join(" -> "),
            c[0]
        ),
    };
    s
}

pub fn run(args: &CheckArgs, out: &mut dyn Write, err: &mut dyn Write) -> Result<i32, Error> {
    let text = read_file(&args.spec)?;
    let program = rvmon_stream::compile(&args.spec, &text)?;
    if args.explain {
        write!(out, "{}", explain(&args.spec, &program))?;
        return Ok(0);
    }
    if let Some(f) = args.format {
        if !matches!(
            f,
            TraceFormat::Signal | TraceFormat::Csv | TraceFormat::CsrvCsv
        ) {
            return Err(Error::msg(format!(
                "stream specifications read CSV events (a header naming the inputs and a time column); --format {f:?} is not supported for them"
            )));
        }
    }
    if args.output == Output::Monpoly {
        return Err(Error::msg("--output monpoly is for temporal formulas; stream specifications write text, jsonl or rtlola"));
    }
    if let Some(c) = &program.unbounded_cycle {
        writeln!(
            err,
            "rvmon: warning: {} is not efficiently monitorable (the cycle {} -> {} reads the future); its values wait until they are decided, at worst the end of the trace",
            args.spec,
            c.join(" -> "),
            c[0]
        )?;
    }
    let trace = args.trace.as_deref().filter(|t| *t != "-");
    let online = trace.is_none();
    let input: Box<dyn BufRead> = match trace {
        Some(p) => Box::new(std::io::BufReader::with_capacity(
            1 << 16,
            std::fs::File::open(p).map_err(|e| Error::msg(format!("{p}: cannot open: {e}")))?,
        )),
        None => {
            if std::io::stdin().is_terminal() {
                writeln!(
                    err,
                    "rvmon: reading events from standard input (end with Ctrl-D)"
                )?;
            }
            Box::new(std::io::BufReader::new(std::io::stdin()))
        }
    };
    let name = trace.unwrap_or("<stdin>");
    let mut fired = 0u64;
    let result = rvmon_stream::run_csv(program, input, name, args.time_field.as_deref(), |f| {
        fired += 1;
        let line = match args.output {
            Output::Jsonl => jsonl_line(f),
            Output::Rtlola => rtlola_line(f),
            _ => text_line(f),
        };
        writeln!(out, "{line}")?;
        if online {
            out.flush()?;
        }
        Ok(())
    });
    out.flush()?;
    let events = result?;
    writeln!(err, "rvmon: {fired} trigger(s) fired in {events} event(s)")?;
    Ok(if fired > 0 { 1 } else { 0 })
}
