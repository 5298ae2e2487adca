//! `blocking-thread[-64k]`: an OS thread per unit, owning its payload and blocked in `recv` on its own channel.

use std::sync::atomic::Ordering;
use std::sync::mpsc::{sync_channel, SyncSender};
use std::thread::JoinHandle;
use std::time::Duration;

use measure::limits::ThreadLimits;

use super::{reset_started, started, Held, HoldError, Units, STARTED};
use crate::payload::Payload;

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

struct HeldThreads {
    wake: Vec<SyncSender<()>>,
    threads: Vec<JoinHandle<u64>>,
}

impl Units for Threads {
    fn hold(&self, count: u64, bytes: usize) -> Result<Box<dyn Held + '_>, HoldError> {
        if let Some(reason) = ThreadLimits::read().refuse(count, MARGIN) {
            return Err(HoldError::Refused(reason));
        }
        reset_started();
        let n = usize::try_from(count).unwrap_or(usize::MAX);
        let mut held = HeldThreads { wake: Vec::with_capacity(n), threads: Vec::with_capacity(n) };
        for unit in 0..count {
            let (tx, rx) = sync_channel::<()>(1);
            let payload = Payload::new(unit, bytes);
            let mut builder = std::thread::Builder::new();
            if let Some(stack) = self.stack {
                builder = builder.stack_size(stack);
            }
            let spawned = builder.spawn(move || {
                STARTED.fetch_add(1, Ordering::SeqCst);
                let _ = rx.recv();
                payload.checksum()
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
            std::thread::sleep(Duration::from_micros(200));
        }
        Ok(Box::new(held))
    }
}

impl Held for HeldThreads {
    fn release(self: Box<Self>) -> Result<u64, HoldError> {
        let HeldThreads { wake, threads } = *self;
        for tx in wake {
            let _ = tx.send(());
        }
        let mut total = 0u64;
        let mut panicked = 0;
        for thread in threads {
            match thread.join() {
                Ok(sum) => total = total.wrapping_add(sum),
                Err(_) => panicked += 1,
            }
        }
        if panicked > 0 {
            return Err(HoldError::Broken(format!("{panicked} unit threads panicked")));
        }
        Ok(total)
    }
}
