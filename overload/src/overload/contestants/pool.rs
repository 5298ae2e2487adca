//! What the pooled contestants (OS threads and `may` coroutines) share besides how their pool is started: the
//! loop each member runs, and how they time idle calls.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use dependency::Dependency;
use pipelines::cancel::CallerCancel;

use crate::job::{finish_call, Job};
use crate::limit::Gate;

/// One pool member's work: take a permit, take the next call index from `next`, make the call and wait for its
/// reply (a thread blocks; a coroutine parks, both in the gate and in the completion), until `job.calls` are
/// taken.
pub(crate) fn gated_calls(job: &Job<'_>, gate: &Arc<Gate>, next: &AtomicU64) {
    loop {
        if job.cancel.is_some_and(CallerCancel::is_raised) {
            return;
        }
        let permit = gate.acquire_blocking();
        let index = next.fetch_add(1, Ordering::Relaxed);
        if index >= job.calls || cancelled_at(job, index) {
            drop(permit);
            return;
        }
        let issued = Instant::now();
        let result = job.dependency.call(index).wait();
        finish_call(job.ledger, index, issued, result, Some(permit));
    }
}

/// Whether the caller's cancellation (if any) is raised by the time call `index` would be issued (at the
/// cancellation's point, once the caller has raised it).
pub(crate) fn cancelled_at(job: &Job<'_>, index: u64) -> bool {
    job.cancel.is_some_and(|cancel| {
        cancel.pass_counted(index);
        cancel.is_raised()
    })
}

/// `n` calls on `dependency`, one at a time, each waited for on this thread.
pub(crate) fn idle_waited(dependency: &Dependency, n: u32) -> Vec<Duration> {
    (0..n)
        .map(|i| {
            let issued = Instant::now();
            let _ = dependency.call(u64::from(i)).wait();
            issued.elapsed()
        })
        .collect()
}
