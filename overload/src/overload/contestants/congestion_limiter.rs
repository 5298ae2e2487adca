//! `stream-congestion-limiter`: one stream admitting through the `congestion-limiter` crate's own
//! `DefaultLimiter` (its `Aimd`, configured as its README does) instead of the lab's gate, on a multi-thread
//! tokio runtime.
//!
//! Written as the crate's documentation writes a caller: a token from `acquire_timeout` before each call,
//! given back with `release(token, Some(outcome))` once the reply is seen, `Outcome::Overload` for a call the
//! dependency rejected or one slower than `timeout-ms` (the loss signal of the lab's `aimd`). The stream
//! (`then` for the token, `buffer_unordered` as wide as the limiter's maximum) pulls the next call only once the
//! previous one has its token, as `limited_unordered` does with the gate. The crate's algorithm cannot be fed
//! by anything but its own limiter, so the run's gate is a mirror ([`Followed`](crate::limit::Followed)): each
//! admission is counted in it with the crate's own in-flight count and limit, and after each release it
//! follows the crate's limit, so the drop watcher, the limit series and the bound checks read it like every
//! other contestant's.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use congestion_limiter::limiter::{DefaultLimiter, Limiter, Outcome as Loss};
use congestion_limiter::limits::Aimd;
use futures::{stream, StreamExt};
use tokio::runtime::Runtime;

use dependency::Dependency;

use super::{Job, Prepared};
use crate::error::RunError;
use crate::limit::{LimiterParams, Outcome};
use pipelines::cancel::until_raised;

/// The longest a call waits for a token: far beyond any run, so a token that never comes fails the run
/// instead of hanging it (the crate's only waiting acquire takes a timeout).
pub const ACQUIRE_WAIT: Duration = Duration::from_secs(60);

/// The runtime and the limiter's settings, fixed once per trial; each run gets a fresh limiter.
#[derive(Debug)]
pub struct CrateLimited {
    runtime: Runtime,
    limits: LimiterParams,
}

impl CrateLimited {
    /// A multi-thread runtime with the default number of workers, as `stream-<limiter>` has, with tokio's timer
    /// on (the crate's `acquire_timeout` needs it; a token granted at once never arms it).
    pub fn new(limits: LimiterParams) -> Result<CrateLimited, RunError> {
        let runtime = tokio::runtime::Builder::new_multi_thread().enable_time().build().map_err(RunError::Runtime)?;
        Ok(CrateLimited { runtime, limits })
    }
}

/// The crate's `Aimd` as its README configures it (decrease ×0.9, increase +1; its default 80% utilisation
/// before an increase), with the lab's start and bounds for every adaptive limiter: from `initial` within
/// `min..=max` (the crate's README starts at 10 within 1..=20; its defaults are 1..=1000).
pub fn algorithm(limits: &LimiterParams) -> Aimd {
    let min = limits.min.clamp(1, limits.max.max(1));
    let max = limits.max.max(min);
    Aimd::new(limits.initial.clamp(min, max), min..=max).decrease_factor(0.9).increase_by(1)
}

impl Prepared for CrateLimited {
    fn run(&self, job: &Job<'_>, go: &mut dyn FnMut()) -> Result<(), RunError> {
        let mirror =
            job.gate.clone().ok_or(RunError::NoGate("the crate's limiter needs a gate to mirror its limit"))?;
        let (dependency, ledger, mirror, cancel) = (job.dependency, job.ledger, &*mirror, job.cancel);
        let limiter = DefaultLimiter::new(algorithm(&self.limits));
        let limiter = &limiter;
        let timeout = self.limits.timeout;
        let refused = AtomicU64::new(0);
        let refused = &refused;
        let width = self.limits.max.max(1);
        go();
        self.runtime.block_on(until_raised(
            stream::iter(0..job.calls)
                .then(|index| async move {
                    let asked = (Instant::now(), limiter.state().limit());
                    (index, asked, limiter.acquire_timeout(ACQUIRE_WAIT).await)
                })
                .map(|(index, (asked, limit_asked), token)| {
                    if let Some(cancel) = cancel {
                        cancel.pass_counted(index);
                    }
                    async move {
                        let Some(token) = token else {
                            refused.fetch_add(1, Ordering::Relaxed);
                            return;
                        };
                        let admitted = Instant::now();
                        // The crate does not read its limit and admit together: the limit at this admission is taken
                        // as the larger of its value when the call asked and right after it was admitted, so a limit
                        // that fell just after the admission is not counted against it.
                        let state = limiter.state();
                        let limit = state.limit().max(limit_asked);
                        let seq = mirror.note_admission(state.in_flight(), limit);
                        let result = dependency.call(index).await;
                        let seen = Instant::now();
                        let overloaded = result.is_err() || seen.saturating_duration_since(admitted) > timeout;
                        let (loss, outcome) = if overloaded {
                            (Loss::Overload, Outcome::Dropped)
                        } else {
                            (Loss::Success, Outcome::Success)
                        };
                        limiter.release(token, Some(loss)).await;
                        mirror.follow(|| limiter.state().limit(), outcome);
                        ledger.record_admission(index, admitted.saturating_duration_since(asked), limit, seq);
                        ledger.record(index, admitted, seen, &result.map(|reply| reply.value));
                    }
                })
                .buffer_unordered(width)
                .for_each(|()| async {}),
            cancel,
        ));
        match refused.load(Ordering::Relaxed) {
            0 => Ok(()),
            calls => Err(RunError::NoToken { calls, within: ACQUIRE_WAIT }),
        }
    }

    fn idle_latencies(&self, dependency: &Dependency, n: u32) -> Vec<Duration> {
        super::stream::idle_awaited(&self.runtime, dependency, n)
    }

    fn alive_tasks(&self) -> Option<usize> {
        Some(self.runtime.metrics().num_alive_tasks())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Why `stream-congestion-limiter` fails `within_limit`: the crate lowers its limit at once, but its
    /// semaphore's permits only in a task it spawns, so the token a release gives back goes first to the caller
    /// already waiting for one, and that caller is admitted above the limit just lowered.
    #[test]
    fn after_a_decrease_the_crate_admits_its_waiting_caller_above_its_own_limit() {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_time().build().expect("runtime");
        runtime.block_on(async {
            let limits = LimiterParams { initial: 20, min: 1, max: 20, ..LimiterParams::default() };
            let limiter = DefaultLimiter::new(algorithm(&limits));
            let mut tokens = Vec::new();
            for _ in 0..20 {
                tokens.push(limiter.try_acquire().await.expect("a token while below the limit"));
            }
            let waiting = limiter.acquire_timeout(Duration::from_secs(1));
            let mut waiting = std::pin::pin!(waiting);
            assert!(futures::poll!(waiting.as_mut()).is_pending(), "all 20 in use: the caller waits");
            let token = tokens.pop().expect("a token");
            limiter.release(token, Some(Loss::Overload)).await;
            assert_eq!(limiter.state().limit(), 18, "×0.9 at once");
            let admitted = waiting.await.expect("the released token goes to the waiting caller");
            assert_eq!(limiter.state().in_flight(), 20, "20 in flight against a limit of 18");
            drop(admitted);
        });
    }
}
