//! `lab compare` compares like with like: runs set up differently are refused with their differences listed,
//! unless `--force`.
#![allow(clippy::unwrap_used)]

mod common;

use common::{compare, lab, read_json, tiny_chain_in_temp, write_json};
use predicates::str::contains;

#[test]
fn comparing_runs_with_different_settings_lists_the_differences_and_exits_2_unless_forced() {
    let (dir, base) = tiny_chain_in_temp("base");
    // The same run with another size and a phase less, as a run with other flags would be.
    let mut summary = read_json(&base.join("chain.json"));
    summary["params"]["items"] = serde_json::json!(9000);
    summary["phases"] = serde_json::json!(["work_0"]);
    let new = write_json(dir.path().join("new.json"), &summary);

    compare(&base.join("chain.json"), &new)
        .assert()
        .code(2)
        .stderr(contains("--items 5000 vs 9000"))
        .stderr(contains("phases [work_0, work_64] vs [work_0]"))
        .stderr(contains("--force"));
    compare(&base.join("chain.json"), &new)
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
    let (dir, run) = tiny_chain_in_temp("run");
    let summary = read_json(&run.join("chain.json"));
    let write = |name: &str, value: &serde_json::Value| write_json(dir.path().join(name), value);
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
