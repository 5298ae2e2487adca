//! Every contestant of the memory scenario: a kind of unit that can wait, in the file of the construction it
//! shares (`tokio_runtime`: a runtime; `parked`: a thread or coroutine per unit); [`Contestant`] is the registry.
//!
//! | name | what waits |
//! |---|---|
//! | `stream-tokio-task` | a tokio task per unit on a multi-thread runtime, awaiting its own oneshot |
//! | `stream-tokio-task-current-thread` | the same on a current-thread runtime |
//! | `stream-futures-unordered` | a future per unit awaiting its own oneshot, all in one `FuturesUnordered` polled by one tokio task |
//! | `stream-async-stream` | an `async_stream::stream!` generator per unit awaiting its own oneshot (then yielding its checksum), all in one `futures::stream::SelectAll` polled by one tokio task |
//! | `blocking-thread-64k` | an OS thread per unit with a 64 KiB stack, blocked in `recv` on its own channel |
//! | `blocking-thread` | the same with Rust's default stack (2 MiB, reserved, touched only as used) |
//! | `coroutine-may` | a `may` coroutine per unit (one carrier per CPU, `may`'s default 32 KiB stack, a fresh stack each), parked in `recv` on its own `may::sync::mpsc` channel |
//! | `coroutine-may-8k` | the same with an 8 KiB stack (`Builder::stack_size(0x400)` words) |
//!
//! Coroutines keep `may`'s rules (no thread-blocking call, no thread-local held across a wait; see
//! `docs/coroutines.md`); each stack is an `mmap` with a guard page, two memory maps, so `vm.max_map_count` caps
//! them near 32,000 and a count past it is refused with that reason.
//!
//! **Pools and caches.** `may` pre-builds 1,000 coroutines with stacks of its configured default size and reuses
//! them for that size only; glibc keeps up to 40 MiB of freed thread stacks (`stack_cache_maxsize`) and hands them
//! to new threads. Both are paid once and are already resident when a later run's baseline is read, so a unit
//! drawn from them adds only its heap. The coroutine contestants set `may`'s pool to one coroutine of their own
//! stack size, so every unit they hold maps a fresh stack whatever its size; glibc's cache cannot be set from
//! inside a running process (`GLIBC_TUNABLES=glibc.pthread.stack_cache_size` at start-up), so a thread count within
//! its reach (about 600 threads of 64 KiB, 20 of 2 MiB) reuses cached stacks: the regression over the counts
//! cancels that fixed share, which is why the slope is the headline.
//!
//! Every unit owns a [`crate::payload::Payload`] while it waits and hands back its checksum when released.
//! [`Units::hold`] returns once every unit is waiting: each unit bumps [`STARTED`] (a process-wide counter, so no
//! unit carries a pointer to it) just before it waits, and the creator waits for the count.

mod parked;
mod tokio_runtime;

use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};

use measure::summary::{ContestantInfo, Family};
use pipelines::coroutine::{CoroutineConfig, SMALL_STACK_WORDS};
use tokio::runtime::Builder;

use crate::work::{Checked, Injected, Plain, Work};
use parked::{Coroutines, Threads};
use tokio_runtime::{Kind, Tokio};

/// `may`'s pool capacity in the memory scenario: one, so every measured coroutine maps a fresh stack, whatever its
/// size (`may`'s default pool of 1,000 would serve its default size only, from stacks resident before the baseline).
pub const MEASURED_POOL: usize = 1;

/// Units that have reached their waiting point in the current [`Units::hold`].
pub(crate) static STARTED: AtomicU64 = AtomicU64::new(0);

/// Why units could not be held.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HoldError {
    /// The machine cannot hold them (the OS's thread limits); the reason names the limit.
    #[error("{0}")]
    Refused(String),
    /// Something broke: a runtime could not start.
    #[error("{0}")]
    Broken(String),
    /// A unit's work ended with its injected error (the first in unit order).
    #[error("a unit failed: {0}")]
    Failed(Injected),
    /// A unit panicked (the panic's message; the first in unit order).
    #[error("a unit panicked: {0}")]
    Panicked(String),
    /// The caller cancelled the run before every unit was waiting (the units made so far have ended).
    #[error("cancelled by the caller after {0} units were made")]
    Cancelled(u64),
}

impl HoldError {
    /// The error of a unit whose work returned `error` (an [`Injected`] one; [`Plain`]'s cannot happen).
    pub(crate) fn failed(error: impl Into<Injected>) -> HoldError {
        HoldError::Failed(error.into())
    }

    /// The error of a unit that panicked with `payload`.
    pub(crate) fn panicked(payload: &(dyn std::any::Any + Send)) -> HoldError {
        HoldError::Panicked(pipelines::panic_message(payload))
    }
}

/// A kind of waiting unit, ready to hold many.
///
/// Both holds are one generic body per contestant ([`Work`]): `hold` runs it with [`Plain`] (the timed runs),
/// `hold_checked` with the conformance's [`Checked`] work.
pub trait Units: Send + fmt::Debug {
    /// Create `count` units, each owning a payload of `bytes` bytes, and return once every one is waiting.
    fn hold(&self, count: u64, bytes: usize) -> Result<Box<dyn Held + '_>, HoldError>;

    /// The same with `work`'s faults, live count, ledger and cancel: a cancel seen before every unit waits ends
    /// the units made so far and returns [`HoldError::Cancelled`].
    fn hold_checked(&self, count: u64, bytes: usize, work: &Checked) -> Result<Box<dyn Held + '_>, HoldError>;

    /// Tasks alive on its tokio runtime (`RuntimeMetrics::num_alive_tasks`); `None` without one.
    fn alive_tasks(&self) -> Option<usize>;
}

/// A contestant's one generic body, which [`Units`]' two holds instantiate.
pub(crate) trait Holding: Send + fmt::Debug {
    /// Create `count` units with `work`, each owning a payload of `bytes` bytes; return once every one waits.
    fn hold_with<W: Work>(&self, count: u64, bytes: usize, work: W) -> Result<Box<dyn Held + '_>, HoldError>;

    /// Tasks alive on its tokio runtime; `None` without one.
    fn alive_tasks(&self) -> Option<usize> {
        None
    }
}

impl<H: Holding> Units for H {
    fn hold(&self, count: u64, bytes: usize) -> Result<Box<dyn Held + '_>, HoldError> {
        self.hold_with(count, bytes, Plain)
    }

    fn hold_checked(&self, count: u64, bytes: usize, work: &Checked) -> Result<Box<dyn Held + '_>, HoldError> {
        self.hold_with(count, bytes, work.clone())
    }

    fn alive_tasks(&self) -> Option<usize> {
        Holding::alive_tasks(self)
    }
}

/// Units that are all waiting. Dropped without [`Held::release`] (the caller's cancel once all wait), every unit
/// wakes and ends without handing anything back.
pub trait Held {
    /// Wake every unit and wait for all to end; the sum of their payloads' checksums, or the first failure in
    /// unit order (every unit has ended either way).
    fn release(self: Box<Self>) -> Result<u64, HoldError>;
}

/// Fold one unit's joined outcome into the sum, keeping the first failure.
pub(crate) fn fold_unit<E: Into<Injected>>(
    acc: &mut Result<u64, HoldError>,
    outcome: Result<Result<u64, E>, HoldError>,
) {
    match (acc.as_mut(), outcome) {
        (Ok(total), Ok(Ok(sum))) => *total = total.wrapping_add(sum),
        (Ok(_), Ok(Err(e))) => *acc = Err(HoldError::failed(e)),
        (Ok(_), Err(e)) => *acc = Err(e),
        (Err(_), _) => {}
    }
}

measure::registry! {
    /// The contestants, in report order.
    Contestant {
        /// `stream-tokio-task`.
        TokioTask => "stream-tokio-task",
        /// `stream-tokio-task-current-thread`.
        TokioTaskCurrentThread => "stream-tokio-task-current-thread",
        /// `stream-futures-unordered`.
        FuturesUnordered => "stream-futures-unordered",
        /// `stream-async-stream`.
        AsyncStream => "stream-async-stream",
        /// `blocking-thread-64k`.
        Thread64k => "blocking-thread-64k",
        /// `blocking-thread`.
        Thread => "blocking-thread",
        /// `coroutine-may`.
        Coroutine => "coroutine-may",
        /// `coroutine-may-8k`.
        Coroutine8k => "coroutine-may-8k",
    }
}

impl Contestant {
    /// Name, family and one line saying exactly what waits.
    pub fn info(&self) -> ContestantInfo {
        let (family, description) = match self {
            Contestant::TokioTask => (
                Family::Stream,
                "one tokio task per unit (`Handle::spawn`) on a multi-thread runtime (one worker per core), each \
                 owning its payload and awaiting its own `tokio::sync::oneshot`",
            ),
            Contestant::TokioTaskCurrentThread => (
                Family::Stream,
                "the same tasks on a current-thread runtime, driven by `block_on` on the calling thread",
            ),
            Contestant::FuturesUnordered => (
                Family::Stream,
                "one future per unit (an `async` block owning its payload and awaiting its own oneshot), all in one \
                 `futures::stream::FuturesUnordered` polled by one tokio task on a multi-thread runtime",
            ),
            Contestant::AsyncStream => (
                Family::Stream,
                "one `async_stream::stream!` generator per unit (boxed and pinned) owning its payload and awaiting \
                 its own oneshot before it yields its checksum, all in one `futures::stream::SelectAll` polled by \
                 one tokio task on a multi-thread runtime",
            ),
            Contestant::Thread64k => (
                Family::Blocking,
                "one OS thread per unit with a 64 KiB stack (`thread::Builder::stack_size`), owning its payload \
                 and blocked in `recv` on its own `std::sync::mpsc::sync_channel(1)`",
            ),
            Contestant::Thread => (
                Family::Blocking,
                "the same threads with Rust's default stack (2 MiB reserved; pages become resident only as they \
                 are touched)",
            ),
            Contestant::Coroutine | Contestant::Coroutine8k => {
                let config = self.coroutine_config().unwrap_or_else(CoroutineConfig::per_core);
                let description = format!(
                    "one stackful coroutine per unit ({}), owning its payload and parked in `recv` on its own \
                     `may::sync::mpsc` channel (the coroutine parks, not its carrier); refused past what \
                     `vm.max_map_count` allows at two maps per coroutine stack",
                    config.describe()
                );
                return ContestantInfo::new(self.name(), Family::Coroutine, description);
            }
        };
        ContestantInfo::new(self.name(), family, description)
    }

    /// The `may` configuration of a coroutine contestant (one carrier per CPU the trial may use; its stack); `None` for the others.
    pub fn coroutine_config(&self) -> Option<CoroutineConfig> {
        match self {
            Contestant::Coroutine => Some(CoroutineConfig::per_core().with_pool_capacity(MEASURED_POOL)),
            Contestant::Coroutine8k => {
                Some(CoroutineConfig::per_core().with_stack_words(SMALL_STACK_WORDS).with_pool_capacity(MEASURED_POOL))
            }
            _ => None,
        }
    }

    /// Build what holding units needs (a runtime), outside any timing.
    pub fn prepare(&self) -> Result<Box<dyn Units>, HoldError> {
        Ok(match self {
            Contestant::TokioTask => Box::new(Tokio::new(Builder::new_multi_thread(), Kind::Tasks)?),
            Contestant::TokioTaskCurrentThread => Box::new(Tokio::new(Builder::new_current_thread(), Kind::Tasks)?),
            Contestant::FuturesUnordered => Box::new(Tokio::new(Builder::new_multi_thread(), Kind::Unordered)?),
            Contestant::AsyncStream => Box::new(Tokio::new(Builder::new_multi_thread(), Kind::Generators)?),
            Contestant::Thread64k => Box::new(Threads { stack: Some(64 * 1024) }),
            Contestant::Thread => Box::new(Threads { stack: None }),
            Contestant::Coroutine | Contestant::Coroutine8k => match self.coroutine_config() {
                Some(config) => Box::new(Coroutines::new(config)),
                None => return Err(HoldError::Broken("a coroutine contestant without its configuration".into())),
            },
        })
    }
}

/// Reset [`STARTED`] before creating units.
pub(crate) fn reset_started() {
    STARTED.store(0, Ordering::SeqCst);
}

/// Units that have started so far.
pub(crate) fn started() -> u64 {
    STARTED.load(Ordering::SeqCst)
}

/// Wait on the calling async context until `count` units have started; `false` if `cancelled` said so first.
pub(crate) async fn until_started(count: u64, cancelled: impl Fn() -> bool) -> bool {
    while started() < count {
        if cancelled() {
            return false;
        }
        tokio::task::yield_now().await;
    }
    true
}
