//! `baseline-loop`: the producer's loop hands each item straight to the consumer's sum on the calling thread; no channel, no hand-off: the floor.

use std::hint::black_box;
use std::panic::AssertUnwindSafe;

use measure::meter::Meter;

use super::{Kind, Run};
use crate::consume::Sink;
use crate::job::{HandoffConfig, HandoffError, Outcome, Packing, Side};
use crate::produce::{Cursor, Producer, Shape};

/// Producer and consumer fused into one loop.
pub(crate) struct BaselineLoop;

impl Kind for BaselineLoop {
    const HANDS_OFF: bool = false;

    fn describe(_packing: Packing) -> String {
        "one loop on the calling thread generates item i and passes it (through `std::hint::black_box`, so the \
         sum cannot be folded into a formula) to the same summing, order-checking consumer the other contestants \
         use; no channel, no second thread or task: the cost of the work without any hand-off; in order"
            .to_string()
    }

    fn bound(_config: &HandoffConfig, _packing: Packing) -> Option<u64> {
        None
    }

    fn run<M: Meter, Sh: Shape, P: Producer, S: Sink>(run: Run<'_, '_, M, Sh, P, S>) -> Result<Outcome, HandoffError> {
        let Run { env: _, shape, job, go, producer, mut sink } = run;
        let items = job.items();
        go();
        std::panic::catch_unwind(AssertUnwindSafe(move || {
            let mut cursor = Cursor::new(items);
            while let Some(message) = shape.next_message(&producer, &mut cursor) {
                let (msg, _) = message.map_err(Into::into)?;
                if Sh::deliver(black_box(msg), &mut sink).is_break() {
                    break;
                }
            }
            Ok(sink.finish())
        }))
        .unwrap_or_else(|payload| Err(HandoffError::from_panic(Side::Producer, &*payload)))
    }
}
