//! Conformance checks every overload contestant must pass before its figures mean anything, written once for
//! all contestants and run in `cargo test` and in every trial process before timing.
//!
//! Each check runs a small overload run (a few thousand calls against a dependency with a few tens of slots and
//! millisecond calls) in a helper thread under a watchdog: a check that has not answered within [`WATCHDOG`]
//! fails as hung instead of blocking the process. None of them judges speed.
//!
//! - `exactly_once`: every call completes once, with the right answer, through a capacity drop.
//! - `dependency_within_capacity`: the dependency never started a call at or above its capacity.
//! - `within_limit`: the gate never admitted above its limit (limited contestants).
//! - `rejections_counted`: with a small queue limit, rejected calls come back as errors, are counted once each,
//!   the run still ends, and the gate never admits above its limit while the rejections go through (limited
//!   contestants).
//! - `clean_after_rejections`: then a clean run on the same prepared contestant completes every call once.
//! - `limit_follows_latency`: against a healthy dependency the limit climbs to the ceiling (so the contestant
//!   keeps its gate full: a family that could not would stay app-limited), and once the dependency slows it
//!   falls (adaptive limiters) or stays put (fixed). Both families are held to the same expectation, so the
//!   stream and blocking contestants of one limiter admit the same way.
//! - `failing_calls` and `caller_cancel` ([`crate::edges`]): a failed call at the first, a middle and the last
//!   call, the bound held meanwhile; a cancellation from the caller mid-run; a clean run after each.
//! - `gate_families_agree`: one scripted sequence of releases, driven through the gate's blocking and async
//!   acquire, gives the same limit history ([`crate::limit::conformance::same_admissions`]).

use std::time::Duration;

use dependency::{CapacityChange, Dependency};
use measure::summary::Check;
use measure::watchdog;

use super::contestants::{Contestant, Prepared};
use crate::limit::{self, LimiterKind, LimiterParams};

pub use crate::edges::WATCHDOG;
use crate::edges::{check, check_config, run_on, CheckRun};
/// Calls of the small runs.
pub const CALLS: u64 = 1_000;
/// Calls made one at a time before each small run, to measure the no-load latency.
const NO_LOAD_CALLS: u32 = 9;

/// Every check for `contestant`, in order. The checks are independent (each starts its own dependency and
/// gate), so they run at the same time, each under its own watchdog; they wait on millisecond timers far more
/// than they compute, and none judges speed.
pub fn all(contestant: Contestant) -> Vec<Check> {
    let limiter = contestant.limiter();
    let (small, rejections, follows, agree, edges) = std::thread::scope(|scope| {
        // Every run here waits on 2 ms calls far more than it computes, so they run side by side.
        let edges = scope.spawn(move || crate::edges::checks(contestant));
        let small = scope.spawn(move || guarded("exactly_once", move || drop_run(contestant)));
        let rejections = scope.spawn(move || rejections(contestant));
        let follows = limiter.map(|kind| {
            scope.spawn(move || check("limit_follows_latency", move || limit_follows_latency(contestant, kind)))
        });
        let agree = limiter.map(|kind| {
            scope.spawn(move || {
                if kind == LimiterKind::CongestionLimiter {
                    return Check::not_applicable(
                        "gate_families_agree",
                        "the crate's own limiter admits through its own semaphore, stream family only: no blocking \
                         acquire to compare",
                    );
                }
                check("gate_families_agree", move || {
                    limit::conformance::same_admissions(kind).map(|()| {
                        "one scripted sequence of releases gives the same limit history through blocking and \
                         async acquires"
                            .to_string()
                    })
                })
            })
        });
        let joined = |name: &str, handle: std::thread::ScopedJoinHandle<'_, Check>| {
            handle.join().unwrap_or_else(|_| Check::new(name, false, "the check's thread panicked"))
        };
        (
            small.join().unwrap_or_else(|_| Err("the check's thread panicked".to_string())),
            rejections.join().unwrap_or_else(|_| {
                ["rejections_counted", "clean_after_rejections"]
                    .map(|name| Check::new(name, false, "the check's thread panicked"))
            }),
            follows.map(|h| joined("limit_follows_latency", h)),
            agree.map(|h| joined("gate_families_agree", h)),
            edges.join().unwrap_or_else(|_| {
                ["failing_calls", "caller_cancel"]
                    .map(|name| Check::new(name, false, "the check's thread panicked"))
                    .into()
            }),
        )
    });
    let mut checks = Vec::new();
    match small {
        Ok(run) => {
            checks.push(Check::new(
                "exactly_once",
                run.verified.is_ok(),
                run.verified.clone().err().map(String::from).unwrap_or_else(|| {
                    format!(
                        "{CALLS} calls through a capacity drop (40 → 8 slots, 2 ms): each completed once, right answer"
                    )
                }),
            ));
            checks.push(Check::new(
                "dependency_within_capacity",
                run.stats.over_capacity_starts == 0,
                format!(
                    "{} service starts at or above capacity; most in service at once {}",
                    run.stats.over_capacity_starts, run.stats.max_in_service
                ),
            ));
            if let Some(over) = run.over_limit {
                let ceiling = limiter.map_or(0, |kind| crate::config::limiter_ceiling(kind, &LimiterParams::small()));
                checks.push(Check::new(
                    "within_limit",
                    over == 0 && run.over_limit_issues == 0 && run.max_outstanding <= ceiling as u64,
                    format!(
                        "{over} admissions at or above the gate's limit; {} admissions at which the calls \
                         outstanding, counted from every call's record, exceeded the limit the gate had then; most \
                         outstanding {} against a ceiling of {ceiling}; most admitted at once {}",
                        run.over_limit_issues, run.max_outstanding, run.max_in_flight
                    ),
                ));
            }
        }
        Err(err) => checks.push(Check::new("exactly_once", false, err)),
    }
    checks.extend(rejections);
    checks.extend(follows);
    checks.extend(agree);
    // Failing calls at the first, a middle and the last call, and the caller's cancellation.
    checks.extend(edges);
    checks
}

/// Run `contestant` once over `calls` calls against `dependency`, with a gate built from `limits`.
fn small_run(
    contestant: Contestant,
    dependency: dependency::Config,
    calls: u64,
    limits: &LimiterParams,
    unbounded_threads: usize,
) -> Result<CheckRun, String> {
    let prepared = contestant.prepare(&check_config(&dependency, calls, *limits, unbounded_threads))?;
    small_run_on(&*prepared, contestant, dependency, calls, limits)
}

/// Run the prepared `contestant` once over `calls` calls against `dependency`, with a gate built from `limits`.
fn small_run_on(
    prepared: &dyn Prepared,
    contestant: Contestant,
    dependency: dependency::Config,
    calls: u64,
    limits: &LimiterParams,
) -> Result<CheckRun, String> {
    // As in a trial: the no-load latency the `aimd-latency-<k>x` thresholds multiply is measured first, calls
    // made one at a time and waited for this contestant's way, on an idle dependency with the same service.
    let idle = Dependency::start(dependency::Config { service: dependency.service, ..dependency::Config::default() })
        .map_err(|e| format!("cannot start the dependency: {e}"))?;
    let mut idle_latencies = prepared.idle_latencies(&idle, NO_LOAD_CALLS);
    idle.shutdown();
    idle_latencies.sort_unstable();
    let limits = LimiterParams {
        no_load: idle_latencies.get(idle_latencies.len() / 2).copied().unwrap_or(limits.no_load),
        ..*limits
    };
    run_on(prepared, contestant, dependency, calls, &limits, None)
}

/// [`CALLS`] calls, 40 slots of 2 ms dropping to 8 halfway.
fn drop_run(contestant: Contestant) -> Result<CheckRun, String> {
    let dependency = dependency::Config {
        capacity: 40,
        service: Duration::from_millis(2),
        schedule: vec![CapacityChange { at_call: CALLS / 2, capacity: 8 }],
        ..dependency::Config::default()
    };
    small_run(contestant, dependency, CALLS, &LimiterParams::small(), 200)
}

/// 500 calls against 10 slots of 2 ms with room for 5 queued: most are rejected; each must come back as an
/// error, counted once, and the run must end; the gate (limited contestants) must never admit above its limit
/// while the rejections go through, each freeing its permit at once. Then `clean_after_rejections`: on the same
/// prepared contestant (its runtime or pool), [`CLEAN_CALLS`] calls against a healthy dependency each complete
/// once with the right answer, none failing, the gate within its limit.
fn rejections(contestant: Contestant) -> [Check; 2] {
    let run = move || -> Result<[Verdict; 2], String> {
        let calls = 500;
        let (dependency, limits) = rejecting();
        let prepared = contestant.prepare(&check_config(&dependency, calls, limits, 100))?;
        let rejected = small_run_on(&*prepared, contestant, dependency, calls, &limits)?;
        let healthy = dependency::Config { capacity: 100, service: Duration::from_millis(2), ..Default::default() };
        let clean = small_run_on(&*prepared, contestant, healthy, CLEAN_CALLS, &limits)?;
        Ok([rejections_verdict(&rejected, calls), clean_verdict(&clean, CLEAN_CALLS)])
    };
    match guarded("rejections_counted", run) {
        Ok([rejected, clean]) => [as_check("rejections_counted", rejected), as_check("clean_after_rejections", clean)],
        Err(e) => [Check::new("rejections_counted", false, e.clone()), Check::new("clean_after_rejections", false, e)],
    }
}

/// The rejections run's dependency (10 slots of 2 ms that reject beyond 5 queued) and limits (a fixed bound and
/// adaptive limits well above what it serves).
fn rejecting() -> (dependency::Config, LimiterParams) {
    let dependency = dependency::Config {
        capacity: 10,
        service: Duration::from_millis(2),
        queue_limit: Some(5),
        ..dependency::Config::default()
    };
    (dependency, LimiterParams { fixed_limit: 100, initial: 50, max: 100, ..LimiterParams::small() })
}

/// A check's verdict: its detail, passed (`Ok`) or failed (`Err`).
type Verdict = Result<String, String>;

/// Calls of the clean run after the rejections.
pub const CLEAN_CALLS: u64 = 500;

fn as_check(name: &str, verdict: Result<String, String>) -> Check {
    match verdict {
        Ok(detail) => Check::new(name, true, detail),
        Err(detail) => Check::new(name, false, detail),
    }
}

/// The verdict of `rejections_counted` on a run of `calls` calls against a dependency that rejects most.
fn rejections_verdict(run: &CheckRun, calls: u64) -> Result<String, String> {
    run.verified.clone()?;
    if run.failures != run.stats.rejected {
        return Err(format!(
            "{} calls came back failed but the dependency rejected {}",
            run.failures, run.stats.rejected
        ));
    }
    if run.stats.completed + run.stats.rejected != calls {
        return Err(format!("{} completed + {} rejected != {calls} calls", run.stats.completed, run.stats.rejected));
    }
    if let Some(over) = run.over_limit.filter(|&over| over > 0) {
        return Err(format!(
            "{over} admissions above the gate's limit while rejections went through (most admitted at once {})",
            run.max_in_flight
        ));
    }
    Ok(format!(
        "{calls} calls, 10 slots, queue limit 5: {} rejected and counted as errors, {} completed, the run ended{}",
        run.stats.rejected,
        run.stats.completed,
        match run.over_limit {
            Some(_) =>
                format!("; the gate never admitted above its limit meanwhile (most at once {})", run.max_in_flight),
            None => String::new(),
        }
    ))
}

/// The verdict of `clean_after_rejections` on a clean run of `calls` calls on the prepared contestant.
fn clean_verdict(run: &CheckRun, calls: u64) -> Result<String, String> {
    run.verified.clone().map_err(|e| format!("after the rejections: {e}"))?;
    if run.failures != 0 || run.stats.completed != calls {
        return Err(format!(
            "after the rejections, a clean run of {calls} calls had {} failures and {} completed",
            run.failures, run.stats.completed
        ));
    }
    if let Some(over) = run.over_limit.filter(|&over| over > 0) {
        return Err(format!("after the rejections, {over} admissions above the gate's limit"));
    }
    Ok(format!(
        "after the rejection run, {calls} calls on the same prepared contestant against a healthy dependency: each \
         completed once with the right answer{}",
        if run.over_limit.is_some() { ", the gate within its limit" } else { "" }
    ))
}

/// 2,000 calls healthy (capacity above the limiter's ceiling), then 400 after a drop to 4 slots: the limit must reach 90% of
/// its ceiling before the drop, then fall to at most three quarters of that peak at some point after it
/// (adaptive limiters; Gradient2 and Vegas may climb back once the slower latency becomes their new normal), or
/// never move (fixed).
fn limit_follows_latency(contestant: Contestant, kind: LimiterKind) -> Result<String, String> {
    let limits = LimiterParams::small();
    let ceiling = crate::config::limiter_ceiling(kind, &limits);
    let calls = 2_400;
    let dependency = dependency::Config {
        capacity: 100,
        service: Duration::from_millis(2),
        schedule: vec![CapacityChange { at_call: 2_000, capacity: 4 }],
        ..dependency::Config::default()
    };
    let run = small_run(contestant, dependency, calls, &limits, 100)?;
    run.verified.clone()?;
    let drop_after = run.drop_after.ok_or("the dependency's capacity never dropped")?;
    let history = &run.limit_history;
    let peak = history.iter().filter(|(at, _)| *at <= drop_after).map(|(_, l)| *l).max().unwrap_or(0);
    let low = history.iter().filter(|(at, _)| *at > drop_after).map(|(_, l)| *l).min().unwrap_or(peak);
    let last = history.last().map_or(0, |(_, l)| *l);
    let reached = peak * 10 >= ceiling * 9;
    match kind {
        LimiterKind::Fixed => {
            if history.iter().all(|(_, l)| *l == ceiling) {
                Ok(format!("the fixed limit stayed at {ceiling} throughout"))
            } else {
                Err(format!("the fixed limit moved: peak {peak}, lowest after the drop {low}, expected {ceiling}"))
            }
        }
        _ if !reached => Err(format!(
            "against a healthy dependency the limit peaked at {peak}, short of 90% of its ceiling {ceiling}: the \
             contestant did not keep its gate full"
        )),
        _ if low * 4 > peak * 3 => Err(format!(
            "after the dependency slowed (100 → 4 slots) the limit only fell to {low}, not to three quarters of its \
             peak {peak}"
        )),
        _ => Ok(format!(
            "peaked at {peak} of a ceiling of {ceiling} while the dependency was healthy, fell to {low} after it \
             slowed (100 → 4 slots), ended at {last}"
        )),
    }
}

/// Run `work` in a helper thread under the watchdog: its own error, or the watchdog's reason when it panicked,
/// hung or could not start.
fn guarded<T: Send + 'static>(
    name: &str,
    work: impl FnOnce() -> Result<T, String> + Send + 'static,
) -> Result<T, String> {
    watchdog::guarded(name, WATCHDOG, work)
}

#[cfg(test)]
mod tests {
    use dependency::Stats;

    use super::*;

    /// A real rejection run of `name` (the first half of `rejections`), and a clean run after it.
    fn runs(name: &str) -> (CheckRun, CheckRun) {
        let contestant = Contestant::find(name).unwrap_or_else(|| panic!("no contestant {name}"));
        let (dependency, limits) = rejecting();
        let rejected = small_run(contestant, dependency, 500, &limits, 100).unwrap_or_else(|e| panic!("{e}"));
        let healthy = dependency::Config { capacity: 100, service: Duration::from_millis(2), ..Default::default() };
        let clean = small_run(contestant, healthy, CLEAN_CALLS, &limits, 100).unwrap_or_else(|e| panic!("{e}"));
        (rejected, clean)
    }

    #[test]
    fn rejections_counted_rejects_a_gate_that_over_admits_while_calls_fail() {
        let (rejected, _) = runs("blocking-fixed");
        assert!(rejections_verdict(&rejected, 500).is_ok());
        // The same run, had the gate let three calls past its limit while the rejections freed their permits.
        let over = CheckRun { over_limit: Some(3), ..rejected };
        let verdict = rejections_verdict(&over, 500).expect_err("it over-admitted");
        assert!(verdict.contains("above the gate's limit while rejections went through"), "{verdict}");
    }

    #[test]
    fn clean_after_rejections_rejects_a_contestant_left_broken() {
        let (_, clean) = runs("stream-fixed");
        assert!(clean_verdict(&clean, CLEAN_CALLS).is_ok());
        // The same run, had a worker left dead by the rejections lost calls: failures, fewer completed.
        let stats = Stats { completed: clean.stats.completed - 10, ..clean.stats };
        let broken = CheckRun { failures: 10, stats, ..clean };
        assert!(clean_verdict(&broken, CLEAN_CALLS).is_err());
    }
}
