//! Running a planned scenario: every trial in a fresh process, each record appended to the raw file as it
//! ends, then the report rendered from that raw file. An interrupted run keeps its finished trials and
//! writes no report.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use anyhow::{Context, Result};
use measure::record::{RawLine, RunFooter, RunHeader, Status};
use render::output::OutputDir;

use crate::cpus::{allowed_cpus, parallelism_on};
use crate::environment;
use crate::executor::TrialExecutor;
use crate::plan::{self, RunPlan};
use crate::progress::Progress;
use crate::raw;
use crate::rendering;
use crate::sizing;
use crate::table;
use crate::testbed;

/// How a scenario run ended.
#[derive(Debug)]
pub(crate) enum RunOutcome {
    /// Every trial ran; the report is written.
    Finished {
        /// The run's summary, report files, index line and what its summary table needs.
        rendered: Box<rendering::RenderedRun>,
        /// The report's path.
        report: PathBuf,
    },
    /// Interrupted: finished trials are in the raw file, no report was written.
    Interrupted {
        /// The raw file.
        raw: PathBuf,
        /// Trials kept.
        trials: usize,
    },
}

/// Run every trial of `plan` with `executor`, writing under `out`.
pub(crate) fn run(
    plan: &RunPlan,
    only: Option<&[String]>,
    out: &OutputDir,
    executor: &mut dyn TrialExecutor,
    interrupted: &Arc<AtomicBool>,
) -> Result<RunOutcome> {
    let scenario = plan.scenario;
    let started_utc = environment::utc_now();
    let stamp: String = started_utc.chars().filter(|c| *c != '-' && *c != ':').collect();
    let mut appender = out.create_raw(scenario.name(), &stamp).context("creating the raw record file")?;
    let raw_file = appender.rel_path().to_string();
    let (git_rev, git_dirty) = environment::build_revision();
    let mut environment = environment::capture();
    environment.testbed = Some(testbed::capture());
    environment.pin = plan.pin.clone();
    environment.runtimes = runtimes(plan);
    // The thresholds the judge will read: this testbed's calibration, or the labelled default and why.
    let method = measure::calibration::file::judged_with(&plan.method, plan.calibration.as_deref(), &environment);
    // The machine's floor of this sitting, or why the run cites none: recorded here, so `lab report` renders it alike.
    environment.floor = Some(crate::floor::cited(plan.floor.as_deref(), &environment, method.quick));
    let header = RunHeader {
        scenario: scenario.name().to_string(),
        lab_version: env!("CARGO_PKG_VERSION").to_string(),
        git_rev,
        git_dirty,
        started_utc,
        environment,
        method,
        params: plan.params.clone(),
        contestants: plan.contestants.clone(),
        command: plan::command_line(scenario.name(), &plan.params, &plan.method, only, plan.pin.as_ref()),
        raw_file: raw_file.clone(),
    };
    let raw_path = appender.path().to_path_buf();
    let append = |appender: &mut render::output::RawAppender, line: &RawLine| -> Result<()> {
        let text = serde_json::to_string(line).context("encoding a raw record")?;
        appender.append_line(&text).map_err(anyhow::Error::new)
    };
    append(&mut appender, &RawLine::Run(header)).map_err(|e| kept_in(e, &raw_path, 0))?;

    let mut progress = Progress::new(
        scenario.name(),
        plan.trials.len(),
        scenario.headline_metric(),
        table::table_cpu_metric(scenario),
    );
    let mut kept = 0;
    for trial in &plan.trials {
        if interrupted.load(Ordering::SeqCst) {
            break;
        }
        progress.start(trial);
        let record = executor.run(trial, &mut |msg| progress.message(msg));
        if let Some(why) = executor.setup_error() {
            // Every later trial would measure under the same doubt: stop, keep what finished, write no report.
            progress.close();
            let why = format!(
                "{why}\nthe run stops here: no report written; {kept} finished trial(s) kept in {}",
                raw_path.display()
            );
            return Err(crate::error::UsageError::new(why).into());
        }
        let stopping = interrupted.load(Ordering::SeqCst);
        if stopping && record.status != Status::Ok {
            // Ctrl-C reached the trial process too: it did not fail by its own doing, so keep nothing of it.
            break;
        }
        progress.finish(&record);
        if let Err(e) = append(&mut appender, &RawLine::Trial(record)) {
            progress.close();
            return Err(kept_in(e, &raw_path, kept));
        }
        kept += 1;
        if stopping {
            break;
        }
    }
    progress.close();
    if interrupted.load(Ordering::SeqCst) {
        return Ok(RunOutcome::Interrupted { raw: raw_path, trials: kept });
    }
    append(&mut appender, &RawLine::End(RunFooter { finished_utc: environment::utc_now() }))
        .map_err(|e| kept_in(e, &raw_path, kept))?;
    drop(appender);

    // Render from the raw file, exactly as `lab report` will.
    let run = raw::read(&raw_path).map_err(|e| kept_in(anyhow::Error::new(e), &raw_path, kept))?;
    let rendered = rendering::render(&run, scenario, None);
    out.write(&rendered.files).map_err(|e| {
        let e = anyhow::Error::new(e).context("the report was not written (the folder keeps any earlier report whole)");
        kept_in(e, &raw_path, kept)
    })?;
    Ok(RunOutcome::Finished {
        report: out.root().join(format!("{}.md", scenario.name())),
        rendered: Box::new(rendered),
    })
}

/// The runtimes' sizes inside a trial process of `plan`: on its pinned CPUs, else every CPU the lab may use.
fn runtimes(plan: &RunPlan) -> Vec<measure::setup::Setting> {
    let (cpus, pinned) = match &plan.pin {
        Some(pin) => (pin.cpus.clone(), true),
        None => (allowed_cpus(), false),
    };
    let parallelism = match &plan.pin {
        Some(pin) => parallelism_on(&pin.cpus).unwrap_or(pin.cpus.len()),
        None => std::thread::available_parallelism().map_or(cpus.len().max(1), usize::from),
    };
    sizing::runtimes(plan.scenario, &plan.params, &cpus, parallelism, pinned, |v| std::env::var(v).ok())
}

/// An output failure during a run, with where the trials that finished are kept and how to render them.
fn kept_in(error: anyhow::Error, raw: &Path, trials: usize) -> anyhow::Error {
    anyhow::anyhow!(
        "{error:#}; {trials} finished trial(s) are kept in {}: render them with `{}`",
        raw.display(),
        report_command(raw)
    )
}

/// The command that renders the trials kept in `raw` (`<out>/raw/<file>.jsonl`) into the folder they were run for,
/// as a user types it after the README's set-up.
pub(crate) fn report_command(raw: &Path) -> String {
    let out = raw.parent().and_then(Path::parent).filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    format!("just lab report {} --out {}", raw.display(), out.display())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use std::collections::BTreeMap;

    use measure::record::{IterationRecord, MetricValues, TrialMessage, TrialRecord, TrialRequest};
    use measure::scenario::{ChartSpec, ParamSpec, Scenario, TrialError, TrialSink};
    use measure::summary::{Check, ClaimResult, ContestantInfo, Family, Summary};

    use super::*;
    use crate::options::RunOptions;
    use crate::plan::PlannedTrial;

    /// A scenario with two contestants and a two-level sweep, never run for real.
    struct FakeScenario;

    impl Scenario for FakeScenario {
        fn name(&self) -> &'static str {
            "fake"
        }
        fn title(&self) -> &'static str {
            "Fake"
        }
        fn question(&self) -> &'static str {
            "Does the lab's plumbing work?"
        }
        fn params(&self) -> Vec<ParamSpec> {
            vec![ParamSpec {
                name: "level",
                help: "a sweep",
                default: vec![1, 2],
                quick: vec![1],
                sweep: true,
                min: 0,
                max: 10,
            }]
        }
        fn contestants(&self) -> Vec<ContestantInfo> {
            ["fast", "slow", "broken"]
                .iter()
                .map(|n| ContestantInfo {
                    name: n.to_string(),
                    family: Family::Baseline,
                    expected_failure: None,
                    role: Default::default(),
                    description: format!("{n} one"),
                })
                .collect()
        }
        fn headline_metric(&self) -> &'static str {
            "wall_ms"
        }
        fn table_metrics(&self) -> Vec<&'static str> {
            vec!["wall_ms"]
        }
        fn charts(&self) -> Vec<ChartSpec> {
            Vec::new()
        }
        fn run_trial(&self, _: &TrialRequest, _: &mut dyn TrialSink) -> Result<(), TrialError> {
            Ok(())
        }
        fn claims(&self, _: &Summary) -> Vec<ClaimResult> {
            Vec::new()
        }
        fn discussion(&self, _: &Summary) -> String {
            String::new()
        }
    }

    /// Answers every trial from a script: `fast` takes 1 ms per level, `slow` 10 ms, `broken` fails its check.
    struct ScriptedExecutor {
        seen: Vec<TrialRequest>,
        interrupt_after: Option<(usize, Arc<AtomicBool>)>,
    }

    impl TrialExecutor for ScriptedExecutor {
        fn run(&mut self, trial: &PlannedTrial, on_message: &mut dyn FnMut(&TrialMessage)) -> TrialRecord {
            self.seen.push(trial.request.clone());
            if let Some((n, flag)) = &self.interrupt_after {
                if self.seen.len() > *n {
                    flag.store(true, Ordering::SeqCst);
                }
            }
            let r = &trial.request;
            let level = r.params["level"] as f64;
            let per = match r.contestant.as_str() {
                "fast" => 1.0,
                _ => 10.0,
            };
            let iterations: Vec<IterationRecord> = (0..r.warmup + r.iterations)
                .map(|i| IterationRecord {
                    index: i,
                    warmup: i < r.warmup,
                    accounting: false,
                    metrics: MetricValues::from([("wall_ms".to_string(), per * level + f64::from(i))]),
                    series: BTreeMap::new(),
                    ..IterationRecord::default()
                })
                .collect();
            for it in &iterations {
                on_message(&TrialMessage::Iteration(it.clone()));
            }
            let passed = r.contestant != "broken";
            TrialRecord {
                contestant: r.contestant.clone(),
                phase: r.phase.clone(),
                fork: r.fork,
                order: trial.order,
                status: if passed { Status::Ok } else { Status::Failed },
                reason: (!passed).then(|| "check `sum` failed: 1 != 2".to_string()),
                checks: vec![Check::new("sum", passed, "compared")],
                iterations,
                metrics: MetricValues::new(),
                stderr_tail: None,
            }
        }
    }

    fn options() -> RunOptions {
        RunOptions { forks: Some(3), warmup: Some(1), iterations: Some(2), ..RunOptions::default() }
    }

    #[test]
    fn every_fork_starts_with_a_different_contestant() {
        let plan = plan::plan(&FakeScenario, &options());
        let firsts: Vec<&str> = (0..3)
            .map(|fork| {
                plan.trials.iter().find(|t| t.request.fork == fork).map(|t| t.request.contestant.as_str()).unwrap()
            })
            .collect();
        assert_eq!(firsts, ["fast", "slow", "broken"]);
        assert_eq!(plan.trials.len(), 3 * 2 * 3);
    }

    #[test]
    fn a_run_appends_every_trial_then_reports_statistics_over_all_forks() {
        let dir = tempfile::tempdir().unwrap();
        let out = OutputDir::new(dir.path());
        let plan = plan::plan(&FakeScenario, &options());
        let mut executor = ScriptedExecutor { seen: Vec::new(), interrupt_after: None };
        let flag = Arc::new(AtomicBool::new(false));
        let RunOutcome::Finished { rendered, report } = run(&plan, None, &out, &mut executor, &flag).unwrap() else {
            panic!("the run should finish")
        };
        let summary = &rendered.summary;
        assert!(report.exists());
        assert_eq!(executor.seen.len(), 18);
        let fast = summary.contestant("fast").unwrap();
        assert_eq!(fast.status, Status::Ok);
        // Measured iterations 1 and 2 of each of 3 forks at level 2: 2*1 + {1, 2}.
        let stats = &fast.metrics["level_2.wall_ms"];
        assert_eq!(stats.n, 6);
        assert_eq!((stats.min, stats.max, stats.median), (3.0, 4.0, 3.5));
        assert_eq!(stats.fork_medians.len(), 3);
        let broken = summary.contestant("broken").unwrap();
        assert_eq!(broken.status, Status::Failed);
        assert!(broken.metrics.is_empty(), "a failed contestant's numbers must not be reported as results");
        assert!(!crate::outcome::judge([summary], &[]).ok(), "`broken` failed, and nothing expected it to");
        assert_eq!(summary.phases, ["level_1", "level_2"]);
    }

    /// Interrupt during trial `n + 1` of the fake plan and return the outcome and the folder.
    fn interrupt_during(n: usize) -> (RunOutcome, tempfile::TempDir) {
        let dir = tempfile::tempdir().unwrap();
        let out = OutputDir::new(dir.path());
        let plan = plan::plan(&FakeScenario, &options());
        let flag = Arc::new(AtomicBool::new(false));
        let mut executor = ScriptedExecutor { seen: Vec::new(), interrupt_after: Some((n, flag.clone())) };
        (run(&plan, None, &out, &mut executor, &flag).unwrap(), dir)
    }

    #[test]
    fn an_interrupted_run_keeps_finished_trials_and_writes_no_report() {
        // Trial 5 (`slow`) ends cleanly although Ctrl-C arrived while it ran: it is kept, and the run stops.
        let (outcome, dir) = interrupt_during(4);
        let RunOutcome::Interrupted { raw, trials } = outcome else { panic!("the run should stop") };
        assert_eq!(trials, 5);
        let kept = raw::read(&raw).unwrap();
        assert_eq!(kept.trials.len(), 5);
        assert!(kept.footer.is_none());
        assert!(!dir.path().join("fake.md").exists());
        assert!(!dir.path().join("fake.json").exists());
    }

    #[test]
    fn a_trial_that_fails_while_the_run_is_interrupted_is_not_kept() {
        // Trial 3 (`broken`) fails while Ctrl-C is pending: its failure may be the signal's, so it is dropped.
        let (outcome, _dir) = interrupt_during(2);
        let RunOutcome::Interrupted { raw, trials } = outcome else { panic!("the run should stop") };
        assert_eq!(trials, 2);
        assert_eq!(raw::read(&raw).unwrap().trials.len(), 2);
    }
}
