//! Tests the 1 ms sampler: its series follows the gauge on a time-aligned schedule, it sees extra threads,
//! its own CPU is reported, and its thread is named `lab-sampler`.
#![allow(clippy::unwrap_used)]

use std::sync::Arc;
use std::time::{Duration, Instant};

use measure::gauge::Outstanding;
use measure::sampler::Sampler;

mod common;

// Each test in a process of its own, as the lab runs each contestant in a fresh trial process: the checks
// count the whole process's threads, sockets or CPU, which another test's would change.
testkit::own_process! {
    #[test]
    fn series_follows_gauge_steps() {
        let gauge = Arc::new(Outstanding::new());
        let sampler = Sampler::start(Arc::clone(&gauge), 1.0);
        // Each step stays until the sampler has certainly sampled it, however the machine schedules it.
        let thread = common::SamplerThread::find();
        gauge.admit(4);
        thread.sampled();
        gauge.admit(6);
        thread.sampled();
        gauge.leave(10);
        thread.sampled();
        let sampled = sampler.stop();
        let values = &sampled.series.values;
        assert_eq!(sampled.max_outstanding, 10);
        assert!(values.iter().all(|&v| v == 0.0 || v == 4.0 || v == 10.0), "{values:?}");
        assert!(values.contains(&4.0) && values.contains(&10.0));
        // The gauge went 4 → 10 → 0, so once the series reaches 0 after a 10 it stays there.
        let first_ten = values.iter().position(|&v| v == 10.0).unwrap();
        assert!(values[..first_ten].iter().all(|&v| v <= 4.0));
        assert_eq!(*values.last().unwrap(), 0.0);
    }

    #[test]
    fn series_is_time_aligned_and_bounded() {
        for (period, slept_ms) in [(1.0, 40.0), (2.0, 50.0)] {
            let gauge = Arc::new(Outstanding::new());
            let started = Instant::now();
            let sampler = Sampler::start(Arc::clone(&gauge), period);
            std::thread::sleep(Duration::from_secs_f64(slept_ms / 1e3));
            let sampled = sampler.stop();
            let elapsed_ms = started.elapsed().as_secs_f64() * 1e3;
            assert_eq!(sampled.series.period_ms, period);
            let len = sampled.series.values.len() as f64;
            // Slot i stands for time i × period (missed ticks are filled): at least the time slept, no more than
            // the whole elapsed time.
            assert!(len >= slept_ms / period && len <= elapsed_ms / period + 1.0, "len {len} for {elapsed_ms} ms");
        }
    }

    #[test]
    fn sees_extra_threads_and_reports_own_cpu() {
        let gauge = Arc::new(Outstanding::new());
        let sampler = Sampler::start(Arc::clone(&gauge), 1.0);
        let parked = common::Parked::start(4);
        // At least five ticks after it was ready (its own usage counts from then), however the machine schedules
        // it; the thread count it reads at the end still sees the four waiting threads.
        let thread = common::SamplerThread::find();
        thread.blocked_since(thread.blocked(), 5);
        let sampled = sampler.stop();
        parked.release();
        // main + this test's thread may be one; the sampler; the four waiting threads.
        assert!(sampled.threads_max >= 6, "threads_max {}", sampled.threads_max);
        // Waking each tick does cost something, and it sleeps most of the time.
        assert!(sampled.own_usage.voluntary_switches >= 5, "{:?}", sampled.own_usage);
        assert!(sampled.own_usage.cpu_ns() < 40_000_000, "{:?}", sampled.own_usage);
    }

    #[test]
    fn sampler_thread_is_named() {
        let gauge = Arc::new(Outstanding::new());
        let sampler = Sampler::start(gauge, 1.0);
        let mut names = Vec::new();
        for entry in std::fs::read_dir("/proc/self/task").unwrap() {
            let comm = entry.unwrap().path().join("comm");
            if let Ok(name) = std::fs::read_to_string(comm) {
                names.push(name.trim().to_string());
            }
        }
        sampler.stop();
        assert!(names.iter().any(|n| n == "lab-sampler"), "{names:?}");
    }

    #[test]
    fn long_runs_are_capped() {
        // 0.01 ms period: 120 000 points would take 1.2 s; stop after far fewer and check the cap constant's meaning.
        let gauge = Arc::new(Outstanding::new());
        let sampler = Sampler::start(gauge, 0.01);
        std::thread::sleep(Duration::from_millis(20));
        let sampled = sampler.stop();
        assert!(sampled.series.values.len() <= measure::sampler::MAX_SERIES_POINTS);
        assert!(!sampled.series.values.is_empty());
    }
}
