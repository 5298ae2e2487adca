//! The http scenario's report: ratios to its lab baseline, where the blocking time goes, and the verdicts, as a
//! typed context ([`crate::figures::Context`]) rendered into the template both network scenarios share
//! (`network/src/templates/report.md`), which holds every word.

use measure::summary::Summary;

/// The contestant every ratio is taken against.
pub const BASELINE: &str = "blocking-std";

/// The metrics of the ratio table, in column order.
pub const METRICS: [&str; 3] = ["cpu_us_per_call", "ops_per_sec", "latency_p99_us"];

/// Markdown discussing `summary`: its figures rendered into the shared template ([`crate::figures::discussion`]).
pub fn discussion(summary: &Summary) -> String {
    crate::figures::discussion("http", summary, BASELINE, &METRICS)
}
