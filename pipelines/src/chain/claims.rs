//! The chain scenario's falsifiable claims, judged on the 99.9% confidence bounds of `ms_per_million` ratios
//! with [`measure::compare::verdict_at_most`] and [`measure::compare::verdict_at_least`]. A claim whose
//! contestant or phase did not run (or failed) is inconclusive and says so. The thresholds are the claims'
//! own, fixed before any measurement; they are never tuned to pass.

use measure::compare::{verdict_at_least, verdict_at_most};
use measure::summary::{ClaimResult, Family, MetricStats, Summary, Verdict};

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

/// Every claim, judged against `summary`.
pub fn claims(summary: &Summary) -> Vec<ClaimResult> {
    vec![
        fastest_stream_near_loop(summary, 0, 2.0),
        batching_pays(summary),
        fastest_stream_near_loop(summary, 64, 1.5),
        yielding_costs(summary),
    ]
}

/// The headline metric's key in phase `work_<work>`, if that phase ran.
pub(crate) fn key(summary: &Summary, work: u64) -> Option<String> {
    let phase = format!("work_{work}");
    summary.phases.contains(&phase).then(|| format!("{phase}.{HEADLINE}"))
}

/// The headline statistics of `contestant` at `work`, or why there are none.
pub(crate) fn stats<'a>(summary: &'a Summary, contestant: &str, work: u64) -> Result<&'a MetricStats, String> {
    let key = key(summary, work).ok_or_else(|| format!("phase work_{work} did not run"))?;
    summary.stats(contestant, &key)
}

/// The stream contestant with the lowest median headline at `work`.
pub(crate) fn fastest_stream(summary: &Summary, work: u64) -> Option<(&str, &MetricStats)> {
    summary
        .contestants
        .iter()
        .filter(|c| c.family == Family::Stream)
        .filter_map(|c| stats(summary, &c.name, work).ok().map(|s| (c.name.as_str(), s)))
        .min_by(|a, b| a.1.median.total_cmp(&b.1.median))
}

fn fastest_stream_near_loop(summary: &Summary, work: u64, factor: f64) -> ClaimResult {
    let text = format!(
        "At work {work}, the fastest stream contestant takes at most {factor}× the plain loop's time per million items{}.",
        if work > 0 { " (work narrows the gap)" } else { "" }
    );
    let floor = match stats(summary, LOOP, work) {
        Ok(s) => s,
        Err(why) => return ClaimResult::new(text, Verdict::Inconclusive, why),
    };
    match fastest_stream(summary, work) {
        None => ClaimResult::new(text, Verdict::Inconclusive, format!("no stream contestant ran at work {work}")),
        Some((name, fastest)) => {
            let (verdict, detail) = verdict_at_most(fastest, floor, factor);
            ClaimResult::new(
                text,
                verdict,
                format!(
                    "{name} (fastest stream by median, {:.3} ms/M) vs {LOOP} ({:.3} ms/M): {detail}",
                    fastest.median, floor.median
                ),
            )
        }
    }
}

fn batching_pays(summary: &Summary) -> ClaimResult {
    let batch = summary.params.get("batch").map_or_else(|| "a batch of".to_string(), |v| v.to_string());
    let text = format!(
        "At work 0, in every channel family (crossbeam, flume, std, tokio tasks), sending {batch} items per message \
         makes the pipeline at least 10× faster than one item per message."
    );
    ClaimResult::all_of(
        text,
        BATCH_PAIRS.iter().map(|(single, batched)| match (stats(summary, single, 0), stats(summary, batched, 0)) {
            (Ok(a), Ok(b)) => {
                let (v, d) = verdict_at_least(a, b, 10.0);
                (v, format!("{single} {:.3} vs {batched} {:.3} ms/M: {d}", a.median, b.median))
            }
            (Err(why), _) | (_, Err(why)) => (Verdict::Inconclusive, why),
        }),
    )
}

fn yielding_costs(summary: &Summary) -> ClaimResult {
    let text = "At work 0, tokio-stream's yielding `iter` source costs at least 1.2× a source that never yields \
                (same adapters, same current-thread runtime).";
    match (stats(summary, "stream-tokio-iter", 0), stats(summary, "stream-tokio-stream-adapters", 0)) {
        (Ok(a), Ok(b)) => {
            let (verdict, detail) = verdict_at_least(a, b, 1.2);
            ClaimResult::new(
                text,
                verdict,
                format!(
                    "stream-tokio-iter {:.3} vs stream-tokio-stream-adapters {:.3} ms/M: {detail}",
                    a.median, b.median
                ),
            )
        }
        (Err(why), _) | (_, Err(why)) => ClaimResult::new(text, Verdict::Inconclusive, why),
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use std::collections::BTreeMap;

    use measure::record::Status;
    use measure::summary::{ContestantSummary, Environment, Method};

    use super::*;
    use crate::chain::contestants;

    fn stats_of(median: f64) -> MetricStats {
        let ci = median * 0.01;
        MetricStats { median, min: median - ci, max: median + ci, ci999: ci, n: 30, mean: median, fork_medians: vec![] }
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
                    description: info.description,
                    status: Status::Ok,
                    reason: None,
                    checks: vec![],
                    metrics,
                    skipped_phases: Default::default(),
                }
            })
            .collect();
        Summary {
            scenario: "chain".into(),
            lab_version: "test".into(),
            git_rev: "unknown".into(),
            git_dirty: false,
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

    #[test]
    fn the_fastest_stream_is_judged_against_the_loop() {
        let summary = summary_with(&[
            (LOOP, 0, 1.0),
            ("stream-futures-adapters", 0, 1.5),
            ("stream-tokio-stream-adapters", 0, 1.8),
        ]);
        let claim = fastest_stream_near_loop(&summary, 0, 2.0);
        assert_eq!(claim.verdict, Verdict::Holds, "{}", claim.detail);
        assert!(claim.detail.contains("stream-futures-adapters"), "{}", claim.detail);
        let slow = summary_with(&[(LOOP, 0, 1.0), ("stream-futures-adapters", 0, 5.0)]);
        assert_eq!(fastest_stream_near_loop(&slow, 0, 2.0).verdict, Verdict::Fails);
    }

    #[test]
    fn batching_takes_the_worst_pair() {
        let mut medians: Vec<(&str, u64, f64)> = BATCH_PAIRS.iter().map(|(_, b)| (*b, 0, 5.0)).collect();
        let summary = summary_with(&medians);
        assert_eq!(batching_pays(&summary).verdict, Verdict::Holds);
        medians[0] = ("blocking-crossbeam-batched", 0, 50.0);
        let claim = batching_pays(&summary_with(&medians));
        assert_eq!(claim.verdict, Verdict::Fails, "{}", claim.detail);
    }

    #[test]
    fn a_missing_contestant_makes_a_claim_inconclusive() {
        let mut summary = summary_with(&[]);
        summary.contestants.retain(|c| c.name != "stream-tokio-stream-adapters");
        let claim = yielding_costs(&summary);
        assert_eq!(claim.verdict, Verdict::Inconclusive);
        assert!(claim.detail.contains("did not run"), "{}", claim.detail);
        assert_eq!(claims(&summary).len(), 4);
    }
}
