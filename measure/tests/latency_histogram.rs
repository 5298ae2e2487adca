//! Tests the latency recorder's percentiles, clamping, merging and metric names through the public API.

use measure::latency::LatencyRecorder;

#[test]
fn skewed_distribution_percentiles() {
    let mut r = LatencyRecorder::new();
    for _ in 0..990 {
        r.record_us(100);
    }
    for _ in 0..9 {
        r.record_us(10_000);
    }
    r.record_us(1_000_000);
    let m = r.metrics("");
    assert_eq!(r.len(), 1000);
    assert!((m["latency_p50_us"] - 100.0).abs() <= 1.0, "{m:?}");
    assert!((m["latency_p99_us"] - 100.0).abs() <= 1.0, "{m:?}");
    assert!((m["latency_p999_us"] - 10_000.0).abs() <= 10.0, "{m:?}");
    assert!((m["latency_max_us"] - 1_000_000.0).abs() <= 1_000.0, "{m:?}");
}

#[test]
fn merge_of_parts_equals_whole() {
    let mut whole = LatencyRecorder::new();
    let mut parts = [LatencyRecorder::new(), LatencyRecorder::new(), LatencyRecorder::new()];
    for v in 1..=3000u64 {
        whole.record_us(v * 7);
        parts[(v % 3) as usize].record_us(v * 7);
    }
    let mut merged = LatencyRecorder::default();
    for p in &parts {
        merged.merge(p);
    }
    assert_eq!(merged.len(), whole.len());
    assert_eq!(merged.metrics("m."), whole.metrics("m."));
}

#[test]
fn empty_recorder_reports_nothing() {
    let r = LatencyRecorder::new();
    assert!(r.is_empty());
    assert!(r.metrics("after_drop.").is_empty());
}
