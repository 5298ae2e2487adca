//! The per-cause A/B variants of the blocking bare pairs (`blocking-{crossbeam,flume}-bare-<cause>`, role
//! `reference`, run only when `--only` names them): each is its bare pair with exactly one of the lab
//! contestant's differences put back, to find which one makes the lab's pair slower than its bare pair.
//!
//! The differences between `blocking-crossbeam` (or `blocking-flume`) and its bare pair, read from
//! `crate::pair::thread_to_caller`, `crate::produce`, `crate::consume`, `crate::message` and `super::bare`, one variant each:
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
//! are not applicable. `just fidelity-ab` runs them beside their pairs. The task pairs' variants are in `super::bare_ab_async`.

use std::convert::Infallible;
use std::fmt;
use std::sync::Arc;
use std::thread;

use measure::meter::{GaugeMeter, NoMeter};
use measure::summary::{ContestantInfo, Family, Role};
use pipelines::blocking::crossbeam::Crossbeam;
use pipelines::blocking::flume::Flume;
use pipelines::blocking::Flavor;
use pipelines::sink::TakeSink;
use pipelines::start_line::{Opener, StartLine};
use pipelines::LiveStages;

use super::bare::{Channel, BARE_SUFFIX};
use super::{HandoffContestant, PreparedHandoff};
use crate::consume::{consume, SumSink};
use crate::job::{Consumer, HandoffConfig, HandoffError, Job, Outcome, Side};
use crate::message::{Clean, PerItem, Sink};
use crate::produce::{produce, Closed};

/// The one difference a variant puts back into its bare pair.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Cause {
    /// None: the A/A control.
    Control,
    /// The producer spawned before the clock and released by the lab's start line.
    StartedBefore,
    /// The producer spawned (after the clock) as the lab spawns it: named, scoped, counted live.
    LabSpawn,
    /// `Result<u64, Infallible>` messages.
    LabMessage,
    /// The lab's `produce` and `consume` loops.
    LabLoops,
    /// The consumer on a spawned thread.
    ConsumerSpawned,
}

/// Every cause, in listing order.
const CAUSES: [Cause; 6] =
    [Cause::Control, Cause::StartedBefore, Cause::LabSpawn, Cause::LabMessage, Cause::LabLoops, Cause::ConsumerSpawned];

/// The bare pairs that have variants: the two whose lab pair runs a producer thread into the calling thread.
const CHANNELS: [Channel; 2] = [Channel::Crossbeam, Channel::FlumeSync];

impl Cause {
    fn suffix(self) -> &'static str {
        match self {
            Cause::Control => "control",
            Cause::StartedBefore => "started-before",
            Cause::LabSpawn => "lab-spawn",
            Cause::LabMessage => "lab-message",
            Cause::LabLoops => "lab-loops",
            Cause::ConsumerSpawned => "consumer-spawned",
        }
    }

    fn describe(self) -> &'static str {
        match self {
            Cause::Control => {
                "nothing changed: the bare program again through the A/B file's generic code (an A/A control)"
            }
            Cause::StartedBefore => {
                "the producer thread is spawned before the clock and parked at the lab's start line (`Mutex` + \
                 `Condvar`), opened right after `go`, as in the lab's pair"
            }
            Cause::LabSpawn => {
                "the producer thread is spawned after the clock as in the bare pair, but the way the lab spawns it: \
                 named `producer`, in `std::thread::scope`, holding a `LiveStages` guard"
            }
            Cause::LabMessage => {
                "the channel carries the lab's message type, `Result<u64, Infallible>` (the layout of a `u64`)"
            }
            Cause::LabLoops => {
                "the lab's producer loop (`produce`: `Cursor`, `PerItem`, `Clean`, `NoMeter`) and consumer loop \
                 (`consume` over `iter::from_fn` into `SumSink`) over the same `u64` channel"
            }
            Cause::ConsumerSpawned => {
                "the consumer runs on a thread of its own, spawned after the clock and joined by the calling thread, \
                 instead of on the calling thread"
            }
        }
    }
}

/// Every variant, in listing order: crossbeam's, then flume's.
pub(crate) fn all() -> Vec<Arc<dyn HandoffContestant>> {
    CHANNELS
        .iter()
        .flat_map(|&channel| CAUSES.iter().map(move |&cause| Arc::new(Variant { channel, cause }) as Arc<_>))
        .collect()
}

/// Every variant as the report reads it, in listing order: the lab contestant, its bare pair, the variant's
/// name and the suffix of the cause it puts back.
pub(crate) fn listing() -> Vec<super::AbVariant> {
    CHANNELS
        .iter()
        .flat_map(|&channel| {
            CAUSES.iter().map(move |&cause| super::AbVariant {
                lab: channel.twin(),
                bare: format!("{}{BARE_SUFFIX}", channel.twin()),
                name: Variant { channel, cause }.name(),
                cause: cause.suffix(),
                control: cause == Cause::Control,
                tasks: false,
            })
        })
        .collect()
}

/// A bare pair with one cause put back, as the registry lists it.
#[derive(Debug, Clone, Copy)]
struct Variant {
    channel: Channel,
    cause: Cause,
}

impl Variant {
    fn name(&self) -> String {
        format!("{}{BARE_SUFFIX}-{}", self.channel.twin(), self.cause.suffix())
    }
}

impl HandoffContestant for Variant {
    fn info(&self) -> ContestantInfo {
        let description = format!(
            "{}; else `{}{BARE_SUFFIX}` as it is (an A/B variant that differs from its bare pair in this one thing; \
             run only when `--only` names it; calibration)",
            self.cause.describe(),
            self.channel.twin()
        );
        ContestantInfo::new(self.name(), Family::Blocking, description).with_role(Role::Reference)
    }

    /// No meter, as the bare pair: the bounded-outstanding check is not applicable.
    fn bound(&self, _: &HandoffConfig) -> Option<u64> {
        None
    }

    fn items_per_message(&self, _: &HandoffConfig) -> Option<usize> {
        Some(1)
    }

    fn prepare(&self, config: &HandoffConfig) -> Result<Box<dyn PreparedHandoff>, HandoffError> {
        Ok(Box::new(PreparedVariant { variant: *self, capacity: config.capacity.max(1) }))
    }
}

/// A variant ready to run (there is nothing to build: no runtime).
struct PreparedVariant {
    variant: Variant,
    capacity: usize,
}

impl fmt::Debug for PreparedVariant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PreparedVariant").field("name", &self.variant.name()).field("capacity", &self.capacity).finish()
    }
}

impl PreparedHandoff for PreparedVariant {
    fn run(&self, job: &Job<'_, NoMeter>, go: &mut dyn FnMut()) -> Result<Outcome, HandoffError> {
        self.run_variant(job.items, job.consumer, job.live, go)
    }

    /// The same program: it carries no meter, so the gauge is never touched.
    fn run_metered(&self, job: &Job<'_, GaugeMeter>, go: &mut dyn FnMut()) -> Result<Outcome, HandoffError> {
        self.run_variant(job.items, job.consumer, job.live, go)
    }
}

impl PreparedVariant {
    fn run_variant(
        &self,
        items: u64,
        consumer: Consumer,
        live: &Arc<LiveStages>,
        go: &mut dyn FnMut(),
    ) -> Result<Outcome, HandoffError> {
        match self.variant.channel {
            Channel::Crossbeam => run_cause::<Crossbeam>(self.variant.cause, self.capacity, items, consumer, live, go),
            Channel::FlumeSync => run_cause::<Flume>(self.variant.cause, self.capacity, items, consumer, live, go),
            Channel::FlumeAsync | Channel::TokioMpsc => Err(HandoffError::Prepare {
                contestant: self.variant.name(),
                message: "the A/B variants cover the blocking pairs only".to_string(),
            }),
        }
    }
}

fn run_cause<F: Flavor>(
    cause: Cause,
    capacity: usize,
    items: u64,
    consumer: Consumer,
    live: &Arc<LiveStages>,
    go: &mut dyn FnMut(),
) -> Result<Outcome, HandoffError> {
    match cause {
        Cause::Control => control::<F>(capacity, items, consumer, go),
        Cause::StartedBefore => started_before::<F>(capacity, items, consumer, go),
        Cause::LabSpawn => lab_spawn::<F>(capacity, items, consumer, live, go),
        Cause::LabMessage => lab_message::<F>(capacity, items, consumer, go),
        Cause::LabLoops => lab_loops::<F>(capacity, items, consumer, go),
        Cause::ConsumerSpawned => consumer_spawned::<F>(capacity, items, consumer, go),
    }
}

/// The bare pair: `go`, spawn the producer, receive on the calling thread, join.
fn control<F: Flavor>(
    capacity: usize,
    items: u64,
    consumer: Consumer,
    go: &mut dyn FnMut(),
) -> Result<Outcome, HandoffError> {
    let (tx, rx) = F::bounded::<u64>(capacity);
    go();
    let producer = spawn(Side::Producer, move || send_all::<F, u64>(&tx, items, |i| i))?;
    let outcome = receive(consumer, move || F::recv(&rx));
    join(producer, outcome)
}

/// The bare pair with the lab's start: the producer spawned first and parked at a [`StartLine`] until `go`.
fn started_before<F: Flavor>(
    capacity: usize,
    items: u64,
    consumer: Consumer,
    go: &mut dyn FnMut(),
) -> Result<Outcome, HandoffError> {
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
fn lab_spawn<F: Flavor>(
    capacity: usize,
    items: u64,
    consumer: Consumer,
    live: &Arc<LiveStages>,
    go: &mut dyn FnMut(),
) -> Result<Outcome, HandoffError> {
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
fn lab_message<F: Flavor>(
    capacity: usize,
    items: u64,
    consumer: Consumer,
    go: &mut dyn FnMut(),
) -> Result<Outcome, HandoffError> {
    let (tx, rx) = F::bounded::<Result<u64, Infallible>>(capacity);
    go();
    let producer = spawn(Side::Producer, move || send_all::<F, Result<u64, Infallible>>(&tx, items, Ok))?;
    let outcome = receive(consumer, move || F::recv(&rx).map(|m| m.unwrap_or_else(|never| match never {})));
    join(producer, outcome)
}

/// The bare pair with the lab's loops: `produce` on the producer thread, `consume` on the calling thread, over
/// a `u64` channel (the loops' `Result<u64, Infallible>` is unwrapped at the channel, which costs nothing).
fn lab_loops<F: Flavor>(
    capacity: usize,
    items: u64,
    consumer: Consumer,
    go: &mut dyn FnMut(),
) -> Result<Outcome, HandoffError> {
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
fn consumer_spawned<F: Flavor>(
    capacity: usize,
    items: u64,
    consumer: Consumer,
    go: &mut dyn FnMut(),
) -> Result<Outcome, HandoffError> {
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

/// The bare consumer loop over `next` (which owns the receiver, so it is dropped on return): the summing loop
/// of `super::bare` for [`Consumer::Sum`], else collecting (`Take(k)` stops after `k` items).
#[inline(always)]
fn receive(consumer: Consumer, mut next: impl FnMut() -> Option<u64>) -> Outcome {
    match consumer {
        Consumer::Sum => {
            let (mut sum, mut count, mut first_disorder) = (0u64, 0u64, None);
            while let Some(v) = next() {
                if v != count && first_disorder.is_none() {
                    first_disorder = Some(count);
                }
                sum = sum.wrapping_add(v);
                count += 1;
            }
            Outcome::Sum { sum, count, first_disorder }
        }
        // A bare pair has no cancel to listen for (its `caller_cancel` check is not applicable): it collects.
        Consumer::Collect | Consumer::Cancellable => Outcome::Items(std::iter::from_fn(next).collect()),
        Consumer::Take(k) => Outcome::Items(std::iter::from_fn(next).take(k).collect()),
    }
}

fn spawn<T: Send + 'static>(
    side: Side,
    body: impl FnOnce() -> T + Send + 'static,
) -> Result<thread::JoinHandle<T>, HandoffError> {
    thread::Builder::new().spawn(body).map_err(|source| HandoffError::Spawn { side, source })
}

fn join(producer: thread::JoinHandle<()>, outcome: Outcome) -> Result<Outcome, HandoffError> {
    producer.join().map_err(|p| HandoffError::from_panic(Side::Producer, &*p))?;
    Ok(outcome)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_variant_is_an_on_request_reference_named_after_its_bare_pair() {
        let listed: Vec<String> = super::super::contestants().iter().map(|c| c.info().name).collect();
        let variants: Vec<ContestantInfo> = all().iter().map(|c| c.info()).collect();
        let mut names: Vec<&str> = variants.iter().map(|i| i.name.as_str()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), CHANNELS.len() * CAUSES.len(), "names are unique");
        for info in &variants {
            assert_eq!(info.role, Role::Reference, "{}", info.name);
            assert!(!listed.contains(&info.name), "{} must not be in the default run", info.name);
            let bare =
                CHANNELS.iter().map(|c| format!("{}{BARE_SUFFIX}-", c.twin())).find(|b| info.name.starts_with(b));
            assert!(bare.is_some(), "{} is named after a bare pair", info.name);
            assert!(super::super::find(&info.name).is_some(), "{} is found for its trial", info.name);
        }
    }

    #[test]
    fn the_lab_message_has_the_layout_of_a_u64() {
        assert_eq!(std::mem::size_of::<Result<u64, Infallible>>(), std::mem::size_of::<u64>());
        assert_eq!(std::mem::align_of::<Result<u64, Infallible>>(), std::mem::align_of::<u64>());
    }

    #[test]
    fn a_take_consumer_stops_after_k_and_the_producer_stops_too() {
        let live = Arc::new(LiveStages::new());
        for cause in CAUSES {
            for channel in CHANNELS {
                let prepared = PreparedVariant { variant: Variant { channel, cause }, capacity: 1 };
                let out = prepared.run_variant(100_000, Consumer::Take(3), &live, &mut || {});
                assert_eq!(out.ok(), Some(Outcome::Items(vec![0, 1, 2])), "{}", prepared.variant.name());
            }
        }
        assert_eq!(live.current(), 0);
    }
}
