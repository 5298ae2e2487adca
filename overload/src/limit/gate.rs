//! The admission gate every family shares: one lock, one FIFO queue of parked threads, parked `may` coroutines
//! and waiting tasks.

use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use dependency::waiter::{park, Waiter};

use super::{Decisions, LimitAlgorithm, Sample};

/// What the caller reports when it releases a [`Permit`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// The call completed; its latency is a sample.
    Success,
    /// The dependency rejected the call, or it failed: a sample marked as a drop.
    Dropped,
    /// Not measured (cancelled, or never sent): frees the slot, feeds the algorithm nothing.
    Ignore,
}

/// Counters of one [`Gate`], read together under its lock.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct GateStats {
    /// Slots handed out: permits returned to callers, plus slots granted to an [`Acquire`] dropped before it
    /// saw them (those come back as ignored releases).
    pub admitted: u64,
    /// Admissions that had to queue first.
    pub queued: u64,
    /// Slots given back, whatever the outcome.
    pub released: u64,
    /// Releases with [`Outcome::Success`].
    pub succeeded: u64,
    /// Releases with [`Outcome::Dropped`].
    pub dropped: u64,
    /// Releases with [`Outcome::Ignore`], including permits dropped without `release` and granted slots of
    /// cancelled waits.
    pub ignored: u64,
    /// [`Acquire`] futures dropped while queued (before or after their slot was granted).
    pub cancelled: u64,
    /// Admissions made while `in_flight >= limit`; the gate never makes one, so this stays 0.
    pub over_limit_admissions: u64,
    /// The limit now.
    pub limit: usize,
    /// Calls admitted and not yet released.
    pub in_flight: usize,
    /// The highest `in_flight` seen.
    pub max_in_flight: usize,
    /// Waiters queued now.
    pub waiting: usize,
    /// How many times the limit changed.
    pub limit_changes: u64,
    /// What the algorithm decided so far.
    pub decisions: Decisions,
}

/// The admission gate shared by both families: one instance per run, behind an `Arc`, used by blocking
/// threads and async tasks alike.
///
/// Invariants, all under one `std::sync::Mutex`:
///
/// - A call is admitted only while `in_flight < limit`. When the limit drops below `in_flight`, nobody is
///   preempted; nobody is admitted until enough permits come back.
/// - Waiters are served first come, first served, whatever their family: a parked thread and a pending task
///   wait in the same queue. A newcomer never overtakes the queue ([`try_acquire`](Self::try_acquire) fails
///   while anyone waits).
/// - A freed slot (a release, or a limit that rose) is handed to the queue's head, admitted on its behalf
///   under the lock, and only that waiter is woken: as many wake-ups as free slots, no thundering herd, and
///   no wake-up lost if the woken waiter was cancelled in between (its slot is passed on).
/// - A release feeds the algorithm under the lock (it is cheap) and records each change of the limit with
///   its time since [`Gate::new`].
///
/// `acquire_blocking` parks the calling OS thread, or inside a `may` coroutine the coroutine (its carrier runs
/// others meanwhile), so it must not be called from an async task.
///
/// The gate keeps one clock for its samples: time since [`Gate::new`], or, for a gate made with
/// [`Gate::with_manual_clock`], time moved only by [`Gate::advance`] (scripted drives stay deterministic).
#[derive(Debug)]
pub struct Gate {
    state: Mutex<State>,
    started: Instant,
}

#[derive(Debug)]
struct State {
    algorithm: Box<dyn LimitAlgorithm>,
    limit: usize,
    in_flight: usize,
    waiters: VecDeque<Queued>,
    /// Slots admitted on behalf of waiters that have not picked them up yet.
    granted: Vec<Grant>,
    next_waiter: u64,
    history: Vec<(Duration, usize)>,
    stats: GateStats,
    /// The manual clock's time, if the gate has one.
    manual_now: Option<Duration>,
}

/// A caller queued for a permit: its ticket and how to wake it (the dependency's waiter: a thread, a `may`
/// coroutine or a task).
#[derive(Debug)]
struct Queued {
    id: u64,
    wake: Waiter,
}

/// One admission: what a [`Permit`] remembers of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Admission {
    in_flight: usize,
    limit: usize,
    /// On the gate's clock.
    at: Duration,
    /// On the wall clock: where the call's latency starts.
    instant: Instant,
    /// Its place in the gate's admission order (1 for the first).
    seq: u64,
}

#[derive(Debug, Clone, Copy)]
struct Grant {
    waiter: u64,
    admission: Admission,
}

/// Wake-ups collected under the lock, delivered after it is released.
type Wakes = Vec<Waiter>;

impl State {
    /// The gate's clock: the manual time, or the time since `started`.
    fn now(&self, started: Instant) -> Duration {
        self.manual_now.unwrap_or_else(|| started.elapsed())
    }

    /// Admits one call; the caller has checked `in_flight < limit` (counted as a violation otherwise).
    fn admit(&mut self, started: Instant) -> Admission {
        if self.in_flight >= self.limit {
            self.stats.over_limit_admissions += 1;
        }
        self.in_flight += 1;
        self.stats.admitted += 1;
        self.stats.max_in_flight = self.stats.max_in_flight.max(self.in_flight);
        Admission {
            in_flight: self.in_flight,
            limit: self.limit,
            at: self.now(started),
            instant: Instant::now(),
            seq: self.stats.admitted,
        }
    }

    /// Admits a newcomer if a slot is free and nobody is queued before it.
    fn admit_newcomer(&mut self, started: Instant) -> Option<Admission> {
        (self.waiters.is_empty() && self.in_flight < self.limit).then(|| self.admit(started))
    }

    fn enqueue(&mut self, wake: Waiter) -> u64 {
        let id = self.next_waiter;
        self.next_waiter += 1;
        self.waiters.push_back(Queued { id, wake });
        id
    }

    /// Ids grow with each enqueue, so the queue is sorted by id.
    fn find_waiter(&self, id: u64) -> Option<usize> {
        self.waiters.binary_search_by_key(&id, |w| w.id).ok()
    }

    fn take_grant(&mut self, waiter: u64) -> Option<Admission> {
        let index = self.granted.iter().position(|g| g.waiter == waiter)?;
        Some(self.granted.swap_remove(index).admission)
    }

    /// Hands free slots to the queue's head, one waiter per slot.
    fn dispatch(&mut self, started: Instant, wakes: &mut Wakes) {
        while self.in_flight < self.limit {
            let Some(waiter) = self.waiters.pop_front() else {
                break;
            };
            let admission = self.admit(started);
            self.stats.queued += 1;
            self.granted.push(Grant { waiter: waiter.id, admission });
            wakes.push(waiter.wake);
        }
    }

    /// Gives a slot back, feeds the algorithm, and hands out what became free.
    fn release(
        &mut self,
        admission: Admission,
        latency: Duration,
        outcome: Outcome,
        started: Instant,
        wakes: &mut Wakes,
    ) {
        self.in_flight = self.in_flight.saturating_sub(1);
        self.count_release(outcome);
        if outcome == Outcome::Ignore {
            self.dispatch(started, wakes);
            return;
        }
        let completed = self.now(started);
        let dropped = outcome == Outcome::Dropped;
        let sample = Sample { latency, in_flight: admission.in_flight, dropped, admitted: admission.at, completed };
        let limit = self.algorithm.on_sample(&sample).max(1);
        if limit != self.limit {
            self.limit = limit;
            self.stats.limit_changes += 1;
            self.history.push((completed, limit));
        }
        self.dispatch(started, wakes);
    }

    /// Counts a slot given back with `outcome`.
    fn count_release(&mut self, outcome: Outcome) {
        self.stats.released += 1;
        match outcome {
            Outcome::Success => self.stats.succeeded += 1,
            Outcome::Dropped => self.stats.dropped += 1,
            Outcome::Ignore => self.stats.ignored += 1,
        }
    }

    fn snapshot(&self) -> GateStats {
        GateStats {
            limit: self.limit,
            in_flight: self.in_flight,
            waiting: self.waiters.len(),
            decisions: self.algorithm.decisions(),
            ..self.stats
        }
    }
}

fn wake_all(wakes: Wakes) {
    for wake in wakes {
        wake.wake();
    }
}

impl Gate {
    /// A gate whose limit `algorithm` moves. The limit starts at `algorithm.limit()` (at least 1); the history
    /// starts with that limit at time zero.
    pub fn new(algorithm: Box<dyn LimitAlgorithm>) -> Gate {
        Gate::with_history_capacity(algorithm, 64)
    }

    /// Like [`new`](Self::new), with room for `capacity` limit changes reserved up front, so that recording
    /// the history allocates nothing during a measured run that stays within it (each change is 24 bytes;
    /// AIMD can change on every sample).
    pub fn with_history_capacity(algorithm: Box<dyn LimitAlgorithm>, capacity: usize) -> Gate {
        Gate::build(algorithm, capacity, None)
    }

    /// Like [`with_history_capacity`](Self::with_history_capacity), with a clock that starts at zero and moves
    /// only by [`advance`](Self::advance): samples' admission and completion times, and the limit history, are
    /// then the script's, not the machine's.
    pub fn with_manual_clock(algorithm: Box<dyn LimitAlgorithm>, capacity: usize) -> Gate {
        Gate::build(algorithm, capacity, Some(Duration::ZERO))
    }

    /// Moves a manual clock forward by `by` (a real clock ignores it).
    pub fn advance(&self, by: Duration) {
        let mut state = self.lock();
        if let Some(now) = state.manual_now.as_mut() {
            *now = now.saturating_add(by);
        }
    }

    fn build(algorithm: Box<dyn LimitAlgorithm>, capacity: usize, manual_now: Option<Duration>) -> Gate {
        let limit = algorithm.limit().max(1);
        let mut history = Vec::with_capacity(capacity.max(1));
        history.push((Duration::ZERO, limit));
        Gate {
            state: Mutex::new(State {
                algorithm,
                limit,
                in_flight: 0,
                waiters: VecDeque::new(),
                granted: Vec::new(),
                next_waiter: 0,
                history,
                stats: GateStats::default(),
                manual_now,
            }),
            started: Instant::now(),
        }
    }

    /// The lock; a panic elsewhere while holding it leaves counts that are still consistent (every update is
    /// a few integer steps), so a poisoned lock is used as is.
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn permit(self: &Arc<Self>, admission: Admission, asked: Instant) -> Permit {
        Permit { gate: Arc::clone(self), admission, asked: asked.min(admission.instant), released: false }
    }

    /// Waits, parking the thread (no spinning), until a slot is free and every earlier waiter is served, then
    /// admits the call. Inside a `may` coroutine it parks the coroutine instead (`may::coroutine::park`, woken
    /// by `Coroutine::unpark`), so the carrier thread keeps running other coroutines. Not for async tasks: use
    /// [`acquire`](Self::acquire) there.
    pub fn acquire_blocking(self: &Arc<Self>) -> Permit {
        let asked = Instant::now();
        let mut state = self.lock();
        if let Some(admission) = state.admit_newcomer(self.started) {
            return self.permit(admission, asked);
        }
        let id = state.enqueue(Waiter::current());
        loop {
            if let Some(admission) = state.take_grant(id) {
                drop(state);
                return self.permit(admission, asked);
            }
            drop(state);
            // A spurious unpark just loops: the grant is the only way out.
            park(None);
            state = self.lock();
        }
    }

    /// A future that resolves to a [`Permit`] once a slot is free and every earlier waiter is served.
    ///
    /// Cancel-safe: dropping it while queued gives up its place; if a slot had already been granted to it,
    /// the slot goes to the next waiter (or back to the pool), so no slot leaks and no wake-up is lost.
    pub fn acquire(self: &Arc<Self>) -> Acquire {
        Acquire { gate: Arc::clone(self), state: AcquireState::Start, asked: None }
    }

    /// Admits the call now if a slot is free and nobody is queued, without waiting.
    pub fn try_acquire(self: &Arc<Self>) -> Option<Permit> {
        let asked = Instant::now();
        let admission = self.lock().admit_newcomer(self.started)?;
        Some(self.permit(admission, asked))
    }

    /// The limit now.
    pub fn limit(&self) -> usize {
        self.lock().limit
    }

    /// Calls admitted and not yet released.
    pub fn in_flight(&self) -> usize {
        self.lock().in_flight
    }

    /// The highest in-flight count seen.
    pub fn max_in_flight(&self) -> usize {
        self.lock().stats.max_in_flight
    }

    /// Waiters queued now (threads and tasks).
    pub fn waiting(&self) -> usize {
        self.lock().waiters.len()
    }

    /// Admissions made while `in_flight >= limit`: must stay 0.
    pub fn over_limit_admissions(&self) -> u64 {
        self.lock().stats.over_limit_admissions
    }

    /// The limit at time zero, then every change of it, each with its time since [`Gate::new`].
    pub fn limit_history(&self) -> Vec<(Duration, usize)> {
        self.lock().history.clone()
    }

    /// The gate's clock now: time since [`Gate::new`] (or the manual clock's time).
    pub fn clock(&self) -> Duration {
        self.lock().now(self.started)
    }

    /// The limit in force at `since` (gate clock) and every change after it, each with its time: the tail of
    /// [`limit_history`](Self::limit_history), copied under the lock.
    pub fn limit_history_since(&self, since: Duration) -> Vec<(Duration, usize)> {
        let state = self.lock();
        let first = state.history.partition_point(|(at, _)| *at <= since).saturating_sub(1);
        state.history[first..].to_vec()
    }

    /// Calls `decide` with the limit history since `hold` before now (the limit in force then and every change
    /// after it) and the gate's clock now, all under the gate's lock: the limit cannot change while `decide`
    /// runs, so whatever it does on what it read (the overload watcher drops the dependency's capacity) happens
    /// at the limit it judged, however long a busy machine keeps its thread off a CPU in between.
    pub fn while_limit_held<R>(&self, hold: Duration, decide: impl FnOnce(&[(Duration, usize)], Duration) -> R) -> R {
        let state = self.lock();
        let now = state.now(self.started);
        let since = now.saturating_sub(hold);
        let first = state.history.partition_point(|(at, _)| *at <= since).saturating_sub(1);
        decide(&state.history[first..], now)
    }

    /// Every counter, read together.
    pub fn stats(&self) -> GateStats {
        self.lock().snapshot()
    }

    /// For a limiter that admits on its own (the `congestion-limiter` crate's `DefaultLimiter`, whose algorithm
    /// nothing outside it can feed), with this gate built on a [`Followed`](super::Followed) algorithm as its
    /// mirror: counts one of its admissions, with its own in-flight count (this call included) and its own
    /// limit read right after it admitted, as this gate counts its own (an admission above the limit is counted
    /// in [`over_limit_admissions`](Self::over_limit_admissions)). Returns its place in the admission order.
    pub fn note_admission(&self, in_flight: usize, limit: usize) -> u64 {
        let mut state = self.lock();
        if in_flight > limit {
            state.stats.over_limit_admissions += 1;
        }
        state.stats.admitted += 1;
        state.stats.max_in_flight = state.stats.max_in_flight.max(in_flight);
        state.stats.admitted
    }

    /// For a limiter that admits on its own, mirrored by this gate (see [`note_admission`](Self::note_admission)):
    /// one of its calls was released with `outcome`, and its limit is now `limit()` (read under this gate's
    /// lock, so the last change recorded is the latest). The limit's history, read by the drop watcher and the
    /// reports, follows it.
    pub fn follow(&self, limit: impl FnOnce() -> usize, outcome: Outcome) {
        let mut state = self.lock();
        state.count_release(outcome);
        let limit = limit().max(1);
        state.algorithm.follow(limit);
        if limit != state.limit {
            state.limit = limit;
            state.stats.limit_changes += 1;
            let now = state.now(self.started);
            state.history.push((now, limit));
        }
    }

    fn release(&self, admission: Admission, latency: Duration, outcome: Outcome) {
        let mut wakes = Wakes::new();
        self.lock().release(admission, latency, outcome, self.started, &mut wakes);
        wake_all(wakes);
    }

    /// An [`Acquire`] dropped while queued: leave the queue, or pass on the slot it was granted.
    fn cancel(&self, waiter: u64) {
        let mut wakes = Wakes::new();
        {
            let mut state = self.lock();
            state.stats.cancelled += 1;
            if let Some(index) = state.find_waiter(waiter) {
                state.waiters.remove(index);
            } else if let Some(admission) = state.take_grant(waiter) {
                state.release(admission, Duration::ZERO, Outcome::Ignore, self.started, &mut wakes);
            }
        }
        wake_all(wakes);
    }
}

/// One admitted call. Give it back with [`release`](Self::release); dropping it instead counts as
/// [`Outcome::Ignore`] (the slot is freed, the algorithm sees nothing).
#[derive(Debug)]
#[must_use = "a permit holds a slot until it is released or dropped"]
pub struct Permit {
    gate: Arc<Gate>,
    admission: Admission,
    /// When the caller asked for the slot.
    asked: Instant,
    released: bool,
}

impl Permit {
    /// When the call was admitted: where its latency starts, in every family.
    pub fn admitted_at(&self) -> Instant {
        self.admission.instant
    }

    /// How long the caller waited at the gate: from asking (the blocking call, or the future's first poll) to
    /// admission.
    pub fn gate_wait(&self) -> Duration {
        self.admission.instant.saturating_duration_since(self.asked)
    }

    /// Frees the slot and reports the call as seen complete at `seen`: its latency, admission → `seen`, and
    /// `outcome` feed the limit algorithm. Returns that latency.
    pub fn finish(self, seen: Instant, outcome: Outcome) -> Duration {
        let latency = seen.saturating_duration_since(self.admission.instant);
        self.release(latency, outcome);
        latency
    }

    /// Frees the slot and reports the call: `latency` and `outcome` feed the limit algorithm unless the
    /// outcome is [`Outcome::Ignore`].
    pub fn release(mut self, latency: Duration, outcome: Outcome) {
        self.released = true;
        self.gate.release(self.admission, latency, outcome);
    }

    /// Its place in the gate's admission order (1 for the first admission): admissions are made under the
    /// gate's lock, so this orders two admissions that share a clock reading.
    pub fn admission_seq(&self) -> u64 {
        self.admission.seq
    }

    /// The gate's in-flight count when this call was admitted, including itself.
    pub fn in_flight_at_admission(&self) -> usize {
        self.admission.in_flight
    }

    /// The gate's limit when this call was admitted (at least [`in_flight_at_admission`](Self::in_flight_at_admission)).
    pub fn limit_at_admission(&self) -> usize {
        self.admission.limit
    }
}

impl Drop for Permit {
    fn drop(&mut self) {
        if !self.released {
            self.gate.release(self.admission, Duration::ZERO, Outcome::Ignore);
        }
    }
}

/// The future [`Gate::acquire`] returns: resolves to a [`Permit`], cancel-safe.
#[derive(Debug)]
#[must_use = "futures do nothing unless polled"]
pub struct Acquire {
    gate: Arc<Gate>,
    state: AcquireState,
    /// When it was first polled: the caller asked for a slot.
    asked: Option<Instant>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum AcquireState {
    /// Not polled yet.
    Start,
    /// In the gate's queue under this id.
    Queued(u64),
    /// Resolved.
    Done,
}

impl Future for Acquire {
    type Output = Permit;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Permit> {
        let this = self.get_mut();
        let asked = *this.asked.get_or_insert_with(Instant::now);
        let mut state = this.gate.lock();
        let admission = match this.state {
            AcquireState::Start => match state.admit_newcomer(this.gate.started) {
                Some(admission) => admission,
                None => {
                    let id = state.enqueue(Waiter::Task(cx.waker().clone()));
                    this.state = AcquireState::Queued(id);
                    return Poll::Pending;
                }
            },
            AcquireState::Queued(id) => match state.take_grant(id) {
                Some(admission) => admission,
                None => {
                    // Polled again before its turn: keep the latest waker.
                    if let Some(index) = state.find_waiter(id) {
                        if let Waiter::Task(waker) = &mut state.waiters[index].wake {
                            if !waker.will_wake(cx.waker()) {
                                waker.clone_from(cx.waker());
                            }
                        }
                    }
                    return Poll::Pending;
                }
            },
            AcquireState::Done => panic!("`Acquire` polled after it resolved"),
        };
        drop(state);
        this.state = AcquireState::Done;
        Poll::Ready(this.gate.permit(admission, asked))
    }
}

impl Drop for Acquire {
    fn drop(&mut self) {
        if let AcquireState::Queued(id) = self.state {
            self.gate.cancel(id);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::limit::{Aimd, AimdConfig, Fixed};
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::task::Waker;

    struct CountingWaker(AtomicUsize);

    impl std::task::Wake for CountingWaker {
        fn wake(self: Arc<Self>) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }

    fn poll(fut: &mut Acquire, waker: &Waker) -> Poll<Permit> {
        Pin::new(fut).poll(&mut Context::from_waker(waker))
    }

    fn counting_waker() -> (Arc<CountingWaker>, Waker) {
        let counter = Arc::new(CountingWaker(AtomicUsize::new(0)));
        (Arc::clone(&counter), Waker::from(counter))
    }

    #[test]
    fn admits_up_to_the_limit_then_queues_and_hands_over_on_release() {
        let gate = Arc::new(Gate::new(Box::new(Fixed::new(2))));
        let a = gate.try_acquire().expect("slot 1");
        let b = gate.try_acquire().expect("slot 2");
        assert_eq!((a.in_flight_at_admission(), b.in_flight_at_admission()), (1, 2));
        assert!(gate.try_acquire().is_none());

        let (counter, waker) = counting_waker();
        let mut fut = gate.acquire();
        assert!(poll(&mut fut, &waker).is_pending());
        assert_eq!(gate.waiting(), 1);

        a.release(Duration::from_millis(1), Outcome::Success);
        assert_eq!(counter.0.load(Ordering::SeqCst), 1);
        assert_eq!(gate.waiting(), 0);
        assert_eq!(gate.in_flight(), 2, "the slot went straight to the waiter");
        assert!(gate.try_acquire().is_none(), "a newcomer cannot take the handed-over slot");
        let Poll::Ready(c) = poll(&mut fut, &waker) else {
            panic!("granted waiter still pending");
        };
        assert_eq!(c.in_flight_at_admission(), 2);
        drop((b, c));
        let stats = gate.stats();
        assert_eq!((stats.admitted, stats.queued, stats.released), (3, 1, 3));
        assert_eq!((stats.succeeded, stats.ignored, stats.in_flight), (1, 2, 0));
    }

    #[test]
    fn a_shrinking_limit_preempts_nobody_and_admits_nobody_until_below_it() {
        let gate = Arc::new(Gate::new(Box::new(Aimd::new(AimdConfig { initial: 4, min: 1, ..AimdConfig::default() }))));
        let permits: Vec<Permit> = (0..4).filter_map(|_| gate.try_acquire()).collect();
        assert_eq!(permits.len(), 4);
        let mut permits = permits.into_iter();
        // A drop: floor(4 × 0.9) = 3, with 3 still in flight.
        if let Some(p) = permits.next() {
            p.release(Duration::from_millis(1), Outcome::Dropped);
        }
        assert_eq!((gate.limit(), gate.in_flight()), (3, 3));
        assert!(gate.try_acquire().is_none());
        // Another: floor(3 × 0.9) = 2, with 2 in flight: still full.
        if let Some(p) = permits.next() {
            p.release(Duration::from_millis(1), Outcome::Dropped);
        }
        assert_eq!((gate.limit(), gate.in_flight()), (2, 2));
        assert!(gate.try_acquire().is_none());
        drop(permits);
        assert!(gate.try_acquire().is_some());
        assert_eq!(gate.over_limit_admissions(), 0);
        let limits: Vec<usize> = gate.limit_history().iter().map(|&(_, l)| l).collect();
        assert_eq!(limits, vec![4, 3, 2]);
    }

    #[test]
    fn a_rising_limit_wakes_as_many_waiters_as_free_slots() {
        let gate = Arc::new(Gate::new(Box::new(Aimd::new(AimdConfig { initial: 2, min: 1, ..AimdConfig::default() }))));
        let a = gate.try_acquire().expect("slot 1");
        let _b = gate.try_acquire().expect("slot 2");
        let wakers: Vec<(Arc<CountingWaker>, Waker)> = (0..3).map(|_| counting_waker()).collect();
        let mut futs: Vec<Acquire> = (0..3).map(|_| gate.acquire()).collect();
        for (fut, (_, waker)) in futs.iter_mut().zip(&wakers) {
            assert!(poll(fut, waker).is_pending());
        }
        // in_flight 2 × 2 ≥ 2: the limit rises to 3, one slot frees and one more opens: two waiters woken.
        a.release(Duration::from_millis(1), Outcome::Success);
        let woken: Vec<usize> = wakers.iter().map(|(c, _)| c.0.load(Ordering::SeqCst)).collect();
        assert_eq!(woken, vec![1, 1, 0]);
        assert_eq!((gate.limit(), gate.in_flight(), gate.waiting()), (3, 3, 1));
        drop(futs.pop());
        drop(futs);
        assert_eq!(gate.in_flight(), 1, "granted but unclaimed slots came back");
        assert_eq!(gate.stats().cancelled, 3);
    }
}
