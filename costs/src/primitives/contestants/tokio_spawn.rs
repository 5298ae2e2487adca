//! `stream-tokio-spawn-join`: `tokio::spawn` a task that returns its number, then await its `JoinHandle`.

use std::hint::black_box;

use tokio::runtime::Runtime;

use super::{cancelled, join_error, runtime, Primitive};
use crate::work::{Checked, Plain, Work};

/// A multi-thread runtime built once per trial.
#[derive(Debug)]
pub(crate) struct TokioSpawn {
    runtime: Runtime,
}

impl TokioSpawn {
    pub(crate) fn new() -> Result<TokioSpawn, String> {
        Ok(TokioSpawn { runtime: runtime(false)? })
    }
}

impl TokioSpawn {
    fn run_with<W: Work>(&self, ops: u64, work: W) -> Result<u64, String> {
        self.runtime.block_on(async move {
            // Spawned from a task, as an application would, not from the thread that drives `block_on`.
            let driver = tokio::spawn(async move {
                let mut sum = 0u64;
                for i in 0..ops {
                    if work.cancelled() {
                        return Err(cancelled(i));
                    }
                    let (guard, work) = (work.start(i), work.clone());
                    let op = tokio::spawn(async move {
                        let _guard = guard;
                        work.finish(i, black_box(i))
                    });
                    let n = op.await.map_err(join_error)?.map_err(|e| e.to_string())?;
                    sum = sum.wrapping_add(n);
                }
                Ok::<u64, String>(sum)
            });
            driver.await.map_err(join_error)?
        })
    }
}

impl Primitive for TokioSpawn {
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
