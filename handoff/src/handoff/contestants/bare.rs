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
//! The same construction carries their per-cause A/B variants (`*-bare-<cause>`, on request only): a [`Bare`]
//! with a [`Cause`] runs `super::bare_ab`'s (threads) or `super::bare_ab_async`'s (tasks) program for it instead of
//! the bare one; everything else (name, role, sizing, runtime, the checks that apply) is this file's.
//!
//! They carry no meter and no fault injection, so the conformance checks that need those (`bounded_outstanding`,
//! `early_stop`, `producer_error`, `producer_panic`) are not applicable to them and say so; `checksum` and
//! `exactly_once` apply as to every contestant (a collecting consumer is the same loop pushing into a `Vec`).

use std::fmt;
use std::sync::Arc;

use measure::meter::{GaugeMeter, NoMeter};
use measure::summary::{ContestantInfo, Family, Role};
use pipelines::blocking::crossbeam::Crossbeam;
use pipelines::blocking::flume::Flume;
use pipelines::conformance::Prepared;
use pipelines::LiveStages;
use tokio::runtime::Runtime;

use super::bare_ab::{Cause, TASK_CAUSES, THREAD_CAUSES};
use super::bare_run::{join, join_tasks, receive, spawn, BareRun};
use super::two_tasks::{FlumeChannel, TokioChannel};
use super::{bare_ab, bare_ab_async, AbVariant, Contestant, Handoff, PreparedHandoff};
use crate::job::{Consumer, HandoffConfig, HandoffError, Job, Outcome, ProducerSite, Side};

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

    /// The bare pair's name.
    fn bare(self) -> String {
        format!("{}{BARE_SUFFIX}", self.twin())
    }

    fn family(self) -> Family {
        if self.tasks() {
            Family::Stream
        } else {
            Family::Blocking
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

    /// Its two ends are tasks on a multi-thread runtime (built in `prepare`), not threads.
    fn tasks(self) -> bool {
        matches!(self, Channel::FlumeAsync | Channel::TokioMpsc)
    }
}

/// Every bare pair, in registry order.
pub(crate) const ALL: [Channel; 4] = [Channel::Crossbeam, Channel::FlumeSync, Channel::FlumeAsync, Channel::TokioMpsc];

/// Each bare pair with per-cause A/B variants, and their causes in listing order (the control first).
const VARIANTS: [(Channel, &[Cause]); 4] = [
    (Channel::Crossbeam, &THREAD_CAUSES),
    (Channel::FlumeSync, &THREAD_CAUSES),
    (Channel::FlumeAsync, &TASK_CAUSES),
    (Channel::TokioMpsc, &[Cause::Control]),
];

/// A bare reference pair as the registry lists it: the bare program, or with `cause` one of its per-cause A/B
/// variants.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Bare {
    /// The pair's channel.
    pub(crate) channel: Channel,
    /// The one difference from the lab's pair put back, for an A/B variant; `None` for the bare pair itself.
    pub(crate) cause: Option<Cause>,
}

/// Every per-cause A/B variant, in listing order: crossbeam's, flume's, async flume's, then tokio's control.
pub(super) fn variants() -> Vec<Bare> {
    VARIANTS
        .iter()
        .flat_map(|&(channel, causes)| causes.iter().map(move |&cause| Bare { channel, cause: Some(cause) }))
        .collect()
}

/// Every per-cause A/B variant as the report reads it, in listing order.
pub(super) fn listing() -> Vec<AbVariant> {
    variants()
        .into_iter()
        .filter_map(|v| {
            let cause = v.cause?;
            Some(AbVariant {
                lab: v.channel.twin(),
                bare: v.channel.bare(),
                name: v.name(),
                cause: cause.suffix(),
                control: cause == Cause::Control,
                tasks: v.channel.tasks(),
            })
        })
        .collect()
}

impl Bare {
    fn name(&self) -> String {
        match self.cause {
            None => self.channel.bare(),
            Some(cause) => format!("{}-{}", self.channel.bare(), cause.suffix()),
        }
    }
}

impl Contestant<Handoff> for Bare {
    fn info(&self) -> ContestantInfo {
        let description = match self.cause {
            None => self.channel.describe().to_string(),
            Some(cause) => format!(
                "{}; else `{}` as it is (an A/B variant that differs from its bare pair in this one thing; run only \
                 when `--only` names it; calibration)",
                cause.describe(self.channel.tasks()),
                self.channel.bare()
            ),
        };
        ContestantInfo::new(self.name(), self.channel.family(), description).with_role(Role::Reference)
    }

    fn items_per_message(&self, _: &HandoffConfig) -> Option<usize> {
        Some(1)
    }

    /// What a bare pair cannot be asked: it carries no meter, fault injection or cancellable consumer.
    fn not_applicable(&self, check: &str) -> Option<&'static str> {
        not_applicable(check)
    }

    fn prepare(&self, config: &HandoffConfig) -> Result<Box<PreparedHandoff>, HandoffError> {
        let runtime = if self.channel.tasks() {
            let built = pipelines::stream::runtime::multi_thread();
            Some(built.map_err(|e| HandoffError::Prepare { contestant: self.name(), message: e.to_string() })?)
        } else {
            None
        };
        Ok(Box::new(PreparedBare { bare: *self, capacity: config.capacity.max(1), runtime }))
    }
}

/// A bare pair (or A/B variant) with its runtime, if any, built.
pub(super) struct PreparedBare {
    bare: Bare,
    capacity: usize,
    runtime: Option<Runtime>,
}

impl fmt::Debug for PreparedBare {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PreparedBare")
            .field("name", &self.bare.name())
            .field("capacity", &self.capacity)
            .field("runtime", &self.runtime.is_some())
            .finish()
    }
}

impl Prepared<u64, ProducerSite, HandoffError> for PreparedBare {
    fn run(&self, job: &Job<'_, NoMeter>, go: &mut dyn FnMut()) -> Result<Outcome, HandoffError> {
        self.run_any(job.items(), job.consumer, job.live, go)
    }

    /// The same program: it carries no meter, so the gauge is never touched.
    fn run_metered(&self, job: &Job<'_, GaugeMeter>, go: &mut dyn FnMut()) -> Result<Outcome, HandoffError> {
        self.run_any(job.items(), job.consumer, job.live, go)
    }

    fn alive_tasks(&self) -> Option<usize> {
        self.runtime.as_ref().map(|rt| rt.metrics().num_alive_tasks())
    }
}

/// A thread pair's bare program, written out for each channel so nothing but the channel is on its path: `go`,
/// spawn the producer thread, receive on the calling thread, drop the receiver, join.
macro_rules! thread_pair {
    ($channel:expr, $items:expr, $consumer:expr, $go:expr) => {{
        let (tx, rx) = $channel;
        $go();
        let items = $items;
        let producer = spawn(Side::Producer, move || {
            for i in 0..items {
                if tx.send(i).is_err() {
                    break;
                }
            }
        })?;
        let outcome = receive!($consumer, rx.recv().ok());
        drop(rx);
        join(producer, outcome)
    }};
}

impl PreparedBare {
    /// The bare program, or the variant's.
    fn run_any(
        &self,
        items: u64,
        consumer: Consumer,
        live: &Arc<LiveStages>,
        go: &mut dyn FnMut(),
    ) -> Result<Outcome, HandoffError> {
        let Some(cause) = self.bare.cause else {
            return self.run_bare(items, consumer, go);
        };
        let run = BareRun { capacity: self.capacity, items, consumer, live, go };
        match self.bare.channel {
            Channel::Crossbeam => bare_ab::run_cause::<Crossbeam>(cause, run),
            Channel::FlumeSync => bare_ab::run_cause::<Flume>(cause, run),
            Channel::FlumeAsync => self.runtime()?.block_on(bare_ab_async::run_cause::<FlumeChannel>(cause, run)),
            Channel::TokioMpsc => self.runtime()?.block_on(bare_ab_async::run_cause::<TokioChannel>(cause, run)),
        }
    }

    fn run_bare(&self, items: u64, consumer: Consumer, go: &mut dyn FnMut()) -> Result<Outcome, HandoffError> {
        let capacity = self.capacity;
        match self.bare.channel {
            Channel::Crossbeam => thread_pair!(crossbeam_channel::bounded::<u64>(capacity), items, consumer, go),
            Channel::FlumeSync => thread_pair!(flume::bounded::<u64>(capacity), items, consumer, go),
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
                let consumer = tokio::spawn(async move { receive!(consumer, rx.recv_async().await.ok()) });
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
                let consumer = tokio::spawn(async move { receive!(consumer, rx.recv().await) });
                join_tasks(producer, consumer).await
            }),
        }
    }

    fn runtime(&self) -> Result<&Runtime, HandoffError> {
        self.runtime.as_ref().ok_or_else(|| HandoffError::Prepare {
            contestant: self.bare.name(),
            message: "prepared without a runtime".to_string(),
        })
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_variant_is_an_on_request_reference_named_after_its_bare_pair() {
        let listed: Vec<String> = super::super::contestants().iter().map(|c| c.info().name).collect();
        let infos: Vec<ContestantInfo> = variants().iter().map(|c| c.info()).collect();
        let mut names: Vec<&str> = infos.iter().map(|i| i.name.as_str()).collect();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), infos.len(), "names are unique");
        assert!(names.contains(&"stream-flume-bare-into-stream") && names.contains(&"stream-tokio-bare-control"));
        for (variant, info) in variants().iter().zip(&infos) {
            assert_eq!(info.role, Role::Reference, "{}", info.name);
            assert_eq!(info.family, variant.channel.family(), "{}", info.name);
            assert!(info.name.starts_with(&format!("{}-", variant.channel.bare())), "{}", info.name);
            assert!(!listed.contains(&info.name), "{} must not be in the default run", info.name);
            assert!(super::super::find(&info.name).is_some(), "{} is found for its trial", info.name);
        }
    }

    /// Every bare pair and every variant, ready to run at `capacity`.
    fn prepared(capacity: usize) -> Vec<PreparedBare> {
        let bares = ALL.iter().map(|&channel| Bare { channel, cause: None });
        bares
            .chain(variants())
            .map(|bare| {
                let runtime =
                    bare.channel.tasks().then(|| pipelines::stream::runtime::multi_thread().expect("runtime"));
                PreparedBare { bare, capacity, runtime }
            })
            .collect()
    }

    #[test]
    fn a_take_consumer_stops_after_k_the_producer_stops_too_and_every_task_ends() {
        let live = Arc::new(LiveStages::new());
        for prepared in prepared(1) {
            let out = prepared.run_any(100_000, Consumer::Take(3), &live, &mut || {});
            assert_eq!(out.ok(), Some(Outcome::Items(vec![0, 1, 2])), "{}", prepared.bare.name());
        }
        assert_eq!(live.current(), 0);
    }

    #[test]
    fn a_summing_consumer_gets_every_item_in_order() {
        let live = Arc::new(LiveStages::new());
        for prepared in prepared(4) {
            let out = prepared.run_any(1_000, Consumer::Sum, &live, &mut || {});
            let expected = Outcome::Sum { sum: 999 * 1_000 / 2, count: Some(1_000), first_disorder: None };
            assert_eq!(out.ok(), Some(expected), "{}", prepared.bare.name());
        }
    }
}
