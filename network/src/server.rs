//! The loopback server, run as its own process (`lab __serve`): hyper 1.x HTTP/1.1 with keep-alive, answering
//! `GET /echo/<seq>` after a timer of `http_delay_us`, and a TCP echo answering each 16-byte frame after
//! `tcp_delay_us`, on a current-thread tokio runtime, pinned to one core when asked.
//!
//! Its configuration is one JSON line on standard input ([`ServeConfig`]); once listening on ephemeral ports of
//! 127.0.0.1 it writes one JSON line ([`Ready`]) on standard output, and it exits when its standard input
//! closes. With `PR_SET_PDEATHSIG` set by the launcher ([`crate::launch`]) it also dies with its parent, so no
//! server outlives a run.

use std::convert::Infallible;
use std::future::Future;
use std::io::{BufRead, Write};
use std::net::SocketAddr;
use std::time::Duration;

use bytes::Bytes;
use http_body_util::Full;
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use serde::{Deserialize, Serialize};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

use crate::affinity::{self, PinError};
use crate::wire::{self, FRAME};

/// What the server is asked to do: one JSON line on its standard input.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ServeConfig {
    /// The HTTP reply's timer, in microseconds.
    pub http_delay_us: u64,
    /// The TCP reply's timer, in microseconds.
    pub tcp_delay_us: u64,
    /// The core to pin the server to, if any.
    pub core: Option<usize>,
    /// Wait this long before listening (to test a server slow to start), in milliseconds.
    #[serde(default)]
    pub start_delay_ms: u64,
    /// Conformance only: the one request the server fails on purpose, by sequence number (HTTP: `500 Internal
    /// Server Error` for `/echo/<seq>`; TCP: the connection closed, unanswered, on reading request `seq`). `None`
    /// in every session server, so no timed or accounting run meets it; only the servers the `fault_at_*` checks
    /// start for themselves set it ([`crate::checks::fault_at`]).
    #[serde(default)]
    pub fail_seq: Option<u64>,
}

/// What the server says once it listens: one JSON line on its standard output.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Ready {
    /// The HTTP port on 127.0.0.1.
    pub http_port: u16,
    /// The TCP echo port on 127.0.0.1.
    pub tcp_port: u16,
    /// The server's process id.
    pub pid: u32,
    /// Whether the pinning asked for took effect, or why not.
    pub pinned: Result<Option<usize>, PinError>,
}

/// Why the server could not run.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// The configuration line could not be read or decoded.
    #[error("reading the server configuration from standard input: {0}")]
    Config(String),
    /// The runtime or a listener could not be set up.
    #[error("setting up the server on 127.0.0.1: {0}")]
    Setup(#[source] std::io::Error),
}

/// Serve on this process's standard input and output until standard input closes.
pub fn serve_stdio() -> Result<(), ServeError> {
    serve(std::io::BufReader::new(std::io::stdin()), std::io::stdout())
}

/// Read the configuration line from `input`, listen, write the [`Ready`] line to `output`, and serve until
/// `input` reaches its end.
pub fn serve(mut input: impl BufRead + Send + 'static, mut output: impl Write) -> Result<(), ServeError> {
    let mut line = String::new();
    input.read_line(&mut line).map_err(|e| ServeError::Config(e.to_string()))?;
    let config: ServeConfig = serde_json::from_str(&line).map_err(|e| ServeError::Config(format!("{e}: {line:?}")))?;
    if config.start_delay_ms > 0 {
        std::thread::sleep(Duration::from_millis(config.start_delay_ms));
    }
    raise_fd_limit();
    let pinned = match config.core {
        None => Ok(None),
        Some(core) => affinity::pin_current_thread(&[core]).map(|()| Some(core)).map_err(PinError::from),
    };
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().map_err(ServeError::Setup)?;
    runtime.block_on(async move {
        let http = TcpListener::bind("127.0.0.1:0").await.map_err(ServeError::Setup)?;
        let tcp = TcpListener::bind("127.0.0.1:0").await.map_err(ServeError::Setup)?;
        let ready = Ready {
            http_port: http.local_addr().map_err(ServeError::Setup)?.port(),
            tcp_port: tcp.local_addr().map_err(ServeError::Setup)?.port(),
            pid: std::process::id(),
            pinned,
        };
        let json = serde_json::to_string(&ready).map_err(|e| ServeError::Config(e.to_string()))?;
        writeln!(output, "{json}").and_then(|()| output.flush()).map_err(ServeError::Setup)?;
        let (closed_tx, closed_rx) = tokio::sync::oneshot::channel::<()>();
        // Standard input closing is the signal to stop: a thread waits for its end.
        std::thread::Builder::new()
            .name("serve-stdin".to_string())
            .spawn(move || {
                let mut sink = Vec::new();
                let _ = input.read_to_end(&mut sink);
                let _ = closed_tx.send(());
            })
            .map_err(ServeError::Setup)?;
        let http_delay = Duration::from_micros(config.http_delay_us);
        let tcp_delay = Duration::from_micros(config.tcp_delay_us);
        tokio::select! {
            _ = closed_rx => {}
            _ = accept(http, |stream| answer_http(stream, http_delay, config.fail_seq)) => {}
            _ = accept(tcp, |stream| echo(stream, tcp_delay, config.fail_seq)) => {}
        }
        Ok(())
    })
}

/// Raise the open-file limit to its hard limit: 1,000 keep-alive connections need more than the usual 1,024.
pub fn raise_fd_limit() {
    // SAFETY: getrlimit/setrlimit on a plain struct.
    unsafe {
        let mut limit = libc::rlimit { rlim_cur: 0, rlim_max: 0 };
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) == 0 && limit.rlim_cur < limit.rlim_max {
            limit.rlim_cur = limit.rlim_max;
            let _ = libc::setrlimit(libc::RLIMIT_NOFILE, &limit);
        }
    }
}

/// Accept every connection on `listener` (with no delay) and serve it on a task of its own with `serve`.
async fn accept<F: Future<Output = ()> + Send + 'static>(listener: TcpListener, serve: impl Fn(TcpStream) -> F) {
    loop {
        let Ok((stream, _)) = listener.accept().await else { continue };
        let _ = stream.set_nodelay(true);
        tokio::spawn(serve(stream));
    }
}

/// Answer the HTTP/1.1 calls of one keep-alive connection, each after `delay`.
async fn answer_http(stream: TcpStream, delay: Duration, fail_seq: Option<u64>) {
    let service = service_fn(move |req: Request<hyper::body::Incoming>| async move {
        tokio::time::sleep(delay).await;
        let path = req.uri().path();
        let (status, body) = match wire::http_body(path) {
            Some(_) if fail_seq.is_some() && wire::http_seq(path) == fail_seq => {
                (StatusCode::INTERNAL_SERVER_ERROR, Bytes::from_static(b"failed on purpose"))
            }
            Some(body) => (StatusCode::OK, Bytes::from(body)),
            None => (StatusCode::NOT_FOUND, Bytes::from_static(b"not an echo path")),
        };
        let mut response = Response::new(Full::new(body));
        *response.status_mut() = status;
        Ok::<_, Infallible>(response)
    });
    let _ = http1::Builder::new().keep_alive(true).serve_connection(TokioIo::new(stream), service).await;
}

/// Echo the TCP frames of one connection, each after `delay`.
async fn echo(mut stream: TcpStream, delay: Duration, fail_seq: Option<u64>) {
    let mut frame = [0u8; FRAME];
    while stream.read_exact(&mut frame).await.is_ok() {
        tokio::time::sleep(delay).await;
        if fail_seq == Some(wire::words(&frame).0) {
            // The failure asked for: the connection closes with the request unanswered.
            return;
        }
        if stream.write_all(&wire::reply(&frame)).await.is_err() {
            return;
        }
    }
}

/// The server's address for `port`.
pub fn loopback(port: u16) -> SocketAddr {
    SocketAddr::from(([127, 0, 0, 1], port))
}
