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
//! - `gate_families_agree`: one scripted sequence of releases, driven through the gate's blocking and async
//!   acquire, gives the same limit history ([`crate::limit::conformance::same_admissions`]).
//!
//! Then the edges:
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
//! Each edge check is shown to reject a deliberately broken contestant in this module's tests.

use std::sync::Arc;
use std::time::{Duration, Instant};

use dependency::{CapacityChange, Dependency, Stats};
use measure::summary::Check;
use measure::watchdog;
use pipelines::calls::{self, FaultAt};
use pipelines::cancel::{seeded_point, CallerCancel};

use super::contestants::{Contestant, Job, Prepared};
use crate::config::{limiter_ceiling, OverloadConfig};
use crate::error::LedgerError;
use crate::ledger::Ledger;
use crate::limit::{self, Gate, LimiterKind, LimiterParams};

/// How long a check may take before it counts as hung.
pub const WATCHDOG: Duration = Duration::from_secs(30);
/// Calls of the small runs.
pub const CALLS: u64 = 1_000;
/// Calls made one at a time before each small run, to measure the no-load latency.
const NO_LOAD_CALLS: u32 = 9;
/// Calls of the clean run after the rejections.
pub const CLEAN_CALLS: u64 = 500;
/// Calls of each edge run.
pub const EDGE_CALLS: u64 = 1_000;
/// The most a cancelled run may take to return after the caller raised the cancellation (the calls kit's).
pub use pipelines::calls::CANCEL_WITHIN;
/// The calls at which the caller cancels (the point is seeded by the contestant's name).
pub const CANCEL_POINTS: std::ops::Range<u64> = 100..900;
/// Threads of `blocking-unbounded` in the edge runs.
const UNBOUNDED_THREADS: usize = 200;
/// How long the runtime's tasks have to finish after a cancelled run returned.
const TASKS_SETTLE: Duration = Duration::from_millis(500);

/// Checks run in a thread of their own: their names (each fails with them if the thread panics), and the work.
type Part = (Vec<&'static str>, Box<dyn FnOnce() -> Vec<Check> + Send>);

/// A part of one check from guarded `work` returning its detail.
fn part(name: &'static str, work: impl FnOnce() -> Result<String, String> + Send + 'static) -> Part {
    (vec![name], Box::new(move || vec![check(name, work)]))
}

/// Every check for `contestant`, in order. The checks are independent (each starts its own dependency and
/// gate), so they run at the same time, each under its own watchdog; they wait on millisecond timers far more
/// than they compute, and none judges speed.
pub fn all(contestant: Contestant) -> Vec<Check> {
    let mut parts: Vec<Part> = vec![
        (vec!["exactly_once"], Box::new(move || small_checks(contestant))),
        (vec!["rejections_counted", "clean_after_rejections"], Box::new(move || rejections(contestant))),
    ];
    if let Some(kind) = contestant.limiter() {
        parts.push(part("limit_follows_latency", move || limit_follows_latency(contestant, kind)));
        parts.push((vec!["gate_families_agree"], Box::new(move || vec![gate_families_agree(kind)])));
    }
    // Failing calls at the first, a middle and the last call, and the caller's cancellation.
    parts.push(part("failing_calls", move || prepared_then(contestant, failing_calls)));
    parts.push(part("caller_cancel", move || prepared_then(contestant, caller_cancel)));
    std::thread::scope(|scope| {
        // Every run here waits on 2 ms calls far more than it computes, so they run side by side.
        let running: Vec<_> = parts.into_iter().map(|(names, work)| (names, scope.spawn(work))).collect();
        running
            .into_iter()
            .flat_map(|(names, handle)| {
                handle.join().unwrap_or_else(|_| {
                    names.into_iter().map(|name| Check::new(name, false, "the check's thread panicked")).collect()
                })
            })
            .collect()
    })
}

/// `gate_families_agree` for `kind`.
fn gate_families_agree(kind: LimiterKind) -> Check {
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
}

/// `exactly_once`, `dependency_within_capacity` and (limited contestants) `within_limit`, from one small run
/// through a capacity drop.
fn small_checks(contestant: Contestant) -> Vec<Check> {
    let run = match watchdog::guarded("exactly_once", WATCHDOG, move || drop_run(contestant)) {
        Ok(run) => run,
        Err(err) => return vec![Check::new("exactly_once", false, err)],
    };
    let mut checks = vec![
        Check::new(
            "exactly_once",
            run.verified.is_ok(),
            run.verified.clone().err().map(String::from).unwrap_or_else(|| {
                format!("{CALLS} calls through a capacity drop (40 → 8 slots, 2 ms): each completed once, right answer")
            }),
        ),
        Check::new(
            "dependency_within_capacity",
            run.stats.over_capacity_starts == 0,
            format!(
                "{} service starts at or above capacity; most in service at once {}",
                run.stats.over_capacity_starts, run.stats.max_in_service
            ),
        ),
    ];
    if let Some(over) = run.over_limit {
        let ceiling = contestant.limiter().map_or(0, |kind| limiter_ceiling(kind, &LimiterParams::small()));
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
    let no_load = prepared.idle_median(&idle, NO_LOAD_CALLS).unwrap_or(limits.no_load);
    idle.shutdown();
    let limits = LimiterParams { no_load, ..*limits };
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
fn rejections(contestant: Contestant) -> Vec<Check> {
    calls::guarded(&["rejections_counted", "clean_after_rejections"], WATCHDOG, move || {
        let calls = 500;
        let (dependency, limits) = rejecting();
        let prepared = contestant.prepare(&check_config(&dependency, calls, limits, 100))?;
        let rejected = small_run_on(&*prepared, contestant, dependency, calls, &limits)?;
        let healthy = dependency::Config { capacity: 100, service: Duration::from_millis(2), ..Default::default() };
        let clean = small_run_on(&*prepared, contestant, healthy, CLEAN_CALLS, &limits)?;
        let clean = [calls::verdict("exactly_once", clean_verdict(&clean, CLEAN_CALLS))];
        Ok(vec![
            calls::verdict("rejections_counted", rejections_verdict(&rejected, calls)),
            calls::clean_after("clean_after_rejections", "after the rejection run", &clean),
        ])
    })
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

/// The verdict of `rejections_counted` on a run of `calls` calls against a dependency that rejects most.
fn rejections_verdict(run: &CheckRun, calls: u64) -> Result<String, String> {
    run.verified.clone()?;
    if run.failed.len() as u64 != run.stats.rejected {
        return Err(format!(
            "{} calls came back failed but the dependency rejected {}",
            run.failed.len(),
            run.stats.rejected
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

/// The verdict on the clean run of `calls` calls on the prepared contestant after the rejections, which
/// `clean_after_rejections` ([`calls::clean_after`]) reads.
fn clean_verdict(run: &CheckRun, calls: u64) -> Result<String, String> {
    all_completed(run, calls)?;
    if let Some(over) = run.over_limit.filter(|&over| over > 0) {
        return Err(format!("{over} admissions above the gate's limit"));
    }
    Ok(format!(
        "{calls} calls on the same prepared contestant against a healthy dependency: each completed once with the \
         right answer{}",
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

/// A named check from a guarded run returning its detail.
fn check(name: &'static str, work: impl FnOnce() -> Result<String, String> + Send + 'static) -> Check {
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
fn check_config(
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
        drop: crate::settle::DropRule::default(),
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
struct CheckRun {
    /// Every call recorded once, each success with the right answer.
    verified: Result<(), LedgerError>,
    /// Every recorded call recorded once, each success with the right answer (calls never recorded allowed).
    delivered_once: Result<(), LedgerError>,
    /// Calls recorded.
    recorded: u64,
    /// The calls recorded as failed.
    failed: Vec<u64>,
    /// The dependency's counts.
    stats: Stats,
    /// Gate admissions at or above its limit (limited contestants).
    over_limit: Option<u64>,
    /// Admissions at which the records' outstanding count exceeded the gate's limit then.
    over_limit_issues: u64,
    /// The most calls outstanding, from the records.
    max_outstanding: u64,
    /// The most calls the gate admitted at once (0 without one).
    max_in_flight: usize,
    /// The gate's limit history.
    limit_history: Vec<(Duration, usize)>,
    /// When the capacity dropped, on the gate's clock (the gate is created right after the ledger, so the
    /// ledger's clock stands in for it to within microseconds).
    drop_after: Option<Duration>,
    /// When the run returned.
    returned: Instant,
}

/// Run the prepared `contestant` once over `calls` calls against `dependency`, with a fresh gate built from
/// `limits`, cancelled by `cancel` if given.
fn run_on(
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
    let analysis = crate::analysis::analyse(&records, None, 100_000);
    let metric = |key: &str| analysis.metrics.get(key).map_or(0, |&v| v as u64);
    Ok(CheckRun {
        verified: ledger.verify(),
        delivered_once: ledger.verify_delivered(),
        recorded: records.len() as u64,
        failed: (0..calls).filter(|&i| ledger.get(i).is_some_and(|r| r.failed)).collect(),
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

/// Whether a run of `calls` calls completed every one once with the right answer, none failing.
fn all_completed(run: &CheckRun, calls: u64) -> Result<(), String> {
    run.verified.clone()?;
    if !run.failed.is_empty() || run.stats.completed != calls {
        return Err(format!("{} failed, {} of {calls} completed", run.failed.len(), run.stats.completed));
    }
    Ok(())
}

/// The verdict on a clean run of `calls` calls after the edge runs on the same prepared contestant.
fn clean_after_edges(run: &CheckRun, calls: u64, width: u64) -> Result<(), String> {
    all_completed(run, calls).and_then(|()| bound_held(run, width)).map_err(|e| format!("the clean run after: {e}"))
}

/// `failing_calls` on a prepared contestant.
fn failing_calls(prepared: &dyn Prepared, contestant: Contestant) -> Result<String, String> {
    let (calls, width) = (EDGE_CALLS, width(contestant, EDGE_CALLS));
    let run =
        |fail, cancel| run_on(prepared, contestant, edge_dependency(fail), calls, &LimiterParams::small(), cancel);
    for fault in FaultAt::ALL {
        let (place, at) = (fault.place(), fault.call(calls));
        let run = run(vec![at], None)?;
        failing_verdict(&run, at, calls, width).map_err(|e| format!("call {at} ({place}) failed: {e}"))?;
    }
    clean_after_edges(&run(Vec::new(), None)?, calls, width)?;
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
    if let Some(late) = calls::late(took, CANCEL_WITHIN, "the cancel") {
        return Err(late);
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
    let when = format!("on the runtime {} ms after it returned", TASKS_SETTLE.as_millis());
    calls::tasks_left(alive_tasks, &when).map_or(Ok(took), Err)
}

/// The most calls a run cancelled when `passed` calls had reached issue may issue in all: those, and what the
/// contestant may hold at once (in flight when the cancel landed, or issued before it noticed).
fn most_issued(passed: u64, width: u64) -> u64 {
    passed.saturating_add(width)
}

/// `caller_cancel` on a prepared contestant.
fn caller_cancel(prepared: &dyn Prepared, contestant: Contestant) -> Result<String, String> {
    let (calls, width) = (EDGE_CALLS, width(contestant, EDGE_CALLS));
    let run =
        |cancel| run_on(prepared, contestant, edge_dependency(Vec::new()), calls, &LimiterParams::small(), cancel);
    let point = seeded_point(&contestant.name(), CANCEL_POINTS);
    let cancel = Arc::new(CallerCancel::at(point));
    let caller = CallerCancel::spawn_canceller(&cancel).map_err(|e| format!("could not start the caller: {e}"))?;
    let cancelled = run(Some(&cancel));
    cancel.abandon();
    let _ = caller.join();
    let cancelled = cancelled?;
    let alive = alive_after(prepared);
    let raised = cancel.raised_at().zip(cancel.passed_at_raise());
    let took = cancel_verdict(&cancelled, raised, point, width, alive)
        .map_err(|e| format!("cancelled at call {point}: {e}"))?;
    clean_after_edges(&run(None)?, calls, width)?;
    Ok(format!(
        "cancelled by the caller at call {point} of {calls}: returned {:.1} ms later (limit {} ms), {} calls \
         issued (at most {}), {} answered, each once with the right answer, the bound held{}; then a clean run on \
         the same prepared contestant completed every call once",
        took.as_secs_f64() * 1e3,
        CANCEL_WITHIN.as_millis(),
        cancelled.stats.issued,
        raised.map_or(0, |(_, passed)| most_issued(passed, width)),
        cancelled.recorded,
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
    use crate::job::{finish_call, THREAD_STACK_BYTES};

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
        let broken = CheckRun { failed: (0..10).collect(), stats, ..clean };
        assert!(clean_verdict(&broken, CLEAN_CALLS).is_err());
    }
}
