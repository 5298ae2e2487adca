//! `stream-futures-unordered`: a future per unit, all in one `FuturesUnordered` polled by one tokio task.

use std::sync::atomic::Ordering;

use futures::stream::{FuturesUnordered, StreamExt};
use tokio::runtime::Runtime;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use super::{reset_started, runtime, until_started, Held, HoldError, Holding, STARTED};
use crate::payload::Payload;
use crate::work::{Injected, Work};

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

struct HeldSet<'a, E> {
    runtime: &'a Runtime,
    wake: Vec<oneshot::Sender<()>>,
    driver: JoinHandle<Result<u64, E>>,
}

impl Holding for Unordered {
    fn hold_with<W: Work>(&self, count: u64, bytes: usize, work: W) -> Result<Box<dyn Held + '_>, HoldError> {
        reset_started();
        let n = usize::try_from(count).unwrap_or(usize::MAX);
        let mut wake = Vec::with_capacity(n);
        let set = FuturesUnordered::new();
        for unit in 0..count {
            let guard = work.start(unit);
            if work.cancelled() {
                // No future has been polled: dropping them ends them.
                return Err(HoldError::Cancelled(unit));
            }
            let (tx, rx) = oneshot::channel::<()>();
            wake.push(tx);
            let payload = Payload::new(unit, bytes);
            let work = work.clone();
            set.push(async move {
                let _guard = guard;
                STARTED.fetch_add(1, Ordering::SeqCst);
                let _ = rx.await;
                work.finish(unit, payload.checksum())
            });
        }
        let driver = self.runtime.spawn(async move {
            let mut set = set;
            let mut total = 0u64;
            // The first error ends the driver; the futures still in the set are dropped with it.
            while let Some(sum) = set.next().await {
                total = total.wrapping_add(sum?);
            }
            Ok::<u64, W::Error>(total)
        });
        let held = HeldSet { runtime: &self.runtime, wake, driver };
        if !self.runtime.block_on(until_started(count, || work.cancelled())) {
            let HeldSet { runtime, wake, driver } = held;
            drop(wake);
            let _ = runtime.block_on(driver);
            return Err(HoldError::Cancelled(count));
        }
        Ok(Box::new(held))
    }

    fn alive_tasks(&self) -> Option<usize> {
        Some(self.runtime.metrics().num_alive_tasks())
    }
}

impl<E: Into<Injected> + Send + 'static> Held for HeldSet<'_, E> {
    fn release(self: Box<Self>) -> Result<u64, HoldError> {
        let HeldSet { runtime, wake, driver } = *self;
        for tx in wake {
            let _ = tx.send(());
        }
        match runtime.block_on(driver) {
            Ok(Ok(total)) => Ok(total),
            Ok(Err(e)) => Err(HoldError::failed(e)),
            Err(e) => match e.try_into_panic() {
                Ok(payload) => Err(HoldError::panicked(&*payload)),
                Err(e) => Err(HoldError::Broken(format!("the driving task failed: {e}"))),
            },
        }
    }
}
