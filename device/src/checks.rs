//! Checks every device and backpressure contestant passes before its figures mean anything, written once for
//! all contestants and run in `cargo test` and in every trial process before timing, each on a helper thread
//! under a watchdog ([`WATCHDOG`]). None of them judges speed.
//!
//! - `sum_exact`: [`ITEMS`] calls, the sum of the answers exact, every call answered once (the device issued
//!   and completed exactly that many; no call failed).
//! - `small_run_bound`: in that run, the exact high-water mark of outstanding calls stayed within the bound
//!   plus one (bounded contestants; unbounded ones report how far they went). The measured iterations are held
//!   to their own bound by the trial's `bounded_outstanding` check.
//! - `failed_calls`: calls that fail at the first item, in a burst of two full windows in the middle and at the
//!   last item ([`failure_plan`]) are each counted once, every other call is answered once with the right sum,
//!   the bound holds while the failures go through (each failure frees its slot at once: a contestant that
//!   over-admits on failure shows it here), and nothing is left outstanding or running.
//! - `clean_after_failures`: then a clean run on the same prepared contestant (its runtime) is exact and
//!   bounded.
//! - `cut_short_releases`: with a time budget far too short for its items (the caller's cancellation: the
//!   deadline is raised from outside the contestant's work), the run stops taking items at the deadline,
//!   returns within [`CANCEL_WITHIN`] of it (the calls kit's bound, after a cancel or a deadline), lets go of
//!   every outstanding call, and leaves no thread behind.
//! - `caller_cancel`: cancelled from outside ([`Deadline::cancel`], the caller's stop: the stream runner drops
//!   the pipeline, the threads and coroutines stop taking items) at a seeded point mid-run ([`cancel_point`]),
//!   the run returns once and promptly (within [`CANCEL_WITHIN`] of the cancel, without an error), delivers
//!   nothing after it returned, leaves no call outstanding, no task alive and no thread behind, made no call
//!   twice ([`OnceLedger`]), delivered no answer the device did not give, and delivered every
//!   answer it did deliver exactly once: each delivered answer is traced back to its input
//!   ([`crate::call::DeliveryLedger`], fed by the check's own meter, [`LedgerMeter`]), and no two came from
//!   the same input, none from an input never called and none from no input at all.
//! - `skips_with_reason` (contestants that start threads up front): asked for more threads than the OS allows,
//!   it is skipped with the OS's limits as the reason, before starting any: the threads counted are the ones
//!   the contestant itself started ([`crate::job::Shared::threads_started`]), not the process's, which other
//!   threads (a runtime's, the watchdog's) can change at any moment.
//!
//! Every check runs the metered instantiation of the contestant ([`GaugeMeter`]), the one accounting
//! iterations run (`caller_cancel` runs [`LedgerMeter`], the same gauge with its delivery ledger); the timed
//! instantiation ([`measure::meter::NoMeter`]) is the same generic code, and every timed run's answer is
//! checked by the trial.

use std::ops::Range;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use measure::gauge::Outstanding;
use measure::meter::GaugeMeter;
use measure::summary::Check;
use pipelines::calls::{self, Held, Leftovers, OnceLedger, Problems};

use crate::call::{Call, Deliveries, DeliveryLedger, FaultyCall};
use crate::contestants::{BlockingShape, Contestant, Prepared};
use crate::job::{Job, LedgerMeter, RunError, Shared, Totals};

/// How long a check may take before it counts as hung.
pub const WATCHDOG: Duration = Duration::from_secs(30);
/// Items of the exactness run.
pub const ITEMS: u64 = 3_000;
/// The bound of the exactness run.
pub const LIMIT: usize = 40;
/// The checks' own small sizes ([`ITEMS`] calls, bound [`LIMIT`]).
pub const SMALL: Sizes = Sizes { items: ITEMS, limit: LIMIT };
/// Service time of the checks' calls.
pub const SERVICE: Duration = Duration::from_millis(1);
/// The time budget of the small runs: far more than they need.
pub const SMALL_BUDGET: Duration = Duration::from_secs(20);

/// Why a check failed: its run could not be made, or what the run did wrong.
#[derive(Debug, thiserror::Error)]
pub enum CheckFailed {
    /// Preparing the contestant, starting the device or the run itself failed.
    #[error(transparent)]
    Run(#[from] RunError),
    /// What the run did wrong, one phrase each.
    #[error("{}", .0.join("; "))]
    Problems(Vec<String>),
}

impl From<String> for CheckFailed {
    fn from(problem: String) -> CheckFailed {
        CheckFailed::Problems(vec![problem])
    }
}

impl CheckFailed {
    /// A verdict from its table of what can go wrong: `detail` when no entry of `problems` was found (each is
    /// `Some` phrase where its condition held), else the problems found.
    fn unless(
        problems: impl IntoIterator<Item = Option<String>>,
        detail: impl FnOnce() -> String,
    ) -> Result<String, CheckFailed> {
        problems.into_iter().collect::<Problems>().verdict(detail).map_err(CheckFailed::Problems)
    }
}

/// The checks named `names` that `work` makes, under the watchdog ([`WATCHDOG`]); when it cannot make them (its
/// run could not be made, it panicked or hung), each fails with the reason ([`calls::guarded`]).
fn guarded(
    names: &[&'static str],
    work: impl FnOnce() -> Result<Vec<Check>, CheckFailed> + Send + 'static,
) -> Vec<Check> {
    calls::guarded(names, WATCHDOG, move || work().map_err(|e| e.to_string()))
}

/// The one check `name` that `work`'s verdict makes, under the watchdog.
fn check(name: &'static str, work: impl FnOnce() -> Result<String, CheckFailed> + Send + 'static) -> Check {
    measure::watchdog::guarded_check(name, WATCHDOG, move || work().map_err(|e| e.to_string()))
}

/// The sizes a scenario runs the exactness and failure checks at: the items of each run and its bound.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sizes {
    /// Items of the exactness and failure runs.
    pub items: u64,
    /// Their bound on outstanding calls.
    pub limit: usize,
}

/// Every check for `contestant`, in order, the exactness and failure runs at `sizes`; `seed` places the caller's
/// cancel ([`cancel_point`]).
pub fn all(contestant: Contestant, sizes: Sizes, seed: u64) -> Vec<Check> {
    let mut checks = guarded(&["sum_exact"], move || {
        let run = small_run(contestant, sizes.items, sizes.limit, SMALL_BUDGET)?;
        Ok(vec![sum_exact(&run), bounded(contestant, &run)])
    });
    checks.extend(failures(contestant, sizes));
    checks.push(check("cut_short_releases", move || cut_short_releases(contestant)));
    checks.push(check("caller_cancel", move || caller_cancel(contestant, seed)));
    if matches!(contestant, Contestant::Blocking { shape: BlockingShape::Pool | BlockingShape::ChannelWorkers(_), .. })
    {
        checks.push(check("skips_with_reason", move || skips_with_reason(contestant)));
    }
    checks
}

/// What a small run left behind.
#[derive(Debug, Clone)]
pub struct SmallRun {
    /// Items asked for.
    pub items: u64,
    /// The bound it ran with.
    pub limit: usize,
    /// The counters at the end.
    pub totals: Totals,
    /// Exact high-water mark of outstanding calls.
    pub max_outstanding: i64,
    /// Outstanding calls left on the gauge when the run returned.
    pub left_outstanding: i64,
    /// Calls the device issued and completed (`None` on the contestant's own timer).
    pub device_calls: Option<(u64, u64)>,
    /// The threads (or sockets) the run left behind, once they had [`SETTLE`] to end ([`Leftovers::left`]).
    pub left_behind: Option<String>,
    /// How long the run took after its deadline, if it passed it.
    pub overran: Duration,
}

impl SmallRun {
    /// Whether more calls were outstanding at once than the bound plus one (the contract's tolerance).
    fn over_bound(&self) -> bool {
        self.max_outstanding > self.limit as i64 + 1
    }
}

/// Run `contestant` once over `items` with bound `limit` and time budget `budget`.
pub fn small_run(contestant: Contestant, items: u64, limit: usize, budget: Duration) -> Result<SmallRun, CheckFailed> {
    let prepared = contestant.prepare()?;
    let call = Call::start(contestant.timer(), SERVICE)?;
    small_run_on(&prepared, call, items, limit, budget)
}

/// Run the prepared contestant once over `items` with bound `limit` and time budget `budget`, making each call
/// with `call`.
pub fn small_run_on(
    prepared: &Prepared,
    call: Call,
    items: u64,
    limit: usize,
    budget: Duration,
) -> Result<SmallRun, CheckFailed> {
    let gauge = Arc::new(Outstanding::new());
    let shared = Arc::new(Shared::new(GaugeMeter::new(Arc::clone(&gauge))));
    let baseline = Held::now();
    let job = Job::new(items, limit, call.clone(), budget, Arc::clone(&shared));
    prepared.run(&job, &mut || {})?;
    let overran = Instant::now().saturating_duration_since(job.deadline.instant());
    let left_behind = Leftovers::settle(baseline, SETTLE).left("the return");
    let device_calls = call.device().map(|d| {
        let stats = d.stats();
        (stats.issued, stats.completed)
    });
    Ok(SmallRun {
        items,
        limit,
        totals: shared.outcome(),
        max_outstanding: gauge.high_water(),
        left_outstanding: gauge.current(),
        device_calls,
        left_behind,
        overran,
    })
}

/// The item of the middle failure burst: calls of `FAULT_AT..FAULT_AT + 2 × LIMIT` fail, two full windows of
/// failures one after another.
pub const FAULT_AT: u64 = 1_000;

/// The failing calls of the failure run over `items` with bound `limit`: the first item (before any answer),
/// a burst of two full windows from [`FAULT_AT`] (in the middle of a full window, each failure freeing its slot
/// at once), and the last item (while the run drains).
pub fn failure_plan(items: u64, limit: usize) -> Vec<Range<u64>> {
    let burst = FAULT_AT.min(items)..(FAULT_AT + 2 * limit as u64).min(items);
    vec![0..1, burst, items.saturating_sub(1)..items]
}

/// `failed_calls` then `clean_after_failures`, on one prepared contestant: a run whose calls fail at the first
/// item, in a burst of two full windows in the middle and at the last item ([`failure_plan`]) counts each
/// failure once, answers every other call once with the right sum, keeps its bound while the failures go
/// through (bounded contestants) and leaves nothing outstanding or running; then a clean run on the same
/// prepared contestant (its runtime, if any) passes `sum_exact` and the bound; both runs at `sizes`.
pub fn failures(contestant: Contestant, sizes: Sizes) -> Vec<Check> {
    let Sizes { items, limit } = sizes;
    guarded(&["failed_calls", "clean_after_failures"], move || {
        let prepared = contestant.prepare()?;
        let fail = failure_plan(items, limit);
        let faulty = FaultyCall { inner: Call::start(contestant.timer(), SERVICE)?, fail: fail.clone(), ledger: None };
        let failed = small_run_on(&prepared, Call::Faulty(Arc::new(faulty)), items, limit, SMALL_BUDGET)?;
        let call = Call::start(contestant.timer(), SERVICE)?;
        let clean = small_run_on(&prepared, call, items, limit, SMALL_BUDGET)?;
        let after = format!("after a run with {} failed calls", count_failing(&fail, items));
        let clean_checks = [sum_exact(&clean), bounded(contestant, &clean)];
        Ok(vec![
            calls::verdict("failed_calls", failure_verdict(&failed, &fail, contestant.bounded())),
            calls::clean_after("clean_after_failures", &after, &clean_checks),
        ])
    })
}

/// How many of `0..items` the calls failing at `fail` are.
fn count_failing(fail: &[Range<u64>], items: u64) -> u64 {
    (0..items).filter(|i| fail.iter().any(|range| range.contains(i))).count() as u64
}

/// What a small run whose calls of `fail` failed (none: every call answered) must show, as a verdict's table:
/// each failure counted once, every other call answered once with the right sum (the answers of the calls that
/// did not fail), the device's calls matching, nothing left outstanding.
fn exactness(run: &SmallRun, fail: &[Range<u64>]) -> [Option<String>; 6] {
    let fails = |i: &u64| fail.iter().any(|range| range.contains(i));
    let failing = count_failing(fail, run.items);
    let answered = run.items - failing;
    let expected =
        (0..run.items).filter(|i| !fails(i)).fold(0u64, |sum, i| sum.wrapping_add(dependency::Dependency::answer(i)));
    let totals = &run.totals;
    [
        (totals.failed != failing).then(|| format!("{} calls counted failed instead of {failing}", totals.failed)),
        (totals.completed != answered).then(|| format!("{} calls answered instead of {answered}", totals.completed)),
        (totals.sum != expected)
            .then(|| format!("sum {} instead of {expected} (the answers of the calls that did not fail)", totals.sum)),
        match &totals.first_failure {
            Some(first) => (!fails(&first.input)).then(|| format!("a call that should not fail failed: {first}")),
            None => (failing > 0).then(|| "no failure recorded".to_string()),
        },
        run.device_calls.filter(|&(issued, completed)| issued != answered || completed != answered).map(
            |(issued, completed)| format!("the device issued {issued} and completed {completed} calls for {answered}"),
        ),
        outstanding(run.left_outstanding),
    ]
}

/// The verdict of `failed_calls` on a run whose calls of `fail` failed; `bounded` holds it to its bound plus
/// one while the failures go through.
pub fn failure_verdict(run: &SmallRun, fail: &[Range<u64>], bounded: bool) -> Result<String, CheckFailed> {
    let failing = count_failing(fail, run.items);
    let most = u64::try_from(run.max_outstanding).unwrap_or(0);
    let what = "calls outstanding at once while the failures went through (the bound plus one)";
    let over = calls::over_bound(most, run.limit as u64 + 1, what).filter(|_| bounded);
    CheckFailed::unless(exactness(run, fail).into_iter().chain([over, run.left_behind.clone()]), || {
        format!(
            "{failing} of {} calls failed at once (item 0, a burst of two full windows from item {FAULT_AT}, the \
             last item): each counted once, the other {} answered once, sum exact; {}; nothing outstanding or left \
             running",
            run.items,
            run.items - failing,
            if bounded {
                format!(
                    "at most {} outstanding while the failures went through, bound {} + 1",
                    run.max_outstanding, run.limit
                )
            } else {
                format!("unbounded by design, {} outstanding at most", run.max_outstanding)
            }
        )
    })
}

/// The calls a run left counted outstanding when it returned, if any.
fn outstanding(left: i64) -> Option<String> {
    (left != 0).then(|| format!("{left} calls still counted outstanding when the run returned"))
}

/// How long threads that are ending may take to go after a run returned.
const SETTLE: Duration = Duration::from_secs(1);

/// `sum_exact` on a clean small run: every call answered once, the sum exact, nothing outstanding.
fn sum_exact(run: &SmallRun) -> Check {
    let detail = || {
        let device =
            if run.device_calls.is_some() { ", the device issued and completed exactly that many" } else { "" };
        format!("{} calls ({} ms each), every answer summed exactly once{device}", run.items, SERVICE.as_millis())
    };
    calls::verdict("sum_exact", CheckFailed::unless(exactness(run, &[]), detail))
}

/// `small_run_bound` on a small run: at most the bound plus one outstanding (not applicable when unbounded).
fn bounded(contestant: Contestant, run: &SmallRun) -> Check {
    if contestant.bounded() {
        Check::new(
            "small_run_bound",
            !run.over_bound(),
            format!("most calls outstanding at once {}, bound {} + 1", run.max_outstanding, run.limit),
        )
    } else {
        Check::not_applicable(
            "small_run_bound",
            format!("unbounded by design: {} calls outstanding at once (no bound to keep)", run.max_outstanding),
        )
    }
}

/// A budget of 30 ms for a million 1 ms calls.
fn cut_short_releases(contestant: Contestant) -> Result<String, CheckFailed> {
    let run = small_run(contestant, 1_000_000, 64, Duration::from_millis(30))?;
    let overran_ms = run.overran.as_secs_f64() * 1e3;
    let problems = [
        (run.totals.completed >= run.items).then(|| "every item was answered: the budget did not cut the run".into()),
        outstanding(run.left_outstanding),
        calls::late(run.overran, CANCEL_WITHIN, "the deadline"),
        run.left_behind.clone(),
    ];
    CheckFailed::unless(problems, || {
        format!(
            "a 30 ms budget for {} items: {} answered, stopped {overran_ms:.1} ms after the deadline (at most {} ms) \
             with nothing outstanding and no thread left",
            run.items,
            run.totals.completed,
            CANCEL_WITHIN.as_millis()
        )
    })
}

/// Items of the caller-cancel run: far more than it gets through before the cancel.
pub const CANCEL_ITEMS: u64 = 1_000_000;
/// The bound of the caller-cancel run.
pub const CANCEL_LIMIT: usize = 64;
/// The most a cancelled run may take to return after the cancel (the calls kit's, as every calls scenario's).
pub use pipelines::calls::CANCEL_WITHIN;
/// The cancel is sent once this many answers (at least the first, at most the last) have been delivered: 100
/// to 2,099, chosen by the seed ([`cancel_point`]), a few milliseconds into the run at the check's bound.
pub const CANCEL_AFTER: Range<u64> = 100..2_100;
/// How long after it returned a cancelled run is watched for answers delivered late.
pub const LATE_WATCH: Duration = Duration::from_millis(20);
/// The number of answers after which `seed`'s caller-cancel check cancels the run (in [`CANCEL_AFTER`]).
pub fn cancel_point(seed: u64) -> u64 {
    // splitmix64's finaliser: neighbouring seeds land far apart.
    let mut z = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^= z >> 31;
    CANCEL_AFTER.start + z % (CANCEL_AFTER.end - CANCEL_AFTER.start)
}

/// `caller_cancel`'s run and its verdict: run `run` over [`CANCEL_ITEMS`] items with bound [`CANCEL_LIMIT`], each
/// call made with `inner` and noted in a ledger, each answer delivered noted in another ([`LedgerMeter`]), cancel
/// it from another thread once [`cancel_point`]`(seed)` answers are in, and judge what it left behind (`live_tasks`
/// reads the tasks left alive when it returned): it returned once and promptly, delivered nothing after it
/// returned (watched for [`LATE_WATCH`]), left nothing outstanding, alive or running, called no input twice and
/// delivered every answer it delivered once, from an input it called.
pub fn cancel_verdict(
    run: &dyn Fn(&Job<LedgerMeter>) -> Result<(), RunError>,
    inner: Call,
    live_tasks: &dyn Fn() -> Option<usize>,
    seed: u64,
) -> Result<String, CheckFailed> {
    let faulty = Arc::new(FaultyCall { inner, fail: Vec::new(), ledger: Some(OnceLedger::new(CANCEL_ITEMS)) });
    let gauge = Arc::new(Outstanding::new());
    let delivered = Arc::new(DeliveryLedger::new(CANCEL_ITEMS));
    let meter = LedgerMeter { gauge: GaugeMeter::new(Arc::clone(&gauge)), ledger: Arc::clone(&delivered) };
    let shared = Arc::new(Shared::new(meter));
    let job =
        Job::new(CANCEL_ITEMS, CANCEL_LIMIT, Call::Faulty(Arc::clone(&faulty)), SMALL_BUDGET, Arc::clone(&shared));
    let cancel_after = cancel_point(seed);
    let baseline = Held::now();
    let done = AtomicBool::new(false);
    let (result, returned, cancel) = std::thread::scope(|scope| {
        let canceller = scope.spawn(|| {
            let give_up = Instant::now() + SMALL_BUDGET;
            loop {
                let answered = shared.outcome().completed;
                if answered >= cancel_after {
                    let at = Instant::now();
                    job.deadline.cancel();
                    return Some((at, answered));
                }
                if done.load(Ordering::Relaxed) || Instant::now() >= give_up {
                    return None;
                }
                std::thread::sleep(Duration::from_micros(200));
            }
        });
        let result = run(&job);
        let returned = Instant::now();
        done.store(true, Ordering::Relaxed);
        let cancel = canceller.join().unwrap_or(None);
        (result, returned, cancel)
    });
    let (at_return, left_outstanding, live) = (shared.outcome(), gauge.current(), live_tasks());
    std::thread::sleep(LATE_WATCH);
    let later = shared.outcome();
    let left_behind = Leftovers::settle(baseline, SETTLE).left("the return");
    // The device's answered calls and the calls it still held, `LATE_WATCH` after the return.
    let device = faulty.inner.device().map(|d| {
        let stats = d.stats();
        (stats.completed, stats.in_service + stats.queued)
    });
    let Some((at, answered)) = cancel else {
        return Err(format!(
            "the run returned ({result:?}) before its {cancel_after}th answer, with {} of {CANCEL_ITEMS} answered: the \
             cancel was never sent",
            at_return.completed
        )
        .into());
    };
    let noted = faulty.ledger.as_ref().map(OnceLedger::counts).unwrap_or_default();
    let (made, twice, outside) = (noted.notes, noted.twice, noted.outside);
    let d = faulty.ledger.as_ref().map_or_else(Deliveries::default, |calls| delivered.against(calls));
    let returned_after = returned.saturating_duration_since(at);
    let returned_ms = returned_after.as_secs_f64() * 1e3;
    let problems = [
        result.as_ref().err().map(|e| format!("the cancelled run returned an error: {e}")),
        calls::late(returned_after, CANCEL_WITHIN, "the cancel"),
        (at_return.completed >= CANCEL_ITEMS)
            .then(|| "every item was answered: the cancel did not stop the run".to_string()),
        (later.completed != at_return.completed || later.sum != at_return.sum).then(|| {
            format!("{} answers delivered after the run returned", later.completed.saturating_sub(at_return.completed))
        }),
        (at_return.failed > 0).then(|| format!("{} calls failed (a cancel fails no call)", at_return.failed)),
        outstanding(left_outstanding),
        calls::tasks_left(live, "when it returned"),
        left_behind,
        (twice > 0 || outside > 0)
            .then(|| format!("{twice} calls of an input already called, {outside} of an input never asked for")),
        (d.twice > 0 || d.never_called > 0 || d.foreign > 0).then(|| {
            format!(
                "of {} answers delivered, {} repeated an input's answer already delivered, {} came from an input \
                 never called and {} from no input at all",
                d.answers, d.twice, d.never_called, d.foreign
            )
        }),
        (later.completed > made).then(|| format!("{} answers delivered from {made} calls made", later.completed)),
        device
            .filter(|&(completed, _)| later.completed > completed)
            .map(|(completed, _)| format!("{} answers delivered, the device gave {completed}", later.completed)),
        device.filter(|&(_, held)| held > 0).map(|(_, held)| format!("the device still held {held} calls of the run")),
    ];
    CheckFailed::unless(problems, || {
        format!(
            "cancelled from outside after {answered} answers (seeded point {cancel_after}): returned {returned_ms:.1} \
             ms later (at most {} ms), {} of {CANCEL_ITEMS} answered, each input called at most once, every \
             delivered answer from a distinct input that was called, nothing delivered after it returned, nothing \
             outstanding, no task or thread left",
            CANCEL_WITHIN.as_millis(),
            at_return.completed,
        )
    })
}

/// Cancel `contestant` from outside mid-run and check what it left behind ([`cancel_verdict`]).
fn caller_cancel(contestant: Contestant, seed: u64) -> Result<String, CheckFailed> {
    let prepared = contestant.prepare()?;
    let inner = Call::start(contestant.timer(), SERVICE)?;
    cancel_verdict(&|job| prepared.run(job, &mut || {}), inner, &|| prepared.live_tasks(), seed)
}

/// Threads asked for by `skips_with_reason`: far more than any machine allows.
pub const TOO_MANY_THREADS: usize = 50_000_000;

/// Ask for far more threads than any machine allows.
fn skips_with_reason(contestant: Contestant) -> Result<String, CheckFailed> {
    let prepared = contestant.prepare()?;
    let call = Call::start(contestant.timer(), SERVICE)?;
    let shared = Arc::new(Shared::new(GaugeMeter::new(Arc::new(Outstanding::new()))));
    let job = Job::new(10, TOO_MANY_THREADS, call.clone(), Duration::from_secs(5), Arc::clone(&shared));
    let ran = prepared.run(&job, &mut || {});
    call.shut_down();
    skip_verdict(ran, shared.threads_started())
}
/// The verdict of `skips_with_reason` on what a run asked for [`TOO_MANY_THREADS`] returned, and how many
/// threads the contestant started on the way.
fn skip_verdict(ran: Result<(), RunError>, started: u64) -> Result<String, CheckFailed> {
    let asked = measure::units::thousands(TOO_MANY_THREADS as u64);
    match ran {
        Ok(()) => Err(format!("{asked} threads were asked for and the run did not refuse").into()),
        Err(RunError::Broken(problem)) => {
            Err(format!("{asked} threads were asked for and the run broke: {problem}").into())
        }
        Err(RunError::Skipped(reason)) if started > 0 => {
            Err(format!("refused ({reason}) but only after starting {started} threads of its own").into())
        }
        Err(RunError::Skipped(reason)) if reason.contains("do not fit") || reason.contains("refused") => {
            Ok(format!("asked for {asked} threads, skipped before starting any of its own: {reason}"))
        }
        Err(RunError::Skipped(reason)) => Err(format!("refused without naming the OS's limit: {reason}").into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contestants::{ChannelFlavor, Timer};
    use crate::job::Totals;

    #[test]
    fn skips_with_reason_fails_a_run_that_started_threads_or_did_not_refuse() {
        let limit = || RunError::Skipped("50,000,000 threads do not fit: pid_max 4,194,304".to_string());
        assert!(skip_verdict(Err(limit()), 0).is_ok());
        let late = skip_verdict(Err(limit()), 31_000).expect_err("it started threads first").to_string();
        assert!(late.contains("only after starting 31000 threads"), "{late}");
        assert!(skip_verdict(Ok(()), 0).is_err());
        assert!(skip_verdict(Err(RunError::Broken("panicked".to_string())), 0).is_err());
        assert!(skip_verdict(Err(RunError::Skipped("no reason given".to_string())), 0).is_err());
    }

    #[test]
    fn every_blocking_shape_counts_the_threads_it_started() {
        let shapes = [
            (BlockingShape::Pool, 8),
            (BlockingShape::ChannelWorkers(ChannelFlavor::Crossbeam), 9),
            (BlockingShape::ThreadPerItem, 100),
        ];
        for (shape, threads) in shapes {
            let contestant = Contestant::Blocking { shape, timer: Timer::Own };
            let shared = Arc::new(Shared::new(GaugeMeter::new(Arc::new(Outstanding::new()))));
            let job = Job::new(
                100,
                8,
                Call::OwnTimer(Duration::from_micros(10)),
                Duration::from_secs(5),
                Arc::clone(&shared),
            );
            let prepared = contestant.prepare().expect("a blocking contestant needs no runtime");
            prepared.run(&job, &mut || {}).expect("the run completes");
            assert_eq!(shared.threads_started(), threads, "{}", contestant.name());
            assert_eq!(shared.outcome().completed, 100, "{}", contestant.name());
        }
    }

    /// A pool of `limit` threads that, when a call fails, starts a replacement worker before the failed one has
    /// let go of its slot and keeps both: the over-admitting-on-failure bug `failed_calls` exists to catch.
    fn over_admitting_run(job: &Job<GaugeMeter>) {
        let next = std::sync::atomic::AtomicU64::new(0);
        fn worker<'scope, 'env>(
            job: &'env Job<GaugeMeter>,
            next: &'env std::sync::atomic::AtomicU64,
            scope: &'scope std::thread::Scope<'scope, 'env>,
        ) {
            loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                if i >= job.items {
                    return;
                }
                let in_flight = job.shared.in_flight();
                let answer = job.call.call_blocking(i);
                let failed = answer.is_err();
                job.shared.record(answer);
                if failed {
                    // The bug: a replacement is started while this call still holds its slot, and both stay.
                    scope.spawn(move || worker(job, next, scope));
                    std::thread::sleep(SERVICE);
                }
                drop(in_flight);
            }
        }
        std::thread::scope(|scope| {
            for _ in 0..job.limit {
                let next = &next;
                scope.spawn(move || worker(job, next, scope));
            }
        });
    }

    #[test]
    fn failed_calls_rejects_a_contestant_that_over_admits_on_failure() {
        let fail = failure_plan(ITEMS, LIMIT);
        let faulty = Arc::new(FaultyCall { inner: Call::OwnTimer(SERVICE), fail: fail.clone(), ledger: None });
        let gauge = Arc::new(Outstanding::new());
        let shared = Arc::new(Shared::new(GaugeMeter::new(Arc::clone(&gauge))));
        let job = Job::new(ITEMS, LIMIT, Call::Faulty(Arc::clone(&faulty)), SMALL_BUDGET, Arc::clone(&shared));
        job.deadline.start();
        over_admitting_run(&job);
        let run = SmallRun {
            items: ITEMS,
            limit: LIMIT,
            totals: shared.outcome(),
            max_outstanding: gauge.high_water(),
            left_outstanding: gauge.current(),
            device_calls: None,
            left_behind: None,
            overran: Duration::ZERO,
        };
        let verdict = failure_verdict(&run, &fail, true).expect_err("it over-admitted").to_string();
        assert!(verdict.contains("outstanding at once while the failures went through"), "{verdict}");
        // Everything else about the run was right: only the bound broke.
        assert_eq!(run.totals.failed, count_failing(&fail, ITEMS));
    }

    #[test]
    fn failed_calls_rejects_a_run_that_loses_or_miscounts_failures() {
        let fail = failure_plan(ITEMS, LIMIT);
        let faulty = FaultyCall { inner: Call::OwnTimer(SERVICE), fail: fail.clone(), ledger: None };
        let failing = count_failing(&fail, ITEMS);
        let right = Totals {
            sum: (0..ITEMS)
                .filter(|&i| !faulty.fails(i))
                .fold(0, |s, i| s.wrapping_add(dependency::Dependency::answer(i))),
            completed: ITEMS - failing,
            failed: failing,
            first_failure: Some(crate::call::CallFailed { input: 0, reason: "injected failure".into() }),
            marks: [None, None],
        };
        let run = |totals: Totals| SmallRun {
            items: ITEMS,
            limit: LIMIT,
            totals,
            max_outstanding: LIMIT as i64,
            left_outstanding: 0,
            device_calls: None,
            left_behind: None,
            overran: Duration::ZERO,
        };
        assert!(failure_verdict(&run(right.clone()), &fail, true).is_ok());
        // The first item's failure swallowed: neither counted nor answered.
        let swallowed = Totals { failed: failing - 1, ..right.clone() };
        assert!(failure_verdict(&run(swallowed), &fail, true).is_err());
        // A failed call retried into an answer counted twice.
        let twice = Totals { completed: ITEMS - failing + 1, ..right };
        assert!(failure_verdict(&run(twice), &fail, true).is_err());
    }
}
