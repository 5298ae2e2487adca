//! The tcp scenario's report: ratios to its lab baseline, where the blocking time goes, and the verdicts, as a
//! typed context ([`crate::figures::Context`]) rendered into the discussion both network scenarios
//! share (`network/src/templates/figures.md`), which this scenario's `templates/report.md` places.

use measure::summary::Summary;

/// The scenario's report template: where the shared discussion goes.
const TEMPLATE: &str = include_str!("templates/report.md");

/// The contestant every ratio is taken against.
pub const BASELINE: &str = "stream-tokio-tasks";

/// The metrics of the ratio table, in column order.
pub const METRICS: [&str; 3] = ["batches_per_sec", "cpu_us_per_call", "probe_delay_p99_us"];

/// Markdown discussing `summary`: its figures rendered into the shared discussion, placed by
/// `templates/report.md` ([`crate::figures::discussion`]).
pub fn discussion(summary: &Summary) -> String {
    crate::figures::discussion("tcp", TEMPLATE, summary, BASELINE, &METRICS)
}
