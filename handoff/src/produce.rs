//! The producer end shared by every contestant: where items come from ([`Producer`]), how they are grouped into
//! messages ([`Shape`]: one item, or one `Vec` of `batch` items), and the two producer loops, blocking
//! ([`produce`]) and async ([`produce_async`]), that admit each message into the outstanding gauge and send it.
//!
//! **The payload.** Every channel carries `Result<Msg, E>`, where `Msg` is a `u64` or a `Vec<u64>` and `E` is
//! the producer's error type. A producer whose item source fails sends the items it already has, then the
//! error as the last message, and ends: the consumer stops at the first `Err` and returns it, so a failure can
//! never look like a short sum. Measured runs use the [`Clean`] producer, whose error type is
//! [`std::convert::Infallible`]: `Result<u64, Infallible>` has the layout of a `u64` and
//! `Result<Vec<u64>, Infallible>` that of a `Vec`, so the measured messages are the plain values. A producer
//! that *panics* cannot send anything: its thread or task is joined after the consumer sees the channel close,
//! and the panic turns the run into an error there (see `crate::pair`).

use std::convert::Infallible;
use std::fmt;
use std::future::Future;
use std::ops::ControlFlow;
use std::sync::Arc;

use measure::meter::Meter;

use crate::consume::Sink;
use crate::job::{HandoffError, Instruments, ProducerError};

/// Where the producer's items come from: item `i` of `0..items`.
pub(crate) trait Producer: Clone + Send + Sync + 'static {
    /// The error the source can return.
    type Error: Into<HandoffError> + Send + Sync + fmt::Debug + fmt::Display + 'static;
    /// Item `i`.
    fn emit(&self, i: u64) -> Result<u64, Self::Error>;
}

/// The measured producer: item `i` is `i`, and it cannot fail.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Clean;

impl Producer for Clean {
    type Error = Infallible;

    #[inline(always)]
    fn emit(&self, i: u64) -> Result<u64, Infallible> {
        Ok(i)
    }
}

/// A producer that counts its items in shared [`Instruments`] and fails or panics where they say.
#[derive(Debug, Clone)]
pub(crate) struct Tripwire(pub(crate) Arc<Instruments>);

impl Producer for Tripwire {
    type Error = ProducerError;

    #[inline]
    fn emit(&self, i: u64) -> Result<u64, ProducerError> {
        self.0.emit(i)
    }
}

/// The receiving end is gone: the consumer stopped or ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Closed;

/// How far a producer has got through `0..end`.
#[derive(Debug)]
pub(crate) struct Cursor<E> {
    next: u64,
    end: u64,
    /// An error met in the middle of a batch, sent after the partial batch.
    pending: Option<E>,
}

impl<E> Cursor<E> {
    /// At item 0 of `items`.
    pub(crate) fn new(items: u64) -> Self {
        Cursor { next: 0, end: items, pending: None }
    }
}

/// A producer's next message and the items it carries; `Err` once the source failed; `None` at the end.
pub(crate) type Next<M, E> = Option<Result<(M, u64), E>>;

/// What one message carries.
pub(crate) trait Shape: Copy + Send + Sync + fmt::Debug + 'static {
    /// The message type.
    type Msg: Send + 'static;
    /// Items a full message carries.
    fn items_per_message(self) -> usize;
    /// The producer's next message and how many items it carries; `Err` once the source failed; `None` at
    /// the end.
    fn next_message<P: Producer>(self, producer: &P, cursor: &mut Cursor<P::Error>) -> Next<Self::Msg, P::Error>;
    /// Items in `msg`.
    fn items_in(msg: &Self::Msg) -> u64;
    /// Hand `msg` to the consumer's sink.
    fn deliver<S: Sink>(msg: Self::Msg, sink: &mut S) -> ControlFlow<()>;
}

/// One `u64` per message.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct PerItem;

impl Shape for PerItem {
    type Msg = u64;

    fn items_per_message(self) -> usize {
        1
    }

    #[inline(always)]
    fn next_message<P: Producer>(self, producer: &P, cursor: &mut Cursor<P::Error>) -> Next<u64, P::Error> {
        if cursor.next >= cursor.end {
            return None;
        }
        let i = cursor.next;
        cursor.next += 1;
        Some(producer.emit(i).map(|x| (x, 1)))
    }

    #[inline(always)]
    fn items_in(_: &u64) -> u64 {
        1
    }

    #[inline(always)]
    fn deliver<S: Sink>(msg: u64, sink: &mut S) -> ControlFlow<()> {
        sink.push(msg)
    }
}

/// One `Vec<u64>` of up to `batch` items per message; the producer allocates each, the consumer frees it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Batched {
    /// Items per full message (at least 1).
    pub(crate) batch: usize,
}

impl Shape for Batched {
    type Msg = Vec<u64>;

    fn items_per_message(self) -> usize {
        self.batch.max(1)
    }

    #[inline]
    fn next_message<P: Producer>(self, producer: &P, cursor: &mut Cursor<P::Error>) -> Next<Vec<u64>, P::Error> {
        if let Some(e) = cursor.pending.take() {
            return Some(Err(e));
        }
        if cursor.next >= cursor.end {
            return None;
        }
        let stop = cursor.end.min(cursor.next.saturating_add(self.batch.max(1) as u64));
        let mut batch = Vec::with_capacity((stop - cursor.next) as usize);
        for i in cursor.next..stop {
            match producer.emit(i) {
                Ok(x) => batch.push(x),
                Err(e) => {
                    cursor.next = cursor.end;
                    if batch.is_empty() {
                        return Some(Err(e));
                    }
                    cursor.pending = Some(e);
                    let n = batch.len() as u64;
                    return Some(Ok((batch, n)));
                }
            }
        }
        cursor.next = stop;
        let n = batch.len() as u64;
        Some(Ok((batch, n)))
    }

    #[inline(always)]
    fn items_in(msg: &Vec<u64>) -> u64 {
        msg.len() as u64
    }

    #[inline]
    fn deliver<S: Sink>(msg: Vec<u64>, sink: &mut S) -> ControlFlow<()> {
        sink.push_batch(msg)
    }
}

/// The blocking producer loop: for each message, `admit` its items into `meter`, then `send` it (blocking while
/// the channel is full). Ends after the last item, after sending the source's error, or when `send` finds
/// the receiver gone (the unsent message's items leave the gauge again).
#[inline]
pub(crate) fn produce<M: Meter, Sh: Shape, P: Producer>(
    shape: Sh,
    producer: &P,
    items: u64,
    meter: &M,
    mut send: impl FnMut(Result<Sh::Msg, P::Error>) -> Result<(), Closed>,
) {
    let mut cursor = Cursor::new(items);
    while let Some(message) = shape.next_message(producer, &mut cursor) {
        match message {
            Ok((msg, n)) => {
                meter.admit(n);
                if send(Ok(msg)).is_err() {
                    meter.leave(n);
                    return;
                }
            }
            Err(e) => {
                let _ = send(Err(e));
                return;
            }
        }
    }
}

/// The sending half of an async channel: send one message, waiting while the channel is full.
pub(crate) trait AsyncTx<T: Send>: Send + 'static {
    /// Send `value`; `Err(Closed)` if the receiver is gone.
    fn transmit(&mut self, value: T) -> impl Future<Output = Result<(), Closed>> + Send;
}

impl<T: Send + 'static> AsyncTx<T> for tokio::sync::mpsc::Sender<T> {
    #[inline]
    async fn transmit(&mut self, value: T) -> Result<(), Closed> {
        tokio::sync::mpsc::Sender::send(self, value).await.map_err(|_| Closed)
    }
}

impl<T: Send + 'static> AsyncTx<T> for flume::Sender<T> {
    #[inline]
    async fn transmit(&mut self, value: T) -> Result<(), Closed> {
        self.send_async(value).await.map_err(|_| Closed)
    }
}

impl<T: Send + 'static> AsyncTx<T> for futures::channel::mpsc::Sender<T> {
    #[inline]
    async fn transmit(&mut self, value: T) -> Result<(), Closed> {
        futures::SinkExt::send(self, value).await.map_err(|_| Closed)
    }
}

/// The async producer loop: [`produce`] with an awaited send. Owns its sender, so the channel closes when the
/// loop ends.
pub(crate) async fn produce_async<M, Sh, P, T>(shape: Sh, producer: P, items: u64, meter: M, mut tx: T)
where
    M: Meter,
    Sh: Shape,
    P: Producer,
    T: AsyncTx<Result<Sh::Msg, P::Error>>,
{
    let mut cursor = Cursor::new(items);
    while let Some(message) = shape.next_message(&producer, &mut cursor) {
        match message {
            Ok((msg, n)) => {
                meter.admit(n);
                if tx.transmit(Ok(msg)).await.is_err() {
                    meter.leave(n);
                    return;
                }
            }
            Err(e) => {
                let _ = tx.transmit(Err(e)).await;
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::job::{Fault, FaultAction};

    fn drain<Sh: Shape, P: Producer>(shape: Sh, producer: &P, items: u64) -> Vec<Result<u64, P::Error>> {
        let mut cursor = Cursor::new(items);
        let mut out = Vec::new();
        while let Some(m) = shape.next_message(producer, &mut cursor) {
            out.push(m.map(|(_, n)| n));
        }
        out
    }

    #[test]
    fn batches_cover_every_item_with_a_short_last_one() {
        let sizes = drain(Batched { batch: 4 }, &Clean, 10);
        assert_eq!(sizes, vec![Ok(4), Ok(4), Ok(2)]);
        assert_eq!(drain(PerItem, &Clean, 3).len(), 3);
        assert!(drain(PerItem, &Clean, 0).is_empty());
    }

    #[test]
    fn a_failure_mid_batch_sends_the_partial_batch_then_the_error() {
        let instruments = Arc::new(Instruments::new(Some(Fault { at: 6, action: FaultAction::Error })));
        let out = drain(Batched { batch: 4 }, &Tripwire(instruments), 10);
        assert_eq!(out, vec![Ok(4), Ok(2), Err(ProducerError { at: 6 })]);
    }

    #[test]
    fn a_failure_at_a_batch_boundary_sends_only_the_error() {
        let instruments = Arc::new(Instruments::new(Some(Fault { at: 4, action: FaultAction::Error })));
        let out = drain(Batched { batch: 4 }, &Tripwire(instruments), 10);
        assert_eq!(out, vec![Ok(4), Err(ProducerError { at: 4 })]);
    }

    #[test]
    fn the_producer_loop_admits_what_it_sends_and_stops_when_closed() {
        let meter = measure::meter::GaugeMeter::default();
        let mut sent = 0;
        produce(PerItem, &Clean, 100, &meter, |_| {
            sent += 1;
            if sent > 10 {
                Err(Closed)
            } else {
                Ok(())
            }
        });
        assert_eq!(sent, 11);
        assert_eq!(meter.gauge().current(), 10);
    }
}
