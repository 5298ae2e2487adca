//! The per-cause A/B variants of the task bare pairs (`stream-flume-bare-<cause>` and `stream-tokio-bare-control`, role `reference`, run only when `--only` names them): `stream-flume`'s bare pair with one of the lab contestant's differences put back each, and an A/A control of each task pair.
//!
//! The differences between `stream-flume` (`super::two_tasks`, `crate::pair::two_tasks`,
//! `crate::produce::produce_async`, `crate::consume::consume_stream`, `crate::message`) and its bare pair
//! (`super::bare`), one variant each:
//!
//! | suffix | what it puts back |
//! |---|---|
//! | `-control` | nothing: the bare program again through this file's generic code (an A/A; `stream-tokio-bare-control` is the tokio pair's) |
//! | `-started-before` | the lab's start: both tasks spawned before the clock, the consumer free to start waiting on the empty channel, the producer's task awaiting a `tokio::sync::oneshot` sent right after `go` (`two_tasks`); the bare pair spawns both after `go` |
//! | `-lab-spawn` | how the lab spawns its tasks (still after `go`): `crate::pair::spawn_guarded`, each task's future wrapped in one holding a `LiveStages` guard |
//! | `-lab-message` | the lab's message type: `Result<u64, Infallible>` (the layout of a `u64`) instead of `u64` |
//! | `-lab-loops` | the lab's producer and consumer loops (`produce_async` with its `Cursor`, `PerItem`, `Clean` producer, `NoMeter` and `AsyncTx`; `consume_stream` into a `SumSink` or `TakeSink`) over the same `u64` channel, the consumer's stream being `recv_async` through `futures::stream::unfold` (the stream `consume_stream` needs; the lab's own stream is `-into-stream`) |
//! | `-into-stream` | the lab's receiving end: the consumer polls `Receiver::into_stream()` with `StreamExt::next` instead of awaiting `recv_async` |
//!
//! Not put back, because they are not on the per-item path: the lab builds the channel and the two futures before
//! `block_on` (the bare pair inside it), its consumer task returns a `Result` and its run goes through `dispatch`.
//! Both pairs run on the same runtime (`pipelines::stream::runtime::multi_thread`, built in `prepare`), join the
//! consumer then the producer, and size the channel to `capacity` messages.
//!
//! Every variant, the control included, sends through `crate::produce::AsyncTx` (an `async fn` wrapper over
//! `send_async`), as the lab's pair does, so the control tells whether that, or this file's generic code, differs
//! from `super::bare`'s direct calls. Like the bare pairs they carry no meter and no fault injection: `checksum`
//! and `exactly_once` apply, the checks that need a meter or a fault say they are not applicable. `just
//! fidelity-ab` runs them beside their pairs. The contestant they are, name, listing and runtime included, is
//! `super::bare`'s `Bare` with a `Cause` (`super::bare_ab`).

use std::convert::Infallible;
use std::pin::pin;

use futures::StreamExt;
use measure::meter::NoMeter;
use pipelines::sink::TakeSink;
use tokio::runtime::Handle;

use super::bare_ab::Cause;
use super::bare_run::{join_tasks, receive, BareRun};
use super::two_tasks::AsyncChannel;
use crate::consume::{consume_stream, SumSink};
use crate::job::{Consumer, HandoffError, Outcome};
use crate::message::{Clean, PerItem};
use crate::pair::spawn_guarded;
use crate::produce::{produce_async, AsyncTx, Closed};

/// The program of the task pair `C` with `cause` put back.
pub(super) async fn run_cause<C: AsyncChannel>(cause: Cause, run: BareRun<'_>) -> Result<Outcome, HandoffError> {
    match cause {
        Cause::Control => control::<C>(run).await,
        Cause::StartedBefore => started_before::<C>(run).await,
        Cause::LabSpawn => lab_spawn::<C>(run).await,
        Cause::LabMessage => lab_message::<C>(run).await,
        Cause::LabLoops => lab_loops::<C>(run).await,
        Cause::IntoStream => into_stream::<C>(run).await,
        Cause::ConsumerSpawned => Err(HandoffError::Prepare {
            contestant: "a task pair's A/B variant".to_string(),
            message: "`consumer-spawned` is a thread pair's cause".to_string(),
        }),
    }
}

/// The bare pair: `go`, spawn the producer task, spawn the consumer task, await both.
async fn control<C: AsyncChannel>(run: BareRun<'_>) -> Result<Outcome, HandoffError> {
    let BareRun { capacity, items, consumer, go, .. } = run;
    let (mut tx, mut rx) = C::bounded::<u64>(capacity);
    go();
    let producer = tokio::spawn(async move { send_all(&mut tx, items, |i| i).await });
    let consuming = tokio::spawn(async move { receive!(consumer, C::recv(&mut rx).await) });
    join_tasks(producer, consuming).await
}

/// The bare pair with the lab's start: both tasks spawned first, the producer's held on a oneshot until `go`.
async fn started_before<C: AsyncChannel>(run: BareRun<'_>) -> Result<Outcome, HandoffError> {
    let BareRun { capacity, items, consumer, go, .. } = run;
    let (mut tx, mut rx) = C::bounded::<u64>(capacity);
    let (start, held) = tokio::sync::oneshot::channel::<()>();
    let producer = tokio::spawn(async move {
        if held.await.is_ok() {
            send_all(&mut tx, items, |i| i).await;
        }
    });
    let consuming = tokio::spawn(async move { receive!(consumer, C::recv(&mut rx).await) });
    go();
    // The producer task holds the receiver until this send: it cannot have gone.
    let _ = start.send(());
    join_tasks(producer, consuming).await
}

/// The bare pair with its tasks spawned as the lab spawns them: `spawn_guarded`, each counted live.
async fn lab_spawn<C: AsyncChannel>(run: BareRun<'_>) -> Result<Outcome, HandoffError> {
    let BareRun { capacity, items, consumer, live, go } = run;
    let (mut tx, mut rx) = C::bounded::<u64>(capacity);
    go();
    let handle = Handle::current();
    let producer = spawn_guarded(&handle, live, async move { send_all(&mut tx, items, |i| i).await });
    let consuming = spawn_guarded(&handle, live, async move { receive!(consumer, C::recv(&mut rx).await) });
    join_tasks(producer, consuming).await
}

/// The bare pair sending the lab's message type, `Result<u64, Infallible>`.
async fn lab_message<C: AsyncChannel>(run: BareRun<'_>) -> Result<Outcome, HandoffError> {
    let BareRun { capacity, items, consumer, go, .. } = run;
    let (mut tx, mut rx) = C::bounded::<Result<u64, Infallible>>(capacity);
    go();
    let producer = tokio::spawn(async move { send_all(&mut tx, items, Ok).await });
    let consuming = tokio::spawn(async move {
        receive!(consumer, C::recv(&mut rx).await.map(|m| m.unwrap_or_else(|never| match never {})))
    });
    join_tasks(producer, consuming).await
}

/// A `u64` sender as the lab's loops see it: it takes `Result<u64, Infallible>` and sends the `u64`.
struct Unwrapped<S>(S);

impl<S: AsyncTx<u64>> AsyncTx<Result<u64, Infallible>> for Unwrapped<S> {
    #[inline]
    async fn transmit(&mut self, value: Result<u64, Infallible>) -> Result<(), Closed> {
        self.0.transmit(value.unwrap_or_else(|never| match never {})).await
    }
}

/// The bare pair with the lab's loops: `produce_async` in the producer task, `consume_stream` in the consumer
/// task over `recv_async` as a stream (`stream::unfold`), on a `u64` channel.
async fn lab_loops<C: AsyncChannel>(run: BareRun<'_>) -> Result<Outcome, HandoffError> {
    let BareRun { capacity, items, consumer, go, .. } = run;
    let (tx, rx) = C::bounded::<u64>(capacity);
    go();
    let producer = tokio::spawn(produce_async(PerItem, Clean, items, NoMeter, Unwrapped(tx)));
    let consuming = tokio::spawn(async move {
        let messages = futures::stream::unfold(rx, |mut rx| async move {
            C::recv(&mut rx).await.map(|v| (Ok::<u64, Infallible>(v), rx))
        });
        match consumer {
            Consumer::Sum => consume_stream(PerItem, messages, &NoMeter, SumSink::default()).await,
            Consumer::Collect | Consumer::Cancellable => {
                consume_stream(PerItem, messages, &NoMeter, TakeSink::all()).await
            }
            Consumer::Take(k) => consume_stream(PerItem, messages, &NoMeter, TakeSink::first(k)).await,
        }
    });
    join_tasks(producer, consuming).await?
}

/// The bare pair with the consumer polling the receiver as the lab's stream, with `StreamExt::next`.
async fn into_stream<C: AsyncChannel>(run: BareRun<'_>) -> Result<Outcome, HandoffError> {
    let BareRun { capacity, items, consumer, go, .. } = run;
    let (mut tx, rx) = C::bounded::<u64>(capacity);
    go();
    let producer = tokio::spawn(async move { send_all(&mut tx, items, |i| i).await });
    let consuming = tokio::spawn(async move {
        let mut messages = pin!(C::stream(rx));
        receive!(consumer, messages.next().await)
    });
    join_tasks(producer, consuming).await
}

/// The bare producer loop: send `message(i)` for `i` in `0..items`, stopping when the receiver is gone.
#[inline(always)]
async fn send_all<T: Send, S: AsyncTx<T>>(tx: &mut S, items: u64, message: impl Fn(u64) -> T) {
    for i in 0..items {
        if tx.transmit(message(i)).await.is_err() {
            break;
        }
    }
}
