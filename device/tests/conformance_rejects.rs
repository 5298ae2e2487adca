//! The caller-cancel check can fail: each deliberately broken contestant below (a real contestant wrapped to
//! misbehave in one way, or a plain pool of threads that delivers an answer wrongly) is rejected by
//! `caller_cancel`'s verdict, and the real contestants pass.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use dependency::Dependency;
use device::call::{Call, Timer};
use device::checks::{self, cancel_verdict, CANCEL_WITHIN};
use device::contestants::{BlockingShape, Contestant, Prepared, StreamShape};
use device::job::{Deadline, Job, LedgerMeter, RunError};

/// The budget a wrapper that ignores its caller runs under instead: past [`CANCEL_WITHIN`], short enough for a
/// test.
const OWN_BUDGET: Duration = Duration::from_secs(3);

fn pool() -> Contestant {
    Contestant::Blocking { shape: BlockingShape::Pool, timer: Timer::Device }
}

fn call() -> Call {
    Call::start(Timer::Device, checks::SERVICE).expect("the device starts")
}

/// Runs the real contestant under a deadline of its own, so the caller's cancel never reaches it: it stops only
/// when its own budget runs out.
fn ignores_cancel(prepared: &Prepared, job: &Job<LedgerMeter>) -> Result<(), RunError> {
    let own = Job { deadline: Deadline::new(OWN_BUDGET), ..job.clone() };
    prepared.run(&own, &mut || {})
}

fn the_real_contestant_passes(contestant: Contestant) {
    let prepared = contestant.prepare().expect("prepared");
    let detail = cancel_verdict(&|job| prepared.run(job, &mut || {}), call(), &|| prepared.live_tasks(), 7)
        .unwrap_or_else(|e| panic!("{}: {e}", contestant.name()));
    assert!(detail.contains("nothing delivered after it returned"), "{detail}");
    assert!(!detail.contains("  "), "the detail reads as one sentence: {detail}");
}

/// How a broken pool delivers an answer wrongly.
#[derive(Clone, Copy, PartialEq)]
enum Misdelivery {
    /// None: every answer delivered once, as it came.
    Nothing,
    /// The first thread to see the cancel delivers its last answer a second time as it stops.
    RepeatAfterCancel,
    /// Item [`MISDELIVERED`]'s answer is replaced by item 0's (well before the cancel): one answer delivered
    /// twice, one lost, so every count still matches.
    RepeatInPlace,
    /// Item [`MISDELIVERED`]'s answer is replaced by the last item's, whose input is never called: the counts
    /// still match.
    NeverCalled,
}

/// The item a broken pool delivers wrongly before the cancel ([`checks::CANCEL_AFTER`] starts at 100).
const MISDELIVERED: u64 = 50;

/// A pool of `job.limit` threads taking items in order, each calling and delivering as the real pool does,
/// except for one answer delivered wrongly (`how`).
fn broken_pool(job: &Job<LedgerMeter>, how: Misdelivery) -> Result<(), RunError> {
    job.deadline.start();
    let next = AtomicU64::new(0);
    let repeated = AtomicBool::new(false);
    std::thread::scope(|scope| {
        for _ in 0..job.limit {
            scope.spawn(|| {
                let mut last = None;
                loop {
                    if job.deadline.passed() {
                        if how == Misdelivery::RepeatAfterCancel && !repeated.swap(true, Ordering::Relaxed) {
                            if let Some(answer) = last {
                                job.shared.record(Ok(answer));
                            }
                        }
                        return;
                    }
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= job.items {
                        return;
                    }
                    let in_flight = job.shared.in_flight();
                    let answer = job.call.call_blocking(i);
                    drop(in_flight);
                    last = answer.as_ref().ok().copied();
                    let delivered = match (how, i) {
                        (Misdelivery::RepeatInPlace, MISDELIVERED) => Ok(Dependency::answer(0)),
                        (Misdelivery::NeverCalled, MISDELIVERED) => Ok(Dependency::answer(job.items - 1)),
                        _ => answer,
                    };
                    job.shared.record(delivered);
                }
            });
        }
    });
    Ok(())
}

// Each test in a process of its own, as the lab runs each contestant in a fresh trial process: the checks
// count the whole process's threads, sockets or CPU, which another test's would change.
testkit::own_process! {
    #[test]
    fn a_contestant_that_ignores_the_callers_cancel_is_rejected() {
        for contestant in
            [pool(), Contestant::Stream { shape: StreamShape::BufferUnordered, free: false, timer: Timer::Device }]
        {
            let prepared = contestant.prepare().expect("prepared");
            let verdict = cancel_verdict(&|job| ignores_cancel(&prepared, job), call(), &|| prepared.live_tasks(), 7)
                .expect_err("it ran on after the cancel").to_string();
            assert!(
                verdict.contains(&format!("(at most {} ms)", CANCEL_WITHIN.as_millis())),
                "{}: {verdict}",
                contestant.name()
            );
        }
    }

    #[test]
    fn a_contestant_that_returns_before_its_work_ends_is_rejected() {
        // The run is handed to a detached thread under a deadline of its own and the wrapper returns as soon as the
        // caller cancels: the detached run goes on calling and delivering after it returned, whatever the machine's
        // load (had it shared the caller's cancel, a wrapper descheduled for longer than a call would find its
        // calls drained and pass).
        let prepared = Arc::new(pool().prepare().expect("prepared"));
        let inner = Arc::clone(&prepared);
        let verdict = cancel_verdict(
            &move |job| {
                let detached = Job { deadline: Deadline::new(OWN_BUDGET), ..job.clone() };
                let inner = Arc::clone(&inner);
                std::thread::spawn(move || inner.run(&detached, &mut || {}));
                while !job.deadline.is_cancelled() {
                    std::thread::sleep(Duration::from_micros(50));
                }
                Ok(())
            },
            call(),
            &|| None,
            11,
        )
        .expect_err("its calls ended after it returned")
        .to_string();
        assert!(verdict.contains("still counted outstanding") || verdict.contains("delivered after"), "{verdict}");
    }

    #[test]
    fn the_real_pool_they_wrap_passes() {
        the_real_contestant_passes(pool());
    }

    #[test]
    fn the_real_stream_they_wrap_passes() {
        the_real_contestant_passes(Contestant::Stream { shape: StreamShape::BufferUnordered, free: false, timer: Timer::Device });
    }

    #[test]
    fn a_contestant_that_delivers_an_answer_twice_or_from_an_input_never_called_is_rejected() {
        for (how, seed, expected) in [
            (Misdelivery::RepeatAfterCancel, 3, "1 repeated an input's answer already delivered, 0 came from an input"),
            (Misdelivery::RepeatInPlace, 5, "1 repeated an input's answer already delivered, 0 came from an input"),
            (Misdelivery::NeverCalled, 9, "0 repeated an input's answer already delivered, 1 came from an input never"),
        ] {
            let verdict = cancel_verdict(&|job| broken_pool(job, how), call(), &|| None, seed)
                .expect_err("an answer was delivered wrongly").to_string();
            assert!(verdict.contains(expected), "{verdict}");
            if how != Misdelivery::RepeatAfterCancel {
                // One answer in place of another: every count matches, only the delivery ledger sees it.
                assert!(!verdict.contains(';'), "the ledger's is the only problem: {verdict}");
            }
        }
        // The same pool delivering every answer rightly passes.
        let detail = cancel_verdict(&|job| broken_pool(job, Misdelivery::Nothing), call(), &|| None, 3)
            .unwrap_or_else(|e| panic!("the right pool: {e}"));
        assert!(detail.contains("every delivered answer from a distinct input that was called"), "{detail}");
    }
}
