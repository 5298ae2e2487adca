//! What every contestant is handed for one iteration ([`Job`]), what a contestant ready to run does
//! ([`Prepared`]), and how every contestant finishes a call ([`finish_call`]): shared by the contestants below
//! the registry, so that no contestant file depends on the registry, with the pools' thread stack and coroutine
//! configuration both scenarios use.

use std::sync::Arc;
use std::time::{Duration, Instant};

use dependency::{CallError, Dependency, Reply};
use pipelines::cancel::CallerCancel;
use pipelines::coroutine::CoroutineConfig;

use crate::error::RunError;
use crate::ledger::Ledger;
use crate::limit::{Gate, Outcome, Permit};

/// One iteration's shared state: the dependency, where calls are recorded, how many, and the gate (bounded
/// contestants only).
#[derive(Debug)]
pub struct Job<'a> {
    /// The dependency every call goes to.
    pub dependency: &'a Dependency,
    /// Where every call is recorded.
    pub ledger: &'a Ledger,
    /// Calls `0..calls` to make.
    pub calls: u64,
    /// The admission gate (`None` for the unbounded contestants).
    pub gate: Option<Arc<Gate>>,
    /// A cancellation from the caller's side (the `caller_cancel` check only; `None` on every timed run).
    pub cancel: Option<&'a CallerCancel>,
}

/// A contestant ready to run iterations (its runtime built, its sizes fixed).
pub trait Prepared {
    /// Make every call of `job`. `go` is called exactly once, when everything is set up (threads started and
    /// parked) and right before the first call is issued: the trial starts measuring there.
    fn run(&self, job: &Job<'_>, go: &mut dyn FnMut()) -> Result<(), RunError>;

    /// Latency of `n` calls made one at a time on an idle `dependency`, waited for the way this contestant
    /// waits (awaited on its runtime, or blocking on a thread).
    fn idle_latencies(&self, dependency: &Dependency, n: u32) -> Vec<Duration>;

    /// The median of [`idle_latencies`](Self::idle_latencies) (`None` for no calls): the no-load latency.
    fn idle_median(&self, dependency: &Dependency, n: u32) -> Option<Duration> {
        let mut latencies = self.idle_latencies(dependency, n);
        latencies.sort_unstable();
        latencies.get(latencies.len() / 2).copied()
    }

    /// Tasks alive on the contestant's runtime now (`None` without a runtime: pool threads and coroutines are
    /// joined before [`run`](Self::run) returns).
    fn alive_tasks(&self) -> Option<usize> {
        None
    }
}

/// The configuration every coroutine contestant of both scenarios runs with: one carrier per CPU the trial may
/// use, as tokio's default runtime has workers.
pub fn coroutine_config() -> CoroutineConfig {
    CoroutineConfig::per_core()
}

/// Whether `coroutines` more coroutines fit under the map limit (`None`), or why not.
pub fn coroutine_refusal(coroutines: usize) -> Option<String> {
    pipelines::coroutine::map_limit_refusal(coroutines as u64, 2_048)
}

/// Stack size of every pool thread: callers only wait on completions, so a small stack is plenty.
pub const THREAD_STACK_BYTES: usize = 128 * 1024;

/// What every contestant does once a call is done: release the permit (if any) with the call's latency, from
/// its admission, and outcome, then record the call from the same start, with its gate wait beside it. Without
/// a permit the call's clock starts at `issued`.
pub(crate) fn finish_call(
    ledger: &Ledger,
    index: u64,
    issued: Instant,
    result: Result<Reply, CallError>,
    permit: Option<Permit>,
) {
    let seen = Instant::now();
    let value = result.map(|reply| reply.value);
    let start = match permit {
        Some(permit) => {
            let start = permit.admitted_at();
            ledger.record_admission(index, permit.gate_wait(), permit.limit_at_admission(), permit.admission_seq());
            let outcome = if value.is_ok() { Outcome::Success } else { Outcome::Dropped };
            permit.finish(seen, outcome);
            start
        }
        None => issued,
    };
    ledger.record(index, start, seen, &value);
}
