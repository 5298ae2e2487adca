//! Every edge check of the memory scenario's conformance can fail: each deliberately broken contestant below (a
//! real contestant wrapped by the kit's [`Broken`] to misbehave in one way) is rejected by the check written for
//! that misbehaviour, and the wrappers pass every check when nothing triggers them.

use costs::memory::conformance::{self, Checked};
use costs::memory::contestants::Contestant;
use pipelines::conformance::{self as kit, Breakage, Broken};
use testkit::checks::{assert_rejects, named};

fn broken(contestant: Contestant, breakage: Breakage) -> Broken<Checked> {
    Broken::new(Checked(contestant), breakage)
}

fn wrappers_pass_through(breakage: Breakage) {
    let cancel = conformance::caller_cancel(&broken(Contestant::Thread64k, breakage));
    let checks = kit::faults(&broken(Contestant::TokioTask, breakage));
    for check in checks.iter().chain([&cancel]) {
        let triggered = matches!(
            (breakage, check.name.as_str()),
            (Breakage::SwallowsFirstItemError, "unit_error" | "unit_panic")
                | (Breakage::LeavesWorkerDead, "clean_after_faults")
                | (Breakage::IgnoresCancel, "caller_cancel")
        );
        assert!(triggered || check.passed, "{breakage:?}: {} — {}", check.name, check.detail);
    }
}

fn swallowed_fault_is_rejected(contestant: Contestant) {
    let checks = kit::faults(&broken(contestant, Breakage::SwallowsFirstItemError));
    for name in ["unit_error", "unit_panic"] {
        let check = named(&checks, name);
        assert_rejects(check, &["unit at 0: Ok(sum 0)"]);
        assert!(!check.detail.contains("unit at 100:"), "only the first unit's fault is swallowed: {}", check.detail);
    }
    assert!(named(&checks, "clean_after_faults").passed, "{}", named(&checks, "clean_after_faults").detail);
}

fn dead_worker_is_rejected(contestant: Contestant) {
    let checks = kit::faults(&broken(contestant, Breakage::LeavesWorkerDead));
    let clean = named(&checks, "clean_after_faults");
    assert_rejects(clean, &["100 items vs 200 expected"]);
    let error = named(&checks, "unit_error");
    assert!(error.passed, "the errors come before any panic: {}", error.detail);
}

fn ignored_cancel_is_rejected(contestant: Contestant) {
    let check = conformance::caller_cancel(&broken(contestant, Breakage::IgnoresCancel));
    assert_rejects(&check, &["the cancel did not stop the creator", "units made after the cancel"]);
}

// Each broken contestant in a process of its own, as the lab runs each contestant: the checks count the
// process's threads, and a broken run that goes on after its check gave up must not be seen by the next.
testkit::own_process! {
    #[test]
    fn the_wrappers_pass_through_when_nothing_triggers_them_swallowing() {
        wrappers_pass_through(Breakage::SwallowsFirstItemError);
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
