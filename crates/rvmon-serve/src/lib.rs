//! `rvmon serve SPEC --state-dir DIR`: the online service. Production systems POST their
//! events to a named stream; each stream has its own monitor of SPEC, built by the front
//! door, and its own durable logs (see [`stream`]), so the service goes on after a crash or
//! a `kill -9` from where it was, without losing an acknowledged event or a verdict, or
//! writing one twice.
//!
//! Threads: the HTTP side runs on tokio (axum); each stream's monitor lives on a thread of
//! its own (an engine is not `Send`, and a stream's batches are monitored in order), fed
//! jobs through a channel; an HTTP handler waits for its job's answer without blocking the
//! runtime.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicU64;
use std::sync::{mpsc, Arc, Mutex};

use rvmon_core::{Error, Interner};

mod engine;
mod http;
mod snapshot;
pub mod stream;
pub mod wal;

use stream::{Refusal, Spec, Stream};

/// `rvmon serve`'s options.
#[derive(clap::Args, Debug, Clone)]
pub struct ServeArgs {
    /// The specification every stream is monitored against: a temporal formula (`.mtl`,
    /// `.mfotl`, `.ltl`), parametric properties (`.rvm`), whose events come as MonPoly log
    /// lines or JSON Lines, or a stream specification (`.lola`) or STL formula (`.stl`),
    /// whose events come as JSON Lines (an object a time point, a value per input).
    pub spec: String,
    /// A MonPoly signature file (first-order formulas).
    #[arg(long)]
    pub sig: Option<String>,
    /// The spec language when the extension does not say.
    #[arg(long)]
    pub lang: Option<String>,
    /// The address to listen on: loopback only (another address would need client tokens,
    /// which this version does not have).
    #[arg(long, default_value = "127.0.0.1:7878")]
    pub listen: String,
    /// Where the streams' logs are kept; a restart with the same directory resumes every
    /// stream where it was. One directory serves one specification.
    #[arg(long, value_name = "DIR")]
    pub state_dir: String,
    /// The largest request body, in bytes; a larger batch is refused (413).
    #[arg(long, default_value_t = 16 << 20)]
    pub max_body: usize,
    /// The most streams the service keeps (each has a monitor and a thread); a new stream
    /// beyond them is refused (503).
    #[arg(long, default_value_t = 64)]
    pub max_streams: usize,
    /// Save each stream's monitor every this many time points and start its write-ahead log
    /// afresh, so that a restart replays only what came since (0: never; a parametric
    /// specification, whose engine cannot save its state yet, always replays the whole log).
    #[arg(long, default_value_t = 100_000)]
    pub snapshot_every: u64,
}

/// A job for a stream's thread.
type Job = Box<dyn FnOnce(&mut Stream) + Send>;

/// What the service holds of a running stream: its thread's inbox, and the number of its
/// last verdict and whether it is closed, as they change (what live readers wait on).
#[derive(Clone)]
pub(crate) struct Handle {
    jobs: mpsc::Sender<Job>,
    pub(crate) verdicts: tokio::sync::watch::Receiver<(u64, bool)>,
}

/// The streams, and what the service counts.
pub(crate) struct Registry {
    spec: Spec,
    snapshot_every: Option<u64>,
    dir: PathBuf,
    pub(crate) streams: Mutex<HashMap<String, Handle>>,
    max_streams: usize,
    pub(crate) batches: AtomicU64,
    pub(crate) refused: AtomicU64,
}

impl Registry {
    pub(crate) fn stream_dir(&self, name: &str) -> PathBuf {
        self.dir.join("streams").join(name)
    }

    /// Whether `name` is a stream's name: letters, digits, `_`, `-` and `.`, at most 64
    /// (it names a directory).
    pub(crate) fn valid_name(name: &str) -> bool {
        (1..=64).contains(&name.len())
            && name != "."
            && name != ".."
            && name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
    }

    /// Whether the stream `name` has ever been written.
    pub(crate) fn exists(&self, name: &str) -> bool {
        self.streams
            .lock()
            .expect("no panic holds it")
            .contains_key(name)
            || self.stream_dir(name).is_dir()
    }

    /// Runs `job` on the stream `name`'s thread (opening the stream, or making it when
    /// `create`), and waits for its answer.
    pub(crate) async fn on_stream<T: Send + 'static>(
        &self,
        name: &str,
        create: bool,
        job: impl FnOnce(&mut Stream) -> T + Send + 'static,
    ) -> Result<T, Refusal> {
        let handle = self.handle(name, create)?;
        let (tx, rx) = tokio::sync::oneshot::channel();
        let job: Job = Box::new(move |s| {
            let _ = tx.send(job(s));
        });
        let gone = || Refusal {
            status: 500,
            message: format!("the stream `{name}` stopped (see the service's log)"),
        };
        handle.jobs.send(job).map_err(|_| gone())?;
        rx.await.map_err(|_| gone())
    }

    /// The running stream `name` (started if it is kept but not running, or made if new and
    /// `create`).
    pub(crate) fn handle(&self, name: &str, create: bool) -> Result<Handle, Refusal> {
        let mut streams = self.streams.lock().expect("no panic holds it");
        if let Some(s) = streams.get(name) {
            return Ok(s.clone());
        }
        if !create && !self.stream_dir(name).is_dir() {
            return Err(Refusal {
                status: 404,
                message: format!("no stream `{name}`"),
            });
        }
        if streams.len() >= self.max_streams {
            return Err(Refusal {
                status: 503,
                message: format!("the service keeps at most {} streams", self.max_streams),
            });
        }
        let handle = start_stream(
            self.stream_dir(name),
            self.spec.clone(),
            self.snapshot_every,
            name,
        )
        .map_err(Refusal::from)?;
        streams.insert(name.to_string(), handle.clone());
        Ok(handle)
    }
}

/// Starts the thread of the stream kept in `dir` (its replay done before this returns).
fn start_stream(
    dir: PathBuf,
    spec: Spec,
    snapshot_every: Option<u64>,
    name: &str,
) -> Result<Handle, Error> {
    let (jobs, inbox) = mpsc::channel::<Job>();
    let (opened_tx, opened) = mpsc::channel();
    let (notify, verdicts) = tokio::sync::watch::channel((0, false));
    std::thread::Builder::new()
        .name(format!("stream-{name}"))
        .spawn(move || {
            let mut stream = match Stream::open(&dir, &spec, snapshot_every) {
                Ok(s) => {
                    let _ = opened_tx.send(Ok(()));
                    s.notifying(notify)
                }
                Err(e) => {
                    let _ = opened_tx.send(Err(e));
                    return;
                }
            };
            for job in inbox {
                job(&mut stream);
            }
        })
        .map_err(|e| Error::msg(format!("cannot start a stream's thread: {e}")))?;
    opened
        .recv()
        .map_err(|_| Error::msg(format!("the stream `{name}` failed to open")))??;
    Ok(Handle { jobs, verdicts })
}

/// Runs the service until the process is stopped. Errors before it serves (a bad spec, an
/// address that is not loopback, a state directory of another spec) are returned.
pub fn run(args: &ServeArgs, err: &mut dyn std::io::Write) -> Result<i32, Error> {
    let addr: SocketAddr = args.listen.parse().map_err(|_| {
        Error::msg(format!(
            "--listen {}: expected an address and a port, such as 127.0.0.1:7878",
            args.listen
        ))
    })?;
    if !addr.ip().is_loopback() {
        return Err(Error::msg(format!(
            "--listen {addr}: not a loopback address; serving other hosts needs client tokens \
             (--token-file), which this version does not have"
        )));
    }
    let spec = Spec {
        name: args.spec.clone(),
        text: rvmon::read_file(&args.spec)?,
        lang: args.lang.clone(),
        sig: rvmon::read_signature(args.sig.as_deref())?,
    };
    // (The spec is checked before anything is served.)
    spec.engine(&mut Interner::new())?;
    let dir = PathBuf::from(&args.state_dir);
    claim_state_dir(&dir, &spec)?;
    let registry = Arc::new(Registry {
        spec,
        snapshot_every: Some(args.snapshot_every).filter(|&n| n > 0),
        dir: dir.clone(),
        streams: Mutex::new(HashMap::new()),
        max_streams: args.max_streams,
        batches: AtomicU64::new(0),
        refused: AtomicU64::new(0),
    });
    // Every stream kept is replayed before the service answers.
    let resumed = resume_streams(&registry, &dir)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| Error::msg(format!("cannot start the runtime: {e}")))?;
    runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind(addr)
            .await
            .map_err(|e| Error::msg(format!("--listen {addr}: {e}")))?;
        let local = listener
            .local_addr()
            .map_err(|e| Error::msg(e.to_string()))?;
        writeln!(
            err,
            "rvmon: serving {} on http://{local} (state in {}, {resumed} stream(s) resumed)",
            args.spec,
            dir.display()
        )?;
        err.flush()?;
        let app = http::router(registry, args.max_body);
        axum::serve(listener, app)
            .await
            .map_err(|e| Error::msg(format!("the server stopped: {e}")))
    })?;
    Ok(0)
}

/// Records in `dir` which specification it serves, or refuses a directory of another one.
fn claim_state_dir(dir: &Path, spec: &Spec) -> Result<(), Error> {
    std::fs::create_dir_all(dir.join("streams"))
        .map_err(|e| Error::file(&dir.display().to_string(), &e))?;
    let mark = dir.join("spec");
    let text = format!("{}\n{:?}\n{}", spec.name, spec.lang, spec.text);
    match std::fs::read_to_string(&mark) {
        Ok(old) if old == text => Ok(()),
        Ok(_) => Err(Error::msg(format!(
            "--state-dir {}: it holds the streams of another specification (see its `spec` \
             file); use another directory",
            dir.display()
        ))),
        Err(_) => {
            std::fs::write(&mark, text).map_err(|e| Error::file(&mark.display().to_string(), &e))
        }
    }
}

/// Opens (replays) every stream kept in `dir`; how many.
fn resume_streams(registry: &Registry, dir: &Path) -> Result<usize, Error> {
    let entries = std::fs::read_dir(dir.join("streams"))
        .map_err(|e| Error::file(&dir.display().to_string(), &e))?;
    let mut n = 0;
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if Registry::valid_name(&name) && entry.path().is_dir() {
            registry
                .handle(&name, false)
                .map_err(|r| Error::msg(format!("stream `{name}`: {}", r.message)))?;
            n += 1;
        }
    }
    Ok(n)
}
