//! Bad usage and unreadable input: one clear line on stderr, exit status 2, and nothing written.
#![allow(clippy::unwrap_used)]

mod common;

use common::lab;
use predicates::str::contains;

fn assert_usage_error(args: &[&str], message: &str) {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let mut cmd = lab();
    cmd.args(args).arg("--out").arg(&out);
    cmd.assert().code(2).stderr(contains(message));
    assert!(!out.exists(), "`lab {}` wrote {}", args.join(" "), out.display());
}

#[test]
fn help_names_every_command() {
    lab()
        .arg("--help")
        .assert()
        .success()
        .stdout(contains("chain"))
        .stdout(contains("report"))
        .stdout(contains("compare"))
        .stdout(contains("3 the lab could not write its output"))
        .stdout(contains("130 interrupted by Ctrl-C, SIGTERM or SIGHUP"));
}

#[test]
fn list_shows_contestants_and_parameters() {
    lab().arg("list").assert().success().stdout(contains("baseline-loop")).stdout(contains("--items"));
}

#[test]
fn list_json_parses_and_carries_a_schema_version_and_every_scenario() {
    let out = lab().args(["list", "--json"]).output().unwrap();
    assert!(out.status.success());
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["schema_version"], 1);
    let scenarios = json["scenarios"].as_array().unwrap();
    let chain = scenarios.iter().find(|s| s["name"] == "chain").unwrap();
    assert!(chain["contestants"].as_array().unwrap().iter().any(|c| c["name"] == "baseline-loop"), "{chain}");
    assert!(chain["parameters"].as_array().unwrap().iter().any(|p| p["name"] == "items"), "{chain}");
    let overload = scenarios.iter().find(|s| s["name"] == "overload").unwrap();
    let peer = overload["contestants"].as_array().unwrap().iter().find(|c| c["name"] == "stream-congestion-limiter");
    assert!(peer.is_some_and(|p| p["expected_failure"].is_string()), "{overload}");
}

#[test]
fn an_unknown_scenario_is_refused_pointing_to_the_list() {
    assert_usage_error(&["nosuch"], "error: `nosuch` is neither a scenario nor a command: `just lab list`");
}

#[test]
fn a_negative_value_is_refused_by_the_range_check() {
    assert_usage_error(&["chain", "--items", "-5"], "error: --items -5 is out of range");
    assert_usage_error(&["chain", "--forks", "-1"], "-1 is not in 1..=100");
}

#[test]
fn every_usage_error_starts_with_error() {
    assert_usage_error(&["chain", "--only", "nobody"], "error: --only");
    assert_usage_error(&["report", "/nonexistent/raw.jsonl"], "error: cannot read raw file");
}

#[test]
fn an_unknown_contestant_is_refused_with_the_known_names() {
    assert_usage_error(&["chain", "--only", "baseline-loop,nobody"], "unknown contestant `nobody`");
}

#[test]
fn an_unknown_expected_failure_is_refused() {
    assert_usage_error(&["chain", "--expect-failed", "nobody"], "error: --expect-failed: unknown contestant `nobody`");
    assert_usage_error(&["report", "x.jsonl", "--expect-failed", "nobody"], "unknown contestant `nobody`");
}

#[test]
fn a_parameter_that_is_not_a_number_is_refused() {
    assert_usage_error(&["chain", "--items", "ten"], "--items");
}

#[test]
fn a_parameter_out_of_range_is_refused() {
    assert_usage_error(&["chain", "--items", "0"], "out of range");
}

#[test]
fn a_list_for_a_parameter_that_does_not_sweep_is_refused() {
    assert_usage_error(&["chain", "--items", "10,20"], "takes one value");
}

#[test]
fn zero_forks_is_refused() {
    assert_usage_error(&["chain", "--forks", "0"], "--forks");
}

#[test]
fn parameters_that_contradict_each_other_are_refused() {
    assert_usage_error(&["overload", "--initial-limit", "2000", "--max-limit", "1000"], "--initial-limit 2000");
}

#[test]
fn a_missing_raw_file_is_refused() {
    assert_usage_error(&["report", "/nonexistent/raw.jsonl"], "cannot read raw file");
}

#[test]
fn a_raw_file_that_is_not_one_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let raw = dir.path().join("bad.jsonl");
    std::fs::write(&raw, "{\"hello\": 1}\n").unwrap();
    assert_usage_error(&["report", raw.to_str().unwrap()], "bad.jsonl");
}

#[test]
fn an_unreadable_summary_is_refused() {
    lab().args(["compare", "/nonexistent/a.json", "/nonexistent/b.json"]).assert().code(2).stderr(contains("a.json"));
}
