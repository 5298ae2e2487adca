//! `blocking-flume[-batched]`: a producer thread sends into `flume::bounded` through its sync API (`send`/`recv`; a mutex-protected queue, blocked threads park); the calling thread receives, sums and checks order.

use measure::meter::Meter;
use measure::summary::Family;

use super::{shape_phrase, Env, Kind, RuntimeKind};
use crate::consume::Sink;
use crate::job::{HandoffError, Job, Outcome, Packing};
use crate::pair::thread_to_caller;
use crate::produce::{Producer, Shape};

/// Producer thread → channel → calling thread.
#[derive(Debug)]
pub(crate) struct FlumeSync;

impl Kind for FlumeSync {
    const NAME: &'static str = "blocking-flume";
    const FAMILY: Family = Family::Blocking;
    const RUNTIME: RuntimeKind = RuntimeKind::None;

    fn describe(packing: Packing) -> String {
        format!(
            "a producer thread (spawned in std::thread::scope each run, before the clock starts) sends into \
             `flume::bounded` through its sync API (`send`/`recv`; a \
             mutex-protected queue, blocked threads park); the calling thread receives with a blocking `recv`, \
             sums and checks order; {}; in order",
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
        thread_to_caller::<pipelines::blocking::flume::Flume, _, _, _, _>(&env.config, shape, job, go, producer, sink)
    }
}
