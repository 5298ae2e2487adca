//! The caller-cancel check can fail: each deliberately broken contestant below (a real contestant wrapped to
//! misbehave in one way) is rejected by `caller_cancel`'s verdict, and the real contestant it wraps passes.

use std::sync::Arc;
use std::time::Duration;

use device::call::{Call, Timer};
use device::conformance::{self, cancel_run, cancel_verdict, CANCEL_WITHIN};
use device::contestants::{BlockingShape, Contestant, Prepared, StreamShape};
use device::job::{Deadline, Job};
use measure::meter::GaugeMeter;

/// The budget a wrapper that ignores its caller runs under instead: past [`CANCEL_WITHIN`], short enough for a
/// test.
const OWN_BUDGET: Duration = Duration::from_secs(3);

fn pool() -> Contestant {
    Contestant::Blocking { shape: BlockingShape::Pool, timer: Timer::Device }
}

fn call() -> Call {
    Call::start(Timer::Device, conformance::SERVICE).expect("the device starts")
}

/// Runs the real contestant under a deadline of its own, so the caller's cancel never reaches it: it stops only
/// when its own budget runs out.
fn ignores_cancel(prepared: &Prepared, job: &Job<GaugeMeter>) -> Result<(), device::job::RunError> {
    let own = Job { deadline: Deadline::new(OWN_BUDGET), ..job.clone() };
    prepared.run(&own, &mut || {})
}

#[test]
fn a_contestant_that_ignores_the_callers_cancel_is_rejected() {
    for contestant in
        [pool(), Contestant::Stream { shape: StreamShape::BufferUnordered, free: false, timer: Timer::Device }]
    {
        let prepared = contestant.prepare().expect("prepared");
        let run = cancel_run(&|job| ignores_cancel(&prepared, job), call(), &|| prepared.live_tasks(), 7);
        let verdict = cancel_verdict(&run).expect_err("it ran on after the cancel");
        assert!(
            verdict.contains(&format!("(at most {} ms)", CANCEL_WITHIN.as_millis())),
            "{}: {verdict}",
            contestant.name()
        );
    }
}

#[test]
fn a_contestant_that_returns_before_its_work_ends_is_rejected() {
    // The run is handed to a detached thread and the wrapper returns as soon as the caller cancels: the calls
    // in flight then end after it returned.
    let prepared = Arc::new(pool().prepare().expect("prepared"));
    let inner = Arc::clone(&prepared);
    let run = cancel_run(
        &move |job| {
            let (detached, inner) = (job.clone(), Arc::clone(&inner));
            std::thread::spawn(move || inner.run(&detached, &mut || {}));
            while !job.deadline.is_cancelled() {
                std::thread::sleep(Duration::from_micros(50));
            }
            Ok(())
        },
        call(),
        &|| None,
        11,
    );
    let verdict = cancel_verdict(&run).expect_err("its calls ended after it returned");
    assert!(verdict.contains("still counted outstanding") || verdict.contains("delivered after"), "{verdict}");
}

#[test]
fn the_real_contestants_they_wrap_pass() {
    for contestant in
        [pool(), Contestant::Stream { shape: StreamShape::BufferUnordered, free: false, timer: Timer::Device }]
    {
        let prepared = contestant.prepare().expect("prepared");
        let run = cancel_run(&|job| prepared.run(job, &mut || {}), call(), &|| prepared.live_tasks(), 7);
        let detail = cancel_verdict(&run).unwrap_or_else(|e| panic!("{}: {e}", contestant.name()));
        assert!(detail.contains("nothing delivered after it returned"), "{detail}");
        assert!(!detail.contains("  "), "the detail reads as one sentence: {detail}");
    }
}
