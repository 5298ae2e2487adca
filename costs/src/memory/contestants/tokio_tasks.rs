//! `stream-tokio-task[-current-thread]`: a tokio task per unit, owning its payload and awaiting its own oneshot.

use std::sync::atomic::Ordering;

use tokio::runtime::Runtime;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use super::{reset_started, runtime, until_started, Held, HoldError, Units, STARTED};
use crate::payload::Payload;

/// Tasks on a runtime built once per trial.
#[derive(Debug)]
pub(crate) struct TokioTasks {
    runtime: Runtime,
}

impl TokioTasks {
    /// On a current-thread runtime, or a multi-thread one.
    pub(crate) fn new(current_thread: bool) -> Result<TokioTasks, HoldError> {
        Ok(TokioTasks { runtime: runtime(current_thread)? })
    }
}

/// The waiting tasks: each one's wake-up and its join handle.
struct HeldTasks<'a> {
    runtime: &'a Runtime,
    wake: Vec<oneshot::Sender<()>>,
    tasks: Vec<JoinHandle<u64>>,
}

impl Units for TokioTasks {
    fn hold(&self, count: u64, bytes: usize) -> Result<Box<dyn Held + '_>, HoldError> {
        reset_started();
        let n = usize::try_from(count).unwrap_or(usize::MAX);
        let (mut wake, mut tasks) = (Vec::with_capacity(n), Vec::with_capacity(n));
        for unit in 0..count {
            let (tx, rx) = oneshot::channel::<()>();
            let payload = Payload::new(unit, bytes);
            tasks.push(self.runtime.spawn(async move {
                STARTED.fetch_add(1, Ordering::SeqCst);
                let _ = rx.await;
                payload.checksum()
            }));
            wake.push(tx);
        }
        self.runtime.block_on(until_started(count));
        Ok(Box::new(HeldTasks { runtime: &self.runtime, wake, tasks }))
    }
}

impl Held for HeldTasks<'_> {
    fn release(self: Box<Self>) -> Result<u64, HoldError> {
        let HeldTasks { runtime, wake, tasks } = *self;
        for tx in wake {
            // A task that is gone has panicked; its join below says so.
            let _ = tx.send(());
        }
        runtime.block_on(async move {
            let mut total = 0u64;
            for task in tasks {
                let sum = task.await.map_err(|e| HoldError::Broken(format!("a unit's task failed: {e}")))?;
                total = total.wrapping_add(sum);
            }
            Ok(total)
        })
    }
}
