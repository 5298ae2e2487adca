//! From a raw run to rendered files: summarise, then hand the summary and the scenario's texts to the pure
//! renderers of the `reports` crate. `lab <scenario>` and `lab report` both go through here, so a report
//! re-rendered from its raw file is byte-identical to the one the run wrote.

use measure::scenario::Scenario;
use measure::summary::Summary;
use reports::{Rendered, ReportInput};

use crate::raw::RawRun;
use crate::summarize;

/// Summarise `run` and render its report, summary JSON and charts.
pub(crate) fn render(run: &RawRun, scenario: &dyn Scenario) -> (Summary, Rendered) {
    let summary = summarize::summarize(run, scenario);
    let input = ReportInput {
        summary: &summary,
        title: scenario.title(),
        question: scenario.question(),
        discussion: scenario.discussion(&summary),
        headline_metric: scenario.headline_metric(),
        higher_is_better: scenario.higher_is_better(),
        table_metrics: scenario.table_metrics(),
        charts: scenario.charts(),
        series: summarize::first_series(run),
        harness_notes: summarize::harness_notes(run),
    };
    let rendered = reports::render(&input);
    (summary, rendered)
}

/// The index entry of a finished run: its status and headline findings.
pub(crate) fn index_entry(summary: &Summary, scenario: &dyn Scenario) -> reports::index::IndexEntry {
    let failed: Vec<&str> = summary
        .contestants
        .iter()
        .filter(|c| !matches!(c.status, measure::record::Status::Ok | measure::record::Status::Skipped))
        .map(|c| c.name.as_str())
        .collect();
    let status_line = if failed.is_empty() {
        format!("all {} contestants passed their checks", summary.contestants.len())
    } else {
        format!("{} failed: {}", failed.len(), failed.join(", "))
    };
    reports::index::IndexEntry {
        scenario: summary.scenario.clone(),
        title: scenario.title().to_string(),
        report_path: format!("{}.md", summary.scenario),
        status_line,
        headline: headline(summary, scenario),
        claims: summary.claims.clone(),
    }
}

/// The best contestant of each family per phase on the headline metric.
fn headline(summary: &Summary, scenario: &dyn Scenario) -> Vec<String> {
    use measure::summary::Family;
    let metric = scenario.headline_metric();
    let phases: Vec<Option<&str>> =
        if summary.phases.is_empty() { vec![None] } else { summary.phases.iter().map(|p| Some(p.as_str())).collect() };
    let mut lines = Vec::new();
    for phase in phases {
        let key = match phase {
            Some(p) => format!("{p}.{metric}"),
            None => metric.to_string(),
        };
        let mut parts = Vec::new();
        for family in [Family::Baseline, Family::Stream, Family::Blocking] {
            let best = summary
                .contestants
                .iter()
                .filter(|c| c.family == family)
                .filter_map(|c| summary.metric(&c.name, &key).map(|s| (c.name.as_str(), s.median)))
                .min_by(|a, b| {
                    let ord = a.1.total_cmp(&b.1);
                    if scenario.higher_is_better() {
                        ord.reverse()
                    } else {
                        ord
                    }
                });
            if let Some((name, median)) = best {
                parts.push(format!("{} best `{name}` {median:.3}", family.as_str()));
            }
        }
        if !parts.is_empty() {
            let label = phase.map(|p| format!("{p}: ")).unwrap_or_default();
            lines.push(format!("{label}{metric} median: {}", parts.join("; ")));
        }
    }
    lines
}
