//! Every edge check of the hand-off's conformance can fail: each deliberately broken contestant below (a real
//! contestant wrapped by the kit's [`Broken`] to misbehave in one way) is rejected by the check written for that
//! misbehaviour.

use handoff::conformance::Handoff;
use handoff::HandoffContestant;
use handoff::{find, HandoffConfig};
use measure::summary::Check;
use pipelines::conformance::{self as kit, Breakage, Broken};
use testkit::checks::{assert_rejects, named};

/// A registered contestant under a config, as the kit checks it.
type Checked = kit::Checked<Handoff, dyn HandoffContestant>;

fn broken(name: &str, breakage: Breakage) -> Broken<Checked> {
    let inner = find(name).unwrap_or_else(|| panic!("no contestant {name}"));
    Broken::new(Checked::new(&inner, &HandoffConfig::default()), breakage)
}

/// The `producer_error` check of the faults, run on `contestant`.
fn error_check(contestant: &Broken<Checked>) -> Check {
    named(&kit::faults(contestant), "producer_error").clone()
}

#[test]
fn the_wrappers_pass_through_when_nothing_triggers_them() {
    for breakage in Breakage::ALL {
        let check = kit::checksum(&broken("blocking-crossbeam", breakage));
        assert!(check.passed, "{breakage:?}: {}", check.detail);
    }
}

#[test]
fn producer_error_rejects_a_contestant_that_swallows_the_first_item_error() {
    assert_rejects(
        &error_check(&broken("blocking-crossbeam", Breakage::SwallowsFirstItemError)),
        &["the producer at 0: Ok(sum 0 of 0 items)"],
    );
}

#[test]
fn clean_after_faults_rejects_a_contestant_left_with_a_dead_worker() {
    let checks = kit::faults(&broken("stream-tokio", Breakage::LeavesWorkerDead));
    let clean = named(&checks, "clean_after_faults");
    assert!(clean.failed(), "{}", clean.detail);
    assert!(checks.iter().filter(|c| c.name != "clean_after_faults").all(|c| c.passed));
}

#[test]
fn caller_cancel_rejects_a_contestant_that_ignores_the_cancellation() {
    assert_rejects(
        &kit::caller_cancel(&broken("blocking-crossbeam", Breakage::IgnoresCancel)),
        &["the cancel did not stop it"],
    );
}

#[test]
fn producer_error_rejects_a_contestant_that_over_admits_while_a_failure_propagates() {
    assert_rejects(&error_check(&broken("blocking-crossbeam", Breakage::OverAdmitsOnFailure)), &["outstanding"]);
}

#[test]
fn exactly_once_rejects_a_lost_a_duplicated_and_a_reordered_item() {
    for breakage in [Breakage::DropsOne, Breakage::Duplicates, Breakage::Reorders] {
        let check = kit::exactly_once(&broken("stream-flume", breakage));
        assert!(check.failed(), "{breakage:?}: {}", check.detail);
    }
}

#[test]
fn early_stop_rejects_a_contestant_that_leaves_a_thread_behind() {
    assert_rejects(
        &kit::early_stop(&broken("blocking-std", Breakage::LeaksThread)),
        &["1 producer/consumer threads or tasks still alive"],
    );
}
