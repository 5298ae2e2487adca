//! What a unit (memory) or an operation (primitives) does with its number, written once for both scenarios and
//! generic, so the timed runs and the conformance checks run the same contestant code: [`Plain`] (the timed
//! instantiation: hands the value back, cannot fail, hears no cancel, holds nothing: every part a zero-sized
//! no-op) and [`Checked`] (the conformance's: an injected error or panic at a chosen number, a count of live
//! units, a ledger of what was made and finished, and the caller's cancel, [`pipelines::cancel::CallerCancel`]).

use std::cell::{Cell, RefCell};
use std::convert::Infallible;
use std::fmt;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;
use std::time::Duration;

use pipelines::cancel::CallerCancel;
use pipelines::conformance::{Behaviour, Consume, Inspect, Job, Outcome};
use pipelines::{InjectedPanic, LiveStages, StageGuard};

/// The work of one unit or operation, as a contestant's code calls it.
pub trait Work: Clone + Send + Sync + 'static {
    /// The error a unit's work can end with (`Infallible` for [`Plain`], [`Injected`] for [`Checked`]).
    type Error: fmt::Display + Into<Injected> + Send + 'static;
    /// What a unit holds from its creation until it ends (`()` for [`Plain`]).
    type Guard: Send + 'static;
    /// Unit or operation `n` is about to be made (the creator's side): its guard.
    fn start(&self, n: u64) -> Self::Guard;
    /// Unit or operation `n` hands back `value` (its own side): the value, or its injected fault.
    fn finish(&self, n: u64, value: u64) -> Result<u64, Self::Error>;
    /// Whether the caller has cancelled the run (the creator's loop asks before each unit or operation).
    fn cancelled(&self) -> bool;
}

/// The timed runs' work: the value handed back as it is; nothing held, nothing can fail or cancel.
#[derive(Debug, Clone, Copy, Default)]
pub struct Plain;

impl Work for Plain {
    type Error = Infallible;
    type Guard = ();

    #[inline(always)]
    fn start(&self, _: u64) {}

    #[inline(always)]
    fn finish(&self, _: u64, value: u64) -> Result<u64, Infallible> {
        Ok(value)
    }

    #[inline(always)]
    fn cancelled(&self) -> bool {
        false
    }
}

/// How an injected fault shows: the unit's work returns [`Injected`], or panics with an [`InjectedPanic`].
pub use pipelines::conformance::FaultAction;

/// A fault injected into the work of number `at`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Fault {
    /// The unit or operation that fails.
    pub at: u64,
    /// How it fails.
    pub action: FaultAction,
}

/// The error an injected [`FaultAction::Error`] returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("injected error in {what} {at}")]
pub struct Injected {
    /// `unit` or `op`.
    pub what: &'static str,
    /// The number that failed.
    pub at: u64,
}

impl From<Infallible> for Injected {
    fn from(never: Infallible) -> Injected {
        match never {}
    }
}

/// The conformance checks' work: faults, the live count, the ledger and the caller's cancel.
#[derive(Debug, Clone)]
pub struct Checked {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    what: &'static str,
    fault: Option<Fault>,
    live: Arc<LiveStages>,
    counts: Counts,
    cancel: Option<Arc<CallerCancel>>,
    hears_cancel: bool,
}

/// How many times each number was made and finished.
#[derive(Debug)]
struct Counts {
    created: Vec<AtomicU32>,
    finished: Vec<AtomicU32>,
}

/// What one unit holds in a checked run: its count in the live counter.
#[derive(Debug)]
pub struct CheckedGuard {
    _live: StageGuard,
}

impl Checked {
    /// Work for `count` units (or operations, `what` names which) counted in `live`, failing as `fault` says.
    pub fn new(what: &'static str, count: u64, live: &Arc<LiveStages>, fault: Option<Fault>) -> Checked {
        Checked::with(what, count, live, fault, None)
    }

    /// The work of one conformance kit run of `what`s (`unit`, `op`): its fault, its live count, and its caller's
    /// cancel (whose point the creator passes at that number), heard only by a consumer that cancels
    /// ([`Consume::Cancellable`]; a broken one collects instead, and [`Work::cancelled`] stays false for it).
    pub fn for_job<M>(what: &'static str, job: &Job<'_, u64, &'static str, M>) -> Checked {
        let (items, hears) = (job.items(), job.consumer == Consume::Cancellable);
        match (job.behaviour.fault(), job.behaviour.cancel()) {
            (Some(f), _) => Checked::new(what, items, job.live, Some(Fault { at: f.at, action: f.action })),
            (None, Some(cancel)) => Checked::with(what, items, job.live, None, Some((cancel, hears))),
            (None, None) => Checked::new(what, items, job.live, None),
        }
    }

    /// Whether `job` is a clean run (no fault, no cancel, nothing counted): the one whose sum the checks compare.
    pub fn is_clean<M>(job: &Job<'_, u64, &'static str, M>) -> bool {
        matches!(job.behaviour, Behaviour::Clean)
    }

    fn with(
        what: &'static str,
        count: u64,
        live: &Arc<LiveStages>,
        fault: Option<Fault>,
        cancel: Option<(&Arc<CallerCancel>, bool)>,
    ) -> Checked {
        let n = usize::try_from(count).unwrap_or(0);
        Checked {
            inner: Arc::new(Inner {
                what,
                fault,
                live: Arc::clone(live),
                counts: Counts {
                    created: (0..n).map(|_| AtomicU32::new(0)).collect(),
                    finished: (0..n).map(|_| AtomicU32::new(0)).collect(),
                },
                cancel: cancel.map(|(cancel, _)| Arc::clone(cancel)),
                hears_cancel: cancel.is_some_and(|(_, hears)| hears),
            }),
        }
    }

    /// Units or operations made more than once, finished more than once, and numbers outside the run.
    pub fn ledger(&self) -> Ledger {
        let count = |v: &[AtomicU32]| {
            let (mut once, mut twice) = (0, 0);
            for c in v {
                match c.load(Ordering::SeqCst) {
                    0 => {}
                    1 => once += 1,
                    _ => twice += 1,
                }
            }
            (once, twice)
        };
        let (created, created_twice) = count(&self.inner.counts.created);
        let (finished, finished_twice) = count(&self.inner.counts.finished);
        Ledger { created, created_twice, finished, finished_twice }
    }

    /// What a kit run through this work did wrong that the kit cannot see: numbers made or finished twice and,
    /// when the caller cancelled, numbers made past the one the cancel came at; one phrase each.
    pub fn problems(&self) -> Vec<String> {
        let (ledger, what) = (self.ledger(), self.inner.what);
        let mut problems = Vec::new();
        if ledger.created_twice > 0 || ledger.finished_twice > 0 {
            let (made, finished) = (ledger.created_twice, ledger.finished_twice);
            problems.push(format!("{made} {what}s made twice, {finished} finished twice"));
        }
        let point = self.inner.cancel.as_ref().map(|cancel| cancel.point());
        if let Some(point) = point.filter(|&point| ledger.created > point + 1) {
            problems.push(format!("{} {what}s made after the cancel at {what} {point}", ledger.created - point - 1));
        }
        problems
    }

    /// What the kit gets from a run through this work that returned `out`: a collecting run, the numbers that
    /// handed theirs back; a cancellable one that ended with the cancel (`made` says how many it made, if `out`
    /// is the cancel), the numbers made; any other, its sum or its error.
    pub fn got<E>(
        &self,
        out: Result<u64, E>,
        consume: Consume,
        made: impl FnOnce(&E) -> Option<u64>,
    ) -> Result<Outcome, E> {
        match (out, consume) {
            (Ok(_), Consume::Collect) => Ok(Outcome::Items(self.finished())),
            (Ok(sum), _) => Ok(Outcome::sum(sum)),
            (Err(e), Consume::Cancellable) => made(&e).map(|made| Outcome::Items((0..made).collect())).ok_or(e),
            (Err(e), _) => Err(e),
        }
    }

    /// Every number that handed back its value, ascending, once for each time it did.
    fn finished(&self) -> Vec<u64> {
        let counts = self.inner.counts.finished.iter().map(|c| c.load(Ordering::SeqCst) as usize);
        counts.enumerate().flat_map(|(n, times)| std::iter::repeat_n(n as u64, times)).collect()
    }

    fn note(v: &[AtomicU32], n: u64) {
        if let Some(c) = usize::try_from(n).ok().and_then(|i| v.get(i)) {
            c.fetch_add(1, Ordering::SeqCst);
        }
    }
}

/// What a checked run made and finished, each number once or more.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ledger {
    /// Numbers made once.
    pub created: u64,
    /// Numbers made more than once.
    pub created_twice: u64,
    /// Numbers finished once.
    pub finished: u64,
    /// Numbers finished more than once.
    pub finished_twice: u64,
}

impl Work for Checked {
    type Error = Injected;
    type Guard = CheckedGuard;

    fn start(&self, n: u64) -> CheckedGuard {
        let guard = CheckedGuard { _live: self.inner.live.enter() };
        Checked::note(&self.inner.counts.created, n);
        if let Some(cancel) = &self.inner.cancel {
            cancel.pass(n);
        }
        guard
    }

    fn finish(&self, n: u64, value: u64) -> Result<u64, Injected> {
        Checked::note(&self.inner.counts.finished, n);
        match self.inner.fault {
            Some(Fault { at, action: FaultAction::Error }) if at == n => Err(Injected { what: self.inner.what, at }),
            Some(Fault { at, action: FaultAction::Panic }) if at == n => {
                std::panic::panic_any(InjectedPanic { stage: self.inner.what, at })
            }
            _ => Ok(value),
        }
    }

    fn cancelled(&self) -> bool {
        self.inner.hears_cancel && self.inner.cancel.as_ref().is_some_and(|c| c.is_raised())
    }
}

/// How long threads that are exiting are given to go before they count as left behind.
const THREADS_SETTLE: Duration = Duration::from_secs(5);

/// A contestant prepared for the conformance kit: its thread count once prepared (after a first small run
/// started whatever it starts once: a runtime's workers, a pool, `may`'s carriers), the baseline every later run
/// is held to, and what its last run did wrong that the kit does not count.
#[derive(Debug)]
pub struct Primed<P> {
    /// The prepared contestant.
    pub inner: P,
    baseline: Option<u64>,
    problems: RefCell<Vec<String>>,
    made: Cell<u64>,
}

impl<P> Primed<P> {
    /// `inner`, already primed: the process's threads now are its baseline.
    pub fn new(inner: P) -> Self {
        Primed { inner, baseline: measure::memory::thread_count(), problems: RefCell::default(), made: Cell::new(0) }
    }

    /// Note how many units or operations the run that just returned made, and what it did wrong, one phrase
    /// each.
    pub fn note(&self, made: u64, problems: Vec<String>) {
        self.made.set(made);
        *self.problems.borrow_mut() = problems;
    }

    /// How many units or operations the last run made.
    pub fn made(&self) -> u64 {
        self.made.get()
    }

    /// What the last run did wrong, and the threads above the baseline once exiting ones had time to go.
    pub fn leftovers(&self) -> Vec<String> {
        let mut problems = self.problems.take();
        let after = measure::memory::settled_thread_count(self.baseline, THREADS_SETTLE);
        if let (Some(before), Some(after)) = (self.baseline, after) {
            let left = (after > before)
                .then(|| format!("{} threads left behind ({before} before, {after} after)", after - before));
            problems.extend(left);
        }
        problems
    }
}

/// A prepared contestant that can say how many tasks are alive on its runtime.
pub trait AliveTasks {
    /// Tasks alive on its runtime; `None` without one.
    fn alive_tasks(&self) -> Option<usize>;
}

/// What the kit reads after each run: the runtime's tasks, what the run made, and what it left behind.
impl<P: AliveTasks> Inspect for Primed<P> {
    fn alive_tasks(&self) -> Option<usize> {
        self.inner.alive_tasks()
    }

    fn counted(&self) -> Option<u64> {
        Some(self.made())
    }

    fn leftovers(&self) -> Vec<String> {
        Primed::leftovers(self)
    }
}

/// The message an injected panic of `what` `at` carries ([`pipelines::panic_message`] of its payload).
pub fn injected_panic_message(what: &'static str, at: u64) -> String {
    InjectedPanic { stage: what, at }.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checked_work_fails_where_told_and_counts_what_it_saw() {
        let live = Arc::new(LiveStages::new());
        let work = Checked::new("unit", 4, &live, Some(Fault { at: 2, action: FaultAction::Error }));
        let guards: Vec<_> = (0..4).map(|n| work.start(n)).collect();
        assert_eq!(live.current(), 4);
        assert_eq!(work.finish(1, 7), Ok(7));
        assert_eq!(work.finish(2, 7), Err(Injected { what: "unit", at: 2 }));
        assert_eq!(work.finish(2, 7).map_err(|e| e.to_string()), Err("injected error in unit 2".to_string()));
        drop(guards);
        assert_eq!(live.current(), 0);
        let ledger = work.ledger();
        assert_eq!((ledger.created, ledger.created_twice, ledger.finished, ledger.finished_twice), (4, 0, 1, 1));
        assert!(!work.cancelled() && !Plain.cancelled());
    }
}
