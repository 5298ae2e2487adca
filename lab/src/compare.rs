//! `lab compare`: two summaries side by side, judging each metric both runs measured on its process medians
//! under its noise threshold (worse or better beyond noise, within noise, or cannot tell), as text, JSON or
//! markdown a pull request can show (`--format`), and with `--fail-on PCT` a gate for CI: exit 1 when a metric
//! whose direction is known got worse beyond noise and by more than PCT per cent, exit 2 when the runs cannot be
//! gated (fewer than [`MIN_PROCESSES`] processes a side). Only like is compared with like: runs whose parameters,
//! method or phases differ, or that ran on different testbeds or builds, are refused with the differences listed,
//! unless `--force`, and then the differences head the comparison.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write;
use std::path::Path;

use measure::compare::{
    format_or_na, format_p, format_ratio, noise_threshold, separation_p, too_few_processes, NoiseThreshold, Operand,
    ThresholdSource,
};
use measure::record::Status;
use measure::separation::{separation, Separation};
use measure::stats::MIN_PROCESSES;
use measure::summary::{MetricStats, Summary};
use render::format::{number, percent};
use render::table::{Align, Table};
use serde::Serialize;

use crate::error::UsageError;

/// The version of the JSON `lab compare --format json` prints; raised when a field changes meaning or goes away
/// (2: a ratio that does not exist is absent, with its `reason`, where 1 printed `null`).
pub(crate) const SCHEMA_VERSION: u32 = 2;

/// What `lab compare` prints.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Format {
    /// Aligned text for a terminal.
    Text,
    /// One JSON object ([`Comparison`]).
    Json,
    /// Markdown a pull request can show.
    Markdown,
}

impl Format {
    /// The names `--format` takes.
    pub(crate) const NAMES: [&'static str; 3] = ["text", "json", "markdown"];

    /// The format named `name`, one of [`Format::NAMES`].
    pub(crate) fn named(name: &str) -> Option<Format> {
        match name {
            "text" => Some(Format::Text),
            "json" => Some(Format::Json),
            "markdown" => Some(Format::Markdown),
            _ => None,
        }
    }
}

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
    /// Within noise (or too few processes to tell: see [`Verdict::CannotTell`]).
    Noise,
    /// Higher beyond noise.
    Higher,
    /// Lower beyond noise.
    Lower,
}

/// What a row's change means, judged on the metric's process medians under its noise threshold.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Verdict {
    /// Beyond noise in the direction the scenario calls worse.
    Worse,
    /// Beyond noise in the direction the scenario calls better.
    Better,
    /// Beyond noise on a metric whose direction the scenario does not state (`change` says which way).
    Changed,
    /// Not told apart: the process medians overlap, or they separate by less than the noise threshold.
    WithinNoise,
    /// No judgement: a side has fewer than [`MIN_PROCESSES`] processes (or a process median is missing).
    CannotTell,
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
    /// `new / base`; absent when it does not exist (a base median of 0), `reason` saying why.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) ratio: Option<f64>,
    /// Why `ratio` is absent; absent with it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) reason: Option<String>,
    /// How it moved.
    pub(crate) change: Change,
    /// Whether higher is better on it, where the scenario says (its headline, its questions' and trade-offs'
    /// metrics); `None` elsewhere, where no change is judged a regression.
    pub(crate) higher_is_better: Option<bool>,
    /// It got worse beyond noise and, with `--fail-on`, by more than that.
    pub(crate) regression: bool,
    /// Its process medians in the base run, one per process (the summary's `fork_medians`).
    pub(crate) base_fork_medians: Vec<f64>,
    /// Its process medians in the new run.
    pub(crate) new_fork_medians: Vec<f64>,
    /// The noise threshold it was judged under, a fraction: the larger of the two runs' for this metric.
    pub(crate) noise_threshold: f64,
    /// Where that threshold came from.
    pub(crate) threshold_source: ThresholdSource,
    /// The exact one-sided p of the separation of the two runs' process medians (Mann–Whitney at U = 0, as the
    /// judge computes it); absent when they do not separate or cannot be judged, `p_reason` saying why.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) p: Option<f64>,
    /// Why `p` is absent; absent with it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) p_reason: Option<String>,
    /// What the change means.
    pub(crate) verdict: Verdict,
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

/// A judged statement whose outcome differs between the runs: a claim's or a finding's verdict, or a question's
/// pick at one phase. Both runs judged it; one judged alone is not listed.
#[derive(Debug, Serialize)]
pub(crate) struct OutcomeChange {
    /// `claim`, `finding` or `answer`.
    pub(crate) kind: &'static str,
    /// The claim's or finding's id, or the question's id with its phase (`family-per-item@capacity_256`).
    pub(crate) id: String,
    /// The claim's or finding's statement, or the question as a user asks it.
    pub(crate) text: String,
    /// Its verdict (or pick; `none` without one) in the base run.
    pub(crate) base: String,
    /// Its verdict (or pick) in the new run.
    pub(crate) new: String,
}

/// Every claim, finding and answer both runs judged whose outcome differs, in the order of the base run.
fn outcome_changes(base: &Summary, new: &Summary) -> Vec<OutcomeChange> {
    let mut changes = Vec::new();
    for (kind, old, now) in [("claim", &base.claims, &new.claims), ("finding", &base.findings, &new.findings)] {
        for b in old.iter().filter(|c| !c.id.is_empty()) {
            let Some(n) = now.iter().find(|c| c.id == b.id) else { continue };
            if b.verdict != n.verdict {
                changes.push(OutcomeChange {
                    kind,
                    id: b.id.clone(),
                    text: b.text.clone(),
                    base: b.verdict.as_str().to_string(),
                    new: n.verdict.as_str().to_string(),
                });
            }
        }
    }
    for bq in &base.questions {
        let Some(nq) = new.questions.iter().find(|q| q.id == bq.id) else { continue };
        for ba in &bq.answers {
            let Some(na) = nq.answers.iter().find(|a| a.phase == ba.phase) else { continue };
            let pick = |a: &measure::answers::Answer| a.pick.clone().unwrap_or_else(|| "none".to_string());
            if ba.pick != na.pick {
                let id = match &ba.phase {
                    Some(phase) => format!("{}@{phase}", bq.id),
                    None => bq.id.clone(),
                };
                changes.push(OutcomeChange { kind: "answer", id, text: bq.ask.clone(), base: pick(ba), new: pick(na) });
            }
        }
    }
    changes
}

/// The comparison of two runs, as `--format json` prints it.
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
    /// The runs' default noise threshold (the larger of the two runs'); each row carries the one it was judged
    /// under.
    pub(crate) noise_threshold: f64,
    /// Where that default came from.
    pub(crate) threshold_source: ThresholdSource,
    /// `--fail-on`'s threshold as a fraction (0.1 for 10%), when given.
    pub(crate) fail_on: Option<f64>,
    /// Whether a gate on these runs means anything: every metric it judges has enough processes a side.
    pub(crate) can_gate: bool,
    /// Why it cannot gate; absent when it can.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) cannot_gate_reason: Option<String>,
    /// What the reader should know about how it judged, such as a `--fail-on` below the noise threshold.
    pub(crate) warnings: Vec<String>,
    /// How the runs' settings, testbeds or builds differ (compared anyway: `--force`).
    pub(crate) forced_differences: Vec<String>,
    /// Every metric of every contestant both runs measured.
    pub(crate) rows: Vec<Row>,
    /// Contestants whose status changed.
    pub(crate) status_changes: Vec<StatusChange>,
    /// Claims, findings and answers both runs judged whose verdict or pick differs.
    pub(crate) outcome_changes: Vec<OutcomeChange>,
    /// Contestants only the base run has.
    pub(crate) only_in_base: Vec<String>,
    /// Contestants only the new run has.
    pub(crate) only_in_new: Vec<String>,
    /// Metrics only one run measured.
    pub(crate) one_sided_metrics: usize,
    /// Changes beyond noise.
    pub(crate) changes: usize,
    /// Rows whose verdict is `cannot_tell`.
    pub(crate) cannot_tell: usize,
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

/// The noise threshold `metric` is judged under: the larger of the two runs' ([`noise_threshold`]).
fn threshold_of(base: &Summary, new: &Summary, metric: &str) -> NoiseThreshold {
    let (b, n) = (noise_threshold(&base.method, metric), noise_threshold(&new.method, metric));
    if n.value > b.value {
        n
    } else {
        b
    }
}

/// `new / base` when it exists, else why not.
fn ratio(base: f64, new: f64) -> Result<f64, String> {
    let ratio = new / base;
    if ratio.is_finite() {
        Ok(ratio)
    } else if base == 0.0 && new == 0.0 {
        Err("both medians are 0".to_string())
    } else if base == 0.0 {
        Err("the base median is 0".to_string())
    } else {
        Err("a median is not a number".to_string())
    }
}

/// One contestant's `metric`, `bs` in the base run and `ns` in the new, judged under `threshold` by
/// [`separation`], the judge's rule, with its p ([`separation_p`]).
fn row(
    contestant: &str,
    metric: &str,
    (bs, ns): (&MetricStats, &MetricStats),
    threshold: NoiseThreshold,
    higher_is_better: Option<bool>,
    fail_on: Option<f64>,
) -> Row {
    let (outcome, _) = separation(ns, bs, threshold.value);
    let change = match outcome {
        Separation::Slower => Change::Higher,
        Separation::Faster => Change::Lower,
        Separation::Overlap | Separation::WithinNoise | Separation::TooFewProcesses => Change::Noise,
    };
    let (p, p_reason) = match outcome {
        Separation::Slower | Separation::Faster | Separation::WithinNoise => {
            (Some(separation_p(ns.processes, Some(bs.processes))), None)
        }
        Separation::Overlap => (None, Some("the process medians overlap: not separated".to_string())),
        Separation::TooFewProcesses => {
            let why = too_few_processes(&Operand::Measured(ns), &Operand::Measured(bs))
                .unwrap_or_else(|| "a process median is missing".to_string());
            (None, Some(why))
        }
    };
    let verdict = match (outcome, change, higher_is_better) {
        (Separation::TooFewProcesses, _, _) => Verdict::CannotTell,
        (_, Change::Noise, _) => Verdict::WithinNoise,
        (_, _, None) => Verdict::Changed,
        (_, Change::Higher, Some(false)) | (_, Change::Lower, Some(true)) => Verdict::Worse,
        (_, Change::Higher, Some(true)) | (_, Change::Lower, Some(false)) => Verdict::Better,
    };
    // How much worse, as a fraction: infinite when a side is 0.
    let moved = ns.median / bs.median;
    let by = if moved > 1.0 { moved - 1.0 } else { 1.0 / moved - 1.0 };
    let regression = verdict == Verdict::Worse && fail_on.is_none_or(|limit| by > limit);
    let (ratio, reason) = match ratio(bs.median, ns.median) {
        Ok(r) => (Some(r), None),
        Err(why) => (None, Some(why)),
    };
    Row {
        contestant: contestant.to_string(),
        metric: metric.to_string(),
        base: bs.median,
        new: ns.median,
        ratio,
        reason,
        change,
        higher_is_better,
        regression,
        base_fork_medians: bs.fork_medians.clone(),
        new_fork_medians: ns.fork_medians.clone(),
        noise_threshold: threshold.value,
        threshold_source: threshold.source,
        p,
        p_reason,
        verdict,
    }
}

/// Why a gate on these runs would mean nothing, if so: a run with fewer than [`MIN_PROCESSES`] processes per
/// contestant (any `--quick` run), a metric the gate judges that cannot be told, or no such metric at all.
fn cannot_gate(base: &Summary, new: &Summary, rows: &[Row]) -> Option<String> {
    let (b, n) = (base.method.forks, new.method.forks);
    if (b.min(n) as usize) < MIN_PROCESSES {
        let quick = if base.method.quick || new.method.quick { " (a --quick run has 1)" } else { "" };
        return Some(format!(
            "the base run has {b} process(es) per contestant and the new run {n} (method.forks), and a change can \
             be told from noise only with {MIN_PROCESSES} or more a side: compare runs made with --forks \
             {MIN_PROCESSES} or more{quick}"
        ));
    }
    let gated: Vec<&Row> = rows.iter().filter(|r| r.higher_is_better.is_some()).collect();
    if gated.is_empty() {
        return Some("no metric whose direction the scenario states was measured in both runs".to_string());
    }
    let untold: Vec<&&Row> = gated.iter().filter(|r| r.verdict == Verdict::CannotTell).collect();
    let first = untold.first()?;
    Some(format!(
        "{} of the {} metrics the gate judges cannot be told from noise, such as {} {}: {}",
        untold.len(),
        gated.len(),
        first.contestant,
        first.metric,
        first.p_reason.as_deref().unwrap_or("too few processes")
    ))
}

/// The thresholds of the `rows` the gate judges (those whose direction is known), each once, largest first;
/// `fallback` when no row is gated.
fn gated_thresholds(rows: &[Row], fallback: NoiseThreshold) -> Vec<NoiseThreshold> {
    let mut found: Vec<NoiseThreshold> = Vec::new();
    for r in rows.iter().filter(|r| r.higher_is_better.is_some()) {
        let t = NoiseThreshold { value: r.noise_threshold, source: r.threshold_source };
        if !found.contains(&t) {
            found.push(t);
        }
    }
    if found.is_empty() {
        found.push(fallback);
    }
    found.sort_by(|a, b| b.value.total_cmp(&a.value));
    found
}

/// A threshold as text: `20% (uncalibrated default)`.
fn describe(t: &NoiseThreshold) -> String {
    format!("{} ({})", percent(t.value), t.source.describe())
}

/// The warning when `--fail-on` is below a noise threshold the gate judges by: a smaller change cannot be told
/// from noise, so each metric is gated at the larger of the two.
fn fail_on_warning(fail_on: Option<f64>, rows: &[Row], fallback: NoiseThreshold) -> Option<String> {
    let fail_on = fail_on?;
    let above: Vec<String> =
        gated_thresholds(rows, fallback).iter().filter(|t| t.value > fail_on).map(describe).collect();
    (!above.is_empty()).then(|| {
        format!(
            "--fail-on {} is below the noise threshold the gate judges by, {}: a smaller change cannot be told \
             from noise, so the gate fires only on a worsening beyond that threshold (each metric is gated at the \
             larger of --fail-on and its own threshold)",
            percent(fail_on),
            above.join(", ")
        )
    })
}

/// Compare `new` with `base`. Runs set up differently (see [`differences`]) or on different testbeds or builds
/// (see [`measure::setup::testbed_differences`]) are refused unless `force`. With `fail_on` (a fraction), a row is a regression
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
    let testbed = measure::setup::testbed_differences(&base.environment, &new.environment);
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
    // The runs' threshold for a metric of no particular class.
    let default = threshold_of(base, new, "");
    let known = directions(&base.scenario);
    let mut result = Comparison {
        schema_version: SCHEMA_VERSION,
        scenario: base.scenario.clone(),
        base: Side::of(base),
        new: Side::of(new),
        noise_threshold: default.value,
        threshold_source: default.source,
        fail_on,
        can_gate: true,
        cannot_gate_reason: None,
        warnings: Vec::new(),
        forced_differences: differ,
        rows: Vec::new(),
        status_changes: Vec::new(),
        outcome_changes: outcome_changes(base, new),
        only_in_base: Vec::new(),
        only_in_new: Vec::new(),
        one_sided_metrics: 0,
        changes: 0,
        cannot_tell: 0,
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
            let threshold = threshold_of(base, new, metric);
            let higher_is_better = direction(metric, &base.phases, &known);
            let row = row(&b.name, metric, (bs, ns), threshold, higher_is_better, fail_on);
            result.changes += usize::from(row.change != Change::Noise);
            result.cannot_tell += usize::from(row.verdict == Verdict::CannotTell);
            result.regressions += usize::from(row.regression);
            result.rows.push(row);
        }
    }
    result.only_in_new =
        new.contestants.iter().filter(|n| base.contestant(&n.name).is_none()).map(|n| n.name.clone()).collect();
    result.cannot_gate_reason = cannot_gate(base, new, &result.rows);
    result.can_gate = result.cannot_gate_reason.is_none();
    result.warnings.extend(fail_on_warning(fail_on, &result.rows, default));
    Ok(result)
}

/// The thresholds the rows were judged under, as one clause: `20% (uncalibrated default) for every metric`.
fn thresholds_clause(c: &Comparison) -> String {
    let fallback = NoiseThreshold { value: c.noise_threshold, source: c.threshold_source };
    let mut all: Vec<NoiseThreshold> = Vec::new();
    for r in &c.rows {
        let t = NoiseThreshold { value: r.noise_threshold, source: r.threshold_source };
        if !all.contains(&t) {
            all.push(t);
        }
    }
    match all.as_slice() {
        [] => format!("{} for every metric", describe(&fallback)),
        [one] => format!("{} for every metric", describe(one)),
        many => format!(
            "{} by metric (each row's in --format json)",
            many.iter().map(describe).collect::<Vec<_>>().join(", ")
        ),
    }
}

/// What a row's verdict says, in words: `HIGHER (worse: regression)`, `within noise`, `cannot tell: too few
/// processes (1, 3 needed)`, and, when the ratio does not exist, why.
fn verdict_words(r: &Row) -> String {
    let way = if r.change == Change::Higher { "HIGHER" } else { "LOWER" };
    let words = match r.verdict {
        Verdict::Worse if r.regression => format!("{way} (worse: regression)"),
        Verdict::Worse => format!("{way} (worse)"),
        Verdict::Better => format!("{way} (better)"),
        Verdict::Changed => way.to_string(),
        Verdict::WithinNoise => "within noise".to_string(),
        Verdict::CannotTell => format!("cannot tell: {}", r.p_reason.as_deref().unwrap_or("too few processes")),
    };
    match &r.reason {
        Some(why) => format!("{words}; no ratio: {why}"),
        None => words,
    }
}

/// The gate's outcome in one sentence, or why there is none.
fn gate_line(c: &Comparison) -> String {
    match (c.fail_on, &c.cannot_gate_reason) {
        (Some(_), Some(why)) => format!("cannot gate: {why}"),
        (None, Some(why)) => format!("cannot gate (no --fail-on given): {why}"),
        (Some(limit), None) => format!(
            "{} regression(s) worse beyond noise and by more than {} (metrics whose direction the scenario states)",
            c.regressions,
            percent(limit)
        ),
        (None, None) => format!("{} regression(s) (metrics whose direction the scenario states)", c.regressions),
    }
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
        "noise threshold {}; a change counts only beyond it and when the process-median ranges do not overlap",
        thresholds_clause(c)
    );
    let _ = writeln!(
        out,
        "{:<34} {:<36} {:>12} {:>12} {:>8} {:>7}  verdict",
        "contestant", "metric", "base", "new", "new/base", "p"
    );
    for r in &c.rows {
        let _ = writeln!(
            out,
            "{:<34} {:<36} {:>12.4} {:>12.4} {:>8} {:>7}  {}",
            r.contestant,
            r.metric,
            r.base,
            r.new,
            format_or_na(r.ratio),
            r.p.map_or_else(|| "-".to_string(), format_p),
            verdict_words(r)
        );
    }
    for s in &c.status_changes {
        let _ = writeln!(out, "{:<34} status {} -> {}", s.contestant, s.base, s.new);
    }
    for o in &c.outcome_changes {
        let _ = writeln!(out, "{} {}: {} -> {} ({})", o.kind, o.id, o.base, o.new, o.text);
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
    let _ = writeln!(out, "{} change(s) beyond noise; {} metric(s) cannot be told", c.changes, c.cannot_tell);
    let _ = writeln!(out, "{}", gate_line(c));
    out
}

/// The comparison as markdown a pull request can show: the gate's outcome, a table of the metrics that changed
/// beyond noise or cannot be told, and the rest folded away.
pub(crate) fn markdown(c: &Comparison) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "### `lab compare`: {}\n", c.scenario);
    let _ = writeln!(
        out,
        "Base `{}` ({}) against new `{}` ({}). Noise threshold {}: a change counts only beyond it and when the two \
         runs' process medians do not overlap; p is the exact one-sided p of their separation (Mann–Whitney at U = \
         0).\n",
        c.base.git_rev,
        c.base.started_utc,
        c.new.git_rev,
        c.new.started_utc,
        thresholds_clause(c)
    );
    if !c.forced_differences.is_empty() {
        let _ =
            writeln!(out, "Compared with `--force` although the runs differ: {}.\n", c.forced_differences.join("; "));
    }
    for warning in &c.warnings {
        let _ = writeln!(out, "> **Warning:** {warning}\n");
    }
    let _ = writeln!(out, "**{}**\n", gate_line(c));
    let _ = writeln!(out, "{} change(s) beyond noise; {} metric(s) cannot be told.\n", c.changes, c.cannot_tell);
    let (noted, quiet): (Vec<&Row>, Vec<&Row>) = c.rows.iter().partition(|r| r.verdict != Verdict::WithinNoise);
    if noted.is_empty() {
        let _ = writeln!(out, "No metric changed beyond noise.\n");
    } else {
        out.push_str(&rows_table(&noted));
        out.push('\n');
    }
    if !quiet.is_empty() {
        let _ = writeln!(out, "<details><summary>{} metric(s) within noise</summary>\n", quiet.len());
        out.push_str(&rows_table(&quiet));
        let _ = writeln!(out, "\n</details>\n");
    }
    let mut notes: Vec<String> = c
        .status_changes
        .iter()
        .map(|s| format!("`{}`: status {} → {}, not compared", s.contestant, s.base, s.new))
        .collect();
    notes.extend(
        c.outcome_changes.iter().map(|o| format!("{} `{}` ({}): {} → {}", o.kind, o.id, o.text, o.base, o.new)),
    );
    notes.extend(c.only_in_base.iter().map(|n| format!("`{n}`: only in base, not compared")));
    notes.extend(c.only_in_new.iter().map(|n| format!("`{n}`: only in new, not compared")));
    if c.one_sided_metrics > 0 {
        notes.push(format!("{} metric(s) measured in one run only, not compared", c.one_sided_metrics));
    }
    for note in notes {
        let _ = writeln!(out, "- {note}");
    }
    out
}

/// `rows` as a markdown table: contestant, metric, both medians, their ratio, p and the verdict.
fn rows_table(rows: &[&Row]) -> String {
    let mut table = Table::new(&[
        ("contestant", Align::Left),
        ("metric", Align::Left),
        ("base", Align::Right),
        ("new", Align::Right),
        ("new/base", Align::Right),
        ("p", Align::Right),
        ("verdict", Align::Left),
    ]);
    for r in rows {
        table.row(&[
            format!("`{}`", r.contestant),
            format!("`{}`", r.metric),
            number(r.base),
            number(r.new),
            r.ratio.map_or_else(|| "n/a".to_string(), |x| format!("{}×", format_ratio(x))),
            r.p.map_or_else(|| "–".to_string(), format_p),
            verdict_words(r),
        ]);
    }
    table.render()
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
        assert!(measure::setup::testbed_differences(&old.environment, &a.environment).is_empty());
        assert!(measure::setup::testbed_differences(&a.environment, &a.environment).is_empty());
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
    fn a_claim_finding_or_pick_that_changed_is_listed_and_one_judged_once_is_not() {
        use measure::summary::{ClaimResult, Verdict};
        let judged =
            |id: &str, verdict| ClaimResult { id: id.to_string(), ..ClaimResult::new("a statement", verdict, "") };
        let mut base = summary(1000, 3, &["work_0", "work_64"]);
        let mut new = base.clone();
        base.claims = vec![judged("kept", Verdict::Holds), judged("flipped", Verdict::Holds)];
        new.claims =
            vec![judged("kept", Verdict::Holds), judged("flipped", Verdict::Fails), judged("new", Verdict::Holds)];
        base.findings = vec![judged("batched-beats", Verdict::Inconclusive)];
        new.findings = vec![judged("batched-beats", Verdict::Holds)];
        let c = comparison(&base, &new, false, None).unwrap();
        let listed: Vec<(&str, &str, &str, &str)> =
            c.outcome_changes.iter().map(|o| (o.kind, o.id.as_str(), o.base.as_str(), o.new.as_str())).collect();
        assert_eq!(
            listed,
            [("claim", "flipped", "holds", "fails"), ("finding", "batched-beats", "inconclusive", "holds")]
        );
        assert!(text(&c).contains("claim flipped: holds -> fails"), "{}", text(&c));
        assert!(markdown(&c).contains("finding `batched-beats` (a statement): inconclusive → holds"));
        let json = serde_json::to_value(&c).unwrap();
        assert_eq!(json["outcome_changes"][0]["kind"], "claim");
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

    #[test]
    fn a_ratio_that_does_not_exist_is_absent_with_its_reason_and_prints_as_not_available() {
        let zero = testkit::fixture::processes(&[0.0, 0.0, 0.0]);
        let some = testkit::fixture::processes(&[1.0, 1.1, 1.2]);
        let threshold = NoiseThreshold { value: 0.2, source: ThresholdSource::UncalibratedDefault };
        let both = row("c", "allocs_per_item", (&zero, &zero), threshold, None, None);
        assert_eq!((both.ratio, both.reason.as_deref()), (None, Some("both medians are 0")));
        assert_eq!(both.verdict, Verdict::WithinNoise);
        let from_zero = row("c", "allocs_per_item", (&zero, &some), threshold, Some(false), Some(0.1));
        assert_eq!((from_zero.ratio, from_zero.reason.as_deref()), (None, Some("the base median is 0")));
        assert_eq!((from_zero.verdict, from_zero.regression), (Verdict::Worse, true), "0 to 1 is worse by any margin");
        assert_eq!(verdict_words(&from_zero), "HIGHER (worse: regression); no ratio: the base median is 0");
        let to_zero = row("c", "allocs_per_item", (&some, &zero), threshold, None, None);
        assert_eq!(to_zero.ratio, Some(0.0));
        assert_eq!(to_zero.verdict, Verdict::Changed);
    }

    #[test]
    fn one_process_a_side_cannot_be_told_or_gated_and_says_so() {
        let base = with_chain_metric(&[10.0]);
        let new = with_chain_metric(&[20.0]);
        let mut quick = (base.clone(), new.clone());
        quick.0.method.forks = 1;
        quick.1.method.forks = 1;
        let c = comparison(&quick.0, &quick.1, false, Some(0.05)).unwrap();
        assert_eq!((c.changes, c.cannot_tell, c.regressions, c.can_gate), (0, 1, 0, false));
        assert!(c.cannot_gate_reason.as_deref().unwrap().starts_with("the base run has 1 process(es)"));
        assert!(text(&c).contains("cannot tell: too few processes (1, 3 needed)"), "{}", text(&c));
        // A run of 3 forks in which one contestant kept a single process cannot vouch for that metric either.
        let c = comparison(&base, &new, false, Some(0.05)).unwrap();
        let why = c.cannot_gate_reason.unwrap();
        assert!(why.starts_with("1 of the 1 metrics the gate judges cannot be told from noise"), "{why}");
    }

    #[test]
    fn a_within_noise_separation_still_has_its_p_and_an_overlap_has_none() {
        let base = with_chain_metric(&[10.0, 10.1, 10.2]);
        let near = with_chain_metric(&[11.0, 11.1, 11.2]);
        let c = comparison(&base, &near, false, None).unwrap();
        let r = &c.rows[0];
        assert_eq!((r.verdict, r.change), (Verdict::WithinNoise, Change::Noise));
        assert!((r.p.unwrap() - 0.05).abs() < 1e-12, "3 + 3 apart: p = 1 / C(6, 3)");
        assert_eq!(r.base_fork_medians, [10.0, 10.1, 10.2]);
        let overlap = comparison(&base, &with_chain_metric(&[10.1, 10.2, 10.3]), false, None).unwrap();
        assert_eq!(overlap.rows[0].p, None);
        assert_eq!(overlap.rows[0].p_reason.as_deref(), Some("the process medians overlap: not separated"));
        assert!(c.warnings.is_empty() && c.can_gate);
    }
}
