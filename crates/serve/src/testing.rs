//! For tests (feature `testing`): the server on a free loopback port in a
//! thread of its own, and a tiny blocking HTTP/1.1 client over
//! `std::net` (one request per connection), enough to drive the API and
//! to speak WebDriver to a browser.

use crate::{ServeConfig, app};
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::time::Duration;

/// Starts the server for `config` on 127.0.0.1 at a free port and
/// returns its address; it runs until the process ends.
pub fn spawn(config: &ServeConfig) -> Result<SocketAddr, String> {
    let router = app(config)?;
    let (sender, receiver) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
            Ok(runtime) => runtime,
            Err(e) => return sender.send(Err(format!("tokio runtime: {e}"))).unwrap_or(()),
        };
        runtime.block_on(async move {
            let listener = match tokio::net::TcpListener::bind("127.0.0.1:0").await {
                Ok(listener) => listener,
                Err(e) => return sender.send(Err(format!("bind: {e}"))).unwrap_or(()),
            };
            let addr = listener.local_addr().map_err(|e| e.to_string());
            sender.send(addr).unwrap_or(());
            // The server lives as long as the process; an error here ends
            // only this thread, and the tests that follow fail to connect.
            let _ = axum::serve(listener, router).await;
        });
    });
    receiver.recv().map_err(|e| format!("the server thread ended: {e}"))?
}

/// An HTTP response.
#[derive(Debug)]
pub struct Response {
    /// The status code.
    pub status: u16,
    /// The body as text.
    pub body: String,
}

impl Response {
    /// The body as JSON (`Null` if it is not JSON).
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_str(&self.body).unwrap_or(serde_json::Value::Null)
    }
}

/// Sends one request to `addr` (`body` as JSON when given) and reads the
/// whole response; `timeout` bounds each read and write.
pub fn request(
    addr: SocketAddr,
    method: &str,
    path: &str,
    body: Option<&str>,
    timeout: Duration,
) -> std::io::Result<Response> {
    let mut stream = TcpStream::connect_timeout(&addr, timeout)?;
    stream.set_read_timeout(Some(timeout))?;
    stream.set_write_timeout(Some(timeout))?;
    let body = body.unwrap_or("");
    let head = format!(
        "{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\nContent-Type: application/json\r\n\
         Content-Length: {}\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes())?;
    stream.write_all(body.as_bytes())?;
    read_response(&mut stream)
}

/// Reads one response: to its Content-Length, its last chunk, or the end
/// of the connection (some servers keep it open despite `Connection:
/// close`, so the length decides where possible).
fn read_response(stream: &mut TcpStream) -> std::io::Result<Response> {
    let mut raw = Vec::new();
    let mut buffer = [0u8; 16 * 1024];
    loop {
        let n = stream.read(&mut buffer)?;
        raw.extend_from_slice(&buffer[..n]);
        if n == 0 || is_complete(&raw) {
            return parse_response(&raw);
        }
    }
}

fn is_complete(raw: &[u8]) -> bool {
    let Some(split) = raw.windows(4).position(|w| w == b"\r\n\r\n") else { return false };
    let head = String::from_utf8_lossy(&raw[..split]).to_ascii_lowercase();
    let body = &raw[split + 4..];
    if head.contains("transfer-encoding: chunked") {
        return body.ends_with(b"0\r\n\r\n");
    }
    let length =
        head.lines().find_map(|l| l.strip_prefix("content-length:").and_then(|v| v.trim().parse::<usize>().ok()));
    length.is_some_and(|length| body.len() >= length)
}

fn parse_response(raw: &[u8]) -> std::io::Result<Response> {
    let bad = |what: &str| std::io::Error::new(std::io::ErrorKind::InvalidData, what.to_string());
    let split = raw.windows(4).position(|w| w == b"\r\n\r\n").ok_or_else(|| bad("no end of headers"))?;
    let head = String::from_utf8_lossy(&raw[..split]).to_string();
    let mut body = raw[split + 4..].to_vec();
    let status = head.split(' ').nth(1).and_then(|s| s.parse().ok()).ok_or_else(|| bad("no status"))?;
    if head.to_ascii_lowercase().contains("transfer-encoding: chunked") {
        body = unchunk(&body).ok_or_else(|| bad("a malformed chunked body"))?;
    }
    Ok(Response { status, body: String::from_utf8_lossy(&body).to_string() })
}

fn unchunk(mut rest: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    loop {
        let line = rest.windows(2).position(|w| w == b"\r\n")?;
        let size =
            usize::from_str_radix(std::str::from_utf8(&rest[..line]).ok()?.split(';').next()?.trim(), 16).ok()?;
        rest = &rest[line + 2..];
        if size == 0 {
            return Some(out);
        }
        out.extend_from_slice(rest.get(..size)?);
        rest = rest.get(size + 2..)?;
    }
}
