//! `lab calibrate`: A/A pairs on this testbed, and the smallest ratio the judge can tell per class of metric.
//!
//! Each scenario that offers a [`CalibrationSpec`] runs its few representative contestants, at the parameters it
//! fixes, in `2F` fresh processes each (`F`: the lab's process count, 5), through the plan, executor and harness
//! of a real run with its rotation of the order; every process gets an environment of its own size
//! ([`crate::executor::ENV_PADDING`], 0 to [`PADDING_MAX`] bytes, seeded), as Mytkowicz et al. vary it. Each contestant's metric
//! is a pool; [`measure::calibration::pairs`] splits it into A/A pairs and finds each class's smallest detectable
//! ratio. The runs' reports and raw records go to `DIR/calibration-runs/`, the result to `DIR/calibration.json`
//! and `DIR/calibration.md`.
//!
//! [`judged_with`] is the other half: the thresholds a run's judge reads, from the calibration of its testbed.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, Result};
use clap::ArgMatches;
use measure::calibration::file::{classes_of, CalibrationMethod, ScenarioRun, CALIBRATION_SCHEMA};
use measure::calibration::pairs::{self, FALSE_SEPARATION_LIMIT, MAX_PAIRS};
use measure::calibration::{class_of, file, Calibration, MetricClass, Pool};
use measure::record::{Status, TrialMessage, TrialRecord};
use measure::scenario::{CalibrationSpec, Repetitions, Scenario};
use measure::summary::{metric_key, Summary};
use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use render::{OutputDir, Rendered, RenderedFile};

use crate::error::UsageError;
use crate::executor::{ProcessExecutor, TrialExecutor};
use crate::options::RunOptions;
use crate::plan::{self, PlannedTrial};
use crate::run::{self, RunOutcome};
use crate::{environment, kind, registry, testbed};

/// The largest environment padding a trial process gets, in bytes: Mytkowicz et al. moved results by growing the
/// environment from 0 to 4,096 bytes.
pub(crate) const PADDING_MAX: usize = 4096;

/// The folder below `--out` the calibration's scenario runs write their reports and raw records to.
pub(crate) const RUNS_FOLDER: &str = "calibration-runs";

/// Processes per arm of a `--quick` calibration: the fewest the judge decides on, so a smoke run forms real
/// pairs (`C(6, 3)` = 20 of each pool).
const QUICK_FORKS: u32 = 3;

/// How the pairs are formed and why they are honest, as `calibration.json` and `calibration.md` state it.
const PAIRS_FORMED: &str = "Each pool is one contestant's metric in 2F fresh processes of one run: the same binary, \
parameters and schedule (the rotation of a real run), each process with an environment of its own size. Every split \
of the pool into two halves of F processes is an A/A pair (all of them when there are at most 252, else a seeded \
sample of 252, each process in arm A as often as in arm B): two arms that differ in nothing but which processes they \
drew, which is the difference between two contestants' processes that is not the contestants' own. Pairs of one pool \
share processes, so the pools are counted beside the pairs. The judge's whole rule (process-median ranges apart and \
the ratio beyond the threshold) can call at most 2 of the C(2F, F) splits of a pool apart whatever the numbers, so \
it cannot measure the testbed: the smallest detectable ratio is the smallest threshold at which the ratio alone calls \
at most 5% of a class's pairs apart, and the whole rule then calls at most as many. A pool whose process medians fall \
into two modes is two populations: it is shown, and left out of its class's rates.";

/// What `lab calibrate` was asked.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Request {
    /// Where `calibration.json`, `calibration.md` and the runs go.
    pub out: PathBuf,
    /// A smoke calibration: `--quick` sizes, [`QUICK_FORKS`] processes an arm.
    pub quick: bool,
    /// The classes to calibrate (every class by default).
    pub classes: Vec<MetricClass>,
    /// Processes per arm `F` (each pool has `2F`).
    pub forks: u32,
    /// Seed of the environment sizes, the sampled splits and the scenarios' inputs.
    pub seed: u64,
    /// Per-trial time budget.
    pub trial_timeout: Duration,
    /// Print the plan and its estimated time, and run nothing.
    pub dry_run: bool,
    /// Replace runs of the other kind in `DIR/calibration-runs`.
    pub force: bool,
}

/// The request of `lab calibrate`'s matches, validated.
pub(crate) fn request(sub: &ArgMatches) -> Result<Request, UsageError> {
    let quick = sub.get_flag("quick");
    let classes = match sub.get_one::<String>("classes") {
        None => MetricClass::ALL.to_vec(),
        Some(list) => {
            let mut classes = Vec::new();
            for key in list.split(',').map(str::trim).filter(|k| !k.is_empty()) {
                let class = MetricClass::from_key(key).ok_or_else(|| {
                    let known: Vec<&str> = MetricClass::ALL.iter().map(|c| c.key()).collect();
                    UsageError::new(format!("--classes: unknown class `{key}` (known: {})", known.join(", ")))
                })?;
                if !classes.contains(&class) {
                    classes.push(class);
                }
            }
            if classes.is_empty() {
                return Err(UsageError::new("--classes needs at least one class"));
            }
            classes
        }
    };
    let trial_timeout = match sub.get_one::<f64>("trial-timeout") {
        Some(&s) if s.is_finite() && s > 0.0 && s <= 86_400.0 => Duration::from_secs_f64(s),
        Some(&s) => return Err(UsageError::new(format!("--trial-timeout must be in (0, 86400] seconds, got {s}"))),
        None => Duration::from_secs(if quick { 60 } else { 300 }),
    };
    let forks =
        sub.get_one::<u32>("forks").copied().unwrap_or(if quick { QUICK_FORKS } else { Repetitions::STANDARD.forks });
    Ok(Request {
        out: crate::options::out_dir(sub),
        quick,
        classes,
        forks,
        seed: sub.get_one::<u64>("seed").copied().unwrap_or(1),
        trial_timeout,
        dry_run: sub.get_flag("dry-run"),
        force: sub.get_flag("force"),
    })
}

/// One scenario's share of a calibration: what it runs, and its estimated time.
#[derive(Debug)]
struct Job {
    scenario: &'static dyn Scenario,
    spec: CalibrationSpec,
    /// The metrics of the requested classes among the spec's.
    metrics: Vec<&'static str>,
    options: RunOptions,
    trials: usize,
    estimate_s: f64,
}

/// The scenario runs `request` needs: every scenario whose spec names a metric of a requested class; and the
/// scenarios that offer none. A spec that names what its scenario does not have is a defect of the lab (an
/// error), not bad usage.
fn jobs(request: &Request) -> Result<(Vec<Job>, Vec<String>)> {
    let mut jobs = Vec::new();
    let mut not_offered = Vec::new();
    for scenario in registry::scenarios() {
        let Some(spec) = scenario.calibration() else {
            not_offered.push(scenario.name().to_string());
            continue;
        };
        check_spec(scenario, &spec).map_err(anyhow::Error::msg)?;
        let metrics: Vec<&'static str> = spec
            .metrics
            .iter()
            .copied()
            .filter(|m| class_of(m).is_some_and(|c| request.classes.contains(&c)))
            .collect();
        if metrics.is_empty() {
            continue;
        }
        let mut options = RunOptions {
            quick: request.quick,
            out: request.out.join(RUNS_FOLDER),
            force: request.force,
            only: Some(spec.contestants.iter().map(|c| c.to_string()).collect()),
            forks: Some(2 * request.forks),
            seed: request.seed,
            trial_timeout: request.trial_timeout,
            calibration: None,
            ..RunOptions::default()
        };
        options.params = spec.params.iter().map(|(k, v)| (k.to_string(), vec![*v])).collect();
        scenario
            .check_params(&crate::options::resolved_params(scenario, &options))
            .map_err(|why| anyhow::anyhow!("{}'s calibration parameters: {why}", scenario.name()))?;
        let trials = plan::plan(scenario, &options).trials.len();
        let estimate_s = trials as f64 * spec.seconds_per_trial;
        jobs.push(Job { scenario, spec, metrics, options, trials, estimate_s });
    }
    Ok((jobs, not_offered))
}

/// Whether `spec` names only contestants, parameters and classed metrics `scenario` has.
fn check_spec(scenario: &dyn Scenario, spec: &CalibrationSpec) -> Result<(), String> {
    let name = scenario.name();
    let known: Vec<String> =
        scenario.contestants().into_iter().chain(scenario.contestants_on_request()).map(|c| c.name).collect();
    if let Some(c) = spec.contestants.iter().find(|c| !known.iter().any(|k| k == *c)) {
        return Err(format!("{name}'s calibration names `{c}`, which is not one of its contestants"));
    }
    let keys: Vec<String> = scenario.params().iter().map(|p| p.key()).collect();
    if let Some((k, _)) = spec.params.iter().find(|(k, _)| !keys.iter().any(|key| key == k)) {
        return Err(format!("{name}'s calibration sets `{k}`, which is not one of its parameters"));
    }
    if let Some(m) = spec.metrics.iter().find(|m| class_of(m).is_none()) {
        return Err(format!("{name}'s calibration names `{m}`, which has no class in measure::calibration"));
    }
    if spec.contestants.is_empty() || spec.metrics.is_empty() {
        return Err(format!("{name}'s calibration names no contestant or no metric"));
    }
    Ok(())
}

/// The plan of `request` in words, with its estimated time, as `--dry-run` prints it and a run starts with.
pub(crate) fn plan_text(request: &Request) -> Result<String> {
    let (jobs, not_offered) = jobs(request)?;
    Ok(plan_words(request, &jobs, &not_offered))
}

fn plan_words(request: &Request, jobs: &[Job], not_offered: &[String]) -> String {
    let mut text = format!(
        "calibrate: {} processes per pool ({} an arm), environment padding 0 to {PADDING_MAX} bytes, seed {}\n",
        2 * request.forks,
        request.forks,
        request.seed
    );
    for job in jobs {
        let params: Vec<String> = job.spec.params.iter().map(|(k, v)| plan::param_flag(k, &[*v])).collect();
        text.push_str(&format!(
            "  {}: {} {}, {} trials, about {:.0} s\n",
            job.scenario.name(),
            job.spec.contestants.join(", "),
            if params.is_empty() { "at its defaults".to_string() } else { format!("at {}", params.join(" ")) },
            job.trials,
            job.estimate_s
        ));
    }
    if !not_offered.is_empty() {
        text.push_str(&format!("  offering no contestant to calibrate with: {}\n", not_offered.join(", ")));
    }
    let total: f64 = jobs.iter().map(|j| j.estimate_s).sum();
    let kind = if request.quick { " (at full sizes: --quick runs smaller ones, in less)" } else { "" };
    text.push_str(&format!("estimated time: {:.0} s, about {:.1} minutes on 2 cores{kind}\n", total, total / 60.0));
    text
}

/// Runs each trial in a fresh process, as a run does, with an environment of a seeded random size, and keeps
/// each process's padding.
struct Padded {
    inner: ProcessExecutor,
    rng: StdRng,
    /// Padding bytes by (contestant, phase, fork).
    log: BTreeMap<(String, Option<String>, u32), usize>,
}

impl TrialExecutor for Padded {
    fn run(&mut self, trial: &PlannedTrial, on_message: &mut dyn FnMut(&TrialMessage)) -> TrialRecord {
        let bytes = self.rng.random_range(0..=PADDING_MAX);
        let request = &trial.request;
        self.log.insert((request.contestant.clone(), request.phase.clone(), request.fork), bytes);
        self.inner.set_env_padding(Some(bytes));
        self.inner.run(trial, on_message)
    }

    fn setup_error(&self) -> Option<&str> {
        self.inner.setup_error()
    }
}

/// Run the calibration `request` asks for into `out` (whose lock the caller holds); exit 0 when every
/// representative ran cleanly, 1 when one did not (the calibration is written all the same, without its pools),
/// 130 when interrupted (nothing written but the runs' raw records).
pub(crate) fn run(request: &Request, out: &OutputDir, interrupted: &Arc<AtomicBool>) -> Result<ExitCode> {
    let (jobs, not_offered) = jobs(request)?;
    if jobs.is_empty() {
        return Err(UsageError::new("no scenario offers a contestant for the classes asked").into());
    }
    eprint!("{}", plan_words(request, &jobs, &not_offered));
    let runs = OutputDir::new(request.out.join(RUNS_FOLDER));
    for job in &jobs {
        kind::check(runs.root(), job.scenario.name(), request.quick, request.force)?;
    }
    let _runs_lock = runs.lock().map_err(|e| match e {
        locked @ render::OutputError::Locked { .. } => anyhow::Error::new(UsageError::new(locked.to_string())),
        other => anyhow::Error::new(other).context("locking the calibration's runs folder"),
    })?;
    let started_utc = environment::utc_now();
    let mut executor = Padded {
        inner: ProcessExecutor::new(request.trial_timeout, Arc::clone(interrupted)),
        rng: StdRng::seed_from_u64(request.seed),
        log: BTreeMap::new(),
    };
    let mut pools = Vec::new();
    let mut scenarios = Vec::new();
    let mut failed = false;
    for job in &jobs {
        let plan = plan::plan(job.scenario, &job.options);
        let only = job.options.only.as_deref();
        match run::run(&plan, only, &runs, &mut executor, interrupted)? {
            RunOutcome::Finished { rendered, report } => {
                eprintln!("{}: wrote {}", job.scenario.name(), report.display());
                let summary = &rendered.summary;
                failed |= !crate::outcome::judge([summary], &job.options.expect_failed).ok();
                let raw_file = format!("{RUNS_FOLDER}/{}", summary.raw_file);
                pools.extend(pools_of(job, summary, &executor.log, &raw_file, request.seed));
                scenarios.push(ScenarioRun {
                    scenario: job.scenario.name().to_string(),
                    contestants: job.spec.contestants.iter().map(|c| c.to_string()).collect(),
                    params: job.spec.params.iter().map(|(k, v)| (k.to_string(), *v)).collect(),
                    why: job.spec.why.to_string(),
                    report: format!("{RUNS_FOLDER}/{}.md", job.scenario.name()),
                });
            }
            RunOutcome::Interrupted { raw, trials } => {
                eprintln!(
                    "error: interrupted; {trials} finished trial(s) kept in {}; no calibration written",
                    raw.display()
                );
                return Ok(ExitCode::from(130));
            }
        }
    }
    let mut environment = environment::capture();
    environment.testbed = Some(testbed::capture());
    let calibration = Calibration {
        schema_version: CALIBRATION_SCHEMA,
        provenance: environment::provenance(started_utc),
        environment,
        method: CalibrationMethod {
            quick: request.quick,
            forks: request.forks,
            processes: 2 * request.forks,
            seed: request.seed,
            max_pairs: MAX_PAIRS,
            padding_max_bytes: PADDING_MAX,
            limit: FALSE_SEPARATION_LIMIT,
            pairs_formed: PAIRS_FORMED.to_string(),
        },
        scenarios,
        not_offered,
        classes: classes_of(&pools, &request.classes),
        pools,
    };
    write(out, &calibration)?;
    print!("{}", summary_text(&calibration));
    Ok(if failed { ExitCode::from(1) } else { ExitCode::SUCCESS })
}

/// The pools of `job`'s run: each contestant's metric of a requested class, at each phase, with its pairs; a
/// contestant that did not run cleanly, or lacks the metric, leaves a pool without pairs saying why.
fn pools_of(
    job: &Job,
    summary: &Summary,
    padding: &BTreeMap<(String, Option<String>, u32), usize>,
    raw_file: &str,
    seed: u64,
) -> Vec<Pool> {
    let mut pools = Vec::new();
    let default_ratio = 1.0 + summary.method.noise_threshold;
    for name in &job.spec.contestants {
        for phase in summary.phase_keys() {
            let padding_bytes: Vec<usize> = (0..summary.method.forks)
                .filter_map(|fork| padding.get(&(name.to_string(), phase.map(str::to_string), fork)).copied())
                .collect();
            for metric in &job.metrics {
                let key = metric_key(phase, metric);
                let Some(class) = class_of(&key) else { continue };
                let mut pool = Pool {
                    scenario: summary.scenario.clone(),
                    contestant: name.to_string(),
                    metric: key.clone(),
                    class,
                    raw_file: raw_file.to_string(),
                    padding_bytes: padding_bytes.clone(),
                    process_medians: Vec::new(),
                    modes: Vec::new(),
                    note: None,
                    pairs: Vec::new(),
                };
                let contestant = summary.contestant(name);
                match (contestant.map(|c| c.status), contestant.and_then(|c| c.metrics.get(&key))) {
                    (Some(Status::Ok), Some(stats)) => {
                        pool.process_medians = stats.fork_medians.clone();
                        pool.modes = measure::calibration::modes(&stats.fork_medians, default_ratio);
                        pool.pairs = pairs::pairs_of(&stats.samples, MAX_PAIRS, seed.wrapping_add(pools.len() as u64));
                        pool.note = pool_note(stats.samples.len(), summary.method.forks as usize, &pool);
                    }
                    (Some(Status::Ok), None) => pool.note = Some(format!("{name} did not measure {key}")),
                    (Some(status), _) => pool.note = Some(format!("{name} did not run cleanly ({})", status.as_str())),
                    (None, _) => pool.note = Some(format!("{name} did not run")),
                }
                pools.push(pool);
            }
        }
    }
    pools
}

/// What a pool's reader must know: processes that measured nothing, one left out of every pair, two modes.
fn pool_note(measured: usize, planned: usize, pool: &Pool) -> Option<String> {
    let mut notes = Vec::new();
    if measured < planned {
        notes.push(format!("{measured} of {planned} processes measured it"));
    }
    if measured % 2 == 1 {
        notes.push(format!("process {measured} is in no pair, for halves of equal size"));
    }
    if !pool.modes.is_empty() {
        notes.push("its processes fall into two modes: left out of its class's rates".to_string());
    }
    (!notes.is_empty()).then(|| notes.join("; "))
}

/// Write `calibration.json` and `calibration.md` into `out`.
fn write(out: &OutputDir, calibration: &Calibration) -> Result<()> {
    let json = file::to_json_lines(&serde_json::to_value(calibration).context("encoding calibration.json")?);
    let files = vec![
        RenderedFile { path: "calibration.json".to_string(), contents: json },
        RenderedFile { path: "calibration.md".to_string(), contents: render::calibration::render(calibration) },
    ];
    out.write(&Rendered { files }).context("writing calibration.json and calibration.md")?;
    eprintln!("wrote {} and calibration.md", out.root().join("calibration.json").display());
    Ok(())
}

/// One line per class on standard output: its smallest detectable ratio and the pairs behind it.
fn summary_text(calibration: &Calibration) -> String {
    let mut text = String::new();
    for class in &calibration.classes {
        let ratio = class.sdr.map_or_else(|| "none".to_string(), |s| format!("{s:.2}×"));
        let at = class.at_sdr.map_or_else(String::new, |r| {
            format!(
                "; {:.1}% of pairs apart by the ratio at it, {:.1}% by the whole rule",
                r.ratio_rate * 100.0,
                r.rule_rate * 100.0
            )
        });
        text.push_str(&format!(
            "{}: smallest detectable ratio {ratio} ({} pairs from {} pools{at})\n",
            class.class.key(),
            class.pairs,
            class.pools
        ));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_scenario_s_calibration_names_what_it_has() {
        for scenario in registry::scenarios() {
            if let Some(spec) = scenario.calibration() {
                assert_eq!(check_spec(scenario, &spec), Ok(()));
            }
        }
    }

    #[test]
    fn every_class_has_a_representative() {
        let classes: Vec<MetricClass> = registry::scenarios()
            .iter()
            .filter_map(|s| s.calibration())
            .flat_map(|spec| spec.metrics.into_iter().filter_map(class_of))
            .collect();
        for class in MetricClass::ALL {
            assert!(classes.contains(&class), "{class:?} has no representative");
        }
    }

    fn request(classes: &[MetricClass]) -> Request {
        Request {
            out: PathBuf::from("target/calibration-test"),
            quick: false,
            classes: classes.to_vec(),
            forks: 5,
            seed: 1,
            trial_timeout: Duration::from_secs(300),
            dry_run: true,
            force: false,
        }
    }

    #[test]
    fn a_class_runs_only_the_scenarios_that_stand_for_it_each_contestant_in_twice_f_processes() {
        let (jobs, _) = jobs(&request(&[MetricClass::NsPerOp])).expect("jobs");
        let names: Vec<&str> = jobs.iter().map(|j| j.scenario.name()).collect();
        assert_eq!(names, ["primitives"]);
        let job = &jobs[0];
        assert_eq!(job.trials, job.spec.contestants.len() * 10, "one phase, 2 × 5 processes each");
        assert_eq!(job.metrics, ["ns_per_op"]);
        let plan = plan::plan(job.scenario, &job.options);
        assert_eq!(plan.method.forks, 10);
        // The rotation of a real run: within each fork every contestant once, the first one moving on.
        let firsts: Vec<&str> =
            plan.trials.iter().filter(|t| t.order == 0).map(|t| t.request.contestant.as_str()).collect();
        assert!(firsts.iter().collect::<std::collections::BTreeSet<_>>().len() > 1, "{firsts:?}");
    }

    #[test]
    fn the_full_calibration_is_estimated_under_a_quarter_of_an_hour() {
        let (jobs, not_offered) = jobs(&request(&MetricClass::ALL)).expect("jobs");
        let total: f64 = jobs.iter().map(|j| j.estimate_s).sum();
        assert!(total < 15.0 * 60.0, "{total} s");
        assert!(not_offered.contains(&"http".to_string()));
        let text = plan_words(&request(&MetricClass::ALL), &jobs, &not_offered);
        assert!(text.contains("estimated time: "), "{text}");
    }

    #[test]
    fn a_pool_s_note_says_what_its_reader_must_know() {
        let pool = |modes: Vec<Vec<usize>>| Pool {
            scenario: "chain".to_string(),
            contestant: "a".to_string(),
            metric: "ms_per_million".to_string(),
            class: MetricClass::PerItem,
            raw_file: String::new(),
            padding_bytes: Vec::new(),
            process_medians: Vec::new(),
            modes,
            note: None,
            pairs: Vec::new(),
        };
        assert_eq!(pool_note(10, 10, &pool(Vec::new())), None);
        assert_eq!(
            pool_note(9, 10, &pool(Vec::new())).as_deref(),
            Some("9 of 10 processes measured it; process 9 is in no pair, for halves of equal size")
        );
        let two = pool_note(10, 10, &pool(vec![vec![0], vec![1]])).expect("a note");
        assert!(two.contains("two modes"), "{two}");
    }
}
