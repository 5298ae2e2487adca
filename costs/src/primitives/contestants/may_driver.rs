//! The coroutine contestants (`coroutine-may-spawn-join`, `-semaphore`, `-oneshot`; see the registry's table), each a
//! loop in one driver coroutine ([`in_coroutine`]) on `may` configured once per trial.

use std::hint::black_box;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::Arc;

use may::sync::{mpsc, Semphore};
use pipelines::coroutine::{self, CoroutineConfig, DEFAULT_STACK_WORDS};
use pipelines::LiveStages;

use super::relay::{blocking_side, combine, Blocking, Hop, Turn};
use super::{OpError, Operation};
use crate::work::Work;

/// `may` configured once per trial, and the operation its driver coroutine runs.
#[derive(Debug)]
pub(crate) struct May {
    config: CoroutineConfig,
    op: MayOp,
}

/// Which operation, with what it needs besides `may`.
#[derive(Debug)]
pub(crate) enum MayOp {
    /// Spawn a coroutine and `join` it.
    SpawnJoin,
    /// One permit of a semaphore of one, made once per trial.
    Semaphore(Arc<Semphore>),
    /// A channel per value, relayed between two coroutines.
    Oneshot,
}

impl MayOp {
    /// The semaphore operation, with its semaphore of one permit.
    pub(crate) fn semaphore() -> MayOp {
        MayOp::Semaphore(Arc::new(Semphore::new(1)))
    }
}

impl May {
    /// `op` on `may` configured as `config` says.
    pub(crate) fn new(config: CoroutineConfig, op: MayOp) -> May {
        config.apply();
        May { config, op }
    }
}

/// One permit, given back when dropped: `may`'s `Semphore` has no guard of its own, and a bare `wait` … `post`
/// loses the permit when the work between them returns early or panics (the conformance's `op_error` caught it:
/// every later run then waited for ever).
struct Permit<'a>(&'a Semphore);

impl<'a> Permit<'a> {
    fn take(semaphore: &'a Semphore) -> Permit<'a> {
        semaphore.wait();
        Permit(semaphore)
    }
}

impl Drop for Permit<'_> {
    fn drop(&mut self) {
        self.0.post();
    }
}

impl Operation for May {
    fn run_with<W: Work>(&self, ops: u64, work: W) -> Result<u64, OpError> {
        let words = self.config.stack_words;
        match &self.op {
            MayOp::SpawnJoin => in_coroutine(words, move || {
                let live = Arc::new(LiveStages::new());
                let mut sum = 0u64;
                for i in 0..ops {
                    if work.cancelled() {
                        return Err(OpError::Cancelled(i));
                    }
                    let (guard, work) = (work.start(i), work.clone());
                    let child = coroutine::spawn("op", words, &live, move || {
                        let _guard = guard;
                        work.finish(i, black_box(i))
                    })
                    .map_err(OpError::CoroutineRefused)?;
                    // `join` inside a coroutine parks the coroutine, not its carrier.
                    let n =
                        child.join().map_err(|payload| OpError::panicked(format_args!("coroutine {i}"), &*payload))?;
                    sum = sum.wrapping_add(n.map_err(OpError::failed)?);
                }
                Ok(sum)
            }),
            MayOp::Semaphore(semaphore) => {
                let semaphore = Arc::clone(semaphore);
                in_coroutine(words, move || {
                    let mut sum = 0u64;
                    for i in 0..ops {
                        if work.cancelled() {
                            return Err(OpError::Cancelled(i));
                        }
                        let permit = Permit::take(black_box(&semaphore));
                        let guard = work.start(i);
                        sum = sum.wrapping_add(work.finish(i, black_box(i)).map_err(OpError::failed)?);
                        drop(guard);
                        drop(permit);
                    }
                    Ok(sum)
                })
            }
            MayOp::Oneshot => in_coroutine(words, move || {
                // `may` has no oneshot type: a channel made for one value is its one-shot hand-off, relayed
                // between the driver and one peer coroutine, each parked in `recv` in turn.
                let (first, wait) = Coroutines::channel();
                let live = Arc::new(LiveStages::new());
                let peer_work = work.clone();
                let peer = coroutine::spawn("peer", words, &live, move || {
                    blocking_side::<Coroutines, W>(Turn::Wait(wait), ops, &peer_work)
                })
                .map_err(OpError::CoroutineRefused)?;
                let mine =
                    catch_unwind(AssertUnwindSafe(|| blocking_side::<Coroutines, W>(Turn::Send(0, first), ops, &work)));
                let theirs =
                    peer.join().map_err(|payload| OpError::panicked("the peer coroutine", &*payload)).and_then(|r| r);
                match mine {
                    Ok(mine) => combine(mine, theirs),
                    Err(payload) => resume_unwind(payload),
                }
            }),
        }
    }
}

/// `may` coroutines with a `may::sync::mpsc` channel made per value: `may`'s one-shot hand-off.
pub(crate) struct Coroutines;

/// The sender of a `may` channel that carries a [`Hop`] (a type of its own, as a hop carries the next one).
pub(crate) struct MayTx(mpsc::Sender<Hop<MayTx>>);

impl Blocking for Coroutines {
    type Tx = MayTx;
    type Rx = mpsc::Receiver<Hop<MayTx>>;

    fn channel() -> (MayTx, Self::Rx) {
        let (tx, rx) = mpsc::channel();
        (MayTx(tx), rx)
    }

    fn send(to: MayTx, hop: Hop<MayTx>) -> bool {
        to.0.send(hop).is_ok()
    }

    /// Parks the coroutine, not its carrier.
    fn recv(wait: Self::Rx) -> Option<Hop<MayTx>> {
        wait.recv().ok()
    }
}

/// Run `body` in one driver coroutine with a stack of `stack_words` words and wait for it on the calling thread
/// (not a carrier, so it may block).
fn in_coroutine(
    stack_words: usize,
    body: impl FnOnce() -> Result<u64, OpError> + Send + 'static,
) -> Result<u64, OpError> {
    let live = Arc::new(LiveStages::new());
    let driver =
        coroutine::spawn("driver", stack_words.max(DEFAULT_STACK_WORDS), &live, body).map_err(OpError::Driver)?;
    driver.join().map_err(|payload| OpError::panicked("the driver coroutine", &*payload))?
}
