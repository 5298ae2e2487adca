//! `coroutine-may-semaphore`: from a coroutine, take one permit of an uncontended `may::sync::Semphore`, give it back.

use std::hint::black_box;
use std::sync::Arc;

use may::sync::Semphore;
use pipelines::coroutine::CoroutineConfig;

use super::{cancelled, in_coroutine, Primitive};
use crate::work::{Checked, Plain, Work};

/// `may` configured once per trial and a semaphore of one permit.
#[derive(Debug)]
pub(crate) struct MaySemaphore {
    config: CoroutineConfig,
    semaphore: Arc<Semphore>,
}

/// One permit, given back when dropped: `may`'s `Semphore` has no guard of its own, and a bare `wait` … `post`
/// loses the permit when the work between them returns early or panics (the conformance's `op_error` caught it:
/// every later run then waited for ever).
struct Permit<'a>(&'a Semphore);

impl<'a> Permit<'a> {
    fn take(semaphore: &'a Semphore) -> Permit<'a> {
        semaphore.wait();
        Permit(semaphore)
    }
}

impl Drop for Permit<'_> {
    fn drop(&mut self) {
        self.0.post();
    }
}

impl MaySemaphore {
    pub(crate) fn new(config: CoroutineConfig) -> MaySemaphore {
        config.apply();
        MaySemaphore { config, semaphore: Arc::new(Semphore::new(1)) }
    }
}

impl MaySemaphore {
    fn run_with<W: Work>(&self, ops: u64, work: W) -> Result<u64, String> {
        let semaphore = Arc::clone(&self.semaphore);
        in_coroutine(self.config.stack_words, move || {
            let mut sum = 0u64;
            for i in 0..ops {
                if work.cancelled() {
                    return Err(cancelled(i));
                }
                let permit = Permit::take(black_box(&semaphore));
                let guard = work.start(i);
                sum = sum.wrapping_add(work.finish(i, black_box(i)).map_err(|e| e.to_string())?);
                drop(guard);
                drop(permit);
            }
            Ok(sum)
        })
    }
}

impl Primitive for MaySemaphore {
    fn run(&self, ops: u64) -> Result<u64, String> {
        self.run_with(ops, Plain)
    }

    fn run_checked(&self, ops: u64, work: &Checked) -> Result<u64, String> {
        self.run_with(ops, work.clone())
    }
}
