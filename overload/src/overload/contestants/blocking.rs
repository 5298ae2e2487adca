//! `blocking-<limiter>`: a pool of OS threads gated by the limiter, each blocking on its call's completion.

use std::sync::atomic::AtomicU64;
use std::time::Duration;

use dependency::Dependency;
use pipelines::blocking::parked_pool::run_parked;

use super::pool;
use crate::error::RunError;
use crate::job::{Job, Prepared, THREAD_STACK_BYTES};

/// A pool of `threads` threads, started per iteration and parked until the run begins.
#[derive(Debug)]
pub struct GatedPool {
    threads: usize,
}

impl GatedPool {
    /// A pool of `threads` threads (the limiter's ceiling: more could never be admitted at once).
    pub fn new(threads: usize) -> GatedPool {
        GatedPool { threads: threads.max(1) }
    }
}

impl Prepared for GatedPool {
    fn run(&self, job: &Job<'_>, go: &mut dyn FnMut()) -> Result<(), RunError> {
        let gate = job.gate.as_ref().ok_or(RunError::NoGate("a gated pool needs a gate"))?;
        let next = AtomicU64::new(0);
        run_parked(self.threads, THREAD_STACK_BYTES, go, |_| pool::gated_calls(job, gate, &next))
            .map_err(RunError::Pool)
    }

    fn idle_latencies(&self, dependency: &Dependency, n: u32) -> Vec<Duration> {
        pool::idle_waited(dependency, n)
    }
}
