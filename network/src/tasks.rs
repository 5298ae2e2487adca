//! Tokio tasks over sockets: the multi-thread runtime of [`workers`] workers every tokio contestant of both
//! scenarios builds before the clock starts, and the shape every tokio contestant of the tcp scenario shares: one persistent connection per task, a coordinator that releases one batch at a
//! time through a barrier and times it, and the probe task ticking beside them. The contestants differ only in
//! their [`Style`]: how a task connects and makes one exchange (each contestant's file implements it). The
//! caller's cancellation is checked between exchanges and between batches (a task blocked in a std socket call
//! cannot be dropped mid-call, so every style stops at the same points; a cancelled run's last release tells the
//! tasks to stop).

use std::future::Future;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

use measure::latency::LatencyRecorder;
use measure::meter::Meter;
use tokio::sync::Barrier;

use crate::error::NetworkError;
use crate::outcome::{micros_since, Outcome, Times};
use crate::tcp_exchange::{self, record, TcpJob};
use crate::tick;
use crate::wire::WrongReply;

/// Worker threads of every tokio runtime in the network scenarios: one per client core
/// ([`crate::affinity::client_cores`]).
pub fn workers() -> usize {
    crate::affinity::client_cores()
}

/// Build the multi-thread runtime the tokio contestants run on.
pub fn runtime() -> Result<tokio::runtime::Runtime, NetworkError> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(workers())
        .enable_all()
        .build()
        .map_err(|e| NetworkError::setup("the tokio runtime", e))
}

/// The outcome of `requested` requests from every connection task's part, in order; a task that ended without
/// its part counts as one wrong reply.
pub async fn joined(requested: u64, tasks: Vec<tokio::task::JoinHandle<Outcome>>) -> Outcome {
    let mut outcome = Outcome::new(requested);
    for task in tasks {
        match task.await {
            Ok(part) => outcome.merge(part),
            Err(e) => outcome.wrong(&WrongReply::Lost { what: "a connection task", detail: e.to_string() }),
        }
    }
    outcome
}

/// How a task makes one exchange: its connection and the exchange on it. Each tokio contestant implements it in
/// its own file (`contestants/`); this module runs the shape they share and depends on none of them.
pub trait Style: Send + Sync + 'static {
    /// A task's connection.
    type Conn: Send + 'static;

    /// Open one connection, before the clock starts.
    fn connect(addr: SocketAddr) -> impl Future<Output = Result<Self::Conn, NetworkError>> + Send;

    /// One exchange of `seq` on `conn`, the task's `index`-th connection.
    fn exchange(
        conn: &mut Self::Conn,
        addr: SocketAddr,
        seq: u64,
        index: usize,
    ) -> impl Future<Output = Result<(), tcp_exchange::Fail>> + Send;
}

/// A style that makes each exchange with blocking calls on a std `TcpStream` (opened on tokio's blocking pool):
/// what differs is only where the blocking exchange runs.
pub trait BlockingStyle: Send + Sync + 'static {
    /// One blocking exchange of `seq` on `stream`, the task's `index`-th connection, run where the style runs it.
    fn exchange(
        stream: &Arc<std::net::TcpStream>,
        addr: SocketAddr,
        seq: u64,
        index: usize,
    ) -> impl Future<Output = Result<(), tcp_exchange::Fail>> + Send;
}

impl<B: BlockingStyle> Style for B {
    type Conn = Arc<std::net::TcpStream>;

    async fn connect(addr: SocketAddr) -> Result<Self::Conn, NetworkError> {
        tokio::task::spawn_blocking(move || tcp_exchange::connect_std(addr))
            .await
            .map_err(|e| NetworkError::setup("a connecting thread", e))?
            .map(Arc::new)
    }

    fn exchange(
        conn: &mut Self::Conn,
        addr: SocketAddr,
        seq: u64,
        index: usize,
    ) -> impl Future<Output = Result<(), tcp_exchange::Fail>> + Send {
        <B as BlockingStyle>::exchange(conn, addr, seq, index)
    }
}

/// Run `job` on a fresh runtime, each exchange in style `S`, calling `go` once every connection is open and every
/// task waits.
pub fn run<S: Style, M: Meter>(job: &TcpJob<M>, go: &mut dyn FnMut()) -> Result<Outcome, NetworkError> {
    let runtime = runtime()?;
    let job = Arc::new(job.clone());
    let outcome = runtime.block_on(async {
        let barrier = Arc::new(Barrier::new(job.connections + 1));
        // Set by the coordinator before a release when it stops early (the caller cancelled the run).
        let ended = Arc::new(AtomicBool::new(false));
        let mut tasks = Vec::with_capacity(job.connections);
        for index in 0..job.connections {
            let conn = S::connect(job.addr).await;
            let (job, barrier, ended) = (Arc::clone(&job), Arc::clone(&barrier), Arc::clone(&ended));
            tasks.push(tokio::spawn(connection_task::<S, M>(job, index, conn, barrier, ended)));
        }
        let stop = Arc::new(AtomicBool::new(false));
        let probe = tokio::spawn(tick::ticks_async(Arc::clone(&stop), LatencyRecorder::new()));
        let batches = Times::new(usize::try_from(job.batches).unwrap_or(0));
        barrier.wait().await;
        go();
        for batch in 0..job.batches {
            // Between batches, one relaxed load (a `None` test in timed runs).
            if job.cancel.is_raised() {
                ended.store(true, Ordering::Relaxed);
                barrier.wait().await;
                break;
            }
            let started = Instant::now();
            barrier.wait().await;
            barrier.wait().await;
            batches.set(batch, micros_since(started));
        }
        stop.store(true, Ordering::Relaxed);
        let mut outcome = joined(job.total(), tasks).await;
        outcome.probe = probe.await.ok();
        outcome.latencies = batches;
        outcome.client_threads = workers() as u64;
        outcome
    });
    drop(runtime);
    Ok(outcome)
}

async fn connection_task<S: Style, M: Meter>(
    job: Arc<TcpJob<M>>,
    index: usize,
    conn: Result<S::Conn, NetworkError>,
    barrier: Arc<Barrier>,
    ended: Arc<AtomicBool>,
) -> Outcome {
    let (mut outcome, mut conn) = tcp_exchange::opened(conn);
    barrier.wait().await;
    for batch in 0..job.batches {
        barrier.wait().await;
        if ended.load(Ordering::Relaxed) {
            break;
        }
        for seq in job.seqs(batch, index) {
            if job.cancel.is_raised() {
                break;
            }
            job.meter.admit(1);
            let result = match conn.as_mut() {
                Some(c) => S::exchange(c, job.addr, seq, index).await,
                None => Err(tcp_exchange::Fail::Error(NetworkError::Closed { addr: job.addr })),
            };
            record(&mut outcome, &job.cancel, seq, result, &mut conn);
            job.meter.leave(1);
        }
        barrier.wait().await;
    }
    outcome
}
