//! `blocking-condvar[-batched]` and `blocking-condvar-counted[-batched]`: a producer thread sends into a hand-written `Mutex<VecDeque>` + two `Condvar`s bounded queue (`handoff::condvar_queue`, the shape of Java's ArrayBlockingQueue), naive (`notify_one` after every push and pop) or counting its waiters (notify only when a peer waits); the calling thread receives, sums and checks order.

use measure::meter::Meter;
use measure::summary::Family;

use super::{shape_phrase, Env, Kind, RuntimeKind};
use crate::consume::Sink;
use crate::job::{HandoffError, Job, Outcome, Packing};
use crate::pair::thread_to_caller;
use crate::produce::{Producer, Shape};

/// Producer thread → channel → calling thread.
#[derive(Debug)]
pub(crate) struct Condvar;

impl Kind for Condvar {
    const NAME: &'static str = "blocking-condvar";
    const FAMILY: Family = Family::Blocking;
    const RUNTIME: RuntimeKind = RuntimeKind::None;

    fn describe(packing: Packing) -> String {
        format!(
            "a producer thread (spawned before the clock starts) sends into \
             a hand-written `Mutex<VecDeque>` + two `Condvar`s bounded queue \
             (`handoff::condvar_queue`, the shape of Java's ArrayBlockingQueue), the naive way: `notify_one` \
             after every push and pop, whether or not anyone waits; the calling thread receives with a blocking `recv`, sums and checks order; {}; in order",
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
        thread_to_caller::<crate::condvar_queue::CondvarQueue, _, _, _, _>(&env.config, shape, job, go, producer, sink)
    }
}

/// Producer thread → the expert queue → calling thread.
#[derive(Debug)]
pub(crate) struct CountedCondvar;

impl Kind for CountedCondvar {
    const NAME: &'static str = "blocking-condvar-counted";
    const FAMILY: Family = Family::Blocking;
    const RUNTIME: RuntimeKind = RuntimeKind::None;

    fn describe(packing: Packing) -> String {
        format!(
            "a producer thread (spawned before the clock starts) sends into the same hand-written queue written as \
             an expert would: each side counts, under the lock, the threads waiting on its `Condvar`, and notifies \
             only when the peer's count is not zero; the calling thread receives with a blocking `recv`, sums and \
             checks order; {}; in order",
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
        thread_to_caller::<crate::condvar_queue::CountedCondvarQueue, _, _, _, _>(
            &env.config,
            shape,
            job,
            go,
            producer,
            sink,
        )
    }
}
