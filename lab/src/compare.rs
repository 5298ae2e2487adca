//! `lab compare`: two summaries side by side, flagging changes beyond the noise threshold, as text or as JSON
//! (`--json`), and with `--fail-on PCT` a gate for CI: exit 1 when a metric whose direction is known got worse
//! beyond noise and by more than PCT per cent. Only like is compared with like: runs whose parameters, method or
//! phases differ, or that ran on different testbeds or builds, are refused with the differences listed, unless
//! `--force`, and then the differences head the comparison.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;
use std::path::Path;

use measure::compare::compare;
use measure::record::Status;
use measure::summary::Summary;
use serde::Serialize;

use crate::error::UsageError;

/// The version of the JSON `lab compare --json` prints; raised when a field changes meaning or goes away.
pub(crate) const SCHEMA_VERSION: u32 = 1;

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

/// Where the two runs' testbeds or builds differ, one `what: base vs new` each: the CPU, its cores, the memory,
/// the kernel, the compiler, the build profile, the CPUs the trials were pinned to (`--cores`; a run without a
/// pin ran on every CPU the lab may use), and, where both runs recorded their testbed, SMT, virtualisation and the
/// CPUs the lab may use. A ratio across two of them measures the machines as much as the change.
pub(crate) fn testbed_differences(base: &Summary, new: &Summary) -> Vec<String> {
    let (b, n) = (&base.environment, &new.environment);
    let pin = |e: &measure::setup::Environment| {
        e.pin.as_ref().map_or_else(|| "unpinned".to_string(), |p| format!("{} ({})", p.cores, p.cpu_list()))
    };
    let mut fields = vec![
        ("cpu", b.cpu_model.clone(), n.cpu_model.clone()),
        ("cores", b.cores.to_string(), n.cores.to_string()),
        ("memory GiB", b.memory_gib.to_string(), n.memory_gib.to_string()),
        ("kernel", b.kernel.clone(), n.kernel.clone()),
        ("rustc", b.rustc.clone(), n.rustc.clone()),
        ("build profile", b.build_profile.clone(), n.build_profile.clone()),
        ("pinned cores", pin(b), pin(n)),
    ];
    // A run made before the testbed was recorded cannot be told apart on it: only runs that both recorded it are.
    if let (Some(bt), Some(nt)) = (&b.testbed, &n.testbed) {
        fields.push(("SMT threads per core", bt.smt.value.clone(), nt.smt.value.clone()));
        fields.push(("virtualised", bt.virtualised.value.clone(), nt.virtualised.value.clone()));
        fields.push(("cpuset", bt.cpuset.value.clone(), nt.cpuset.value.clone()));
    }
    fields.into_iter().filter(|(_, b, n)| b != n).map(|(name, b, n)| format!("{name} {b:?} vs {n:?}")).collect()
}

/// One side of the comparison: which build ran it, when and where.
#[derive(Debug, Serialize)]
pub(crate) struct Side {
    /// Short git revision of the build that ran it.
    pub(crate) git_rev: String,
    /// Whether that build had uncommitted changes.
    pub(crate) git_dirty: bool,
    /// When it started (RFC 3339, UTC).
    pub(crate) started_utc: String,
    /// The CPU model.
    pub(crate) cpu_model: String,
    /// Its cores.
    pub(crate) cores: u32,
    /// The compiler.
    pub(crate) rustc: String,
}

impl Side {
    fn of(summary: &Summary) -> Side {
        Side {
            git_rev: summary.git_rev.clone(),
            git_dirty: summary.git_dirty,
            started_utc: summary.started_utc.clone(),
            cpu_model: summary.environment.cpu_model.clone(),
            cores: summary.environment.cores,
            rustc: summary.environment.rustc.clone(),
        }
    }
}

/// How a metric moved, under the lab's one noise rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum Change {
    /// Within noise.
    Noise,
    /// Higher beyond noise.
    Higher,
    /// Lower beyond noise.
    Lower,
}

/// One contestant's metric in both runs.
#[derive(Debug, Serialize)]
pub(crate) struct Row {
    /// The contestant.
    pub(crate) contestant: String,
    /// The metric key (phase-prefixed where the scenario sweeps).
    pub(crate) metric: String,
    /// Its median in the base run.
    pub(crate) base: f64,
    /// Its median in the new run.
    pub(crate) new: f64,
    /// `new / base`.
    pub(crate) ratio: f64,
    /// How it moved.
    pub(crate) change: Change,
    /// Whether higher is better on it, where the scenario says (its headline, its questions' and trade-offs'
    /// metrics); `None` elsewhere, where no change is judged a regression.
    pub(crate) higher_is_better: Option<bool>,
    /// It got worse beyond noise and, with `--fail-on`, by more than that.
    pub(crate) regression: bool,
}

/// A contestant whose status changed between the runs (it is not compared).
#[derive(Debug, Serialize)]
pub(crate) struct StatusChange {
    /// The contestant.
    pub(crate) contestant: String,
    /// Its status in the base run.
    pub(crate) base: &'static str,
    /// Its status in the new run.
    pub(crate) new: &'static str,
}

/// The comparison of two runs, as `--json` prints it.
#[derive(Debug, Serialize)]
pub(crate) struct Comparison {
    /// [`SCHEMA_VERSION`].
    pub(crate) schema_version: u32,
    /// The scenario.
    pub(crate) scenario: String,
    /// The earlier run.
    pub(crate) base: Side,
    /// The later run.
    pub(crate) new: Side,
    /// The noise threshold the changes were judged under (the larger of the two runs').
    pub(crate) noise_threshold: f64,
    /// `--fail-on`'s threshold as a fraction (0.1 for 10%), when given.
    pub(crate) fail_on: Option<f64>,
    /// How the runs' settings, testbeds or builds differ (compared anyway: `--force`).
    pub(crate) forced_differences: Vec<String>,
    /// Every metric of every contestant both runs measured.
    pub(crate) rows: Vec<Row>,
    /// Contestants whose status changed.
    pub(crate) status_changes: Vec<StatusChange>,
    /// Contestants only the base run has.
    pub(crate) only_in_base: Vec<String>,
    /// Contestants only the new run has.
    pub(crate) only_in_new: Vec<String>,
    /// Metrics only one run measured.
    pub(crate) one_sided_metrics: usize,
    /// Changes beyond noise.
    pub(crate) changes: usize,
    /// Regressions: rows with `regression`.
    pub(crate) regressions: usize,
}

/// Whether higher is better on each metric the scenario states a direction for: its headline metric, its
/// questions' deciding metrics and its trade-off metrics (keys without a phase prefix).
fn directions(scenario: &str) -> BTreeMap<String, bool> {
    let Some(scenario) = crate::registry::find(scenario) else { return BTreeMap::new() };
    let mut known = BTreeMap::new();
    known.insert(scenario.headline_metric().to_string(), scenario.higher_is_better());
    for (metric, higher) in scenario.trade_off_metrics() {
        known.insert(metric.to_string(), higher);
    }
    for q in scenario.questions() {
        known.insert(q.metric.to_string(), q.higher_is_better);
    }
    known
}

/// The direction of `key` (its phase prefix, if any, taken off).
fn direction(key: &str, phases: &[String], known: &BTreeMap<String, bool>) -> Option<bool> {
    let bare = phases.iter().find_map(|p| key.strip_prefix(p.as_str())?.strip_prefix('.')).unwrap_or(key);
    known.get(bare).copied()
}

/// Compare `new` with `base`. Runs set up differently (see [`differences`]) or on different testbeds or builds
/// (see [`testbed_differences`]) are refused unless `force`. With `fail_on` (a fraction), a row is a regression
/// when it got worse beyond noise by more than that; without it, any worsening beyond noise is.
pub(crate) fn comparison(
    base: &Summary,
    new: &Summary,
    force: bool,
    fail_on: Option<f64>,
) -> Result<Comparison, UsageError> {
    if base.scenario != new.scenario {
        return Err(UsageError::new(format!(
            "the summaries are of different scenarios (`{}` and `{}`)",
            base.scenario, new.scenario
        )));
    }
    let mut differ = differences(base, new);
    let testbed = testbed_differences(base, new);
    if !testbed.is_empty() {
        differ.push(format!("testbed or build: {}", testbed.join(", ")));
    }
    if !differ.is_empty() && !force {
        return Err(UsageError::new(format!(
            "the two runs were set up differently ({}): compare runs with the same settings on the same testbed \
             and build, or pass --force to compare what both measured",
            differ.join("; ")
        )));
    }
    let threshold = base.method.noise_threshold.max(new.method.noise_threshold);
    let known = directions(&base.scenario);
    let mut result = Comparison {
        schema_version: SCHEMA_VERSION,
        scenario: base.scenario.clone(),
        base: Side::of(base),
        new: Side::of(new),
        noise_threshold: threshold,
        fail_on,
        forced_differences: differ,
        rows: Vec::new(),
        status_changes: Vec::new(),
        only_in_base: Vec::new(),
        only_in_new: Vec::new(),
        one_sided_metrics: 0,
        changes: 0,
        regressions: 0,
    };
    for b in &base.contestants {
        let Some(n) = new.contestant(&b.name) else {
            result.only_in_base.push(b.name.clone());
            continue;
        };
        if b.status != Status::Ok || n.status != Status::Ok {
            result.status_changes.push(StatusChange {
                contestant: b.name.clone(),
                base: b.status.as_str(),
                new: n.status.as_str(),
            });
            continue;
        }
        result.one_sided_metrics += n.metrics.keys().filter(|m| !b.metrics.contains_key(*m)).count();
        for (metric, bs) in &b.metrics {
            let Some(ns) = n.metrics.get(metric) else {
                result.one_sided_metrics += 1;
                continue;
            };
            let cmp = compare(ns, bs, threshold);
            let change = match (cmp.noise, cmp.ratio > 1.0) {
                (true, _) => Change::Noise,
                (false, true) => Change::Higher,
                (false, false) => Change::Lower,
            };
            let higher_is_better = direction(metric, &base.phases, &known);
            let worse =
                matches!((change, higher_is_better), (Change::Higher, Some(false)) | (Change::Lower, Some(true)));
            let by = if cmp.ratio > 1.0 { cmp.ratio - 1.0 } else { 1.0 / cmp.ratio - 1.0 };
            let regression = worse && fail_on.is_none_or(|limit| by > limit);
            result.changes += usize::from(change != Change::Noise);
            result.regressions += usize::from(regression);
            result.rows.push(Row {
                contestant: b.name.clone(),
                metric: metric.clone(),
                base: bs.median,
                new: ns.median,
                ratio: cmp.ratio,
                change,
                higher_is_better,
                regression,
            });
        }
    }
    result.only_in_new =
        new.contestants.iter().filter(|n| base.contestant(&n.name).is_none()).map(|n| n.name.clone()).collect();
    Ok(result)
}

/// The comparison as text: one line per contestant and metric present in both, changes flagged, regressions
/// marked.
pub(crate) fn text(c: &Comparison) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "scenario {}: base {} ({}) vs new {} ({})",
        c.scenario, c.base.git_rev, c.base.started_utc, c.new.git_rev, c.new.started_utc
    );
    if !c.forced_differences.is_empty() {
        let _ = writeln!(out, "compared with --force although the runs differ: {}", c.forced_differences.join("; "));
    }
    let _ = writeln!(
        out,
        "noise threshold {:.0}%; a change counts only beyond it and when the process-median ranges do not overlap",
        c.noise_threshold * 100.0
    );
    let _ =
        writeln!(out, "{:<34} {:<36} {:>12} {:>12} {:>8}  verdict", "contestant", "metric", "base", "new", "new/base");
    for r in &c.rows {
        let verdict = match (r.change, r.regression) {
            (Change::Noise, _) => "noise",
            (Change::Higher, true) => "HIGHER (worse: regression)",
            (Change::Lower, true) => "LOWER (worse: regression)",
            (Change::Higher, false) => "HIGHER",
            (Change::Lower, false) => "LOWER",
        };
        let _ = writeln!(
            out,
            "{:<34} {:<36} {:>12.4} {:>12.4} {:>8.3}  {verdict}",
            r.contestant, r.metric, r.base, r.new, r.ratio
        );
    }
    for s in &c.status_changes {
        let _ = writeln!(out, "{:<34} status {} -> {}", s.contestant, s.base, s.new);
    }
    for name in &c.only_in_base {
        let _ = writeln!(out, "{name:<34} only in base: not compared");
    }
    for name in &c.only_in_new {
        let _ = writeln!(out, "{name:<34} only in new: not compared");
    }
    if c.one_sided_metrics > 0 {
        let _ = writeln!(out, "{} metric(s) measured in one run only: not compared", c.one_sided_metrics);
    }
    let _ = writeln!(out, "{} change(s) beyond noise", c.changes);
    let beyond = c.fail_on.map(|limit| format!(" worse by more than {:.0}%", limit * 100.0)).unwrap_or_default();
    let _ = writeln!(out, "{} regression(s){beyond} (metrics whose direction the scenario states)", c.regressions);
    out
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    /// The comparison as text; see [`comparison`].
    fn render(base: &Summary, new: &Summary, force: bool) -> Result<String, UsageError> {
        comparison(base, new, force, None).map(|c| text(&c))
    }

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

    #[test]
    fn runs_on_different_testbeds_are_refused_unless_forced() {
        let a = summary(1000, 3, &["work_0", "work_64"]);
        let mut b = a.clone();
        b.environment.cores = 16;
        b.environment.rustc = "rustc 1.99.0".to_string();
        let refused = render(&a, &b, false).unwrap_err().to_string();
        assert!(
            refused.contains("testbed or build: cores \"2\" vs \"16\", rustc \"\" vs \"rustc 1.99.0\""),
            "{refused}"
        );
        assert!(render(&a, &b, true).unwrap().contains("compared with --force"));
    }

    /// A testbed of `smt` threads per core, `virtualised`, on the CPUs `cpuset`.
    fn testbed(smt: &str, virtualised: &str, cpuset: &str) -> measure::setup::Testbed {
        use measure::setup::{Setting, Testbed};
        Testbed {
            smt: Setting::new("smt", smt, "/proc/cpuinfo"),
            virtualised: Setting::new("virtualised", virtualised, "/proc/cpuinfo"),
            governor: Setting::new("governor", "not readable", "/sys"),
            cpuset: Setting::new("cpuset", cpuset, "sched_getaffinity(2)"),
            ..Testbed::default()
        }
    }

    #[test]
    fn runs_with_different_smt_virtualisation_cpuset_or_pin_are_refused_naming_the_field() {
        let mut a = summary(1000, 3, &["work_0", "work_64"]);
        a.environment.testbed = Some(testbed("1", "yes", "0-1 (2 CPUs)"));
        let differs = |change: &dyn Fn(&mut Summary), field: &str| {
            let mut b = a.clone();
            change(&mut b);
            let refused = render(&a, &b, false).unwrap_err().to_string();
            assert!(refused.contains(&format!("testbed or build: {field}")), "{refused}");
            assert!(render(&a, &b, true).unwrap().contains("compared with --force"));
        };
        differs(
            &|b| b.environment.testbed = Some(testbed("2", "yes", "0-1 (2 CPUs)")),
            "SMT threads per core \"1\" vs \"2\"",
        );
        differs(&|b| b.environment.testbed = Some(testbed("1", "no", "0-1 (2 CPUs)")), "virtualised \"yes\" vs \"no\"");
        differs(
            &|b| b.environment.testbed = Some(testbed("1", "yes", "0 (1 CPU)")),
            "cpuset \"0-1 (2 CPUs)\" vs \"0 (1 CPU)\"",
        );
        differs(
            &|b| b.environment.pin = Some(measure::setup::Pin { cores: 1, cpus: vec![0] }),
            "pinned cores \"unpinned\" vs \"1 (0)\"",
        );
        // A run made before the testbed was recorded is compared on what both recorded.
        let mut old = a.clone();
        old.environment.testbed = None;
        assert!(testbed_differences(&old, &a).is_empty());
        assert!(testbed_differences(&a, &a.clone()).is_empty());
    }

    /// `a` with one contestant whose headline metric has these process medians.
    fn with_chain_metric(medians: &[f64]) -> Summary {
        let mut s = summary(1000, 3, &["work_0", "work_64"]);
        let stats = testkit::fixture::processes(medians);
        let json = serde_json::json!({
            "name": "blocking-crossbeam", "family": "blocking", "description": "", "status": "ok", "checks": [],
            "metrics": { "work_0.ms_per_million": stats },
        });
        s.contestants.push(serde_json::from_value(json).unwrap());
        s
    }

    #[test]
    fn a_slower_headline_beyond_noise_is_a_regression_only_beyond_fail_on() {
        let base = with_chain_metric(&[10.0, 10.1, 10.2]);
        let slower = with_chain_metric(&[13.0, 13.1, 13.2]);
        let c = comparison(&base, &slower, false, None).unwrap();
        assert_eq!((c.changes, c.regressions), (1, 1), "ms per million is lower-is-better: 1.3× is worse");
        assert_eq!(c.rows[0].higher_is_better, Some(false));
        assert_eq!(comparison(&base, &slower, false, Some(0.5)).unwrap().regressions, 0, "30% is within 50%");
        assert_eq!(comparison(&base, &slower, false, Some(0.25)).unwrap().regressions, 1);
        let faster = comparison(&slower, &base, false, Some(0.1)).unwrap();
        assert_eq!((faster.changes, faster.regressions), (1, 0), "faster is a change, not a regression");
        let json = serde_json::to_value(&c).unwrap();
        assert_eq!(json["schema_version"], SCHEMA_VERSION);
        assert_eq!(json["rows"][0]["change"], "higher");
    }
}
