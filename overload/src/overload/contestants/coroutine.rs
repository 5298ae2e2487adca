//! `coroutine-<limiter>`: a pool of `may` coroutines gated by the limiter, each acquiring a permit (parking the
//! coroutine, not its carrier) and waiting on its call's completion the same way.
//!
//! The pool is as large as the limiter's ceiling, like the blocking pool, on [`coroutine_config`]'s carrier threads with
//! `may`'s default stack ([`pipelines::coroutine::DEFAULT_STACK_WORDS`]). Its coroutines are spawned scoped
//! (`may::coroutine::scope`, so they may borrow the iteration's dependency and ledger and are all joined before
//! the run returns), park at a `may::sync::SyncFlag` until every one has arrived (the calling thread, not a
//! carrier, waits on a `may::sync::WaitGroup`), and are released at once by `go`. Both of their waits are
//! coroutine-aware: [`Gate::acquire_blocking`](crate::limit::Gate::acquire_blocking) and
//! [`dependency::Completion::wait`] park the coroutine (`may::coroutine::park`) when called inside one.

use std::panic::{self, AssertUnwindSafe};
use std::sync::atomic::AtomicU64;
use std::time::Duration;

use may::coroutine::Builder;
use may::sync::{SyncFlag, WaitGroup};

use dependency::Dependency;

use crate::error::RunError;
use crate::job::{coroutine_config, Job, Prepared};

/// A pool of `coroutines` coroutines, spawned per iteration and parked until the run begins.
#[derive(Debug)]
pub struct GatedCoroutines {
    coroutines: usize,
}

impl GatedCoroutines {
    /// A pool of `coroutines` coroutines (the limiter's ceiling: more could never be admitted at once);
    /// configures `may`'s carriers for this process.
    pub fn new(coroutines: usize) -> GatedCoroutines {
        coroutine_config().apply();
        GatedCoroutines { coroutines: coroutines.max(1) }
    }
}

impl Prepared for GatedCoroutines {
    fn run(&self, job: &Job<'_>, go: &mut dyn FnMut()) -> Result<(), RunError> {
        let gate = job.gate.as_ref().ok_or(RunError::NoGate("a gated coroutine pool needs a gate"))?;
        let next = AtomicU64::new(0);
        let start = SyncFlag::new();
        let arrived = WaitGroup::new();
        let body = || super::pool::gated_calls(job, gate, &next);
        let panics = may::coroutine::scope(|scope| {
            let handles: Vec<_> = (0..self.coroutines)
                .map(|_| {
                    let (arrived, start, body) = (arrived.clone(), &start, &body);
                    let builder = Builder::new().name("caller".to_string()).stack_size(coroutine_config().stack_words);
                    // SAFETY: `may` marks spawning unsafe because a coroutine may resume on another carrier, so a
                    // thread-local held across a wait could belong to another thread. The body holds none: it
                    // waits only at the start flag, the gate and the completion, all coroutine-aware. The scope
                    // joins every coroutine before the borrowed job, gate and counters go away.
                    unsafe {
                        scope.spawn_with_builder(
                            move || {
                                drop(arrived);
                                start.wait();
                                panic::catch_unwind(AssertUnwindSafe(body)).is_err()
                            },
                            builder,
                        )
                    }
                })
                .collect();
            // Every coroutine has dropped its clone once it is parked at the start flag.
            arrived.wait();
            go();
            start.fire();
            handles.into_iter().map(|handle| handle.join()).filter(|&panicked| panicked).count()
        });
        match panics {
            0 => Ok(()),
            n => Err(RunError::Panicked(n)),
        }
    }

    fn idle_latencies(&self, dependency: &Dependency, n: u32) -> Vec<Duration> {
        may::coroutine::scope(|scope| {
            // SAFETY: as in `run`: the body waits only on the coroutine-aware completion and holds no
            // thread-local; the scope joins it before `dependency` goes away.
            let handle = unsafe {
                scope.spawn_with_builder(
                    move || super::pool::idle_waited(dependency, n),
                    Builder::new().name("idle".to_string()).stack_size(coroutine_config().stack_words),
                )
            };
            handle.join()
        })
    }
}
