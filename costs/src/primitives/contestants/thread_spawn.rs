//! `blocking-thread-spawn-join`: `std::thread::spawn` a thread that returns its number, then `join` it.

use std::hint::black_box;

use super::{OpError, Operation};
use crate::work::Work;

/// Nothing to prepare.
#[derive(Debug)]
pub(crate) struct ThreadSpawn;

impl Operation for ThreadSpawn {
    fn run_with<W: Work>(&self, ops: u64, work: W) -> Result<u64, OpError> {
        let mut sum = 0u64;
        for i in 0..ops {
            if work.cancelled() {
                return Err(OpError::Cancelled(i));
            }
            let (guard, work) = (work.start(i), work.clone());
            let thread = std::thread::Builder::new()
                .spawn(move || {
                    let _guard = guard;
                    work.finish(i, black_box(i))
                })
                .map_err(|e| OpError::ThreadRefused(i, e))?;
            let n = thread.join().map_err(|payload| OpError::panicked(format_args!("thread {i}"), &*payload))?;
            sum = sum.wrapping_add(n.map_err(OpError::failed)?);
        }
        Ok(sum)
    }
}
