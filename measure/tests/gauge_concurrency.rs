//! Tests that the outstanding-work gauge's current value and high-water mark stay exact under concurrent use.
#![allow(clippy::unwrap_used)]

use std::sync::{Arc, Barrier};

use measure::gauge::Outstanding;

/// Runs `work` on `threads` threads sharing one gauge and one barrier for all of them, and returns the gauge once
/// every thread has finished.
fn on_threads(threads: usize, work: impl Fn(&Outstanding, &Barrier) + Send + Sync + 'static) -> Arc<Outstanding> {
    let gauge = Arc::new(Outstanding::new());
    let barrier = Arc::new(Barrier::new(threads));
    let work = Arc::new(work);
    let handles: Vec<_> = (0..threads)
        .map(|_| {
            let (gauge, barrier, work) = (Arc::clone(&gauge), Arc::clone(&barrier), Arc::clone(&work));
            std::thread::spawn(move || work(&gauge, &barrier))
        })
        .collect();
    for h in handles {
        h.join().unwrap();
    }
    gauge
}

#[test]
fn balanced_concurrent_traffic_ends_at_zero_with_bounded_high() {
    const THREADS: usize = 4;
    const ROUNDS: u64 = 20_000;
    const BATCH: u64 = 3;
    let gauge = on_threads(THREADS, |gauge, barrier| {
        barrier.wait();
        for _ in 0..ROUNDS {
            gauge.admit(BATCH);
            gauge.leave(BATCH);
        }
    });
    assert_eq!(gauge.current(), 0);
    // Each thread holds at most BATCH at a time, so the total can never exceed THREADS × BATCH.
    assert!(gauge.high_water() >= BATCH as i64);
    assert!(gauge.high_water() <= (THREADS as u64 * BATCH) as i64);
    assert!(gauge.touched());
}

#[test]
fn known_maximum_is_reached_exactly() {
    // Every thread admits its share, all wait at a barrier (so everything is in at once), then all leave.
    const THREADS: usize = 6;
    const PER_THREAD: u64 = 1_000;
    let gauge = on_threads(THREADS, |gauge, barrier| {
        for _ in 0..PER_THREAD {
            gauge.admit(1);
        }
        barrier.wait();
        for _ in 0..PER_THREAD {
            gauge.leave(1);
        }
    });
    assert_eq!(gauge.high_water(), (THREADS as u64 * PER_THREAD) as i64);
    assert_eq!(gauge.current(), 0);
}

#[test]
fn high_water_equals_max_of_a_sequential_trace() {
    let gauge = Outstanding::new();
    let trace: [(bool, u64); 8] =
        [(true, 5), (true, 2), (false, 4), (true, 10), (false, 12), (true, 1), (true, 3), (false, 4)];
    let mut level = 0i64;
    let mut max = 0i64;
    for (admit, n) in trace {
        if admit {
            gauge.admit(n);
            level += n as i64;
        } else {
            gauge.leave(n);
            level -= n as i64;
        }
        max = max.max(level);
        assert_eq!(gauge.current(), level);
    }
    assert_eq!(gauge.high_water(), max);
    gauge.reset();
    assert_eq!((gauge.current(), gauge.high_water(), gauge.touched()), (0, 0, false));
}
