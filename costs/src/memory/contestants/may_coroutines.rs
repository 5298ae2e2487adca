//! `coroutine-may[-8k]`: a `may` 0.3 stackful coroutine per unit (one carrier thread per CPU; `may`'s default 32 KiB stack, or 8 KiB), owning its payload and parked in `recv` on its own `may::sync::mpsc` channel.

use std::fmt;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use may::coroutine::JoinHandle;
use may::sync::mpsc::{channel, Sender};
use pipelines::coroutine::{self, CoroutineConfig};
use pipelines::LiveStages;

use super::{fold_unit, reset_started, started, Held, HoldError, Units, STARTED};
use crate::payload::Payload;
use crate::work::{Checked, Plain, Work};

/// Memory maps left for everything else when checking `vm.max_map_count`.
const MAP_MARGIN: u64 = 2_048;

/// Coroutines with `config`'s stack on its carriers.
#[derive(Debug)]
pub(crate) struct Coroutines {
    config: CoroutineConfig,
}

impl Coroutines {
    pub(crate) fn new(config: CoroutineConfig) -> Coroutines {
        config.apply();
        Coroutines { config }
    }
}

struct HeldCoroutines<E> {
    wake: Vec<Sender<()>>,
    coroutines: Vec<JoinHandle<Result<u64, E>>>,
}

impl Coroutines {
    fn hold_with<W: Work>(&self, count: u64, bytes: usize, work: W) -> Result<Box<dyn Held + '_>, HoldError> {
        if let Some(reason) = coroutine::map_limit_refusal(count, MAP_MARGIN) {
            return Err(HoldError::Refused(reason));
        }
        reset_started();
        let n = usize::try_from(count).unwrap_or(usize::MAX);
        let live = Arc::new(LiveStages::new());
        let mut held = HeldCoroutines { wake: Vec::with_capacity(n), coroutines: Vec::with_capacity(n) };
        for unit in 0..count {
            let guard = work.start(unit);
            if work.cancelled() {
                drop(guard);
                return Err(held.end(unit));
            }
            let (tx, rx) = channel::<()>();
            let payload = Payload::new(unit, bytes);
            let work = work.clone();
            let spawned = coroutine::spawn("unit", self.config.stack_words, &live, move || {
                let _guard = guard;
                STARTED.fetch_add(1, Ordering::SeqCst);
                let _ = rx.recv();
                work.finish(unit, payload.checksum())
            });
            match spawned {
                Ok(co) => {
                    held.wake.push(tx);
                    held.coroutines.push(co);
                }
                Err(e) => {
                    let _ = Box::new(held).release();
                    return Err(HoldError::Refused(format!("may refused coroutine {} of {count}: {e}", unit + 1)));
                }
            }
        }
        // The calling thread is not a carrier: it may sleep while the coroutines reach their wait.
        while started() < count {
            if work.cancelled() {
                return Err(held.end(count));
            }
            std::thread::sleep(Duration::from_micros(200));
        }
        Ok(Box::new(held))
    }
}

impl<E> HeldCoroutines<E> {
    /// The caller cancelled after `made` units: wake and join every coroutine, hand nothing back.
    fn end(self, made: u64) -> HoldError {
        drop(self.wake);
        for co in self.coroutines {
            let _ = co.join();
        }
        HoldError::Cancelled(made)
    }
}

impl Units for Coroutines {
    fn hold(&self, count: u64, bytes: usize) -> Result<Box<dyn Held + '_>, HoldError> {
        self.hold_with(count, bytes, Plain)
    }

    fn hold_checked(&self, count: u64, bytes: usize, work: &Checked) -> Result<Box<dyn Held + '_>, HoldError> {
        self.hold_with(count, bytes, work.clone())
    }
}

impl<E: fmt::Display> Held for HeldCoroutines<E> {
    fn release(self: Box<Self>) -> Result<u64, HoldError> {
        let HeldCoroutines { wake, coroutines } = *self;
        for tx in wake {
            let _ = tx.send(());
        }
        let mut total = Ok(0u64);
        for co in coroutines {
            fold_unit(&mut total, co.join().map_err(|payload| HoldError::panicked(&*payload)));
        }
        total
    }
}
