//! `stream-tokio-oneshot`: make a `tokio::sync::oneshot`, send the number, await the receiver.

use std::hint::black_box;

use tokio::runtime::Runtime;
use tokio::sync::oneshot;

use super::{cancelled, runtime, Primitive};
use crate::work::{Checked, Plain, Work};

/// A current-thread runtime built once per trial.
#[derive(Debug)]
pub(crate) struct Oneshot {
    runtime: Runtime,
}

impl Oneshot {
    pub(crate) fn new() -> Result<Oneshot, String> {
        Ok(Oneshot { runtime: runtime(true)? })
    }
}

impl Oneshot {
    fn run_with<W: Work>(&self, ops: u64, work: W) -> Result<u64, String> {
        self.runtime.block_on(async {
            let mut sum = 0u64;
            for i in 0..ops {
                if work.cancelled() {
                    return Err(cancelled(i));
                }
                let (tx, rx) = oneshot::channel();
                let guard = work.start(i);
                tx.send(work.finish(i, black_box(i)).map_err(|e| e.to_string())?)
                    .map_err(|_| format!("receiver {i} gone"))?;
                drop(guard);
                sum = sum.wrapping_add(rx.await.map_err(|e| e.to_string())?);
            }
            Ok(sum)
        })
    }
}

impl Primitive for Oneshot {
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
