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
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{mpsc, Arc, Mutex};

use rvmon_core::{Error, Interner};

pub mod access;
mod engine;
mod http;
mod snapshot;
pub mod stream;
pub mod wal;

use access::Policy;
use stream::{refuse, Enforce, Gauges, Options, Refusal, Spec, Stream};

/// `rvmon serve`'s options.
#[derive(clap::Args, Debug, Clone)]
pub struct ServeArgs {
    /// The specification every stream is monitored against: a temporal formula (`.mtl`,
    /// `.mfotl`, `.ltl`), parametric properties (`.rvm`), whose events come as MonPoly log
    /// lines or JSON Lines, or a stream specification (`.lola`), STL formula (`.stl`), R2U2
    /// specification (`.mltl`, `.c2po`) or ModelPlex conditions (`.modelplex`), whose events
    /// come as JSON Lines (an object a time point, a value per input).
    pub spec: String,
    /// A MonPoly signature file (first-order formulas).
    #[arg(long)]
    pub sig: Option<String>,
    /// The spec language when the extension does not say.
    #[arg(long)]
    pub lang: Option<String>,
    /// The address to listen on. Loopback unless --token-file is given: another address
    /// serves other hosts, whose requests then need a client token.
    #[arg(long, default_value = "127.0.0.1:7878")]
    pub listen: String,
    /// Client tokens and access control (paper 20's policy file, tokens for hosts): an INI
    /// file with [Tokens] (client = secret, sent as `Authorization: Bearer <secret>`),
    /// [Groups], [Events] (event name = the clients that may send it) and [Commands] (events,
    /// status, close, verdicts, metrics = the clients that may ask). `localhost` is a
    /// request from loopback without a token; `*` is everyone.
    #[arg(long, value_name = "FILE")]
    pub token_file: Option<String>,
    /// Refuse (409, with the verdict) a batch with a time point whose verdict would be a
    /// violation (or a stream specification's trigger), before it enters the stream. Needs
    /// a specification that decides each time point at once: past-time formulas, stream
    /// specifications without future offsets, signal formulas without future operators.
    #[arg(long)]
    pub enforce: bool,
    /// With --enforce: rather than refuse, take these events out of a time point that would
    /// be a violation, if that makes it none (paper 20's monitors that drop a message).
    /// Comma-separated event names; the reply lists what was taken out.
    #[arg(
        long,
        value_name = "NAMES",
        value_delimiter = ',',
        requires = "enforce"
    )]
    pub drop: Vec<String>,
    /// Let time points come out of time order, up to this much earlier than the newest so
    /// far (in the trace's time unit: time stamps, or seconds for JSON Lines events of
    /// `.lola`/`.stl`); they are monitored in time order once the watermark (the newest time
    /// minus this) passes them. A time point later than that is refused (409). Each batch is
    /// in time order; batches from several sources interleave (`?source=NAME`).
    #[arg(long, value_name = "T", default_value_t = 0.0)]
    pub max_lateness: f64,
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
    /// The most requests that may wait for one stream (each holds its body); more are
    /// refused (503, with Retry-After), so a burst cannot take unbounded memory.
    #[arg(long, default_value_t = 32)]
    pub max_queue: u64,
    /// Save each stream's monitor every this many time points and start its write-ahead log
    /// afresh, so that a restart replays only what came since (0: never; a parametric
    /// specification, whose engine cannot save its state yet, always replays the whole log).
    #[arg(long, default_value_t = 100_000)]
    pub snapshot_every: u64,
}

/// A job for a stream's thread.
type Job = Box<dyn FnOnce(&mut Stream) + Send>;

/// What the service holds of a running stream: its thread's inbox, and the number of its
/// last verdict and whether it is closed, as they change (what live readers wait on); its
/// gauges, for `/metrics`.
#[derive(Clone)]
pub(crate) struct Handle {
    jobs: mpsc::Sender<Job>,
    pub(crate) verdicts: tokio::sync::watch::Receiver<(u64, bool)>,
    pub(crate) gauges: Arc<Gauges>,
}

/// The streams, and what the service counts.
pub(crate) struct Registry {
    spec: Spec,
    options: Options,
    /// Who may ask what (`--token-file`); `None`: everyone on loopback may ask anything.
    pub(crate) policy: Option<Arc<Policy>>,
    dir: PathBuf,
    pub(crate) streams: Mutex<HashMap<String, Handle>>,
    max_streams: usize,
    /// The most requests waiting for one stream's thread; more are refused (503).
    max_queue: u64,
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
        let queued = &handle.gauges.queued;
        if queued.load(Ordering::Relaxed) >= self.max_queue {
            return Err(refuse(
                503,
                format!(
                    "the stream `{name}` has {} requests waiting (--max-queue): come back \
                     later",
                    self.max_queue
                ),
            ));
        }
        queued.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = tokio::sync::oneshot::channel();
        let gauges = handle.gauges.clone();
        let job: Job = Box::new(move |s| {
            gauges.queued.fetch_sub(1, Ordering::Relaxed);
            let _ = tx.send(job(s));
        });
        let gone = || {
            refuse(
                500,
                format!("the stream `{name}` stopped (see the service's log)"),
            )
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
            return Err(refuse(404, format!("no stream `{name}`")));
        }
        if streams.len() >= self.max_streams {
            let full = format!("the service keeps at most {} streams", self.max_streams);
            return Err(refuse(503, full));
        }
        let handle = start_stream(
            self.stream_dir(name),
            self.spec.clone(),
            self.options.clone(),
            name,
        )
        .map_err(Refusal::from)?;
        streams.insert(name.to_string(), handle.clone());
        Ok(handle)
    }
}

/// Starts the thread of the stream kept in `dir` (its replay done before this returns).
fn start_stream(dir: PathBuf, spec: Spec, options: Options, name: &str) -> Result<Handle, Error> {
    let (jobs, inbox) = mpsc::channel::<Job>();
    let (opened_tx, opened) = mpsc::channel();
    let (notify, verdicts) = tokio::sync::watch::channel((0, false));
    let gauges = Arc::new(Gauges::default());
    let stream_gauges = gauges.clone();
    std::thread::Builder::new()
        .name(format!("stream-{name}"))
        .spawn(move || {
            let mut stream = match Stream::open(&dir, &spec, &options) {
                Ok(s) => {
                    let _ = opened_tx.send(Ok(()));
                    s.notifying(notify).gauged(stream_gauges)
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
    Ok(Handle {
        jobs,
        verdicts,
        gauges,
    })
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
    let policy = match &args.token_file {
        Some(path) => Some(Arc::new(Policy::parse(path, &rvmon::read_file(path)?)?)),
        None if !addr.ip().is_loopback() => {
            return Err(Error::msg(format!(
                "--listen {addr}: not a loopback address; serving other hosts needs client \
                 tokens: give a --token-file"
            )))
        }
        None => None,
    };
    let spec = Spec {
        name: args.spec.clone(),
        text: rvmon::read_file(&args.spec)?,
        lang: args.lang.clone(),
        sig: rvmon::read_signature(args.sig.as_deref())?,
    };
    let options = Options {
        snapshot_every: Some(args.snapshot_every).filter(|&n| n > 0),
        max_lateness: args.max_lateness,
        enforce: args.enforce.then(|| Enforce {
            drop: args.drop.clone(),
        }),
    };
    // (The spec and the options are checked before anything is served.)
    check_options(&spec, &options)?;
    let dir = PathBuf::from(&args.state_dir);
    claim_state_dir(&dir, &spec)?;
    let registry = Arc::new(Registry {
        spec,
        options,
        policy,
        dir: dir.clone(),
        streams: Mutex::new(HashMap::new()),
        max_streams: args.max_streams,
        max_queue: args.max_queue.max(1),
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
        // (The peer's address tells a loopback client without a token.)
        axum::serve(
            listener,
            app.into_make_service_with_connect_info::<SocketAddr>(),
        )
        .await
        .map_err(|e| Error::msg(format!("the server stopped: {e}")))
    })?;
    Ok(0)
}

/// Refuses options the specification cannot honour: enforcement of a specification whose
/// verdicts may come after their time point, or whose monitor cannot be put back as it was;
/// `--drop` without events to drop; enforcement of events that wait for a watermark.
fn check_options(spec: &Spec, options: &Options) -> Result<(), Error> {
    let engine = spec.engine(&mut Interner::new())?;
    engine.lateness(options.max_lateness)?;
    let Some(enforce) = &options.enforce else {
        return Ok(());
    };
    if !engine.decides_at_once() {
        return Err(Error::msg(format!(
            "--enforce: {} decides some verdicts only after later time points (it has future \
             operators or offsets), so a time point cannot be refused when it comes; enforce \
             a past-time specification",
            spec.name
        )));
    }
    if let Err(e) = engine.snapshot() {
        return Err(Error::msg(format!(
            "--enforce needs to put the monitor back as it was before a refused batch: {e}"
        )));
    }
    if options.max_lateness > 0.0 {
        return Err(Error::msg(
            "--enforce decides each time point as it comes, so it cannot wait for a watermark: \
             --enforce and --max-lateness exclude each other",
        ));
    }
    if !enforce.drop.is_empty() && !engine.takes_points() {
        return Err(Error::msg(format!(
            "--drop takes named events out of a time point; {} is fed a value per input",
            spec.name
        )));
    }
    Ok(())
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
