//! Every contestant of the handoff scenario, one channel per file (its per-item and batched variants together);
//! [`contestants`] is the registry.
//!
//! | name | what it is |
//! |---|---|
//! | `baseline-loop` | the producer's loop feeds the consumer's sum directly on one thread: no hand-off, the floor |
//! | `blocking-rtrb` | producer thread → `rtrb::RingBuffer` (a bounded SPSC ring; spin, then yield, never park) → the calling thread: the floor of a cross-thread hand-off (role `reference`, never the pick; see `rtrb_ring`) |
//! | `blocking-crossbeam[-batched]` | producer thread → `crossbeam_channel::bounded` → the calling thread |
//! | `blocking-flume[-batched]` | producer thread → `flume::bounded`, sync `send`/`recv` → the calling thread |
//! | `blocking-std[-batched]` | producer thread → `std::sync::mpsc::sync_channel` → the calling thread |
//! | `blocking-crossbeam-one-message`, `blocking-std-one-message`, `stream-tokio-one-message` | the same pairs with the whole capacity in one message: producer and consumer take turns |
//! | `blocking-condvar[-batched]` | producer thread → hand-written `Mutex<VecDeque>` + two `Condvar`s, notifying on every operation → the calling thread |
//! | `blocking-condvar-counted[-batched]` | the same queue counting its waiters, notifying only when a peer waits |
//! | `stream-tokio[-batched]` | producer task → `tokio::sync::mpsc` → consumer task polling a `ReceiverStream`, multi-thread runtime |
//! | `stream-tokio-recv-many` | the same channel, one item per message, drained up to `batch` at a time with `Receiver::recv_many` |
//! | `baseline-tokio-current-thread[-batched]` | the tokio pair on a current-thread runtime: both ends on one thread |
//! | `stream-flume[-batched]` | producer task `send_async` → `flume::bounded` → consumer task polling `into_stream()`, multi-thread runtime |
//! | `stream-futures[-batched]` | producer task → `futures::channel::mpsc` → consumer task polling the receiver stream, multi-thread runtime |
//! | `stream-bridge-blocking-send[-batched]` | producer thread `blocking_send` → `tokio::sync::mpsc` → consumer task |
//! | `blocking-bridge-blocking-recv[-batched]` | producer task → `tokio::sync::mpsc` → the calling thread's `blocking_recv` |
//! | `blocking-crossbeam-bare`, `blocking-flume-bare`, `stream-flume-bare`, `stream-tokio-bare` | the bare reference pairs (role `reference`): the smallest correct program of each pair, without the lab's shared code, to calibrate the lab (see `bare`) |
//! | `blocking-{crossbeam,flume}-bare-<cause>` | on request only ([`on_request`]: never in a default run): the blocking bare pairs with one of the lab pair's differences put back each, an A/B per suspected cause of the lab's gap (see `bare_ab`; `just fidelity-ab`) |
//! | `stream-flume-bare-<cause>`, `stream-tokio-bare-control` | on request only: the same for `stream-flume`'s bare pair, and an A/A control of the tokio pair (see `bare_ab_async`) |
//! | `blocking-crossbeam-standalone`, `stream-flume-standalone`, `stream-tokio-standalone` | the standalone programs (role `reference`): the same pairs as programs of their own (the `standalone` crate), run outside the lab's trial process to calibrate the trial process itself; listed by [`listed`], never run in the lab's process (see `standalone`) |
//! | `coroutine-may[-batched]` | producer coroutine → `may::sync::mpsc::channel` bounded by a `may::sync::Semphore` → consumer coroutine; `may` 0.3, one carrier per CPU, 32 KiB stacks |
//!
//! The coroutine pair follows `may`'s rules (no thread-blocking call, no thread-local held across a wait inside a
//! coroutine; see `docs/coroutines.md`); `may`'s mpsc is unbounded, so the semaphore is what bounds it.
//!
//! A contestant's family is the consumer's style: the bridge into a task is `stream`, the bridge out of one is
//! `blocking`.
//!
//! **Common ground.** The producer emits `0..items` (the crate's `produce` module gives the payload and how a
//! failure travels); the consumer sums with `wrapping_add` and checks that item `i` is `i` (`consume`).
//! Runtimes are built in [`Contestant::prepare`], outside the timed window, and reused by every
//! iteration; channels are made inside each run before it calls `go`, and the threads, tasks and coroutines right
//! after it, as a program of the pair's own spawns them (the `standalone` crate's): a producer spawned before the
//! clock and released by the consumer is woken beside it on one CPU (`crate::pair`). Spawning is timed: tens of
//! microseconds, under 0.5% of an iteration of a million items.
//! Multi-thread runtimes have tokio's default worker count (one per core).
//!
//! **Capacity.** Every channel holds the same number of items: `capacity` messages of one item, or
//! `max(1, capacity / batch)` messages of `batch` items. Where a crate counts differently it is compensated:
//! `futures::channel::mpsc::channel(n)` holds `n` plus one message per sender, so it is created with
//! `messages − 1` (for one message, `channel(0)`: the sender's own slot is the whole buffer).
//!
//! **Outstanding work.** The producer `admit`s a message's items into the job's meter (`NoMeter` in timed
//! iterations, where the calls compile away; the shared gauge in accounting iterations and conformance checks)
//! just before sending it and the consumer lets them `leave` just after receiving it: in accounting iterations,
//! one relaxed atomic each per message. The bound
//! ([`Contestant::bound`]) is what the channel holds plus one message in each end's hand
//! ([`HandoffConfig::bound`]), except where a contestant's consumer holds more (`recv_many`).

mod bare;
mod bare_ab;
mod bare_ab_async;
mod bare_run;
mod baseline_loop;
mod bridge_blocking_recv;
mod bridge_blocking_send;
mod may_mpsc;
mod rtrb_ring;
mod standalone;
mod thread_to_caller;
mod tokio_recv_many;
mod two_tasks;

use std::fmt;
use std::marker::PhantomData;
use std::sync::Arc;

use measure::external::ExternalProgram;
use measure::meter::{GaugeMeter, Meter};
use measure::record::TrialRequest;
use measure::scenario::TrialError;
use measure::summary::{ContestantInfo, Family, Role};
use pipelines::cancel::CancellableSink;
use pipelines::conformance::{Contestant, Prepared};
use pipelines::sink::TakeSink;

use pipelines::blocking::crossbeam::Crossbeam;
use pipelines::blocking::flume::Flume;
use pipelines::blocking::std_sync::StdSync;
use tokio::runtime::Runtime;

use crate::condvar_queue::{CondvarQueue, CountedCondvarQueue};
use crate::consume::{Sink, SumSink};
use crate::handoff::conformance::Handoff;
use crate::job::{Behaviour, Consumer, HandoffConfig, HandoffError, Job, Outcome, Packing, ProducerSite};
use crate::message::{Clean, Tripwire};
use crate::produce::{Batched, PerItem, Producer, Shape};

/// A way of handing items from a producer to a consumer, as the registry lists it: the items kit's
/// [`Contestant`] of the [`Handoff`] (its bound is what the channel holds plus both ends' hands; every check applies
/// to a contestant built on the lab's producer, consumer and meter).
pub trait HandoffContestant: Contestant<Handoff> {}

impl<C: ?Sized + Contestant<Handoff>> HandoffContestant for C {}

/// A hand-off contestant ready to run, its runtime, if any, built: the items contract's
/// [`pipelines::conformance::Prepared`] over the hand-off's item count, producer site and error.
pub type PreparedHandoff = dyn Prepared<u64, ProducerSite, HandoffError>;

/// Every contestant, in report order: each per-item contestant right before its batched twin (and, for
/// crossbeam, std and tokio, the one-message variant after that).
pub fn contestants() -> Vec<Arc<dyn HandoffContestant>> {
    use baseline_loop::BaselineLoop;
    use bridge_blocking_recv::BridgeBlockingRecv;
    use bridge_blocking_send::BridgeBlockingSend;
    use may_mpsc::MayMpsc;
    use rtrb_ring::RtrbRing;
    use thread_to_caller::ThreadToCaller;
    use tokio_recv_many::TokioRecvMany;
    use two_tasks::{FlumeAsync, FuturesMpsc, Tasks, TokioCurrentThread, TokioMpsc};
    let one = &[Packing::PerItem][..];
    let twins = &[Packing::PerItem, Packing::Batched][..];
    let three = &[Packing::PerItem, Packing::Batched, Packing::OneMessage][..];
    use Family::{Baseline, Blocking, Coroutine, Stream};
    let (threads, multi, current) = (RuntimeKind::None, RuntimeKind::MultiThread, RuntimeKind::CurrentThread);
    let pairs = [
        pairs::<BaselineLoop>("baseline-loop", Baseline, threads, one),
        pairs::<RtrbRing>("blocking-rtrb", Blocking, threads, one),
        pairs::<ThreadToCaller<Crossbeam>>("blocking-crossbeam", Blocking, threads, three),
        pairs::<ThreadToCaller<Flume>>("blocking-flume", Blocking, threads, twins),
        pairs::<ThreadToCaller<StdSync>>("blocking-std", Blocking, threads, three),
        pairs::<ThreadToCaller<CondvarQueue>>("blocking-condvar", Blocking, threads, twins),
        pairs::<ThreadToCaller<CountedCondvarQueue>>("blocking-condvar-counted", Blocking, threads, twins),
        pairs::<Tasks<TokioMpsc>>("stream-tokio", Stream, multi, three),
        pairs::<TokioRecvMany>("stream-tokio-recv-many", Stream, multi, one),
        pairs::<Tasks<TokioCurrentThread>>("baseline-tokio-current-thread", Baseline, current, twins),
        pairs::<Tasks<FlumeAsync>>("stream-flume", Stream, multi, twins),
        pairs::<Tasks<FuturesMpsc>>("stream-futures", Stream, multi, twins),
        pairs::<BridgeBlockingSend>("stream-bridge-blocking-send", Stream, multi, twins),
        pairs::<BridgeBlockingRecv>("blocking-bridge-blocking-recv", Blocking, multi, twins),
        pairs::<MayMpsc>("coroutine-may", Coroutine, threads, twins),
    ];
    let bares = bare::ALL.map(|channel| Arc::new(bare::Bare { channel, cause: None }) as Arc<dyn HandoffContestant>);
    pairs.into_iter().flatten().chain(bares).collect()
}

/// [`Kind`] `K` named `name`, of `family`, on `runtime`, in each of `packings`, as registered contestants.
fn pairs<K: Kind>(
    name: &'static str,
    family: Family,
    runtime: RuntimeKind,
    packings: &[Packing],
) -> Vec<Arc<dyn HandoffContestant>> {
    let pair = |packing| Pair::<K> { name, family, runtime, packing, kind: PhantomData };
    packings.iter().map(|&packing| Arc::new(pair(packing)) as Arc<dyn HandoffContestant>).collect()
}

/// Each bare reference pair (role `reference`) beside the lab contestant it calibrates: `(lab, bare)` names.
pub fn bare_pairs() -> Vec<(&'static str, String)> {
    bare::ALL.iter().map(|c| (c.twin(), format!("{}{}", c.twin(), bare::BARE_SUFFIX))).collect()
}

/// Each lab contestant beside its standalone program (role `reference`, a program of its own run outside the
/// lab's trial process): `(lab, standalone)` names.
pub fn standalone_pairs() -> Vec<(String, String)> {
    standalone::pairs()
}

/// Every contestant a run lists, in report order: the registry's ([`contestants`], which run in the lab's trial
/// process), then the standalone programs, which run as programs of their own ([`external`]).
pub fn listed() -> Vec<ContestantInfo> {
    contestants().iter().map(|c| c.info()).chain(standalone::infos()).collect()
}

/// The program that runs `request`'s trial instead of the lab's trial process, when its contestant is a
/// standalone program; `None` for every contestant of the registry.
pub fn external(request: &TrialRequest) -> Result<Option<ExternalProgram>, TrialError> {
    standalone::external(request)
}

/// The contestants that run only when `--only` names them (the scenario's `contestants_on_request`): the
/// per-cause A/B variants of the bare pairs (the blocking ones, then the task ones), role `reference`, which would
/// lengthen the default run and clutter its report.
pub fn on_request() -> Vec<Arc<dyn HandoffContestant>> {
    bare::variants().into_iter().map(|v| Arc::new(v) as Arc<dyn HandoffContestant>).collect()
}

/// A per-cause A/B variant of a bare pair (on request: [`on_request`]), as the report reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AbVariant {
    /// The lab contestant whose gap the variant looks into, such as `blocking-crossbeam`.
    pub lab: &'static str,
    /// Its bare pair, such as `blocking-crossbeam-bare`.
    pub bare: String,
    /// The variant, such as `blocking-crossbeam-bare-lab-loops`.
    pub name: String,
    /// The suffix naming the one difference from the lab's pair it puts back, such as `lab-loops`.
    pub cause: &'static str,
    /// It puts nothing back: the A/A control, an identical copy of the bare pair.
    pub control: bool,
    /// Its pair's two ends are tasks on a runtime (not threads), which changes what some causes mean.
    pub tasks: bool,
}

/// Every per-cause A/B variant, in listing order (crossbeam's, flume's, async flume's, then tokio's control; the
/// control first of each).
pub fn ab_variants() -> Vec<AbVariant> {
    bare::listing()
}

/// The contestant named `name`, listed or on request.
pub fn find(name: &str) -> Option<Arc<dyn HandoffContestant>> {
    contestants().into_iter().chain(on_request()).find(|c| c.info().name == name)
}

/// Which tokio runtime a contestant runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RuntimeKind {
    /// No runtime: threads only.
    None,
    /// A multi-thread (work-stealing) runtime with the default worker count.
    MultiThread,
    /// A current-thread runtime: everything runs on the thread that calls `block_on`.
    CurrentThread,
}

/// What a run can use besides the job: the prepared runtime and the sizing.
#[derive(Debug)]
pub(crate) struct Env<'a> {
    runtime: Option<&'a Runtime>,
    /// Channel sizing of the trial.
    pub(crate) config: HandoffConfig,
}

impl Env<'_> {
    /// The runtime the contestant was prepared with.
    pub(crate) fn runtime(&self) -> Result<&Runtime, HandoffError> {
        self.runtime.ok_or_else(|| HandoffError::Prepare {
            contestant: "a runtime contestant".to_string(),
            message: "prepared without a runtime".to_string(),
        })
    }

    /// Messages the channel holds for messages of `shape`.
    pub(crate) fn messages<Sh: Shape>(&self, shape: Sh) -> usize {
        self.config.messages(shape.items_per_message())
    }
}

/// One run of a [`Kind`]: what it can use besides the job, the shape of its messages, the job, the clock's `go`
/// (called once both ends exist, threads spawned and waiting, tasks spawned, and right before the first message
/// moves) and the two ends' producer and sink.
pub(crate) struct Run<'r, 'j, M, Sh, P, S> {
    /// The prepared runtime and the sizing.
    pub(crate) env: &'r Env<'r>,
    /// The shape of the messages.
    pub(crate) shape: Sh,
    /// The job.
    pub(crate) job: &'r Job<'j, M>,
    /// Starts the clock.
    pub(crate) go: &'r mut dyn FnMut(),
    /// The producer's end.
    pub(crate) producer: P,
    /// The consumer's end.
    pub(crate) sink: S,
}

/// One channel arrangement, per item or batched: what each contestant file implements.
pub(crate) trait Kind: Send + Sync + 'static {
    /// One line saying exactly what it is, for a packing.
    fn describe(packing: Packing) -> String;

    /// Whether it hands items from one party to another at all (the loop baseline does not).
    const HANDS_OFF: bool = true;

    /// Whether it is a reference (role `reference`: shown as a floor to measure against, never the pick) rather
    /// than what its family and packing make it.
    const REFERENCE: bool = false;

    /// Its outstanding-work bound ([`Contestant::bound`]).
    fn bound(config: &HandoffConfig, packing: Packing) -> Option<u64> {
        Some(config.bound(packing))
    }

    /// Run the job with messages of the run's shape, calling `go` once both ends exist and right before the first
    /// message moves ([`Run`]).
    fn run<M: Meter, Sh: Shape, P: Producer, S: Sink>(run: Run<'_, '_, M, Sh, P, S>) -> Result<Outcome, HandoffError>;
}

/// How the messages of a packing look, for descriptions; the exact counts at each capacity are the results
/// table's `items_per_message` and `messages_per_channel`.
pub(crate) fn shape_phrase(packing: Packing) -> &'static str {
    match packing {
        Packing::PerItem => {
            "one `u64` per message (sent as `Result<u64, Infallible>`, the layout of a `u64`), the channel holding \
             `capacity` messages of one item"
        }
        Packing::Batched => {
            "one `Vec<u64>` per message of capacity / `messages` items (default 16 messages; at most `batch`, \
             default 256, items; at least 1), the channel holding `capacity` items in that many messages, so the \
             producer can run ahead; the producer allocates each Vec, the consumer frees it"
        }
        Packing::OneMessage => {
            "one `Vec<u64>` of `capacity` items per message, the channel holding that one message, so producer and \
             consumer take turns (the pathology of a batch as large as the channel)"
        }
    }
}

/// A [`Kind`] as a registered contestant, with the name (of its per-item variant; the others append
/// [`Packing::suffix`]), family (the consumer's style) and runtime the registry gives it, and one packing.
struct Pair<K> {
    name: &'static str,
    family: Family,
    runtime: RuntimeKind,
    packing: Packing,
    kind: PhantomData<fn() -> K>,
}

impl<K> Pair<K> {
    fn name(&self) -> String {
        format!("{}{}", self.name, self.packing.suffix())
    }
}

impl<K> fmt::Debug for Pair<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Pair").field("name", &self.name()).finish_non_exhaustive()
    }
}

impl<K: Kind> Contestant<Handoff> for Pair<K> {
    fn info(&self) -> ContestantInfo {
        let role = match (self.family, self.packing) {
            _ if K::REFERENCE => Role::Reference,
            (Family::Baseline, _) => Role::Floor,
            (_, Packing::OneMessage) => Role::Pathology,
            _ => Role::Candidate,
        };
        ContestantInfo::new(self.name(), self.family, K::describe(self.packing)).with_role(role)
    }

    fn bound(&self, config: &HandoffConfig) -> Option<u64> {
        K::bound(config, self.packing)
    }

    fn items_per_message(&self, config: &HandoffConfig) -> Option<usize> {
        K::HANDS_OFF.then(|| config.items_per_message(self.packing))
    }

    fn prepare(&self, config: &HandoffConfig) -> Result<Box<PreparedHandoff>, HandoffError> {
        let built = match self.runtime {
            RuntimeKind::None => Ok(None),
            RuntimeKind::MultiThread => pipelines::stream::runtime::multi_thread().map(Some),
            RuntimeKind::CurrentThread => pipelines::stream::runtime::current_thread().map(Some),
        };
        let runtime = built.map_err(|e| HandoffError::Prepare { contestant: self.name(), message: e.to_string() })?;
        Ok(Box::new(PreparedPair::<K> { runtime, config: *config, packing: self.packing, kind: PhantomData }))
    }
}

/// A [`Pair`] with its runtime built.
struct PreparedPair<K> {
    runtime: Option<Runtime>,
    config: HandoffConfig,
    packing: Packing,
    kind: PhantomData<fn() -> K>,
}

impl<K> fmt::Debug for PreparedPair<K> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("PreparedPair")
            .field("config", &self.config)
            .field("packing", &self.packing)
            .field("runtime", &self.runtime.is_some())
            .finish_non_exhaustive()
    }
}

impl<K: Kind> Prepared<u64, ProducerSite, HandoffError> for PreparedPair<K> {
    fn run(&self, job: &Job<'_>, go: &mut dyn FnMut()) -> Result<Outcome, HandoffError> {
        self.dispatch(job, go)
    }

    fn run_metered(&self, job: &Job<'_, GaugeMeter>, go: &mut dyn FnMut()) -> Result<Outcome, HandoffError> {
        self.dispatch(job, go)
    }

    fn alive_tasks(&self) -> Option<usize> {
        self.runtime.as_ref().map(|rt| rt.metrics().num_alive_tasks())
    }
}

impl<K: Kind> PreparedPair<K> {
    /// Run `job` with the producer and sink the job asks for: each combination is its own instantiation, so the
    /// measured one (clean producer, summing sink) is monomorphic and carries no test hooks.
    fn dispatch<M: Meter>(&self, job: &Job<'_, M>, go: &mut dyn FnMut()) -> Result<Outcome, HandoffError> {
        match job.behaviour {
            Behaviour::Clean => self.with_sink(job, go, Clean),
            Behaviour::Instrumented(instruments) => self.with_sink(job, go, Tripwire(instruments.clone())),
        }
    }

    /// [`PreparedPair::dispatch`] with `producer` chosen: the sink for the job's consumer.
    fn with_sink<M: Meter, P: Producer>(
        &self,
        job: &Job<'_, M>,
        go: &mut dyn FnMut(),
        producer: P,
    ) -> Result<Outcome, HandoffError> {
        match job.consumer {
            Consumer::Sum => self.run_with(job, go, producer, SumSink::default()),
            Consumer::Collect => self.run_with(job, go, producer, TakeSink::all()),
            Consumer::Take(k) => self.run_with(job, go, producer, TakeSink::first(k)),
            Consumer::Cancellable => match job.behaviour.cancel() {
                Some(cancel) => self.run_with(job, go, producer, CancellableSink::new(Arc::clone(cancel))),
                None => self.run_with(job, go, producer, TakeSink::all()),
            },
        }
    }

    /// Run `job` with `producer` at one end and `sink` at the other, calling `go` once both ends exist and right
    /// before the first message moves.
    fn run_with<M: Meter, P: Producer, S: Sink>(
        &self,
        job: &Job<'_, M>,
        go: &mut dyn FnMut(),
        producer: P,
        sink: S,
    ) -> Result<Outcome, HandoffError> {
        let env = Env { runtime: self.runtime.as_ref(), config: self.config };
        match self.packing {
            Packing::PerItem => K::run(Run { env: &env, shape: PerItem, job, go, producer, sink }),
            packing => {
                let batch = self.config.items_per_message(packing);
                K::run(Run { env: &env, shape: Batched { batch }, job, go, producer, sink })
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_unique_and_follow_the_family() {
        let infos: Vec<ContestantInfo> = contestants().iter().map(|c| c.info()).collect();
        testkit::checks::assert_names_follow_families(&infos);
    }

    #[test]
    fn every_batched_contestant_follows_its_per_item_twin() {
        let names: Vec<String> = contestants().iter().map(|c| c.info().name).collect();
        for (i, name) in names.iter().enumerate() {
            if name.ends_with("-bare") {
                continue;
            }
            if let Some(single) = name.strip_suffix("-one-message") {
                assert_eq!(names.get(i.wrapping_sub(1)), Some(&format!("{single}-batched")), "{name}");
            }
            if let Some(single) = name.strip_suffix("-batched") {
                assert_eq!(names.get(i.wrapping_sub(1)).map(String::as_str), Some(single), "{name}");
            }
        }
    }

    #[test]
    fn only_the_loop_and_the_bare_pairs_have_no_bound() {
        let config = HandoffConfig::default();
        let bares: Vec<String> = bare_pairs().into_iter().map(|(_, bare)| bare).collect();
        for c in contestants() {
            let name = c.info().name;
            let unbounded = name == "baseline-loop" || bares.contains(&name);
            assert_eq!(c.bound(&config).is_none(), unbounded, "{name}");
        }
    }

    #[test]
    fn every_bare_pair_is_a_reference_beside_a_registered_twin() {
        for (lab, bare) in bare_pairs() {
            let twin = find(lab).map(|c| c.info());
            assert_eq!(twin.map(|i| i.role), Some(Role::Candidate), "{lab}");
            let info = find(&bare).map(|c| c.info()).expect("registered");
            assert_eq!(info.role, Role::Reference, "{bare}");
            assert!(find(&bare).expect("registered").not_applicable("producer_panic").is_some());
            assert!(find(&bare).expect("registered").not_applicable("checksum").is_none());
        }
    }

    #[test]
    fn the_ring_is_a_bounded_per_item_reference_asked_every_check() {
        let ring = find("blocking-rtrb").expect("registered");
        let info = ring.info();
        assert_eq!((info.role, info.family), (Role::Reference, Family::Blocking));
        let config = HandoffConfig::default();
        assert_eq!(ring.items_per_message(&config), Some(1));
        assert_eq!(ring.bound(&config), Some(config.bound(Packing::PerItem)));
        for check in ["bounded_outstanding", "early_stop", "producer_error", "producer_panic", "caller_cancel"] {
            assert_eq!(ring.not_applicable(check), None, "{check}");
        }
    }

    #[test]
    fn every_a_b_variant_is_on_request_beside_its_bare_pair_with_one_control_each() {
        let pairs = bare_pairs();
        for variant in ab_variants() {
            assert!(pairs.iter().any(|(lab, bare)| *lab == variant.lab && *bare == variant.bare), "{variant:?}");
            assert_eq!(variant.name, format!("{}-{}", variant.bare, variant.cause));
            let on_request: Vec<String> = on_request().iter().map(|c| c.info().name).collect();
            assert!(on_request.contains(&variant.name), "{}", variant.name);
            assert_eq!(find(&variant.name).map(|c| c.info().role), Some(Role::Reference), "{}", variant.name);
            let controls = ab_variants().iter().filter(|v| v.lab == variant.lab && v.control).count();
            assert_eq!(controls, 1, "{}", variant.lab);
        }
    }
}
