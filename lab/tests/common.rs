//! Helpers for driving the `lab` binary in tests.
#![allow(dead_code, unreachable_pub, clippy::unwrap_used)]

use std::path::{Path, PathBuf};

use assert_cmd::Command;

/// The longest any one `lab` run of a test may take before it is killed and the test fails: the slowest (a quick
/// handoff run of every contestant, debug build) takes about a minute alone.
pub const RUN_BOUND: std::time::Duration = std::time::Duration::from_secs(600);

/// The `lab` binary, built by cargo for this test run, killed (and the test failed) after [`RUN_BOUND`].
pub fn lab() -> Command {
    let mut lab = Command::cargo_bin("lab").unwrap();
    lab.timeout(RUN_BOUND);
    lab
}

/// Arguments for a tiny chain run: three contestants (one per family), small input, one short fork.
pub fn tiny_chain(out: &Path) -> Vec<String> {
    [
        "chain",
        "--only",
        "baseline-loop,blocking-crossbeam-batched,stream-tokio-tasks",
        "--items",
        "5000",
        "--forks",
        "1",
        "--warmup",
        "0",
        "--iterations",
        "2",
        "--out",
    ]
    .iter()
    .map(|s| s.to_string())
    .chain([out.display().to_string()])
    .collect()
}

/// Every file below `dir`, relative to it, sorted.
pub fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&d) else { continue };
        for e in entries {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push(p.strip_prefix(dir).unwrap().to_path_buf());
            }
        }
    }
    out.sort();
    out
}

/// A tiny chain run ([`tiny_chain`]) into `out`, which must succeed.
pub fn run_tiny_chain(out: &Path) {
    lab().args(tiny_chain(out)).assert().success();
}

/// A fresh temporary folder with a tiny chain run ([`run_tiny_chain`]) in its sub-folder `name`, and that
/// sub-folder.
pub fn tiny_chain_in_temp(name: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join(name);
    run_tiny_chain(&out);
    (dir, out)
}

/// The JSON file at `path`.
pub fn read_json(path: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// Writes `value` as JSON to `path` and returns the path.
pub fn write_json(path: PathBuf, value: &serde_json::Value) -> PathBuf {
    std::fs::write(&path, serde_json::to_string(value).unwrap()).unwrap();
    path
}

/// `lab compare BASE NEW`, to add flags to and run.
pub fn compare(base: &Path, new: &Path) -> Command {
    let mut lab = lab();
    lab.arg("compare").arg(base).arg(new);
    lab
}
