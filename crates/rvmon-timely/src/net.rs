//! Connecting the processes of a cluster.
//!
//! timely connects processes itself, but prints its progress ("awaiting connections",
//! "error connecting … retrying") on standard output, where rvmon writes verdicts, and waits
//! forever for a process that never starts. rvmon makes the connections itself and hands the
//! sockets to timely: process `i` connects to every `j < i` and sends its index and the job's
//! fingerprint (big-endian u64s); it accepts every `j > i` and checks both, so that processes
//! started with different formulas or slicing fail at once instead of slicing inconsistently.
//! Every wait has a deadline.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream, ToSocketAddrs};
use std::time::{Duration, Instant};

use rvmon_core::Error;

/// Sockets to every other process, by process index (`None` at `me`).
pub fn connect(
    addresses: &[String],
    me: usize,
    deadline: Duration,
    fingerprint: u64,
) -> Result<Vec<Option<TcpStream>>, Error> {
    let until = Instant::now() + deadline;
    let fail = |what: String| Error::msg(format!("process {me}: {what}"));
    let listener = TcpListener::bind(addresses[me].as_str())
        .map_err(|e| fail(format!("cannot listen on {}: {e}", addresses[me])))?;
    let mut sockets: Vec<Option<TcpStream>> = (0..addresses.len()).map(|_| None).collect();
    for (j, address) in addresses.iter().enumerate().take(me) {
        let target = address
            .to_socket_addrs()
            .ok()
            .and_then(|mut a| a.next())
            .ok_or_else(|| {
                fail(format!(
                    "cannot resolve the address of process {j}: {address}"
                ))
            })?;
        let mut stream = loop {
            let left = until.saturating_duration_since(Instant::now());
            match TcpStream::connect_timeout(&target, left.max(Duration::from_millis(10))) {
                Ok(s) => break s,
                Err(_) if Instant::now() < until => std::thread::sleep(Duration::from_millis(50)),
                Err(e) => {
                    return Err(fail(format!(
                        "could not reach process {j} at {address} within {} s: {e}",
                        deadline.as_secs()
                    )))
                }
            }
        };
        let mut hello = (me as u64).to_be_bytes().to_vec();
        hello.extend(fingerprint.to_be_bytes());
        stream
            .set_nodelay(true)
            .and_then(|_| stream.write_all(&hello))
            .map_err(|e| fail(format!("handshake with process {j}: {e}")))?;
        sockets[j] = Some(stream);
    }
    listener
        .set_nonblocking(true)
        .map_err(|e| fail(e.to_string()))?;
    while sockets[me + 1..].iter().any(Option::is_none) {
        match listener.accept() {
            Ok((mut stream, _)) => {
                let mut hello = [0u8; 16];
                stream
                    .set_nonblocking(false)
                    .and_then(|_| stream.set_nodelay(true))
                    .and_then(|_| stream.set_read_timeout(Some(Duration::from_secs(10))))
                    .and_then(|_| stream.read_exact(&mut hello))
                    .and_then(|_| stream.set_read_timeout(None))
                    .map_err(|e| fail(format!("handshake: {e}")))?;
                let j = u64::from_be_bytes(hello[..8].try_into().expect("8 bytes")) as usize;
                let theirs = u64::from_be_bytes(hello[8..].try_into().expect("8 bytes"));
                if j <= me || j >= addresses.len() || sockets[j].is_some() {
                    return Err(fail(format!("unexpected connection from process {j}")));
                }
                if theirs != fingerprint {
                    return Err(fail(format!(
                        "process {j} runs another job (formula, signature, slicing or --workers differ)"
                    )));
                }
                sockets[j] = Some(stream);
            }
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                if Instant::now() >= until {
                    let missing: Vec<String> = (me + 1..addresses.len())
                        .filter(|&j| sockets[j].is_none())
                        .map(|j| j.to_string())
                        .collect();
                    return Err(fail(format!(
                        "process(es) {} did not connect within {} s",
                        missing.join(", "),
                        deadline.as_secs()
                    )));
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            Err(e) => return Err(fail(format!("accept: {e}"))),
        }
    }
    Ok(sockets)
}
