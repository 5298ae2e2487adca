//! The consumer end shared by every contestant: a [`Sink`] per [`crate::job::Consumer`], the two consumer loops, blocking
//! ([`consume`], over an iterator of messages) and async ([`consume_stream`], over a `Stream`). The contestants'
//! registry picks the sink for the job's consumer (`contestants::PreparedPair::dispatch`), so that the measured
//! instantiation (clean producer, summing sink) is monomorphic and carries no test hooks.

use std::ops::ControlFlow;
use std::pin::pin;

use futures::{Stream, StreamExt};
use measure::meter::Meter;

use crate::job::{HandoffError, Outcome};
// `Sink` is re-exported so that the contestants keep importing it from the consumer's module.
use crate::message::Shape;
pub(crate) use crate::message::Sink;

/// Wrapping sum of every item, checking that item number `i` is the value `i`.
#[derive(Debug, Default)]
pub(crate) struct SumSink {
    sum: u64,
    next: u64,
    first_disorder: Option<u64>,
}

impl SumSink {
    #[inline(always)]
    fn take(&mut self, x: u64) {
        if x != self.next && self.first_disorder.is_none() {
            self.first_disorder = Some(self.next);
        }
        self.next += 1;
        self.sum = self.sum.wrapping_add(x);
    }
}

impl pipelines::sink::Sink<Outcome> for SumSink {
    #[inline(always)]
    fn push(&mut self, x: u64) -> ControlFlow<()> {
        self.take(x);
        ControlFlow::Continue(())
    }

    #[inline]
    fn push_batch(&mut self, batch: Vec<u64>) -> ControlFlow<()> {
        for &x in &batch {
            self.take(x);
        }
        ControlFlow::Continue(())
    }

    fn finish(self) -> Outcome {
        Outcome::Sum { sum: self.sum, count: Some(self.next), first_disorder: self.first_disorder }
    }
}

/// The blocking consumer loop: take each message from `messages`, let its items leave `meter`, and hand them
/// to `sink`, until the channel ends, a message is the producer's error (returned), or the sink has enough.
/// `messages` (and with it the receiving end) is dropped on return, which is what tells the producer to stop.
#[inline]
pub(crate) fn consume<M: Meter, Sh: Shape, E: Into<HandoffError>, S: Sink>(
    _shape: Sh,
    messages: impl Iterator<Item = Result<Sh::Msg, E>>,
    meter: &M,
    mut sink: S,
) -> Result<Outcome, HandoffError> {
    for message in messages {
        let msg = message.map_err(Into::into)?;
        meter.leave(Sh::items_in(&msg));
        if Sh::deliver(msg, &mut sink).is_break() {
            break;
        }
    }
    Ok(sink.finish())
}

/// The async consumer loop: [`consume`] over a `Stream` of messages, polled with `StreamExt::next`.
pub(crate) async fn consume_stream<M: Meter, Sh: Shape, E: Into<HandoffError>, S: Sink>(
    _shape: Sh,
    messages: impl Stream<Item = Result<Sh::Msg, E>>,
    meter: &M,
    mut sink: S,
) -> Result<Outcome, HandoffError> {
    let mut messages = pin!(messages);
    while let Some(message) = messages.next().await {
        let msg = message.map_err(Into::into)?;
        meter.leave(Sh::items_in(&msg));
        if Sh::deliver(msg, &mut sink).is_break() {
            break;
        }
    }
    Ok(sink.finish())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::convert::Infallible;

    use pipelines::sink::{Sink as _, TakeSink};

    use crate::message::{Batched, PerItem};

    #[test]
    fn the_sum_sink_notices_the_first_item_out_of_place() {
        let mut sink = SumSink::default();
        for x in [0, 1, 3, 2, 4] {
            let _ = sink.push(x);
        }
        assert_eq!(sink.finish(), Outcome::Sum { sum: 10, count: Some(5), first_disorder: Some(2) });
    }

    #[test]
    fn the_consumer_loop_returns_the_producer_error_not_a_short_sum() {
        let messages = vec![Ok(0), Ok(1), Err(crate::job::ProducerError { at: 2 })];
        let out = consume(PerItem, messages.into_iter(), &measure::meter::NoMeter, SumSink::default());
        assert!(matches!(out, Err(HandoffError::Producer(e)) if e.at == 2));
    }

    #[test]
    fn the_consumer_loop_stops_when_the_sink_has_enough() {
        let meter = measure::meter::GaugeMeter::default();
        let messages = (0..10u64).map(|i| Ok::<_, Infallible>(vec![2 * i, 2 * i + 1]));
        let out = consume(Batched { batch: 2 }, messages, &meter, TakeSink::first(3));
        assert_eq!(out.ok(), Some(Outcome::Items(vec![0, 1, 2])));
        assert_eq!(meter.gauge().current(), -4, "two batches of two were taken");
    }
}
