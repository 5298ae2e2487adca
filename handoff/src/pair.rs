//! How the two ends of a hand-off are started, joined and their failures combined, once per arrangement:
//!
//! - [`two_tasks`]: a producer task and a consumer task spawned on the current tokio runtime; the caller awaits
//!   both.
//! - [`spawn_guarded`]: spawn a task that counts as live in [`LiveStages`] until it ends.
//!
//! Every arrangement joins every thread and task it started before returning, and [`settle`] combines the two
//! ends: a producer that panicked makes the run fail even though its consumer saw a tidy end of stream
//! (a dropped sender looks exactly like a finished one), otherwise the consumer's result stands (which is the
//! producer's error when the producer failed in-band).

use std::future::Future;
use std::sync::Arc;

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
