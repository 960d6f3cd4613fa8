//! A test client for `rvmon serve`: one HTTP/1.1 request a connection, on loopback, with
//! timeouts (the tests are bounded in time). Test code only: the service itself uses axum.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

/// A response: its status and body.
#[derive(Debug)]
pub struct Response {
    pub status: u16,
    pub body: String,
}

/// Sends `method path` with `body` (of content type `kind`) to `addr` (`127.0.0.1:port`)
/// and reads the whole response.
pub fn request_as(
    addr: &str,
    method: &str,
    path: &str,
    kind: &str,
    body: &[u8],
) -> std::io::Result<Response> {
    request_with(addr, method, path, kind, &[], body)
}

/// [`request_as`] with more header lines (`Authorization: Bearer …`).
pub fn request_with(
    addr: &str,
    method: &str,
    path: &str,
    kind: &str,
    headers: &[&str],
    body: &[u8],
) -> std::io::Result<Response> {
    let mut s = send_with(addr, method, path, kind, headers, body)?;
    let mut bytes = Vec::new();
    s.read_to_end(&mut bytes)?;
    let text = String::from_utf8_lossy(&bytes);
    let status = text
        .split(' ')
        .nth(1)
        .and_then(|c| c.parse().ok())
        .ok_or_else(|| std::io::Error::other(format!("not an HTTP response: {text:?}")))?;
    let body = text
        .split_once("\r\n\r\n")
        .map_or("", |(_, b)| b)
        .to_string();
    Ok(Response { status, body })
}

/// Writes the request and returns the connection without reading the answer (a test that
/// kills the server while a request is in flight).
pub fn send_as(
    addr: &str,
    method: &str,
    path: &str,
    kind: &str,
    body: &[u8],
) -> std::io::Result<TcpStream> {
    send_with(addr, method, path, kind, &[], body)
}

fn send_with(
    addr: &str,
    method: &str,
    path: &str,
    kind: &str,
    headers: &[&str],
    body: &[u8],
) -> std::io::Result<TcpStream> {
    let mut s = TcpStream::connect(addr)?;
    s.set_read_timeout(Some(Duration::from_secs(20)))?;
    s.set_write_timeout(Some(Duration::from_secs(20)))?;
    let extra: String = headers.iter().map(|h| format!("{h}\r\n")).collect();
    let head = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: {kind}\r\n{extra}\
         Content-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    s.write_all(head.as_bytes())?;
    s.write_all(body)?;
    Ok(s)
}

/// The number after `"key":` in a JSON object's text.
pub fn json_u64(text: &str, key: &str) -> Option<u64> {
    let at = text.find(&format!("\"{key}\":"))? + key.len() + 3;
    let digits: String = text[at..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse().ok()
}
