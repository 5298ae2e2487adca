//! The stream family on a tokio multi-thread runtime with one worker per core: `buffered`,
//! `buffer_unordered` (as one task, or as one task per worker with the limit split across them), a task per item
//! behind a semaphore, worker tasks fed by a bounded flume channel, and a
//! task per item with no admission at all. The thread-per-core shape shares the `buffer_unordered` shard
//! (`unordered_share`) but runs on current-thread runtimes of its own ([`super::thread_per_core`]).
//!
//! The whole pipeline runs in one spawned task (where a service would run it), optionally wrapped in
//! [`tokio::task::coop::unconstrained`]; in the task-per-item shapes each child task is wrapped too. The
//! deadline is enforced from outside: at the time budget (or when the caller cancels the run) the pipeline task
//! is aborted, which drops every outstanding call, and the children of the task-per-item shapes are let finish
//! (the run waits until the runtime has no task alive, so it needs no meter to know when every call was let go).

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use futures::{Stream, StreamExt};
use tokio::runtime::Runtime;
use tokio::sync::Semaphore;
use tokio::task::coop::unconstrained;
use tokio::task::{JoinError, JoinHandle};

use crate::call::CallFailed;
use crate::job::{InFlight, Job, JobMeter, RunError, Shared, RELEASE_GRACE};

/// How the stream contestant bounds and runs its calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StreamShape {
    /// `stream::iter(items).map(call).buffered(limit)`: answers in item order.
    Buffered,
    /// `stream::iter(items).map(call).buffer_unordered(limit)`: answers as they come (a `FuturesUnordered`).
    BufferUnordered,
    /// One `buffer_unordered` task per runtime worker, the items dealt round-robin and the limit split across
    /// them, so every core drives calls (a single pipeline task runs on one worker at a time).
    PerWorkerUnordered,
    /// Thread-per-core: one current-thread runtime per core, each on its own OS thread, each running one
    /// `buffer_unordered` shard over every n-th item with its share of the limit (the shares adding up to the
    /// limit); run by [`super::thread_per_core`], not on the multi-thread runtime.
    ThreadPerCore,
    /// A spawned task per item, admitted by a `tokio::sync::Semaphore` of `limit` permits.
    Tasks,
    /// `limit` worker tasks receiving items from a `flume::bounded(limit)` channel (`recv_async`).
    ChannelWorkers,
    /// A spawned task per item, all at once: no admission control.
    Unbounded,
}

/// A boxed pipeline future, `'static` so it can be spawned.
type Work = Pin<Box<dyn Future<Output = ()> + Send>>;

/// Worker threads of the stream runtime: one per core.
pub(crate) fn workers() -> usize {
    std::thread::available_parallelism().map_or(2, usize::from)
}

/// The runtime the stream contestants run on: multi-thread, one worker per core, timers enabled.
pub(crate) fn runtime() -> Result<Runtime, RunError> {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(workers())
        .enable_time()
        .build()
        .map_err(|e| RunError::Broken(format!("could not start the tokio runtime: {e}")))
}

/// Run `job` in `shape` on `runtime`; `go` is called right before the pipeline starts. Returns once every call
/// is answered, or once the deadline passed and every outstanding call was let go.
pub(crate) fn run<M: JobMeter>(
    runtime: &Runtime,
    shape: StreamShape,
    free: bool,
    job: &Job<M>,
    go: &mut dyn FnMut(),
) -> Result<(), RunError> {
    let work = pipeline(shape, free, job.clone());
    let work: Work = if free { Box::pin(unconstrained(work)) } else { work };
    go();
    // The time budget, or the caller's cancellation: the pipeline is dropped either way.
    let finished = runtime.block_on(async { until_cut(tokio::spawn(work), job.deadline.reached()).await });
    match finished {
        Ok(true) => Ok(()),
        Ok(false) => settle(runtime),
        Err(e) => Err(RunError::Broken(format!("the pipeline task failed: {e}"))),
    }
}

/// Await `task` to its end (`Ok(true)`), or, if `cut` comes first, abort it and await its going (`Ok(false)`).
pub(crate) async fn until_cut(mut task: JoinHandle<()>, cut: impl Future) -> Result<bool, JoinError> {
    tokio::select! {
        biased;
        joined = &mut task => joined.map(|()| true),
        _ = cut => {
            task.abort();
            match task.await {
                Err(e) if e.is_cancelled() => Ok(false),
                other => other.map(|()| false),
            }
        }
    }
}

/// After a cut: wait until no task is alive on the runtime (tasks already spawned finish their call; calls
/// held by the aborted pipeline were dropped with it).
fn settle(runtime: &Runtime) -> Result<(), RunError> {
    let alive = || runtime.metrics().num_alive_tasks();
    runtime.block_on(async {
        let give_up = tokio::time::Instant::now() + RELEASE_GRACE;
        while alive() > 0 {
            if tokio::time::Instant::now() >= give_up {
                return Err(RunError::Broken(format!(
                    "{} tasks still alive {RELEASE_GRACE:?} after the deadline",
                    alive()
                )));
            }
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
        Ok(())
    })
}

/// The pipeline of `shape` over `job`, as one future.
fn pipeline<M: JobMeter>(shape: StreamShape, free: bool, job: Job<M>) -> Work {
    match shape {
        StreamShape::Buffered => Box::pin(async move { drain(&job, 0..job.items, job.limit, true).await }),
        StreamShape::BufferUnordered => Box::pin(async move { drain(&job, 0..job.items, job.limit, false).await }),
        StreamShape::PerWorkerUnordered => Box::pin(async move {
            let shards = workers().min(job.limit.max(1));
            let tasks: Vec<_> = (0..shards).map(|k| spawn(free, unordered_share(job.clone(), k, shards))).collect();
            let _aborts: Vec<_> = tasks.iter().map(|t| AbortOnDrop(t.abort_handle())).collect();
            for task in tasks {
                let _ = task.await;
            }
        }),
        // Never reached: `Prepared::run` runs this shape on its own shards ([`super::thread_per_core`]). On one
        // runtime it would be a single shard.
        StreamShape::ThreadPerCore => Box::pin(unordered_share(job, 0, 1)),
        StreamShape::Tasks => Box::pin(async move {
            let permits = Arc::new(Semaphore::new(job.limit));
            for i in 0..job.items {
                let Ok(permit) = Arc::clone(&permits).acquire_owned().await else { return };
                spawn_call(free, &job, i, permit);
            }
            let all = u32::try_from(job.limit).unwrap_or(u32::MAX);
            let _ = permits.acquire_many(all).await;
        }),
        StreamShape::ChannelWorkers => Box::pin(async move {
            let (tx, rx) = flume::bounded::<u64>(job.limit);
            let workers: Vec<_> = (0..job.limit)
                .map(|_| {
                    let (rx, call, shared) = (rx.clone(), job.call.clone(), Arc::clone(&job.shared));
                    spawn(free, async move {
                        while let Ok(i) = rx.recv_async().await {
                            let in_flight = shared.in_flight();
                            shared.record(call.call_async(i).await);
                            drop(in_flight);
                        }
                    })
                })
                .collect();
            drop(rx);
            let _aborts: Vec<_> = workers.iter().map(|w| AbortOnDrop(w.abort_handle())).collect();
            for i in 0..job.items {
                if tx.send_async(i).await.is_err() {
                    break;
                }
            }
            drop(tx);
            for worker in workers {
                let _ = worker.await;
            }
        }),
        StreamShape::Unbounded => Box::pin(async move {
            // Spawning does not yield, so the loop itself stops at the deadline (the abort cannot land in it).
            let tasks: Vec<_> =
                (0..job.items).take_while(|_| !job.deadline.passed()).map(|i| spawn_call(free, &job, i, ())).collect();
            for task in tasks {
                let _ = task.await;
            }
        }),
    }
}

/// Shard `k` of `shards`: `stream::iter(every shards-th item from k).map(call).buffer_unordered(its share)`,
/// the limit split as evenly as it goes (the first `limit % shards` shards take one more), so the shares add up
/// to the limit; `shards` at most the limit.
pub(crate) fn unordered_share<M: JobMeter>(
    job: Job<M>,
    k: usize,
    shards: usize,
) -> impl Future<Output = ()> + Send + 'static {
    let shards = shards.max(1);
    let limit = (job.limit / shards + usize::from(k < job.limit % shards)).max(1);
    async move { drain(&job, (k as u64..job.items).step_by(shards), limit, false).await }
}

/// `stream::iter(inputs).map(call)`, at most `limit` calls at once, answers in input order (`buffered`) when
/// `ordered`, else as they come (`buffer_unordered`), each recorded as it comes out.
async fn drain<M: JobMeter>(job: &Job<M>, inputs: impl Iterator<Item = u64>, limit: usize, ordered: bool) {
    let Job { call, shared, .. } = job;
    let calls = futures::stream::iter(inputs).map(|i| {
        let in_flight = shared.in_flight();
        async move { (call.call_async(i).await, in_flight) }
    });
    if ordered {
        record(shared, calls.buffered(limit)).await;
    } else {
        record(shared, calls.buffer_unordered(limit)).await;
    }
}

/// Record every answer of `answers`, letting go of its call's slot once it is counted.
async fn record<M: JobMeter>(
    shared: &Shared<M>,
    mut answers: impl Stream<Item = (Result<u64, CallFailed>, InFlight<'_, M>)> + Unpin,
) {
    while let Some((answer, in_flight)) = answers.next().await {
        shared.record(answer);
        drop(in_flight);
    }
}

/// Spawn `task`, wrapped in `unconstrained` when the contestant runs free of the budget.
pub(crate) fn spawn<F>(free: bool, task: F) -> JoinHandle<()>
where
    F: Future<Output = ()> + Send + 'static,
{
    if free {
        tokio::spawn(unconstrained(task))
    } else {
        tokio::spawn(task)
    }
}

/// Spawn item `i`'s call as a task of its own, counted outstanding until its answer is recorded; `held` (the
/// task's permit, if any) is let go right after.
fn spawn_call<M: JobMeter>(free: bool, job: &Job<M>, i: u64, held: impl Send + 'static) -> JoinHandle<()> {
    let in_flight = job.shared.in_flight_owned();
    let (call, shared) = (job.call.clone(), Arc::clone(&job.shared));
    spawn(free, async move {
        shared.record(call.call_async(i).await);
        drop(in_flight);
        drop(held);
    })
}

/// Aborts a worker task when the pipeline that owns it is dropped (aborted at the deadline), so no worker
/// outlives its run waiting on a channel.
struct AbortOnDrop(tokio::task::AbortHandle);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// `n` calls of `job`'s kind one after another on `runtime`, each timed: an idle call's real duration.
pub(crate) fn idle_calls<M: JobMeter>(runtime: &Runtime, job: &Job<M>, n: u32) -> Vec<Duration> {
    runtime.block_on(runtime.spawn(timed_calls(job.call.clone(), n))).unwrap_or_default()
}

/// `n` calls through `call` one after another, each timed (what [`idle_calls`] runs, on whichever runtime).
pub(crate) async fn timed_calls(call: crate::call::Call, n: u32) -> Vec<Duration> {
    let mut times = Vec::with_capacity(n as usize);
    for i in 0..n {
        let started = std::time::Instant::now();
        let _ = call.call_async(u64::from(i)).await;
        times.push(started.elapsed());
    }
    times
}
