//! The check that the blocking and async acquire paths admit the same way: one scripted sequence of
//! admissions and `(latency, outcome)` releases, driven once through [`Gate::acquire_blocking`] and once
//! through [`Gate::acquire`], must give the same admissions, the same limit after every release and the same
//! limit history.
//!
//! The script saturates the gate (fills it to its limit), then degrades the latency past the AIMD threshold
//! with more drops, then goes app-limited (3 calls in flight), then recovers; it mixes in ignored releases,
//! and every 8 steps, with the gate full, it queues one waiter (a parked thread or a pending future) and
//! releases until the gate hands it a slot. Both drives are deterministic: no timing enters the algorithm.
//! The async drive polls the future by hand, so neither needs a runtime; call these from a plain thread.

use std::collections::VecDeque;
use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll, Wake, Waker};
use std::thread;
use std::time::{Duration, Instant};

use super::{build, Gate, GateStats, LimiterKind, LimiterParams, Outcome, Permit};

/// Which acquire path a drive goes through.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AcquirePath {
    /// [`Gate::acquire_blocking`], the blocking contestants' path.
    Blocking,
    /// [`Gate::acquire`], the stream contestants' path.
    Async,
}

/// What one drive of the script observed.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Trace {
    /// Every admission in order: `(in_flight_at_admission, limit_at_admission)`.
    pub admissions: Vec<(usize, usize)>,
    /// The gate's limit after every release.
    pub limits_after_release: Vec<usize>,
    /// The limit history's values (times differ from drive to drive).
    pub history: Vec<usize>,
    /// The gate's counters at the end.
    pub stats: GateStats,
}

/// Steps in the script.
const STEPS: usize = 256;
/// Every this many steps, with the gate full, one waiter queues.
const WAITER_EVERY: usize = 8;
/// How long a drive waits for a spawned thread to queue before calling it a failure.
const QUEUE_DEADLINE: Duration = Duration::from_secs(10);

/// How many calls the script keeps in flight at `step` (capped by the limit).
fn target(step: usize) -> usize {
    match step {
        160..192 => 3,
        _ => usize::MAX,
    }
}

/// The `(latency, outcome)` of the `release`-th release, made at `step`.
fn scripted(step: usize, release: usize) -> (Duration, Outcome) {
    let spread = (release * 7919) % 2000;
    let degraded = (96..160).contains(&step);
    let micros = if degraded { 18_000 + spread * 6 } else { 4_000 + spread };
    let outcome = if release % 17 == 5 {
        Outcome::Ignore
    } else if release % 13 == 0 || (degraded && release % 4 == 0) {
        Outcome::Dropped
    } else {
        Outcome::Success
    };
    (Duration::from_micros(micros as u64), outcome)
}

/// Drives the script through both acquire paths for `kind` with the default [`LimiterParams`] and compares.
pub fn same_admissions(kind: LimiterKind) -> Result<(), String> {
    same_admissions_with(kind, &LimiterParams::default())
}

/// Drives the script through both acquire paths for `kind` with `params` and compares what they observed.
pub fn same_admissions_with(kind: LimiterKind, params: &LimiterParams) -> Result<(), String> {
    let blocking = trace(kind, params, AcquirePath::Blocking)?;
    let stream = trace(kind, params, AcquirePath::Async)?;
    compare(kind, &blocking, &stream)
}

fn compare(kind: LimiterKind, blocking: &Trace, stream: &Trace) -> Result<(), String> {
    fn first_difference<T: PartialEq + std::fmt::Debug>(
        kind: LimiterKind,
        what: &str,
        blocking: &[T],
        stream: &[T],
    ) -> Result<(), String> {
        if let Some(i) = blocking.iter().zip(stream).position(|(b, s)| b != s) {
            return Err(format!(
                "{kind}: blocking and async {what} differ at #{i}: blocking {:?}, async {:?}",
                blocking[i], stream[i]
            ));
        }
        if blocking.len() != stream.len() {
            return Err(format!("{kind}: blocking made {} {what}, async {}", blocking.len(), stream.len()));
        }
        Ok(())
    }
    first_difference(kind, "admissions", &blocking.admissions, &stream.admissions)?;
    first_difference(kind, "limits after release", &blocking.limits_after_release, &stream.limits_after_release)?;
    first_difference(kind, "limit changes", &blocking.history, &stream.history)?;
    if blocking.stats != stream.stats {
        return Err(format!("{kind}: gate counters differ: blocking {:?}, async {:?}", blocking.stats, stream.stats));
    }
    Ok(())
}

/// Counts wake-ups, so the async drive can tell that a slot was handed to its pending future.
struct CountingWaker(AtomicUsize);

impl Wake for CountingWaker {
    fn wake(self: Arc<Self>) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

/// One drive: the gate, the permits it holds (oldest first), and what it saw.
struct Drive {
    kind: LimiterKind,
    path: AcquirePath,
    gate: Arc<Gate>,
    held: VecDeque<Permit>,
    releases: usize,
    trace: Trace,
}

impl Drive {
    fn admitted(&mut self, permit: Permit) -> Result<(), String> {
        let admission = (permit.in_flight_at_admission(), permit.limit_at_admission());
        if admission.0 > admission.1 {
            return Err(format!(
                "{}: {:?} path admitted call {} over limit {}",
                self.kind, self.path, admission.0, admission.1
            ));
        }
        self.trace.admissions.push(admission);
        self.held.push_back(permit);
        Ok(())
    }

    /// Acquires one slot that is free now (the gate is below its limit and nobody waits).
    fn acquire_free(&mut self) -> Result<(), String> {
        let permit = match self.path {
            AcquirePath::Blocking => self.gate.acquire_blocking(),
            AcquirePath::Async => {
                let mut fut = self.gate.acquire();
                let waker = Waker::from(Arc::new(CountingWaker(AtomicUsize::new(0))));
                match Pin::new(&mut fut).poll(&mut Context::from_waker(&waker)) {
                    Poll::Ready(permit) => permit,
                    Poll::Pending => {
                        return Err(format!("{}: async acquire waited below the limit", self.kind));
                    }
                }
            }
        };
        self.admitted(permit)
    }

    /// Releases the oldest held permit with the next scripted sample.
    fn release_oldest(&mut self, step: usize) -> Result<(), String> {
        let permit = self.held.pop_front().ok_or_else(|| format!("{}: nothing left to release", self.kind))?;
        let (latency, outcome) = scripted(step, self.releases);
        self.releases += 1;
        // The gate's clock is the script's: a millisecond per release, so windows close the same in both drives.
        self.gate.advance(Duration::from_millis(1));
        permit.release(latency, outcome);
        self.trace.limits_after_release.push(self.gate.limit());
        Ok(())
    }

    /// Releases held permits until the queued waiter has been handed a slot.
    fn release_until_granted(&mut self, step: usize) -> Result<(), String> {
        while self.gate.waiting() > 0 {
            self.release_oldest(step)?;
        }
        Ok(())
    }

    /// With the gate full, queues one waiter on this drive's path and releases until it is admitted.
    fn queue_one_waiter(&mut self, step: usize) -> Result<(), String> {
        let permit = match self.path {
            AcquirePath::Blocking => {
                let gate = Arc::clone(&self.gate);
                let waiter = thread::spawn(move || gate.acquire_blocking());
                let deadline = Instant::now() + QUEUE_DEADLINE;
                while self.gate.waiting() == 0 {
                    if waiter.is_finished() {
                        return Err(format!("{}: a blocking acquire did not wait on a full gate", self.kind));
                    }
                    if Instant::now() > deadline {
                        return Err(format!("{}: a blocking waiter never queued", self.kind));
                    }
                    thread::sleep(Duration::from_micros(50));
                }
                self.release_until_granted(step)?;
                waiter.join().map_err(|_| format!("{}: a blocking waiter panicked", self.kind))?
            }
            AcquirePath::Async => {
                let woken = Arc::new(CountingWaker(AtomicUsize::new(0)));
                let waker = Waker::from(Arc::clone(&woken));
                let mut fut = self.gate.acquire();
                if Pin::new(&mut fut).poll(&mut Context::from_waker(&waker)).is_ready() {
                    return Err(format!("{}: an async acquire did not wait on a full gate", self.kind));
                }
                self.release_until_granted(step)?;
                if woken.0.load(Ordering::SeqCst) == 0 {
                    return Err(format!("{}: a granted async waiter was not woken", self.kind));
                }
                match Pin::new(&mut fut).poll(&mut Context::from_waker(&waker)) {
                    Poll::Ready(permit) => permit,
                    Poll::Pending => {
                        return Err(format!("{}: a woken async waiter found no slot", self.kind));
                    }
                }
            }
        };
        self.admitted(permit)
    }
}

/// Drives the script once through `path` for `kind` with `params`, checking the gate's invariants on the way.
pub fn trace(kind: LimiterKind, params: &LimiterParams, path: AcquirePath) -> Result<Trace, String> {
    let gate = Arc::new(Gate::with_manual_clock(build(kind, params), 4 * STEPS));
    let mut drive = Drive { kind, path, gate, held: VecDeque::new(), releases: 0, trace: Trace::default() };
    for step in 0..STEPS {
        while drive.held.len() < target(step).min(drive.gate.limit()) {
            drive.acquire_free()?;
        }
        if step % WAITER_EVERY == 0 && drive.held.len() >= drive.gate.limit() {
            drive.queue_one_waiter(step)?;
        }
        drive.release_oldest(step)?;
    }
    while !drive.held.is_empty() {
        drive.release_oldest(STEPS)?;
    }

    let stats = drive.gate.stats();
    if stats.over_limit_admissions != 0 || stats.in_flight != 0 || stats.waiting != 0 {
        return Err(format!("{kind}: {path:?} drive left the gate inconsistent: {stats:?}"));
    }
    drive.trace.history = drive.gate.limit_history().into_iter().map(|(_, limit)| limit).collect();
    drive.trace.stats = stats;
    Ok(drive.trace)
}
