//! `stream-tokio-semaphore`: acquire and drop one permit of an uncontended `tokio::sync::Semaphore`.

use std::hint::black_box;

use tokio::runtime::Runtime;
use tokio::sync::Semaphore;

use super::{cancelled, runtime, Primitive};
use crate::work::{Checked, Plain, Work};

/// A current-thread runtime and a semaphore of one permit, built once per trial.
#[derive(Debug)]
pub(crate) struct SemaphoreOp {
    runtime: Runtime,
    semaphore: Semaphore,
}

impl SemaphoreOp {
    pub(crate) fn new() -> Result<SemaphoreOp, String> {
        Ok(SemaphoreOp { runtime: runtime(true)?, semaphore: Semaphore::new(1) })
    }
}

impl SemaphoreOp {
    fn run_with<W: Work>(&self, ops: u64, work: W) -> Result<u64, String> {
        self.runtime.block_on(async {
            let mut sum = 0u64;
            for i in 0..ops {
                if work.cancelled() {
                    return Err(cancelled(i));
                }
                let permit = black_box(&self.semaphore).acquire().await.map_err(|e| e.to_string())?;
                let guard = work.start(i);
                sum = sum.wrapping_add(work.finish(i, black_box(i)).map_err(|e| e.to_string())?);
                drop(guard);
                drop(permit);
            }
            Ok(sum)
        })
    }
}

impl Primitive for SemaphoreOp {
    fn run(&self, ops: u64) -> Result<u64, String> {
        self.run_with(ops, Plain)
    }

    fn run_checked(&self, ops: u64, work: &Checked) -> Result<u64, String> {
        self.run_with(ops, work.clone())
    }

    fn alive_tasks(&self) -> Option<usize> {
        Some(self.runtime.metrics().num_alive_tasks())
    }
}
