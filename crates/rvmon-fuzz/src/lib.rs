//! rvmon's fuzzing harness, on stable Rust: proptest drives each target (every parser and
//! trace reader, each engine's compile step, `rvmon monpoly`'s arguments and saved states)
//! with arbitrary bytes and with structure-aware mutations of seeds and of the bundled
//! examples ([`mutate`], [`targets`]).
//!
//! * `cargo test -p rvmon-fuzz`: the short run, a fixed seed and a few hundred to a few
//!   thousand inputs per target (seconds), and the regression inputs of `regressions/`.
//! * `bench/fuzz.sh [CASES] [SEED]`: the long run, `RVMON_FUZZ_CASES` inputs per target in
//!   release mode, under `ulimit -v`; it reports inputs, crashes, hangs and aborts per target.
//!
//! A crash (panic) is shrunk by proptest and its input saved under `target/fuzz/crashes/`;
//! an input that takes longer than `RVMON_FUZZ_HANG_SECS` (10) under `target/fuzz/hangs/`.
//! What kills the process (a stack overflow, an allocation refused under `ulimit -v`) cannot
//! be caught: with `RVMON_FUZZ_TRACK=1` each input is written to `target/fuzz/current/TARGET`
//! before it runs, so that the script keeps the one that killed it.

pub mod mutate;
pub mod targets;

use std::cell::{Cell, RefCell};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use proptest::test_runner::{Config, RngAlgorithm, TestError, TestRng, TestRunner};

use targets::Target;

/// How a target is fuzzed.
#[derive(Clone, Debug)]
pub struct Settings {
    pub cases: u64,
    pub seed: u64,
    /// The deepest nesting an edit makes (see [`mutate::Grammar`]).
    pub max_depth: usize,
    /// An input slower than this is a hang.
    pub hang: Duration,
    /// Write each input to `out/current/TARGET` before running it.
    pub track: bool,
    pub out: PathBuf,
}

fn env<T: std::str::FromStr>(name: &str) -> Option<T> {
    std::env::var(name).ok().and_then(|v| v.parse().ok())
}

impl Settings {
    /// The short run of `target`: its own number of cases, a fixed seed, nesting up to 100
    /// (`RVMON_FUZZ_SHORT_SCALE` multiplies the cases).
    pub fn short(target: &Target) -> Settings {
        let scale: u64 = env("RVMON_FUZZ_SHORT_SCALE").unwrap_or(1);
        Settings {
            cases: u64::from(target.short_cases) * scale,
            seed: 0,
            max_depth: 100,
            ..Settings::long()
        }
    }

    /// The long run, from the environment: `RVMON_FUZZ_CASES` (100 000), `RVMON_FUZZ_SEED`
    /// (1), `RVMON_FUZZ_MAX_DEPTH` (20 000), `RVMON_FUZZ_HANG_SECS` (10),
    /// `RVMON_FUZZ_TRACK`, `RVMON_FUZZ_OUT` (`target/fuzz`).
    pub fn long() -> Settings {
        Settings {
            cases: env("RVMON_FUZZ_CASES").unwrap_or(100_000),
            seed: env("RVMON_FUZZ_SEED").unwrap_or(1),
            max_depth: env("RVMON_FUZZ_MAX_DEPTH").unwrap_or(20_000),
            hang: Duration::from_secs(env("RVMON_FUZZ_HANG_SECS").unwrap_or(10)),
            track: env::<u8>("RVMON_FUZZ_TRACK").is_some_and(|t| t != 0),
            out: std::env::var_os("RVMON_FUZZ_OUT")
                .map_or_else(|| targets::workspace().join("target/fuzz"), PathBuf::from),
        }
    }
}

/// What a run found.
#[derive(Debug, Default)]
pub struct Report {
    /// Inputs run, those of the shrinking included, and those accepted (read or run to the
    /// end without an error).
    pub inputs: u64,
    pub accepted: u64,
    /// The shrunk inputs that panicked, as saved, and the panics' messages.
    pub crashes: Vec<(PathBuf, String)>,
    /// Inputs slower than [`Settings::hang`], as saved.
    pub hangs: Vec<PathBuf>,
    pub slowest: Duration,
}

impl Report {
    pub fn summary(&self, target: &str) -> String {
        format!(
            "fuzz {target}: {} inputs ({} accepted), {} crashes, {} hangs, slowest {:.3} s",
            self.inputs,
            self.accepted,
            self.crashes.len(),
            self.hangs.len(),
            self.slowest.as_secs_f64()
        )
    }
}

/// The stack a target runs on: the `rvmon` binary runs its command on a thread of 32 MiB
/// (`STACK` in rvmon-cli's main.rs, which the depth limits are measured against); test
/// threads have 2.
const STACK: usize = 32 << 20;

/// Runs `f` on a thread with the binary's stack; a panic in `f` is returned as an error.
pub fn on_big_stack<T: Send>(f: impl FnOnce() -> T + Send) -> std::thread::Result<T> {
    std::thread::scope(|s| {
        std::thread::Builder::new()
            .stack_size(STACK)
            .spawn_scoped(s, f)
            .expect("a thread")
            .join()
    })
}

/// Fuzzes `target` as `settings` say. The cases run in chunks of 10 000, each from its own
/// seed, so that a crash (which ends a chunk) does not end the run.
pub fn fuzz(target: &'static Target, settings: &Settings) -> Report {
    on_big_stack(|| {
        let strategy = mutate::inputs(target.grammar(settings.max_depth));
        let mut report = Report::default();
        let watch = settings.track.then(|| Watch::new(target.name, settings));
        let chunk = 10_000u64;
        let mut done = 0;
        while done < settings.cases {
            let cases = chunk.min(settings.cases - done);
            let run = Chunk {
                number: done / chunk,
                cases,
                watch: watch.as_ref(),
            };
            run_chunk(target, settings, &strategy, &run, &mut report);
            done += cases;
        }
        report
    })
    .expect("the fuzz driver does not panic")
}

/// A chunk of a run: its number (which seeds its RNG), its cases, the run's [`Watch`].
struct Chunk<'a> {
    number: u64,
    cases: u64,
    watch: Option<&'a Watch>,
}

fn run_chunk(
    target: &'static Target,
    settings: &Settings,
    strategy: &impl proptest::strategy::Strategy<Value = Vec<u8>>,
    chunk: &Chunk,
    report: &mut Report,
) {
    let config = Config {
        cases: chunk.cases as u32,
        failure_persistence: None,
        max_shrink_iters: 2_000,
        max_shrink_time: 120_000,
        ..Config::default()
    };
    let mut seed = [0u8; 32];
    seed[..8].copy_from_slice(&settings.seed.to_le_bytes());
    seed[8..16].copy_from_slice(&chunk.number.to_le_bytes());
    seed[16..24].copy_from_slice(&hash(target.name.as_bytes()).to_le_bytes());
    let mut runner =
        TestRunner::new_with_rng(config, TestRng::from_seed(RngAlgorithm::ChaCha, &seed));
    let inputs = Cell::new(0u64);
    let accepted = Cell::new(0u64);
    let slowest = Cell::new(report.slowest);
    let hangs = RefCell::new(Vec::new());
    let result = runner.run(strategy, |input| {
        inputs.set(inputs.get() + 1);
        if let Some(w) = chunk.watch {
            w.before(&input, report.inputs + inputs.get());
        }
        let start = Instant::now();
        accepted.set(accepted.get() + u64::from((target.run)(&input)));
        let took = start.elapsed();
        if let Some(w) = chunk.watch {
            w.after();
        }
        slowest.set(slowest.get().max(took));
        if took > settings.hang {
            hangs
                .borrow_mut()
                .push(save(&settings.out.join("hangs"), target.name, &input));
        }
        Ok(())
    });
    report.inputs += inputs.get();
    report.accepted += accepted.get();
    report.slowest = slowest.get();
    report.hangs.extend(hangs.into_inner());
    if let Err(TestError::Fail(why, input)) = result {
        let path = save(&settings.out.join("crashes"), target.name, &input);
        report.crashes.push((path, why.to_string()));
    }
}

/// The long run's watch over the input in progress (`RVMON_FUZZ_TRACK=1`): its file, so that
/// bench/fuzz.sh keeps the input that killed the process (a stack overflow, an allocation
/// refused under `ulimit -v`); the count of inputs run, every thousand; and a watchdog that
/// saves an input running longer than the hang limit as a hang and ends the process with
/// status 3 (an endless loop would never come back to be measured).
struct Watch {
    current: PathBuf,
    progress: PathBuf,
    /// When the input in progress started, in milliseconds after `epoch` (0: none runs).
    started: Arc<AtomicU64>,
    epoch: Instant,
}

impl Watch {
    fn new(target: &'static str, settings: &Settings) -> Watch {
        let dir = settings.out.join("current");
        let _ = std::fs::create_dir_all(&dir);
        let watch = Watch {
            current: dir.join(target),
            progress: dir.join(format!("{target}.inputs")),
            started: Arc::new(AtomicU64::new(0)),
            epoch: Instant::now(),
        };
        let (started, epoch, limit) = (watch.started.clone(), watch.epoch, settings.hang);
        let (current, hangs) = (watch.current.clone(), settings.out.join("hangs"));
        std::thread::spawn(move || loop {
            std::thread::sleep(Duration::from_millis(500));
            let at = started.load(Ordering::Relaxed);
            let running = epoch.elapsed().as_millis() as u64 - at;
            if at != 0 && running > limit.as_millis() as u64 {
                let input = std::fs::read(&current).unwrap_or_default();
                let path = save(&hangs, target, &input);
                println!(
                    "fuzz {target}: hang {} (stopped after {running} ms)",
                    path.display()
                );
                std::process::exit(3);
            }
        });
        watch
    }

    fn before(&self, input: &[u8], inputs: u64) {
        let _ = std::fs::write(&self.current, input);
        if inputs.is_multiple_of(1000) {
            let _ = std::fs::write(&self.progress, inputs.to_string());
        }
        let now = self.epoch.elapsed().as_millis() as u64;
        self.started.store(now.max(1), Ordering::Relaxed);
    }

    fn after(&self) {
        self.started.store(0, Ordering::Relaxed);
    }
}

/// A hash that is the same in every run (std's SipHash with its fixed keys).
fn hash(bytes: &[u8]) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::hash::DefaultHasher::new();
    bytes.hash(&mut h);
    h.finish()
}

/// Saves `input` as `dir/target/HASH` and returns the path.
pub fn save(dir: &Path, target: &str, input: &[u8]) -> PathBuf {
    let dir = dir.join(target);
    let _ = std::fs::create_dir_all(&dir);
    let path = dir.join(format!("{:016x}", hash(input)));
    let _ = std::fs::write(&path, input);
    path
}

/// The regression inputs of `target` in `regressions/DIR/TARGET/` (`DIR` is `fixed` or
/// `pending`), each run on the binary's stack: the names of those that panic or take longer
/// than the hang limit, with what went wrong.
pub fn replay(dir: &str, target: &'static Target) -> Vec<String> {
    let root = targets::workspace()
        .join("crates/rvmon-fuzz/regressions")
        .join(dir)
        .join(target.name);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&root)
        .map(|d| d.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    files.sort();
    let limit = Settings::long().hang;
    files
        .into_iter()
        .filter_map(|f| {
            let input = std::fs::read(&f).expect("a regression input");
            let start = Instant::now();
            let failed = match on_big_stack(|| (target.run)(&input)) {
                Err(_) => "panics".to_string(),
                Ok(_) if start.elapsed() > limit => {
                    format!("takes {:.1} s", start.elapsed().as_secs_f64())
                }
                Ok(_) => return None,
            };
            Some(format!("{}: {failed}", f.display()))
        })
        .collect()
}
