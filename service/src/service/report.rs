//! The service report's figures, read from a run's summary so the report stays true when it is re-rendered: a
//! typed context of formatted process medians per phase, with the ids of the judged findings each sentence
//! rests on, rendered with `templates/report.md`, which holds every word and prints a finding only where its
//! verdict holds.

use std::collections::BTreeMap;

use measure::record::Status;
use measure::summary::Summary;
use measure::template::{claims_by_id, ClaimView};
use measure::units::count;
use serde::Serialize;

use super::contestants::Contestant;
use super::findings::{
    aimd_protects_id, handoff_id, in_time_id, lag_id, natural_collapses_id, p99_within_id, parts_ceiling_id,
    HANDOFF_PAIRS, LAG_LIMIT_US,
};
use super::routine::ADMISSION_LIMIT_AT_END;
use super::search::{SEARCH_CEILING, SUSTAINABLE_RATE};
use super::SEARCH;
use crate::analysis::{
    CPU_PER_REQUEST, GENERATOR_LAG, GOODPUT, GOODPUT_AFTER_LOSS, IN_TIME_AFTER_LOSS, IN_TIME_SHARE, MOST_CALLS,
    MOST_OUTSTANDING, P99, P99_AFTER_LOSS,
};

/// Every word of the report's discussion.
const TEMPLATE: &str = include_str!("templates/report.md");

/// The discussion section of the report.
pub fn render(summary: &Summary) -> String {
    measure::template::render_or_note("service/report.md", TEMPLATE, Context::of(summary))
}

/// Everything `templates/report.md` reads.
#[derive(Debug, Clone, Serialize)]
pub struct Context {
    /// The run's claims, by id.
    pub claims: BTreeMap<String, ClaimView>,
    /// The run's findings, by id.
    pub findings: BTreeMap<String, ClaimView>,
    /// The run's settings by key, formatted (`?` where the run lacks one).
    pub params: BTreeMap<&'static str, String>,
    /// Poisson arrivals.
    pub poisson: bool,
    /// One table per phase.
    pub phases: Vec<PhaseTable>,
}

/// One phase's figures.
#[derive(Debug, Clone, Serialize)]
pub struct PhaseTable {
    /// Its name.
    pub phase: String,
    /// What it runs: `search` (each process at its own sustainable rate), `fixed` (one arrival rate, a healthy
    /// dependency) or `loss` (the dependency loses capacity halfway).
    pub kind: &'static str,
    /// In a loss phase: whether admission is AIMD's.
    pub aimd: bool,
    /// In a loss phase: the share of the dependency's slots lost, %, and the slots left.
    pub loss: Option<(String, String)>,
    /// In a search phase: the highest rate it tried (the lowest process median over the styles).
    pub ceiling: Option<String>,
    /// In a search phase: per family, its staged style against its whole-request style.
    pub handoffs: Vec<Handoff>,
    /// CPU work per request, µs.
    pub work_us: String,
    /// Arrivals per second.
    pub rate: String,
    /// The cores the work alone asks at this rate (work × rate).
    pub work_cores: String,
    /// The arrivals per second the seeded schedule made, lowest and highest process median over the styles.
    pub offered: Option<(String, String)>,
    /// The id of the finding that the generator kept its schedule here.
    pub lag_id: String,
    /// One row per contestant.
    pub rows: Vec<Row>,
}

/// A family's staged style against its whole-request style at a search phase, with the finding's id.
#[derive(Debug, Clone, Serialize)]
pub struct Handoff {
    /// The family.
    pub family: &'static str,
    /// The style that hands a request from stage to stage.
    pub staged: &'static str,
    /// The style that runs a whole request in one place.
    pub whole: &'static str,
    /// The id of the finding that the staged style sustained a lower rate.
    pub id: String,
}

/// One contestant's process medians at one phase, formatted (`—` where not measured).
#[derive(Debug, Clone, Serialize)]
pub struct Row {
    /// Its name.
    pub name: &'static str,
    /// Why it has no figures, if so.
    pub status: Option<String>,
    /// Every figure, by key.
    pub figures: BTreeMap<&'static str, String>,
    /// The id of the finding that it answered 99% within the deadline.
    pub in_time_id: String,
    /// The id of the finding that its p99 was within the deadline.
    pub p99_id: String,
    /// In a loss phase: the id of its finding about the loss (AIMD protects, or its own bound collapses).
    pub loss_id: String,
    /// In a search phase: the id of the finding that it sustained most of the rate its parts allow.
    pub parts_id: String,
}

/// The parameters the discussion names.
const SHOWN: [&str; 9] = [
    "run_ms",
    "probe_ms",
    "deadline_ms",
    "dependency_ms",
    "dependency_bound",
    "admission",
    "queue",
    "stages",
    "poisson",
];

impl Context {
    /// The context of `summary`.
    pub fn of(summary: &Summary) -> Context {
        let shown = |v: Option<f64>| v.map_or_else(|| "?".to_string(), count);
        let mut params: BTreeMap<&'static str, String> =
            SHOWN.into_iter().map(|key| (key, shown(summary.param(key)))).collect();
        params.insert("lag_limit", count(LAG_LIMIT_US));
        let phases = summary.phases.iter().map(|phase| phase_table(summary, phase)).collect();
        Context {
            claims: claims_by_id(&summary.claims),
            findings: claims_by_id(&summary.findings),
            params,
            poisson: summary.param("poisson").is_some_and(|p| p > 0.0),
            phases,
        }
    }
}

/// The figures of `phase`.
fn phase_table(summary: &Summary, phase: &str) -> PhaseTable {
    let level = |key: &str| summary.param_in(Some(phase), key).unwrap_or(0.0);
    let (work, rate, loss_pct, aimd) = (level("work_us"), level("rate"), level("loss_pct"), level("aimd") == 1.0);
    let kind = if rate == SEARCH as f64 {
        "search"
    } else if loss_pct > 0.0 {
        "loss"
    } else {
        "fixed"
    };
    let bound = summary.param("dependency_bound").unwrap_or(0.0);
    let slots_after = (bound * (100.0 - loss_pct) / 100.0).floor().max(1.0);
    let rows = Contestant::ALL
        .iter()
        .filter_map(|c| summary.contestant(c.name()).map(|s| (c.name(), s)))
        .map(|(name, s)| {
            let status = (s.status != Status::Ok)
                .then(|| s.reason.clone().unwrap_or_else(|| format!("{:?}", s.status).to_lowercase()));
            let median = |metric: &str| summary.median_in(name, phase, metric);
            let fmt = |v: Option<f64>, f: &dyn Fn(f64) -> String| v.map_or_else(|| "—".to_string(), f);
            let ms = |v: f64| format!("{:.1}", v / 1e3);
            let figures = BTreeMap::from([
                ("goodput", fmt(median(GOODPUT), &count)),
                ("in_time", fmt(median(IN_TIME_SHARE), &|v| format!("{:.1}%", v * 100.0))),
                ("p50", fmt(median("latency_p50_us"), &ms)),
                ("p99", fmt(median(P99), &ms)),
                ("p999", fmt(median("latency_p999_us"), &ms)),
                ("shed", fmt(median("shed_per_sec"), &count)),
                ("timed_out", fmt(median("timed_out_per_sec"), &count)),
                ("cpu", fmt(median(CPU_PER_REQUEST), &|v| format!("{v:.1}"))),
                ("cores", fmt(median("cores_used"), &|v| format!("{v:.2}"))),
                ("lag", fmt(median(GENERATOR_LAG), &count)),
                ("outstanding", fmt(median(MOST_OUTSTANDING), &count)),
                ("calls", fmt(median(MOST_CALLS), &count)),
                ("sustainable", fmt(median(SUSTAINABLE_RATE), &count)),
                ("goodput_before", fmt(median("before_loss.goodput_per_sec"), &count)),
                ("goodput_after", fmt(median(GOODPUT_AFTER_LOSS), &count)),
                ("in_time_after", fmt(median(IN_TIME_AFTER_LOSS), &|v| format!("{:.1}%", v * 100.0))),
                ("p99_after", fmt(median(P99_AFTER_LOSS), &ms)),
                ("limit_at_end", fmt(median(ADMISSION_LIMIT_AT_END), &count)),
            ]);
            let loss_id = if aimd { aimd_protects_id(phase, name) } else { natural_collapses_id(phase, name) };
            let (in_time_id, p99_id) = (in_time_id(phase, name), p99_within_id(phase, name));
            Row { name, status, figures, in_time_id, p99_id, loss_id, parts_id: parts_ceiling_id(phase, name) }
        })
        .collect();
    let offered: Vec<f64> =
        Contestant::ALL.iter().filter_map(|c| summary.median_in(c.name(), phase, "offered_per_sec")).collect();
    let lowest = offered.iter().copied().reduce(f64::min);
    let highest = offered.iter().copied().reduce(f64::max);
    let ceiling = Contestant::ALL
        .iter()
        .filter_map(|c| summary.median_in(c.name(), phase, SEARCH_CEILING))
        .reduce(f64::min)
        .map(count);
    PhaseTable {
        offered: lowest.zip(highest).map(|(low, high)| (count(low), count(high))),
        phase: phase.to_string(),
        kind,
        aimd,
        loss: (kind == "loss").then(|| (count(loss_pct), count(slots_after))),
        ceiling,
        handoffs: HANDOFF_PAIRS
            .iter()
            .filter(|_| kind == "search")
            .map(|(staged, whole)| Handoff {
                family: staged.family().as_str(),
                staged: staged.name(),
                whole: whole.name(),
                id: handoff_id(phase, staged.name()),
            })
            .collect(),
        work_us: count(work),
        rate: count(rate),
        work_cores: format!("{:.2}", work * rate / 1e6),
        lag_id: lag_id(phase),
        rows,
    }
}
