//! `stream-futures[-batched]`: a producer task sends (`SinkExt::send`) into `futures::channel::mpsc::channel(messages − 1)`, which holds `messages` with its one sender; a consumer task on the same multi-thread tokio runtime polls the receiver stream, sums and checks order.

use measure::meter::Meter;
use measure::summary::Family;

use super::{shape_phrase, Env, Kind, RuntimeKind};
use crate::consume::{consume_stream, Sink};
use crate::job::{HandoffError, Job, Outcome, Packing};
use crate::pair::two_tasks;
use crate::produce::{produce_async, Producer, Shape};

/// Producer task → futures mpsc → consumer task, multi-thread runtime.
#[derive(Debug)]
pub(crate) struct FuturesMpsc;

impl Kind for FuturesMpsc {
    const NAME: &'static str = "stream-futures";
    const FAMILY: Family = Family::Stream;
    const RUNTIME: RuntimeKind = RuntimeKind::MultiThread;

    fn describe(packing: Packing) -> String {
        format!(
            "two tasks spawned on a multi-thread tokio runtime (default worker count, built once per trial): the \
             producer awaits `SinkExt::send` on futures::channel::mpsc::channel(n − 1) — that channel holds its \
             buffer plus one message per sender, so with its one sender it holds the same n messages as the others \
             (n = 1 gives channel(0): the sender's own slot is the whole buffer; `SinkExt::send` also flushes, \
             so it returns only once the channel is back under its buffer) — and the consumer polls the \
             receiver as a Stream with `StreamExt::next`, sums and checks order; {}; in order",
            shape_phrase(packing)
        )
    }

    fn run<M: Meter, Sh: Shape, P: Producer, S: Sink>(
        env: &Env<'_>,
        shape: Sh,
        job: &Job<'_, M>,
        go: &mut dyn FnMut(),
        producer: P,
        sink: S,
    ) -> Result<Outcome, HandoffError> {
        let runtime = env.runtime()?;
        let buffer = env.messages(shape).saturating_sub(SENDERS);
        let (tx, rx) = futures::channel::mpsc::channel::<Result<Sh::Msg, P::Error>>(buffer);
        let meter = job.meter.clone();
        let producer = produce_async(shape, producer, job.items, meter.clone(), tx);
        let consumer = async move { consume_stream(shape, rx, &meter, sink).await };
        runtime.block_on(two_tasks(job.live, go, producer, consumer))
    }
}

/// Senders of the channel: each gets one guaranteed slot beyond the buffer.
const SENDERS: usize = 1;
