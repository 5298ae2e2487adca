//! `coroutine-may[-8k]`: a `may` 0.3 stackful coroutine per unit (2 carrier threads; `may`'s default 32 KiB stack, or 8 KiB), owning its payload and parked in `recv` on its own `may::sync::mpsc` channel.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use may::coroutine::JoinHandle;
use may::sync::mpsc::{channel, Sender};
use pipelines::coroutine::{self, CoroutineConfig};
use pipelines::LiveStages;

use super::{reset_started, started, Held, HoldError, Units, STARTED};
use crate::payload::Payload;

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

struct HeldCoroutines {
    wake: Vec<Sender<()>>,
    coroutines: Vec<JoinHandle<u64>>,
}

impl Units for Coroutines {
    fn hold(&self, count: u64, bytes: usize) -> Result<Box<dyn Held + '_>, HoldError> {
        if let Some(reason) = coroutine::map_limit_refusal(count, MAP_MARGIN) {
            return Err(HoldError::Refused(reason));
        }
        reset_started();
        let n = usize::try_from(count).unwrap_or(usize::MAX);
        let live = Arc::new(LiveStages::new());
        let mut held = HeldCoroutines { wake: Vec::with_capacity(n), coroutines: Vec::with_capacity(n) };
        for unit in 0..count {
            let (tx, rx) = channel::<()>();
            let payload = Payload::new(unit, bytes);
            let spawned = coroutine::spawn("unit", self.config.stack_words, &live, move || {
                STARTED.fetch_add(1, Ordering::SeqCst);
                let _ = rx.recv();
                payload.checksum()
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
            std::thread::sleep(Duration::from_micros(200));
        }
        Ok(Box::new(held))
    }
}

impl Held for HeldCoroutines {
    fn release(self: Box<Self>) -> Result<u64, HoldError> {
        let HeldCoroutines { wake, coroutines } = *self;
        for tx in wake {
            let _ = tx.send(());
        }
        let mut total = 0u64;
        let mut panicked = 0;
        for co in coroutines {
            match co.join() {
                Ok(sum) => total = total.wrapping_add(sum),
                Err(_) => panicked += 1,
            }
        }
        if panicked > 0 {
            return Err(HoldError::Broken(format!("{panicked} unit coroutines panicked")));
        }
        Ok(total)
    }
}
