//! `blocking-std-channel`: send the number into a `std::sync::mpsc::sync_channel(1)` and `recv` it on the same
//! thread.

use std::hint::black_box;
use std::sync::mpsc::sync_channel;

use super::Primitive;

/// Nothing to prepare: the channel is made once per run.
#[derive(Debug)]
pub(crate) struct StdChannel;

impl Primitive for StdChannel {
    fn run(&self, ops: u64) -> Result<u64, String> {
        let (tx, rx) = sync_channel::<u64>(1);
        let mut sum = 0u64;
        for i in 0..ops {
            tx.send(black_box(i)).map_err(|e| e.to_string())?;
            sum = sum.wrapping_add(rx.recv().map_err(|e| e.to_string())?);
        }
        Ok(sum)
    }
}
