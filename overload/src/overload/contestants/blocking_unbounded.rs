//! `blocking-unbounded`: many OS threads issuing calls back to back, with no admission control.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use dependency::Dependency;
use pipelines::blocking::parked_pool::run_parked;

use super::pool;
use crate::error::RunError;
use crate::job::{finish_call, Job, Prepared, THREAD_STACK_BYTES};

/// `threads` threads (at most one per call), started per iteration and parked until the run begins.
#[derive(Debug)]
pub struct UnboundedThreads {
    threads: usize,
}

impl UnboundedThreads {
    /// Up to `threads` threads.
    pub fn new(threads: usize) -> UnboundedThreads {
        UnboundedThreads { threads: threads.max(1) }
    }
}

impl Prepared for UnboundedThreads {
    fn run(&self, job: &Job<'_>, go: &mut dyn FnMut()) -> Result<(), RunError> {
        let next = AtomicU64::new(0);
        let threads = usize::try_from(job.calls).map_or(self.threads, |calls| self.threads.min(calls.max(1)));
        run_parked(threads, THREAD_STACK_BYTES, go, |_| loop {
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
        .map_err(RunError::Pool)
    }

    fn idle_latencies(&self, dependency: &Dependency, n: u32) -> Vec<Duration> {
        pool::idle_waited(dependency, n)
    }
}
