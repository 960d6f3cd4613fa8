//! Reading what a run needs: spec and signature files, the trace's source and format, and
//! the notes every run writes on its way (positions as timestamps, an empty trace).

use rvmon_core::Error;

/// Set by the `rvmon` binary: its process ends after the command, so a run's monitor state
/// need not be freed piece by piece (millions of bindings take up to 0.05 s per property).
/// Library callers, such as the tests, leave it unset and free normally.
pub static PROCESS_ENDS_AFTER_RUN: std::sync::atomic::AtomicBool =
    std::sync::atomic::AtomicBool::new(false);

/// Drops `state`, or leaves it to the process's end (see [`PROCESS_ENDS_AFTER_RUN`]).
pub fn release<T>(state: T) {
    if PROCESS_ENDS_AFTER_RUN.load(std::sync::atomic::Ordering::Relaxed) {
        std::mem::forget(state);
    }
}

/// A spec, signature or other text file; bytes that are not UTF-8 are an error at their line
/// and column.
pub fn read_file(path: &str) -> Result<String, Error> {
    rvmon_core::text::read_text_file(path)
}

/// The trace to read: the file `path`, or standard input (with a hint on a terminal).
pub fn open_trace(
    path: Option<&str>,
    err: &mut dyn std::io::Write,
) -> Result<Box<dyn std::io::BufRead>, Error> {
    use std::io::IsTerminal;
    Ok(match path {
        Some(p) => Box::new(std::io::BufReader::with_capacity(
            1 << 16,
            std::fs::File::open(p).map_err(|e| Error::file(p, &e))?,
        )),
        None => {
            if std::io::stdin().is_terminal() {
                writeln!(
                    err,
                    "rvmon: reading the trace from standard input (end with Ctrl-D)"
                )?;
            }
            Box::new(std::io::BufReader::new(std::io::stdin()))
        }
    })
}

/// The trace's format: `--format`, else the file's extension, else (standard input) MonPoly's.
/// A file that does not exist is named as such before any question of its format.
pub fn trace_format(
    given: Option<rvmon_trace::TraceFormat>,
    path: Option<&str>,
) -> Result<rvmon_trace::TraceFormat, Error> {
    match (given, path) {
        (Some(f), _) => Ok(f),
        (None, Some(p)) => {
            if let Some(f) = rvmon_trace::TraceFormat::from_path(std::path::Path::new(p)) {
                // A MonPoly log under another format's extension would be read as that format:
                // its lines as events no formula names, and no verdict, silently.
                if f != rvmon_trace::TraceFormat::Monpoly && starts_like_a_monpoly_log(p) {
                    let name = format!("{f:?}").to_lowercase();
                    return Err(Error::msg(format!(
                        "{p}: its extension says {name}, but its first line starts with `@`, \
                         as a MonPoly log's: name it .log, or say --format monpoly (or \
                         --format {name} to read it as {name} all the same)"
                    )));
                }
                return Ok(f);
            }
            match std::fs::metadata(p) {
                Err(e) => Err(Error::file(p, &e)),
                // A MonPoly log is recognised by its content: its first non-blank line starts
                // with `@` (no other format rvmon reads can start so).
                Ok(_) if starts_like_a_monpoly_log(p) => Ok(rvmon_trace::TraceFormat::Monpoly),
                Ok(_) => Err(Error::msg(format!(
                    "{p}: cannot tell the trace format from the extension or the content; use --format"
                ))),
            }
        }
        (None, None) => Ok(rvmon_trace::TraceFormat::Monpoly),
    }
}

/// Whether the first line of the file at `path` that is neither blank nor a `#` comment
/// starts with `@` (read: at most 64 KiB).
fn starts_like_a_monpoly_log(path: &str) -> bool {
    use std::io::Read;
    let mut head = Vec::new();
    let read = std::fs::File::open(path).and_then(|f| f.take(64 * 1024).read_to_end(&mut head));
    read.is_ok()
        && head
            .split(|&b| b == b'\n')
            .map(|l| l.trim_ascii())
            .find(|l| !l.is_empty() && !l.starts_with(b"#"))
            .is_some_and(|l| l.starts_with(b"@"))
}

/// The signature of `--sig`, if given.
pub fn read_signature(path: Option<&str>) -> Result<Option<rvmon_trace::Signature>, Error> {
    path.map(|p| rvmon_trace::Signature::parse(p, &read_file(p)?))
        .transpose()
}

/// The next time point of `reader`. On a bad one, `out` is flushed first, so every verdict
/// decided before it has been written when the error is reported. After the first one, says
/// on `err` if the trace's events have no time, so that their positions are the timestamps.
pub fn next_time_point(
    reader: &mut dyn rvmon_trace::TraceReader,
    tp: &mut rvmon_core::TimePoint,
    out: &mut dyn std::io::Write,
    err: &mut dyn std::io::Write,
) -> Result<bool, Error> {
    let more = reader.next_time_point(tp).inspect_err(|_| {
        let _ = out.flush();
    })?;
    // (Readers that may say so number their time points from 0.)
    if more && tp.index == 0 && reader.positions_as_timestamps() {
        note_positions(err)?;
    }
    Ok(more)
}

/// Says that event positions are the timestamps (see [`next_time_point`]).
pub fn note_positions(err: &mut dyn std::io::Write) -> Result<(), Error> {
    writeln!(err, "rvmon: note: {}", rvmon_core::POSITIONS_AS_TIMESTAMPS)?;
    Ok(())
}

/// The end of a run over a trace of `time_points` time points: a trace without any passes
/// (nothing is violated), but that is seldom what was meant, so it is said.
pub fn warn_if_empty(time_points: u64, err: &mut dyn std::io::Write) -> Result<(), Error> {
    if time_points == 0 {
        writeln!(err, "rvmon: warning: the trace has no time points")?;
    }
    Ok(())
}
