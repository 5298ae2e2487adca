//! A `may` coroutine waiting at the gate parks the coroutine, never its carrier thread: on a single carrier, a
//! hundred coroutines wait at a full gate at once while another coroutine still runs, and each is admitted in
//! turn once slots come back. (If `acquire_blocking` parked the carrier, the first waiter would stop it and no
//! second coroutine could ever reach the gate.)
//!
//! This file is its own test process, so it sets `may`'s carrier count to one before anything else starts it.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use overload::limit::{Fixed, Gate, Outcome};
use pipelines::coroutine::{self, DEFAULT_STACK_WORDS};
use pipelines::LiveStages;

/// How long the test waits for what it expects before calling it a failure (never a speed judgement).
const DEADLINE: Duration = Duration::from_secs(20);

fn wait_until(what: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + DEADLINE;
    while !done() {
        assert!(Instant::now() < deadline, "gave up waiting: {what}");
        thread::sleep(Duration::from_millis(1));
    }
}

#[test]
fn waiting_coroutines_park_themselves_not_their_only_carrier() {
    assert_eq!(coroutine::configure(1), 1, "this test process runs one carrier");
    let gate = Arc::new(Gate::new(Box::new(Fixed::new(1))));
    let held = gate.try_acquire().expect("the only slot");
    let live = Arc::new(LiveStages::new());
    let admitted = Arc::new(AtomicUsize::new(0));

    let waiters: Vec<_> = (0..100)
        .map(|_| {
            let (gate, admitted) = (Arc::clone(&gate), Arc::clone(&admitted));
            coroutine::spawn("waiter", DEFAULT_STACK_WORDS, &live, move || {
                let permit = gate.acquire_blocking();
                admitted.fetch_add(1, Ordering::SeqCst);
                permit.release(Duration::from_millis(1), Outcome::Success);
            })
            .expect("spawn a waiter")
        })
        .collect();
    wait_until("a hundred coroutines queued at the gate", || gate.waiting() == 100);
    assert_eq!(admitted.load(Ordering::SeqCst), 0, "nobody passed a full gate");

    // The carrier is free: one more coroutine runs to completion while all hundred wait.
    let ran = Arc::new(AtomicUsize::new(0));
    let bystander = {
        let ran = Arc::clone(&ran);
        coroutine::spawn("bystander", DEFAULT_STACK_WORDS, &live, move || ran.fetch_add(1, Ordering::SeqCst))
            .expect("spawn the bystander")
    };
    bystander.join().expect("the bystander ran");
    assert_eq!(ran.load(Ordering::SeqCst), 1);
    assert_eq!(gate.waiting(), 100, "the waiters are still parked");

    // The slot comes back: it passes from waiter to waiter, each woken by the one before.
    held.release(Duration::from_millis(1), Outcome::Success);
    for waiter in waiters {
        waiter.join().expect("a waiter finished");
    }
    assert_eq!(admitted.load(Ordering::SeqCst), 100);
    let stats = gate.stats();
    assert_eq!((stats.admitted, stats.queued, stats.in_flight, stats.waiting), (101, 100, 0, 0));
    assert_eq!(stats.over_limit_admissions, 0);
    assert_eq!(live.current(), 0);
}
