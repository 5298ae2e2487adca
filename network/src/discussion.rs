//! What a network report says beyond its tables, computed from the summary: each contestant's figures as ratios
//! to the scenario's lab baseline. The published figures are in `measure/references.json`; the report's
//! "Published reference" table sets them beside these as ratios within each study. No sentence is printed that
//! the numbers do not back; the verdicts are the claims'.

use std::fmt::Write as _;

use measure::compare::format_ratio;
use measure::summary::Summary;

/// Markdown for `summary`, with ratios of `metrics` to the contestant `baseline`.
pub fn discussion(summary: &Summary, baseline: &str, metrics: &[&str]) -> String {
    let mut out = String::new();
    let median = |c: &str, m: &str| summary.metric(c, m).map(|s| s.median);
    let _ =
        writeln!(out, "Ratios to `{baseline}` in this run (median over median; above 1 means more of the metric):\n");
    let _ = writeln!(out, "| contestant | {} |", metrics.join(" | "));
    let _ = writeln!(out, "|---|{}", "---|".repeat(metrics.len()));
    for c in &summary.contestants {
        let cells: Vec<String> = metrics
            .iter()
            .map(|m| match (median(&c.name, m), median(baseline, m)) {
                (Some(a), Some(b)) if b > 0.0 => format!("{}×", format_ratio(a / b)),
                _ => "n/a".to_string(),
            })
            .collect();
        let _ = writeln!(out, "| `{}` | {} |", c.name, cells.join(" | "));
    }
    if summary.method.forks < 3 {
        let _ = writeln!(
            out,
            "\nThis run had {} process(es) per contestant: the claims are inconclusive below 3, and the figures are \
             a smoke run's.",
            summary.method.forks
        );
    }
    if let Some(rules) = pipelines::coroutine::rules_note(summary) {
        let _ = writeln!(out, "\n{rules}");
    }
    out
}
