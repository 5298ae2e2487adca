//! How the two ends of a hand-off are started, joined and their failures combined, once per arrangement:
//!
//! - [`thread_to_caller`]: a producer thread sends through a blocking channel; the calling thread consumes.
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
use std::thread;

use measure::meter::Meter;
use pipelines::blocking::Flavor;
use pipelines::start_line::{Opener, StartLine};
use pipelines::LiveStages;
use tokio::runtime::Handle;
use tokio::task::JoinHandle;

use crate::consume::{consume, Sink};
use crate::job::{HandoffConfig, HandoffError, Job, Outcome, Side};
use crate::produce::{produce, Closed, Producer, Shape};

/// The run's result from the consumer's result and how the producer ended.
pub(crate) fn settle(
    consumed: Result<Outcome, HandoffError>,
    produced: Result<(), HandoffError>,
) -> Result<Outcome, HandoffError> {
    produced?;
    consumed
}

/// A producer thread (in a `std::thread::scope`, counted in `job.live`) is spawned and waits at a start line;
/// once it is there the calling thread calls `go` and releases it. It sends `shape` messages into a bounded
/// channel of flavor `F` holding `config.messages(..)` messages; the calling thread receives them with the
/// flavor's blocking `recv`, consumes them into `sink`, drops the receiver and joins the producer.
pub(crate) fn thread_to_caller<F: Flavor, M: Meter, Sh: Shape, P: Producer, S: Sink>(
    config: &HandoffConfig,
    shape: Sh,
    job: &Job<'_, M>,
    go: &mut dyn FnMut(),
    producer: P,
    sink: S,
) -> Result<Outcome, HandoffError> {
    let (tx, rx) = F::bounded::<Result<Sh::Msg, P::Error>>(config.messages(shape.items_per_message()));
    let meter = &job.meter;
    let items = job.items;
    let guard = job.live.enter();
    let opener = Opener::new(std::sync::Arc::new(StartLine::default()));
    let line = std::sync::Arc::clone(opener.line());
    thread::scope(|scope| {
        let producer_thread = thread::Builder::new()
            .name("producer".to_string())
            .spawn_scoped(scope, move || {
                let _guard = guard;
                line.arrive();
                line.wait_open();
                produce(shape, &producer, items, meter, |m| F::send(&tx, m).map_err(|_| Closed));
            })
            .map_err(|source| HandoffError::Spawn { side: Side::Producer, source })?;
        opener.line().wait_arrived(1);
        go();
        drop(opener);
        let consumed = consume(shape, std::iter::from_fn(move || F::recv(&rx)), meter, sink);
        let produced = producer_thread.join().map_err(|p| HandoffError::from_panic(Side::Producer, &*p));
        settle(consumed, produced)
    })
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
