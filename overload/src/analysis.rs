//! From a run's call records to the scenario's metrics: overall and per phase (`before_drop.`, `after_drop.`),
//! and the per-window series the report charts.
//!
//! A call belongs to the phase in which it was *issued* (before or after the moment the dependency's capacity
//! dropped). A phase's throughput counts the calls that *completed* inside it, over its length: from the first
//! issue to the drop, and from the drop to the last completion. Outstanding calls (issued, not yet seen
//! complete: in service, queued in the dependency, or completed but not yet noticed) are counted exactly from
//! the records, issues before completions at the same microsecond. Series windows are aligned on the ledger's
//! origin and start at the window of the first issue.

use measure::latency::LatencyRecorder;
use measure::record::{Mark, MetricValues, Series};

use crate::ledger::CallRecord;

/// The headline metric: p99 latency of the calls issued after the capacity drop.
pub const HEADLINE: &str = "after_drop.latency_p99_us";

/// Prefix of the limiter's decision counts among a run's metrics (`decisions.increases`, ...).
pub const DECISIONS: &str = "decisions";

/// Samples the limiter's windows took in over a run.
pub const LIMITER_SAMPLES: &str = "limiter_samples";

/// Mean samples per closed window of the limiter over a run (adaptive limiters only).
pub const SAMPLES_PER_WINDOW: &str = "samples_per_window";

/// Phase of the calls issued before the capacity drop.
pub const BEFORE_DROP: &str = "before_drop";
/// Phase of the calls issued at or after the capacity drop.
pub const AFTER_DROP: &str = "after_drop";

/// Admissions at which the calls outstanding (counted from the records) exceeded the gate's limit at that
/// admission; must be 0.
pub const OVER_LIMIT_ISSUES: &str = "over_limit_issues";

/// Mean calls outstanding when a call was issued (admitted, for a gated call), itself included, overall and per
/// phase.
pub const IN_FLIGHT_AT_ADMISSION: &str = "in_flight_at_admission_mean";

/// Metrics and series computed from one run's records.
#[derive(Debug, Clone, PartialEq)]
pub struct RunAnalysis {
    /// Metric name → value, overall and phase-prefixed.
    pub metrics: MetricValues,
    /// `p99_latency_us`, `outstanding` and `p50_latency_us` per window, from the first issue.
    pub series: Vec<(String, Series)>,
    /// Microseconds from the ledger origin to the first issue.
    pub start_us: u64,
    /// Microseconds from the ledger origin to the last completion.
    pub end_us: u64,
    /// Calls that failed.
    pub failed: u64,
    /// Index of the first window the series hold, counting windows from the ledger's origin: the series start
    /// at the window holding the first issue, so other per-window records (the dependency's timeline, the
    /// limit) line up by skipping this many windows.
    pub first_window: u64,
}

/// Per-phase tallies.
#[derive(Debug, Default)]
struct PhaseTally {
    latency: LatencyRecorder,
    gate_wait: LatencyRecorder,
    /// What the caller sees: from asking the gate to the reply (gate wait plus latency).
    caller: LatencyRecorder,
    issued: u64,
    failed: u64,
    completed_inside: u64,
    max_outstanding: u64,
    /// Sum over the phase's issues of the calls outstanding at that issue, itself included.
    outstanding_at_issue: u64,
}

impl PhaseTally {
    /// Counts the call `r`, issued in this phase: an error, or its latencies.
    fn call(&mut self, r: &CallRecord) {
        self.issued += 1;
        if r.failed {
            self.failed += 1;
        } else {
            self.latency.record_us(r.latency_us);
            self.gate_wait.record_us(r.gate_wait_us);
            self.caller.record_us(r.gate_wait_us + r.latency_us);
        }
    }

    /// Counts an issue in this phase that found `outstanding` calls outstanding, itself included.
    fn issue(&mut self, outstanding: u64) {
        self.max_outstanding = self.max_outstanding.max(outstanding);
        self.outstanding_at_issue += outstanding;
    }
}

/// Analyse `records`; `drop_us` is when the capacity dropped (ledger microseconds; `None`: it never did, and
/// every call is `before_drop`); `window_us` is the series' window.
pub fn analyse(records: &[CallRecord], drop_us: Option<u64>, window_us: u64) -> RunAnalysis {
    let window_us = window_us.max(1);
    let start_us = records.iter().map(|r| r.issued_us).min().unwrap_or(0);
    let end_us = records.iter().map(CallRecord::completed_us).max().unwrap_or(start_us);
    let phase_of = |t: u64| usize::from(drop_us.is_some_and(|d| t >= d));
    let mut overall = PhaseTally::default();
    let mut phases = [PhaseTally::default(), PhaseTally::default()];

    let first_window = start_us / window_us;
    let base_us = first_window * window_us;
    let windows = usize::try_from((end_us.saturating_sub(base_us)) / window_us + 1).unwrap_or(1);
    let mut window_latency: Vec<Vec<u64>> = vec![Vec::new(); windows];
    let mut window_outstanding = vec![0u64; windows];
    let window_of = |t: u64| usize::try_from(t.saturating_sub(base_us) / window_us).unwrap_or(0).min(windows - 1);

    for r in records {
        let done = r.completed_us();
        phases[phase_of(done)].completed_inside += u64::from(!r.failed);
        phases[phase_of(r.issued_us)].call(r);
        overall.call(r);
        if !r.failed {
            window_latency[window_of(done)].push(r.latency_us);
        }
    }

    // Outstanding calls: +1 at issue, -1 at completion, in nanoseconds. A gated call's record lies inside its
    // permit (admitted at its issue, released after its reply was seen), and the next admission into a full gate
    // comes after a release: completions count first at equal times, and two issues at one nanosecond keep the
    // gate's admission order, so the count never exceeds what the gate held.
    let mut events: Vec<(u64, u8, u64, usize)> = Vec::with_capacity(records.len() * 2);
    for (i, r) in records.iter().enumerate() {
        events.push((r.issued_ns, 1, r.seq, i));
        events.push((r.completed_ns, 0, 0, i));
    }
    events.sort_unstable();
    let mut outstanding: u64 = 0;
    let mut over_limit: u64 = 0;
    // The window the previous event fell in: windows without events carry the count they began with.
    let mut current_window = 0;
    for (t_ns, kind, _, i) in events {
        let t = t_ns / 1_000;
        let w = window_of(t);
        while current_window < w {
            current_window += 1;
            window_outstanding[current_window] = outstanding;
        }
        if kind == 1 {
            outstanding += 1;
            let limit = u64::from(records[i].limit);
            if limit > 0 && outstanding > limit {
                over_limit += 1;
            }
            phases[phase_of(t)].issue(outstanding);
            overall.issue(outstanding);
        }
        window_outstanding[w] = window_outstanding[w].max(outstanding);
        if kind == 0 {
            outstanding = outstanding.saturating_sub(1);
        }
    }

    let mut metrics = MetricValues::new();
    let span_us = end_us.saturating_sub(start_us);
    put_phase(&mut metrics, "", &overall, overall.issued - overall.failed, span_us);
    let before_len = drop_us.map_or(span_us, |d| d.saturating_sub(start_us));
    put_phase(&mut metrics, &format!("{BEFORE_DROP}."), &phases[0], phases[0].completed_inside, before_len);
    if let Some(d) = drop_us {
        metrics.insert("drop_at_ms".to_string(), d.saturating_sub(start_us) as f64 / 1e3);
        // The calls issued after the drop and answered, over drop → last completion: none of them can start
        // service while the degraded dependency is full, so their rate is bounded by its ceiling. (Counting every
        // completion after the drop would add the calls in service at the drop: up to the healthy capacity more,
        // over however short the phase is.)
        put_phase(
            &mut metrics,
            &format!("{AFTER_DROP}."),
            &phases[1],
            phases[1].issued - phases[1].failed,
            end_us.saturating_sub(d),
        );
    }
    metrics.insert(OVER_LIMIT_ISSUES.to_string(), over_limit as f64);

    let period_ms = window_us as f64 / 1e3;
    let marks: Vec<Mark> = drop_us
        .map(|d| vec![Mark { at_ms: d.saturating_sub(base_us) as f64 / 1e3, label: "capacity drops".to_string() }])
        .unwrap_or_default();
    let p99: Vec<f64> = window_latency.iter_mut().map(|w| quantile(w, 0.99).map_or(0.0, |v| v as f64)).collect();
    let p50: Vec<f64> = window_latency.iter_mut().map(|w| quantile(w, 0.5).map_or(0.0, |v| v as f64)).collect();
    let outstanding: Vec<f64> = window_outstanding.iter().map(|&v| v as f64).collect();
    let series = [("p99_latency_us", p99), ("outstanding", outstanding), ("p50_latency_us", p50)]
        .map(|(name, values)| (name.to_string(), Series { marks: marks.clone(), ..Series::new(period_ms, values) }));
    RunAnalysis { metrics, series: series.into(), start_us, end_us, failed: overall.failed, first_window }
}

/// The `q`-quantile of `values` (nearest rank: the smallest value at or above a fraction `q` of them), exact;
/// `None` when empty. Sorts `values`.
fn quantile(values: &mut [u64], q: f64) -> Option<u64> {
    if values.is_empty() {
        return None;
    }
    values.sort_unstable();
    let rank = (q * values.len() as f64).ceil() as usize;
    values.get(rank.clamp(1, values.len()) - 1).copied()
}

/// Insert one phase's metrics under `prefix` (`""` for the whole run): `ops_per_sec` is `completed` calls over
/// `length_us`.
fn put_phase(metrics: &mut MetricValues, prefix: &str, tally: &PhaseTally, completed: u64, length_us: u64) {
    metrics.extend(tally.latency.metrics(prefix));
    // The gate wait beside the latency: `gate_wait_latency_p99_us` and the rest.
    metrics.extend(tally.gate_wait.metrics(&format!("{prefix}gate_wait_")));
    // What the caller sees, gate wait included: `caller_latency_p99_us` and the rest.
    metrics.extend(tally.caller.metrics(&format!("{prefix}caller_")));
    metrics.insert(format!("{prefix}calls"), tally.issued as f64);
    metrics.insert(format!("{prefix}errors"), tally.failed as f64);
    metrics.insert(format!("{prefix}max_outstanding"), tally.max_outstanding as f64);
    if tally.issued > 0 {
        // For a gated call the issue is its admission: the in-flight count the limiter's sample carries.
        metrics.insert(
            format!("{prefix}{IN_FLIGHT_AT_ADMISSION}"),
            tally.outstanding_at_issue as f64 / tally.issued as f64,
        );
    }
    if length_us > 0 {
        metrics.insert(format!("{prefix}ops_per_sec"), completed as f64 * 1e6 / length_us as f64);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(issued_us: u64, latency_us: u64) -> CallRecord {
        CallRecord {
            issued_us,
            latency_us,
            failed: false,
            gate_wait_us: 0,
            limit: 0,
            issued_ns: issued_us * 1_000,
            completed_ns: (issued_us + latency_us) * 1_000,
            seq: 0,
        }
    }

    #[test]
    fn calls_split_into_phases_by_issue_time_and_neither_phase_counts_a_call_in_service_at_the_drop() {
        // Two calls before the drop at t=1000, two after; one straddles it.
        let records = [call(0, 500), call(900, 400), call(1_000, 1_000), call(1_500, 1_500)];
        let a = analyse(&records, Some(1_000), 1_000);
        assert_eq!(a.metrics["before_drop.calls"], 2.0);
        assert_eq!(a.metrics["after_drop.calls"], 2.0);
        // Before: one completion inside [0, 1000) over 1 ms. After: the two calls issued after it, over 2 ms; the
        // call in service at the drop (issued at 900, done at 1300) counts in neither.
        assert_eq!(a.metrics["before_drop.ops_per_sec"], 1_000.0);
        assert_eq!(a.metrics["after_drop.ops_per_sec"], 1_000.0);
        assert_eq!(a.metrics["ops_per_sec"], 4.0 * 1e6 / 3_000.0);
        assert_eq!(a.metrics["drop_at_ms"], 1.0);
    }

    #[test]
    fn outstanding_counts_completions_before_issues_at_the_same_time() {
        // A completes at 100 exactly when B is issued (B took A's slot): one outstanding, then C joins B.
        let records = [call(0, 100), call(100, 50), call(120, 10)];
        let a = analyse(&records, None, 1_000);
        assert_eq!(a.metrics["max_outstanding"], 2.0);
        assert_eq!(a.metrics["before_drop.max_outstanding"], 2.0);
        assert!(!a.metrics.contains_key("after_drop.max_outstanding"));
        let back_to_back = [call(0, 100), call(100, 100), call(200, 100)];
        assert_eq!(analyse(&back_to_back, None, 1_000).metrics["max_outstanding"], 1.0);
    }

    #[test]
    fn an_issue_above_its_admission_limit_is_counted() {
        let gated = |issued_us, latency_us, limit| CallRecord { limit, ..call(issued_us, latency_us) };
        let within = [gated(0, 100, 2), gated(10, 100, 2), gated(100, 10, 2)];
        assert_eq!(analyse(&within, None, 1_000).metrics[OVER_LIMIT_ISSUES], 0.0);
        let over = [gated(0, 100, 2), gated(10, 100, 2), gated(20, 10, 2)];
        assert_eq!(analyse(&over, None, 1_000).metrics[OVER_LIMIT_ISSUES], 1.0);
    }

    #[test]
    fn the_caller_sees_the_gate_wait() {
        let waited = |issued_us, wait| CallRecord { gate_wait_us: wait, ..call(issued_us, 100) };
        let records = [waited(0, 0), waited(1_000, 50), waited(2_000, 300), waited(3_000, 0)];
        let a = analyse(&records, Some(1_000), 1_000);
        assert_eq!(a.metrics["after_drop.caller_latency_max_us"], 400.0);
        assert_eq!(a.metrics["after_drop.latency_max_us"], 100.0);
    }

    #[test]
    fn the_mean_in_flight_at_admission_counts_each_call_with_those_outstanding_at_its_issue() {
        // Issued at 0, 10 and 20 (1, 2 and 3 outstanding then); the call issued at 200 finds the others done.
        let records = [call(0, 100), call(10, 100), call(20, 100), call(200, 10)];
        let a = analyse(&records, Some(100), 1_000);
        assert_eq!(a.metrics["in_flight_at_admission_mean"], 7.0 / 4.0);
        assert_eq!(a.metrics["before_drop.in_flight_at_admission_mean"], 2.0);
        assert_eq!(a.metrics["after_drop.in_flight_at_admission_mean"], 1.0);
    }

    #[test]
    fn failures_count_as_errors_not_latency() {
        let records = [call(0, 10), CallRecord { failed: true, ..call(5, 1) }];
        let a = analyse(&records, None, 1_000);
        assert_eq!(a.metrics["errors"], 1.0);
        assert_eq!(a.metrics["latency_max_us"], 10.0);
    }

    #[test]
    fn outstanding_per_window_carries_through_windows_without_issues() {
        // Three calls issued at once, completing in windows 2 and 3: windows 1 and 2 still hold them.
        let records = [call(0, 2_500), call(0, 2_500), call(0, 3_500)];
        let a = analyse(&records, None, 1_000);
        let (_, outstanding) = &a.series[1];
        assert_eq!(outstanding.values, vec![3.0, 3.0, 3.0, 1.0]);
    }

    #[test]
    fn quantiles_take_the_nearest_rank() {
        let mut values: Vec<u64> = (1..=100).rev().collect();
        assert_eq!(quantile(&mut values, 0.99), Some(99));
        assert_eq!(quantile(&mut values, 1.0), Some(100));
        assert_eq!(quantile(&mut [7], 0.99), Some(7));
        assert_eq!(quantile(&mut [], 0.5), None);
    }

    #[test]
    fn series_have_one_value_per_window_and_mark_the_drop() {
        let records = [call(0, 100), call(2_500, 100)];
        let a = analyse(&records, Some(2_000), 1_000);
        let (name, p99) = &a.series[0];
        assert_eq!(name, "p99_latency_us");
        assert_eq!(p99.values.len(), 3);
        assert_eq!(p99.values[1], 0.0, "no call completed in the middle window");
        assert_eq!(p99.marks[0].at_ms, 2.0);
        let (name, p50) = &a.series[2];
        assert_eq!(name, "p50_latency_us");
        assert_eq!((p50.values.len(), p50.values[0], p50.values[1]), (3, 100.0, 0.0));
    }
}
