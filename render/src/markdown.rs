//! The report a person reads (`<scenario>.md`): it opens with its answer (what to use when, with the numbers,
//! computed from the run's comparisons and verdicts), then the question, results, charts, claims and
//! discussion; the long parts (every ratio, contestants, parameters, method, environment, spread, checks,
//! published figures, harness cost) sit in collapsible `<details>` sections at the end, before how to
//! reproduce it.

use std::fmt::Write as _;

use measure::record::Status;
use measure::summary::{ContestantSummary, Family, Summary, Verdict};

use crate::analysis::{self, compare, metric_key, phase_words, phases, reference, Entry};
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
    let mut details = String::new();
    collapsible(&mut details, "Every ratio against the baseline", &headline(input));
    collapsible(&mut details, "Contestants", &contestants(summary));
    collapsible(&mut details, "Parameters", &parameters(summary));
    collapsible(&mut details, "Method", &method(summary));
    collapsible(&mut details, "Environment", &environment(summary));
    collapsible(&mut details, "Spread across processes", &spread(input));
    collapsible(&mut details, "Correctness checks, per contestant", &checks(summary));
    let references = published_reference(summary);
    if !references.is_empty() {
        collapsible(&mut details, "Published reference", &references);
    }
    collapsible(&mut details, "Harness cost", &harness(input));
    section(&mut out, "Details", &details);
    section(&mut out, "Reproduce", &reproduce(summary));
    // Exactly one trailing newline.
    let trimmed = out.trim_end().len();
    out.truncate(trimmed);
    out.push('\n');
    out
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

/// The best of `entries` on the headline metric (lowest, or highest when higher is better); ties go to the
/// first.
fn best_of<'s>(input: &ReportInput<'_>, entries: impl Iterator<Item = Entry<'s>>) -> Option<Entry<'s>> {
    entries.reduce(|a, b| {
        let better =
            if input.higher_is_better { b.stats.median > a.stats.median } else { b.stats.median < a.stats.median };
        if better {
            b
        } else {
            a
        }
    })
}

/// Who leads between the best of `a` and the best of `b` and by what factor between their medians, such as
/// `blocking ahead by 2.10×` or `stream ahead by 1.05× (noise)`, with the leader when the lead is beyond noise
/// (`None` within noise). `None` altogether where no ratio means anything.
fn lead(input: &ReportInput<'_>, a: (Family, Entry<'_>), b: (Family, Entry<'_>)) -> Option<(String, Option<Family>)> {
    let ratio = compare(a.1.stats, b.1.stats, input.summary.method.noise_threshold)?;
    let factor = if ratio.value >= 1.0 { ratio.value } else { 1.0 / ratio.value };
    let a_ahead = if input.higher_is_better { ratio.value > 1.0 } else { ratio.value < 1.0 };
    let leader = if a_ahead { a.0 } else { b.0 };
    let noise = if ratio.noise { " (noise)" } else { "" };
    let text = format!("{} ahead by {}{noise}", leader.as_str(), format::ratio(factor));
    Some((text, (!ratio.noise).then_some(leader)))
}

/// `capacity 256: ` or empty without phases.
fn phase_label(phase: Option<&str>) -> String {
    phase.map(|p| format!("{}: ", phase_words(p))).unwrap_or_default()
}

/// A phase (`None` without a sweep) and a median at it.
type PhaseValue<'a> = (Option<&'a str>, f64);

/// The opening answer, a few bullets computed from this run alone: what to use (the best contestant that is
/// not a baseline, per phase, grouped by contestant), how the best stream compares with the best blocking
/// contestant (and the best coroutine, where one ran), what the pick costs over the baseline, a warning when
/// no comparison is beyond noise, the claims' tally, then the scenario's own findings. A bullet whose numbers
/// are missing is left out.
fn answer(input: &ReportInput<'_>) -> String {
    let summary = input.summary;
    let metric = input.headline_metric;
    let best_word = if input.higher_is_better { "highest" } else { "lowest" };
    let mut lines: Vec<String> = Vec::new();
    let mut picks: Vec<(Option<&str>, Entry<'_>)> = Vec::new();
    let mut versus: Vec<String> = Vec::new();
    let mut leaders: Vec<Option<Family>> = Vec::new();
    let mut coroutine: Vec<String> = Vec::new();
    let mut over_baseline: Vec<String> = Vec::new();
    let mut baseline_name: Option<&str> = None;
    // Comparisons made, and how many of them were beyond noise.
    let (mut compared, mut clear) = (0usize, 0usize);
    for phase in phases(summary) {
        let key = metric_key(phase, metric);
        let family_best = |family| analysis::best(summary, Some(family), &key, input.higher_is_better);
        let candidates = [Family::Stream, Family::Blocking, Family::Coroutine].into_iter().filter_map(&family_best);
        let Some(pick) = best_of(input, candidates) else { continue };
        picks.push((phase, pick));
        let blocking = family_best(Family::Blocking);
        if let (Some(s), Some(b)) = (family_best(Family::Stream), blocking) {
            if let Some((text, leader)) = lead(input, (Family::Stream, s), (Family::Blocking, b)) {
                versus.push(format!("{}{text}", phase_label(phase)));
                leaders.push(leader);
                compared += 1;
                clear += usize::from(leader.is_some());
            }
        }
        if let (Some(c), Some(b)) = (family_best(Family::Coroutine), blocking) {
            if let Some((text, leader)) = lead(input, (Family::Coroutine, c), (Family::Blocking, b)) {
                let at = phase.map(|p| format!("{} ", phase_words(p))).unwrap_or_default();
                coroutine.push(format!("{at}(`{}`): {text}", c.contestant.name));
                compared += 1;
                clear += usize::from(leader.is_some());
            }
        }
        if let Some(baseline) = family_best(Family::Baseline) {
            if let Some(ratio) = compare(pick.stats, baseline.stats, summary.method.noise_threshold) {
                over_baseline.push(format!("{}{}", phase_label(phase), ratio.label()));
                baseline_name.get_or_insert(baseline.contestant.name.as_str());
                compared += 1;
                clear += usize::from(!ratio.noise);
            }
        }
    }
    if picks.is_empty() {
        return format!("_No contestant that is not a baseline passed and measured `{metric}`: nothing to recommend._");
    }
    // Group the phases by the contestant that wins them, in order of first win.
    let mut groups: Vec<(Entry<'_>, Vec<PhaseValue<'_>>)> = Vec::new();
    for (phase, pick) in &picks {
        match groups.iter_mut().find(|(e, _)| e.contestant.name == pick.contestant.name) {
            Some((_, wins)) => wins.push((*phase, pick.stats.median)),
            None => groups.push((*pick, vec![(*phase, pick.stats.median)])),
        }
    }
    let values = |wins: &[PhaseValue<'_>]| {
        let values: Vec<String> =
            wins.iter().map(|(p, v)| format!("{}{}", phase_label(*p), format::number(*v))).collect();
        values.join(", ")
    };
    if let [(entry, wins)] = groups.as_slice() {
        let where_ = if picks.len() > 1 { " at every level of the sweep" } else { "" };
        lines.push(format!(
            "**Use `{}`** ({}): the {best_word} `{metric}` of every contestant that is not a baseline{where_} ({}).",
            entry.contestant.name,
            entry.contestant.family.as_str(),
            values(wins)
        ));
    } else {
        let each: Vec<String> = groups
            .iter()
            .map(|(entry, wins)| {
                format!("`{}` ({}; {})", entry.contestant.name, entry.contestant.family.as_str(), values(wins))
            })
            .collect();
        lines.push(format!(
            "**What to use depends on the level**: the {best_word} `{metric}` that is not a baseline comes from {}.",
            each.join("; ")
        ));
    }
    if !versus.is_empty() {
        let count = |f: Option<Family>| leaders.iter().filter(|l| **l == f).count();
        let tally = if leaders.len() > 1 && leaders.iter().any(Option::is_some) {
            format!(
                " (streams ahead at {}, blocking at {}, within noise at {} of {})",
                count(Some(Family::Stream)),
                count(Some(Family::Blocking)),
                count(None),
                leaders.len()
            )
        } else {
            String::new()
        };
        lines.push(format!("**Best stream against best blocking**{tally}: {}.", versus.join("; ")));
    }
    if !coroutine.is_empty() {
        lines.push(format!("**Best coroutine against best blocking**: {}.", coroutine.join("; ")));
    }
    if let (false, Some(name)) = (over_baseline.is_empty(), baseline_name) {
        lines.push(format!(
            "**Cost over the baseline** (`{name}`, the floor), the pick's `{metric}` as a multiple of the \
             baseline's: {}.",
            over_baseline.join(", ")
        ));
    }
    if compared > 0 && clear == 0 {
        let forks = summary.method.forks;
        let why = if (forks as usize) < measure::stats::MIN_PROCESSES {
            format!(
                "with {forks} process{} per contestant there is no interval, so no difference is told from noise",
                if forks == 1 { "" } else { "es" }
            )
        } else {
            format!(
                "the 99.9% intervals of the per-process medians overlap ({forks} processes each); see _Spread across \
                 processes_ under Details"
            )
        };
        lines.push(format!("⚠️ **None of these {compared} comparisons is beyond noise**: {why}."));
    } else if compared > 1 && clear < compared {
        lines.push(format!(
            "Beyond noise: {clear} of these {compared} comparisons; `(noise)` marks the rest (the 99.9% \
             intervals of the per-process medians overlap, or the ratio is within {} of 1).",
            percent(summary.method.noise_threshold)
        ));
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
        "On `{}` ({direction}); a ratio is marked (noise) when the 99.9% intervals overlap or it is within {} of 1.\n\n",
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
         agree far more than separate processes do. Median and min–max span every measured iteration; `ci999` is \
         the half-width of the 99.9% Student-t confidence interval of the mean of the per-process medians, and \
         with fewer than 3 processes there is no interval and every claim is inconclusive. Processes and \
         iterations beyond Tukey's fences (1.5 interquartile ranges) are flagged, never dropped.\n",
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

/// How many of the scenario's table metrics get the full `median (min–max) ±ci999` cell; the rest are shown as
/// medians in a second table, so neither table is too wide to read.
const FULL_STAT_METRICS: usize = 3;

fn results(input: &ReportInput<'_>) -> String {
    let summary = input.summary;
    let threshold = summary.method.noise_threshold;
    let (full, brief) = input.table_metrics.split_at(FULL_STAT_METRICS.min(input.table_metrics.len()));
    let mut out = format!(
        "Each cell of the first table is `median (min–max) ±ci999`: median and range over every measured \
         iteration of every fork, `ci999` over the per-process medians (`no interval` with fewer than 3 processes); \
         its last column is the ratio of medians on `{}` against the best baseline. The second table gives \
         medians of the other metrics.\n",
        input.headline_metric
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
        let mut brief_columns: Vec<(String, Align)> = vec![("contestant".to_string(), Align::Left)];
        brief_columns.extend(brief.iter().map(|m| (format!("`{m}`"), Align::Right)));
        let mut brief_table = Table::new(&brief_columns);
        // metric -> contestants that do not measure it
        let mut missing: Vec<(String, Vec<String>)> = Vec::new();
        let mut note_missing = |metric: &str, name: &str| match missing.iter_mut().find(|(m, _)| m == metric) {
            Some((_, names)) => names.push(format!("`{name}`")),
            None => missing.push((metric.to_string(), vec![format!("`{name}`")])),
        };
        for c in &summary.contestants {
            let mut row = vec![format!("`{}`", c.name), c.family.as_str().to_string()];
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
                        "{} ({}–{}) {}",
                        format::number(s.median),
                        format::number(s.min),
                        format::number(s.max),
                        match s.interval() {
                            Some(_) => format!("±{}", format::half_width(s.ci999, s.median)),
                            None => "no interval".to_string(),
                        }
                    )),
                    None => {
                        row.push("—".to_string());
                        note_missing(metric, &c.name);
                    }
                }
            }
            let ratio = match (&reference, c.metrics.get(&headline_key)) {
                (Some(r), _) if r.entry.contestant.name == c.name => "1.00× (ref)".to_string(),
                (Some(r), Some(s)) => {
                    compare(s, r.entry.stats, threshold).map(|ratio| ratio.label()).unwrap_or_else(|| "—".to_string())
                }
                _ => "—".to_string(),
            };
            row.push(ratio);
            table.row(&row);
            if !brief.is_empty() {
                let mut brief_row = vec![format!("`{}`", c.name)];
                for metric in brief {
                    match c.metrics.get(&metric_key(phase, metric)) {
                        Some(s) => brief_row.push(format::number(s.median)),
                        None => {
                            brief_row.push("—".to_string());
                            note_missing(metric, &c.name);
                        }
                    }
                }
                brief_table.row(&brief_row);
            }
        }
        out.push_str(&table.render());
        if !brief.is_empty() {
            out.push('\n');
            let title = match phase {
                Some(p) => format!("Medians of the other metrics at <code>{p}</code>"),
                None => "Medians of the other metrics".to_string(),
            };
            collapsible(&mut out, &title, &brief_table.render());
        }
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
    let mut columns = vec![("contestant", Align::Left)];
    if named_phases {
        columns.push(("phase", Align::Left));
    }
    columns.extend([("median of each fork", Align::Right), ("max / min", Align::Right), ("outliers", Align::Left)]);
    let mut table = Table::new(&columns);
    let mut rows = 0;
    let mut flagged = false;
    for c in summary.contestants.iter().filter(|c| c.status == Status::Ok) {
        for phase in phases(summary) {
            let Some(stats) = c.metrics.get(&metric_key(phase, metric)) else { continue };
            let mut row = vec![format!("`{}`", c.name)];
            if let Some(phase) = phase {
                row.push(format!("`{phase}`"));
            }
            if stats.fork_medians.is_empty() {
                row.extend(["—".to_string(), "—".to_string(), "—".to_string()]);
            } else {
                let medians: Vec<String> = stats.fork_medians.iter().map(|m| format::number(*m)).collect();
                row.push(medians.join(" / "));
                let max = stats.fork_medians.iter().copied().fold(f64::NEG_INFINITY, f64::max);
                let min = stats.fork_medians.iter().copied().fold(f64::INFINITY, f64::min);
                if min > 0.0 {
                    let ratio = max / min;
                    let wide = ratio - 1.0 > summary.method.noise_threshold;
                    flagged |= wide;
                    row.push(format!("{}{}", format::ratio(ratio), if wide { " ⚠️" } else { "" }));
                } else {
                    row.push("—".to_string());
                }
                row.push(outliers(stats));
            }
            table.row(&row);
            rows += 1;
        }
    }
    if rows == 0 {
        return format!("_No contestant that passed measured `{metric}`._");
    }
    let mut out = format!(
        "`{metric}` per fork (each fork a fresh process); max / min is the largest fork median over the smallest; \
         outliers are the forks (numbered from 0) whose median, and the iterations whose value, lie beyond \
         Tukey's fences (mild: 1.5 interquartile ranges beyond the quartiles, severe: 3).\n\n"
    );
    out.push_str(&table.render());
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

fn checks(summary: &Summary) -> String {
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

/// The claims, numbered, each its verdict and statement; the numbers behind each verdict (often long) follow in
/// one collapsible block under the same numbers.
fn claims(summary: &Summary) -> String {
    if summary.claims.is_empty() {
        return "_This scenario makes no claims._".to_string();
    }
    let mut out = String::new();
    for (i, claim) in summary.claims.iter().enumerate() {
        let _ = writeln!(out, "{}. **{}**: {}", i + 1, claim.verdict.as_str(), claim.text);
    }
    let mut numbers = String::new();
    for (i, claim) in summary.claims.iter().enumerate() {
        let _ = write!(numbers, "{}. **{}** — {}", i + 1, claim.verdict.as_str(), claim.detail);
        if !claim.metric.is_empty() {
            let _ = write!(
                numbers,
                "<br>_Judged on `{}` ({}), from {}._",
                claim.metric, claim.metric_definition, claim.judged_on
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
    format!(
        "Figures from published studies (all in `measure/references.json`) are compared only as ratios to each \
         study's own baseline, beside the same ratio in this run; absolute figures from another machine and runtime \
         are not compared.\n\n{}\nSources: {}.\n",
        table.render(),
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
    let mut table = Table::new(&[
        ("contestant", Align::Left),
        ("phase", Align::Left),
        ("timed median", Align::Right),
        ("accounting median", Align::Right),
        ("accounting ÷ timed", Align::Right),
    ]);
    let mut rows = 0;
    for contestant in &input.summary.contestants {
        for phase in phases(input.summary) {
            let timed = contestant.metrics.get(&metric_key(phase, metric));
            let counted = contestant.metrics.get(&metric_key(phase, &instrumented));
            let (Some(timed), Some(counted)) = (timed, counted) else { continue };
            let ratio = if timed.median != 0.0 { format::ratio(counted.median / timed.median) } else { "—".into() };
            table.row(&[
                format!("`{}`", contestant.name),
                phase.map_or_else(|| "—".to_string(), |p| format!("`{p}`")),
                format::number(timed.median),
                format::number(counted.median),
                ratio,
            ]);
            rows += 1;
        }
    }
    if rows == 0 {
        return String::new();
    }
    format!(
        "Timed iterations run each contestant with no instrument on its path: its hand-offs call a meter that \
         compiles to nothing, no sampler thread runs, and allocation counting is paused. The figures above come \
         from them. Each process then runs accounting iterations, untimed for the results, with every instrument \
         on (the outstanding gauge updated at every hand-off, the 1 ms sampler, allocation counting); the \
         outstanding work, allocations, threads and memory figures come from those. Their `{metric}`, beside the \
         timed one, is what the instruments cost (one accounting iteration per process against all timed ones, so \
         a ratio near 1 is within the noise between iterations):\n\n{}\n",
        table.render()
    )
}

fn reproduce(summary: &Summary) -> String {
    format!(
        "```sh\n{}\n```\n\nRaw data: [raw file]({raw}). Re-render this report, running nothing, with \
         `lab report <raw file>` (here `lab report <out>/{raw}`, where `<out>` is the folder holding this report).\n",
        summary.command,
        raw = summary.raw_file
    )
}
