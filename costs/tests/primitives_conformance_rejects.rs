//! Every edge check of the primitives scenario's conformance can fail: each deliberately broken contestant below
//! is rejected by the check written for its misbehaviour.

use std::panic::{self, AssertUnwindSafe};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::{Arc, Mutex, PoisonError};

use costs::primitives::conformance::{self, Prepare};
use costs::primitives::contestants::{cancelled, Contestant, Primitive};
use costs::work::{Checked, Work};
use pipelines::panic_message;

/// `std::thread::spawn` and `join` per operation, but the first operation is treated as a warm-up whose join is
/// never looked at: its error or panic is swallowed and the run goes on.
#[derive(Debug)]
struct SwallowsFirstOpError;

impl Primitive for SwallowsFirstOpError {
    fn run(&self, ops: u64) -> Result<u64, String> {
        Ok((0..ops).sum())
    }

    fn run_checked(&self, ops: u64, work: &Checked) -> Result<u64, String> {
        let mut sum = 0u64;
        for i in 0..ops {
            if work.cancelled() {
                return Err(cancelled(i));
            }
            let (guard, work) = (work.start(i), work.clone());
            let thread = std::thread::spawn(move || {
                let _guard = guard;
                work.finish(i, i)
            });
            let joined = thread.join();
            if i == 0 {
                continue;
            }
            let n = joined.map_err(|p| panic_message(&*p))?.map_err(|e| e.to_string())?;
            sum = sum.wrapping_add(n);
        }
        Ok(sum)
    }
}

type Job = Box<dyn FnOnce() -> Result<u64, String> + Send>;
/// A job and where its answer goes.
type Sent = (Job, Sender<Result<u64, String>>);

/// A pool of one worker thread, made once: it runs each operation, reports a panic, and then exits, so every
/// later run finds its worker dead.
#[derive(Debug)]
struct LeavesWorkerDead {
    jobs: Mutex<Sender<Sent>>,
}

impl LeavesWorkerDead {
    fn new() -> Self {
        let (tx, rx) = channel::<Sent>();
        std::thread::spawn(move || Self::worker(&rx));
        LeavesWorkerDead { jobs: Mutex::new(tx) }
    }

    fn worker(jobs: &Receiver<Sent>) {
        while let Ok((job, answer)) = jobs.recv() {
            match panic::catch_unwind(AssertUnwindSafe(job)) {
                Ok(out) => {
                    let _ = answer.send(out);
                }
                Err(payload) => {
                    // The bug: the panic is reported, but the worker does not survive it.
                    let _ = answer.send(Err(format!("the job panicked: {}", panic_message(&*payload))));
                    return;
                }
            }
        }
    }
}

impl Primitive for LeavesWorkerDead {
    fn run(&self, ops: u64) -> Result<u64, String> {
        Ok((0..ops).sum())
    }

    fn run_checked(&self, ops: u64, work: &Checked) -> Result<u64, String> {
        let jobs = self.jobs.lock().unwrap_or_else(PoisonError::into_inner).clone();
        let mut sum = 0u64;
        for i in 0..ops {
            if work.cancelled() {
                return Err(cancelled(i));
            }
            let (guard, work) = (work.start(i), work.clone());
            let (tx, rx) = channel();
            let job: Job = Box::new(move || {
                let _guard = guard;
                work.finish(i, i).map_err(|e| e.to_string())
            });
            jobs.send((job, tx)).map_err(|_| "the worker is gone".to_string())?;
            sum = sum.wrapping_add(rx.recv().map_err(|_| "the worker is gone".to_string())??);
        }
        Ok(sum)
    }
}

/// A real contestant that never asks whether it was cancelled.
#[derive(Debug)]
struct IgnoresCancel(Box<dyn Primitive>);

impl Primitive for IgnoresCancel {
    fn run(&self, ops: u64) -> Result<u64, String> {
        self.0.run(ops)
    }

    fn run_checked(&self, ops: u64, work: &Checked) -> Result<u64, String> {
        self.0.run_checked(ops, &work.deaf_to_cancel())
    }

    fn alive_tasks(&self) -> Option<usize> {
        self.0.alive_tasks()
    }
}

fn prepare(make: impl Fn() -> Box<dyn Primitive> + Send + Sync + 'static) -> Prepare {
    Arc::new(move || Ok(make()))
}

fn ignored_cancel_is_rejected(contestant: Contestant) {
    let make = move || -> Box<dyn Primitive> {
        Box::new(IgnoresCancel(contestant.prepare().unwrap_or_else(|e| panic!("prepare: {e}"))))
    };
    let check = conformance::caller_cancel("broken", prepare(make));
    assert!(check.failed(), "{}", check.detail);
    assert!(check.detail.contains("Ok(sum 4950) instead of the cancel"), "{}", check.detail);
    assert!(check.detail.contains("operations made after the cancel"), "{}", check.detail);
}

// Each broken contestant in a process of its own, as the lab runs each contestant: the checks count the
// process's threads, and a broken run that goes on after its check gave up must not be seen by the next.
testkit::own_process! {
    #[test]
    fn op_error_and_op_panic_reject_a_contestant_that_swallows_the_first_operations_fault() {
        let checks = conformance::faults(prepare(|| Box::new(SwallowsFirstOpError)));
        for name in ["op_error", "op_panic"] {
            let check = checks.iter().find(|c| c.name == name).expect("the check");
            assert!(check.failed(), "{}", check.detail);
            assert!(check.detail.contains("at operation 0: Ok(sum 4950)"), "{}", check.detail);
            assert!(!check.detail.contains("at operation 50"), "only the first is swallowed: {}", check.detail);
        }
        let clean = checks.iter().find(|c| c.name == "clean_after_faults").expect("a clean_after_faults check");
        assert!(clean.passed, "{}", clean.detail);
    }

    #[test]
    fn clean_after_faults_rejects_a_contestant_left_with_a_dead_worker() {
        let checks = conformance::faults(prepare(|| Box::new(LeavesWorkerDead::new())));
        let clean = checks.iter().find(|c| c.name == "clean_after_faults").expect("a clean_after_faults check");
        assert!(clean.failed(), "{}", clean.detail);
        assert!(clean.detail.contains("the worker is gone"), "{}", clean.detail);
        let error = checks.iter().find(|c| c.name == "op_error").expect("an op_error check");
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
        let make = || -> Box<dyn Primitive> {
            Box::new(IgnoresCancel(Contestant::ThreadSpawn.prepare().unwrap_or_else(|e| panic!("prepare: {e}"))))
        };
        for check in conformance::faults(prepare(make)) {
            assert!(check.passed, "{}: {}", check.name, check.detail);
        }
    }
}
