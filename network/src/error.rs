//! What can go wrong between a client, the loopback server and the process that runs it; every message names
//! the address, the program or the wait it is about.

use std::net::SocketAddr;
use std::time::Duration;

/// An error of the network scenarios.
#[derive(Debug, thiserror::Error)]
pub enum NetworkError {
    /// Nothing listens at the address.
    #[error("connection refused by {addr}: no server listens there")]
    Refused {
        /// The address dialled.
        addr: SocketAddr,
    },
    /// Any other socket error talking to the address.
    #[error("{op} {addr}: {source}")]
    Io {
        /// What was being done: `connecting to`, `writing to`, `reading from`.
        op: &'static str,
        /// The peer.
        addr: SocketAddr,
        /// The OS's error.
        #[source]
        source: std::io::Error,
    },
    /// The peer closed the connection before answering.
    #[error("{addr} closed the connection before answering")]
    Closed {
        /// The peer.
        addr: SocketAddr,
    },
    /// The peer answered something that is not the expected reply.
    #[error("bad reply from {addr}: {detail}")]
    BadReply {
        /// The peer.
        addr: SocketAddr,
        /// What was wrong.
        detail: String,
    },
    /// The server program could not be started.
    #[error("could not start the server `{program}`: {source}")]
    Spawn {
        /// The program.
        program: String,
        /// The OS's error.
        #[source]
        source: std::io::Error,
    },
    /// The server did not say it was ready within the bounded wait.
    #[error("the server `{program}` did not report its ports within {} ms (killed it)", .waited.as_millis())]
    SlowStart {
        /// The program.
        program: String,
        /// How long the client waited.
        waited: Duration,
    },
    /// The server exited or wrote something unreadable instead of its ready line.
    #[error("the server `{program}` did not start: {detail}")]
    NotReady {
        /// The program.
        program: String,
        /// What it said or how it ended.
        detail: String,
    },
    /// A runtime, thread or client could not be built.
    #[error("could not set up {what}: {detail}")]
    Setup {
        /// What was being built.
        what: &'static str,
        /// Why not.
        detail: String,
    },
}

impl NetworkError {
    /// Classify an I/O error of `op` against `addr`: refused connections get their own message.
    pub fn io(op: &'static str, addr: SocketAddr, source: std::io::Error) -> NetworkError {
        match source.kind() {
            std::io::ErrorKind::ConnectionRefused => NetworkError::Refused { addr },
            std::io::ErrorKind::UnexpectedEof => NetworkError::Closed { addr },
            _ => NetworkError::Io { op, addr, source },
        }
    }

    /// A setup failure of `what`.
    pub fn setup(what: &'static str, detail: impl ToString) -> NetworkError {
        NetworkError::Setup { what, detail: detail.to_string() }
    }
}

/// How long a tokio client may take to connect (before the start line). The same timeout policy holds for every
/// client of both scenarios: **no timeout on any call or exchange** (no socket read or write timeout, no timer
/// per request), so no family pays for a timer the others do not arm; a server that stops answering is caught by
/// the conformance checks' watchdog and the lab's time budget, and a killed server's closed sockets end every
/// client's waits with an error.
pub const IO_TIMEOUT: Duration = Duration::from_secs(10);
