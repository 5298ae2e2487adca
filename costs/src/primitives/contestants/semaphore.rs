//! `stream-tokio-semaphore`: acquire and drop one permit of an uncontended `tokio::sync::Semaphore`.

use std::hint::black_box;

use tokio::runtime::Runtime;
use tokio::sync::Semaphore;

use super::{runtime, Primitive};

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

impl Primitive for SemaphoreOp {
    fn run(&self, ops: u64) -> Result<u64, String> {
        self.runtime.block_on(async {
            let mut sum = 0u64;
            for i in 0..ops {
                let permit = black_box(&self.semaphore).acquire().await.map_err(|e| e.to_string())?;
                sum = sum.wrapping_add(black_box(i));
                drop(permit);
            }
            Ok(sum)
        })
    }
}
