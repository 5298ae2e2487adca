//! `blocking-std-channel`: send the number into a `std::sync::mpsc::sync_channel(1)` and `recv` it on the same
//! thread.

use std::hint::black_box;
use std::sync::mpsc::sync_channel;

use super::{OpError, Operation};
use crate::work::Work;

/// Nothing to prepare: the channel is made once per run.
#[derive(Debug)]
pub(crate) struct StdChannel;

impl Operation for StdChannel {
    fn run_with<W: Work>(&self, ops: u64, work: W) -> Result<u64, OpError> {
        let (tx, rx) = sync_channel::<u64>(1);
        let mut sum = 0u64;
        for i in 0..ops {
            if work.cancelled() {
                return Err(OpError::Cancelled(i));
            }
            let guard = work.start(i);
            tx.send(work.finish(i, black_box(i)).map_err(OpError::failed)?).map_err(OpError::closed)?;
            drop(guard);
            sum = sum.wrapping_add(rx.recv().map_err(OpError::closed)?);
        }
        Ok(sum)
    }
}
