//! What an HTTP run is asked to do, the shapes the contestants share (a thread, a coroutine or a tokio task per
//! connection over a shared request counter; a stream of calls through `buffer_unordered`), and how a client
//! library's error becomes a [`NetworkError`] naming the address.

use std::error::Error as StdError;
use std::future::Future;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Instant;

use futures::StreamExt;
use measure::meter::Meter;

use measure::latency::LatencyRecorder;
use pipelines::start_line::StartLine;

use crate::cancel::Cancel;
use crate::error::NetworkError;
use crate::outcome::{micros_since, Outcome, Times};
use crate::wire;
use crate::{tasks, tick};

/// What an HTTP run is asked to do.
#[derive(Debug, Clone)]
pub struct HttpJob<M> {
    /// The HTTP server.
    pub addr: SocketAddr,
    /// Calls in the run, sequence numbers `0..requests`.
    pub requests: u64,
    /// Calls in flight at once: threads (one connection each) or `buffer_unordered`'s limit.
    pub in_flight: usize,
    /// Counts calls in flight.
    pub meter: M,
    /// The caller's cancellation ([`Cancel::never`] in every timed and accounting run).
    pub cancel: Cancel,
}

/// Sequence numbers of the calls that open connections before the clock starts (answered, not counted).
pub const PRIMING_BASE: u64 = 1 << 62;

pub use crate::outcome::Fail;

/// The URL of call `seq`.
pub fn url(addr: SocketAddr, seq: u64) -> String {
    format!("http://{addr}{}", crate::wire::http_path(seq))
}

/// A client library's error as a [`NetworkError`]: the first I/O error in its source chain (so a refused
/// connection reads as one, naming the address), else its message.
pub fn client_error(addr: SocketAddr, err: &(dyn StdError + 'static)) -> NetworkError {
    let mut source: Option<&(dyn StdError + 'static)> = Some(err);
    while let Some(e) = source {
        if let Some(io) = e.downcast_ref::<std::io::Error>() {
            return NetworkError::io("calling", addr, std::io::Error::new(io.kind(), io.to_string()));
        }
        source = e.source();
    }
    let text = err.to_string();
    if text.to_lowercase().contains("refused") {
        NetworkError::Refused { addr }
    } else {
        NetworkError::BadReply { addr, detail: text }
    }
}

/// Connection `index`'s share of the run: its client made with `connect` and one priming call, then, once `wait`
/// returns at the start line, if it says to run, sequence numbers taken from `next` until `requests` are taken (or
/// the caller cancelled the run), each call made on the client (metered as one in flight) and counted into the
/// part it returns, its latency into `times`. Threads and coroutines run the same.
fn connection<M, C, R>(
    job: &HttpJob<M>,
    (next, times): (&AtomicU64, &Times),
    index: usize,
    connect: impl FnOnce() -> C,
    call: &R,
    wait: impl FnOnce() -> bool,
) -> Outcome
where
    M: Meter,
    R: Fn(&mut C, u64) -> Result<(), Fail>,
{
    let mut client = connect();
    let _ = call(&mut client, PRIMING_BASE + index as u64);
    let mut outcome = Outcome::default();
    if !wait() {
        return outcome;
    }
    while let Some(seq) = next_seq(job, next) {
        job.meter.admit(1);
        let started = Instant::now();
        let result = call(&mut client, seq);
        job.meter.leave(1);
        record(&mut outcome, times, &job.cancel, seq, result, started);
    }
    outcome
}

/// The next sequence number a connection takes from `next`, or `None` once `requests` are taken or the caller
/// cancelled the run (checked between calls: one relaxed load, a `None` test in timed runs). Threads, coroutines
/// and tasks take their calls the same way.
fn next_seq<M>(job: &HttpJob<M>, next: &AtomicU64) -> Option<u64> {
    if job.cancel.is_raised() {
        return None;
    }
    let seq = next.fetch_add(1, Ordering::Relaxed);
    (seq < job.requests).then_some(seq)
}

fn record(outcome: &mut Outcome, times: &Times, cancel: &Cancel, seq: u64, result: Result<(), Fail>, started: Instant) {
    match result {
        Ok(()) => {
            outcome.tally.add(seq);
            cancel.answered(seq);
            times.set(seq, micros_since(started));
        }
        Err(fail) => outcome.failed(&fail),
    }
}

/// A thread per connection: `in_flight` threads, each making its client with `connect` and one priming call
/// before the start line, then taking sequence numbers from a shared counter until `requests` are taken; a
/// probe thread ticks beside them. `go` is called once every thread waits at the start line.
pub fn threads<M, C, S, R>(job: &HttpJob<M>, go: &mut dyn FnMut(), connect: S, call: R) -> Result<Outcome, NetworkError>
where
    M: Meter,
    S: Fn() -> C + Sync,
    R: Fn(&mut C, u64) -> Result<(), Fail> + Sync,
{
    let next = AtomicU64::new(0);
    // The start line, and whether to run once it opens (else go home).
    let (line, run) = (StartLine::default(), AtomicBool::new(false));
    let stop = AtomicBool::new(false);
    let times = Times::new(usize::try_from(job.requests).unwrap_or(0));
    let late = LatencyRecorder::new();
    std::thread::scope(|scope| {
        let probe = std::thread::Builder::new()
            .name("http-probe".to_string())
            .spawn_scoped(scope, || tick::ticks_thread(&stop, late))
            .map_err(|e| NetworkError::setup("the probe thread", e))?;
        let mut handles = Vec::with_capacity(job.in_flight);
        for index in 0..job.in_flight {
            let (next, line, run, connect, call, times) = (&next, &line, &run, &connect, &call, &times);
            let spawned =
                std::thread::Builder::new().name(format!("http-conn-{index}")).spawn_scoped(scope, move || {
                    connection(job, (next, times), index, connect, call, || {
                        line.arrive();
                        line.wait_open();
                        run.load(Ordering::Acquire)
                    })
                });
            match spawned {
                Ok(handle) => handles.push(handle),
                Err(e) => {
                    // The threads already spawned wait at the start line: send them home.
                    line.open();
                    stop.store(true, Ordering::Relaxed);
                    return Err(NetworkError::setup("a connection thread", e));
                }
            }
        }
        line.wait_arrived(job.in_flight);
        go();
        run.store(true, Ordering::Release);
        line.open();
        let mut outcome = Outcome::joined(job.requests, handles.into_iter().map(|h| h.join()), "thread");
        stop.store(true, Ordering::Relaxed);
        outcome.probe = probe.join().ok();
        outcome.client_threads = job.in_flight as u64 + 1;
        Ok(outcome)
    })
    .map(|outcome| Outcome { latencies: times, ..outcome })
}

/// A `may` coroutine per connection: the same shape as [`threads`], on `config`'s carriers. Each coroutine makes
/// its client with `connect` and one priming call, reports on a `may` channel and parks on a `may::sync::SyncFlag`
/// until the calling thread (not a carrier) has heard from every one; then they take sequence numbers from a
/// shared counter until `requests` are taken, a probe coroutine ticking beside them. `connect` and `call` must
/// wait only in `may`'s primitives (a `may` socket), never in a thread-blocking call.
pub fn coroutines<M, C, S, R>(
    job: &HttpJob<M>,
    go: &mut dyn FnMut(),
    config: pipelines::coroutine::CoroutineConfig,
    connect: S,
    call: R,
) -> Result<Outcome, NetworkError>
where
    M: Meter,
    C: 'static,
    S: Fn() -> C + Send + Sync + 'static,
    R: Fn(&mut C, u64) -> Result<(), Fail> + Send + Sync + 'static,
{
    use pipelines::coroutine;
    config.apply();
    let live = Arc::new(pipelines::LiveStages::new());
    let job = Arc::new(job.clone());
    let (connect, call) = (Arc::new(connect), Arc::new(call));
    let next = Arc::new(AtomicU64::new(0));
    let times = Arc::new(Times::new(usize::try_from(job.requests).unwrap_or(0)));
    let (run, start) = (Arc::new(AtomicBool::new(false)), Arc::new(may::sync::SyncFlag::new()));
    let stop = Arc::new(AtomicBool::new(false));
    let (arrived_tx, arrived_rx) = may::sync::mpsc::channel::<()>();
    let mut handles = Vec::with_capacity(job.in_flight);
    for index in 0..job.in_flight {
        let (job, connect, call, next) = (Arc::clone(&job), Arc::clone(&connect), Arc::clone(&call), Arc::clone(&next));
        let (run, flag, arrived, times) =
            (Arc::clone(&run), Arc::clone(&start), arrived_tx.clone(), Arc::clone(&times));
        let spawned = coroutine::spawn("http-conn", config.stack_words, &live, move || {
            connection(&job, (&next, &times), index, &*connect, &*call, || {
                let _ = arrived.send(());
                flag.wait();
                run.load(Ordering::Acquire)
            })
        });
        match spawned {
            Ok(handle) => handles.push(handle),
            Err(e) => {
                // The coroutines already spawned wait at the start line: send them home.
                start.fire();
                for handle in handles {
                    let _ = handle.join();
                }
                return Err(NetworkError::setup("a connection coroutine", e));
            }
        }
    }
    drop(arrived_tx);
    for _ in 0..job.in_flight {
        let _ = arrived_rx.recv();
    }
    let probe = {
        let (stop, late) = (Arc::clone(&stop), LatencyRecorder::new());
        coroutine::spawn("http-probe", config.stack_words, &live, move || tick::ticks_coroutine(&stop, late))
    };
    go();
    run.store(true, Ordering::Release);
    start.fire();
    let mut outcome = Outcome::joined(job.requests, handles.into_iter().map(|h| h.join()), "coroutine");
    stop.store(true, Ordering::Relaxed);
    if let Ok(probe) = probe {
        outcome.probe = probe.join().ok();
    }
    // Every coroutine has returned, so this is the last reference.
    outcome.latencies = Arc::try_unwrap(times).unwrap_or_default();
    // The carriers and `may`'s timer thread run the coroutines; the calling thread waits for them.
    outcome.client_threads = config.carriers as u64 + 2;
    Ok(outcome)
}

/// How a tokio task makes HTTP calls on its own keep-alive connection ([`tasks`]): dialling it, and one call on
/// it. Each contestant that runs as a task per connection implements it in its own file.
pub trait TaskClient: Send + Sync + 'static {
    /// A task's connection.
    type Conn: Send + 'static;

    /// Dial one connection to `addr`.
    fn connect(addr: SocketAddr) -> impl Future<Output = Result<Self::Conn, NetworkError>> + Send;

    /// Call `seq` on `conn`: `Ok(false)` when the server asked to close the connection after it.
    fn call(conn: &mut Self::Conn, addr: SocketAddr, seq: u64) -> impl Future<Output = Result<bool, Fail>> + Send;
}

/// A tokio task per connection on a fresh runtime ([`tasks::runtime`]): the same shape as [`threads`] and
/// [`coroutines`]. Each task dials its connection with `C` and makes one priming call, then waits at a start line
/// (a `tokio::sync::Barrier`, passed twice: once when every task has arrived, when `go` is called, and once to
/// release them); then they take sequence numbers from a shared counter until `requests` are taken, a probe task
/// ticking beside them. A broken connection, or one the server closed, is redialled on the task's next call.
pub fn tasks<C: TaskClient, M: Meter>(job: &HttpJob<M>, go: &mut dyn FnMut()) -> Result<Outcome, NetworkError> {
    let runtime = tasks::runtime()?;
    let job = Arc::new(job.clone());
    let outcome = runtime.block_on(async {
        let next = Arc::new(AtomicU64::new(0));
        let times = Arc::new(Times::new(usize::try_from(job.requests).unwrap_or(0)));
        let start = Arc::new(tokio::sync::Barrier::new(job.in_flight + 1));
        let handles: Vec<_> = (0..job.in_flight)
            .map(|index| {
                let (job, next, times, start) =
                    (Arc::clone(&job), Arc::clone(&next), Arc::clone(&times), Arc::clone(&start));
                tokio::spawn(async move {
                    let mut conn = C::connect(job.addr).await.ok();
                    let _ = call_redialling::<C>(&mut conn, job.addr, PRIMING_BASE + index as u64).await;
                    let mut outcome = Outcome::default();
                    start.wait().await;
                    start.wait().await;
                    while let Some(seq) = next_seq(&job, &next) {
                        job.meter.admit(1);
                        let started = Instant::now();
                        let result = call_redialling::<C>(&mut conn, job.addr, seq).await;
                        job.meter.leave(1);
                        record(&mut outcome, &times, &job.cancel, seq, result, started);
                    }
                    outcome
                })
            })
            .collect();
        let stop = Arc::new(AtomicBool::new(false));
        let probe = tokio::spawn(tick::ticks_async(Arc::clone(&stop), LatencyRecorder::new()));
        start.wait().await;
        go();
        start.wait().await;
        let mut outcome = tasks::joined(job.requests, handles).await;
        stop.store(true, Ordering::Relaxed);
        outcome.probe = probe.await.ok();
        // Every task has returned, so this is the last reference.
        outcome.latencies = Arc::try_unwrap(times).unwrap_or_default();
        outcome
    });
    drop(runtime);
    Ok(Outcome { client_threads: tasks::workers() as u64, ..outcome })
}

/// Call `seq` on the connection in `conn`, dialled with `C` first if there is none; a connection that failed or
/// that the server asked to close is dropped, so the next call redials.
async fn call_redialling<C: TaskClient>(conn: &mut Option<C::Conn>, addr: SocketAddr, seq: u64) -> Result<(), Fail> {
    let open = match conn {
        Some(open) => open,
        None => conn.insert(C::connect(addr).await.map_err(Fail::Error)?),
    };
    let result = C::call(open, addr, seq).await;
    kept(conn, result)
}

/// A call's `result` on the connection in `slot` (`Ok(false)`: answered, and the server asked to close it): a
/// connection that failed or that the server asked to close is dropped, so the next call redials.
pub fn kept<T>(slot: &mut Option<T>, result: Result<bool, Fail>) -> Result<(), Fail> {
    if !matches!(result, Ok(true)) {
        *slot = None;
    }
    result.map(|_| ())
}

/// A stream of calls on a fresh runtime ([`tasks::runtime`]) with the client `make_client` builds on it:
/// `in_flight` priming calls through `buffer_unordered` to open the pool's connections, then `go`, then the
/// `requests` calls through `buffer_unordered(in_flight)`, with the probe task ticking on the runtime; `select`ed
/// against the caller's cancellation, which drops the calls in flight.
pub fn stream<M, C, F, Fut>(
    job: &HttpJob<M>,
    go: &mut dyn FnMut(),
    make_client: impl FnOnce() -> Result<C, NetworkError>,
    call: F,
) -> Result<Outcome, NetworkError>
where
    M: Meter,
    F: Fn(&C, u64) -> Fut,
    Fut: Future<Output = Result<(), Fail>>,
{
    let runtime = tasks::runtime()?;
    let client = {
        let _guard = runtime.enter();
        make_client()?
    };
    let call = |seq| call(&client, seq);
    let outcome = runtime.block_on(async {
        let primed = (0..job.in_flight as u64).map(|i| call(PRIMING_BASE + i));
        futures::stream::iter(primed).buffer_unordered(job.in_flight).for_each(|_| async {}).await;
        let stop = Arc::new(AtomicBool::new(false));
        let probe = tokio::spawn(tick::ticks_async(Arc::clone(&stop), LatencyRecorder::new()));
        let times = Times::new(usize::try_from(job.requests).unwrap_or(0));
        let mut outcome = Outcome::new(job.requests);
        go();
        let calls = (0..job.requests).map(|seq| {
            let meter = job.meter.clone();
            let call = call(seq);
            async move {
                meter.admit(1);
                let started = Instant::now();
                let result = call.await;
                meter.leave(1);
                (seq, result, started)
            }
        });
        let calls = futures::stream::iter(calls).buffer_unordered(job.in_flight).for_each(|(seq, result, started)| {
            record(&mut outcome, &times, &job.cancel, seq, result, started);
            async {}
        });
        // The caller's cancellation drops the stream, and with it every call in flight (`biased`: no random
        // branch order; a run nobody cancels polls a `pending` future after the calls, nothing more).
        tokio::select! {
            biased;
            () = calls => {}
            () = job.cancel.cancelled() => {}
        }
        stop.store(true, Ordering::Relaxed);
        outcome.probe = probe.await.ok();
        outcome.latencies = times;
        outcome
    });
    drop(client);
    drop(runtime);
    Ok(Outcome { client_threads: tasks::workers() as u64, ..outcome })
}

/// A response's status must be a success.
pub fn success(addr: SocketAddr, status: hyper::StatusCode) -> Result<(), Fail> {
    if status.is_success() {
        Ok(())
    } else {
        Err(Fail::Error(NetworkError::BadReply { addr, detail: format!("status {status}") }))
    }
}

/// A measured call's body must answer call `seq` (priming calls are not checked).
pub fn check_body(seq: u64, body: &[u8]) -> Result<(), Fail> {
    if seq < PRIMING_BASE {
        wire::check_http_body(seq, body).map_err(Fail::Wrong)?;
    }
    Ok(())
}
