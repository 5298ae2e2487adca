//! Every conformance check can fail: a contestant whose request path is broken on purpose
//! ([`service::requests::Breakage`]) fails the check that guards against that breakage, and the unbroken
//! contestant passes it. Each test runs in a process of its own, as the checks count the process's threads.

use std::sync::Arc;
use std::time::Duration;

use service::config::ServiceConfig;
use service::requests::Breakage;
use service::service::conformance::checks;
use service::service::contestants::Contestant;
use service::work::Work;

fn config() -> ServiceConfig {
    ServiceConfig { rate: 2_000, work_us: 5, run: Duration::from_millis(100), seed: 5, ..ServiceConfig::default() }
}

/// The checks `contestant` gets with `breakage`: `(name, passed)` each.
fn verdicts(contestant: Contestant, breakage: Option<Breakage>) -> Vec<(String, bool)> {
    let prepared = Arc::new(contestant.prepare().expect("prepared"));
    let work = Work::new(5, 3, service::work::ns_per_round());
    checks(contestant, prepared, &config(), work, breakage).into_iter().map(|c| (c.name, c.passed)).collect()
}

/// `breakage` fails exactly `expected` among the checks, which all pass without it.
fn rejected(contestant: Contestant, breakage: Breakage, expected: &[&str]) {
    let clean = verdicts(contestant, None);
    assert!(clean.iter().all(|(_, passed)| *passed), "{clean:?}");
    let broken = verdicts(contestant, Some(breakage));
    let failed: Vec<&str> = broken.iter().filter(|(_, passed)| !passed).map(|(n, _)| n.as_str()).collect();
    for name in expected {
        assert!(failed.contains(name), "{breakage:?}: `{name}` passed: {broken:?}");
    }
}

testkit::own_process! {
    #[test]
    fn a_reply_recorded_twice_fails_exactly_once() {
        rejected(Contestant::BlockingPool, Breakage::ReplyTwice, &["exactly_once", "faults", "cancel"]);
    }

    #[test]
    fn a_lost_reply_fails_exactly_once() {
        rejected(Contestant::StreamStageTasks, Breakage::LoseLast, &["exactly_once", "clean_after_failures"]);
    }

    #[test]
    fn a_failure_answered_as_success_fails_the_fault_check() {
        rejected(Contestant::CoroutinePerRequest, Breakage::FailureAnswered, &["faults"]);
    }

    #[test]
    fn an_admission_bound_not_enforced_fails_the_bound_checks() {
        rejected(Contestant::BlockingStageThreads, Breakage::NoAdmissionBound, &["within_bounds", "sheds_when_full"]);
    }
}
