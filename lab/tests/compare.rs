//! `lab compare` compares like with like (runs set up differently are refused with their differences listed,
//! unless `--force`), judges every metric on its process medians under its noise threshold, prints no `NaN`, and
//! gates honestly: `--fail-on` below the threshold warns, and runs with fewer than 3 processes a side cannot be
//! gated (exit 2).
#![allow(clippy::unwrap_used)]

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use common::{compare, lab, read_json, tiny_chain_in_temp, write_json};
use measure::summary::{Family, MetricStats, Summary};
use predicates::prelude::PredicateBooleanExt;
use predicates::str::contains;
use testkit::fixture;

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

/// Every `null` in `value`, by path (serde_json writes a `NaN` or an infinity as `null`).
fn nulls(value: &serde_json::Value, path: &str, found: &mut Vec<String>) {
    match value {
        serde_json::Value::Null => found.push(path.to_string()),
        serde_json::Value::Array(items) => {
            items.iter().enumerate().for_each(|(i, v)| nulls(v, &format!("{path}[{i}]"), found));
        }
        serde_json::Value::Object(fields) => fields.iter().for_each(|(k, v)| nulls(v, &format!("{path}.{k}"), found)),
        _ => {}
    }
}

/// The JSON `lab compare` prints for these arguments (it must exit with `code`).
fn compare_json(args: &[&str], base: &Path, new: &Path, code: i32) -> serde_json::Value {
    let out = lab().arg("compare").args(args).arg(base).arg(new).output().unwrap();
    assert_eq!(out.status.code(), Some(code), "{}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice(&out.stdout).unwrap()
}

#[test]
fn a_run_compared_with_itself_prints_no_nan_and_every_metric_is_within_noise() {
    let (dir, run) = tiny_chain_in_temp("run");
    // The tiny run as if made in 3 processes, each at the run's median: metrics of 0 (allocations, errors) stay.
    let mut summary = read_json(&run.join("chain.json"));
    summary["method"]["forks"] = serde_json::json!(3);
    for c in summary["contestants"].as_array_mut().unwrap() {
        for stats in c["metrics"].as_object_mut().unwrap().values_mut() {
            stats["fork_medians"] = serde_json::json!([stats["median"], stats["median"], stats["median"]]);
            stats["processes"] = serde_json::json!(3);
        }
    }
    // And one metric that is 0 on both sides, whatever the run measured.
    summary["contestants"][0]["metrics"]["work_0.errors_per_item"] =
        serde_json::to_value(fixture::processes(&[0.0; 3])).unwrap();
    let same = write_json(dir.path().join("same.json"), &summary);

    for format in ["text", "markdown"] {
        compare(&same, &same)
            .args(["--format", format, "--fail-on", "10"])
            .assert()
            .success()
            .stdout(contains("NaN").not().and(contains("inf").not()));
    }
    let json = compare_json(&["--json", "--fail-on", "10"], &same, &same, 0);
    let mut found = Vec::new();
    nulls(&json, "", &mut found);
    // `higher_is_better` is null where the scenario states no direction, as documented; nothing else is.
    found.retain(|path| !path.ends_with(".higher_is_better"));
    assert!(found.is_empty(), "no null but a stated non-direction: {found:?}");
    assert_eq!(
        (json["changes"].as_u64(), json["regressions"].as_u64(), json["cannot_tell"].as_u64()),
        (Some(0), Some(0), Some(0))
    );
    assert_eq!(json["can_gate"], true);
    let rows = json["rows"].as_array().unwrap();
    assert!(rows.iter().all(|r| r["verdict"] == "within_noise"), "{rows:?}");
    let zero = rows.iter().find(|r| r["metric"] == "work_0.errors_per_item").unwrap();
    assert!(zero.get("ratio").is_none(), "a ratio of 0 / 0 does not exist: {zero}");
    assert_eq!(zero["reason"], "both medians are 0");
    assert!(rows.iter().filter(|r| r.get("ratio").is_some()).all(|r| r["ratio"] == 1.0 && r.get("reason").is_none()));
}

/// A run of `chain` by one contestant whose headline (`ms_per_million`, lower is better) has these process
/// medians, and whose `allocs_per_item` (no direction stated) is 0 in every process.
fn run(medians: &[f64]) -> Summary {
    let metrics = BTreeMap::from([
        ("ms_per_million".to_string(), fixture::processes(medians)),
        ("allocs_per_item".to_string(), fixture::processes(&vec![0.0; medians.len()])),
    ]);
    let mut summary =
        fixture::summary("chain", vec![fixture::contestant("blocking-crossbeam", Family::Blocking, metrics)]);
    summary.method.forks = medians.len() as u32;
    summary
}

/// A `--quick`-like run: one process per contestant.
fn quick_run(median: f64) -> Summary {
    let mut summary = run(&[median]);
    summary.method.quick = true;
    summary
}

/// `summary` written as `name` in `dir`.
fn write(dir: &tempfile::TempDir, name: &str, summary: &Summary) -> PathBuf {
    write_json(dir.path().join(name), &serde_json::to_value(summary).unwrap())
}

/// Three processes at `median` and 1% either side.
fn three(median: f64) -> Vec<f64> {
    let stats: MetricStats = fixture::stats(median);
    stats.fork_medians
}

#[test]
fn fail_on_exits_1_on_a_regression_beyond_it_and_0_without_one() {
    let dir = tempfile::tempdir().unwrap();
    let base = write(&dir, "base.json", &run(&three(10.0)));
    let slower = write(&dir, "slower.json", &run(&three(20.0)));

    // Twice the time per million items, every process apart: a regression beyond 10%, not beyond 150%.
    compare(&base, &slower)
        .args(["--fail-on", "10"])
        .assert()
        .code(1)
        .stdout(contains("(worse: regression)"))
        .stderr(contains("1 regression(s) beyond --fail-on"));
    compare(&base, &slower).args(["--fail-on", "150"]).assert().success();
    // Faster is a change, not a regression; a run against itself changes nothing.
    compare(&slower, &base).args(["--fail-on", "10"]).assert().success().stdout(contains("LOWER (better)"));
    compare(&base, &base).args(["--fail-on", "10"]).assert().success();
    compare(&base, &base).args(["--fail-on", "-5"]).assert().code(2);
}

#[test]
fn two_quick_runs_cannot_be_gated_and_fail_on_exits_2_saying_why() {
    let dir = tempfile::tempdir().unwrap();
    let base = write(&dir, "base.json", &quick_run(10.0));
    let slower = write(&dir, "slower.json", &quick_run(20.0));

    compare(&base, &slower)
        .args(["--fail-on", "5"])
        .assert()
        .code(2)
        .stderr(contains("cannot gate"))
        .stderr(contains("1 process(es) per contestant"))
        .stderr(contains("3 or more a side"))
        .stderr(contains("--quick"));
    // Without --fail-on it still compares, saying it cannot gate and that no row can be told.
    compare(&base, &slower)
        .assert()
        .success()
        .stdout(contains("cannot tell: too few processes (1, 3 needed)"))
        .stdout(contains("cannot gate (no --fail-on given)"));
    let json = compare_json(&["--format", "json"], &base, &slower, 0);
    assert_eq!(json["can_gate"], false);
    assert!(json["cannot_gate_reason"].as_str().unwrap().contains("3 or more a side"));
    assert_eq!(json["rows"][1]["verdict"], "cannot_tell");
    assert_eq!(json["rows"][1]["p_reason"], "too few processes (1, 3 needed)");
    assert!(json["rows"][1].get("p").is_none());
}

#[test]
fn fail_on_below_the_noise_threshold_warns_and_gates_at_the_threshold() {
    let dir = tempfile::tempdir().unwrap();
    let base = write(&dir, "base.json", &run(&three(10.0)));
    // 15% slower, every process apart: beyond --fail-on 5, within the 20% noise threshold.
    let a_little = write(&dir, "a-little.json", &run(&three(11.5)));
    let a_lot = write(&dir, "a-lot.json", &run(&three(13.0)));

    let warning = "--fail-on 5% is below the noise threshold the gate judges by, 20% (uncalibrated default)";
    compare(&base, &a_little)
        .args(["--fail-on", "5"])
        .assert()
        .success()
        .stderr(contains(warning))
        .stderr(contains("fires only on a worsening beyond that threshold"));
    compare(&base, &a_lot).args(["--fail-on", "5"]).assert().code(1).stderr(contains(warning));
    compare(&base, &a_lot).args(["--fail-on", "20"]).assert().code(1).stderr(contains("warning").not());
    let json = compare_json(&["--json", "--fail-on", "5"], &base, &a_little, 0);
    assert!(json["warnings"][0].as_str().unwrap().starts_with(warning), "{}", json["warnings"]);
}

#[test]
fn json_carries_both_sides_process_medians_the_ratio_p_and_the_verdict_of_every_metric() {
    let dir = tempfile::tempdir().unwrap();
    let (base_medians, new_medians) = ([10.0, 10.1, 10.2, 9.9, 10.05], [20.0, 20.2, 20.4]);
    let base = write(&dir, "base.json", &run(&base_medians));
    let slower = write(&dir, "slower.json", &run(&new_medians));

    let json = compare_json(&["--json", "--force"], &base, &slower, 0);
    assert_eq!(json["schema_version"], 2);
    assert_eq!(
        (json["noise_threshold"].as_f64(), json["threshold_source"].as_str()),
        (Some(0.2), Some("uncalibrated_default"))
    );
    let row = |metric: &str| json["rows"].as_array().unwrap().iter().find(|r| r["metric"] == metric).unwrap().clone();
    let headline = row("ms_per_million");
    assert_eq!(headline["base_fork_medians"], serde_json::json!(base_medians));
    assert_eq!(headline["new_fork_medians"], serde_json::json!(new_medians));
    assert_eq!((headline["base"].as_f64(), headline["new"].as_f64()), (Some(10.05), Some(20.2)));
    assert!((headline["ratio"].as_f64().unwrap() - 20.2 / 10.05).abs() < 1e-12);
    // 5 + 3 processes every one apart: p = 1 / C(8, 3).
    assert!((headline["p"].as_f64().unwrap() - 1.0 / 56.0).abs() < 1e-12, "{headline}");
    assert_eq!(
        (headline["noise_threshold"].as_f64(), headline["threshold_source"].as_str()),
        (Some(0.2), Some("uncalibrated_default"))
    );
    assert_eq!((headline["change"].as_str(), headline["verdict"].as_str()), (Some("higher"), Some("worse")));
    assert_eq!((headline["higher_is_better"].as_bool(), headline["regression"].as_bool()), (Some(false), Some(true)));
    // A metric of 0 in both runs: no ratio, a reason, and no p, since the process medians overlap.
    let zero = row("allocs_per_item");
    assert!(zero.get("ratio").is_none() && zero.get("p").is_none(), "{zero}");
    assert_eq!((zero["reason"].as_str(), zero["verdict"].as_str()), (Some("both medians are 0"), Some("within_noise")));
    assert_eq!(zero["p_reason"], "the process medians overlap: not separated");
    assert_eq!(zero["higher_is_better"], serde_json::Value::Null, "no direction stated, as in schema 1");
}

#[test]
fn markdown_is_a_table_a_pull_request_can_show_and_json_is_the_same_as_format_json() {
    let dir = tempfile::tempdir().unwrap();
    let base = write(&dir, "base.json", &run(&three(10.0)));
    let slower = write(&dir, "slower.json", &run(&three(20.0)));

    let out = compare(&base, &slower).args(["--format", "markdown", "--fail-on", "10"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let markdown = String::from_utf8(out.stdout).unwrap();
    assert!(markdown.starts_with("### `lab compare`: chain\n"), "{markdown}");
    assert!(markdown.contains("**1 regression(s) worse beyond noise and by more than 10%"), "{markdown}");
    let cells = |line: &str| -> Vec<String> { line.split('|').map(|c| c.trim().to_string()).collect() };
    let header = markdown.lines().find(|l| l.starts_with("| contestant")).unwrap();
    assert_eq!(cells(header), ["", "contestant", "metric", "base", "new", "new/base", "p", "verdict", ""]);
    let regression = markdown.lines().find(|l| l.contains("`ms_per_million`")).unwrap();
    assert_eq!(
        cells(regression),
        [
            "",
            "`blocking-crossbeam`",
            "`ms_per_million`",
            "10.0",
            "20.0",
            "2.00×",
            "0.050",
            "HIGHER (worse: regression)",
            ""
        ]
    );
    assert!(markdown.contains("<details><summary>1 metric(s) within noise</summary>"), "{markdown}");

    let alias = compare(&base, &slower).arg("--json").output().unwrap();
    let format = compare(&base, &slower).args(["--format", "json"]).output().unwrap();
    assert_eq!(alias.stdout, format.stdout);
    compare(&base, &slower).args(["--json", "--format", "markdown"]).assert().code(2);
}
