//! The timely back end against the single engine: on random policies (constants, nested past
//! and future operators) and random logs (equal timestamps, empty time points), any number of
//! worker threads, processes and slices, reading the log in pieces on any number of threads,
//! writes exactly the single run's violations.

use std::collections::BTreeMap;

use proptest::prelude::*;
use rvmon_core::{Interner, TimePoint, Value};
use rvmon_fo::{compile, FoEngine};
use rvmon_logic::monpoly::analyzed_formula;
use rvmon_logic::{free_vars, parse_formula, Formula, FormulaKind};
use rvmon_slice::{empty_points_removable, slicing_variables};
use rvmon_testkit::gen::{log, policy, text, Log, SIG};
use rvmon_timely::{run, Cluster, Job, Report};
use rvmon_trace::{Signature, TraceFormat};

/// The formula rvmon monitors for `policy` (its negation, as MonPoly analyses it), its free
/// variables and the signature; `None` when it is not monitorable.
fn monitored(policy: &str) -> Option<(Formula, Vec<String>, Signature)> {
    let f = parse_formula("f", policy).unwrap();
    let vars = free_vars(&f);
    let negated = Formula::new(FormulaKind::Not(Box::new(f.clone())), f.span);
    let analyzed = analyzed_formula(&negated);
    let sig = Signature::parse("sig", SIG).unwrap();
    compile(&analyzed, &vars, &sig, &mut Interner::new(), "f", "").ok()?;
    Some((analyzed, vars, sig))
}

/// A job for `analyzed` on the log at `path`: one slice, read in one pass, epochs of 3.
fn job_for(
    analyzed: &Formula,
    vars: &[String],
    sig: &Signature,
    policy: &str,
    path: &std::path::Path,
) -> Job {
    Job {
        formula: analyzed.clone(),
        free: vars.to_vec(),
        sig: sig.clone(),
        spec_name: "f".into(),
        spec_text: policy.into(),
        trace: Some(path.display().to_string()),
        format: TraceFormat::Monpoly,
        time_field: None,
        var: String::new(),
        slices: 1,
        drop_empty: false,
        batch: 3,
        readers: 1,
        chunk_bytes: 1 << 20,
        periods: None,
        state_dir: None,
        period_slices: 1,
        // Strings no engine holds are freed at every opportunity (after every batch).
        collect_strings: 0,
    }
}

/// Writes `text` to a log file of this test process, named by the test and a key (property
/// tests of one kind reuse their files).
fn log_file(test: &str, key: usize, text: &str) -> std::path::PathBuf {
    let path = rvmon_testkit::scratch(env!("CARGO_TARGET_TMPDIR"), "against_single")
        .join(format!("{test}-{key}.log"));
    std::fs::write(&path, text).unwrap();
    path
}

/// Violations by time point, as sorted tuple texts.
type Violations = BTreeMap<u64, Vec<String>>;

fn single(f: &Formula, vars: &[String], sig: &Signature, log: &Log) -> Violations {
    let mut interner = Interner::new();
    let plan = compile(f, vars, sig, &mut interner, "f", "").unwrap();
    let has_future = plan.has_future();
    let mut engine = FoEngine::new(plan);
    let mut answers = Vec::new();
    for (i, (ts, evs)) in log.iter().enumerate() {
        let mut tp = TimePoint {
            index: i as u64,
            ts: *ts,
            ..Default::default()
        };
        for (name, args) in evs {
            let sym = interner.intern(name);
            let vals: Vec<Value> = args
                .iter()
                .map(|a| Value::Str(interner.intern(&a.to_string())))
                .collect();
            tp.push_event(sym, &vals);
        }
        engine.step(&tp, &mut interner, &mut answers).unwrap();
    }
    if has_future {
        engine.close(&mut interner, &mut answers).unwrap();
    }
    answers
        .into_iter()
        .filter(|a| !a.rel.is_empty())
        .map(|a| {
            let order: Vec<usize> = (0..vars.len()).collect();
            (a.tp, rvmon_fo::rel::sorted_texts(&a.rel, &order, &interner))
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 150, ..ProptestConfig::default() })]

    #[test]
    fn any_workers_and_slices_write_the_single_run_violations(
        policy in policy(),
        log in log(),
        workers in 1usize..4,
        slices in 1usize..6,
        readers in 1usize..4,
        chunk_bytes in 1u64..60,
    ) {
        let Some((analyzed, vars, sig)) = monitored(&policy) else {
            return Ok(());
        };
        let Some(var) = slicing_variables(&analyzed, &vars).into_iter().next() else {
            return Ok(());
        };
        let expected = single(&analyzed, &vars, &sig, &log);
        let path = log_file("timely", workers * 10 + slices, &text(&log));
        let job = Job {
            var,
            slices,
            drop_empty: empty_points_removable(&analyzed).is_ok(),
            readers,
            chunk_bytes,
            ..job_for(&analyzed, &vars, &sig, &policy, &path)
        };
        // (run_job also checks that each time point is written once, in order)
        let (got, end) = run_job(job, workers);
        prop_assert_eq!(end, Ok(()));
        prop_assert_eq!(got, expected, "{} with {} workers, {} slices, {} readers of {}-byte pieces", policy, workers, slices, readers, chunk_bytes);
    }
}

/// Answers and how the run ended.
fn run_job(job: Job, workers: usize) -> (Violations, Result<(), String>) {
    let cluster = Cluster {
        workers,
        processes: 1,
        process_id: 0,
        addresses: Vec::new(),
        connect_timeout: std::time::Duration::from_secs(5),
    };
    run_on(job, &cluster)
}

/// [`run_job`] as one process of `cluster` (process 0 gets the answers).
fn run_on(job: Job, cluster: &Cluster) -> (Violations, Result<(), String>) {
    let vars = job.free.clone();
    let mut got = Violations::new();
    let end = run(job, cluster, |r, interner| {
        if let Report::Answer(a) = r {
            let order: Vec<usize> = (0..vars.len()).collect();
            // Each time point once, in order.
            assert!(
                got.keys().next_back().is_none_or(|&last| last < a.tp),
                "time point {} after {:?}",
                a.tp,
                got.keys().next_back()
            );
            got.insert(a.tp, rvmon_fo::rel::sorted_texts(&a.rel, &order, interner));
        }
        Ok(())
    });
    (got, end.map_err(|e| e.to_string()))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 60, ..ProptestConfig::default() })]

    /// Reading in pieces on several threads changes nothing, also where a piece alone cannot
    /// decide: a bad line (its message names the whole log's line), a timestamp below the
    /// previous piece's, `>terminate<`. The reference is the same run reading in one pass.
    #[test]
    fn reading_in_pieces_is_reading_in_one_pass(
        log in log(),
        trouble in prop::option::of((0usize..25, prop::sample::select(vec!["P(", "@0 P(1)", ">terminate<", "Q(1)"]))),
        readers in 2usize..4,
        chunk_bytes in 1u64..40,
    ) {
        let policy = "Q(x,y) IMPLIES ONCE[0,2] P(x)";
        let f = parse_formula("f", policy).unwrap();
        let vars = free_vars(&f);
        let analyzed = analyzed_formula(&Formula::new(FormulaKind::Not(Box::new(f.clone())), f.span));
        let sig = Signature::parse("sig", SIG).unwrap();
        let mut lines: Vec<String> = text(&log).lines().map(str::to_string).collect();
        if let Some((at, what)) = trouble {
            let at = at.min(lines.len());
            lines.insert(at, what.to_string());
        }
        let path = log_file("pieces", readers * 100 + chunk_bytes as usize, &(lines.join("\n") + "\n"));
        let job = |readers, periods| Job {
            var: "x".into(),
            slices: 2,
            drop_empty: true,
            batch: 2,
            readers,
            chunk_bytes,
            periods,
            ..job_for(&analyzed, &vars, &sig, policy, &path)
        };
        let one_pass = run_job(job(1, None), 2);
        let pieces = run_job(job(readers, None), 2);
        prop_assert_eq!(&pieces, &one_pass, "{}", lines.join("\n"));
        // Time slicing: each worker reads its periods itself; the same, bad lines included.
        let periods = run_job(job(1, Some(readers + 1)), readers);
        prop_assert_eq!(&periods, &one_pass, "{} periods: {}", readers + 1, lines.join("\n"));
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 150, ..ProptestConfig::default() })]

    /// Time slicing (periods with past and future margins, restricted to their own time
    /// points) writes the single run's violations, for random policies with nested past and
    /// future operators (their horizons are bounded) and logs with equal timestamps; also
    /// composed with data slicing (each period cut into 1–3 data slices).
    #[test]
    fn time_slices_write_the_single_run_violations(
        policy in policy(),
        log in log(),
        workers in 1usize..4,
        periods in 1usize..6,
        per_period in 1usize..4,
        chunk_bytes in 1u64..40,
    ) {
        let Some((analyzed, vars, sig)) = monitored(&policy) else {
            return Ok(());
        };
        let var = slicing_variables(&analyzed, &vars).into_iter().next();
        let per_period = if var.is_some() { per_period } else { 1 };
        let expected = single(&analyzed, &vars, &sig, &log);
        let path = log_file("periods", workers * 100 + periods * 10 + per_period, &text(&log));
        let job = Job {
            chunk_bytes,
            periods: Some(periods),
            period_slices: per_period,
            var: var.unwrap_or_default(),
            ..job_for(&analyzed, &vars, &sig, &policy, &path)
        };
        let (got, end) = run_job(job, workers);
        prop_assert_eq!(end, Ok(()));
        prop_assert_eq!(got, expected, "{} with {} workers, {} periods x {} slices", policy, workers, periods, per_period);
    }
}

type Outcome = (Violations, Result<(), String>);

/// Runs `job` on `processes` processes (threads here) on loopback, each on fresh ports:
/// process 0's outcome, then the others'.
fn run_cluster(
    job: &Job,
    processes: usize,
    workers: usize,
) -> (Violations, Result<(), String>, Vec<Outcome>) {
    let addresses: Vec<String> = (0..processes)
        .map(|_| {
            let free = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
            format!("127.0.0.1:{}", free.local_addr().unwrap().port())
        })
        .collect();
    let cluster = |process_id| Cluster {
        workers,
        processes,
        process_id,
        addresses: addresses.clone(),
        connect_timeout: std::time::Duration::from_secs(20),
    };
    let others: Vec<_> = (1..processes)
        .map(|id| {
            let (job, cluster) = (job.clone(), cluster(id));
            std::thread::spawn(move || run_on(job, &cluster))
        })
        .collect();
    let (got, end) = run_on(job.clone(), &cluster(0));
    let others = others.into_iter().map(|o| o.join().unwrap()).collect();
    (got, end, others)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    /// A cluster of 2–3 processes on loopback (here threads of this test, each with its own
    /// timely instance and sockets, as separate processes would have) writes the single run's
    /// violations, with data or time slicing (fewer or more periods than workers), 1–2
    /// workers each.
    #[test]
    fn any_processes_write_the_single_run_violations(
        policy in policy(),
        log in log(),
        processes in 2usize..4,
        workers in 1usize..3,
        by_time in any::<bool>(),
        slices in 1usize..5,
        periods in 1usize..8,
    ) {
        let monitorable = monitored(&policy);
        prop_assume!(monitorable.is_some());
        let (analyzed, vars, sig) = monitorable.expect("assumed");
        let var = slicing_variables(&analyzed, &vars).into_iter().next();
        prop_assume!(by_time || var.is_some());
        let expected = single(&analyzed, &vars, &sig, &log);
        let path = log_file("cluster", processes * 10 + workers, &text(&log));
        // With time slicing, each period cut into data slices too where it can be.
        let period_slices = if by_time && var.is_some() { slices } else { 1 };
        let job = Job {
            var: var.unwrap_or_default(),
            slices,
            drop_empty: !by_time && empty_points_removable(&analyzed).is_ok(),
            periods: by_time.then_some(periods),
            period_slices,
            ..job_for(&analyzed, &vars, &sig, &policy, &path)
        };
        // Ports are picked by binding port 0 and letting go, so another socket (an outgoing
        // connection's ephemeral port) can take one before its process listens on it. That
        // shows as "cannot listen" in some process; pick new ports and run again.
        let mut attempts = 0;
        let (got, end, others) = loop {
            attempts += 1;
            let (got, end, others) = run_cluster(&job, processes, workers);
            let busy = std::iter::once(&end)
                .chain(others.iter().map(|(_, end)| end))
                .any(|e| e.as_ref().is_err_and(|e| e.contains("cannot listen")));
            if !busy || attempts == 3 {
                break (got, end, others);
            }
        };
        for (answers, end) in others {
            prop_assert_eq!(end, Ok(()));
            prop_assert!(answers.is_empty(), "only process 0 writes answers");
        }
        prop_assert_eq!(end, Ok(()));
        prop_assert_eq!(got, expected, "{} on {} processes x {} workers, by time: {}", policy, processes, workers, by_time);
    }
}
