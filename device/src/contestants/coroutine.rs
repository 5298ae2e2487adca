//! The coroutine family: `limit` stackful coroutines (`may` 0.3, an explicit carrier count, 32 KiB stacks), one per in-flight call, each taking the next item from a shared counter and making a blocking-style call that parks the coroutine, not its carrier: on the shared device ([`dependency::Completion::wait`], coroutine-aware) or on its own timer (`may::coroutine::sleep`).
//!
//! The coroutines are spawned before the clock starts, wait at a `may::sync::SyncFlag` (a coroutine parks on
//! it; the calling thread, not a carrier, waits for every coroutine to arrive on a `may::sync::WaitGroup`) and
//! are released at once by `go`. They stop taking new items at the deadline and finish the call they are in; the
//! calling thread joins every one before the run returns, so nothing is left running.
//!
//! **The map limit.** `may` gives each coroutine an `mmap`ed stack with a guard page: two memory maps per
//! coroutine alive, so `vm.max_map_count` (65,530 by default) bounds coroutines as it bounds threads (which take
//! four): past about 32,000 `may` cannot allocate a stack and panics. A run that would not fit is skipped with
//! that reason up front, never run smaller and never left to crash.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use may::sync::{SyncFlag, WaitGroup};
use pipelines::coroutine::{self, CoroutineConfig};
use pipelines::LiveStages;

use crate::call::Call;
use crate::job::{timed_calls, Job, JobMeter, RunError};

/// Maps left to the rest of the process (carriers, timer, allocator arenas) when sizing against the limit.
pub const MAP_MARGIN: u64 = 2_048;

/// Carrier threads of a coroutine contestant by default: one per CPU the trial may use (as tokio has one worker
/// per CPU); the device scenario also sweeps 1 and 2 explicitly.
pub fn default_carriers() -> usize {
    pipelines::coroutine::carriers_per_core()
}

/// Whether `coroutines` more `may` coroutines fit under `vm.max_map_count`; the limit as the reason if not.
pub(crate) fn coroutines_fit(coroutines: usize) -> Result<(), RunError> {
    match coroutine::map_limit_refusal(coroutines as u64, MAP_MARGIN) {
        None => Ok(()),
        Some(reason) => Err(RunError::Skipped(reason)),
    }
}

/// Run `job` with one coroutine per in-flight call on `config`'s carriers; `go` is called once every coroutine
/// is parked at the start flag, right before they are released.
pub(crate) fn run<M: JobMeter>(config: CoroutineConfig, job: &Job<M>, go: &mut dyn FnMut()) -> Result<(), RunError> {
    coroutines_fit(job.limit)?;
    config.apply();
    let job = Arc::new(job.clone());
    let next = Arc::new(AtomicU64::new(0));
    let start = Arc::new(SyncFlag::new());
    let arrived = WaitGroup::new();
    let live = Arc::new(LiveStages::new());
    let mut handles = Vec::with_capacity(job.limit);
    let mut spawn_error = None;
    for _ in 0..job.limit {
        let (job, next, start, arrived) = (Arc::clone(&job), Arc::clone(&next), Arc::clone(&start), arrived.clone());
        let spawned = coroutine::spawn("caller", config.stack_words, &live, move || {
            drop(arrived);
            start.wait();
            job.take_from(&next, Call::call_coroutine);
        });
        match spawned {
            Ok(handle) => handles.push(handle),
            Err(e) => {
                spawn_error = Some(e);
                break;
            }
        }
    }
    // Every coroutine spawned has dropped its clone once it is at the start flag.
    arrived.wait();
    if spawn_error.is_none() {
        go();
    } else {
        // Released at once, they find no items left and end.
        next.store(job.items, Ordering::Relaxed);
    }
    start.fire();
    let mut panics = 0usize;
    for handle in handles {
        if handle.join().is_err() {
            panics += 1;
        }
    }
    if let Some(e) = spawn_error {
        return Err(RunError::Skipped(format!("may could not spawn a coroutine: {e}")));
    }
    match panics {
        0 => Ok(()),
        n => Err(RunError::Broken(format!("{n} coroutine(s) panicked"))),
    }
}

/// `n` uncontended calls made from one coroutine, one after another, each timed.
pub(crate) fn idle_calls<M: JobMeter>(config: CoroutineConfig, job: &Job<M>, n: u32) -> Vec<Duration> {
    config.apply();
    let call = job.call.clone();
    let live = Arc::new(LiveStages::new());
    let spawned =
        coroutine::spawn("idle", config.stack_words, &live, move || timed_calls(&call, n, Call::call_coroutine));
    spawned.ok().and_then(|handle| handle.join().ok()).unwrap_or_default()
}
