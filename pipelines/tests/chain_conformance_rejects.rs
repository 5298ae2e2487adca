//! Every edge check of the chain's conformance can fail: each deliberately broken contestant below (a real
//! contestant wrapped to misbehave in one way) is rejected by the check written for that misbehaviour.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use measure::meter::{GaugeMeter, Meter, NoMeter};
use measure::summary::ContestantInfo;
use pipelines::chain::{conformance, ChainConfig, ChainContestant, ChainError, Consumer, Job, Outcome, PreparedChain};

/// How a broken contestant misbehaves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Breakage {
    /// An error at a stage's first element comes back as an empty success (the consumer saw the channels close
    /// before any item and called that the end of the input).
    SwallowsFirstItemError,
    /// Once a run panicked, a worker is gone: later runs lose half their items.
    LeavesWorkerDead,
    /// While a failure propagates, it lets in more than its bound (a slot freed twice, say).
    OverAdmitsOnFailure,
    /// The caller's cancellation is ignored: the consumer drains the whole input.
    IgnoresCancel,
}

/// A real contestant wrapped to misbehave as `breakage` says.
#[derive(Debug)]
struct Broken {
    inner: Arc<dyn ChainContestant>,
    breakage: Breakage,
}

#[derive(Debug)]
struct BrokenPrepared {
    inner: Box<dyn PreparedChain>,
    breakage: Breakage,
    bound: Option<u64>,
    dead_worker: AtomicBool,
}

impl ChainContestant for Broken {
    fn info(&self) -> ContestantInfo {
        self.inner.info()
    }

    fn ordered(&self) -> bool {
        self.inner.ordered()
    }

    fn bound(&self, config: &ChainConfig) -> Option<u64> {
        self.inner.bound(config)
    }

    fn prepare(&self, config: &ChainConfig) -> Result<Box<dyn PreparedChain>, ChainError> {
        Ok(Box::new(BrokenPrepared {
            inner: self.inner.prepare(config)?,
            breakage: self.breakage,
            bound: self.inner.bound(config),
            dead_worker: AtomicBool::new(false),
        }))
    }
}

impl PreparedChain for BrokenPrepared {
    fn run(&self, job: &Job<'_, NoMeter>, go: &mut dyn FnMut()) -> Result<Outcome, ChainError> {
        self.inner.run(job, go)
    }

    fn run_metered(&self, job: &Job<'_, GaugeMeter>, go: &mut dyn FnMut()) -> Result<Outcome, ChainError> {
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
            (Breakage::SwallowsFirstItemError, Err(ChainError::Stage(e))) if e.at == 0 => Ok(Outcome::Sum(0)),
            (Breakage::LeavesWorkerDead, out) => {
                if matches!(out, Err(ChainError::Panicked { .. })) {
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

fn broken(name: &str, breakage: Breakage) -> Arc<dyn ChainContestant> {
    let inner = pipelines::chain::find(name).unwrap_or_else(|| panic!("no contestant {name}"));
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
        let check = conformance::checksum(&broken("blocking-crossbeam", breakage), &ChainConfig::default());
        assert!(check.passed, "{breakage:?}: {}", check.detail);
    }
}

#[test]
fn stage_error_rejects_a_contestant_that_swallows_the_first_item_error() {
    let check = conformance::stage_error(
        &broken("blocking-crossbeam", Breakage::SwallowsFirstItemError),
        &ChainConfig::default(),
    );
    assert!(check.failed(), "{}", check.detail);
    assert!(check.detail.contains("at 0: Ok(sum 0)"), "{}", check.detail);
}

#[test]
fn clean_after_faults_rejects_a_contestant_left_with_a_dead_worker() {
    let checks =
        conformance::faults(&broken("stream-tokio-tasks", Breakage::LeavesWorkerDead), &ChainConfig::default());
    let clean = checks.iter().find(|c| c.name == "clean_after_faults").expect("a clean_after_faults check");
    assert!(clean.failed(), "{}", clean.detail);
    // The faults themselves were reported correctly: only the reuse is broken.
    assert!(checks.iter().filter(|c| c.name != "clean_after_faults").all(|c| c.passed));
}

#[test]
fn caller_cancel_rejects_a_contestant_that_ignores_the_cancellation() {
    let check =
        conformance::caller_cancel(&broken("blocking-crossbeam", Breakage::IgnoresCancel), &ChainConfig::default());
    assert!(check.failed(), "{}", check.detail);
    assert!(check.detail.contains("did not stop the source"), "{}", check.detail);
}

#[test]
fn stage_error_rejects_a_contestant_that_over_admits_while_a_failure_propagates() {
    let contestant = broken("blocking-crossbeam", Breakage::OverAdmitsOnFailure);
    let check = conformance::stage_error(&contestant, &ChainConfig::default());
    assert!(check.failed(), "{}", check.detail);
    assert!(check.detail.contains("outstanding"), "{}", check.detail);
}
