//! Brackets one iteration, in one of two ways.
//!
//! - [`Stopwatch`], for **timed** iterations: the wall clock, the process's CPU and its context switches, and
//!   nothing else. No sampler thread runs, the contestant meters nothing ([`crate::meter::NoMeter`]), and the
//!   counting allocator is paused for the window ([`crate::alloc::pause`]), so the contestant runs as a user would
//!   run it.
//! - [`Probe`], for **accounting** iterations: everything the stopwatch reads, plus the 1 ms sampler (outstanding
//!   work, threads, live heap), the exact high-water mark of the outstanding gauge and the allocation counters.
//!   Its wall and CPU figures include the instruments' cost; the lab reports them beside the timed ones
//!   (as `instrumented_*`) to show what the instruments cost, and takes no timing figure from them.
//!
//! CPU totals come from `CLOCK_PROCESS_CPUTIME_ID` (exact, where `getrusage` moves in scheduler ticks), split
//! into user and system in the proportion `getrusage` saw ([`CpuMark`]). What is subtracted: everything the
//! calling thread does after the wall clock stopped (reading counters, stopping and joining the sampler, the
//! settling wait), measured on that thread's own CPU clock, and in the accounting probe the sampler thread's own
//! CPU and context switches.
//!
//! The thread count (`threads`, accounting only) is the most threads the process had at any sample, and it
//! *includes* the sampler thread and the thread that runs the probe (the trial's main thread): a contestant that
//! starts no thread of its own shows at least 2.

use std::sync::Arc;
use std::time::Instant;

use crate::alloc::{self, AllocSnapshot};
use crate::check::Check;
use crate::cpu::{self, CpuMark, Usage};
use crate::gauge::Outstanding;
use crate::memory;
use crate::record::{MetricValues, Series};
use crate::sampler::{Sampler, ThresholdReading};
use crate::units::{BYTES_PER_MIB, NANOS_PER_MILLI};

/// The probe's sampling period in milliseconds.
pub const SAMPLE_PERIOD_MS: f64 = 1.0;

/// A timed iteration's window: wall clock, process CPU and context switches, with allocation counting paused.
/// Start it right before the contestant's work starts (after its threads are parked and its runtime is built);
/// finish it after every thread and task the contestant started has ended.
#[derive(Debug)]
pub struct Stopwatch {
    cpu_start: CpuMark,
    started: Instant,
    paused: alloc::Paused,
}

impl Stopwatch {
    /// Pause allocation counting, then read the process's CPU and the wall clock, in that order.
    pub fn start() -> Stopwatch {
        let paused = alloc::pause();
        let cpu_start = CpuMark::process();
        let started = Instant::now();
        Stopwatch { cpu_start, started, paused }
    }

    /// Stop the wall clock, resume allocation counting, let CPU accounting settle and read the process's CPU;
    /// `items` is the per-item divisor. The calling thread's own CPU from the wall stop on is subtracted.
    pub fn finish(self, items: u64) -> Timing {
        let wall = self.started.elapsed();
        let harness_start = CpuMark::thread();
        drop(self.paused);
        let cpu_end = cpu::settled_process_mark();
        let harness = CpuMark::thread().since(&harness_start);
        Timing::new(items, wall, cpu_end.since(&self.cpu_start), &[harness])
    }
}

/// What a window's clocks read: the timing half of every iteration, timed or accounting.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Timing {
    /// Items (or calls) the iteration processed, the divisor of every per-item metric.
    pub items: u64,
    /// Wall-clock time of the iteration, in nanoseconds.
    pub wall_ns: u64,
    /// Process user CPU, less the harness's own, in nanoseconds.
    pub cpu_user_ns: u64,
    /// Process system CPU, less the harness's own, in nanoseconds.
    pub cpu_system_ns: u64,
    /// Voluntary plus involuntary context switches, less the harness's own.
    pub ctx_switches: u64,
}

impl Timing {
    /// The timing of a window of `wall` in which the process used `process`, less each of `harness` (CPU and
    /// switches that were the lab's own).
    fn new(items: u64, wall: std::time::Duration, process: Usage, harness: &[Usage]) -> Timing {
        let less = |total: u64, part: fn(&Usage) -> u64| harness.iter().fold(total, |t, h| t.saturating_sub(part(h)));
        Timing {
            items,
            wall_ns: u64::try_from(wall.as_nanos()).unwrap_or(u64::MAX),
            cpu_user_ns: less(process.user_ns, |u| u.user_ns),
            cpu_system_ns: less(process.system_ns, |u| u.system_ns),
            ctx_switches: less(process.switches(), Usage::switches),
        }
    }

    /// CPU time of the iteration (user plus system), in nanoseconds.
    pub fn cpu_ns(&self) -> u64 {
        self.cpu_user_ns + self.cpu_system_ns
    }

    /// Wall time in seconds.
    pub fn wall_secs(&self) -> f64 {
        self.wall_ns as f64 / 1e9
    }

    /// The contract's timing metrics: `wall_ms` always; `cores_used` (CPU ÷ wall) when wall time is not zero;
    /// with `items > 0`, `ms_per_million`, `cpu_ns_per_item`, `cpu_user_ns_per_item`, `cpu_system_ns_per_item`
    /// and `ctx_switches_per_item`.
    pub fn metrics(&self) -> MetricValues {
        let mut m = MetricValues::new();
        let wall_ms = self.wall_ns as f64 / NANOS_PER_MILLI;
        m.insert("wall_ms".to_string(), wall_ms);
        if self.wall_ns > 0 {
            m.insert("cores_used".to_string(), self.cpu_ns() as f64 / self.wall_ns as f64);
        }
        if self.items > 0 {
            let items = self.items as f64;
            m.insert("ms_per_million".to_string(), wall_ms * 1e6 / items);
            m.insert("cpu_ns_per_item".to_string(), self.cpu_ns() as f64 / items);
            m.insert("cpu_user_ns_per_item".to_string(), self.cpu_user_ns as f64 / items);
            m.insert("cpu_system_ns_per_item".to_string(), self.cpu_system_ns as f64 / items);
            m.insert("ctx_switches_per_item".to_string(), self.ctx_switches as f64 / items);
        }
        m
    }
}

/// An accounting iteration being measured: the sampler, the gauge and the allocation counters besides the clocks.
/// Create it right before the contestant starts; finish it after every thread and task the contestant started
/// has ended.
#[derive(Debug)]
pub struct Probe {
    gauge: Arc<Outstanding>,
    sampler: Sampler,
    alloc_start: AllocSnapshot,
    cpu_start: CpuMark,
    started: Instant,
    setup: ProbeSetup,
}

/// What starting the probe itself added to the process (the sampler's series buffer and thread), read before its
/// clocks start, so a caller comparing memory against a baseline taken earlier can take it out.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ProbeSetup {
    /// Live heap bytes (0 where the counting allocator is not installed).
    pub heap_bytes: u64,
    /// Resident set, in KiB (0 off Linux).
    pub rss_kib: u64,
}

/// What one accounting iteration cost, in raw units; [`Measurement::metrics`] names the instruments' readings as in
/// the contract, [`Timing::metrics`] the clocks' (which include the instruments' cost here).
#[derive(Debug, Clone, PartialEq)]
pub struct Measurement {
    /// The clocks, less the sampler's and the harness's own CPU.
    pub timing: Timing,
    /// CPU the sampler thread itself used (already subtracted from the timing), in nanoseconds.
    pub sampler_cpu_ns: u64,
    /// Heap allocations made during the iteration (0 where the counting allocator is not installed).
    pub allocs: u64,
    /// Bytes allocated during the iteration.
    pub alloc_bytes: u64,
    /// Exact high-water mark of the gauge, `None` if the contestant never touched it.
    pub max_outstanding: Option<u64>,
    /// Highest value the 1 ms sampler saw, `None` if the gauge was never touched.
    pub max_outstanding_sampled: Option<u64>,
    /// Most threads the process had at any sample.
    pub threads_max: u64,
    /// Highest live heap the 1 ms sampler saw above the live heap at the start, in bytes (0 where the counting
    /// allocator is not installed; a peak shorter than a millisecond can be missed).
    pub heap_peak_bytes: u64,
    /// Live heap at the end less live heap at the start, in bytes: what the iteration kept allocated.
    pub heap_retained_bytes: i64,
    /// The gauge sampled every millisecond.
    pub outstanding_series: Series,
    /// Memory at the first sample where the gauge reached the threshold given to
    /// [`Probe::start_with_threshold`], if it did.
    pub threshold: Option<ThresholdReading>,
    /// What starting the probe added to the heap and the resident set.
    pub setup: ProbeSetup,
}

impl Probe {
    /// Reset `gauge`, start the sampler on it and read the starting clocks.
    ///
    /// The sampler is started first (it is fully set up when [`Sampler::start`] returns), then the allocation
    /// counters, the process's CPU ([`CpuMark::process`]) and the wall clock are read, in that order, so the
    /// probe's own set-up stays out of the window.
    pub fn start(gauge: Arc<Outstanding>) -> Probe {
        Probe::start_with_threshold(gauge, None)
    }

    /// [`Probe::start`], also reading memory at the first sample where the gauge is at least `threshold`
    /// ([`Measurement::threshold`]).
    pub fn start_with_threshold(gauge: Arc<Outstanding>, threshold: Option<u64>) -> Probe {
        gauge.reset();
        let (heap_before, rss_before) = (alloc::snapshot().live_bytes, memory::rss_kib());
        let sampler = Sampler::start_with_threshold(Arc::clone(&gauge), SAMPLE_PERIOD_MS, threshold);
        let rss_after = memory::rss_kib();
        let alloc_start = alloc::snapshot();
        let setup = ProbeSetup {
            heap_bytes: alloc_start.live_bytes.saturating_sub(heap_before),
            rss_kib: match (rss_after, rss_before) {
                (Some(after), Some(before)) => after.saturating_sub(before),
                _ => 0,
            },
        };
        let cpu_start = CpuMark::process();
        let started = Instant::now();
        Probe { gauge, sampler, alloc_start, cpu_start, started, setup }
    }

    /// Stop the sampler, let CPU accounting settle, read the clocks again; `items` is the per-item divisor.
    ///
    /// Wall time stops first, then the allocation counters are read (before joining the sampler can free or
    /// allocate anything), then the sampler is stopped, the probe sleeps [`cpu::SETTLE_WAIT`] so tick-based accounting
    /// books the CPU of threads that just ended, and the process CPU is read. The calling thread's CPU from the
    /// wall stop to that reading is the probe's own and is subtracted, as is the sampler's.
    pub fn finish(self, items: u64) -> Measurement {
        let wall = self.started.elapsed();
        // Everything this thread does from here on is the probe's, not the contestant's.
        let harness_start = CpuMark::thread();
        let alloc_end = alloc::snapshot();
        let sampled = self.sampler.stop();
        // Let tick-based accounting book the CPU of threads that just ended before reading the process total.
        let cpu_end = cpu::settled_process_mark();
        let harness = CpuMark::thread().since(&harness_start);

        let sampler = sampled.own_usage;
        let timing = Timing::new(items, wall, cpu_end.since(&self.cpu_start), &[sampler, harness]);
        let allocated = alloc_end.since(&self.alloc_start);

        let touched = self.gauge.touched();
        let max_outstanding = touched.then(|| u64::try_from(self.gauge.high_water()).unwrap_or(0));
        let max_outstanding_sampled = touched.then_some(sampled.max_outstanding);

        Measurement {
            timing,
            sampler_cpu_ns: sampler.cpu_ns(),
            allocs: allocated.allocs,
            alloc_bytes: allocated.bytes,
            max_outstanding,
            max_outstanding_sampled,
            threads_max: sampled.threads_max.max(1),
            heap_peak_bytes: sampled
                .live_heap_max
                .max(alloc_end.live_bytes)
                .saturating_sub(self.alloc_start.live_bytes),
            heap_retained_bytes: i64::try_from(alloc_end.live_bytes).unwrap_or(i64::MAX)
                - i64::try_from(self.alloc_start.live_bytes).unwrap_or(i64::MAX),
            outstanding_series: sampled.series,
            threshold: sampled.threshold,
            setup: self.setup,
        }
    }
}

impl Measurement {
    /// The instruments' readings, named as in the contract: `threads` and `sampler_cpu_ms` always; with
    /// `items > 0` and the counting allocator installed ([`alloc::is_counting`]), `allocs_per_item` and
    /// `alloc_bytes_per_item`; with the allocator, `heap_peak_mib` and `heap_retained_bytes` whatever the items;
    /// `max_outstanding` and `max_outstanding_sampled` when the gauge was touched. The clocks' readings are
    /// [`Timing::metrics`] of [`Measurement::timing`].
    pub fn metrics(&self) -> MetricValues {
        let mut m = MetricValues::new();
        m.insert("threads".to_string(), self.threads_max as f64);
        m.insert("sampler_cpu_ms".to_string(), self.sampler_cpu_ns as f64 / NANOS_PER_MILLI);
        if alloc::is_counting() {
            if self.timing.items > 0 {
                let items = self.timing.items as f64;
                m.insert("allocs_per_item".to_string(), self.allocs as f64 / items);
                m.insert("alloc_bytes_per_item".to_string(), self.alloc_bytes as f64 / items);
            }
            m.insert("heap_peak_mib".to_string(), self.heap_peak_bytes as f64 / BYTES_PER_MIB);
            m.insert("heap_retained_bytes".to_string(), self.heap_retained_bytes as f64);
        }
        if let Some(max) = self.max_outstanding {
            m.insert("max_outstanding".to_string(), max as f64);
        }
        if let Some(max) = self.max_outstanding_sampled {
            m.insert("max_outstanding_sampled".to_string(), max as f64);
        }
        m
    }
}

/// A trial's `bounded_outstanding` check, after its last iteration: `measured_max`, the highest exact high-water
/// mark over its measured iterations (`None` if none of them touched the gauge), against the contestant's `bound`,
/// both counted in `unit` (`items`, `calls`) as the detail says. A trial without measured iterations
/// (`measured_iterations == 0`) has nothing to bound and passes.
pub fn bounded_outstanding_check(measured_max: Option<u64>, bound: u64, measured_iterations: u32, unit: &str) -> Check {
    match measured_max {
        Some(max) => Check::new(
            "bounded_outstanding",
            max <= bound,
            format!("measured max outstanding {max} {unit}, bound {bound} {unit}"),
        ),
        None if measured_iterations == 0 => {
            Check::not_applicable("bounded_outstanding", "no measured iteration, nothing to bound")
        }
        None => Check::new("bounded_outstanding", false, format!("the gauge was never touched (bound {bound})")),
    }
}

/// The figures of a passed or failed [`bounded_outstanding_check`], read back from its detail: the measured
/// maximum, the bound and their unit. `None` for any other check, and for one that measured nothing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutstandingFigures {
    /// The highest exact high-water mark over the trial's measured iterations.
    pub measured_max: u64,
    /// The contestant's bound.
    pub bound: u64,
    /// What both count, such as `items` or `calls`.
    pub unit: String,
}

impl OutstandingFigures {
    /// Read `check` back, if [`bounded_outstanding_check`] wrote it with a measurement (a merged check's
    /// ` (passed in all N trials)` suffix is ignored).
    pub fn of(check: &Check) -> Option<OutstandingFigures> {
        if check.name != "bounded_outstanding" || check.not_applicable {
            return None;
        }
        let rest = check.detail.strip_prefix("measured max outstanding ")?;
        let (max, bound) = rest.split_once(", bound ")?;
        let (max, unit) = max.split_once(' ')?;
        let bound = bound.split(' ').next()?;
        Some(OutstandingFigures { measured_max: max.parse().ok()?, bound: bound.parse().ok()?, unit: unit.to_string() })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn outstanding_figures_read_back_what_the_check_wrote() {
        let check = bounded_outstanding_check(Some(257), 258, 2, "items");
        let figures = OutstandingFigures::of(&check);
        assert_eq!(figures, Some(OutstandingFigures { measured_max: 257, bound: 258, unit: "items".to_string() }));
        let mut merged = bounded_outstanding_check(Some(40), 17, 1, "calls");
        merged.detail.push_str(" (passed in all 3 trials)");
        assert_eq!(OutstandingFigures::of(&merged).map(|f| (f.measured_max, f.bound)), Some((40, 17)));
        assert_eq!(OutstandingFigures::of(&bounded_outstanding_check(None, 5, 0, "items")), None);
        assert_eq!(OutstandingFigures::of(&bounded_outstanding_check(None, 5, 1, "items")), None);
        assert_eq!(OutstandingFigures::of(&Check::new("checksum", true, "measured max outstanding 1 items")), None);
    }

    #[test]
    fn tiny_workload_metrics() {
        let gauge = Arc::new(Outstanding::new());
        gauge.admit(100); // stale state from a previous iteration: the probe resets it
        let probe = Probe::start(Arc::clone(&gauge));
        let mut sum = 0u64;
        for i in 0..1000u64 {
            gauge.admit(1);
            if i % 10 == 9 {
                gauge.leave(10);
            }
            sum = std::hint::black_box(sum.wrapping_add(i));
        }
        gauge.admit(5);
        gauge.leave(5);
        let m = probe.finish(1000);
        assert_eq!(m.timing.items, 1000);
        assert_eq!(m.max_outstanding, Some(10));
        assert!(m.max_outstanding_sampled.is_some_and(|s| s <= 10));
        assert!(m.threads_max >= 2, "threads {}", m.threads_max);
        assert_eq!(m.outstanding_series.period_ms, 1.0);
        assert!(!m.outstanding_series.values.is_empty());

        let metrics = m.metrics();
        for name in ["threads", "sampler_cpu_ms", "max_outstanding", "max_outstanding_sampled"] {
            let value = metrics.get(name).copied();
            assert!(value.is_some_and(|v| v.is_finite() && v >= 0.0), "{name}: {value:?}");
        }
        assert_eq!(metrics["max_outstanding"], 10.0);
        assert_eq!(metrics.contains_key("allocs_per_item"), alloc::is_counting());
        let timing = m.timing.metrics();
        for name in ["wall_ms", "ms_per_million", "cpu_ns_per_item", "ctx_switches_per_item"] {
            assert!(timing.get(name).is_some_and(|v| v.is_finite() && *v >= 0.0), "{name}");
        }
        assert!((timing["ms_per_million"] - timing["wall_ms"] * 1000.0).abs() < 1e-6);
    }

    #[test]
    fn untouched_gauge_and_zero_items() {
        let gauge = Arc::new(Outstanding::new());
        let m = Probe::start(gauge).finish(0);
        assert_eq!(m.max_outstanding, None);
        assert_eq!(m.max_outstanding_sampled, None);
        let metrics = m.metrics();
        assert!(metrics.contains_key("threads"));
        for name in ["max_outstanding", "max_outstanding_sampled", "allocs_per_item"] {
            assert!(!metrics.contains_key(name), "{name} present");
        }
        let timing = m.timing.metrics();
        assert!(timing.contains_key("wall_ms"));
        assert!(!timing.contains_key("ms_per_million"));
    }

    #[test]
    fn the_stopwatch_reads_only_clocks_and_pauses_allocation_counting() {
        assert!(alloc::counting_now());
        let watch = Stopwatch::start();
        assert!(!alloc::counting_now(), "counting is paused inside the timed window");
        let v: Vec<u64> = std::hint::black_box((0..1000).collect());
        let timing = watch.finish(v.len() as u64);
        assert!(alloc::counting_now(), "counting resumes when the window closes");
        let metrics = timing.metrics();
        let names: Vec<&str> = metrics.keys().map(String::as_str).collect();
        assert_eq!(
            names,
            [
                "cores_used",
                "cpu_ns_per_item",
                "cpu_system_ns_per_item",
                "cpu_user_ns_per_item",
                "ctx_switches_per_item",
                "ms_per_million",
                "wall_ms"
            ]
        );
    }

    #[test]
    fn timing_arithmetic() {
        let t = Timing {
            items: 2_000,
            wall_ns: 4_000_000,
            cpu_user_ns: 6_000_000,
            cpu_system_ns: 2_000_000,
            ctx_switches: 40,
        };
        let metrics = t.metrics();
        assert_eq!(metrics["wall_ms"], 4.0);
        assert_eq!(metrics["ms_per_million"], 2_000.0);
        assert_eq!(metrics["cpu_ns_per_item"], 4_000.0);
        assert_eq!(metrics["cpu_user_ns_per_item"], 3_000.0);
        assert_eq!(metrics["cpu_system_ns_per_item"], 1_000.0);
        assert_eq!(metrics["cores_used"], 2.0);
        assert_eq!(metrics["ctx_switches_per_item"], 0.02);
        let harness = Usage { user_ns: 1_000, system_ns: 500, voluntary_switches: 2, involuntary_switches: 1 };
        let process = Usage { user_ns: 10_000, system_ns: 400, voluntary_switches: 5, involuntary_switches: 0 };
        let less = Timing::new(10, std::time::Duration::from_micros(20), process, &[harness, harness]);
        assert_eq!((less.cpu_user_ns, less.cpu_system_ns, less.ctx_switches), (8_000, 0, 0));
    }

    #[test]
    fn instrument_metrics() {
        let m = Measurement {
            timing: Timing { items: 2_000, wall_ns: 4_000_000, cpu_user_ns: 0, cpu_system_ns: 0, ctx_switches: 0 },
            sampler_cpu_ns: 500_000,
            allocs: 10,
            alloc_bytes: 1_000,
            max_outstanding: Some(7),
            max_outstanding_sampled: None,
            threads_max: 3,
            heap_peak_bytes: 2 * 1024 * 1024,
            heap_retained_bytes: -16,
            threshold: None,
            setup: ProbeSetup::default(),
            outstanding_series: Series::new(1.0, vec![]),
        };
        let metrics = m.metrics();
        assert_eq!(metrics["threads"], 3.0);
        assert_eq!(metrics["sampler_cpu_ms"], 0.5);
        assert_eq!(metrics["max_outstanding"], 7.0);
        assert!(!metrics.contains_key("max_outstanding_sampled"));
        assert!(!metrics.contains_key("wall_ms"), "the clocks' readings are the timing's");
    }

    #[test]
    fn the_trial_bound_check_compares_the_measured_maximum() {
        let within = bounded_outstanding_check(Some(1_024), 1_029, 5, "items");
        assert!(within.passed);
        assert_eq!(within.detail, "measured max outstanding 1024 items, bound 1029 items");
        assert!(!bounded_outstanding_check(Some(1_030), 1_029, 5, "items").passed);
        let untouched = bounded_outstanding_check(None, 1_029, 5, "items");
        assert_eq!((untouched.passed, untouched.detail.as_str()), (false, "the gauge was never touched (bound 1029)"));
        let nothing = bounded_outstanding_check(None, 1_029, 0, "items");
        assert_eq!((nothing.passed, nothing.failed()), (false, false), "no measured iteration: not applicable");
    }
}
