//! The figures both scenarios take from the harness rather than from their own records: wall time and CPU per
//! call from a timed window's clocks, and threads, allocations and heap from an accounting run's instruments.

use std::time::Duration;

use measure::probe::{Measurement, Timing};
use measure::record::MetricValues;

/// `d` in whole microseconds (saturating).
pub fn duration_us(d: Duration) -> u64 {
    u64::try_from(d.as_micros()).unwrap_or(u64::MAX)
}

/// Wall time and CPU from the window's clocks. `cpu_us_per_call` is the whole process's CPU per call, the
/// dependency's timer threads included: they do the dependency's bookkeeping *and* wake each waiting caller, and
/// waking a parked thread costs far more than waking a task, so that share belongs to the style. It is also
/// given apart (`dependency_cpu_us_per_call`) beside the callers' own threads (`caller_cpu_us_per_call`).
pub fn clock_metrics(timing: &Timing, timer_cpu: Duration, calls: u64) -> MetricValues {
    let clocks = timing.metrics();
    let mut metrics = MetricValues::new();
    for key in ["wall_ms", "ctx_switches_per_item", "cores_used"] {
        if let Some(&v) = clocks.get(key) {
            metrics.insert(key.to_string(), v);
        }
    }
    let timer_ns = u64::try_from(timer_cpu.as_nanos()).unwrap_or(u64::MAX);
    let total_ns = timing.cpu_ns();
    let calls = calls.max(1) as f64;
    metrics.insert("cpu_us_per_call".to_string(), total_ns as f64 / 1e3 / calls);
    metrics.insert("dependency_cpu_us_per_call".to_string(), timer_ns as f64 / 1e3 / calls);
    metrics.insert("caller_cpu_us_per_call".to_string(), total_ns.saturating_sub(timer_ns) as f64 / 1e3 / calls);
    metrics
}

/// The instruments' readings of an accounting run, as the scenario has always reported them: `threads`,
/// `sampler_cpu_ms`, and (with the counting allocator) `allocs_per_item` and `heap_peak_mib`.
pub fn instrument_metrics(measurement: &Measurement) -> MetricValues {
    let mut readings = measurement.metrics();
    readings.retain(|key, _| ["threads", "sampler_cpu_ms", "allocs_per_item", "heap_peak_mib"].contains(&key.as_str()));
    readings
}
