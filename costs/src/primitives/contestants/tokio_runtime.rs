//! The stream contestants (`stream-tokio-spawn-join`, `-semaphore`, `-oneshot`; see the registry's table), each an
//! operation on a tokio runtime built once per trial.

use std::hint::black_box;
use std::panic::AssertUnwindSafe;

use futures::FutureExt;
use tokio::runtime::{Builder, Runtime};
use tokio::sync::{oneshot, Semaphore};

use super::relay::{combine, send_turn, Hop, Turn};
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
    /// A oneshot per value, relayed between two tasks.
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
            TokioOp::Oneshot => oneshot_relay(&self.runtime, ops, work),
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

/// The sender of a oneshot that carries a [`Hop`] (a type of its own, as a hop carries the next one).
struct OneshotTx(oneshot::Sender<Hop<OneshotTx>>);

/// One side of the relay ([`super::relay`]), a task, from `turn` until `ops` operations are done: the sum of the
/// values it received.
async fn side<W: Work>(
    mut turn: Turn<OneshotTx, oneshot::Receiver<Hop<OneshotTx>>>,
    ops: u64,
    work: W,
) -> Result<u64, OpError> {
    let mut sum = 0u64;
    loop {
        turn = match turn {
            Turn::Send(n, _) if n >= ops => return Ok(sum),
            Turn::Send(n, to) => {
                let channel = || {
                    let (tx, rx) = oneshot::channel();
                    (OneshotTx(tx), rx)
                };
                Turn::Wait(send_turn(n, &work, channel, |hop| to.0.send(hop).is_ok())?)
            }
            Turn::Wait(wait) => match wait.await {
                Ok(hop) => {
                    sum = sum.wrapping_add(hop.value);
                    Turn::Send(hop.n + 1, hop.next)
                }
                Err(_) => return Ok(sum),
            },
        };
    }
}

/// The relay between a driver task and one peer task on the multi-thread runtime, a `oneshot` made per value; the
/// driver awaits the peer before it returns, whatever happens, so no task outlives the run.
fn oneshot_relay<W: Work>(runtime: &Runtime, ops: u64, work: W) -> Result<u64, OpError> {
    runtime.block_on(async move {
        let driver = tokio::spawn(async move {
            let (first, wait) = oneshot::channel();
            let peer = tokio::spawn(side(Turn::Wait(wait), ops, work.clone()));
            let mine = AssertUnwindSafe(side(Turn::Send(0, OneshotTx(first)), ops, work)).catch_unwind().await;
            let theirs = peer.await.map_err(OpError::join).and_then(|r| r);
            match mine {
                Ok(mine) => combine(mine, theirs),
                Err(payload) => std::panic::resume_unwind(payload),
            }
        });
        driver.await.map_err(OpError::join)?
    })
}
