//! `blocking-std-channel`: send the number into a `std::sync::mpsc::sync_channel(1)` and `recv` it on the same
//! thread.

use std::hint::black_box;
use std::sync::mpsc::sync_channel;

use super::{cancelled, Primitive};
use crate::work::{Checked, Plain, Work};

/// Nothing to prepare: the channel is made once per run.
#[derive(Debug)]
pub(crate) struct StdChannel;

impl StdChannel {
    fn run_with<W: Work>(&self, ops: u64, work: W) -> Result<u64, String> {
        let (tx, rx) = sync_channel::<u64>(1);
        let mut sum = 0u64;
        for i in 0..ops {
            if work.cancelled() {
                return Err(cancelled(i));
            }
            let guard = work.start(i);
            tx.send(work.finish(i, black_box(i)).map_err(|e| e.to_string())?).map_err(|e| e.to_string())?;
            drop(guard);
            sum = sum.wrapping_add(rx.recv().map_err(|e| e.to_string())?);
        }
        Ok(sum)
    }
}

impl Primitive for StdChannel {
    fn run(&self, ops: u64) -> Result<u64, String> {
        self.run_with(ops, Plain)
    }

    fn run_checked(&self, ops: u64, work: &Checked) -> Result<u64, String> {
        self.run_with(ops, work.clone())
    }
}
