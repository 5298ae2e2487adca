//! The http scenario's report: ratios to its lab baseline, where the blocking time goes, and the verdicts, as a
//! typed context ([`crate::figures::Context`]) rendered into `templates/report.md`, which holds every word.

use measure::summary::Summary;

use crate::figures::Context;

/// The report's template: every word of the discussion.
const TEMPLATE: &str = include_str!("templates/report.md");

/// The contestant every ratio is taken against.
pub const BASELINE: &str = "blocking-std";

/// The metrics of the ratio table, in column order.
pub const METRICS: [&str; 3] = ["cpu_us_per_call", "ops_per_sec", "latency_p99_us"];

/// Markdown discussing `summary`: its figures rendered into `templates/report.md`.
pub fn discussion(summary: &Summary) -> String {
    measure::template::render_or_note("http/report.md", TEMPLATE, Context::of(summary, BASELINE, &METRICS))
}
