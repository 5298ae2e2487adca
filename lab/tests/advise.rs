//! `lab advise`: a bad shape gets one clear line on stderr, exit status 2 and nothing written; a tiny run writes and
//! re-renders its files; the committed advice never picks what its scenario guarded out.
#![allow(clippy::unwrap_used)]

mod common;

use common::lab;
use predicates::str::contains;

fn assert_bad_shape(args: &[&str], message: &str) {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let mut cmd = lab();
    cmd.arg("advise").args(args).arg("--out").arg(&out);
    cmd.assert().code(2).stderr(contains(message));
    assert!(!out.exists(), "`lab advise {}` wrote {}", args.join(" "), out.display());
}

#[test]
fn zero_or_negative_sizes_are_refused() {
    assert_bad_shape(&["--items", "0"], "--items must be at least 1, got 0");
    assert_bad_shape(&["--items", "-5"], "--items must be at least 1, got -5");
    assert_bad_shape(&["--cpu-us-per-item", "0"], "--cpu-us-per-item must be above 0 µs, got 0");
    assert_bad_shape(&["--cpu-us-per-item", "-2.5"], "--cpu-us-per-item must be above 0 µs, got -2.5");
    assert_bad_shape(&["--io-calls-per-item", "1", "--io-latency-ms", "0"], "--io-latency-ms must be at least 1");
    assert_bad_shape(&["--io-calls-per-item", "1", "--in-flight", "-1"], "--in-flight must be at least 1");
    assert_bad_shape(&["--io-calls-per-item", "-1"], "--io-calls-per-item must be 0 or more");
    assert_bad_shape(&["--cores", "0"], "--cores must be at least 1");
    assert_bad_shape(&["--budget", "0"], "--budget must be above 0 seconds");
    assert_bad_shape(&["--items", "ten"], "`ten` is not a whole number");
}

#[test]
fn in_flight_above_what_the_os_allows_names_the_limit() {
    // More threads than any kernel's pid_max allows (4,194,304 at most).
    assert_bad_shape(
        &["--io-calls-per-item", "1", "--io-latency-ms", "1", "--in-flight", "50000000"],
        "--in-flight 50000000 is above what this machine allows",
    );
    assert_bad_shape(&["--io-calls-per-item", "1", "--io-latency-ms", "1", "--in-flight", "50000000"], "kernel.");
}

#[test]
fn more_cores_than_this_process_may_use_are_refused() {
    assert_bad_shape(&["--cores", "100000"], "--cores 100000: this process may run on");
}

#[test]
fn a_budget_too_short_says_what_fits() {
    assert_bad_shape(&["--budget", "1"], "the budget of 1 s is too short");
    assert_bad_shape(&["--budget", "1"], "What fits: --budget");
}

#[test]
fn inconsistent_flags_are_refused() {
    assert_bad_shape(&["--dependency-loses-capacity"], "--dependency-loses-capacity needs calls to a dependency");
    assert_bad_shape(
        &["--io-calls-per-item", "1", "--in-flight", "100", "--dependency-loses-capacity", "--capacity-after", "100"],
        "is not a loss",
    );
    assert_bad_shape(&["--items", "5", "--items-per-second", "5"], "not both");
}

#[test]
fn a_tiny_advice_runs_writes_its_files_and_re_renders_byte_for_byte() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("advice");
    let args = ["advise", "--cpu-us-per-item", "2", "--items", "300", "--cores", "1", "--forks", "1"];
    let run = lab().args(args).arg("--out").arg(&out).output().unwrap();
    // 1 when the calibration check missed on a loaded machine: the advice is still written and says so.
    assert!(matches!(run.status.code(), Some(0 | 1)), "{}", String::from_utf8_lossy(&run.stderr));
    let stdout = String::from_utf8_lossy(&run.stdout);
    assert!(stdout.contains("chain —"), "{stdout}");
    assert!(stdout.contains("check cpu_work_calibration"), "{stdout}");
    let folder = out.join("cpu2us-items300-cores1");
    let advice = std::fs::read_to_string(folder.join("advice.md")).unwrap();
    assert!(advice.contains("## Recommendation") && advice.contains("## Evidence"), "{advice}");
    assert!(advice.contains("taskset -c "), "the reproducing commands pin like the run did: {advice}");
    assert!(advice.contains("What would change the answer"), "{advice}");
    assert!(folder.join("advice.json").exists() && folder.join("chain.md").exists());
    let header =
        common::files_under(&folder).into_iter().find(|p| p.to_string_lossy().starts_with("raw/advice-")).unwrap();
    let again = dir.path().join("again");
    let report = lab().arg("report").arg(folder.join(&header)).arg("--out").arg(&again).output().unwrap();
    assert!(matches!(report.status.code(), Some(0 | 1)), "{}", String::from_utf8_lossy(&report.stderr));
    for file in ["advice.md", "advice.json", "chain.md", "chain.json"] {
        let a = std::fs::read_to_string(folder.join(file)).unwrap();
        let b = std::fs::read_to_string(again.join(file)).unwrap();
        assert_eq!(a, b, "{file} re-rendered differently");
    }
    assert!(again.join(&header).exists(), "the advice header is copied beside the re-rendered advice");

    // Never over a folder of the scenarios' own reports (`lab report`'s default is `reports/`).
    let reports = dir.path().join("reports");
    std::fs::create_dir_all(&reports).unwrap();
    std::fs::copy(folder.join("chain.json"), reports.join("chain.json")).unwrap();
    let refused = lab().arg("report").arg(folder.join(&header)).arg("--out").arg(&reports).output().unwrap();
    assert_eq!(refused.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("not of an advice"));
    assert!(!reports.join("advice.md").exists() && !reports.join("chain.md").exists());
}

/// A committed JSON file.
fn read_json(path: &std::path::Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(path).expect("readable")).expect("JSON")
}

/// One committed advice folder: its `advice.json`, and each scenario run's entry in it beside that run's summary.
struct CommittedAdvice {
    folder: std::path::PathBuf,
    advice: serde_json::Value,
    runs: Vec<(serde_json::Value, serde_json::Value)>,
}

/// Every committed advice folder.
fn committed_advice() -> Vec<CommittedAdvice> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../reports/advice");
    std::fs::read_dir(&root)
        .expect("reports/advice")
        .map(|entry| {
            let folder = entry.expect("entry").path();
            let advice = read_json(&folder.join("advice.json"));
            let runs = advice["scenarios"]
                .as_array()
                .expect("scenarios")
                .iter()
                .map(|run| {
                    let name = run["scenario"].as_str().expect("scenario");
                    (run.clone(), read_json(&folder.join(format!("{name}.json"))))
                })
                .collect();
            CommittedAdvice { folder, advice, runs }
        })
        .collect()
}

/// Over the committed advice: no pick is an alternative its scenario's own question on the same metric kept from
/// being the answer by a guard (overload's Vegas, which never filled the healthy dependency, was once picked on
/// the after-drop p99 alone).
#[test]
fn the_committed_advice_never_picks_an_alternative_its_scenario_guarded_out() {
    let mut checked = 0;
    for CommittedAdvice { folder, runs, .. } in committed_advice() {
        for (run, scenario) in runs {
            let (Some(pick), Some(metric)) = (run["pick"].as_str(), run["metric"].as_str()) else { continue };
            for question in scenario["questions"].as_array().into_iter().flatten() {
                if question["metric"] != metric || question["guards"].as_array().is_none_or(|g| g.is_empty()) {
                    continue;
                }
                for answer in question["answers"].as_array().expect("answers") {
                    if answer["phase"] != run["phase"] {
                        continue;
                    }
                    checked += 1;
                    let excluded = answer["excluded"].as_array().expect("excluded");
                    assert!(
                        !excluded.iter().any(|e| e["name"] == pick && e["value"].is_number()),
                        "{}: the advice picks `{pick}`, which `{}` guarded out",
                        folder.display(),
                        question["id"]
                    );
                }
            }
        }
    }
    assert!(checked > 0, "no committed advice answered a guarded question: nothing was checked");
}

/// Over the committed advice: `advice.json` names the revision its figures were measured at, the same as every
/// scenario run beside it.
#[test]
fn the_committed_advice_names_the_revision_of_its_runs() {
    let mut checked = 0;
    for CommittedAdvice { folder, advice, runs } in committed_advice() {
        let rev = advice["git_rev"].as_str();
        assert!(rev.is_some(), "{}: advice.json has no git_rev", folder.display());
        for (_, scenario) in runs {
            assert_eq!(scenario["git_rev"].as_str(), rev, "{}", folder.display());
            checked += 1;
        }
    }
    assert!(checked > 0, "no committed advice: nothing was checked");
}
