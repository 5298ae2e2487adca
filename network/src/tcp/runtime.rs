//! The shape every tokio contestant of the tcp scenario shares: a multi-thread runtime of [`workers`] workers
//! built before the clock starts, one persistent connection per task, a coordinator that releases one batch at a
//! time through a barrier and times it, and the probe task ticking beside them. The contestants differ only in
//! [`Style`]: how a task makes one exchange.

use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

use measure::latency::LatencyRecorder;
use measure::meter::Meter;
use tokio::sync::Barrier;

use super::contestants::{trap_block_in_place, trap_blocking_in_task, trap_spawn_blocking};
use super::exchange::{self, record, TcpJob};
use crate::error::NetworkError;
use crate::outcome::{micros_since, Outcome, Times};
use crate::tick;

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

/// How a task makes one exchange.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    /// A tokio `TcpStream`: the task yields while it waits.
    Async,
    /// A std `TcpStream`, blocking the worker directly.
    Direct,
    /// A std `TcpStream` inside `spawn_blocking`, one blocking-pool job per exchange.
    SpawnBlocking,
    /// A std `TcpStream` inside `block_in_place`, which hands the worker's other tasks to a new worker.
    BlockInPlace,
}

/// A task's connection.
enum Conn {
    Tokio(tokio::net::TcpStream),
    Std(Arc<std::net::TcpStream>),
}

async fn connect(style: Style, addr: SocketAddr) -> Result<Conn, NetworkError> {
    match style {
        Style::Async => exchange::connect_tokio(addr).await.map(Conn::Tokio),
        _ => tokio::task::spawn_blocking(move || exchange::connect_std(addr))
            .await
            .map_err(|e| NetworkError::setup("a connecting thread", e))?
            .map(|s| Conn::Std(Arc::new(s))),
    }
}

async fn exchange(
    style: Style,
    conn: &mut Conn,
    addr: SocketAddr,
    seq: u64,
    index: usize,
) -> Result<(), exchange::Fail> {
    match (style, conn) {
        (Style::Async, Conn::Tokio(stream)) => exchange::exchange_tokio(stream, addr, seq, index).await,
        (Style::Direct, Conn::Std(stream)) => trap_blocking_in_task::exchange(stream, addr, seq, index),
        (Style::SpawnBlocking, Conn::Std(stream)) => trap_spawn_blocking::exchange(stream, addr, seq, index).await,
        (Style::BlockInPlace, Conn::Std(stream)) => trap_block_in_place::exchange(stream, addr, seq, index),
        _ => Err(exchange::Fail::Wrong("a connection of the wrong kind for its style".to_string())),
    }
}

/// Run `job` on a fresh runtime in `style`, calling `go` once every connection is open and every task waits.
pub fn run<M: Meter>(style: Style, job: &TcpJob<M>, go: &mut dyn FnMut()) -> Result<Outcome, NetworkError> {
    let runtime = runtime()?;
    let job = Arc::new(job.clone());
    let outcome = runtime.block_on(async {
        let barrier = Arc::new(Barrier::new(job.connections + 1));
        let mut tasks = Vec::with_capacity(job.connections);
        for index in 0..job.connections {
            let conn = connect(style, job.addr).await;
            let (job, barrier) = (Arc::clone(&job), Arc::clone(&barrier));
            tasks.push(tokio::spawn(connection_task(style, job, index, conn, barrier)));
        }
        let stop = Arc::new(AtomicBool::new(false));
        let probe = tokio::spawn(tick::ticks_async(Arc::clone(&stop), LatencyRecorder::new()));
        let batches = Times::new(usize::try_from(job.batches).unwrap_or(0));
        barrier.wait().await;
        go();
        for batch in 0..job.batches {
            let started = Instant::now();
            barrier.wait().await;
            barrier.wait().await;
            batches.set(batch, micros_since(started));
        }
        stop.store(true, Ordering::Relaxed);
        let mut outcome = Outcome::new(job.total());
        for task in tasks {
            match task.await {
                Ok(part) => outcome.merge(part),
                Err(e) => outcome.wrong(format!("a connection task failed: {e}")),
            }
        }
        outcome.probe = probe.await.ok();
        outcome.latencies = batches;
        outcome.client_threads = workers() as u64;
        outcome
    });
    drop(runtime);
    Ok(outcome)
}

async fn connection_task<M: Meter>(
    style: Style,
    job: Arc<TcpJob<M>>,
    index: usize,
    conn: Result<Conn, NetworkError>,
    barrier: Arc<Barrier>,
) -> Outcome {
    let mut outcome = Outcome::default();
    let mut conn = match conn {
        Ok(conn) => Some(conn),
        Err(err) => {
            outcome.first_error = Some(err.to_string());
            None
        }
    };
    barrier.wait().await;
    for batch in 0..job.batches {
        barrier.wait().await;
        for seq in job.seqs(batch, index) {
            job.meter.admit(1);
            let result = match conn.as_mut() {
                Some(c) => exchange(style, c, job.addr, seq, index).await,
                None => Err(exchange::Fail::Error(NetworkError::Closed { addr: job.addr })),
            };
            record(&mut outcome, seq, result, &mut conn);
            job.meter.leave(1);
        }
        barrier.wait().await;
    }
    outcome
}
