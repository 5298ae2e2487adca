//! Claims as rows: one row per claim (metric, the two sides, the relation and the factor), judged by one
//! function on the 99.9% confidence bounds of the ratio ([`measure::compare`]). With fewer than
//! [`MIN_PROCESSES`] processes per side a claim is inconclusive, whatever the numbers.

use measure::compare::{verdict_at_least, verdict_at_most};
use measure::summary::{ClaimResult, Summary, Verdict};

/// Fewest processes per side for a verdict other than inconclusive.
pub const MIN_PROCESSES: usize = 3;

/// How side `a` must relate to side `b`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Relation {
    /// `a ≥ factor × b`.
    AtLeast,
    /// `a ≤ factor × b`.
    AtMost,
}

/// One claim.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ClaimRow {
    /// The statement.
    pub text: &'static str,
    /// The metric compared (unit in the name).
    pub metric: &'static str,
    /// The side the claim is about.
    pub a: &'static str,
    /// The side it is compared with.
    pub b: &'static str,
    /// How `a` must relate to `b`.
    pub relation: Relation,
    /// By what factor.
    pub factor: f64,
}

/// Judge every row against `summary`.
pub fn judge_all(summary: &Summary, rows: &[ClaimRow]) -> Vec<ClaimResult> {
    rows.iter().map(|row| judge(summary, row)).collect()
}

/// Judge one row.
pub fn judge(summary: &Summary, row: &ClaimRow) -> ClaimResult {
    let (a, b) = match (summary.stats(row.a, row.metric), summary.stats(row.b, row.metric)) {
        (Ok(a), Ok(b)) => (a, b),
        (Err(why), _) | (_, Err(why)) => return ClaimResult::new(row.text, Verdict::Inconclusive, why),
    };
    let processes = |n: usize| if n == 0 { summary.method.forks as usize } else { n };
    let fewest = processes(a.fork_medians.len()).min(processes(b.fork_medians.len()));
    let (verdict, detail) = match row.relation {
        Relation::AtLeast => verdict_at_least(a, b, row.factor),
        Relation::AtMost => verdict_at_most(a, b, row.factor),
    };
    let numbers = format!(
        "{} {} {} vs {} {}: {detail}",
        row.metric,
        row.a,
        measure::compare::format_ratio(a.median),
        row.b,
        measure::compare::format_ratio(b.median)
    );
    if fewest < MIN_PROCESSES {
        return ClaimResult::new(
            row.text,
            Verdict::Inconclusive,
            format!("{fewest} process(es) per side, fewer than {MIN_PROCESSES}; {numbers}"),
        );
    }
    ClaimResult::new(row.text, verdict, numbers)
}

#[cfg(test)]
pub(crate) mod tests {
    use std::collections::BTreeMap;

    use measure::record::Status;
    use measure::summary::{ContestantSummary, Environment, Family, Method, MetricStats};

    use super::*;

    /// A summary of `forks` processes where each `(contestant, metric, median)` was measured tightly.
    pub(crate) fn summary(forks: u32, values: &[(&str, &str, f64)]) -> Summary {
        let mut contestants: Vec<ContestantSummary> = Vec::new();
        for (name, metric, median) in values {
            let stats = MetricStats {
                median: *median,
                min: median * 0.99,
                max: median * 1.01,
                ci999: median * 0.01,
                n: 10,
                mean: *median,
                fork_medians: vec![*median; forks as usize],
                processes: forks as usize,
                outliers: Default::default(),
            };
            match contestants.iter_mut().find(|c| c.name == *name) {
                Some(c) => {
                    c.metrics.insert(metric.to_string(), stats);
                }
                None => contestants.push(ContestantSummary {
                    name: name.to_string(),
                    family: Family::Stream,
                    description: String::new(),
                    status: Status::Ok,
                    reason: None,
                    checks: vec![],
                    metrics: BTreeMap::from([(metric.to_string(), stats)]),
                    skipped_phases: Default::default(),
                }),
            }
        }
        Summary {
            scenario: "test".into(),
            lab_version: "test".into(),
            git_rev: "unknown".into(),
            git_dirty: false,
            render_git_rev: "unknown".into(),
            render_git_dirty: false,
            started_utc: String::new(),
            finished_utc: String::new(),
            environment: Environment { cores: 2, ..Environment::default() },
            method: Method {
                quick: false,
                forks,
                warmup: 1,
                iterations: 3,
                accounting: 1,
                noise_threshold: 0.2,
                seed: 0,
                trial_timeout_s: 300.0,
            },
            params: BTreeMap::new(),
            contestants,
            claims: vec![],
            command: String::new(),
            raw_file: String::new(),
            phases: vec![],
        }
    }

    const ROW: ClaimRow =
        ClaimRow { text: "a is 10× b", metric: "x", a: "a", b: "b", relation: Relation::AtLeast, factor: 10.0 };

    #[test]
    fn a_row_holds_fails_or_is_inconclusive_on_its_numbers() {
        assert_eq!(judge(&summary(3, &[("a", "x", 200.0), ("b", "x", 10.0)]), &ROW).verdict, Verdict::Holds);
        assert_eq!(judge(&summary(3, &[("a", "x", 20.0), ("b", "x", 10.0)]), &ROW).verdict, Verdict::Fails);
        let missing = judge(&summary(3, &[("a", "x", 200.0)]), &ROW);
        assert_eq!(missing.verdict, Verdict::Inconclusive);
        assert!(missing.detail.contains("b did not run"), "{}", missing.detail);
    }

    #[test]
    fn fewer_than_three_processes_is_inconclusive() {
        let claim = judge(&summary(1, &[("a", "x", 200.0), ("b", "x", 10.0)]), &ROW);
        assert_eq!(claim.verdict, Verdict::Inconclusive);
        assert!(claim.detail.contains("1 process(es)"), "{}", claim.detail);
    }
}
