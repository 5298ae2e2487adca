//! Conformance at the edges (failing calls and the caller's cancel), run with every contestant's other checks before
//! timing:
//!
//! - `failing_calls`: on one prepared contestant, three runs of [`EDGE_CALLS`] calls in which the dependency fails
//!   one chosen call at once ([`dependency::Config::fail_inputs`]): the first (before any reply), the middle
//!   and the last (while the run drains). Each run must end with every call recorded once, the chosen one as
//!   failed and no other, and the bound held while the failure propagates (the gate never admitted at or above
//!   its limit; the calls outstanding, counted from the records, never above the limit at an admission nor above
//!   the ceiling). Then a clean run on the same prepared contestant must complete every call once.
//! - `caller_cancel`: the caller cancels from another thread when the run is about to issue a seeded call
//!   ([`CallerCancel`]): the run must return within [`CANCEL_WITHIN`] of the cancel, every call it did answer answered
//!   once with the right answer, no more calls issued than those that had reached issue when the caller raised
//!   it (at least the point's; the run's other threads or slots go on until the caller's thread runs) plus what
//!   the contestant may hold at once, the bound held, and no task left on its runtime (pool threads and coroutines are joined by the
//!   run's scope before it returns; a synchronous `run` returns once). Then a clean run on the same prepared
//!   contestant must complete every call once.
//!
//! Each check is shown to reject a deliberately broken contestant in this module's tests.

use std::sync::Arc;
use std::time::{Duration, Instant};

use dependency::{Dependency, Stats};
use measure::summary::Check;
use measure::watchdog;
use pipelines::cancel::{seeded_point, CallerCancel};

use crate::config::{limiter_ceiling, OverloadConfig};
use crate::error::LedgerError;
use crate::job::{Job, Prepared};
use crate::ledger::Ledger;
use crate::limit::{self, Gate, LimiterParams};
use crate::overload::contestants::Contestant;

/// How long a check may take before it counts as hung (every conformance check of overload, these and
/// [`crate::overload::conformance`]'s).
pub const WATCHDOG: Duration = Duration::from_secs(30);
/// Calls of each edge run.
pub const EDGE_CALLS: u64 = 1_000;
/// The most a cancelled run may take to return after the caller raised the cancellation.
pub const CANCEL_WITHIN: Duration = Duration::from_secs(2);
/// The calls at which the caller cancels (the point is seeded by the contestant's name).
pub const CANCEL_POINTS: std::ops::Range<u64> = 100..900;
/// Threads of `blocking-unbounded` in the edge runs.
const UNBOUNDED_THREADS: usize = 200;
/// How long the runtime's tasks have to finish after a cancelled run returned.
const TASKS_SETTLE: Duration = Duration::from_millis(500);

/// Both edge checks for `contestant`, each on its own prepared contestant under the watchdog, run at once.
pub fn checks(contestant: Contestant) -> Vec<Check> {
    std::thread::scope(|scope| {
        let failing = scope.spawn(move || check("failing_calls", move || prepared_then(contestant, failing_calls)));
        let cancel = scope.spawn(move || check("caller_cancel", move || prepared_then(contestant, caller_cancel)));
        [("failing_calls", failing), ("caller_cancel", cancel)]
            .map(|(name, handle)| {
                handle.join().unwrap_or_else(|_| Check::new(name, false, "the check's thread panicked"))
            })
            .into()
    })
}

/// A named check from a guarded run returning its detail.
pub(crate) fn check(name: &'static str, work: impl FnOnce() -> Result<String, String> + Send + 'static) -> Check {
    watchdog::guarded_check(name, WATCHDOG, work)
}

/// Prepare `contestant` as the edge runs need it, then run `edge` on it.
fn prepared_then(
    contestant: Contestant,
    edge: fn(&dyn Prepared, Contestant) -> Result<String, String>,
) -> Result<String, String> {
    let config = check_config(&edge_dependency(Vec::new()), EDGE_CALLS, LimiterParams::small(), UNBOUNDED_THREADS);
    let prepared = contestant.prepare(&config)?;
    edge(&*prepared, contestant)
}

/// A check's run settings: `calls` calls against `dependency`, which never drops its capacity (conformance drops
/// by call, on the dependency's schedule; the settle rule is the timed runs'), with `limits`.
pub(crate) fn check_config(
    dependency: &dependency::Config,
    calls: u64,
    limits: LimiterParams,
    unbounded_threads: usize,
) -> OverloadConfig {
    OverloadConfig {
        calls,
        capacity: dependency.capacity,
        capacity_after: dependency.capacity,
        service: dependency.service,
        jitter: Duration::ZERO,
        queue_limit: dependency.queue_limit,
        drop: crate::settle::DropRule {
            healthy_min: Duration::ZERO,
            hold: Duration::ZERO,
            drift: 0.0,
            healthy_max: Duration::ZERO,
            at_call: None,
        },
        limits,
        unbounded_threads,
        seed: 1,
    }
}

/// 40 slots of 2 ms, failing the calls `fail`.
fn edge_dependency(fail: Vec<u64>) -> dependency::Config {
    dependency::Config {
        capacity: 40,
        service: Duration::from_millis(2),
        fail_inputs: fail,
        ..dependency::Config::default()
    }
}

/// The most calls `contestant` can have issued and not answered at once in an edge run: its limiter's ceiling,
/// its threads (`blocking-unbounded`), or every call (`stream-unbounded`).
fn width(contestant: Contestant, calls: u64) -> u64 {
    match contestant {
        Contestant::StreamUnbounded => calls,
        Contestant::BlockingUnbounded => UNBOUNDED_THREADS as u64,
        _ => contestant.limiter().map_or(calls, |kind| limiter_ceiling(kind, &LimiterParams::small()) as u64),
    }
}

/// What a check's run of a prepared contestant left behind (the edge runs and the conformance's small runs).
#[derive(Debug, Clone)]
pub(crate) struct CheckRun {
    /// Every call recorded once, each success with the right answer.
    pub(crate) verified: Result<(), LedgerError>,
    /// Every recorded call recorded once, each success with the right answer (calls never recorded allowed).
    pub(crate) delivered_once: Result<(), LedgerError>,
    /// Calls recorded.
    pub(crate) recorded: u64,
    /// The calls recorded as failed.
    pub(crate) failed: Vec<u64>,
    /// Calls recorded as failed.
    pub(crate) failures: u64,
    /// The dependency's counts.
    pub(crate) stats: Stats,
    /// Gate admissions at or above its limit (limited contestants).
    pub(crate) over_limit: Option<u64>,
    /// Admissions at which the records' outstanding count exceeded the gate's limit then.
    pub(crate) over_limit_issues: u64,
    /// The most calls outstanding, from the records.
    pub(crate) max_outstanding: u64,
    /// The most calls the gate admitted at once (0 without one).
    pub(crate) max_in_flight: usize,
    /// The gate's limit history.
    pub(crate) limit_history: Vec<(Duration, usize)>,
    /// When the capacity dropped, on the gate's clock (the gate is created right after the ledger, so the
    /// ledger's clock stands in for it to within microseconds).
    pub(crate) drop_after: Option<Duration>,
    /// When the run returned.
    pub(crate) returned: Instant,
}

/// Run the prepared `contestant` once over `calls` calls against `dependency`, with a fresh gate built from
/// `limits`, cancelled by `cancel` if given.
pub(crate) fn run_on(
    prepared: &dyn Prepared,
    contestant: Contestant,
    dependency: dependency::Config,
    calls: u64,
    limits: &LimiterParams,
    cancel: Option<&CallerCancel>,
) -> Result<CheckRun, String> {
    let dependency = Dependency::start(dependency).map_err(|e| format!("cannot start the dependency: {e}"))?;
    let ledger = Ledger::new(calls);
    let gate = contestant.limiter().map(|kind| Arc::new(Gate::new(limit::build(kind, limits))));
    let job = Job { dependency: &dependency, ledger: &ledger, calls, gate: gate.clone(), cancel };
    let outcome = prepared.run(&job, &mut || {});
    let returned = Instant::now();
    outcome?;
    let stats = dependency.stats();
    dependency.shutdown();
    let records = ledger.records();
    let analysis = crate::analysis::analyse(&records, None, None, 100_000);
    let metric = |key: &str| analysis.metrics.get(key).map_or(0, |&v| v as u64);
    Ok(CheckRun {
        verified: ledger.verify(),
        delivered_once: ledger.verify_delivered(),
        recorded: records.len() as u64,
        failed: (0..calls).filter(|&i| ledger.get(i).is_some_and(|r| r.failed)).collect(),
        failures: ledger.failures(),
        stats,
        over_limit: gate.as_ref().map(|g| g.over_limit_admissions()),
        over_limit_issues: metric(crate::analysis::OVER_LIMIT_ISSUES),
        max_outstanding: metric("max_outstanding"),
        max_in_flight: gate.as_ref().map_or(0, |g| g.max_in_flight()),
        limit_history: gate.as_ref().map(|g| g.limit_history()).unwrap_or_default(),
        drop_after: stats.capacity_changed_at.map(|at| at.saturating_duration_since(ledger.origin())),
        returned,
    })
}

/// An edge run: [`run_on`] with the small limits.
fn edge_run(
    prepared: &dyn Prepared,
    contestant: Contestant,
    dependency: dependency::Config,
    calls: u64,
    cancel: Option<&CallerCancel>,
) -> Result<CheckRun, String> {
    run_on(prepared, contestant, dependency, calls, &LimiterParams::small(), cancel)
}

/// Whether `run` held `contestant`'s bound: the gate never admitted at or above its limit, the records'
/// outstanding count never exceeded the limit at an admission nor the width.
fn bound_held(run: &CheckRun, width: u64) -> Result<(), String> {
    let over = run.over_limit.unwrap_or(0);
    if over > 0 || run.over_limit_issues > 0 || run.max_outstanding > width {
        return Err(format!(
            "the bound did not hold: {over} gate admissions at or above its limit, {} admissions with more calls \
             outstanding than the limit then, most outstanding {} against {width}",
            run.over_limit_issues, run.max_outstanding
        ));
    }
    Ok(())
}

/// The verdict on a run of `calls` calls whose call `at` failed.
fn failing_verdict(run: &CheckRun, at: u64, calls: u64, width: u64) -> Result<(), String> {
    run.verified.clone()?;
    if run.failed != [at] {
        return Err(format!("calls recorded as failed {:?}, expected only call {at}", run.failed));
    }
    if run.stats.injected != 1 || run.stats.completed != calls - 1 {
        return Err(format!(
            "the dependency failed {} and completed {} of {calls} calls (expected 1 and {})",
            run.stats.injected,
            run.stats.completed,
            calls - 1
        ));
    }
    bound_held(run, width)
}

/// The verdict on a clean run of `calls` calls after the edge runs on the same prepared contestant.
fn clean_verdict(run: &CheckRun, calls: u64, width: u64) -> Result<(), String> {
    run.verified.clone().map_err(|e| format!("the clean run after: {e}"))?;
    if !run.failed.is_empty() || run.stats.completed != calls {
        return Err(format!(
            "the clean run after: {} failed, {} of {calls} completed",
            run.failed.len(),
            run.stats.completed
        ));
    }
    bound_held(run, width).map_err(|e| format!("the clean run after: {e}"))
}

/// `failing_calls` on a prepared contestant.
fn failing_calls(prepared: &dyn Prepared, contestant: Contestant) -> Result<String, String> {
    let calls = EDGE_CALLS;
    let width = width(contestant, calls);
    for (place, at) in [("first", 0), ("middle", calls / 2), ("last", calls - 1)] {
        let run = edge_run(prepared, contestant, edge_dependency(vec![at]), calls, None)?;
        failing_verdict(&run, at, calls, width).map_err(|e| format!("call {at} ({place}) failed: {e}"))?;
    }
    let clean = edge_run(prepared, contestant, edge_dependency(Vec::new()), calls, None)?;
    clean_verdict(&clean, calls, width)?;
    Ok(format!(
        "{calls} calls (40 slots, 2 ms) with the first, the middle and the last call failed by the dependency: each \
         run ended with every call recorded once, only the failed call as failed, the bound held (at most {width} \
         at once, never above the limit at an admission); then a clean run on the same prepared contestant \
         completed every call once"
    ))
}

/// The verdict on a run cancelled at call `point`, raised at `raised` when `passed` calls had reached issue.
fn cancel_verdict(
    run: &CheckRun,
    raised: Option<(Instant, u64)>,
    point: u64,
    width: u64,
    alive_tasks: Option<usize>,
) -> Result<Duration, String> {
    let (raised, passed) =
        raised.ok_or(format!("the run never reached call {point}, so the caller never cancelled"))?;
    let took = run.returned.saturating_duration_since(raised);
    if took > CANCEL_WITHIN {
        return Err(format!(
            "returned {:.0} ms after the cancel (limit {} ms)",
            took.as_secs_f64() * 1e3,
            CANCEL_WITHIN.as_millis()
        ));
    }
    run.delivered_once.clone()?;
    let most = most_issued(passed, width);
    if run.stats.issued > most {
        return Err(format!(
            "{} calls issued after a cancel at call {point} (at most {most}: the {passed} that had reached issue \
             when it was raised and {width} more): the cancel did not stop it",
            run.stats.issued
        ));
    }
    if run.recorded > run.stats.issued {
        return Err(format!("{} calls answered but {} issued", run.recorded, run.stats.issued));
    }
    bound_held(run, width)?;
    if let Some(tasks) = alive_tasks.filter(|&t| t > 0) {
        return Err(format!(
            "{tasks} tasks still alive on the runtime {} ms after it returned",
            TASKS_SETTLE.as_millis()
        ));
    }
    Ok(took)
}

/// The most calls a run cancelled when `passed` calls had reached issue may issue in all: those, and what the
/// contestant may hold at once (in flight when the cancel landed, or issued before it noticed).
fn most_issued(passed: u64, width: u64) -> u64 {
    passed.saturating_add(width)
}

/// `caller_cancel` on a prepared contestant.
fn caller_cancel(prepared: &dyn Prepared, contestant: Contestant) -> Result<String, String> {
    let calls = EDGE_CALLS;
    let width = width(contestant, calls);
    let point = seeded_point(&contestant.name(), CANCEL_POINTS);
    let cancel = Arc::new(CallerCancel::at(point));
    let caller = CallerCancel::spawn_canceller(&cancel).map_err(|e| format!("could not start the caller: {e}"))?;
    let run = edge_run(prepared, contestant, edge_dependency(Vec::new()), calls, Some(&cancel));
    cancel.abandon();
    let _ = caller.join();
    let run = run?;
    let alive = alive_after(prepared);
    let raised = cancel.raised_at().zip(cancel.passed_at_raise());
    let took =
        cancel_verdict(&run, raised, point, width, alive).map_err(|e| format!("cancelled at call {point}: {e}"))?;
    let clean = edge_run(prepared, contestant, edge_dependency(Vec::new()), calls, None)?;
    clean_verdict(&clean, calls, width)?;
    Ok(format!(
        "cancelled by the caller at call {point} of {calls}: returned {:.1} ms later (limit {} ms), {} calls \
         issued (at most {}), {} answered, each once with the right answer, the bound held{}; then a clean run on \
         the same prepared contestant completed every call once",
        took.as_secs_f64() * 1e3,
        CANCEL_WITHIN.as_millis(),
        run.stats.issued,
        raised.map_or(0, |(_, passed)| most_issued(passed, width)),
        run.recorded,
        if alive.is_some() { ", no task left on the runtime" } else { "" }
    ))
}

/// Tasks alive on the prepared contestant's runtime once they had up to [`TASKS_SETTLE`] to finish.
fn alive_after(prepared: &dyn Prepared) -> Option<usize> {
    let until = Instant::now() + TASKS_SETTLE;
    loop {
        let alive = prepared.alive_tasks()?;
        if alive == 0 || Instant::now() >= until {
            return Some(alive);
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicU64, Ordering};

    use pipelines::blocking::parked_pool::run_parked;

    use super::*;
    use crate::error::RunError;
    use crate::job::finish_call;
    use crate::job::THREAD_STACK_BYTES;
    use crate::limit::LimiterKind;

    /// How a broken contestant misbehaves.
    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    enum Breakage {
        /// Behaves: the pool every blocking contestant runs, written out with hooks for the others.
        None,
        /// A failed first call comes back as a success with the right answer (retried out of sight, say).
        SwallowsFirstError,
        /// A thread whose call failed makes its next call without a permit (its slot freed twice, say); the pool
        /// has more threads than the limit, so that call goes above it.
        OverAdmitsOnFailure,
        /// Checks no cancellation: every call is made whatever the caller said.
        IgnoresCancel,
    }

    /// A gated pool of `threads` threads, broken as `breakage` says.
    #[derive(Debug)]
    struct BrokenPool {
        threads: usize,
        breakage: Breakage,
    }

    impl Prepared for BrokenPool {
        fn run(&self, job: &Job<'_>, go: &mut dyn FnMut()) -> Result<(), RunError> {
            let gate = job.gate.as_ref().ok_or(RunError::NoGate("a gated pool needs a gate"))?;
            let next = AtomicU64::new(0);
            let heeds_cancel = self.breakage != Breakage::IgnoresCancel;
            run_parked(self.threads, THREAD_STACK_BYTES, go, |_| {
                let mut skip_permit = false;
                loop {
                    if heeds_cancel && job.cancel.is_some_and(CallerCancel::is_raised) {
                        return;
                    }
                    let permit = if std::mem::take(&mut skip_permit) { None } else { Some(gate.acquire_blocking()) };
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    if index >= job.calls {
                        return;
                    }
                    if let Some(cancel) = job.cancel {
                        cancel.pass_counted(index);
                        if heeds_cancel && cancel.is_raised() {
                            return;
                        }
                        if !heeds_cancel && index >= cancel.point() {
                            // Ignoring the cancel shows only if calls go on after it lands: wait (bounded) for the
                            // caller's raise, so a caller thread slow under load can't let the pool finish first.
                            let until = Instant::now() + Duration::from_secs(5);
                            while !cancel.is_raised() && Instant::now() < until {
                                std::thread::sleep(Duration::from_millis(1));
                            }
                        }
                    }
                    let issued = Instant::now();
                    let result = job.dependency.call(index).wait();
                    if result.is_err() {
                        match self.breakage {
                            Breakage::SwallowsFirstError if index == 0 => {
                                job.ledger.record(index, issued, Instant::now(), &Ok(Dependency::answer(index)));
                                if let Some(permit) = permit {
                                    permit.finish(Instant::now(), limit::Outcome::Success);
                                }
                                continue;
                            }
                            Breakage::OverAdmitsOnFailure => skip_permit = true,
                            _ => {}
                        }
                    }
                    match permit {
                        Some(permit) => finish_call(job.ledger, index, issued, result, Some(permit)),
                        None => {
                            job.ledger.record_admission(index, Duration::ZERO, gate.limit(), 0);
                            job.ledger.record(index, issued, Instant::now(), &result.map(|reply| reply.value));
                        }
                    }
                }
            })
            .map_err(RunError::Pool)
        }

        fn idle_latencies(&self, dependency: &Dependency, n: u32) -> Vec<Duration> {
            crate::overload::contestants::pool::idle_waited(dependency, n)
        }
    }

    /// `blocking-fixed`: a fixed limit of 30 in the edge runs.
    const AS: Contestant = Contestant::Blocking(LimiterKind::Fixed);

    fn broken(breakage: Breakage, threads: usize) -> BrokenPool {
        BrokenPool { threads, breakage }
    }

    #[test]
    fn the_pool_as_written_here_passes_both_checks() {
        let pool = broken(Breakage::None, 30);
        failing_calls(&pool, AS).unwrap_or_else(|e| panic!("{e}"));
        caller_cancel(&pool, AS).unwrap_or_else(|e| panic!("{e}"));
    }

    #[test]
    fn failing_calls_rejects_a_contestant_that_swallows_the_first_call_s_error() {
        let verdict = failing_calls(&broken(Breakage::SwallowsFirstError, 30), AS).expect_err("it swallowed it");
        assert!(verdict.contains("call 0 (first) failed: calls recorded as failed []"), "{verdict}");
    }

    #[test]
    fn failing_calls_rejects_a_contestant_that_over_admits_while_a_failure_propagates() {
        let verdict = failing_calls(&broken(Breakage::OverAdmitsOnFailure, 35), AS).expect_err("it over-admitted");
        // Which failed call shows it depends on scheduling: the unpermitted call goes above the limit only while
        // the other threads hold every permit, which at the first call (the threads just released) they may not
        // yet. The check must reject the pool on the bound; not at one particular call.
        assert!(verdict.contains(") failed: the bound did not hold"), "{verdict}");
    }

    #[test]
    fn caller_cancel_rejects_a_contestant_that_ignores_the_cancel() {
        let verdict = caller_cancel(&broken(Breakage::IgnoresCancel, 30), AS).expect_err("it ignored it");
        assert!(verdict.contains("the cancel did not stop it"), "{verdict}");
    }
}
