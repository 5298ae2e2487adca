//! The admission gate: never over the limit under many threads and tasks at once, first come first served
//! across both families, cancel-safe, and a dropped permit is an ignored call.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{mpsc, Arc, Mutex};
use std::task::{Context, Poll};
use std::thread;
use std::time::{Duration, Instant};

use futures::task::noop_waker;
use overload::limit::{Aimd, AimdConfig, Fixed, Gate, LimitAlgorithm, Outcome, Permit};

mod common;
use common::Scripted;

/// Runs `f` on its own thread and fails the test if it has not finished within `limit` (a lost wake-up
/// shows up as a hang).
fn within<T: Send + 'static>(limit: Duration, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(limit).expect("did not finish in time: deadlock or lost wake-up (or it panicked)")
}

/// Waits (sleeping, bounded) until `condition` holds.
fn wait_until(what: &str, condition: impl Fn() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while !condition() {
        assert!(Instant::now() < deadline, "timed out waiting until {what}");
        thread::sleep(Duration::from_millis(1));
    }
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_time().build().expect("tokio runtime")
}

fn poll_once(fut: &mut overload::limit::Acquire) -> Poll<Permit> {
    let waker = noop_waker();
    Pin::new(fut).poll(&mut Context::from_waker(&waker))
}

const MS: Duration = Duration::from_millis(1);

#[test]
fn waiting_threads_and_tasks_are_served_in_arrival_order() {
    within(Duration::from_secs(60), || {
        let rt = runtime();
        let gate = Arc::new(Gate::new(Box::new(Fixed::new(1))));
        let order = Arc::new(Mutex::new(Vec::new()));
        let held = gate.try_acquire().expect("the only slot");

        let mut threads = Vec::new();
        let mut tasks = Vec::new();
        for i in 0..10 {
            let (gate2, order2) = (Arc::clone(&gate), Arc::clone(&order));
            if i % 3 == 0 {
                threads.push(thread::spawn(move || {
                    let permit = gate2.acquire_blocking();
                    order2.lock().expect("order").push(i);
                    permit.release(MS, Outcome::Success);
                }));
            } else {
                tasks.push(rt.spawn(async move {
                    let permit = gate2.acquire().await;
                    order2.lock().expect("order").push(i);
                    permit.release(MS, Outcome::Success);
                }));
            }
            wait_until("the waiter queued", || gate.waiting() == i + 1);
        }

        held.release(MS, Outcome::Success);
        for t in threads {
            t.join().expect("waiter thread");
        }
        rt.block_on(async {
            for t in tasks {
                t.await.expect("waiter task");
            }
        });
        assert_eq!(*order.lock().expect("order"), (0..10).collect::<Vec<_>>());
        let stats = gate.stats();
        assert_eq!((stats.admitted, stats.queued, stats.released, stats.in_flight), (11, 10, 11, 0));
    });
}

#[test]
fn cancelling_a_queued_acquire_gives_up_its_place_without_leaking() {
    within(Duration::from_secs(60), || {
        let rt = runtime();
        let gate = Arc::new(Gate::new(Box::new(Fixed::new(1))));
        let held = gate.try_acquire().expect("the only slot");

        // A task gives up after a short wait (the slot is held throughout, so it cannot be granted).
        let gate2 = Arc::clone(&gate);
        let timed_out = rt.block_on(async move { tokio::time::timeout(MS, gate2.acquire()).await.is_err() });
        assert!(timed_out);
        assert_eq!(gate.waiting(), 0, "the cancelled waiter left the queue");

        // A waiter behind a cancelled one still gets the slot.
        let mut cancelled = gate.acquire();
        assert!(poll_once(&mut cancelled).is_pending());
        let gate3 = Arc::clone(&gate);
        let next = thread::spawn(move || gate3.acquire_blocking().in_flight_at_admission());
        wait_until("two waiters queued", || gate.waiting() == 2);
        drop(cancelled);
        assert_eq!(gate.waiting(), 1);
        held.release(MS, Outcome::Success);
        assert_eq!(next.join().expect("next waiter"), 1);

        let stats = gate.stats();
        assert_eq!((stats.cancelled, stats.in_flight, stats.waiting), (2, 0, 0));
        assert_eq!(stats.admitted, stats.released);
    });
}

#[test]
fn cancelling_after_the_slot_was_granted_passes_it_to_the_next_waiter() {
    within(Duration::from_secs(60), || {
        let gate = Arc::new(Gate::new(Box::new(Fixed::new(1))));
        let held = gate.try_acquire().expect("the only slot");

        let mut first = gate.acquire();
        assert!(poll_once(&mut first).is_pending());
        let gate2 = Arc::clone(&gate);
        let second = thread::spawn(move || {
            let permit = gate2.acquire_blocking();
            let at = permit.in_flight_at_admission();
            permit.release(MS, Outcome::Success);
            at
        });
        wait_until("two waiters queued", || gate.waiting() == 2);

        // The release grants the slot to `first`, which is then dropped without ever seeing it.
        held.release(MS, Outcome::Success);
        assert_eq!((gate.in_flight(), gate.waiting()), (1, 1));
        drop(first);
        assert_eq!(second.join().expect("second waiter"), 1, "the slot went on to the next waiter");

        let stats = gate.stats();
        assert_eq!((stats.admitted, stats.released, stats.in_flight), (3, 3, 0));
        assert_eq!((stats.cancelled, stats.ignored, stats.succeeded), (1, 1, 2));
        assert_eq!(gate.over_limit_admissions(), 0);
    });
}

#[test]
fn dropping_a_permit_is_an_ignored_call() {
    let gate = Arc::new(Gate::new(Box::new(Aimd::new(AimdConfig { initial: 2, min: 1, ..AimdConfig::default() }))));

    drop(gate.try_acquire().expect("slot"));
    gate.try_acquire().expect("slot").release(MS, Outcome::Ignore);
    assert_eq!(gate.limit(), 2, "ignored calls feed the algorithm nothing");
    assert_eq!(gate.stats().ignored, 2);
    assert_eq!(gate.in_flight(), 0);

    // The same call reported as a success grows AIMD's limit (1 × 2 ≥ 2).
    gate.try_acquire().expect("slot").release(MS, Outcome::Success);
    assert_eq!(gate.limit(), 3);
    let limits: Vec<usize> = gate.limit_history().iter().map(|&(_, limit)| limit).collect();
    assert_eq!(limits, vec![2, 3]);
}

#[test]
fn try_acquire_does_not_overtake_waiters() {
    let gate = Arc::new(Gate::new(Box::new(Fixed::new(1))));
    let held = gate.try_acquire().expect("slot");
    let mut waiter = gate.acquire();
    assert!(poll_once(&mut waiter).is_pending());
    held.release(MS, Outcome::Success);
    assert!(gate.try_acquire().is_none(), "the freed slot belongs to the waiter");
    let Poll::Ready(permit) = poll_once(&mut waiter) else { panic!("granted waiter still pending") };
    drop(permit);
    assert!(gate.try_acquire().is_some());
}

/// A limit that jumps around on every sample, between 1 and 12, whatever the sample says.
fn churn(limit: usize) -> Box<Scripted> {
    Scripted::new(limit, |samples, _| 1 + (samples * 7) % 12)
}

/// Many blocking threads and many tokio tasks (some of which give up waiting) share one gate whose limit
/// `algorithm` keeps moving; checks that nothing was ever admitted over the limit and nothing leaked.
///
/// Contention is made, not hoped for: the test holds every slot of the gate before any worker starts, waits
/// until every thread and task is queued behind them, and only then gives the slots back, so the first
/// admissions are certainly hand-overs to queued waiters, however the machine schedules the workers after that.
fn hammer(algorithm: Box<dyn LimitAlgorithm>, ceiling: usize) {
    const THREADS: usize = 6;
    const TASKS: usize = 6;
    const OPS: usize = 300;
    /// How long each thread holds its slot, so that threads and tasks keep overlapping after the forced start.
    const HOLD: Duration = Duration::from_micros(200);

    let gate = Arc::new(Gate::new(algorithm));
    // Fill the gate to its limit: every worker's first acquire has to queue.
    let start_line: Vec<Permit> = std::iter::from_fn(|| gate.try_acquire()).collect();
    assert_eq!(start_line.len(), gate.limit(), "the start line holds every slot");
    let active = Arc::new(AtomicUsize::new(0));
    let max_active = Arc::new(AtomicUsize::new(0));
    let violations = Arc::new(AtomicU64::new(0));
    let completed = Arc::new(AtomicU64::new(0));

    let hold = {
        let (active, max_active, violations) = (Arc::clone(&active), Arc::clone(&max_active), Arc::clone(&violations));
        move |permit: &Permit| {
            if permit.in_flight_at_admission() > permit.limit_at_admission() {
                violations.fetch_add(1, Ordering::SeqCst);
            }
            let now = active.fetch_add(1, Ordering::SeqCst) + 1;
            max_active.fetch_max(now, Ordering::SeqCst);
        }
    };
    let finish = {
        let (active, completed) = (Arc::clone(&active), Arc::clone(&completed));
        move |permit: Permit, op: usize| {
            active.fetch_sub(1, Ordering::SeqCst);
            completed.fetch_add(1, Ordering::SeqCst);
            let latency = Duration::from_micros(2_000 + ((op * 7919) % 20_000) as u64);
            match op % 7 {
                0 => drop(permit),
                1 | 4 => permit.release(latency, Outcome::Dropped),
                _ => permit.release(latency, Outcome::Success),
            }
        }
    };

    let rt = runtime();
    let mut tasks = Vec::new();
    for t in 0..TASKS {
        let (gate, hold, finish) = (Arc::clone(&gate), hold.clone(), finish.clone());
        tasks.push(rt.spawn(async move {
            let mut gave_up = 0u64;
            for op in 0..OPS {
                let permit = if op % 5 == t % 5 {
                    // Give up after a very short wait: races a cancellation against a grant.
                    match tokio::time::timeout(Duration::from_micros(50), gate.acquire()).await {
                        Ok(permit) => permit,
                        Err(_) => {
                            gave_up += 1;
                            continue;
                        }
                    }
                } else {
                    gate.acquire().await
                };
                hold(&permit);
                tokio::task::yield_now().await;
                finish(permit, op + t);
            }
            gave_up
        }));
    }
    let threads: Vec<_> = (0..THREADS)
        .map(|t| {
            let (gate, hold, finish) = (Arc::clone(&gate), hold.clone(), finish.clone());
            thread::spawn(move || {
                for op in 0..OPS {
                    let permit = gate.acquire_blocking();
                    hold(&permit);
                    thread::sleep(HOLD);
                    finish(permit, op * 3 + t);
                }
            })
        })
        .collect();

    // Every thread and task is parked behind the start line (a task whose first acquire gives up queues again
    // for its next operation; a thread cannot leave the queue), so at least the six threads are queued when
    // the slots come back: each release hands its slot to a waiter.
    wait_until("every thread and task queued behind the full gate", || gate.waiting() == THREADS + TASKS);
    drop(start_line);

    for t in threads {
        t.join().expect("worker thread");
    }
    let gave_up: u64 = rt.block_on(async {
        let mut sum = 0;
        for t in tasks {
            sum += t.await.expect("worker task");
        }
        sum
    });

    let stats = gate.stats();
    assert_eq!(violations.load(Ordering::SeqCst), 0);
    assert_eq!(stats.over_limit_admissions, 0);
    assert!(stats.max_in_flight <= ceiling, "max in flight {} over {ceiling}", stats.max_in_flight);
    assert!(max_active.load(Ordering::SeqCst) <= ceiling);
    assert_eq!((stats.in_flight, stats.waiting), (0, 0), "{stats:?}");
    let done = completed.load(Ordering::SeqCst);
    assert_eq!(done + gave_up, ((THREADS + TASKS) * OPS) as u64);
    // Every slot handed out came back: permits used, plus slots granted to waits that gave up.
    assert_eq!(stats.admitted, stats.released, "{stats:?}");
    assert!(stats.admitted >= done);
    assert!(stats.limit_changes > 0);
    assert!(stats.queued >= THREADS as u64, "the queued workers were not handed the start line's slots: {stats:?}");
}

#[test]
fn never_admits_over_a_churning_limit_under_many_threads_and_tasks() {
    within(Duration::from_secs(120), || hammer(churn(4), 12));
}

#[test]
fn never_admits_over_an_aimd_limit_under_many_threads_and_tasks() {
    let aimd = Aimd::new(AimdConfig { initial: 8, min: 1, max: 16, ..AimdConfig::default() });
    within(Duration::from_secs(120), move || hammer(Box::new(aimd), 16));
}

#[test]
fn limit_history_is_time_ordered_and_starts_at_the_initial_limit() {
    let gate = Arc::new(Gate::new(churn(5)));
    for _ in 0..20 {
        gate.acquire_blocking().release(MS, Outcome::Success);
    }
    let history = gate.limit_history();
    assert_eq!(history[0], (Duration::ZERO, 5));
    assert!(history.windows(2).all(|w| w[0].0 <= w[1].0 && w[0].1 != w[1].1));
    assert_eq!(history.len() as u64, 1 + gate.stats().limit_changes);
    assert_eq!(history.last().map(|&(_, limit)| limit), Some(gate.limit()));
}
