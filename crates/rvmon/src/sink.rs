//! The sink layer: decisions written in one of rvmon's output formats, for every engine.

use std::io::Write;

use rvmon_core::{
    json_string, text, Decision, Error, Interner, Kind, Payload, Sink, Timestamp, Value,
};
use rvmon_stl::number::{NumText, PyFloat, SampleTime};
use rvmon_stream::output::Seconds;

/// The output formats.
#[derive(Copy, Clone, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Output {
    /// One line per violation: `violation: time point 3 @1000`.
    Text,
    /// One JSON object per verdict: `{"tp":3,"ts":1000,"verdict":"violation"}`.
    Jsonl,
    /// MonPoly's `-negate` output: `@1000 (time point 3): true`.
    Monpoly,
    /// RTLola's log lines, for stream specifications: `[0.6][Trigger][#0][Value] = "msg"`.
    Rtlola,
    /// r2u2_cli's verdict lines, for MLTL specifications (`.mltl`, `.c2po`): `0:7,F`, every
    /// verdict, true or false, each for the steps since the formula's previous line.
    R2u2,
}

/// What a run decided, counted as it was written (for the summary on standard error and the
/// exit status).
#[derive(Clone, Copy, Debug, Default)]
pub struct Counts {
    /// Violations written.
    pub violations: u64,
    /// Time points left inconclusive at the end.
    pub inconclusive: u64,
    /// The first inconclusive time point, `(tp, ts)`.
    pub first_inconclusive: Option<(u64, Timestamp)>,
    /// Stream specifications' triggers written.
    pub triggers: u64,
    /// Time points where, with imprecise timestamps, the observed times violate the formula
    /// and the true ones may or may not.
    pub undetermined: u64,
}

/// Writes decisions in an [`Output`] format to `out`: violations (with their values), and
/// inconclusive time points in JSON Lines. Satisfied time points are not written (a formula
/// must hold everywhere; only where it does not is news).
pub struct FormatSink<'a> {
    out: &'a mut dyn Write,
    format: Output,
    /// What was written so far.
    pub counts: Counts,
    /// MonPoly's format puts a time point's tuples on one line: the time point whose line is
    /// open.
    open_line: Option<u64>,
    /// Signal specifications: write the robustness at every sample, not only the violations.
    every_sample: bool,
    /// The last robustness written and its text (windows repeat a value for many samples in
    /// a row: its digits are found once).
    last_robustness: Option<(u64, NumText)>,
    /// `--intervals`: a decided sample is written as bounds that meet, `<time> <r> <r>`.
    intervals: bool,
    /// A line being put together (kept: one is written per value with `--values`).
    line: Vec<u8>,
    /// RTLola's log with times in nanoseconds (`--output-time-format relative-nanos`).
    nanos: bool,
}

impl<'a> FormatSink<'a> {
    /// Writes to `out` in `format`.
    pub fn new(out: &'a mut dyn Write, format: Output) -> FormatSink<'a> {
        FormatSink {
            out,
            format,
            counts: Counts::default(),
            open_line: None,
            line: Vec::new(),
            nanos: false,
            every_sample: false,
            last_robustness: None,
            intervals: false,
        }
    }

    /// With `yes`, a signal specification's robustness is written at every sample (`rvmon
    /// check --robustness`), as rtamt's `evaluate` lists it.
    pub fn every_sample(mut self, yes: bool) -> Self {
        self.every_sample = yes;
        self
    }

    /// With `yes`, RTLola's log (`--output rtlola`) gives times in nanoseconds.
    pub fn nanoseconds(mut self, yes: bool) -> Self {
        self.nanos = yes;
        self
    }

    /// With `yes`, a signal specification's robustness is written as bounds, the undecided
    /// samples' as they tighten and the decided ones' as `<time> <r> <r>` (`--intervals`).
    pub fn intervals(mut self, yes: bool) -> Self {
        self.intervals = yes;
        self
    }

    /// Bounds on the robustness at a sample not yet decided: `<time> <lower> <upper>`.
    fn bounds(&mut self, d: &Decision<'_>, lower: f64, upper: f64) -> Result<(), Error> {
        let (t, lo, hi) = (SampleTime(d.ts), PyFloat(lower), PyFloat(upper));
        if self.format == Output::Jsonl {
            // JSON has no number for an infinity: those are strings.
            let q = |v: f64| if v.is_finite() { "" } else { "\"" };
            let (ql, qh) = (q(lower), q(upper));
            writeln!(
                self.out,
                "{{\"tp\":{},\"ts\":{t},\"verdict\":\"inconclusive\",\"lower\":{ql}{lo}{ql},\"upper\":{qh}{hi}{qh}}}",
                d.tp
            )?;
        } else {
            writeln!(self.out, "{t} {lo} {hi}")?;
        }
        Ok(())
    }

    /// A signal specification's robustness at a sample: every sample (`<time> <robustness>`,
    /// or JSON Lines) with [`FormatSink::every_sample`], else the violations.
    fn robustness(&mut self, d: &Decision<'_>, r: f64) -> Result<(), Error> {
        let violation = d.kind == Kind::Violation;
        self.counts.violations += u64::from(violation);
        if !violation && !self.every_sample {
            return Ok(());
        }
        // (Written straight out, without a string per sample: there is one line per sample.)
        let (t, v) = (SampleTime(d.ts), PyFloat(r));
        let out = &mut *self.out;
        match (self.format, self.every_sample) {
            (Output::Jsonl, _) => {
                let verdict = if violation { "violation" } else { "satisfied" };
                // JSON has no number for an infinity or NaN: those are strings.
                let quote = if r.is_finite() { "" } else { "\"" };
                writeln!(
                    out,
                    "{{\"tp\":{},\"ts\":{t},\"verdict\":\"{verdict}\",\"robustness\":{quote}{v}{quote}}}",
                    d.tp
                )?
            }
            (_, true) => {
                // PERF: one write of the whole line, without `fmt` (a quarter of a run's time
                // went to formatting these).
                let v = match self.last_robustness {
                    Some((bits, text)) if bits == r.to_bits() => text,
                    _ => self.last_robustness.insert((r.to_bits(), v.text())).1,
                };
                let mut line = [0u8; 96];
                let at = t.text().copy_into(&mut line, 0);
                line[at] = b' ';
                let end = v.copy_into(&mut line, at + 1);
                line[end] = b'\n';
                out.write_all(&line[..=end])?
            }
            (_, false) => writeln!(out, "violation: sample {} @{t}: robustness {v}", d.tp)?,
        }
        Ok(())
    }

    /// The writer, for the run loop's flushes.
    pub fn out(&mut self) -> &mut dyn Write {
        self.out
    }

    fn close_line(&mut self) -> Result<(), Error> {
        if self.open_line.take().is_some() {
            self.out.write_all(b"\n")?;
        }
        Ok(())
    }

    fn violation(&mut self, d: &Decision<'_>, interner: &Interner) -> Result<(), Error> {
        self.counts.violations += 1;
        let out = &mut *self.out;
        match (self.format, d.payload) {
            (Output::Monpoly, Payload::Tuple { values, .. }) if !values.is_empty() => {
                if self.open_line != Some(d.tp) {
                    if self.open_line.is_some() {
                        out.write_all(b"\n")?;
                    }
                    write!(out, "@{} (time point {}):", d.ts, d.tp)?;
                    self.open_line = Some(d.tp);
                }
                out.write_all(b" ")?;
                rvmon_fo::rel::write_tuple(out, values, interner)?;
            }
            (Output::Monpoly, _) => {
                self.close_line()?;
                writeln!(self.out, "@{} (time point {}): true", d.ts, d.tp)?;
            }
            (Output::Text | Output::Rtlola | Output::R2u2, payload) => {
                write!(out, "violation: time point {} @{}", d.tp, d.ts)?;
                if let Payload::Tuple { vars, values } = payload {
                    text_values(out, vars, values, interner)?;
                }
                out.write_all(b"\n")?;
            }
            (Output::Jsonl, payload) => {
                write!(
                    out,
                    "{{\"tp\":{},\"ts\":{},\"verdict\":\"violation\"",
                    d.tp, d.ts
                )?;
                if let Payload::Tuple { vars, values } = payload {
                    json_values(out, vars, values, interner)?;
                }
                out.write_all(b"}\n")?;
            }
        }
        Ok(())
    }
}

impl FormatSink<'_> {
    /// A parametric property's report: its violations, and its validations (a property whose
    /// verdict category is `validation` reports matches, not violations).
    fn report(&mut self, d: &Decision<'_>, interner: &Interner) -> Result<(), Error> {
        let Payload::Binding {
            property,
            category,
            params,
            message,
        } = d.payload
        else {
            return Ok(());
        };
        if d.kind == Kind::Violation {
            self.counts.violations += 1;
        }
        let out = &mut *self.out;
        match self.format {
            Output::Jsonl => {
                let binding: Vec<String> = params
                    .iter()
                    .map(|(k, v)| format!("{}:{}", json_string(k), json_value(v, interner)))
                    .collect();
                writeln!(
                    out,
                    "{{\"tp\":{},\"ts\":{},\"property\":{},\"category\":{},\"binding\":{{{}}},\"message\":{}}}",
                    d.tp,
                    d.ts,
                    json_string(property),
                    json_string(category),
                    binding.join(","),
                    json_string(message)
                )?;
            }
            _ => {
                let binding: Vec<String> = params
                    .iter()
                    .map(|(k, v)| format!("{k}={}", text(v, interner)))
                    .collect();
                let kind = if d.kind == Kind::Violation {
                    "violation"
                } else {
                    "validation"
                };
                writeln!(
                    out,
                    "{kind}: {property} ({}) at time point {} @{}: {message}",
                    binding.join(", "),
                    d.tp,
                    d.ts
                )?;
            }
        }
        Ok(())
    }
}

impl FormatSink<'_> {
    /// An MLTL formula's verdict for the steps `from` to `d.tp`: r2u2_cli's line for every
    /// verdict (`--output r2u2`); the violations otherwise.
    fn mltl(
        &mut self,
        d: &Decision<'_>,
        formula: usize,
        label: Option<&str>,
        from: u64,
    ) -> Result<(), Error> {
        let violated = d.kind == Kind::Violation;
        self.counts.violations += u64::from(violated);
        let (to, out) = (d.tp, &mut *self.out);
        match self.format {
            Output::R2u2 => {
                // (PERF: a line a verdict, millions of them: no formatting machinery.)
                out.write_all(itoa::Buffer::new().format(formula).as_bytes())?;
                out.write_all(b":")?;
                out.write_all(itoa::Buffer::new().format(to).as_bytes())?;
                out.write_all(if violated { b",F\n" } else { b",T\n" })?;
            }
            _ if !violated => {}
            Output::Jsonl => {
                write!(out, "{{\"formula\":{formula},")?;
                if let Some(l) = label {
                    write!(out, "\"label\":{},", json_string(l))?;
                }
                writeln!(
                    out,
                    "\"from\":{from},\"to\":{to},\"verdict\":\"violation\"}}"
                )?;
            }
            _ => {
                let name = label.map_or(String::new(), |l| format!(" ({l})"));
                let steps = if from == to {
                    format!("step {to}")
                } else {
                    format!("steps {from} to {to}")
                };
                writeln!(out, "violation: formula {formula}{name} at {steps}")?;
            }
        }
        Ok(())
    }

    /// A verdict under imprecise timestamps (paper 16): a violation for every timing, a
    /// possible violation (for some), or undetermined (the observed times violate the formula,
    /// the true ones may or may not).
    fn timing(&mut self, d: &Decision<'_>, interner: &Interner) -> Result<(), Error> {
        let Payload::Timing {
            every,
            vars,
            values,
        } = d.payload
        else {
            return Ok(());
        };
        let (word, text) = match every {
            Some(true) => ("violation", "violation"),
            Some(false) => ("possible-violation", "possible violation"),
            None => ("undetermined", "undetermined"),
        };
        let why = match every {
            Some(true) => "for every true timing within the timestamps' error",
            Some(false) => "for some true timing within the timestamps' error",
            None => "the observed timestamps violate it; the true timings may or may not",
        };
        if every.is_some() {
            self.counts.violations += 1;
        } else {
            self.counts.undetermined += 1;
        }
        let out = &mut *self.out;
        if self.format == Output::Jsonl {
            write!(
                out,
                "{{\"tp\":{},\"ts\":{},\"verdict\":\"{word}\"",
                d.tp, d.ts
            )?;
            if !vars.is_empty() {
                json_values(out, vars, values, interner)?;
            }
            writeln!(out, "}}")?;
            return Ok(());
        }
        write!(out, "{text}: time point {} @{}", d.tp, d.ts)?;
        text_values(out, vars, values, interner)?;
        writeln!(out, " ({why})")?;
        Ok(())
    }

    /// A ModelPlex monitor's violation: the monitor, the failing conjunct (numbered from 1)
    /// and the pair of states, in text or JSON Lines; time stamps in seconds.
    fn transition(&mut self, d: &Decision<'_>) -> Result<(), Error> {
        let Payload::Transition {
            monitor,
            conjunct,
            text,
            undefined,
            from_tp,
            from_ts,
            signals,
            prior,
            posterior,
        } = d.payload
        else {
            return Ok(());
        };
        if d.kind != Kind::Violation {
            return Ok(());
        }
        self.counts.violations += 1;
        let (tp, t, from_t, out) = (d.tp, SampleTime(d.ts), SampleTime(from_ts), &mut *self.out);
        let n = conjunct + 1;
        if self.format == Output::Jsonl {
            let state = |values: &[f64]| {
                let fields: Vec<String> = signals
                    .iter()
                    .zip(values)
                    .map(|(s, v)| format!("{}:{v}", json_string(s)))
                    .collect();
                format!("{{{}}}", fields.join(","))
            };
            let head = format!(
                "{{\"tp\":{tp},\"ts\":{t},\"verdict\":\"violation\",\"monitor\":{}",
                json_string(monitor)
            );
            let what = format!(
                ",\"conjunct\":{n},\"condition\":{},\"undefined\":{undefined}",
                json_string(text)
            );
            let from = format!(",\"from_tp\":{from_tp},\"from_ts\":{from_t}");
            let (a, b) = (state(prior), state(posterior));
            writeln!(out, "{head}{what}{from},\"prior\":{a},\"posterior\":{b}}}")?;
            return Ok(());
        }
        let how = if undefined {
            "is undefined (division by zero)"
        } else {
            "fails"
        };
        let states: Vec<String> = signals
            .iter()
            .zip(prior.iter().zip(posterior))
            .map(|(s, (a, b))| format!("{s} {a} → {b}"))
            .collect();
        writeln!(
            out,
            "violation: {monitor} monitor, sample {from_tp} @{from_t} → sample {tp} @{t}: \
             conjunct {n} {how}: {text}; {}",
            states.join(", ")
        )?;
        Ok(())
    }

    /// A stream specification's trigger or output value, as RTLola's log (`--output rtlola`),
    /// rvmon's text or JSON Lines; the time stamp is in nanoseconds, written in seconds.
    fn stream(&mut self, d: &Decision<'_>) -> Result<(), Error> {
        let (tp, t, out) = (d.tp, Seconds(d.ts), &mut *self.out);
        match (d.payload, self.format) {
            (Payload::Trigger { index, message }, format) => {
                self.counts.triggers += 1;
                match format {
                    Output::Rtlola if self.nanos => {
                        writeln!(out, "[{}][Trigger][#{index}][Value] = \"{message}\"", d.ts)?
                    }
                    Output::Rtlola => {
                        writeln!(out, "[{t}][Trigger][#{index}][Value] = \"{message}\"")?
                    }
                    Output::Jsonl => writeln!(
                        out,
                        "{{\"tp\":{tp},\"ts\":{t},\"trigger\":{index},\"message\":{}}}",
                        json_string(message)
                    )?,
                    _ => writeln!(out, "trigger #{index}: event {tp} @{t}: {message}")?,
                }
            }
            (
                Payload::Value {
                    stream,
                    text,
                    string,
                },
                Output::Rtlola,
            ) if string && self.nanos => {
                writeln!(out, "[{}][Output][{stream}][Value] = \"{text}\"", d.ts)?
            }
            (
                Payload::Value {
                    stream,
                    text,
                    string,
                },
                Output::Rtlola,
            ) if string => writeln!(out, "[{t}][Output][{stream}][Value] = \"{text}\"")?,
            // PERF: the line of every value with `--values`, written without `fmt`.
            (Payload::Value { stream, text, .. }, Output::Rtlola) => {
                let line = &mut self.line;
                line.clear();
                line.push(b'[');
                if self.nanos {
                    line.extend_from_slice(itoa::Buffer::new().format(d.ts).as_bytes());
                } else {
                    seconds_bytes(d.ts, line);
                }
                line.extend_from_slice(b"][Output][");
                line.extend_from_slice(stream.as_bytes());
                line.extend_from_slice(b"][Value] = ");
                line.extend_from_slice(text.as_bytes());
                line.push(b'\n');
                out.write_all(line)?
            }
            (
                Payload::Value {
                    stream,
                    text,
                    string,
                },
                Output::Jsonl,
            ) => {
                // Strings, and floats JSON has no number for, are quoted.
                let value = if string || matches!(text, "inf" | "-inf" | "NaN") {
                    json_string(text)
                } else {
                    text.to_string()
                };
                writeln!(
                    out,
                    "{{\"tp\":{tp},\"ts\":{t},\"stream\":{},\"value\":{value}}}",
                    json_string(stream)
                )?
            }
            (Payload::Value { stream, text, .. }, _) => {
                writeln!(out, "value: {stream} = {text}, event {tp} @{t}")?
            }
            _ => {}
        }
        Ok(())
    }
}

impl Sink for FormatSink<'_> {
    fn emit(&mut self, d: &Decision<'_>, interner: &Interner) -> Result<(), Error> {
        match d.payload {
            Payload::Binding { .. } => return self.report(d, interner),
            Payload::Robustness(r) if self.intervals && self.format != Output::Jsonl => {
                self.counts.violations += u64::from(d.kind == Kind::Violation);
                return self.bounds(d, r, r);
            }
            Payload::Robustness(r) => return self.robustness(d, r),
            Payload::Bounds { lower, upper } => return self.bounds(d, lower, upper),
            Payload::Mltl {
                formula,
                label,
                from,
            } => return self.mltl(d, formula, label, from),
            Payload::Transition { .. } => return self.transition(d),
            Payload::Timing { .. } => return self.timing(d, interner),
            _ => {}
        }
        match d.kind {
            Kind::Violation => self.violation(d, interner),
            Kind::Inconclusive => {
                self.counts.inconclusive += 1;
                self.counts.first_inconclusive.get_or_insert((d.tp, d.ts));
                if self.format == Output::Jsonl {
                    writeln!(
                        self.out,
                        "{{\"tp\":{},\"ts\":{},\"verdict\":\"inconclusive\"}}",
                        d.tp, d.ts
                    )?;
                }
                Ok(())
            }
            Kind::Trigger | Kind::Value => self.stream(d),
            Kind::Satisfied => Ok(()),
        }
    }

    fn end_batch(&mut self) -> Result<(), Error> {
        self.close_line()
    }

    fn flush(&mut self) -> Result<(), Error> {
        self.out.flush()?;
        Ok(())
    }
}

/// A first-order verdict's values in text: ` (x=1, y="a")` (nothing for none).
fn text_values(
    out: &mut dyn Write,
    vars: &[String],
    values: &[Value],
    interner: &Interner,
) -> Result<(), Error> {
    for (k, (v, x)) in vars.iter().zip(values).enumerate() {
        out.write_all(if k == 0 { b" (" } else { b", " })?;
        out.write_all(v.as_bytes())?;
        out.write_all(b"=")?;
        rvmon_fo::rel::write_value(out, x, interner)?;
    }
    if !vars.is_empty() {
        out.write_all(b")")?;
    }
    Ok(())
}

/// A first-order verdict's values in JSON: `,"values":{"x":1,"y":"a"}`.
fn json_values(
    out: &mut dyn Write,
    vars: &[String],
    values: &[Value],
    interner: &Interner,
) -> Result<(), Error> {
    out.write_all(b",\"values\":{")?;
    for (k, (v, x)) in vars.iter().zip(values).enumerate() {
        if k > 0 {
            out.write_all(b",")?;
        }
        out.write_all(json_string(v).as_bytes())?;
        out.write_all(b":")?;
        out.write_all(json_value(x, interner).as_bytes())?;
    }
    out.write_all(b"}")?;
    Ok(())
}

/// A value as JSON: numbers and Booleans as such, strings (and infinite floats) quoted.
pub fn json_value(v: &Value, interner: &Interner) -> String {
    match v {
        Value::Int(i) => i.to_string(),
        Value::Float(f) if f.is_finite() => format!("{f}"),
        Value::Float(f) => json_string(&f.to_string()),
        Value::Str(s) => json_string(interner.resolve(*s)),
        Value::Bool(b) => b.to_string(),
    }
}

/// Nanoseconds as RTLola writes seconds (`12.000000000`), as [`Seconds`] displays them.
fn seconds_bytes(ns: i64, out: &mut Vec<u8>) {
    if ns < 0 {
        out.push(b'-');
    }
    let a = ns.unsigned_abs();
    out.extend_from_slice(itoa::Buffer::new().format(a / 1_000_000_000).as_bytes());
    out.push(b'.');
    let frac = a % 1_000_000_000;
    let digits = itoa::Buffer::new().format(frac).len();
    out.extend(std::iter::repeat_n(b'0', 9 - digits));
    out.extend_from_slice(itoa::Buffer::new().format(frac).as_bytes());
}

#[cfg(test)]
mod tests {
    use super::*;
    use rvmon_core::Kind;
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
            rvmon_fo::Answer { tp: 4, ts: 10, rel }
        };
        let closed = || rvmon_fo::Answer {
            tp: 2,
            ts: 7,
            rel: rvmon_fo::rel::unit(),
        };
        let vars = ["x".to_string(), "y".to_string()];
        let write = |vars: &[String], output, answer: rvmon_fo::Answer| {
            let mut out = Vec::new();
            let mut sink = FormatSink::new(&mut out, output);
            let order: Vec<usize> = (0..vars.len()).collect();
            rvmon_fo::emit_answer(&answer, &order, vars, Kind::Violation, &interner, &mut sink)
                .unwrap();
            sink.end_batch().unwrap();
            let n = sink.counts.violations;
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

    /// A stream specification's triggers and values in each form, as RTLola and rvmon wrote
    /// them before the sink layer did: times in seconds with nine decimals, strings quoted
    /// where RTLola quotes them, floats JSON has no number for quoted.
    #[test]
    fn stream_decisions_print_as_rtlola_does() {
        let interner = Interner::default();
        let at = |kind, payload| Decision {
            tp: 6,
            ts: 600_536_000,
            kind,
            payload,
        };
        let decisions = [
            at(
                Kind::Trigger,
                Payload::Trigger {
                    index: 0,
                    message: "c is \"big\"",
                },
            ),
            at(
                Kind::Value,
                Payload::Value {
                    stream: "c",
                    text: "4",
                    string: false,
                },
            ),
            at(
                Kind::Value,
                Payload::Value {
                    stream: "s",
                    text: "hi",
                    string: true,
                },
            ),
            at(
                Kind::Value,
                Payload::Value {
                    stream: "x",
                    text: "inf",
                    string: false,
                },
            ),
        ];
        let write = |output| {
            let mut out = Vec::new();
            let mut sink = FormatSink::new(&mut out, output);
            for d in &decisions {
                sink.emit(d, &interner).unwrap();
            }
            assert_eq!(sink.counts.triggers, 1);
            String::from_utf8(out).unwrap()
        };
        assert_eq!(
            write(Output::Rtlola),
            "[0.600536000][Trigger][#0][Value] = \"c is \"big\"\"\n\
             [0.600536000][Output][c][Value] = 4\n\
             [0.600536000][Output][s][Value] = \"hi\"\n\
             [0.600536000][Output][x][Value] = inf\n"
        );
        assert_eq!(
            write(Output::Jsonl),
            "{\"tp\":6,\"ts\":0.600536000,\"trigger\":0,\"message\":\"c is \\\"big\\\"\"}\n\
             {\"tp\":6,\"ts\":0.600536000,\"stream\":\"c\",\"value\":4}\n\
             {\"tp\":6,\"ts\":0.600536000,\"stream\":\"s\",\"value\":\"hi\"}\n\
             {\"tp\":6,\"ts\":0.600536000,\"stream\":\"x\",\"value\":\"inf\"}\n"
        );
        assert_eq!(
            write(Output::Text),
            "trigger #0: event 6 @0.600536000: c is \"big\"\n\
             value: c = 4, event 6 @0.600536000\n\
             value: s = hi, event 6 @0.600536000\n\
             value: x = inf, event 6 @0.600536000\n"
        );
    }
}
