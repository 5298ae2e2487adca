//! `blocking-thread-spawn-join`: `std::thread::spawn` a thread that returns its number, then `join` it.

use std::hint::black_box;

use super::{cancelled, panicked, Primitive};
use crate::work::{Checked, Plain, Work};

/// Nothing to prepare.
#[derive(Debug)]
pub(crate) struct ThreadSpawn;

impl ThreadSpawn {
    fn run_with<W: Work>(&self, ops: u64, work: W) -> Result<u64, String> {
        let mut sum = 0u64;
        for i in 0..ops {
            if work.cancelled() {
                return Err(cancelled(i));
            }
            let (guard, work) = (work.start(i), work.clone());
            let thread = std::thread::Builder::new()
                .spawn(move || {
                    let _guard = guard;
                    work.finish(i, black_box(i))
                })
                .map_err(|e| format!("the OS refused thread {i}: {e}"))?;
            let n = thread.join().map_err(|payload| panicked(&format!("thread {i}"), &*payload))?;
            sum = sum.wrapping_add(n.map_err(|e| e.to_string())?);
        }
        Ok(sum)
    }
}

impl Primitive for ThreadSpawn {
    fn run(&self, ops: u64) -> Result<u64, String> {
        self.run_with(ops, Plain)
    }

    fn run_checked(&self, ops: u64, work: &Checked) -> Result<u64, String> {
        self.run_with(ops, work.clone())
    }
}
