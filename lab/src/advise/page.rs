//! The advice as files: `advice.md` (the recommendation per scenario, its evidence, what would change it, the
//! checks and the commands that reproduce every figure), `advice.json`, and the text the terminal shows. Pure:
//! the same header and summaries give the same bytes, so `lab report` re-renders a run's advice exactly.

use std::fmt::Write as _;

use measure::summary::Summary;
use render::RenderedFile;
use serde::Serialize;

use super::shape::trim;
use super::verdict::{advise, num, RunAdvice};
use super::AdviceHeader;

/// The advice's files and its terminal text.
#[derive(Debug, Clone)]
pub(crate) struct AdviceFiles {
    /// `advice.md` and `advice.json`.
    pub files: Vec<RenderedFile>,
    /// What the terminal shows: the recommendation of each scenario.
    pub terminal: String,
}

/// `advice.json`.
#[derive(Debug, Serialize)]
struct AdviceJson<'a> {
    shape: &'a super::Shape,
    cpus: &'a [usize],
    forks: u32,
    budget_s: f64,
    calibration: &'a super::Calibration,
    checks: Vec<measure::summary::Check>,
    /// The revision the advice's figures were measured at: its scenario runs', which one process ran.
    git_rev: &'a str,
    /// Whether that build had uncommitted changes (in any of its runs).
    git_dirty: bool,
    /// The revision that rendered the advice, as in each scenario's summary.
    render_git_rev: &'a str,
    /// Whether that build had uncommitted changes.
    render_git_dirty: bool,
    started_utc: &'a str,
    finished_utc: &'a str,
    command: String,
    report_command: String,
    scenarios: &'a [RunAdvice],
    predictions: &'a [super::predict::Predicted],
}

/// The shape as `flag value unit` rows.
fn shape_rows(header: &AdviceHeader) -> Vec<(String, String)> {
    let s = &header.request.shape;
    let mut rows = vec![("CPU work per item".to_string(), format!("{} µs", trim(s.cpu_us_per_item)))];
    match s.items_per_second {
        Some(rate) => rows.push(("items per second".to_string(), format!("{rate} (one second's worth run)"))),
        None => rows.push(("items in all".to_string(), s.items.to_string())),
    }
    rows.push(("I/O calls per item".to_string(), s.io_calls_per_item.to_string()));
    if s.io_calls_per_item > 0 {
        rows.push(("I/O latency".to_string(), format!("{} ms", s.io_latency_ms)));
        rows.push(("calls in flight".to_string(), s.in_flight.to_string()));
    }
    rows.push(("order kept".to_string(), if s.ordered { "yes" } else { "no" }.to_string()));
    rows.push((
        "dependency loses capacity".to_string(),
        if s.loses_capacity {
            format!("yes, {} → {} slots", s.in_flight, s.capacity_after)
        } else {
            "no".to_string()
        },
    ));
    rows.push(("batchable".to_string(), if s.batchable { "yes" } else { "no" }.to_string()));
    rows.push((
        "cores".to_string(),
        format!("{} (trials pinned to CPU {})", s.cores, crate::term::comma_list(&header.request.cpus)),
    ));
    rows
}

/// The reproducing command of a scenario run, pinned like the advice run was.
fn pinned(header: &AdviceHeader, command: &str) -> String {
    format!("taskset -c {} {command}", crate::term::comma_list(&header.request.cpus))
}

/// The cost model's ranking of each run, predicted before it ran ([`super::predict`]), beside what the run
/// measured, and where the two orders disagree.
fn predicted_section(md: &mut String, header: &AdviceHeader, advices: &[RunAdvice]) {
    if header.request.predictions.is_empty() {
        return;
    }
    let _ = writeln!(
        md,
        "## Predicted before running
"
    );
    let _ = writeln!(
        md,
        "Before any run, the cost model priced each candidate's counts per item (hand-offs, context switches, \
         allocations) from the sitting's run of the same scenario at the same core count with this machine's floor, \
         plus the work of one item: a prediction, labelled as one, set here beside what the run then measured.\n"
    );
    for (predicted, advice) in header.request.predictions.iter().zip(advices) {
        if let Some(why) = &predicted.none {
            let _ = writeln!(md, "- {}: no prediction ({why}).", predicted.scenario);
            continue;
        }
        let measured: Vec<(String, f64)> = if advice.metric == "ms_per_million" {
            advice.rows.iter().filter_map(|r| Some((r.name.clone(), r.median?))).collect()
        } else {
            Vec::new()
        };
        let phase = predicted.phase.as_deref().map(|p| format!(" at `{p}`")).unwrap_or_default();
        let _ = writeln!(
            md,
            "### {}: counts from `{}`{phase}, priced by `{}`\n",
            predicted.scenario, predicted.counts_from, predicted.floor
        );
        let _ = writeln!(md, "| Contestant | Predicted ns per item | Measured ns per item |\n|---|---:|---:|");
        for (name, ns) in &predicted.rows {
            let got = measured.iter().find(|(m, _)| m == name).map(|(_, v)| *v);
            let _ = writeln!(md, "| `{name}` | {} | {} |", num(Some(*ns)), num(got));
        }
        let wrong = super::predict::disagreements(predicted, &measured);
        if measured.is_empty() {
            let _ = writeln!(
                md,
                "\nThis run measured no candidate on ns per item, so the orders cannot be set side by side.\n"
            );
        } else if wrong.is_empty() {
            let _ = writeln!(md, "\nThe measured order is the predicted one.\n");
        } else {
            let places: Vec<String> =
                wrong.iter().map(|(name, p, m)| format!("`{name}` predicted {p}, measured {m}")).collect();
            let _ = writeln!(md, "\nWhere the orders disagree (1 the fastest): {}.\n", places.join("; "));
        }
    }
}

/// Render the advice of `header`'s runs from their summaries (in the header's order).
pub(crate) fn render(header: &AdviceHeader, summaries: &[Summary]) -> AdviceFiles {
    let advices: Vec<RunAdvice> = header
        .request
        .runs
        .iter()
        .zip(summaries)
        .map(|(run, summary)| advise(run, summary, &format!("{}.md", run.scenario)))
        .collect();
    let report_command = format!("just lab report {} --out <this folder>", header.header_file);
    let mut md = String::new();
    let mut term = String::new();
    let _ = writeln!(md, "# Advice for your shape: {}\n", header.request.shape.slug());
    let _ = writeln!(
        md,
        "`lab advise` ran the candidates of the scenarios your shape needs, at your parameters, {} fresh processes \
         per contestant and phase, and judged each comparison on process medians by the lab's one judge. Every \
         sentence below follows from a verdict of this run; the scenario reports beside this file give every \
         figure.\n",
        header.request.forks
    );
    let _ = writeln!(md, "| Your shape | Value |\n|---|---|");
    for (k, v) in shape_rows(header) {
        let _ = writeln!(md, "| {k} | {v} |");
    }
    let _ = writeln!(md, "\nRun from {} to {}.\n", header.started_utc, header.finished_utc);

    let _ = writeln!(md, "## Recommendation\n");
    for advice in &advices {
        let _ = writeln!(md, "### {} — {}\n", advice.scenario, advice.why);
        let _ = writeln!(term, "\n{} — {}", advice.scenario, advice.why);
        let change = advice.change.iter().map(|change| format!("What would change the answer: {change}"));
        for s in advice.sentences.iter().cloned().chain(change) {
            let _ = writeln!(md, "- {s}");
            let _ = writeln!(term, "  - {s}");
        }
        if advice.change.is_none() {
            let _ = writeln!(md, "- What would change the answer: this run swept no parameter, so it cannot say.");
        }
        let _ = writeln!(term, "  - Reproduce: {}", pinned(header, &advice.command));
        md.push('\n');
    }

    let _ = writeln!(md, "## Evidence\n");
    for advice in &advices {
        let phase = advice.phase.as_deref().map(|p| format!(" at {p}")).unwrap_or_default();
        let better = if advice.higher_is_better { "higher is better" } else { "lower is better" };
        let cpu = advice.rows.iter().any(|r| r.cpu_median.is_some());
        let _ = writeln!(md, "### {}{phase}: `{}` ({better})\n", advice.scenario, advice.metric);
        let _ = write!(md, "| Contestant | Family | Row | Median | Process medians |");
        if cpu {
            let cpu_metric = advice.cpu_metric.as_deref().unwrap_or("CPU");
            let _ = write!(md, " `{cpu_metric}` (median) |");
        }
        let _ = writeln!(md, "\n|---|---|---|---:|---|{}", if cpu { "---:|" } else { "" });
        for row in &advice.rows {
            let medians = if let Some(problem) = &row.problem {
                problem.clone()
            } else {
                row.process_medians.iter().map(|v| num(Some(*v))).collect::<Vec<_>>().join(", ")
            };
            let _ = write!(
                md,
                "| `{}` | {} | {} | {} | {} |",
                row.name,
                row.family.as_str(),
                row.label,
                num(row.median),
                medians
            );
            if cpu {
                let _ = write!(md, " {} |", num(row.cpu_median));
            }
            md.push('\n');
        }
        md.push('\n');
        let verdicts =
            advice.families.iter().chain(&advice.cpu).chain(advice.mistake.iter()).chain(advice.keeps_up.iter());
        for judged in verdicts {
            let p = match judged.claim.verdict {
                measure::summary::Verdict::Inconclusive => String::new(),
                _ => judged.p.map(|p| format!(", p = {p:.4}")).unwrap_or_default(),
            };
            let _ = writeln!(
                md,
                "- {} — **{}**{p}: {}",
                judged.claim.text,
                judged.claim.verdict.as_str(),
                judged.claim.detail
            );
        }
        if let Some(scenario) = crate::registry::find(&advice.scenario) {
            if let Some(chart) = scenario.charts().first() {
                let _ = writeln!(md, "\n![{}]({})", chart.title, render::chart_path(&advice.scenario, chart));
            }
        }
        let _ = writeln!(md, "\nThe full report: [{}]({}).\n", advice.report, advice.report);
    }

    predicted_section(&mut md, header, &advices);

    let checks = vec![header.request.calibration.check()];
    let _ = writeln!(md, "## Checks\n");
    for check in &checks {
        let _ = writeln!(md, "- `{}`: **{}** — {}", check.name, check.outcome(), check.detail);
        let _ = writeln!(term, "\ncheck {}: {} — {}", check.name, check.outcome(), check.detail);
    }

    let command = header.request.command();
    let _ = writeln!(md, "\n## Reproduce\n");
    let _ = writeln!(md, "- This advice, run again: `{command}`");
    let _ = writeln!(md, "- This advice, re-rendered from its raw records: `{report_command}`");
    for advice in &advices {
        let _ = writeln!(md, "- {}'s figures: `{}`", advice.scenario, pinned(header, &advice.command));
    }
    let _ = writeln!(
        md,
        "\n`taskset` pins the scenario run to the CPUs this advice ran on, as `lab advise --cores` pins its trial \
         processes with `sched_setaffinity`."
    );

    let json = AdviceJson {
        shape: &header.request.shape,
        cpus: &header.request.cpus,
        forks: header.request.forks,
        budget_s: header.request.budget_s,
        calibration: &header.request.calibration,
        checks,
        git_rev: summaries.first().map_or("unknown", |s| s.git_rev.as_str()),
        git_dirty: summaries.iter().any(|s| s.git_dirty),
        render_git_rev: summaries.first().map_or("unknown", |s| s.render_git_rev.as_str()),
        render_git_dirty: summaries.iter().any(|s| s.render_git_dirty),
        started_utc: &header.started_utc,
        finished_utc: &header.finished_utc,
        command,
        report_command,
        scenarios: &advices,
        predictions: &header.request.predictions,
    };
    let json = serde_json::to_string_pretty(&json).unwrap_or_else(|e| format!("{{\"error\": \"{e}\"}}"));
    AdviceFiles {
        files: vec![
            RenderedFile { path: "advice.md".to_string(), contents: md },
            RenderedFile { path: "advice.json".to_string(), contents: format!("{json}\n") },
        ],
        terminal: term,
    }
}
