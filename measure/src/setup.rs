//! Where and how a run measured: the machine and toolchain ([`Environment`]) and the repetitions and noise
//! threshold ([`Method`]), known before the run starts, recorded in the raw file's header and carried by the
//! summary. Kept below both [`crate::record`] and [`crate::summary`] (re-exported there), so that neither depends
//! on the other.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The machine and toolchain a run used.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
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
    /// The testbed beyond the CPU model, cores and memory (SMT, virtualisation, frequency governor, the CPUs the
    /// lab may use) and every default limit a contestant can hit, each with where it came from. `None` in runs
    /// made before it was recorded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub testbed: Option<Testbed>,
    /// The CPUs every trial process was pinned to (`--cores N`); `None` when the trials ran on every CPU the lab
    /// may use, and in runs made before `--cores`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pin: Option<Pin>,
    /// The sizes of the runtimes and pools inside a trial process (tokio workers, rayon threads, `may` carriers,
    /// the network scenarios' client and server cores), each with where it came from: those that follow the
    /// cores a trial may use and those fixed in the lab's code. Empty in runs made before they were recorded.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub runtimes: Vec<Setting>,
    /// The machine's floor the run cites (`lab floor`'s `floor.json` of its sitting: each figure with its process
    /// medians), or why it cites none; `None` in runs made before runs cited it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub floor: Option<FloorUse>,
}

/// One setting of the testbed or of the lab's runtimes, with where its value came from.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Setting {
    /// What it is: a stable id such as `smt`, `vm.max_map_count`, `RLIMIT_NOFILE` or
    /// `tokio.max_blocking_threads` (reports put it in words).
    pub name: String,
    /// Its value as read or set, such as `2`, `20000 soft, 20000 hard` or `performance`; `not readable` when it
    /// could not be read.
    pub value: String,
    /// Where the value came from: a file read (`/proc/sys/vm/max_map_count`), a call
    /// (`getrlimit(RLIMIT_NOFILE)`), a crate's documented default, or the lab's own code (`set by the lab: ...`).
    pub source: String,
}

impl Setting {
    /// A setting named `name` with `value`, read or set at `source`.
    pub fn new(name: impl Into<String>, value: impl Into<String>, source: impl Into<String>) -> Setting {
        Setting { name: name.into(), value: value.into(), source: source.into() }
    }
}

/// The value a [`Setting`] holds when it could not be read.
pub const NOT_READABLE: &str = "not readable";

/// The testbed a run measured on, beyond [`Environment`]'s CPU model, cores and memory: what decides whether its
/// figures hold on another machine.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Testbed {
    /// `smt`: hardware threads per core (1: SMT off or absent).
    pub smt: Setting,
    /// `virtualised`: whether the lab runs in a virtual machine (`yes`, `no`), with the vendor where readable.
    pub virtualised: Setting,
    /// `governor`: the CPU frequency governor of CPU 0, or [`NOT_READABLE`].
    pub governor: Setting,
    /// `cpuset`: the CPUs the lab process may run on (its affinity mask), such as `0-1 (2 CPUs)`.
    pub cpuset: Setting,
    /// The cgroup's CPU limits where readable (`cgroup.cpuset`, `cgroup.cpu_quota`); empty where none could be
    /// read.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cgroup: Vec<Setting>,
    /// Every default limit a contestant can hit (OS limits, resource limits, the runtimes' and the server's
    /// defaults), each with where it came from.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub limits: Vec<Setting>,
}

impl Testbed {
    /// The settings in the order a report lists them: SMT, virtualisation, governor, cpuset, the cgroup's, then
    /// the limits.
    pub fn rows(&self) -> impl Iterator<Item = &Setting> {
        [&self.smt, &self.virtualised, &self.governor, &self.cpuset]
            .into_iter()
            .chain(self.cgroup.iter())
            .chain(self.limits.iter())
    }
}

/// What `--cores N` pinned every trial process of a run to (`sched_setaffinity` before it starts).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Pin {
    /// How many CPUs: the `N` of `--cores N`.
    pub cores: u32,
    /// Which: the first `N` of the CPUs the lab may run on, in order.
    pub cpus: Vec<usize>,
}

impl Pin {
    /// The CPUs as a compact list, such as `0-3,6`.
    pub fn cpu_list(&self) -> String {
        cpu_list(&self.cpus)
    }
}

/// CPUs as the kernel writes a list of them, ranges joined (`0-3,6`); empty for none. The CPUs are taken in the
/// order given; a range is a run of consecutive numbers.
pub fn cpu_list(cpus: &[usize]) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while i < cpus.len() {
        let start = cpus[i];
        let mut end = start;
        while i + 1 < cpus.len() && cpus[i + 1] == end + 1 {
            i += 1;
            end = cpus[i];
        }
        parts.push(if end == start { start.to_string() } else { format!("{start}-{end}") });
        i += 1;
    }
    parts.join(",")
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
    /// Relative difference below which two results count as noise (0.2 = 20%): the uncalibrated default, which
    /// judges every metric whose class `sdr` does not give ([`crate::calibration::Thresholds`]).
    pub noise_threshold: f64,
    /// The smallest detectable ratio of each metric class, read from the calibration of this testbed (class key →
    /// ratio, such as `{"per_item": 1.08}`): a metric of a class listed here is practically equal to another within
    /// it. Empty when the run used no calibration (in runs made before calibration too).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub sdr: BTreeMap<String, f64>,
    /// Which calibration `sdr` came from, or why the run has none; `None` in runs made before calibration.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub calibration: Option<CalibrationUse>,
    /// The two contestants of a paired run (`--paired A,B`: only they ran, their processes alternating); empty
    /// otherwise.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub paired: Vec<String>,
    /// Seed for inputs.
    #[serde(default)]
    pub seed: u64,
    /// Per-trial time budget in seconds.
    #[serde(default)]
    pub trial_timeout_s: f64,
}

/// The calibration a run's thresholds came from, or why it has none (`method.calibration`).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct CalibrationUse {
    /// The calibration file looked for or read, as the run named it (`reports/calibration.json`); empty when the
    /// run was told to use none (`--calibration none`).
    pub file: String,
    /// When the calibration used started (RFC 3339, UTC); empty when none was used.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub made_utc: String,
    /// The revision of the build that made it; empty when none was used.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub git_rev: String,
    /// Why no calibration was used, when none was: no such file, another testbed (what differs), another process
    /// count.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fallback: Option<String>,
}

/// One mechanism's cost on this machine.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FloorFigure {
    /// Its key (`wake_across_cpus`).
    pub key: String,
    /// What one operation is, in words.
    pub what: String,
    /// Wall nanoseconds per operation: the median of the process medians (absent when it could not run here).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ns_per_op: Option<f64>,
    /// Each process's median wall nanoseconds per operation, in process order.
    pub process_medians: Vec<f64>,
    /// CPU nanoseconds per operation, every thread of the process: the median of the process medians.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_ns_per_op: Option<f64>,
    /// Why it did not run here (one CPU has nothing across CPUs), when it did not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub not_applicable: Option<String>,
}

impl FloorFigure {
    /// The figure of `key` (`what` one operation is) from each process's median wall and CPU nanoseconds per
    /// operation, in process order: its figures are the medians of those (absent without any).
    pub fn of_processes(key: &str, what: &str, process_medians: Vec<f64>, cpu_medians: &[f64]) -> FloorFigure {
        FloorFigure {
            key: key.to_string(),
            what: what.to_string(),
            ns_per_op: crate::stats::median(&process_medians),
            process_medians,
            cpu_ns_per_op: crate::stats::median(cpu_medians),
            not_applicable: None,
        }
    }

    /// The smallest and largest process median, when it ran.
    pub fn range(&self) -> Option<(f64, f64)> {
        let min = self.process_medians.iter().copied().reduce(f64::min)?;
        let max = self.process_medians.iter().copied().reduce(f64::max)?;
        Some((min, max))
    }
}

/// The floor a run cites (`method.floor`): the machine's own floor measured in its sitting, each figure with its
/// process medians, or why the run cites none.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct FloorUse {
    /// The floor file looked for or read, as the run named it (`reports/floor.json`); empty when the run was told
    /// to cite none (`--floor none`).
    pub file: String,
    /// When the floor cited started measuring (RFC 3339, UTC); empty when none is cited.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub measured_utc: String,
    /// The revision of the build that measured it; empty when none is cited.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub git_rev: String,
    /// Whether that build had uncommitted changes.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub git_dirty: bool,
    /// Whether the floor cited was a `--quick` smoke measurement (cited by `--quick` runs only).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub quick: bool,
    /// Fresh processes each figure was measured in; 0 when none is cited.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub processes: u32,
    /// Every figure of the floor cited, each with its process medians; empty when none is cited.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub figures: Vec<FloorFigure>,
    /// Why no floor is cited, when none is: no such file, another testbed or build (what differs), a `--quick`
    /// floor for a full run, `--floor none`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub not_cited: Option<String>,
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

impl FloorUse {
    /// A run told to cite no floor (`--floor none`).
    pub fn none() -> FloorUse {
        FloorUse { not_cited: Some("--floor none: the run cited no floor".to_string()), ..FloorUse::default() }
    }
}

/// Which build of the lab wrote a file and when: the fields `lab calibrate`'s and `lab floor`'s files open with
/// (flattened into them, so each file keeps its shape).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
pub struct Provenance {
    /// Version of the lab that wrote the file.
    pub lab_version: String,
    /// Short git revision of that build.
    pub git_rev: String,
    /// Whether that build had uncommitted changes.
    pub git_dirty: bool,
    /// Start time, RFC 3339 UTC.
    pub started_utc: String,
    /// End time, RFC 3339 UTC.
    pub finished_utc: String,
}

/// Read the JSON file at `path` that a `lab` command wrote, as `what` (e.g. "a floor") of schema version `schema`
/// (`version` reads a value's); `Err` says why it cannot be used, in words a run's method records: `missing` when
/// there is no file, else that it cannot be read, is not `what`, or has another schema version.
pub(crate) fn read_lab_file<T: serde::de::DeserializeOwned>(
    path: &std::path::Path,
    what: &str,
    missing: String,
    schema: u32,
    version: impl Fn(&T) -> u32,
) -> Result<T, String> {
    let text = std::fs::read_to_string(path).map_err(|e| match e.kind() {
        std::io::ErrorKind::NotFound => missing,
        _ => format!("cannot read {}: {e}", path.display()),
    })?;
    let value: T = serde_json::from_str(&text).map_err(|e| format!("{} is not {what}: {e}", path.display()))?;
    if version(&value) != schema {
        return Err(format!("{} has schema version {}, this lab reads {schema}", path.display(), version(&value)));
    }
    Ok(value)
}

/// Where the testbed and build of `calibrated` and `run` differ, one `what "calibrated" vs "run"` each: the
/// CPU, its cores, the memory, the kernel, the compiler, the build profile, the CPUs the trials were pinned to,
/// and, where both recorded their testbed, SMT, virtualisation and the CPUs the lab may use. Noise is a property
/// of all of them.
pub fn testbed_differences(calibrated: &Environment, run: &Environment) -> Vec<String> {
    let pin = |e: &Environment| {
        e.pin.as_ref().map_or_else(|| "unpinned".to_string(), |p| format!("{} ({})", p.cores, p.cpu_list()))
    };
    let (c, r) = (calibrated, run);
    let mut fields = vec![
        ("cpu", c.cpu_model.clone(), r.cpu_model.clone()),
        ("cores", c.cores.to_string(), r.cores.to_string()),
        ("memory GiB", c.memory_gib.to_string(), r.memory_gib.to_string()),
        ("kernel", c.kernel.clone(), r.kernel.clone()),
        ("rustc", c.rustc.clone(), r.rustc.clone()),
        ("build profile", c.build_profile.clone(), r.build_profile.clone()),
        ("pinned cores", pin(c), pin(r)),
    ];
    if let (Some(ct), Some(rt)) = (&c.testbed, &r.testbed) {
        fields.push(("SMT threads per core", ct.smt.value.clone(), rt.smt.value.clone()));
        fields.push(("virtualised", ct.virtualised.value.clone(), rt.virtualised.value.clone()));
        fields.push(("cpuset", ct.cpuset.value.clone(), rt.cpuset.value.clone()));
    }
    fields.into_iter().filter(|(_, c, r)| c != r).map(|(name, c, r)| format!("{name} {c:?} vs {r:?}")).collect()
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Build `abc1234` (clean) of lab 0.1.0, from `started_utc` to `finished_utc`: the fixture of the floor's and
    /// the calibration's tests.
    pub(crate) fn provenance(started_utc: &str, finished_utc: &str) -> Provenance {
        let (started_utc, finished_utc) = (started_utc.to_string(), finished_utc.to_string());
        let (lab_version, git_rev) = ("0.1.0".to_string(), "abc1234".to_string());
        Provenance { lab_version, git_rev, git_dirty: false, started_utc, finished_utc }
    }

    /// A 2-core testbed with every field a testbed comparison reads: the fixture of the floor's and the
    /// calibration's tests.
    pub(crate) fn environment() -> Environment {
        let row = |name: &str, value: &str| Setting::new(name, value, "here");
        Environment {
            cpu_model: "CPU X".to_string(),
            cores: 2,
            memory_gib: 8,
            kernel: "6.1".to_string(),
            rustc: "rustc 1.95.0".to_string(),
            build_profile: "release".to_string(),
            testbed: Some(Testbed {
                smt: row("smt", "1"),
                virtualised: row("virtualised", "yes"),
                governor: row("governor", "not readable"),
                cpuset: row("cpuset", "0-1 (2 CPUs)"),
                cgroup: Vec::new(),
                limits: Vec::new(),
            }),
            ..Environment::default()
        }
    }

    #[test]
    fn cpu_lists_join_runs_into_ranges() {
        assert_eq!(cpu_list(&[0, 1]), "0-1");
        assert_eq!(cpu_list(&[0, 1, 2, 3, 6, 8, 9]), "0-3,6,8-9");
        assert_eq!(cpu_list(&[5]), "5");
        assert_eq!(cpu_list(&[]), "");
    }

    #[test]
    fn an_environment_recorded_before_the_testbed_reads_and_writes_as_it_was() {
        let old = r#"{"cpu_model":"X","cores":2,"memory_gib":1,"os":"","kernel":"","rustc":"","crates":{}}"#;
        let env: Environment = serde_json::from_str(old).expect("an old environment parses");
        assert_eq!((env.testbed.as_ref(), env.pin.as_ref(), env.runtimes.len()), (None, None, 0));
        assert_eq!(serde_json::to_string(&env).expect("it writes"), old);
    }

    #[test]
    fn the_testbed_lists_its_rows_in_order() {
        let row = |name: &str| Setting::new(name, "1", "here");
        let testbed = Testbed {
            smt: row("smt"),
            virtualised: row("virtualised"),
            governor: row("governor"),
            cpuset: row("cpuset"),
            cgroup: vec![row("cgroup.cpuset")],
            limits: vec![row("vm.max_map_count")],
        };
        let names: Vec<&str> = testbed.rows().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["smt", "virtualised", "governor", "cpuset", "cgroup.cpuset", "vm.max_map_count"]);
    }
}
