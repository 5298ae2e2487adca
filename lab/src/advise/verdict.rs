//! From a scenario run at the user's shape to advice: the pick (the best candidate by median), each family's
//! best beside it, judged as [`ClaimSpec`] rows by the harness's one judge, what the common mistake costs, and
//! whether the swept parameter flips the answer. Every sentence of the advice follows from one of these
//! verdicts.

use measure::compare::{Basis, Relation};
use measure::judge::{judge, ClaimSpec, Comparison, Phase};
use measure::summary::{metric_key, ClaimResult, Family, Summary, Verdict};
use serde::{Deserialize, Serialize};

use super::shape::AdvisedRun;

/// One contestant's figures at the user's phase.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Row {
    /// Contestant.
    pub name: String,
    /// Its family.
    pub family: Family,
    /// `pick`, `family best`, `candidate`, `unordered` or the mistake's label.
    pub label: String,
    /// Median of the headline metric over every measured sample.
    pub median: Option<f64>,
    /// One median per process.
    pub process_medians: Vec<f64>,
    /// Median of the CPU metric, if the run reports one.
    pub cpu_median: Option<f64>,
    /// Its status if it did not run cleanly (`failed: ...`).
    pub problem: Option<String>,
}

/// A verdict of the advice, with the exact p of its process medians' separation.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Judged {
    /// The claim as judged.
    pub claim: ClaimResult,
    /// The ratio of medians, other over pick, oriented so that above 1 means the pick is better.
    pub ratio: Option<f64>,
    /// The judge's exact one-sided p (Mann–Whitney at U = 0 over process medians), present only when decided.
    pub p: Option<f64>,
    /// The contestant the pick was compared with.
    pub other: String,
}

/// The advice of one scenario run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct RunAdvice {
    /// The scenario.
    pub scenario: String,
    /// Why the shape needs it.
    pub why: String,
    /// The phase at the user's shape, if the run has phases.
    pub phase: Option<String>,
    /// The headline metric and whether higher is better.
    pub metric: String,
    /// Whether a higher headline is better.
    pub higher_is_better: bool,
    /// The CPU metric of the rows, if the run reports one.
    pub cpu_metric: Option<String>,
    /// The pick, if any candidate ran cleanly.
    pub pick: Option<String>,
    /// Every row at the user's phase.
    pub rows: Vec<Row>,
    /// The pick against each other family's best, on the headline metric.
    pub families: Vec<Judged>,
    /// The pick against each other family's best on CPU, where the run reports CPU.
    pub cpu: Vec<Judged>,
    /// The pick against the mistake row.
    pub mistake: Option<Judged>,
    /// The pick against the rate asked (`--items-per-second`).
    pub keeps_up: Option<Judged>,
    /// The recommendation and evidence, one sentence each.
    pub sentences: Vec<String>,
    /// What would change the answer, one sentence, when the run swept a parameter.
    pub change: Option<String>,
    /// The command that reproduces the run's figures.
    pub command: String,
    /// The scenario's report beside the advice.
    pub report: String,
}

/// Judge "`pick` is better than `other`" on `metric` at `phase`: `pick ≤ 1 × other` for a lower-is-better metric,
/// `pick ≥ 1 × other` otherwise, on process medians.
fn better(
    summary: &Summary,
    metric: &'static str,
    definition: &'static str,
    higher_is_better: bool,
    phase: Option<&str>,
    pick: &str,
    other: &str,
) -> Judged {
    let relation = if higher_is_better { Relation::AtLeast } else { Relation::AtMost };
    let word = if higher_is_better { "higher" } else { "lower" };
    let at = phase.map(|p| format!(" at {p}")).unwrap_or_default();
    let spec = ClaimSpec::new(
        format!("{pick} has a {word} {metric} than {other}{at}"),
        metric,
        definition,
        (relation, 1.0),
        Basis::ProcessMedians,
        vec![Comparison::contestants(pick, other, judged_phase(phase))],
    );
    let claim = judge(summary, &spec);
    let k = metric_key(phase, metric);
    let (a, b) = (summary.metric(pick, &k), summary.metric(other, &k));
    let ratio = a.zip(b).map(|(a, b)| if higher_is_better { a.median / b.median } else { b.median / a.median });
    // The judge's p: present only when the verdict is decided.
    let p = claim.p;
    Judged { claim, ratio, p, other: other.to_string() }
}

/// `phase` as the judge names it.
fn judged_phase(phase: Option<&str>) -> Phase {
    phase.map_or(Phase::Unphased, |p| Phase::Named(p.to_string()))
}

/// The candidates of `run` that keep order where asked and that the scenario's own question on `metric` did not
/// guard out at `phase`, in the run's order: the only ones advice may pick.
fn eligible(run: &AdvisedRun, summary: &Summary, metric: &str, phase: Option<&str>) -> Vec<String> {
    let guarded = guarded_out(summary, metric, phase);
    run.keeps_order.iter().filter(|n| !guarded.iter().any(|(e, _)| &e.name == *n)).cloned().collect()
}

/// The [`eligible`] candidate with the best median of `metric` at `phase`, if any ran cleanly.
fn best_at(run: &AdvisedRun, summary: &Summary, metric: &str, higher: bool, phase: Option<&str>) -> Option<String> {
    let mut best: Option<(String, f64)> = None;
    for name in eligible(run, summary, metric, phase) {
        if let Some(m) = summary.median(&name, &metric_key(phase, metric)) {
            if best.as_ref().is_none_or(|(_, b)| measure::compare::better(m, *b, higher)) {
                best = Some((name, m));
            }
        }
    }
    best.map(|(name, _)| name)
}

/// A figure with four significant digits or so, or `—`.
pub(crate) fn num(x: Option<f64>) -> String {
    match x {
        None => "—".to_string(),
        Some(x) if x.abs() >= 1000.0 => format!("{x:.0}"),
        Some(x) if x.abs() >= 10.0 => format!("{x:.1}"),
        Some(x) => format!("{x:.3}"),
    }
}

/// `3.1×`, or `?` when unknown.
fn times(ratio: Option<f64>) -> String {
    ratio.map_or_else(|| "?".to_string(), |r| format!("{r:.2}×"))
}

/// `p = 0.008`.
fn p_text(p: Option<f64>) -> String {
    p.map_or_else(String::new, |p| format!(", p = {p:.3}"))
}

/// The alternatives the scenario's own question on `metric` kept from being the answer at `phase` because they
/// failed one of its guards (a limiter that never filled the dependency, a bound that did not hold), each with the
/// guard it failed; empty where the scenario asks no such question or nothing failed a guard. A contestant that did
/// not run cleanly is left out: it has no median to be picked on.
fn guarded_out<'a>(
    summary: &'a Summary,
    metric: &str,
    phase: Option<&str>,
) -> Vec<(&'a measure::question::Excluded, &'a measure::question::GuardRule)> {
    summary
        .questions
        .iter()
        .filter(|q| q.metric == metric)
        .flat_map(|q| {
            q.answers.iter().filter(|a| a.phase.as_deref() == phase).flat_map(move |a| {
                a.excluded
                    .iter()
                    .filter(|e| e.value.is_some())
                    .filter_map(move |e| q.guards.iter().find(|g| g.words == e.guard).map(|g| (e, g)))
            })
        })
        .collect()
}

/// The advice of `run` from its summary.
pub(crate) fn advise(run: &AdvisedRun, summary: &Summary, report: &str) -> RunAdvice {
    let scenario = run.scenario();
    let metric: &'static str = scenario.map_or("", |s| s.headline_metric());
    let higher = scenario.is_some_and(|s| s.higher_is_better());
    // The run's CPU metric, as its scenario's results table names it.
    let cpu_metric: Option<&'static str> = scenario
        .map(|s| s.table_metrics())
        .unwrap_or_default()
        .into_iter()
        .find(|m| run.cpu_metric.as_deref() == Some(*m));
    let phase = run.user_phase();
    let phase = phase.as_deref();
    let median = |name: &str, m: &str| summary.metric(name, &metric_key(phase, m)).map(|s| s.median);
    // A candidate the scenario's question on this metric guarded out is never the pick, as in the report.
    let guarded = guarded_out(summary, metric, phase);

    // The pick: the best median among the candidates that keep order where order is asked.
    let pick = best_at(run, summary, metric, higher, phase);

    // Each family's best candidate (among those that keep order, where asked).
    let mut family_best: Vec<(Family, String, f64)> = Vec::new();
    for name in eligible(run, summary, metric, phase) {
        let (Some(c), Some(m)) = (summary.contestant(&name), median(&name, metric)) else { continue };
        match family_best.iter_mut().find(|(f, _, _)| *f == c.family) {
            Some(entry) if measure::compare::better(m, entry.2, higher) => *entry = (c.family, name.clone(), m),
            Some(_) => {}
            None => family_best.push((c.family, name.clone(), m)),
        }
    }

    let definition = "the scenario's headline metric (see its report)";
    let mut families = Vec::new();
    let mut cpu = Vec::new();
    let mut mistake = None;
    let mut keeps_up = None;
    let mut sentences = Vec::new();
    let unit = metric;
    if let Some(pick) = &pick {
        let pick_family = summary.contestant(pick).map(|c| c.family);
        for (family, name, _) in &family_best {
            if Some(*family) == pick_family {
                continue;
            }
            families.push(better(summary, metric, definition, higher, phase, pick, name));
            if let Some(cpu_metric) = cpu_metric {
                cpu.push(better(
                    summary,
                    cpu_metric,
                    "CPU time of every thread (see the report)",
                    false,
                    phase,
                    pick,
                    name,
                ));
            }
        }
        if let Some(m) = &run.mistake {
            mistake = Some(better(summary, metric, definition, higher, phase, pick, &m.name));
        }
        let family = pick_family.map_or("?", Family::as_str);
        let medians = summary
            .metric(pick, &metric_key(phase, metric))
            .map(|s| s.fork_medians.iter().map(|v| num(Some(*v))).collect::<Vec<_>>().join(", "))
            .unwrap_or_default();
        let separated = families.iter().filter(|j| j.claim.verdict == Verdict::Holds).count();
        if families.is_empty() {
            sentences.push(format!(
                "Use `{pick}` ({family}): the only family with a candidate that ran cleanly here{}.",
                if run.keeps_order.len() < run.candidates.len() { " and keeps item order" } else { "" }
            ));
        } else if separated == families.len() {
            sentences.push(format!(
                "Use `{pick}` ({family}): it beats the best candidate of every other family on {unit} (process \
                 medians {medians})."
            ));
        } else {
            sentences.push(format!(
                "`{pick}` ({family}) has the best median {unit} (process medians {medians}), but it does not \
                 separate from every other family: among those it does not separate from, pick by what else matters to you."
            ));
        }
        for (judged, cpu_judged) in families.iter().zip(cpu.iter().map(Some).chain(std::iter::repeat(None))) {
            let other = &judged.other;
            let fam = summary.contestant(other).map_or("?", |c| c.family.as_str());
            let verdict = judged.claim.verdict.as_str();
            let mut s = match judged.claim.verdict {
                Verdict::Holds => format!(
                    "{fam}: its best candidate `{other}` is worse by {} on {unit} ({verdict}{})",
                    times(judged.ratio),
                    p_text(judged.p)
                ),
                Verdict::Fails => format!(
                    "{fam}: `{other}` is better than the pick on every pairing of process medians ({verdict}{})",
                    p_text(judged.p)
                ),
                Verdict::Inconclusive => format!(
                    "{fam}: `{other}` does not separate from the pick on {unit} (ratio of medians {}; {verdict})",
                    times(judged.ratio)
                ),
            };
            if let Some(c) = cpu_judged {
                let cpu_name = cpu_metric.unwrap_or("");
                match c.claim.verdict {
                    Verdict::Holds => {
                        s.push_str(&format!("; it costs {} the CPU ({cpu_name}, holds{})", times(c.ratio), p_text(c.p)))
                    }
                    Verdict::Fails => s.push_str(&format!(
                        "; it uses less CPU than the pick: {} ({cpu_name}, the pick's lower CPU fails{})",
                        times(c.ratio),
                        p_text(c.p)
                    )),
                    Verdict::Inconclusive => {
                        s.push_str(&format!("; its CPU does not separate from the pick's ({cpu_name}, inconclusive)"))
                    }
                }
            }
            s.push('.');
            sentences.push(s);
        }
        if let Some((_, first)) = guarded.first() {
            let each = guarded
                .iter()
                .map(|(e, g)| {
                    let shown = if e.verdict == Verdict::Fails { "not" } else { "not shown to be" };
                    format!("`{}` ({} {}, {shown} {}{})", e.name, e.guard, num(e.value), g.rule, p_text(e.p))
                })
                .collect::<Vec<_>>()
                .join("; ");
            sentences.push(format!(
                "Never the pick here, as in the report, each having failed a guard: {}: {each}.",
                first.why
            ));
        }
        if let (Some(m), Some(judged)) = (&run.mistake, &mistake) {
            let what = match judged.claim.verdict {
                Verdict::Holds => {
                    format!("costs {} on {unit} against the pick (holds{})", times(judged.ratio), p_text(judged.p))
                }
                Verdict::Fails => format!("does better than the pick here ({}, fails)", times(judged.ratio)),
                Verdict::Inconclusive => "does not separate from the pick here (inconclusive)".to_string(),
            };
            sentences.push(format!("The common mistake, `{}` ({}), {what}.", m.name, m.label));
        }
        if let Some((value, label)) = &run.target {
            let relation = if higher { Relation::AtLeast } else { Relation::AtMost };
            let spec = ClaimSpec::new(
                format!("{pick} keeps up with {label}"),
                metric,
                definition,
                (relation, 1.0),
                Basis::ProcessMedians,
                vec![Comparison {
                    a: measure::judge::Side::contestant(pick.clone(), judged_phase(phase)),
                    b: measure::judge::Side::value(*value, "the rate asked"),
                }],
            );
            let claim = judge(summary, &spec);
            let what = match claim.verdict {
                Verdict::Holds => "keeps up with",
                Verdict::Fails => "does not keep up with",
                Verdict::Inconclusive => "cannot be told apart from",
            };
            sentences.push(format!("`{pick}` {what} {label} ({}).", claim.verdict.as_str()));
            keeps_up = Some(Judged { claim, ratio: None, p: None, other: "the rate asked".to_string() });
        }
        if run.keeps_order.len() < run.candidates.len() {
            sentences.push(format!(
                "Only {} keep item order; the other candidates are shown as what dropping order would give.",
                run.keeps_order.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", ")
            ));
        }
    } else {
        sentences.push("No candidate ran cleanly at this shape: see the report for why; there is no pick.".to_string());
    }

    let change = run.sweep.as_ref().map(|sweep| {
        let other_phase = sweep.other_phase();
        match (&pick, best_at(run, summary, metric, higher, Some(&other_phase))) {
            (Some(pick), Some(other)) if &other != pick => {
                let judged = better(summary, metric, definition, higher, Some(&other_phase), &other, pick);
                match judged.claim.verdict {
                    Verdict::Holds => format!(
                        "At {} (also run), the answer changes: `{other}` beats `{pick}` by {} ({}{}).",
                        sweep.other_label,
                        times(judged.ratio),
                        judged.claim.verdict.as_str(),
                        p_text(judged.p)
                    ),
                    _ => format!(
                        "At {} (also run), `{other}` has the better median, but it does not separate from `{pick}` \
                         ({}): the answer does not clearly change.",
                        sweep.other_label,
                        judged.claim.verdict.as_str()
                    ),
                }
            }
            (Some(pick), Some(_)) => {
                format!("At {} (also run), `{pick}` is still the best: the answer stands.", sweep.other_label)
            }
            _ => format!("At {} (also run), no candidate ran cleanly.", sweep.other_label),
        }
    });

    let mut rows = Vec::new();
    for name in run.contestants() {
        let Some(c) = summary.contestant(&name) else { continue };
        let stats = summary.metric(&name, &metric_key(phase, metric));
        let label = if Some(&name) == pick.as_ref() {
            "pick".to_string()
        } else if let Some(m) = run.mistake.as_ref().filter(|m| m.name == name) {
            format!("{} ({})", c.role.as_str(), m.label)
        } else if !run.keeps_order.contains(&name) {
            "candidate, unordered".to_string()
        } else if family_best.iter().any(|(_, n, _)| *n == name) {
            "family best".to_string()
        } else {
            "candidate".to_string()
        };
        let problem = match c.status {
            measure::record::Status::Ok => None,
            status => Some(format!("{}: {}", status.as_str(), c.reason.clone().unwrap_or_default())),
        };
        rows.push(Row {
            name: name.clone(),
            family: c.family,
            label,
            median: stats.map(|s| s.median),
            process_medians: stats.map(|s| s.fork_medians.clone()).unwrap_or_default(),
            cpu_median: cpu_metric.and_then(|m| median(&name, m)),
            problem,
        });
    }

    RunAdvice {
        scenario: run.scenario.clone(),
        why: run.why.clone(),
        phase: phase.map(str::to_string),
        metric: metric.to_string(),
        higher_is_better: higher,
        cpu_metric: cpu_metric.map(str::to_string),
        pick,
        rows,
        families,
        cpu,
        mistake,
        keeps_up,
        sentences,
        change,
        command: summary.command.clone(),
        report: report.to_string(),
    }
}
