//! What a contestant is asked to do and what it hands back: the items, the bound, the call, the deadline, and
//! the shared counters every contestant reports its progress through.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use measure::gauge::Outstanding;

use crate::call::{Call, CallFailed};

/// One run of a contestant: call every item in `0..items` with at most `limit` calls outstanding (where the
/// contestant bounds them), until done or until `deadline`.
#[derive(Debug, Clone)]
pub struct Job {
    /// Items to call, `0..items`.
    pub items: u64,
    /// Most calls outstanding at once, for contestants that bound them.
    pub limit: usize,
    /// How each call is made.
    pub call: Call,
    /// The time budget, counted from the start of the timed run: no new call starts after it, and calls still
    /// outstanding are abandoned.
    pub deadline: Arc<Deadline>,
    /// Counters shared with the contestant's threads and tasks.
    pub shared: Arc<Shared>,
}

/// Counters every contestant updates the same way: the outstanding-call gauge, the sum of answers, the calls
/// completed, and the first failure.
#[derive(Debug, Default)]
pub struct Shared {
    /// Calls issued and not yet completed or abandoned.
    pub gauge: Arc<Outstanding>,
    sum: AtomicU64,
    completed: AtomicU64,
    failed: AtomicU64,
    first_failure: std::sync::Mutex<Option<CallFailed>>,
}

impl Shared {
    /// Fresh counters around `gauge` (the probe's gauge, so the sampler sees it).
    pub fn new(gauge: Arc<Outstanding>) -> Shared {
        Shared { gauge, ..Shared::default() }
    }

    /// Marks one call as outstanding until the returned guard is dropped (completed or abandoned).
    #[inline]
    pub fn in_flight(&self) -> InFlight<'_> {
        self.gauge.admit(1);
        InFlight { gauge: &self.gauge }
    }

    /// Marks one call as outstanding until the returned owned guard is dropped, for a task that must be
    /// `'static`.
    #[inline]
    pub fn in_flight_owned(self: &Arc<Self>) -> InFlightOwned {
        self.gauge.admit(1);
        InFlightOwned { shared: Arc::clone(self) }
    }

    /// Records one call's result.
    #[inline]
    pub fn record(&self, result: Result<u64, CallFailed>) {
        match result {
            Ok(value) => {
                self.sum.fetch_add(value, Ordering::Relaxed);
                self.completed.fetch_add(1, Ordering::Relaxed);
            }
            Err(e) => {
                self.failed.fetch_add(1, Ordering::Relaxed);
                let mut first = self.first_failure.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
                first.get_or_insert(e);
            }
        }
    }

    /// The totals so far.
    pub fn outcome(&self) -> Totals {
        Totals {
            sum: self.sum.load(Ordering::Relaxed),
            completed: self.completed.load(Ordering::Relaxed),
            failed: self.failed.load(Ordering::Relaxed),
            first_failure: self.first_failure.lock().unwrap_or_else(std::sync::PoisonError::into_inner).clone(),
        }
    }
}

/// One outstanding call, counted in the gauge until dropped.
#[derive(Debug)]
pub struct InFlight<'a> {
    gauge: &'a Outstanding,
}

impl Drop for InFlight<'_> {
    #[inline]
    fn drop(&mut self) {
        self.gauge.leave(1);
    }
}

/// One outstanding call owned by a `'static` task, counted in the gauge until dropped.
#[derive(Debug)]
pub struct InFlightOwned {
    shared: Arc<Shared>,
}

impl Drop for InFlightOwned {
    #[inline]
    fn drop(&mut self) {
        self.shared.gauge.leave(1);
    }
}

/// What the counters say after a run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Totals {
    /// Sum of every answer received (wrapping).
    pub sum: u64,
    /// Calls answered.
    pub completed: u64,
    /// Calls that failed.
    pub failed: u64,
    /// The first failure, if any.
    pub first_failure: Option<CallFailed>,
}

/// Why a contestant did not run.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RunError {
    /// The machine cannot run it (the OS would not make the threads); the reason is what the OS said.
    #[error("{0}")]
    Skipped(String),
    /// It broke: a thread panicked, a runtime could not start.
    #[error("{0}")]
    Broken(String),
}

/// How long after the deadline a cut-short run may take to let go of its outstanding calls before the run is
/// declared hung.
pub const RELEASE_GRACE: Duration = Duration::from_secs(10);

/// A time budget that starts counting when the timed run starts (after any threads were spawned), so spawning
/// never eats into it.
#[derive(Debug)]
pub struct Deadline {
    budget: Duration,
    at: OnceLock<Instant>,
}

impl Deadline {
    /// A budget of `budget`, not yet started.
    pub fn new(budget: Duration) -> Arc<Deadline> {
        Arc::new(Deadline { budget, at: OnceLock::new() })
    }

    /// Start counting now (later calls change nothing).
    pub fn start(&self) {
        let _ = self.at.set(Instant::now() + self.budget);
    }

    /// When the budget runs out: `budget` after [`Deadline::start`], or `budget` from now if it was not started.
    pub fn instant(&self) -> Instant {
        *self.at.get_or_init(|| Instant::now() + self.budget)
    }

    /// Whether the budget has run out (never before it started).
    #[inline]
    pub fn passed(&self) -> bool {
        self.at.get().is_some_and(|at| Instant::now() >= *at)
    }

    /// The budget.
    pub fn budget(&self) -> Duration {
        self.budget
    }
}
