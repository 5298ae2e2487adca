//! Every edge check of the hand-off's conformance can fail: each deliberately broken contestant below (a real
//! contestant wrapped to misbehave in one way) is rejected by the check written for that misbehaviour.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use handoff::{
    conformance, find, Consumer, HandoffConfig, HandoffContestant, HandoffError, Job, Outcome, PreparedHandoff,
};
use measure::meter::{GaugeMeter, Meter, NoMeter};
use measure::summary::ContestantInfo;

/// How a broken contestant misbehaves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Breakage {
    /// An error at the producer's first item comes back as an empty success (the consumer saw the channel close
    /// before any item and called that the end of the stream).
    SwallowsFirstItemError,
    /// Once a run's producer panicked, a worker is gone: later runs lose their second half.
    LeavesWorkerDead,
    /// While a failure propagates, it lets in more than its bound (a slot freed twice, say).
    OverAdmitsOnFailure,
    /// The caller's cancellation is ignored: the consumer drains every item.
    IgnoresCancel,
}

/// A real contestant wrapped to misbehave as `breakage` says.
#[derive(Debug)]
struct Broken {
    inner: Arc<dyn HandoffContestant>,
    breakage: Breakage,
}

#[derive(Debug)]
struct BrokenPrepared {
    inner: Box<dyn PreparedHandoff>,
    breakage: Breakage,
    bound: Option<u64>,
    dead_worker: AtomicBool,
}

impl HandoffContestant for Broken {
    fn info(&self) -> ContestantInfo {
        self.inner.info()
    }

    fn bound(&self, config: &HandoffConfig) -> Option<u64> {
        self.inner.bound(config)
    }

    fn items_per_message(&self, config: &HandoffConfig) -> Option<usize> {
        self.inner.items_per_message(config)
    }

    fn prepare(&self, config: &HandoffConfig) -> Result<Box<dyn PreparedHandoff>, HandoffError> {
        Ok(Box::new(BrokenPrepared {
            inner: self.inner.prepare(config)?,
            breakage: self.breakage,
            bound: self.inner.bound(config),
            dead_worker: AtomicBool::new(false),
        }))
    }
}

impl PreparedHandoff for BrokenPrepared {
    fn run(&self, job: &Job<'_, NoMeter>, go: &mut dyn FnMut()) -> Result<Outcome, HandoffError> {
        self.inner.run(job, go)
    }

    fn run_metered(&self, job: &Job<'_, GaugeMeter>, go: &mut dyn FnMut()) -> Result<Outcome, HandoffError> {
        let consumer = match (self.breakage, job.consumer) {
            (Breakage::IgnoresCancel, Consumer::Cancellable) => Consumer::Collect,
            (_, consumer) => consumer,
        };
        let job = Job { consumer, meter: job.meter.clone(), ..*job };
        let out = self.inner.run_metered(&job, go);
        if let (Breakage::OverAdmitsOnFailure, Err(_), Some(bound)) = (self.breakage, &out, self.bound) {
            job.meter.admit(bound + 1);
            job.meter.leave(bound + 1);
        }
        match (self.breakage, out) {
            (Breakage::SwallowsFirstItemError, Err(HandoffError::Producer(e))) if e.at == 0 => {
                Ok(Outcome::Sum { sum: 0, count: 0, first_disorder: None })
            }
            (Breakage::LeavesWorkerDead, out) => {
                if matches!(out, Err(HandoffError::Panicked { .. })) {
                    self.dead_worker.store(true, Ordering::Relaxed);
                }
                match out {
                    Ok(Outcome::Items(mut items)) if self.dead_worker.load(Ordering::Relaxed) => {
                        items.truncate(items.len() / 2);
                        Ok(Outcome::Items(items))
                    }
                    out => out,
                }
            }
            (_, out) => out,
        }
    }

    fn alive_tasks(&self) -> Option<usize> {
        self.inner.alive_tasks()
    }
}

fn broken(name: &str, breakage: Breakage) -> Arc<dyn HandoffContestant> {
    let inner = find(name).unwrap_or_else(|| panic!("no contestant {name}"));
    Arc::new(Broken { inner, breakage })
}

#[test]
fn the_wrappers_pass_through_when_nothing_triggers_them() {
    for breakage in [
        Breakage::SwallowsFirstItemError,
        Breakage::LeavesWorkerDead,
        Breakage::OverAdmitsOnFailure,
        Breakage::IgnoresCancel,
    ] {
        let check = conformance::checksum(&broken("blocking-crossbeam", breakage), &HandoffConfig::default());
        assert!(check.passed, "{breakage:?}: {}", check.detail);
    }
}

#[test]
fn producer_error_rejects_a_contestant_that_swallows_the_first_item_error() {
    let contestant = broken("blocking-crossbeam", Breakage::SwallowsFirstItemError);
    let check = conformance::producer_error(&contestant, &HandoffConfig::default());
    assert!(check.failed(), "{}", check.detail);
    assert!(check.detail.contains("at item 0: Ok(sum 0 of 0 items)"), "{}", check.detail);
}

#[test]
fn clean_after_faults_rejects_a_contestant_left_with_a_dead_worker() {
    let checks = conformance::faults(&broken("stream-tokio", Breakage::LeavesWorkerDead), &HandoffConfig::default());
    let clean = checks.iter().find(|c| c.name == "clean_after_faults").expect("a clean_after_faults check");
    assert!(clean.failed(), "{}", clean.detail);
    assert!(checks.iter().filter(|c| c.name != "clean_after_faults").all(|c| c.passed));
}

#[test]
fn caller_cancel_rejects_a_contestant_that_ignores_the_cancellation() {
    let contestant = broken("blocking-crossbeam", Breakage::IgnoresCancel);
    let check = conformance::caller_cancel(&contestant, &HandoffConfig::default());
    assert!(check.failed(), "{}", check.detail);
    assert!(check.detail.contains("the cancel did not stop it"), "{}", check.detail);
}

#[test]
fn producer_error_rejects_a_contestant_that_over_admits_while_a_failure_propagates() {
    let contestant = broken("blocking-crossbeam", Breakage::OverAdmitsOnFailure);
    let check = conformance::producer_error(&contestant, &HandoffConfig::default());
    assert!(check.failed(), "{}", check.detail);
    assert!(check.detail.contains("outstanding"), "{}", check.detail);
}
