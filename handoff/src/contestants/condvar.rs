//! `blocking-condvar[-batched]`: a producer thread sends into a hand-written `Mutex<VecDeque>` + two `Condvar`s bounded queue (`handoff::condvar_queue`, the shape of Java's ArrayBlockingQueue; `notify_one` after every push and pop); the calling thread receives, sums and checks order.

use measure::meter::Meter;
use measure::summary::Family;

use super::{shape_phrase, Env, Kind, RuntimeKind};
use crate::consume::Sink;
use crate::job::{HandoffError, Job, Outcome};
use crate::pair::thread_to_caller;
use crate::produce::{Producer, Shape};

/// Producer thread → channel → calling thread.
#[derive(Debug)]
pub(crate) struct Condvar;

impl Kind for Condvar {
    const NAME: &'static str = "blocking-condvar";
    const FAMILY: Family = Family::Blocking;
    const RUNTIME: RuntimeKind = RuntimeKind::None;

    fn describe(batched: bool) -> String {
        format!(
            "a producer thread (spawned in std::thread::scope each run) sends into \
             a hand-written `Mutex<VecDeque>` + two `Condvar`s bounded queue \
             (`handoff::condvar_queue`, the shape of Java's ArrayBlockingQueue; `notify_one` after every push \
             and pop); the calling thread receives with a blocking `recv`, sums and checks order; {}; in order",
            shape_phrase(batched)
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
