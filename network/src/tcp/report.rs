//! The tcp scenario's report: ratios to its lab baseline, where the blocking time goes, and the verdicts, as a
//! typed context ([`crate::figures::Context`]) rendered into the template both network scenarios share
//! (`network/src/templates/report.md`), which holds every word.

use measure::summary::Summary;

/// The contestant every ratio is taken against.
pub const BASELINE: &str = "stream-tokio-tasks";

/// The metrics of the ratio table, in column order.
pub const METRICS: [&str; 3] = ["batches_per_sec", "cpu_us_per_call", "probe_delay_p99_us"];

/// Markdown discussing `summary`: its figures rendered into the shared template ([`crate::figures::discussion`]).
pub fn discussion(summary: &Summary) -> String {
    crate::figures::discussion("tcp", summary, BASELINE, &METRICS)
}
