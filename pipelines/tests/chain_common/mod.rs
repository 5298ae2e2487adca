//! A chain summary built from chosen medians, for the claim and report tests.
#![allow(dead_code)]

use std::collections::BTreeMap;

use measure::record::Status;
use measure::summary::{ContestantSummary, Environment, Method, MetricStats, Summary};

/// The contestant every "within n× of the floor" claim compares with.
pub(crate) const LOOP: &str = pipelines::chain::claims::LOOP;

/// Three processes a thousandth apart around `median`.
fn stats_of(median: f64) -> MetricStats {
    let d = median * 0.001;
    measure::stats::summarize(&[vec![median - d], vec![median], vec![median + d]]).expect("samples")
}

/// A summary where every registered contestant ran with the given `(work, ms_per_million)` medians (absent
/// contestants get 100 ms/M), with a few other metrics for the discussion.
pub(crate) fn summary_with(medians: &[(&str, u64, f64)]) -> Summary {
    let contestants = pipelines::chain::contestants()
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
                expected_failure: None,
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
        schema_version: measure::summary::SCHEMA_VERSION,
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
        questions: Vec::new(),
        command: String::new(),
        raw_file: String::new(),
        phases: vec!["work_0".into(), "work_64".into()],
    }
}

/// `summary` with its claims judged, as the harness judges them before the report is rendered.
pub(crate) fn judged(mut summary: Summary) -> Summary {
    summary.claims = measure::judge::judge_all(&summary, &pipelines::chain::claims::table(&summary));
    summary
}
