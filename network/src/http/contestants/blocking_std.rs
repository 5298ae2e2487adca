//! `blocking-std`: a thread per keep-alive connection with std `TcpStream` and a minimal hand-written HTTP/1.1
//! client (one `GET` written per call, the status line, headers and a `Content-Length` body parsed by hand);
//! a broken connection is redialled on the next call.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};

use measure::meter::Meter;

use crate::error::NetworkError;
use crate::http_calls::{self, Fail, HttpJob};
use crate::outcome::Outcome;
use crate::{tcp_exchange, wire};

/// One keep-alive connection: the stream to write and a buffered reader over a clone of it. `S` is a std
/// `TcpStream` for `blocking-std` and a `may::net::TcpStream` for `coroutine-may`: the client is the same code.
#[derive(Debug)]
pub struct Connection<S = TcpStream> {
    writer: S,
    reader: BufReader<S>,
}

impl<S: Read> Connection<S> {
    /// A connection writing to `writer` (connected to `addr`) and reading from its `clone`.
    fn over(addr: SocketAddr, writer: S, clone: impl Fn(&S) -> std::io::Result<S>) -> Result<Self, NetworkError> {
        let reader = BufReader::new(clone(&writer).map_err(|e| NetworkError::io("configuring", addr, e))?);
        Ok(Connection { writer, reader })
    }
}

/// Dial `addr` with no delay and no read or write timeout (the policy of every client: no timeout per call).
pub fn connect(addr: SocketAddr) -> Result<Connection, NetworkError> {
    Connection::over(addr, tcp_exchange::connect_std(addr)?, TcpStream::try_clone)
}

/// Dial `addr` with a `may` socket (its calls park the coroutine, not the carrier), with no delay and no read or
/// write timeout.
pub fn connect_may(addr: SocketAddr) -> Result<Connection<may::net::TcpStream>, NetworkError> {
    Connection::over(addr, tcp_exchange::connect_may(addr)?, may::net::TcpStream::try_clone)
}

/// One call on `conn`: `GET /echo/<seq>`, the response parsed and its body checked. `Ok(false)` when the
/// server asked to close the connection after it.
pub fn call<S: Read + Write>(conn: &mut Connection<S>, addr: SocketAddr, seq: u64) -> Result<bool, Fail> {
    let io = |op| move |e| Fail::Error(NetworkError::io(op, addr, e));
    conn.writer.write_all(request(addr, seq).as_bytes()).map_err(io("writing to"))?;
    let mut line = String::new();
    if conn.reader.read_line(&mut line).map_err(io("reading from"))? == 0 {
        return Err(Fail::Error(NetworkError::Closed { addr }));
    }
    check_status(&line, addr)?;
    let mut head = Head::new();
    loop {
        line.clear();
        if conn.reader.read_line(&mut line).map_err(io("reading from"))? == 0 {
            return Err(Fail::Error(NetworkError::Closed { addr }));
        }
        if !head.header(&line) {
            break;
        }
    }
    let mut body = vec![0u8; head.body_length(addr)?];
    conn.reader.read_exact(&mut body).map_err(io("reading from"))?;
    http_calls::check_body(seq, &body)?;
    Ok(head.keep)
}

/// The request of call `seq` to `addr`: `GET /echo/<seq>` with its `Host` header.
pub fn request(addr: SocketAddr, seq: u64) -> String {
    format!("GET {} HTTP/1.1\r\nHost: {addr}\r\n\r\n", wire::http_path(seq))
}

/// The status line must be `HTTP/1.1 200`.
pub fn check_status(line: &str, addr: SocketAddr) -> Result<(), Fail> {
    if line.starts_with("HTTP/1.1 200") {
        Ok(())
    } else {
        Err(Fail::Error(NetworkError::BadReply { addr, detail: format!("status line {:?}", line.trim_end()) }))
    }
}

/// What a response's headers said: its body's length and whether the connection stays open.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Head {
    /// `Content-Length`, once read.
    pub length: Option<usize>,
    /// False once the server said `Connection: close`.
    pub keep: bool,
}

impl Head {
    /// Before any header: no length, keep-alive.
    pub fn new() -> Head {
        Head { length: None, keep: true }
    }

    /// Read one header line; `false` at the blank line that ends the headers.
    pub fn header(&mut self, line: &str) -> bool {
        let header = line.trim_end();
        if header.is_empty() {
            return false;
        }
        if let Some((name, value)) = header.split_once(':') {
            let value = value.trim();
            if name.eq_ignore_ascii_case("content-length") {
                self.length = value.parse::<usize>().ok();
            } else if name.eq_ignore_ascii_case("connection") && value.eq_ignore_ascii_case("close") {
                self.keep = false;
            }
        }
        true
    }

    /// The body's length, which the client needs.
    pub fn body_length(&self, addr: SocketAddr) -> Result<usize, Fail> {
        self.length
            .ok_or_else(|| Fail::Error(NetworkError::BadReply { addr, detail: "no Content-Length header".to_string() }))
    }
}

impl Default for Head {
    fn default() -> Head {
        Head::new()
    }
}

/// Run `job`, calling `go` once every thread has connected, made its priming call and waits at the start line.
pub fn run<M: Meter>(job: &HttpJob<M>, go: &mut dyn FnMut()) -> Result<Outcome, NetworkError> {
    let addr = job.addr;
    http_calls::threads(job, go, || connect(addr).ok(), |slot, seq| call_redialling(slot, addr, seq, connect))
}

/// One call on the connection in `slot`, dialled with `dial` first if there is none; a connection that failed or
/// that the server asked to close is dropped, so the next call redials.
pub fn call_redialling<S: Read + Write>(
    slot: &mut Option<Connection<S>>,
    addr: SocketAddr,
    seq: u64,
    dial: impl Fn(SocketAddr) -> Result<Connection<S>, NetworkError>,
) -> Result<(), Fail> {
    let conn = match slot {
        Some(conn) => conn,
        None => slot.insert(dial(addr).map_err(Fail::Error)?),
    };
    let result = call(conn, addr, seq);
    http_calls::kept(slot, result)
}
