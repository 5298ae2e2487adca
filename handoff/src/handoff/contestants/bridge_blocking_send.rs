//! `stream-bridge-blocking-send[-batched]`: a blocking producer thread calls `tokio::sync::mpsc::Sender::blocking_send`; an async consumer task on a multi-thread runtime polls a `ReceiverStream`, sums and checks order.

use std::thread;

use measure::meter::Meter;
use tokio::sync::mpsc;
use tokio_stream::wrappers::ReceiverStream;

use super::{shape_phrase, Kind, Run};
use crate::consume::{consume_stream, Sink};
use crate::job::{HandoffError, Outcome, Packing, Side};
use crate::pair::{join_producer, settle, spawn_guarded, spawn_producer};
use crate::produce::{produce, Closed, Producer, Shape};

/// Producer thread → tokio mpsc → consumer task.
pub(crate) struct BridgeBlockingSend;

impl Kind for BridgeBlockingSend {
    fn describe(packing: Packing) -> String {
        format!(
            "a blocking producer thread (spawned in std::thread::scope each run once the clock runs, outside the runtime) calls \
             `Sender::blocking_send` on a bounded tokio::sync::mpsc channel; a consumer task spawned on a \
             multi-thread tokio runtime (default worker count, built once per trial) polls a ReceiverStream, sums \
             and checks order; the calling thread waits in `block_on` for the consumer, then joins the producer; \
             {}; in order",
            shape_phrase(packing)
        )
    }

    fn run<M: Meter, Sh: Shape, P: Producer, S: Sink>(run: Run<'_, '_, M, Sh, P, S>) -> Result<Outcome, HandoffError> {
        let Run { env, shape, job, go, producer, sink } = run;
        let runtime = env.runtime()?;
        let (tx, rx) = mpsc::channel::<Result<Sh::Msg, P::Error>>(env.messages(shape));
        let meter = &job.meter;
        let consumer_meter = job.meter.clone();
        let items = job.items();
        thread::scope(|scope| {
            go();
            let consumer = spawn_guarded(runtime.handle(), job.live, async move {
                consume_stream(shape, ReceiverStream::new(rx), &consumer_meter, sink).await
            });
            let producer_thread = spawn_producer(scope, job.live, move || {
                produce(shape, &producer, items, meter, |m| tx.blocking_send(m).map_err(|_| Closed));
            })?;
            let consumed =
                runtime.block_on(consumer).unwrap_or_else(|e| Err(HandoffError::from_join(Side::Consumer, e)));
            settle(consumed, join_producer(producer_thread))
        })
    }
}
