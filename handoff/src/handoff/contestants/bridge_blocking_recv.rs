//! `blocking-bridge-blocking-recv[-batched]`: an async producer task on a multi-thread runtime awaits `tokio::sync::mpsc::Sender::send`; the calling thread receives with `Receiver::blocking_recv`, sums and checks order.

use measure::meter::Meter;
use tokio::sync::mpsc;

use super::{shape_phrase, Kind, Run};
use crate::consume::{consume, Sink};
use crate::job::{HandoffError, Outcome, Packing, Side};
use crate::pair::{settle, spawn_guarded};
use crate::produce::{Producer, Shape};

/// Producer task → tokio mpsc → calling thread.
pub(crate) struct BridgeBlockingRecv;

impl Kind for BridgeBlockingRecv {
    fn describe(packing: Packing) -> String {
        format!(
            "a producer task spawned on a multi-thread tokio runtime (default worker count, built once per trial) \
             awaits `Sender::send` on a bounded tokio::sync::mpsc channel; the calling thread (outside the runtime) \
             receives with `Receiver::blocking_recv`, sums and checks order, then waits in `block_on` for the \
             producer task; {}; in order",
            shape_phrase(packing)
        )
    }

    fn run<M: Meter, Sh: Shape, P: Producer, S: Sink>(run: Run<'_, '_, M, Sh, P, S>) -> Result<Outcome, HandoffError> {
        let Run { env, shape, job, go, producer, sink } = run;
        let runtime = env.runtime()?;
        let (tx, mut rx) = mpsc::channel::<Result<Sh::Msg, P::Error>>(env.messages(shape));
        let produce = crate::produce::produce_async(shape, producer, job.items(), job.meter.clone(), tx);
        go();
        let producer = spawn_guarded(runtime.handle(), job.live, produce);
        let consumed = consume(shape, std::iter::from_fn(move || rx.blocking_recv()), &job.meter, sink);
        let produced = runtime.block_on(producer).map_err(|e| HandoffError::from_join(Side::Producer, e));
        settle(consumed, produced)
    }
}
