//! The service report's figures, read from a run's summary so the report stays true when it is re-rendered: a
//! typed context of formatted process medians and the claims by id, rendered with `templates/report.md`, which
//! holds every word. A finding is stated only where its claim holds.

use std::collections::BTreeMap;

use measure::record::Status;
use measure::summary::{metric_key, Summary};
use measure::template::{claims_by_id, ClaimView};
use measure::units::count;
use serde::Serialize;

use super::claims::{after_ceiling, fixed_queue_ms, phase_rate};
use super::contestants::ServiceContestant;

/// Every word of the report's discussion.
const TEMPLATE: &str = include_str!("templates/report.md");

/// The discussion section of the report.
pub fn render(summary: &Summary) -> String {
    measure::template::render_or_note("overload-service/report.md", TEMPLATE, Context::of(summary))
}

/// Everything `templates/report.md` reads.
#[derive(Debug, Clone, Serialize)]
pub struct Context {
    /// The run's claims, by id.
    pub claims: BTreeMap<String, ClaimView>,
    /// The run's settings, formatted.
    pub params: Params,
    /// Whether the fixed bound's queue outlasts the deadline.
    pub queue_past_deadline: bool,
    /// Poisson arrivals.
    pub poisson: bool,
    /// One table per rate phase.
    pub rates: Vec<RateTable>,
    /// The load generator's p99 lag behind the schedule, lowest and highest process median over the run.
    pub lag: Option<(String, String)>,
}

/// The parameters of the run that [`Params`] shows, by key (`healthy_ms`), each whole and grouped.
const SHOWN: [&str; 7] =
    ["healthy_ms", "after_ms", "deadline_ms", "capacity", "capacity_after", "service_ms", "fixed_limit"];

/// The run's settings by key, formatted (`?` where the run lacks one): the [`SHOWN`] parameters, the ceiling
/// after the drop in calls per second (`ceiling_after`) and how long the fixed bound's queue takes to drain
/// after the drop in ms (`queue_ms`).
pub type Params = BTreeMap<&'static str, String>;

/// One rate's figures.
#[derive(Debug, Clone, Serialize)]
pub struct RateTable {
    /// Arrivals per second.
    pub rate: String,
    /// Above the ceiling after the drop.
    pub above: bool,
    /// One row per contestant that ran at this rate ([`row`]).
    pub rows: Vec<Row>,
}

/// One contestant's process medians at one rate, by key, formatted (`—` where not measured).
pub type Row = BTreeMap<&'static str, Option<String>>;

impl Context {
    /// The context of `summary`.
    pub fn of(summary: &Summary) -> Context {
        let shown = |v: Option<f64>| v.map_or_else(|| "?".to_string(), count);
        let (queue, ceiling) = (fixed_queue_ms(summary), after_ceiling(summary));
        let mut params: Params = SHOWN.into_iter().map(|key| (key, shown(summary.param(key)))).collect();
        params.insert("ceiling_after", shown(ceiling));
        params.insert("queue_ms", queue.map_or_else(|| "?".to_string(), |(q, _)| format!("{q:.0}")));
        let rates = summary
            .phases
            .iter()
            .filter_map(|phase| {
                let rate = phase_rate(phase)?;
                let rows = ServiceContestant::all().iter().filter_map(|c| row(summary, &c.name(), phase)).collect();
                Some(RateTable { rate: count(rate), above: ceiling.is_some_and(|c| rate > c), rows })
            })
            .collect();
        let lags: Vec<f64> = summary
            .phases
            .iter()
            // Every contestant's lag, a failed one's too: the generator's lag is the run's, not the contestant's.
            .flat_map(|phase| summary.contestants.iter().map(move |c| (phase, c)))
            .filter_map(|(phase, c)| c.metrics.get(&metric_key(Some(phase.as_str()), "harness_generator_lag_p99_us")))
            .map(|stats| stats.median)
            .collect();
        let lag = (!lags.is_empty()).then(|| {
            let low = lags.iter().copied().fold(f64::INFINITY, f64::min);
            let high = lags.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            (count(low), count(high))
        });
        Context {
            claims: claims_by_id(&summary.claims),
            params,
            queue_past_deadline: queue.is_some_and(|(q, d)| q > d),
            poisson: summary.param("poisson").is_some_and(|p| p > 0.0),
            rates,
            lag,
        }
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::service_fixture as fixture;

    fn rendered() -> String {
        let mut summary = fixture::run(fixture::expected);
        summary.claims = measure::judge::judge_all(&summary, &super::super::claims::table(&summary));
        render(&summary)
    }

    #[test]
    fn the_report_renders_whole_within_eight_columns() {
        let text = rendered();
        assert!(!text.contains("could not be rendered"), "{text}");
        for line in text.lines() {
            assert!(!line.contains("  ") && !line.contains("{{") && !line.contains(" ?"), "{line}");
            if line.starts_with('|') {
                assert!(line.matches('|').count() - 1 <= 8, "more than 8 columns: {line}");
            }
        }
    }

    #[test]
    fn findings_follow_their_verdicts() {
        let text = rendered();
        assert!(text.contains("This is the trap a bound configured once falls into"), "{text}");
        assert!(text.contains("### 30,000 arrivals per second (above the after-drop ceiling)"));
        assert!(text.contains("| `stream-aimd` | 30,000 | 12,000 | 60% | 5.1 / 6.0 |"), "{text}");
        let mut summary =
            fixture::run(|name, rate| if name.ends_with("fixed") { 0.7 } else { fixture::expected(name, rate) });
        summary.claims = measure::judge::judge_all(&summary, &super::super::claims::table(&summary));
        assert!(!render(&summary).contains("This is the trap"));
    }
}
