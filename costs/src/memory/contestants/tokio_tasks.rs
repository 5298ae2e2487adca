//! `stream-tokio-task[-current-thread]`: a tokio task per unit, owning its payload and awaiting its own oneshot.

use std::sync::atomic::Ordering;

use tokio::runtime::Runtime;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use super::{fold_unit, reset_started, runtime, until_started, Held, HoldError, Holding, STARTED};
use crate::payload::Payload;
use crate::work::{Injected, Work};

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
struct HeldTasks<'a, E> {
    runtime: &'a Runtime,
    wake: Vec<oneshot::Sender<()>>,
    tasks: Vec<JoinHandle<Result<u64, E>>>,
}

impl Holding for TokioTasks {
    fn hold_with<W: Work>(&self, count: u64, bytes: usize, work: W) -> Result<Box<dyn Held + '_>, HoldError> {
        reset_started();
        let n = usize::try_from(count).unwrap_or(usize::MAX);
        let mut held = HeldTasks { runtime: &self.runtime, wake: Vec::with_capacity(n), tasks: Vec::with_capacity(n) };
        for unit in 0..count {
            let guard = work.start(unit);
            if work.cancelled() {
                drop(guard);
                return Err(held.end(unit));
            }
            let (tx, rx) = oneshot::channel::<()>();
            let payload = Payload::new(unit, bytes);
            let work = work.clone();
            held.tasks.push(self.runtime.spawn(async move {
                let _guard = guard;
                STARTED.fetch_add(1, Ordering::SeqCst);
                let _ = rx.await;
                work.finish(unit, payload.checksum())
            }));
            held.wake.push(tx);
        }
        if !self.runtime.block_on(until_started(count, || work.cancelled())) {
            return Err(held.end(count));
        }
        Ok(Box::new(held))
    }

    fn alive_tasks(&self) -> Option<usize> {
        Some(self.runtime.metrics().num_alive_tasks())
    }
}

impl<E> HeldTasks<'_, E> {
    /// The caller cancelled after `made` units: dropping them wakes every task and waits for each to end.
    fn end(self, made: u64) -> HoldError {
        drop(self);
        HoldError::Cancelled(made)
    }
}

/// Dropped without a release (the caller's cancel), every task is woken and driven to its end before the drop
/// returns: on a current-thread runtime nothing else would poll them, and each would keep its payload until
/// the next `block_on`.
impl<E> Drop for HeldTasks<'_, E> {
    fn drop(&mut self) {
        self.wake.clear();
        let tasks = std::mem::take(&mut self.tasks);
        if !tasks.is_empty() {
            self.runtime.block_on(async move {
                for task in tasks {
                    let _ = task.await;
                }
            });
        }
    }
}

impl<E: Into<Injected> + Send + 'static> Held for HeldTasks<'_, E> {
    fn release(mut self: Box<Self>) -> Result<u64, HoldError> {
        let (wake, tasks) = (std::mem::take(&mut self.wake), std::mem::take(&mut self.tasks));
        for tx in wake {
            // A task that is gone has panicked; its join below says so.
            let _ = tx.send(());
        }
        self.runtime.block_on(async move {
            let mut total = Ok(0u64);
            for task in tasks {
                let joined = task.await.map_err(|e| match e.try_into_panic() {
                    Ok(payload) => HoldError::panicked(&*payload),
                    Err(e) => HoldError::Broken(format!("a unit's task failed: {e}")),
                });
                fold_unit(&mut total, joined);
            }
            total
        })
    }
}
