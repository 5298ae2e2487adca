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

/// The spawn contestants whose costs per operation the report sets side by side, in this order.
const SPAWNS: [&str; 5] = [
    "stream-tokio-spawn-join",
    "blocking-thread-spawn-join",
    "blocking-rayon-spawn-join",
    "blocking-rayon-spawn-join-inside",
    "coroutine-may-spawn-join",
];

/// Everything the template reads.
#[derive(Debug, Serialize)]
pub struct Context {
    /// One row per operation whose stream contestant and at least one counterpart ran.
    pub rows: Vec<Row>,
    /// Where each spawn's time goes, as this run measured it: one row per spawn contestant that ran.
    pub spawns: Vec<SpawnCost>,
    /// The published spawn figure `may`'s stands beside, with the measured cause of the difference, when
    /// `measure/references.json` has it and `coroutine-may-spawn-join` ran.
    pub published_spawn: Option<PublishedSpawn>,
    /// Every judged claim by id.
    pub claims: BTreeMap<String, ClaimView>,
}

/// One spawn contestant's cost per spawn and join, medians of this run (`—` for a metric it did not record).
#[derive(Debug, Serialize)]
pub struct SpawnCost {
    /// The contestant.
    pub name: &'static str,
    /// Wall time, ns.
    pub ns: String,
    /// CPU time of every thread of the process, ns.
    pub cpu_ns: String,
    /// Context switches of the process.
    pub ctx_switches: String,
    /// Allocations (accounting iterations).
    pub allocs: String,
}

/// A published spawn figure and what stands for it here.
#[derive(Debug, Serialize)]
pub struct PublishedSpawn {
    /// The study's subject.
    pub subject: String,
    /// The figure with its unit.
    pub figure: String,
    /// The contestant standing for it, and its median.
    pub here: String,
    /// The measured cause of the difference, from the references file.
    pub cause: String,
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
        let median = |name: &str, metric: &str, digits: usize| {
            summary.median(name, metric).map_or_else(|| "—".to_string(), |v| format!("{v:.digits$}"))
        };
        let spawns = SPAWNS
            .into_iter()
            .filter(|name| ns(name).is_some())
            .map(|name| SpawnCost {
                name,
                ns: median(name, HEADLINE, 0),
                cpu_ns: median(name, super::CPU, 0),
                ctx_switches: median(name, "ctx_switches_per_item", 3),
                allocs: median(name, "allocs_per_item", 2),
            })
            .collect();
        let published_spawn = measure::references::for_scenario("primitives").into_iter().find_map(|f| {
            let here = f.here.contestant.as_deref()?;
            let value = ns(here)?;
            Some(PublishedSpawn {
                subject: f.subject.clone(),
                figure: format!("{} {}", f.value, f.unit),
                here: format!("`{here}` {value:.0} ns"),
                cause: f.cause.clone(),
            })
        });
        Context { rows, spawns, published_spawn, claims: claims_by_id(&summary.claims) }
    }
}
