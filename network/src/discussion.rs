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
    where_blocking_time_goes(summary, &mut out);
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

/// The "where the blocking time goes" table: context switches per call or exchange, the measured cost of one
/// wake-up on this machine (client core, and from the server's core), and their product beside the client CPU per
/// call, so a reader can tell the machine's wake-up cost from a model that wakes threads often. Nothing when no
/// contestant has the figures.
fn where_blocking_time_goes(summary: &Summary, out: &mut String) {
    let median = |c: &str, m: &str| summary.metric(c, m).map(|s| s.median);
    let cell = |v: Option<f64>| v.map_or_else(|| "n/a".to_string(), |v| format!("{v:.2}"));
    let rows: Vec<String> = summary
        .contestants
        .iter()
        .filter_map(|c| {
            let switches = median(&c.name, "ctx_switches_per_item")?;
            let wake = median(&c.name, "wakeup_p50_us");
            let cross = median(&c.name, "wakeup_cross_core_p50_us");
            let cpu = median(&c.name, "cpu_us_per_call");
            Some(format!(
                "| `{}` | {} | {} | {} | {} | {} |",
                c.name,
                cell(Some(switches)),
                cell(wake),
                cell(cross),
                cell(wake.map(|w| w * switches)),
                cell(cpu)
            ))
        })
        .collect();
    if rows.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "\nWhere the blocking time goes: context switches of the client process per call (or exchange), the \
         measured cost of one wake-up in each trial process before timing (a park/unpark ping-pong with both \
         threads on the client's core, and with the partner on the server's core), and switches × the same-core \
         wake-up as a rough share of the client CPU per call (medians over processes):\n"
    );
    let _ = writeln!(
        out,
        "| contestant | switches per call | wake-up µs (client core) | wake-up µs (from server core) | switches × \
         wake-up µs | client CPU µs per call |"
    );
    let _ = writeln!(out, "|---|---|---|---|---|---|");
    for row in rows {
        let _ = writeln!(out, "{row}");
    }
}
