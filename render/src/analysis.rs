//! The sentences every report shares: the headline findings (each family's best against the reference,
//! [`measure::question::family_bests`]), the status line and the disturbed-iterations warning, and how a phase
//! name reads.

use measure::compare::{ratio, Ratio};
use measure::question::{best_candidate, family_bests, reference, Entry};
use measure::record::Status;
use measure::summary::{metric_key, ContestantSummary, Family, Summary};

use serde_json::json;

use crate::format;
use crate::ReportInput;

/// A phase name as words: `capacity_256` → `capacity 256`, `count_1000-payload_0` → `count 1000, payload 0`.
pub(crate) fn phase_words(phase: &str) -> String {
    phase
        .split('-')
        .map(|part| match part.rsplit_once('_') {
            Some((name, value)) if value.parse::<f64>().is_ok() => format!("{} {value}", name.replace('_', " ")),
            _ => part.replace('_', " "),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// The headline findings, one markdown sentence each: per phase, the best contestant on the headline metric, and
/// each family's best as a ratio of the best baseline's (marked "cannot tell" or "practically equal" when within
/// noise, [`measure::compare::NoiseWhy`]); then the scenario's own [`ReportInput::headline_notes`]. The words are in
/// `templates/findings.md`.
pub fn headline_findings(input: &ReportInput<'_>) -> Vec<String> {
    let summary = input.summary;
    let best = |e: &Entry<'_>, ratio: Option<Ratio>| {
        json!({
            "name": e.contestant.name,
            "family": e.contestant.family.as_str(),
            "value": format::number(e.stats.median),
            "ratio": ratio.map(|r| format::ratio(r.value)).unwrap_or_default(),
            "noise": ratio.and_then(|r| r.why),
        })
    };
    // Per phase: the best candidate, the reference, and each family's best against it.
    let mut phases: Vec<serde_json::Value> = Vec::new();
    for phase in summary.phase_keys() {
        let key = metric_key(phase, input.headline_metric);
        let threshold = summary.method.threshold(&key);
        let mut findings = json!({
            "phase": phase,
            "best": null,
            "reference": "",
            "reference_is_baseline": false,
            "reference_value": "",
            "families": [],
        });
        if let Some(overall) = best_candidate(summary, None, &key, input.higher_is_better) {
            findings["best"] = best(&overall, None);
            if let Some(reference) = reference(summary, &key, input.higher_is_better) {
                findings["reference"] = reference.entry.contestant.name.as_str().into();
                findings["reference_is_baseline"] = reference.is_baseline.into();
                findings["reference_value"] = format::number(reference.entry.stats.median).into();
                // The baselines are the reference (or none ran): only the other families are set against it.
                let others = family_bests(summary, &key, input.higher_is_better).into_iter().filter(|e| {
                    e.contestant.family != Family::Baseline && e.contestant.name != reference.entry.contestant.name
                });
                findings["families"] = others
                    .filter_map(|e| Some(best(&e, Some(ratio(e.stats, reference.entry.stats, threshold)?))))
                    .collect();
            }
        }
        phases.push(findings);
    }
    let context =
        json!({ "metric": input.headline_metric, "higher_is_better": input.higher_is_better, "phases": phases });
    let text = template!("findings.md", context);
    let mut findings: Vec<String> = text.lines().filter(|l| !l.is_empty()).map(str::to_string).collect();
    findings.extend(input.headline_notes.iter().cloned());
    findings
}

/// Whether `contestant` failed its checks (not timed out) and its registry entry expects it to.
pub(crate) fn failed_as_expected(contestant: &ContestantSummary) -> bool {
    contestant.status == Status::Failed && contestant.expected_failure.is_some()
}

/// One line saying whether every contestant passed, whether a guard of the lab failed (a claim that judges the lab
/// itself, [`measure::judge::ClaimSpec::guard`]), whether the run was interrupted, and whether it was a `--quick`
/// smoke run; the words are in `templates/status.md`.
pub fn status_line(summary: &Summary) -> String {
    // Each contestant named: its name, whether it timed out (rather than failed), why (when known) and why it was
    // expected to fail (when it was).
    let entries = |keep: &dyn Fn(&ContestantSummary) -> bool| -> Vec<serde_json::Value> {
        let named = summary.contestants.iter().filter(|c| keep(c));
        named
            .map(|c| {
                let timed_out = c.status == Status::Timeout;
                json!({ "name": c.name, "timed_out": timed_out, "reason": c.reason, "expected": c.expected_failure })
            })
            .collect()
    };
    let context = json!({
        "total": summary.contestants.len(),
        "not_passed": entries(&|c| matches!(c.status, Status::Failed | Status::Timeout) && !failed_as_expected(c)),
        "failed_as_expected": entries(&failed_as_expected),
        "passed_unexpectedly": entries(&|c| c.status == Status::Ok && c.expected_failure.is_some()),
        "passed": summary.contestants.iter().filter(|c| c.status == Status::Ok).count(),
        "skipped": entries(&|c| c.status == Status::Skipped),
        "interrupted": summary.finished_utc.is_empty(),
        "quick": summary.method.quick,
        "disturbed": disturbed_note(summary),
        "guards_failed": failed_guards(summary)
            .into_iter()
            .map(|c| json!({ "text": c.text, "p": measure::judge::p_label(c.p) }))
            .collect::<Vec<_>>(),
    });
    template!("status.md", context)
}

/// The guards of the lab (claims that judge the lab itself, [`measure::judge::ClaimSpec::guard`]) that failed: each
/// flags the report's status line, and the index reads the run with care.
pub(crate) fn failed_guards(summary: &Summary) -> Vec<&measure::summary::ClaimResult> {
    summary.claims.iter().filter(|c| c.guard && c.verdict == measure::summary::Verdict::Fails).collect()
}

/// A warning when the figures include measured iterations that other processes disturbed (still disturbed after
/// the busy-machine guard's re-runs), naming the contestants and the fix; `None` when they include none. The
/// words are in `templates/disturbed.md`.
pub fn disturbed_note(summary: &Summary) -> Option<String> {
    let kept: Vec<serde_json::Value> = summary
        .contestants
        .iter()
        .filter(|c| c.disturbed.disturbed_kept > 0)
        .map(|c| json!({ "name": c.name, "kept": c.disturbed.disturbed_kept }))
        .collect();
    (!kept.is_empty()).then(|| template!("disturbed.md", serde_json::json!({ "kept": kept })))
}

#[cfg(test)]
pub(crate) mod tests {
    #![allow(clippy::unwrap_used)]
    use std::collections::BTreeMap;

    use measure::summary::{Check, ClaimResult, Environment, Method, MetricStats, Role, Verdict};

    use super::*;

    /// Statistics with a given median and a symmetric spread, mean equal to the median.
    pub(crate) fn stats(median: f64, ci999: f64) -> MetricStats {
        MetricStats {
            median,
            min: median * 0.9,
            max: median * 1.2,
            ci999,
            ci95_low: None,
            ci95_high: None,
            samples: Vec::new(),
            n: 6,
            mean: median,
            fork_medians: vec![median * 0.95, median, median * 1.1],
            processes: 3,
            outliers: Default::default(),
        }
    }

    fn contestant(name: &str, family: Family, status: Status, metrics: &[(&str, MetricStats)]) -> ContestantSummary {
        ContestantSummary {
            name: name.to_string(),
            family,
            role: Default::default(),
            description: format!("{name}, described in one line"),
            expected_failure: None,
            status,
            reason: (status != Status::Ok).then(|| "checksum mismatch".to_string()),
            checks: vec![Check::new("checksum", status == Status::Ok, "sum of outputs")],
            metrics: metrics.iter().map(|(k, v)| (k.to_string(), v.clone())).collect(),
            skipped_phases: Default::default(),
            disturbed: Default::default(),
        }
    }

    /// A contestant that ran cleanly with `role` and statistics `stats` on metric `ms`.
    pub(crate) fn contestant_with_role(
        name: &str,
        family: Family,
        role: Role,
        stats: MetricStats,
    ) -> ContestantSummary {
        ContestantSummary { role, ..contestant(name, family, Status::Ok, &[("ms", stats)]) }
    }

    /// [`fixture`] with these contestants and no phases.
    pub(crate) fn summary_of(contestants: Vec<ContestantSummary>) -> Summary {
        Summary { contestants, phases: Vec::new(), ..fixture() }
    }

    /// Two phases, a baseline, a stream contestant and a failed blocking one.
    pub(crate) fn fixture() -> Summary {
        Summary {
            lab_version: "0.1.0".to_string(),
            git_rev: "abc1234".to_string(),
            started_utc: "2026-11-30T10:00:00Z".to_string(),
            finished_utc: "2026-11-30T10:02:10Z".to_string(),
            environment: Environment::default(),
            method: Method { warmup: 2, iterations: 2, seed: 7, ..testkit::fixture::method() },
            contestants: vec![
                contestant(
                    "loop",
                    Family::Baseline,
                    Status::Ok,
                    &[("work_0.ms_per_million", stats(10.0, 0.5)), ("work_64.ms_per_million", stats(100.0, 2.0))],
                ),
                contestant(
                    "stream",
                    Family::Stream,
                    Status::Ok,
                    &[("work_0.ms_per_million", stats(21.0, 0.5)), ("work_64.ms_per_million", stats(105.0, 2.0))],
                ),
                contestant("blocking", Family::Blocking, Status::Failed, &[]),
            ],
            claims: vec![ClaimResult::new("streams cost", Verdict::Holds, "2.1×")],
            command: "lab chain".to_string(),
            raw_file: "raw/chain.jsonl".to_string(),
            phases: vec!["work_0".to_string(), "work_64".to_string()],
            ..testkit::fixture::summary("chain", vec![])
        }
    }

    pub(crate) fn input(summary: &Summary) -> ReportInput<'_> {
        ReportInput {
            summary,
            title: "t",
            question: "q",
            discussion: String::new(),
            details_discussion: String::new(),
            headline_metric: "ms_per_million",
            higher_is_better: false,
            table_metrics: vec!["ms_per_million"],
            charts: Vec::new(),
            series: BTreeMap::new(),
            harness_notes: Vec::new(),
            headline_notes: Vec::new(),
            trade_off_metrics: Vec::new(),
        }
    }

    #[test]
    fn a_scenarios_own_notes_follow_the_generic_headline() {
        let summary = fixture();
        let mut with_notes = input(&summary);
        with_notes.headline_notes = vec!["Without a bound, outstanding work ran away.".to_string()];
        let findings = headline_findings(&with_notes);
        assert_eq!(findings.last().map(String::as_str), Some("Without a bound, outstanding work ran away."));
        assert_eq!(findings.len(), headline_findings(&input(&summary)).len() + 1);
    }

    #[test]
    fn headline_gives_ratios_against_the_baseline() {
        let summary = fixture();
        let findings = headline_findings(&input(&summary));
        assert_eq!(
            findings,
            vec![
                "At `work_0`, the lowest `ms_per_million` is 10.0 from `loop` (baseline).".to_string(),
                "At `work_0`, the best stream contestant `stream` takes **2.10×** the baseline `loop`'s \
                 `ms_per_million` (21.0 vs 10.0)."
                    .to_string(),
                "At `work_64`, the lowest `ms_per_million` is 100 from `loop` (baseline).".to_string(),
                "At `work_64`, the best stream contestant `stream` takes **1.05×** the baseline `loop`'s \
                 `ms_per_million` (105 vs 100) (cannot tell: the processes overlap)."
                    .to_string(),
            ]
        );
    }

    #[test]
    fn status_line_names_failures_interruptions_and_quick_runs() {
        let mut summary = fixture();
        assert_eq!(status_line(&summary), "❌ 1 of 3 contestants did not pass: `blocking` failed (checksum mismatch).");
        summary.contestants.pop();
        summary.finished_utc.clear();
        summary.method.quick = true;
        let line = status_line(&summary);
        assert!(line.starts_with("✅ All 2 contestants passed their checks."));
        assert!(line.contains("interrupted"));
        assert!(line.contains("numbers not for conclusions"));
    }

    #[test]
    fn a_failed_guard_of_the_lab_flags_the_status_line_and_nothing_else_does() {
        let mut summary = fixture();
        summary.contestants.pop();
        let claim = |verdict, guard| ClaimResult {
            guard,
            p: Some(0.004),
            ..ClaimResult::new("The lab runs within 1.10× of its standalone programs.", verdict, "")
        };
        for (verdict, guard) in [(Verdict::Holds, true), (Verdict::Inconclusive, true), (Verdict::Fails, false)] {
            summary.claims = vec![claim(verdict, guard)];
            assert_eq!(status_line(&summary), "✅ All 2 contestants passed their checks.", "{verdict:?}, {guard}");
        }
        summary.claims = vec![claim(Verdict::Fails, true)];
        assert_eq!(
            status_line(&summary),
            "✅ All 2 contestants passed their checks. ⚠️ A guard of the lab failed (p = 0.0040): The lab runs within \
             1.10× of its standalone programs. Its figures may include a cost of the lab's own trial process."
        );
    }

    #[test]
    fn an_expected_failure_is_a_finding_with_its_cause_and_one_that_did_not_come_is_flagged() {
        let mut summary = fixture();
        let peer = summary.contestants.last_mut().unwrap();
        peer.expected_failure = Some("the crate admits above a limit it has just lowered".to_string());
        let line = status_line(&summary);
        assert!(
            line.starts_with("✅ 2 of 3 contestants passed their checks, and 1 failed them as expected."),
            "{line}"
        );
        assert!(
            line.contains(
                "A finding, not a defect of the run: `blocking` failed its checks as expected, because the crate \
                 admits above a limit it has just lowered (checksum mismatch)."
            ),
            "{line}"
        );
        assert!(!line.contains('❌') && !line.contains("⚠️"), "{line}");

        let peer = summary.contestants.last_mut().unwrap();
        peer.status = Status::Timeout;
        assert!(status_line(&summary).starts_with("❌ 1 of 3 contestants did not pass: `blocking` timed out"));

        let peer = summary.contestants.last_mut().unwrap();
        peer.status = Status::Ok;
        let line = status_line(&summary);
        assert!(line.starts_with("✅ All 3 contestants passed their checks."), "{line}");
        assert!(line.contains("⚠️ `blocking` was expected to fail its checks, because the crate admits"), "{line}");
    }

    #[test]
    fn status_line_of_a_run_where_nothing_ran_says_so_instead_of_all_0_passed() {
        let mut summary = fixture();
        for c in &mut summary.contestants {
            c.status = Status::Skipped;
            c.reason = Some("not run: the run was interrupted first".to_string());
        }
        let line = status_line(&summary);
        assert!(line.starts_with("⚠️ No contestant ran; skipped: `"), "{line}");
        assert!(!line.contains("All 0"), "{line}");
        summary.contestants.clear();
        assert!(status_line(&summary).starts_with("⚠️ No contestant was selected"));
    }
}
