//! A `may` coroutine that waits on a [`Completion`] parks itself, not its carrier thread: on **one** carrier,
//! 1,000 coroutines are all waiting at once before any call completes, which is impossible if a wait blocked
//! the carrier (the first waiter would hold it and the count would stop at 1). A control shows the detector
//! works: coroutines that block in a thread-blocking call (`std::sync::mpsc::Receiver::recv`) never get past
//! one waiting at a time. No assertion depends on speed: only on counts, with a deadline that only a hang hits.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use dependency::{CallError, Completion, Reply};

// `wait_until` in a coroutine also covers `may`'s whole-millisecond park timeout: its first park wakes before the
// deadline (truncated), and the second, under a millisecond, would park forever if not rounded up.

/// How long the test waits for a count before calling it a hang: far beyond any machine's slowness.
const HANG: Duration = Duration::from_secs(60);

fn reply(value: u64) -> Reply {
    let now = Instant::now();
    Reply { value, issued: now, started: now, finished: now }
}

/// Wait (polling from the test thread, which is not a carrier) until `count` reaches `target`; false on a hang.
fn reaches(count: &AtomicUsize, target: usize) -> bool {
    let deadline = Instant::now() + HANG;
    while count.load(Ordering::Acquire) < target {
        if Instant::now() > deadline {
            return false;
        }
        thread::sleep(Duration::from_millis(1));
    }
    true
}

/// Spawn a coroutine (the bodies here hold no thread-local across a wait, `may`'s rule for spawning).
fn go<T: Send + 'static>(body: impl FnOnce() -> T + Send + 'static) -> may::coroutine::JoinHandle<T> {
    // SAFETY: the body keeps no thread-local across a point where the coroutine may be rescheduled.
    unsafe { may::coroutine::Builder::new().stack_size(0x1000).spawn(body) }.expect("spawn a coroutine")
}

#[test]
fn on_one_carrier_a_thousand_coroutines_wait_at_once_and_a_thread_blocking_wait_does_not() {
    may::config().set_workers(1).set_worker_pin(false);
    a_thousand_coroutines_wait_at_once_on_one_carrier();
    a_thread_blocking_wait_holds_the_only_carrier();
    a_coroutine_wait_until_times_out_and_hands_the_completion_back();
}

fn a_thousand_coroutines_wait_at_once_on_one_carrier() {
    const WAITERS: usize = 1_000;
    let waiting = Arc::new(AtomicUsize::new(0));
    let mut completers = Vec::with_capacity(WAITERS);
    let mut handles = Vec::with_capacity(WAITERS);
    for i in 0..WAITERS {
        let (completer, completion) = Completion::pending();
        completers.push(completer);
        let waiting = Arc::clone(&waiting);
        handles.push(go(move || {
            waiting.fetch_add(1, Ordering::AcqRel);
            (i, completion.wait())
        }));
    }
    // Every completer is still held here: no call has completed, so every coroutine that counted is waiting.
    assert!(
        reaches(&waiting, WAITERS),
        "only {} of {WAITERS} coroutines got to wait on one carrier: a wait blocked the carrier",
        waiting.load(Ordering::Acquire)
    );
    // Complete in reverse order; every coroutine gets its own reply exactly once.
    for (i, completer) in completers.into_iter().enumerate().rev() {
        completer.complete(Ok(reply(i as u64)));
    }
    for (expected, handle) in handles.into_iter().enumerate() {
        let (i, result) = handle.join().expect("the coroutine did not panic");
        assert_eq!(i, expected);
        assert_eq!(result.map(|r| r.value), Ok(expected as u64));
    }
}

fn a_thread_blocking_wait_holds_the_only_carrier() {
    const BLOCKERS: usize = 10;
    let waiting = Arc::new(AtomicUsize::new(0));
    let mut releases = Vec::new();
    let mut handles = Vec::new();
    for _ in 0..BLOCKERS {
        let (release, blocked) = std::sync::mpsc::channel::<()>();
        releases.push(release);
        let waiting = Arc::clone(&waiting);
        handles.push(go(move || {
            waiting.fetch_add(1, Ordering::AcqRel);
            // The wrong way: a thread-blocking receive inside a coroutine blocks its carrier.
            let _ = blocked.recv();
        }));
    }
    assert!(reaches(&waiting, 1), "no coroutine ran at all");
    thread::sleep(Duration::from_millis(100));
    let seen = waiting.load(Ordering::Acquire);
    // Releasing them all lets each in turn run and return, whatever the order they ran in.
    for release in releases {
        let _ = release.send(());
    }
    for handle in handles {
        handle.join().expect("the coroutine did not panic");
    }
    assert_eq!(seen, 1, "with the only carrier blocked, no second coroutine can have started");
}

fn a_coroutine_wait_until_times_out_and_hands_the_completion_back() {
    let (completer, completion) = Completion::pending();
    let timed_out = go(move || completion.wait_until(Instant::now() + Duration::from_millis(5)).err());
    let completion = timed_out.join().expect("the coroutine did not panic").expect("no completer ran: it timed out");
    drop(completer);
    let finished = go(move || completion.wait());
    assert_eq!(finished.join().ok(), Some(Err(CallError::ShutDown)));
}
