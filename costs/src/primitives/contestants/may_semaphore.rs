//! `coroutine-may-semaphore`: from a coroutine, take and give back one permit of an uncontended `may::sync::Semphore`.

use std::hint::black_box;
use std::sync::Arc;

use may::sync::Semphore;
use pipelines::coroutine::CoroutineConfig;

use super::{in_coroutine, Primitive};

/// `may` configured once per trial and a semaphore of one permit.
#[derive(Debug)]
pub(crate) struct MaySemaphore {
    config: CoroutineConfig,
    semaphore: Arc<Semphore>,
}

impl MaySemaphore {
    pub(crate) fn new(config: CoroutineConfig) -> MaySemaphore {
        config.apply();
        MaySemaphore { config, semaphore: Arc::new(Semphore::new(1)) }
    }
}

impl Primitive for MaySemaphore {
    fn run(&self, ops: u64) -> Result<u64, String> {
        let semaphore = Arc::clone(&self.semaphore);
        in_coroutine(self.config.stack_words, move || {
            let mut sum = 0u64;
            for i in 0..ops {
                black_box(&*semaphore).wait();
                sum = sum.wrapping_add(black_box(i));
                semaphore.post();
            }
            Ok(sum)
        })
    }
}
