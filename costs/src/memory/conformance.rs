//! The checks every memory contestant passes before it is measured: units hand back exactly their payloads, every unit
//! is waiting when `hold` returns, nothing is left running after `release`, and a count the OS cannot hold is refused
//! with its reason rather than attempted. Then the edges (faults and the caller's cancel), each run through
//! [`Units::hold_checked`], the same generic code the timed runs instantiate with [`crate::work::Plain`]:
//!
//! - `unit_error`, `unit_panic`, `clean_after_faults` ([`faults`], on one prepared contestant): a unit whose
//!   work returns an error, or panics, at the first, a middle and the last unit ([`FAULT_POINTS`]) makes the
//!   run return that error (never a short sum as success), every unit made once and ended, no task or thread
//!   left; then a clean run on the same prepared contestant (its runtime, `may`'s carriers) is exact, has every
//!   unit waiting when `hold` returns and leaves nothing.
//! - `caller_cancel` ([`caller_cancel`]): the caller cancels from another thread when a seeded unit is being
//!   made ([`pipelines::cancel::CallerCancel`]); the run returns [`HoldError::Cancelled`] within
//!   [`CANCEL_WITHIN`], once, every unit made at most once and ended, no task or thread left; and units all
//!   waiting, dropped without a release (the caller's other way to cancel), all end within [`CANCEL_WITHIN`].
//!
//! Live units are counted by the checked work's guards (each unit holds one from its making to its end), tasks
//! by the runtime's `num_alive_tasks`, threads by the process's count against a baseline read after a first
//! small run started whatever the contestant starts once (a runtime's workers, `may`'s carriers); units report
//! their start through one process-wide counter. So one contestant's checks run alone in their process, as the lab
//! runs each contestant in a fresh trial process and the tests run each in a process of its own
//! (`testkit::own_process!`).

use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::time::{Duration, Instant};

use measure::summary::Check;
use measure::watchdog::{guarded, guarded_check};
use pipelines::cancel::{seeded_point, CallerCancel};
use pipelines::stream::runtime::settled_tasks;
use pipelines::{panic_message, LiveStages, QuietInjectedPanics};

use super::contestants::{self, Contestant, HoldError, Units};
use crate::payload::expected_total;
use crate::work::{injected_panic_message, Checked, Fault, FaultAction, Injected};

/// Units and payload bytes of the small runs the checks make.
const UNITS: u64 = 200;
const BYTES: usize = 48;
/// How long one check may take before it fails as a hang.
const LIMIT: Duration = Duration::from_secs(30);
/// How long [`faults`] may take: six faulted runs and a clean one on one prepared contestant.
const FAULTS_LIMIT: Duration = Duration::from_secs(60);
/// The units whose work fails in the fault checks: the first, a middle one and the last.
pub const FAULT_POINTS: [u64; 3] = [0, UNITS / 2, UNITS - 1];
/// The range of units at whose making the caller cancels (the point is seeded by the contestant's name).
pub const CANCEL_POINTS: std::ops::Range<u64> = 1..UNITS - 1;
/// The most a cancelled run may take to return after the cancel, and dropped units to end.
pub const CANCEL_WITHIN: Duration = Duration::from_secs(2);
/// How long threads that are exiting are given to go before they count as left behind.
const THREADS_SETTLE: Duration = Duration::from_secs(5);

/// Makes a prepared contestant (the real one's `prepare`, or a test's wrapper around it).
pub type Prepare = Arc<dyn Fn() -> Result<Box<dyn Units>, HoldError> + Send + Sync>;

/// Every check, in order.
pub fn all(contestant: Contestant) -> Vec<Check> {
    let name = contestant.info().name;
    let prepare: Prepare = Arc::new(move || contestant.prepare());
    let mut checks = vec![
        guarded_check("exact_payloads", LIMIT, move || exact_payloads(contestant)),
        guarded_check("all_waiting", LIMIT, move || all_waiting(contestant)),
        guarded_check("refuses_what_the_os_cannot_hold", LIMIT, move || refuses(contestant)),
    ];
    checks.extend(faults(Arc::clone(&prepare)));
    checks.push(caller_cancel(&name, prepare));
    checks
}

fn exact_payloads(contestant: Contestant) -> Result<String, String> {
    let units = contestant.prepare().map_err(|e| e.to_string())?;
    let total = units.hold(UNITS, BYTES).and_then(|held| held.release()).map_err(|e| e.to_string())?;
    let expected = expected_total(UNITS, BYTES);
    let detail = format!("{UNITS} units of {BYTES} bytes handed back {total}, expected {expected}");
    if total == expected {
        Ok(detail)
    } else {
        Err(detail)
    }
}

fn all_waiting(contestant: Contestant) -> Result<String, String> {
    let units = contestant.prepare().map_err(|e| e.to_string())?;
    let held = units.hold(UNITS, 0).map_err(|e| e.to_string())?;
    let started = contestants::started();
    let released = held.release().map_err(|e| e.to_string())?;
    let detail = format!(
        "{started} of {UNITS} units had reached their wait when `hold` returned, and all {UNITS} were released \
         (sum {released})"
    );
    if started == UNITS {
        Ok(detail)
    } else {
        Err(detail)
    }
}

fn refuses(contestant: Contestant) -> Result<String, String> {
    if !matches!(contestant, Contestant::Thread | Contestant::Thread64k) {
        return Ok("not applicable: tasks, futures and generators use no OS thread each".to_string());
    }
    let units = contestant.prepare().map_err(|e| e.to_string())?;
    let outcome = match units.hold(50_000_000, 0) {
        Err(HoldError::Refused(reason)) => Ok(format!("50,000,000 threads refused before any started: {reason}")),
        Err(e) => Err(format!("50,000,000 threads: {e}")),
        Ok(held) => {
            let _ = held.release();
            Err("50,000,000 threads were held: the OS's limits were not checked".to_string())
        }
    };
    outcome
}

/// What one run through `hold_checked` left behind.
struct Run {
    out: Result<u64, HoldError>,
    /// When the contestant returned.
    returned: Instant,
    /// Units started (reached their wait) when `hold` returned, if it did.
    waiting: Option<u64>,
    /// Units still alive when the run returned.
    live: usize,
    /// Tasks alive on the runtime once they had time to be released (`None` without a runtime).
    tasks: Option<usize>,
    /// The process's threads after the run (exiting ones given [`THREADS_SETTLE`]), against the baseline.
    threads: (Option<u64>, Option<u64>),
    ledger: crate::work::Ledger,
}

impl Run {
    /// Hold [`UNITS`] with `work` and release them, on `units`; a panic out of the contestant is its error.
    fn of(units: &dyn Units, work: &Checked, live: &LiveStages, baseline: Option<u64>) -> Run {
        let mut waiting = None;
        let out = std::panic::catch_unwind(AssertUnwindSafe(|| {
            let held = units.hold_checked(UNITS, BYTES, work)?;
            waiting = Some(contestants::started());
            held.release()
        }))
        .unwrap_or_else(|payload| {
            Err(HoldError::Broken(format!("a panic propagated out of the contestant: {}", panic_message(&*payload))))
        });
        let returned = Instant::now();
        let live = live.current();
        Run { out, returned, waiting, live, tasks: None, threads: (baseline, None), ledger: work.ledger() }
    }

    /// Read the tasks and threads left once they had time to go (after the caller's thread, if any, was joined).
    fn settle(mut self, units: &dyn Units) -> Run {
        self.tasks = settled_tasks(|| units.alive_tasks());
        self.threads.1 = measure::memory::settled_thread_count(self.threads.0, THREADS_SETTLE);
        self
    }

    /// What it left running, in words; empty when nothing.
    fn leftovers(&self) -> Vec<String> {
        crate::work::leftovers("units", self.live, self.tasks, self.threads, &self.ledger)
    }
}

/// `units` after one small clean run (so a runtime's workers or `may`'s carriers exist), and the thread count
/// then: the baseline every later run is held to.
fn primed(prepare: &Prepare) -> Result<(Box<dyn Units>, Option<u64>), String> {
    let units = prepare().map_err(|e| format!("could not prepare: {e}"))?;
    let live = Arc::new(LiveStages::new());
    let work = Checked::new("unit", 1, &live, None);
    units.hold_checked(1, BYTES, &work).and_then(|held| held.release()).map_err(|e| format!("a first unit: {e}"))?;
    Ok((units, measure::memory::thread_count()))
}

/// `unit_error`, `unit_panic`, then `clean_after_faults`, on one prepared contestant (see the module's doc).
pub fn faults(prepare: Prepare) -> Vec<Check> {
    let names = ["unit_error", "unit_panic", "clean_after_faults"];
    let run = move || -> Result<Vec<Check>, String> {
        let _quiet = QuietInjectedPanics::install();
        let (units, baseline) = primed(&prepare)?;
        let error = fault_runs(units.as_ref(), FaultAction::Error, baseline);
        let panic = fault_runs(units.as_ref(), FaultAction::Panic, baseline);
        let clean = clean_after(units.as_ref(), baseline);
        Ok(vec![error, panic, clean])
    };
    guarded("unit_error", FAULTS_LIMIT, run)
        .unwrap_or_else(|reason| names.iter().map(|name| Check::new(*name, false, reason.clone())).collect())
}

fn describe(out: &Result<u64, HoldError>) -> String {
    match out {
        Ok(sum) => format!("Ok(sum {sum})"),
        Err(e) => format!("Err({e})"),
    }
}

/// A fault of `action` at every point of [`FAULT_POINTS`], one run each on `units`.
fn fault_runs(units: &dyn Units, action: FaultAction, baseline: Option<u64>) -> Check {
    let name = match action {
        FaultAction::Error => "unit_error",
        FaultAction::Panic => "unit_panic",
    };
    let mut failures = Vec::new();
    for at in FAULT_POINTS {
        let live = Arc::new(LiveStages::new());
        let work = Checked::new("unit", UNITS, &live, Some(Fault { at, action }));
        let run = Run::of(units, &work, &live, baseline).settle(units);
        let right = match (&run.out, action) {
            (Err(HoldError::Failed(m)), FaultAction::Error) => *m == Injected { what: "unit", at }.to_string(),
            (Err(HoldError::Panicked(m)), FaultAction::Panic) => *m == injected_panic_message("unit", at),
            _ => false,
        };
        let mut problems = run.leftovers();
        if !right {
            problems.insert(0, describe(&run.out));
        }
        if run.ledger.created != UNITS {
            problems.push(format!("{} of {UNITS} units made", run.ledger.created));
        }
        if !problems.is_empty() {
            failures.push(format!("at unit {at}: {}", problems.join(", ")));
        }
    }
    let what = match action {
        FaultAction::Error => "error",
        FaultAction::Panic => "panic",
    };
    let places = format!("an injected {what} at units {FAULT_POINTS:?} of {UNITS}");
    if failures.is_empty() {
        Check::new(
            name,
            true,
            format!("{places}: each run returned that unit's {what}, every unit made once and ended, no task or thread left"),
        )
    } else {
        Check::new(name, false, format!("{places}: {}", failures.join("; ")))
    }
}

/// A clean run on `units` after the faulted ones: exact, every unit waiting when `hold` returned, nothing left.
fn clean_after(units: &dyn Units, baseline: Option<u64>) -> Check {
    let name = "clean_after_faults";
    let live = Arc::new(LiveStages::new());
    let work = Checked::new("unit", UNITS, &live, None);
    let run = Run::of(units, &work, &live, baseline).settle(units);
    let expected = expected_total(UNITS, BYTES);
    let mut problems = Vec::new();
    if !matches!(run.out, Ok(sum) if sum == expected) {
        problems.push(format!("{} (expected Ok(sum {expected}))", describe(&run.out)));
    }
    if run.waiting.is_some_and(|w| w != UNITS) {
        problems.push(format!("{} of {UNITS} units waiting when `hold` returned", run.waiting.unwrap_or(0)));
    }
    if run.ledger.created != UNITS || run.ledger.finished != UNITS {
        problems.push(format!("{} units made and {} finished of {UNITS}", run.ledger.created, run.ledger.finished));
    }
    problems.extend(run.leftovers());
    if problems.is_empty() {
        Check::new(
            name,
            true,
            format!(
                "after {} faulted runs, a clean run on the same prepared contestant: {UNITS} units all waiting, \
                 handed back {expected} exactly, each made and finished once, no task or thread left",
                2 * FAULT_POINTS.len()
            ),
        )
    } else {
        Check::new(name, false, format!("after the faulted runs: {}", problems.join("; ")))
    }
}

/// `caller_cancel` (see the module's doc); `name` seeds the point.
pub fn caller_cancel(name: &str, prepare: Prepare) -> Check {
    let point = seeded_point(name, CANCEL_POINTS);
    guarded_check("caller_cancel", LIMIT, move || cancel_runs(&prepare, point))
}

fn cancel_runs(prepare: &Prepare, point: u64) -> Result<String, String> {
    let (units, baseline) = primed(prepare)?;
    let cancel = Arc::new(CallerCancel::at(point));
    let live = Arc::new(LiveStages::new());
    let work = Checked::cancelled_by("unit", UNITS, &live, &cancel);
    let caller = CallerCancel::spawn_canceller(&cancel).map_err(|e| format!("could not start the caller: {e}"))?;
    let run = Run::of(units.as_ref(), &work, &live, baseline);
    cancel.abandon();
    let raised = caller.join().unwrap_or(false);
    let run = run.settle(units.as_ref());
    let mut problems = Vec::new();
    if !raised {
        problems.push(format!("unit {point} was never made, so the caller never cancelled"));
    }
    let returned_after = cancel.raised_at().map_or(Duration::ZERO, |t| run.returned.saturating_duration_since(t));
    if returned_after > CANCEL_WITHIN {
        problems.push(format!(
            "returned {:.0} ms after the cancel (at most {} ms)",
            returned_after.as_secs_f64() * 1e3,
            CANCEL_WITHIN.as_millis()
        ));
    }
    match &run.out {
        Err(HoldError::Cancelled(made)) if *made <= point + 1 => {}
        other => problems.push(format!("{} instead of a cancel after at most {} units", describe(other), point + 1)),
    }
    problems.extend(run.leftovers());
    // Dropped while every unit waits: each must wake and end, promptly.
    let live = Arc::new(LiveStages::new());
    let work = Checked::new("unit", UNITS, &live, None);
    let held = units.hold_checked(UNITS, BYTES, &work).map_err(|e| format!("holding units to drop: {e}"))?;
    let dropped = Instant::now();
    drop(held);
    while live.current() > 0 && dropped.elapsed() <= CANCEL_WITHIN {
        std::thread::sleep(Duration::from_millis(1));
    }
    let ended_after = dropped.elapsed();
    if live.current() > 0 {
        problems.push(format!(
            "{} of {UNITS} units dropped while waiting still alive after {} ms",
            live.current(),
            CANCEL_WITHIN.as_millis()
        ));
    }
    if let Some(t) = settled_tasks(|| units.alive_tasks()).filter(|&t| t > 0) {
        problems.push(format!("{t} runtime tasks alive after the units were dropped"));
    }
    if let (Some(before), Some(after)) = (baseline, measure::memory::settled_thread_count(baseline, THREADS_SETTLE)) {
        if after > before {
            problems.push(format!("{} threads left behind after the units were dropped", after - before));
        }
    }
    if problems.is_empty() {
        Ok(format!(
            "cancelled by the caller while unit {point} of {UNITS} was made: returned the cancel {:.1} ms after it \
             (at most {} ms), {} units made, each once, all ended, no task or thread left; {UNITS} \
             waiting units dropped without a release all ended {:.1} ms later",
            returned_after.as_secs_f64() * 1e3,
            CANCEL_WITHIN.as_millis(),
            run.ledger.created,
            ended_after.as_secs_f64() * 1e3
        ))
    } else {
        Err(format!("cancelled at unit {point}: {}", problems.join("; ")))
    }
}
