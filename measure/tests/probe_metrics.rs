//! Tests the probe end to end on small workloads: which metrics it reports, their bounds, and the exact
//! outstanding-work high-water mark. Each test runs in a process of its own
//! because process CPU and thread counts are process-wide.
#![allow(clippy::unwrap_used)]

use std::sync::Arc;
use std::time::Duration;

use measure::cpu::thread_cpu_clock_ns;
use measure::gauge::Outstanding;
use measure::probe::Probe;

mod common;

fn burn(ns: u64) {
    let start = thread_cpu_clock_ns().unwrap();
    let mut x = 0u64;
    while thread_cpu_clock_ns().unwrap() - start < ns {
        for i in 0..1000u64 {
            x = std::hint::black_box(x.wrapping_mul(31).wrapping_add(i));
        }
    }
}

// Each test in a process of its own, as the lab runs each contestant in a fresh trial process: the checks
// count the whole process's threads, sockets or CPU, which another test's would change.
testkit::own_process! {
    #[test]
    fn threaded_workload_metrics() {
        let gauge = Arc::new(Outstanding::new());
        let probe = Probe::start(Arc::clone(&gauge));
        const ITEMS: u64 = 40;
        let handles: Vec<_> = (0..2)
            .map(|_| {
                let gauge = Arc::clone(&gauge);
                std::thread::spawn(move || {
                    for _ in 0..ITEMS / 2 {
                        gauge.admit(1);
                        burn(1_000_000);
                        gauge.leave(1);
                    }
                })
            })
            .collect();
        for h in handles {
            h.join().unwrap();
        }
        let m = probe.finish(ITEMS);
        let mut metrics = m.metrics();
        metrics.extend(m.timing.metrics());
        for name in [
            "wall_ms",
            "ms_per_million",
            "cpu_ns_per_item",
            "cpu_user_ns_per_item",
            "cpu_system_ns_per_item",
            "cores_used",
            "ctx_switches_per_item",
            "threads",
            "sampler_cpu_ms",
            "max_outstanding",
            "max_outstanding_sampled",
        ] {
            let v = metrics.get(name).copied();
            assert!(v.is_some_and(|v| v.is_finite() && v >= 0.0), "{name}: {v:?}");
        }
        // Allocation metrics only where the counting allocator is installed (it is not in this test binary).
        assert!(!metrics.contains_key("allocs_per_item"));
        assert!(!metrics.contains_key("alloc_bytes_per_item"));
        // 40 items × 1 ms of CPU each, booked in full; the sampler's and settling wait's CPU are not in it.
        assert!(m.timing.cpu_ns() >= 39_000_000, "cpu {} ns", m.timing.cpu_ns());
        // ...and nothing of the probe's own: its 20 ms settling wait and the sampler are subtracted.
        assert!(m.timing.cpu_ns() <= 43_000_000, "cpu {} ns", m.timing.cpu_ns());
        assert!(metrics["cpu_ns_per_item"] >= 975_000.0);
        assert!(
            (metrics["cpu_ns_per_item"] - metrics["cpu_user_ns_per_item"] - metrics["cpu_system_ns_per_item"]).abs() < 1e-6
        );
        // Two workers on two cores at most, plus a little for everything else.
        assert!(metrics["cores_used"] <= 2.5, "cores_used {}", metrics["cores_used"]);
        assert!((metrics["ms_per_million"] - metrics["wall_ms"] * 1e6 / ITEMS as f64).abs() < 1e-6);
        // main/test thread, sampler, two workers.
        assert!(m.threads_max >= 3, "threads {}", m.threads_max);
        assert!(m.max_outstanding.unwrap() >= 1 && m.max_outstanding.unwrap() <= 2);
        assert!(m.max_outstanding_sampled.unwrap() <= m.max_outstanding.unwrap());
        assert!(m.sampler_cpu_ns > 0);
    }

    #[test]
    fn max_outstanding_is_exactly_what_was_admitted() {
        let gauge = Arc::new(Outstanding::new());
        let probe = Probe::start(Arc::clone(&gauge));
        gauge.admit(7);
        gauge.admit(5);
        common::SamplerThread::find().sampled(); // the sampler has seen 12
        gauge.leave(12);
        gauge.admit(3);
        gauge.leave(3);
        let m = probe.finish(12);
        assert_eq!(m.max_outstanding, Some(12));
        assert_eq!(m.max_outstanding_sampled, Some(12));
        assert_eq!(m.metrics()["max_outstanding"], 12.0);
    }

    #[test]
    fn sleeping_workload_uses_little_cpu() {
        let gauge = Arc::new(Outstanding::new());
        let probe = Probe::start(gauge);
        std::thread::sleep(Duration::from_millis(50));
        let m = probe.finish(1);
        assert!(m.timing.wall_ns >= 50_000_000);
        // The sampler woke ~50 times but its CPU is subtracted; what is left is the probe's own few microseconds.
        assert!(m.timing.cpu_ns() < 10_000_000, "cpu {} ns", m.timing.cpu_ns());
        assert!(m.timing.metrics()["cores_used"] < 0.2);
        assert_eq!(m.max_outstanding, None);
        assert!(!m.metrics().contains_key("max_outstanding"));
    }

    #[test]
    fn cpu_burned_on_the_probing_thread_is_counted_exactly_once() {
        let gauge = Arc::new(Outstanding::new());
        let probe = Probe::start(Arc::clone(&gauge));
        burn(30_000_000);
        let m = probe.finish(1);
        // The burn is exact on this thread's clock; what the probe adds or misses must stay well under a tick.
        assert!(m.timing.cpu_ns() >= 29_500_000, "cpu {} ns", m.timing.cpu_ns());
        assert!(m.timing.cpu_ns() <= 32_000_000, "cpu {} ns", m.timing.cpu_ns());
    }
}
