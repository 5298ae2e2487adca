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
    let out = lab().arg("--help").output().unwrap();
    assert!(out.status.success());
    // clap wraps the help to the terminal: read it as one line.
    let help = String::from_utf8_lossy(&out.stdout).split_whitespace().collect::<Vec<_>>().join(" ");
    for said in [
        "chain",
        "report",
        "compare",
        "or failed exactly as its scenario declares it expected to",
        "3 the lab could not write its output",
        "130 interrupted by Ctrl-C, SIGTERM or SIGHUP",
    ] {
        assert!(help.contains(said), "{said:?} in {help}");
    }
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

/// Bad command lines, each with what its one stderr line must hold.
const USAGE_ERRORS: &[(&[&str], &str)] = &[
    // An unknown scenario is refused pointing to the list.
    (&["nosuch"], "error: `nosuch` is neither a scenario nor a command: `just lab list`"),
    // A negative value is refused by the range check.
    (&["chain", "--items", "-5"], "error: --items -5 is out of range"),
    (&["chain", "--forks", "-1"], "-1 is not in 1..=100"),
    // Every usage error starts with error.
    (&["chain", "--only", "nobody"], "error: --only"),
    (&["report", "/nonexistent/raw.jsonl"], "error: cannot read raw file"),
    // An unknown contestant is refused with the known names.
    (&["chain", "--only", "baseline-loop,nobody"], "unknown contestant `nobody`"),
    // An unknown expected failure is refused.
    (&["chain", "--expect-failed", "nobody"], "error: --expect-failed: unknown contestant `nobody`"),
    (&["report", "x.jsonl", "--expect-failed", "nobody"], "unknown contestant `nobody`"),
    // A parameter that is not a number is refused.
    (&["chain", "--items", "ten"], "--items"),
    // A parameter out of range is refused.
    (&["chain", "--items", "0"], "out of range"),
    // A list for a parameter that does not sweep is refused.
    (&["chain", "--items", "10,20"], "takes one value"),
    // Zero forks is refused.
    (&["chain", "--forks", "0"], "--forks"),
    // Parameters that contradict each other are refused.
    (&["overload", "--initial-limit", "2000", "--max-limit", "1000"], "--initial-limit 2000"),
    // A missing raw file is refused.
    (&["report", "/nonexistent/raw.jsonl"], "cannot read raw file"),
];

#[test]
fn bad_usage_is_refused_with_its_reason_and_nothing_written() {
    for (args, message) in USAGE_ERRORS {
        assert_usage_error(args, message);
    }
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
