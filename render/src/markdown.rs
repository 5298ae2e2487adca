//! The report a person reads (`<scenario>.md`): it opens with its answer (what to use when, with the numbers,
//! computed from the run's comparisons and verdicts), then the question, results, charts, claims and
//! discussion; the long parts (every ratio, contestants, parameters, method, environment, spread, checks,
//! published figures, harness cost) sit in collapsible `<details>` sections at the end, before how to
//! reproduce it.

use measure::compare::ratio as compare;
use measure::question::reference;
use measure::record::Status;
use measure::summary::{metric_key, ContestantSummary, Environment, Role, Setting, Summary};

use crate::analysis::{self, phase_words};
use crate::claims::{claim_line, Tally};
use crate::format::{self, percent};
use crate::table::{cell, columns, headers, table_of, Align, Table};
use crate::ReportInput;
use serde::Serialize;
use serde_json::{json, Value};

/// The phases' names in order, `—` for the one unnamed phase.
fn phase_names(summary: &Summary) -> Vec<&str> {
    summary.phase_keys().iter().map(|p| p.unwrap_or("—")).collect()
}

/// `text` without trailing whitespace, as a section body.
fn body(text: &str) -> String {
    text.trim_end().to_string()
}

/// `text` ending in exactly one newline.
fn one_trailing_newline(text: &str) -> String {
    format!("{}\n", text.trim_end())
}

/// Render the markdown report into `templates/report.md`. Pure: the same input gives the same bytes.
pub fn render_markdown(input: &ReportInput<'_>) -> String {
    let summary = input.summary;
    let mut command = summary.command.clone();
    if summary.method.quick && !command.split_whitespace().any(|w| w == "--out" || w.starts_with("--out=")) {
        // A `--quick` run recorded before its command named a scratch folder gets one: the full run's reports
        // refuse a smoke run's.
        command.push_str(" --out target/quick-reports");
    }
    let charts: Vec<Value> = input
        .charts
        .iter()
        .map(|chart| {
            let words = crate::svg::chart_words(input, chart);
            json!({
                "title": words.alt,
                "path": crate::chart_path(&summary.scenario, chart),
                "left_out": words.left_out,
            })
        })
        .collect();
    let claims: Vec<Value> = summary.claims.iter().map(claim_line).collect();
    let context = json!({
        "title": input.title,
        "status": analysis::status_line(summary),
        "answer": body(&answer(input)),
        "question": body(input.question),
        "results": body(&results(input)),
        "charts": charts,
        "claims": claims,
        "discussion": input.discussion.trim(),
        "coroutine_rules": body(&crate::coroutine_rules::note(summary)),
        "cost_model": body(&crate::cost_model::section(summary, false)),
        "published": published_against(summary),
        "agree_within": format!("{}", measure::references::AGREE_WITHIN),
        // The details file has a published reference section only when the scenario has published figures.
        "published_reference": published_reference(summary).is_some(),
        "scenario": summary.scenario,
        "method": body(&method(summary)),
        "environment": body(&environment(summary)),
        "command": command,
        "raw": summary.raw_file,
    });
    one_trailing_newline(&template!("report.md", context))
}

/// The appendix a reader consults rather than reads (`<scenario>-details.md`): every ratio against the baseline,
/// the medians of the metrics beyond the results table, the contestants, parameters, method, environment, spread
/// across processes, every correctness check, the published reference and the harness cost; rendered into
/// `templates/details.md`. Kept out of the report so that the report stays one a person reads to the end. Pure:
/// the same input gives the same bytes.
pub fn render_details(input: &ReportInput<'_>) -> String {
    let summary = input.summary;
    let context = json!({
        "title": input.title,
        "scenario": summary.scenario,
        "metric": input.headline_metric,
        "higher_is_better": input.higher_is_better,
        "noise_threshold": percent(summary.method.threshold(input.headline_metric)),
        "findings": analysis::headline_findings(input),
        "phase_names": phase_names(summary),
        "other": body(&other_metrics(input.summary, full_and_brief(input).1)),
        "contestants": body(&contestants(summary)),
        "parameters": body(&parameters(summary)),
        "method": body(&method(summary)),
        "environment": body(&environment(summary)),
        "spread": body(&spread(input)),
        "checks": body(&checks(summary)),
        "judged_findings": summary.findings.iter().map(claim_line).collect::<Vec<_>>(),
        "cost_model": body(&crate::cost_model::section(summary, true)),
        "references": published_reference(summary),
        "harness": body(&harness(input)),
        "scenario_details": input.details_discussion.trim(),
    });
    one_trailing_newline(&template!("details.md", context))
}

/// The table metrics the results show in full (`median (min–max)`, the first [`FULL_STAT_METRICS`]), and the
/// rest, whose medians the appendix lists.
fn full_and_brief<'i>(input: &'i ReportInput<'_>) -> (&'i [&'i str], &'i [&'i str]) {
    input.table_metrics.split_at(FULL_STAT_METRICS.min(input.table_metrics.len()))
}

/// The opening answer, computed from this run alone: each question the run asked with its answer per phase
/// ([`crate::questions`]), those it could not ask, the paired arms where the run alternated two contestants, the
/// thresholds it was judged with, the claims' tally, then the scenario's own findings; rendered into
/// `templates/answer.md`.
fn answer(input: &ReportInput<'_>) -> String {
    template!("answer.md", answer_context(input))
}

/// The figures, names and flags of the opening answer (no sentence): the questions' views, the paired arms, the
/// thresholds statement, the claims' tally and the scenario's notes.
fn answer_context(input: &ReportInput<'_>) -> Value {
    let summary = input.summary;
    let forks = summary.method.forks;
    json!({
        "min_processes": measure::stats::MIN_PROCESSES,
        "forks": forks,
        "judged_with": crate::thresholds::statement(&summary.method, judged_metrics(input)),
        "paired": summary.paired.as_ref().map(|p| json!({ "a": p.a, "b": p.b })),
        "paired_metrics": summary.paired.as_ref().map(|p| p.metrics.iter().map(|m| json!({
            "metric": m.metric,
            "ratio": format::ratio(m.ratio),
            "ci": m.ci95.map(|(low, high)| json!({ "low": format::ratio(low), "high": format::ratio(high) })),
            "sdr": m.sdr.map(format::ratio),
            "aa_pairs": m.aa_pairs,
            "arm": m.arm,
            "apart": m.apart,
            "p": m.p.map(measure::compare::format_p),
        })).collect::<Vec<_>>()).unwrap_or_default(),
        "claims": (!summary.claims.is_empty()).then(|| Tally::of(&summary.claims)),
        "notes": input.headline_notes,
        "questions": crate::questions::views(summary),
        "not_asked": crate::questions::not_asked(summary),
    })
}

/// The metrics a report judges by its noise line: the headline, each question's deciding metric and the
/// trade-off metrics.
fn judged_metrics<'i>(input: &'i ReportInput<'_>) -> Vec<&'i str> {
    let mut keys = vec![input.headline_metric];
    keys.extend(input.summary.questions.iter().map(|q| q.metric.as_str()));
    keys.extend(input.trade_off_metrics.iter().map(|(m, _)| *m));
    keys
}

/// The contestants (name, family, status, description); empty without any.
fn contestants(summary: &Summary) -> String {
    if summary.contestants.is_empty() {
        return String::new();
    }
    let rows = summary
        .contestants
        .iter()
        .map(|c| [format!("`{}`", c.name), c.family.as_str().to_string(), status_cell(c), c.description.clone()]);
    table_of("contestants", &[Align::Left; 4], rows)
}

fn status_cell(c: &ContestantSummary) -> String {
    let skipped: Vec<Value> =
        c.skipped_phases.iter().map(|(phase, reason)| json!({ "phase": phase, "reason": reason })).collect();
    cell(json!({
        "cell": "status",
        "ok": c.status == Status::Ok,
        "status": c.status.as_str(),
        "reason": c.reason,
        "skipped": skipped,
    }))
}

/// The run's parameters (name, value or the values swept, fixed or swept); empty without any.
fn parameters(summary: &Summary) -> String {
    if summary.params.is_empty() {
        return String::new();
    }
    let rows = summary.params.iter().map(|(name, value)| {
        let (text, sweep) = match value {
            Value::Array(values) => (values.iter().map(json_scalar).collect::<Vec<_>>().join(", "), true),
            other => (json_scalar(other), false),
        };
        [format!("`{name}`"), text, cell(json!({ "cell": "parameter-kind", "sweep": sweep }))]
    });
    table_of("parameters", &[Align::Left, Align::Right, Align::Left], rows)
}

/// A parameter value as typed on the command line.
fn json_scalar(value: &Value) -> String {
    match value {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// The Method section: the run's settings, rendered into `templates/method.md`.
fn method(summary: &Summary) -> String {
    let m = &summary.method;
    let context = json!({
        "forks": m.forks,
        "warmup": m.warmup,
        "iterations": m.iterations,
        "accounting": m.accounting,
        "thresholds": crate::thresholds::statement_all(m),
        "seed": m.seed.to_string(),
        "trial_timeout": format::number(m.trial_timeout_s),
        "quick": m.quick,
        "pin": summary.environment.pin.as_ref().map(|p| json!({ "cores": p.cores, "cpus": p.cpu_list() })),
        "server": summary.environment.runtimes.iter().find(|s| s.name == "network.server").map(|s| &s.value),
    });
    template!("method.md", context)
}

/// The Environment section: a table of labels (their words from `templates/cells.md`) and the run's values.
fn environment(summary: &Summary) -> String {
    let e = &summary.environment;
    let label = |label: &str| cell(json!({ "cell": "environment-label", "label": label }));
    let unknown = |text: &str| cell(json!({ "cell": "unknown", "text": text }));
    let revision = |rev: &str, dirty: bool| cell(json!({ "cell": "revision", "rev": rev, "dirty": dirty }));
    let mut table = Table::new(&[("", Align::Left), ("", Align::Left)]);
    table.row(&[label("cpu"), unknown(&e.cpu_model)]);
    table.row(&[label("cores"), e.cores.to_string()]);
    table.row(&[label("memory"), cell(json!({ "cell": "memory", "gib": e.memory_gib.to_string() }))]);
    table.row(&[label("os"), unknown(&e.os)]);
    table.row(&[label("kernel"), unknown(&e.kernel)]);
    table.row(&[label("rustc"), unknown(&e.rustc)]);
    if !e.build_profile.is_empty() {
        table.row(&[label("build-profile"), e.build_profile.clone()]);
    }
    table.row(&[label("lab"), unknown(&summary.lab_version)]);
    table.row(&[label("code-ran"), revision(&summary.git_rev, summary.git_dirty)]);
    table.row(&[label("code-rendered"), revision(&summary.render_git_rev, summary.render_git_dirty)]);
    table.row(&[label("started"), unknown(&summary.started_utc)]);
    table.row(&[label("finished"), cell(json!({ "cell": "finished", "text": summary.finished_utc }))]);
    // A run that recorded its testbed lists these limits again, with where each came from, in the testbed table.
    if e.testbed.is_none() {
        for (name, value) in &e.limits {
            table.row(&[cell(json!({ "cell": "environment-label", "label": "limit", "name": name })), value.clone()]);
        }
    }
    let mut out = table.render();
    let testbed = testbed(e);
    if !testbed.is_empty() {
        out.push('\n');
        out.push_str(&testbed);
        out.push('\n');
    }
    if !e.crates.is_empty() {
        let crates = e.crates.iter().map(|(name, version)| [format!("`{name}`"), version.clone()]);
        out.push('\n');
        out.push_str(&table_of("crates", &[Align::Left; 2], crates));
    }
    out
}

/// A table of settings (label, value, where it came from) under the header words of table `id`.
fn settings_table<'s>(id: &str, settings: impl Iterator<Item = &'s Setting>) -> String {
    let rows =
        settings.map(|s| [cell(json!({ "cell": "setting-label", "name": s.name })), s.value.clone(), s.source.clone()]);
    table_of(id, &[Align::Left; 3], rows)
}

/// The testbed and its default limits, the runtimes inside each trial process, then the machine's floor the run
/// cites (or why none), rendered into `templates/testbed.md`; empty for a run that recorded none of them (every
/// run made before they were recorded).
fn testbed(e: &Environment) -> String {
    let floor = e.floor.as_ref();
    if e.testbed.is_none() && e.runtimes.is_empty() && floor.is_none() {
        return String::new();
    }
    let testbed = e.testbed.as_ref().map(|t| body(&settings_table("testbed", t.rows())));
    let runtimes = (!e.runtimes.is_empty()).then(|| body(&settings_table("runtimes", e.runtimes.iter())));
    let pin = e.pin.as_ref().map(|p| json!({ "cores": p.cores, "cpus": p.cpu_list() }));
    let floor = floor.map(crate::floor::cited_view);
    let context = json!({ "testbed": testbed, "runtimes": runtimes, "pin": pin, "floor": floor });
    body(&template!("testbed.md", context))
}

/// How many of the scenario's table metrics get the full `median (min–max)` cell; the rest are shown as
/// medians in a second table, so neither table is too wide to read.
const FULL_STAT_METRICS: usize = 3;

/// The Results section, rendered into `templates/results.md`: per phase, a table of every contestant's figures on
/// the first table metrics and its ratio to the reference on the headline, and the metrics some do not measure.
fn results(input: &ReportInput<'_>) -> String {
    let summary = input.summary;
    let (full, brief) = full_and_brief(input);
    let mut phases: Vec<Value> = Vec::new();
    for phase in summary.phase_keys() {
        let mut columns: Vec<(String, Align)> = columns("results", &[Align::Left; 2]);
        columns.extend(full.iter().map(|m| (format!("`{m}`"), Align::Right)));
        let headline_key = metric_key(phase, input.headline_metric);
        let threshold = summary.method.threshold(&headline_key);
        let reference = reference(summary, &headline_key, input.higher_is_better);
        let ratio_header = headers(json!({
            "table": "ratio",
            "reference": reference.as_ref().filter(|r| !r.is_baseline).map(|r| r.entry.contestant.name.as_str()),
            "higher_is_better": input.higher_is_better,
        }))
        .concat();
        columns.push((ratio_header, Align::Right));
        let mut table = Table::new(&columns);
        // metric -> contestants that do not measure it
        let mut missing: Vec<Missing> = Vec::new();
        let mut note_missing = |metric: &str, name: &str| match missing.iter_mut().find(|m| m.metric == metric) {
            Some(m) => m.names.push(name.to_string()),
            None => missing.push(Missing { metric: metric.to_string(), names: vec![name.to_string()] }),
        };
        for c in &summary.contestants {
            let family = match c.role {
                Role::Candidate => c.family.as_str().to_string(),
                role => cell(json!({ "cell": "role", "family": c.family.as_str(), "role": role.as_str() })),
            };
            let mut row = vec![format!("`{}`", c.name), family];
            if c.status != Status::Ok {
                row.push(status_cell(c));
                table.row(&row);
                continue;
            }
            if let Some(reason) = phase.and_then(|p| c.skipped_phases.get(p)) {
                row.push(cell(json!({ "cell": "skipped-here", "reason": reason })));
                table.row(&row);
                continue;
            }
            for metric in full {
                match c.metrics.get(&metric_key(phase, metric)) {
                    Some(s) => row.push(format!(
                        "{} ({}–{})",
                        format::number(s.median),
                        format::number(s.min),
                        format::number(s.max),
                    )),
                    None => {
                        row.push("—".to_string());
                        note_missing(metric, &c.name);
                    }
                }
            }
            let ratio = match (&reference, c.metrics.get(&headline_key)) {
                (Some(r), _) if r.entry.contestant.name == c.name => cell(json!({ "cell": "reference" })),
                (Some(r), Some(s)) => compare(s, r.entry.stats, threshold)
                    .map(|ratio| {
                        let interval = measure::stats::ratio_ci95(s, r.entry.stats)
                            .map(|(low, high)| json!({ "low": format::number(low), "high": format::number(high) }));
                        cell(json!({
                            "cell": "ratio",
                            "ratio": format::ratio(ratio.value),
                            "interval": interval,
                            "noise": ratio.why,
                        }))
                    })
                    .unwrap_or_else(|| "—".to_string()),
                _ => "—".to_string(),
            };
            row.push(ratio);
            table.row(&row);
            for metric in brief {
                if !c.metrics.contains_key(&metric_key(phase, metric)) {
                    note_missing(metric, &c.name);
                }
            }
        }
        phases.push(json!({
            "phase": phase,
            "table": table.render(),
            "outstanding": missing.iter().any(|m| m.metric.ends_with("max_outstanding")),
            "missing": missing,
        }));
    }
    let context = json!({ "metric": input.headline_metric, "scenario": summary.scenario, "phases": phases });
    template!("results.md", context)
}

/// A metric and the contestants that do not measure it.
#[derive(Debug, Serialize)]
struct Missing {
    /// The metric.
    metric: String,
    /// The contestants.
    names: Vec<String>,
}

/// Most columns a report's table has; a table with more metrics is split into several.
const MAX_COLUMNS: usize = 8;

/// One cell for a figure at every phase: the phases' values joined by ` / ` in phase order, or the one value when
/// every phase gave the same.
fn per_phase(values: &[String]) -> String {
    match values.first() {
        Some(first) if values.iter().all(|v| v == first) => first.clone(),
        _ => values.join(" / "),
    }
}

/// The medians of the metrics beyond the results table's (empty when there are none), one row per contestant and one cell per metric holding
/// every phase's median, in tables of at most [`MAX_COLUMNS`] columns.
fn other_metrics(summary: &Summary, metrics: &[&str]) -> String {
    let phase_list = summary.phase_keys();
    let mut out = String::new();
    for (i, chunk) in metrics.chunks(MAX_COLUMNS - 1).enumerate() {
        let mut columns: Vec<(String, Align)> = columns("other-metrics", &[Align::Left]);
        columns.extend(chunk.iter().map(|m| (format!("`{m}`"), Align::Right)));
        let mut table = Table::new(&columns);
        for c in summary.contestants.iter().filter(|c| c.status == Status::Ok) {
            let mut row = vec![format!("`{}`", c.name)];
            for metric in chunk {
                let values: Vec<String> = phase_list
                    .iter()
                    .map(|phase| {
                        c.metrics
                            .get(&metric_key(*phase, metric))
                            .map_or_else(|| "—".to_string(), |s| format::number(s.median))
                    })
                    .collect();
                row.push(per_phase(&values));
            }
            table.row(&row);
        }
        if i > 0 {
            out.push('\n');
        }
        out.push_str(&table.render());
    }
    out
}

/// The processes and iterations beyond Tukey's fences, such as `fork 2; 1 iteration severe`, or `none`.
fn outliers(stats: &measure::summary::MetricStats) -> String {
    let o = &stats.outliers;
    cell(json!({
        "cell": "outliers",
        "forks": o.processes,
        "mild": o.iterations_mild,
        "severe": o.iterations_severe,
    }))
}

fn spread(input: &ReportInput<'_>) -> String {
    let summary = input.summary;
    let metric = input.headline_metric;
    let named_phases = !summary.phases.is_empty();
    let phase_list = summary.phase_keys();
    let passed: Vec<&ContestantSummary> = summary.contestants.iter().filter(|c| c.status == Status::Ok).collect();
    let all_rows = passed
        .iter()
        .map(|c| phase_list.iter().filter(|p| c.metrics.contains_key(&metric_key(**p, metric))).count())
        .sum::<usize>();
    let render = |table: String, compact: bool, flagged: bool| {
        let context = json!({
            "metric": metric,
            "scenario": summary.scenario,
            "compact": compact,
            "phase_names": phase_names(summary),
            "table": table,
            "flagged": flagged,
            "noise_threshold": percent(summary.method.threshold(metric)),
            "quick": summary.method.quick,
            "guard": guard(summary),
        });
        template!("spread.md", context)
    };
    if all_rows == 0 {
        return render(String::new(), false, false);
    }
    // max / min of a metric's fork medians, marked when beyond the noise threshold; `None` without a spread.
    let threshold = summary.method.threshold(metric);
    let max_min = |stats: &measure::summary::MetricStats| -> Option<(String, bool)> {
        let max = stats.fork_medians.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let min = stats.fork_medians.iter().copied().fold(f64::INFINITY, f64::min);
        (!stats.fork_medians.is_empty() && min > 0.0).then(|| {
            let wide = max / min - 1.0 > threshold;
            (cell(json!({ "cell": "wide", "ratio": format::ratio(max / min), "wide": wide })), wide)
        })
    };
    let mut flagged = false;
    let compact = phase_list.len() > 1 && all_rows > MAX_FULL_ROWS;
    let mut out = String::new();
    if compact {
        let mut table = Table::new(&columns("spread-compact", &[Align::Left, Align::Right, Align::Left]));
        for c in &passed {
            let stats: Vec<Option<&measure::summary::MetricStats>> =
                phase_list.iter().map(|p| c.metrics.get(&metric_key(*p, metric))).collect();
            if stats.iter().all(Option::is_none) {
                continue;
            }
            let ratios: Vec<String> = stats
                .iter()
                .map(|s| match s.and_then(&max_min) {
                    Some((text, wide)) => {
                        flagged |= wide;
                        text
                    }
                    None => "—".to_string(),
                })
                .collect();
            let outliers: Vec<String> = stats.iter().map(|s| s.map_or_else(|| "—".to_string(), outliers)).collect();
            table.row(&[format!("`{}`", c.name), per_phase(&ratios), per_phase(&outliers)]);
        }
        out.push_str(&table.render());
    } else {
        let mut table = Table::new(&if named_phases {
            columns("spread-phases", &[Align::Left, Align::Left, Align::Right, Align::Right, Align::Left])
        } else {
            columns("spread", &[Align::Left, Align::Right, Align::Right, Align::Left])
        });
        for c in &passed {
            for phase in &phase_list {
                let Some(stats) = c.metrics.get(&metric_key(*phase, metric)) else { continue };
                let mut row = vec![format!("`{}`", c.name)];
                if let Some(phase) = phase {
                    row.push(format!("`{phase}`"));
                }
                if stats.fork_medians.is_empty() {
                    row.extend(["—".to_string(), "—".to_string(), "—".to_string()]);
                } else {
                    let medians: Vec<String> = stats.fork_medians.iter().map(|m| format::number(*m)).collect();
                    row.push(medians.join(" / "));
                    match max_min(stats) {
                        Some((text, wide)) => {
                            flagged |= wide;
                            row.push(text);
                        }
                        None => row.push("—".to_string()),
                    }
                    row.push(outliers(stats));
                }
                table.row(&row);
            }
        }
        out.push_str(&table.render());
    }
    render(out, compact, flagged)
}

/// The busy-machine guard's settings (whether any iteration was guarded, the share of a core other processes may
/// use, the slack for `/proc/stat` in ms, the re-runs of a disturbed iteration), and its count per contestant,
/// rendered, when it found any disturbed iteration.
fn guard(summary: &Summary) -> Value {
    let found: Vec<&ContestantSummary> = summary.contestants.iter().filter(|c| !c.disturbed.is_none()).collect();
    let table = (!found.is_empty()).then(|| {
        let rows = found.iter().map(|c| {
            let d = c.disturbed;
            [
                format!("`{}`", c.name),
                (d.disturbed_iterations - d.disturbed_kept).to_string(),
                d.disturbed_kept.to_string(),
            ]
        });
        table_of("guard", &[Align::Left, Align::Right, Align::Right], rows)
    });
    json!({
        "applicable": summary.contestants.iter().any(|c| c.disturbed.guarded_iterations != 0),
        "share": measure::busy::OTHERS_CORE_SHARE.to_string(),
        "slack_ms": measure::busy::TICK_SLACK.as_millis(),
        "max_reruns": measure::busy::MAX_RERUNS,
        "table": table,
    })
}

/// Most lines the correctness checks are listed in per contestant; a run with more gets one row per check.
const MAX_CHECK_LINES: usize = 40;

/// Most rows a spread or harness-cost table lists in full; a larger one lists the rows beyond the noise and sums
/// up the rest.
const MAX_FULL_ROWS: usize = 24;

/// A check as the template reads it: the contestant, the check, `passed`, `failed` or `not applicable`, and what
/// it verified, or why it failed or did not apply.
fn check_line(c: &ContestantSummary, k: &measure::summary::Check) -> Value {
    json!({ "contestant": c.name, "check": k.name, "outcome": k.outcome(), "detail": k.detail })
}

/// The correctness checks, rendered into `templates/checks.md`: per contestant, or one row per check in a run
/// with more than [`MAX_CHECK_LINES`].
fn checks(summary: &Summary) -> String {
    let lines: usize = summary.contestants.iter().map(|c| c.checks.len().max(1)).sum();
    let by_check = (lines > MAX_CHECK_LINES).then(|| checks_by_check(summary));
    let contestants: Vec<Value> = summary
        .contestants
        .iter()
        .map(|c| {
            let checks: Vec<Value> = c.checks.iter().map(|k| check_line(c, k)).collect();
            json!({ "name": c.name, "status": c.status.as_str(), "checks": checks })
        })
        .collect();
    let context = json!({
        "scenario": summary.scenario,
        "by_check": by_check,
        "contestants": contestants,
    });
    template!("checks.md", context)
}

/// The checks of a run with many contestants: one row per check (how many contestants passed it, which it did
/// not apply to and which failed it, and what it verified in the words of the first that passed), then every
/// failure and every check that did not apply, in full. Each contestant's own figures stay in the summary JSON.
fn checks_by_check(summary: &Summary) -> Value {
    let mut names: Vec<&str> = Vec::new();
    for check in summary.contestants.iter().flat_map(|c| &c.checks) {
        if !names.contains(&check.name.as_str()) {
            names.push(&check.name);
        }
    }
    let mut table = Table::new(&columns("checks", &[Align::Left, Align::Right, Align::Left, Align::Left, Align::Left]));
    let list = |names: &[&str]| {
        if names.is_empty() {
            "—".to_string()
        } else {
            names.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", ")
        }
    };
    let mut exceptions: Vec<Value> = Vec::new();
    for name in &names {
        let of: Vec<(&ContestantSummary, &measure::summary::Check)> = summary
            .contestants
            .iter()
            .flat_map(|c| c.checks.iter().filter(|k| k.name == *name).map(move |k| (c, k)))
            .collect();
        let with = |outcome: &str| -> Vec<&str> {
            of.iter().filter(|(_, k)| k.outcome() == outcome).map(|(c, _)| c.name.as_str()).collect()
        };
        let example = of
            .iter()
            .find(|(_, k)| k.passed)
            .map_or_else(|| "—".to_string(), |(c, k)| format!("`{}`: {}", c.name, k.detail));
        table.row(&[
            format!("`{name}`"),
            with("passed").len().to_string(),
            list(&with("not applicable")),
            list(&with("failed")),
            example,
        ]);
        exceptions.extend(of.iter().filter(|(_, k)| !k.passed).map(|(c, k)| check_line(c, k)));
    }
    let none: Vec<&str> = summary.contestants.iter().filter(|c| c.checks.is_empty()).map(|c| c.name.as_str()).collect();
    json!({
        "contestants": summary.contestants.len(),
        "checks": names.len(),
        "table": table.render(),
        "none": none,
        "exceptions": exceptions,
    })
}

/// A published figure as the study gave it: whole numbers with thousands separators, others with every digit.
fn published(value: f64) -> String {
    if value.fract() == 0.0 {
        measure::units::count(value)
    } else {
        value.to_string()
    }
}

/// Every published ratio of this scenario that this run has a ratio for, and how they relate: the study, what it
/// measured, its phase, its baseline subject and its ratio to it, this run's lowest and (when it differs) highest
/// ratio over what stood for the baseline here, the agreement (`agree`, `same-direction`, `no-gap-here`,
/// `gap-here`, `opposite`, `mixed`) and, where they do not agree, the cause. Rows without a ratio here (a
/// baseline, nothing that ran) stay in the details' table only.
fn published_against(summary: &Summary) -> Vec<Value> {
    measure::references::compare(summary)
        .into_iter()
        .filter_map(|row| {
            let (agreement, study, (lo, hi)) = (row.agreement?, row.study_ratio?, row.here_ratio?);
            let (low, high) = (format::ratio(lo), format::ratio(hi));
            let agree = agreement == measure::references::Agreement::Agree;
            Some(json!({
                "study": row.figure.study,
                "subject": row.figure.subject,
                "phase": row.figure.phase.as_deref().map(phase_words),
                "baseline": row.figure.baseline.clone().unwrap_or_default(),
                "study_ratio": format::ratio(study),
                "high": (high != low).then_some(high),
                "low": low,
                "agreement": agreement,
                "cause": if agree { "" } else { &row.figure.cause },
            }))
        })
        .collect()
}

/// The published figures of this scenario set beside this run as ratios to each side's own baseline (the table,
/// rendered), what stands for each subject here and why, and each `subject: source` once, sorted; `None` when the
/// scenario has none.
fn published_reference(summary: &Summary) -> Option<Value> {
    let rows = measure::references::compare(summary);
    if rows.is_empty() {
        return None;
    }
    let mut table = Table::new(&columns(
        "references",
        &[Align::Left, Align::Left, Align::Right, Align::Left, Align::Right, Align::Left, Align::Right],
    ));
    for row in &rows {
        let f = row.figure;
        let here = if row.here.values.is_empty() {
            cell(json!({ "cell": "did-not-run" }))
        } else {
            let values: Vec<String> =
                row.here.values.iter().map(|(who, v)| format!("{who} {}", format::number(*v))).collect();
            values.join(", ")
        };
        let study_ratio = cell(match (row.study_ratio, &f.baseline) {
            (Some(r), Some(b)) => {
                json!({ "cell": "study-ratio", "ratio": format::ratio(r), "baseline": b })
            }
            _ => json!({ "cell": "study-ratio", "baseline": null }),
        });
        let (low, high) = match row.here_ratio {
            Some((lo, hi)) if format::ratio(lo) == format::ratio(hi) => (Some(format::ratio(lo)), None),
            Some((lo, hi)) => (Some(format::ratio(lo)), Some(format::ratio(hi))),
            None => (None, None),
        };
        let here_ratio = cell(json!({
            "cell": "here-ratio",
            "low": low,
            "high": high,
            "baseline": f.baseline.is_none(),
        }));
        table.row(&[
            f.study.clone(),
            cell(json!({ "cell": "reference-subject", "subject": f.subject, "phase": f.phase })),
            format!("{} {}", published(f.value), f.unit),
            f.hardware.clone(),
            study_ratio,
            here,
            here_ratio,
        ]);
    }
    let sources: Vec<String> = rows
        .iter()
        .map(|r| format!("{}: {}", r.figure.subject, r.figure.source))
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    let why: Vec<Value> = rows
        .iter()
        .filter(|r| !r.figure.why.is_empty())
        .map(|r| json!({ "subject": r.figure.subject, "why": r.figure.why }))
        .collect();
    Some(json!({ "table": table.render(), "why": why, "sources": sources }))
}

/// The harness cost: what the instruments cost, then the scenario's own notes, rendered into
/// `templates/harness.md`.
fn harness(input: &ReportInput<'_>) -> String {
    let context = json!({
        "metric": input.headline_metric,
        "scenario": input.summary.scenario,
        "phase_names": phase_names(input.summary),
        "cost": instruments_cost(input),
        "notes": input.harness_notes,
    });
    template!("harness.md", context)
}

/// Per contestant (and phase), the headline metric of the timed iterations beside the same metric of the
/// accounting iterations (every instrument on): what the instruments would have added to the figures had they
/// run in the timed iterations. `None` where no contestant has both.
fn instruments_cost(input: &ReportInput<'_>) -> Option<Value> {
    let metric = input.headline_metric;
    let instrumented = format!("{}{metric}", measure::harness::INSTRUMENTED_PREFIX);
    let phase_list = input.summary.phase_keys();
    fn pair<'a>(
        c: &'a ContestantSummary,
        phase: Option<&str>,
        metric: &str,
        instrumented: &str,
    ) -> Option<(&'a measure::summary::MetricStats, &'a measure::summary::MetricStats)> {
        Some((c.metrics.get(&metric_key(phase, metric))?, c.metrics.get(&metric_key(phase, instrumented))?))
    }
    let pair = |c, phase| pair(c, phase, metric, &instrumented);
    let ratio = |timed: &measure::summary::MetricStats, counted: &measure::summary::MetricStats| {
        if timed.median != 0.0 {
            format::ratio(counted.median / timed.median)
        } else {
            "—".to_string()
        }
    };
    let rows: usize =
        input.summary.contestants.iter().map(|c| phase_list.iter().filter(|p| pair(c, **p).is_some()).count()).sum();
    if rows == 0 {
        return None;
    }
    let compact = phase_list.len() > 1 && rows > MAX_FULL_ROWS;
    let table = if compact {
        let mut table = Table::new(&columns("harness-compact", &[Align::Left, Align::Right]));
        for c in &input.summary.contestants {
            let ratios: Vec<String> =
                phase_list.iter().map(|p| pair(c, *p).map_or_else(|| "—".to_string(), |(t, a)| ratio(t, a))).collect();
            if ratios.iter().all(|r| r == "—") {
                continue;
            }
            table.row(&[format!("`{}`", c.name), per_phase(&ratios)]);
        }
        table.render()
    } else {
        let mut table =
            Table::new(&columns("harness", &[Align::Left, Align::Left, Align::Right, Align::Right, Align::Right]));
        for c in &input.summary.contestants {
            for phase in &phase_list {
                let Some((timed, counted)) = pair(c, *phase) else { continue };
                table.row(&[
                    format!("`{}`", c.name),
                    phase.map_or_else(|| "—".to_string(), |p| format!("`{p}`")),
                    format::number(timed.median),
                    format::number(counted.median),
                    ratio(timed, counted),
                ]);
            }
        }
        table.render()
    };
    Some(json!({ "compact": compact, "instrumented": instrumented, "table": table }))
}
