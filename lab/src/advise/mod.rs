//! `lab advise`: the user's own shape of work in, a measured recommendation out.
//!
//! The shape (CPU µs per item, items, I/O calls with their latency and in-flight bound, order, a dependency that
//! loses capacity, batchability, cores) picks the scenarios that answer it ([`shape::runs`]); each runs its
//! candidates (and one labelled mistake row) at the shape's parameters through the ordinary trial runner, pinned
//! to the cores asked; each run writes its own raw file and report, and an advice header
//! (`raw/advice-<stamp>.jsonl`) names them, so `lab report` on the header re-renders `advice.md` and
//! `advice.json` from the raw records alone ([`report`]).

mod calibrate;
mod page;
mod predict;
pub(crate) mod shape;
mod verdict;

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{Context, Result};
use clap::ArgMatches;
use measure::limits::ThreadLimits;
use render::output::OutputDir;
use render::{Rendered, RenderedFile};
use serde::{Deserialize, Serialize};

use crate::cpus::allowed_cpus;
use crate::error::UsageError;
use crate::executor::ProcessExecutor;
use crate::options::RunOptions;
use crate::run as scenario_run;
use crate::run::RunOutcome;
use crate::{kind, plan, raw, registry};

pub(crate) use calibrate::Calibration;
pub(crate) use shape::{AdvisedRun, Shape};

/// Default fresh processes per contestant and phase.
const DEFAULT_FORKS: u32 = 5;

/// Default time budget, in seconds.
const DEFAULT_BUDGET_S: f64 = 300.0;

/// Threads left for everything else when checking in-flight against the OS's limits.
const THREAD_MARGIN: u64 = 256;

/// A validated `lab advise`: the shape, its calibration and the runs it needs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Request {
    /// The shape.
    pub shape: Shape,
    /// CPU work per item mapped onto the rounds of the declared CPU work, and its check.
    pub calibration: Calibration,
    /// The CPUs the trials are pinned to.
    pub cpus: Vec<usize>,
    /// Processes per contestant and phase.
    pub forks: u32,
    /// The time budget, in seconds.
    pub budget_s: f64,
    /// Seed.
    pub seed: u64,
    /// The folder `--out` named (the advice goes in a sub-folder named after the shape).
    pub out: PathBuf,
    /// Replace an advice of the other run kind.
    pub force: bool,
    /// Print the plan and run nothing.
    #[serde(default)]
    pub dry_run: bool,
    /// The scenario runs.
    pub runs: Vec<AdvisedRun>,
    /// What the cost model predicted for each run before it ran, in the order of `runs`.
    #[serde(default)]
    pub predictions: Vec<predict::Predicted>,
}

impl Request {
    /// The folder the advice is written to: `--out`/`<shape>`.
    pub(crate) fn folder(&self) -> PathBuf {
        self.out.join(self.shape.slug())
    }

    /// The `lab advise` command that makes this advice again.
    pub(crate) fn command(&self) -> String {
        let s = &self.shape;
        let mut parts =
            vec!["just lab advise".to_string(), format!("--cpu-us-per-item {}", shape::trim(s.cpu_us_per_item))];
        match s.items_per_second {
            Some(rate) => parts.push(format!("--items-per-second {rate}")),
            None => parts.push(format!("--items {}", s.items)),
        }
        if s.io_calls_per_item > 0 {
            parts.push(format!("--io-calls-per-item {}", s.io_calls_per_item));
            parts.push(format!("--io-latency-ms {}", s.io_latency_ms));
            parts.push(format!("--in-flight {}", s.in_flight));
        }
        if s.ordered {
            parts.push("--ordered".to_string());
        }
        if s.loses_capacity {
            parts.push("--dependency-loses-capacity".to_string());
            parts.push(format!("--capacity-after {}", s.capacity_after));
        }
        if s.batchable {
            parts.push("--batchable".to_string());
        }
        parts.push(format!("--cores {}", s.cores));
        parts.push(format!("--forks {}", self.forks));
        parts.push(format!("--budget {}", shape::trim(self.budget_s)));
        parts.push(format!("--seed {}", self.seed));
        parts.push(format!("--out {}", self.out.display()));
        parts.join(" ")
    }

    /// The estimated seconds of every run.
    fn estimate_s(&self) -> f64 {
        self.runs.iter().map(|r| r.estimate_s).sum()
    }
}

/// The first line of an advice header file: everything the advice needs beside the scenario runs' raw files.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct AdviceHeader {
    /// The request as run.
    pub request: Request,
    /// Each run's raw file, relative to the advice folder, in the order of `request.runs`.
    pub raw_files: Vec<String>,
    /// The advice header's own path, relative to the advice folder.
    pub header_file: String,
    /// When the advice run started and finished, RFC 3339 UTC.
    pub started_utc: String,
    /// When it finished.
    pub finished_utc: String,
}

/// The line an advice header file holds: `{"advice": {...}}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct AdviceLine {
    advice: AdviceHeader,
}

/// A whole number above 0 (or at least `min`) from flag `id`, or `default`.
fn whole(sub: &ArgMatches, id: &str, default: u64, min: u64) -> Result<u64, UsageError> {
    let Some(raw) = sub.get_one::<String>(id) else { return Ok(default) };
    let parsed: Option<i128> = raw.trim().replace('_', "").parse().ok();
    match parsed {
        Some(v) if v >= i128::from(min) && v <= i128::from(u64::MAX) => Ok(v as u64),
        Some(v) => Err(UsageError::new(format!(
            "--{id} must be {}, got {v}",
            if min == 0 { "0 or more".to_string() } else { format!("at least {min}") }
        ))),
        None => Err(UsageError::new(format!("--{id}: `{raw}` is not a whole number"))),
    }
}

/// A number above 0 from flag `id`, or `default`.
fn positive(sub: &ArgMatches, id: &str, default: f64, unit: &str) -> Result<f64, UsageError> {
    let Some(raw) = sub.get_one::<String>(id) else { return Ok(default) };
    match raw.trim().parse::<f64>() {
        Ok(v) if v.is_finite() && v > 0.0 => Ok(v),
        Ok(v) => Err(UsageError::new(format!("--{id} must be above 0 {unit}, got {v}"))),
        Err(_) => Err(UsageError::new(format!("--{id}: `{raw}` is not a number"))),
    }
}

/// Turn `lab advise`'s flags into a validated request: every bad shape is a usage error (exit 2), found before
/// anything is written.
pub(crate) fn request(sub: &ArgMatches) -> Result<Request, UsageError> {
    let cpu_us_per_item = positive(sub, "cpu-us-per-item", 1.0, "µs")?;
    let items_per_second =
        if sub.contains_id("items-per-second") { Some(whole(sub, "items-per-second", 1, 1)?) } else { None };
    if items_per_second.is_some() && sub.get_one::<String>("items").is_some() {
        return Err(UsageError::new("give --items or --items-per-second, not both"));
    }
    let items = items_per_second.map_or_else(|| whole(sub, "items", 10_000, 1), Ok)?;
    let io_calls_per_item = whole(sub, "io-calls-per-item", 0, 0)?;
    let io_latency_ms = whole(sub, "io-latency-ms", 10, 1)?;
    let in_flight = whole(sub, "in-flight", 1_000, 1)?;
    let loses_capacity = sub.get_flag("dependency-loses-capacity");
    if loses_capacity && io_calls_per_item == 0 {
        return Err(UsageError::new(
            "--dependency-loses-capacity needs calls to a dependency: give --io-calls-per-item 1 or more",
        ));
    }
    let capacity_after = whole(sub, "capacity-after", (in_flight / 5).max(1), 1)?;
    if sub.get_one::<String>("capacity-after").is_some() && !loses_capacity {
        return Err(UsageError::new("--capacity-after needs --dependency-loses-capacity"));
    }
    if loses_capacity && capacity_after >= in_flight {
        return Err(UsageError::new(format!(
            "--capacity-after {capacity_after} is not a loss: it must be below --in-flight {in_flight}"
        )));
    }
    let allowed = allowed_cpus();
    let cores = whole(sub, "cores", allowed.len().max(1) as u64, 1)?;
    if !allowed.is_empty() && cores > allowed.len() as u64 {
        return Err(UsageError::new(format!(
            "--cores {cores}: this process may run on {} CPU(s) ({}); ask for at most that many",
            allowed.len(),
            crate::term::comma_list(&allowed)
        )));
    }
    let cpus: Vec<usize> = allowed.iter().copied().take(cores as usize).collect();
    let budget_s = positive(sub, "budget", DEFAULT_BUDGET_S, "seconds")?;
    let forks = sub.get_one::<u32>("forks").copied().unwrap_or(DEFAULT_FORKS);
    if io_calls_per_item > 0 {
        if let Some(why) = ThreadLimits::read().refuse(in_flight, THREAD_MARGIN) {
            return Err(UsageError::new(format!(
                "--in-flight {in_flight} is above what this machine allows: the blocking candidates run one OS \
                 thread per call in flight, and {why}"
            )));
        }
    }
    let shape = Shape {
        cpu_us_per_item,
        items,
        items_per_second,
        io_calls_per_item,
        io_latency_ms,
        in_flight,
        ordered: sub.get_flag("ordered"),
        loses_capacity,
        capacity_after,
        batchable: sub.get_flag("batchable"),
        cores: cores as u32,
    };
    let work = calibrate::Work::declared()
        .ok_or_else(|| UsageError::new("no scenario of this lab declares how CPU work per item maps onto it"))?;
    let calibration = calibrate::calibrate(&work, cpu_us_per_item);
    let most = work.max_us(calibration.ns_per_round);
    if cpu_us_per_item > most {
        return Err(UsageError::new(format!(
            "--cpu-us-per-item {cpu_us_per_item} is more than the {} can express here: at most {most:.0} µs \
             ({} rounds of {:.2} ns)",
            work.scenario, work.max_rounds, calibration.ns_per_round
        )));
    }
    let runs = shape::runs(&shape, calibration.rounds, forks);
    for run in &runs {
        shape::check_params(run).map_err(UsageError::new)?;
    }
    // The floor the advised runs cite (the sitting's `reports/floor.json`) prices the model's prediction.
    let floor = crate::options::RunOptions::default().floor;
    let environment = crate::environment::capture();
    let predictions =
        runs.iter().map(|run| predict::predict(run, floor.as_deref(), &environment, shape.cores)).collect();
    let request = Request {
        shape,
        calibration,
        cpus,
        forks,
        budget_s,
        seed: sub.get_one::<u64>("seed").copied().unwrap_or(1),
        out: sub.get_one::<PathBuf>("out").cloned().unwrap_or_else(|| PathBuf::from("reports/advice")),
        force: sub.get_flag("force"),
        dry_run: sub.get_flag("dry-run"),
        runs,
        predictions,
    };
    check_budget(&request)?;
    Ok(request)
}

/// Refuse a budget the runs' estimate exceeds, saying what fits.
fn check_budget(request: &Request) -> Result<(), UsageError> {
    let total = request.estimate_s();
    if total <= request.budget_s {
        return Ok(());
    }
    let parts: Vec<String> = request
        .runs
        .iter()
        .map(|r| format!("{} {:.0} s ({} contestants)", r.scenario, r.estimate_s, r.contestants().len()))
        .collect();
    let per_fork = total / f64::from(request.forks);
    let forks_fit = (request.budget_s / per_fork).floor() as u32;
    let fits_forks = if forks_fit >= 1 {
        format!("--forks {forks_fit} fits (fewer processes give weaker verdicts: p = 1/C(2k, k) at best)")
    } else {
        "not even one process per contestant fits".to_string()
    };
    Err(UsageError::new(format!(
        "the budget of {:.0} s is too short: {} processes of the chosen candidates need about {:.0} s ({}). What \
         fits: --budget {:.0}; or {fits_forks}; or about --items {} (an estimate: process start-ups do not shrink \
         with the items)",
        request.budget_s,
        request.forks,
        total,
        parts.join(", "),
        total.ceil(),
        ((request.shape.items as f64 * request.budget_s / total) as u64).max(1),
    )))
}

/// The plan of `request`, as `--dry-run` prints it.
pub(crate) fn plan_text(request: &Request) -> String {
    let mut text = format!(
        "advise: {} on {} core(s) (CPUs {}), {} processes per contestant and phase, folder {}\n  check {}: {}\n",
        request.shape.slug(),
        request.shape.cores,
        crate::term::comma_list(&request.cpus),
        request.forks,
        request.folder().display(),
        request.calibration.check().name,
        request.calibration.check().detail
    );
    for r in &request.runs {
        let params: Vec<String> = r.params.iter().map(|(k, v)| plan::param_flag(k, v)).collect();
        text.push_str(&format!(
            "  {}: {}\n    {} ({} contestants: {}), about {:.0} s\n",
            r.scenario,
            r.why,
            params.join(" "),
            r.contestants().len(),
            r.contestants().join(", "),
            r.estimate_s
        ));
    }
    text.push_str(&format!(
        "  about {:.0} s in all, within a budget of {:.0} s\n",
        request.estimate_s(),
        request.budget_s
    ));
    text
}

/// The trial time budget of an advice run.
const TRIAL_TIMEOUT: Duration = Duration::from_secs(300);

/// Run every scenario of `request`, then write and print the advice.
pub(crate) fn run(request: &Request, out: &OutputDir, interrupted: &Arc<AtomicBool>) -> Result<ExitCode> {
    kind::check(out.root(), "advice", false, request.force)?;
    for r in &request.runs {
        kind::check(out.root(), &r.scenario, false, request.force)?;
    }
    let started_utc = crate::environment::utc_now();
    eprintln!(
        "advise: {} on {} core(s) (CPUs {}); {} µs per item is {} {}s here (calibration {}); about {:.0} s of runs \
         within a budget of {:.0} s",
        request.shape.slug(),
        request.shape.cores,
        crate::term::comma_list(&request.cpus),
        shape::trim(request.shape.cpu_us_per_item),
        request.calibration.rounds,
        calibrate::Work::declared().map_or("round", |w| w.work.round),
        request.calibration.check().outcome(),
        request.estimate_s(),
        request.budget_s
    );
    let mut executor = ProcessExecutor::new(TRIAL_TIMEOUT, Arc::clone(interrupted)).pinned_to(request.cpus.clone());
    let mut raw_files = Vec::new();
    let mut summaries = Vec::new();
    for (i, advised) in request.runs.iter().enumerate() {
        let scenario = advised.scenario().with_context(|| format!("unknown scenario {}", advised.scenario))?;
        eprintln!(
            "advise: [{}/{}] {}: {} — {} contestant(s), about {:.0} s",
            i + 1,
            request.runs.len(),
            advised.scenario,
            advised.why,
            advised.contestants().len(),
            advised.estimate_s
        );
        let options = RunOptions {
            out: out.root().to_path_buf(),
            only: Some(advised.contestants()),
            forks: Some(advised.forks),
            warmup: Some(advised.warmup),
            iterations: Some(advised.iterations),
            accounting: Some(advised.accounting),
            seed: request.seed,
            trial_timeout: TRIAL_TIMEOUT,
            params: advised.params.clone(),
            pin: Some(measure::setup::Pin { cores: request.shape.cores, cpus: request.cpus.clone() }),
            ..RunOptions::default()
        };
        let planned = plan::plan(scenario, &options);
        match scenario_run::run(&planned, options.only.as_deref(), out, &mut executor, interrupted)? {
            RunOutcome::Finished { rendered, report } => {
                eprintln!("{}: wrote {}", scenario.name(), report.display());
                raw_files.push(rendered.summary.raw_file.clone());
                summaries.push(rendered.summary);
            }
            RunOutcome::Interrupted { raw, trials } => {
                eprintln!(
                    "error: interrupted; {trials} finished trial(s) kept in {}; no advice written",
                    raw.display()
                );
                return Ok(ExitCode::from(130));
            }
        }
    }
    let stamp: String = started_utc.chars().filter(|c| *c != '-' && *c != ':').collect();
    let mut appender = out.create_raw("advice", &stamp).context("creating the advice header")?;
    let header = AdviceHeader {
        request: request.clone(),
        raw_files,
        header_file: appender.rel_path().to_string(),
        started_utc,
        finished_utc: crate::environment::utc_now(),
    };
    let line = serde_json::to_string(&AdviceLine { advice: header.clone() }).context("encoding the advice header")?;
    appender.append_line(&line).context("writing the advice header")?;
    drop(appender);
    write_advice(out, &header, &summaries, None)
}

/// Whether `path` is an advice header (its first line is `{"advice": ...}`).
pub(crate) fn is_advice_file(path: &Path) -> bool {
    read_header(path).is_ok()
}

fn read_header(path: &Path) -> Result<AdviceHeader, UsageError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| UsageError::new(format!("cannot read advice header {}: {e}", path.display())))?;
    let first = text.lines().next().unwrap_or_default();
    serde_json::from_str::<AdviceLine>(first)
        .map(|l| l.advice)
        .map_err(|e| UsageError::new(format!("{}: not an advice header: {e}", path.display())))
}

/// `lab report <advice header>`: re-render every scenario run the header names and the advice, from the raw
/// records alone.
pub(crate) fn report(path: &Path, out: &OutputDir, force: bool) -> Result<ExitCode> {
    let header = read_header(path)?;
    // The header sits in `<advice folder>/raw/`; the raw files it names are relative to that folder.
    let folder = path.parent().and_then(Path::parent).unwrap_or(Path::new("."));
    let mut runs = Vec::new();
    for rel in &header.raw_files {
        let raw_path = folder.join(rel);
        let run = raw::read(&raw_path)?;
        let scenario = registry::find(&run.header.scenario).ok_or_else(|| {
            UsageError::new(format!("{}: unknown scenario `{}`", raw_path.display(), run.header.scenario))
        })?;
        runs.push((raw_path, run, scenario));
    }
    kind::check(out.root(), "advice", false, force)?;
    // `lab report`'s default folder is `reports/`: never let an advice's scenario runs replace the scenarios'
    // own reports there.
    let foreign = runs.iter().map(|(_, _, s)| s.name()).find(|name| out.root().join(format!("{name}.json")).exists());
    if let (Some(name), false, false) = (foreign, out.root().join("advice.json").exists(), force) {
        return Err(UsageError::new(format!(
            "{} holds {name}.json of a scenario run, not of an advice: give --out the advice's folder (such as {}), \
             or --force to replace it",
            out.root().display(),
            folder.display()
        ))
        .into());
    }
    let mut summaries = Vec::new();
    for (raw_path, run, scenario) in runs {
        let rendered = crate::write_run(&raw_path, &run, scenario, None, out, "writing a scenario's report")?;
        summaries.push(rendered.summary);
    }
    let copy = crate::raw_copy(path, &header.header_file, "advice header", out)?;
    write_advice(out, &header, &summaries, copy)
}

/// Write the advice of `header`'s runs (with `copy`, its header's copy, where `out` lacks it) and print it; exit 0
/// when the calibration passed and every contestant of the runs passed or failed exactly as its scenario declares
/// it expected to ([`crate::outcome`]), else 1.
fn write_advice(
    out: &OutputDir,
    header: &AdviceHeader,
    summaries: &[measure::summary::Summary],
    copy: Option<RenderedFile>,
) -> Result<ExitCode> {
    let mut rendered = page::render(header, summaries);
    rendered.files.extend(copy);
    out.write(&Rendered { files: rendered.files }).context("writing the advice")?;
    print!("{}", rendered.terminal);
    eprintln!("advise: wrote {}", out.root().join("advice.md").display());
    let status = crate::outcome::judge(summaries, &[]).exit_status();
    if !header.request.calibration.passed {
        let check = header.request.calibration.check();
        eprintln!("error: check {} failed: {}: exit 1", check.name, check.detail);
        return Ok(ExitCode::from(1));
    }
    Ok(status)
}
