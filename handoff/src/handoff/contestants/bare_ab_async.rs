//! The per-cause A/B variants of the task bare pairs (`stream-flume-bare-<cause>` and `stream-tokio-bare-control`, role `reference`, run only when `--only` names them): `stream-flume`'s bare pair with one of the lab contestant's differences put back each, and an A/A control of each task pair.
//!
//! The differences between `stream-flume` (`super::flume_async`, `crate::pair::two_tasks`,
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
//! fidelity-ab` runs them beside their pairs.

use std::convert::Infallible;
use std::fmt;
use std::future::Future;
use std::pin::pin;
use std::sync::Arc;

use futures::{Stream, StreamExt};
use measure::meter::{GaugeMeter, NoMeter};
use measure::summary::{ContestantInfo, Family, Role};
use pipelines::sink::TakeSink;
use pipelines::LiveStages;
use tokio::runtime::{Handle, Runtime};
use tokio::task::JoinHandle;

use super::bare::{Channel, BARE_SUFFIX};
use super::{HandoffContestant, PreparedHandoff};
use crate::consume::{consume_stream, SumSink};
use crate::job::{Consumer, HandoffConfig, HandoffError, Job, Outcome, Side};
use crate::message::{Clean, PerItem};
use crate::pair::spawn_guarded;
use crate::produce::{produce_async, AsyncTx, Closed};

/// The one difference a variant puts back into its bare pair.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Cause {
    /// None: the A/A control.
    Control,
    /// Both tasks spawned before the clock, the producer released by a oneshot.
    StartedBefore,
    /// The tasks spawned (after the clock) as the lab spawns them: guarded, counted live.
    LabSpawn,
    /// `Result<u64, Infallible>` messages.
    LabMessage,
    /// The lab's `produce_async` and `consume_stream` loops.
    LabLoops,
    /// The consumer polls the receiver as a stream.
    IntoStream,
}

/// Each task pair with variants, and its causes in listing order (the control first).
const PAIRS: [(Channel, &[Cause]); 2] = [
    (
        Channel::FlumeAsync,
        &[Cause::Control, Cause::StartedBefore, Cause::LabSpawn, Cause::LabMessage, Cause::LabLoops, Cause::IntoStream],
    ),
    (Channel::TokioMpsc, &[Cause::Control]),
];

impl Cause {
    fn suffix(self) -> &'static str {
        match self {
            Cause::Control => "control",
            Cause::StartedBefore => "started-before",
            Cause::LabSpawn => "lab-spawn",
            Cause::LabMessage => "lab-message",
            Cause::LabLoops => "lab-loops",
            Cause::IntoStream => "into-stream",
        }
    }

    fn describe(self) -> &'static str {
        match self {
            Cause::Control => {
                "nothing changed: the bare program again through the A/B file's generic code (an A/A control)"
            }
            Cause::StartedBefore => {
                "both tasks are spawned before the clock and the producer's task awaits a oneshot sent right after \
                 `go`, as in the lab's pair"
            }
            Cause::LabSpawn => {
                "both tasks are spawned after the clock as in the bare pair, but the way the lab spawns them: \
                 `spawn_guarded`, each holding a `LiveStages` guard"
            }
            Cause::LabMessage => {
                "the channel carries the lab's message type, `Result<u64, Infallible>` (the layout of a `u64`)"
            }
            Cause::LabLoops => {
                "the lab's producer loop (`produce_async`: `Cursor`, `PerItem`, `Clean`, `NoMeter`) and consumer loop \
                 (`consume_stream` over `recv_async` through `stream::unfold`, into `SumSink`) over the same `u64` \
                 channel"
            }
            Cause::IntoStream => {
                "the consumer polls `Receiver::into_stream()` with `StreamExt::next` (tokio: a `ReceiverStream`) \
                 instead of awaiting `recv_async`, as in the lab's pair"
            }
        }
    }
}

/// Every variant, in listing order: flume's, then tokio's control.
pub(crate) fn all() -> Vec<Arc<dyn HandoffContestant>> {
    variants().into_iter().map(|v| Arc::new(v) as Arc<dyn HandoffContestant>).collect()
}

fn variants() -> Vec<Variant> {
    PAIRS.iter().flat_map(|&(channel, causes)| causes.iter().map(move |&cause| Variant { channel, cause })).collect()
}

/// Every variant as the report reads it, in listing order.
pub(crate) fn listing() -> Vec<super::AbVariant> {
    variants()
        .into_iter()
        .map(|v| super::AbVariant {
            lab: v.channel.twin(),
            bare: format!("{}{BARE_SUFFIX}", v.channel.twin()),
            name: v.name(),
            cause: v.cause.suffix(),
            control: v.cause == Cause::Control,
            tasks: true,
        })
        .collect()
}

/// A task bare pair with one cause put back, as the registry lists it.
#[derive(Debug, Clone, Copy)]
struct Variant {
    channel: Channel,
    cause: Cause,
}

impl Variant {
    fn name(&self) -> String {
        format!("{}{BARE_SUFFIX}-{}", self.channel.twin(), self.cause.suffix())
    }
}

impl HandoffContestant for Variant {
    fn info(&self) -> ContestantInfo {
        let description = format!(
            "{}; else `{}{BARE_SUFFIX}` as it is (an A/B variant that differs from its bare pair in this one thing; \
             run only when `--only` names it; calibration)",
            self.cause.describe(),
            self.channel.twin()
        );
        ContestantInfo::new(self.name(), Family::Stream, description).with_role(Role::Reference)
    }

    /// No meter, as the bare pair: the bounded-outstanding check is not applicable.
    fn bound(&self, _: &HandoffConfig) -> Option<u64> {
        None
    }

    fn items_per_message(&self, _: &HandoffConfig) -> Option<usize> {
        Some(1)
    }

    fn prepare(&self, config: &HandoffConfig) -> Result<Box<dyn PreparedHandoff>, HandoffError> {
        let runtime = pipelines::stream::runtime::multi_thread()
            .map_err(|e| HandoffError::Prepare { contestant: self.name(), message: e.to_string() })?;
        Ok(Box::new(PreparedVariant { variant: *self, capacity: config.capacity.max(1), runtime }))
    }
}

/// A variant with its runtime built.
struct PreparedVariant {
    variant: Variant,
    capacity: usize,
    runtime: Runtime,
}

impl fmt::Debug for PreparedVariant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PreparedVariant").field("name", &self.variant.name()).field("capacity", &self.capacity).finish()
    }
}

impl PreparedHandoff for PreparedVariant {
    fn run(&self, job: &Job<'_, NoMeter>, go: &mut dyn FnMut()) -> Result<Outcome, HandoffError> {
        self.run_variant(job.items, job.consumer, job.live, go)
    }

    /// The same program: it carries no meter, so the gauge is never touched.
    fn run_metered(&self, job: &Job<'_, GaugeMeter>, go: &mut dyn FnMut()) -> Result<Outcome, HandoffError> {
        self.run_variant(job.items, job.consumer, job.live, go)
    }

    fn alive_tasks(&self) -> Option<usize> {
        Some(self.runtime.metrics().num_alive_tasks())
    }
}

impl PreparedVariant {
    fn run_variant(
        &self,
        items: u64,
        consumer: Consumer,
        live: &Arc<LiveStages>,
        go: &mut dyn FnMut(),
    ) -> Result<Outcome, HandoffError> {
        let (cause, capacity) = (self.variant.cause, self.capacity);
        match self.variant.channel {
            Channel::FlumeAsync => {
                self.runtime.block_on(run_cause::<FlumeChannel>(cause, capacity, items, consumer, live, go))
            }
            Channel::TokioMpsc => {
                self.runtime.block_on(run_cause::<TokioChannel>(cause, capacity, items, consumer, live, go))
            }
            Channel::Crossbeam | Channel::FlumeSync => Err(HandoffError::Prepare {
                contestant: self.variant.name(),
                message: "these A/B variants cover the task pairs only".to_string(),
            }),
        }
    }
}

/// An async bounded channel as the variants use it: created, sent into through the lab's [`AsyncTx`], received
/// from one `await` at a time or as the stream the lab polls.
trait AsyncChannel: 'static {
    /// The sending half.
    type Tx<T: Send + 'static>: AsyncTx<T>;
    /// The receiving half.
    type Rx<T: Send + 'static>: Send + 'static;
    /// A bounded channel of `capacity` messages.
    fn bounded<T: Send + 'static>(capacity: usize) -> (Self::Tx<T>, Self::Rx<T>);
    /// The next message; `None` once every sender is gone.
    fn recv<T: Send + 'static>(rx: &mut Self::Rx<T>) -> impl Future<Output = Option<T>> + Send;
    /// The receiver as the stream the lab's contestant polls.
    fn stream<T: Send + 'static>(rx: Self::Rx<T>) -> impl Stream<Item = T> + Send + 'static;
}

/// `flume::bounded` with `send_async`/`recv_async`; the stream is `into_stream()`.
struct FlumeChannel;

impl AsyncChannel for FlumeChannel {
    type Tx<T: Send + 'static> = flume::Sender<T>;
    type Rx<T: Send + 'static> = flume::Receiver<T>;

    fn bounded<T: Send + 'static>(capacity: usize) -> (flume::Sender<T>, flume::Receiver<T>) {
        flume::bounded(capacity)
    }

    #[inline]
    async fn recv<T: Send + 'static>(rx: &mut flume::Receiver<T>) -> Option<T> {
        rx.recv_async().await.ok()
    }

    fn stream<T: Send + 'static>(rx: flume::Receiver<T>) -> impl Stream<Item = T> + Send + 'static {
        rx.into_stream()
    }
}

/// `tokio::sync::mpsc::channel`; the stream is a `ReceiverStream`.
struct TokioChannel;

impl AsyncChannel for TokioChannel {
    type Tx<T: Send + 'static> = tokio::sync::mpsc::Sender<T>;
    type Rx<T: Send + 'static> = tokio::sync::mpsc::Receiver<T>;

    fn bounded<T: Send + 'static>(capacity: usize) -> (Self::Tx<T>, Self::Rx<T>) {
        tokio::sync::mpsc::channel(capacity)
    }

    #[inline]
    async fn recv<T: Send + 'static>(rx: &mut tokio::sync::mpsc::Receiver<T>) -> Option<T> {
        rx.recv().await
    }

    fn stream<T: Send + 'static>(rx: tokio::sync::mpsc::Receiver<T>) -> impl Stream<Item = T> + Send + 'static {
        tokio_stream::wrappers::ReceiverStream::new(rx)
    }
}

/// The bare consumer loop over `$next` (an expression awaiting the next `Option<u64>`): the summing loop of
/// `super::bare` for [`Consumer::Sum`], else collecting (`Take(k)` stops after `k` items).
macro_rules! receive {
    ($consumer:expr, $next:expr) => {{
        match $consumer {
            Consumer::Sum => {
                let (mut sum, mut count, mut first_disorder) = (0u64, 0u64, None);
                while let Some(v) = $next {
                    if v != count && first_disorder.is_none() {
                        first_disorder = Some(count);
                    }
                    sum = sum.wrapping_add(v);
                    count += 1;
                }
                Outcome::Sum { sum, count, first_disorder }
            }
            // A bare pair has no cancel to listen for (its `caller_cancel` check is not applicable): it collects.
            Consumer::Collect | Consumer::Cancellable => {
                let mut items = Vec::new();
                while let Some(v) = $next {
                    items.push(v);
                }
                Outcome::Items(items)
            }
            Consumer::Take(k) => {
                let mut items = Vec::new();
                while items.len() < k {
                    match $next {
                        Some(v) => items.push(v),
                        None => break,
                    }
                }
                Outcome::Items(items)
            }
        }
    }};
}

async fn run_cause<C: AsyncChannel>(
    cause: Cause,
    capacity: usize,
    items: u64,
    consumer: Consumer,
    live: &Arc<LiveStages>,
    go: &mut dyn FnMut(),
) -> Result<Outcome, HandoffError> {
    match cause {
        Cause::Control => control::<C>(capacity, items, consumer, go).await,
        Cause::StartedBefore => started_before::<C>(capacity, items, consumer, go).await,
        Cause::LabSpawn => lab_spawn::<C>(capacity, items, consumer, live, go).await,
        Cause::LabMessage => lab_message::<C>(capacity, items, consumer, go).await,
        Cause::LabLoops => lab_loops::<C>(capacity, items, consumer, go).await,
        Cause::IntoStream => into_stream::<C>(capacity, items, consumer, go).await,
    }
}

/// The bare pair: `go`, spawn the producer task, spawn the consumer task, await both.
async fn control<C: AsyncChannel>(
    capacity: usize,
    items: u64,
    consumer: Consumer,
    go: &mut dyn FnMut(),
) -> Result<Outcome, HandoffError> {
    let (mut tx, mut rx) = C::bounded::<u64>(capacity);
    go();
    let producer = tokio::spawn(async move { send_all(&mut tx, items, |i| i).await });
    let consuming = tokio::spawn(async move { receive!(consumer, C::recv(&mut rx).await) });
    join_tasks(producer, consuming).await
}

/// The bare pair with the lab's start: both tasks spawned first, the producer's held on a oneshot until `go`.
async fn started_before<C: AsyncChannel>(
    capacity: usize,
    items: u64,
    consumer: Consumer,
    go: &mut dyn FnMut(),
) -> Result<Outcome, HandoffError> {
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
async fn lab_spawn<C: AsyncChannel>(
    capacity: usize,
    items: u64,
    consumer: Consumer,
    live: &Arc<LiveStages>,
    go: &mut dyn FnMut(),
) -> Result<Outcome, HandoffError> {
    let (mut tx, mut rx) = C::bounded::<u64>(capacity);
    go();
    let handle = Handle::current();
    let producer = spawn_guarded(&handle, live, async move { send_all(&mut tx, items, |i| i).await });
    let consuming = spawn_guarded(&handle, live, async move { receive!(consumer, C::recv(&mut rx).await) });
    join_tasks(producer, consuming).await
}

/// The bare pair sending the lab's message type, `Result<u64, Infallible>`.
async fn lab_message<C: AsyncChannel>(
    capacity: usize,
    items: u64,
    consumer: Consumer,
    go: &mut dyn FnMut(),
) -> Result<Outcome, HandoffError> {
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
async fn lab_loops<C: AsyncChannel>(
    capacity: usize,
    items: u64,
    consumer: Consumer,
    go: &mut dyn FnMut(),
) -> Result<Outcome, HandoffError> {
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
async fn into_stream<C: AsyncChannel>(
    capacity: usize,
    items: u64,
    consumer: Consumer,
    go: &mut dyn FnMut(),
) -> Result<Outcome, HandoffError> {
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

/// Await the consumer, then the producer, as the bare pair and the lab's pair do.
async fn join_tasks<T>(producer: JoinHandle<()>, consumer: JoinHandle<T>) -> Result<T, HandoffError> {
    let consumed = consumer.await.map_err(|e| HandoffError::from_join(Side::Consumer, e));
    producer.await.map_err(|e| HandoffError::from_join(Side::Producer, e))?;
    consumed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_variant_is_an_on_request_reference_named_after_its_bare_pair() {
        let listed: Vec<String> = super::super::contestants().iter().map(|c| c.info().name).collect();
        let infos: Vec<ContestantInfo> = all().iter().map(|c| c.info()).collect();
        let mut names: Vec<&str> = infos.iter().map(|i| i.name.as_str()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), infos.len(), "names are unique");
        assert!(names.contains(&"stream-flume-bare-into-stream") && names.contains(&"stream-tokio-bare-control"));
        for info in &infos {
            assert_eq!(info.role, Role::Reference, "{}", info.name);
            assert_eq!(info.family, Family::Stream, "{}", info.name);
            assert!(!listed.contains(&info.name), "{} must not be in the default run", info.name);
            assert!(super::super::find(&info.name).is_some(), "{} is found for its trial", info.name);
        }
    }

    #[test]
    fn a_take_consumer_stops_after_k_and_every_task_ends() {
        let live = Arc::new(LiveStages::new());
        for variant in variants() {
            let prepared = PreparedVariant { variant, capacity: 1, runtime: multi() };
            let out = prepared.run_variant(100_000, Consumer::Take(3), &live, &mut || {});
            assert_eq!(out.ok(), Some(Outcome::Items(vec![0, 1, 2])), "{}", variant.name());
        }
        assert_eq!(live.current(), 0);
    }

    #[test]
    fn a_summing_consumer_gets_every_item_in_order() {
        let live = Arc::new(LiveStages::new());
        for variant in variants() {
            let prepared = PreparedVariant { variant, capacity: 4, runtime: multi() };
            let out = prepared.run_variant(1_000, Consumer::Sum, &live, &mut || {});
            let expected = Outcome::Sum { sum: 999 * 1_000 / 2, count: 1_000, first_disorder: None };
            assert_eq!(out.ok(), Some(expected), "{}", variant.name());
        }
    }

    fn multi() -> Runtime {
        pipelines::stream::runtime::multi_thread().expect("a runtime")
    }
}
