//! `--cores N`: every trial process pinned to N of the CPUs the lab may use, the pin recorded in the summary and
//! shown in the report and the terminal; a bad count is bad usage (exit 2, nothing written).
#![allow(clippy::unwrap_used)]

mod common;

use common::{compare, files_under, lab, read_json, write_json};
use predicates::str::contains;

/// `lab ARGS --out DIR` exits 2 with `message` on stderr, naming the allowed CPUs, and writes nothing.
fn refused(args: &[&str], message: &str) {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    lab().args(args).arg("--out").arg(&out).assert().code(2).stderr(contains(message)).stderr(contains("CPU(s)"));
    assert!(!out.exists(), "`lab {}` wrote {}", args.join(" "), out.display());
}

#[test]
fn zero_a_non_number_too_many_or_a_repeated_core_count_is_refused() {
    refused(&["chain", "--quick", "--cores", "0"], "error: --cores must be at least 1, got 0");
    refused(&["chain", "--quick", "--cores", "x"], "error: --cores: `x` is not a whole number");
    refused(&["chain", "--quick", "--cores", "99"], "error: --cores 99 is too many: the lab may use");
    refused(&["chain", "--quick", "--cores", "-1"], "error: --cores must be at least 1, got -1");
    refused(&["all", "--quick", "--cores", "99"], "error: --cores 99 is too many");
    refused(&["tcp", "--quick", "--cores", "1,1"], "error: --cores 1,1: 1 is given twice");
    refused(&["tcp", "--quick", "--cores", "1,99"], "error: --cores 99 is too many");
}

#[test]
fn help_describes_cores() {
    lab()
        .args(["chain", "--help"])
        .assert()
        .success()
        .stdout(contains("--cores <N[,N...]>"))
        .stdout(contains("sched_setaffinity"));
}

#[test]
fn a_pinned_run_records_its_pin_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let args = ["chain", "--cores", "1", "--only", "baseline-loop", "--items", "2000", "--work", "0"];
    let reps = ["--forks", "1", "--warmup", "0", "--iterations", "1", "--accounting", "1"];
    let run = lab().args(args).args(reps).arg("--out").arg(&out).assert().success();
    let stdout = String::from_utf8_lossy(&run.get_output().stdout).to_string();
    let first = stdout.lines().find(|l| !l.trim().is_empty()).unwrap_or_default();
    assert!(first.contains(", pinned to CPU ") && first.contains(" by --cores 1)"), "{stdout}");
    assert!(String::from_utf8_lossy(&run.get_output().stderr).contains("pinned by --cores 1"));

    let summary = read_json(&out.join("chain.json"));
    let environment = &summary["environment"];
    assert_eq!(environment["pin"]["cores"], 1, "{environment}");
    assert_eq!(environment["pin"]["cpus"].as_array().unwrap().len(), 1, "{environment}");
    let runtimes = environment["runtimes"].as_array().unwrap();
    let tokio = runtimes.iter().find(|r| r["name"] == "tokio.worker_threads").unwrap();
    assert_eq!(tokio["value"], "1", "tokio's workers follow the pin: {tokio}");
    let may = runtimes.iter().find(|r| r["name"] == "may.carriers").unwrap();
    assert_eq!(may["value"], "1", "the chain's carriers follow the pin, as tokio's workers do: {may}");
    for key in ["smt", "virtualised", "governor", "cpuset"] {
        assert!(environment["testbed"][key]["source"].is_string(), "{key}: {environment}");
    }
    assert!(summary["command"].as_str().unwrap().contains(" --cores 1 "), "{}", summary["command"]);

    let report = std::fs::read_to_string(out.join("chain.md")).unwrap();
    assert!(report.contains("- Pinned by `--cores 1`: every trial process"), "{report}");
    assert!(report.contains("where it came from"), "{report}");

    // The re-render from the raw file gives the same bytes, and a run pinned otherwise is not compared with it.
    let raw = files_under(&out).into_iter().find(|p| p.starts_with("raw")).unwrap();
    let again = dir.path().join("again");
    lab().arg("report").arg(out.join(&raw)).arg("--out").arg(&again).assert().success();
    for name in ["chain.md", "chain-details.md", "chain.json"] {
        assert_eq!(
            std::fs::read_to_string(out.join(name)).unwrap(),
            std::fs::read_to_string(again.join(name)).unwrap(),
            "{name} differs when re-rendered"
        );
    }
    let mut unpinned = summary.clone();
    unpinned["environment"].as_object_mut().unwrap().remove("pin");
    let other = write_json(dir.path().join("unpinned.json"), &unpinned);
    compare(&out.join("chain.json"), &other)
        .assert()
        .code(2)
        .stderr(contains("pinned cores \"1 (0)\" vs \"unpinned\""));
}

#[test]
fn a_list_of_core_counts_runs_each_into_its_folder_and_sets_the_answers_side_by_side() {
    if std::thread::available_parallelism().map_or(1, usize::from) < 2 {
        eprintln!("not applicable: this machine gives the lab one CPU, so --cores 1,2 cannot be asked");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("out");
    let args = ["chain", "--cores", "1,2", "--only", "baseline-loop", "--items", "2000", "--work", "0"];
    let reps = ["--forks", "1", "--warmup", "0", "--iterations", "1", "--accounting", "1"];
    lab().args(args).args(reps).arg("--out").arg(&out).assert().success();
    for cores in [1, 2] {
        let summary = read_json(&out.join(format!("cores-{cores}")).join("chain.json"));
        assert_eq!(summary["environment"]["pin"]["cores"], cores, "cores-{cores}");
    }
    let page = std::fs::read_to_string(out.join("by-cores.md")).unwrap();
    assert!(page.contains("## `chain`"), "{page}");
    assert!(page.contains("| 1 core | 2 cores | across core counts |"), "{page}");
    assert!(page.contains("(cores-1/chain.md#question-"), "{page}");
    assert!(page.contains("holds on 1 and 2 cores"), "one contestant is its own answer at both counts: {page}");

    // Each run's report, and its folder's index when it has one, carries the one line, linking the page.
    for (cores, link) in [(1, "../by-cores.md#chain"), (2, "../by-cores.md#chain")] {
        let report = std::fs::read_to_string(out.join(format!("cores-{cores}/chain.md"))).unwrap();
        let line = format!("**Across core counts** (this run: {cores} core{}): ", if cores == 1 { "" } else { "s" });
        assert!(report.contains(&line), "cores-{cores}: {report}");
        assert!(report.contains("holds on 1 and 2 cores"), "one contestant is its own answer: {report}");
        assert!(report.contains(&format!("([answers by core count]({link}))")), "cores-{cores}: {report}");
    }
    // `lab report --by-cores` renders the same report from the raw file and by-cores.json.
    let raw = std::fs::read_dir(out.join("cores-1/raw")).unwrap().next().unwrap().unwrap().path();
    let again = dir.path().join("again");
    let by_cores = out.join("by-cores.json");
    lab().arg("report").arg(&raw).arg("--out").arg(&again).arg("--by-cores").arg(&by_cores).assert().success();
    assert_eq!(
        std::fs::read_to_string(again.join("chain.md")).unwrap().replace("../out/by-cores.md", "../by-cores.md"),
        std::fs::read_to_string(out.join("cores-1/chain.md")).unwrap(),
        "re-rendered with --by-cores into a sibling folder, only the link's path differs"
    );
    // A file that is not by-cores.json is bad usage, and nothing is written.
    let wrong = dir.path().join("wrong");
    lab().arg("report").arg(&raw).arg("--out").arg(&wrong).arg("--by-cores").arg(&raw).assert().code(2);
    assert!(!wrong.exists(), "a refused re-render wrote {}", wrong.display());

    // The page again from the summaries alone, into another folder: its links lead back to each run's report.
    let elsewhere = dir.path().join("elsewhere");
    let summaries = [out.join("cores-2/chain.json"), out.join("cores-1/chain.json")];
    lab().arg("by-cores").args(&summaries).arg("--out").arg(&elsewhere).assert().success();
    let again = std::fs::read_to_string(elsewhere.join("by-cores.md")).unwrap();
    assert!(again.contains("(../out/cores-1/chain.md#question-"), "{again}");
    assert!(elsewhere.join("by-cores.json").exists(), "the answers beside the page");

    // One run of a scenario, or one core count twice, is bad usage, and nothing is written.
    let refused = dir.path().join("refused");
    lab().arg("by-cores").arg(&summaries[0]).arg(&summaries[0]).arg("--out").arg(&refused).assert().code(2);
    lab().arg("by-cores").arg(&summaries[0]).arg("--out").arg(&refused).assert().code(2);
    assert!(!refused.exists(), "a refused page wrote {}", refused.display());
}
