//! The figures both network reports show beyond their tables, computed from the summary as data for the
//! discussion both scenarios' report templates place (`templates/figures.md`): each contestant's figures as
//! ratios to the scenario's lab baseline, and where the blocking time goes (context switches against the measured
//! wake-up cost). The published figures are in `measure/references.json`; the verdicts are the claims'.

use std::collections::BTreeMap;

use measure::compare::format_ratio;
use measure::scenario::{ChartKind, ChartSpec};
use measure::summary::Summary;
use measure::template::{claims_by_id, ClaimView};
use serde::Serialize;

/// The discussion both network reports print: every word of it, filled from [`Context`]. One file, since the
/// two reports differ only in their figures (baseline, metrics and claims); each scenario's
/// `templates/report.md` places it (as `{{ figures }}`).
const FIGURES: &str = include_str!("templates/figures.md");

/// What a scenario's report template reads: the shared discussion, rendered.
#[derive(Debug, Serialize)]
struct Frame {
    figures: String,
}

/// Markdown discussing `summary` of `scenario`: its figures, with ratios of `metrics` to `baseline`, rendered into
/// `templates/figures.md`, which the scenario's own report template (`template`) places.
pub fn discussion(
    scenario: &str,
    template: &str,
    summary: &Summary,
    baseline: &str,
    metrics: &[&'static str],
) -> String {
    let name = format!("{scenario}/report.md");
    let figures = match measure::template::render(&name, FIGURES, Context::of(summary, baseline, metrics)) {
        Ok(figures) => figures,
        Err(err) => return format!("_The discussion could not be rendered: {err}._\n"),
    };
    measure::template::render_or_note(&name, template, Frame { figures })
}

/// A bar chart of `metric` in `unit` (on a log scale if `log_scale`): the kind of every network chart.
pub fn bars(
    id: &'static str,
    title: &'static str,
    metric: &'static str,
    unit: &'static str,
    log_scale: bool,
) -> ChartSpec {
    ChartSpec { id, title, metric, unit, kind: ChartKind::Bars, log_scale, references: &[] }
}

/// What the network scenarios' report template reads.
#[derive(Debug, Serialize)]
pub struct Context {
    /// The contestant every ratio is taken against.
    pub baseline: String,
    /// The metrics of the ratio table, in column order.
    pub metrics: Vec<&'static str>,
    /// One row per contestant: its ratios to the baseline, one per metric (`n/a` where either is missing).
    pub ratios: Vec<Row>,
    /// One row per contestant with context-switch figures.
    pub wakeups: Vec<Row>,
    /// What bounds the batches per second (tcp): one row per contestant with the round-trip probe's readings.
    pub round_trips: Vec<Row>,
    /// Rounds of one exchange per connection in a batch (⌈exchanges ÷ connections⌉), when the run has both.
    pub rounds: Option<u64>,
    /// The server's timer per exchange, in µs, when the run has it.
    pub delay_us: Option<u64>,
    /// The share of what one exchange alone allows at which the round trip bounds the batches per second
    /// ([`crate::tcp::claims::ROUND_TRIP_SHARE`]).
    pub round_trip_share: f64,
    /// The multiple of its delay the server's timer must last for the timer claim
    /// ([`crate::tcp::claims::TIMER_OVERSHOOT`]).
    pub timer_overshoot: f64,
    /// Processes per contestant in this run.
    pub forks: u32,
    /// Every judged claim by id.
    pub claims: BTreeMap<String, ClaimView>,
}

/// A contestant and its formatted cells.
#[derive(Debug, Serialize)]
pub struct Row {
    /// The contestant.
    pub name: String,
    /// Its cells, in the table's column order.
    pub cells: Vec<String>,
}

impl Context {
    /// The figures of `summary`, with ratios of `metrics` to the contestant `baseline`.
    pub fn of(summary: &Summary, baseline: &str, metrics: &[&'static str]) -> Context {
        let ratios = summary
            .contestants
            .iter()
            .map(|c| Row {
                name: c.name.clone(),
                cells: metrics
                    .iter()
                    .map(|m| match (summary.median(&c.name, m), summary.median(baseline, m)) {
                        (Some(a), Some(b)) if b > 0.0 => format!("{}×", format_ratio(a / b)),
                        _ => "n/a".to_string(),
                    })
                    .collect(),
            })
            .collect();
        Context {
            baseline: baseline.to_string(),
            metrics: metrics.to_vec(),
            ratios,
            wakeups: wakeups(summary),
            round_trips: round_trips(summary),
            rounds: rounds(summary).map(|r| r as u64),
            delay_us: summary.param("delay_us").map(|d| d as u64),
            round_trip_share: crate::tcp::claims::ROUND_TRIP_SHARE,
            timer_overshoot: crate::tcp::claims::TIMER_OVERSHOOT,
            forks: summary.method.forks,
            claims: claims_by_id(&summary.claims),
        }
    }
}

/// The "where the blocking time goes" rows: context switches per call or exchange, the measured cost of one
/// wake-up on this machine (client core, and from the server's core), their product, and the client CPU per call.
/// Empty when no contestant has the figures.
fn wakeups(summary: &Summary) -> Vec<Row> {
    let cell = |v: Option<f64>| v.map_or_else(|| "n/a".to_string(), |v| format!("{v:.2}"));
    summary
        .contestants
        .iter()
        .filter_map(|c| {
            let switches = summary.median(&c.name, "ctx_switches_per_item")?;
            let wake = summary.median(&c.name, "wakeup_p50_us");
            let cross = summary.median(&c.name, "wakeup_cross_core_p50_us");
            let cpu = summary.median(&c.name, "cpu_us_per_call");
            let cells =
                vec![cell(Some(switches)), cell(wake), cell(cross), cell(wake.map(|w| w * switches)), cell(cpu)];
            Some(Row { name: c.name.clone(), cells })
        })
        .collect()
}

/// Rounds of one exchange per connection in a batch: ⌈exchanges ÷ connections⌉ (tcp's parameters).
fn rounds(summary: &Summary) -> Option<f64> {
    let (exchanges, connections) = (summary.param("exchanges")?, summary.param("connections")?);
    (connections > 0.0).then(|| (exchanges / connections).ceil())
}

/// Connections that take part in a round: at most the exchanges of a batch.
fn rounds_limit(summary: &Summary) -> f64 {
    summary.param("exchanges").unwrap_or(f64::INFINITY)
}

/// The "what bounds the batches per second" rows (tcp): batches per second, the bound one exchange alone sets
/// (1 ÷ (rounds × one exchange alone)), their ratio (`round_trip_fraction`), a round's time at the batch median
/// (batch p50 ÷ rounds), one exchange alone, one exchange alone plus the server's CPU for the round's other
/// exchanges, and the server's timer alone and over its delay. Empty when no contestant has the round-trip probe's
/// readings.
fn round_trips(summary: &Summary) -> Vec<Row> {
    let Some(rounds) = rounds(summary) else { return Vec::new() };
    let connections = summary.param("connections").map(|c| c.min(rounds_limit(summary)));
    let cell = |v: Option<f64>, digits: usize| v.map_or_else(|| "n/a".to_string(), |v| format!("{v:.digits$}"));
    summary
        .contestants
        .iter()
        .filter_map(|c| {
            let median = |m: &str| summary.median(&c.name, m);
            let solo = median("solo_exchange_p50_us")?;
            let bound = (solo > 0.0).then(|| 1e6 / (rounds * solo));
            // The server is one current-thread runtime on one core: it serves a round's exchanges one after
            // another, so a round lasts about one exchange alone plus the server's CPU for the others.
            let serial = connections.zip(median("server_cpu_us_per_call")).map(|(n, cpu)| solo + (n - 1.0) * cpu);
            let cells = vec![
                cell(median("batches_per_sec"), 1),
                cell(bound, 1),
                cell(median("round_trip_fraction"), 2),
                cell(median("batch_p50_us").map(|b| b / rounds), 0),
                cell(Some(solo), 0),
                cell(serial, 0),
                cell(median("timer_p50_us"), 0),
                cell(median("timer_over_delay"), 2),
            ];
            Some(Row { name: c.name.clone(), cells })
        })
        .collect()
}
