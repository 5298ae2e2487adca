//! `stream-tokio-tasks`: a tokio task per keep-alive connection on the client's tokio runtime, running
//! `blocking-std`'s hand-written HTTP/1.1 client over tokio's `TcpStream`: the same request, status line, headers
//! and `Content-Length` body, parsed by the same helpers, each read and write awaited instead of blocking. With
//! `blocking-std` (a thread per connection) and `coroutine-may` (a coroutine per connection) it holds the client
//! code equal, so that the three answer the family question and the library clients the library question.

use std::net::SocketAddr;

use measure::meter::Meter;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::tcp::{OwnedReadHalf, OwnedWriteHalf};
use tokio::net::TcpStream;

use super::blocking_std::{check_status, request, Head};
use crate::error::NetworkError;
use crate::http_calls::{self, check_body, Fail, HttpJob, TaskClient};
use crate::outcome::Outcome;

/// The hand-written client on tokio's sockets.
#[derive(Debug, Clone, Copy, Default)]
pub struct HandWritten;

/// One keep-alive connection: its write half and a buffered reader over its read half.
#[derive(Debug)]
pub struct AsyncConnection {
    writer: OwnedWriteHalf,
    reader: BufReader<OwnedReadHalf>,
}

impl TaskClient for HandWritten {
    type Conn = AsyncConnection;

    /// Dial `addr` with no delay and no timeout (the policy of every client).
    async fn connect(addr: SocketAddr) -> Result<AsyncConnection, NetworkError> {
        let stream = TcpStream::connect(addr).await.map_err(|e| NetworkError::io("connecting to", addr, e))?;
        let _ = stream.set_nodelay(true);
        let (reader, writer) = stream.into_split();
        Ok(AsyncConnection { writer, reader: BufReader::new(reader) })
    }

    /// `blocking_std::call`, awaited.
    async fn call(conn: &mut AsyncConnection, addr: SocketAddr, seq: u64) -> Result<bool, Fail> {
        let io = |op| move |e| Fail::Error(NetworkError::io(op, addr, e));
        conn.writer.write_all(request(addr, seq).as_bytes()).await.map_err(io("writing to"))?;
        let mut line = String::new();
        if conn.reader.read_line(&mut line).await.map_err(io("reading from"))? == 0 {
            return Err(Fail::Error(NetworkError::Closed { addr }));
        }
        check_status(&line, addr)?;
        let mut head = Head::new();
        loop {
            line.clear();
            if conn.reader.read_line(&mut line).await.map_err(io("reading from"))? == 0 {
                return Err(Fail::Error(NetworkError::Closed { addr }));
            }
            if !head.header(&line) {
                break;
            }
        }
        let mut body = vec![0u8; head.body_length(addr)?];
        conn.reader.read_exact(&mut body).await.map_err(io("reading from"))?;
        check_body(seq, &body)?;
        Ok(head.keep)
    }
}

/// Run `job` on a fresh runtime sized to the client's cores, calling `go` once every task has connected, made its
/// priming call and waits at the start line.
pub fn run<M: Meter>(job: &HttpJob<M>, go: &mut dyn FnMut()) -> Result<Outcome, NetworkError> {
    http_calls::tasks::<HandWritten, M>(job, go)
}
