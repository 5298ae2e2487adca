//! `stream-futures-unordered`: a future per unit, all in one `FuturesUnordered` polled by one tokio task.

use std::sync::atomic::Ordering;

use futures::stream::{FuturesUnordered, StreamExt};
use tokio::runtime::Runtime;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use super::{reset_started, runtime, until_started, Held, HoldError, Units, STARTED};
use crate::payload::Payload;

/// One driving task on a multi-thread runtime built once per trial.
#[derive(Debug)]
pub(crate) struct Unordered {
    runtime: Runtime,
}

impl Unordered {
    pub(crate) fn new() -> Result<Unordered, HoldError> {
        Ok(Unordered { runtime: runtime(false)? })
    }
}

struct HeldSet<'a> {
    runtime: &'a Runtime,
    wake: Vec<oneshot::Sender<()>>,
    driver: JoinHandle<u64>,
}

impl Units for Unordered {
    fn hold(&self, count: u64, bytes: usize) -> Result<Box<dyn Held + '_>, HoldError> {
        reset_started();
        let n = usize::try_from(count).unwrap_or(usize::MAX);
        let mut wake = Vec::with_capacity(n);
        let set: FuturesUnordered<_> = (0..count)
            .map(|unit| {
                let (tx, rx) = oneshot::channel::<()>();
                wake.push(tx);
                let payload = Payload::new(unit, bytes);
                async move {
                    STARTED.fetch_add(1, Ordering::SeqCst);
                    let _ = rx.await;
                    payload.checksum()
                }
            })
            .collect();
        let driver = self.runtime.spawn(async move {
            let mut set = set;
            let mut total = 0u64;
            while let Some(sum) = set.next().await {
                total = total.wrapping_add(sum);
            }
            total
        });
        self.runtime.block_on(until_started(count));
        Ok(Box::new(HeldSet { runtime: &self.runtime, wake, driver }))
    }
}

impl Held for HeldSet<'_> {
    fn release(self: Box<Self>) -> Result<u64, HoldError> {
        let HeldSet { runtime, wake, driver } = *self;
        for tx in wake {
            let _ = tx.send(());
        }
        runtime.block_on(driver).map_err(|e| HoldError::Broken(format!("the driving task failed: {e}")))
    }
}
