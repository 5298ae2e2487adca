//! Charts: every kind renders a self-contained SVG naming the contestants it draws, deterministically.
#![allow(clippy::unwrap_used)]

mod common;

use measure::record::{Mark, Series};
use measure::scenario::{ChartKind, ChartReference, ChartSpec, ReferenceValue, SeriesLine, SeriesRole};

/// `spec` drawn from `input`, checked to be one whole SVG document.
fn drawn(input: &render::ReportInput<'_>, spec: &ChartSpec) -> String {
    let svg = render::svg::render_chart(input, spec);
    assert_svg_document(&svg);
    svg
}

/// The chart `id` of `input`, checked to be one whole SVG document.
fn chart(input: &render::ReportInput<'_>, id: &str) -> String {
    drawn(input, input.charts.iter().find(|c| c.id == id).unwrap())
}

/// The chart `id` of the common fixture's report.
fn common_chart(id: &str) -> String {
    chart(&common::input(&common::summary()), id)
}

/// The trimmed contents of every `<text>` element, in document order.
fn texts(svg: &str) -> Vec<String> {
    svg.split("<text")
        .skip(1)
        .filter_map(|t| t.split_once('>'))
        .filter_map(|(_, rest)| rest.split_once("</text>"))
        .map(|(inner, _)| inner.trim().to_string())
        .collect()
}

/// Asserts that `svg` has a `<text>` element reading each of `wanted`.
fn assert_texts(svg: &str, wanted: &[&str]) {
    let texts = texts(svg);
    for text in wanted {
        assert!(texts.iter().any(|t| t == text), "no text {text:?} in {texts:?}");
    }
}

fn assert_svg_document(svg: &str) {
    assert!(svg.starts_with("<svg"), "starts with {:?}", &svg[..svg.len().min(40)]);
    assert!(svg.trim_end().ends_with("</svg>"));
    assert_eq!(svg.matches("<text").count(), svg.matches("</text>").count());
}

#[test]
fn bars_draw_every_contestant_that_passed_and_name_the_others_in_the_note() {
    let svg = common_chart("ms");
    assert_texts(&svg, &["baseline-loop", "stream-map", "work_64"]);
    assert!(svg.contains("ms per million items"));
    assert!(svg.contains("Time per million items"));
    let failed: Vec<String> = texts(&svg).into_iter().filter(|t| t.contains("blocking-crossbeam")).collect();
    assert_eq!(failed, ["Not drawn: blocking-crossbeam (failed its checks)."], "no bar, one word in the note");
}

#[test]
fn a_sweep_draws_one_labelled_line_per_contestant() {
    let svg = common_chart("sweep");
    assert_texts(&svg, &["baseline-loop", "stream-map", "work"]);
}

#[test]
fn a_series_chart_draws_each_phase_of_each_contestant_against_time() {
    let svg = common_chart("outstanding");
    assert_texts(&svg, &["stream-map @ work_0", "stream-map @ work_64"]);
    assert!(svg.contains("time (ms)"));
    assert!(svg.contains("Items in flight over time"));
}

#[test]
fn a_series_chart_draws_one_captioned_panel_per_line_in_order() {
    let summary = common::summary();
    let mut input = common::input(&summary);
    let stream = input.series["stream-map"].clone();
    input.series.insert("baseline-loop".to_string(), stream);
    let svg = chart(&input, "outstanding");
    let captions: Vec<String> = texts(&svg).into_iter().filter(|t| t.contains(" @ ")).collect();
    assert_eq!(
        captions,
        ["baseline-loop @ work_0", "baseline-loop @ work_64", "stream-map @ work_0", "stream-map @ work_64"]
    );
}

#[test]
fn a_series_chart_overlays_several_series_with_a_legend_and_draws_their_marks() {
    let summary = common::summary();
    let mut input = common::input(&summary);
    let by_name = input.series.get_mut("stream-map").unwrap();
    let mut limit = Series::new(10.0, vec![20.0, 21.0, 22.0, 12.0, 12.0, 12.0, 14.0, 16.0, 18.0, 20.0]);
    limit.marks.push(Mark { at_ms: 20.0, label: "capacity 500 → 100".to_string() });
    by_name.insert("work_0.limit".to_string(), limit);
    let spec = ChartSpec {
        id: "limit",
        title: "Limit and calls in flight",
        metric: "max_outstanding",
        unit: "calls",
        kind: ChartKind::Series {
            series: &[
                SeriesLine { series: "limit", words: "the limit", role: SeriesRole::Limit },
                SeriesLine { series: "outstanding", words: "calls outstanding", role: SeriesRole::Measured },
            ],
        },
        log_scale: false,
        references: &[],
    };
    let svg = drawn(&input, &spec);
    // The phase with both series has a legend naming them in words, and the mark's label.
    assert_texts(&svg, &["the limit", "calls outstanding", "capacity 500 → 100"]);
    // The phase with only one of them still gets its panel.
    assert_texts(&svg, &["stream-map @ work_64"]);
}

#[test]
fn a_chart_with_nothing_to_draw_says_no_data() {
    let summary = common::summary();
    let input = common::input(&summary);
    let spec = ChartSpec {
        id: "none",
        title: "Latency",
        metric: "latency_p99_us",
        unit: "µs",
        kind: ChartKind::Bars,
        log_scale: true,
        references: &[],
    };
    let svg = drawn(&input, &spec);
    assert!(svg.contains("no data"));
}

#[test]
fn log_scale_bars_render() {
    let summary = common::summary();
    let input = common::input(&summary);
    let mut spec = input.charts[0].clone();
    spec.log_scale = true;
    let svg = drawn(&input, &spec);
    assert_texts(&svg, &["stream-map"]);
}

#[test]
fn charts_are_deterministic() {
    let summary = common::summary();
    let input = common::input(&summary);
    for spec in &input.charts {
        assert_eq!(render::svg::render_chart(&input, spec), render::svg::render_chart(&input, spec));
    }
}

#[test]
fn an_over_time_chart_draws_its_reference_in_every_panel_and_names_it_with_its_value_in_the_key() {
    let summary = common::summary();
    let input = common::input(&summary);
    let mut spec = input.charts.iter().find(|c| c.id == "outstanding").unwrap().clone();
    spec.references = &[ChartReference {
        words: "items per run ÷ 20,000",
        value: ReferenceValue::Quotient { numerator: "items", denominator: "per_run", times: 1 },
    }];
    // A parameter the run does not have: nothing is drawn, and nothing named.
    let without = drawn(&input, &spec);
    assert!(!without.contains("items per run"));
    const BOUND: [ChartReference; 1] =
        [ChartReference { words: "bound", value: ReferenceValue::Param { key: "items", times: 1 } }];
    spec.references = &BOUND;
    let svg = drawn(&input, &spec);
    assert_texts(&svg, &["bound = 1,000,000"]);
    assert_eq!(texts(&svg).iter().filter(|t| t.starts_with("bound")).count(), 1, "in the key, once");
}

#[test]
fn a_bar_charts_alt_text_and_title_say_the_scale_it_is_drawn_with() {
    let summary = common::summary();
    let input = common::input(&summary);
    let words = render::svg::chart_words(&input, &input.charts[0]);
    assert_eq!(words.title, "Time per million items");
    assert_eq!(words.alt, "Time per million items. Axes as drawn: ms per million items: linear scale.");
}
