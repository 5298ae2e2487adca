//! A small real run writes every file the contract names, and `lab report` re-renders it byte for byte.
#![allow(clippy::unwrap_used)]

mod common;

use common::{compare, files_under, lab, tiny_chain, tiny_chain_in_temp};

#[test]
fn a_run_writes_report_summary_charts_and_raw_records_and_re_renders_identically() {
    let (dir, out) = tiny_chain_in_temp("out");

    let files = files_under(&out);
    let names: Vec<String> = files.iter().map(|p| p.display().to_string()).collect();
    assert!(names.contains(&"chain.md".to_string()), "{names:?}");
    assert!(names.contains(&"chain.json".to_string()), "{names:?}");
    assert!(names.iter().any(|n| n.starts_with("raw/chain-") && n.ends_with(".jsonl")), "{names:?}");
    assert!(names.iter().any(|n| n.starts_with("img/chain-") && n.ends_with(".svg")), "{names:?}");
    assert!(!names.iter().any(|n| n.contains(".tmp")), "temporary files left: {names:?}");

    // The summary follows the contract.
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("chain.json")).unwrap()).unwrap();
    for key in [
        "scenario",
        "lab_version",
        "git_rev",
        "git_dirty",
        "started_utc",
        "finished_utc",
        "environment",
        "method",
        "params",
        "contestants",
        "claims",
    ] {
        assert!(summary.get(key).is_some(), "summary lacks `{key}`");
    }
    let contestants = summary["contestants"].as_array().unwrap();
    assert_eq!(contestants.len(), 3);
    for c in contestants {
        assert_eq!(c["status"], "ok", "{c}");
        let m = &c["metrics"]["work_0.ms_per_million"];
        for key in ["median", "min", "max", "ci999", "n"] {
            assert!(m.get(key).is_some(), "metric lacks `{key}`: {m}");
        }
        assert_eq!(m["n"], 2);
    }

    // Re-rendering from the raw file alone gives the same bytes.
    let raw = files.iter().find(|p| p.starts_with("raw")).unwrap();
    let again = dir.path().join("again");
    lab().arg("report").arg(out.join(raw)).arg("--out").arg(&again).assert().success();
    for name in ["chain.md", "chain.json"] {
        assert_eq!(
            std::fs::read_to_string(out.join(name)).unwrap(),
            std::fs::read_to_string(again.join(name)).unwrap(),
            "{name} differs when re-rendered"
        );
    }
    assert!(!again.join("index.md").exists(), "one raw file re-renders one report, no index");
    // The raw file the report links to is copied beside it.
    assert_eq!(std::fs::read(out.join(raw)).unwrap(), std::fs::read(again.join(raw)).unwrap());
    let svgs: Vec<_> = files.iter().filter(|p| p.starts_with("img")).collect();
    for svg in svgs {
        assert_eq!(std::fs::read(out.join(svg)).unwrap(), std::fs::read(again.join(svg)).unwrap(), "{}", svg.display());
    }

    // Comparing a run with itself finds no change.
    compare(&out.join("chain.json"), &again.join("chain.json"))
        .assert()
        .success()
        .stdout(predicates::str::contains("0 change(s) beyond noise"));
}

#[test]
fn a_trial_past_its_time_budget_is_reported_as_timeout_and_the_run_still_reports() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let mut args = tiny_chain(&out);
    args.extend(["--trial-timeout".to_string(), "0.001".to_string()]);
    lab().args(args).assert().code(1);
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("chain.json")).unwrap()).unwrap();
    for c in summary["contestants"].as_array().unwrap() {
        assert_eq!(c["status"], "timeout", "{c}");
    }
    let report = std::fs::read_to_string(out.join("chain.md")).unwrap();
    assert!(report.contains("timeout"), "the report must say a contestant timed out");
}
