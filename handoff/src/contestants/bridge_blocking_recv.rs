//! `blocking-bridge-blocking-recv[-batched]`: an async producer task on a multi-thread runtime awaits `tokio::sync::mpsc::Sender::send`; the calling thread receives with `Receiver::blocking_recv`, sums and checks order.

use std::sync::Arc;

use measure::summary::Family;
use tokio::sync::mpsc;

use super::{shape_phrase, Env, Kind, RuntimeKind};
use crate::consume::{consume, Sink};
use crate::job::{HandoffError, Job, Outcome, Side};
use crate::pair::{settle, spawn_guarded};
use crate::produce::{Producer, Shape};

/// Producer task → tokio mpsc → calling thread.
#[derive(Debug)]
pub(crate) struct BridgeBlockingRecv;

impl Kind for BridgeBlockingRecv {
    const NAME: &'static str = "blocking-bridge-blocking-recv";
    const FAMILY: Family = Family::Blocking;
    const RUNTIME: RuntimeKind = RuntimeKind::MultiThread;

    fn describe(batched: bool) -> String {
        format!(
            "a producer task spawned on a multi-thread tokio runtime (default worker count, built once per trial) \
             awaits `Sender::send` on a bounded tokio::sync::mpsc channel; the calling thread (outside the runtime) \
             receives with `Receiver::blocking_recv`, sums and checks order, then waits in `block_on` for the \
             producer task; {}; in order",
            shape_phrase(batched)
        )
    }

    fn run<Sh: Shape, P: Producer, S: Sink>(
        env: &Env<'_>,
        shape: Sh,
        job: &Job<'_>,
        producer: P,
        sink: S,
    ) -> Result<Outcome, HandoffError> {
        let runtime = env.runtime()?;
        let (tx, mut rx) = mpsc::channel::<Result<Sh::Msg, P::Error>>(env.messages(shape));
        let producer = spawn_guarded(
            runtime.handle(),
            job.live,
            crate::produce::produce_async(shape, producer, job.items, Arc::clone(job.gauge), tx),
        );
        let consumed = consume(shape, std::iter::from_fn(move || rx.blocking_recv()), job.gauge, sink);
        let produced = runtime.block_on(producer).map_err(|e| HandoffError::from_join(Side::Producer, e));
        settle(consumed, produced)
    }
}
