//! `lab compare` compares like with like: runs set up differently are refused with their differences listed,
//! unless `--force`.
#![allow(clippy::unwrap_used)]

mod common;

use common::{lab, tiny_chain};
use predicates::str::contains;

#[test]
fn comparing_runs_with_different_settings_lists_the_differences_and_exits_2_unless_forced() {
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path().join("base");
    lab().args(tiny_chain(&base)).assert().success();
    // The same run with another size and a phase less, as a run with other flags would be.
    let mut summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(base.join("chain.json")).unwrap()).unwrap();
    summary["params"]["items"] = serde_json::json!(9000);
    summary["phases"] = serde_json::json!(["work_0"]);
    let new = dir.path().join("new.json");
    std::fs::write(&new, serde_json::to_string(&summary).unwrap()).unwrap();

    lab()
        .arg("compare")
        .arg(base.join("chain.json"))
        .arg(&new)
        .assert()
        .code(2)
        .stderr(contains("--items 5000 vs 9000"))
        .stderr(contains("phases [work_0, work_64] vs [work_0]"))
        .stderr(contains("--force"));
    lab()
        .arg("compare")
        .arg(base.join("chain.json"))
        .arg(&new)
        .arg("--force")
        .assert()
        .success()
        .stdout(contains("compared with --force although the runs differ: --items 5000 vs 9000"));
}

/// `summary` with `contestant`'s `work_0.ms_per_million` set to three processes with these medians.
fn with_processes(summary: &serde_json::Value, contestant: &str, medians: [f64; 3]) -> serde_json::Value {
    let mut summary = summary.clone();
    for c in summary["contestants"].as_array_mut().unwrap() {
        if c["name"] == contestant {
            let stats = &mut c["metrics"]["work_0.ms_per_million"];
            stats["processes"] = serde_json::json!(3);
            stats["fork_medians"] = serde_json::json!(medians);
            stats["median"] = serde_json::json!(medians[1]);
        }
    }
    summary
}

#[test]
fn fail_on_exits_1_on_a_judged_regression_and_0_without_one_and_json_carries_a_schema_version() {
    let dir = tempfile::tempdir().unwrap();
    let run = dir.path().join("run");
    lab().args(tiny_chain(&run)).assert().success();
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(run.join("chain.json")).unwrap()).unwrap();
    let write = |name: &str, value: &serde_json::Value| {
        let path = dir.path().join(name);
        std::fs::write(&path, serde_json::to_string(value).unwrap()).unwrap();
        path
    };
    let base = write("base.json", &with_processes(&summary, "blocking-crossbeam-batched", [10.0, 10.1, 10.2]));
    let slower = write("slower.json", &with_processes(&summary, "blocking-crossbeam-batched", [20.0, 20.2, 20.4]));

    // Twice the time per million items, every process apart: a regression beyond 10%, not beyond 150%.
    lab()
        .args(["compare", "--fail-on", "10"])
        .arg(&base)
        .arg(&slower)
        .assert()
        .code(1)
        .stdout(contains("(worse: regression)"))
        .stderr(contains("1 regression(s) beyond --fail-on"));
    lab().args(["compare", "--fail-on", "150"]).arg(&base).arg(&slower).assert().success();
    // Faster is a change, not a regression; a run against itself changes nothing.
    lab().args(["compare", "--fail-on", "10"]).arg(&slower).arg(&base).assert().success();
    lab().args(["compare", "--fail-on", "10"]).arg(&base).arg(&base).assert().success();
    lab().args(["compare", "--fail-on", "-5"]).arg(&base).arg(&base).assert().code(2);

    let out = lab().args(["compare", "--json"]).arg(&base).arg(&slower).output().unwrap();
    assert!(out.status.success());
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["schema_version"], 1);
    assert_eq!(json["regressions"], 1);
    let row = json["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["contestant"] == "blocking-crossbeam-batched" && r["metric"] == "work_0.ms_per_million")
        .unwrap();
    assert_eq!(row["change"], "higher");
    assert_eq!(row["higher_is_better"], false);
}
