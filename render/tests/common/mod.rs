//! A hand-built run shared by the integration tests: two phases, a baseline, a stream contestant and a
//! blocking contestant that failed a check, two claims, three charts.
#![allow(dead_code, unreachable_pub)]

use std::collections::BTreeMap;

use measure::record::{Series, Status};
use measure::scenario::{ChartKind, ChartSpec, SeriesLine, SeriesRole};
use measure::summary::{
    Check, ClaimResult, ContestantSummary, Disturbed, Environment, Family, Method, MetricStats, Role, Summary, Verdict,
};
use render::ReportInput;

/// Statistics from explicit numbers.
pub fn stats(median: f64, min: f64, max: f64, ci999: f64, fork_medians: &[f64]) -> MetricStats {
    MetricStats {
        median,
        min,
        max,
        ci999,
        ci95_low: None,
        ci95_high: None,
        samples: Vec::new(),
        n: 15,
        mean: median,
        fork_medians: fork_medians.to_vec(),
        processes: fork_medians.len(),
        outliers: Default::default(),
    }
}

/// The run every integration test renders.
pub fn summary() -> Summary {
    let mut crates = BTreeMap::new();
    crates.insert("tokio".to_string(), "1.48.0".to_string());
    crates.insert("crossbeam-channel".to_string(), "0.5.15".to_string());
    let mut params = BTreeMap::new();
    params.insert("items".to_string(), serde_json::json!(1_000_000));
    params.insert("work".to_string(), serde_json::json!([0, 64]));
    let metrics = |entries: &[(&str, MetricStats)]| -> BTreeMap<String, MetricStats> {
        entries.iter().map(|(k, v)| (k.to_string(), v.clone())).collect()
    };
    Summary {
        lab_version: "0.1.0".to_string(),
        git_rev: "abc1234".to_string(),
        git_dirty: true,
        started_utc: "2026-11-30T10:00:00Z".to_string(),
        finished_utc: "2026-11-30T10:02:10Z".to_string(),
        environment: Environment {
            cpu_model: "Example CPU @ 3.0GHz".to_string(),
            cores: 2,
            memory_gib: 24,
            os: "Debian GNU/Linux 12".to_string(),
            kernel: "6.1.0".to_string(),
            rustc: "rustc 1.85.0".to_string(),
            crates,
            limits: Default::default(),
            build_profile: "release (opt-level 3, lto thin, codegen-units 1, debug line-tables-only)".to_string(),
            ..Environment::default()
        },
        method: Method {
            quick: false,
            forks: 3,
            warmup: 2,
            iterations: 5,
            accounting: 1,
            noise_threshold: 0.2,
            sdr: Default::default(),
            calibration: None,
            paired: Vec::new(),
            seed: 42,
            trial_timeout_s: 120.0,
        },
        params,
        contestants: vec![
            ContestantSummary {
                name: "baseline-loop".to_string(),
                family: Family::Baseline,
                expected_failure: None,
                role: Role::Floor,
                description: "A plain `for` loop over the input: no channel, no runtime.".to_string(),
                status: Status::Ok,
                reason: None,
                checks: vec![Check::new("checksum", true, "sum 499999500000 = expected 499999500000")],
                metrics: metrics(&[
                    ("work_0.ms_per_million", stats(5.86, 5.7, 6.4, 0.12, &[5.8, 5.86, 6.1])),
                    ("work_0.cores_used", stats(1.0, 0.98, 1.01, 0.004, &[])),
                    ("work_64.ms_per_million", stats(120.0, 118.0, 131.0, 1.5, &[119.0, 120.0, 126.0])),
                    ("work_64.cores_used", stats(1.0, 0.99, 1.0, 0.002, &[])),
                ]),
                skipped_phases: Default::default(),
                disturbed: Disturbed { disturbed_iterations: 3, disturbed_kept: 1, guarded_iterations: 30 },
            },
            ContestantSummary {
                name: "stream-map".to_string(),
                family: Family::Stream,
                expected_failure: None,
                role: Default::default(),
                description:
                    "`futures::stream::iter(..).map(..)` polled to completion on a current-thread tokio runtime."
                        .to_string(),
                status: Status::Ok,
                reason: None,
                checks: vec![
                    Check::new("checksum", true, "sum 499999500000 = expected 499999500000"),
                    Check::new("order", true, "outputs in input order"),
                ],
                metrics: metrics(&[
                    ("work_0.ms_per_million", stats(12.3, 11.9, 15.0, 0.41, &[12.1, 13.4, 15.0])),
                    ("work_0.cores_used", stats(1.02, 1.0, 1.05, 0.01, &[])),
                    ("work_0.max_outstanding", stats(1_234_567.0, 1_000_000.0, 1_300_000.0, 12_000.0, &[])),
                    ("work_64.ms_per_million", stats(126.5, 121.0, 140.0, 2.2, &[124.0, 126.5, 131.0])),
                    ("work_64.cores_used", stats(1.01, 1.0, 1.03, 0.008, &[])),
                    ("work_64.max_outstanding", stats(64.0, 60.0, 70.0, 0.9, &[])),
                ]),
                skipped_phases: Default::default(),
                disturbed: Disturbed { guarded_iterations: 30, ..Disturbed::default() },
            },
            ContestantSummary {
                name: "blocking-crossbeam".to_string(),
                family: Family::Blocking,
                expected_failure: None,
                role: Default::default(),
                description: "Two OS threads joined by a `crossbeam_channel::bounded(256)`, one item per send."
                    .to_string(),
                status: Status::Failed,
                reason: Some("check `checksum` failed".to_string()),
                checks: vec![
                    Check::new("checksum", false, "sum 499999499999 ≠ expected 499999500000"),
                    Check::new("order", true, "outputs in input order"),
                ],
                metrics: BTreeMap::new(),
                skipped_phases: Default::default(),
                disturbed: Disturbed { guarded_iterations: 30, ..Disturbed::default() },
            },
        ],
        claims: vec![
            ClaimResult::new(
                "At work 0, a stream adapter chain costs more than twice the plain loop.",
                Verdict::Holds,
                "stream-map / baseline-loop = 2.10× (interval 1.98–2.22×)",
            ),
            ClaimResult::new(
                "At work 64, the blocking pipeline beats the stream.",
                Verdict::Inconclusive,
                "`blocking-crossbeam` did not pass its checks",
            ),
        ],
        command: "lab chain --forks 3 --warmup 2 --iterations 5 --seed 42".to_string(),
        raw_file: "raw/chain-20261130T100000Z.jsonl".to_string(),
        phases: vec!["work_0".to_string(), "work_64".to_string()],
        ..testkit::fixture::summary("chain", vec![])
    }
}

/// The charts of the fixture: one of each kind.
pub fn charts() -> Vec<ChartSpec> {
    vec![
        ChartSpec {
            id: "ms",
            title: "Time per million items",
            metric: "ms_per_million",
            unit: "ms per million items",
            kind: ChartKind::Bars,
            log_scale: false,
            references: &[],
        },
        ChartSpec {
            id: "sweep",
            title: "Time per million items by work per item",
            metric: "ms_per_million",
            unit: "ms per million items",
            kind: ChartKind::Sweep,
            log_scale: true,
            references: &[],
        },
        ChartSpec {
            id: "outstanding",
            title: "Items in flight over time",
            metric: "max_outstanding",
            unit: "items",
            kind: ChartKind::Series {
                series: &[SeriesLine { series: "outstanding", words: "items in flight", role: SeriesRole::Measured }],
            },
            log_scale: false,
            references: &[],
        },
    ]
}

/// Series of the first measured iteration, per contestant.
pub fn series() -> BTreeMap<String, BTreeMap<String, Series>> {
    let mut by_name = BTreeMap::new();
    // Runs long enough for their panels to show them (at least `render::svg::MIN_PANEL_SAMPLES` samples).
    let work_0 = vec![0.0, 40.0, 64.0, 64.0, 12.0, 30.0, 50.0, 64.0, 20.0, 10.0, 4.0, 0.0];
    let work_64 = vec![0.0, 8.0, 16.0, 3.0, 9.0, 16.0, 12.0, 5.0, 14.0, 16.0, 2.0];
    by_name.insert("work_0.outstanding".to_string(), Series::new(10.0, work_0));
    by_name.insert("work_64.outstanding".to_string(), Series::new(10.0, work_64));
    let mut series = BTreeMap::new();
    series.insert("stream-map".to_string(), by_name);
    series
}

/// The report input for `summary`.
pub fn input(summary: &Summary) -> ReportInput<'_> {
    ReportInput {
        summary,
        title: "Chains of adapters: streams vs blocking vs a loop",
        question: "What does a chain of stream adapters cost per item, compared with threads and a plain loop?",
        discussion: "The stream pays for polling each item.\n\n- Pick the loop when you can.\n".to_string(),
        details_discussion: String::new(),
        headline_metric: "ms_per_million",
        higher_is_better: false,
        table_metrics: vec!["ms_per_million", "cores_used", "max_outstanding"],
        charts: charts(),
        series: series(),
        harness_notes: vec!["The sampler used 0.3% of one core.".to_string()],
        headline_notes: Vec::new(),
        trade_off_metrics: Vec::new(),
    }
}
