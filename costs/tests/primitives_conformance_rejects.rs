//! Every edge check of the primitives scenario's conformance can fail: each deliberately broken contestant below (a
//! real contestant wrapped by the kit's [`Broken`] to misbehave in one way) is rejected by the check written for
//! that misbehaviour, and the wrapper passes when nothing triggers it.

use costs::primitives::conformance::Checked;
use costs::primitives::contestants::Contestant;
use pipelines::conformance::{self as kit, Breakage, Broken};
use testkit::checks::{assert_rejects, named};

fn broken(contestant: Contestant, breakage: Breakage) -> Broken<Checked> {
    Broken::new(Checked(contestant), breakage)
}

fn ignored_cancel_is_rejected(contestant: Contestant) {
    let check = kit::caller_cancel(&broken(contestant, Breakage::IgnoresCancel));
    assert_rejects(&check, &["the cancel did not stop the loop", "ops made after the cancel at op"]);
}

// Each broken contestant in a process of its own, as the lab runs each contestant: the checks count the
// process's threads, and a broken run that goes on after its check gave up must not be seen by the next.
testkit::own_process! {
    #[test]
    fn op_error_and_op_panic_reject_a_contestant_that_swallows_the_first_operations_fault() {
        let checks = kit::faults(&broken(Contestant::ThreadSpawn, Breakage::SwallowsFirstItemError));
        for name in ["op_error", "op_panic"] {
            let check = named(&checks, name);
            assert_rejects(check, &["op at 0: Ok(sum 0)"]);
            assert!(!check.detail.contains("op at 50:"), "only the first is swallowed: {}", check.detail);
        }
        assert!(named(&checks, "clean_after_faults").passed, "{}", named(&checks, "clean_after_faults").detail);
    }

    #[test]
    fn clean_after_faults_rejects_a_contestant_left_with_a_dead_worker() {
        let checks = kit::faults(&broken(Contestant::RayonSpawn, Breakage::LeavesWorkerDead));
        let clean = named(&checks, "clean_after_faults");
        assert_rejects(clean, &["50 items vs 100 expected"]);
        let error = named(&checks, "op_error");
        assert!(error.passed, "errors leave the worker alive: {}", error.detail);
    }

    #[test]
    fn caller_cancel_rejects_a_thread_spawn_that_ignores_the_cancel() {
        ignored_cancel_is_rejected(Contestant::ThreadSpawn);
    }

    #[test]
    fn caller_cancel_rejects_a_tokio_spawn_that_ignores_the_cancel() {
        ignored_cancel_is_rejected(Contestant::TokioSpawn);
    }

    #[test]
    fn caller_cancel_rejects_a_mutex_that_ignores_the_cancel() {
        ignored_cancel_is_rejected(Contestant::Mutex);
    }

    #[test]
    fn the_wrapper_passes_when_nothing_triggers_it() {
        for check in kit::faults(&broken(Contestant::ThreadSpawn, Breakage::IgnoresCancel)) {
            assert!(check.passed, "{}: {}", check.name, check.detail);
        }
    }
}
