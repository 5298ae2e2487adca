//! The task pairs: a producer task awaits each send into a bounded async channel and a consumer task on the same
//! runtime polls the receiving end as a stream (`crate::pair::two_tasks`), one [`TaskPair`] each:
//! - `stream-tokio[-batched]`: a bounded `tokio::sync::mpsc` channel, polled as a
//!   `tokio_stream::wrappers::ReceiverStream`, on a multi-thread runtime;
//! - `baseline-tokio-current-thread[-batched]`: the `stream-tokio` pair on a current-thread runtime: both ends on
//!   one thread, no cross-thread hand-off at all;
//! - `stream-flume[-batched]`: `send_async` on a `flume::bounded` channel, polled as `Receiver::into_stream()`;
//! - `stream-futures[-batched]`: `SinkExt::send` into `futures::channel::mpsc::channel(messages − 1)`, which holds
//!   `messages` with its one sender, the receiver polled as the stream it is.
//!
//! Each consumer sums and checks order. [`AsyncChannel`] is also what the task bare pairs' A/B variants
//! (`super::bare_ab_async`) reach their channel through.

use std::future::Future;
use std::marker::PhantomData;

use futures::{Stream, StreamExt};
use measure::meter::Meter;

use super::{shape_phrase, Kind, Run};
use crate::consume::{consume_stream, Sink};
use crate::job::{HandoffError, Outcome, Packing};
use crate::pair::two_tasks;
use crate::produce::{produce_async, AsyncTx, Producer, Shape};

/// A task pair: its channel and what it does (the registry gives its name, family and runtime).
pub(crate) trait TaskPair: Send + Sync + 'static {
    /// The channel between the tasks.
    type Channel: AsyncChannel;
    /// What it does, up to the packing, for its description.
    const DOES: &'static str;
}

/// `stream-tokio`.
pub(crate) struct TokioMpsc;

impl TaskPair for TokioMpsc {
    type Channel = TokioChannel;
    const DOES: &'static str = "two tasks spawned on a multi-thread tokio runtime (default worker count, built once \
                                per trial): the producer awaits `Sender::send` on a bounded tokio::sync::mpsc \
                                channel, the consumer polls a tokio_stream::wrappers::ReceiverStream with \
                                `StreamExt::next`, sums and checks order";
}

/// `baseline-tokio-current-thread`.
pub(crate) struct TokioCurrentThread;

impl TaskPair for TokioCurrentThread {
    type Channel = TokioChannel;
    const DOES: &'static str = "the no-hand-off floor of the stream family, reported as a baseline: the stream-tokio \
                                pair (producer task awaiting `Sender::send` on a bounded tokio::sync::mpsc channel, \
                                consumer task polling a ReceiverStream) spawned on a current-thread tokio runtime \
                                built once per trial and driven by `block_on` on the calling thread: both ends run \
                                on one thread, taking turns when the channel fills or empties, so nothing crosses \
                                threads and no thread is ever woken";
}

/// `stream-flume`.
pub(crate) struct FlumeAsync;

impl TaskPair for FlumeAsync {
    type Channel = FlumeChannel;
    const DOES: &'static str = "two tasks spawned on a multi-thread tokio runtime (default worker count, built once \
                                per trial): the producer awaits `Sender::send_async` on a flume::bounded channel, the \
                                consumer polls `Receiver::into_stream()` with `StreamExt::next`, sums and checks \
                                order";
}

/// `stream-futures`.
pub(crate) struct FuturesMpsc;

impl TaskPair for FuturesMpsc {
    type Channel = FuturesChannel;
    const DOES: &'static str = "two tasks spawned on a multi-thread tokio runtime (default worker count, built once \
                                per trial): the producer awaits `SinkExt::send` on \
                                futures::channel::mpsc::channel(n − 1) — that channel holds its buffer plus one \
                                message per sender, so with its one sender it holds the same n messages as the \
                                others (n = 1 gives channel(0): the sender's own slot is the whole buffer; \
                                `SinkExt::send` also flushes, so it returns only once the channel is back under its \
                                buffer) — and the consumer polls the receiver as a Stream with `StreamExt::next`, \
                                sums and checks order";
}

/// Producer task → `T`'s channel → consumer task, on the runtime the registry gives it.
pub(crate) struct Tasks<T>(PhantomData<fn() -> T>);

impl<T: TaskPair> Kind for Tasks<T> {
    fn describe(packing: Packing) -> String {
        format!("{}; {}; in order", T::DOES, shape_phrase(packing))
    }

    fn run<M: Meter, Sh: Shape, P: Producer, S: Sink>(run: Run<'_, '_, M, Sh, P, S>) -> Result<Outcome, HandoffError> {
        let Run { env, shape, job, go, producer, sink } = run;
        let runtime = env.runtime()?;
        let (tx, rx) = T::Channel::bounded::<Result<Sh::Msg, P::Error>>(env.messages(shape));
        let meter = job.meter.clone();
        let producer = produce_async(shape, producer, job.items(), meter.clone(), tx);
        let consumer = async move { consume_stream(shape, T::Channel::stream(rx), &meter, sink).await };
        runtime.block_on(two_tasks(job.live, go, producer, consumer))
    }
}

/// An async bounded channel as the task pairs and the bare pairs' A/B variants use it: created, sent into
/// through the lab's [`AsyncTx`], received from one `await` at a time (the variants) or as the stream the lab's
/// consumer polls.
pub(crate) trait AsyncChannel: 'static {
    /// The sending half.
    type Tx<T: Send + 'static>: AsyncTx<T>;
    /// The receiving half.
    type Rx<T: Send + 'static>: Send + 'static;
    /// A bounded channel holding `capacity` messages.
    fn bounded<T: Send + 'static>(capacity: usize) -> (Self::Tx<T>, Self::Rx<T>);
    /// The next message; `None` once every sender is gone.
    fn recv<T: Send + 'static>(rx: &mut Self::Rx<T>) -> impl Future<Output = Option<T>> + Send;
    /// The receiver as the stream the lab's contestant polls.
    fn stream<T: Send + 'static>(rx: Self::Rx<T>) -> impl Stream<Item = T> + Send + 'static;
}

/// `flume::bounded` with `send_async`/`recv_async`; the stream is `into_stream()`.
pub(crate) struct FlumeChannel;

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
pub(crate) struct TokioChannel;

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

/// `futures::channel::mpsc::channel(capacity − 1)`, which holds its buffer plus one message per sender (so
/// `capacity` with its one sender); the receiver is itself the stream.
pub(crate) struct FuturesChannel;

/// Senders of a futures channel: each gets one guaranteed slot beyond the buffer.
const SENDERS: usize = 1;

impl AsyncChannel for FuturesChannel {
    type Tx<T: Send + 'static> = futures::channel::mpsc::Sender<T>;
    type Rx<T: Send + 'static> = futures::channel::mpsc::Receiver<T>;

    fn bounded<T: Send + 'static>(capacity: usize) -> (Self::Tx<T>, Self::Rx<T>) {
        futures::channel::mpsc::channel(capacity.saturating_sub(SENDERS))
    }

    #[inline]
    async fn recv<T: Send + 'static>(rx: &mut futures::channel::mpsc::Receiver<T>) -> Option<T> {
        rx.next().await
    }

    fn stream<T: Send + 'static>(rx: futures::channel::mpsc::Receiver<T>) -> impl Stream<Item = T> + Send + 'static {
        rx
    }
}
