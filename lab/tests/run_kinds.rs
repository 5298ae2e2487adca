//! A quick run never replaces a full run's reports (nor the reverse) without `--force`, and `lab report` given
//! several raw files of one scenario renders the newest and says so.
#![allow(clippy::unwrap_used)]

mod common;

use common::{files_under, lab, read_json, run_tiny_chain, tiny_chain_in_temp};
use predicates::str::contains;

/// A `--quick` chain run of one contestant into `out`.
fn quick_chain(out: &std::path::Path) -> Vec<String> {
    ["chain", "--quick", "--only", "baseline-loop", "--items", "5000", "--out"]
        .iter()
        .map(|s| s.to_string())
        .chain([out.display().to_string()])
        .collect()
}

fn raw_files(out: &std::path::Path) -> Vec<std::path::PathBuf> {
    files_under(out).into_iter().filter(|p| p.starts_with("raw")).collect()
}

#[test]
fn a_quick_run_does_not_replace_a_full_runs_report_without_force() {
    let (_dir, out) = tiny_chain_in_temp("out");
    let full_report = std::fs::read(out.join("chain.md")).unwrap();

    lab().args(quick_chain(&out)).assert().code(2).stderr(contains("is from a full run")).stderr(contains("--force"));
    assert_eq!(std::fs::read(out.join("chain.md")).unwrap(), full_report, "the full run's report must stay");
    assert_eq!(raw_files(&out).len(), 1, "the refused run must not start");

    lab().args(quick_chain(&out)).arg("--force").assert().success();
    let summary = read_json(&out.join("chain.json"));
    assert_eq!(summary["method"]["quick"], true);
}

#[test]
fn lab_report_given_two_raw_files_of_one_scenario_renders_the_newest_and_names_the_other() {
    let dir = tempfile::tempdir().unwrap();
    let (first, second) = (dir.path().join("first"), dir.path().join("second"));
    run_tiny_chain(&first);
    // Start times have one-second resolution: make the second run start later.
    std::thread::sleep(std::time::Duration::from_millis(1100));
    run_tiny_chain(&second);
    let older = first.join(&raw_files(&first)[0]);
    let newer = second.join(&raw_files(&second)[0]);

    let out = dir.path().join("out");
    lab().arg("report").arg(&newer).arg(&older).arg("--out").arg(&out).assert().success().stderr(contains(format!(
        "rendering the newest, {}, and leaving out {}",
        newer.display(),
        older.display()
    )));
    assert_eq!(std::fs::read(out.join("chain.json")).unwrap(), std::fs::read(second.join("chain.json")).unwrap());
    assert!(!out.join("index.md").exists(), "one scenario: no index, and never one scenario twice");
    // The raw file the report links to is beside it.
    assert_eq!(raw_files(&out), raw_files(&second));
}
