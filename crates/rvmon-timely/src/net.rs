//! Connecting the processes of a cluster.
//!
//! timely connects processes itself, but prints its progress ("awaiting connections",
//! "error connecting … retrying") on standard output, where rvmon writes verdicts, and waits
//! forever for a process that never starts. rvmon makes the connections itself, with timely's
//! handshake (process `i` connects to every `j < i` and sends its index as a big-endian u64;
//! it accepts every `j > i`), quietly and with a deadline, and hands the sockets to timely.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::time::{Duration, Instant};

use rvmon_core::Error;

/// Sockets to every other process, by process index (`None` at `me`).
pub fn connect(
    addresses: &[String],
    me: usize,
    deadline: Duration,
) -> Result<Vec<Option<TcpStream>>, Error> {
    let until = Instant::now() + deadline;
    let listener = TcpListener::bind(addresses[me].as_str()).map_err(|e| {
        Error::msg(format!(
            "process {me} cannot listen on {}: {e}",
            addresses[me]
        ))
    })?;
    let mut sockets: Vec<Option<TcpStream>> = (0..addresses.len()).map(|_| None).collect();
    for (j, address) in addresses.iter().enumerate().take(me) {
        let mut stream = loop {
            match TcpStream::connect(address.as_str()) {
                Ok(s) => break s,
                Err(e) if Instant::now() < until => {
                    let _ = e;
                    std::thread::sleep(Duration::from_millis(50));
                }
                Err(e) => {
                    return Err(Error::msg(format!(
                        "process {me} could not reach process {j} at {address} within {} s: {e}",
                        deadline.as_secs()
                    )))
                }
            }
        };
        stream
            .set_nodelay(true)
            .and_then(|_| stream.write_all(&(me as u64).to_be_bytes()))
            .map_err(|e| Error::msg(format!("process {me}: handshake with process {j}: {e}")))?;
        sockets[j] = Some(stream);
    }
    listener
        .set_nonblocking(true)
        .map_err(|e| Error::msg(format!("process {me}: {e}")))?;
    while sockets[me + 1..].iter().any(Option::is_none) {
        match listener.accept() {
            Ok((mut stream, _)) => {
                let mut id = [0u8; 8];
                stream
                    .set_nonblocking(false)
                    .and_then(|_| stream.set_nodelay(true))
                    .and_then(|_| stream.read_exact(&mut id))
                    .map_err(|e| Error::msg(format!("process {me}: handshake: {e}")))?;
                let j = u64::from_be_bytes(id) as usize;
                if j <= me || j >= addresses.len() || sockets[j].is_some() {
                    return Err(Error::msg(format!(
                        "process {me}: unexpected connection from process {j}"
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
                    return Err(Error::msg(format!(
                        "process {me}: process(es) {} did not connect within {} s",
                        missing.join(", "),
                        deadline.as_secs()
                    )));
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            Err(e) => return Err(Error::msg(format!("process {me}: accept: {e}"))),
        }
    }
    Ok(sockets)
}
