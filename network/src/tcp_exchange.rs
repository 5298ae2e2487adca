//! One TCP exchange (a 16-byte request and its 16-byte reply, one outstanding per connection) in each way the
//! contestants make it, and the bookkeeping every contestant shares: which sequence numbers a connection owns in
//! a batch, and how a result is counted.

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};

use measure::meter::Meter;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::cancel::Cancel;
use crate::error::{NetworkError, IO_TIMEOUT};
use crate::outcome::Outcome;
use crate::wire::{self, FRAME};

/// What a TCP run is asked to do.
#[derive(Debug, Clone)]
pub struct TcpJob<M> {
    /// The echo server.
    pub addr: SocketAddr,
    /// Persistent connections.
    pub connections: usize,
    /// Exchanges per batch, spread over the connections (exchange `i` on connection `i % connections`).
    pub exchanges: usize,
    /// Batches in the run.
    pub batches: u64,
    /// Counts exchanges in flight.
    pub meter: M,
    /// The caller's cancellation ([`Cancel::never`] in every timed and accounting run).
    pub cancel: Cancel,
}

impl<M> TcpJob<M> {
    /// Exchanges of the whole run.
    pub fn total(&self) -> u64 {
        self.batches * self.exchanges as u64
    }

    /// The sequence numbers connection `conn` exchanges in batch `batch`, in order.
    pub fn seqs(&self, batch: u64, conn: usize) -> impl Iterator<Item = u64> {
        let (exchanges, connections) = (self.exchanges, self.connections.max(1));
        let base = batch * exchanges as u64;
        (conn..exchanges).step_by(connections).map(move |i| base + i as u64)
    }
}

pub use crate::outcome::Fail;

/// Count the result of exchange `seq` into `outcome` (and into `cancel`'s record, in a cancellation check); a
/// failed connection is dropped (`stream = None`), so the connection's later exchanges count as errors without
/// waiting on it.
pub fn record<S>(outcome: &mut Outcome, cancel: &Cancel, seq: u64, result: Result<(), Fail>, stream: &mut Option<S>) {
    match result {
        Ok(()) => {
            outcome.tally.add(seq);
            cancel.answered(seq);
        }
        Err(fail) => {
            outcome.failed(&fail);
            *stream = None;
        }
    }
}

/// A connection's part as it starts: its stream, or none and the error that kept it from opening as the part's
/// first error.
pub fn opened<S>(conn: Result<S, NetworkError>) -> (Outcome, Option<S>) {
    let mut outcome = Outcome::default();
    let stream = conn.map_err(|err| outcome.first_error = Some(err.to_string())).ok();
    (outcome, stream)
}

/// Connection `index`'s exchanges of `batch`, each made by `exchange` on its blocking stream, metered and
/// counted into `outcome` ([`record`]), until the caller cancels.
pub fn blocking_batch<M: Meter, S>(
    job: &TcpJob<M>,
    (batch, index): (u64, usize),
    outcome: &mut Outcome,
    stream: &mut Option<S>,
    exchange: impl Fn(&mut S, u64) -> Result<(), Fail>,
) {
    for seq in job.seqs(batch, index) {
        if job.cancel.is_raised() {
            break;
        }
        job.meter.admit(1);
        let result = match stream.as_mut() {
            Some(s) => exchange(s, seq),
            None => Err(Fail::Error(NetworkError::Closed { addr: job.addr })),
        };
        record(outcome, &job.cancel, seq, result, stream);
        job.meter.leave(1);
    }
}

/// Connect a blocking std stream with no delay and no read or write timeout (no client times an exchange out).
pub fn connect_std(addr: SocketAddr) -> Result<TcpStream, NetworkError> {
    let stream = TcpStream::connect(addr).map_err(|e| NetworkError::io("connecting to", addr, e))?;
    let _ = stream.set_nodelay(true);
    Ok(stream)
}

/// One exchange on a blocking std stream: write the request, block until the reply is read.
pub fn exchange_std(stream: &TcpStream, addr: SocketAddr, seq: u64, conn: usize) -> Result<(), Fail> {
    exchange_blocking(stream, addr, seq, conn)
}

/// Connect a `may` stream (blocking-style calls that park the coroutine) with no delay and no read or write
/// timeout.
pub fn connect_may(addr: SocketAddr) -> Result<may::net::TcpStream, NetworkError> {
    let stream = may::net::TcpStream::connect(addr).map_err(|e| NetworkError::io("connecting to", addr, e))?;
    let _ = stream.set_nodelay(true);
    Ok(stream)
}

/// One exchange written in the blocking style on any stream: write the request, wait until the reply is read
/// (a std stream blocks the thread, a `may` stream parks the coroutine).
pub fn exchange_blocking<S: Read + Write>(mut stream: S, addr: SocketAddr, seq: u64, conn: usize) -> Result<(), Fail> {
    let token = wire::token(seq, conn);
    stream.write_all(&wire::request(seq, token)).map_err(|e| Fail::Error(NetworkError::io("writing to", addr, e)))?;
    let mut reply = [0u8; FRAME];
    stream.read_exact(&mut reply).map_err(|e| Fail::Error(NetworkError::io("reading from", addr, e)))?;
    wire::check_reply(seq, token, &reply).map_err(Fail::Wrong)
}

/// Connect a tokio stream with no delay.
pub async fn connect_tokio(addr: SocketAddr) -> Result<tokio::net::TcpStream, NetworkError> {
    let stream = tokio::time::timeout(IO_TIMEOUT, tokio::net::TcpStream::connect(addr))
        .await
        .map_err(|_| NetworkError::io("connecting to", addr, std::io::ErrorKind::TimedOut.into()))?
        .map_err(|e| NetworkError::io("connecting to", addr, e))?;
    let _ = stream.set_nodelay(true);
    Ok(stream)
}

/// One exchange on a tokio stream: the task yields while the socket is not ready (no timer: no client times an
/// exchange out).
pub async fn exchange_tokio(
    stream: &mut tokio::net::TcpStream,
    addr: SocketAddr,
    seq: u64,
    conn: usize,
) -> Result<(), Fail> {
    let token = wire::token(seq, conn);
    stream
        .write_all(&wire::request(seq, token))
        .await
        .map_err(|e| Fail::Error(NetworkError::io("writing to", addr, e)))?;
    let mut reply = [0u8; FRAME];
    stream.read_exact(&mut reply).await.map_err(|e| Fail::Error(NetworkError::io("reading from", addr, e)))?;
    wire::check_reply(seq, token, &reply).map_err(Fail::Wrong)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_batch_is_spread_over_the_connections_in_order() {
        let job = TcpJob {
            addr: crate::server::loopback(1),
            connections: 4,
            exchanges: 10,
            batches: 2,
            meter: (),
            cancel: Cancel::never(),
        };
        let all: Vec<Vec<u64>> = (0..4).map(|c| job.seqs(1, c).collect()).collect();
        assert_eq!(all, [vec![10, 14, 18], vec![11, 15, 19], vec![12, 16], vec![13, 17]]);
        assert_eq!(job.total(), 20);
    }
}
