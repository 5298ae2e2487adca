//! Every contestant of the device and backpressure scenarios: a family, a shape that bounds (or does not bound)
//! the calls outstanding, and whose timer each call waits on.
//!
//! [`stream`] holds the tokio shapes on the multi-thread runtime, [`thread_per_core`] the shape that shards the calls
//! across one current-thread runtime per core (`stream-thread-per-core`), [`blocking`] the thread shapes, [`coroutine`]
//! the `may` coroutine pool (one coroutine per in-flight call; its carrier count is part of the contestant,
//! `coroutine-may` with the default of one carrier per CPU, `coroutine-may-1-carrier` and `coroutine-may-2-carriers` in the sweep;
//! `may`'s rules, no thread-blocking call and no thread-local held across a wait inside a coroutine, are kept: see
//! `docs/coroutines.md`). A [`Contestant`] is prepared once per trial ([`Contestant::prepare`]: the stream family's
//! runtime, or the thread-per-core shards and their threads, are built there) and then run once per iteration.
//!
//! Every shape is written once, generic over the job's meter ([`crate::job::JobMeter`]), and
//! [`Prepared::run`] is monomorphised for each: with [`measure::meter::NoMeter`] in timed iterations (the
//! outstanding-call guards compile to nothing), with [`measure::meter::GaugeMeter`] in accounting iterations
//! and conformance checks, and with [`crate::job::LedgerMeter`] in the caller-cancel check alone.

pub mod blocking;
pub mod coroutine;
pub mod stream;
pub mod thread_per_core;

use std::time::Duration;

use measure::scenario::TrialError;
use measure::summary::{ContestantInfo, Family, Role};
use pipelines::coroutine::CoroutineConfig;
use tokio::runtime::Runtime;

pub use blocking::{BlockingShape, ChannelFlavor};
pub use stream::StreamShape;

pub use crate::call::Timer;

use crate::job::{Job, JobMeter, RunError};

/// One contestant.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Contestant {
    /// A stream-family contestant; `free` runs it inside `tokio::task::coop::unconstrained`.
    Stream {
        /// How it bounds its calls.
        shape: StreamShape,
        /// Whether it runs outside tokio's cooperative budget.
        free: bool,
        /// Whose timer its calls wait on.
        timer: Timer,
    },
    /// A blocking-family contestant.
    Blocking {
        /// How it bounds its calls.
        shape: BlockingShape,
        /// Whose timer its calls wait on.
        timer: Timer,
    },
    /// A coroutine-family contestant: `limit` `may` coroutines, one per in-flight call, on `carriers` carrier
    /// threads.
    Coroutine {
        /// Carrier threads (`may::config().set_workers`); `None`: the default ([`coroutine::default_carriers`]),
        /// not named in the contestant's name.
        carriers: Option<usize>,
        /// Whose timer its calls wait on.
        timer: Timer,
    },
}

impl Contestant {
    /// Its name on the command line and in reports, such as `stream-buffer-unordered-unconstrained`.
    pub fn name(&self) -> String {
        let base = match self {
            Contestant::Stream { shape, .. } => match shape {
                StreamShape::Buffered => "stream-buffered",
                StreamShape::BufferUnordered => "stream-buffer-unordered",
                StreamShape::PerWorkerUnordered => "stream-buffer-unordered-per-worker",
                StreamShape::ThreadPerCore => "stream-thread-per-core",
                StreamShape::Tasks => "stream-tasks",
                StreamShape::ChannelWorkers => "stream-flume-workers",
                StreamShape::Unbounded => "stream-unbounded",
            }
            .to_string(),
            Contestant::Blocking { shape: BlockingShape::Pool, .. } => "blocking-threads".to_string(),
            Contestant::Blocking { shape: BlockingShape::ChannelWorkers(flavor), .. } => {
                format!("blocking-{}-workers", flavor.name())
            }
            Contestant::Blocking { shape: BlockingShape::ThreadPerItem, .. } => "blocking-unbounded".to_string(),
            Contestant::Coroutine { carriers: None, .. } => "coroutine-may".to_string(),
            Contestant::Coroutine { carriers: Some(1), .. } => "coroutine-may-1-carrier".to_string(),
            Contestant::Coroutine { carriers: Some(n), .. } => format!("coroutine-may-{n}-carriers"),
        };
        let own = if self.timer() == Timer::Own { "-own-timer" } else { "" };
        let free = if matches!(self, Contestant::Stream { free: true, .. }) { "-unconstrained" } else { "" };
        format!("{base}{own}{free}")
    }

    /// The contestant of `list` named `name`, or the trial's refusal of a name no contestant has.
    pub fn find(list: &[Contestant], name: &str) -> Result<Contestant, TrialError> {
        list.iter().find(|c| c.name() == name).copied().ok_or_else(|| TrialError::UnknownContestant(name.to_string()))
    }

    /// Its family.
    pub fn family(&self) -> Family {
        match self {
            Contestant::Stream { .. } => Family::Stream,
            Contestant::Blocking { .. } => Family::Blocking,
            Contestant::Coroutine { .. } => Family::Coroutine,
        }
    }

    /// Whether it bounds its outstanding calls by the job's limit.
    pub fn bounded(&self) -> bool {
        !matches!(
            self,
            Contestant::Stream { shape: StreamShape::Unbounded, .. }
                | Contestant::Blocking { shape: BlockingShape::ThreadPerItem, .. }
        )
    }

    /// Whose timer its calls wait on.
    pub fn timer(&self) -> Timer {
        match self {
            Contestant::Stream { timer, .. }
            | Contestant::Blocking { timer, .. }
            | Contestant::Coroutine { timer, .. } => *timer,
        }
    }

    /// One paragraph saying exactly what it runs.
    pub fn description(&self) -> String {
        let bound = "`limit`";
        let what = match self {
            Contestant::Stream { shape, .. } => match shape {
                StreamShape::Buffered => format!("`stream::iter(items).map(call).buffered({bound})` (futures): answers in item order"),
                StreamShape::BufferUnordered => {
                    format!("`stream::iter(items).map(call).buffer_unordered({bound})` (futures' `FuturesUnordered`): answers as they come")
                }
                StreamShape::PerWorkerUnordered => format!(
                    "one task per runtime worker (one per core), each running `stream::iter(its items).map(call)\
                     .buffer_unordered(its share of {bound})` over every n-th item, the shares adding up to {bound}: \
                     every core drives calls, where a single pipeline task runs on one worker at a time"
                ),
                StreamShape::ThreadPerCore => format!(
                    "thread-per-core: one current-thread tokio runtime per core the trial process may use \
                     (`std::thread::available_parallelism()`, which honours its CPU pin), each on its own OS thread \
                     started before the clock, each running one task `stream::iter(its items).map(call)\
                     .buffer_unordered(its share of {bound})` over every n-th item, the shares adding up to {bound}: \
                     the calls sharded across cores, no work stealing between them"
                ),
                StreamShape::Tasks => format!("a `tokio::spawn`ed task per item, admitted by a `tokio::sync::Semaphore` of {bound} permits"),
                StreamShape::ChannelWorkers => format!("{bound} worker tasks fed by a `flume::bounded({bound})` channel (`send_async`/`recv_async`)"),
                StreamShape::Unbounded => "a `tokio::spawn`ed task per item, all spawned at once: no admission control".to_string(),
            },
            Contestant::Blocking { shape, .. } => match shape {
                BlockingShape::Pool => format!("{bound} OS threads (64 KiB stacks) started parked and released at once, each taking the next item from a shared counter and blocking on its call"),
                BlockingShape::ChannelWorkers(ChannelFlavor::Crossbeam) => format!("a producer thread feeding {bound} worker threads through `crossbeam_channel::bounded({bound})`"),
                BlockingShape::ChannelWorkers(ChannelFlavor::Flume) => format!("a producer thread feeding {bound} worker threads through `flume::bounded({bound})` (sync API)"),
                BlockingShape::ChannelWorkers(ChannelFlavor::Std) => format!("a producer thread feeding {bound} worker threads through `std::sync::mpsc::sync_channel({bound})`, the receiver behind a `Mutex`"),
                BlockingShape::ThreadPerItem => "a thread (64 KiB stack) spawned per item with no admission control, capped only by what the OS allows".to_string(),
            },
            Contestant::Coroutine { .. } => format!(
                "{bound} stackful coroutines ({}) spawned and parked on a `may::sync::SyncFlag` before the clock \
                 starts, released at once, each taking the next item from a shared counter and making a \
                 blocking-style call that parks the coroutine, not its carrier; skipped when {bound} coroutine \
                 stacks (two memory maps each) would not fit under `vm.max_map_count`",
                self.coroutine_config().map(|c| c.describe()).unwrap_or_default()
            ),
        };
        let runtime = match self {
            Contestant::Stream { shape: StreamShape::ThreadPerCore, free: true, .. } => {
                ", each shard task wrapped in `tokio::task::coop::unconstrained`"
            }
            Contestant::Stream { shape: StreamShape::ThreadPerCore, free: false, .. } => {
                ", each shard task as it comes (tokio's cooperative budget applies)"
            }
            Contestant::Stream { free: true, .. } => ", on tokio's multi-thread runtime (one worker per core), wrapped in `tokio::task::coop::unconstrained`",
            Contestant::Stream { free: false, .. } => ", on tokio's multi-thread runtime (one worker per core), as it comes (tokio's cooperative budget applies)",
            Contestant::Blocking { .. } | Contestant::Coroutine { .. } => "",
        };
        let timer = match (self.timer(), self) {
            (Timer::Device, Contestant::Stream { .. }) => "; each call awaits the shared device",
            (Timer::Device, Contestant::Blocking { .. }) => "; each call blocks on the shared device",
            (Timer::Own, Contestant::Stream { .. }) => {
                "; each call is its own `tokio::time::sleep` (no device; tokio's 1 ms timer makes a 10 ms sleep last \
                 about 11 ms, which caps it near 91% of the ideal)"
            }
            (Timer::Own, Contestant::Blocking { .. }) => "; each call is its own `std::thread::sleep` (no device)",
            (Timer::Device, Contestant::Coroutine { .. }) => {
                "; each call waits on the shared device's completion, which parks the coroutine \
                 (`may::coroutine::park`, woken by `Coroutine::unpark`)"
            }
            (Timer::Own, Contestant::Coroutine { .. }) => {
                "; each call is its own `may::coroutine::sleep` (no device; `may`'s timer thread wakes the \
                 coroutine and runs it until its next wait)"
            }
        };
        format!("{what}{runtime}{timer}.")
    }

    /// The `may` configuration of a coroutine contestant (carriers and stack); `None` for the other families.
    pub fn coroutine_config(&self) -> Option<CoroutineConfig> {
        match self {
            Contestant::Coroutine { carriers, .. } => {
                Some(CoroutineConfig::new(carriers.unwrap_or_else(coroutine::default_carriers)))
            }
            Contestant::Stream { .. } | Contestant::Blocking { .. } => None,
        }
    }

    /// What it is for: a row on its own timer skips the shared device the scenario is about (a floor); a contestant
    /// with no bound is the pathology the bounded ones avoid. A stream driven outside tokio's cooperative budget
    /// (`unconstrained`) is the documented remedy when the budget throttles a driver that polls many calls, so it
    /// is a candidate.
    pub fn role(&self) -> Role {
        if self.timer() == Timer::Own {
            Role::Floor
        } else if !self.bounded() {
            Role::Pathology
        } else {
            Role::Candidate
        }
    }

    /// Its entry in the scenario's contestant list.
    pub fn info(&self) -> ContestantInfo {
        ContestantInfo::new(self.name(), self.family(), self.description()).with_role(self.role())
    }

    /// Get ready to run iterations: the stream family builds its runtime here (the thread-per-core shape its
    /// shards, each a current-thread runtime on a thread of its own), outside every measurement.
    pub fn prepare(&self) -> Result<Prepared, RunError> {
        let engine = match (self, self.coroutine_config()) {
            (Contestant::Stream { shape: StreamShape::ThreadPerCore, .. }, _) => {
                Engine::Shards(thread_per_core::Shards::start()?)
            }
            (Contestant::Stream { .. }, _) => Engine::Runtime(stream::runtime()?),
            (_, Some(config)) => {
                config.apply();
                Engine::Coroutines(config)
            }
            (Contestant::Blocking { .. } | Contestant::Coroutine { .. }, None) => Engine::Threads,
        };
        Ok(Prepared { contestant: *self, engine })
    }
}

/// What a prepared contestant runs on.
#[derive(Debug)]
enum Engine {
    /// The stream family's multi-thread runtime.
    Runtime(Runtime),
    /// The thread-per-core shape's shards, each a current-thread runtime on a thread of its own.
    Shards(thread_per_core::Shards),
    /// `may`, configured with the coroutine contestant's carriers and stack.
    Coroutines(CoroutineConfig),
    /// The threads each run starts itself.
    Threads,
}

/// A contestant ready to run.
#[derive(Debug)]
pub struct Prepared {
    contestant: Contestant,
    engine: Engine,
}

impl Prepared {
    /// Run `job` once; `go` is called right before the timed work starts (after any up-front threads are
    /// parked), so the caller can start its clocks there.
    ///
    /// The job's [`crate::job::Deadline`] starts counting right after `go`.
    pub fn run<M: JobMeter>(&self, job: &Job<M>, go: &mut dyn FnMut()) -> Result<(), RunError> {
        let mut go = || {
            go();
            job.deadline.start();
        };
        match (self.contestant, &self.engine) {
            (Contestant::Stream { free, .. }, Engine::Shards(shards)) => shards.run(free, job, &mut go),
            (Contestant::Stream { shape, free, .. }, Engine::Runtime(runtime)) => {
                stream::run(runtime, shape, free, job, &mut go)
            }
            (Contestant::Blocking { shape, .. }, _) => blocking::run(shape, job, &mut go),
            (_, Engine::Coroutines(config)) => coroutine::run(*config, job, &mut go),
            (Contestant::Stream { .. } | Contestant::Coroutine { .. }, _) => {
                Err(RunError::Broken(format!("{} was prepared for another family", self.contestant.name())))
            }
        }
    }

    /// Tasks still alive on the stream runtime, or on every thread-per-core shard's (`None` for the families
    /// without one): after a run returns, anything but 0 is work the run left behind.
    pub fn live_tasks(&self) -> Option<usize> {
        match &self.engine {
            Engine::Runtime(runtime) => Some(runtime.metrics().num_alive_tasks()),
            Engine::Shards(shards) => Some(shards.live_tasks()),
            Engine::Coroutines(_) | Engine::Threads => None,
        }
    }

    /// `n` uncontended calls the way this contestant makes them, one after another, each timed.
    pub fn idle_calls<M: JobMeter>(&self, job: &Job<M>, n: u32) -> Vec<Duration> {
        match &self.engine {
            Engine::Runtime(runtime) => stream::idle_calls(runtime, job, n),
            Engine::Shards(shards) => shards.idle_calls(job, n),
            Engine::Coroutines(config) => coroutine::idle_calls(*config, job, n),
            Engine::Threads => crate::job::timed_calls(&job.call, n, crate::call::Call::call_blocking),
        }
    }
}
