//! A thread that samples the outstanding-work gauge and the process's thread count every millisecond, and
//! measures its own CPU so the probe can subtract it.
//!
//! The thread is named `lab-sampler`. It wakes on an absolute schedule (`start + k × period`), so sleeping late
//! never makes it drift; when it wakes after one or more whole periods have passed, it does not sample them
//! in a burst: it takes one sample and writes it into every slot it missed, so slot `i` of the series always
//! stands for time `i × period` (the value is the latest sample taken at or after that time). The thread
//! count costs a read of `/proc/self/status`, so it is read every [`THREAD_COUNT_EVERY`] ticks and once more
//! at the end. Everything the thread needs is allocated before [`Sampler::start`] returns, so the sampler
//! makes no heap allocation during the iteration it measures; its series is capped at
//! [`MAX_SERIES_POINTS`] values.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::cpu::{CpuMark, Usage};
use crate::gauge::Outstanding;
use crate::memory::ThreadCountReader;
use crate::record::Series;

/// Most points a series keeps: 120 000, two minutes at 1 ms (under 1 MiB of `f64`s, reserved up front).
/// Later samples still count towards the maxima but are not stored.
pub const MAX_SERIES_POINTS: usize = 120_000;

/// The thread count is read every this many ticks (every 10 ms at the default 1 ms period).
pub const THREAD_COUNT_EVERY: u64 = 10;

/// Shortest period accepted, in milliseconds (10 µs); smaller or non-finite periods are raised to it.
const MIN_PERIOD_MS: f64 = 0.01;
/// Longest period accepted, in milliseconds (one hour); longer periods are lowered to it.
const MAX_PERIOD_MS: f64 = 3_600_000.0;

/// Samplers started in this process so far: a test reads it to show that a timed iteration starts none.
static STARTED: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// How many samplers this process has started so far.
pub fn started_count() -> u64 {
    STARTED.load(Ordering::Relaxed)
}

/// The running sampler; [`Sampler::stop`] joins it and returns what it saw.
#[derive(Debug)]
pub struct Sampler {
    stop: Arc<AtomicBool>,
    handle: Option<JoinHandle<Sampled>>,
    gauge: Arc<Outstanding>,
    period_ms: f64,
    /// Samples its thread has taken so far (tests only).
    #[cfg(test)]
    samples: Arc<std::sync::atomic::AtomicU64>,
}

/// What the sampler saw, and what it cost.
#[derive(Debug, Clone, PartialEq)]
pub struct Sampled {
    /// Highest gauge value seen at any sample.
    pub max_outstanding: u64,
    /// The gauge at every sample.
    pub series: Series,
    /// Most threads the process had at any sample.
    pub threads_max: u64,
    /// Most live heap bytes the counting allocator reported at any sample (0 where it is not installed).
    pub live_heap_max: u64,
    /// The sampler thread's own CPU and context switches, from `RUSAGE_THREAD` just before it ended.
    pub own_usage: Usage,
    /// The first sample at which the gauge reached the threshold given to [`Sampler::start_with_threshold`],
    /// if it did.
    pub threshold: Option<ThresholdReading>,
}

/// Memory read at the first sample where the outstanding gauge reached a threshold: what the work in flight
/// holds, once enough of it is in flight to dwarf everything else.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ThresholdReading {
    /// Milliseconds from the sampler's start to that sample.
    pub at_ms: f64,
    /// The gauge at that sample (at least the threshold).
    pub outstanding: u64,
    /// Live heap bytes the counting allocator reported then (0 where it is not installed).
    pub live_heap_bytes: u64,
    /// Resident set size then, in KiB (`None` off Linux).
    pub rss_kib: Option<u64>,
}

/// The gauge now, negative values (more left than admitted, momentarily) read as 0.
fn gauge_now(gauge: &Outstanding) -> u64 {
    u64::try_from(gauge.current()).unwrap_or(0)
}

/// The sampler thread's state.
struct Run {
    gauge: Arc<Outstanding>,
    stop: Arc<AtomicBool>,
    period: Duration,
    period_ms: f64,
    values: Vec<f64>,
    max_outstanding: u64,
    threads: ThreadCountReader,
    threads_max: u64,
    live_heap_max: u64,
    start: Instant,
    threshold: Option<u64>,
    reached: Option<ThresholdReading>,
    /// Samples taken so far, for this module's tests to wait on (absent from every build but theirs).
    #[cfg(test)]
    samples: Arc<std::sync::atomic::AtomicU64>,
}

impl Run {
    /// Slot index of `now`: whole periods since the start.
    fn slot(&self, now: Instant) -> u64 {
        let elapsed = now.saturating_duration_since(self.start).as_nanos();
        u64::try_from(elapsed / self.period.as_nanos()).unwrap_or(u64::MAX)
    }

    /// Takes one sample at slot `slot`, filling any slots missed since the last sample with it.
    fn sample(&mut self, slot: u64) {
        let live = crate::alloc::snapshot().live_bytes;
        self.live_heap_max = self.live_heap_max.max(live);
        let value = gauge_now(&self.gauge);
        self.max_outstanding = self.max_outstanding.max(value);
        if self.reached.is_none() && self.threshold.is_some_and(|t| value >= t) {
            self.reached = Some(ThresholdReading {
                at_ms: self.start.elapsed().as_secs_f64() * 1e3,
                outstanding: value,
                live_heap_bytes: live,
                rss_kib: self.threads.read_rss_kib(),
            });
        }
        let slot = usize::try_from(slot).unwrap_or(usize::MAX);
        if slot < self.values.len() {
            // Same slot sampled again (only the final sample can do that): keep the newer value.
            self.values[slot] = value as f64;
        } else {
            let end = slot.saturating_add(1).min(MAX_SERIES_POINTS);
            while self.values.len() < end {
                self.values.push(value as f64);
            }
        }
        #[cfg(test)]
        self.samples.fetch_add(1, Ordering::Release);
    }

    fn read_threads(&mut self) {
        if let Some(n) = self.threads.read() {
            self.threads_max = self.threads_max.max(n);
        }
    }

    /// The sampling loop; returns after the final sample once `stop` is set.
    fn run(mut self, own_start: CpuMark) -> Sampled {
        // Ticks until the next thread-count read (0: read on this tick).
        let mut until_thread_read: u64 = 0;
        loop {
            if self.stop.load(Ordering::Acquire) {
                break;
            }
            let now = Instant::now();
            let slot = self.slot(now);
            self.sample(slot);
            if until_thread_read == 0 {
                self.read_threads();
                until_thread_read = THREAD_COUNT_EVERY;
            }
            until_thread_read -= 1;
            // Next deadline on the absolute schedule; slots already past are skipped, not sampled in a burst.
            let next_slot = u32::try_from(slot + 1).unwrap_or(u32::MAX);
            let deadline = self.start + self.period * next_slot;
            loop {
                if self.stop.load(Ordering::Acquire) {
                    break;
                }
                let now = Instant::now();
                if now >= deadline {
                    break;
                }
                std::thread::park_timeout(deadline - now);
            }
        }
        let slot = self.slot(Instant::now());
        self.sample(slot);
        self.read_threads();
        let own_usage = CpuMark::thread().since(&own_start);
        Sampled {
            max_outstanding: self.max_outstanding,
            series: Series::new(self.period_ms, self.values),
            threads_max: self.threads_max.max(1),
            live_heap_max: self.live_heap_max,
            own_usage,
            threshold: self.reached,
        }
    }
}

impl Sampler {
    /// Start sampling `gauge` every `period_ms` milliseconds.
    ///
    /// Returns once the `lab-sampler` thread is running and has allocated everything it needs (its series
    /// buffer and `/proc` read buffer), so the sampler's own allocations and start-up CPU fall before any
    /// reading the caller takes next. `period_ms` is clamped to 10 µs ..= 1 hour (not finite: 10 µs); the series
    /// reports the period used. If the thread cannot be spawned, [`Sampler::stop`] takes
    /// a single sample itself.
    pub fn start(gauge: Arc<Outstanding>, period_ms: f64) -> Sampler {
        Sampler::start_with_threshold(gauge, period_ms, None)
    }

    /// [`Sampler::start`], also reading memory at the first sample where the gauge is at least `threshold`
    /// ([`Sampled::threshold`]); `None` reads nothing.
    pub fn start_with_threshold(gauge: Arc<Outstanding>, period_ms: f64, threshold: Option<u64>) -> Sampler {
        STARTED.fetch_add(1, Ordering::Relaxed);
        let period_ms =
            if period_ms.is_finite() { period_ms.clamp(MIN_PERIOD_MS, MAX_PERIOD_MS) } else { MIN_PERIOD_MS };
        let period = Duration::from_nanos((period_ms * 1e6).round() as u64);
        let stop = Arc::new(AtomicBool::new(false));
        let (ready_tx, ready_rx) = mpsc::sync_channel::<()>(1);
        let run_gauge = Arc::clone(&gauge);
        let run_stop = Arc::clone(&stop);
        #[cfg(test)]
        let samples = Arc::new(std::sync::atomic::AtomicU64::new(0));
        #[cfg(test)]
        let run_samples = Arc::clone(&samples);
        let handle = std::thread::Builder::new()
            .name("lab-sampler".to_string())
            .spawn(move || {
                let mut run = Run {
                    gauge: run_gauge,
                    stop: run_stop,
                    period,
                    period_ms,
                    values: Vec::with_capacity(MAX_SERIES_POINTS),
                    max_outstanding: 0,
                    threads: ThreadCountReader::open(),
                    threads_max: 0,
                    live_heap_max: 0,
                    start: Instant::now(),
                    threshold,
                    reached: None,
                    #[cfg(test)]
                    samples: run_samples,
                };
                // Warm the /proc reader (first read may fault pages in) before declaring readiness.
                run.read_threads();
                let own_start = CpuMark::thread();
                run.start = Instant::now();
                // The receiver waits for this; if it is gone, sampling on is harmless.
                let _ = ready_tx.send(());
                run.run(own_start)
            })
            .ok();
        if handle.is_some() {
            // An error means the thread died before it was ready; stop() will then report what it can.
            let _ = ready_rx.recv();
        }
        Sampler {
            stop,
            handle,
            gauge,
            period_ms,
            #[cfg(test)]
            samples,
        }
    }

    /// Waits (bounded) until the sampler thread has taken a sample that began after this call: it has seen
    /// whatever the gauge reads now. A sample counts itself after reading the gauge, so the second count from
    /// now is a sample that began after the first was counted, after this call began.
    #[cfg(test)]
    fn wait_for_a_sample(&self) {
        let from = self.samples.load(Ordering::Acquire);
        let deadline = Instant::now() + Duration::from_secs(20);
        while self.samples.load(Ordering::Acquire) < from + 2 {
            assert!(Instant::now() < deadline, "the sampler took no sample within 20 s");
            std::thread::sleep(Duration::from_millis(1));
        }
    }

    /// Stop and join the sampler. Its [`Sampled::own_usage`] covers the thread from when it was ready to its
    /// final reading, just before it returned.
    pub fn stop(mut self) -> Sampled {
        self.stop.store(true, Ordering::Release);
        if let Some(handle) = self.handle.take() {
            handle.thread().unpark();
            if let Ok(sampled) = handle.join() {
                return sampled;
            }
        }
        // No thread (spawn failed) or it panicked: one sample taken here.
        let value = gauge_now(&self.gauge);
        Sampled {
            max_outstanding: value,
            series: Series::new(self.period_ms, vec![value as f64]),
            threads_max: crate::memory::thread_count().unwrap_or(1).max(1),
            live_heap_max: crate::alloc::snapshot().live_bytes,
            own_usage: Usage::default(),
            threshold: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn samples_a_constant_gauge() {
        let gauge = Arc::new(Outstanding::new());
        gauge.admit(5);
        let sampler = Sampler::start(Arc::clone(&gauge), 1.0);
        std::thread::sleep(Duration::from_millis(30));
        let sampled = sampler.stop();
        assert_eq!(sampled.max_outstanding, 5);
        assert_eq!(sampled.series.period_ms, 1.0);
        assert!(!sampled.series.values.is_empty());
        assert!(sampled.series.values.iter().all(|&v| v == 5.0));
        // This thread and the sampler at least.
        assert!(sampled.threads_max >= 2, "threads_max {}", sampled.threads_max);
    }

    #[test]
    fn memory_is_read_once_when_the_gauge_first_reaches_the_threshold() {
        let gauge = Arc::new(Outstanding::new());
        gauge.admit(3);
        let sampler = Sampler::start_with_threshold(Arc::clone(&gauge), 1.0, Some(10));
        std::thread::sleep(Duration::from_millis(10));
        gauge.admit(9);
        // The sampler certainly samples the 12 before the gauge moves on, however the machine schedules it.
        sampler.wait_for_a_sample();
        gauge.admit(100);
        sampler.wait_for_a_sample();
        let reading = sampler.stop().threshold.expect("the gauge passed the threshold");
        assert_eq!(reading.outstanding, 12, "the first sample at or above 10, not a later one");
        assert!(reading.at_ms >= 5.0, "read at {} ms, after the gauge rose", reading.at_ms);
        if cfg!(target_os = "linux") {
            assert!(reading.rss_kib.is_some_and(|kib| kib > 0));
        }
        let never = Sampler::start_with_threshold(gauge, 1.0, Some(1_000)).stop();
        assert_eq!(never.threshold, None);
    }

    #[test]
    fn negative_gauge_reads_as_zero() {
        let gauge = Arc::new(Outstanding::new());
        gauge.leave(3);
        let sampled = Sampler::start(Arc::clone(&gauge), 1.0).stop();
        assert_eq!(sampled.max_outstanding, 0);
        assert!(sampled.series.values.iter().all(|&v| v == 0.0));
    }

    #[test]
    fn immediate_stop_still_has_a_sample() {
        let gauge = Arc::new(Outstanding::new());
        gauge.admit(2);
        let sampled = Sampler::start(gauge, 1.0).stop();
        assert!(!sampled.series.values.is_empty());
        assert_eq!(sampled.max_outstanding, 2);
        assert!(sampled.threads_max >= 1);
    }

    #[test]
    fn bad_period_is_raised_to_minimum() {
        let gauge = Arc::new(Outstanding::new());
        let sampled = Sampler::start(gauge, f64::NAN).stop();
        assert!((sampled.series.period_ms - 0.01).abs() < 1e-9);
    }
}
