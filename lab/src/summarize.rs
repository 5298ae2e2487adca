//! From raw trial records to the summary: statistics per contestant and metric pooled over every fork,
//! the worst status, merged checks, and the scenario's claims.

use std::collections::BTreeMap;

use measure::harness::INSTRUMENTED_PREFIX;
use measure::record::{IterationRecord, Series, Status, TrialRecord};
use measure::scenario::{Scenario, HARNESS_METRIC_PREFIX};
use measure::stats;
use measure::summary::{metric_key, params_json, Check, ContestantSummary, Disturbed, MetricStats, Summary};

use crate::environment;
use crate::phase;
use crate::raw::RawRun;

/// Phase names of a run, in order (empty when the scenario does not sweep).
pub(crate) fn phase_names(run: &RawRun, scenario: &dyn Scenario) -> Vec<String> {
    phase::scenario_phases(scenario, &run.header.params).into_iter().filter_map(|p| p.name).collect()
}

/// Summarise a raw run.
///
/// A contestant's role comes from the scenario's registry as it is now (roles are the lab's judgement of what a
/// row is for, so re-judging an older run applies today's), and from the raw file for a contestant the registry
/// no longer has.
pub(crate) fn summarize(run: &RawRun, scenario: &dyn Scenario) -> Summary {
    let header = &run.header;
    let registry = scenario.contestants();
    let contestants = header
        .contestants
        .iter()
        .map(|info| {
            let trials: Vec<&TrialRecord> = run.trials.iter().filter(|t| t.contestant == info.name).collect();
            let (ran, skipped_phases) = split_skipped_phases(&trials);
            let (status, reason) = status_of(&ran, run.footer.is_some());
            let known = registry.iter().find(|r| r.name == info.name).unwrap_or(info);
            ContestantSummary {
                name: info.name.clone(),
                family: info.family,
                role: known.role,
                description: info.description.clone(),
                expected_failure: known.expected_failure.clone(),
                status,
                reason,
                checks: merge_checks(&trials),
                metrics: metric_stats(&trials),
                skipped_phases,
                disturbed: Disturbed::count(trials.iter().flat_map(|t| &t.iterations)),
            }
        })
        .collect();
    let mut summary = Summary {
        schema_version: measure::summary::SCHEMA_VERSION,
        scenario: header.scenario.clone(),
        lab_version: header.lab_version.clone(),
        git_rev: header.git_rev.clone(),
        git_dirty: header.git_dirty,
        render_git_rev: environment::BUILD_GIT_REV.to_string(),
        render_git_dirty: environment::build_git_dirty(),
        started_utc: header.started_utc.clone(),
        finished_utc: run.footer.as_ref().map(|f| f.finished_utc.clone()).unwrap_or_default(),
        environment: header.environment.clone(),
        method: header.method.clone(),
        params: params_json(&header.params),
        contestants,
        claims: Vec::new(),
        questions: Vec::new(),
        findings: Vec::new(),
        command: header.command.clone(),
        raw_file: header.raw_file.clone(),
        phases: phase_names(run, scenario),
        paired: None,
    };
    // Modes first: the claims and answers name a contestant whose processes are two populations.
    measure::calibration::mark_modes(&mut summary);
    if let [a, b] = summary.method.paired.as_slice() {
        let mut metrics = vec![scenario.headline_metric()];
        for q in scenario.questions() {
            if !metrics.contains(&q.metric) {
                metrics.push(q.metric);
            }
        }
        summary.paired = Some(measure::calibration::paired::analyse(&summary, a, b, &metrics));
    }
    measure::scenario::judged(scenario, summary)
}

/// A contestant's trials, less those of sweep phases at which every trial was skipped while other phases ran
/// (the machine could not run that level): those phases come back apart with the first reason given. A
/// contestant skipped everywhere keeps all its trials, so its status is `skipped`.
fn split_skipped_phases<'r>(trials: &[&'r TrialRecord]) -> (Vec<&'r TrialRecord>, BTreeMap<String, String>) {
    let mut skipped: BTreeMap<String, String> = BTreeMap::new();
    for trial in trials {
        let Some(phase) = &trial.phase else { continue };
        let in_phase = trials.iter().filter(|t| t.phase.as_ref() == Some(phase));
        if in_phase.clone().all(|t| t.status == Status::Skipped) && !skipped.contains_key(phase) {
            let reason = in_phase.filter_map(|t| t.reason.clone()).next().unwrap_or_else(|| "skipped".to_string());
            skipped.insert(phase.clone(), reason);
        }
    }
    let ran: Vec<&TrialRecord> =
        trials.iter().copied().filter(|t| t.phase.as_ref().is_none_or(|p| !skipped.contains_key(p))).collect();
    if ran.is_empty() {
        return (trials.to_vec(), BTreeMap::new());
    }
    (ran, skipped)
}

/// The worst status over a contestant's trials, with the first reason given for it.
fn status_of(trials: &[&TrialRecord], finished: bool) -> (Status, Option<String>) {
    if trials.is_empty() {
        let why = if finished { "no trial ran" } else { "not run: the run was interrupted first" };
        return (Status::Skipped, Some(why.to_string()));
    }
    let worst = trials.iter().map(|t| t.status).max().unwrap_or(Status::Ok);
    let reason = trials.iter().find(|t| t.status == worst).and_then(|t| {
        let phase = t.phase.as_ref().map(|p| format!("{p}, ")).unwrap_or_default();
        t.reason.as_ref().map(|r| format!("{phase}{}: {r}", phase::fork_label(t.fork)))
    });
    (worst, reason)
}

/// One check per name, in first-seen order: failed if it failed in any trial (with that trial's detail). A passed
/// check says in how many trials it passed, each trial counted once however often it reported the check (the
/// first process reports `checksum` from its runs and again from its conformance checks).
fn merge_checks(trials: &[&TrialRecord]) -> Vec<Check> {
    let mut merged: Vec<Check> = Vec::new();
    let mut runs: BTreeMap<String, usize> = BTreeMap::new();
    for trial in trials {
        let names: std::collections::BTreeSet<&str> = trial.checks.iter().map(|c| c.name.as_str()).collect();
        for name in names {
            *runs.entry(name.to_string()).or_default() += 1;
        }
        for check in &trial.checks {
            match merged.iter_mut().find(|c| c.name == check.name) {
                None => merged.push(check.clone()),
                Some(existing) if !existing.failed() && check.failed() => *existing = check.clone(),
                Some(existing) if existing.passed && check.not_applicable => *existing = check.clone(),
                Some(_) => {}
            }
        }
    }
    for check in &mut merged {
        let n = runs.get(&check.name).copied().unwrap_or(0);
        if check.passed && n > 1 {
            check.detail = format!("{} (passed in all {n} trials)", check.detail);
        }
    }
    merged
}

/// Statistics per `phase.metric`, pooling measured iterations of every fork; per-process metrics (such as
/// `peak_rss_mib`) give one sample per trial.
fn metric_stats(trials: &[&TrialRecord]) -> BTreeMap<String, MetricStats> {
    // metric key -> fork -> samples
    let mut samples: BTreeMap<String, BTreeMap<u32, Vec<f64>>> = BTreeMap::new();
    for trial in trials.iter().filter(|t| t.status == Status::Ok) {
        let measured = trial.iterations.iter().filter(|i| !i.warmup).flat_map(|i| &i.metrics);
        let per_process = trial.metrics.iter().filter(|(name, _)| !name.starts_with(HARNESS_METRIC_PREFIX));
        for (name, &value) in measured.chain(per_process) {
            let key = metric_key(trial.phase.as_deref(), name);
            samples.entry(key).or_default().entry(trial.fork).or_default().push(value);
        }
    }
    samples
        .into_iter()
        .filter_map(|(key, forks)| {
            let forks: Vec<Vec<f64>> = forks.into_values().collect();
            stats::summarize(&forks).map(|s| (key, s))
        })
        .collect()
}

/// Each contestant's series, keyed `<phase>.<series>` (or `<series>`): for each name, the first kept iteration
/// that has it (the harness keeps series from the first timed and the first accounting iteration of a trial).
pub(crate) fn first_series(run: &RawRun) -> BTreeMap<String, BTreeMap<String, Series>> {
    let mut out: BTreeMap<String, BTreeMap<String, Series>> = BTreeMap::new();
    let mut trials: Vec<&TrialRecord> = run.trials.iter().filter(|t| t.status == Status::Ok).collect();
    trials.sort_by_key(|t| t.fork);
    for trial in trials {
        for iteration in trial.iterations.iter().filter(|i| !i.warmup) {
            let entry = out.entry(trial.contestant.clone()).or_default();
            for (name, series) in &iteration.series {
                entry.entry(metric_key(trial.phase.as_deref(), name)).or_insert_with(|| series.clone());
            }
        }
    }
    out
}

/// What the harness itself cost and how it measures, from the accounting iterations (the timed ones carry no
/// instrument, so they have nothing of the harness's to report).
pub(crate) fn harness_notes(run: &RawRun) -> Vec<String> {
    let wall = format!("{INSTRUMENTED_PREFIX}wall_ms");
    let cores = format!("{INSTRUMENTED_PREFIX}cores_used");
    let accounting: Vec<&IterationRecord> = run
        .trials
        .iter()
        .filter(|t| t.status == Status::Ok)
        .flat_map(|t| t.iterations.iter().filter(|i| i.accounting))
        .collect();
    let mut notes = Vec::new();
    let mut sampler_ms = 0.0;
    let mut wall_ms = 0.0;
    let mut per_iteration = Vec::new();
    for it in &accounting {
        if let (Some(s), Some(w)) = (it.metrics.get("sampler_cpu_ms"), it.metrics.get(&wall)) {
            sampler_ms += s;
            wall_ms += w;
            per_iteration.push(*s);
        }
    }
    if wall_ms > 0.0 {
        let median = stats::median(&per_iteration).unwrap_or(0.0);
        notes.push(format!(
            "In the accounting iterations the 1 ms sampler thread used {median:.3} ms of CPU per iteration (median), \
             {:.2}% of one core; it is measured on its own thread and subtracted from their CPU figures. Timed \
             iterations run no sampler.",
            100.0 * sampler_ms / wall_ms
        ));
    }
    // Calibration: a process with two threads (the caller and the sampler) ran the contestant on one thread,
    // so its CPU over wall time should read exactly 1; the spread shows the accounting's own error.
    let single: Vec<f64> = accounting
        .iter()
        .filter(|i| i.metrics.get("threads") == Some(&2.0))
        .filter_map(|i| i.metrics.get(&cores).copied())
        .collect();
    if let Some(median) = stats::median(&single) {
        let (lo, hi) = single.iter().fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &v| (lo.min(v), hi.max(v)));
        notes.push(format!(
            "Calibration: in the {} accounting iterations that ran on one thread (the process had only the caller \
             and the sampler), `cores_used` should be exactly 1; it read {median:.3} (median), {lo:.3}–{hi:.3}. The \
             distance from 1 is the CPU accounting's own error at those iterations' length; it grows as iterations \
             get shorter than a millisecond.",
            single.len(),
        ));
    }
    notes.push(
        "After each iteration the harness stops the wall clock, then sleeps past a scheduler tick so that CPU time \
         of threads that just ended is booked before it is read; that sleep's own CPU is subtracted."
            .to_string(),
    );
    let gauge_used = accounting.iter().any(|i| i.metrics.contains_key("max_outstanding"));
    if gauge_used {
        notes.push(
            "The outstanding-work gauge is updated only in accounting iterations: one relaxed atomic add per \
             hand-off (per message: per item, or per batch) on a counter every party shares, plus a `fetch_max` \
             when a new high-water mark is reached. Its cost is in the table above."
                .to_string(),
        );
    }
    notes.push(
        "The counting global allocator is installed in every trial process. In timed iterations it is paused: each \
         allocation and free pays one relaxed load of a flag nobody writes meanwhile, and no counter moves. In \
         accounting iterations it adds three relaxed atomic adds per allocation (on counters every thread shares)."
            .to_string(),
    );
    notes
}

#[cfg(test)]
mod tests {
    use super::*;

    fn trial(phase: &str, fork: u32, status: Status, reason: Option<&str>) -> TrialRecord {
        TrialRecord {
            contestant: "blocking-threads".to_string(),
            phase: Some(phase.to_string()),
            fork,
            order: 0,
            status,
            reason: reason.map(str::to_string),
            checks: Vec::new(),
            iterations: Vec::new(),
            metrics: Default::default(),
            stderr_tail: None,
        }
    }

    #[test]
    fn a_level_skipped_in_every_fork_is_set_apart_and_the_others_keep_their_status() {
        let trials = [
            trial("in_flight_1000", 0, Status::Ok, None),
            trial("in_flight_100000", 0, Status::Skipped, Some("100,000 threads do not fit")),
            trial("in_flight_100000", 1, Status::Skipped, Some("100,000 threads do not fit")),
        ];
        let refs: Vec<&TrialRecord> = trials.iter().collect();
        let (ran, skipped) = split_skipped_phases(&refs);
        assert_eq!(ran.len(), 1);
        assert_eq!(skipped.get("in_flight_100000").map(String::as_str), Some("100,000 threads do not fit"));
        assert_eq!(status_of(&ran, true).0, Status::Ok);
    }

    #[test]
    fn a_level_skipped_in_one_fork_only_still_counts_against_the_status() {
        let trials = [
            trial("in_flight_1000", 0, Status::Ok, None),
            trial("in_flight_1000", 1, Status::Skipped, Some("refused")),
        ];
        let refs: Vec<&TrialRecord> = trials.iter().collect();
        let (ran, skipped) = split_skipped_phases(&refs);
        assert!(skipped.is_empty());
        assert_eq!(status_of(&ran, true).0, Status::Skipped);
    }

    #[test]
    fn a_contestant_skipped_everywhere_is_skipped() {
        let trials = [trial("in_flight_1000", 0, Status::Skipped, Some("no threads"))];
        let refs: Vec<&TrialRecord> = trials.iter().collect();
        let (ran, skipped) = split_skipped_phases(&refs);
        assert!(skipped.is_empty());
        assert_eq!(status_of(&ran, true), (Status::Skipped, Some("in_flight_1000, fork 1: no threads".to_string())));
    }
}
