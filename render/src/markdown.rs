//! The report a person reads (`<scenario>.md`): it opens with its answer (what to use when, with the numbers,
//! computed from the run's comparisons and verdicts), then the question, results, charts, claims and
//! discussion; the long parts (every ratio, contestants, parameters, method, environment, spread, checks,
//! published figures, harness cost) sit in collapsible `<details>` sections at the end, before how to
//! reproduce it.

use std::fmt::Write as _;

use measure::record::Status;
use measure::summary::{ContestantSummary, Role, Summary, Verdict};

use crate::analysis::{self, compare, metric_key, phase_words, phases, reference};
use crate::answer::PhaseAnswer;
use crate::format::{self, percent};
use crate::table::{Align, Table};
use crate::ReportInput;

/// Render the markdown report. Pure: the same input gives the same bytes.
pub fn render_markdown(input: &ReportInput<'_>) -> String {
    let summary = input.summary;
    let mut out = String::new();
    out.push_str(&format!("# {}\n\n", input.title));
    out.push_str(&format!("**Status:** {}\n\n", analysis::status_line(summary)));
    section(&mut out, "Answer", &answer(input));
    section(&mut out, "Question", input.question.trim_end());
    section(&mut out, "Results", &results(input));
    section(&mut out, "Charts", &charts(input));
    section(&mut out, "Claims", &claims(summary));
    let discussion = input.discussion.trim();
    section(
        &mut out,
        "What the numbers mean",
        if discussion.is_empty() { "_No discussion given._" } else { discussion },
    );
    section(&mut out, "Details", &details_pointer(input));
    section(&mut out, "Reproduce", &reproduce(summary));
    // Exactly one trailing newline.
    let trimmed = out.trim_end().len();
    out.truncate(trimmed);
    out.push('\n');
    out
}

/// The appendix a reader consults rather than reads (`<scenario>-details.md`): every ratio against the baseline,
/// the medians of the metrics beyond the results table, the contestants, parameters, method, environment, spread
/// across processes, every correctness check, the published reference and the harness cost. Kept out of the
/// report so that the report stays one a person reads to the end. Pure: the same input gives the same bytes.
pub fn render_details(input: &ReportInput<'_>) -> String {
    let summary = input.summary;
    let mut out = String::new();
    out.push_str(&format!(
        "# {}: details

",
        input.title
    ));
    out.push_str(&format!(
        "The appendix of [`{0}.md`]({0}.md): the figures and records behind it, from the same run.\n\n",
        summary.scenario
    ));
    section(&mut out, "Every ratio against the baseline", &headline(input));
    let other = other_metrics_section(input);
    if !other.is_empty() {
        section(&mut out, "Medians of the other metrics", &other);
    }
    section(&mut out, "Contestants", &contestants(summary));
    section(&mut out, "Parameters", &parameters(summary));
    section(&mut out, "Method", &method(summary));
    section(&mut out, "Environment", &environment(summary));
    section(&mut out, "Spread across processes", &spread(input));
    section(&mut out, "Correctness checks, per contestant", &checks(summary));
    let references = published_reference(summary);
    if !references.is_empty() {
        section(&mut out, "Published reference", &references);
    }
    section(&mut out, "Harness cost", &harness(input));
    let trimmed = out.trim_end().len();
    out.truncate(trimmed);
    out.push('\n');
    out
}

/// The report's pointer to its appendix, with the parts a reader checks before trusting a figure (the method and
/// the environment) kept in the report itself.
fn details_pointer(input: &ReportInput<'_>) -> String {
    let summary = input.summary;
    let mut out = format!(
        "Every ratio against the baseline, the medians of the other metrics, the contestants' descriptions, the \
         parameters, the spread across processes, every correctness check, the published reference and the \
         harness cost are in [`{0}-details.md`]({0}-details.md).\n\n",
        summary.scenario
    );
    collapsible(&mut out, "Method", &method(summary));
    collapsible(&mut out, "Environment", &environment(summary));
    out
}

/// The medians of the metrics beyond the results table's, for the appendix; empty when there are none.
fn other_metrics_section(input: &ReportInput<'_>) -> String {
    let (_, brief) = input.table_metrics.split_at(FULL_STAT_METRICS.min(input.table_metrics.len()));
    if brief.is_empty() {
        return String::new();
    }
    other_metrics(input.summary, brief)
}

/// Append `## title`, the body, and a blank line.
fn section(out: &mut String, title: &str, body: &str) {
    out.push_str(&format!("## {title}\n\n{}\n\n", body.trim_end()));
}

/// Append a collapsible `<details>` block titled `title`, its markdown body set off by blank lines so that
/// renderers (GitHub's among them) read it as markdown.
fn collapsible(out: &mut String, title: &str, body: &str) {
    let _ = write!(out, "<details>\n<summary>{title}</summary>\n\n{}\n\n</details>\n\n", body.trim_end());
}

/// `capacity 256: ` or empty without phases.
fn phase_label(phase: Option<&str>) -> String {
    phase.map(|p| format!("{}: ", phase_words(p))).unwrap_or_default()
}

/// `at capacity 256` or empty without phases.
fn at_phase(phase: Option<&str>) -> String {
    phase.map(|p| format!(" at {}", phase_words(p))).unwrap_or_default()
}

/// The pick of one phase in words: `` `x` (stream) `` or `` any of `x` (stream), `y` (blocking) ``.
fn pick_words(answer: &PhaseAnswer<'_>) -> String {
    let mut names: Vec<String> = answer
        .picks
        .iter()
        .take(MAX_NAMED_PICKS)
        .map(|e| format!("`{}` ({})", e.contestant.name, e.contestant.family.as_str()))
        .collect();
    if answer.picks.len() > MAX_NAMED_PICKS {
        names.push(format!("{} more in the results", answer.picks.len() - MAX_NAMED_PICKS));
    }
    if names.len() == 1 {
        names.join("")
    } else {
        format!("any of {}", names.join(", "))
    }
}

/// The most tied candidates the answer names, best first; the rest are counted.
const MAX_NAMED_PICKS: usize = 6;

/// A pathology or trap in the answer: its name, its role, and per phase its factor against the pick with
/// whether that is beyond noise.
type AvoidRow = (String, String, Vec<(f64, bool)>);

/// The opening answer, computed from this run alone (see [`crate::answer`]): what to use (the best candidate
/// per phase, with every candidate within noise of it), which of the reader's choices change the result beyond
/// noise, the trade-offs the pick makes, what the pathologies and traps cost, the cost over the floor, a
/// warning when no comparison is beyond noise, the claims' tally, then the scenario's own findings.
fn answer(input: &ReportInput<'_>) -> String {
    let summary = input.summary;
    let metric = input.headline_metric;
    let threshold = summary.method.noise_threshold;
    let answers = crate::answer::phase_answers(summary, metric, input.higher_is_better, &input.trade_off_metrics);
    if answers.is_empty() {
        return format!(
            "_No candidate (a contestant a user could adopt) passed and measured `{metric}`: nothing to recommend._"
        );
    }
    let best_word = if input.higher_is_better { "highest" } else { "lowest" };
    let mut lines: Vec<String> = Vec::new();
    // Group phases by the same pick (the same set of names), in order of first appearance.
    let mut groups: Vec<(String, Vec<&PhaseAnswer<'_>>)> = Vec::new();
    for a in &answers {
        let words = pick_words(a);
        match groups.iter_mut().find(|(w, _)| *w == words) {
            Some((_, phases)) => phases.push(a),
            None => groups.push((words, vec![a])),
        }
    }
    let values = |phases: &[&PhaseAnswer<'_>]| {
        phases
            .iter()
            .map(|a| format!("{}{}", phase_label(a.phase), format::number(a.pick().stats.median)))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let tie_note =
        "within noise of each other: their process-median ranges overlap or differ by less than the noise threshold";
    if let [(words, phases)] = groups.as_slice() {
        let where_ = if answers.len() > 1 { " at every level of the sweep" } else { "" };
        let tie = if phases[0].is_tie() { format!(", {tie_note}") } else { String::new() };
        lines.push(format!(
            "**Use {words}**: the {best_word} `{metric}` among the candidates{where_} ({}){tie}.",
            values(phases)
        ));
    } else {
        let each: Vec<String> = groups.iter().map(|(words, phases)| format!("{words} ({})", values(phases))).collect();
        let tie =
            if answers.iter().any(PhaseAnswer::is_tie) { format!(" (\"any of\": {tie_note})") } else { String::new() };
        lines.push(format!(
            "**What to use depends on the level**: the {best_word} `{metric}` among the candidates comes from {}{tie}.",
            each.join("; ")
        ));
    }
    // Which choices matter.
    let findings = crate::answer::dimension_findings(summary, metric, input.higher_is_better, &input.dimensions);
    let (mut compared, mut clear) = (0usize, 0usize);
    for finding in &findings {
        compared += finding.comparisons;
        clear += finding.beyond_noise;
        if let Some((phase, winner, winner_level, loser, loser_level, factor)) = &finding.largest {
            let word = if input.higher_is_better { "higher" } else { "lower" };
            lines.push(format!(
                "**The {} matters**: {} of {} comparisons of its choices, everything else equal, are beyond noise; \
                 the largest{}: `{winner}` ({winner_level}) has {} {word} `{metric}` than `{loser}` ({loser_level}).",
                finding.name,
                finding.beyond_noise,
                finding.comparisons,
                at_phase(phase.as_deref()),
                format::ratio(*factor),
            ));
        } else if finding.undecidable > 0 {
            lines.push(format!(
                "**Whether the {} changes the result is not told by this run**: {} of its {} comparisons, everything \
                 else equal, have a side measured in fewer than {} processes.",
                finding.name,
                finding.undecidable,
                finding.comparisons,
                measure::stats::MIN_PROCESSES
            ));
        } else {
            lines.push(format!(
                "**The {} does not change the result**: every one of its {} comparisons, everything else equal, is \
                 within noise.",
                finding.name, finding.comparisons
            ));
        }
    }
    // Trade-offs of the pick.
    for a in &answers {
        for (other_metric, who, theirs, pick) in &a.trade_offs {
            lines.push(format!(
                "**Trade-off**{}: on `{other_metric}`, `{}` ({}) beats the pick beyond noise: {} against {} for `{}`.",
                at_phase(a.phase),
                who.name,
                who.family.as_str(),
                format::number(*theirs),
                format::number(*pick),
                a.pick().contestant.name
            ));
        }
    }
    // What to avoid: pathologies and traps, their factor against the pick (its range over phases).
    let mut avoid: Vec<AvoidRow> = Vec::new();
    for a in &answers {
        for (entry, ratio, beyond) in &a.avoid {
            let factor = if input.higher_is_better { 1.0 / ratio } else { *ratio };
            match avoid.iter_mut().find(|(n, _, _)| *n == entry.contestant.name) {
                Some((_, _, factors)) => factors.push((factor, *beyond)),
                None => avoid.push((
                    entry.contestant.name.clone(),
                    entry.contestant.role.as_str().to_string(),
                    vec![(factor, *beyond)],
                )),
            }
        }
    }
    if !avoid.is_empty() {
        let each: Vec<String> = avoid
            .iter()
            .map(|(name, role, factors)| {
                let low = factors.iter().map(|f| f.0).fold(f64::INFINITY, f64::min);
                let high = factors.iter().map(|f| f.0).fold(f64::NEG_INFINITY, f64::max);
                let range = if (high - low).abs() <= low.abs() * 1e-9 {
                    format::ratio(low)
                } else {
                    format!("{}–{}", format::ratio(low), format::ratio(high))
                };
                let noise = if factors.iter().all(|f| !f.1) { " (within noise)" } else { "" };
                format!("`{name}` ({role}) {range} the pick's cost{noise}")
            })
            .collect();
        lines.push(format!(
            "**Shown as what it costs, never picked**: {} (as a multiple of the pick's `{metric}`{}).",
            each.join("; "),
            if input.higher_is_better { ", inverted so that above 1 is worse" } else { "" }
        ));
    }
    let floors: Vec<String> = answers
        .iter()
        .filter_map(|a| {
            let (floor, ratio, beyond) = a.floor?;
            compared += 1;
            clear += usize::from(beyond);
            let noise = if beyond { "" } else { " (noise)" };
            Some(format!("{}{} `{}`{noise}", phase_label(a.phase), format::ratio(ratio), floor.contestant.name))
        })
        .collect();
    if !floors.is_empty() {
        lines.push(format!(
            "**Cost over the floor**, the pick's `{metric}` as a multiple of the baseline's: {}.",
            floors.join(", ")
        ));
    }
    if compared > 0 && clear == 0 {
        let forks = summary.method.forks;
        let why = if (forks as usize) < measure::stats::MIN_PROCESSES {
            format!(
                "with {forks} process{} per contestant no difference is told from noise",
                if forks == 1 { "" } else { "es" }
            )
        } else {
            format!(
                "the process-median ranges overlap or differ by less than {} ({forks} processes each); see _Spread \
                 across processes_ under Details",
                percent(threshold)
            )
        };
        lines.push(format!("⚠️ **None of these {compared} comparisons is beyond noise**: {why}."));
    }
    if !summary.claims.is_empty() {
        let count = |v: Verdict| summary.claims.iter().filter(|c| c.verdict == v).count();
        lines.push(format!(
            "**Claims**: {} hold, {} fail, {} inconclusive (see [Claims](#claims)).",
            count(Verdict::Holds),
            count(Verdict::Fails),
            count(Verdict::Inconclusive)
        ));
    }
    lines.extend(input.headline_notes.iter().cloned());
    let mut out = String::new();
    for line in lines {
        let _ = writeln!(out, "- {line}");
    }
    out
}

fn headline(input: &ReportInput<'_>) -> String {
    let findings = analysis::headline_findings(input);
    let direction = if input.higher_is_better { "higher is better" } else { "lower is better" };
    let mut out = format!(
        "On `{}` ({direction}), among candidates; a ratio is marked (noise) when the process-median ranges overlap \
         or it is within {} of 1.\n\n",
        input.headline_metric,
        percent(input.summary.method.noise_threshold),
    );
    if findings.is_empty() {
        out.push_str("_No results to compare._\n");
    }
    for finding in findings {
        out.push_str(&format!("- {finding}\n"));
    }
    out
}

fn contestants(summary: &Summary) -> String {
    if summary.contestants.is_empty() {
        return "_No contestants were selected._".to_string();
    }
    let mut table = Table::new(&[
        ("contestant", Align::Left),
        ("family", Align::Left),
        ("status", Align::Left),
        ("what it is", Align::Left),
    ]);
    for c in &summary.contestants {
        table.row(&[format!("`{}`", c.name), c.family.as_str().to_string(), status_cell(c), c.description.clone()]);
    }
    table.render()
}

fn status_cell(c: &ContestantSummary) -> String {
    let mut cell = match (&c.status, &c.reason) {
        (Status::Ok, _) => "ok".to_string(),
        (status, Some(reason)) => format!("**{}**: {reason}", status.as_str()),
        (status, None) => format!("**{}**", status.as_str()),
    };
    for (phase, reason) in &c.skipped_phases {
        cell.push_str(&format!("; **skipped** at `{phase}`: {reason}"));
    }
    cell
}

fn parameters(summary: &Summary) -> String {
    if summary.params.is_empty() {
        return "_This scenario takes no parameters._".to_string();
    }
    let mut table = Table::new(&[("parameter", Align::Left), ("value", Align::Right), ("kind", Align::Left)]);
    for (name, value) in &summary.params {
        let (text, kind) = match value {
            serde_json::Value::Array(values) => {
                (values.iter().map(json_scalar).collect::<Vec<_>>().join(", "), "sweep: each value is its own phase")
            }
            other => (json_scalar(other), "fixed"),
        };
        table.row(&[format!("`{name}`"), text, kind.to_string()]);
    }
    table.render()
}

/// A parameter value as typed on the command line.
fn json_scalar(value: &serde_json::Value) -> String {
    match value {
        serde_json::Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

fn method(summary: &Summary) -> String {
    let m = &summary.method;
    let mut out = String::new();
    out.push_str(&format!("- Forks (fresh processes per contestant and phase): {}\n", m.forks));
    out.push_str(&format!("- Warm-up iterations per fork, discarded: {}\n", m.warmup));
    out.push_str(&format!("- Measured (timed) iterations per fork: {}\n", m.iterations));
    if m.accounting > 0 {
        out.push_str(&format!(
            "- Accounting iterations per fork, after the timed ones (every instrument on; outstanding work, \
             allocations, threads and memory come from them): {}\n",
            m.accounting
        ));
    }
    out.push_str(&format!("- Noise threshold: {}\n", percent(m.noise_threshold)));
    out.push_str(&format!("- Seed: {}\n", m.seed));
    out.push_str(&format!("- Trial timeout: {} s\n", format::number(m.trial_timeout_s)));
    if m.quick {
        out.push_str("- `--quick`: small sizes and few repetitions, a smoke run\n");
    }
    out.push_str(
        "\nThe process is the unit of evidence: each fork is a fresh process, and repetitions inside one process \
         agree far more than separate processes do. Median and min–max span every measured iteration. A claim \
         holds when every process median of one side is on the claimed side of every process median of the other \
         (and fails when every pairing is on the other side); its p is exact (Mann–Whitney at U = 0: 0.05 at \
         3 + 3 processes, 0.004 at 5 + 5; a sign test, 2^-k, against a fixed value). Two results are within noise \
         when their process-median ranges overlap or their ratio is within the noise threshold of 1; with fewer \
         than 3 processes nothing is told from noise and every claim is inconclusive. Intervals shown are 95% \
         hierarchical bootstrap intervals (processes resampled, then iterations within them, 1,000 resamples, a \
         fixed seed); the JSON's `ci999` (a 99.9% Student-t half-width over process medians) is kept for the \
         contract and decides nothing. Processes and iterations beyond Tukey's fences (1.5 interquartile ranges) \
         are flagged, never dropped.\n",
    );
    out
}

fn environment(summary: &Summary) -> String {
    let e = &summary.environment;
    let mut table = Table::new(&[("", Align::Left), ("", Align::Left)]);
    table.row(&["CPU".to_string(), or_unknown(&e.cpu_model)]);
    table.row(&["cores".to_string(), e.cores.to_string()]);
    table.row(&["memory".to_string(), format!("{} GiB", e.memory_gib)]);
    table.row(&["OS".to_string(), or_unknown(&e.os)]);
    table.row(&["kernel".to_string(), or_unknown(&e.kernel)]);
    table.row(&["rustc".to_string(), or_unknown(&e.rustc)]);
    if !e.build_profile.is_empty() {
        table.row(&["build profile".to_string(), e.build_profile.clone()]);
    }
    table.row(&["lab".to_string(), or_unknown(&summary.lab_version)]);
    let dirty = |d: bool| if d { "dirty: uncommitted changes" } else { "clean" };
    table.row(&[
        "code that ran".to_string(),
        format!("`{}` ({})", or_unknown(&summary.git_rev), dirty(summary.git_dirty)),
    ]);
    table.row(&[
        "code that judged and rendered".to_string(),
        format!("`{}` ({})", or_unknown(&summary.render_git_rev), dirty(summary.render_git_dirty)),
    ]);
    table.row(&["started".to_string(), or_unknown(&summary.started_utc)]);
    let finished =
        if summary.finished_utc.is_empty() { "— (interrupted)".to_string() } else { summary.finished_utc.clone() };
    table.row(&["finished".to_string(), finished]);
    for (name, value) in &e.limits {
        table.row(&[format!("OS limit `{name}`"), value.clone()]);
    }
    let mut out = table.render();
    if !e.crates.is_empty() {
        let mut crates = Table::new(&[("crate", Align::Left), ("version", Align::Left)]);
        for (name, version) in &e.crates {
            crates.row(&[format!("`{name}`"), version.clone()]);
        }
        out.push('\n');
        out.push_str(&crates.render());
    }
    out
}

fn or_unknown(text: &str) -> String {
    if text.is_empty() {
        "unknown".to_string()
    } else {
        text.to_string()
    }
}

/// How many of the scenario's table metrics get the full `median (min–max)` cell; the rest are shown as
/// medians in a second table, so neither table is too wide to read.
const FULL_STAT_METRICS: usize = 3;

fn results(input: &ReportInput<'_>) -> String {
    let summary = input.summary;
    let threshold = summary.method.noise_threshold;
    let (full, brief) = input.table_metrics.split_at(FULL_STAT_METRICS.min(input.table_metrics.len()));
    let mut out = format!(
        "Each cell of the table is `median (min–max)` over every measured iteration of every fork; the \
         last column is the ratio of medians on `{}` against the best baseline with its 95% bootstrap interval in \
         brackets (none with fewer than 3 processes), `(noise)` when the process-median ranges overlap or the \
         ratio is within the noise threshold. A role other than candidate follows the family: only candidates are \
         ever recommended. The medians of the other metrics are in [`{}-details.md`]({}-details.md).\n",
        input.headline_metric, summary.scenario, summary.scenario
    );
    for phase in phases(summary) {
        out.push('\n');
        if let Some(phase) = phase {
            out.push_str(&format!("### `{phase}`\n\n"));
        }
        let mut columns: Vec<(String, Align)> =
            vec![("contestant".to_string(), Align::Left), ("family".to_string(), Align::Left)];
        columns.extend(full.iter().map(|m| (format!("`{m}`"), Align::Right)));
        let headline_key = metric_key(phase, input.headline_metric);
        let reference = reference(summary, &headline_key, input.higher_is_better);
        let ratio_header = match &reference {
            Some(r) if !r.is_baseline => format!("× best (`{}`; no baseline ran)", r.entry.contestant.name),
            _ => "× best baseline".to_string(),
        };
        columns.push((ratio_header, Align::Right));
        let mut table = Table::new(&columns);
        // metric -> contestants that do not measure it
        let mut missing: Vec<(String, Vec<String>)> = Vec::new();
        let mut note_missing = |metric: &str, name: &str| match missing.iter_mut().find(|(m, _)| m == metric) {
            Some((_, names)) => names.push(format!("`{name}`")),
            None => missing.push((metric.to_string(), vec![format!("`{name}`")])),
        };
        for c in &summary.contestants {
            let family = match c.role {
                Role::Candidate => c.family.as_str().to_string(),
                role => format!("{} ({})", c.family.as_str(), role.as_str()),
            };
            let mut row = vec![format!("`{}`", c.name), family];
            if c.status != Status::Ok {
                row.push(status_cell(c));
                table.row(&row);
                continue;
            }
            if let Some(reason) = phase.and_then(|p| c.skipped_phases.get(p)) {
                row.push(format!("**skipped** at this level: {reason}"));
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
                (Some(r), _) if r.entry.contestant.name == c.name => "1.00× (ref)".to_string(),
                (Some(r), Some(s)) => compare(s, r.entry.stats, threshold)
                    .map(|ratio| match measure::stats::ratio_ci95(s, r.entry.stats) {
                        Some((low, high)) => format!(
                            "{} [{}–{}]{}",
                            format::ratio(ratio.value),
                            format::number(low),
                            format::number(high),
                            if ratio.noise { " (noise)" } else { "" }
                        ),
                        None => ratio.label(),
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
        out.push_str(&table.render());
        if !missing.is_empty() {
            let lists: Vec<String> =
                missing.iter().map(|(metric, names)| format!("`{metric}`: {}", names.join(", "))).collect();
            let outstanding_note = if missing.iter().any(|(m, _)| m.ends_with("max_outstanding")) {
                " (for `max_outstanding`: the contestant has no hand-off queue that could hold items)"
            } else {
                ""
            };
            out.push_str(&format!(
                "\n— : the metric does not apply to the contestant{outstanding_note} — {}.\n",
                lists.join("; ")
            ));
        }
    }
    out
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

/// The medians of the metrics beyond the results table's, one row per contestant and one cell per metric holding
/// every phase's median, in tables of at most [`MAX_COLUMNS`] columns.
fn other_metrics(summary: &Summary, metrics: &[&str]) -> String {
    let phase_list = phases(summary);
    let names: Vec<String> = phase_list.iter().map(|p| format!("`{}`", p.unwrap_or("—"))).collect();
    let mut out = String::new();
    if phase_list.len() > 1 {
        out = format!(
            "Each cell gives the median at every phase in this order: {} (one value where every phase gave the \
             same; — where the metric does not apply or the contestant was skipped at that phase).\n\n",
            names.join(" / ")
        );
    }
    for (i, chunk) in metrics.chunks(MAX_COLUMNS - 1).enumerate() {
        let mut columns: Vec<(String, Align)> = vec![("contestant".to_string(), Align::Left)];
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
    let mut parts = Vec::new();
    if !o.processes.is_empty() {
        let forks: Vec<String> = o.processes.iter().map(usize::to_string).collect();
        parts.push(format!("fork {}", forks.join(", ")));
    }
    for (count, grade) in [(o.iterations_mild, "mild"), (o.iterations_severe, "severe")] {
        if count > 0 {
            parts.push(format!("{count} iteration{} {grade}", if count == 1 { "" } else { "s" }));
        }
    }
    if parts.is_empty() {
        "none".to_string()
    } else {
        parts.join("; ")
    }
}

fn spread(input: &ReportInput<'_>) -> String {
    let summary = input.summary;
    let metric = input.headline_metric;
    let named_phases = !summary.phases.is_empty();
    let phase_list = phases(summary);
    let passed: Vec<&ContestantSummary> = summary.contestants.iter().filter(|c| c.status == Status::Ok).collect();
    let all_rows = passed
        .iter()
        .map(|c| phase_list.iter().filter(|p| c.metrics.contains_key(&metric_key(**p, metric))).count())
        .sum::<usize>();
    if all_rows == 0 {
        return format!("_No contestant that passed measured `{metric}`._");
    }
    // max / min of a metric's fork medians, marked when beyond the noise threshold; `None` without a spread.
    let threshold = summary.method.noise_threshold;
    let max_min = |stats: &measure::summary::MetricStats| -> Option<(String, bool)> {
        let max = stats.fork_medians.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let min = stats.fork_medians.iter().copied().fold(f64::INFINITY, f64::min);
        (!stats.fork_medians.is_empty() && min > 0.0).then(|| {
            let wide = max / min - 1.0 > threshold;
            (format!("{}{}", format::ratio(max / min), if wide { " ⚠️" } else { "" }), wide)
        })
    };
    let mut flagged = false;
    let compact = phase_list.len() > 1 && all_rows > MAX_FULL_ROWS;
    let mut out = if compact {
        let names: Vec<String> = phase_list.iter().map(|p| format!("`{}`", p.unwrap_or("—"))).collect();
        format!(
            "`{metric}` per fork (each fork a fresh process), at every phase in this order: {} (one value where \
             every phase gave the same). max / min is the largest fork median over the smallest; outliers are the \
             forks (numbered from 0) whose median, and the iterations whose value, lie beyond Tukey's fences (mild: \
             1.5 interquartile ranges beyond the quartiles, severe: 3). Each fork's median is in `{}.json`, under \
             `fork_medians`.\n\n",
            names.join(" / "),
            summary.scenario
        )
    } else {
        format!(
            "`{metric}` per fork (each fork a fresh process); max / min is the largest fork median over the smallest; \
             outliers are the forks (numbered from 0) whose median, and the iterations whose value, lie beyond \
             Tukey's fences (mild: 1.5 interquartile ranges beyond the quartiles, severe: 3).\n\n"
        )
    };
    if compact {
        let mut table =
            Table::new(&[("contestant", Align::Left), ("max / min", Align::Right), ("outliers", Align::Left)]);
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
        let mut columns = vec![("contestant", Align::Left)];
        if named_phases {
            columns.push(("phase", Align::Left));
        }
        columns.extend([("median of each fork", Align::Right), ("max / min", Align::Right), ("outliers", Align::Left)]);
        let mut table = Table::new(&columns);
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
    if flagged {
        out.push_str(&format!(
            "\n⚠️ Processes disagree by more than the noise threshold ({}): trust only larger differences.\n",
            percent(summary.method.noise_threshold)
        ));
    }
    out.push_str(&disturbed(summary));
    out
}

/// The busy-machine guard's count per contestant, or a line saying it found nothing.
fn disturbed(summary: &Summary) -> String {
    let rule = format!(
        "a measured iteration is disturbed when other processes used more than {} of a core during it (plus {} ms \
         for the coarseness of `/proc/stat`); {}",
        measure::busy::OTHERS_CORE_SHARE,
        measure::busy::TICK_SLACK.as_millis(),
        if summary.method.quick {
            "a `--quick` run re-runs none, it only counts them".to_string()
        } else {
            format!("it is re-run up to {} times, then kept and counted", measure::busy::MAX_RERUNS)
        }
    );
    let found: Vec<&ContestantSummary> = summary.contestants.iter().filter(|c| !c.disturbed.is_none()).collect();
    if summary.contestants.iter().all(|c| c.disturbed.guarded_iterations == 0) {
        return "\nBusy-machine guard: not applicable (this run was made before the guard existed, or the machine's \
                CPU could not be read).\n"
            .to_string();
    }
    if found.is_empty() {
        return format!("\nBusy-machine guard ({rule}): no measured iteration was found disturbed.\n");
    }
    let mut table = Table::new(&[
        ("contestant", Align::Left),
        ("disturbed, re-run", Align::Right),
        ("disturbed, kept in the figures", Align::Right),
    ]);
    for c in found {
        let d = c.disturbed;
        table.row(&[
            format!("`{}`", c.name),
            (d.disturbed_iterations - d.disturbed_kept).to_string(),
            d.disturbed_kept.to_string(),
        ]);
    }
    format!("\nBusy-machine guard ({rule}):\n\n{}", table.render())
}

fn charts(input: &ReportInput<'_>) -> String {
    if input.charts.is_empty() {
        return "_This scenario draws no charts._".to_string();
    }
    let mut out = String::new();
    for chart in &input.charts {
        let _ = writeln!(out, "![{}]({})\n", chart.title, crate::chart_path(&input.summary.scenario, chart));
    }
    out
}

/// Most lines the correctness checks are listed in per contestant; a run with more gets one row per check.
const MAX_CHECK_LINES: usize = 40;

/// Most rows a spread or harness-cost table lists in full; a larger one lists the rows beyond the noise and sums
/// up the rest.
const MAX_FULL_ROWS: usize = 24;

fn checks(summary: &Summary) -> String {
    let lines: usize = summary.contestants.iter().map(|c| c.checks.len().max(1)).sum();
    if lines > MAX_CHECK_LINES {
        return checks_by_check(summary);
    }
    let mut out = String::new();
    for c in &summary.contestants {
        let _ = writeln!(out, "**`{}`** ({})\n", c.name, c.status.as_str());
        if c.checks.is_empty() {
            out.push_str("- no checks ran\n");
        }
        for check in &c.checks {
            let mark = match check.outcome() {
                "passed" => "✅",
                "failed" => "❌",
                _ => "➖ not applicable:",
            };
            let _ = writeln!(out, "- {mark} `{}`: {}", check.name, check.detail);
        }
        out.push('\n');
    }
    if out.is_empty() {
        out.push_str("_No contestants were selected._");
    }
    out
}

/// The checks of a run with many contestants: one row per check (how many contestants passed it, which it did
/// not apply to and which failed it, and what it verified in the words of the first that passed), then every
/// failure and every check that did not apply, in full. Each contestant's own figures stay in the summary JSON.
fn checks_by_check(summary: &Summary) -> String {
    let mut names: Vec<&str> = Vec::new();
    for check in summary.contestants.iter().flat_map(|c| &c.checks) {
        if !names.contains(&check.name.as_str()) {
            names.push(&check.name);
        }
    }
    let mut table = Table::new(&[
        ("check", Align::Left),
        ("passed", Align::Right),
        ("not applicable", Align::Left),
        ("failed", Align::Left),
        ("what it verified (the first contestant that passed)", Align::Left),
    ]);
    let list = |names: &[&str]| {
        if names.is_empty() {
            "—".to_string()
        } else {
            names.iter().map(|n| format!("`{n}`")).collect::<Vec<_>>().join(", ")
        }
    };
    let mut exceptions = String::new();
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
        for (c, k) in of.iter().filter(|(_, k)| !k.passed) {
            let mark = if k.outcome() == "failed" { "❌" } else { "➖ not applicable:" };
            let _ = writeln!(exceptions, "- {mark} `{}`, `{}`: {}", c.name, k.name, k.detail);
        }
    }
    let none: Vec<&str> = summary.contestants.iter().filter(|c| c.checks.is_empty()).map(|c| c.name.as_str()).collect();
    let mut out = format!(
        "{} contestants, {} checks: one row per check. Each contestant's own figures for every check (items, \
         bounds, where a fault was injected, how long a cancellation took) are in `{}.json`, under \
         `contestants[].checks`.\n\n{}",
        summary.contestants.len(),
        names.len(),
        summary.scenario,
        table.render()
    );
    if !none.is_empty() {
        let _ = write!(out, "\nNo checks ran for {}.\n", list(&none));
    }
    if !exceptions.is_empty() {
        let _ = write!(out, "\nEvery check that failed or did not apply, with its reason:\n\n{exceptions}");
    }
    out
}

/// The claims, numbered, each its verdict and statement; the numbers behind each verdict (often long) follow in
/// one collapsible block under the same numbers.
fn claims(summary: &Summary) -> String {
    if summary.claims.is_empty() {
        return "_This scenario makes no claims._".to_string();
    }
    let mut out = String::new();
    for (i, claim) in summary.claims.iter().enumerate() {
        let p = measure::judge::p_label(claim.p);
        let p = if p.is_empty() { String::new() } else { format!(" ({p})") };
        let _ = writeln!(out, "{}. **{}**{p}: {}", i + 1, claim.verdict.as_str(), claim.text);
    }
    let mut numbers = String::new();
    for (i, claim) in summary.claims.iter().enumerate() {
        let _ = write!(numbers, "{}. **{}** — {}", i + 1, claim.verdict.as_str(), claim.detail);
        if !claim.metric.is_empty() {
            let _ = write!(
                numbers,
                "<br>_Judged on `{}` ({}), from {}; rule: {}._",
                claim.metric, claim.metric_definition, claim.judged_on, claim.rule
            );
        }
        numbers.push('\n');
    }
    out.push('\n');
    collapsible(&mut out, "The numbers behind each verdict", &numbers);
    out
}

/// A published figure as the study gave it: whole numbers with thousands separators, others with every digit.
fn published(value: f64) -> String {
    if value.fract() == 0.0 {
        measure::units::count(value)
    } else {
        value.to_string()
    }
}

/// The published figures of this scenario set beside this run as ratios to each side's own baseline; empty
/// when the scenario has none.
fn published_reference(summary: &Summary) -> String {
    let rows = measure::references::compare(summary);
    if rows.is_empty() {
        return String::new();
    }
    let mut table = Table::new(&[
        ("study", Align::Left),
        ("what", Align::Left),
        ("figure", Align::Right),
        ("hardware", Align::Left),
        ("× the study's baseline", Align::Right),
        ("here", Align::Left),
        ("× this run's baseline", Align::Right),
    ]);
    for row in &rows {
        let f = row.figure;
        let at = f.phase.as_ref().map(|p| format!(" at `{p}`")).unwrap_or_default();
        let here = if row.here.values.is_empty() {
            "did not run".to_string()
        } else {
            let values: Vec<String> =
                row.here.values.iter().map(|(who, v)| format!("{who} {}", format::number(*v))).collect();
            values.join(", ")
        };
        let study_ratio = match (row.study_ratio, &f.baseline) {
            (Some(r), Some(b)) => format!("{} (of {b})", format::ratio(r)),
            _ => "baseline".to_string(),
        };
        let here_ratio = match row.here_ratio {
            Some((lo, hi)) if format::ratio(lo) == format::ratio(hi) => format::ratio(lo),
            Some((lo, hi)) => format!("{}–{}", format::ratio(lo), format::ratio(hi)),
            None if f.baseline.is_none() => "baseline".to_string(),
            None => "n/a".to_string(),
        };
        table.row(&[
            f.study.clone(),
            format!("{}{at}", f.subject),
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
    let why: Vec<String> = rows
        .iter()
        .filter(|r| !r.figure.why.is_empty())
        .map(|r| format!("- {}: {}.", r.figure.subject, r.figure.why))
        .collect();
    format!(
        "Figures from published studies (all in `measure/references.json`) are compared only as ratios to each \
         study's own baseline, beside the same ratio in this run; absolute figures from another machine and runtime \
         are not compared.\n\n{}\nWhat stands for each subject here, and why:\n\n{}\n\nSources: {}.\n",
        table.render(),
        why.join("\n"),
        sources.join("; ")
    )
}

fn harness(input: &ReportInput<'_>) -> String {
    let mut out = instruments_cost(input);
    if input.harness_notes.is_empty() && out.is_empty() {
        return "_No harness costs were recorded._".to_string();
    }
    for note in &input.harness_notes {
        let _ = writeln!(out, "- {note}");
    }
    out
}

/// Per contestant (and phase), the headline metric of the timed iterations beside the same metric of the
/// accounting iterations (every instrument on): what the instruments would have added to the figures had they
/// run in the timed iterations. Empty where no contestant has both.
fn instruments_cost(input: &ReportInput<'_>) -> String {
    let metric = input.headline_metric;
    let instrumented = format!("{}{metric}", measure::harness::INSTRUMENTED_PREFIX);
    let phase_list = phases(input.summary);
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
        return String::new();
    }
    let compact = phase_list.len() > 1 && rows > MAX_FULL_ROWS;
    let table = if compact {
        let names: Vec<String> = phase_list.iter().map(|p| format!("`{}`", p.unwrap_or("—"))).collect();
        let mut table = Table::new(&[("contestant", Align::Left), ("accounting ÷ timed", Align::Right)]);
        for c in &input.summary.contestants {
            let ratios: Vec<String> =
                phase_list.iter().map(|p| pair(c, *p).map_or_else(|| "—".to_string(), |(t, a)| ratio(t, a))).collect();
            if ratios.iter().all(|r| r == "—") {
                continue;
            }
            table.row(&[format!("`{}`", c.name), per_phase(&ratios)]);
        }
        format!(
            ". Per contestant, the ratio at every phase in this order: {} (one value where every phase gave the \
             same); the timed medians are the results' and the accounting ones are in `{}.json`, under \
             `{instrumented}`:\n\n{}",
            names.join(" / "),
            input.summary.scenario,
            table.render()
        )
    } else {
        let mut table = Table::new(&[
            ("contestant", Align::Left),
            ("phase", Align::Left),
            ("timed median", Align::Right),
            ("accounting median", Align::Right),
            ("accounting ÷ timed", Align::Right),
        ]);
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
        format!(":\n\n{}", table.render())
    };
    format!(
        "Timed iterations run each contestant with no instrument on its path: its hand-offs call a meter that \
         compiles to nothing, no sampler thread runs, and allocation counting is paused. The figures above come \
         from them. Each process then runs accounting iterations, untimed for the results, with every instrument \
         on (the outstanding gauge updated at every hand-off, the 1 ms sampler, allocation counting); the \
         outstanding work, allocations, threads and memory figures come from those. Their `{metric}`, beside the \
         timed one, is what the instruments cost (one accounting iteration per process against all timed ones, so \
         a ratio near 1 is within the noise between iterations){table}\n"
    )
}

/// The command that reproduces the run, runnable as written after the README's set-up (a `--quick` run recorded
/// before its command named a scratch folder gets one: the full run's reports refuse a smoke run's), and how to
/// re-render the report.
fn reproduce(summary: &Summary) -> String {
    let mut command = summary.command.clone();
    if summary.method.quick && !command.split_whitespace().any(|w| w == "--out" || w.starts_with("--out=")) {
        command.push_str(" --out target/quick-reports");
    }
    format!(
        "```sh\n{command}\n```\n\nRaw data: [raw file]({raw}). Re-render this report, running nothing, with \
         `just lab report <out>/{raw} --out <out>`, where `<out>` is the folder holding this report.\n",
        raw = summary.raw_file
    )
}
