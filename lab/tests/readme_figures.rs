//! The README's figures agree with the committed reports: each scenario's stated full-run time with its report's
//! start and end stamps (to the tenth of a minute the README gives), their total, and how many revisions the
//! committed reports were made at. A re-run that changes them fails here until the README says what it took.
#![allow(clippy::unwrap_used)]

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The README with every run of whitespace made one space, so that a sentence reads whole across line breaks.
fn readme() -> String {
    let text = std::fs::read_to_string(root().join("README.md")).unwrap();
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// The committed summary of `scenario`.
fn summary(scenario: &str) -> serde_json::Value {
    let path = root().join("reports").join(format!("{scenario}.json"));
    serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap()
}

/// Minutes from a summary's start to its end.
fn minutes(summary: &serde_json::Value) -> f64 {
    let stamp = |key: &str| humantime::parse_rfc3339(summary[key].as_str().unwrap()).unwrap();
    stamp("finished_utc").duration_since(stamp("started_utc")).unwrap().as_secs_f64() / 60.0
}

/// The sentence "took X minutes for `a`, Y for `b`, … and Z for `z`: T minutes in all": each scenario with its
/// stated minutes, and the total.
fn stated_times(readme: &str) -> (Vec<(String, f64)>, f64) {
    let start = readme.find(" took ").expect("the README states the committed runs' times") + " took ".len();
    let end = readme[start..].find(" minutes in all").expect("… minutes in all") + start;
    let sentence = &readme[start..end];
    let (list, total) = sentence.rsplit_once(": ").unwrap();
    let mut times = Vec::new();
    let mut rest = list;
    while let Some(at) = rest.find(" for `") {
        let number = rest[..at].split_whitespace().rev().find_map(|w| w.parse::<f64>().ok()).unwrap();
        let name_start = at + " for `".len();
        let name_end = rest[name_start..].find('`').unwrap() + name_start;
        times.push((rest[name_start..name_end].to_string(), number));
        rest = &rest[name_end..];
    }
    (times, total.trim().parse().unwrap())
}

#[test]
fn the_readme_states_each_committed_run_s_time_and_their_total() {
    let (times, total) = stated_times(&readme());
    let stated: BTreeSet<&str> = times.iter().map(|(name, _)| name.as_str()).collect();
    let committed: BTreeSet<String> = std::fs::read_dir(root().join("reports"))
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().into_string().ok()?.strip_suffix(".json").map(str::to_string))
        // by-cores.json holds the answers across core counts, from runs whose summaries are counted here; the
        // calibration and the floor are no scenario's run.
        .filter(|name| name != "by-cores" && name != "calibration" && name != "floor")
        .collect();
    assert_eq!(stated, committed.iter().map(String::as_str).collect(), "every committed report, once");
    let mut sum = 0.0;
    for (name, stated) in &times {
        let took = minutes(&summary(name));
        sum += took;
        assert!((took - stated).abs() <= 0.051, "{name}: the README says {stated} minutes, its report {took:.2}");
    }
    assert!((sum - total).abs() <= 0.051, "the README says {total} minutes in all, the reports {sum:.2}");
}

#[test]
fn the_readme_says_how_many_revisions_the_committed_reports_come_from() {
    let readme = readme();
    let marker = "The committed `reports/` come from full runs at ";
    let at = readme.find(marker).expect("the README says where the committed reports come from") + marker.len();
    let said = readme[at..].split_whitespace().next().unwrap();
    let words = ["one", "two", "three", "four", "five", "six", "seven", "eight", "nine"];
    let said = words.iter().position(|w| *w == said).map(|i| i + 1).unwrap_or_else(|| said.parse().unwrap());
    let names = [
        "chain",
        "handoff",
        "overload",
        "overload-service",
        "device",
        "backpressure",
        "memory",
        "primitives",
        "http",
        "tcp",
    ];
    let revisions: BTreeSet<String> =
        names.iter().map(|name| summary(name)["git_rev"].as_str().unwrap().to_string()).collect();
    assert_eq!(said, revisions.len(), "the committed reports name these revisions: {revisions:?}");
}
