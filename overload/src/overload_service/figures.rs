//! The service report's figures, computed from a run's summary before anything renders (analysis before
//! rendering): the run's settings and what follows from them, one table of process medians per rate phase, the
//! load generator's lag, and the limiters grouped by the verdicts the summary holds. Nothing here chooses a
//! sentence; `report.rs` gathers these figures into the template's context.

use std::collections::BTreeMap;

use measure::record::Status;
use measure::summary::{metric_key, Summary};
use measure::units::count;
use serde::Serialize;

use super::claims::{below_served_id, fixed_queue_ms, phase_rate};
use super::contestants::{ServiceContestant, LIMITERS};
use crate::config::after_ceiling;
use crate::policy::by_verdict;
use crate::service_config::little_bound;

/// The parameters of the run that [`Params`] shows, by key (`healthy_ms`), each whole and grouped.
const SHOWN: [&str; 7] =
    ["healthy_ms", "after_ms", "deadline_ms", "capacity", "capacity_after", "service_ms", "fixed_limit"];

/// The run's settings by key, formatted (`?` where the run lacks one): the `SHOWN` parameters, the ceiling
/// after the drop in calls per second (`ceiling_after`), how long the fixed bound's queue takes to drain after
/// the drop in ms (`queue_ms`), and the bound Little's law sizes from the run's parameters (`little`).
pub type Params = BTreeMap<&'static str, String>;

/// One rate's figures.
#[derive(Debug, Clone, Serialize)]
pub struct RateTable {
    /// Arrivals per second.
    pub rate: String,
    /// Above the ceiling after the drop.
    pub above: bool,
    /// Why the questions of admission are not asked at this rate, as the summary's answers give it (`None`: they
    /// are answered here).
    pub control: Option<String>,
    /// One row per contestant that ran at this rate (`row`).
    pub rows: Vec<Row>,
}

/// One contestant's process medians at one rate, by key, formatted (`—` where not measured).
pub type Row = BTreeMap<&'static str, Option<String>>;

/// The run's [`Params`].
pub fn params(summary: &Summary) -> Params {
    let shown = |v: Option<f64>| v.map_or_else(|| "?".to_string(), count);
    let mut params: Params = SHOWN.into_iter().map(|key| (key, shown(summary.param(key)))).collect();
    params.insert("ceiling_after", shown(after_ceiling(summary)));
    let queue = fixed_queue_ms(summary);
    params.insert("queue_ms", queue.map_or_else(|| "?".to_string(), |(q, _)| format!("{q:.0}")));
    let little = || {
        let whole = |key: &str| summary.param(key).map(|v| v as u64);
        Some(little_bound(whole("capacity_after")?, whole("service_ms")?, whole("deadline_ms")?))
    };
    params.insert("little", shown(little().map(|b| b as f64)));
    params
}

/// The fixed bound's queue takes longer to drain after the drop than the deadline, by the run's parameters.
pub fn queue_past_deadline(summary: &Summary) -> bool {
    fixed_queue_ms(summary).is_some_and(|(queue, deadline)| queue > deadline)
}

/// The run's arrivals were Poisson.
pub fn poisson(summary: &Summary) -> bool {
    summary.param("poisson").is_some_and(|p| p > 0.0)
}

/// One table per rate phase of the run, in its order.
pub fn rates(summary: &Summary) -> Vec<RateTable> {
    let ceiling = after_ceiling(summary);
    let table = |phase: &String| {
        let rate = phase_rate(phase)?;
        let rows = ServiceContestant::all().iter().filter_map(|c| row(summary, &c.name(), phase)).collect();
        let control = summary
            .questions
            .iter()
            .flat_map(|q| &q.answers)
            .find(|a| a.phase.as_deref() == Some(phase.as_str()) && a.control.is_some())
            .and_then(|a| a.control.clone());
        Some(RateTable { rate: count(rate), above: ceiling.is_some_and(|c| rate > c), control, rows })
    };
    summary.phases.iter().filter_map(table).collect()
}

/// The load generator's p99 lag behind the schedule, the lowest and highest process median over the run.
pub fn lag(summary: &Summary) -> Option<(String, String)> {
    let lags: Vec<f64> = summary
        .phases
        .iter()
        // Every contestant's lag, a failed one's too: the generator's lag is the run's, not the contestant's.
        .flat_map(|phase| summary.contestants.iter().map(move |c| (phase, c)))
        .filter_map(|(phase, c)| c.metrics.get(&metric_key(Some(phase.as_str()), "harness_generator_lag_p99_us")))
        .map(|stats| stats.median)
        .collect();
    let low = lags.iter().copied().reduce(f64::min)?;
    let high = lags.iter().copied().reduce(f64::max)?;
    Some((count(low), count(high)))
}

/// The limiters by the verdict of their claim that below the ceiling they answer their callers in every family
/// ([`below_served_id`]), as the summary has them.
pub fn below_by_limiter(summary: &Summary) -> BTreeMap<&'static str, Vec<&'static str>> {
    let verdict = |kind| summary.claims.iter().find(|c| c.id == below_served_id(kind)).map(|c| c.verdict.as_str());
    by_verdict(LIMITERS.into_iter().filter_map(|kind| Some((kind.name(), verdict(kind)?))))
}

/// `name`'s row at `phase`, if it is in the run: its `name`, goodput `before` and `after` the drop, after-drop
/// goodput as a `share` of what could be served, callers' `p50` and `p99` after the drop from the schedule (ms),
/// `shed` and `timed_out` per second after the drop, the limit's mean after the drop (`limit`), and why it has no
/// figures (`status`), if so.
fn row(summary: &Summary, name: &str, phase: &str) -> Option<Row> {
    let contestant = summary.contestant(name)?;
    let shown = |metric: &str, show: fn(f64) -> String| {
        Some(summary.median_in(name, phase, metric).map_or_else(|| "—".to_string(), show))
    };
    let status = (contestant.status != Status::Ok)
        .then(|| contestant.reason.clone().unwrap_or_else(|| format!("{:?}", contestant.status).to_lowercase()));
    let ms = |us: f64| format!("{:.1}", us / 1e3);
    Some(Row::from([
        ("name", Some(name.to_string())),
        ("before", shown("before_drop.goodput_per_sec", count)),
        ("after", shown("after_drop.goodput_per_sec", count)),
        ("share", shown("after_drop.goodput_share", |s| format!("{:.0}%", s * 100.0))),
        ("p50", shown("after_drop.caller_latency_p50_us", ms)),
        ("p99", shown("after_drop.caller_latency_p99_us", ms)),
        ("shed", shown("after_drop.shed_per_sec", count)),
        ("timed_out", shown("after_drop.timed_out_per_sec", count)),
        ("limit", shown("after_drop.limit_mean", count)),
        ("status", status),
    ]))
}
