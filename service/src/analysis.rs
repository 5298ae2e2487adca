//! A run's figures, made once its clocks have stopped, from the schedule and the book: requests answered within
//! the deadline per second (goodput), latency from each request's scheduled start (p50, p99, p99.9), shed and
//! timed out per second, and the same per window over time. The counting is overload-service's
//! ([`overload::service_analysis`]: every request counts in the window its scheduled start falls in, so goodput
//! never reads above the arrival rate) over one phase that spans the whole run; its figures are renamed without
//! the phase prefix.

use std::collections::BTreeMap;

use measure::record::{MetricValues, Series};
use overload::book::Entry;
use overload::service_analysis::{self, Frame};

use crate::config::{duration_us, ServiceConfig, WINDOW};

/// Requests answered within the deadline per second: the headline.
pub const GOODPUT: &str = "goodput_per_sec";
/// The share of the arrivals answered within the deadline.
pub const IN_TIME_SHARE: &str = "in_time_share";
/// Latency p99 from the scheduled start, answered requests (in time or late).
pub const P99: &str = "latency_p99_us";
/// CPU of the whole trial process per arrival, µs.
pub const CPU_PER_REQUEST: &str = "cpu_us_per_request";
/// The load generator's p99 lag behind the schedule, µs.
pub const GENERATOR_LAG: &str = "generator_lag_p99_us";
/// The most requests inside the service at once.
pub const MOST_OUTSTANDING: &str = "max_outstanding";
/// The most dependency calls in flight at once.
pub const MOST_CALLS: &str = "max_dependency_calls";

/// Requests answered within the deadline per second, of the arrivals scheduled after the dependency's loss.
pub const GOODPUT_AFTER_LOSS: &str = "after_loss.goodput_per_sec";
/// The share of the arrivals scheduled after the dependency's loss answered within the deadline.
pub const IN_TIME_AFTER_LOSS: &str = "after_loss.in_time_share";
/// Latency p99 from the scheduled start of the arrivals scheduled after the dependency's loss.
pub const P99_AFTER_LOSS: &str = "after_loss.latency_p99_us";

/// The prefix of the one phase the overload analysis is asked for.
const WHOLE_RUN: &str = "before_drop.";
/// The figures of each side of a loss kept, under `before_loss.` and `after_loss.`.
const KEPT_AROUND_LOSS: [&str; 5] =
    ["goodput_per_sec", "shed_per_sec", "timed_out_per_sec", "caller_latency_p50_us", "caller_latency_p99_us"];
/// The figures kept, without the prefix.
const KEPT: [&str; 14] = [
    "arrivals",
    "shed",
    "timed_out",
    "failed",
    "in_time",
    "offered_per_sec",
    "shed_per_sec",
    "timed_out_per_sec",
    GOODPUT,
    "shed_share",
    "timed_out_share",
    "caller_latency_p50_us",
    "caller_latency_p99_us",
    "caller_latency_p999_us",
];

/// Metrics and series of one run.
#[derive(Debug, Clone, Default)]
pub struct Analysis {
    /// Every figure, named as the reports read it.
    pub metrics: MetricValues,
    /// Every over-time series (`goodput`, `timed_out`, `shed`, `caller_p50_us`, `caller_p99_us`).
    pub series: BTreeMap<String, Series>,
    /// Arrivals never recorded.
    pub missing: u64,
    /// Arrivals answered with a wrong value from the dependency.
    pub wrong: u64,
    /// Arrivals the dependency failed.
    pub failed: u64,
    /// The overload analysis's figures as it named them, each side of its split.
    pub split: MetricValues,
}

/// The analysis of `entries` (in arrival order), scheduled at `schedule`, of a run of `config`: the whole run,
/// and where the dependency lost capacity, each side of the loss apart (by scheduled start).
pub fn analyse(entries: &[Option<Entry>], schedule: &[u64], config: &ServiceConfig) -> Analysis {
    let end_us = duration_us(config.run);
    let mut analysis = analyse_split(entries, schedule, config, end_us);
    if let Some(loss_us) = config.loss_at().map(duration_us) {
        let split = analyse_split(entries, schedule, config, loss_us);
        let sides = [("before_drop.", "before_loss."), ("after_drop.", "after_loss.")];
        for (key, (from, to)) in KEPT_AROUND_LOSS.iter().flat_map(|key| sides.iter().map(move |side| (key, side))) {
            if let Some(&v) = split.split.get(&format!("{from}{key}")) {
                analysis.metrics.insert(format!("{to}{}", rename(key)), v);
            }
        }
        let (arrivals, in_time) = (split.split.get("after_drop.arrivals"), split.split.get("after_drop.in_time"));
        if let Some((&arrivals, &in_time)) = arrivals.zip(in_time).filter(|(&a, _)| a > 0.0) {
            analysis.metrics.insert(IN_TIME_AFTER_LOSS.to_string(), in_time / arrivals);
        }
    }
    analysis
}

/// The analysis of one run split at `split_us` (the run's end: not split), its figures of the part before the
/// split renamed without a prefix; the raw figures of both parts under `before_drop.` and `after_drop.` in
/// [`Analysis::split`].
fn analyse_split(entries: &[Option<Entry>], schedule: &[u64], config: &ServiceConfig, split_us: u64) -> Analysis {
    let end_us = duration_us(config.run);
    let frame = Frame {
        schedule,
        drop_us: split_us,
        healthy_us: split_us,
        end_us,
        deadline_us: duration_us(config.deadline),
        rate: config.rate as f64,
        ceilings: (f64::INFINITY, f64::INFINITY),
        limits: &[],
        window_us: duration_us(WINDOW),
        mark: String::new(),
    };
    let found = service_analysis::analyse(entries, &frame);
    let mut metrics: MetricValues = KEPT
        .iter()
        .filter_map(|key| found.metrics.get(&format!("{WHOLE_RUN}{key}")).map(|&v| (rename(key), v)))
        .collect();
    if let Some(&arrivals) = metrics.get("arrivals").filter(|&&a| a > 0.0) {
        let in_time = metrics.get("in_time").copied().unwrap_or(0.0);
        metrics.insert(IN_TIME_SHARE.to_string(), in_time / arrivals);
    }
    let series = found
        .series
        .into_iter()
        .map(|(name, mut series)| {
            series.marks.clear();
            (name, series)
        })
        .collect();
    Analysis { metrics, series, missing: found.missing, wrong: found.wrong, failed: found.failed, split: found.metrics }
}

/// `caller_latency_p99_us` → `latency_p99_us`; every other key as it is.
fn rename(key: &str) -> String {
    key.strip_prefix("caller_").unwrap_or(key).to_string()
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use overload::book::Fate;

    use super::*;

    #[test]
    fn goodput_counts_answers_within_the_deadline_from_the_scheduled_start() {
        let config = ServiceConfig {
            rate: 4_000,
            deadline: Duration::from_micros(300),
            run: Duration::from_millis(1),
            ..ServiceConfig::default()
        };
        let schedule = [0, 250, 500, 750];
        let at = |fate, seen_us| Some(Entry { fate, seen_us });
        let entries = [at(Fate::Answered, 100), at(Fate::Answered, 900), at(Fate::Shed, 500), None];
        let a = analyse(&entries, &schedule, &config);
        assert_eq!(a.metrics[GOODPUT], 1_000.0);
        assert_eq!(a.metrics["timed_out"], 1.0);
        assert_eq!(a.metrics["shed"], 1.0);
        assert_eq!(a.metrics[IN_TIME_SHARE], 0.25);
        assert_eq!(a.missing, 1);
        assert!(a.metrics.contains_key(P99));
        assert!(a.series.contains_key("goodput") && a.series.values().all(|s| s.marks.is_empty()));
    }
}
