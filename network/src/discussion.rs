//! What a network report says beyond its tables, computed from the summary: each contestant's figures as ratios
//! to the scenario's lab baseline, and the published figures beside them as ratios within each study. No
//! sentence is printed that the numbers do not back; the verdicts are the claims'.

use std::fmt::Write as _;

use measure::compare::format_ratio;
use measure::summary::Summary;

use crate::references;

/// Markdown for `summary` of `scenario`, with ratios of `metrics` to the contestant `baseline`.
pub fn discussion(summary: &Summary, scenario: &str, baseline: &str, metrics: &[&str]) -> String {
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
    match references::for_scenario(scenario) {
        Ok(figures) if !figures.is_empty() => {
            let rows = references::ratios(&figures, median);
            let _ = writeln!(
                out,
                "\nPublished figures, each as a ratio to its own study's baseline, beside the lab contestant of the \
                 same role as a ratio to this run's baseline (from `network/references.toml`; absolute figures from \
                 other machines are not compared):\n"
            );
            out.push_str(&references::table(&rows));
        }
        Ok(_) => {}
        Err(err) => {
            let _ = writeln!(out, "\nThe published figures could not be read: {err}");
        }
    }
    if summary.method.forks < 3 {
        let _ = writeln!(
            out,
            "\nThis run had {} process(es) per contestant: the claims are inconclusive below 3, and the figures are \
             a smoke run's.",
            summary.method.forks
        );
    }
    out
}
