//! `stream-flume[-batched]`: a producer task awaits `send_async` on a `flume::bounded` channel; a consumer task on the same multi-thread runtime polls `Receiver::into_stream()`, sums and checks order.

use measure::meter::Meter;
use measure::summary::Family;

use super::{shape_phrase, Env, Kind, RuntimeKind};
use crate::consume::{consume_stream, Sink};
use crate::job::{HandoffError, Job, Outcome, Packing};
use crate::pair::two_tasks;
use crate::produce::{produce_async, Producer, Shape};

/// Producer task → flume (async API) → consumer task, multi-thread runtime.
#[derive(Debug)]
pub(crate) struct FlumeAsync;

impl Kind for FlumeAsync {
    const NAME: &'static str = "stream-flume";
    const FAMILY: Family = Family::Stream;
    const RUNTIME: RuntimeKind = RuntimeKind::MultiThread;

    fn describe(packing: Packing) -> String {
        format!(
            "two tasks spawned on a multi-thread tokio runtime (default worker count, built once per trial): the \
             producer awaits `Sender::send_async` on a flume::bounded channel, the consumer polls \
             `Receiver::into_stream()` with `StreamExt::next`, sums and checks order; {}; in order",
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
        let (tx, rx) = flume::bounded::<Result<Sh::Msg, P::Error>>(env.messages(shape));
        let meter = job.meter.clone();
        let producer = produce_async(shape, producer, job.items, meter.clone(), tx);
        let consumer = async move { consume_stream(shape, rx.into_stream(), &meter, sink).await };
        runtime.block_on(two_tasks(job.live, go, producer, consumer))
    }
}
