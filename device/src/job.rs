//! What a contestant is asked to do and what it hands back: the items, the bound, the call, the deadline, and
//! the shared counters every contestant reports its progress through.
//!
//! Outstanding calls are counted through a meter the job is generic over ([`measure::meter::Meter`]): in timed
//! iterations it is [`NoMeter`] and the [`InFlight`] guards compile to nothing; in accounting iterations and
//! conformance checks it is the shared gauge ([`measure::meter::GaugeMeter`]) the sampler reads. The caller-cancel
//! check alone runs [`LedgerMeter`], the gauge plus a [`DeliveryLedger`] that notes which input each delivered
//! answer came from ([`JobMeter::delivered`], nothing at all for the other two meters).

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use measure::meter::{GaugeMeter, Meter, NoMeter};

pub use crate::call::RunError;
use crate::call::{Call, CallFailed, DeliveryLedger};

/// The meter a job counts through: outstanding calls ([`Meter`]) and, for the caller-cancel check's
/// [`LedgerMeter`] only, each answer delivered ([`JobMeter::delivered`], which the timed [`NoMeter`] and the
/// accounting [`GaugeMeter`] leave empty, so their machine code is what it was).
pub trait JobMeter: Meter {
    /// One answer was delivered (recorded in [`Shared::record`]).
    #[inline(always)]
    fn delivered(&self, _answer: u64) {}
}

impl JobMeter for NoMeter {}

impl JobMeter for GaugeMeter {}

/// The caller-cancel check's meter (conformance only): the gauge, and a ledger of the input each delivered
/// answer came from.
#[derive(Debug, Clone)]
pub struct LedgerMeter {
    /// Counts outstanding calls, as in accounting iterations.
    pub gauge: GaugeMeter,
    /// Where every delivered answer is noted.
    pub ledger: Arc<DeliveryLedger>,
}

impl Meter for LedgerMeter {
    const COUNTS: bool = true;

    #[inline]
    fn admit(&self, n: u64) {
        self.gauge.admit(n);
    }

    #[inline]
    fn leave(&self, n: u64) {
        self.gauge.leave(n);
    }
}

impl JobMeter for LedgerMeter {
    fn delivered(&self, answer: u64) {
        self.ledger.note(answer);
    }
}

/// One run of a contestant: call every item in `0..items` with at most `limit` calls outstanding (where the
/// contestant bounds them), until done or until `deadline`, counting outstanding calls with `M`.
#[derive(Debug, Clone)]
pub struct Job<M = NoMeter> {
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
    pub shared: Arc<Shared<M>>,
}

impl<M> Job<M> {
    /// A job of `items` calls made with `call`, at most `limit` outstanding, a deadline of `budget` not yet
    /// started, counting into `shared`.
    pub fn new(items: u64, limit: usize, call: Call, budget: Duration, shared: Arc<Shared<M>>) -> Job<M> {
        Job { items, limit, call, deadline: Deadline::new(budget), shared }
    }
}

impl<M: JobMeter> Job<M> {
    /// Make `input`'s call `with` ([`Call::call_blocking`] or [`Call::call_coroutine`], statically dispatched),
    /// counted outstanding until its answer is recorded.
    #[inline]
    pub fn make(&self, input: u64, with: impl Fn(&Call, u64) -> Result<u64, CallFailed>) {
        let in_flight = self.shared.in_flight();
        self.shared.record(with(&self.call, input));
        drop(in_flight);
    }

    /// Make the calls of the items taken one at a time from the shared counter `next`, until none is left or the
    /// deadline passed: the loop of a pool thread or coroutine.
    #[inline]
    pub fn take_from(&self, next: &AtomicU64, with: impl Fn(&Call, u64) -> Result<u64, CallFailed> + Copy) {
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            if i >= self.items || self.deadline.passed() {
                return;
            }
            self.make(i, with);
        }
    }
}

/// `n` calls made `with` `call` one after another, each timed: an idle call's real duration.
pub fn timed_calls(call: &Call, n: u32, with: impl Fn(&Call, u64) -> Result<u64, CallFailed>) -> Vec<Duration> {
    (0..n)
        .map(|i| {
            let started = Instant::now();
            let _ = with(call, u64::from(i));
            started.elapsed()
        })
        .collect()
}

/// Counters every contestant updates the same way: the outstanding-call meter, the sum of answers, the calls
/// completed, the first failure, and the threads the contestant started.
#[derive(Debug, Default)]
pub struct Shared<M = NoMeter> {
    /// Counts calls issued and not yet completed or abandoned (nothing, with [`NoMeter`]).
    pub meter: M,
    sum: AtomicU64,
    completed: AtomicU64,
    failed: AtomicU64,
    threads_started: AtomicU64,
    /// Answer counts at which the time is noted, for the steady-state window ([`Shared::marking`]).
    marks: [u64; 2],
    marked: [OnceLock<Mark>; 2],
    first_failure: std::sync::Mutex<Option<CallFailed>>,
}

impl<M: JobMeter> Shared<M> {
    /// Fresh counters around `meter` (in accounting iterations, the gauge the sampler reads).
    pub fn new(meter: M) -> Shared<M> {
        Shared {
            meter,
            sum: AtomicU64::new(0),
            completed: AtomicU64::new(0),
            failed: AtomicU64::new(0),
            threads_started: AtomicU64::new(0),
            marks: [0; 2],
            marked: [OnceLock::new(), OnceLock::new()],
            first_failure: std::sync::Mutex::new(None),
        }
    }

    /// Also note the time of the `first`-th and the `last`-th answer, so throughput can be measured over the
    /// steady middle of a run ([`Totals::steady`]), leaving out the start (every call issued at once) and the
    /// drain (fewer and fewer calls left).
    pub fn marking(mut self, first: u64, last: u64) -> Shared<M> {
        self.marks = [first, last];
        self
    }

    /// Marks one call as outstanding until the returned guard is dropped (completed or abandoned).
    #[inline]
    pub fn in_flight(&self) -> InFlight<'_, M> {
        self.meter.admit(1);
        InFlight { meter: &self.meter }
    }

    /// Marks one call as outstanding until the returned owned guard is dropped, for a task or thread that must
    /// be `'static` (it holds a clone of the meter: nothing with [`NoMeter`]).
    #[inline]
    pub fn in_flight_owned(&self) -> InFlightOwned<M> {
        self.meter.admit(1);
        InFlightOwned { meter: self.meter.clone() }
    }

    /// The contestant started `n` threads of its own (called once per batch of threads, never per call).
    pub fn started_threads(&self, n: u64) {
        self.threads_started.fetch_add(n, Ordering::Relaxed);
    }

    /// Threads the contestant said it started during this job ([`Shared::started_threads`]).
    pub fn threads_started(&self) -> u64 {
        self.threads_started.load(Ordering::Relaxed)
    }

    /// Records one call's result.
    #[inline]
    pub fn record(&self, result: Result<u64, CallFailed>) {
        match result {
            Ok(value) => {
                self.meter.delivered(value);
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

/// One outstanding call, counted in the meter until dropped.
#[derive(Debug)]
pub struct InFlight<'a, M: Meter> {
    meter: &'a M,
}

impl<M: Meter> Drop for InFlight<'_, M> {
    #[inline]
    fn drop(&mut self) {
        self.meter.leave(1);
    }
}

/// One outstanding call owned by a `'static` task or thread, counted in the meter until dropped.
#[derive(Debug)]
pub struct InFlightOwned<M: Meter> {
    meter: M,
}

impl<M: Meter> Drop for InFlightOwned<M> {
    #[inline]
    fn drop(&mut self) {
        self.meter.leave(1);
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

/// How long after the deadline a cut-short run may take to let go of its outstanding calls before the run is
/// declared hung.
pub const RELEASE_GRACE: Duration = Duration::from_secs(10);

/// A time budget that starts counting when the timed run starts (after any threads were spawned), so spawning
/// never eats into it; the caller can also end it at once from outside ([`Deadline::cancel`]).
///
/// Every contestant already stops at the deadline, so cancelling is the deadline brought forward: the blocking
/// and coroutine shapes (and the spawn loop of a task per item) read [`Deadline::passed`] between calls, which
/// reads the cancel flag beside the clock it already read; the stream shapes' runner waits for the deadline or
/// the cancel ([`Deadline::cancelled`]), once per run, and drops the pipeline either way.
#[derive(Debug)]
pub struct Deadline {
    budget: Duration,
    at: OnceLock<Instant>,
    cancelled: AtomicBool,
    wake: tokio::sync::Notify,
}

impl Deadline {
    /// A budget of `budget`, not yet started.
    pub fn new(budget: Duration) -> Arc<Deadline> {
        Arc::new(Deadline {
            budget,
            at: OnceLock::new(),
            cancelled: AtomicBool::new(false),
            wake: tokio::sync::Notify::new(),
        })
    }

    /// Start counting now (later calls change nothing).
    pub fn start(&self) {
        let _ = self.at.set(Instant::now() + self.budget);
    }

    /// When the budget runs out: `budget` after [`Deadline::start`], or `budget` from now if it was not started.
    pub fn instant(&self) -> Instant {
        *self.at.get_or_init(|| Instant::now() + self.budget)
    }

    /// Whether the budget has run out (never before it started), or the caller cancelled the run.
    #[inline]
    pub fn passed(&self) -> bool {
        self.cancelled.load(Ordering::Relaxed) || self.at.get().is_some_and(|at| Instant::now() >= *at)
    }

    /// End the run now, from outside it (the caller's cancellation): no new call starts, outstanding ones are
    /// let go as at the deadline. Later calls change nothing.
    pub fn cancel(&self) {
        self.cancelled.store(true, Ordering::Relaxed);
        // One permit for the one runner that may wait in `cancelled`, stored if it is not waiting yet.
        self.wake.notify_one();
    }

    /// Whether [`Deadline::cancel`] was called.
    pub fn is_cancelled(&self) -> bool {
        self.cancelled.load(Ordering::Relaxed)
    }

    /// Resolves once the run is cancelled (for the one task that waits for the deadline; never resolves
    /// otherwise).
    pub async fn cancelled(&self) {
        if !self.is_cancelled() {
            self.wake.notified().await;
        }
    }

    /// Resolves when the budget runs out ([`Deadline::instant`]) or the caller cancels, whichever comes first (the
    /// one future a stream runner waits on beside its work).
    pub async fn reached(&self) {
        let at = tokio::time::Instant::from_std(self.instant());
        tokio::select! {
            () = tokio::time::sleep_until(at) => {}
            () = self.cancelled() => {}
        }
    }

    /// The budget.
    pub fn budget(&self) -> Duration {
        self.budget
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn answered<M: JobMeter>(shared: &Shared<M>, n: u64) {
        for _ in 0..n {
            shared.record(Ok(1));
        }
    }

    #[test]
    fn the_steady_window_runs_between_the_two_marks() {
        let shared = Shared::new(NoMeter).marking(10, 30);
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
        let shared = Shared::new(NoMeter).marking(10, 30);
        answered(&shared, 20);
        assert_eq!(shared.outcome().steady(), None);
        let unmarked = Shared::new(NoMeter);
        answered(&unmarked, 20);
        assert_eq!(unmarked.outcome().marks, [None, None]);
    }

    #[test]
    fn failures_are_counted_apart_and_the_first_is_kept() {
        let shared = Shared::new(NoMeter);
        shared.record(Err(CallFailed { input: 3, reason: "shut down".into() }));
        shared.record(Err(CallFailed { input: 4, reason: "shut down".into() }));
        shared.record(Ok(5));
        let totals = shared.outcome();
        assert_eq!((totals.sum, totals.completed, totals.failed), (5, 1, 2));
        assert_eq!(totals.first_failure.map(|f| f.input), Some(3));
    }

    #[test]
    fn in_flight_guards_count_into_a_gauge_meter_and_cost_nothing_without_one() {
        let gauge = Arc::new(measure::gauge::Outstanding::new());
        let shared = Shared::new(measure::meter::GaugeMeter::new(Arc::clone(&gauge)));
        let (one, two) = (shared.in_flight(), shared.in_flight_owned());
        assert_eq!((gauge.current(), gauge.high_water()), (2, 2));
        drop((one, two));
        assert_eq!((gauge.current(), gauge.high_water()), (0, 2));
        assert_eq!(std::mem::size_of::<InFlightOwned<NoMeter>>(), 0, "the timed guard is nothing at all");
        shared.started_threads(3);
        shared.started_threads(2);
        assert_eq!(shared.threads_started(), 5);
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

    #[test]
    fn a_cancelled_deadline_has_passed_and_wakes_its_waiter() {
        let deadline = Deadline::new(Duration::from_secs(3_600));
        deadline.start();
        assert!(!deadline.passed() && !deadline.is_cancelled());
        deadline.cancel();
        assert!(deadline.passed() && deadline.is_cancelled());
        // Cancelled before anyone waited: the wait still ends.
        let runtime = tokio::runtime::Builder::new_current_thread().build().expect("a runtime");
        runtime.block_on(deadline.cancelled());
    }
}
