//! Every contestant of the primitives scenario: one operation each, in the file of the construction it shares
//! (`tokio_runtime`, `may_driver`, `std_sync`, `rayon_spawn`); [`Contestant`] is the registry.
//!
//! | name | one operation |
//! |---|---|
//! | `stream-tokio-spawn-join` | `tokio::spawn` a task that returns its number, and await its `JoinHandle`, from a task on a multi-thread runtime |
//! | `blocking-thread-spawn-join` | `std::thread::spawn` a thread that returns its number, and `join` it |
//! | `blocking-rayon-spawn-join` | `rayon::ThreadPool::scope` with one `spawn` that stores its number, entered from outside the pool on every operation: the scope returns once the job has run |
//! | `blocking-rayon-spawn-join-inside` | the same `rayon::scope` started on a worker, inside one `ThreadPool::install`, as tokio spawns from a task |
//! | `coroutine-may-spawn-join` | from a coroutine, spawn a `may` coroutine returning its number, and `join` it (the join parks the coroutine) |
//! | `stream-tokio-semaphore` | acquire and drop one permit of an uncontended `tokio::sync::Semaphore` |
//! | `coroutine-may-semaphore` | from a coroutine, `wait` and `post` one permit of an uncontended `may::sync::Semphore` |
//! | `blocking-std-mutex` | lock and unlock an uncontended `std::sync::Mutex<u64>`, adding the number |
//! | `stream-tokio-oneshot` | a `tokio::sync::oneshot` made for the number, sent from one task to another awaiting it (a relay of two tasks on a multi-thread runtime) |
//! | `coroutine-may-oneshot` | a `may::sync::mpsc` channel made for the number, sent from one coroutine to another parked in `recv` (a relay of two coroutines) |
//! | `blocking-std-channel` | a `std::sync::mpsc::sync_channel(1)` made for the number, sent from one thread to another parked in `recv` (a relay of two threads) |
//!
//! The three oneshot contestants run one relay ([`relay`]): every operation makes its channel, and the receiver
//! is parked on another unit of the style than the sender, so each measures a one-shot hand-off with its wake-up.
//! (Sending and receiving on the same thread or task measured a channel nobody waits on; a channel made once
//! measured no construction: neither is how a oneshot is used.) The peer unit is started once per run of many
//! operations, outside no timing but amortised over them (one thread start over 100,000 operations is under a
//! nanosecond each); the criterion bench's one-operation runs include it.
//!
//! Every operation hands back the number of the operation, so a run proves it did every operation once: the sum
//! of `0..ops`. Spawning a thread costs tens of microseconds, so the thread contestant does
//! [`Contestant::ops_divisor`] times fewer operations; every figure is per operation.
//!
//! The coroutine contestants run their loop in one driver coroutine (`may_driver::in_coroutine`) on `may`
//! configured with a carrier per core and its default stack and pool, as tokio's run theirs in a task: spawns draw
//! stacks from `may`'s pool of 1,000, its default.

mod may_driver;
mod rayon_spawn;
mod relay;
mod std_sync;
mod tokio_runtime;

use std::fmt;

use measure::summary::{ContestantInfo, Family, Role};
use pipelines::coroutine::CoroutineConfig;
use tokio::runtime::Builder;

use crate::work::{Checked, Injected, Plain, Work};
use may_driver::{May, MayOp};
use std_sync::Std;
use tokio_runtime::{Tokio, TokioOp};

/// One kind of operation, ready to run many times.
///
/// Both runs are one generic body per contestant ([`Work`]): `run` instantiates it with [`Plain`] (the timed
/// runs), `run_checked` with the conformance's [`Checked`] work, whose number is handed back by the spawned
/// task, thread, job or coroutine (spawn and join), or under the permit or lock, or as the value sent.
pub trait Primitive: Send + fmt::Debug {
    /// Do the operation `ops` times, numbered `0..ops`; the wrapping sum of the numbers handed back.
    fn run(&self, ops: u64) -> Result<u64, OpError>;

    /// The same with `work`'s faults, live count, ledger and cancel: an operation's error or panic ends the run
    /// with it, and a cancel seen before an operation ends the run with [`OpError::Cancelled`].
    fn run_checked(&self, ops: u64, work: &Checked) -> Result<u64, OpError>;

    /// Tasks alive on its tokio runtime (`RuntimeMetrics::num_alive_tasks`); `None` without one.
    fn alive_tasks(&self) -> Option<usize>;
}

/// A contestant's one generic body, which [`Primitive`]'s two runs instantiate.
pub(crate) trait Operation: Send + fmt::Debug {
    /// Do the operation `ops` times with `work`; the wrapping sum of the numbers handed back.
    fn run_with<W: Work>(&self, ops: u64, work: W) -> Result<u64, OpError>;

    /// Tasks alive on its tokio runtime; `None` without one.
    fn alive_tasks(&self) -> Option<usize> {
        None
    }
}

impl<O: Operation> Primitive for O {
    fn run(&self, ops: u64) -> Result<u64, OpError> {
        self.run_with(ops, Plain)
    }

    fn run_checked(&self, ops: u64, work: &Checked) -> Result<u64, OpError> {
        self.run_with(ops, work.clone())
    }

    fn alive_tasks(&self) -> Option<usize> {
        Operation::alive_tasks(self)
    }
}

/// Why a run of operations (or building what it needs) did not hand back its sum.
#[derive(Debug, thiserror::Error)]
pub enum OpError {
    /// The caller cancelled the run after this many operations.
    #[error("cancelled by the caller after {0} operations")]
    Cancelled(u64),
    /// An operation's work returned its injected error.
    #[error(transparent)]
    Injected(#[from] Injected),
    /// A spawned task, thread or coroutine panicked: which, and the panic's message.
    #[error("{0} panicked: {1}")]
    Panicked(String, String),
    /// A panic came out of the whole run (the conformance catches it): its message.
    #[error("a panic out of the run: {0}")]
    Escaped(String),
    /// A tokio task did not finish (it was cancelled).
    #[error("{0}")]
    Join(tokio::task::JoinError),
    /// A channel or semaphore closed under the operation: its error's text.
    #[error("{0}")]
    Closed(String),
    /// The receiver of operation `0`'s value was gone.
    #[error("receiver {0} gone")]
    ReceiverGone(u64),
    /// The OS refused to start thread `0`.
    #[error("the OS refused thread {0}: {1}")]
    ThreadRefused(u64, std::io::Error),
    /// `may` refused to spawn a coroutine.
    #[error("{0}")]
    CoroutineRefused(std::io::Error),
    /// The tokio runtime could not be built.
    #[error("cannot build the runtime: {0}")]
    Runtime(std::io::Error),
    /// The rayon pool could not be built.
    #[error("cannot build the rayon pool: {0}")]
    Pool(rayon::ThreadPoolBuildError),
    /// The driver coroutine could not be spawned.
    #[error("cannot spawn the driver coroutine: {0}")]
    Driver(std::io::Error),
}

impl OpError {
    /// The error of an operation whose work returned `error` (an [`Injected`] one; [`Plain`]'s cannot happen).
    pub(crate) fn failed(error: impl Into<Injected>) -> OpError {
        OpError::Injected(error.into())
    }

    /// A channel's or semaphore's error.
    pub(crate) fn closed(error: impl fmt::Display) -> OpError {
        OpError::Closed(error.to_string())
    }

    /// A failed tokio join: the task's panic, or why it did not finish.
    pub(crate) fn join(e: tokio::task::JoinError) -> OpError {
        match e.try_into_panic() {
            Ok(payload) => OpError::panicked("a task", &*payload),
            Err(e) => OpError::Join(e),
        }
    }

    /// The panic of `what` (a joined thread or coroutine), with `payload`.
    pub(crate) fn panicked(what: impl fmt::Display, payload: &(dyn std::any::Any + Send)) -> OpError {
        OpError::Panicked(what.to_string(), pipelines::panic_message(payload))
    }
}

measure::registry! {
    /// The contestants, in report order.
    Contestant {
        /// `stream-tokio-spawn-join`.
        TokioSpawn => "stream-tokio-spawn-join",
        /// `blocking-thread-spawn-join`.
        ThreadSpawn => "blocking-thread-spawn-join",
        /// `blocking-rayon-spawn-join`.
        RayonSpawn => "blocking-rayon-spawn-join",
        /// `blocking-rayon-spawn-join-inside`.
        RayonSpawnInside => "blocking-rayon-spawn-join-inside",
        /// `coroutine-may-spawn-join`.
        MaySpawn => "coroutine-may-spawn-join",
        /// `stream-tokio-semaphore`.
        Semaphore => "stream-tokio-semaphore",
        /// `blocking-std-mutex`.
        Mutex => "blocking-std-mutex",
        /// `coroutine-may-semaphore`.
        MaySemaphore => "coroutine-may-semaphore",
        /// `stream-tokio-oneshot`.
        TokioOneshot => "stream-tokio-oneshot",
        /// `blocking-std-channel`.
        StdChannel => "blocking-std-channel",
        /// `coroutine-may-oneshot`.
        MayOneshot => "coroutine-may-oneshot",
    }
}

impl Contestant {
    /// How many times fewer operations than `ops` it does (spawning a thread costs tens of microseconds).
    pub fn ops_divisor(&self) -> u64 {
        match self {
            Contestant::ThreadSpawn => 20,
            _ => 1,
        }
    }

    /// Name, family and one line saying exactly what one operation is.
    pub fn info(&self) -> ContestantInfo {
        let (family, description) = match self {
            Contestant::TokioSpawn => (
                Family::Stream,
                "`tokio::spawn` of a task returning its number, then `.await` on the `JoinHandle`, from a task on a \
                 multi-thread runtime (one worker per core) built once per trial",
            ),
            Contestant::ThreadSpawn => (
                Family::Blocking,
                "`std::thread::spawn` of a thread returning its number (default stack), then `join`; 20× fewer \
                 operations than the others",
            ),
            Contestant::RayonSpawn => (
                Family::Blocking,
                "`ThreadPool::scope` with one `spawn` storing its number, on a rayon pool (one thread per core) \
                 built once per trial, entered from outside the pool (the trial's thread) on every operation: the \
                 scope returns once the job has run",
            ),
            Contestant::RayonSpawnInside => {
                let description = "`rayon::scope` with one `spawn` storing its number, started on a worker of the \
                                   same pool (the loop runs inside one `ThreadPool::install`): fork-join inside a \
                                   computation already on the pool, whose worker runs the job itself unless an idle \
                                   one steals it; a reference, not a unit a blocking program's thread starts";
                return ContestantInfo::new(self.name(), Family::Blocking, description).with_role(Role::Reference);
            }
            Contestant::MaySpawn => (
                Family::Coroutine,
                "from a driver coroutine, `may` spawn of a coroutine returning its number, then `join` (parks the \
                 driver, not its carrier); `may` 0.3 with a carrier per core, its default 32 KiB stack and pool of \
                 1,000 pre-built stacks, configured once per trial",
            ),
            Contestant::Semaphore => (
                Family::Stream,
                "`Semaphore::acquire().await` and drop of the permit, uncontended, inside `block_on` of a \
                 current-thread runtime",
            ),
            Contestant::Mutex => {
                (Family::Blocking, "`std::sync::Mutex<u64>::lock`, add the number, unlock; uncontended")
            }
            Contestant::MaySemaphore => (
                Family::Coroutine,
                "`may::sync::Semphore::wait` and `post` of one permit, uncontended, inside a driver coroutine \
                 (`may` 0.3, a carrier per core)",
            ),
            Contestant::TokioOneshot => (
                Family::Stream,
                "a `tokio::sync::oneshot::channel` made per value: one task sends the number (with the sender of the \
                 oneshot it will await next) to another task awaiting it; two tasks on a multi-thread runtime (one \
                 worker per core), the sender and the receiver alternating",
            ),
            Contestant::StdChannel => (
                Family::Blocking,
                "a `std::sync::mpsc::sync_channel(1)` made per value: one thread sends the number (with the sender of \
                 the channel it will wait on next) to another thread parked in `recv`; the trial's thread and one \
                 peer thread, the sender and the receiver alternating",
            ),
            Contestant::MayOneshot => (
                Family::Coroutine,
                "a `may::sync::mpsc::channel` made per value (`may` has no oneshot type): one coroutine sends the \
                 number (with the sender of the channel it will wait on next) to another parked in `recv`; a driver \
                 and one peer coroutine (`may` 0.3, a carrier per core), the sender and the receiver alternating",
            ),
        };
        ContestantInfo::new(self.name(), family, description)
    }

    /// Build what the operation needs (a runtime, a pool), outside any timing.
    pub fn prepare(&self) -> Result<Box<dyn Primitive>, OpError> {
        // `may` for the coroutine contestants: a carrier per core (as tokio's multi-thread runtime has a worker per
        // core), its default stack and pool.
        let may = CoroutineConfig::per_core();
        Ok(match self {
            Contestant::TokioSpawn => Box::new(Tokio::new(Builder::new_multi_thread(), TokioOp::SpawnJoin)?),
            Contestant::ThreadSpawn => Box::new(Std::ThreadSpawn),
            Contestant::RayonSpawn => Box::new(rayon_spawn::RayonSpawn::new(false)?),
            Contestant::RayonSpawnInside => Box::new(rayon_spawn::RayonSpawn::new(true)?),
            Contestant::MaySpawn => Box::new(May::new(may, MayOp::SpawnJoin)),
            Contestant::MaySemaphore => Box::new(May::new(may, MayOp::semaphore())),
            Contestant::MayOneshot => Box::new(May::new(may, MayOp::Oneshot)),
            Contestant::Semaphore => Box::new(Tokio::new(Builder::new_current_thread(), TokioOp::semaphore())?),
            Contestant::Mutex => Box::new(Std::Mutex(std::sync::Mutex::new(0))),
            Contestant::TokioOneshot => Box::new(Tokio::new(Builder::new_multi_thread(), TokioOp::Oneshot)?),
            Contestant::StdChannel => Box::new(Std::Channel),
        })
    }
}
