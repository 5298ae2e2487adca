//! `--paired A,B` end to end: only the two contestants run, their processes alternating, and the report answers A
//! against B with its interval and the smallest ratio the pairing itself can tell.
#![allow(clippy::unwrap_used)]

mod common;

use common::{lab, read_json};
use testkit::text::holds;

#[test]
fn a_paired_run_alternates_its_two_contestants_and_answers_one_against_the_other() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("paired");
    lab()
        .args(["chain", "--quick", "--paired", "baseline-loop,blocking-crossbeam", "--items", "5000", "--work", "0"])
        .args(["--forks", "4", "--calibration", "none", "--out"])
        .arg(&out)
        .assert()
        .success();

    // Only A and B ran, one process each per fork, the first of each fork alternating: A B, B A, A B, B A.
    let raw = common::files_under(&out).into_iter().find(|p| p.starts_with("raw")).unwrap();
    let trials: Vec<(u64, u64, String)> = std::fs::read_to_string(out.join(raw))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|v| v["record"] == "trial")
        .map(|v| {
            (v["fork"].as_u64().unwrap(), v["order"].as_u64().unwrap(), v["contestant"].as_str().unwrap().to_string())
        })
        .collect();
    let firsts: Vec<&str> = trials.iter().filter(|t| t.1 == 0).map(|t| t.2.as_str()).collect();
    assert_eq!(firsts, ["baseline-loop", "blocking-crossbeam", "baseline-loop", "blocking-crossbeam"]);
    assert_eq!(trials.len(), 8);

    let summary = read_json(&out.join("chain.json"));
    assert_eq!(summary["method"]["paired"], serde_json::json!(["baseline-loop", "blocking-crossbeam"]));
    assert!(summary["command"].as_str().unwrap().contains("--paired baseline-loop,blocking-crossbeam"));
    let paired = &summary["paired"];
    assert_eq!((paired["a"].as_str(), paired["b"].as_str()), (Some("baseline-loop"), Some("blocking-crossbeam")));
    let m = &paired["metrics"][0];
    assert_eq!(m["metric"], "work_0.ms_per_million");
    let ratio = m["ratio"].as_f64().unwrap();
    let (low, high) = (m["ci95"][0].as_f64().unwrap(), m["ci95"][1].as_f64().unwrap());
    assert!(low <= ratio && ratio <= high, "{m}");
    assert_eq!((m["arm"].as_u64(), m["aa_pairs"].as_u64()), (Some(2), Some(12)), "4 processes a side: halves of 2");
    assert!(m["sdr"].as_f64().is_some(), "{m}");
    let report = std::fs::read_to_string(out.join("chain.md")).unwrap();
    holds(
        &report,
        &[
            "- **`baseline-loop` against `blocking-crossbeam`**, their processes alternating",
            "this pairing tells apart ratios beyond",
        ],
    );
}

#[test]
fn a_pairing_needs_two_different_contestants_and_no_only() {
    let refused = |args: &[&str], why: &str| {
        lab().args(args).assert().code(2).stderr(predicates::str::contains(why.to_string()));
    };
    refused(&["chain", "--paired", "baseline-loop"], "--paired takes two different contestants");
    refused(&["chain", "--paired", "baseline-loop,baseline-loop"], "--paired takes two different contestants");
    refused(&["chain", "--paired", "baseline-loop,nosuch"], "--paired: unknown contestant `nosuch`");
    refused(&["chain", "--paired", "baseline-loop,blocking-rayon", "--only", "baseline-loop"], "leave --only out");
    refused(&["all", "--paired", "baseline-loop,blocking-rayon"], "give it to `lab <scenario>`");
}
