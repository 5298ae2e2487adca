//! The service report's figures, read from a run's summary so the report stays true when it is re-rendered: a
//! typed context of formatted process medians and the claims by id, rendered with `templates/report.md`, which
//! holds every word. A finding is stated only where its claim holds.

use std::collections::BTreeMap;

use measure::record::Status;
use measure::summary::Summary;
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
    /// One row per contestant that ran at this rate.
    pub rows: Vec<Row>,
}

/// One contestant's process medians at one rate.
#[derive(Debug, Clone, Serialize)]
pub struct Row {
    /// Its name.
    pub name: String,
    /// Goodput before the drop.
    pub before: String,
    /// Goodput after the drop.
    pub after: String,
    /// After-drop goodput as a share of what could be served.
    pub share: String,
    /// Callers' p50 after the drop, from the schedule.
    pub p50: String,
    /// Callers' p99 after the drop, from the schedule.
    pub p99: String,
    /// Shed per second after the drop.
    pub shed: String,
    /// Timed out per second after the drop.
    pub timed_out: String,
    /// The limit's mean after the drop.
    pub limit: String,
    /// Why it has no figures, if so.
    pub status: Option<String>,
}

impl Context {
    /// The context of `summary`.
    pub fn of(summary: &Summary) -> Context {
        let shown = |v: Option<f64>| v.map_or_else(|| "?".to_string(), count);
        let queue = fixed_queue_ms(summary);
        let mut params: Params = SHOWN.into_iter().map(|key| (key, shown(summary.param(key)))).collect();
        params.insert("ceiling_after", shown(after_ceiling(summary)));
        params.insert("queue_ms", queue.map_or_else(|| "?".to_string(), |(q, _)| format!("{q:.0}")));
        let ceiling = after_ceiling(summary);
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
            .flat_map(|phase| {
                summary.contestants.iter().filter_map(move |c| {
                    c.metrics.get(&format!("{phase}.harness_generator_lag_p99_us")).map(|s| s.median)
                })
            })
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

/// `name`'s row at `phase`, if it is in the run.
fn row(summary: &Summary, name: &str, phase: &str) -> Option<Row> {
    let contestant = summary.contestant(name)?;
    let median = |metric: &str| contestant.metrics.get(&format!("{phase}.{metric}")).map(|s| s.median);
    let number = |metric: &str| median(metric).map_or_else(|| "—".to_string(), count);
    let ms = |metric: &str| median(metric).map_or_else(|| "—".to_string(), |us| format!("{:.1}", us / 1e3));
    let status = (contestant.status != Status::Ok)
        .then(|| contestant.reason.clone().unwrap_or_else(|| format!("{:?}", contestant.status).to_lowercase()));
    Some(Row {
        name: name.to_string(),
        before: number("before_drop.goodput_per_sec"),
        after: number("after_drop.goodput_per_sec"),
        share: median("after_drop.goodput_share").map_or_else(|| "—".to_string(), |s| format!("{:.0}%", s * 100.0)),
        p50: ms("after_drop.caller_latency_p50_us"),
        p99: ms("after_drop.caller_latency_p99_us"),
        shed: number("after_drop.shed_per_sec"),
        timed_out: number("after_drop.timed_out_per_sec"),
        limit: number("after_drop.limit_mean"),
        status,
    })
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
