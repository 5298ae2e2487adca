//! The classes of metric the lab judges, and the one table that puts every judged metric in its class.
//!
//! Metrics of one class share where their noise comes from (the clock and the scheduler for a cost per item, the
//! dependency's pace for calls per second, the CPU accounting for CPU per call, the tail of a distribution for a
//! latency percentile, the allocator and the kernel's pages for bytes per unit, a tight loop for nanoseconds per
//! operation), so one calibration of a class's representatives stands for every metric in it.

use serde::{Deserialize, Serialize};

/// A class of metric: what one smallest detectable ratio stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MetricClass {
    /// Wall time per item or per run of a fixed amount of work (`ms_per_million`, `wall_ms`): chain, handoff.
    PerItem,
    /// Calls (or batches) completed per second (`ops_per_sec`, `goodput_per_sec`): device, backpressure, network.
    CallsPerSec,
    /// CPU time per call or per item (`cpu_us_per_call`, `cpu_ns_per_item`), and CPU time over wall time.
    CpuPerCall,
    /// A latency percentile (`latency_p99_us`, `caller_latency_p99_us`), such as after overload's transition.
    LatencyPercentile,
    /// Bytes held per unit or per call (`live_heap_bytes_per_unit`, `rss_bytes_per_call`) and peak memory.
    BytesPerUnit,
    /// Nanoseconds per primitive operation (`ns_per_op`): primitives.
    NsPerOp,
}

impl MetricClass {
    /// Every class, in the order reports list them.
    pub const ALL: [MetricClass; 6] = [
        MetricClass::PerItem,
        MetricClass::CallsPerSec,
        MetricClass::CpuPerCall,
        MetricClass::LatencyPercentile,
        MetricClass::BytesPerUnit,
        MetricClass::NsPerOp,
    ];

    /// Its key in JSON (`method.sdr`, `calibration.json`) and on the command line (`--classes`): `per_item`.
    pub fn key(self) -> &'static str {
        match self {
            MetricClass::PerItem => "per_item",
            MetricClass::CallsPerSec => "calls_per_sec",
            MetricClass::CpuPerCall => "cpu_per_call",
            MetricClass::LatencyPercentile => "latency_percentile",
            MetricClass::BytesPerUnit => "bytes_per_unit",
            MetricClass::NsPerOp => "ns_per_op",
        }
    }

    /// The class of key `key` ([`MetricClass::key`]).
    pub fn from_key(key: &str) -> Option<MetricClass> {
        MetricClass::ALL.into_iter().find(|c| c.key() == key)
    }
}

/// Every judged metric (its name without phase prefix) and its class: the one table the thresholds are looked up
/// in. A metric measured in accounting iterations (`instrumented_` before its name) is in its timed twin's class.
/// A metric not listed (an exact count, a share, a limit) has no class and is judged with the uncalibrated default.
pub const CLASSES: &[(&str, MetricClass)] = &[
    ("ms_per_million", MetricClass::PerItem),
    ("wall_ms", MetricClass::PerItem),
    ("spawn_ms", MetricClass::PerItem),
    ("create_ms", MetricClass::PerItem),
    ("release_ms", MetricClass::PerItem),
    ("create_ns_per_unit", MetricClass::PerItem),
    ("release_ns_per_unit", MetricClass::PerItem),
    ("ops_per_sec", MetricClass::CallsPerSec),
    ("ops_per_sec_whole_run", MetricClass::CallsPerSec),
    ("ideal_ops_per_sec", MetricClass::CallsPerSec),
    ("goodput_per_sec", MetricClass::CallsPerSec),
    ("offered_per_sec", MetricClass::CallsPerSec),
    ("shed_per_sec", MetricClass::CallsPerSec),
    ("timed_out_per_sec", MetricClass::CallsPerSec),
    ("batches_per_sec", MetricClass::CallsPerSec),
    ("ideal_batches_per_sec", MetricClass::CallsPerSec),
    ("cpu_us_per_call", MetricClass::CpuPerCall),
    ("cpu_us_per_call_whole_run", MetricClass::CpuPerCall),
    ("caller_cpu_us_per_call", MetricClass::CpuPerCall),
    ("dependency_cpu_us_per_call", MetricClass::CpuPerCall),
    ("server_cpu_us_per_call", MetricClass::CpuPerCall),
    ("may_timer_cpu_us_per_call", MetricClass::CpuPerCall),
    ("cpu_ns_per_item", MetricClass::CpuPerCall),
    ("cpu_user_ns_per_item", MetricClass::CpuPerCall),
    ("cpu_system_ns_per_item", MetricClass::CpuPerCall),
    ("cores_used", MetricClass::CpuPerCall),
    ("latency_p50_us", MetricClass::LatencyPercentile),
    ("latency_p99_us", MetricClass::LatencyPercentile),
    ("latency_p999_us", MetricClass::LatencyPercentile),
    ("latency_max_us", MetricClass::LatencyPercentile),
    ("caller_latency_p50_us", MetricClass::LatencyPercentile),
    ("caller_latency_p99_us", MetricClass::LatencyPercentile),
    ("caller_latency_p999_us", MetricClass::LatencyPercentile),
    ("caller_latency_max_us", MetricClass::LatencyPercentile),
    ("gate_wait_latency_p50_us", MetricClass::LatencyPercentile),
    ("gate_wait_latency_p99_us", MetricClass::LatencyPercentile),
    ("gate_wait_latency_p999_us", MetricClass::LatencyPercentile),
    ("gate_wait_latency_max_us", MetricClass::LatencyPercentile),
    ("batch_p50_us", MetricClass::LatencyPercentile),
    ("batch_p99_us", MetricClass::LatencyPercentile),
    ("batch_p999_us", MetricClass::LatencyPercentile),
    ("batch_max_us", MetricClass::LatencyPercentile),
    ("probe_delay_p50_us", MetricClass::LatencyPercentile),
    ("probe_delay_p99_us", MetricClass::LatencyPercentile),
    ("probe_delay_p999_us", MetricClass::LatencyPercentile),
    ("probe_delay_max_us", MetricClass::LatencyPercentile),
    ("live_heap_bytes_per_unit", MetricClass::BytesPerUnit),
    ("rss_bytes_per_unit", MetricClass::BytesPerUnit),
    ("live_heap_bytes_per_call", MetricClass::BytesPerUnit),
    ("rss_bytes_per_call", MetricClass::BytesPerUnit),
    ("alloc_bytes_per_item", MetricClass::BytesPerUnit),
    ("heap_peak_mib", MetricClass::BytesPerUnit),
    ("heap_retained_bytes", MetricClass::BytesPerUnit),
    ("peak_rss_mib", MetricClass::BytesPerUnit),
    ("ns_per_op", MetricClass::NsPerOp),
];

/// Prefix of a metric measured in accounting iterations beside its timed twin.
const INSTRUMENTED: &str = "instrumented_";

/// The class of the metric under `key` (phase-prefixed or not: `work_0.ms_per_million`), from [`CLASSES`];
/// `None` for a metric the table does not list.
pub fn class_of(key: &str) -> Option<MetricClass> {
    let name = key.rsplit('.').next().unwrap_or(key);
    let name = name.strip_prefix(INSTRUMENTED).unwrap_or(name);
    CLASSES.iter().find(|(metric, _)| *metric == name).map(|(_, class)| *class)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_metric_is_classed_whatever_its_phase_and_its_accounting_twin_with_it() {
        assert_eq!(class_of("ms_per_million"), Some(MetricClass::PerItem));
        assert_eq!(class_of("work_64.ms_per_million"), Some(MetricClass::PerItem));
        assert_eq!(class_of("after_drop.caller_latency_p99_us"), Some(MetricClass::LatencyPercentile));
        assert_eq!(class_of("in_flight_1000.instrumented_cpu_us_per_call"), Some(MetricClass::CpuPerCall));
        assert_eq!(class_of("count_1000-payload_0.live_heap_bytes_per_unit"), Some(MetricClass::BytesPerUnit));
        assert_eq!(class_of("max_outstanding"), None, "an exact count has no class");
    }

    #[test]
    fn every_class_has_a_metric_and_a_key_that_reads_back() {
        for class in MetricClass::ALL {
            assert!(CLASSES.iter().any(|(_, c)| *c == class), "{class:?}");
            assert_eq!(MetricClass::from_key(class.key()), Some(class));
        }
        let json = serde_json::to_string(&MetricClass::CallsPerSec).expect("json");
        assert_eq!(json, r#""calls_per_sec""#, "the key is the JSON spelling");
    }

    #[test]
    fn the_table_names_each_metric_once() {
        let mut names: Vec<&str> = CLASSES.iter().map(|(m, _)| *m).collect();
        names.sort_unstable();
        let before = names.len();
        names.dedup();
        assert_eq!(names.len(), before);
    }
}
