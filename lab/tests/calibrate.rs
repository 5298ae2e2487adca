//! `lab calibrate` end to end: a `--quick` calibration of one class writes its pools, pairs, rates and smallest
//! detectable ratio; a run on the same testbed at its process count judges with it, and any other run says why it
//! does not.
#![allow(clippy::unwrap_used)]

mod common;

use std::path::Path;

use common::{lab, read_json};

/// A tiny chain run at `forks` processes into `out`, reading `calibration` (a path, or `none`).
fn chain_with(out: &Path, forks: &str, calibration: &str) {
    lab()
        .args(["chain", "--quick", "--only", "baseline-loop,blocking-crossbeam", "--items", "5000", "--work", "0"])
        .args(["--forks", forks, "--iterations", "2", "--calibration", calibration, "--out"])
        .arg(out)
        .assert()
        .success();
}

#[test]
fn a_quick_calibration_forms_balanced_pairs_and_a_run_on_its_testbed_judges_with_it() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("cal");
    lab()
        .args(["calibrate", "--quick", "--classes", "per_item", "--out"])
        .arg(&out)
        .assert()
        .success()
        .stdout(predicates::str::contains("per_item: smallest detectable ratio"));

    let calibration = read_json(&out.join("calibration.json"));
    assert_eq!(calibration["schema_version"], 1);
    assert_eq!(calibration["method"]["quick"], true);
    assert_eq!(
        (calibration["method"]["forks"].as_u64(), calibration["method"]["processes"].as_u64()),
        (Some(3), Some(6))
    );
    let pools = calibration["pools"].as_array().unwrap();
    assert_eq!(pools.len(), 7, "chain's 4 and handoff's 3 representatives, one per-item metric each");
    for pool in pools {
        assert_eq!(pool["class"], "per_item");
        let padding: Vec<u64> = pool["padding_bytes"].as_array().unwrap().iter().map(|v| v.as_u64().unwrap()).collect();
        assert_eq!(padding.len(), 6, "{pool}");
        assert!(padding.iter().all(|b| *b <= 4096) && padding.iter().any(|b| *b != padding[0]), "{padding:?}");
        let pairs = pool["pairs"].as_array().unwrap();
        assert_eq!(pairs.len(), 20, "every split of 6 processes into 3 + 3");
        for p in 0..6u64 {
            let in_a = pairs.iter().filter(|pair| pair["a"].as_array().unwrap().contains(&p.into())).count();
            assert_eq!(in_a, 10, "process {p} is in arm A in half of the pairs");
        }
    }
    let classes = calibration["classes"].as_array().unwrap();
    assert_eq!(classes.len(), 1);
    // A pool whose processes fell into two modes (a busy machine can do that) is shown and left out of the rates.
    let one_population = pools.iter().filter(|p| p.get("modes").is_none()).count() as u64;
    assert_eq!(classes[0]["pools"].as_u64(), Some(one_population));
    assert_eq!(classes[0]["pairs"].as_u64(), Some(20 * one_population));
    // A ratio unless every pool was two populations or the pairs differ beyond 10× (never on a machine that runs).
    let sdr = classes[0]["sdr"].as_f64();
    if sdr.is_some() {
        assert!(classes[0]["at_sdr"]["ratio_rate"].as_f64().unwrap() <= 0.05);
    }
    assert_eq!(classes[0]["rates"].as_array().unwrap().len(), 51, "1.00 to 1.50");
    let md = std::fs::read_to_string(out.join("calibration.md")).unwrap();
    assert!(md.contains("## The smallest detectable ratio per class") && md.contains("calibration-runs/chain.md"));
    assert!(out.join("calibration-runs/chain.md").exists() && out.join("calibration-runs/handoff.json").exists());

    // A run on this testbed at 3 processes, --quick like the calibration, judges cost per item within its ratio.
    let file = out.join("calibration.json");
    let run = dir.path().join("run");
    chain_with(&run, "3", file.to_str().unwrap());
    let summary = read_json(&run.join("chain.json"));
    let report = std::fs::read_to_string(run.join("chain.md")).unwrap();
    if sdr.is_some() {
        assert_eq!(summary["method"]["sdr"]["per_item"].as_f64(), sdr);
        assert!(summary["method"]["calibration"].get("fallback").is_none(), "{}", summary["method"]);
        assert!(report.contains("this testbed's smallest detectable ratio"), "{report}");
    } else {
        let why = summary["method"]["calibration"]["fallback"].as_str().unwrap();
        assert!(why.ends_with("gives no class a smallest detectable ratio"), "{why}");
    }

    // At another process count the calibration does not apply, and the run says why.
    let other = dir.path().join("other");
    chain_with(&other, "2", file.to_str().unwrap());
    let summary = read_json(&other.join("chain.json"));
    assert!(summary["method"].get("sdr").is_none(), "{}", summary["method"]);
    let why = summary["method"]["calibration"]["fallback"].as_str().unwrap();
    assert!(why.ends_with("was calibrated at 3 processes a side, this run has 2"), "{why}");
    let report = std::fs::read_to_string(other.join("chain.md")).unwrap();
    assert!(report.contains("the uncalibrated default ("), "{report}");
}

#[test]
fn a_dry_run_estimates_the_time_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("cal");
    lab()
        .args(["calibrate", "--dry-run", "--out"])
        .arg(&out)
        .assert()
        .success()
        .stdout(predicates::str::contains("estimated time: "))
        .stdout(predicates::str::contains("primitives: "));
    assert!(!out.exists());
}

#[test]
fn an_unknown_class_is_bad_usage() {
    lab()
        .args(["calibrate", "--classes", "per_item,nonsense", "--dry-run"])
        .assert()
        .code(2)
        .stderr(predicates::str::contains("--classes: unknown class `nonsense`"));
}
