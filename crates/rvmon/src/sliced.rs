//! `rvmon check F LOG --workers N` / `--processes P --process-id I`: a first-order formula
//! monitored in slices on timely-dataflow (paper 04). The output is the unsliced run's.

use std::io::Write;
use std::time::Duration;

use rvmon_core::{Error, Sink};
use rvmon_logic::Formula;
use rvmon_slice::{empty_points_removable, slicing_variables};
use rvmon_timely::{Cluster, Job, Report, Sizes};
use rvmon_trace::{Signature, TraceFormat};

use crate::check::{CheckArgs, Slicing};
use crate::sink::FormatSink;

/// Time points per epoch of the dataflow.
const BATCH: u64 = 4096;
/// Bytes per piece of a log read in parallel: enough to make a piece's fixed costs (a file
/// handle, a slicer) negligible, few enough that pieces read ahead stay a few megabytes.
const CHUNK_BYTES: u64 = 1 << 20;

/// A job with `formula` and the log at `trace`, to ask the time slicer about (its horizons,
/// the margins' cost, how many time points have the formula's predicates).
fn probe_job(
    formula: &Formula,
    trace: Option<&str>,
    sig: &Signature,
    spec: &str,
    text: &str,
) -> Job {
    Job {
        formula: formula.clone(),
        free: Vec::new(),
        sig: sig.clone(),
        spec_name: spec.to_string(),
        spec_text: text.to_string(),
        trace: trace.map(str::to_string),
        format: TraceFormat::Monpoly,
        time_field: None,
        var: String::new(),
        slices: 1,
        drop_empty: false,
        batch: BATCH,
        readers: 1,
        chunk_bytes: CHUNK_BYTES,
        periods: None,
        state_dir: None,
        period_slices: 1,
        collect_strings: rvmon_core::StringCollection::DEFAULT_FLOOR,
    }
}

/// `--slicing auto`: time slicing when the formula's horizons are bounded, unless data
/// slicing may drop empty time points and the formula's predicates occur in fewer than 60 %
/// of the time points (sampled in the log's first MiB). Measured on paper 04's policies with
/// 2 workers (BENCHMARKS.md): time slicing splits the work evenly but every period steps
/// through all its time points; data slicing is skewed by busy values (57 % on one worker),
/// but a slice skips the time points without its predicates. Data won where those predicates
/// occur in at most about half of the time points (P1, P2, P6: under 1 %; P3: about half);
/// time won where they occur in most (P4, P5: 75–90 %). With `--state-dir`, time slicing
/// whenever it applies: only periods finish early. (`job` is a [`probe_job`] of a formula
/// time slicing applies to.)
fn choose_time(job: &Job, periods: usize, keep_periods: bool) -> bool {
    if keep_periods {
        return true;
    }
    // Horizons as long as a period would make every period read most of the log.
    if rvmon_timely::time_slicing_overhead(job, periods).is_ok_and(|o| o > 0.25) {
        return false;
    }
    let droppable = empty_points_removable(&job.formula).is_ok();
    let sparse = rvmon_timely::relevant_share(job, CHUNK_BYTES).is_ok_and(|s| s < 0.6);
    !(droppable && sparse)
}

/// The cluster options' sanity, checked before anything else (also where nothing is sliced).
pub fn check_cluster_args(args: &CheckArgs) -> Result<(), Error> {
    if args.workers == 0 || args.processes == 0 || args.slices == Some(0) || args.readers == Some(0)
    {
        return Err(Error::msg(
            "--workers, --processes, --slices and --readers must be at least 1",
        ));
    }
    if args.process_id >= args.processes {
        return Err(Error::msg(format!(
            "--process-id {} is not below --processes {}",
            args.process_id, args.processes
        )));
    }
    Ok(())
}

/// How a sliced run slices the log ([`plan`] decides).
pub struct Plan {
    trace: Option<String>,
    format: TraceFormat,
    by_time: bool,
    /// Time slicing composed with data slicing.
    both: bool,
    /// The variable of data slicing.
    var: String,
    drop_empty: bool,
    slices: usize,
    periods: Option<usize>,
    period_slices: usize,
    workers_total: usize,
    /// Why the run is sliced otherwise than asked, if it is.
    note: Option<String>,
}

/// How `formula` (the form the engine runs; `vars` its free variables) is sliced: `Err` with
/// the reason when it cannot be (no variable to slice its data by, and time slicing does not
/// apply), for the caller to run it as a single run instead.
pub fn plan(
    args: &CheckArgs,
    formula: &Formula,
    vars: &[String],
    sig: &Signature,
    text: &str,
) -> Result<Result<Plan, String>, Error> {
    let trace = args.trace.clone().filter(|t| t != "-");
    let format = crate::trace_format(args.format, trace.as_deref())?;
    let var = match &args.slice_by {
        Some(v) => Some(v.clone()),
        None => slicing_variables(formula, vars).into_iter().next(),
    };
    let workers_total = args.workers * args.processes;
    let probe = probe_job(formula, trace.as_deref(), sig, &args.spec, text);
    // Why time slicing cannot run this formula on this log, if it cannot.
    let not_by_time = match rvmon_timely::time_horizons(&probe) {
        Err(e) => Some(e.message),
        Ok(_) if format != TraceFormat::Monpoly => {
            Some("time slicing reads MonPoly logs".to_string())
        }
        Ok(_) if !trace.as_deref().is_some_and(rvmon_timely::is_regular_file) => Some(
            "time slicing reads a log file (each worker its own periods), not standard input or a pipe"
                .to_string(),
        ),
        Ok(_) => None,
    };
    let no_var = format!(
        "{}: no variable to slice the data by (a free variable that is an argument of a predicate and is never bound inside)",
        args.spec
    );
    let (by_time, both, note) = match (args.slicing, &var) {
        (Slicing::Time, _) => (true, false, None),
        (Slicing::Both, None) => (true, false, Some(format!("{no_var}; sliced by time only"))),
        (Slicing::Both, Some(_)) => (true, true, None),
        (Slicing::Data | Slicing::Auto, None) => match &not_by_time {
            None => (
                true,
                false,
                Some(format!("{no_var}; sliced by time instead")),
            ),
            Some(why) => return Ok(Err(format!("{no_var}, and {why}"))),
        },
        (Slicing::Data, Some(_)) => (false, false, None),
        (Slicing::Auto, Some(_)) => {
            let periods = args.slices.unwrap_or(workers_total);
            let time = args.slice_by.is_none()
                && not_by_time.is_none()
                && choose_time(&probe, periods, args.state_dir.is_some());
            (time, false, None)
        }
    };
    if args.state_dir.is_some() && !by_time {
        return Err(Error::msg(
            "--state-dir keeps finished periods of a time-sliced run (--slicing time): data slices all end with the log",
        ));
    }
    // Time slicing: one period per slice; composed (`both`), one period per worker, each
    // cut into `--slices` data slices.
    let slices = match args.slices {
        Some(k) => k,
        None if both => 2,
        None => workers_total,
    };
    let (periods, period_slices) = match (by_time, both) {
        (false, _) => (None, 1),
        (true, false) => (Some(slices), 1),
        (true, true) => (Some(workers_total), slices),
    };
    Ok(Ok(Plan {
        trace,
        format,
        by_time,
        both,
        var: if by_time && !both {
            String::new()
        } else {
            var.unwrap_or_default()
        },
        drop_empty: empty_points_removable(formula).is_ok(),
        slices,
        periods,
        period_slices,
        workers_total,
        note,
    }))
}

/// `host:port` of every process: the hostfile's lines, or loopback ports from 2101.
fn addresses(args: &CheckArgs) -> Result<Vec<String>, Error> {
    let addresses: Vec<String> = match &args.hostfile {
        Some(path) => crate::read_file(path)?
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .map(str::to_string)
            .collect(),
        None => (0..args.processes)
            .map(|i| format!("127.0.0.1:{}", 2101 + i))
            .collect(),
    };
    if args.processes > 1 && addresses.len() < args.processes {
        return Err(Error::msg(format!(
            "--hostfile lists {} addresses for {} processes",
            addresses.len(),
            args.processes
        )));
    }
    Ok(addresses.into_iter().take(args.processes).collect())
}

/// Runs `formula` sliced as `plan` says (see [`plan`]).
#[allow(clippy::too_many_arguments)]
pub fn run(
    args: &CheckArgs,
    plan: &Plan,
    formula: Formula,
    vars: Vec<String>,
    sig: &Signature,
    text: &str,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<i32, Error> {
    if let Some(note) = &plan.note {
        writeln!(err, "rvmon: note: {note}")?;
    }
    let job = Job {
        formula,
        free: vars.clone(),
        sig: sig.clone(),
        spec_name: args.spec.clone(),
        spec_text: text.to_string(),
        trace: plan.trace.clone(),
        format: plan.format,
        time_field: args.time_field.clone(),
        var: plan.var.clone(),
        slices: plan.slices,
        drop_empty: plan.drop_empty,
        batch: BATCH,
        readers: args.readers.unwrap_or_else(|| {
            std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
        }),
        chunk_bytes: CHUNK_BYTES,
        periods: plan.periods,
        state_dir: args.state_dir.clone(),
        period_slices: plan.period_slices,
        collect_strings: args.collect_strings,
    };
    let cluster = Cluster {
        workers: args.workers,
        processes: args.processes,
        process_id: args.process_id,
        addresses: addresses(args)?,
        connect_timeout: Duration::from_secs(args.connect_timeout),
    };
    let mut sink = FormatSink::new(out, args.output);
    let order: Vec<usize> = (0..vars.len()).collect();
    let mut sizes = None;
    let result = rvmon_timely::run(job, &cluster, |report, interner| {
        match report {
            Report::Answer(a) => {
                let kind = rvmon_core::Kind::Violation;
                rvmon_fo::emit_answer(&a, &order, &vars, kind, interner, &mut sink)?;
                sink.end_batch()?;
            }
            Report::Sizes(s) => sizes = Some(s),
        }
        Ok(())
    });
    sink.out().flush()?;
    result?;
    let violations = sink.counts.violations;
    if args.process_id == 0 {
        if let Some(sizes) = &sizes {
            if sizes.positions {
                crate::note_positions(err)?;
            }
            if args.slice_report {
                slice_report(plan, sizes, err)?;
            }
        }
        summary(plan, violations, sizes.as_ref(), err)?;
    }
    Ok(if violations > 0 { 1 } else { 0 })
}

/// `--slice-report`: the events and time points of each slice or period, and each worker's.
fn slice_report(plan: &Plan, sizes: &Sizes, err: &mut dyn Write) -> Result<(), Error> {
    let (var, period_slices, workers_total) = (&plan.var, plan.period_slices, plan.workers_total);
    if plan.both {
        writeln!(
            err,
            "rvmon: {} period(s), each in {period_slices} slice(s) by `{var}`, on {workers_total} worker(s); each reads its period's margins too",
            sizes.events.len() / period_slices
        )?;
    } else if plan.by_time {
        writeln!(
            err,
            "rvmon: {} period(s) on {workers_total} worker(s); each reads its margins too",
            sizes.events.len()
        )?;
    } else {
        writeln!(
            err,
            "rvmon: {} slice(s) by `{var}` on {workers_total} worker(s){}",
            plan.slices,
            if plan.drop_empty {
                ", empty time points dropped"
            } else {
                ", every time point kept (dropping empty ones is not sound for this formula)"
            }
        )?;
    }
    let total: u64 = sizes.events.iter().sum::<u64>().max(1);
    let share = |e: u64| 100.0 * e as f64 / total as f64;
    let slices = sizes
        .events
        .iter()
        .zip(&sizes.time_points)
        .zip(&sizes.workers);
    for (k, ((e, t), w)) in slices.enumerate() {
        let on = w.map_or("-".to_string(), |w| w.to_string());
        let name = match (plan.by_time, plan.both) {
            (true, true) => format!("period {} slice {}", k / period_slices, k % period_slices),
            (true, false) => format!("period {k}"),
            (false, _) => format!("slice {k}"),
        };
        if sizes.saved[k] {
            writeln!(
                err,
                "rvmon: {name}: kept from --state-dir by an earlier run ({e} event(s), {t} time point(s) then)"
            )?;
            continue;
        }
        writeln!(
            err,
            "rvmon: {name} (worker {on}): {e} event(s) ({:.1} %), {t} time point(s)",
            share(*e)
        )?;
    }
    for w in 0..workers_total as u64 {
        let e: u64 = sizes
            .events
            .iter()
            .zip(&sizes.workers)
            .filter(|(_, on)| **on == Some(w))
            .map(|(e, _)| e)
            .sum();
        writeln!(err, "rvmon: worker {w}: {e} event(s) ({:.1} %)", share(e))?;
    }
    Ok(())
}

/// The run's last lines: the violations and how the log was sliced; a warning if the log had
/// no time points.
fn summary(
    plan: &Plan,
    violations: u64,
    sizes: Option<&Sizes>,
    err: &mut dyn Write,
) -> Result<(), Error> {
    let (var, slices) = (&plan.var, plan.slices);
    if plan.both {
        writeln!(
            err,
            "rvmon: {violations} violation(s), sliced by time into {} period(s), each by `{var}` into {}",
            plan.workers_total, plan.period_slices
        )?;
    } else if plan.by_time {
        writeln!(
            err,
            "rvmon: {violations} violation(s), sliced by time into {} period(s)",
            sizes.map_or(slices, |s| s.events.len())
        )?;
    } else {
        writeln!(
            err,
            "rvmon: {violations} violation(s), sliced by `{var}` into {slices}"
        )?;
    }
    if let Some(s) = sizes {
        crate::warn_if_empty(s.read, err)?;
    }
    Ok(())
}
