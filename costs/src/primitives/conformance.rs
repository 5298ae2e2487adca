//! The checks every primitive passes before it is timed: a small run does every operation once, handing back the sum of
//! their numbers; then the edges, the conformance kit's ([`pipelines::conformance`]) on [`Checked`], each run
//! through [`Primitive::run_checked`], the same generic code the timed runs instantiate with [`crate::work::Plain`]:
//!
//! - `op_error`, `op_panic`, `clean_after_faults` ([`kit::faults`]): the work of an operation (the spawned task,
//!   thread, job or coroutine; the work done under the permit or lock; the value made for the oneshot or
//!   channel) returns an error, or panics, at the first, the middle and the last of [`CHECK_OPS`]. The run must
//!   surface it (an error carrying it, or the panic resumed on the caller's thread where the operation runs on
//!   it or the style resumes it there, as rayon's scope does), never a sum, and stop at it. Then a clean run on
//!   the same prepared contestant (its runtime, pool, semaphore, mutex, `may`'s carriers) is exact.
//! - `caller_cancel` ([`kit::caller_cancel`]): the caller cancels from another thread when a seeded operation is
//!   made (the loop asks before each operation, as a stop flag or token is asked); the run returns the cancel
//!   within [`kit::CANCEL_WITHIN`], no operation made after the one the cancel came at.
//!
//! Every run leaves no operation alive (the checked work's guards), no runtime task and no thread above the count
//! after a first one-operation run ([`Primed`]): so the checks of one contestant run alone in their process, as
//! the lab runs each contestant in a fresh trial process and the tests run each in a process of its own
//! (`testkit::own_process!`).

use std::panic::AssertUnwindSafe;
use std::sync::Arc;

use measure::summary::Check;
use pipelines::conformance::{self as kit, CheckedJob, Fault, FaultAction, Outcome, Sizes, Words};
use pipelines::{panic_message, LiveStages};

use super::contestants::{Contestant, OpError, Primitive};
use crate::work::{self, injected_panic_message, AliveTasks, Injected, Primed};

/// Operations of the checks that run before the loop.
pub const CHECK_OPS: u64 = 100;

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

/// The edge checks of `contestant`, in order: the faults (`op_error`, `op_panic`, `clean_after_faults` on one
/// prepared contestant), then `caller_cancel`.
pub fn edges(contestant: Contestant) -> Vec<Check> {
    let mut checks = kit::faults(&Checked(contestant));
    checks.push(kit::caller_cancel(&Checked(contestant)));
    checks
}

impl AliveTasks for Box<dyn Primitive> {
    fn alive_tasks(&self) -> Option<usize> {
        Primitive::alive_tasks(&**self)
    }
}

/// Primitives as the conformance kit checks them: runs of [`CHECK_OPS`] operations, whose items are the numbers
/// of the operations that handed theirs back (and, when cancelled, of those made); faults in the operations' work
/// (the site `op`). A panic out of the run is its error.
#[derive(Debug, Clone, Copy)]
pub struct Primitives;

impl kit::Declaration for Primitives {
    type Config = ();
    type Input = u64;
    type Site = &'static str;
    type Error = OpError;
    const SOURCE: &'static str = "op";
    const SIZES: Sizes = Sizes { items: CHECK_OPS, early_stop_items: CHECK_OPS, sum_works: &[0], work: 0 };
    const WORDS: Words = Words {
        error_check: "op_error",
        panic_check: "op_panic",
        parties: "operations",
        counted: "the loop made",
        point: "operation",
        stopped: "the loop",
    };
    const FAULT_AT: u64 = CHECK_OPS / 2;
    const CANCEL_POINTS: std::ops::Range<u64> = 1..CHECK_OPS - 1;

    fn is_injected(err: &OpError, fault: &Fault<&'static str>) -> bool {
        err.to_string().contains(&match fault.action {
            FaultAction::Error => Injected { what: "op", at: fault.at }.to_string(),
            FaultAction::Panic => injected_panic_message("op", fault.at),
        })
    }
}

/// A primitive as the conformance kit checks it: each run through [`Primitive::run_checked`].
#[derive(Debug, Clone, Copy)]
pub struct Checked(pub Contestant);

impl kit::Subject for Checked {
    type D = Primitives;
    type Prepared = Primed<Box<dyn Primitive>>;

    fn name(&self) -> String {
        self.0.info().name
    }

    /// The primitive after one checked operation.
    fn prepare(&self) -> Result<Self::Prepared, OpError> {
        let primitive = self.0.prepare()?;
        primitive.run_checked(1, &work::Checked::new("op", 1, &Arc::new(LiveStages::new()), None))?;
        Ok(Primed::new(primitive))
    }

    fn run(&self, primed: &Self::Prepared, job: &CheckedJob<'_, Self>) -> Result<Outcome, OpError> {
        let (work, items) = (work::Checked::for_job("op", job), job.items());
        let out = std::panic::catch_unwind(AssertUnwindSafe(|| primed.inner.run_checked(items, &work)))
            .unwrap_or_else(|payload| Err(OpError::Escaped(panic_message(&*payload))));
        let (ledger, mut problems) = (work.ledger(), work.problems());
        match (job.behaviour.fault(), &out) {
            (Some(f), _) if ledger.created != f.at + 1 => {
                problems.push(format!("{} operations made (the run must stop at operation {})", ledger.created, f.at))
            }
            (None, Ok(sum)) if work::Checked::is_clean(job) && *sum != expected_sum(items) => {
                problems.push(format!("handed back {sum}, expected {}", expected_sum(items)))
            }
            _ => {}
        }
        primed.note(ledger.created, problems);
        let made = |e: &OpError| matches!(e, OpError::Cancelled(n) if *n == ledger.created).then_some(ledger.created);
        work.got(out, job.consumer, made)
    }
}
