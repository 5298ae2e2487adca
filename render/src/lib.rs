//! Pure renderers of the lab's reports (markdown, SVG charts, summary JSON) and the manager that writes them.
//!
//! A report is a function of a run's results: [`render`] takes a [`ReportInput`] (the [`Summary`] plus what
//! the scenario says about itself) and returns every file of the report as bytes in a [`Rendered`], touching
//! no file system, clock or randomness, so `lab report <raw.jsonl>` re-renders byte-identical output. One
//! module per format: [`markdown`], [`svg`] and [`json`]; [`index`] renders the `index.md` of `lab all`, and
//! [`calibration`] the `calibration.md` of `lab calibrate`; [`floor`] the `floor.md` of `lab floor`.
//! [`output::OutputDir`] is the one place that writes files (atomically) and appends raw records.
//!
//! ```
//! # use render::{render, ReportInput};
//! # fn example(summary: &measure::summary::Summary) {
//! let input = ReportInput {
//!     summary,
//!     title: "Chains of adapters",
//!     question: "Does a chain of stream adapters cost more than a loop?",
//!     discussion: String::new(),
//!     details_discussion: String::new(),
//!     headline_metric: "ms_per_million",
//!     higher_is_better: false,
//!     table_metrics: vec!["ms_per_million", "cores_used"],
//!     charts: Vec::new(),
//!     series: Default::default(),
//!     harness_notes: Vec::new(),
//!     headline_notes: Vec::new(),
//!     trade_off_metrics: Vec::new(),
//! };
//! let rendered = render(&input);
//! assert!(rendered.files.iter().any(|f| f.path.ends_with(".md")));
//! # }
//! ```
#![warn(missing_docs)]

use std::collections::BTreeMap;

use measure::record::Series;
use measure::scenario::ChartSpec;
use measure::summary::Summary;

/// `templates/<file>` of this crate rendered with `context`, named `reports/<file>` in its errors
/// ([`measure::template::render_or_note`]: a failed template leaves a note in the report).
macro_rules! template {
    ($file:literal, $context:expr) => {
        measure::template::render_or_note(
            concat!("reports/", $file),
            include_str!(concat!("templates/", $file)),
            $context,
        )
    };
}

mod analysis;
pub mod by_cores;
pub mod calibration;
mod claims;
mod coroutine_rules;
mod cost_model;
pub mod floor;
pub mod format;
pub mod index;
pub mod json;
pub mod markdown;
pub mod matrix;
pub mod output;
mod questions;
pub mod svg;
pub mod table;
mod thresholds;

pub use analysis::{disturbed_note, headline_findings, status_line};
pub use index::{render_index, render_index_across, IndexEntry};
pub use output::{OutputDir, OutputError, OutputLock, RawAppender};

/// Everything one scenario's report is rendered from: the run's summary and what the scenario says about it.
#[derive(Debug, Clone)]
pub struct ReportInput<'a> {
    /// The run's results.
    pub summary: &'a Summary,
    /// Title of the report.
    pub title: &'a str,
    /// The question the scenario answers (markdown).
    pub question: &'a str,
    /// What the numbers mean and what to pick (markdown, inserted as is).
    pub discussion: String,
    /// The scenario's own appendix sections (markdown, inserted as is before the harness cost; may be empty).
    pub details_discussion: String,
    /// The metric the headline and ratios use, without phase prefix, such as `ms_per_million`.
    pub headline_metric: &'a str,
    /// Whether a larger headline metric is better (`ops_per_sec`) rather than worse (`ms_per_million`).
    pub higher_is_better: bool,
    /// Metrics of the results tables, in order, without phase prefix.
    pub table_metrics: Vec<&'a str>,
    /// Charts to draw and embed.
    pub charts: Vec<ChartSpec>,
    /// Contestant → series name (phase-prefixed like `work_0.outstanding`, or plain) → the first measured
    /// iteration's series.
    pub series: BTreeMap<String, BTreeMap<String, Series>>,
    /// Notes on what the harness itself cost (such as the sampler's CPU), one bullet each.
    pub harness_notes: Vec<String>,
    /// The scenario's own headline findings, one markdown sentence each, shown after the generic ones.
    pub headline_notes: Vec<String>,
    /// Further metrics a reader weighs beside the headline, each with whether higher is better: the answer's
    /// "Judged with" line states their thresholds.
    pub trade_off_metrics: Vec<(&'a str, bool)>,
}

/// One file of a report: where it goes and what it holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RenderedFile {
    /// Path relative to the output folder: `<scenario>.md`, `<scenario>.json` or `img/<scenario>-<id>.svg`.
    pub path: String,
    /// The file's contents.
    pub contents: String,
}

/// Every file of a rendered report, in a fixed order: markdown, JSON, then charts in the scenario's order.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Rendered {
    /// The files.
    pub files: Vec<RenderedFile>,
}

impl Rendered {
    /// The file at `path` (relative to the output folder), if rendered.
    pub fn file(&self, path: &str) -> Option<&RenderedFile> {
        self.files.iter().find(|f| f.path == path)
    }
}

/// Render a scenario's report: `<scenario>.md`, its appendix `<scenario>-details.md`, `<scenario>.json` and one
/// `img/<scenario>-<id>.svg` per chart that draws something (the report says why it leaves out any other).
///
/// Pure and deterministic: the same input gives byte-identical files.
pub fn render(input: &ReportInput<'_>) -> Rendered {
    let scenario = &input.summary.scenario;
    let mut files = vec![
        RenderedFile { path: format!("{scenario}.md"), contents: markdown::render_markdown(input) },
        RenderedFile { path: format!("{scenario}-details.md"), contents: markdown::render_details(input) },
        RenderedFile { path: format!("{scenario}.json"), contents: json::render_json(input.summary) },
    ];
    // A chart with nothing to draw is left out; the report says why in its place.
    for chart in &input.charts {
        if let Some(contents) = svg::drawn_chart(input, chart) {
            files.push(RenderedFile { path: chart_path(scenario, chart), contents });
        }
    }
    Rendered { files }
}

/// Where a chart of `scenario` is written, relative to the output folder: `img/<scenario>-<id>.svg`.
pub fn chart_path(scenario: &str, chart: &ChartSpec) -> String {
    format!("img/{scenario}-{}.svg", chart.id)
}
