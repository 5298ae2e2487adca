//! Every edge check of the chain's conformance can fail: each deliberately broken contestant below (a real
//! contestant wrapped by the kit's [`Broken`] to misbehave in one way) is rejected by the check written for that
//! misbehaviour.

use chain::chain::conformance::Chain;
use chain::ChainContestant;
use chain::{find, ChainConfig};
use measure::summary::Check;
use pipelines::conformance::{self as kit, Breakage, Broken};
use testkit::checks::{assert_rejects, named};

/// A registered contestant under a config, as the kit checks it.
type Checked = kit::Checked<Chain, dyn ChainContestant>;

fn broken(name: &str, breakage: Breakage) -> Broken<Checked> {
    let inner = find(name).unwrap_or_else(|| panic!("no contestant {name}"));
    Broken::new(Checked::new(&inner, &ChainConfig::default()), breakage)
}

/// The `stage_error` check of the faults, run on `contestant`.
fn error_check(contestant: &Broken<Checked>) -> Check {
    named(&kit::faults(contestant), "stage_error").clone()
}

#[test]
fn the_wrappers_pass_through_when_nothing_triggers_them() {
    for breakage in Breakage::ALL {
        let check = kit::checksum(&broken("blocking-crossbeam", breakage));
        assert!(check.passed, "{breakage:?}: {}", check.detail);
    }
}

#[test]
fn stage_error_rejects_a_contestant_that_swallows_the_first_item_error() {
    assert_rejects(&error_check(&broken("blocking-crossbeam", Breakage::SwallowsFirstItemError)), &["at 0: Ok(sum 0)"]);
}

#[test]
fn clean_after_faults_rejects_a_contestant_left_with_a_dead_worker() {
    let checks = kit::faults(&broken("stream-tokio-tasks", Breakage::LeavesWorkerDead));
    let clean = named(&checks, "clean_after_faults");
    assert!(clean.failed(), "{}", clean.detail);
    // The faults themselves were reported correctly: only the reuse is broken.
    assert!(checks.iter().filter(|c| c.name != "clean_after_faults").all(|c| c.passed));
}

#[test]
fn caller_cancel_rejects_a_contestant_that_ignores_the_cancellation() {
    assert_rejects(
        &kit::caller_cancel(&broken("blocking-crossbeam", Breakage::IgnoresCancel)),
        &["did not stop the source"],
    );
}

#[test]
fn stage_error_rejects_a_contestant_that_over_admits_while_a_failure_propagates() {
    assert_rejects(&error_check(&broken("blocking-crossbeam", Breakage::OverAdmitsOnFailure)), &["outstanding"]);
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
    assert_rejects(&kit::early_stop(&broken("blocking-crossbeam", Breakage::LeaksThread)), &["1 stages still alive"]);
}
