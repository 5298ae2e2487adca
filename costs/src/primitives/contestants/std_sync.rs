//! The blocking contestants that need std alone (`blocking-thread-spawn-join`, `blocking-std-mutex`,
//! `blocking-std-channel`; see the registry's table), run on the trial's thread.

use std::hint::black_box;
use std::sync::mpsc::sync_channel;
use std::sync::{Mutex, PoisonError};

use super::{OpError, Operation};
use crate::work::Work;

/// Which operation, with what it needs (only the mutex is made once per trial; the channel is made once per
/// run).
#[derive(Debug)]
pub(crate) enum Std {
    /// Spawn a thread and `join` it.
    ThreadSpawn,
    /// Lock the mutex, add the number, unlock.
    Mutex(Mutex<u64>),
    /// Send into a `sync_channel(1)` and `recv`.
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

fn channel<W: Work>(ops: u64, work: W) -> Result<u64, OpError> {
    let (tx, rx) = sync_channel::<u64>(1);
    let mut sum = 0u64;
    for i in 0..ops {
        if work.cancelled() {
            return Err(OpError::Cancelled(i));
        }
        let guard = work.start(i);
        tx.send(work.finish(i, black_box(i)).map_err(OpError::failed)?).map_err(OpError::closed)?;
        drop(guard);
        sum = sum.wrapping_add(rx.recv().map_err(OpError::closed)?);
    }
    Ok(sum)
}
