//! A cancellation raised by the caller, from another thread, at a chosen point of a run: the conformance checks'
//! "cancel from outside" (never on a measured path).
//!
//! The run's instrumented source calls [`CallerCancel::pass`] for each element; at the chosen element it says so
//! and waits (at most [`HOLD`]) while the caller's thread ([`CallerCancel::spawn_canceller`]) raises the
//! cancellation, so the cancellation always lands mid-run, however fast the contestant, and then the run goes on
//! with everything still in flight. The run's consumer ([`CancellableSink`]) is the caller's end: it checks the
//! raised flag at each item it receives and drops its end at the first one after the raise, as a
//! `select!` on a cancellation token or a stop flag would at its next poll. Whatever the contestant does next
//! (dropping its stream, disconnecting its channels, stopping its threads) is what the check judges.
//!
//! A run whose calls go on concurrently while one waits at the point counts the calls that pass
//! ([`CallerCancel::pass_counted`], [`CallerCancel::pass_next`]) and reads the count when the caller raises the
//! cancellation ([`CallerCancel::passed_at_raise`]); a stream's run is `select`ed against
//! [`CallerCancel::raised`] ([`until_raised`]).

use std::future::Future;
use std::ops::ControlFlow;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::sink::{Sink, TakeSink};

/// The longest the source waits at the chosen point for the caller to raise the cancellation.
pub const HOLD: Duration = Duration::from_secs(5);

/// A cancellation the caller raises when the run reaches element [`CallerCancel::point`].
#[derive(Debug)]
pub struct CallerCancel {
    point: u64,
    raised: AtomicBool,
    /// Passes counted so far ([`CallerCancel::pass_counted`], [`CallerCancel::pass_next`]).
    passed: AtomicU64,
    state: Mutex<State>,
    changed: Condvar,
    /// Wakes the runs awaiting [`CallerCancel::raised`].
    notify: tokio::sync::Notify,
}

#[derive(Debug, Default)]
struct State {
    reached: bool,
    raised_at: Option<Instant>,
    /// The passes counted, read just after the raise.
    passed_at_raise: Option<u64>,
    abandoned: bool,
}

impl CallerCancel {
    /// A cancellation raised when the source reaches its element `point` (counting from 0).
    pub fn at(point: u64) -> Self {
        CallerCancel {
            point,
            raised: AtomicBool::new(false),
            passed: AtomicU64::new(0),
            state: Mutex::default(),
            changed: Condvar::new(),
            notify: tokio::sync::Notify::new(),
        }
    }

    /// The element at which the caller cancels.
    pub fn point(&self) -> u64 {
        self.point
    }

    /// The source is at its element `n`: at the chosen point, say so and wait (at most [`HOLD`]) for the caller
    /// to raise the cancellation; elsewhere nothing.
    #[inline]
    pub fn pass(&self, n: u64) {
        if n != self.point {
            return;
        }
        let mut state = self.lock();
        state.reached = true;
        self.changed.notify_all();
        let give_up = Instant::now() + HOLD;
        while state.raised_at.is_none() && !state.abandoned {
            let left = give_up.saturating_duration_since(Instant::now());
            if left.is_zero() {
                break;
            }
            state = self.changed.wait_timeout(state, left).unwrap_or_else(PoisonError::into_inner).0;
        }
    }

    /// [`pass`](Self::pass) that also counts the pass (read at the raise: [`passed_at_raise`](Self::passed_at_raise)).
    pub fn pass_counted(&self, n: u64) {
        self.passed.fetch_add(1, Ordering::SeqCst);
        self.pass(n);
    }

    /// Count a pass and [`pass`](Self::pass) at the count (the first is 1): a run whose point is the point-th
    /// thing done rather than a given element.
    pub fn pass_next(&self) {
        self.pass(self.passed.fetch_add(1, Ordering::SeqCst) + 1);
    }

    /// How many passes were counted when the caller raised the cancellation (read just after the raise, so it
    /// counts every pass before it), if it did.
    pub fn passed_at_raise(&self) -> Option<u64> {
        self.lock().passed_at_raise
    }

    /// Resolves once the caller has raised the cancellation: what a stream's run is `select`ed against.
    pub async fn raised(&self) {
        loop {
            let mut notified = std::pin::pin!(self.notify.notified());
            notified.as_mut().enable();
            if self.is_raised() {
                return;
            }
            notified.await;
        }
    }

    /// Whether the caller has raised the cancellation.
    #[inline]
    pub fn is_raised(&self) -> bool {
        self.raised.load(Ordering::Acquire)
    }

    /// When the caller raised the cancellation, if it did.
    pub fn raised_at(&self) -> Option<Instant> {
        self.lock().raised_at
    }

    /// The caller's side: wait until the run reaches the point, then raise the cancellation; `false` when the
    /// run was abandoned ([`CallerCancel::abandon`]) before reaching it.
    pub fn raise_when_reached(&self) -> bool {
        let mut state = self.lock();
        while !state.reached && !state.abandoned {
            state = self.changed.wait(state).unwrap_or_else(PoisonError::into_inner);
        }
        if !state.reached {
            return false;
        }
        state.raised_at = Some(Instant::now());
        self.raised.store(true, Ordering::Release);
        state.passed_at_raise = Some(self.passed.load(Ordering::SeqCst));
        self.changed.notify_all();
        self.notify.notify_waiters();
        true
    }

    /// The run has returned: release a caller still waiting for the point (it will not be reached now).
    pub fn abandon(&self) {
        self.lock().abandoned = true;
        self.changed.notify_all();
    }

    /// Start the caller's thread that raises the cancellation when the run reaches the point; it answers
    /// whether it raised it. Call [`CallerCancel::abandon`] once the run returned, before joining it.
    pub fn spawn_canceller(cancel: &Arc<CallerCancel>) -> std::io::Result<JoinHandle<bool>> {
        let cancel = Arc::clone(cancel);
        std::thread::Builder::new().name("caller-cancel".into()).spawn(move || cancel.raise_when_reached())
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Runs `run` to its end, or until `cancel` (if any) is raised, when it is dropped with everything in flight.
pub async fn until_raised(run: impl Future<Output = ()>, cancel: Option<&CallerCancel>) {
    match cancel {
        None => run.await,
        Some(cancel) => {
            let (run, raised) = (std::pin::pin!(run), std::pin::pin!(cancel.raised()));
            futures::future::select(run, raised).await;
        }
    }
}

/// A point in `range` chosen by `seed` (FNV-1a of its bytes): the same point for the same seed, so a failure
/// reproduces, and different points for different contestants.
pub fn seeded_point(seed: &str, range: std::ops::Range<u64>) -> u64 {
    let hash = seed.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3));
    range.start + hash % (range.end - range.start).max(1)
}

/// The caller's consumer in a cancellation check: every item in arrival order, until the cancellation is
/// raised; the first item it receives after that is not kept and the sink asks for no more.
#[derive(Debug)]
pub struct CancellableSink {
    items: TakeSink,
    cancel: Arc<CallerCancel>,
}

impl CancellableSink {
    /// Collect until `cancel` is raised.
    pub fn new(cancel: Arc<CallerCancel>) -> Self {
        CancellableSink { items: TakeSink::all(), cancel }
    }
}

impl<O: From<Vec<u64>>> Sink<O> for CancellableSink {
    fn push(&mut self, x: u64) -> ControlFlow<()> {
        if self.cancel.is_raised() {
            return ControlFlow::Break(());
        }
        Sink::<O>::push(&mut self.items, x)
    }

    fn push_batch(&mut self, batch: Vec<u64>) -> ControlFlow<()> {
        if self.cancel.is_raised() {
            return ControlFlow::Break(());
        }
        Sink::<O>::push_batch(&mut self.items, batch)
    }

    fn finish(self) -> O {
        Sink::<O>::finish(self.items)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_caller_raises_when_the_source_reaches_the_point() {
        let cancel = Arc::new(CallerCancel::at(3));
        let caller = CallerCancel::spawn_canceller(&cancel).expect("a caller thread");
        for n in 0..3 {
            cancel.pass(n);
            assert!(!cancel.is_raised());
        }
        cancel.pass(3);
        assert!(cancel.is_raised() && cancel.raised_at().is_some());
        cancel.abandon();
        assert!(caller.join().expect("the caller thread ends"));
    }

    #[test]
    fn counted_passes_are_read_at_the_raise_and_wake_the_awaiting_run() {
        let cancel = Arc::new(CallerCancel::at(3));
        let caller = CallerCancel::spawn_canceller(&cancel).expect("a caller thread");
        cancel.pass_counted(5);
        cancel.pass_next();
        assert!(!cancel.is_raised() && cancel.passed_at_raise().is_none());
        cancel.pass_next();
        assert!(caller.join().expect("the caller thread ends"));
        assert_eq!(cancel.passed_at_raise(), Some(3));
        let runtime = tokio::runtime::Builder::new_current_thread().build().expect("a runtime");
        runtime.block_on(until_raised(std::future::pending(), Some(&cancel)));
    }

    #[test]
    fn an_abandoned_run_releases_the_caller_without_raising() {
        let cancel = Arc::new(CallerCancel::at(3));
        let caller = CallerCancel::spawn_canceller(&cancel).expect("a caller thread");
        cancel.abandon();
        assert!(!caller.join().expect("the caller thread ends"));
        assert!(!cancel.is_raised());
    }

    #[test]
    fn the_sink_stops_at_the_first_item_after_the_raise() {
        let cancel = Arc::new(CallerCancel::at(0));
        let mut sink = CancellableSink::new(Arc::clone(&cancel));
        assert_eq!(Sink::<Vec<u64>>::push(&mut sink, 1), ControlFlow::Continue(()));
        cancel.lock().reached = true;
        assert!(cancel.raise_when_reached());
        assert_eq!(Sink::<Vec<u64>>::push(&mut sink, 2), ControlFlow::Break(()));
        assert_eq!(Sink::<Vec<u64>>::finish(sink), vec![1]);
    }

    #[test]
    fn seeded_points_stay_in_range_and_repeat() {
        let p = seeded_point("blocking-crossbeam", 1_000..50_000);
        assert!((1_000..50_000).contains(&p));
        assert_eq!(p, seeded_point("blocking-crossbeam", 1_000..50_000));
    }
}
