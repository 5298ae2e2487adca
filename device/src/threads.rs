//! Per-thread CPU and context switches of this process, read from `/proc/self/task` at both ends of an
//! accounting run (never a timed one), so a report can say which threads a call's CPU and switches land on: the
//! device's timer threads, `may`'s timer thread, and the contestant's other threads.
//!
//! Each thread's CPU is its `schedstat` run time (nanoseconds); its switches are `voluntary_ctxt_switches` and
//! `nonvoluntary_ctxt_switches` from its `status`. Threads that ended during the run (a blocking pool's) are no
//! longer listed at the end, so the process's own totals (`getrusage` for switches, the process CPU clock)
//! stand for every thread, ended ones included, and the groups read from `/proc` are taken out of them.

use std::sync::OnceLock;
use std::time::Duration;

use measure::cpu::{process_cpu_clock_ns, process_usage};
use measure::record::MetricValues;

/// The name the device gives its timer threads (`dep-timer-0`, `dep-timer-1`).
const DEVICE_THREAD: &str = "dep-timer";
/// The name of the probe's 1 ms sampler thread, which is the lab's, not the contestant's.
const SAMPLER_THREAD: &str = "lab-sampler";

/// One thread's counters.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Counters {
    cpu_ns: u64,
    voluntary: u64,
    involuntary: u64,
}

impl Counters {
    fn since(self, earlier: Counters) -> Counters {
        Counters {
            cpu_ns: self.cpu_ns.saturating_sub(earlier.cpu_ns),
            voluntary: self.voluntary.saturating_sub(earlier.voluntary),
            involuntary: self.involuntary.saturating_sub(earlier.involuntary),
        }
    }

    fn add(&mut self, other: Counters) {
        self.cpu_ns += other.cpu_ns;
        self.voluntary += other.voluntary;
        self.involuntary += other.involuntary;
    }

    fn switches(self) -> u64 {
        self.voluntary + self.involuntary
    }
}

/// A reading of the process's totals and of its threads, summed by group. It holds no heap, and it is read with
/// allocation counting paused ([`measure::alloc::pause`]), so taking one inside an accounting iteration moves
/// neither the live heap the iteration's memory figures read nor its allocation counts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Census {
    /// The whole process, ended threads included.
    process: Counters,
    /// The probe's sampler thread.
    sampler: Counters,
    /// The device's timer threads, and whether there were any.
    device: Counters,
    has_device: bool,
    /// `may`'s timer thread, and whether it was found.
    may_timer: Counters,
    has_may_timer: bool,
    /// The calling thread (the trial's main thread, which runs the harness).
    caller: Counters,
    /// Whether `/proc/self/task` could be read.
    listed: bool,
}

impl Census {
    /// Read the process and every thread of it now, `may_timer` being the thread id of `may`'s timer thread where
    /// the contestant runs on `may`. Call it only where allocation counting is on (an accounting iteration): it
    /// pauses counting while it reads and resumes it after.
    pub fn take(may_timer: Option<i32>) -> Census {
        let _paused = measure::alloc::pause();
        let usage = process_usage();
        let mut census = Census {
            process: Counters {
                cpu_ns: process_cpu_clock_ns().unwrap_or(usage.cpu_ns()),
                voluntary: usage.voluntary_switches,
                involuntary: usage.involuntary_switches,
            },
            ..Census::default()
        };
        let main = i32::try_from(std::process::id()).unwrap_or(-1);
        let Ok(entries) = std::fs::read_dir("/proc/self/task") else { return census };
        census.listed = true;
        for entry in entries.flatten() {
            let Some(tid) = entry.file_name().to_str().and_then(|t| t.parse::<i32>().ok()) else { continue };
            let Some((name, counters)) = read_thread(&entry.path()) else { continue };
            if name.starts_with(SAMPLER_THREAD) {
                census.sampler.add(counters);
            } else if name.starts_with(DEVICE_THREAD) {
                census.device.add(counters);
                census.has_device = true;
            } else if Some(tid) == may_timer {
                census.may_timer.add(counters);
                census.has_may_timer = true;
            } else if tid == main {
                census.caller.add(counters);
            }
        }
        census
    }

    /// The per-call figures of the run between `earlier` and `self` over `calls` calls. Empty without calls or
    /// without `/proc`.
    ///
    /// - `voluntary_switches_per_call`, `involuntary_switches_per_call`: the whole process (ended threads
    ///   included) less the sampler thread;
    /// - `device_switches_per_call`: the device's timer threads;
    /// - `may_timer_cpu_us_per_call`, `may_timer_switches_per_call`: `may`'s timer thread;
    /// - `worker_switches_per_call`: every other thread but the calling (harness) thread, ended ones included:
    ///   carriers, tokio workers or pool threads.
    pub fn per_call_since(&self, earlier: &Census, calls: u64) -> MetricValues {
        let mut metrics = MetricValues::new();
        if calls == 0 || !self.listed {
            return metrics;
        }
        let process = self.process.since(earlier.process);
        let sampler = self.sampler.since(earlier.sampler);
        let device = self.device.since(earlier.device);
        let timer = self.may_timer.since(earlier.may_timer);
        let caller = self.caller.since(earlier.caller);
        let per_call = |x: u64| x as f64 / calls as f64;
        metrics.insert(
            "voluntary_switches_per_call".to_string(),
            per_call(process.voluntary.saturating_sub(sampler.voluntary)),
        );
        metrics.insert(
            "involuntary_switches_per_call".to_string(),
            per_call(process.involuntary.saturating_sub(sampler.involuntary)),
        );
        if self.has_device {
            metrics.insert("device_switches_per_call".to_string(), per_call(device.switches()));
        }
        if self.has_may_timer && earlier.has_may_timer {
            metrics.insert("may_timer_cpu_us_per_call".to_string(), timer.cpu_ns as f64 / 1e3 / calls as f64);
            metrics.insert("may_timer_switches_per_call".to_string(), per_call(timer.switches()));
        }
        let named = sampler.switches() + device.switches() + timer.switches() + caller.switches();
        metrics.insert("worker_switches_per_call".to_string(), per_call(process.switches().saturating_sub(named)));
        metrics
    }
}

/// A thread's name and counters from its `/proc/self/task/<tid>` folder.
fn read_thread(dir: &std::path::Path) -> Option<(String, Counters)> {
    let name = std::fs::read_to_string(dir.join("comm")).ok()?.trim_end().to_string();
    let cpu_ns = std::fs::read_to_string(dir.join("schedstat")).ok()?.split_whitespace().next()?.parse().ok()?;
    let status = std::fs::read_to_string(dir.join("status")).ok()?;
    let field = |key: &str| -> Option<u64> {
        status.lines().find_map(|l| l.strip_prefix(key)).and_then(|v| v.trim().parse().ok())
    };
    let voluntary = field("voluntary_ctxt_switches:")?;
    let involuntary = field("nonvoluntary_ctxt_switches:")?;
    Some((name, Counters { cpu_ns, voluntary, involuntary }))
}

/// The thread id of `may`'s timer thread, found once per process: a coroutine that sleeps on `may`'s timer is
/// resumed by the timer thread itself (`may` 0.3, `scheduler.rs`: the timer handler calls `run_coroutine`), so the
/// thread it wakes up on is the timer thread. `None` if the probe coroutine could not run. Call it only in a
/// process whose `may` is configured, outside any timed window (it sleeps a millisecond).
pub fn may_timer_thread() -> Option<i32> {
    static TIMER: OnceLock<Option<i32>> = OnceLock::new();
    *TIMER.get_or_init(|| {
        // SAFETY: the coroutine holds no thread-local across its sleep and blocks no carrier.
        let handle = unsafe {
            may::coroutine::spawn(|| {
                may::coroutine::sleep(Duration::from_millis(1));
                current_thread_id()
            })
        };
        handle.join().ok()
    })
}

/// The kernel's id of the calling thread.
pub fn current_thread_id() -> i32 {
    // SAFETY: `gettid` takes no argument and cannot fail.
    unsafe { libc::gettid() }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_census_reads_this_thread_and_the_process() {
        let census = Census::take(None);
        assert!(census.listed);
        assert!(census.process.cpu_ns > 0);
        // Whether a device or `may`'s timer thread is listed depends on the other tests of this process, which
        // run at the same time: not asserted here.
    }

    #[test]
    fn per_call_figures_count_a_sleeping_threads_switches_and_leave_out_none_without_calls() {
        let before = Census::take(None);
        let worker = std::thread::spawn(|| {
            for _ in 0..20 {
                std::thread::sleep(Duration::from_micros(200));
            }
        });
        worker.join().expect("joined");
        let after = Census::take(None);
        assert!(after.per_call_since(&before, 0).is_empty());
        let m = after.per_call_since(&before, 10);
        // 20 sleeps on an ended thread: at least 2 voluntary switches per call, counted among the workers.
        assert!(m["voluntary_switches_per_call"] >= 2.0, "{m:?}");
        assert!(m["worker_switches_per_call"] >= 2.0, "{m:?}");
        // Without a `may` timer thread named, no figure for it (other tests may run a device meanwhile).
        assert!(!m.contains_key("may_timer_cpu_us_per_call"), "{m:?}");
    }

    #[test]
    fn a_coroutine_woken_by_may_s_timer_resumes_on_the_timer_thread_not_a_carrier() {
        pipelines::coroutine::configure(1);
        let timer = may_timer_thread().expect("may's timer thread");
        // SAFETY: as in `may_timer_thread`.
        let carrier = unsafe { may::coroutine::spawn(current_thread_id) }.join().expect("ran");
        assert_ne!(timer, carrier, "the sleeper resumed on a carrier");
        assert_ne!(timer, current_thread_id());
        assert!(Census::take(Some(timer)).has_may_timer, "the timer thread lives on");
    }
}
