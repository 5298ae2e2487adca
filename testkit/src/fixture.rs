//! Made-up runs for the tests of claims, reports and tables: one way to build a [`Summary`] by hand and the
//! statistics its metrics carry, so that a field added to the summary is filled in here once.
//!
//! The statistics are computed by the lab's own [`measure::stats::summarize`] (one sample per process), so a
//! fixture's median, range and process medians are what a run with those samples would have recorded.

use std::collections::BTreeMap;

use measure::record::TrialRequest;
use measure::setup::Provenance;
use measure::summary::{ContestantSummary, Environment, Family, Method, MetricStats, Summary};

/// Statistics of one process per value in `medians`, each process one sample of that value.
pub fn processes(medians: &[f64]) -> MetricStats {
    let forks: Vec<Vec<f64>> = medians.iter().map(|&m| vec![m]).collect();
    measure::stats::summarize(&forks).expect("at least one finite sample")
}

/// Three processes, at `median` and `spread` × `median` either side of it (`spread` 0.01: 1% apart).
pub fn stats_spread(median: f64, spread: f64) -> MetricStats {
    let d = median * spread;
    processes(&[median - d, median, median + d])
}

/// Three processes 1% apart around `median`: enough processes for a verdict, a spread well inside any claim's
/// factor.
pub fn stats(median: f64) -> MetricStats {
    stats_spread(median, 0.01)
}

/// The request of a full run's first process for `contestant` of `scenario` at `phase` with `params`: one warm-up,
/// three measured iterations and one accounting iteration, seed 1.
pub fn trial_request(scenario: &str, contestant: &str, phase: &str, params: &[(&str, u64)]) -> TrialRequest {
    TrialRequest {
        phase: Some(phase.to_string()),
        warmup: 1,
        iterations: 3,
        quick: false,
        ..quick_trial_request(scenario, contestant, params)
    }
}

/// The request of a `--quick` run's first process for `contestant` of `scenario` with `params`, without phases: no
/// warm-up, one measured iteration and one accounting iteration, seed 1.
pub fn quick_trial_request(scenario: &str, contestant: &str, params: &[(&str, u64)]) -> TrialRequest {
    TrialRequest {
        scenario: scenario.to_string(),
        contestant: contestant.to_string(),
        phase: None,
        params: params.iter().map(|&(k, v)| (k.to_string(), v)).collect(),
        fork: 0,
        warmup: 0,
        iterations: 1,
        seed: 1,
        quick: true,
        accounting: 1,
    }
}

/// A contestant that ran cleanly with `metrics` ([`ContestantSummary::ran`]): no description, role, checks, skipped
/// phases or disturbance.
pub fn contestant(name: &str, family: Family, metrics: BTreeMap<String, MetricStats>) -> ContestantSummary {
    ContestantSummary::ran(name, family, metrics)
}

/// Build `abc1234` (clean) of lab 0.1.0, from `started_utc` to `finished_utc`: who wrote a made-up floor or
/// calibration.
pub fn provenance(started_utc: &str, finished_utc: &str) -> Provenance {
    let (started_utc, finished_utc) = (started_utc.to_string(), finished_utc.to_string());
    Provenance { lab_version: "0.1.0".into(), git_rev: "abc1234".into(), git_dirty: false, started_utc, finished_utc }
}

/// A full run's method: 3 processes of 1 measured iteration (no warm-up) and 1 accounting iteration, the lab's
/// 20% noise threshold, seed 0, a 60 s trial timeout.
pub fn method() -> Method {
    Method {
        quick: false,
        forks: 3,
        warmup: 0,
        iterations: 1,
        accounting: 1,
        noise_threshold: 0.2,
        sdr: Default::default(),
        calibration: None,
        paired: Vec::new(),
        seed: 0,
        trial_timeout_s: 60.0,
    }
}

/// A run of `scenario` by `contestants` on 2 cores with [`method`], written by an unknown revision: no
/// parameters, phases, claims or questions (set the fields a test needs with `Summary { .., ..summary(..) }`).
pub fn summary(scenario: &str, contestants: Vec<ContestantSummary>) -> Summary {
    Summary {
        schema_version: measure::summary::SCHEMA_VERSION,
        scenario: scenario.to_string(),
        lab_version: "test".into(),
        git_rev: "unknown".into(),
        git_dirty: false,
        render_git_rev: "unknown".into(),
        render_git_dirty: false,
        started_utc: String::new(),
        finished_utc: String::new(),
        environment: Environment { cores: 2, ..Environment::default() },
        method: method(),
        params: BTreeMap::new(),
        contestants,
        claims: vec![],
        questions: vec![],
        findings: Vec::new(),
        command: String::new(),
        raw_file: String::new(),
        phases: vec![],
        paired: None,
    }
}

/// Sets every judged claim and finding of `summary` to inconclusive, as a run too short to settle any would.
pub fn inconclusive(summary: &mut Summary) {
    for claim in summary.claims.iter_mut().chain(&mut summary.findings) {
        claim.verdict = measure::summary::Verdict::Inconclusive;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stats_are_three_processes_around_the_median() {
        let s = stats(100.0);
        assert_eq!((s.median, s.min, s.max, s.processes), (100.0, 99.0, 101.0, 3));
        assert_eq!(s.fork_medians, vec![99.0, 100.0, 101.0]);
        assert_eq!(processes(&[3.0, 1.0]).processes, 2);
    }

    #[test]
    fn a_summary_names_its_scenario_and_contestants() {
        let run = summary("chain", vec![contestant("loop", Family::Baseline, BTreeMap::new())]);
        assert_eq!((run.scenario.as_str(), run.contestants.len(), run.method.forks), ("chain", 1, 3));
        assert_eq!(run.metric("loop", "ms"), None);
    }
}
