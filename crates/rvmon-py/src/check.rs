//! `rvmon.check`: `rvmon check SPEC TRACE --output jsonl`, through the front door, its
//! verdicts as the JSON Lines the command writes (the Python side reads them into dicts).

use pyo3::prelude::*;
use pyo3::types::PyBytes;
use rvmon::check::{CheckArgs, Output};
use rvmon_core::Error;

use crate::{failure, guarded, Blame};

/// What went wrong in a run, and what it wrote before.
struct Failed {
    error: Error,
    blame: Blame,
    output: Vec<u8>,
}

/// Checks the trace at `trace` against the specification at `spec` (files), as `rvmon check
/// --output jsonl` does; returns its output and exit status (0, or 1 with violations).
/// Options are the command's (`robustness=True` is `--robustness`).
#[pyfunction]
#[pyo3(signature = (spec, trace, *, lang=None, sig=None, format=None, time_field=None,
                    robustness=false, dense=false, intervals=false, values=false, workers=1,
                    tolerance=None, timestamp_error=None))]
#[allow(clippy::too_many_arguments)]
pub fn check<'py>(
    py: Python<'py>,
    spec: String,
    trace: String,
    lang: Option<String>,
    sig: Option<String>,
    format: Option<String>,
    time_field: Option<String>,
    robustness: bool,
    dense: bool,
    intervals: bool,
    values: bool,
    workers: usize,
    tolerance: Option<String>,
    timestamp_error: Option<String>,
) -> PyResult<(Bound<'py, PyBytes>, i32)> {
    let mut args = CheckArgs::new(spec, trace);
    args.lang = lang;
    args.sig = sig;
    args.time_field = time_field;
    args.output = Output::Jsonl;
    (args.robustness, args.dense, args.intervals) = (robustness, dense, intervals);
    (args.values, args.workers, args.quiet) = (values, workers.max(1), true);
    (args.tolerance, args.timestamp_error) = (tolerance, timestamp_error);
    if let Some(f) = format {
        args.format = Some(f.parse().map_err(|e: String| {
            failure(Blame::Trace, &Error::msg(format!("format: {e}")), b"")
        })?);
    }
    guarded(|| match py.detach(move || run(&args)) {
        Ok((out, status)) => Ok((PyBytes::new(py, &out), status)),
        Err(f) => Err(failure(f.blame, &f.error, &f.output)),
    })
}

/// The run: first the plan alone (`--explain`), so that an error in the specification is
/// told apart from one in the trace, then the run itself.
fn run(args: &CheckArgs) -> Result<(Vec<u8>, i32), Failed> {
    let trace = args.trace.clone().unwrap_or_default();
    let blame = |e: &Error, running: bool| match e.pos.as_ref().map(|p| p.file.as_str()) {
        Some(f) if f == trace => Blame::Trace,
        Some(_) => Blame::Spec,
        None if e.message.starts_with(&format!("{trace}:")) => Blame::Trace,
        None if running => Blame::Trace,
        None => Blame::Spec,
    };
    let mut plan = args.clone();
    plan.explain = true;
    if let Err(error) = rvmon::check::run(&plan, &mut std::io::sink(), &mut std::io::sink()) {
        let blame = blame(&error, false);
        return Err(Failed {
            error,
            blame,
            output: Vec::new(),
        });
    }
    let mut out = Vec::new();
    match rvmon::check::run(args, &mut out, &mut std::io::sink()) {
        Ok(status) => Ok((out, status)),
        Err(error) => Err(Failed {
            blame: blame(&error, true),
            error,
            output: out,
        }),
    }
}
