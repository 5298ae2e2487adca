//! The chain scenario's claims, as a table the harness judges ([`measure::judge`]): every claim compares
//! `ms_per_million` on the 99.9% intervals of per-process medians. The thresholds are the claims' own, fixed
//! before any measurement; they are never tuned to pass.

use measure::compare::{Basis, Relation};
use measure::judge::{ClaimSpec, Comparison, Phase, Side, Who};
use measure::summary::{Family, Summary};

use super::HEADLINE;

/// The loop every "within n× of the floor" claim compares with.
pub const LOOP: &str = "baseline-loop";

/// Per-item and batched contestant of each channel family.
pub const BATCH_PAIRS: [(&str, &str); 4] = [
    ("blocking-crossbeam", "blocking-crossbeam-batched"),
    ("blocking-flume", "blocking-flume-batched"),
    ("blocking-std", "blocking-std-batched"),
    ("stream-tokio-tasks", "stream-tokio-tasks-batched"),
];

/// What `ms_per_million` measures.
const DEFINITION: &str = "wall time per million input items, over each whole timed iteration";

/// The factor of the single-task stream claim at work 0.
pub const NEAR_LOOP_AT_0: f64 = 2.0;
/// The factor of the single-task stream claim at work 64.
pub const NEAR_LOOP_AT_64: f64 = 1.5;
/// How much cheaper batching must make every channel family.
pub const BATCHING_FACTOR: f64 = 10.0;
/// How much a yielding source must cost over one that never yields.
pub const YIELD_FACTOR: f64 = 1.2;
/// The most the lab may take per item over the same loop as a standalone program outside its trial process: the
/// trial process should cost the loop nothing, within what separate processes of one program spread.
pub const STANDALONE_LIMIT: f64 = 1.1;
/// The id of the guard claim: the lab within [`STANDALONE_LIMIT`] of its standalone program.
pub const STANDALONE_GUARD: &str = "lab-within-standalone";

/// Every claim of the chain scenario, as data.
pub fn table(summary: &Summary) -> Vec<ClaimSpec> {
    let param = |key: &str| summary.params.get(key).and_then(serde_json::Value::as_u64);
    // Items per batched message: capacity / messages, at most `batch` (runs before `messages` sent whole batches).
    let batch = match (param("capacity"), param("messages"), param("batch")) {
        (Some(capacity), Some(messages), Some(batch)) => {
            (capacity / messages.max(1)).clamp(1, batch.max(1)).to_string()
        }
        (_, None, Some(batch)) => batch.to_string(),
        _ => "a batch of".to_string(),
    };
    vec![
        fastest_stream_near_loop(0, NEAR_LOOP_AT_0).with_id("fastest-stream-near-loop-at-work-0"),
        ClaimSpec::new(
            format!(
                "At work 0, in every channel family (crossbeam, flume, std, tokio tasks), sending {batch} items per \
                 message makes the pipeline at least {BATCHING_FACTOR}× faster than one item per message."
            ),
            HEADLINE,
            DEFINITION,
            (Relation::AtLeast, BATCHING_FACTOR),
            Basis::ProcessMedians,
            BATCH_PAIRS
                .iter()
                .map(|(single, batched)| Comparison {
                    a: Side::contestant(*single, work(0)),
                    b: Side::contestant(*batched, work(0)),
                })
                .collect(),
        )
        .with_id("batching-tenfold-in-every-family"),
        fastest_stream_near_loop(64, NEAR_LOOP_AT_64).with_id("fastest-stream-near-loop-at-work-64"),
        ClaimSpec::new(
            format!(
                "At work 0, tokio-stream's yielding `iter` source costs at least {YIELD_FACTOR}× a source that never \
                 yields (same adapters, same current-thread runtime)."
            ),
            HEADLINE,
            DEFINITION,
            (Relation::AtLeast, YIELD_FACTOR),
            Basis::ProcessMedians,
            vec![Comparison {
                a: Side::contestant("stream-tokio-iter", work(0)),
                b: Side::contestant("stream-tokio-stream-adapters", work(0)),
            }],
        )
        .with_id("yielding-source-costs-more"),
        ClaimSpec::new(
            format!(
                "The lab's trial process costs the loop nothing: at work 0, `{LOOP}` takes at most {STANDALONE_LIMIT}× \
                 the time per item of the same loop as a standalone program outside the lab."
            ),
            HEADLINE,
            DEFINITION,
            (Relation::AtMost, STANDALONE_LIMIT),
            Basis::ProcessMedians,
            super::contestants::standalone_pairs()
                .into_iter()
                .map(|(lab, standalone)| Comparison {
                    a: Side::contestant(lab, work(0)),
                    b: Side::contestant(standalone, work(0)),
                })
                .collect(),
        )
        .with_id(STANDALONE_GUARD)
        .guarding(),
    ]
}

/// The phase `work_<work>`.
fn work(work: u64) -> Phase {
    Phase::Named(format!("work_{work}"))
}

/// Every stream contestant of the registry.
fn streams() -> Vec<String> {
    super::contestants::contestants()
        .iter()
        .map(|c| c.info())
        .filter(|i| i.family == Family::Stream)
        .map(|i| i.name)
        .collect()
}

fn fastest_stream_near_loop(work_rounds: u64, factor: f64) -> ClaimSpec {
    ClaimSpec::new(
        format!(
            "At work {work_rounds}, the fastest stream contestant takes at most {factor}× the plain loop's time per \
             million items{}.",
            if work_rounds > 0 { " (work narrows the gap)" } else { "" }
        ),
        HEADLINE,
        DEFINITION,
        (Relation::AtMost, factor),
        Basis::ProcessMedians,
        vec![Comparison {
            a: Side { who: Who::Lowest(streams()), phase: work(work_rounds) },
            b: Side::contestant(LOOP, work(work_rounds)),
        }],
    )
}
