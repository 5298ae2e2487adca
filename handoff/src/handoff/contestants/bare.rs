//! The bare reference pairs (`*-bare`, role `reference`): for crossbeam, flume (sync and async) and tokio's mpsc,
//! the smallest correct program of the pair, written without the lab's shared code, to calibrate what the lab's
//! own contestants cost beyond the channel.
//!
//! Each is what a person would write to time the pair by hand: one thread (or task) sends `0..items` as plain
//! `u64`s into a bounded channel of `capacity` messages and stops when the receiver is gone; the other receives,
//! sums with `wrapping_add` and checks that item `i` is `i`. No `Job` producer, no `Sink`, no meter, no start
//! line: `go` is called first, then the producer is spawned, so its thread's (or task's) start-up is inside the
//! timed window (tens of microseconds against tens of milliseconds of hand-off). The thread pairs consume on the
//! calling thread, as the lab's blocking contestants do; the task pairs spawn both ends on a multi-thread runtime
//! with tokio's default worker count, built once in `prepare`, as the lab's stream contestants do.
//!
//! They carry no meter and no fault injection, so the conformance checks that need those (`bounded_outstanding`,
//! `early_stop`, `producer_error`, `producer_panic`) are not applicable to them and say so; `checksum` and
//! `exactly_once` apply as to every contestant (a collecting consumer is the same loop pushing into a `Vec`).

use std::fmt;

use measure::meter::{GaugeMeter, NoMeter};
use measure::summary::{ContestantInfo, Family, Role};
use tokio::runtime::Runtime;

use super::{HandoffContestant, PreparedHandoff};
use crate::job::{Consumer, HandoffConfig, HandoffError, Job, Outcome, Side};

/// Suffix of every bare reference pair's name.
pub(super) const BARE_SUFFIX: &str = "-bare";

/// Which channel a bare pair uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Channel {
    /// `crossbeam_channel::bounded`, producer thread → calling thread.
    Crossbeam,
    /// `flume::bounded` with blocking `send`/`recv`, producer thread → calling thread.
    FlumeSync,
    /// `flume::bounded` with `send_async`/`recv_async`, producer task → consumer task.
    FlumeAsync,
    /// `tokio::sync::mpsc::channel`, producer task → consumer task.
    TokioMpsc,
}

impl Channel {
    /// The lab contestant this pair calibrates.
    pub(crate) fn twin(self) -> &'static str {
        match self {
            Channel::Crossbeam => "blocking-crossbeam",
            Channel::FlumeSync => "blocking-flume",
            Channel::FlumeAsync => "stream-flume",
            Channel::TokioMpsc => "stream-tokio",
        }
    }

    fn family(self) -> Family {
        match self {
            Channel::Crossbeam | Channel::FlumeSync => Family::Blocking,
            Channel::FlumeAsync | Channel::TokioMpsc => Family::Stream,
        }
    }

    fn describe(self) -> &'static str {
        match self {
            Channel::Crossbeam => {
                "the bare pair of `blocking-crossbeam`: a thread spawned after the clock starts sends `0..items` as \
                 `u64` into `crossbeam_channel::bounded(capacity)`; the calling thread receives, sums and checks \
                 order; no lab code on the path (calibration)"
            }
            Channel::FlumeSync => {
                "the bare pair of `blocking-flume`: a thread spawned after the clock starts sends `0..items` as \
                 `u64` into `flume::bounded(capacity)` (blocking `send`/`recv`); the calling thread receives, sums \
                 and checks order; no lab code on the path (calibration)"
            }
            Channel::FlumeAsync => {
                "the bare pair of `stream-flume`: on a multi-thread runtime, a producer task `send_async`s `0..items` \
                 as `u64` into `flume::bounded(capacity)` and a consumer task `recv_async`s, sums and checks order; \
                 both spawned after the clock starts; no lab code on the path (calibration)"
            }
            Channel::TokioMpsc => {
                "the bare pair of `stream-tokio`: on a multi-thread runtime, a producer task `send`s `0..items` as \
                 `u64` into `tokio::sync::mpsc::channel(capacity)` and a consumer task `recv`s, sums and checks \
                 order; both spawned after the clock starts; no lab code on the path (calibration)"
            }
        }
    }

    fn needs_runtime(self) -> bool {
        matches!(self, Channel::FlumeAsync | Channel::TokioMpsc)
    }
}

/// Every bare pair, in registry order.
pub(crate) const ALL: [Channel; 4] = [Channel::Crossbeam, Channel::FlumeSync, Channel::FlumeAsync, Channel::TokioMpsc];

/// A bare reference pair as the registry lists it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Bare(pub(crate) Channel);

impl HandoffContestant for Bare {
    fn info(&self) -> ContestantInfo {
        ContestantInfo::new(format!("{}{BARE_SUFFIX}", self.0.twin()), self.0.family(), self.0.describe())
            .with_role(Role::Reference)
    }

    /// No meter, so no bound to hold it to: the bounded-outstanding check is not applicable.
    fn bound(&self, _: &HandoffConfig) -> Option<u64> {
        None
    }

    fn items_per_message(&self, _: &HandoffConfig) -> Option<usize> {
        Some(1)
    }

    fn prepare(&self, config: &HandoffConfig) -> Result<Box<dyn PreparedHandoff>, HandoffError> {
        let runtime = if self.0.needs_runtime() {
            let built = pipelines::stream::runtime::multi_thread();
            Some(built.map_err(|e| HandoffError::Prepare { contestant: self.info().name, message: e.to_string() })?)
        } else {
            None
        };
        Ok(Box::new(PreparedBare { channel: self.0, capacity: config.capacity.max(1), runtime }))
    }
}

/// A bare pair with its runtime, if any, built.
struct PreparedBare {
    channel: Channel,
    capacity: usize,
    runtime: Option<Runtime>,
}

impl fmt::Debug for PreparedBare {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PreparedBare")
            .field("channel", &self.channel)
            .field("capacity", &self.capacity)
            .field("runtime", &self.runtime.is_some())
            .finish()
    }
}

impl PreparedHandoff for PreparedBare {
    fn run(&self, job: &Job<'_, NoMeter>, go: &mut dyn FnMut()) -> Result<Outcome, HandoffError> {
        self.run_bare(job.items, job.consumer, go)
    }

    /// The same bare program: it carries no meter, so the gauge is never touched.
    fn run_metered(&self, job: &Job<'_, GaugeMeter>, go: &mut dyn FnMut()) -> Result<Outcome, HandoffError> {
        self.run_bare(job.items, job.consumer, go)
    }

    fn alive_tasks(&self) -> Option<usize> {
        self.runtime.as_ref().map(|rt| rt.metrics().num_alive_tasks())
    }
}

/// What the consumer keeps: a sum with the order check, or every item (collecting; `Take(k)` stops after `k`).
#[derive(Debug)]
enum Tally {
    Sum { sum: u64, count: u64, first_disorder: Option<u64> },
    Items { items: Vec<u64>, limit: usize },
}

impl Tally {
    fn new(consumer: Consumer) -> Tally {
        match consumer {
            Consumer::Sum => Tally::Sum { sum: 0, count: 0, first_disorder: None },
            // A bare pair has no cancel to listen for (its `caller_cancel` check is not applicable): it collects.
            Consumer::Collect | Consumer::Cancellable => Tally::Items { items: Vec::new(), limit: usize::MAX },
            Consumer::Take(k) => Tally::Items { items: Vec::new(), limit: k },
        }
    }

    /// Take `v`; `false` once a `Take(k)` consumer has its `k` items.
    #[inline]
    fn take(&mut self, v: u64) -> bool {
        match self {
            Tally::Sum { sum, count, first_disorder } => {
                if v != *count && first_disorder.is_none() {
                    *first_disorder = Some(*count);
                }
                *sum = sum.wrapping_add(v);
                *count += 1;
                true
            }
            Tally::Items { items, limit } => {
                items.push(v);
                items.len() < *limit
            }
        }
    }

    fn outcome(self) -> Outcome {
        match self {
            Tally::Sum { sum, count, first_disorder } => Outcome::Sum { sum, count, first_disorder },
            Tally::Items { items, .. } => Outcome::Items(items),
        }
    }
}

/// The summing loop, the measured one, written out for each channel so nothing but the channel is on its path.
macro_rules! sum_loop {
    ($next:expr) => {{
        let (mut sum, mut count, mut first_disorder) = (0u64, 0u64, None);
        while let Some(v) = $next {
            if v != count && first_disorder.is_none() {
                first_disorder = Some(count);
            }
            sum = sum.wrapping_add(v);
            count += 1;
        }
        Outcome::Sum { sum, count, first_disorder }
    }};
}

impl PreparedBare {
    fn run_bare(&self, items: u64, consumer: Consumer, go: &mut dyn FnMut()) -> Result<Outcome, HandoffError> {
        let capacity = self.capacity;
        match self.channel {
            Channel::Crossbeam => {
                let (tx, rx) = crossbeam_channel::bounded::<u64>(capacity);
                go();
                let producer = spawn(move || {
                    for i in 0..items {
                        if tx.send(i).is_err() {
                            break;
                        }
                    }
                })?;
                let outcome = match consumer {
                    Consumer::Sum => sum_loop!(rx.recv().ok()),
                    other => collect(other, || rx.recv().ok()),
                };
                drop(rx);
                join(producer, outcome)
            }
            Channel::FlumeSync => {
                let (tx, rx) = flume::bounded::<u64>(capacity);
                go();
                let producer = spawn(move || {
                    for i in 0..items {
                        if tx.send(i).is_err() {
                            break;
                        }
                    }
                })?;
                let outcome = match consumer {
                    Consumer::Sum => sum_loop!(rx.recv().ok()),
                    other => collect(other, || rx.recv().ok()),
                };
                drop(rx);
                join(producer, outcome)
            }
            Channel::FlumeAsync => self.runtime()?.block_on(async move {
                let (tx, rx) = flume::bounded::<u64>(capacity);
                go();
                let producer = tokio::spawn(async move {
                    for i in 0..items {
                        if tx.send_async(i).await.is_err() {
                            break;
                        }
                    }
                });
                let consumer = tokio::spawn(async move {
                    match consumer {
                        Consumer::Sum => sum_loop!(rx.recv_async().await.ok()),
                        other => {
                            let mut tally = Tally::new(other);
                            while let Ok(v) = rx.recv_async().await {
                                if !tally.take(v) {
                                    break;
                                }
                            }
                            tally.outcome()
                        }
                    }
                });
                join_tasks(producer, consumer).await
            }),
            Channel::TokioMpsc => self.runtime()?.block_on(async move {
                let (tx, mut rx) = tokio::sync::mpsc::channel::<u64>(capacity);
                go();
                let producer = tokio::spawn(async move {
                    for i in 0..items {
                        if tx.send(i).await.is_err() {
                            break;
                        }
                    }
                });
                let consumer = tokio::spawn(async move {
                    match consumer {
                        Consumer::Sum => sum_loop!(rx.recv().await),
                        other => {
                            let mut tally = Tally::new(other);
                            while let Some(v) = rx.recv().await {
                                if !tally.take(v) {
                                    break;
                                }
                            }
                            tally.outcome()
                        }
                    }
                });
                join_tasks(producer, consumer).await
            }),
        }
    }

    fn runtime(&self) -> Result<&Runtime, HandoffError> {
        self.runtime.as_ref().ok_or_else(|| HandoffError::Prepare {
            contestant: format!("{}{BARE_SUFFIX}", self.channel.twin()),
            message: "prepared without a runtime".to_string(),
        })
    }
}

/// A collecting consumer over `next` (`Collect`, or `Take(k)`, which stops after `k` items).
fn collect(consumer: Consumer, mut next: impl FnMut() -> Option<u64>) -> Outcome {
    let mut tally = Tally::new(consumer);
    while let Some(v) = next() {
        if !tally.take(v) {
            break;
        }
    }
    tally.outcome()
}

fn spawn(body: impl FnOnce() + Send + 'static) -> Result<std::thread::JoinHandle<()>, HandoffError> {
    std::thread::Builder::new().spawn(body).map_err(|source| HandoffError::Spawn { side: Side::Producer, source })
}

fn join(producer: std::thread::JoinHandle<()>, outcome: Outcome) -> Result<Outcome, HandoffError> {
    producer.join().map_err(|p| HandoffError::from_panic(Side::Producer, &*p))?;
    Ok(outcome)
}

async fn join_tasks(
    producer: tokio::task::JoinHandle<()>,
    consumer: tokio::task::JoinHandle<Outcome>,
) -> Result<Outcome, HandoffError> {
    let consumed = consumer.await.map_err(|e| HandoffError::from_join(Side::Consumer, e));
    producer.await.map_err(|e| HandoffError::from_join(Side::Producer, e))?;
    consumed
}

/// Why a conformance check named `check` is not applicable to a bare pair, or `None` when it applies.
pub(crate) fn not_applicable(check: &str) -> Option<&'static str> {
    match check {
        "bounded_outstanding" => {
            Some("a bare reference pair carries no meter, so there is no outstanding count to bound")
        }
        "early_stop" => Some(
            "a bare reference pair has no instrumented producer, so how far it ran after the consumer stopped \
             cannot be counted",
        ),
        "producer_error" | "producer_panic" | "clean_after_faults" => {
            Some("a bare reference pair has no fault injection: its producer is a plain `for` loop")
        }
        "caller_cancel" => Some("a bare reference pair has no cancellable consumer: it sums what it receives"),
        _ => None,
    }
}
