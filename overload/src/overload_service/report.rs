//! The service report's figures, read from a run's summary so the report stays true when it is re-rendered: a
//! typed context of formatted process medians and the claims by id, rendered with `templates/report.md`, which
//! holds every word. A finding is stated only where its claim holds.

use std::collections::BTreeMap;

use measure::record::Status;
use measure::summary::{metric_key, Summary};
use measure::template::{claims_by_id, ClaimView};
use measure::units::count;
use serde::Serialize;

use super::claims::{after_ceiling, below_served_id, fixed_queue_ms, phase_rate};
use super::contestants::{ServiceContestant, LIMITERS};
use crate::service_config::little_bound;

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
    /// The limiters by the verdict (`holds`, `fails`, `inconclusive`) of their claim that below the ceiling they
    /// answer their callers in every family ([`below_served_id`]), as the summary has them.
    pub below_by_limiter: BTreeMap<&'static str, Vec<&'static str>>,
}

/// The parameters of the run that [`Params`] shows, by key (`healthy_ms`), each whole and grouped.
const SHOWN: [&str; 7] =
    ["healthy_ms", "after_ms", "deadline_ms", "capacity", "capacity_after", "service_ms", "fixed_limit"];

/// The run's settings by key, formatted (`?` where the run lacks one): the [`SHOWN`] parameters, the ceiling
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
        let little = || {
            let whole = |key: &str| summary.param(key).map(|v| v as u64);
            Some(little_bound(whole("capacity_after")?, whole("service_ms")?, whole("deadline_ms")?))
        };
        params.insert("little", shown(little().map(|b| b as f64)));
        let mut below_by_limiter: BTreeMap<&'static str, Vec<&'static str>> =
            ["holds", "fails", "inconclusive"].into_iter().map(|v| (v, Vec::new())).collect();
        for kind in LIMITERS {
            if let Some(claim) = summary.claims.iter().find(|c| c.id == below_served_id(kind)) {
                below_by_limiter.entry(claim.verdict.as_str()).or_default().push(kind.name());
            }
        }
        let rates = summary
            .phases
            .iter()
            .filter_map(|phase| {
                let rate = phase_rate(phase)?;
                let rows = ServiceContestant::all().iter().filter_map(|c| row(summary, &c.name(), phase)).collect();
                let control = summary
                    .questions
                    .iter()
                    .flat_map(|q| &q.answers)
                    .find(|a| a.phase.as_deref() == Some(phase.as_str()) && a.control.is_some())
                    .and_then(|a| a.control.clone());
                Some(RateTable { rate: count(rate), above: ceiling.is_some_and(|c| rate > c), control, rows })
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
            below_by_limiter,
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
    use measure::scenario::Scenario;

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

    #[test]
    fn the_sentence_below_the_ceiling_names_the_limiters_that_served_and_those_that_did_not() {
        // As the committed run: below the ceiling every limiter serves every caller but Vegas, which sheds a third.
        let shares = |name: &str, rate: u64| {
            if rate < 20_000 && name.ends_with("vegas") {
                0.66
            } else {
                fixture::expected(name, rate)
            }
        };
        let mut summary = fixture::run(shares);
        summary.claims = measure::judge::judge_all(&summary, &super::super::claims::table(&summary));
        assert!(!render(&summary).contains("A control, not an answer"), "no answers, no control to report");
        summary.questions = measure::question::answer_all(&summary, &super::super::ServiceScenario.questions());
        let text = render(&summary);
        assert!(!text.contains("no bounded contestant answered"), "{text}");
        assert!(
            text.contains(
                "- **Below the ceiling** (fails, p = 0.031): not every bounded contestant answered 95% of what could \
                 be served in time: `fixed`, `fixed-little`, `aimd` and `gradient2` did in every family; `vegas` did \
                 not (each limiter's own claim above)."
            ),
            "{text}"
        );
        assert!(text.contains("A control, not an answer: 15,000 arrivals per second is below the after-drop ceiling"));
        assert!(text.contains("× the deadline (20 ms) = 400 calls"), "{text}");
        assert!(
            text.contains(
                "- **A fixed bound sized by Little's law above the ceiling** (holds, p = 0.0040): in every family \
                 `fixed-little` (400) answered more callers in time than `fixed` (500), beyond noise"
            ),
            "{text}"
        );
    }
}
