//! The per-cause A/B variants of the blocking bare pairs (`blocking-{crossbeam,flume}-bare-<cause>`, role
//! `reference`, run only when `--only` names them): each is its bare pair with exactly one of the lab
//! contestant's differences put back, to find which one makes the lab's pair slower than its bare pair.
//!
//! The differences between `blocking-crossbeam` (or `blocking-flume`) and its bare pair, read from
//! `super::thread_to_caller`, `crate::produce`, `crate::consume`, `crate::message` and `super::bare`, one variant each:
//!
//! | suffix | what it puts back |
//! |---|---|
//! | `-control` | nothing: the bare program again through this file's generic code (an A/A: whatever it shows beside the bare pair is noise or code placement) |
//! | `-started-before` | the start line: the producer thread is spawned before the clock and parked at the lab's `StartLine` (`Mutex` + `Condvar`), which is opened right after `go`; the bare pair spawns it after `go` |
//! | `-lab-spawn` | how the lab spawns its producer (still after `go`): a thread named `producer` in `std::thread::scope`, holding a `LiveStages` guard |
//! | `-lab-message` | the lab's message type: `Result<u64, Infallible>` (the layout of a `u64`) instead of `u64` |
//! | `-lab-loops` | the lab's producer and consumer loops (`produce` with its `Cursor`, `PerItem`, `Clean` producer and `NoMeter`; `consume` over `iter::from_fn` into a `SumSink` or `TakeSink`) over the same `u64` channel |
//! | `-consumer-spawned` | the consumer on a thread of its own (spawned after `go`, joined by the caller) instead of the calling thread: both ends are then new threads, which the lab's pair is not; it asks whether the calling thread matters at all |
//!
//! Every variant, the control included, reaches the channel through `pipelines::blocking::Flavor` (`#[inline]`
//! one-line wrappers over the crate's `send`/`recv`), as the lab's pair does; the control tells whether that, or
//! this file's generic code, differs from `super::bare`'s direct calls. Like the bare pairs they carry no meter
//! and no fault injection: `checksum` and `exactly_once` apply, the checks that need a meter or a fault say they
//! are not applicable. `just fidelity-ab` runs them beside their pairs. The task pairs' variants are in `super::bare_ab_async`;
//! the contestant they all are, name, listing and runtime included, is `super::bare`'s `Bare` with a [`Cause`].

use std::convert::Infallible;
use std::sync::Arc;
use std::thread;

use measure::meter::NoMeter;
use pipelines::blocking::Flavor;
use pipelines::sink::TakeSink;
use pipelines::start_line::{Opener, StartLine};

use super::bare_run::{join, receive, spawn, BareRun};
use crate::consume::{consume, SumSink};
use crate::job::{Consumer, HandoffError, Outcome, Side};
use crate::message::{Clean, PerItem, Sink};
use crate::produce::{produce, Closed};

/// The one difference a variant puts back into its bare pair.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Cause {
    /// None: the A/A control.
    Control,
    /// The producer spawned before the clock and released by the lab's start line (tasks: both tasks spawned
    /// before the clock, the producer released by a oneshot).
    StartedBefore,
    /// The producer spawned (after the clock) as the lab spawns it: named, scoped, counted live (tasks: guarded,
    /// counted live).
    LabSpawn,
    /// `Result<u64, Infallible>` messages.
    LabMessage,
    /// The lab's `produce` and `consume` loops (tasks: `produce_async` and `consume_stream`).
    LabLoops,
    /// The consumer on a spawned thread (thread pairs only).
    ConsumerSpawned,
    /// The consumer polls the receiver as a stream (task pairs only).
    IntoStream,
}

/// The thread pairs' causes, in listing order.
pub(super) const THREAD_CAUSES: [Cause; 6] =
    [Cause::Control, Cause::StartedBefore, Cause::LabSpawn, Cause::LabMessage, Cause::LabLoops, Cause::ConsumerSpawned];

/// The task pairs' causes, in listing order.
pub(super) const TASK_CAUSES: [Cause; 6] =
    [Cause::Control, Cause::StartedBefore, Cause::LabSpawn, Cause::LabMessage, Cause::LabLoops, Cause::IntoStream];

impl Cause {
    /// The suffix naming it, such as `lab-loops`.
    pub(super) fn suffix(self) -> &'static str {
        match self {
            Cause::Control => "control",
            Cause::StartedBefore => "started-before",
            Cause::LabSpawn => "lab-spawn",
            Cause::LabMessage => "lab-message",
            Cause::LabLoops => "lab-loops",
            Cause::ConsumerSpawned => "consumer-spawned",
            Cause::IntoStream => "into-stream",
        }
    }

    /// What it puts back, for a pair of threads or (`tasks`) of tasks.
    pub(super) fn describe(self, tasks: bool) -> &'static str {
        match (self, tasks) {
            (Cause::Control, _) => {
                "nothing changed: the bare program again through the A/B file's generic code (an A/A control)"
            }
            (Cause::StartedBefore, false) => {
                "the producer thread is spawned before the clock and parked at the lab's start line (`Mutex` + \
                 `Condvar`), opened right after `go`, as in the lab's pair"
            }
            (Cause::StartedBefore, true) => {
                "both tasks are spawned before the clock and the producer's task awaits a oneshot sent right after \
                 `go`, as in the lab's pair"
            }
            (Cause::LabSpawn, false) => {
                "the producer thread is spawned after the clock as in the bare pair, but the way the lab spawns it: \
                 named `producer`, in `std::thread::scope`, holding a `LiveStages` guard"
            }
            (Cause::LabSpawn, true) => {
                "both tasks are spawned after the clock as in the bare pair, but the way the lab spawns them: \
                 `spawn_guarded`, each holding a `LiveStages` guard"
            }
            (Cause::LabMessage, _) => {
                "the channel carries the lab's message type, `Result<u64, Infallible>` (the layout of a `u64`)"
            }
            (Cause::LabLoops, false) => {
                "the lab's producer loop (`produce`: `Cursor`, `PerItem`, `Clean`, `NoMeter`) and consumer loop \
                 (`consume` over `iter::from_fn` into `SumSink`) over the same `u64` channel"
            }
            (Cause::LabLoops, true) => {
                "the lab's producer loop (`produce_async`: `Cursor`, `PerItem`, `Clean`, `NoMeter`) and consumer loop \
                 (`consume_stream` over `recv_async` through `stream::unfold`, into `SumSink`) over the same `u64` \
                 channel"
            }
            (Cause::ConsumerSpawned, _) => {
                "the consumer runs on a thread of its own, spawned after the clock and joined by the calling thread, \
                 instead of on the calling thread"
            }
            (Cause::IntoStream, _) => {
                "the consumer polls `Receiver::into_stream()` with `StreamExt::next` (tokio: a `ReceiverStream`) \
                 instead of awaiting `recv_async`, as in the lab's pair"
            }
        }
    }
}

/// The program of the thread pair `F` with `cause` put back.
pub(super) fn run_cause<F: Flavor>(cause: Cause, run: BareRun<'_>) -> Result<Outcome, HandoffError> {
    match cause {
        Cause::Control => control::<F>(run),
        Cause::StartedBefore => started_before::<F>(run),
        Cause::LabSpawn => lab_spawn::<F>(run),
        Cause::LabMessage => lab_message::<F>(run),
        Cause::LabLoops => lab_loops::<F>(run),
        Cause::ConsumerSpawned => consumer_spawned::<F>(run),
        Cause::IntoStream => Err(HandoffError::Prepare {
            contestant: "a thread pair's A/B variant".to_string(),
            message: "`into-stream` is a task pair's cause".to_string(),
        }),
    }
}

/// The bare pair: `go`, spawn the producer, receive on the calling thread, join.
fn control<F: Flavor>(run: BareRun<'_>) -> Result<Outcome, HandoffError> {
    let BareRun { capacity, items, consumer, go, .. } = run;
    let (tx, rx) = F::bounded::<u64>(capacity);
    go();
    let producer = spawn(Side::Producer, move || send_all::<F, u64>(&tx, items, |i| i))?;
    let outcome = receive(consumer, move || F::recv(&rx));
    join(producer, outcome)
}

/// The bare pair with the lab's start: the producer spawned first and parked at a [`StartLine`] until `go`.
fn started_before<F: Flavor>(run: BareRun<'_>) -> Result<Outcome, HandoffError> {
    let BareRun { capacity, items, consumer, go, .. } = run;
    let (tx, rx) = F::bounded::<u64>(capacity);
    // Dropping the opener opens the line, so a failed spawn or an early return leaves no thread waiting.
    let opener = Opener::new(Arc::new(StartLine::default()));
    let line = Arc::clone(opener.line());
    let producer = spawn(Side::Producer, move || {
        line.arrive();
        line.wait_open();
        send_all::<F, u64>(&tx, items, |i| i);
    })?;
    opener.line().wait_arrived(1);
    go();
    drop(opener);
    let outcome = receive(consumer, move || F::recv(&rx));
    join(producer, outcome)
}

/// The bare pair with the producer spawned as the lab spawns it: named, in a scope, holding a live guard.
fn lab_spawn<F: Flavor>(run: BareRun<'_>) -> Result<Outcome, HandoffError> {
    let BareRun { capacity, items, consumer, live, go } = run;
    let (tx, rx) = F::bounded::<u64>(capacity);
    go();
    let guard = live.enter();
    thread::scope(|scope| {
        let producer = thread::Builder::new()
            .name("producer".to_string())
            .spawn_scoped(scope, move || {
                let _guard = guard;
                send_all::<F, u64>(&tx, items, |i| i);
            })
            .map_err(|source| HandoffError::Spawn { side: Side::Producer, source })?;
        let outcome = receive(consumer, move || F::recv(&rx));
        producer.join().map_err(|p| HandoffError::from_panic(Side::Producer, &*p))?;
        Ok(outcome)
    })
}

/// The bare pair sending the lab's message type, `Result<u64, Infallible>`.
fn lab_message<F: Flavor>(run: BareRun<'_>) -> Result<Outcome, HandoffError> {
    let BareRun { capacity, items, consumer, go, .. } = run;
    let (tx, rx) = F::bounded::<Result<u64, Infallible>>(capacity);
    go();
    let producer = spawn(Side::Producer, move || send_all::<F, Result<u64, Infallible>>(&tx, items, Ok))?;
    let outcome = receive(consumer, move || F::recv(&rx).map(|m| m.unwrap_or_else(|never| match never {})));
    join(producer, outcome)
}

/// The bare pair with the lab's loops: `produce` on the producer thread, `consume` on the calling thread, over
/// a `u64` channel (the loops' `Result<u64, Infallible>` is unwrapped at the channel, which costs nothing).
fn lab_loops<F: Flavor>(run: BareRun<'_>) -> Result<Outcome, HandoffError> {
    let BareRun { capacity, items, consumer, go, .. } = run;
    let (tx, rx) = F::bounded::<u64>(capacity);
    go();
    let producer = spawn(Side::Producer, move || {
        produce(PerItem, &Clean, items, &NoMeter, |m| {
            F::send(&tx, m.unwrap_or_else(|never| match never {})).map_err(|_| Closed)
        });
    })?;
    let messages = std::iter::from_fn(move || F::recv(&rx).map(Ok::<u64, Infallible>));
    let consumed = match consumer {
        Consumer::Sum => lab_consume(messages, SumSink::default()),
        Consumer::Collect | Consumer::Cancellable => lab_consume(messages, TakeSink::all()),
        Consumer::Take(k) => lab_consume(messages, TakeSink::first(k)),
    };
    let produced = producer.join().map_err(|p| HandoffError::from_panic(Side::Producer, &*p));
    produced?;
    consumed
}

fn lab_consume<S: Sink>(
    messages: impl Iterator<Item = Result<u64, Infallible>>,
    sink: S,
) -> Result<Outcome, HandoffError> {
    consume(PerItem, messages, &NoMeter, sink)
}

/// The bare pair with the consumer on a spawned thread: `go`, spawn the producer, spawn the consumer, join both.
fn consumer_spawned<F: Flavor>(run: BareRun<'_>) -> Result<Outcome, HandoffError> {
    let BareRun { capacity, items, consumer, go, .. } = run;
    let (tx, rx) = F::bounded::<u64>(capacity);
    go();
    let producer = spawn(Side::Producer, move || send_all::<F, u64>(&tx, items, |i| i))?;
    // A consumer that fails to spawn drops the receiver with its closure, so the producer's next send fails.
    let consumer_thread = match spawn(Side::Consumer, move || receive(consumer, move || F::recv(&rx))) {
        Ok(handle) => handle,
        Err(err) => {
            let _ = producer.join();
            return Err(err);
        }
    };
    let consumed = consumer_thread.join().map_err(|p| HandoffError::from_panic(Side::Consumer, &*p));
    producer.join().map_err(|p| HandoffError::from_panic(Side::Producer, &*p))?;
    consumed
}

/// The bare producer loop: send `message(i)` for `i` in `0..items`, stopping when the receiver is gone.
#[inline(always)]
fn send_all<F: Flavor, T: Send>(tx: &F::Sender<T>, items: u64, message: impl Fn(u64) -> T) {
    for i in 0..items {
        if F::send(tx, message(i)).is_err() {
            break;
        }
    }
}

/// The bare consumer loop over `next` (which owns the receiver, so it is dropped on return): `super::bare`'s
/// `receive!`.
#[inline(always)]
fn receive(consumer: Consumer, mut next: impl FnMut() -> Option<u64>) -> Outcome {
    receive!(consumer, next())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lab_message_has_the_layout_of_a_u64() {
        assert_eq!(std::mem::size_of::<Result<u64, Infallible>>(), std::mem::size_of::<u64>());
        assert_eq!(std::mem::align_of::<Result<u64, Infallible>>(), std::mem::align_of::<u64>());
    }
}
