//! Tests that settled process CPU accounting books all the CPU that worker threads burned before they were joined.
//!
//! Each worker spins until its own precise thread clock (`CLOCK_THREAD_CPUTIME_ID`) shows a known amount of CPU,
//! so the expected total is known exactly; the assertions are about CPU amounts, never about speed. Each test in
//! this file runs in a process of its own because process CPU is process-wide.
#![allow(clippy::unwrap_used)]

use measure::cpu::{settled_process_mark, thread_cpu_clock_ns, thread_usage, CpuMark};

/// Spins until this thread has used `ns` of CPU; returns what it used, by the precise clock and by getrusage.
fn burn(ns: u64) -> (u64, u64) {
    let start = thread_cpu_clock_ns().unwrap();
    let usage_start = thread_usage();
    let mut x = 0u64;
    loop {
        for i in 0..1000u64 {
            x = std::hint::black_box(x.wrapping_mul(31).wrapping_add(i));
        }
        let used = thread_cpu_clock_ns().unwrap() - start;
        if used >= ns {
            std::hint::black_box(x);
            return (used, thread_usage().since(&usage_start).cpu_ns());
        }
    }
}

/// Burns `per_thread_ns` on each of `threads` threads, joins them, and returns
/// (burned total, settled process delta net of the wait, main thread's own CPU over the window).
fn measure_burn(threads: usize, per_thread_ns: u64) -> (u64, u64, u64) {
    let main_start = thread_cpu_clock_ns().unwrap();
    let before = CpuMark::process();
    let handles: Vec<_> = (0..threads).map(|_| std::thread::spawn(move || burn(per_thread_ns))).collect();
    let mut burned = 0;
    for handle in handles {
        let (precise, rusage) = handle.join().unwrap();
        // RUSAGE_THREAD agrees with the precise thread clock to within its microsecond truncation.
        assert!(rusage + 1_000_000 >= precise && rusage <= precise + 1_000_000, "{rusage} vs {precise}");
        burned += precise;
    }
    // Exactly what the probe does after the wall clock stops: settle, read, and take out the wait's own CPU.
    let wait_start = CpuMark::thread();
    let after = settled_process_mark();
    let wait_own = CpuMark::thread().since(&wait_start);
    let delta = after.since(&before).cpu_ns().saturating_sub(wait_own.cpu_ns());
    let main_cpu = thread_cpu_clock_ns().unwrap() - main_start;
    (burned, delta, main_cpu)
}

const TOLERANCE_NS: u64 = 2_000_000;
const SLACK_NS: u64 = 50_000_000;

/// Burns `per_thread_ns` on each of `threads` threads and asserts the settled process delta books all of it, and
/// not much more than it plus the main thread's own CPU.
fn assert_fully_booked(threads: usize, per_thread_ns: u64) {
    let (burned, delta, main_cpu) = measure_burn(threads, per_thread_ns);
    assert!(burned >= threads as u64 * per_thread_ns);
    assert!(delta + TOLERANCE_NS >= burned, "settled delta {delta} ns < burned {burned} ns");
    assert!(delta <= burned + main_cpu + SLACK_NS, "settled delta {delta} ns ≫ burned {burned} + main {main_cpu}");
}

// Each test in a process of its own, as the lab runs each contestant in a fresh trial process: the checks
// count the whole process's threads, sockets or CPU, which another test's would change.
testkit::own_process! {
    #[test]
    fn two_workers_are_fully_booked() {
        assert_fully_booked(2, 200_000_000);
    }

    #[test]
    fn more_workers_than_cores_are_fully_booked() {
        assert_fully_booked(5, 60_000_000);
    }

    #[test]
    fn settling_wait_itself_costs_little() {
        let wait_start = CpuMark::thread();
        let _ = settled_process_mark();
        let own = CpuMark::thread().since(&wait_start);
        assert!(own.cpu_ns() < measure::cpu::SETTLE_WAIT.as_nanos() as u64 / 2, "own {own:?}");
        assert!(own.voluntary_switches >= 1, "a sleep switches out at least once: {own:?}");
    }
}
