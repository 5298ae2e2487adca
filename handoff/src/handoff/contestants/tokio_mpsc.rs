//! `stream-tokio[-batched]`: a producer task sends into a bounded `tokio::sync::mpsc` channel; a consumer task on the same multi-thread runtime polls it as a `tokio_stream::wrappers::ReceiverStream`, sums and checks order.

use measure::meter::Meter;
use measure::summary::Family;
use tokio::sync::mpsc;
use tokio_stream::wrappers::ReceiverStream;

use super::{shape_phrase, Env, Kind, RuntimeKind};
use crate::consume::{consume_stream, Sink};
use crate::job::{HandoffError, Job, Outcome, Packing};
use crate::pair::two_tasks;
use crate::produce::{produce_async, Producer, Shape};

/// Producer task → tokio mpsc → consumer task, multi-thread runtime.
#[derive(Debug)]
pub(crate) struct TokioMpsc;

impl Kind for TokioMpsc {
    const NAME: &'static str = "stream-tokio";
    const FAMILY: Family = Family::Stream;
    const RUNTIME: RuntimeKind = RuntimeKind::MultiThread;

    fn describe(packing: Packing) -> String {
        format!(
            "two tasks spawned on a multi-thread tokio runtime (default worker count, built once per trial): the \
             producer awaits `Sender::send` on a bounded tokio::sync::mpsc channel, the consumer polls a \
             tokio_stream::wrappers::ReceiverStream with `StreamExt::next`, sums and checks order; {}; in order",
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
        run_tokio_pair(env, shape, job, go, producer, sink)
    }
}

/// The tokio pair on whatever runtime `env` holds: both ends spawned as tasks, the caller awaiting both.
pub(super) fn run_tokio_pair<M: Meter, Sh: Shape, P: Producer, S: Sink>(
    env: &Env<'_>,
    shape: Sh,
    job: &Job<'_, M>,
    go: &mut dyn FnMut(),
    producer: P,
    sink: S,
) -> Result<Outcome, HandoffError> {
    let runtime = env.runtime()?;
    let (tx, rx) = mpsc::channel::<Result<Sh::Msg, P::Error>>(env.messages(shape));
    let meter = job.meter.clone();
    let producer = produce_async(shape, producer, job.items, meter.clone(), tx);
    let consumer = async move { consume_stream(shape, ReceiverStream::new(rx), &meter, sink).await };
    runtime.block_on(two_tasks(job.live, go, producer, consumer))
}
