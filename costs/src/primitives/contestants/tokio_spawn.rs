//! `stream-tokio-spawn-join`: `tokio::spawn` a task that returns its number, then await its `JoinHandle`.

use std::hint::black_box;

use tokio::runtime::Runtime;

use super::{runtime, Primitive};

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

impl Primitive for TokioSpawn {
    fn run(&self, ops: u64) -> Result<u64, String> {
        self.runtime.block_on(async move {
            // Spawned from a task, as an application would, not from the thread that drives `block_on`.
            let driver = tokio::spawn(async move {
                let mut sum = 0u64;
                for i in 0..ops {
                    let n = tokio::spawn(async move { black_box(i) }).await.map_err(|e| e.to_string())?;
                    sum = sum.wrapping_add(n);
                }
                Ok::<u64, String>(sum)
            });
            driver.await.map_err(|e| e.to_string())?
        })
    }
}
