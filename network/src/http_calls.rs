//! What an HTTP run is asked to do, the shapes the contestants share (a thread, a coroutine or a tokio task per
//! connection over a shared request counter; a stream of calls through `buffer_unordered`), and how a client
//! library's error becomes a [`NetworkError`] naming the address.

use std::error::Error as StdError;
use std::future::Future;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::Instant;

use futures::StreamExt;
use measure::meter::Meter;

use measure::latency::LatencyRecorder;

use crate::cancel::Cancel;
use crate::error::NetworkError;
use crate::outcome::{micros_since, Outcome, Times};
use crate::tick;
use crate::wire::WrongReply;

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

/// One connection's share of the run: take sequence numbers from `next` until `requests` are taken (or the
/// caller cancelled the run), make each
/// call on `client` (metered as one in flight), count it into `outcome` and its latency into `times`. Threads
/// and coroutines run the same.
fn take_calls<M, C, R>(
    job: &HttpJob<M>,
    next: &AtomicU64,
    client: &mut C,
    call: &R,
    outcome: &mut Outcome,
    times: &Times,
) where
    M: Meter,
    R: Fn(&mut C, u64) -> Result<(), Fail>,
{
    while let Some(seq) = next_seq(job, next) {
        job.meter.admit(1);
        let started = Instant::now();
        let result = call(client, seq);
        job.meter.leave(1);
        record(outcome, times, &job.cancel, seq, result, started);
    }
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
    let gate = Gate::default();
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
            let (next, gate, connect, call, times) = (&next, &gate, &connect, &call, &times);
            let spawned =
                std::thread::Builder::new().name(format!("http-conn-{index}")).spawn_scoped(scope, move || {
                    let mut client = connect();
                    let _ = call(&mut client, PRIMING_BASE + index as u64);
                    let mut outcome = Outcome::default();
                    if !gate.arrive() {
                        return outcome;
                    }
                    take_calls(job, next, &mut client, call, &mut outcome, times);
                    outcome
                });
            match spawned {
                Ok(handle) => handles.push(handle),
                Err(e) => {
                    // The threads already spawned wait at the start line: send them home.
                    gate.open(false);
                    stop.store(true, Ordering::Relaxed);
                    return Err(NetworkError::setup("a connection thread", e));
                }
            }
        }
        gate.wait_for(job.in_flight);
        go();
        gate.open(true);
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
            let mut client = connect();
            let _ = call(&mut client, PRIMING_BASE + index as u64);
            let mut outcome = Outcome::default();
            let _ = arrived.send(());
            flag.wait();
            if !run.load(Ordering::Acquire) {
                return outcome;
            }
            take_calls(&job, &next, &mut client, &*call, &mut outcome, &times);
            outcome
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

/// A tokio task per connection on `runtime`: the same shape as [`threads`] and [`coroutines`]. Each task dials
/// its connection with `C` and makes one priming call, then waits at a start line (a `tokio::sync::Barrier`,
/// passed twice: once when every task has arrived, when `go` is called, and once to release them); then they
/// take sequence numbers from a shared counter until `requests` are taken, a probe task ticking beside them. A
/// broken connection, or one the server closed, is redialled on the task's next call.
pub fn tasks<C: TaskClient, M: Meter>(
    runtime: &tokio::runtime::Runtime,
    job: &HttpJob<M>,
    go: &mut dyn FnMut(),
) -> Outcome {
    let job = Arc::new(job.clone());
    runtime.block_on(async {
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
        let mut outcome = Outcome::new(job.requests);
        for handle in handles {
            match handle.await {
                Ok(part) => outcome.merge(part),
                Err(e) => outcome.wrong(&WrongReply::Lost { what: "a connection task", detail: e.to_string() }),
            }
        }
        stop.store(true, Ordering::Relaxed);
        outcome.probe = probe.await.ok();
        // Every task has returned, so this is the last reference.
        outcome.latencies = Arc::try_unwrap(times).unwrap_or_default();
        outcome
    })
}

/// Call `seq` on the connection in `conn`, dialled with `C` first if there is none; a connection that failed or
/// that the server asked to close is dropped, so the next call redials.
async fn call_redialling<C: TaskClient>(conn: &mut Option<C::Conn>, addr: SocketAddr, seq: u64) -> Result<(), Fail> {
    let open = match conn {
        Some(open) => open,
        None => conn.insert(C::connect(addr).await.map_err(Fail::Error)?),
    };
    match C::call(open, addr, seq).await {
        Ok(true) => Ok(()),
        Ok(false) => {
            *conn = None;
            Ok(())
        }
        Err(fail) => {
            *conn = None;
            Err(fail)
        }
    }
}

/// A stream of calls: `in_flight` priming calls through `buffer_unordered` to open the pool's connections, then
/// `go`, then the `requests` calls through `buffer_unordered(in_flight)`, on `runtime`, with the probe task
/// ticking on it; `select`ed against the caller's cancellation, which drops the calls in flight.
pub fn stream<M, F, Fut>(runtime: &tokio::runtime::Runtime, job: &HttpJob<M>, go: &mut dyn FnMut(), call: F) -> Outcome
where
    M: Meter,
    F: Fn(u64) -> Fut,
    Fut: Future<Output = Result<(), Fail>>,
{
    runtime.block_on(async {
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
    })
}

/// A start line: threads arrive and wait; the starter waits for all of them, then opens it to run or to go home.
#[derive(Debug, Default)]
struct Gate {
    /// Threads arrived, and `None` while closed or whether to run once open.
    state: Mutex<(usize, Option<bool>)>,
    changed: Condvar,
}

impl Gate {
    /// Arrive and wait for the gate to open; whether to run.
    fn arrive(&self) -> bool {
        let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        state.0 += 1;
        self.changed.notify_all();
        loop {
            if let Some(run) = state.1 {
                return run;
            }
            state = self.changed.wait(state).unwrap_or_else(|p| p.into_inner());
        }
    }

    /// Wait until `n` threads have arrived.
    fn wait_for(&self, n: usize) {
        let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        while state.0 < n {
            state = self.changed.wait(state).unwrap_or_else(|p| p.into_inner());
        }
    }

    /// Open the gate: `run` or go home.
    fn open(&self, run: bool) {
        self.state.lock().unwrap_or_else(|p| p.into_inner()).1 = Some(run);
        self.changed.notify_all();
    }
}
