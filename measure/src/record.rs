//! Typed messages between the lab and its trial processes, and the raw records it keeps.
//!
//! The lab sends a [`TrialRequest`] as one JSON document on the trial process's standard input. The trial
//! answers with one [`TrialMessage`] per line on its standard output, as each event happens, so that a trial
//! killed half-way still leaves what it finished. The lab folds those messages into one [`TrialRecord`] and
//! appends it to the run's raw file as a [`RawLine`]; the raw file alone is enough to re-render every report.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

use crate::check::Check;
use crate::contestant::ContestantInfo;
use crate::setup::{Environment, Method};

/// Concrete parameter values of one trial: every parameter has exactly one value here.
pub type TrialParams = BTreeMap<String, u64>;

/// Parameter values of a whole run: a sweep parameter may carry several values.
pub type RunParams = BTreeMap<String, Vec<u64>>;

/// Named metric values of one measured iteration or one trial (the unit is part of the name).
pub type MetricValues = BTreeMap<String, f64>;

/// What the lab asks one trial process to do.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TrialRequest {
    /// Scenario name, as in `lab list`.
    pub scenario: String,
    /// Contestant name, as in `lab list`.
    pub contestant: String,
    /// Phase (sweep level) this trial measures, such as `work_64`; `None` for a scenario without a sweep.
    pub phase: Option<String>,
    /// One value for every parameter of the scenario.
    pub params: TrialParams,
    /// Which fork (fresh process) this is, counting from 0.
    pub fork: u32,
    /// Warm-up iterations to run and discard.
    pub warmup: u32,
    /// Measured iterations to run and report.
    pub iterations: u32,
    /// Seed for any randomness in inputs.
    pub seed: u64,
    /// Whether this is a `--quick` smoke run.
    pub quick: bool,
    /// Accounting iterations to run after the measured ones (untimed, with every instrument on).
    #[serde(default = "one")]
    pub accounting: u32,
}

fn one() -> u32 {
    1
}

fn is_false(value: &bool) -> bool {
    !*value
}

/// One line a trial process writes on its standard output.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "msg", rename_all = "snake_case")]
pub enum TrialMessage {
    /// One iteration finished (warm-up or measured).
    Iteration(IterationRecord),
    /// A correctness check ran.
    Check(Check),
    /// The trial is skipped (the machine cannot run it) with the reason.
    Skipped {
        /// Why, in the words of the OS or library that refused.
        reason: String,
    },
    /// The trial finished; metrics of the process as a whole (such as `peak_rss_mib`).
    Done {
        /// Per-process metrics.
        metrics: MetricValues,
    },
}

/// A time series for charts, sampled at a fixed period.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Series {
    /// Sampling period in milliseconds.
    pub period_ms: f64,
    /// One value per period, from the start of the iteration.
    pub values: Vec<f64>,
    /// Moments a chart marks with a vertical line, such as a dependency's capacity drop.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub marks: Vec<Mark>,
}

impl Series {
    /// A series without marks.
    pub fn new(period_ms: f64, values: Vec<f64>) -> Series {
        Series { period_ms, values, marks: Vec::new() }
    }
}

/// A moment worth marking on a time-series chart.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Mark {
    /// Time since the series started, in milliseconds.
    pub at_ms: f64,
    /// Short label drawn beside the line, such as `capacity 500 → 100`.
    pub label: String,
}

/// What one iteration of a trial measured.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct IterationRecord {
    /// Index among the trial's iterations, warm-ups first, counting from 0.
    pub index: u32,
    /// A warm-up iteration: kept in the raw file, left out of statistics.
    pub warmup: bool,
    /// An accounting iteration: untimed, every instrument on. Its metrics are the instruments' readings
    /// (`max_outstanding`, `allocs_per_item`, `threads`, ...) and its clocks' readings prefixed
    /// `instrumented_` (see [`crate::harness`]); a timed iteration (`false`) carries clock readings only.
    #[serde(default, skip_serializing_if = "is_false")]
    pub accounting: bool,
    /// Metric values, named as in the contract (`ms_per_million`, `cpu_ns_per_item`, ...).
    pub metrics: MetricValues,
    /// Time series for charts, by name (such as `outstanding`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub series: BTreeMap<String, Series>,
    /// Other processes used more of the machine during this (timed) iteration than the busy-machine guard allows
    /// ([`crate::busy`]), and it was kept anyway: it is the last of its re-runs. `false` in runs made before the
    /// guard existed.
    #[serde(default, skip_serializing_if = "is_false")]
    pub disturbed: bool,
    /// Disturbed runs of this iteration the guard discarded before this one.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub reruns: u32,
    /// CPU other processes used during this (timed) iteration, in cores; absent where it was not judged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub others_cores: Option<f64>,
}

fn is_zero(value: &u32) -> bool {
    *value == 0
}

/// How a trial, or a contestant over all its trials, ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Status {
    /// Ran and passed every check.
    Ok,
    /// The machine could not run it; the reason says why.
    Skipped,
    /// Ran to the end but failed a check, or crashed.
    Failed,
    /// Killed after its time budget.
    Timeout,
}

impl Status {
    /// The contract's spelling: `ok`, `failed`, `timeout` or `skipped`.
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Ok => "ok",
            Status::Skipped => "skipped",
            Status::Failed => "failed",
            Status::Timeout => "timeout",
        }
    }
}

/// Everything the lab kept of one trial process.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TrialRecord {
    /// Contestant name.
    pub contestant: String,
    /// Phase (sweep level), if the scenario has one.
    pub phase: Option<String>,
    /// Fork index, counting from 0.
    pub fork: u32,
    /// Position of this trial in its fork's rotated contestant order, counting from 0.
    pub order: u32,
    /// How the trial ended.
    pub status: Status,
    /// Why it failed, timed out or was skipped.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Correctness checks the trial ran.
    pub checks: Vec<Check>,
    /// Iterations it finished, warm-ups included.
    pub iterations: Vec<IterationRecord>,
    /// Per-process metrics (such as `peak_rss_mib`).
    pub metrics: MetricValues,
    /// The last lines the trial wrote on its standard error, when it failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stderr_tail: Option<String>,
}

/// The first line of a raw file: everything about the run that is known before it starts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunHeader {
    /// Scenario name.
    pub scenario: String,
    /// Version of the lab that ran.
    pub lab_version: String,
    /// Short git revision the running lab binary was built from (read at build time), or `unknown`.
    pub git_rev: String,
    /// Whether that build's source had uncommitted changes to tracked files outside `reports/`.
    pub git_dirty: bool,
    /// Start time, RFC 3339 UTC.
    pub started_utc: String,
    /// The machine and toolchain.
    pub environment: Environment,
    /// Forks, warm-ups, iterations and the noise threshold.
    pub method: Method,
    /// Every parameter's values for this run.
    pub params: RunParams,
    /// The contestants selected for this run, in registry order.
    pub contestants: Vec<ContestantInfo>,
    /// The command that reproduces this run.
    pub command: String,
    /// The raw file's path relative to the output folder, such as `raw/chain-20261130T100000Z.jsonl`.
    pub raw_file: String,
}

/// The last line of a raw file, written when the run finished (absent if it was interrupted).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RunFooter {
    /// End time, RFC 3339 UTC.
    pub finished_utc: String,
}

/// One line of a raw `.jsonl` file.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "record", rename_all = "snake_case")]
// The header is the large variant and occurs once per file: boxing it would save nothing worth an indirection.
#[allow(clippy::large_enum_variant)]
pub enum RawLine {
    /// The run's header (first line).
    Run(RunHeader),
    /// One finished trial.
    Trial(TrialRecord),
    /// The run's end (last line).
    End(RunFooter),
}
