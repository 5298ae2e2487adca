//! The checks every primitive passes before it is timed: a small run does every operation once, handing back the sum of
//! their numbers; then the edges (faults and the caller's cancel), each run through [`Primitive::run_checked`], the
//! same generic code the timed runs instantiate with [`crate::work::Plain`]:
//!
//! - `op_error`, `op_panic`, `clean_after_faults` ([`faults`], on one prepared contestant): the work of an
//!   operation (the spawned task, thread, job or coroutine; the work done under the permit or lock; the value
//!   made for the oneshot or channel) returns an error, or panics, at the first, a middle and the last operation
//!   ([`FAULT_POINTS`]). The run must surface it (an error carrying it, or the panic resumed on the caller's
//!   thread where the operation runs on it or the style resumes it there, as rayon's scope does), never a sum;
//!   stop at it, and leave no operation, task or thread alive. Then a clean run on the same prepared contestant
//!   (its runtime, pool, semaphore, mutex, `may`'s carriers) is exact and leaves nothing.
//! - `caller_cancel` ([`caller_cancel`]): the caller cancels from another thread when a seeded operation is made
//!   ([`pipelines::cancel::CallerCancel`]; the loop asks before each operation, as a stop flag or token is
//!   asked); the run returns the cancel within [`CANCEL_WITHIN`], once, having made each operation at most once
//!   and none after the cancel was seen, leaving nothing alive.
//!
//! Live operations are counted by the checked work's guards, tasks by the runtime's `num_alive_tasks`, threads by
//! the process's count against a baseline read after a first one-operation run: so the checks of one contestant
//! run alone in their process, as the lab runs each contestant in a fresh trial process and the tests run each in
//! a process of its own (`testkit::own_process!`).

use std::panic::AssertUnwindSafe;
use std::sync::Arc;
use std::time::{Duration, Instant};

use measure::summary::Check;
use measure::watchdog::{guarded, guarded_check};
use pipelines::cancel::{seeded_point, CallerCancel};
use pipelines::stream::runtime::settled_tasks;
use pipelines::{panic_message, LiveStages, QuietInjectedPanics};

use super::contestants::{cancelled, Contestant, Primitive};
use crate::work::{injected_panic_message, Checked, Fault, FaultAction, Injected, Ledger};

/// Operations of the checks that run before the loop.
pub const CHECK_OPS: u64 = 100;
/// The operations whose work fails in the fault checks: the first, a middle one and the last.
pub const FAULT_POINTS: [u64; 3] = [0, CHECK_OPS / 2, CHECK_OPS - 1];
/// The range of operations at which the caller cancels (the point is seeded by the contestant's name).
pub const CANCEL_POINTS: std::ops::Range<u64> = 1..CHECK_OPS - 1;
/// The most a cancelled run may take to return after the cancel.
pub const CANCEL_WITHIN: Duration = Duration::from_secs(2);
/// How long a check may take before it fails as a hang.
const LIMIT: Duration = Duration::from_secs(30);
/// How long [`faults`] may take: six faulted runs and a clean one on one prepared contestant.
const FAULTS_LIMIT: Duration = Duration::from_secs(60);
/// How long threads that are exiting are given to go before they count as left behind.
const THREADS_SETTLE: Duration = Duration::from_secs(5);

/// Makes a prepared contestant (the real one's `prepare`, or a test's wrapper around it).
pub type Prepare = Arc<dyn Fn() -> Result<Box<dyn Primitive>, String> + Send + Sync>;

/// The sum `0 + 1 + … + (ops − 1)`, wrapping.
pub fn expected_sum(ops: u64) -> u64 {
    (0..ops).fold(0u64, u64::wrapping_add)
}

/// A run of [`CHECK_OPS`] operations hands back the sum of their numbers.
pub fn check_small_run(primitive: &dyn Primitive) -> Check {
    let expected = expected_sum(CHECK_OPS);
    match primitive.run(CHECK_OPS) {
        Ok(sum) => Check::new(
            "every_operation_once",
            sum == expected,
            format!("{CHECK_OPS} operations handed back {sum}, expected {expected}"),
        ),
        Err(e) => Check::new("every_operation_once", false, format!("{CHECK_OPS} operations: {e}")),
    }
}

/// The edge checks of `contestant`, in order: [`faults`], then [`caller_cancel`].
pub fn edges(contestant: Contestant) -> Vec<Check> {
    let prepare: Prepare = Arc::new(move || contestant.prepare());
    let mut checks = faults(Arc::clone(&prepare));
    checks.push(caller_cancel(&contestant.info().name, prepare));
    checks
}

/// What one checked run left behind.
struct Run {
    /// What `run_checked` returned, or the message of a panic it let out.
    out: Result<Result<u64, String>, String>,
    /// When the contestant returned.
    returned: Instant,
    /// Operations still alive when it returned.
    live: usize,
    /// Tasks alive on the runtime once they had time to be released (`None` without a runtime).
    tasks: Option<usize>,
    /// The process's threads after the run (exiting ones given [`THREADS_SETTLE`]), against the baseline.
    threads: (Option<u64>, Option<u64>),
    ledger: Ledger,
}

impl Run {
    fn of(primitive: &dyn Primitive, work: &Checked, live: &LiveStages, baseline: Option<u64>) -> Run {
        let out = std::panic::catch_unwind(AssertUnwindSafe(|| primitive.run_checked(CHECK_OPS, work)))
            .map_err(|payload| panic_message(&*payload));
        let returned = Instant::now();
        let live = live.current();
        Run { out, returned, live, tasks: None, threads: (baseline, None), ledger: work.ledger() }
    }

    /// Read the tasks and threads left once they had time to go (after the caller's thread, if any, was joined).
    fn settle(mut self, primitive: &dyn Primitive) -> Run {
        self.tasks = settled_tasks(|| primitive.alive_tasks());
        self.threads.1 = measure::memory::settled_thread_count(self.threads.0, THREADS_SETTLE);
        self
    }

    fn describe(&self) -> String {
        match &self.out {
            Ok(Ok(sum)) => format!("Ok(sum {sum})"),
            Ok(Err(e)) => format!("Err({e})"),
            Err(message) => format!("a panic out of the run: {message}"),
        }
    }

    /// What it left running or did twice, in words; empty when nothing.
    fn leftovers(&self) -> Vec<String> {
        crate::work::leftovers("operations", self.live, self.tasks, self.threads, &self.ledger)
    }
}

/// A prepared primitive after one checked operation (so a runtime's workers, a pool's threads or `may`'s
/// carriers exist), and the thread count then: the baseline every later run is held to.
fn primed(prepare: &Prepare) -> Result<(Box<dyn Primitive>, Option<u64>), String> {
    let primitive = prepare().map_err(|e| format!("could not prepare: {e}"))?;
    let live = Arc::new(LiveStages::new());
    primitive.run_checked(1, &Checked::new("op", 1, &live, None)).map_err(|e| format!("a first operation: {e}"))?;
    Ok((primitive, measure::memory::thread_count()))
}

/// `op_error`, `op_panic`, then `clean_after_faults`, on one prepared contestant (see the module's doc).
pub fn faults(prepare: Prepare) -> Vec<Check> {
    let names = ["op_error", "op_panic", "clean_after_faults"];
    let run = move || -> Result<Vec<Check>, String> {
        let _quiet = QuietInjectedPanics::install();
        let (primitive, baseline) = primed(&prepare)?;
        let error = fault_runs(primitive.as_ref(), FaultAction::Error, baseline);
        let panic = fault_runs(primitive.as_ref(), FaultAction::Panic, baseline);
        let clean = clean_after(primitive.as_ref(), baseline);
        Ok(vec![error, panic, clean])
    };
    guarded("op_error", FAULTS_LIMIT, run)
        .unwrap_or_else(|reason| names.iter().map(|name| Check::new(*name, false, reason.clone())).collect())
}

/// A fault of `action` at every point of [`FAULT_POINTS`], one run each on `primitive`.
fn fault_runs(primitive: &dyn Primitive, action: FaultAction, baseline: Option<u64>) -> Check {
    let (name, what) = match action {
        FaultAction::Error => ("op_error", "error"),
        FaultAction::Panic => ("op_panic", "panic"),
    };
    let mut failures = Vec::new();
    let mut resumed = 0;
    for at in FAULT_POINTS {
        let live = Arc::new(LiveStages::new());
        let work = Checked::new("op", CHECK_OPS, &live, Some(Fault { at, action }));
        let run = Run::of(primitive, &work, &live, baseline).settle(primitive);
        let injected = match action {
            FaultAction::Error => Injected { what: "op", at }.to_string(),
            FaultAction::Panic => injected_panic_message("op", at),
        };
        let right = match (&run.out, action) {
            (Ok(Err(m)), _) => m.contains(&injected),
            (Err(m), FaultAction::Panic) => {
                resumed += 1;
                *m == injected
            }
            _ => false,
        };
        let mut problems = run.leftovers();
        if !right {
            problems.insert(0, run.describe());
        }
        if run.ledger.created != at + 1 {
            problems.push(format!("{} operations made (the run must stop at operation {at})", run.ledger.created));
        }
        if !problems.is_empty() {
            failures.push(format!("at operation {at}: {}", problems.join(", ")));
        }
    }
    let places = format!("an injected {what} at operations {FAULT_POINTS:?} of {CHECK_OPS}");
    if failures.is_empty() {
        let how = match resumed {
            0 => "returned as the run's error".to_string(),
            n if n == FAULT_POINTS.len() => "resumed as a panic on the caller's thread".to_string(),
            n => format!("resumed on the caller's thread {n} times, returned as the error otherwise"),
        };
        Check::new(
            name,
            true,
            format!(
                "{places}: each {how}, the run stopped there, every operation made once, none left alive, no task \
                 or thread left"
            ),
        )
    } else {
        Check::new(name, false, format!("{places}: {}", failures.join("; ")))
    }
}

/// A clean run on `primitive` after the faulted ones: exact, each operation once, nothing left.
fn clean_after(primitive: &dyn Primitive, baseline: Option<u64>) -> Check {
    let name = "clean_after_faults";
    let live = Arc::new(LiveStages::new());
    let work = Checked::new("op", CHECK_OPS, &live, None);
    let run = Run::of(primitive, &work, &live, baseline).settle(primitive);
    let expected = expected_sum(CHECK_OPS);
    let mut problems = Vec::new();
    if !matches!(run.out, Ok(Ok(sum)) if sum == expected) {
        problems.push(format!("{} (expected Ok(sum {expected}))", run.describe()));
    }
    if run.ledger.created != CHECK_OPS || run.ledger.finished != CHECK_OPS {
        problems.push(format!(
            "{} operations made and {} finished of {CHECK_OPS}",
            run.ledger.created, run.ledger.finished
        ));
    }
    problems.extend(run.leftovers());
    if problems.is_empty() {
        Check::new(
            name,
            true,
            format!(
                "after {} faulted runs, a clean run on the same prepared contestant: {CHECK_OPS} operations handed \
                 back {expected}, each made and finished once, no task or thread left",
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
    guarded_check("caller_cancel", LIMIT, move || cancel_run(&prepare, point))
}

fn cancel_run(prepare: &Prepare, point: u64) -> Result<String, String> {
    let (primitive, baseline) = primed(prepare)?;
    let cancel = Arc::new(CallerCancel::at(point));
    let live = Arc::new(LiveStages::new());
    let work = Checked::cancelled_by("op", CHECK_OPS, &live, &cancel);
    let caller = CallerCancel::spawn_canceller(&cancel).map_err(|e| format!("could not start the caller: {e}"))?;
    let run = Run::of(primitive.as_ref(), &work, &live, baseline);
    cancel.abandon();
    let raised = caller.join().unwrap_or(false);
    let run = run.settle(primitive.as_ref());
    let mut problems = Vec::new();
    if !raised {
        problems.push(format!("operation {point} was never made, so the caller never cancelled"));
    }
    let returned_after = cancel.raised_at().map_or(Duration::ZERO, |t| run.returned.saturating_duration_since(t));
    if returned_after > CANCEL_WITHIN {
        problems.push(format!(
            "returned {:.0} ms after the cancel (at most {} ms)",
            returned_after.as_secs_f64() * 1e3,
            CANCEL_WITHIN.as_millis()
        ));
    }
    let stopped = (0..=point + 1).any(|done| matches!(&run.out, Ok(Err(m)) if *m == cancelled(done)));
    if !stopped {
        problems.push(format!("{} instead of the cancel after at most {} operations", run.describe(), point + 1));
    }
    if run.ledger.created > point + 1 {
        problems
            .push(format!("{} operations made after the cancel at operation {point}", run.ledger.created - point - 1));
    }
    problems.extend(run.leftovers());
    if problems.is_empty() {
        Ok(format!(
            "cancelled by the caller at operation {point} of {CHECK_OPS}: returned the cancel {:.1} ms after it (at \
             most {} ms), {} operations made, each once, none after the cancel was seen, none left alive, no task \
             or thread left",
            returned_after.as_secs_f64() * 1e3,
            CANCEL_WITHIN.as_millis(),
            run.ledger.created
        ))
    } else {
        Err(format!("cancelled at operation {point}: {}", problems.join("; ")))
    }
}
