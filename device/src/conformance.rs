//! Checks every device and backpressure contestant passes before its figures mean anything, written once for
//! all contestants and run in `cargo test` and in every trial process before timing, each on a helper thread
//! under a watchdog ([`WATCHDOG`]). None of them judges speed.
//!
//! - `sum_exact`: [`ITEMS`] calls, the sum of the answers exact, every call answered once (the device issued
//!   and completed exactly that many; no call failed).
//! - `small_run_bound`: in that run, the exact high-water mark of outstanding calls stayed within the bound
//!   plus one (bounded contestants; unbounded ones report how far they went). The measured iterations are held
//!   to their own bound by the trial's `bounded_outstanding` check.
//! - `cut_short_releases`: with a time budget far too short for its items, the run stops taking items at the
//!   deadline, lets go of every outstanding call, and leaves no thread behind.
//! - `skips_with_reason` (contestants that start threads up front): asked for more threads than the OS allows,
//!   it is skipped with the OS's limits as the reason, before starting any: the threads counted are the ones
//!   the contestant itself started ([`crate::job::Shared::threads_started`]), not the process's, which other
//!   threads (a runtime's, the watchdog's) can change at any moment.
//!
//! Every check runs the metered instantiation of the contestant ([`GaugeMeter`]), the one accounting
//! iterations run; the timed instantiation ([`measure::meter::NoMeter`]) is the same generic code, and every
//! timed run's answer is checked by the trial.

use std::sync::Arc;
use std::time::{Duration, Instant};

use measure::gauge::Outstanding;
use measure::meter::GaugeMeter;
use measure::summary::Check;
use measure::watchdog;

use crate::call::{expected_sum, Call};
use crate::contestants::{BlockingShape, Contestant};
use crate::job::{Deadline, Job, RunError, Shared, Totals};

/// How long a check may take before it counts as hung.
pub const WATCHDOG: Duration = Duration::from_secs(30);
/// Items of the exactness run.
pub const ITEMS: u64 = 3_000;
/// The bound of the exactness run.
pub const LIMIT: usize = 40;
/// Service time of the checks' calls.
pub const SERVICE: Duration = Duration::from_millis(1);

/// Every check for `contestant`, in order.
pub fn all(contestant: Contestant) -> Vec<Check> {
    let mut checks = Vec::new();
    match watchdog::guarded("sum_exact", WATCHDOG, move || small_run(contestant, ITEMS, LIMIT, Duration::from_secs(20)))
    {
        Ok(run) => {
            checks.push(sum_exact(&run));
            checks.push(bounded(contestant, &run));
        }
        Err(e) => checks.push(Check::new("sum_exact", false, e)),
    }
    checks.push(check("cut_short_releases", move || cut_short_releases(contestant)));
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
    /// The process's threads before and just after the run.
    pub threads: (Option<u64>, Option<u64>),
    /// How long the run took after its deadline, if it passed it.
    pub overran: Duration,
}

/// Run `contestant` once over `items` with bound `limit` and time budget `budget`.
pub fn small_run(contestant: Contestant, items: u64, limit: usize, budget: Duration) -> Result<SmallRun, String> {
    let prepared = contestant.prepare().map_err(|e| e.to_string())?;
    let call = Call::start(contestant.timer(), SERVICE)?;
    let gauge = Arc::new(Outstanding::new());
    let shared = Arc::new(Shared::new(GaugeMeter::new(Arc::clone(&gauge))));
    let threads_before = measure::memory::thread_count();
    let job = Job { items, limit, call: call.clone(), deadline: Deadline::new(budget), shared: Arc::clone(&shared) };
    prepared.run(&job, &mut || {}).map_err(|e| e.to_string())?;
    let overran = Instant::now().saturating_duration_since(job.deadline.instant());
    let threads_after = settled_threads(threads_before);
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
        threads: (threads_before, threads_after),
        overran,
    })
}

/// The thread count once threads that are exiting have gone (up to a second), or the last count read.
fn settled_threads(target: Option<u64>) -> Option<u64> {
    let give_up = Instant::now() + Duration::from_secs(1);
    loop {
        let now = measure::memory::thread_count();
        if now <= target || Instant::now() >= give_up {
            return now;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

fn sum_exact(run: &SmallRun) -> Check {
    let expected = expected_sum(run.items);
    let mut problems = Vec::new();
    if run.totals.completed != run.items {
        problems.push(format!("{} of {} calls answered", run.totals.completed, run.items));
    }
    if let Some(failure) = &run.totals.first_failure {
        problems.push(format!("{} calls failed, first: {failure}", run.totals.failed));
    }
    if run.totals.sum != expected {
        problems.push(format!("sum {} instead of {expected}", run.totals.sum));
    }
    if let Some((issued, completed)) = run.device_calls {
        if issued != run.items || completed != run.items {
            problems
                .push(format!("the device issued {issued} and completed {completed} calls for {} items", run.items));
        }
    }
    if run.left_outstanding != 0 {
        problems.push(format!("{} calls still counted outstanding at the end", run.left_outstanding));
    }
    let detail = if problems.is_empty() {
        let device =
            if run.device_calls.is_some() { ", the device issued and completed exactly that many" } else { "" };
        format!("{} calls ({} ms each), every answer summed exactly once{device}", run.items, SERVICE.as_millis())
    } else {
        problems.join("; ")
    };
    Check::new("sum_exact", problems.is_empty(), detail)
}

fn bounded(contestant: Contestant, run: &SmallRun) -> Check {
    let bound = run.limit as i64 + 1;
    if contestant.bounded() {
        Check::new(
            "small_run_bound",
            run.max_outstanding <= bound,
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
fn cut_short_releases(contestant: Contestant) -> Result<String, String> {
    let run = small_run(contestant, 1_000_000, 64, Duration::from_millis(30))?;
    let mut problems = Vec::new();
    if run.totals.completed >= run.items {
        problems.push("every item was answered: the budget did not cut the run".to_string());
    }
    if run.left_outstanding != 0 {
        problems.push(format!("{} calls still counted outstanding", run.left_outstanding));
    }
    if let (Some(before), Some(after)) = run.threads {
        if after > before {
            problems.push(format!("{} threads left behind ({before} before, {after} after)", after - before));
        }
    }
    if problems.is_empty() {
        Ok(format!(
            "a 30 ms budget for {} items: {} answered, stopped {:.1} ms after the deadline with nothing outstanding and no thread left",
            run.items,
            run.totals.completed,
            run.overran.as_secs_f64() * 1e3
        ))
    } else {
        Err(problems.join("; "))
    }
}

/// Threads asked for by `skips_with_reason`: far more than any machine allows.
pub const TOO_MANY_THREADS: usize = 50_000_000;

/// Ask for far more threads than any machine allows.
fn skips_with_reason(contestant: Contestant) -> Result<String, String> {
    let prepared = contestant.prepare().map_err(|e| e.to_string())?;
    let call = Call::start(contestant.timer(), SERVICE)?;
    let shared = Arc::new(Shared::new(GaugeMeter::new(Arc::new(Outstanding::new()))));
    let job = Job {
        items: 10,
        limit: TOO_MANY_THREADS,
        call: call.clone(),
        deadline: Deadline::new(Duration::from_secs(5)),
        shared: Arc::clone(&shared),
    };
    let ran = prepared.run(&job, &mut || {});
    if let Some(device) = call.device() {
        device.shutdown();
    }
    skip_verdict(ran, shared.threads_started())
}

/// The verdict of `skips_with_reason` on what a run asked for [`TOO_MANY_THREADS`] returned, and how many
/// threads the contestant started on the way.
fn skip_verdict(ran: Result<(), RunError>, started: u64) -> Result<String, String> {
    let asked = measure::units::thousands(TOO_MANY_THREADS as u64);
    match ran {
        Ok(()) => Err(format!("{asked} threads were asked for and the run did not refuse")),
        Err(RunError::Broken(problem)) => Err(format!("{asked} threads were asked for and the run broke: {problem}")),
        Err(RunError::Skipped(reason)) if started > 0 => {
            Err(format!("refused ({reason}) but only after starting {started} threads of its own"))
        }
        Err(RunError::Skipped(reason)) if reason.contains("do not fit") || reason.contains("refused") => {
            Ok(format!("asked for {asked} threads, skipped before starting any of its own: {reason}"))
        }
        Err(RunError::Skipped(reason)) => Err(format!("refused without naming the OS's limit: {reason}")),
    }
}

/// `work` under the watchdog, as a check.
fn check(name: &'static str, work: impl FnOnce() -> Result<String, String> + Send + 'static) -> Check {
    watchdog::guarded_check(name, WATCHDOG, work)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contestants::{ChannelFlavor, StreamShape, Timer};

    /// Every shape of both families, on both timers, free and budgeted.
    fn every_contestant() -> Vec<Contestant> {
        let mut all = Vec::new();
        for timer in [Timer::Device, Timer::Own] {
            for shape in [
                StreamShape::Buffered,
                StreamShape::BufferUnordered,
                StreamShape::PerWorkerUnordered,
                StreamShape::Tasks,
                StreamShape::ChannelWorkers,
                StreamShape::Unbounded,
            ] {
                for free in [false, true] {
                    all.push(Contestant::Stream { shape, free, timer });
                }
            }
            for shape in [
                BlockingShape::Pool,
                BlockingShape::ChannelWorkers(ChannelFlavor::Crossbeam),
                BlockingShape::ChannelWorkers(ChannelFlavor::Flume),
                BlockingShape::ChannelWorkers(ChannelFlavor::Std),
                BlockingShape::ThreadPerItem,
            ] {
                all.push(Contestant::Blocking { shape, timer });
            }
            all.push(Contestant::Coroutine { carriers: None, timer });
        }
        all
    }

    #[test]
    fn every_contestant_passes_every_check() {
        for contestant in every_contestant() {
            for check in all(contestant) {
                assert!(!check.failed(), "{}: {} failed: {}", contestant.name(), check.name, check.detail);
            }
        }
    }

    #[test]
    fn skips_with_reason_fails_a_run_that_started_threads_or_did_not_refuse() {
        let limit = || RunError::Skipped("50,000,000 threads do not fit: pid_max 4,194,304".to_string());
        assert!(skip_verdict(Err(limit()), 0).is_ok());
        let late = skip_verdict(Err(limit()), 31_000).expect_err("it started threads first");
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
            let job = Job {
                items: 100,
                limit: 8,
                call: Call::OwnTimer(Duration::from_micros(10)),
                deadline: Deadline::new(Duration::from_secs(5)),
                shared: Arc::clone(&shared),
            };
            let prepared = contestant.prepare().expect("a blocking contestant needs no runtime");
            prepared.run(&job, &mut || {}).expect("the run completes");
            assert_eq!(shared.threads_started(), threads, "{}", contestant.name());
            assert_eq!(shared.outcome().completed, 100, "{}", contestant.name());
        }
    }

    #[test]
    fn names_are_unique() {
        let mut names: Vec<String> = every_contestant().iter().map(Contestant::name).collect();
        let n = names.len();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), n);
    }
}
