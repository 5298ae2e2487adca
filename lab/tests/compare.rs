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
