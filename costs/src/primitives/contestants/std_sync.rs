//! The blocking contestants that need std alone (`blocking-thread-spawn-join`, `blocking-std-mutex`,
//! `blocking-std-channel`; see the registry's table), run on the trial's thread (the channel's relay with one peer
//! thread).

use std::hint::black_box;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::sync::{Mutex, PoisonError};

use super::relay::{blocking_side, combine, Blocking, Hop, Turn};
use super::{OpError, Operation};
use crate::work::Work;

/// Which operation, with what it needs (only the mutex is made once per trial; a channel is made per value).
#[derive(Debug)]
pub(crate) enum Std {
    /// Spawn a thread and `join` it.
    ThreadSpawn,
    /// Lock the mutex, add the number, unlock.
    Mutex(Mutex<u64>),
    /// One value through a `sync_channel(1)` made for it, to a peer thread parked in `recv`.
    Channel,
}

impl Operation for Std {
    fn run_with<W: Work>(&self, ops: u64, work: W) -> Result<u64, OpError> {
        match self {
            Std::ThreadSpawn => thread_spawn(ops, work),
            Std::Mutex(total) => mutex(total, ops, work),
            Std::Channel => channel(ops, work),
        }
    }
}

fn thread_spawn<W: Work>(ops: u64, work: W) -> Result<u64, OpError> {
    let mut sum = 0u64;
    for i in 0..ops {
        if work.cancelled() {
            return Err(OpError::Cancelled(i));
        }
        let (guard, work) = (work.start(i), work.clone());
        let thread = std::thread::Builder::new()
            .spawn(move || {
                let _guard = guard;
                work.finish(i, black_box(i))
            })
            .map_err(|e| OpError::ThreadRefused(i, e))?;
        let n = thread.join().map_err(|payload| OpError::panicked(format_args!("thread {i}"), &*payload))?;
        sum = sum.wrapping_add(n.map_err(OpError::failed)?);
    }
    Ok(sum)
}

fn mutex<W: Work>(total: &Mutex<u64>, ops: u64, work: W) -> Result<u64, OpError> {
    *total.lock().unwrap_or_else(PoisonError::into_inner) = 0;
    for i in 0..ops {
        if work.cancelled() {
            return Err(OpError::Cancelled(i));
        }
        let mut total = black_box(total).lock().unwrap_or_else(PoisonError::into_inner);
        let guard = work.start(i);
        *total = total.wrapping_add(work.finish(i, black_box(i)).map_err(OpError::failed)?);
        drop(guard);
    }
    Ok(*total.lock().unwrap_or_else(PoisonError::into_inner))
}

/// OS threads with a `std::sync::mpsc::sync_channel(1)` made per value: std's one-shot hand-off.
pub(crate) struct Threads;

/// The sender of a `sync_channel(1)` that carries a [`Hop`] (a type of its own, as a hop carries the next one).
pub(crate) struct StdTx(SyncSender<Hop<StdTx>>);

impl Blocking for Threads {
    type Tx = StdTx;
    type Rx = Receiver<Hop<StdTx>>;

    fn channel() -> (StdTx, Self::Rx) {
        let (tx, rx) = sync_channel(1);
        (StdTx(tx), rx)
    }

    fn send(to: StdTx, hop: Hop<StdTx>) -> bool {
        to.0.send(hop).is_ok()
    }

    fn recv(wait: Self::Rx) -> Option<Hop<StdTx>> {
        wait.recv().ok()
    }
}

/// The relay between the trial's thread and one peer thread (scoped: joined before the run returns, whatever
/// happens), a `sync_channel(1)` made per value ([`super::relay`]).
fn channel<W: Work>(ops: u64, work: W) -> Result<u64, OpError> {
    let (first, wait) = Threads::channel();
    std::thread::scope(|scope| {
        let peer_work = work.clone();
        let peer = std::thread::Builder::new()
            .spawn_scoped(scope, move || blocking_side::<Threads, W>(Turn::Wait(wait), ops, &peer_work))
            .map_err(|e| OpError::ThreadRefused(0, e))?;
        let mine = catch_unwind(AssertUnwindSafe(|| blocking_side::<Threads, W>(Turn::Send(0, first), ops, &work)));
        let theirs = peer.join().map_err(|payload| OpError::panicked("the peer thread", &*payload)).and_then(|r| r);
        match mine {
            Ok(mine) => combine(mine, theirs),
            Err(payload) => resume_unwind(payload),
        }
    })
}
