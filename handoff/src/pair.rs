//! How the two ends of a hand-off are started, joined and their failures combined, once per arrangement:
//!
//! - [`two_tasks`]: a producer task and a consumer task spawned on the current tokio runtime; the caller awaits
//!   both.
//! - [`spawn_guarded`]: spawn a task that counts as live in [`LiveStages`] until it ends.
//! - [`spawn_held_producer`]: spawn a scoped producer thread, counted live, that waits at a start line.
//!
//! Every arrangement joins every thread and task it started before returning, and [`settle`] combines the two
//! ends: a producer that panicked makes the run fail even though its consumer saw a tidy end of stream
//! (a dropped sender looks exactly like a finished one), otherwise the consumer's result stands (which is the
//! producer's error when the producer failed in-band).

use std::future::Future;
use std::sync::Arc;
use std::thread::{self, Scope, ScopedJoinHandle};

use pipelines::start_line::{Opener, StartLine};
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

/// Spawn `body` on a scoped thread named `producer`, counted in `live` until it ends and held at a start line
/// until the returned [`Opener`] is dropped: the caller waits for it there (`opener.line().wait_arrived(1)`),
/// calls `go`, drops the opener, and later joins the thread with [`join_producer`].
pub(crate) fn spawn_held_producer<'scope>(
    scope: &'scope Scope<'scope, '_>,
    live: &Arc<LiveStages>,
    body: impl FnOnce() + Send + 'scope,
) -> Result<(ScopedJoinHandle<'scope, ()>, Opener), HandoffError> {
    let guard = live.enter();
    let opener = Opener::new(Arc::new(StartLine::default()));
    let line = Arc::clone(opener.line());
    let producer = thread::Builder::new()
        .name("producer".to_string())
        .spawn_scoped(scope, move || {
            let _guard = guard;
            line.arrive();
            line.wait_open();
            body();
        })
        .map_err(|source| HandoffError::Spawn { side: Side::Producer, source })?;
    Ok((producer, opener))
}

/// Join a producer thread from [`spawn_held_producer`]: its panic is the run's error.
pub(crate) fn join_producer(producer: ScopedJoinHandle<'_, ()>) -> Result<(), HandoffError> {
    producer.join().map_err(|p| HandoffError::from_panic(Side::Producer, &*p))
}

/// Spawn `producer` and `consumer` as two tasks on the current runtime (both counted in `live`), the producer
/// held until `go` has been called, await the consumer, then the producer, and settle. Call it inside
/// `Runtime::block_on`.
pub(crate) async fn two_tasks(
    live: &Arc<LiveStages>,
    go: &mut dyn FnMut(),
    producer: impl Future<Output = ()> + Send + 'static,
    consumer: impl Future<Output = Result<Outcome, HandoffError>> + Send + 'static,
) -> Result<Outcome, HandoffError> {
    let handle = Handle::current();
    let (start, held) = tokio::sync::oneshot::channel::<()>();
    let producer = spawn_guarded(&handle, live, async move {
        if held.await.is_ok() {
            producer.await;
        }
    });
    let consumer = spawn_guarded(&handle, live, consumer);
    go();
    // The producer task holds the receiver until this send: it cannot have gone.
    let _ = start.send(());
    let consumed = consumer.await.unwrap_or_else(|e| Err(HandoffError::from_join(Side::Consumer, e)));
    let produced = producer.await.map_err(|e| HandoffError::from_join(Side::Producer, e));
    settle(consumed, produced)
}
