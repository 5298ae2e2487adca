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
    /// Answer counts at which the time is noted, for the steady-state window ([`Shared::marking`]).
    marks: [u64; 2],
    marked: [OnceLock<Mark>; 2],
    first_failure: std::sync::Mutex<Option<CallFailed>>,
}

impl Shared {
    /// Fresh counters around `gauge` (the probe's gauge, so the sampler sees it).
    pub fn new(gauge: Arc<Outstanding>) -> Shared {
        Shared { gauge, ..Shared::default() }
    }

    /// Also note the time of the `first`-th and the `last`-th answer, so throughput can be measured over the
    /// steady middle of a run ([`Totals::steady`]), leaving out the start (every call issued at once) and the
    /// drain (fewer and fewer calls left).
    pub fn marking(mut self, first: u64, last: u64) -> Shared {
        self.marks = [first, last];
        self
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
                let answered = self.completed.fetch_add(1, Ordering::Relaxed) + 1;
                for (mark, at) in self.marks.iter().zip(&self.marked) {
                    if answered == *mark {
                        let _ = at.set(Mark::now(answered));
                    }
                }
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
            marks: [self.marked[0].get().copied(), self.marked[1].get().copied()],
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
    /// The answer counts given to [`Shared::marking`] that were reached, with when.
    pub marks: [Option<Mark>; 2],
}

/// The moment the `answered`-th answer was recorded: wall clock and the process's CPU clock.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Mark {
    /// Answers recorded, this one included.
    pub answered: u64,
    /// When.
    pub at: Instant,
    /// The process's CPU time then (all threads), in nanoseconds; `None` where the clock is unavailable.
    pub cpu_ns: Option<u64>,
}

impl Mark {
    /// Now, after `answered` answers. Reading the process CPU clock sums every thread's time, so it costs more
    /// with thousands of threads; a run reads it twice.
    fn now(answered: u64) -> Mark {
        Mark { answered, at: Instant::now(), cpu_ns: measure::cpu::process_cpu_clock_ns() }
    }
}

/// Throughput and CPU over the steady middle of a run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Steady {
    /// Answers per second in the window.
    pub ops_per_sec: f64,
    /// Process CPU per answer in the window, in microseconds (every thread: contestant, device timers, sampler).
    pub cpu_us_per_call: Option<f64>,
}

impl Totals {
    /// The steady window between the two marks, when both were reached; `None` otherwise (a run cut short before
    /// its last mark, or too short to have marks).
    pub fn steady(&self) -> Option<Steady> {
        let (first, last) = (self.marks[0]?, self.marks[1]?);
        let answers = last.answered.checked_sub(first.answered).filter(|n| *n > 0)? as f64;
        let seconds = last.at.saturating_duration_since(first.at).as_secs_f64();
        (seconds > 0.0).then(|| Steady {
            ops_per_sec: answers / seconds,
            cpu_us_per_call: match (first.cpu_ns, last.cpu_ns) {
                (Some(a), Some(b)) => Some(b.saturating_sub(a) as f64 / 1e3 / answers),
                _ => None,
            },
        })
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    fn answered(shared: &Shared, n: u64) {
        for _ in 0..n {
            shared.record(Ok(1));
        }
    }

    #[test]
    fn the_steady_window_runs_between_the_two_marks() {
        let shared = Shared::new(Arc::new(Outstanding::new())).marking(10, 30);
        answered(&shared, 10);
        std::thread::sleep(Duration::from_millis(20));
        answered(&shared, 25);
        let totals = shared.outcome();
        assert_eq!(totals.completed, 35);
        let marks: Vec<u64> = totals.marks.iter().flatten().map(|m| m.answered).collect();
        assert_eq!(marks, vec![10, 30]);
        let steady = totals.steady().expect("both marks reached");
        // 20 answers over at least 20 ms: at most 1,000 per second.
        assert!(steady.ops_per_sec > 0.0 && steady.ops_per_sec <= 1_000.0, "{steady:?}");
    }

    #[test]
    fn without_its_last_mark_a_run_has_no_steady_window() {
        let shared = Shared::new(Arc::new(Outstanding::new())).marking(10, 30);
        answered(&shared, 20);
        assert_eq!(shared.outcome().steady(), None);
        let unmarked = Shared::new(Arc::new(Outstanding::new()));
        answered(&unmarked, 20);
        assert_eq!(unmarked.outcome().marks, [None, None]);
    }

    #[test]
    fn failures_are_counted_apart_and_the_first_is_kept() {
        let shared = Shared::new(Arc::new(Outstanding::new()));
        shared.record(Err(CallFailed { input: 3, reason: "shut down".into() }));
        shared.record(Err(CallFailed { input: 4, reason: "shut down".into() }));
        shared.record(Ok(5));
        let totals = shared.outcome();
        assert_eq!((totals.sum, totals.completed, totals.failed), (5, 1, 2));
        assert_eq!(totals.first_failure.map(|f| f.input), Some(3));
    }

    #[test]
    fn a_deadline_counts_from_its_start() {
        let deadline = Deadline::new(Duration::from_millis(5));
        assert!(!deadline.passed(), "not started, never passed");
        deadline.start();
        std::thread::sleep(Duration::from_millis(10));
        assert!(deadline.passed());
        assert_eq!(deadline.budget(), Duration::from_millis(5));
    }
}
