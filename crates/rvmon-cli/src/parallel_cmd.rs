//! `rvmon check F LOG --workers N` / `--processes P --process-id I`: a first-order formula
//! monitored in slices on timely-dataflow (paper 04). The output is the unsliced run's.

use std::io::Write;
use std::time::Duration;

use rvmon_core::Error;
use rvmon_logic::Formula;
use rvmon_slice::{empty_points_removable, slicing_variables};
use rvmon_timely::{Cluster, Job, Report};
use rvmon_trace::Signature;

use crate::check_cmd::{CheckArgs, Slicing, ViolationWriter};

/// Time points per epoch of the dataflow.
const BATCH: u64 = 4096;
/// Bytes per piece of a log read in parallel: enough to make a piece's fixed costs (a file
/// handle, a slicer) negligible, few enough that pieces read ahead stay a few megabytes.
const CHUNK_BYTES: u64 = 1 << 20;

/// `--slicing auto`: time slicing when the formula's horizons are bounded, unless data
/// slicing may drop empty time points and the formula's predicates occur in fewer than 60 %
/// of the time points (sampled in the log's first MiB). Measured on paper 04's policies with
/// 2 workers (BENCHMARKS.md): time slicing splits the work evenly but every period steps
/// through all its time points; data slicing is skewed by busy values (57 % on one worker),
/// but a slice skips the time points without its predicates. Data won where those predicates
/// occur in at most about half of the time points (P1, P2, P6: under 1 %; P3: about half);
/// time won where they occur in most (P4, P5: 75–90 %). With `--state-dir`, time slicing
/// whenever it applies: only periods finish early.
fn choose_time(
    formula: &Formula,
    trace: Option<&str>,
    sig: &Signature,
    spec: &str,
    text: &str,
    periods: usize,
    keep_periods: bool,
) -> bool {
    let job = Job {
        formula: formula.clone(),
        free: Vec::new(),
        sig: sig.clone(),
        spec_name: spec.to_string(),
        spec_text: text.to_string(),
        trace: trace.map(str::to_string),
        format: rvmon_trace::TraceFormat::Monpoly,
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
    };
    if rvmon_timely::time_horizons(&job).is_err() {
        return false;
    }
    if keep_periods {
        return true;
    }
    // Horizons as long as a period would make every period read most of the log.
    if rvmon_timely::time_slicing_overhead(&job, periods).is_ok_and(|o| o > 0.25) {
        return false;
    }
    let droppable = empty_points_removable(formula).is_ok();
    let sparse = rvmon_timely::relevant_share(&job, CHUNK_BYTES).is_ok_and(|s| s < 0.6);
    !(droppable && sparse)
}

#[allow(clippy::too_many_arguments)]
pub fn run(
    args: &CheckArgs,
    formula: Formula,
    vars: Vec<String>,
    sig: &Signature,
    text: &str,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<i32, Error> {
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
    let trace = args.trace.clone().filter(|t| t != "-");
    if trace.is_none() && args.process_id == 0 {
        return Err(Error::msg(
            "a sliced run reads its log from a file (give the LOG path, not standard input)",
        ));
    }
    let format = crate::trace_format(args.format, trace.as_deref())?;
    let by_time = match args.slicing {
        Slicing::Time | Slicing::Both => true,
        Slicing::Data => false,
        Slicing::Auto => {
            args.slice_by.is_none()
                && trace.as_deref().is_some_and(rvmon_timely::is_regular_file)
                && format == rvmon_trace::TraceFormat::Monpoly
                && choose_time(
                    &formula,
                    trace.as_deref(),
                    sig,
                    &args.spec,
                    text,
                    args.slices.unwrap_or(args.workers * args.processes),
                    args.state_dir.is_some(),
                )
        }
    };
    if args.state_dir.is_some() && !by_time {
        return Err(Error::msg(
            "--state-dir keeps finished periods of a time-sliced run (--slicing time): data slices all end with the log",
        ));
    }
    let both = args.slicing == Slicing::Both;
    let var = match &args.slice_by {
        _ if by_time && !both => String::new(),
        Some(v) => v.clone(),
        None => slicing_variables(&formula, &vars).into_iter().next().ok_or_else(|| {
            Error::msg(format!(
                "{}: no variable to slice by: the formula needs a free variable that is an argument of a predicate and is never bound inside",
                args.spec
            ))
        })?,
    };
    let drop_empty = empty_points_removable(&formula).is_ok();
    let workers_total = args.workers * args.processes;
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
    let addresses = match &args.hostfile {
        Some(path) => crate::read_file(path)?
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .map(str::to_string)
            .collect(),
        None => (0..args.processes)
            .map(|i| format!("127.0.0.1:{}", 2101 + i))
            .collect::<Vec<_>>(),
    };
    if args.processes > 1 && addresses.len() < args.processes {
        return Err(Error::msg(format!(
            "--hostfile lists {} addresses for {} processes",
            addresses.len(),
            args.processes
        )));
    }
    let addresses: Vec<String> = addresses.into_iter().take(args.processes).collect();
    let job = Job {
        formula,
        free: vars.clone(),
        sig: sig.clone(),
        spec_name: args.spec.clone(),
        spec_text: text.to_string(),
        trace,
        format,
        var: var.clone(),
        slices,
        drop_empty,
        batch: BATCH,
        readers: args.readers.unwrap_or_else(|| {
            std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
        }),
        chunk_bytes: CHUNK_BYTES,
        periods,
        state_dir: args.state_dir.clone(),
        period_slices,
        collect_strings: args.collect_strings,
    };
    let cluster = Cluster {
        workers: args.workers,
        processes: args.processes,
        process_id: args.process_id,
        addresses,
        connect_timeout: Duration::from_secs(args.connect_timeout),
    };
    let mut writer = ViolationWriter::new(&vars, args.output);
    let mut violations = 0u64;
    let mut sizes = None;
    let result = rvmon_timely::run(job, &cluster, |report, interner| {
        match report {
            Report::Answer(a) => violations += writer.write(&mut vec![a], interner, out)?,
            Report::Sizes {
                events,
                time_points,
                workers,
                saved,
            } => sizes = Some((events, time_points, workers, saved)),
        }
        Ok(())
    });
    out.flush()?;
    result?;
    if args.process_id == 0 {
        if args.slice_report {
            if let Some((events, time_points, workers, saved)) = &sizes {
                if both {
                    writeln!(
                        err,
                        "rvmon: {} period(s), each in {period_slices} slice(s) by `{var}`, on {workers_total} worker(s); each reads its period's margins too",
                        events.len() / period_slices
                    )?;
                } else if by_time {
                    writeln!(
                        err,
                        "rvmon: {} period(s) on {workers_total} worker(s); each reads its margins too",
                        events.len()
                    )?;
                } else {
                    writeln!(
                        err,
                        "rvmon: {} slice(s) by `{var}` on {workers_total} worker(s){}",
                        slices,
                        if drop_empty {
                            ", empty time points dropped"
                        } else {
                            ", every time point kept (dropping empty ones is not sound for this formula)"
                        }
                    )?;
                }
                let total: u64 = events.iter().sum::<u64>().max(1);
                let share = |e: u64| 100.0 * e as f64 / total as f64;
                for (k, ((e, t), w)) in events.iter().zip(time_points).zip(workers).enumerate() {
                    let on = w.map_or("-".to_string(), |w| w.to_string());
                    let name = match (by_time, both) {
                        (true, true) => {
                            format!("period {} slice {}", k / period_slices, k % period_slices)
                        }
                        (true, false) => format!("period {k}"),
                        (false, _) => format!("slice {k}"),
                    };
                    if saved[k] {
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
                    let e: u64 = events
                        .iter()
                        .zip(workers)
                        .filter(|(_, on)| **on == Some(w))
                        .map(|(e, _)| e)
                        .sum();
                    writeln!(err, "rvmon: worker {w}: {e} event(s) ({:.1} %)", share(e))?;
                }
            }
        }
        if both {
            writeln!(
                err,
                "rvmon: {violations} violation(s), sliced by time into {workers_total} period(s), each by `{var}` into {period_slices}"
            )?;
        } else if by_time {
            writeln!(
                err,
                "rvmon: {violations} violation(s), sliced by time into {} period(s)",
                sizes.as_ref().map_or(slices, |s| s.0.len())
            )?;
        } else {
            writeln!(
                err,
                "rvmon: {violations} violation(s), sliced by `{var}` into {slices}"
            )?;
        }
    }
    Ok(if violations > 0 { 1 } else { 0 })
}
