//! The stream contestants (`stream-tokio-spawn-join`, `-semaphore`, `-oneshot`; see the registry's table), each an
//! operation on a tokio runtime built once per trial.

use std::hint::black_box;

use tokio::runtime::{Builder, Runtime};
use tokio::sync::{oneshot, Semaphore};

use super::{OpError, Operation};
use crate::work::Work;

/// A runtime built once per trial and the operation run on it.
#[derive(Debug)]
pub(crate) struct Tokio {
    runtime: Runtime,
    op: TokioOp,
}

/// Which operation, with what it needs besides the runtime.
#[derive(Debug)]
pub(crate) enum TokioOp {
    /// `tokio::spawn` and await the `JoinHandle`.
    SpawnJoin,
    /// One permit of a semaphore of one, made once per trial.
    Semaphore(Semaphore),
    /// A oneshot per value.
    Oneshot,
}

impl TokioOp {
    /// The semaphore operation, with its semaphore of one permit.
    pub(crate) fn semaphore() -> TokioOp {
        TokioOp::Semaphore(Semaphore::new(1))
    }
}

impl Tokio {
    /// `op` on the runtime `builder` builds, or why it could not be built.
    pub(crate) fn new(mut builder: Builder, op: TokioOp) -> Result<Tokio, OpError> {
        Ok(Tokio { runtime: builder.build().map_err(OpError::Runtime)?, op })
    }
}

impl Operation for Tokio {
    fn run_with<W: Work>(&self, ops: u64, work: W) -> Result<u64, OpError> {
        match &self.op {
            TokioOp::SpawnJoin => spawn_join(&self.runtime, ops, work),
            TokioOp::Semaphore(semaphore) => self.runtime.block_on(async {
                let mut sum = 0u64;
                for i in 0..ops {
                    if work.cancelled() {
                        return Err(OpError::Cancelled(i));
                    }
                    let permit = black_box(semaphore).acquire().await.map_err(OpError::closed)?;
                    let guard = work.start(i);
                    sum = sum.wrapping_add(work.finish(i, black_box(i)).map_err(OpError::failed)?);
                    drop(guard);
                    drop(permit);
                }
                Ok(sum)
            }),
            TokioOp::Oneshot => self.runtime.block_on(async {
                let mut sum = 0u64;
                for i in 0..ops {
                    if work.cancelled() {
                        return Err(OpError::Cancelled(i));
                    }
                    let (tx, rx) = oneshot::channel();
                    let guard = work.start(i);
                    tx.send(work.finish(i, black_box(i)).map_err(OpError::failed)?)
                        .map_err(|_| OpError::ReceiverGone(i))?;
                    drop(guard);
                    sum = sum.wrapping_add(rx.await.map_err(OpError::closed)?);
                }
                Ok(sum)
            }),
        }
    }

    fn alive_tasks(&self) -> Option<usize> {
        Some(self.runtime.metrics().num_alive_tasks())
    }
}

/// Spawn + join `ops` tasks, from a task.
fn spawn_join<W: Work>(runtime: &Runtime, ops: u64, work: W) -> Result<u64, OpError> {
    runtime.block_on(async move {
        // Spawned from a task, as an application would, not from the thread that drives `block_on`.
        let driver = tokio::spawn(async move {
            let mut sum = 0u64;
            for i in 0..ops {
                if work.cancelled() {
                    return Err(OpError::Cancelled(i));
                }
                let (guard, work) = (work.start(i), work.clone());
                let op = tokio::spawn(async move {
                    let _guard = guard;
                    work.finish(i, black_box(i))
                });
                let n = op.await.map_err(OpError::join)?.map_err(OpError::failed)?;
                sum = sum.wrapping_add(n);
            }
            Ok::<u64, OpError>(sum)
        });
        driver.await.map_err(OpError::join)?
    })
}
