//! The primitives scenario's report: each stream primitive beside its blocking and coroutine counterparts, as
//! medians and ratios formatted here, and the verdicts, rendered into `templates/report.md`, which holds every
//! word (the operations' names included).

use std::collections::BTreeMap;

use measure::summary::Summary;
use measure::template::{claims_by_id, ClaimView};
use serde::Serialize;

use super::HEADLINE;

/// The report's template: every word of the discussion.
const TEMPLATE: &str = include_str!("templates/report.md");

/// The side-by-side rows: the operation's key in the template, then its stream, blocking and coroutine
/// contestants.
const ROWS: [(&str, &str, &str, &str); 5] = [
    ("spawn-join", "stream-tokio-spawn-join", "blocking-thread-spawn-join", "coroutine-may-spawn-join"),
    ("spawn-join-pool-outside", "stream-tokio-spawn-join", "blocking-rayon-spawn-join", "coroutine-may-spawn-join"),
    (
        "spawn-join-pool-worker",
        "stream-tokio-spawn-join",
        "blocking-rayon-spawn-join-inside",
        "coroutine-may-spawn-join",
    ),
    ("permit-or-lock", "stream-tokio-semaphore", "blocking-std-mutex", "coroutine-may-semaphore"),
    ("oneshot", "stream-tokio-oneshot", "blocking-std-channel", "coroutine-may-oneshot"),
];

/// Markdown discussing `summary`: [`Context`] rendered into `templates/report.md`.
pub fn discussion(summary: &Summary) -> String {
    measure::template::render_or_note("primitives/report.md", TEMPLATE, Context::of(summary))
}

/// Everything the template reads.
#[derive(Debug, Serialize)]
pub struct Context {
    /// One row per operation whose stream contestant and at least one counterpart ran.
    pub rows: Vec<Row>,
    /// Every judged claim by id.
    pub claims: BTreeMap<String, ClaimView>,
}

/// One operation in the three styles: medians in ns per operation, ratios to the stream's.
#[derive(Debug, Serialize)]
pub struct Row {
    /// The operation's key, named in the template.
    pub operation: &'static str,
    /// The stream contestant.
    pub stream: &'static str,
    /// Its median.
    pub stream_ns: String,
    /// The blocking contestant.
    pub blocking: &'static str,
    /// Its median (`—` when it did not run).
    pub blocking_ns: String,
    /// Blocking ÷ stream.
    pub blocking_ratio: String,
    /// The coroutine contestant.
    pub coroutine: &'static str,
    /// Its median (`—` when it did not run).
    pub coroutine_ns: String,
    /// Coroutine ÷ stream.
    pub coroutine_ratio: String,
}

impl Context {
    /// The side-by-side rows and verdicts of `summary`.
    pub fn of(summary: &Summary) -> Context {
        let ns = |name: &str| summary.median(name, HEADLINE);
        let rows = ROWS
            .iter()
            .filter_map(|&(operation, stream, blocking, coroutine)| {
                let s = ns(stream)?;
                let cell = |name: &str| match ns(name) {
                    Some(v) => {
                        let ratio = if s > 0.0 { format!("{:.2}×", v / s) } else { "—".to_string() };
                        (format!("{v:.0}"), ratio)
                    }
                    None => ("—".to_string(), "—".to_string()),
                };
                let ((blocking_ns, blocking_ratio), (coroutine_ns, coroutine_ratio)) =
                    (cell(blocking), cell(coroutine));
                if blocking_ns == "—" && coroutine_ns == "—" {
                    return None;
                }
                Some(Row {
                    operation,
                    stream,
                    stream_ns: format!("{s:.0}"),
                    blocking,
                    blocking_ns,
                    blocking_ratio,
                    coroutine,
                    coroutine_ns,
                    coroutine_ratio,
                })
            })
            .collect();
        Context { rows, claims: claims_by_id(&summary.claims) }
    }
}
