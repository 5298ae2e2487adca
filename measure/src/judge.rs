//! Claims as data: a scenario declares each claim as a [`ClaimSpec`] row (text, metric and what it measures,
//! relation, factor, whether judged on intervals or ranges, and the comparisons it makes between sides), and
//! [`judge`] is the one function that judges every row of every scenario.
//!
//! The rules, each tested below:
//! - a comparison holds when every process median of one side is on the claimed side of the factor times every
//!   process median of the other, fails when every pairing is on the other side, and is inconclusive in between
//!   ([`crate::compare::verdict`]; its exact p, Mann–Whitney at U = 0 or a sign test against a value, is
//!   recorded with the verdict);
//! - a side measured in fewer than [`crate::stats::MIN_PROCESSES`] processes makes it inconclusive ("too few
//!   processes"), never holds or fails;
//! - a contestant that did not run, or did not run cleanly (failed, timed out, skipped), makes it inconclusive
//!   and says why; it is never left out;
//! - a contestant that failed one of the claim's [`ClaimSpec::failing_checks`] makes it fail, whatever else
//!   stopped it;
//! - a contestant skipped at a phase because the OS could not run it there (`skipped_phases`, whose reason
//!   the report names) leaves that comparison out as not applicable; it counts neither way;
//! - a claim fails if any comparison fails, holds if every one holds, and is inconclusive otherwise, or when it
//!   has no comparison at all, or when [`ClaimSpec::undecidable`] says the run cannot tell; its p is the largest
//!   of the p values of the comparisons that decided it (the weakest link);
//! - a claim whose p is above [`SIGNIFICANCE`] neither holds nor fails: it is inconclusive, and says so (three
//!   processes against a fixed value give p = 0.125).

use std::borrow::Cow;

use crate::compare::{format_p, format_ratio, verdict, Basis, Judged, Operand, Relation};
use crate::summary::{metric_key, ClaimResult, MetricStats, Summary, Verdict};

/// Which phase of a run a side reads its metric at.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Phase {
    /// The run has no phases (no sweep): the metric has no prefix.
    Unphased,
    /// The named phase, such as `work_0` or `in_flight_10000`.
    Named(String),
    /// The first phase of the run.
    First,
    /// The last phase of the run.
    Last,
    /// The last phase at which the named contestant measured the claim's metric.
    LastMeasuredBy(String),
}

/// Who or what a side of a comparison is.
#[derive(Debug, Clone, PartialEq)]
pub enum Who {
    /// One contestant, by name.
    Contestant(String),
    /// The contestant with the lowest median among those named that ran cleanly at the phase.
    Lowest(Vec<String>),
    /// The contestant with the highest median among those named that ran cleanly at the phase.
    Highest(Vec<String>),
    /// A fixed value: a bound, an ideal, a published study's ratio. `label` says what it is.
    Value {
        /// The value.
        value: f64,
        /// What it is, such as `the bound 16 + 1`.
        label: String,
    },
}

/// One side of a comparison: who, at which phase.
#[derive(Debug, Clone, PartialEq)]
pub struct Side {
    /// Who.
    pub who: Who,
    /// At which phase.
    pub phase: Phase,
}

impl Side {
    /// `name` at `phase`.
    pub fn contestant(name: impl Into<String>, phase: Phase) -> Side {
        Side { who: Who::Contestant(name.into()), phase }
    }

    /// A fixed `value` described by `label`.
    pub fn value(value: f64, label: impl Into<String>) -> Side {
        Side { who: Who::Value { value, label: label.into() }, phase: Phase::Unphased }
    }
}

/// `a` relation `factor × b`.
#[derive(Debug, Clone, PartialEq)]
pub struct Comparison {
    /// The left side.
    pub a: Side,
    /// The right side.
    pub b: Side,
}

impl Comparison {
    /// Contestant `a` against contestant `b`, both at `phase`.
    pub fn contestants(a: impl Into<String>, b: impl Into<String>, phase: Phase) -> Comparison {
        Comparison { a: Side::contestant(a, phase.clone()), b: Side::contestant(b, phase) }
    }
}

/// A claim as data: one row of a scenario's claim table.
#[derive(Debug, Clone, PartialEq)]
pub struct ClaimSpec {
    /// A stable name for the claim within its scenario, such as `fixed-bound-tail`: templates and code find a
    /// claim by it, never by its text (empty only for a claim table written before ids).
    pub id: Cow<'static, str>,
    /// The statement, as the report prints it.
    pub text: String,
    /// The metric compared, without phase prefix, such as `ms_per_million`.
    pub metric: &'static str,
    /// What the metric measures and over which window, such as `calls answered per second over the steady
    /// window (first round done to last round left)`.
    pub definition: &'static str,
    /// `a ≤ factor × b` or `a ≥ factor × b`.
    pub relation: Relation,
    /// The factor, fixed before any measurement.
    pub factor: f64,
    /// Judged on process medians, on the ranges of every sample, or on the worst sample.
    pub basis: Basis,
    /// Every comparison the claim makes; all must hold.
    pub comparisons: Vec<Comparison>,
    /// Checks a contestant on either side must not have failed: one that did makes its comparison fail.
    pub failing_checks: &'static [&'static str],
    /// Why this run cannot decide the claim whatever its numbers (such as too few items to reach the factor),
    /// if so.
    pub undecidable: Option<String>,
    /// The claim guards the lab itself rather than stating something of the contestants (the lab within a limit
    /// of its standalone programs, [`crate::external`]): when it fails, the report is flagged at the top.
    pub guard: bool,
}

impl ClaimSpec {
    /// A claim on `metric` (defined by `definition`): every comparison must satisfy `relation` with `factor` on
    /// `basis`, with no failing checks and decidable.
    pub fn new(
        text: impl Into<String>,
        metric: &'static str,
        definition: &'static str,
        (relation, factor): (Relation, f64),
        basis: Basis,
        comparisons: Vec<Comparison>,
    ) -> ClaimSpec {
        ClaimSpec {
            id: Cow::Borrowed(""),
            text: text.into(),
            metric,
            definition,
            relation,
            factor,
            basis,
            comparisons,
            failing_checks: &[],
            undecidable: None,
            guard: false,
        }
    }

    /// The same claim, named `id` (unique within its scenario) for templates and code to find it by.
    pub fn with_id(mut self, id: impl Into<Cow<'static, str>>) -> ClaimSpec {
        self.id = id.into();
        self
    }

    /// The same claim, failing a comparison whose contestant failed one of `checks`.
    pub fn failing_on(mut self, checks: &'static [&'static str]) -> ClaimSpec {
        self.failing_checks = checks;
        self
    }

    /// The same claim as a guard of the lab ([`ClaimSpec::guard`]): its failure flags the report at the top.
    pub fn guarding(mut self) -> ClaimSpec {
        self.guard = true;
        self
    }

    /// The same claim, inconclusive whatever the numbers because of `why`, when `why` is `Some`.
    pub fn undecidable_if(mut self, why: Option<String>) -> ClaimSpec {
        self.undecidable = why;
        self
    }
}

/// Which way a finding says `a` stands from `b` beyond noise ([`beyond_noise`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Beyond {
    /// `a` below `b` by at least the testbed's smallest detectable ratio.
    Below,
    /// `a` above `b` by at least the testbed's smallest detectable ratio.
    Above,
}

/// The relation and factor of a finding that `a` stands `beyond` `b` by more than the smallest ratio this
/// testbed can tell on `metric` (its class's calibrated threshold, else the run's default,
/// [`crate::compare::noise_threshold`]): `a ≤ (1 − t) × b` below, `a ≥ (1 + t) × b` above, the same line the
/// noise rule of [`crate::compare::compare`] draws. Fixed before the run is judged: the threshold comes from the
/// calibration the run names, not from its numbers.
pub fn beyond_noise(method: &crate::setup::Method, metric: &str, beyond: Beyond) -> (Relation, f64) {
    let t = crate::compare::noise_threshold(method, metric).value;
    match beyond {
        Beyond::Below => (Relation::AtMost, (1.0 - t).max(0.0)),
        Beyond::Above => (Relation::AtLeast, 1.0 + t),
    }
}

/// The largest p at which a claim holds or fails: above it the evidence is too weak for either.
pub const SIGNIFICANCE: f64 = 0.05;

/// Beyond this many comparisons a claim's detail counts those that hold and lists only the others.
const LISTED_PARTS: usize = 12;

/// Judge every row of a claim table against a run.
pub fn judge_all(summary: &Summary, table: &[ClaimSpec]) -> Vec<ClaimResult> {
    table.iter().map(|spec| judge(summary, spec)).collect()
}

/// Judge one claim against a run, by the rules in the module documentation.
pub fn judge(summary: &Summary, spec: &ClaimSpec) -> ClaimResult {
    let mut not_applicable: Vec<String> = Vec::new();
    let mut p: Option<f64> = None;
    let mut result = if let Some(why) = &spec.undecidable {
        ClaimResult::new(&spec.text, Verdict::Inconclusive, why.clone())
    } else {
        let mut parts: Vec<(Verdict, String)> = Vec::new();
        let mut decided_p: Vec<Option<f64>> = Vec::new();
        for comparison in &spec.comparisons {
            match compare(summary, spec, comparison) {
                Some(judged) => {
                    decided_p.push(judged.p);
                    parts.push((judged.verdict, judged.detail));
                }
                None => not_applicable.push(skip_reason(summary, spec, comparison)),
            }
        }
        let verdict = Verdict::combine(parts.iter().map(|(v, _)| *v));
        // The weakest link: the largest p among the comparisons whose verdict is the claim's.
        if verdict != Verdict::Inconclusive {
            p = parts
                .iter()
                .zip(&decided_p)
                .filter(|((v, _), _)| *v == verdict)
                .filter_map(|(_, p)| *p)
                .fold(None, |worst: Option<f64>, p| Some(worst.map_or(p, |w| w.max(p))));
        }
        if parts.len() == 1 {
            let (verdict, detail) = parts.into_iter().next().unwrap_or((Verdict::Inconclusive, String::new()));
            ClaimResult::new(&spec.text, verdict, detail)
        } else if parts.len() > LISTED_PARTS {
            // Many comparisons: count those that hold, and list every one that does not.
            let total = parts.len();
            let held = parts.iter().filter(|(v, _)| *v == Verdict::Holds).count();
            let others: Vec<String> = parts
                .into_iter()
                .filter(|(v, _)| *v != Verdict::Holds)
                .map(|(v, d)| format!("{} — {d}", v.as_str()))
                .collect();
            let mut detail = format!("{held} of {total} comparisons hold");
            if !others.is_empty() {
                detail = format!("{detail}; {}", others.join("; "));
            }
            ClaimResult::new(&spec.text, verdict, detail)
        } else {
            ClaimResult::all_of(&spec.text, parts)
        }
    };
    if !not_applicable.is_empty() {
        result.detail = format!("{}; not applicable — {}", result.detail, not_applicable.join("; "));
    }
    if let Some(weak) = p.filter(|p| *p > SIGNIFICANCE + 1e-12) {
        result.detail = format!("{}; p = {} is above {SIGNIFICANCE}: no verdict", result.detail, format_p(weak));
        result.verdict = Verdict::Inconclusive;
        result.holds = false;
        p = None;
    }
    result.id = spec.id.to_string();
    result.metric = spec.metric.to_string();
    result.metric_definition = spec.definition.to_string();
    result.judged_on = spec.basis.describe().to_string();
    result.rule = rule(spec);
    result.p = p;
    result.guard = spec.guard;
    result
}

/// The rule a claim was judged by, in words: `a ≤ 2.00 × b on process medians: every pairing on one side`.
fn rule(spec: &ClaimSpec) -> String {
    let op = match spec.relation {
        Relation::AtMost => "≤",
        Relation::AtLeast => "≥",
    };
    format!("a {op} {} × b, judged on {}", format_ratio(spec.factor), spec.basis.describe())
}

/// A claim's p as reports print it: `p = 0.0040`, or empty when the claim has none.
pub fn p_label(p: Option<f64>) -> String {
    p.map(|p| format!("p = {}", format_p(p))).unwrap_or_default()
}

/// A side resolved against the run: a name for the detail, its statistics or fixed value, and its modes in words
/// when its processes are two populations.
struct Resolved {
    name: String,
    operand: OwnedOperand,
    modes: Option<String>,
}

/// [`Operand`] with owned statistics.
enum OwnedOperand {
    Measured(MetricStats),
    Fixed(f64),
}

impl OwnedOperand {
    fn borrow(&self) -> Operand<'_> {
        match self {
            OwnedOperand::Measured(s) => Operand::Measured(s),
            OwnedOperand::Fixed(v) => Operand::Fixed(*v),
        }
    }

    fn median(&self) -> f64 {
        self.borrow().median()
    }
}

/// One comparison's verdict, the numbers behind it and its p, or `None` when it does not apply (a side skipped
/// where the OS could not run it).
fn compare(summary: &Summary, spec: &ClaimSpec, comparison: &Comparison) -> Option<Judged> {
    let a = resolve(summary, spec, &comparison.a);
    let b = resolve(summary, spec, &comparison.b);
    let unjudged = |(verdict, detail): (Verdict, String)| Some(Judged { verdict, detail, p: None });
    let (a, b) = match (a, b) {
        (Err(Unresolved::Verdict(fail @ (Verdict::Fails, _))), _)
        | (_, Err(Unresolved::Verdict(fail @ (Verdict::Fails, _)))) => return unjudged(fail),
        (Err(Unresolved::Skipped(_)), _) | (_, Err(Unresolved::Skipped(_))) => return None,
        (Err(Unresolved::Verdict(why)), _) | (_, Err(Unresolved::Verdict(why))) => return unjudged(why),
        (Ok(a), Ok(b)) => (a, b),
    };
    let judged = verdict(a.operand.borrow(), b.operand.borrow(), spec.relation, spec.factor, spec.basis);
    let mut detail = format!("{} vs {}: {}", a.name, b.name, judged.detail);
    // A side of two populations is judged on its process medians all the same, and the detail says so.
    for side in [&a, &b] {
        if let Some(modes) = &side.modes {
            detail.push_str(&format!("; {} is two populations, not one: {modes}", side.name));
        }
    }
    Some(Judged { detail, ..judged })
}

/// Why a comparison does not apply: the skip reasons of its sides.
fn skip_reason(summary: &Summary, spec: &ClaimSpec, comparison: &Comparison) -> String {
    [&comparison.a, &comparison.b]
        .into_iter()
        .filter_map(|side| match resolve(summary, spec, side) {
            Err(Unresolved::Skipped(why)) => Some(why),
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// Why a side has no statistics.
enum Unresolved {
    /// The verdict that gives its comparison: fails (a failed check) or inconclusive (did not run cleanly).
    Verdict((Verdict, String)),
    /// Skipped where the OS could not run it: the comparison does not apply.
    Skipped(String),
}

/// Why a side's phase gives no metric key, in words a claim's detail shows.
#[derive(Debug, thiserror::Error)]
enum NoKey {
    /// The named phase is not among the run's.
    #[error("phase {0} did not run")]
    PhaseDidNotRun(String),
    /// The claim asks for the first or last phase of a run without phases.
    #[error("the run has no phase")]
    NoPhase,
    /// The contestant named by [`Phase::LastMeasuredBy`] measured the metric at no phase.
    #[error("{0} has no {1} at any phase")]
    NeverMeasured(String, String),
}

/// The metric key of `phase`, or why the run has none.
fn key(summary: &Summary, metric: &str, phase: &Phase) -> Result<String, NoKey> {
    let named = |p: &String| metric_key(Some(p), metric);
    match phase {
        Phase::Unphased => Ok(metric.to_string()),
        Phase::Named(p) if summary.phases.contains(p) => Ok(named(p)),
        Phase::Named(p) => Err(NoKey::PhaseDidNotRun(p.clone())),
        Phase::First => summary.phases.first().map(named).ok_or(NoKey::NoPhase),
        Phase::Last => summary.phases.last().map(named).ok_or(NoKey::NoPhase),
        Phase::LastMeasuredBy(name) => summary
            .phases
            .iter()
            .rev()
            .map(named)
            .find(|k| summary.metric(name, k).is_some())
            .ok_or_else(|| NoKey::NeverMeasured(name.clone(), metric.to_string())),
    }
}

/// Resolve a side to statistics, or to the verdict its absence or failure gives the comparison.
fn resolve(summary: &Summary, spec: &ClaimSpec, side: &Side) -> Result<Resolved, Unresolved> {
    let inconclusive = |why: String| Unresolved::Verdict((Verdict::Inconclusive, why));
    let names = match &side.who {
        Who::Value { value, label } => {
            // A fixed value is known exactly: the comparison is a sign test over the other side's processes.
            if !value.is_finite() {
                return Err(inconclusive(format!("{label} is not a number")));
            }
            return Ok(Resolved {
                name: format!("{label} {}", format_ratio(*value)),
                operand: OwnedOperand::Fixed(*value),
                modes: None,
            });
        }
        Who::Contestant(name) => vec![name.clone()],
        Who::Lowest(names) | Who::Highest(names) => names.clone(),
    };
    let key = key(summary, spec.metric, &side.phase).map_err(|e| inconclusive(e.to_string()))?;
    let phase = key.strip_suffix(spec.metric).and_then(|p| p.strip_suffix('.'));
    let mut found: Vec<Resolved> = Vec::new();
    let mut missing: Vec<String> = Vec::new();
    for name in &names {
        if let Some(check) = summary
            .contestant(name)
            .and_then(|c| c.checks.iter().find(|k| k.failed() && spec.failing_checks.contains(&k.name.as_str())))
        {
            let why = format!("{name}: its `{}` check failed: {}", check.name, check.detail);
            return Err(Unresolved::Verdict((Verdict::Fails, why)));
        }
        let skipped_here = summary.contestant(name).and_then(|c| phase.and_then(|p| c.skipped_phases.get(p)));
        if let Some(reason) = skipped_here {
            let why = format!("{name} was skipped at {}: {reason}", phase.unwrap_or_default());
            if matches!(side.who, Who::Contestant(_)) {
                return Err(Unresolved::Skipped(why));
            }
            continue;
        }
        match summary.stats(name, &key) {
            Ok(stats) => {
                let at = phase.map(|p| format!(" at {p}")).unwrap_or_default();
                found.push(Resolved {
                    name: format!("{name}{at} {}", format_ratio(stats.median)),
                    operand: OwnedOperand::Measured(stats.clone()),
                    modes: crate::calibration::modes::describe(stats),
                })
            }
            Err(why) => missing.push(why),
        }
    }
    let pick = match &side.who {
        Who::Lowest(_) => found.into_iter().min_by(|a, b| a.operand.median().total_cmp(&b.operand.median())),
        Who::Highest(_) => found.into_iter().max_by(|a, b| a.operand.median().total_cmp(&b.operand.median())),
        _ => {
            if let Some(why) = missing.into_iter().next() {
                return Err(inconclusive(why));
            }
            found.into_iter().next()
        }
    };
    let which = match &side.who {
        Who::Lowest(_) => "lowest",
        _ => "highest",
    };
    pick.map(|mut r| {
        if matches!(side.who, Who::Lowest(_) | Who::Highest(_)) {
            r.name = format!("{} ({which} median of {})", r.name, names.len());
        }
        r
    })
    .ok_or_else(|| {
        inconclusive(format!("none of the {} contestants it picks from ran cleanly with {key}", names.len()))
    })
}

#[cfg(test)]
mod tests {

    use super::*;
    use crate::record::Status;
    use crate::summary::{Check, ContestantSummary, Family, Method};

    /// Statistics of three processes whose medians are `median × (1 − spread)`, `median`, `median × (1 +
    /// spread)`, one sample each.
    fn stats(median: f64, spread: f64) -> MetricStats {
        let forks = [median * (1.0 - spread), median, median * (1.0 + spread)];
        crate::stats::summarize(&forks.map(|m| vec![m])).expect("samples")
    }

    fn contestant(name: &str, metrics: &[(&str, MetricStats)]) -> ContestantSummary {
        let metrics = metrics.iter().map(|(k, v)| (k.to_string(), v.clone())).collect();
        ContestantSummary {
            checks: vec![Check::new("checksum", true, "ok")],
            ..ContestantSummary::ran(name, Family::Stream, metrics)
        }
    }

    fn run(contestants: Vec<ContestantSummary>, phases: &[&str]) -> Summary {
        let base = crate::summary::tests::summary(contestants);
        Summary {
            method: Method { quick: false, forks: 3, ..base.method.clone() },
            phases: phases.iter().map(|p| p.to_string()).collect(),
            ..base
        }
    }

    fn at_most_twice(a: &str, b: &str) -> ClaimSpec {
        ClaimSpec::new(
            "a costs at most twice b",
            "ms",
            "milliseconds per iteration, whole run",
            (Relation::AtMost, 2.0),
            Basis::Ranges,
            vec![Comparison { a: Side::contestant(a, Phase::Unphased), b: Side::contestant(b, Phase::Unphased) }],
        )
    }

    #[test]
    fn a_comparison_holds_fails_or_is_inconclusive_by_its_bounds() {
        let summary = run(
            vec![
                contestant("a", &[("ms", stats(15.0, 0.05))]),
                contestant("slow", &[("ms", stats(40.0, 0.05))]),
                contestant("close", &[("ms", stats(20.0, 0.2))]),
                contestant("b", &[("ms", stats(10.0, 0.01))]),
            ],
            &[],
        );
        assert_eq!(judge(&summary, &at_most_twice("a", "b")).verdict, Verdict::Holds);
        assert_eq!(judge(&summary, &at_most_twice("slow", "b")).verdict, Verdict::Fails);
        assert_eq!(judge(&summary, &at_most_twice("close", "b")).verdict, Verdict::Inconclusive);
        let claim = judge(&summary, &at_most_twice("a", "b"));
        assert_eq!(claim.judged_on, "the ranges of every measured sample: every pairing on one side");
        assert_eq!(claim.metric_definition, "milliseconds per iteration, whole run");
        assert!(claim.holds);
        assert!((claim.p.expect("a decided claim has its p") - 0.05).abs() < 1e-12, "3 + 3 processes");
        assert!(claim.rule.starts_with("a ≤ 2.00 × b"), "{}", claim.rule);
        assert_eq!(judge(&summary, &at_most_twice("close", "b")).p, None, "inconclusive has no p");
    }

    #[test]
    fn a_finding_beyond_noise_draws_the_noise_rules_line_and_is_found_by_its_id() {
        let mut summary = run(
            vec![
                contestant("a", &[("ms", stats(10.0, 0.01))]),
                contestant("near", &[("ms", stats(11.0, 0.01))]),
                contestant("far", &[("ms", stats(20.0, 0.01))]),
            ],
            &[],
        );
        summary.method.noise_threshold = 0.2;
        assert_eq!(beyond_noise(&summary.method, "ms", Beyond::Below), (Relation::AtMost, 0.8));
        assert_eq!(beyond_noise(&summary.method, "ms", Beyond::Above), (Relation::AtLeast, 1.2));
        let below = |b: &str| {
            ClaimSpec::new(
                format!("a costs less than {b}"),
                "ms",
                "milliseconds",
                beyond_noise(&summary.method, "ms", Beyond::Below),
                Basis::ProcessMedians,
                vec![Comparison::contestants("a", b, Phase::Unphased)],
            )
            .with_id("cheaper")
        };
        assert_eq!(judge(&summary, &below("far")).verdict, Verdict::Holds, "2× apart, separated");
        assert_eq!(judge(&summary, &below("near")).verdict, Verdict::Fails, "10% is within the 20% line");
        summary.findings = judge_all(&summary, &[below("far")]);
        assert!(summary.finding_holds("cheaper"));
        assert!(!summary.finding_holds("missing"), "a finding the run did not judge never holds");
        assert_eq!(summary.finding("cheaper").map(|f| f.id.as_str()), Some("cheaper"));
    }

    #[test]
    fn a_claim_above_p_0_05_neither_holds_nor_fails() {
        let three = |m: f64| crate::stats::summarize(&[m, m * 1.01, m * 1.02].map(|v| vec![v])).expect("samples");
        let five = |m: f64| {
            crate::stats::summarize(&[m, m * 1.01, m * 1.02, m * 1.03, m * 1.04].map(|v| vec![v])).expect("samples")
        };
        let summary = run(vec![contestant("a", &[("ms", three(10.0))]), contestant("a5", &[("ms", five(10.0))])], &[]);
        let at_most_100 = |name: &str| {
            ClaimSpec::new(
                "a is at most 100",
                "ms",
                "milliseconds",
                (Relation::AtMost, 1.0),
                Basis::ProcessMedians,
                vec![Comparison { a: Side::contestant(name, Phase::Unphased), b: Side::value(100.0, "the bound") }],
            )
        };
        let judged = judge(&summary, &at_most_100("a"));
        assert_eq!(judged.verdict, Verdict::Inconclusive, "3 processes against a value: p = 0.125");
        assert!(!judged.holds && judged.p.is_none());
        assert!(judged.detail.ends_with("p = 0.12 is above 0.05: no verdict"), "{}", judged.detail);
        let judged = judge(&summary, &at_most_100("a5"));
        assert_eq!(judged.verdict, Verdict::Holds, "5 processes against a value: p = 1/32; {}", judged.detail);
        assert!(judged.holds && !judged.detail.contains("no verdict"), "{}", judged.detail);
        assert!((judged.p.expect("a decided claim has its p") - 1.0 / 32.0).abs() < 1e-12, "{:?}", judged.p);
    }

    #[test]
    fn a_side_of_two_populations_is_judged_and_the_detail_says_so() {
        let mut spawn = crate::stats::summarize(&[216.0, 79.0, 220.0, 83.0, 218.0].map(|v| vec![v])).expect("samples");
        spawn.outliers.modes = crate::calibration::modes(&spawn.fork_medians, 1.2);
        let summary =
            run(vec![contestant("spawn", &[("ms", spawn)]), contestant("b", &[("ms", stats(1000.0, 0.01))])], &[]);
        let mut claim = at_most_twice("spawn", "b");
        claim.basis = Basis::ProcessMedians;
        let judged = judge(&summary, &claim);
        assert_eq!(judged.verdict, Verdict::Holds, "{}", judged.detail);
        assert!(
            judged.detail.contains("is two populations, not one: processes 2, 4 at 79.0–83.0 and 1, 3, 5 at 216–220"),
            "{}",
            judged.detail
        );
    }

    #[test]
    fn a_claim_over_several_comparisons_takes_its_weakest_p() {
        let five = |m: f64| crate::stats::summarize(&[m, m, m, m, m].map(|v| vec![v])).expect("samples");
        let summary = run(
            vec![
                contestant("a", &[("ms", five(10.0))]),
                contestant("b", &[("ms", five(30.0))]),
                contestant("c", &[("ms", stats(30.0, 0.01))]),
            ],
            &[],
        );
        let spec = ClaimSpec::new(
            "a is at most half of b and of c",
            "ms",
            "milliseconds per iteration, whole run",
            (Relation::AtMost, 0.5),
            Basis::ProcessMedians,
            vec![
                Comparison::contestants("a", "b", Phase::Unphased),
                Comparison::contestants("a", "c", Phase::Unphased),
            ],
        );
        let claim = judge(&summary, &spec);
        assert_eq!(claim.verdict, Verdict::Holds, "{}", claim.detail);
        // 5 + 5 processes give 1/252; 5 + 3 give 1/56: the claim is as strong as its weakest comparison.
        assert!((claim.p.expect("p") - 1.0 / 56.0).abs() < 1e-12, "{:?}", claim.p);
        assert!(claim.detail.contains("p = 0.0040") && claim.detail.contains("p = 0.018"), "{}", claim.detail);
    }

    #[test]
    fn fewer_than_three_processes_make_every_claim_inconclusive() {
        let two = crate::stats::summarize(&[vec![100.0], vec![100.0]]).expect("samples");
        let summary = run(vec![contestant("a", &[("ms", two)]), contestant("b", &[("ms", stats(1.0, 0.0))])], &[]);
        let claim = judge(&summary, &at_most_twice("a", "b"));
        assert_eq!(claim.verdict, Verdict::Inconclusive, "100× slower, but from two processes");
        assert!(claim.detail.contains("too few processes"), "{}", claim.detail);
    }

    #[test]
    fn a_contestant_that_did_not_run_cleanly_is_never_left_out() {
        let mut broken = contestant("a", &[]);
        broken.status = Status::Timeout;
        let summary = run(vec![broken, contestant("b", &[("ms", stats(1.0, 0.0))])], &[]);
        let claim = judge(&summary, &at_most_twice("a", "b"));
        assert_eq!(claim.verdict, Verdict::Inconclusive);
        assert_eq!(claim.detail, "a did not run cleanly (timeout)");
        let gone = run(vec![contestant("b", &[("ms", stats(1.0, 0.0))])], &[]);
        assert_eq!(judge(&gone, &at_most_twice("a", "b")).detail, "a did not run");
    }

    #[test]
    fn a_failed_bound_check_fails_the_claim_even_when_the_contestant_stopped() {
        let mut leaky = contestant("leaky", &[]);
        leaky.status = Status::Failed;
        leaky.checks.push(Check::new("bounded_outstanding", false, "measured max outstanding 40 calls, bound 17"));
        let within = ClaimSpec::new(
            "every contestant keeps its bound",
            "max_outstanding",
            "exact high-water mark of outstanding calls",
            (Relation::AtMost, 1.0),
            Basis::Ranges,
            vec![Comparison {
                a: Side::contestant("leaky", Phase::Unphased),
                b: Side::value(17.0, "the bound 16 + 1"),
            }],
        )
        .failing_on(&["bounded_outstanding"]);
        let claim = judge(&run(vec![leaky], &[]), &within);
        assert_eq!(claim.verdict, Verdict::Fails, "{}", claim.detail);
        assert!(claim.detail.contains("its `bounded_outstanding` check failed"), "{}", claim.detail);
    }

    #[test]
    fn a_bound_exceeded_in_one_process_fails_against_a_fixed_value() {
        let over = crate::stats::summarize(&[vec![16.0], vec![17.0], vec![40.0]]).expect("samples");
        let within = crate::stats::summarize(&[vec![16.0], vec![17.0], vec![17.0]]).expect("samples");
        let claim = |name: &str| {
            ClaimSpec::new(
                "within the bound",
                "max_outstanding",
                "exact high-water mark",
                (Relation::AtMost, 1.0),
                Basis::WorstSample,
                vec![Comparison { a: Side::contestant(name, Phase::Unphased), b: Side::value(17.0, "the bound") }],
            )
        };
        let summary = run(
            vec![contestant("over", &[("max_outstanding", over)]), contestant("ok", &[("max_outstanding", within)])],
            &[],
        );
        assert_eq!(judge(&summary, &claim("ok")).verdict, Verdict::Holds);
        assert_eq!(judge(&summary, &claim("over")).verdict, Verdict::Fails, "one process in three broke it");
    }

    #[test]
    fn a_claim_with_no_comparison_or_an_undecidable_run_is_inconclusive() {
        let empty = ClaimSpec { comparisons: vec![], ..at_most_twice("a", "b") };
        let summary =
            run(vec![contestant("a", &[("ms", stats(1.0, 0.0))]), contestant("b", &[("ms", stats(1.0, 0.0))])], &[]);
        assert_eq!(judge(&summary, &empty).verdict, Verdict::Inconclusive);
        let cannot = at_most_twice("a", "b").undecidable_if(Some("too few items".to_string()));
        assert_eq!(judge(&summary, &cannot).verdict, Verdict::Inconclusive);
        assert_eq!(judge(&summary, &cannot).detail, "too few items");
    }

    #[test]
    fn the_lowest_of_several_is_picked_among_those_that_ran_and_phases_resolve() {
        let mut skipped = contestant("skipped", &[]);
        skipped.skipped_phases.insert("p_2".to_string(), "no threads".to_string());
        let summary = run(
            vec![
                contestant("fast", &[("p_1.ms", stats(1.0, 0.0)), ("p_2.ms", stats(5.0, 0.0))]),
                contestant("slow", &[("p_1.ms", stats(3.0, 0.0)), ("p_2.ms", stats(9.0, 0.0))]),
                skipped,
                contestant("floor", &[("p_1.ms", stats(1.0, 0.0)), ("p_2.ms", stats(4.0, 0.0))]),
            ],
            &["p_1", "p_2"],
        );
        let fastest = |phase: Phase| ClaimSpec {
            comparisons: vec![Comparison {
                a: Side {
                    who: Who::Lowest(vec!["fast".into(), "slow".into(), "skipped".into()]),
                    phase: phase.clone(),
                },
                b: Side::contestant("floor", phase),
            }],
            ..at_most_twice("", "")
        };
        let last = judge(&summary, &fastest(Phase::Last));
        assert_eq!(last.verdict, Verdict::Holds, "{}", last.detail);
        assert!(
            last.detail.starts_with("fast at p_2 5.00 (lowest median of 3) vs floor at p_2 4.00"),
            "{}",
            last.detail
        );
        assert_eq!(judge(&summary, &fastest(Phase::First)).verdict, Verdict::Holds);
        let absent = judge(&summary, &fastest(Phase::Named("p_3".into())));
        assert_eq!((absent.verdict, absent.detail.as_str()), (Verdict::Inconclusive, "phase p_3 did not run"));
    }

    #[test]
    fn a_level_the_os_could_not_run_is_left_out_as_not_applicable() {
        // Five processes: against a fixed value three give p = 0.125, too weak for a verdict.
        let five = crate::stats::summarize(&[10.0; 5].map(|v| vec![v])).expect("samples");
        let mut threads = contestant("threads", &[("p_1.ms", five)]);
        threads.skipped_phases.insert("p_2".to_string(), "100,000 threads do not fit".to_string());
        let summary = run(vec![threads], &["p_1", "p_2"]);
        let spec = ClaimSpec {
            comparisons: ["p_1", "p_2"]
                .map(|p| Comparison {
                    a: Side::contestant("threads", Phase::Named(p.to_string())),
                    b: Side::value(10.0, "ten"),
                })
                .to_vec(),
            ..at_most_twice("", "")
        };
        let claim = judge(&summary, &spec);
        assert_eq!(claim.verdict, Verdict::Holds, "{}", claim.detail);
        assert!(claim.detail.ends_with("not applicable — threads was skipped at p_2: 100,000 threads do not fit"));
        let only_skipped = ClaimSpec { comparisons: spec.comparisons[1..].to_vec(), ..spec.clone() };
        assert_eq!(judge(&summary, &only_skipped).verdict, Verdict::Inconclusive, "nothing left to compare");
    }
}
