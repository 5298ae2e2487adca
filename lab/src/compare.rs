//! `lab compare`: two summaries side by side, flagging changes beyond the noise threshold. Only like is compared
//! with like: runs whose parameters, method or phases differ are refused with the differences listed, unless
//! `--force`, and then the differences head the comparison.

use std::collections::BTreeSet;
use std::fmt::Write;
use std::path::Path;

use measure::compare::compare;
use measure::record::Status;
use measure::summary::Summary;

use crate::error::UsageError;

/// Read a summary JSON file, or say why not.
pub(crate) fn read_summary(path: &Path) -> Result<Summary, UsageError> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| UsageError::new(format!("cannot read summary {}: {e}", path.display())))?;
    serde_json::from_str(&text).map_err(|e| UsageError::new(format!("{}: not a lab summary: {e}", path.display())))
}

/// Where two runs of one scenario were set up differently, one `what: base vs new` each: every parameter, the
/// method's repetitions, kind and seed (what was measured, and how often), and the phases. The noise threshold
/// and the trial time budget judge or guard the numbers without changing them, so they may differ.
pub(crate) fn differences(base: &Summary, new: &Summary) -> Vec<String> {
    let mut found = Vec::new();
    let keys: BTreeSet<&String> = base.params.keys().chain(new.params.keys()).collect();
    let shown = |v: Option<&serde_json::Value>| v.map_or_else(|| "absent".to_string(), |v| v.to_string());
    for key in keys {
        let (b, n) = (base.params.get(key), new.params.get(key));
        if b != n {
            found.push(format!("--{} {} vs {}", key.replace('_', "-"), shown(b), shown(n)));
        }
    }
    let (b, n) = (&base.method, &new.method);
    let method = [
        ("quick", b.quick.to_string(), n.quick.to_string()),
        ("forks", b.forks.to_string(), n.forks.to_string()),
        ("warmup", b.warmup.to_string(), n.warmup.to_string()),
        ("iterations", b.iterations.to_string(), n.iterations.to_string()),
        ("seed", b.seed.to_string(), n.seed.to_string()),
    ];
    for (name, b, n) in method {
        if b != n {
            found.push(format!("method.{name} {b} vs {n}"));
        }
    }
    if base.phases != new.phases {
        found.push(format!("phases [{}] vs [{}]", base.phases.join(", "), new.phases.join(", ")));
    }
    found
}

/// The comparison as text: one line per contestant and metric present in both, changes flagged. Runs set up
/// differently (see [`differences`]) are refused unless `force`.
pub(crate) fn render(base: &Summary, new: &Summary, force: bool) -> Result<String, UsageError> {
    if base.scenario != new.scenario {
        return Err(UsageError::new(format!(
            "the summaries are of different scenarios (`{}` and `{}`)",
            base.scenario, new.scenario
        )));
    }
    let differences = differences(base, new);
    if !differences.is_empty() && !force {
        return Err(UsageError::new(format!(
            "the two runs were set up differently ({}): compare runs with the same settings, or pass --force to \
             compare what both measured",
            differences.join("; ")
        )));
    }
    let threshold = base.method.noise_threshold.max(new.method.noise_threshold);
    let mut out = String::new();
    let _ = writeln!(
        out,
        "scenario {}: base {} ({}) vs new {} ({})",
        base.scenario, base.git_rev, base.started_utc, new.git_rev, new.started_utc
    );
    if !differences.is_empty() {
        let _ = writeln!(out, "compared with --force although the runs differ: {}", differences.join("; "));
    }
    let _ = writeln!(
        out,
        "noise threshold {:.0}%; a change counts only beyond it and when the process-median ranges do not overlap",
        threshold * 100.0
    );
    let _ =
        writeln!(out, "{:<34} {:<36} {:>12} {:>12} {:>8}  verdict", "contestant", "metric", "base", "new", "new/base");
    let mut changes = 0;
    let mut one_sided = 0;
    for b in &base.contestants {
        let Some(n) = new.contestant(&b.name) else {
            let _ = writeln!(out, "{:<34} only in base: not compared", b.name);
            continue;
        };
        if b.status != Status::Ok || n.status != Status::Ok {
            let _ = writeln!(out, "{:<34} status {} -> {}", b.name, b.status.as_str(), n.status.as_str());
            continue;
        }
        one_sided += n.metrics.keys().filter(|m| !b.metrics.contains_key(*m)).count();
        for (metric, bs) in &b.metrics {
            let Some(ns) = n.metrics.get(metric) else {
                one_sided += 1;
                continue;
            };
            let cmp = compare(ns, bs, threshold);
            let verdict = if cmp.noise {
                "noise"
            } else {
                changes += 1;
                if cmp.ratio > 1.0 {
                    "HIGHER"
                } else {
                    "LOWER"
                }
            };
            let _ = writeln!(
                out,
                "{:<34} {:<36} {:>12.4} {:>12.4} {:>8.3}  {verdict}",
                b.name, metric, bs.median, ns.median, cmp.ratio
            );
        }
    }
    for n in new.contestants.iter().filter(|n| base.contestant(&n.name).is_none()) {
        let _ = writeln!(out, "{:<34} only in new: not compared", n.name);
    }
    if one_sided > 0 {
        let _ = writeln!(out, "{one_sided} metric(s) measured in one run only: not compared");
    }
    let _ = writeln!(out, "{changes} change(s) beyond noise");
    Ok(out)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    /// A summary of `chain` with these parameters and phases, from the JSON the lab writes.
    fn summary(items: u64, forks: u32, phases: &[&str]) -> Summary {
        let json = serde_json::json!({
            "scenario": "chain", "lab_version": "0.1.0", "git_rev": "abc", "git_dirty": false,
            "started_utc": "2026-11-30T10:00:00Z", "finished_utc": "2026-11-30T10:01:00Z",
            "environment": {"cpu_model": "", "cores": 2, "memory_gib": 1, "os": "", "kernel": "", "rustc": "",
                            "crates": {}},
            "method": {"quick": false, "forks": forks, "warmup": 1, "iterations": 2, "noise_threshold": 0.2},
            "params": {"items": items, "work": [0, 64]},
            "contestants": [], "claims": [], "command": "lab chain", "raw_file": "raw/chain.jsonl",
            "phases": phases,
        });
        serde_json::from_value(json).unwrap()
    }

    #[test]
    fn runs_set_up_alike_have_no_differences() {
        let a = summary(1000, 3, &["work_0", "work_64"]);
        assert!(differences(&a, &a.clone()).is_empty());
        assert!(render(&a, &a, false).unwrap().contains("0 change(s) beyond noise"));
    }

    #[test]
    fn different_parameters_method_or_phases_are_listed_and_refused_unless_forced() {
        let a = summary(1000, 3, &["work_0", "work_64"]);
        let b = summary(5000, 1, &["work_0"]);
        assert_eq!(
            differences(&a, &b),
            ["--items 1000 vs 5000", "method.forks 3 vs 1", "phases [work_0, work_64] vs [work_0]"]
        );
        let refused = render(&a, &b, false).unwrap_err().to_string();
        assert!(refused.contains("--items 1000 vs 5000; method.forks 3 vs 1"), "{refused}");
        assert!(refused.contains("--force"), "{refused}");
        let forced = render(&a, &b, true).unwrap();
        assert!(forced.contains("compared with --force although the runs differ: --items 1000 vs 5000"), "{forced}");
    }
}
