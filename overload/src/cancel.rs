//! A cancellation from the caller's side, for the `caller_cancel` conformance check only (never on a timed run,
//! whose [`Job::cancel`](crate::job::Job::cancel) is `None`).
//!
//! The caller's thread raises it when the run is about to issue a seeded call
//! ([`pipelines::cancel::CallerCancel`]: the run waits at that call until it is raised, so it always lands
//! mid-run). A contestant honours it the way its style stops a run from outside: a stream's run future is
//! dropped (`select` with [`Cancel::raised`]), dropping every call in flight with it; pool threads and
//! coroutines check the flag ([`Cancel::is_raised`]) before each call, as a stop flag would, and return.
//!
//! While the run waits at the point, its other pool threads or stream slots go on issuing calls until the
//! caller's thread is scheduled, which on a loaded machine can take milliseconds. So the cancellation counts
//! the calls that reached [`Cancel::pass`] and reads that count when it is raised
//! ([`Cancel::passed_at_raise`]): what the run may issue after the cancel is judged from there, not from the
//! point.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};
use std::thread::JoinHandle;
use std::time::Instant;

use pipelines::cancel::CallerCancel;
use tokio::sync::Notify;

/// A cancellation the caller raises when call [`point`](Self::point) is about to be issued.
#[derive(Debug)]
pub struct Cancel {
    caller: CallerCancel,
    raised: Notify,
    /// Calls that reached [`Cancel::pass`] so far.
    passed: AtomicU64,
    /// [`Cancel::passed`](Self::passed) read just after the caller raised the cancellation.
    passed_at_raise: OnceLock<u64>,
}

impl Cancel {
    /// A cancellation raised when the run is about to issue call `point`.
    pub fn at(point: u64) -> Arc<Cancel> {
        Arc::new(Cancel {
            caller: CallerCancel::at(point),
            raised: Notify::new(),
            passed: AtomicU64::new(0),
            passed_at_raise: OnceLock::new(),
        })
    }

    /// The call at which the caller cancels.
    pub fn point(&self) -> u64 {
        self.caller.point()
    }

    /// The run is about to issue call `index`: at the point, wait (a few milliseconds at most, bounded by
    /// [`pipelines::cancel::HOLD`]) until the caller has raised the cancellation.
    pub fn pass(&self, index: u64) {
        self.passed.fetch_add(1, Ordering::SeqCst);
        self.caller.pass(index);
    }

    /// How many calls had reached [`pass`](Self::pass) when the caller raised the cancellation (read just
    /// after the raise, so it counts every call issued before it), if it did.
    pub fn passed_at_raise(&self) -> Option<u64> {
        self.passed_at_raise.get().copied()
    }

    /// Whether the caller has raised it: what a pool member checks before each call.
    pub fn is_raised(&self) -> bool {
        self.caller.is_raised()
    }

    /// Resolves once the caller has raised it: what a stream's run is `select`ed against.
    pub async fn raised(&self) {
        if !self.is_raised() {
            // `notify_one` stores its permit if nobody waits yet, so a raise between the test and here is kept.
            self.raised.notified().await;
        }
    }

    /// When the caller raised it, if it did.
    pub fn raised_at(&self) -> Option<Instant> {
        self.caller.raised_at()
    }

    /// The run has returned: release a caller still waiting for the point.
    pub fn abandon(&self) {
        self.caller.abandon();
    }

    /// Starts the caller's thread, which raises the cancellation once the run reaches the point and answers
    /// whether it did. Call [`abandon`](Self::abandon) once the run returned, before joining it.
    pub fn spawn_canceller(cancel: &Arc<Cancel>) -> std::io::Result<JoinHandle<bool>> {
        let cancel = Arc::clone(cancel);
        std::thread::Builder::new().name("caller-cancel".into()).spawn(move || {
            let raised = cancel.caller.raise_when_reached();
            if raised {
                let _ = cancel.passed_at_raise.set(cancel.passed.load(Ordering::SeqCst));
                cancel.raised.notify_one();
            }
            raised
        })
    }
}

/// Runs `run` to its end, or until `cancel` (if any) is raised, when it is dropped with everything in flight.
pub(crate) async fn until_cancelled(run: impl std::future::Future<Output = ()>, cancel: Option<&Cancel>) {
    match cancel {
        None => run.await,
        Some(cancel) => {
            let (run, raised) = (std::pin::pin!(run), std::pin::pin!(cancel.raised()));
            futures::future::select(run, raised).await;
        }
    }
}
