//! `blocking-thread[-64k]`: an OS thread per unit, owning its payload and blocked in `recv` on its own channel.

use std::fmt;
use std::sync::atomic::Ordering;
use std::sync::mpsc::{sync_channel, SyncSender};
use std::thread::JoinHandle;
use std::time::Duration;

use measure::limits::ThreadLimits;

use super::{fold_unit, reset_started, started, Held, HoldError, Units, STARTED};
use crate::payload::Payload;
use crate::work::{Checked, Plain, Work};

/// Threads left for everything else when checking the OS's limits.
const MARGIN: u64 = 64;

/// Threads of `stack` bytes (`None`: Rust's default).
#[derive(Debug)]
pub(crate) struct Threads {
    stack: Option<usize>,
}

impl Threads {
    pub(crate) fn new(stack: Option<usize>) -> Threads {
        Threads { stack }
    }
}

struct HeldThreads<E> {
    wake: Vec<SyncSender<()>>,
    threads: Vec<JoinHandle<Result<u64, E>>>,
}

impl Threads {
    fn hold_with<W: Work>(&self, count: u64, bytes: usize, work: W) -> Result<Box<dyn Held + '_>, HoldError> {
        if let Some(reason) = ThreadLimits::read().refuse(count, MARGIN) {
            return Err(HoldError::Refused(reason));
        }
        reset_started();
        let n = usize::try_from(count).unwrap_or(usize::MAX);
        let mut held = HeldThreads { wake: Vec::with_capacity(n), threads: Vec::with_capacity(n) };
        for unit in 0..count {
            let guard = work.start(unit);
            if work.cancelled() {
                drop(guard);
                return Err(held.end(unit));
            }
            let (tx, rx) = sync_channel::<()>(1);
            let payload = Payload::new(unit, bytes);
            let mut builder = std::thread::Builder::new();
            if let Some(stack) = self.stack {
                builder = builder.stack_size(stack);
            }
            let work = work.clone();
            let spawned = builder.spawn(move || {
                let _guard = guard;
                STARTED.fetch_add(1, Ordering::SeqCst);
                let _ = rx.recv();
                work.finish(unit, payload.checksum())
            });
            match spawned {
                Ok(thread) => {
                    held.wake.push(tx);
                    held.threads.push(thread);
                }
                Err(e) => {
                    // Release the ones that started; their sums are not needed.
                    let _ = Box::new(held).release();
                    return Err(HoldError::Refused(format!("the OS refused thread {} of {count}: {e}", unit + 1)));
                }
            }
        }
        while started() < count {
            if work.cancelled() {
                return Err(held.end(count));
            }
            std::thread::sleep(Duration::from_micros(200));
        }
        Ok(Box::new(held))
    }
}

impl<E> HeldThreads<E> {
    /// The caller cancelled after `made` units: wake and join every thread, hand nothing back.
    fn end(self, made: u64) -> HoldError {
        drop(self.wake);
        for thread in self.threads {
            let _ = thread.join();
        }
        HoldError::Cancelled(made)
    }
}

impl Units for Threads {
    fn hold(&self, count: u64, bytes: usize) -> Result<Box<dyn Held + '_>, HoldError> {
        self.hold_with(count, bytes, Plain)
    }

    fn hold_checked(&self, count: u64, bytes: usize, work: &Checked) -> Result<Box<dyn Held + '_>, HoldError> {
        self.hold_with(count, bytes, work.clone())
    }
}

impl<E: fmt::Display> Held for HeldThreads<E> {
    fn release(self: Box<Self>) -> Result<u64, HoldError> {
        let HeldThreads { wake, threads } = *self;
        for tx in wake {
            let _ = tx.send(());
        }
        let mut total = Ok(0u64);
        for thread in threads {
            fold_unit(&mut total, thread.join().map_err(|payload| HoldError::panicked(&*payload)));
        }
        total
    }
}
