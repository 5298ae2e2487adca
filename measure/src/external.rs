//! Contestants that run as programs of their own, outside the lab's trial process: the standalone programs that
//! calibrate the lab's harness (role `reference`, named `*-standalone`).
//!
//! A scenario declares such a contestant's trial as an [`ExternalProgram`] ([`crate::scenario::Scenario::external`]):
//! an executable found beside the lab's own, its arguments built from the trial's parameters, and the items each
//! iteration handles. The program runs its iterations (warm-ups first) and prints one line per iteration on
//! standard output, `wall_ns cpu_ns` (wall time and the CPU time of its whole process, in nanoseconds), nothing
//! else, and checks its own results: it exits non-zero, with a message on standard error, on a wrong one. The lab
//! turns each line into the iteration record any contestant's timed iteration makes ([`iteration`]:
//! `wall_ms`, `ms_per_million`, `cpu_ns_per_item`, `cores_used`), so statistics and the judge treat it like any
//! contestant; it runs no accounting iteration (it carries no instrument).
//!
//! [`beside_standalone`] sets each lab contestant beside its standalone program, per phase, for the reports'
//! "lab ÷ standalone" table ([`section`]); a scenario's guard claim ([`crate::judge::ClaimSpec::guarding`]) judges
//! the same pairs and flags the report when the lab is shown slower than its limit.

use serde::Serialize;

use crate::check::Check;
use crate::compare::{format_p, format_ratio, verdict, Basis, Operand, Relation};
use crate::record::{IterationRecord, MetricValues};
use crate::stats::median;
use crate::summary::{metric_key, MetricStats, Summary};
use crate::units::NANOS_PER_MILLI;

/// A contestant's trial as a program of its own.
#[derive(Debug, Clone, PartialEq)]
pub struct ExternalProgram {
    /// The executable's file name, looked up in the folder that holds the lab's own executable (the same target
    /// folder, so the same build profile).
    pub program: String,
    /// Its arguments.
    pub args: Vec<String>,
    /// Items each iteration handles: the divisor of every per-item metric.
    pub items: u64,
    /// The command that builds the program, given as the reason its trials are skipped when it is missing.
    pub build: String,
    /// The checks reported when the program ends cleanly having printed every iteration: those it makes itself
    /// (passed), and the scenario's others, which it cannot make (not applicable, each with the reason).
    pub checks: Vec<Check>,
}

/// The iteration record of line `line` of an external program: iteration `index` (a warm-up when `warmup`) of
/// `items` items. The line must be two whole numbers, `wall_ns cpu_ns`, the wall time above 0; the error quotes
/// the line and says what is wrong.
pub fn iteration(line: &str, index: u32, warmup: bool, items: u64) -> Result<IterationRecord, String> {
    let fields: Vec<&str> = line.split_whitespace().collect();
    let numbers: Option<Vec<u64>> = fields.iter().map(|f| f.parse().ok()).collect();
    let (wall_ns, cpu_ns) = match numbers.as_deref() {
        Some(&[wall, cpu]) if wall > 0 => (wall, cpu),
        Some(&[0, _]) => return Err(format!("`{line}`: a wall time of 0 ns")),
        _ => return Err(format!("`{line}` is not `wall_ns cpu_ns` (two whole numbers)")),
    };
    let mut metrics = MetricValues::new();
    let wall_ms = wall_ns as f64 / NANOS_PER_MILLI;
    metrics.insert("wall_ms".to_string(), wall_ms);
    metrics.insert("cores_used".to_string(), cpu_ns as f64 / wall_ns as f64);
    if items > 0 {
        metrics.insert("ms_per_million".to_string(), wall_ms * 1e6 / items as f64);
        metrics.insert("cpu_ns_per_item".to_string(), cpu_ns as f64 / items as f64);
    }
    Ok(IterationRecord { index, warmup, metrics, ..IterationRecord::default() })
}

/// What the judge says of a lab contestant against `limit` × its standalone program, on process medians.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Against {
    /// Every pairing of process medians is within the limit.
    Within,
    /// Every pairing of process medians is above the limit: the lab is shown slower than it.
    Above,
    /// The pairings fall on both sides of the limit.
    NotTold,
    /// A side ran in too few processes to judge.
    TooFew,
}

/// A lab contestant beside its standalone program at one phase: figures formatted for a table, the flag and the
/// judge's word computed here.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct StandaloneRow {
    /// The lab contestant.
    pub lab: String,
    /// Its standalone program.
    pub standalone: String,
    /// The phase, such as `capacity_256`; `None` in a run without phases.
    pub phase: Option<String>,
    /// The median of the lab contestant's process medians of the metric.
    pub lab_value: String,
    /// The same of the standalone program.
    pub standalone_value: String,
    /// `lab_value / standalone_value`, such as `1.52×`.
    pub ratio: String,
    /// The median of the lab contestant's process medians of `cores_used` (two decimals), or `—` when it has none.
    pub lab_cores: String,
    /// The same of the standalone program.
    pub standalone_cores: String,
    /// The ratio is above the limit.
    pub above: bool,
    /// The judge on `lab ≤ limit × standalone` over process medians.
    pub against: Against,
    /// Its exact p, when it told the two apart from the limit.
    pub p: Option<String>,
}

/// Each lab contestant of `pairs` (lab, standalone) beside its standalone program at every phase of `summary`
/// where both ran cleanly and measured `metric`, pair by pair, phases in run order; `limit` is the largest ratio
/// the lab is allowed (1.1 for a harness that should cost nothing).
pub fn beside_standalone(
    summary: &Summary,
    pairs: &[(String, String)],
    metric: &str,
    limit: f64,
) -> Vec<StandaloneRow> {
    let mut rows = Vec::new();
    for (lab, standalone) in pairs {
        for phase in summary.phase_keys() {
            let stats = |name: &str, m: &str| summary.metric(name, &metric_key(phase, m));
            let (Some(l), Some(s)) = (stats(lab, metric), stats(standalone, metric)) else { continue };
            let (Some(lab_median), Some(standalone_median)) = (process_median(l), process_median(s)) else { continue };
            let ratio = lab_median / standalone_median;
            let judged =
                verdict(Operand::Measured(l), Operand::Measured(s), Relation::AtMost, limit, Basis::ProcessMedians);
            let too_few = crate::compare::too_few_processes(&Operand::Measured(l), &Operand::Measured(s)).is_some();
            let against = match judged.verdict {
                _ if too_few => Against::TooFew,
                crate::verdict::Verdict::Holds => Against::Within,
                crate::verdict::Verdict::Fails => Against::Above,
                crate::verdict::Verdict::Inconclusive => Against::NotTold,
            };
            let cores = |name: &str| {
                let cores = stats(name, "cores_used").and_then(process_median);
                cores.map_or_else(|| "—".to_string(), |c| format!("{c:.2}"))
            };
            rows.push(StandaloneRow {
                lab: lab.clone(),
                standalone: standalone.clone(),
                phase: phase.map(str::to_string),
                lab_value: figure(lab_median),
                standalone_value: figure(standalone_median),
                ratio: format!("{}×", format_ratio(ratio)),
                lab_cores: cores(lab),
                standalone_cores: cores(standalone),
                above: ratio > limit,
                against,
                p: judged.p.filter(|_| against != Against::NotTold).map(format_p),
            });
        }
    }
    rows
}

/// A figure as the table prints it: three significant digits ([`format_ratio`]), whole with thousands separators
/// from 1,000 up.
fn figure(value: f64) -> String {
    if value.abs() >= 1000.0 {
        crate::units::count(value)
    } else {
        format_ratio(value)
    }
}

/// The median of `stats`' process medians (its median where it has none recorded).
fn process_median(stats: &MetricStats) -> Option<f64> {
    if stats.fork_medians.is_empty() {
        Some(stats.median)
    } else {
        median(&stats.fork_medians)
    }
}

/// The words of the "lab ÷ standalone" section: what the standalone programs are, the table, and what it says.
const SECTION: &str = include_str!("templates/standalone.md");

/// The "lab ÷ standalone" section of a report: `rows` ([`beside_standalone`], their figures in `unit`, such as
/// `ms/M`) as a table with what they mean, the guard claim `guard` (its id) judging them at `limit`; without
/// rows, that the standalone programs did not run and how to build them (`build`).
pub fn section(rows: &[StandaloneRow], unit: &str, limit: f64, guard: &str, build: &str) -> String {
    let context = serde_json::json!({
        "unit": unit,
        "rows": rows,
        "phases": rows.iter().any(|r| r.phase.is_some()),
        "limit": format!("{}×", format_ratio(limit)),
        "factor": format_ratio(limit),
        "above": rows.iter().filter(|r| r.above).collect::<Vec<_>>(),
        "above_judged": rows.iter().any(|r| r.above && r.against == Against::Above),
        "above_not_told": rows.iter().any(|r| r.above && r.against == Against::NotTold),
        "guard": guard,
        "build": build,
    });
    crate::template::render_or_note("measure/standalone.md", SECTION, context)
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::summary::{ContestantSummary, Family};

    /// A contestant that ran cleanly in one process per value of `ms` (its `capacity_256.ms_per_million`), on
    /// `cores` cores in each.
    fn ran(name: &str, ms: &[f64], cores: f64) -> ContestantSummary {
        let stats = |values: Vec<f64>| {
            crate::stats::summarize(&values.into_iter().map(|v| vec![v]).collect::<Vec<_>>()).expect("samples")
        };
        let metrics = BTreeMap::from([
            ("capacity_256.ms_per_million".to_string(), stats(ms.to_vec())),
            ("capacity_256.cores_used".to_string(), stats(vec![cores; ms.len()])),
        ]);
        ContestantSummary::ran(name, Family::Blocking, metrics)
    }

    /// The pairs `a` and `b`, each beside its standalone program, at capacity 256.
    fn rows(contestants: Vec<ContestantSummary>) -> Vec<StandaloneRow> {
        let mut summary = crate::summary::tests::summary(contestants);
        summary.phases = vec!["capacity_256".to_string()];
        let pairs = [("a", "a-standalone"), ("b", "b-standalone")].map(|(l, s)| (l.to_string(), s.to_string()));
        beside_standalone(&summary, &pairs, "ms_per_million", 1.1)
    }

    /// `a` well above its standalone program (1.67×) and `b` within 1.1× of its own.
    fn two_pairs() -> Vec<StandaloneRow> {
        rows(vec![
            ran("a", &[48.0, 50.0, 56.0], 1.0),
            ran("a-standalone", &[26.0, 30.0, 38.0], 1.5),
            ran("b", &[31.0, 30.0, 29.0], 1.25),
            ran("b-standalone", &[29.5, 30.0, 30.5], 1.25),
        ])
    }

    #[test]
    fn each_pair_is_set_beside_its_standalone_program_as_a_ratio_of_process_medians_with_cores() {
        let rows = two_pairs();
        let [a, b] = &rows[..] else { panic!("{rows:?}") };
        assert_eq!((a.lab_value.as_str(), a.standalone_value.as_str(), a.ratio.as_str()), ("50.0", "30.0", "1.67×"));
        assert_eq!((a.lab_cores.as_str(), a.standalone_cores.as_str()), ("1.00", "1.50"));
        assert_eq!(a.phase.as_deref(), Some("capacity_256"));
        assert!(a.above, "1.67× is above 1.1×");
        assert_eq!((a.against, a.p.as_deref()), (Against::Above, Some("0.050")), "every pairing above 1.1×");
        assert!(!b.above, "1.00× is within 1.1×");
        assert_eq!(b.against, Against::Within, "31 / 29.5 is the worst pairing, within 1.1×");
    }

    #[test]
    fn a_ratio_above_the_limit_whose_processes_straddle_it_is_flagged_but_not_told_apart() {
        let rows = rows(vec![ran("a", &[30.0, 36.0, 45.0], 1.0), ran("a-standalone", &[29.0, 30.0, 40.0], 1.5)]);
        assert_eq!(rows.len(), 1, "b ran in neither form");
        assert!(rows[0].above, "{rows:?}");
        assert_eq!((rows[0].against, rows[0].p.as_deref()), (Against::NotTold, None));
    }

    #[test]
    fn one_process_a_side_is_too_few_to_judge() {
        let rows = rows(vec![ran("a", &[16_777.0], 0.9996), ran("a-standalone", &[8_000.0], 1.5)]);
        assert_eq!((rows[0].ratio.as_str(), rows[0].above, rows[0].against), ("2.10×", true, Against::TooFew));
        assert_eq!((rows[0].lab_value.as_str(), rows[0].lab_cores.as_str()), ("16,777", "1.00"));
    }

    #[test]
    fn the_section_prints_every_row_and_names_those_above_the_limit() {
        let rows = two_pairs();
        let text = section(&rows, "ms/M", 1.1, "lab-within-standalone", "make it");
        assert!(
            text.contains(
                "| `a` | `a-standalone` | `capacity_256` | 50.0 | 30.0 | **1.67×** | 1.00 | 1.50 | above, p = 0.050 |"
            ),
            "{text}"
        );
        assert!(
            text.contains(
                "| `b` | `b-standalone` | `capacity_256` | 30.0 | 30.0 | 1.00× | 1.25 | 1.25 | within, p = 0.050 |"
            ),
            "{text}"
        );
        assert!(
            text.contains("Above 1.10×: `a` at `capacity_256` (1.67×, on 1.00 cores against 1.50; above, p = 0.050)."),
            "{text}"
        );
        assert!(text.contains("the guard claim `lab-within-standalone`"), "{text}");
        assert!(crate::template::lint(&text).is_empty(), "{:?}", crate::template::lint(&text));
        let none = section(&[], "ms/M", 1.1, "lab-within-standalone", "make it");
        assert!(none.starts_with("The standalone programs did not run in this run"), "{none}");
        assert!(none.contains("`make it` builds them"), "{none}");
    }

    #[test]
    fn a_line_becomes_a_timed_iteration_of_the_contract_s_metrics() {
        let it = iteration("40000000 60000000", 2, false, 1_000_000).expect("a line");
        assert_eq!((it.index, it.warmup, it.accounting), (2, false, false));
        assert_eq!(it.metrics.get("wall_ms"), Some(&40.0));
        assert_eq!(it.metrics.get("ms_per_million"), Some(&40.0));
        assert_eq!(it.metrics.get("cpu_ns_per_item"), Some(&60.0));
        assert_eq!(it.metrics.get("cores_used"), Some(&1.5));
        let warm = iteration("1 0", 0, true, 4).expect("a line");
        assert!(warm.warmup);
        assert_eq!(warm.metrics.get("ms_per_million"), Some(&0.25));
    }

    #[test]
    fn a_line_that_is_not_two_whole_numbers_is_refused_and_quoted() {
        for line in ["", "12", "12 13 14", "12 x", "-1 3", "1.5 2"] {
            let err = iteration(line, 0, false, 10).err().unwrap_or_default();
            assert_eq!(err, format!("`{line}` is not `wall_ns cpu_ns` (two whole numbers)"));
        }
        assert_eq!(iteration("0 5", 0, false, 10).err().as_deref(), Some("`0 5`: a wall time of 0 ns"));
    }
}
