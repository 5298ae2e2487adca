//! What passes between the two ends, shared by the producer ([`crate::produce`]) and the consumer
//! ([`crate::consume`]) and depending on neither: where items come from ([`Producer`]: the measured [`Clean`]
//! source or the conformance checks' [`Tripwire`]), how they are grouped into messages ([`Shape`]: one item, or
//! one `Vec` of `batch` items, read off a [`Cursor`]) and what takes them at the far end ([`Sink`]).

use std::convert::Infallible;
use std::fmt;
use std::ops::ControlFlow;
use std::sync::Arc;

use crate::job::{HandoffError, Instruments, Outcome, ProducerError, ProducerSite};

/// A handoff sink: a [`pipelines::sink::Sink`] returning the scenario's [`Outcome`] (implemented for every such
/// sink).
pub(crate) trait Sink: pipelines::sink::Sink<Outcome> {}

impl<S: pipelines::sink::Sink<Outcome>> Sink for S {}

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
        self.0.tick(ProducerSite).map(|()| i).map_err(|at| ProducerError { at })
    }
}

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
