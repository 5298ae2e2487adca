//! Latency recording in microseconds with hdrhistogram: p50, p99, p99.9 and max.

use hdrhistogram::Histogram;

use crate::record::MetricValues;

/// Smallest value the histogram tracks: 1 µs (smaller values are recorded as 1).
pub const MIN_US: u64 = 1;
/// Largest value the histogram tracks: one hour in microseconds (larger values are recorded as this).
pub const MAX_US: u64 = 3_600_000_000;
/// Significant decimal digits the histogram keeps (relative error under 0.1%).
const SIGNIFICANT_DIGITS: u8 = 3;

/// A latency histogram in microseconds (1 µs to 1 hour, 3 significant digits).
#[derive(Debug)]
pub struct LatencyRecorder {
    histogram: Histogram<u64>,
}

impl LatencyRecorder {
    /// An empty recorder.
    pub fn new() -> Self {
        let histogram = Histogram::new_with_bounds(MIN_US, MAX_US, SIGNIFICANT_DIGITS)
            .expect("constant bounds 1..=3.6e9 with 3 significant digits are valid");
        LatencyRecorder { histogram }
    }
    /// Record one latency in microseconds (clamped into the histogram's range).
    pub fn record_us(&mut self, us: u64) {
        self.histogram.saturating_record(us.clamp(MIN_US, MAX_US));
    }
    /// Add every value of `other`.
    pub fn merge(&mut self, other: &LatencyRecorder) {
        // Both histograms have the same fixed bounds, so every value of `other` fits.
        self.histogram.add(&other.histogram).expect("histograms with identical bounds always add");
    }
    /// Values recorded.
    pub fn len(&self) -> u64 {
        self.histogram.len()
    }
    /// Whether nothing was recorded.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// `latency_p50_us`, `latency_p99_us`, `latency_p999_us`, `latency_max_us`, each prefixed with `prefix`
    /// (such as `after_drop.`; empty for none). Empty when nothing was recorded.
    ///
    /// Values are hdrhistogram's: within 0.1% of the recorded values (each reported as the highest value
    /// equivalent to its bucket).
    pub fn metrics(&self, prefix: &str) -> MetricValues {
        let mut metrics = MetricValues::new();
        if self.is_empty() {
            return metrics;
        }
        let h = &self.histogram;
        metrics.insert(format!("{prefix}latency_p50_us"), h.value_at_quantile(0.5) as f64);
        metrics.insert(format!("{prefix}latency_p99_us"), h.value_at_quantile(0.99) as f64);
        metrics.insert(format!("{prefix}latency_p999_us"), h.value_at_quantile(0.999) as f64);
        metrics.insert(format!("{prefix}latency_max_us"), h.max() as f64);
        metrics
    }
}

impl Default for LatencyRecorder {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(actual: f64, expected: f64) -> bool {
        (actual - expected).abs() <= expected * 0.001 + 1.0
    }

    #[test]
    fn empty_has_no_metrics() {
        let r = LatencyRecorder::new();
        assert!(r.is_empty());
        assert_eq!(r.len(), 0);
        assert!(r.metrics("").is_empty());
    }

    #[test]
    fn percentiles_of_one_to_ten_thousand() {
        let mut r = LatencyRecorder::default();
        for us in 1..=10_000 {
            r.record_us(us);
        }
        assert_eq!(r.len(), 10_000);
        let m = r.metrics("");
        assert_eq!(m.len(), 4);
        assert!(close(m["latency_p50_us"], 5_000.0), "{m:?}");
        assert!(close(m["latency_p99_us"], 9_900.0), "{m:?}");
        assert!(close(m["latency_p999_us"], 9_990.0), "{m:?}");
        assert!(close(m["latency_max_us"], 10_000.0), "{m:?}");
        assert!(m["latency_p50_us"] <= m["latency_p99_us"]);
        assert!(m["latency_p99_us"] <= m["latency_p999_us"]);
        assert!(m["latency_p999_us"] <= m["latency_max_us"]);
    }

    #[test]
    fn out_of_range_values_saturate() {
        let mut r = LatencyRecorder::new();
        r.record_us(0);
        r.record_us(u64::MAX);
        assert_eq!(r.len(), 2);
        let m = r.metrics("x.");
        assert!(m["x.latency_p50_us"] >= 1.0 && m["x.latency_p50_us"] <= 2.0, "{m:?}");
        assert!(close(m["x.latency_max_us"], MAX_US as f64), "{m:?}");
    }

    #[test]
    fn merge_adds_counts_and_prefix_names() {
        let mut a = LatencyRecorder::new();
        let mut b = LatencyRecorder::new();
        a.record_us(10);
        b.record_us(1_000);
        b.record_us(2_000);
        a.merge(&b);
        assert_eq!(a.len(), 3);
        assert_eq!(b.len(), 2);
        let m = a.metrics("after_drop.");
        let keys: Vec<&str> = m.keys().map(String::as_str).collect();
        assert_eq!(
            keys,
            [
                "after_drop.latency_max_us",
                "after_drop.latency_p50_us",
                "after_drop.latency_p999_us",
                "after_drop.latency_p99_us"
            ]
        );
        assert!(close(m["after_drop.latency_max_us"], 2_000.0));
        assert!(close(m["after_drop.latency_p50_us"], 1_000.0));
    }
}
