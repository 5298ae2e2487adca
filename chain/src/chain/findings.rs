//! The sentences the chain report states as findings, as rows the harness judges ([`measure::judge`]) into the
//! summary's findings; the report prints each sentence only where its verdicts hold ([`super::report`]). All are
//! at the first work of the sweep.
//!
//! - The yielding source is within the testbed's smallest detectable ratio of the never-yielding one (two rows:
//!   not above it, not below it), said when the yielding claim neither holds nor fails.
//! - A contestant that runs on several threads or tasks kept more than one core busy and yet took longer than the
//!   loop, both beyond noise ([`spinning_ids`]).
//! - A channel pipeline ran more threads than the machine has cores ([`crowded_id`]).

use measure::compare::{Basis, Relation};
use measure::judge::{beyond_noise, Beyond, ClaimSpec, Comparison, Phase, Side};
use measure::summary::Summary;

use super::claims::{BATCH_PAIRS, LOOP};
use super::HEADLINE;

/// The yielding source, `stream-tokio-iter`.
const YIELDING: &str = "stream-tokio-iter";
/// The never-yielding source with the same adapters, `stream-tokio-stream-adapters`.
const NEVER_YIELDING: &str = "stream-tokio-stream-adapters";
/// The id of the finding that the yielding source is not above the never-yielding one beyond noise.
const YIELDING_NOT_ABOVE: &str = "yielding-not-above-never-yielding";
/// The id of the finding that the yielding source is not below the never-yielding one beyond noise.
const YIELDING_NOT_BELOW: &str = "yielding-not-below-never-yielding";

/// The contestants that run on several threads or tasks, and so can keep more than one core busy (the loop, the
/// iterator and the single-task streams run on one thread).
const SPINNING: [&str; 15] = [
    "blocking-rayon",
    "blocking-crossbeam",
    "blocking-crossbeam-batched",
    "blocking-crossbeam-fused",
    "blocking-crossbeam-fused-batched",
    "blocking-flume",
    "blocking-flume-batched",
    "blocking-std",
    "blocking-std-batched",
    "stream-tokio-tasks",
    "stream-tokio-tasks-batched",
    "stream-tokio-tasks-fused",
    "stream-tokio-tasks-fused-batched",
    "coroutine-may",
    "coroutine-may-batched",
];

/// What `cores_used` measures.
const CORES_DEFINITION: &str = "the trial process's CPU time over wall time, over each whole timed iteration";
/// What `ms_per_million` measures.
const HEADLINE_DEFINITION: &str = "wall time per million input items, over each whole timed iteration";
/// What `threads` measures.
const THREADS_DEFINITION: &str = "threads of the trial process, sampled over each timed iteration";

/// The ids of `name`'s two spinning findings (more than one core busy, `spinning-<name>-cores`; slower than the
/// loop, `spinning-<name>-slower`), when it runs on several threads or tasks.
pub fn spinning_ids(name: &str) -> Option<(String, String)> {
    SPINNING.contains(&name).then(|| (format!("spinning-{name}-cores"), format!("spinning-{name}-slower")))
}

/// The channel pipelines, per item and batched ([`BATCH_PAIRS`]).
fn pipelines() -> impl Iterator<Item = &'static str> {
    BATCH_PAIRS.iter().flat_map(|(single, batched)| [*single, *batched])
}

/// The id of `name`'s finding that its threads outnumber the machine's cores (`threads-outnumber-cores-<name>`),
/// when it is a channel pipeline.
pub fn crowded_id(name: &str) -> Option<String> {
    pipelines().any(|p| p == name).then(|| format!("threads-outnumber-cores-{name}"))
}

/// Every finding of the chain report, for the contestants of `summary` they name.
pub fn table(summary: &Summary) -> Vec<ClaimSpec> {
    let ran = |name: &str| summary.contestant(name).is_some();
    let method = &summary.method;
    let mut rows = Vec::new();
    if ran(YIELDING) && ran(NEVER_YIELDING) {
        let pair = || vec![Comparison::contestants(YIELDING, NEVER_YIELDING, Phase::First)];
        let within = |beyond, relation, id| {
            let (_, factor) = beyond_noise(method, HEADLINE, beyond);
            ClaimSpec::new(
                format!(
                    "At the first work, `{YIELDING}` takes {} {factor:.2}× the time of `{NEVER_YIELDING}`: not \
                     {} it by the testbed's smallest detectable ratio.",
                    if relation == Relation::AtMost { "at most" } else { "at least" },
                    if relation == Relation::AtMost { "above" } else { "below" },
                ),
                HEADLINE,
                HEADLINE_DEFINITION,
                (relation, factor),
                Basis::ProcessMedians,
                pair(),
            )
            .with_id(id)
        };
        rows.push(within(Beyond::Above, Relation::AtMost, YIELDING_NOT_ABOVE));
        rows.push(within(Beyond::Below, Relation::AtLeast, YIELDING_NOT_BELOW));
    }
    let cores_beyond_one = beyond_noise(method, "cores_used", Beyond::Above);
    let slower = beyond_noise(method, HEADLINE, Beyond::Above);
    for name in SPINNING.into_iter().filter(|name| ran(name)) {
        let (cores_id, slower_id) = spinning_ids(name).unwrap_or_default();
        rows.push(
            ClaimSpec::new(
                format!("At the first work, `{name}` keeps more than one core busy, beyond noise."),
                "cores_used",
                CORES_DEFINITION,
                cores_beyond_one,
                Basis::ProcessMedians,
                vec![Comparison { a: Side::contestant(name, Phase::First), b: Side::value(1.0, "one core") }],
            )
            .with_id(cores_id),
        );
        rows.push(
            ClaimSpec::new(
                format!("At the first work, `{name}` takes longer than `{LOOP}`, beyond noise."),
                HEADLINE,
                HEADLINE_DEFINITION,
                slower,
                Basis::ProcessMedians,
                vec![Comparison::contestants(name, LOOP, Phase::First)],
            )
            .with_id(slower_id),
        );
    }
    let cores = f64::from(summary.environment.cores);
    for name in pipelines().filter(|name| ran(name)) {
        let id = crowded_id(name).unwrap_or_default();
        rows.push(
            ClaimSpec::new(
                format!("At the first work, `{name}` runs more threads than the machine's {cores} cores."),
                "threads",
                THREADS_DEFINITION,
                (Relation::AtLeast, 1.0),
                Basis::ProcessMedians,
                vec![Comparison {
                    a: Side::contestant(name, Phase::First),
                    b: Side::value(cores + 1.0, format!("the machine's {cores} cores, plus one")),
                }],
            )
            .with_id(id),
        );
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_contestant_on_several_threads_has_its_spinning_rows_and_every_pipeline_its_crowded_row() {
        use crate::chain::contestants::contestants;
        let names: Vec<String> = contestants().iter().map(|c| c.info().name).collect();
        for name in SPINNING {
            assert!(names.iter().any(|n| n == name), "{name} is not a chain contestant");
        }
        for (single, batched) in super::super::claims::BATCH_PAIRS {
            assert!(crowded_id(single).is_some() && crowded_id(batched).is_some(), "{single}, {batched}");
        }
        for name in names.iter().filter(|n| n.starts_with("blocking-") || n.contains("-tasks") || n.contains("may")) {
            assert!(spinning_ids(name).is_some(), "{name} runs on several threads but has no spinning rows");
        }
    }
}
