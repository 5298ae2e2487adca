//! Every edge check of the chain's conformance can fail: each deliberately broken contestant below (a real
//! contestant wrapped by the kit's [`Broken`] to misbehave in one way) is rejected by the check written for that
//! misbehaviour.

use chain::chain::conformance::{checked, Checked};
use chain::{find, ChainConfig};
use measure::summary::Check;
use pipelines::conformance::{self as kit, Breakage, Broken};

fn broken(name: &str, breakage: Breakage) -> Broken<Checked> {
    let inner = find(name).unwrap_or_else(|| panic!("no contestant {name}"));
    Broken::new(checked(&inner, &ChainConfig::default()), breakage)
}

/// The `stage_error` check of the faults, run on `contestant`.
fn error_check(contestant: &Broken<Checked>) -> Check {
    kit::faults(contestant).into_iter().find(|c| c.name == "stage_error").expect("a stage_error check")
}

const ALL: [Breakage; 8] = [
    Breakage::SwallowsFirstItemError,
    Breakage::LeavesWorkerDead,
    Breakage::OverAdmitsOnFailure,
    Breakage::IgnoresCancel,
    Breakage::DropsOne,
    Breakage::Duplicates,
    Breakage::Reorders,
    Breakage::LeaksThread,
];

#[test]
fn the_wrappers_pass_through_when_nothing_triggers_them() {
    for breakage in ALL {
        let check = kit::checksum(&broken("blocking-crossbeam", breakage));
        assert!(check.passed, "{breakage:?}: {}", check.detail);
    }
}

#[test]
fn stage_error_rejects_a_contestant_that_swallows_the_first_item_error() {
    let check = error_check(&broken("blocking-crossbeam", Breakage::SwallowsFirstItemError));
    assert!(check.failed(), "{}", check.detail);
    assert!(check.detail.contains("at 0: Ok(sum 0)"), "{}", check.detail);
}

#[test]
fn clean_after_faults_rejects_a_contestant_left_with_a_dead_worker() {
    let checks = kit::faults(&broken("stream-tokio-tasks", Breakage::LeavesWorkerDead));
    let clean = checks.iter().find(|c| c.name == "clean_after_faults").expect("a clean_after_faults check");
    assert!(clean.failed(), "{}", clean.detail);
    // The faults themselves were reported correctly: only the reuse is broken.
    assert!(checks.iter().filter(|c| c.name != "clean_after_faults").all(|c| c.passed));
}

#[test]
fn caller_cancel_rejects_a_contestant_that_ignores_the_cancellation() {
    let check = kit::caller_cancel(&broken("blocking-crossbeam", Breakage::IgnoresCancel));
    assert!(check.failed(), "{}", check.detail);
    assert!(check.detail.contains("did not stop the source"), "{}", check.detail);
}

#[test]
fn stage_error_rejects_a_contestant_that_over_admits_while_a_failure_propagates() {
    let check = error_check(&broken("blocking-crossbeam", Breakage::OverAdmitsOnFailure));
    assert!(check.failed(), "{}", check.detail);
    assert!(check.detail.contains("outstanding"), "{}", check.detail);
}

#[test]
fn exactly_once_rejects_a_lost_a_duplicated_and_a_reordered_item() {
    for (name, breakage) in [
        ("blocking-rayon", Breakage::DropsOne),
        ("blocking-rayon", Breakage::Duplicates),
        ("blocking-flume", Breakage::Reorders),
    ] {
        let check = kit::exactly_once(&broken(name, breakage));
        assert!(check.failed(), "{breakage:?}: {}", check.detail);
    }
}

#[test]
fn early_stop_rejects_a_contestant_that_leaves_a_thread_behind() {
    let check = kit::early_stop(&broken("blocking-crossbeam", Breakage::LeaksThread));
    assert!(check.failed(), "{}", check.detail);
    assert!(check.detail.contains("1 stages still alive"), "{}", check.detail);
}
