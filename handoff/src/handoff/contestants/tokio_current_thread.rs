//! `baseline-tokio-current-thread[-batched]`: the `stream-tokio` pair (producer task → bounded `tokio::sync::mpsc` → consumer task polling a `ReceiverStream`) on a current-thread runtime: both ends on one thread, no cross-thread hand-off at all.

use measure::meter::Meter;
use measure::summary::Family;

use super::tokio_mpsc::run_tokio_pair;
use super::{shape_phrase, Env, Kind, RuntimeKind};
use crate::consume::Sink;
use crate::job::{HandoffError, Job, Outcome, Packing};
use crate::produce::{Producer, Shape};

/// Producer task → tokio mpsc → consumer task, both on the calling thread.
#[derive(Debug)]
pub(crate) struct TokioCurrentThread;

impl Kind for TokioCurrentThread {
    const NAME: &'static str = "baseline-tokio-current-thread";
    const FAMILY: Family = Family::Baseline;
    const RUNTIME: RuntimeKind = RuntimeKind::CurrentThread;

    fn describe(packing: Packing) -> String {
        format!(
            "the no-hand-off floor of the stream family, reported as a baseline: the stream-tokio pair (producer task awaiting `Sender::send` on a bounded tokio::sync::mpsc channel, \
             consumer task polling a ReceiverStream) spawned on a current-thread tokio runtime built once per trial \
             and driven by `block_on` on the calling thread: both ends run on one thread, taking turns when the \
             channel fills or empties, so nothing crosses threads and no thread is ever woken; {}; in order",
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
