//! The summary table a run and `lab report` print on stdout, in the manner of hyperfine: one row per contestant
//! (and phase, where the scenario sweeps) with the headline metric's median and min–max, CPU per item or call,
//! the exact maximum of outstanding work beside its bound, and the status; then each claim's verdict on a line.
//!
//! [`render`] is a pure function of the summary the reports are rendered from (its statistics, statuses and
//! judged claims), the bounds the trials' `bounded_outstanding` checks stated, a width and whether to colour:
//! it computes no figure of its own.

use std::collections::BTreeMap;
use std::fmt::Write;

use anstyle::{AnsiColor, Style};
use measure::probe::OutstandingFigures;
use measure::record::Status;
use measure::scenario::Scenario;
use measure::summary::{metric_key, ContestantSummary, Summary, Verdict};
use measure::units::count;
use render::format::number;

use crate::raw::RawRun;
use crate::term;

/// The widest the table gets, whatever the terminal.
pub(crate) const MAX_WIDTH: usize = 120;

/// The metric the outstanding column shows: the exact high-water mark of the accounting iterations.
const MAX_OUTSTANDING: &str = "max_outstanding";

/// What the table takes from the scenario besides its summary.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Spec {
    /// The headline metric, without phase prefix.
    pub headline: String,
    /// Whether more of it is better.
    pub higher_is_better: bool,
    /// The CPU-per-item or per-call metric, if the scenario measures one.
    pub cpu: Option<String>,
}

impl Spec {
    /// The headline of `scenario`, and its CPU metric: the first CPU-per-unit metric of its results table (the
    /// total, not the user or system part), else the first such metric its contestants measured.
    pub(crate) fn of(scenario: &dyn Scenario, summary: &Summary) -> Spec {
        let measured = summary
            .contestants
            .iter()
            .flat_map(|c| c.metrics.keys())
            .map(|k| k.rsplit('.').next().unwrap_or(k))
            .find(|m| is_cpu(m))
            .map(str::to_string);
        let cpu = table_cpu_metric(scenario).or(measured);
        Spec { headline: scenario.headline_metric().to_string(), higher_is_better: scenario.higher_is_better(), cpu }
    }
}

/// Whether `metric` is a total CPU cost per item or call (`cpu_ns_per_item`, `cpu_us_per_call`), not its user or
/// system part, nor a whole-run variant.
pub(crate) fn is_cpu(metric: &str) -> bool {
    metric.starts_with("cpu_")
        && metric.contains("_per_")
        && !metric.contains("_user_")
        && !metric.contains("_system_")
        && !metric.ends_with("_whole_run")
}

/// The first CPU-per-unit metric of `scenario`'s results table.
pub(crate) fn table_cpu_metric(scenario: &dyn Scenario) -> Option<String> {
    scenario.table_metrics().into_iter().find(|m| is_cpu(m)).map(str::to_string)
}

/// Each contestant's bound at each phase (`None` without a sweep), as its trials' `bounded_outstanding` checks
/// stated it (the largest, should forks ever differ).
pub(crate) type Bounds = BTreeMap<(String, Option<String>), u64>;

/// The bounds the trials of `run` stated.
pub(crate) fn bounds(run: &RawRun) -> Bounds {
    let mut bounds = Bounds::new();
    for trial in &run.trials {
        for figures in trial.checks.iter().filter_map(OutstandingFigures::of) {
            let entry = bounds.entry((trial.contestant.clone(), trial.phase.clone())).or_default();
            *entry = (*entry).max(figures.bound);
        }
    }
    bounds
}

/// `metric_ns_per_item` style names as a unit: `cpu_us_per_call` → `µs/call`.
pub(crate) fn per_unit(metric: &str) -> String {
    let stem = metric.strip_prefix("cpu_").unwrap_or(metric);
    match stem.split_once("_per_") {
        Some((unit, thing)) => format!("{}/{thing}", if unit == "us" { "µs" } else { unit }),
        None => metric.to_string(),
    }
}

/// One table row's cells, before they are fitted: the name, the four figures (median, min–max, CPU,
/// outstanding) and the status.
struct Row {
    name: String,
    figures: [String; 4],
    status: String,
    status_style: Style,
}

/// The table for `summary` (and its claims), at most `width` columns wide (and never wider than
/// [`MAX_WIDTH`]), with ANSI colour when `colour`.
pub(crate) fn render(summary: &Summary, spec: &Spec, bounds: &Bounds, width: usize, colour: bool) -> String {
    let width = width.clamp(40, MAX_WIDTH);
    let paint = |style: Style, text: &str| {
        if colour {
            format!("{}{text}{}", style.render(), style.render_reset())
        } else {
            text.to_string()
        }
    };
    let bold = Style::new().bold();
    let dim = Style::new().dimmed();

    let groups: Vec<(Option<&str>, Vec<Row>)> = summary
        .phase_keys()
        .into_iter()
        .map(|phase| (phase, summary.contestants.iter().map(|c| row(c, phase, spec, bounds)).collect()))
        .collect();

    // Column widths: the numbers as wide as their widest cell, the name what is left after the status's widest
    // cell or 16 columns, whichever is less (names longer than that are cut with `…`), the status the rest.
    let indent = if summary.phases.is_empty() { 0 } else { 2 };
    let cpu_head = spec.cpu.as_deref().map(per_unit).unwrap_or_else(|| "—".to_string());
    let all = groups.iter().flat_map(|(_, rows)| rows);
    let widest = |cell: &dyn Fn(&Row) -> &str, head: &str| {
        all.clone().map(|r| term::columns(cell(r))).chain([term::columns(head)]).max().unwrap_or(0)
    };
    let heads = ["median", "min–max", cpu_head.as_str(), "max / bound"];
    let w: [usize; 4] = std::array::from_fn(|i| widest(&|r| &r.figures[i], heads[i]));
    let numbers = w.iter().sum::<usize>() + 2 * 5;
    let longest_name = widest(&|r| &r.name, "contestant") + indent;
    let status_room = widest(&|r| &r.status, "status").min(16);
    let w_name = longest_name.min(width.saturating_sub(numbers + status_room)).max(12);
    let w_status = width.saturating_sub(w_name + numbers).max(6);

    let mut out = String::new();
    let kind = if summary.method.quick { "quick run" } else { "full run" };
    let better = if spec.higher_is_better { "higher is better" } else { "lower is better" };
    let pinned = summary
        .environment
        .pin
        .as_ref()
        .map(|p| {
            format!(", pinned to CPU{} {} by --cores {}", if p.cores == 1 { "" } else { "s" }, p.cpu_list(), p.cores)
        })
        .unwrap_or_default();
    let title = format!(
        "{} ({kind}{pinned}): {} ({better}), over {} fork(s) × {} measured iteration(s)",
        summary.scenario, spec.headline, summary.method.forks, summary.method.iterations
    );
    let _ = writeln!(out, "{}", paint(bold, &term::truncate(&title, width)));
    // The name and the four figures, each padded to its column's width.
    let cells = |name: &str, figures: [&str; 4]| {
        let figures = figures.iter().zip(w).map(|(figure, w)| term::pad_left(figure, w));
        std::iter::once(term::pad(name, w_name)).chain(figures).collect::<Vec<_>>().join("  ")
    };
    let w_headline = w[0] + 2 + w[1];
    let over = [
        term::pad("", w_name),
        term::pad_left(&term::truncate(&spec.headline, w_headline), w_headline),
        term::pad_left("CPU", w[2]),
        term::pad_left("outstanding", w[3]),
    ]
    .join("  ");
    let _ = writeln!(out, "{}", paint(dim, over.trim_end()));
    let head = cells("contestant", heads);
    let _ = writeln!(out, "{}", paint(bold, &format!("{head}  {}", term::truncate("status", w_status))));
    for (phase, rows) in &groups {
        if let Some(phase) = phase {
            let _ = writeln!(out, "{}", paint(bold, &term::truncate(phase, width)));
        }
        for r in rows {
            let name = format!("{}{}", " ".repeat(indent), term::truncate(&r.name, w_name - indent));
            let status = term::truncate(&r.status, w_status);
            let cells = cells(&name, r.figures.each_ref().map(String::as_str));
            let _ = writeln!(out, "{cells}  {}", paint(r.status_style, &status));
        }
    }
    let _ = writeln!(
        out,
        "{}",
        paint(
            dim,
            &term::truncate("— : not measured (no hand-off to count, no bound checked, or not run cleanly)", width)
        )
    );
    if !summary.claims.is_empty() {
        let _ = writeln!(out, "{}", paint(bold, "claims"));
        let w_verdict = "fails p=0.0040".len();
        for claim in &summary.claims {
            let style = verdict_style(claim.verdict);
            let label = match claim.p {
                Some(p) => format!("{} p={}", claim.verdict.as_str(), measure::compare::format_p(p)),
                None => claim.verdict.as_str().to_string(),
            };
            let verdict = term::pad(&label, w_verdict);
            let text =
                term::truncate(&claim.text.split_whitespace().collect::<Vec<_>>().join(" "), width - w_verdict - 4);
            let _ = writeln!(out, "  {}  {text}", paint(style, &verdict));
        }
    }
    out
}

/// The cells of `c` at `phase`.
fn row(c: &ContestantSummary, phase: Option<&str>, spec: &Spec, bounds: &Bounds) -> Row {
    let stats = |metric: &str| if c.status == Status::Ok { c.metrics.get(&metric_key(phase, metric)) } else { None };
    let headline = stats(&spec.headline);
    let dash = || "—".to_string();
    let median = headline.map_or_else(dash, |s| number(s.median));
    let range = headline.map_or_else(dash, |s| format!("{}–{}", number(s.min), number(s.max)));
    let cpu = spec.cpu.as_deref().and_then(stats).map_or_else(dash, |s| number(s.median));
    let bound = bounds.get(&(c.name.clone(), phase.map(str::to_string)));
    let outstanding = match (stats(MAX_OUTSTANDING), bound) {
        (None, None) => dash(),
        (max, bound) => {
            format!("{} / {}", max.map_or_else(dash, |s| count(s.max)), bound.map_or_else(dash, |b| count(*b as f64)))
        }
    };
    let skipped_here = phase.and_then(|p| c.skipped_phases.get(p));
    let (status, status_style) = match (skipped_here, c.status) {
        (Some(why), _) => (format!("skipped: {why}"), yellow()),
        (None, Status::Ok) => ("ok".to_string(), green()),
        (None, Status::Failed) => {
            let failed: Vec<&str> = c.checks.iter().filter(|k| k.failed()).map(|k| k.name.as_str()).collect();
            let why = if failed.is_empty() {
                format!(": {}", c.reason.as_deref().unwrap_or("no reason given"))
            } else {
                format!(" check {}", failed.join(", "))
            };
            // "as expected" first: a narrow status column cuts the end, and it must not cut that.
            match c.expected_failure {
                Some(_) => (format!("failed as expected:{}", why.trim_start_matches(':')), yellow()),
                None => (format!("failed{why}"), red()),
            }
        }
        (None, Status::Timeout) => ("timeout".to_string(), red()),
        (None, Status::Skipped) => (format!("skipped: {}", c.reason.as_deref().unwrap_or("no reason given")), yellow()),
    };
    Row { name: c.name.clone(), figures: [median, range, cpu, outstanding], status, status_style }
}

fn green() -> Style {
    Style::new().fg_color(Some(AnsiColor::Green.into()))
}

fn red() -> Style {
    Style::new().fg_color(Some(AnsiColor::Red.into())).bold()
}

fn yellow() -> Style {
    Style::new().fg_color(Some(AnsiColor::Yellow.into()))
}

fn verdict_style(verdict: Verdict) -> Style {
    match verdict {
        Verdict::Holds => green(),
        Verdict::Fails => red(),
        Verdict::Inconclusive => yellow(),
    }
}

#[cfg(test)]
pub(crate) mod tests {
    #![allow(clippy::unwrap_used)]

    use measure::summary::{Check, ClaimResult, Environment, Family, Method, MetricStats};

    use super::*;

    /// A `--quick` run's method: one fork of one warm-up and two measured iterations, seeded with `seed`.
    pub(crate) fn quick_method(seed: u64) -> Method {
        Method { quick: true, forks: 1, warmup: 1, iterations: 2, seed, ..testkit::fixture::method() }
    }

    fn stats(median: f64, min: f64, max: f64) -> MetricStats {
        MetricStats {
            median,
            min,
            max,
            ci999: 0.0,
            ci95_low: None,
            ci95_high: None,
            samples: Vec::new(),
            n: 2,
            mean: median,
            fork_medians: vec![median],
            processes: 1,
            outliers: Default::default(),
        }
    }

    fn contestant(name: &str, status: Status, metrics: &[(&str, MetricStats)]) -> ContestantSummary {
        let metrics = metrics.iter().map(|(k, s)| (k.to_string(), s.clone())).collect();
        ContestantSummary { status, ..testkit::fixture::contestant(name, Family::Baseline, metrics) }
    }

    /// A swept run of four contestants: one with a hand-off, a baseline with none, one that failed a check and
    /// one skipped at the second level; three claims, one of each verdict.
    fn fixture() -> (Summary, Spec, Bounds) {
        let mut failed = contestant(
            "stream-with-a-name-far-too-long-for-any-column-at-all-even-the-widest-of-terminals-allow",
            Status::Failed,
            &[],
        );
        failed.checks.push(Check::new(
            "bounded_outstanding",
            false,
            "measured max outstanding 40 items, bound 17 items",
        ));
        let mut skipped = contestant(
            "blocking-threads",
            Status::Ok,
            &[
                ("capacity_1.ms_per_million", stats(5.0, 4.5, 6.25)),
                ("capacity_1.cpu_ns_per_item", stats(9.5, 9.0, 10.0)),
            ],
        );
        skipped.skipped_phases.insert("capacity_16".to_string(), "16 threads do not fit".to_string());
        let summary = Summary {
            environment: Environment::default(),
            method: quick_method(1),
            params: BTreeMap::new(),
            contestants: vec![
                contestant(
                    "baseline-loop",
                    Status::Ok,
                    &[
                        ("capacity_1.ms_per_million", stats(0.351, 0.35, 0.36)),
                        ("capacity_1.cpu_ns_per_item", stats(0.352, 0.35, 0.36)),
                        ("capacity_16.ms_per_million", stats(0.4, 0.39, 0.41)),
                        ("capacity_16.cpu_ns_per_item", stats(0.41, 0.4, 0.42)),
                    ],
                ),
                contestant(
                    "stream-channel",
                    Status::Ok,
                    &[
                        ("capacity_1.ms_per_million", stats(123.4, 120.0, 1234.5)),
                        ("capacity_1.cpu_ns_per_item", stats(250.0, 240.0, 260.0)),
                        ("capacity_1.max_outstanding", stats(2.0, 2.0, 3.0)),
                        ("capacity_16.ms_per_million", stats(20.0, 19.0, 21.0)),
                        ("capacity_16.cpu_ns_per_item", stats(40.0, 39.0, 41.0)),
                        ("capacity_16.max_outstanding", stats(17.0, 16.0, 17.0)),
                    ],
                ),
                failed,
                skipped,
            ],
            claims: vec![
                ClaimResult::new("Streams cost at most 2× the blocking CPU per item.", Verdict::Holds, "1.5×"),
                ClaimResult::new("Every contestant keeps its bound.", Verdict::Fails, "40 > 17"),
                ClaimResult::new(
                    "A claim whose sentence runs on and on well past what any terminal line should ever have to \
                     hold, so that it must be cut short to fit the width without wrapping onto a second line.",
                    Verdict::Inconclusive,
                    "straddles",
                ),
            ],
            phases: vec!["capacity_1".to_string(), "capacity_16".to_string()],
            ..testkit::fixture::summary("handoff", vec![])
        };
        let spec = Spec {
            headline: "ms_per_million".to_string(),
            higher_is_better: false,
            cpu: Some("cpu_ns_per_item".into()),
        };
        let bounds = Bounds::from([
            (("stream-channel".to_string(), Some("capacity_1".to_string())), 3),
            (("stream-channel".to_string(), Some("capacity_16".to_string())), 18),
        ]);
        (summary, spec, bounds)
    }

    /// The fixture, its long-named contestant renamed `stream-short`.
    fn fixture_short_names() -> Summary {
        let (mut summary, _, _) = fixture();
        summary.contestants[2].name = "stream-short".to_string();
        summary
    }

    /// The line of `table` that starts (after indentation) with `name`, in the group of `phase`.
    fn line<'t>(table: &'t str, phase: &str, name: &str) -> &'t str {
        let group = table.split_once(&format!("\n{phase}\n")).unwrap().1;
        group.lines().find(|l| l.trim_start().starts_with(name)).unwrap()
    }

    #[test]
    fn every_row_and_claim_is_there_and_no_line_is_wider_than_the_width() {
        let (summary, spec, bounds) = fixture();
        for width in [80, 100, 120, 200] {
            let table = render(&summary, &spec, &bounds, width, false);
            for l in table.lines() {
                assert!(term::columns(l) <= width.min(MAX_WIDTH), "{width}: {l:?}");
            }
            // Four contestants at each of two phases, and three claims.
            let indented = table.lines().filter(|l| l.starts_with("  ") && !l.starts_with("   ")).count();
            assert_eq!(indented, 8 + 3, "{table}");
        }
    }

    #[test]
    fn the_cells_show_the_summary_s_own_figures() {
        let (summary, spec, bounds) = fixture();
        let table = render(&summary, &spec, &bounds, 120, false);
        let row = line(&table, "capacity_1", "stream-channel");
        assert!(row.contains("123"), "{row}");
        assert!(row.contains("120–1,235"), "{row}");
        assert!(row.contains("250"), "{row}");
        assert!(row.contains("3 / 3"), "{row}");
        assert!(row.ends_with("ok"), "{row}");
        assert!(line(&table, "capacity_16", "stream-channel").contains("17 / 18"));
        let baseline = line(&table, "capacity_1", "baseline-loop");
        assert!(baseline.contains("0.351") && baseline.contains("0.350–0.360") && baseline.contains("—"), "{baseline}");
        let failed = line(&table, "capacity_1", "stream-with-a-name");
        assert!(failed.contains('…'), "a long name is cut: {failed}");
        assert!(failed.contains("failed check"), "{failed}");
        let wide = render(&summary, &spec, &bounds, 200, false);
        // With names that leave the status room, it is given in full.
        let table = render(&fixture_short_names(), &spec, &bounds, 120, false);
        assert!(line(&table, "capacity_1", "stream-short").contains("failed check bounded_outstanding"));
        assert!(line(&wide, "capacity_1", "stream-with").contains('…'), "at most 120 columns whatever the width");
        assert!(line(&table, "capacity_16", "blocking-threads").contains("skipped: 16 threads do not fit"));
        assert!(line(&table, "capacity_1", "blocking-threads").ends_with("ok"));
        assert!(table.contains("ns/item"), "{table}");
        assert!(table.contains("  holds           Streams cost at most 2×"), "{table}");
        assert!(table.contains("  fails           Every contestant keeps its bound."), "{table}");
        let long = table.lines().find(|l| l.contains("inconclusive")).unwrap();
        assert!(long.ends_with('…') && term::columns(long) <= 120, "{long}");
    }

    #[test]
    fn an_expected_failure_says_so_before_its_checks() {
        let (mut summary, spec, bounds) = fixture();
        summary.contestants[2].name = "stream-short".to_string();
        summary.contestants[2].expected_failure = Some("the crate admits above a limit it has just lowered".into());
        let table = render(&summary, &spec, &bounds, 120, false);
        let row = line(&table, "capacity_1", "stream-short");
        assert!(row.ends_with("failed as expected: check bounded_outstanding"), "{row}");
    }

    #[test]
    fn the_first_line_says_what_the_run_was_pinned_to() {
        let (mut summary, spec, bounds) = fixture();
        let first = |s: &Summary| render(s, &spec, &bounds, 120, false).lines().next().unwrap_or_default().to_string();
        assert!(!first(&summary).contains("pinned"), "{}", first(&summary));
        summary.environment.pin = Some(measure::setup::Pin { cores: 1, cpus: vec![0] });
        assert!(first(&summary).contains("run, pinned to CPU 0 by --cores 1):"), "{}", first(&summary));
    }

    #[test]
    fn colour_only_when_asked() {
        let (summary, spec, bounds) = fixture();
        assert!(!render(&summary, &spec, &bounds, 120, false).contains('\u{1b}'));
        let coloured = render(&summary, &spec, &bounds, 120, true);
        assert!(coloured.contains('\u{1b}'));
        let plain = anstream::adapter::strip_str(&coloured).to_string();
        assert_eq!(plain, render(&summary, &spec, &bounds, 120, false), "colour changes nothing but colour");
    }

    #[test]
    fn the_cpu_column_takes_the_scenario_s_total_cpu_metric() {
        assert!(is_cpu("cpu_ns_per_item") && is_cpu("cpu_us_per_call"));
        assert!(!is_cpu("cpu_user_ns_per_item") && !is_cpu("cpu_us_per_call_whole_run") && !is_cpu("cores_used"));
        assert_eq!(per_unit("cpu_us_per_call"), "µs/call");
        assert_eq!(per_unit("cpu_ns_per_item"), "ns/item");
    }
}
