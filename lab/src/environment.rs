//! Provenance: the machine, the toolchain, the exact crate versions contestants use, and the git revision; the
//! testbed's finer details and default limits are [`crate::testbed`]'s.

use std::collections::BTreeMap;

use measure::summary::Environment;

/// Cargo.lock as it was when the lab was built: the exact versions of every crate in the binary.
const CARGO_LOCK: &str = include_str!("../../Cargo.lock");

/// Crates whose versions a report names: the ones contestants and the harness are built on.
const REPORTED_CRATES: &[&str] = &[
    "tokio",
    "tokio-stream",
    "futures",
    "async-stream",
    "crossbeam-channel",
    "flume",
    "rayon",
    "may",
    "hyper",
    "reqwest",
    "ureq",
    "hdrhistogram",
];

/// The OS limits a contestant can hit (`sysctl` name, file): how many memory maps (each thread's and coroutine's
/// stack), PIDs and tasks can exist, and how many connections may wait to be accepted. A run's environment records
/// the first [`REPORTED_LIMITS`]: whether 100,000 threads or coroutines can exist at all; the testbed all of them.
pub(crate) const SYSCTLS: &[(&str, &str)] = &[
    ("vm.max_map_count", "/proc/sys/vm/max_map_count"),
    ("kernel.pid_max", "/proc/sys/kernel/pid_max"),
    ("kernel.threads-max", "/proc/sys/kernel/threads-max"),
    ("net.core.somaxconn", "/proc/sys/net/core/somaxconn"),
];

/// How many of [`SYSCTLS`] a run's environment records.
const REPORTED_LIMITS: usize = 3;

/// Read the machine and toolchain.
pub(crate) fn capture() -> Environment {
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let meminfo = std::fs::read_to_string("/proc/meminfo").unwrap_or_default();
    let os_release = std::fs::read_to_string("/etc/os-release").unwrap_or_default();
    Environment {
        cpu_model: field(&cpuinfo, "model name", ':').unwrap_or("unknown").to_string(),
        cores: std::thread::available_parallelism().map(|n| n.get() as u32).unwrap_or(1),
        memory_gib: field(&meminfo, "MemTotal", ':')
            .and_then(|v| v.trim_end_matches("kB").trim().parse::<f64>().ok())
            .map(|kib| (kib / 1024.0 / 1024.0).round() as u32)
            .unwrap_or(0),
        os: field(&os_release, "PRETTY_NAME", '=')
            .map(|s| s.trim_matches('"').to_string())
            .unwrap_or_else(|| std::env::consts::OS.to_string()),
        kernel: std::fs::read_to_string("/proc/sys/kernel/osrelease")
            .map(|s| s.trim().to_string())
            .unwrap_or_else(|_| "unknown".to_string()),
        rustc: env!("LAB_RUSTC_VERSION").to_string(),
        build_profile: env!("LAB_BUILD_PROFILE").to_string(),
        crates: locked_versions(CARGO_LOCK, REPORTED_CRATES),
        limits: SYSCTLS[..REPORTED_LIMITS]
            .iter()
            .filter_map(|(name, path)| {
                let value = std::fs::read_to_string(path).ok()?;
                Some((name.to_string(), value.trim().to_string()))
            })
            .collect(),
        // The testbed, the pin and the runtimes' sizes are the run's to fill in (`crate::run`).
        testbed: None,
        pin: None,
        floor: None,
        runtimes: Vec::new(),
    }
}

/// The version of crate `name` in the Cargo.lock the lab was built with (several joined with `, `), if it is
/// there.
pub(crate) fn locked_version(name: &str) -> Option<String> {
    locked_versions(CARGO_LOCK, &[name]).remove(name)
}

/// The first `key<sep> value` line's value in a `/proc`-style text.
pub(crate) fn field<'t>(text: &'t str, key: &str, sep: char) -> Option<&'t str> {
    text.lines().find_map(|line| {
        let (k, v) = line.split_once(sep)?;
        (k.trim() == key).then(|| v.trim())
    })
}

/// Versions of `names` in a Cargo.lock text (several versions of one crate are joined with `, `).
fn locked_versions(lock: &str, names: &[&str]) -> BTreeMap<String, String> {
    let mut found: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut name: Option<&str> = None;
    for line in lock.lines() {
        let line = line.trim();
        if line == "[[package]]" {
            name = None;
        } else if let Some(v) = line.strip_prefix("name = ") {
            name = Some(v.trim_matches('"'));
        } else if let (Some(n), Some(v)) = (name, line.strip_prefix("version = ")) {
            if names.contains(&n) {
                found.entry(n.to_string()).or_default().push(v.trim_matches('"').to_string());
            }
        }
    }
    found.into_iter().map(|(k, v)| (k, v.join(", "))).collect()
}

/// The git revision the running binary was built from, short, or `unknown` outside a git checkout.
pub(crate) const BUILD_GIT_REV: &str = env!("LAB_GIT_REV");

/// Whether the source the binary was built from had uncommitted changes to tracked files (anything outside
/// `reports/`, which holds only generated files), read when it was built.
pub(crate) fn build_git_dirty() -> bool {
    env!("LAB_GIT_DIRTY") == "true"
}

/// The revision and dirty flag of the code this binary was built from: what ran a run, or what judged and
/// rendered a report.
pub(crate) fn build_revision() -> (String, bool) {
    (BUILD_GIT_REV.to_string(), build_git_dirty())
}

/// This build of the lab, for a file whose work started at `started_utc` and finishes now.
pub(crate) fn provenance(started_utc: String) -> measure::setup::Provenance {
    let (git_rev, git_dirty) = build_revision();
    measure::setup::Provenance {
        lab_version: env!("CARGO_PKG_VERSION").to_string(),
        git_rev,
        git_dirty,
        started_utc,
        finished_utc: utc_now(),
    }
}

/// UTC now as RFC 3339 with seconds: the stamp of a run's start and end.
pub(crate) fn utc_now() -> String {
    humantime::format_rfc3339_seconds(std::time::SystemTime::now()).to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_build_revision_is_recorded_at_build_time() {
        let (rev, _) = build_revision();
        assert!(!rev.is_empty());
        assert!(rev == "unknown" || rev.chars().all(|c| c.is_ascii_hexdigit()), "{rev}");
    }

    #[test]
    fn lock_versions_are_read_per_crate() {
        let lock =
            "[[package]]\nname = \"tokio\"\nversion = \"1.2.3\"\n\n[[package]]\nname = \"other\"\nversion = \"9\"\n";
        let v = locked_versions(lock, &["tokio", "flume"]);
        assert_eq!(v.get("tokio").map(String::as_str), Some("1.2.3"));
        assert!(!v.contains_key("other"));
        assert!(!v.contains_key("flume"));
    }

    #[test]
    fn the_lab_knows_the_versions_of_its_contestants_crates() {
        let v = locked_versions(CARGO_LOCK, REPORTED_CRATES);
        for name in ["tokio", "crossbeam-channel", "flume", "rayon", "futures"] {
            assert!(v.contains_key(name), "{name} missing from Cargo.lock");
        }
    }

    #[test]
    fn proc_fields_are_found_by_key() {
        assert_eq!(field("a: 1\nmodel name\t: X Y\n", "model name", ':'), Some("X Y"));
        assert_eq!(field("NAME=\"D\"\n", "NAME", '='), Some("\"D\""));
    }
}
