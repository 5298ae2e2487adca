//! The chain scenario's claims, as a table the harness judges ([`measure::judge`]): every claim compares
//! `ms_per_million` on the 99.9% intervals of per-process medians. The thresholds are the claims' own, fixed
//! before any measurement; they are never tuned to pass.

use measure::compare::{Basis, Relation};
use measure::judge::{ClaimSpec, Comparison, Phase, Side, Who};
use measure::summary::{Family, MetricStats, Summary};

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
        fastest_stream_near_loop(0, NEAR_LOOP_AT_0),
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
        ),
        fastest_stream_near_loop(64, NEAR_LOOP_AT_64),
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
        ),
    ]
}

/// The phase `work_<work>`.
fn work(work: u64) -> Phase {
    Phase::Named(format!("work_{work}"))
}

/// Every stream contestant of the registry.
fn streams() -> Vec<String> {
    super::contestants().iter().map(|c| c.info()).filter(|i| i.family == Family::Stream).map(|i| i.name).collect()
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

/// The headline statistics of `contestant` at `work`, if it ran cleanly there.
pub(crate) fn stats<'a>(summary: &'a Summary, contestant: &str, work: u64) -> Option<&'a MetricStats> {
    summary.metric(contestant, &format!("work_{work}.{HEADLINE}"))
}

/// The stream contestant with the lowest median headline at `work`.
pub(crate) fn fastest_stream(summary: &Summary, work: u64) -> Option<(&str, &MetricStats)> {
    summary
        .contestants
        .iter()
        .filter(|c| c.family == Family::Stream)
        .filter_map(|c| stats(summary, &c.name, work).map(|s| (c.name.as_str(), s)))
        .min_by(|a, b| a.1.median.total_cmp(&b.1.median))
}

#[cfg(test)]
pub(crate) mod tests {
    use std::collections::BTreeMap;

    use measure::record::Status;
    use measure::summary::{ContestantSummary, Environment, Method, Verdict};

    use super::*;
    use crate::chain::contestants;

    /// Three processes a thousandth apart around `median`.
    fn stats_of(median: f64) -> MetricStats {
        let d = median * 0.001;
        measure::stats::summarize(&[vec![median - d], vec![median], vec![median + d]]).expect("samples")
    }

    /// A summary where every registered contestant ran with the given `(work, ms_per_million)` medians (absent
    /// contestants get 100 ms/M), with a few other metrics for the discussion.
    pub(crate) fn summary_with(medians: &[(&str, u64, f64)]) -> Summary {
        let contestants = contestants::contestants()
            .iter()
            .map(|c| {
                let info = c.info();
                let mut metrics = BTreeMap::new();
                for work in [0, 64] {
                    let median =
                        medians.iter().find(|(n, w, _)| *n == info.name && *w == work).map_or(100.0, |(_, _, m)| *m);
                    metrics.insert(format!("work_{work}.ms_per_million"), stats_of(median));
                    metrics.insert(format!("work_{work}.cpu_ns_per_item"), stats_of(median * 1.5));
                    metrics.insert(format!("work_{work}.cores_used"), stats_of(1.25));
                    metrics.insert(format!("work_{work}.ctx_switches_per_item"), stats_of(0.125));
                }
                ContestantSummary {
                    name: info.name,
                    family: info.family,
                    role: Default::default(),
                    description: info.description,
                    status: Status::Ok,
                    reason: None,
                    checks: vec![],
                    metrics,
                    skipped_phases: Default::default(),
                    disturbed: Default::default(),
                }
            })
            .collect();
        Summary {
            scenario: "chain".into(),
            lab_version: "test".into(),
            git_rev: "unknown".into(),
            git_dirty: false,
            render_git_rev: "unknown".into(),
            render_git_dirty: false,
            started_utc: String::new(),
            finished_utc: String::new(),
            environment: Environment { cores: 2, ..Environment::default() },
            method: Method {
                quick: true,
                forks: 1,
                warmup: 1,
                iterations: 30,
                accounting: 1,
                noise_threshold: 0.2,
                seed: 0,
                trial_timeout_s: 60.0,
            },
            params: BTreeMap::from([
                ("items".to_string(), serde_json::Value::from(1_000_000)),
                ("batch".to_string(), serde_json::Value::from(256)),
                ("capacity".to_string(), serde_json::Value::from(1024)),
                ("work".to_string(), serde_json::Value::from(vec![0, 64])),
            ]),
            contestants,
            claims: vec![],
            command: String::new(),
            raw_file: String::new(),
            phases: vec!["work_0".into(), "work_64".into()],
        }
    }

    fn judged(summary: &Summary, index: usize) -> measure::summary::ClaimResult {
        measure::judge::judge(summary, &table(summary)[index])
    }

    #[test]
    fn the_fastest_stream_is_judged_against_the_loop() {
        let summary = summary_with(&[
            (LOOP, 0, 1.0),
            ("stream-futures-adapters", 0, 1.5),
            ("stream-tokio-stream-adapters", 0, 1.8),
        ]);
        let claim = judged(&summary, 0);
        assert_eq!(claim.verdict, Verdict::Holds, "{}", claim.detail);
        assert!(claim.detail.contains("stream-futures-adapters"), "{}", claim.detail);
        let slow = summary_with(&[(LOOP, 0, 1.0), ("stream-futures-adapters", 0, 5.0)]);
        assert_eq!(judged(&slow, 0).verdict, Verdict::Fails);
    }

    #[test]
    fn batching_takes_the_worst_pair() {
        let mut medians: Vec<(&str, u64, f64)> = BATCH_PAIRS.iter().map(|(_, b)| (*b, 0, 5.0)).collect();
        let summary = summary_with(&medians);
        assert_eq!(judged(&summary, 1).verdict, Verdict::Holds);
        medians[0] = ("blocking-crossbeam-batched", 0, 50.0);
        let claim = judged(&summary_with(&medians), 1);
        assert_eq!(claim.verdict, Verdict::Fails, "{}", claim.detail);
    }

    #[test]
    fn a_missing_contestant_makes_a_claim_inconclusive() {
        let mut summary = summary_with(&[]);
        summary.contestants.retain(|c| c.name != "stream-tokio-stream-adapters");
        let claim = judged(&summary, 3);
        assert_eq!(claim.verdict, Verdict::Inconclusive);
        assert!(claim.detail.contains("did not run"), "{}", claim.detail);
        assert_eq!(table(&summary).len(), 4);
    }

    #[test]
    fn a_broken_contestant_cannot_make_the_fastest_stream_claim_hold() {
        let mut summary = summary_with(&[(LOOP, 0, 1.0), ("stream-futures-adapters", 0, 1.5)]);
        for c in summary.contestants.iter_mut().filter(|c| c.family == Family::Stream) {
            c.status = Status::Failed;
            c.checks.push(measure::summary::Check::new("checksum", false, "sum 41 instead of 42"));
        }
        let claim = judged(&summary, 0);
        assert_eq!(claim.verdict, Verdict::Inconclusive, "{}", claim.detail);
    }
}
