//! Latency recording in microseconds with hdrhistogram: p50, p99, p99.9 and max.

use crate::record::MetricValues;

/// A latency histogram in microseconds (1 µs to 1 hour, 3 significant digits).
#[derive(Debug)]
pub struct LatencyRecorder {
    _private: (),
}

impl LatencyRecorder {
    /// An empty recorder.
    pub fn new() -> Self {
        unimplemented!()
    }
    /// Record one latency in microseconds (clamped into the histogram's range).
    pub fn record_us(&mut self, us: u64) {
        let _ = us;
        unimplemented!()
    }
    /// Add every value of `other`.
    pub fn merge(&mut self, other: &LatencyRecorder) {
        let _ = other;
        unimplemented!()
    }
    /// Values recorded.
    pub fn len(&self) -> u64 {
        unimplemented!()
    }
    /// Whether nothing was recorded.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// `latency_p50_us`, `latency_p99_us`, `latency_p999_us`, `latency_max_us`, each prefixed with `prefix`
    /// (such as `after_drop.`; empty for none). Empty when nothing was recorded.
    pub fn metrics(&self, prefix: &str) -> MetricValues {
        let _ = prefix;
        unimplemented!()
    }
}

impl Default for LatencyRecorder {
    fn default() -> Self {
        Self::new()
    }
}
