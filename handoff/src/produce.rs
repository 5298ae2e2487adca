//! The producer end shared by every contestant: the two producer loops, blocking ([`produce`]) and async
//! ([`produce_async`]), that take each message from a [`Shape`] (in `crate::message`, with the item source
//! [`Producer`]), admit its items into the outstanding gauge and send it.
//!
//! **The payload.** Every channel carries `Result<Msg, E>`, where `Msg` is a `u64` or a `Vec<u64>` and `E` is
//! the producer's error type. A producer whose item source fails sends the items it already has, then the
//! error as the last message, and ends: the consumer stops at the first `Err` and returns it, so a failure can
//! never look like a short sum. Measured runs use the [`Clean`](crate::message::Clean) producer, whose error type is
//! [`std::convert::Infallible`]: `Result<u64, Infallible>` has the layout of a `u64` and
//! `Result<Vec<u64>, Infallible>` that of a `Vec`, so the measured messages are the plain values. A producer
//! that *panics* cannot send anything: its thread or task is joined after the consumer sees the channel close,
//! and the panic turns the run into an error there (see `crate::pair`).

use std::future::Future;

use measure::meter::Meter;

// Re-exported so that the contestants keep importing the message types from the producer's module.
pub(crate) use crate::message::{Batched, Cursor, PerItem, Producer, Shape};

/// The receiving end is gone: the consumer stopped or ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Closed;

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
    use std::sync::Arc;

    use super::*;
    use crate::job::{Fault, FaultAction, Instruments, ProducerError, ProducerSite};
    use crate::message::{Clean, Tripwire};

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
        let instruments = Arc::new(Instruments::new(
            ProducerSite,
            Some(Fault { site: ProducerSite, at: 6, action: FaultAction::Error }),
        ));
        let out = drain(Batched { batch: 4 }, &Tripwire(instruments), 10);
        assert_eq!(out, vec![Ok(4), Ok(2), Err(ProducerError { at: 6 })]);
    }

    #[test]
    fn a_failure_at_a_batch_boundary_sends_only_the_error() {
        let instruments = Arc::new(Instruments::new(
            ProducerSite,
            Some(Fault { site: ProducerSite, at: 4, action: FaultAction::Error }),
        ));
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
