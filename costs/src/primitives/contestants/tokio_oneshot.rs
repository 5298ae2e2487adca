//! `stream-tokio-oneshot`: make a `tokio::sync::oneshot`, send the number, await the receiver.

use std::hint::black_box;

use tokio::runtime::Runtime;
use tokio::sync::oneshot;

use super::{runtime, Primitive};

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

impl Primitive for Oneshot {
    fn run(&self, ops: u64) -> Result<u64, String> {
        self.runtime.block_on(async {
            let mut sum = 0u64;
            for i in 0..ops {
                let (tx, rx) = oneshot::channel();
                tx.send(black_box(i)).map_err(|_| format!("receiver {i} gone"))?;
                sum = sum.wrapping_add(rx.await.map_err(|e| e.to_string())?);
            }
            Ok(sum)
        })
    }
}
