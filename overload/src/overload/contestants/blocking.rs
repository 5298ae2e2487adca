//! `blocking-<limiter>` and `blocking-unbounded`: a pool of OS threads, each blocking on its call's completion,
//! gated by the limiter, or (no gate) issuing calls back to back with no admission control.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use dependency::Dependency;
use pipelines::blocking::parked_pool::run_parked;

use super::pool;
use crate::error::RunError;
use crate::job::{finish_call, Job, Prepared, THREAD_STACK_BYTES};

/// A pool of `threads` threads, started per iteration and parked until the run begins.
#[derive(Debug)]
pub struct ThreadPool {
    threads: usize,
}

impl ThreadPool {
    /// A pool of `threads` threads: the limiter's ceiling (more could never be admitted at once), or, with no
    /// gate, `unbounded-threads` (at most one per call).
    pub fn new(threads: usize) -> ThreadPool {
        ThreadPool { threads: threads.max(1) }
    }
}

impl Prepared for ThreadPool {
    fn run(&self, job: &Job<'_>, go: &mut dyn FnMut()) -> Result<(), RunError> {
        let next = AtomicU64::new(0);
        let Some(gate) = job.gate.as_ref() else {
            let threads = usize::try_from(job.calls).map_or(self.threads, |calls| self.threads.min(calls.max(1)));
            return run_parked(threads, THREAD_STACK_BYTES, go, |_| loop {
                if job.cancel.is_some_and(pipelines::cancel::CallerCancel::is_raised) {
                    return;
                }
                let index = next.fetch_add(1, Ordering::Relaxed);
                if index >= job.calls || pool::cancelled_at(job, index) {
                    return;
                }
                let issued = Instant::now();
                let result = job.dependency.call(index).wait();
                finish_call(job.ledger, index, issued, result, None);
            })
            .map_err(RunError::Pool);
        };
        run_parked(self.threads, THREAD_STACK_BYTES, go, |_| pool::gated_calls(job, gate, &next))
            .map_err(RunError::Pool)
    }

    fn idle_latencies(&self, dependency: &Dependency, n: u32) -> Vec<Duration> {
        pool::idle_waited(dependency, n)
    }
}
