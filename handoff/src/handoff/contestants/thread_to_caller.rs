//! The contestants whose producer thread sends through a blocking channel into the calling thread
//! (a producer thread spawned once the clock runs), one [`CallerChannel`] each:
//! - `blocking-crossbeam[-batched]`: `crossbeam_channel::bounded` (blocking `send`/`recv`; a blocked thread spins
//!   briefly, then parks);
//! - `blocking-flume[-batched]`: `flume::bounded` through its sync API (`send`/`recv`; a mutex-protected queue,
//!   blocked threads park);
//! - `blocking-std[-batched]`: `std::sync::mpsc::sync_channel` (since Rust 1.67 a port of crossbeam-channel's
//!   array queue, but without its spinning: a blocked thread parks at once);
//! - `blocking-condvar[-batched]` and `blocking-condvar-counted[-batched]`: a hand-written `Mutex<VecDeque>` + two
//!   `Condvar`s bounded queue (`handoff::condvar_queue`, the shape of Java's ArrayBlockingQueue), naive
//!   (`notify_one` after every push and pop) or counting its waiters (notify only when a peer waits).
//!
//! The calling thread receives, sums and checks order.

use std::marker::PhantomData;
use std::thread;

use measure::meter::Meter;
use pipelines::blocking::crossbeam::Crossbeam;
use pipelines::blocking::flume::Flume;
use pipelines::blocking::std_sync::StdSync;
use pipelines::blocking::Flavor;

use super::{shape_phrase, Kind, Run};
use crate::condvar_queue::{CondvarQueue, CountedCondvarQueue};
use crate::consume::{consume, Sink};
use crate::job::{HandoffError, Outcome, Packing};
use crate::pair::{join_producer, settle, spawn_producer};
use crate::produce::{produce, Closed, Producer, Shape};

/// A blocking channel as its contestant describes it.
pub(crate) trait CallerChannel: Flavor {
    /// What the producer thread sends into, as the description says it.
    const INTO: &'static str;
    /// When the producer thread is spawned, as the description says it.
    const SPAWNED: &'static str = "spawned in std::thread::scope each run, once the clock runs";
}

impl CallerChannel for Crossbeam {
    const INTO: &'static str =
        "`crossbeam_channel::bounded` (blocking `send`/`recv`; a blocked thread spins briefly, then parks)";
}

impl CallerChannel for Flume {
    const INTO: &'static str =
        "`flume::bounded` through its sync API (`send`/`recv`; a mutex-protected queue, blocked threads park)";
}

impl CallerChannel for StdSync {
    const INTO: &'static str = "`std::sync::mpsc::sync_channel` (since Rust 1.67 a port of crossbeam-channel's array \
                                queue, but a blocked end parks at once, without crossbeam's brief spin)";
}

impl CallerChannel for CondvarQueue {
    const INTO: &'static str = "a hand-written `Mutex<VecDeque>` + two `Condvar`s bounded queue \
                                (`handoff::condvar_queue`, the shape of Java's ArrayBlockingQueue), the naive way: \
                                `notify_one` after every push and pop, whether or not anyone waits";
    const SPAWNED: &'static str = "spawned once the clock runs";
}

impl CallerChannel for CountedCondvarQueue {
    const INTO: &'static str = "the same hand-written queue written as an expert would: each side counts, under the \
                                lock, the threads waiting on its `Condvar`, and notifies only when the peer's count \
                                is not zero";
    const SPAWNED: &'static str = "spawned once the clock runs";
}

/// Producer thread → channel `F` → calling thread. The calling thread calls `go`, then spawns the producer
/// thread (in a `std::thread::scope`, counted in `job.live`), as a program of its own would. It sends messages into a bounded channel of flavor `F` holding `config.messages(..)` messages; the calling
/// thread receives them with the flavor's blocking `recv`, consumes them into the sink, drops the receiver and
/// joins the producer.
pub(crate) struct ThreadToCaller<F>(PhantomData<fn() -> F>);

impl<F: CallerChannel> Kind for ThreadToCaller<F> {
    fn describe(packing: Packing) -> String {
        format!(
            "a producer thread ({}) sends into {}; the calling thread receives with a blocking `recv`, sums and \
             checks order; {}; in order",
            F::SPAWNED,
            F::INTO,
            shape_phrase(packing)
        )
    }

    fn run<M: Meter, Sh: Shape, P: Producer, S: Sink>(run: Run<'_, '_, M, Sh, P, S>) -> Result<Outcome, HandoffError> {
        let Run { env, shape, job, go, producer, sink } = run;
        let (tx, rx) = F::bounded::<Result<Sh::Msg, P::Error>>(env.config.messages(shape.items_per_message()));
        let meter = &job.meter;
        let items = job.items();
        thread::scope(|scope| {
            go();
            let producer_thread = spawn_producer(scope, job.live, move || {
                produce(shape, &producer, items, meter, |m| F::send(&tx, m).map_err(|_| Closed));
            })?;
            let consumed = consume(shape, std::iter::from_fn(move || F::recv(&rx)), meter, sink);
            settle(consumed, join_producer(producer_thread))
        })
    }
}
