//! Every edge check of the memory scenario's conformance can fail: each deliberately broken contestant below (a
//! real contestant wrapped to misbehave in one way) is rejected by the check written for that misbehaviour, and
//! the wrappers pass every check when nothing triggers them.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use costs::memory::conformance::{self, Prepare};
use costs::memory::contestants::{Contestant, Held, HoldError, Units};
use costs::work::{injected_panic_message, Checked};

/// How a broken contestant misbehaves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Breakage {
    /// The first unit's error or panic comes back as a success with nothing handed back (the unit treated as
    /// never made).
    SwallowsFirstUnitError,
    /// Once a unit panicked, a worker is gone for good: later runs make one unit fewer than asked.
    LeavesWorkerDead,
    /// The caller's cancel is never asked about: every unit is made, waits and is released.
    IgnoresCancel,
}

/// A real contestant wrapped to misbehave as `breakage` says.
#[derive(Debug)]
struct Broken {
    inner: Box<dyn Units>,
    breakage: Breakage,
    dead_worker: AtomicBool,
}

struct BrokenHeld<'a> {
    inner: Box<dyn Held + 'a>,
    owner: &'a Broken,
}

impl Units for Broken {
    fn hold(&self, count: u64, bytes: usize) -> Result<Box<dyn Held + '_>, HoldError> {
        self.inner.hold(count, bytes)
    }

    fn hold_checked(&self, count: u64, bytes: usize, work: &Checked) -> Result<Box<dyn Held + '_>, HoldError> {
        let inner = match self.breakage {
            Breakage::IgnoresCancel => self.inner.hold_checked(count, bytes, &work.deaf_to_cancel())?,
            Breakage::LeavesWorkerDead if self.dead_worker.load(Ordering::Relaxed) => {
                self.inner.hold_checked(count - 1, bytes, work)?
            }
            _ => self.inner.hold_checked(count, bytes, work)?,
        };
        Ok(Box::new(BrokenHeld { inner, owner: self }))
    }

    fn alive_tasks(&self) -> Option<usize> {
        self.inner.alive_tasks()
    }
}

impl Held for BrokenHeld<'_> {
    fn release(self: Box<Self>) -> Result<u64, HoldError> {
        let out = self.inner.release();
        match (self.owner.breakage, out) {
            (Breakage::SwallowsFirstUnitError, Err(HoldError::Failed(m) | HoldError::Panicked(m)))
                if m == "injected error in unit 0" || m == injected_panic_message("unit", 0) =>
            {
                Ok(0)
            }
            (Breakage::LeavesWorkerDead, Err(HoldError::Panicked(m))) => {
                self.owner.dead_worker.store(true, Ordering::Relaxed);
                Err(HoldError::Panicked(m))
            }
            (_, out) => out,
        }
    }
}

fn broken(contestant: Contestant, breakage: Breakage) -> Prepare {
    Arc::new(move || {
        let inner = contestant.prepare()?;
        Ok(Box::new(Broken { inner, breakage, dead_worker: AtomicBool::new(false) }) as Box<dyn Units>)
    })
}

const NAME: &str = "broken";

fn wrappers_pass_through(breakage: Breakage) {
    let cancel = conformance::caller_cancel(NAME, broken(Contestant::Thread64k, breakage));
    let checks = conformance::faults(broken(Contestant::TokioTask, breakage));
    for check in checks.iter().chain([&cancel]) {
        let triggered = matches!(
            (breakage, check.name.as_str()),
            (Breakage::SwallowsFirstUnitError, "unit_error" | "unit_panic")
                | (Breakage::LeavesWorkerDead, "unit_panic" | "clean_after_faults")
                | (Breakage::IgnoresCancel, "caller_cancel")
        );
        assert!(triggered || check.passed, "{breakage:?}: {} — {}", check.name, check.detail);
    }
}

fn swallowed_fault_is_rejected(contestant: Contestant) {
    let checks = conformance::faults(broken(contestant, Breakage::SwallowsFirstUnitError));
    for name in ["unit_error", "unit_panic"] {
        let check = checks.iter().find(|c| c.name == name).expect("the check");
        assert!(check.failed(), "{}", check.detail);
        assert!(check.detail.contains("at unit 0: Ok(sum 0)"), "{}", check.detail);
        assert!(!check.detail.contains("at unit 100"), "only the first unit's fault is swallowed: {}", check.detail);
    }
    let clean = checks.iter().find(|c| c.name == "clean_after_faults").expect("a clean_after_faults check");
    assert!(clean.passed, "{}", clean.detail);
}

fn dead_worker_is_rejected(contestant: Contestant) {
    let checks = conformance::faults(broken(contestant, Breakage::LeavesWorkerDead));
    let clean = checks.iter().find(|c| c.name == "clean_after_faults").expect("a clean_after_faults check");
    assert!(clean.failed(), "{}", clean.detail);
    assert!(clean.detail.contains("199 of 200 units waiting"), "{}", clean.detail);
    let error = checks.iter().find(|c| c.name == "unit_error").expect("a unit_error check");
    assert!(error.passed, "the errors come before any panic: {}", error.detail);
}

fn ignored_cancel_is_rejected(contestant: Contestant) {
    let check = conformance::caller_cancel(NAME, broken(contestant, Breakage::IgnoresCancel));
    assert!(check.failed(), "{}", check.detail);
    assert!(check.detail.contains("instead of a cancel"), "{}", check.detail);
}

// Each broken contestant in a process of its own, as the lab runs each contestant: the checks count the
// process's threads, and a broken run that goes on after its check gave up must not be seen by the next.
testkit::own_process! {
    #[test]
    fn the_wrappers_pass_through_when_nothing_triggers_them_swallowing() {
        wrappers_pass_through(Breakage::SwallowsFirstUnitError);
    }

    #[test]
    fn the_wrappers_pass_through_when_nothing_triggers_them_dead_worker() {
        wrappers_pass_through(Breakage::LeavesWorkerDead);
    }

    #[test]
    fn the_wrappers_pass_through_when_nothing_triggers_them_deaf() {
        wrappers_pass_through(Breakage::IgnoresCancel);
    }

    #[test]
    fn unit_error_and_unit_panic_reject_a_tokio_task_that_swallows_the_first_units_fault() {
        swallowed_fault_is_rejected(Contestant::TokioTask);
    }

    #[test]
    fn unit_error_and_unit_panic_reject_a_thread_that_swallows_the_first_units_fault() {
        swallowed_fault_is_rejected(Contestant::Thread64k);
    }

    #[test]
    fn clean_after_faults_rejects_a_current_thread_runtime_left_with_a_dead_worker() {
        dead_worker_is_rejected(Contestant::TokioTaskCurrentThread);
    }

    #[test]
    fn clean_after_faults_rejects_threads_left_with_a_dead_worker() {
        dead_worker_is_rejected(Contestant::Thread64k);
    }

    #[test]
    fn caller_cancel_rejects_a_tokio_task_that_ignores_the_cancel() {
        ignored_cancel_is_rejected(Contestant::TokioTask);
    }

    #[test]
    fn caller_cancel_rejects_a_thread_that_ignores_the_cancel() {
        ignored_cancel_is_rejected(Contestant::Thread64k);
    }

    #[test]
    fn caller_cancel_rejects_an_async_stream_that_ignores_the_cancel() {
        ignored_cancel_is_rejected(Contestant::AsyncStream);
    }
}
