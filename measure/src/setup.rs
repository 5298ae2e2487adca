//! Where and how a run measured: the machine and toolchain ([`Environment`]) and the repetitions and noise
//! threshold ([`Method`]), known before the run starts, recorded in the raw file's header and carried by the
//! summary. Kept below both [`crate::record`] and [`crate::summary`] (re-exported there), so that neither depends
//! on the other.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

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
    /// The operating system's limits on how many threads and coroutine stacks can exist (`vm.max_map_count`,
    /// `kernel.pid_max`, `kernel.threads-max`), as read when the run started: a reader needs them to repeat a
    /// run at 100,000 threads or coroutines. Empty in runs made before they were recorded.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub limits: BTreeMap<String, String>,
    /// The cargo profile that built the lab and every contestant in it, as its build script saw it, such as
    /// `release (opt-level 3, lto thin, codegen-units 1, debug line-tables-only)`. Empty in runs made before it
    /// was recorded.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub build_profile: String,
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
    /// Measured (timed) iterations per process.
    pub iterations: u32,
    /// Accounting iterations per process (untimed, every instrument on); 0 in runs made before they existed.
    #[serde(default)]
    pub accounting: u32,
    /// Relative difference below which two results count as noise (0.2 = 20%).
    pub noise_threshold: f64,
    /// Seed for inputs.
    #[serde(default)]
    pub seed: u64,
    /// Per-trial time budget in seconds.
    #[serde(default)]
    pub trial_timeout_s: f64,
}
