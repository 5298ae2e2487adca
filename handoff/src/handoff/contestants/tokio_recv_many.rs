//! `stream-tokio-recv-many`: the `stream-tokio` pair with one item per message, but the consumer task drains up to `batch` messages per wake-up with `tokio::sync::mpsc::Receiver::recv_many` into a reused `Vec`: batching on the receiving side only.

use measure::meter::Meter;
use tokio::sync::mpsc;

use super::{Kind, Run};
use crate::consume::Sink;
use crate::job::{HandoffConfig, HandoffError, Outcome, Packing};
use crate::pair::two_tasks;
use crate::produce::{produce_async, Producer, Shape};

/// Producer task → tokio mpsc → consumer task taking what is there with `recv_many`.
pub(crate) struct TokioRecvMany;

impl Kind for TokioRecvMany {
    fn describe(_packing: Packing) -> String {
        "two tasks spawned on a multi-thread tokio runtime (default worker count, built once per trial): the \
         producer awaits `Sender::send` of one `u64` per message on a bounded tokio::sync::mpsc channel of \
         `capacity` messages (as stream-tokio), the consumer calls `Receiver::recv_many(&mut buf, batch)`, which \
         waits only when the channel is empty and then takes every message there (up to `batch`, default 256) \
         into a Vec reused across calls, sums and checks order: receive-side batching, every item still costs \
         a send; its consumer can hold min(batch, capacity) items, so its bound is capacity + 1 + min(batch, \
         capacity); in order"
            .to_string()
    }

    fn bound(config: &HandoffConfig, _packing: Packing) -> Option<u64> {
        let taken = config.batch.min(config.capacity).max(1);
        Some((config.capacity + 1 + taken) as u64)
    }

    fn run<M: Meter, Sh: Shape, P: Producer, S: Sink>(run: Run<'_, '_, M, Sh, P, S>) -> Result<Outcome, HandoffError> {
        let Run { env, shape, job, go, producer, mut sink } = run;
        let runtime = env.runtime()?;
        let limit = env.config.batch.max(1);
        let (tx, mut rx) = mpsc::channel::<Result<Sh::Msg, P::Error>>(env.messages(shape));
        let meter = job.meter.clone();
        let producer = produce_async(shape, producer, job.items(), meter.clone(), tx);
        let consumer = async move {
            let mut taken = Vec::with_capacity(limit);
            while rx.recv_many(&mut taken, limit).await > 0 {
                meter.leave(taken.iter().map(|m| m.as_ref().map_or(0, Sh::items_in)).sum());
                for message in taken.drain(..) {
                    let msg = message.map_err(Into::into)?;
                    if Sh::deliver(msg, &mut sink).is_break() {
                        return Ok(sink.finish());
                    }
                }
            }
            Ok(sink.finish())
        };
        runtime.block_on(two_tasks(job.live, go, producer, consumer))
    }
}
