//! How the two ends of a hand-off are started, joined and their failures combined, once per arrangement:
//!
//! - [`two_tasks`]: a producer task and a consumer task spawned on the current tokio runtime; the caller awaits
//!   both.
//! - [`spawn_guarded`]: spawn a task that counts as live in [`LiveStages`] until it ends.
//! - [`spawn_producer`]: spawn a scoped producer thread, counted live.
//!
//! Every arrangement spawns its ends after the run has called `go`, as a program of the pair's own does (the
//! `standalone` crate's). A thread or task spawned before the clock and released by the consumer at a start
//! line is woken by the consumer's thread, and the scheduler then places it beside its waker: the pair ran on
//! one CPU where the program ran on two (`just fidelity-ab`'s `started-before` variants keep that A/B). Spawning
//! costs tens of microseconds, under 0.5% of an iteration of a million items.
//!
//! Every arrangement joins every thread and task it started before returning, and [`settle`] combines the two
//! ends: a producer that panicked makes the run fail even though its consumer saw a tidy end of stream
//! (a dropped sender looks exactly like a finished one), otherwise the consumer's result stands (which is the
//! producer's error when the producer failed in-band).

use std::future::Future;
use std::sync::Arc;
use std::thread::{self, Scope, ScopedJoinHandle};

use pipelines::LiveStages;
use tokio::runtime::Handle;
use tokio::task::JoinHandle;

use crate::job::{HandoffError, Outcome, Side};

/// The run's result from the consumer's result and how the producer ended.
pub(crate) fn settle(
    consumed: Result<Outcome, HandoffError>,
    produced: Result<(), HandoffError>,
) -> Result<Outcome, HandoffError> {
    produced?;
    consumed
}

/// Spawn `body` on `handle`'s runtime, holding a guard of `live` until it ends.
pub(crate) fn spawn_guarded<T: Send + 'static>(
    handle: &Handle,
    live: &Arc<LiveStages>,
    body: impl Future<Output = T> + Send + 'static,
) -> JoinHandle<T> {
    let guard = live.enter();
    handle.spawn(async move {
        let _guard = guard;
        body.await
    })
}

/// Spawn `body` on a scoped thread named `producer`, counted in `live` until it ends; join it with
/// [`join_producer`]. Call it after `go`.
pub(crate) fn spawn_producer<'scope>(
    scope: &'scope Scope<'scope, '_>,
    live: &Arc<LiveStages>,
    body: impl FnOnce() + Send + 'scope,
) -> Result<ScopedJoinHandle<'scope, ()>, HandoffError> {
    let guard = live.enter();
    thread::Builder::new()
        .name("producer".to_string())
        .spawn_scoped(scope, move || {
            let _guard = guard;
            body();
        })
        .map_err(|source| HandoffError::Spawn { side: Side::Producer, source })
}

/// Join a producer thread from [`spawn_producer`]: its panic is the run's error.
pub(crate) fn join_producer(producer: ScopedJoinHandle<'_, ()>) -> Result<(), HandoffError> {
    producer.join().map_err(|p| HandoffError::from_panic(Side::Producer, &*p))
}

/// Call `go`, then spawn `producer` and `consumer` as two tasks on the current runtime (both counted in `live`),
/// await the consumer, then the producer, and settle. Call it inside `Runtime::block_on`.
pub(crate) async fn two_tasks(
    live: &Arc<LiveStages>,
    go: &mut dyn FnMut(),
    producer: impl Future<Output = ()> + Send + 'static,
    consumer: impl Future<Output = Result<Outcome, HandoffError>> + Send + 'static,
) -> Result<Outcome, HandoffError> {
    let handle = Handle::current();
    go();
    let producer = spawn_guarded(&handle, live, producer);
    let consumer = spawn_guarded(&handle, live, consumer);
    let consumed = consumer.await.unwrap_or_else(|e| Err(HandoffError::from_join(Side::Consumer, e)));
    let produced = producer.await.map_err(|e| HandoffError::from_join(Side::Producer, e));
    settle(consumed, produced)
}
