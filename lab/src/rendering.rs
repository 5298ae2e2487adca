//! From a raw run to rendered files: summarise, then hand the summary and the scenario's texts to the pure
//! renderers of the `render` crate. `lab <scenario>` and `lab report` both go through here, so a report
//! re-rendered from its raw file is byte-identical to the one the run wrote.

use measure::scenario::Scenario;
use measure::summary::Summary;
use render::{IndexEntry, Rendered, ReportInput};

use crate::answers;
use crate::raw::RawRun;
use crate::summarize;
use crate::table;

/// A run's summary, its rendered files, and its line in `index.md`.
#[derive(Debug)]
pub(crate) struct RenderedRun {
    /// The summary (`<scenario>.json`).
    pub summary: Summary,
    /// Every file of the report.
    pub files: Rendered,
    /// The run's entry in the index of `lab all`.
    pub index_entry: IndexEntry,
    /// What the terminal's summary table shows besides the summary.
    pub table_spec: table::Spec,
    /// The bounds of outstanding work the trials' checks stated, for the summary table.
    pub bounds: table::Bounds,
    /// What the run answers its questions, printed after the summary table.
    pub answers: answers::Answers,
}

impl RenderedRun {
    /// The summary table, then the run's answers, `width` columns wide at most, coloured when `colour`.
    pub(crate) fn table(&self, width: usize, colour: bool) -> String {
        let table = table::render(&self.summary, &self.table_spec, &self.bounds, width, colour);
        table + &answers::render(&self.answers, width, colour)
    }
}

/// Summarise `run` and render its report, summary JSON and charts; `across_cores` is the one line on whether its
/// answers hold at the other core counts its scenario ran at ([`render::by_cores::report_line`]), shown after the
/// scenario's own findings in the report's answer and in the index.
pub(crate) fn render(run: &RawRun, scenario: &dyn Scenario, across_cores: Option<String>) -> RenderedRun {
    let summary = summarize::summarize(run, scenario);
    let mut headline_notes = scenario.headline_notes(&summary);
    headline_notes.extend(across_cores);
    let input = ReportInput {
        summary: &summary,
        title: scenario.title(),
        question: scenario.question(),
        discussion: scenario.discussion(&summary),
        details_discussion: scenario.details_discussion(&summary),
        headline_metric: scenario.headline_metric(),
        higher_is_better: scenario.higher_is_better(),
        table_metrics: scenario.table_metrics(),
        charts: scenario.charts(),
        series: summarize::first_series(run),
        harness_notes: summarize::harness_notes(run),
        headline_notes,
        trade_off_metrics: scenario.trade_off_metrics(),
    };
    let files = render::render(&input);
    let index_entry = IndexEntry::from_input(&input);
    let table_spec = table::Spec::of(scenario, &summary);
    let answers = answers::said(&summary);
    RenderedRun { bounds: table::bounds(run), summary, files, index_entry, table_spec, answers }
}
