use std::io::Write;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use rvmon_cli::{check_cmd, gen_cmd, monpoly_cmd};

mod alloc;

/// PERF: the engines allocate and free many small tuples and grow large hash tables; glibc's
/// allocator spent 15–20 % of a first-order run consolidating and unlinking chunks.
#[global_allocator]
static GLOBAL: alloc::MiMalloc = alloc::MiMalloc;

#[derive(Parser)]
#[command(
    name = "rvmon",
    version,
    about = "Runtime verification of logs and live event streams"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Check a trace against a specification; report the time points that violate it.
    Check(Box<check_cmd::CheckArgs>),
    /// MonPoly's command line: -sig S -formula F -log L [-negate] [-verbose] [-nonewlastts] ...
    #[command(disable_help_flag = true)]
    Monpoly {
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
    /// Serve the online monitor over HTTP: streams of events in, verdicts out, durable
    /// across restarts and crashes (see `rvmon serve --help`).
    Serve(Box<rvmon_serve::ServeArgs>),
    /// Generate benchmark workloads.
    Gen(gen_cmd::GenArgs),
    /// Learn a system's automaton from queries (paper 26: TTT; also L* and
    /// Kearns–Vazirani): an automaton file, a program, or a specification.
    Learn(Box<rvmon::learn::LearnArgs>),
    /// Statistical model checking (paper 28): learn a Markov chain from sequences
    /// (AAlergia), a property's probability exactly and by simulation (PESTIM, SPRT).
    Smc(Box<rvmon::smc::SmcArgs>),
}

/// The stack of every thread that walks a specification: the command's own thread, and the
/// worker and reader threads of a parallel run (through `RUST_MIN_STACK`, which the threads
/// timely-dataflow starts follow). The parsers stop nesting at 1000 levels; the deepest pass
/// at that depth, the first-order compiler after MonPoly's normalisation (`PAST_ALWAYS φ` is
/// `NOT ONCE NOT φ`), takes about 6.3 KiB a level in a release build, 6.3 MiB in all
/// (ARCHITECTURE.md, "Limits"): 32 MiB leaves room for a debug build's larger frames. It is
/// address space, not memory: a stack's pages are touched only as it grows.
const STACK: usize = 32 << 20;

fn main() -> ExitCode {
    if std::env::var_os("RUST_MIN_STACK").is_none() {
        // Before any thread starts: the standard library reads it once, at the first.
        std::env::set_var("RUST_MIN_STACK", STACK.to_string());
    }
    let command = std::thread::Builder::new()
        .name("rvmon".into())
        .stack_size(STACK)
        .spawn(run);
    match command.map(std::thread::JoinHandle::join) {
        Ok(Ok(code)) => code,
        // The panic has been reported by the panic hook, as on the main thread.
        Ok(Err(_)) => ExitCode::from(101),
        Err(e) => {
            let _ = writeln!(std::io::stderr(), "rvmon: error: cannot start: {e}");
            ExitCode::from(2)
        }
    }
}

fn run() -> ExitCode {
    rvmon::PROCESS_ENDS_AFTER_RUN.store(true, std::sync::atomic::Ordering::Relaxed);
    let cli = Cli::parse();
    let stdout = std::io::stdout();
    let stderr = std::io::stderr();
    let result = match cli.command {
        // Buffered: every command flushes after each verdict when it reads a pipe (online),
        // and before it reports a bad input. Not locked for the whole run: a parallel run's
        // worker threads may have to report a failure on standard error themselves.
        Command::Check(args) => check_cmd::run(
            &args,
            &mut std::io::BufWriter::with_capacity(1 << 16, std::io::stdout()),
            &mut std::io::stderr(),
        ),
        Command::Monpoly { args } => monpoly_cmd::MonpolyArgs::parse(&args).and_then(|a| {
            monpoly_cmd::run(
                &a,
                &mut std::io::BufWriter::new(stdout.lock()),
                &mut stderr.lock(),
            )
        }),
        Command::Gen(args) => gen_cmd::run(&args, &mut std::io::BufWriter::new(stdout.lock())),
        Command::Learn(args) => rvmon::learn::run(&args, &mut stdout.lock()),
        Command::Smc(args) => rvmon::smc::run(&args, &mut std::io::BufWriter::new(stdout.lock())),
        Command::Serve(args) => rvmon_serve::run(&args, &mut std::io::stderr()),
    };
    match result {
        Ok(code) => ExitCode::from(code as u8),
        // A closed pipe (`rvmon gen … | head`) is the reader's choice, not an error.
        Err(e) if e.message.contains("Broken pipe") => ExitCode::SUCCESS,
        Err(e) => {
            let _ = std::io::stdout().flush();
            let _ = writeln!(stderr.lock(), "rvmon: error: {e}");
            ExitCode::from(2)
        }
    }
}
