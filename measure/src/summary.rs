//! The summary of a run (`<scenario>.json` in the contract): statistics per contestant and metric, checks and
//! claims, with the provenance needed to trust and regenerate them.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

use crate::record::{RunParams, Status};

/// Which style a contestant is written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Family {
    /// Demand-driven async streams (futures, tokio-stream, async-stream on tokio).
    Stream,
    /// OS threads behind bounded channels, and rayon.
    Blocking,
    /// A plain loop: the physical floor.
    Baseline,
}

impl Family {
    /// The contract's spelling: `stream`, `blocking` or `baseline`.
    pub fn as_str(self) -> &'static str {
        match self {
            Family::Stream => "stream",
            Family::Blocking => "blocking",
            Family::Baseline => "baseline",
        }
    }
}

/// What a contestant is, as `lab list` and the report describe it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ContestantInfo {
    /// Unique name within the scenario, such as `blocking-crossbeam-batched`.
    pub name: String,
    /// Its family.
    pub family: Family,
    /// One line saying exactly what it is: crate, API, batching, ordering.
    pub description: String,
}

/// The outcome of one correctness check.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Check {
    /// Short name, such as `checksum` or `early_stop`.
    pub name: String,
    /// Whether it passed.
    pub passed: bool,
    /// What was compared, with the values seen.
    pub detail: String,
}

impl Check {
    /// A check named `name` that passed when `passed`, with `detail` describing what was compared.
    pub fn new(name: impl Into<String>, passed: bool, detail: impl Into<String>) -> Self {
        Check { name: name.into(), passed, detail: detail.into() }
    }
}

/// Statistics of one metric over every measured sample of a contestant, across forks.
///
/// Invariant: `min <= median <= max` and `n >= 1`; `ci999` is the half-width of the 99.9% confidence interval
/// of the mean (Student t with `n - 1` degrees of freedom), 0 when `n == 1`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MetricStats {
    /// Median of all samples.
    pub median: f64,
    /// Smallest sample.
    pub min: f64,
    /// Largest sample.
    pub max: f64,
    /// Half-width of the 99.9% confidence interval of the mean.
    pub ci999: f64,
    /// Number of samples.
    pub n: usize,
    /// Mean of all samples.
    pub mean: f64,
    /// Median of each fork's samples, in fork order: the spread across processes.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub fork_medians: Vec<f64>,
}

/// The machine and toolchain a run used.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Environment {
    /// CPU model name from `/proc/cpuinfo`.
    pub cpu_model: String,
    /// Logical cores available to the lab.
    pub cores: u32,
    /// Total memory in GiB, rounded.
    pub memory_gib: u32,
    /// Operating system name and version.
    pub os: String,
    /// Kernel release.
    pub kernel: String,
    /// `rustc -V` of the compiler that built the lab.
    pub rustc: String,
    /// Exact versions, from Cargo.lock, of the crates contestants use.
    pub crates: BTreeMap<String, String>,
}

/// How the run measured: repetitions and the noise threshold.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Method {
    /// Whether this was a `--quick` smoke run.
    pub quick: bool,
    /// Fresh processes per contestant (and phase).
    pub forks: u32,
    /// Warm-up iterations per process, discarded.
    pub warmup: u32,
    /// Measured iterations per process.
    pub iterations: u32,
    /// Relative difference below which two results count as noise (0.2 = 20%).
    pub noise_threshold: f64,
    /// Seed for inputs.
    #[serde(default)]
    pub seed: u64,
    /// Per-trial time budget in seconds.
    #[serde(default)]
    pub trial_timeout_s: f64,
}

/// What a run found about one contestant.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ContestantSummary {
    /// Contestant name.
    pub name: String,
    /// Its family.
    pub family: Family,
    /// One line saying exactly what it is.
    pub description: String,
    /// The worst status over its trials.
    pub status: Status,
    /// Why it failed, timed out or was skipped.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Every distinct check, failed ones first within a name; a check passes only if it passed in every trial.
    pub checks: Vec<Check>,
    /// Statistics per metric name (phase-prefixed where the scenario sweeps).
    pub metrics: BTreeMap<String, MetricStats>,
}

/// The verdict of a claim against the numbers and their confidence intervals.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// The numbers support it beyond their confidence intervals.
    Holds,
    /// The numbers contradict it beyond their confidence intervals.
    Fails,
    /// The intervals straddle the line, or a contestant it needs did not run.
    Inconclusive,
}

/// A falsifiable statement a scenario makes about its results, and whether it held.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClaimResult {
    /// The statement.
    pub text: String,
    /// True only when the verdict is `holds`.
    pub holds: bool,
    /// Holds, fails or inconclusive.
    pub verdict: Verdict,
    /// The numbers behind the verdict.
    pub detail: String,
}

impl ClaimResult {
    /// A claim with its verdict and the numbers behind it.
    pub fn new(text: impl Into<String>, verdict: Verdict, detail: impl Into<String>) -> Self {
        ClaimResult { text: text.into(), holds: verdict == Verdict::Holds, verdict, detail: detail.into() }
    }
}

/// The summary of one scenario run: `<scenario>.json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Summary {
    /// Scenario name.
    pub scenario: String,
    /// Version of the lab that ran.
    pub lab_version: String,
    /// Short git revision, or `unknown`.
    pub git_rev: String,
    /// Whether the tree had uncommitted changes.
    pub git_dirty: bool,
    /// Start time, RFC 3339 UTC.
    pub started_utc: String,
    /// End time, RFC 3339 UTC; empty if the run was interrupted.
    pub finished_utc: String,
    /// The machine and toolchain.
    pub environment: Environment,
    /// Repetitions and noise threshold.
    pub method: Method,
    /// Parameters: a single value as a number, a sweep as a list.
    pub params: BTreeMap<String, serde_json::Value>,
    /// One entry per selected contestant, in registry order.
    pub contestants: Vec<ContestantSummary>,
    /// The scenario's claims and their verdicts.
    pub claims: Vec<ClaimResult>,
    /// The command that reproduces this run.
    pub command: String,
    /// The raw file, relative to the output folder.
    pub raw_file: String,
    /// Phases (sweep levels) in order, such as `["work_0", "work_64"]`; empty without a sweep.
    #[serde(default)]
    pub phases: Vec<String>,
}

impl Summary {
    /// The contestant named `name`, if it was selected.
    pub fn contestant(&self, name: &str) -> Option<&ContestantSummary> {
        self.contestants.iter().find(|c| c.name == name)
    }

    /// Statistics of `metric` for `contestant`, if that contestant ran ok and measured it.
    pub fn metric(&self, contestant: &str, metric: &str) -> Option<&MetricStats> {
        self.contestant(contestant).filter(|c| c.status == Status::Ok).and_then(|c| c.metrics.get(metric))
    }
}

/// Turn run parameters into the contract's JSON shape: one value as a number, several as a list.
pub fn params_json(params: &RunParams) -> BTreeMap<String, serde_json::Value> {
    params
        .iter()
        .map(|(k, v)| {
            let value = if v.len() == 1 { serde_json::Value::from(v[0]) } else { serde_json::Value::from(v.clone()) };
            (k.clone(), value)
        })
        .collect()
}
