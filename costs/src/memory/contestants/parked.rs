//! Units that each run on their own OS thread (`blocking-thread[-64k]`) or `may` coroutine (`coroutine-may[-8k]`),
//! parked in `recv` on their own channel. [`Parker`] starts one unit the way its style does; the creator's loop,
//! the wait until all are parked, the cancel and the release are written once, in [`Holding`] for every parker.

use std::fmt;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use measure::limits::ThreadLimits;
use pipelines::coroutine::{self, CoroutineConfig};
use pipelines::LiveStages;

use super::{fold_unit, reset_started, started, Held, HoldError, Holding, STARTED};
use crate::payload::Payload;
use crate::work::{Injected, Work};

/// Threads left for everything else when checking the OS's limits.
const MARGIN: u64 = 64;

/// Memory maps left for everything else when checking `vm.max_map_count`.
const MAP_MARGIN: u64 = 2_048;

/// How one parked unit is started, woken and joined.
pub(crate) trait Parker: Send + fmt::Debug {
    /// What wakes one unit (its channel's sender).
    type Wake;
    /// What one unit waits on (its channel's receiver).
    type Wait: Send + 'static;
    /// One unit's join handle, whose unit hands back `T`.
    type Handle<T>;
    /// What one hold's units share (the live count of `may`'s spawns).
    type Scope;
    /// What one hold's units share, made before the first.
    fn scope() -> Self::Scope;
    /// Why `count` units cannot be held, if the OS's limits say so.
    fn refusal(&self, count: u64) -> Option<String>;
    /// One unit's channel.
    fn channel() -> (Self::Wake, Self::Wait);
    /// Wait until woken (or until the wake-up is dropped).
    fn wait(wait: &Self::Wait);
    /// Start unit `unit` of `count` running `body`, or say why it was refused.
    fn spawn<T: Send + 'static>(
        &self,
        scope: &Self::Scope,
        unit: u64,
        count: u64,
        body: impl FnOnce() -> T + Send + 'static,
    ) -> Result<Self::Handle<T>, HoldError>;
    /// Wake one unit (a unit that is gone has panicked; its join says so).
    fn wake(wake: Self::Wake);
    /// Wait for one unit to end: what it handed back, or its panic's payload.
    fn join<T>(handle: Self::Handle<T>) -> std::thread::Result<T>;
}

/// Threads of `stack` bytes (`None`: Rust's default).
#[derive(Debug)]
pub(crate) struct Threads {
    /// The stack size asked for.
    pub(crate) stack: Option<usize>,
}

impl Parker for Threads {
    type Wake = std::sync::mpsc::SyncSender<()>;
    type Wait = std::sync::mpsc::Receiver<()>;
    type Handle<T> = std::thread::JoinHandle<T>;
    type Scope = ();

    fn scope() {}

    fn refusal(&self, count: u64) -> Option<String> {
        ThreadLimits::read().refuse(count, MARGIN)
    }

    fn channel() -> (Self::Wake, Self::Wait) {
        std::sync::mpsc::sync_channel::<()>(1)
    }

    #[inline(always)]
    fn wait(wait: &Self::Wait) {
        let _ = wait.recv();
    }

    fn spawn<T: Send + 'static>(
        &self,
        _: &(),
        unit: u64,
        count: u64,
        body: impl FnOnce() -> T + Send + 'static,
    ) -> Result<Self::Handle<T>, HoldError> {
        let mut builder = std::thread::Builder::new();
        if let Some(stack) = self.stack {
            builder = builder.stack_size(stack);
        }
        builder
            .spawn(body)
            .map_err(|e| HoldError::Refused(format!("the OS refused thread {} of {count}: {e}", unit + 1)))
    }

    fn wake(wake: Self::Wake) {
        let _ = wake.send(());
    }

    fn join<T>(handle: Self::Handle<T>) -> std::thread::Result<T> {
        handle.join()
    }
}

/// Coroutines with `config`'s stack on its carriers.
#[derive(Debug)]
pub(crate) struct Coroutines {
    config: CoroutineConfig,
}

impl Coroutines {
    /// `may` configured as `config` says, once per trial.
    pub(crate) fn new(config: CoroutineConfig) -> Coroutines {
        config.apply();
        Coroutines { config }
    }
}

impl Parker for Coroutines {
    type Wake = may::sync::mpsc::Sender<()>;
    type Wait = may::sync::mpsc::Receiver<()>;
    type Handle<T> = may::coroutine::JoinHandle<T>;
    type Scope = Arc<LiveStages>;

    fn scope() -> Arc<LiveStages> {
        Arc::new(LiveStages::new())
    }

    fn refusal(&self, count: u64) -> Option<String> {
        coroutine::map_limit_refusal(count, MAP_MARGIN)
    }

    fn channel() -> (Self::Wake, Self::Wait) {
        may::sync::mpsc::channel::<()>()
    }

    #[inline(always)]
    fn wait(wait: &Self::Wait) {
        let _ = wait.recv();
    }

    fn spawn<T: Send + 'static>(
        &self,
        live: &Arc<LiveStages>,
        unit: u64,
        count: u64,
        body: impl FnOnce() -> T + Send + 'static,
    ) -> Result<Self::Handle<T>, HoldError> {
        coroutine::spawn("unit", self.config.stack_words, live, body)
            .map_err(|e| HoldError::Refused(format!("may refused coroutine {} of {count}: {e}", unit + 1)))
    }

    fn wake(wake: Self::Wake) {
        let _ = wake.send(());
    }

    fn join<T>(handle: Self::Handle<T>) -> std::thread::Result<T> {
        handle.join()
    }
}

/// The parked units: each one's wake-up and its handle.
struct HeldParked<P: Parker, E> {
    wake: Vec<P::Wake>,
    handles: Vec<P::Handle<Result<u64, E>>>,
}

impl<P: Parker> Holding for P {
    fn hold_with<W: Work>(&self, count: u64, bytes: usize, work: W) -> Result<Box<dyn Held + '_>, HoldError> {
        if let Some(reason) = self.refusal(count) {
            return Err(HoldError::Refused(reason));
        }
        reset_started();
        let n = usize::try_from(count).unwrap_or(usize::MAX);
        let scope = P::scope();
        let mut held = HeldParked::<P, W::Error> { wake: Vec::with_capacity(n), handles: Vec::with_capacity(n) };
        for unit in 0..count {
            let guard = work.start(unit);
            if work.cancelled() {
                drop(guard);
                return Err(held.end(unit));
            }
            let (tx, rx) = P::channel();
            let payload = Payload::new(unit, bytes);
            let work = work.clone();
            let spawned = self.spawn(&scope, unit, count, move || {
                let _guard = guard;
                STARTED.fetch_add(1, Ordering::SeqCst);
                P::wait(&rx);
                work.finish(unit, payload.checksum())
            });
            match spawned {
                Ok(handle) => {
                    held.wake.push(tx);
                    held.handles.push(handle);
                }
                Err(refused) => {
                    // Release the ones that started; their sums are not needed.
                    let _ = Box::new(held).release();
                    return Err(refused);
                }
            }
        }
        // The calling thread is not a carrier: it may sleep while the units reach their wait.
        while started() < count {
            if work.cancelled() {
                return Err(held.end(count));
            }
            std::thread::sleep(Duration::from_micros(200));
        }
        Ok(Box::new(held))
    }
}

impl<P: Parker, E> HeldParked<P, E> {
    /// The caller cancelled after `made` units: wake and join every unit, hand nothing back.
    fn end(self, made: u64) -> HoldError {
        drop(self.wake);
        for handle in self.handles {
            let _ = P::join(handle);
        }
        HoldError::Cancelled(made)
    }
}

impl<P: Parker, E: Into<Injected>> Held for HeldParked<P, E> {
    fn release(self: Box<Self>) -> Result<u64, HoldError> {
        let HeldParked { wake, handles } = *self;
        for tx in wake {
            P::wake(tx);
        }
        let mut total = Ok(0u64);
        for handle in handles {
            fold_unit(&mut total, P::join(handle).map_err(|payload| HoldError::panicked(&*payload)));
        }
        total
    }
}
