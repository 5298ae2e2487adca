//! `blocking-thread-spawn-join`: `std::thread::spawn` a thread that returns its number, then `join` it.

use std::hint::black_box;

use super::Primitive;

/// Nothing to prepare.
#[derive(Debug)]
pub(crate) struct ThreadSpawn;

impl Primitive for ThreadSpawn {
    fn run(&self, ops: u64) -> Result<u64, String> {
        let mut sum = 0u64;
        for i in 0..ops {
            let thread = std::thread::Builder::new()
                .spawn(move || black_box(i))
                .map_err(|e| format!("the OS refused thread {i}: {e}"))?;
            sum = sum.wrapping_add(thread.join().map_err(|_| format!("thread {i} panicked"))?);
        }
        Ok(sum)
    }
}
