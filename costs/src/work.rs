//! What a unit (memory) or an operation (primitives) does with its number, written once for both scenarios and
//! generic, so the timed runs and the conformance checks run the same contestant code: [`Plain`] (the timed
//! instantiation: hands the value back, cannot fail, hears no cancel, holds nothing: every part a zero-sized
//! no-op) and [`Checked`] (the conformance's: an injected error or panic at a chosen number, a count of live
//! units, a ledger of what was made and finished, and the caller's cancel, [`pipelines::cancel::CallerCancel`]).

use std::convert::Infallible;
use std::fmt;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

use pipelines::cancel::CallerCancel;
use pipelines::{InjectedPanic, LiveStages, StageGuard};

/// The work of one unit or operation, as a contestant's code calls it.
pub trait Work: Clone + Send + Sync + 'static {
    /// The error a unit's work can end with (`Infallible` for [`Plain`]).
    type Error: fmt::Display + Send + 'static;
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

/// How an injected fault shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FaultAction {
    /// The unit's work returns [`Injected`].
    Error,
    /// The unit's work panics with an [`InjectedPanic`].
    Panic,
}

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
    counts: Arc<Counts>,
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
        let n = usize::try_from(count).unwrap_or(0);
        Checked {
            inner: Arc::new(Inner {
                what,
                fault,
                live: Arc::clone(live),
                counts: Arc::new(Counts {
                    created: (0..n).map(|_| AtomicU32::new(0)).collect(),
                    finished: (0..n).map(|_| AtomicU32::new(0)).collect(),
                }),
                cancel: None,
                hears_cancel: true,
            }),
        }
    }

    /// The same work cancelled by `cancel` (whose point the creator passes at that number).
    pub fn cancelled_by(what: &'static str, count: u64, live: &Arc<LiveStages>, cancel: &Arc<CallerCancel>) -> Checked {
        let mut checked = Checked::new(what, count, live, None);
        if let Some(inner) = Arc::get_mut(&mut checked.inner) {
            inner.cancel = Some(Arc::clone(cancel));
        }
        checked
    }

    /// This work as a contestant that never asks whether it was cancelled sees it: the point is still passed
    /// (so the caller still cancels), but [`Work::cancelled`] stays false. Only the reject tests use it.
    pub fn deaf_to_cancel(&self) -> Checked {
        let inner = &self.inner;
        Checked {
            inner: Arc::new(Inner {
                what: inner.what,
                fault: inner.fault,
                live: Arc::clone(&inner.live),
                counts: Arc::clone(&inner.counts),
                cancel: inner.cancel.clone(),
                hears_cancel: false,
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

/// What a checked run of `noun` (units, operations) left running or did twice, one phrase each; empty when
/// nothing: `live` still alive when it returned, runtime `tasks` alive, `threads` (baseline, after) above the
/// baseline, and what `ledger` saw made or finished twice.
pub fn leftovers(
    noun: &str,
    live: usize,
    tasks: Option<usize>,
    threads: (Option<u64>, Option<u64>),
    ledger: &Ledger,
) -> Vec<String> {
    let mut problems = Vec::new();
    if live != 0 {
        problems.push(format!("{live} {noun} alive when it returned"));
    }
    if let Some(t) = tasks.filter(|&t| t > 0) {
        problems.push(format!("{t} runtime tasks alive"));
    }
    if let (Some(before), Some(after)) = threads {
        if after > before {
            problems.push(format!("{} threads left behind ({before} before, {after} after)", after - before));
        }
    }
    if ledger.created_twice > 0 || ledger.finished_twice > 0 {
        problems.push(format!("{} {noun} made twice, {} finished twice", ledger.created_twice, ledger.finished_twice));
    }
    problems
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
