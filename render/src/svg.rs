//! Charts as SVG (`img/<scenario>-<id>.svg`), drawn with plotters' SVG backend.
//!
//! Text is written as SVG `<text>` elements without measuring fonts (plotters' naive font layout, no font
//! files), so rendering needs no system fonts and the same input always gives the same bytes. Only contestants
//! that passed and measured the metric are drawn (a sweep's reference line, too, is read only from contestants
//! that passed), and the chart's note names every contestant the run selected that it leaves out, and why; a
//! chart with nothing to draw says "no data".
//!
//! What a chart draws for a contestant is the figure every verdict is judged on: the median of its process
//! medians ([`figure`]), with the process medians themselves around it on bar charts. Every reference a title
//! names (a bound, a ceiling, a deadline) is a [`ChartReference`] the chart draws as a labelled dashed line, its
//! value read from the run. Each line of an over-time chart is drawn by its [`SeriesRole`], the same in every
//! chart, and named in words in the key; a panel whose run took too few samples to show it is left out, and
//! the note says which. [`chart_words`] gives the title as drawn and the alt text (which states the scale of each
//! axis as drawn) for the report that embeds the chart.

use std::ops::Range;

use measure::question::FAMILY_ORDER;
use measure::record::{Mark, Status};
use measure::scenario::{ChartKind, ChartReference, ChartSpec, SeriesLine, SeriesRole};
use measure::summary::{metric_key, ContestantSummary, Family, MetricStats, Summary};
use plotters::coord::ranged1d::{AsRangedCoord, ValueFormatter};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use crate::format;
use crate::ReportInput;

/// Width of every chart in pixels.
const WIDTH: u32 = 900;
/// Height of a line chart in pixels.
const LINE_HEIGHT: u32 = 480;
/// Width of a small-multiples (series) chart in pixels.
const PANELS_WIDTH: u32 = 960;
/// Height of one panel of a small-multiples chart in pixels.
const PANEL_HEIGHT: u32 = 200;
/// Height of the title area above the panels of a small-multiples chart in pixels.
const PANELS_HEADER: u32 = 64;
/// Height of the strip under a bar chart that holds the family key, in pixels.
const KEY_HEIGHT: u32 = 26;
/// Height of one line of a chart's note, in pixels.
const NOTE_LINE: u32 = 17;
/// Height of one bar (or group header) row in pixels.
const ROW_HEIGHT: u32 = 26;
/// Lines a line chart labels at their ends in its plain size; more make it wider and taller.
const INSIDE_LEGEND_MAX: usize = 6;
/// Extra width of a line chart with many lines, in pixels.
const LEGEND_WIDTH: u32 = 350;
/// Height per line of a line chart with many lines, in pixels, so that their end labels fit.
const LEGEND_ROW: u32 = 19;
/// Width of the y label area of every line chart, in pixels: the same in every stacked panel, so that their
/// plots share x positions.
const Y_LABEL_AREA: u32 = 70;
/// Font for titles, labels and legends.
const FONT: &str = "sans-serif";
/// Radius of a contestant's markers on a line chart, in pixels.
const MARKER: u32 = 3;
/// Radius of the reference line's (smaller) markers, in pixels.
const REFERENCE_MARKER: u32 = 2;
/// Fewest samples a run of an over-time chart must have for its panel to show it; a panel with fewer is left out
/// and named in the chart's note.
pub const MIN_PANEL_SAMPLES: usize = 10;
/// Colour of reference lines and their labels.
const REFERENCE_COLOR: RGBColor = RGBColor(40, 40, 40);
/// Colour of a chart's note.
const NOTE_COLOR: RGBColor = RGBColor(90, 90, 90);
/// The p50's colour on every over-time chart.
const P50_COLOR: RGBColor = RGBColor(78, 121, 167);
/// The p99's colour on every over-time chart.
const P99_COLOR: RGBColor = RGBColor(225, 87, 89);

type Area<'a> = DrawingArea<SVGBackend<'a>, Shift>;
type DrawResult = Result<(), DrawError>;

/// Why plotters could not draw a chart, in its words (the fallback SVG shows them).
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
struct DrawError(String);

impl<E: std::error::Error + Send + Sync> From<DrawingAreaErrorKind<E>> for DrawError {
    fn from(e: DrawingAreaErrorKind<E>) -> Self {
        DrawError(e.to_string())
    }
}

/// What a chart says besides its drawing, for the report that embeds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChartWords {
    /// The title as the chart draws it: a chart asking for a log axis that had to draw a linear one says so.
    pub title: String,
    /// The alt text: the title as drawn, then the scale of each axis as drawn.
    pub alt: String,
    /// The chart's note, a sentence each: who the chart leaves out, and why.
    pub note: Vec<String>,
    /// Why the chart draws nothing (no contestant measured it, or every run was too short to sample), if it does
    /// not: a report leaves such a chart out and says why in its place.
    pub left_out: Option<String>,
}

/// What a chart draws, computed once from the run before anything is drawn.
#[derive(Debug, Clone)]
enum Drawing {
    /// Bars (or dots) per phase.
    Bars(Vec<Group>),
    /// Bars in two panels per phase.
    BarPanels { rows: Vec<PanelRow>, labels: [&'static str; 2] },
    /// Lines over a sweep, in stacked facets.
    Sweep { data: SweepData, facets: Vec<Facet> },
    /// Small multiples over time.
    Series { panels: Vec<Panel>, lines: &'static [SeriesLine] },
    /// Nothing to draw: the chart says why.
    Nothing(String),
}

/// A chart's drawing, its words and its axes, decided together.
#[derive(Debug, Clone)]
struct Plan {
    drawing: Drawing,
    words: ChartWords,
    /// Whether the value axis is drawn logarithmic.
    value_log: bool,
}

/// Render `chart` for `input` as an SVG document, a frame saying why when it has nothing to draw. Pure: the same
/// input gives the same bytes.
pub fn render_chart(input: &ReportInput<'_>, chart: &ChartSpec) -> String {
    draw_plan(input, chart, &plan(input, chart))
}

/// `chart` rendered as [`render_chart`] does, or `None` when it has nothing to draw (its [`ChartWords::left_out`]
/// says why): what a report writes, planning the chart once.
pub fn drawn_chart(input: &ReportInput<'_>, chart: &ChartSpec) -> Option<String> {
    let plan = plan(input, chart);
    plan.words.left_out.is_none().then(|| draw_plan(input, chart, &plan))
}

/// Draw a decided `plan` of `chart`.
fn draw_plan(input: &ReportInput<'_>, chart: &ChartSpec, plan: &Plan) -> String {
    let words = &plan.words;
    let result = match &plan.drawing {
        Drawing::Bars(groups) => {
            let families = families_drawn(input);
            draw(bars_size(groups, words), |a| bars(a, chart, plan, groups, &families))
        }
        Drawing::BarPanels { rows, labels } => {
            let families = families_drawn(input);
            draw(bar_panels_size(rows, words), |a| bar_panels(a, chart, plan, rows, *labels, &families))
        }
        Drawing::Sweep { data, facets } => draw(facets_size(facets, words), |a| sweep(a, chart, plan, data, facets)),
        Drawing::Series { panels, lines } => {
            let columns = panel_columns(input.summary.phase_keys().len(), panels.len());
            let keyed = !series_key_entries(lines, panels).is_empty();
            let size = panels_size(panels.len(), columns, keyed, words);
            draw(size, |a| series_chart(a, chart, plan, (panels.as_slice(), lines), columns))
        }
        Drawing::Nothing(why) => draw(nothing_size(words), |a| no_data(a, words, why)),
    };
    result.unwrap_or_else(|e| fallback(chart, &e))
}

/// The chart's title as drawn, its alt text and its note ([`ChartWords`]), as [`render_chart`] draws them.
pub fn chart_words(input: &ReportInput<'_>, chart: &ChartSpec) -> ChartWords {
    plan(input, chart).words
}

/// Decide what `chart` draws from `input`: its data, the scale of its axes, and its words.
fn plan(input: &ReportInput<'_>, chart: &ChartSpec) -> Plan {
    let mut note: Vec<String> = not_drawn(input.summary).into_iter().collect();
    let scale = |log: bool| if log { "log scale" } else { "linear scale" };
    let (drawing, value_log, axes) = match &chart.kind {
        ChartKind::Bars | ChartKind::BarPanels { .. } => match bars_data(input, chart) {
            Some(groups) => {
                let (lo, _) = span(groups.iter().flat_map(Group::values));
                let log = chart.log_scale && lo > 0.0;
                let axes = format!("{}: {}", chart.unit, scale(log));
                let drawing = match &chart.kind {
                    ChartKind::BarPanels { right, labels } => {
                        Drawing::BarPanels { rows: split_panels(groups, right), labels: *labels }
                    }
                    _ => Drawing::Bars(groups),
                };
                (drawing, log, axes)
            }
            None => (Drawing::Nothing(NO_DATA.to_string()), false, String::new()),
        },
        ChartKind::Sweep | ChartKind::SweepWithReference { .. } => {
            let reference = match &chart.kind {
                ChartKind::SweepWithReference { reference, label } => Some(Reference { reference, label }),
                _ => None,
            };
            match sweep_data(input, chart, reference) {
                Some(data) => {
                    let ((x_lo, _), (y_lo, _)) = bounds(&data.lines);
                    let (x_log, y_log) = (chart.log_scale && x_lo > 0.0, chart.log_scale && y_lo > 0.0);
                    let axes = format!("x, {}: {}; y, {}: {}", data.x_desc, scale(x_log), chart.unit, scale(y_log));
                    let facets = facets(input, &data.lines);
                    (Drawing::Sweep { data, facets }, y_log, axes)
                }
                None => (Drawing::Nothing(NO_DATA.to_string()), false, String::new()),
            }
        }
        ChartKind::Series { series } => {
            let panels = series_data(input, chart, series);
            let short: Vec<(String, f64)> =
                panels.iter().filter(|p| p.too_short()).map(|p| (p.label.clone(), p.period_ms)).collect();
            note.extend(too_short(&short));
            let log =
                chart.log_scale && panels.iter().flat_map(|p| &p.lines).flat_map(|l| &l.points).any(|p| p.1 > 0.0);
            let axes = format!("x, time (ms) since the phase started: linear scale; y, {}: {}", chart.unit, scale(log));
            if panels.iter().all(Panel::too_short) {
                let why = match short.first() {
                    Some((_, period)) => format!(
                        "no panel to draw: every run was too short to show at one sample every {period} ms (fewer \
                         than {MIN_PANEL_SAMPLES} samples)"
                    ),
                    None => NO_DATA.to_string(),
                };
                (Drawing::Nothing(why), false, String::new())
            } else {
                (Drawing::Series { panels, lines: series }, log, axes)
            }
        }
    };
    let title = match &drawing {
        Drawing::Nothing(_) => chart.title.to_string(),
        _ => drawn_title(chart, value_log),
    };
    let alt = if axes.is_empty() { title.clone() } else { format!("{title}. Axes as drawn: {axes}.") };
    let left_out = match &drawing {
        Drawing::Nothing(why) => Some(why.clone()),
        _ => None,
    };
    Plan { drawing, words: ChartWords { title, alt, note, left_out }, value_log }
}

/// What a chart with nothing to draw says.
const NO_DATA: &str = "no data: no contestant that passed measured this";

/// The note naming every contestant the run selected that no chart of the report draws (it failed, timed out
/// or was skipped), and every phase a contestant was skipped at: `None` when there is none.
fn not_drawn(summary: &Summary) -> Option<String> {
    let mut parts = Vec::new();
    for c in &summary.contestants {
        let why = match c.status {
            Status::Ok => {
                for phase in c.skipped_phases.keys().filter(|p| summary.phases.contains(p)) {
                    parts.push(format!("{} at {phase} (skipped)", c.name));
                }
                continue;
            }
            Status::Failed if c.expected_failure.is_some() => "failed, as expected",
            Status::Failed => "failed its checks",
            Status::Timeout => "timed out",
            Status::Skipped => "skipped",
        };
        parts.push(format!("{} ({why})", c.name));
    }
    (!parts.is_empty()).then(|| format!("Not drawn: {}.", parts.join(", ")))
}

/// The note naming the panels left out because their run took fewer than [`MIN_PANEL_SAMPLES`] samples:
/// `short` holds each panel's caption and its sampling period in ms.
fn too_short(short: &[(String, f64)]) -> Option<String> {
    let (_, period) = short.first()?;
    let names: Vec<&str> = short.iter().map(|(name, _)| name.as_str()).collect();
    Some(format!(
        "Left out, their run too short to show at one sample every {} ms (fewer than {MIN_PANEL_SAMPLES} samples): {}.",
        format::tick(*period),
        names.join(", ")
    ))
}

/// `text` broken at spaces into lines of at most `width` characters (a longer word gets a line of its own).
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    let mut line = String::new();
    for word in text.split_whitespace() {
        if !line.is_empty() && line.chars().count() + 1 + word.chars().count() > width {
            lines.push(std::mem::take(&mut line));
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if !line.is_empty() {
        lines.push(line);
    }
    lines
}

/// The lines of `words`' note on a chart `width` pixels wide (7 pixels a character).
fn note_lines(words: &ChartWords, width: u32) -> Vec<String> {
    let chars = usize::try_from(width.saturating_sub(28) / 7).unwrap_or(80).max(20);
    words.note.iter().flat_map(|n| wrap(n, chars)).collect()
}

/// Height of the note of `words` on a chart `width` pixels wide, in pixels.
fn note_height(words: &ChartWords, width: u32) -> u32 {
    let lines = u32::try_from(note_lines(words, width).len()).unwrap_or(0);
    if lines == 0 {
        0
    } else {
        6 + NOTE_LINE.saturating_mul(lines)
    }
}

/// Draw the note of `words` in `area` (as tall as [`note_height`]), left-aligned.
fn note(area: &Area<'_>, words: &ChartWords) -> DrawResult {
    let width = area.dim_in_pixel().0;
    let style = TextStyle::from((FONT, 13).into_font()).color(&NOTE_COLOR).pos(Pos::new(HPos::Left, VPos::Center));
    let mut y = 3 + i32::try_from(NOTE_LINE / 2).unwrap_or(8);
    for line in note_lines(words, width) {
        area.draw(&Text::new(line, (14, y), style.clone()))?;
        y += i32::try_from(NOTE_LINE).unwrap_or(17);
    }
    Ok(())
}

/// Split off the strip at the bottom of `root` that holds the note of `words`: (the rest, the note's strip).
fn note_strip<'a>(root: &Area<'a>, words: &ChartWords) -> (Area<'a>, Area<'a>) {
    let (width, height) = root.dim_in_pixel();
    root.split_vertically(height.saturating_sub(note_height(words, width)))
}

/// The figure a chart draws for one contestant's metric: the median of its process medians, what every verdict
/// is judged on (the median of every sample where no process median was kept).
fn figure(stats: &MetricStats) -> f64 {
    let processes: Vec<f64> = stats.fork_medians.iter().copied().filter(|m| m.is_finite()).collect();
    measure::stats::median(&processes).unwrap_or(stats.median)
}

/// One reference line of a chart as drawn: its label (words and value) and value, in the chart's unit.
#[derive(Debug, Clone, PartialEq)]
struct Drawn {
    label: String,
    value: f64,
}

/// The references of `chart` at `phase` that the run has a positive, finite value for (a value of zero or below
/// has no place on a log axis and bounds nothing).
fn references_at(input: &ReportInput<'_>, references: &[ChartReference], phase: Option<&str>) -> Vec<Drawn> {
    references
        .iter()
        .filter_map(|r| {
            let value = r.value.value(input.summary, phase).filter(|v| *v > 0.0)?;
            Some(Drawn { label: format!("{} = {}", r.words, format::tick(value)), value })
        })
        .collect()
}

/// Draw on a fresh SVG of `size` and return its text.
fn draw(size: (u32, u32), paint: impl FnOnce(&Area<'_>) -> DrawResult) -> Result<String, DrawError> {
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, size).into_drawing_area();
        root.fill(&WHITE)?;
        paint(&root)?;
        root.present()?;
    }
    Ok(svg)
}

/// A minimal SVG naming the drawing error; plotters writing to a string does not fail in practice.
fn fallback(chart: &ChartSpec, error: &DrawError) -> String {
    format!(
        "<svg width=\"{WIDTH}\" height=\"120\" viewBox=\"0 0 {WIDTH} 120\" xmlns=\"http://www.w3.org/2000/svg\">\n\
         <text x=\"20\" y=\"40\" font-family=\"{FONT}\" font-size=\"18\">{}</text>\n\
         <text x=\"20\" y=\"80\" font-family=\"{FONT}\" font-size=\"14\">chart could not be drawn: {}</text>\n</svg>\n",
        xml_escape(chart.title),
        xml_escape(&error.0)
    )
}

fn xml_escape(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;")
}

/// Size of a chart with nothing to draw: its title, why, and its note.
fn nothing_size(words: &ChartWords) -> (u32, u32) {
    (WIDTH, 100 + note_height(words, WIDTH))
}

/// A chart with nothing to draw: its title, why (`why`), and its note.
fn no_data(root: &Area<'_>, words: &ChartWords, why: &str) -> DrawResult {
    let (body, strip) = note_strip(root, words);
    body.draw(&Text::new(words.title.clone(), (20, 20), (FONT, 20).into_font()))?;
    body.draw(&Text::new(why.to_string(), (20, 70), (FONT, 16).into_font()))?;
    note(&strip, words)
}

/// Hue (degrees), saturation and the lightest and darkest lightness of each family's shades: stream blue,
/// blocking orange, coroutine green, baseline grey, so stream against blocking shows without the legend.
fn family_hue(family: Family) -> (f64, f64) {
    match family {
        Family::Stream => (212.0, 0.62),
        Family::Blocking => (26.0, 0.85),
        Family::Coroutine => (128.0, 0.50),
        Family::Baseline => (0.0, 0.0),
    }
}

/// The shade of `family` for the `index`-th of `count` contestants of that family: darkest first, lighter
/// (and a few degrees round the hue) after, all recognisably the family's hue.
fn shade(family: Family, index: usize, count: usize) -> RGBColor {
    let (hue, saturation) = family_hue(family);
    let t = if count > 1 { index as f64 / (count - 1) as f64 } else { 0.5 };
    let lightness = 0.30 + 0.32 * t;
    let hue = (hue + 20.0 * (t - 0.5)).rem_euclid(360.0);
    let RGBAColor(r, g, b, _) = HSLColor(hue / 360.0, saturation, lightness).to_rgba();
    RGBColor(r, g, b)
}

/// The family of the contestant named `contestant`, its index among the summary's contestants of that family,
/// and how many there are; `None` for a name the summary does not have.
fn family_place(input: &ReportInput<'_>, contestant: &str) -> Option<(Family, usize, usize)> {
    let contestants = &input.summary.contestants;
    let family = contestants.iter().find(|c| c.name == contestant)?.family;
    let same: Vec<&str> = contestants.iter().filter(|c| c.family == family).map(|c| c.name.as_str()).collect();
    let index = same.iter().position(|name| *name == contestant)?;
    Some((family, index, same.len()))
}

/// The contestant's colour: its family's hue, in a shade of its own (the same in every chart of the report).
fn color(input: &ReportInput<'_>, contestant: &str) -> RGBColor {
    match family_place(input, contestant) {
        Some((family, index, count)) => shade(family, index, count),
        None => RGBColor(128, 128, 128),
    }
}

/// Whether the contestant's lines are dashed: every second one of its family, so neighbouring shades of one
/// hue also differ in line style.
fn dashed(input: &ReportInput<'_>, contestant: &str) -> bool {
    family_place(input, contestant).is_some_and(|(_, index, _)| index % 2 == 1)
}

/// The summary's contestants that passed, in its order: the only ones a chart draws.
fn passed(summary: &Summary) -> impl Iterator<Item = &ContestantSummary> {
    summary.contestants.iter().filter(|c| c.status == Status::Ok)
}

/// The families among the summary's contestants that passed, in the order reports discuss them.
fn families_drawn(input: &ReportInput<'_>) -> Vec<Family> {
    FAMILY_ORDER.into_iter().filter(|f| passed(input.summary).any(|c| c.family == *f)).collect()
}

/// A one-line key of the family colours (a square in each family's middle shade and its name), left-aligned at
/// `(x, y)`.
fn family_key(area: &Area<'_>, families: &[Family], (x, y): (i32, i32)) -> DrawResult {
    let mut x = x;
    let style = TextStyle::from((FONT, 13).into_font()).pos(Pos::new(HPos::Left, VPos::Center));
    for family in families {
        area.draw(&Rectangle::new([(x, y - 6), (x + 12, y + 6)], shade(*family, 1, 3).filled()))?;
        area.draw(&Text::new(family.as_str().to_string(), (x + 17, y), style.clone()))?;
        x += 30 + 8 * i32::try_from(family.as_str().len()).unwrap_or(10);
    }
    Ok(())
}

/// Size of a line chart with `lines` lines: wider when they are many, and tall enough to stack their end
/// labels.
fn line_chart_size(lines: usize) -> (u32, u32) {
    if lines <= INSIDE_LEGEND_MAX {
        return (WIDTH, LINE_HEIGHT);
    }
    let rows = u32::try_from(lines).unwrap_or(u32::MAX / LEGEND_ROW);
    (WIDTH + LEGEND_WIDTH, LINE_HEIGHT.max(80 + rows.saturating_mul(LEGEND_ROW)))
}

/// A padded linear range covering `lo..hi` and zero.
fn linear_range(lo: f64, hi: f64) -> Range<f64> {
    let lo = lo.min(0.0);
    let hi = hi.max(0.0);
    if hi - lo <= f64::EPSILON {
        return lo..lo + 1.0;
    }
    lo..hi + (hi - lo) * 0.1
}

/// A padded logarithmic range covering `lo..hi` (both positive).
fn log_range(lo: f64, hi: f64) -> Range<f64> {
    lo / 1.5..hi * 1.5
}

// ---------------------------------------------------------------------------------------------------- bars

/// One bar: its figure (the median of its process medians, [`figure`]), the process medians themselves (what
/// every verdict is judged on), and the whisker from the lowest to the highest of those (none with one process).
#[derive(Debug, Clone)]
struct Bar {
    name: String,
    color: RGBColor,
    /// The figure drawn: the median of the process medians.
    median: f64,
    /// One median per process.
    processes: Vec<f64>,
    /// The lowest process median (the figure itself with one process).
    min: f64,
    /// The highest process median.
    max: f64,
}

/// Bars of one phase, with the chart's references at that phase.
#[derive(Debug, Clone)]
struct Group {
    phase: Option<String>,
    bars: Vec<Bar>,
    references: Vec<Drawn>,
}

impl Group {
    /// Whether the group opens with a header row: its phase's name, and the labels of its reference lines.
    fn has_header(&self) -> bool {
        self.phase.is_some() || !self.references.is_empty()
    }

    /// Every value the group draws: its bars' figures and whiskers, and its references.
    fn values(&self) -> impl Iterator<Item = f64> + '_ {
        // A bar's `min` and `max` are folded from its figure, so they hold it.
        self.bars.iter().flat_map(|b| [b.min, b.max]).chain(self.references.iter().map(|r| r.value))
    }
}

fn bars_data(input: &ReportInput<'_>, chart: &ChartSpec) -> Option<Vec<Group>> {
    let groups: Vec<Group> = input
        .summary
        .phase_keys()
        .into_iter()
        .map(|phase| Group {
            phase: phase.map(str::to_string),
            bars: passed(input.summary)
                .filter_map(|c| {
                    let s = c.metrics.get(&metric_key(phase, chart.metric))?;
                    let median = figure(s);
                    let processes: Vec<f64> = s.fork_medians.iter().copied().filter(|m| m.is_finite()).collect();
                    let min = processes.iter().copied().fold(median, f64::min);
                    let max = processes.iter().copied().fold(median, f64::max);
                    median.is_finite().then(|| Bar {
                        name: c.name.clone(),
                        color: color(input, &c.name),
                        median,
                        processes,
                        min,
                        max,
                    })
                })
                .collect(),
            references: references_at(input, chart.references, phase),
        })
        .filter(|g| !g.bars.is_empty())
        .collect();
    (!groups.is_empty()).then_some(groups)
}

fn row_count(groups: &[Group]) -> usize {
    groups.iter().map(|g| g.bars.len() + usize::from(g.has_header())).sum()
}

fn bars_size(groups: &[Group], words: &ChartWords) -> (u32, u32) {
    let rows = u32::try_from(row_count(groups)).unwrap_or(u32::MAX / ROW_HEIGHT);
    let body = (110 + ROW_HEIGHT.saturating_mul(rows)).max(180);
    (WIDTH, body.saturating_add(KEY_HEIGHT).saturating_add(note_height(words, WIDTH)))
}

/// A backend pixel (as `backend_coord` gives it) in `area`'s own coordinates, which its `draw` expects.
fn local(area: &Area<'_>, (x, y): (i32, i32)) -> (i32, i32) {
    let (left, top) = area.get_base_pixel();
    (x - left, y - top)
}

/// Split off the strips at the bottom of `root` that hold the family key and the note of `words`: (the rest,
/// the key's strip, the note's strip).
fn key_strip<'a>(root: &Area<'a>, words: &ChartWords) -> (Area<'a>, Area<'a>, Area<'a>) {
    let (rest, note) = note_strip(root, words);
    let height = rest.dim_in_pixel().1;
    let (body, key) = rest.split_vertically(height.saturating_sub(KEY_HEIGHT));
    (body, key, note)
}

fn bars(root: &Area<'_>, chart: &ChartSpec, plan: &Plan, groups: &[Group], families: &[Family]) -> DrawResult {
    let span = span(groups.iter().flat_map(Group::values));
    let panel = BarPanel { caption: &plan.words.title, caption_size: 20, label_width: label_width(groups) };
    let (body, key, strip) = key_strip(root, &plan.words);
    draw_bars_scaled(&body, chart, &panel, groups, (span, plan.value_log))?;
    family_key(&key, families, (14, 12))?;
    note(&strip, &plan.words)
}

/// One row of a [`ChartKind::BarPanels`] chart: a phase, its left-hand bars and its right-hand bars, and the
/// chart's references at that phase.
#[derive(Debug, Clone)]
struct PanelRow {
    phase: Option<String>,
    left: Vec<Bar>,
    right: Vec<Bar>,
    references: Vec<Drawn>,
}

/// The rows of a [`ChartKind::BarPanels`] chart: per phase, the bars of [`ChartKind::Bars`] split by whether the
/// contestant's name contains one of `right`.
fn split_panels(groups: Vec<Group>, right: &[&str]) -> Vec<PanelRow> {
    groups
        .into_iter()
        .map(|g| {
            let (right, left) = g.bars.into_iter().partition(|b| right.iter().any(|r| b.name.contains(r)));
            PanelRow { phase: g.phase, left, right, references: g.references }
        })
        .collect()
}

/// Height of one row of panels: room for the longer of its two panels (and the row of reference labels).
fn panel_row_height(row: &PanelRow) -> u32 {
    let rows = row.left.len().max(row.right.len()) + usize::from(!row.references.is_empty());
    let rows = u32::try_from(rows).unwrap_or(u32::MAX / ROW_HEIGHT);
    90 + ROW_HEIGHT.saturating_mul(rows)
}

fn bar_panels_size(rows: &[PanelRow], words: &ChartWords) -> (u32, u32) {
    let width = PANELS_WIDTH + 240;
    let body: u32 = rows.iter().map(panel_row_height).fold(0, u32::saturating_add);
    let height = PANELS_HEADER.saturating_add(KEY_HEIGHT).saturating_add(body);
    (width, height.saturating_add(note_height(words, width)))
}

/// Small multiples of bars: the title, then per phase a row of two panels (left and right contestants) sharing
/// one value axis and one name-column width, then the family key and the note.
fn bar_panels(
    root: &Area<'_>,
    chart: &ChartSpec,
    plan: &Plan,
    rows: &[PanelRow],
    labels: [&str; 2],
    families: &[Family],
) -> DrawResult {
    let (header, rest) = root.split_vertically(PANELS_HEADER);
    let (mut body, key, strip) = key_strip(&rest, &plan.words);
    let centre = i32::try_from((PANELS_WIDTH + 240) / 2).unwrap_or(0);
    let all = || rows.iter().flat_map(|r| r.left.iter().chain(&r.right));
    let span = span(all().flat_map(|b| [b.min, b.max]).chain(rows.iter().flat_map(|r| &r.references).map(|r| r.value)));
    let subtitle = format!(
        "{} on the left, {} on the right; one {} for every panel",
        labels[0],
        labels[1],
        if plan.value_log { "log scale" } else { "linear scale" }
    );
    title_and_note(&header, centre, plan.words.title.clone(), subtitle)?;
    let width = name_width(all().map(|b| b.name.as_str()), (80, 300));
    for row in rows {
        let (this, below) = body.split_vertically(panel_row_height(row));
        let (left, right) = this.split_horizontally((PANELS_WIDTH + 240) / 2);
        for (area, bars, label) in [(&left, &row.left, labels[0]), (&right, &row.right, labels[1])] {
            let caption = match &row.phase {
                Some(phase) => format!("{phase} · {label}"),
                None => label.to_string(),
            };
            if bars.is_empty() {
                let style = TextStyle::from((FONT, 15).into_font());
                area.draw(&Text::new(format!("{caption}: no data"), (20, 20), style))?;
                continue;
            }
            let panel = BarPanel { caption: &caption, caption_size: 15, label_width: width };
            let group = [Group { phase: None, bars: bars.clone(), references: row.references.clone() }];
            draw_bars_scaled(area, chart, &panel, &group, (span, plan.value_log))?;
        }
        body = below;
    }
    family_key(&key, families, (14, 12))?;
    note(&strip, &plan.words)
}

/// The chart's title as drawn, its value axis logarithmic (`log`) or not: a chart asking for a log axis falls
/// back to a linear one when a value is at or below zero, and its title then says so instead of "log scale".
fn drawn_title(chart: &ChartSpec, log: bool) -> String {
    if !chart.log_scale || log {
        return chart.title.to_string();
    }
    const LINEAR: &str = "linear scale: a value at or below zero has no place on a log axis";
    let title = chart
        .title
        .replace("(log scale)", &format!("({LINEAR})"))
        .replace("(log scale;", &format!("({LINEAR};"))
        .replace("; log scale)", &format!("; {LINEAR})"))
        .replace("; log scale;", &format!("; {LINEAR};"));
    if title == chart.title {
        format!("{title} ({LINEAR})")
    } else {
        title
    }
}

/// Width of the name column of a bar chart: enough for the longest name or phase heading.
fn label_width(groups: &[Group]) -> u32 {
    let names = groups.iter().flat_map(|g| g.bars.iter().map(|b| b.name.as_str()).chain(g.phase.as_deref()));
    name_width(names, (80, 360))
}

/// Room for the longest of `names` in pixels (7 a character and a margin), within `(least, most)`.
fn name_width<'n>(names: impl Iterator<Item = &'n str>, (least, most): (u32, u32)) -> u32 {
    let longest = names.map(|n| n.chars().count()).max().unwrap_or(0);
    u32::try_from(longest * 7 + 24).unwrap_or(most).clamp(least, most)
}

/// A header's centred title and, under it, its grey subtitle.
fn title_and_note(header: &Area<'_>, centre: i32, title: String, subtitle: String) -> DrawResult {
    let centred = |size: u32| TextStyle::from((FONT, size).into_font()).pos(Pos::new(HPos::Center, VPos::Center));
    header.draw(&Text::new(title, (centre, 20), centred(20)))?;
    Ok(header.draw(&Text::new(subtitle, (centre, 46), centred(13).color(&NOTE_COLOR)))?)
}

/// What a bar chart (or one panel of bars) writes above and beside its bars.
#[derive(Debug, Clone, Copy)]
struct BarPanel<'a> {
    caption: &'a str,
    caption_size: u32,
    label_width: u32,
}

/// Draw `groups` on an axis spanning `(lo, hi)`, logarithmic when `log` (every value is then positive).
fn draw_bars_scaled(
    root: &Area<'_>,
    chart: &ChartSpec,
    panel: &BarPanel<'_>,
    groups: &[Group],
    ((lo, hi), log): ((f64, f64), bool),
) -> DrawResult {
    if log {
        // On a log axis a bar's length means nothing: each row is a dot at the figure with its process medians.
        let range = log_range(lo, hi);
        let start = range.start;
        draw_bars(root, chart, panel, groups, range.log_scale(), (start, true))
    } else {
        let range = linear_range(lo, hi);
        let start = range.start.max(0.0).min(range.end);
        draw_bars(root, chart, panel, groups, range, (start, false))
    }
}

fn draw_bars<X>(
    root: &Area<'_>,
    chart: &ChartSpec,
    panel: &BarPanel<'_>,
    groups: &[Group],
    x_spec: X,
    (x_start, dots): (f64, bool),
) -> DrawResult
where
    X: AsRangedCoord<Value = f64>,
    X::CoordDescType: ValueFormatter<f64>,
{
    let rows = row_count(groups);
    let mut ctx = ChartBuilder::on(root)
        .caption(panel.caption, (FONT, panel.caption_size))
        .margin(12)
        .margin_right(70)
        .x_label_area_size(40)
        .y_label_area_size(panel.label_width)
        .build_cartesian_2d(x_spec, 0.0..rows as f64)?;
    // On a log axis spanning less than a decade or two, plotters puts a tick at every step of the leading digit
    // (100, 200, ... 900, 1,000 twice at a decade's edge): only the 1, 2 and 5 steps are labelled, each once,
    // and the minor grid, a line at every tenth of a step, is left out.
    let last_label = std::cell::RefCell::new(String::new());
    let tick = |v: &f64| {
        if !dots {
            return format::tick(*v);
        }
        let label = if log_step_labelled(*v) { format::tick(*v) } else { String::new() };
        if !label.is_empty() && *last_label.borrow() == label {
            return String::new();
        }
        last_label.replace(label.clone());
        label
    };
    let mut mesh = ctx.configure_mesh();
    mesh.disable_y_mesh().y_labels(0).x_desc(chart.unit).x_label_formatter(&tick).label_style((FONT, 13));
    if dots {
        mesh.light_line_style(TRANSPARENT);
    }
    mesh.draw()?;

    let label_style = TextStyle::from((FONT, 13).into_font()).pos(Pos::new(HPos::Right, VPos::Center));
    let group_style =
        TextStyle::from((FONT, 13).into_font().style(FontStyle::Bold)).pos(Pos::new(HPos::Right, VPos::Center));
    let value_style = TextStyle::from((FONT, 12).into_font()).pos(Pos::new(HPos::Left, VPos::Center));
    let (plot_left, plot_right) = {
        let (x_range, _) = ctx.plotting_area().get_pixel_range();
        let base = root.get_base_pixel().0;
        (x_range.start - base, x_range.end - base)
    };
    let mut row = 0usize;
    for group in groups {
        let group_top = (rows - row) as f64;
        if group.has_header() {
            let centre = group_top - 0.5;
            if let Some(phase) = &group.phase {
                let (x, y) = local(root, ctx.backend_coord(&(x_start, centre)));
                root.draw(&Text::new(phase.clone(), (x - 8, y), group_style.clone()))?;
            }
            row += 1;
        }
        let group_bottom = (rows - row - group.bars.len()) as f64;
        // Where each value is written (its row's pixel and the columns it spans), so that a reference line
        // crossing it leaves it readable.
        let mut values: Vec<(i32, Range<i32>)> = Vec::new();
        for bar in &group.bars {
            let top = (rows - row) as f64;
            let centre = top - 0.5;
            if dots {
                ctx.draw_series(std::iter::once(Circle::new((bar.median, centre), 6, bar.color.filled())))?;
            } else {
                let style = bar.color.filled();
                let rectangle = Rectangle::new([(x_start, top - 0.2), (bar.median, top - 0.8)], style);
                ctx.draw_series(std::iter::once(rectangle))?;
            }
            let each = bar.processes.iter().map(|m| Circle::new((*m, centre), 3, BLACK.stroke_width(1)));
            ctx.draw_series(each)?;
            if bar.processes.len() > 1 {
                let whisker = BLACK.stroke_width(1);
                let lines = [
                    vec![(bar.min, centre), (bar.max, centre)],
                    vec![(bar.min, centre - 0.15), (bar.min, centre + 0.15)],
                    vec![(bar.max, centre - 0.15), (bar.max, centre + 0.15)],
                ];
                ctx.draw_series(lines.into_iter().map(|points| PathElement::new(points, whisker)))?;
            }
            let (x, y) = local(root, ctx.backend_coord(&(x_start, centre)));
            root.draw(&Text::new(bar.name.clone(), (x - 8, y), label_style.clone()))?;
            let (x, y) = local(root, ctx.backend_coord(&(bar.max, centre)));
            let value = format::number(bar.median);
            values.push((y, x + 3..x + 9 + 7 * i32::try_from(value.chars().count()).unwrap_or(8)));
            root.draw(&Text::new(value, (x + 6, y), value_style.clone()))?;
            row += 1;
        }
        // Each reference a dashed line over the group's bars, labelled in its header row (several stacked).
        let count = group.references.len();
        for (index, reference) in group.references.iter().enumerate() {
            let (x, top) = local(root, ctx.backend_coord(&(reference.value, group_top - 1.0)));
            let (_, bottom) = local(root, ctx.backend_coord(&(reference.value, group_bottom)));
            let gaps: Vec<Range<i32>> =
                values.iter().filter(|(_, columns)| columns.contains(&x)).map(|(y, _)| y - 8..y + 8).collect();
            dashed_vertical(root, x, top..bottom, &gaps, REFERENCE_COLOR.stroke_width(2))?;
            let (_, header) = local(root, ctx.backend_coord(&(reference.value, group_top - 0.5)));
            let y = header + 13 * i32::try_from(index).unwrap_or(0) - 13 * i32::try_from(count - 1).unwrap_or(0) / 2;
            reference_label(root, &reference.label, (x, y), (plot_left, plot_right))?;
        }
    }
    Ok(())
}

/// A dashed straight line from `from` to `to` in `area`'s pixels: 6 pixels drawn, 4 left out.
fn dashed_line(area: &Area<'_>, from: (i32, i32), to: (i32, i32), style: ShapeStyle) -> DrawResult {
    let (dx, dy) = (f64::from(to.0 - from.0), f64::from(to.1 - from.1));
    let length = dx.hypot(dy);
    let mut at = 0.0;
    while at < length {
        let end = (at + 6.0).min(length);
        let point = |d: f64| (from.0 + (dx * d / length).round() as i32, from.1 + (dy * d / length).round() as i32);
        area.draw(&PathElement::new(vec![point(at), point(end)], style))?;
        at += 10.0;
    }
    Ok(())
}

/// A dashed vertical line at column `x` over the rows `rows` of `area`'s pixels (6 drawn, 4 left out), left
/// out over each of `gaps` (where it would cross a written value).
fn dashed_vertical(area: &Area<'_>, x: i32, rows: Range<i32>, gaps: &[Range<i32>], style: ShapeStyle) -> DrawResult {
    let mut at = rows.start;
    while at < rows.end {
        let end = (at + 6).min(rows.end);
        // The dash less whatever part of it a gap covers (a gap is shorter than the space between two values).
        let (mut from, mut to) = (at, end);
        for gap in gaps {
            if gap.start <= from && from < gap.end {
                from = gap.end;
            }
            if gap.start < to && to <= gap.end {
                to = gap.start;
            }
        }
        if from < to && !gaps.iter().any(|g| g.start <= from && to <= g.end) {
            area.draw(&PathElement::new(vec![(x, from), (x, to)], style))?;
        }
        at += 10;
    }
    Ok(())
}

/// A reference line's label at `(x, y)`: to the right of the line, or to its left where it would run past the
/// plot's right edge (`plot.1`); never left of the plot's left edge (`plot.0`).
fn reference_label(area: &Area<'_>, label: &str, (x, y): (i32, i32), plot: (i32, i32)) -> DrawResult {
    let width = 7 * i32::try_from(label.chars().count()).unwrap_or(40);
    let (x, h) = if x + 5 + width <= plot.1 { (x + 5, HPos::Left) } else { ((x - 5).max(plot.0 + width), HPos::Right) };
    let style = TextStyle::from((FONT, 12).into_font()).color(&REFERENCE_COLOR).pos(Pos::new(h, VPos::Center));
    Ok(area.draw(&Text::new(label.to_string(), (x, y), style))?)
}

/// Whether a tick at `value` on a log axis is labelled: its leading digit is 1, 2 or 5.
fn log_step_labelled(value: f64) -> bool {
    if !(value.is_finite() && value > 0.0) {
        return false;
    }
    let leading = value / 10f64.powf(value.log10().floor());
    [1.0, 2.0, 5.0, 10.0].iter().any(|step| (leading - step).abs() < 1e-6 * step)
}

// ---------------------------------------------------------------------------------------------------- lines

/// One line of a line chart.
#[derive(Debug, Clone)]
struct Line {
    label: String,
    color: RGBColor,
    /// Drawn dashed (a contestant whose colour another one already has, a reference line, or a limit).
    dashed: bool,
    /// Its stroke width in pixels.
    width: u32,
    /// Radius of its markers, where the chart draws markers.
    marker: u32,
    points: Vec<(f64, f64)>,
}

/// One panel of a small-multiples chart: a contestant (at a phase), its lines (in the order they are drawn),
/// its marks and the chart's references at its phase.
#[derive(Debug, Clone)]
struct Panel {
    label: String,
    lines: Vec<Line>,
    marks: Vec<Mark>,
    references: Vec<Drawn>,
    /// Milliseconds between two points of its series.
    period_ms: f64,
    /// The most points any of its series has: fewer than [`MIN_PANEL_SAMPLES`] and the panel is left out.
    samples: usize,
}

impl Panel {
    /// Whether its run took too few samples to show: its slot then says so instead of drawing lines.
    fn too_short(&self) -> bool {
        self.samples < MIN_PANEL_SAMPLES
    }
}

/// Lines of a sweep chart and what the x axis is.
#[derive(Debug, Clone)]
struct SweepData {
    x_desc: String,
    /// One line per contestant, in summary order, then the reference lines the chart has data for.
    lines: Vec<Line>,
}

/// The reference line of a [`ChartKind::SweepWithReference`]: its metric (without phase prefix) and its label.
#[derive(Debug, Clone, Copy)]
struct Reference<'a> {
    reference: &'a str,
    label: &'a str,
}

/// The parameter value of a sweep phase `<name>_<value>`, such as 64 for `work_64`.
fn phase_value(phase: &str) -> Option<(&str, f64)> {
    let (name, value) = phase.rsplit_once('_')?;
    value.parse::<f64>().ok().filter(|v| v.is_finite()).map(|v| (name, v))
}

/// A reference line of a line chart: black, dashed, with small markers.
fn reference_style(label: String, points: Vec<(f64, f64)>) -> Line {
    Line { label, color: BLACK, dashed: true, width: 2, marker: REFERENCE_MARKER, points }
}

/// The lines of a sweep chart: one per contestant that passed and measured the metric, at its [`figure`] per
/// phase, then, if `reference` is given and some phase has it, the reference line (black, dashed), then one line
/// per [`ChartReference`] of the chart over the phases it has a value at. `None` when no contestant has a line.
fn sweep_data(input: &ReportInput<'_>, chart: &ChartSpec, reference: Option<Reference<'_>>) -> Option<SweepData> {
    let summary = input.summary;
    let parsed: Option<Vec<(&str, f64)>> = summary.phases.iter().map(|p| phase_value(p)).collect();
    let (x_desc, xs): (String, Vec<f64>) = match parsed {
        Some(values) if !values.is_empty() => (values[0].0.replace('_', " "), values.iter().map(|(_, v)| *v).collect()),
        _ => ("phase (position)".to_string(), (0..summary.phases.len()).map(|i| i as f64).collect()),
    };
    let mut lines: Vec<Line> = passed(summary)
        .filter_map(|c| {
            let points: Vec<(f64, f64)> = summary
                .phases
                .iter()
                .zip(&xs)
                .filter_map(|(phase, x)| {
                    let value = figure(c.metrics.get(&metric_key(Some(phase), chart.metric))?);
                    value.is_finite().then_some((*x, value))
                })
                .collect();
            (!points.is_empty()).then(|| Line {
                label: c.name.clone(),
                color: color(input, &c.name),
                dashed: dashed(input, &c.name),
                width: 2,
                marker: MARKER,
                points,
            })
        })
        .collect();
    if lines.is_empty() {
        return None;
    }
    lines.extend(reference.and_then(|r| reference_line(input, r, &xs)));
    for r in chart.references {
        let points: Vec<(f64, f64)> = summary
            .phases
            .iter()
            .zip(&xs)
            .filter_map(|(phase, x)| Some((*x, r.value.value(summary, Some(phase)).filter(|v| *v > 0.0)?)))
            .collect();
        if !points.is_empty() {
            lines.push(reference_style(r.words.to_string(), points));
        }
    }
    Some(SweepData { x_desc, lines })
}

/// The reference line over the phases at `xs`: at each phase, the finite [`figure`] of `<phase>.<reference>`
/// from the first contestant in summary order that passed and has it; phases where none has it are skipped.
/// `None` when no phase has it.
fn reference_line(input: &ReportInput<'_>, reference: Reference<'_>, xs: &[f64]) -> Option<Line> {
    let summary = input.summary;
    let points: Vec<(f64, f64)> = summary
        .phases
        .iter()
        .zip(xs)
        .filter_map(|(phase, x)| {
            let key = metric_key(Some(phase), reference.reference);
            passed(summary)
                .find_map(|c| c.metrics.get(&key).map(figure).filter(|m| m.is_finite()))
                .map(|value| (*x, value))
        })
        .collect();
    (!points.is_empty()).then(|| reference_style(reference.label.to_string(), points))
}

/// Colours of measured series, in the order a chart names them.
const MEASURED_COLORS: [RGBColor; 4] =
    [RGBColor(89, 161, 79), RGBColor(176, 122, 161), RGBColor(156, 117, 95), RGBColor(78, 121, 167)];
/// Colours of limits, in the order a chart names them.
const LIMIT_COLORS: [RGBColor; 3] = [RGBColor(242, 142, 43), RGBColor(150, 150, 150), RGBColor(237, 201, 72)];

/// How the `index`-th line of `lines` is drawn, by its role alone, the same in every chart: (colour, stroke
/// width, dashed). A chart of one line draws it in `own` (its contestant's colour) instead.
fn series_style(lines: &[SeriesLine], index: usize, own: RGBColor) -> (RGBColor, u32, bool) {
    let Some(line) = lines.get(index) else { return (own, 2, false) };
    let nth = lines[..index].iter().filter(|l| l.role == line.role).count();
    let single = lines.len() == 1;
    match line.role {
        SeriesRole::P50 => (P50_COLOR, 2, false),
        SeriesRole::P99 => (P99_COLOR, 3, false),
        SeriesRole::Measured if single => (own, 2, false),
        SeriesRole::Limit if single => (own, 2, false),
        SeriesRole::Measured => (MEASURED_COLORS[nth % MEASURED_COLORS.len()], 2, false),
        SeriesRole::Limit => (LIMIT_COLORS[nth % LIMIT_COLORS.len()], 6, true),
    }
}

/// Where a role's lines come in a panel's drawing order: limits first, so that a measured line running along a
/// limit is drawn over it, and p99 last, over the p50.
fn draw_rank(role: SeriesRole) -> u8 {
    match role {
        SeriesRole::Limit => 0,
        SeriesRole::P50 => 1,
        SeriesRole::Measured => 2,
        SeriesRole::P99 => 3,
    }
}

/// The panels of a series chart, one per contestant that passed and phase with a series of `lines`, each line
/// styled by its role ([`series_style`]) and in drawing order ([`draw_rank`]); a panel whose run took fewer than
/// [`MIN_PANEL_SAMPLES`] samples keeps its slot but no line ([`Panel::too_short`]).
fn series_data(input: &ReportInput<'_>, chart: &ChartSpec, lines: &[SeriesLine]) -> Vec<Panel> {
    let summary = input.summary;
    let mut panels = Vec::new();
    for c in passed(summary) {
        let Some(by_name) = input.series.get(&c.name) else { continue };
        for phase in summary.phase_keys() {
            let mut drawn: Vec<(u8, Line)> = Vec::new();
            let mut marks: Vec<Mark> = Vec::new();
            let mut samples = 0;
            let mut period_ms = f64::NAN;
            for (index, line) in lines.iter().enumerate() {
                let Some(s) = by_name.get(&metric_key(phase, line.series)) else { continue };
                let points: Vec<(f64, f64)> = s
                    .values
                    .iter()
                    .enumerate()
                    .map(|(i, v)| (s.period_ms * i as f64, *v))
                    .filter(|(t, v)| t.is_finite() && v.is_finite())
                    .collect();
                if points.is_empty() {
                    continue;
                }
                samples = samples.max(s.values.len());
                period_ms = s.period_ms;
                let (color, width, dashed) = series_style(lines, index, color(input, &c.name));
                let label = line.words.to_string();
                drawn.push((draw_rank(line.role), Line { label, color, dashed, width, marker: MARKER, points }));
                for mark in s.marks.iter().filter(|m| m.at_ms.is_finite()) {
                    if !marks.contains(mark) {
                        marks.push(mark.clone());
                    }
                }
            }
            if drawn.is_empty() {
                continue;
            }
            let label = match phase {
                Some(phase) => format!("{} @ {phase}", c.name),
                None => c.name.clone(),
            };
            if samples < MIN_PANEL_SAMPLES {
                // Its slot stays, so that the grid keeps one contestant to a row, and says why it is empty.
                let (lines, marks, references) = (Vec::new(), Vec::new(), Vec::new());
                panels.push(Panel { label, lines, marks, references, period_ms, samples });
                continue;
            }
            drawn.sort_by_key(|(rank, _)| *rank);
            let lines = drawn.into_iter().map(|(_, line)| line).collect();
            let references = references_at(input, chart.references, phase);
            panels.push(Panel { label, lines, marks, references, period_ms, samples });
        }
    }
    panels
}

/// The most lines one panel of a sweep chart holds; more are split into panels ([`facets`]).
const FACET_LINES: usize = 8;

/// One panel of a sweep chart: its caption's addition (the family) and the lines it draws.
#[derive(Debug, Clone)]
struct Facet {
    name: Option<String>,
    lines: Vec<Line>,
}

/// The panels of a sweep chart: one panel when it has at most [`FACET_LINES`] lines, otherwise one per family
/// (in [`FAMILY_ORDER`], split into parts of at most [`FACET_LINES`] where a family has more), each with the
/// reference lines (a line that is no contestant's) as well.
fn facets(input: &ReportInput<'_>, lines: &[Line]) -> Vec<Facet> {
    if lines.len() <= FACET_LINES {
        return vec![Facet { name: None, lines: lines.to_vec() }];
    }
    let family_of = |l: &Line| input.summary.contestant(&l.label).map(|c| c.family);
    let references: Vec<Line> = lines.iter().filter(|l| family_of(l).is_none()).cloned().collect();
    let mut facets = Vec::new();
    for family in FAMILY_ORDER {
        let of: Vec<Line> = lines.iter().filter(|l| family_of(l) == Some(family)).cloned().collect();
        let parts = of.len().div_ceil(FACET_LINES);
        for (i, part) in of.chunks(FACET_LINES).enumerate() {
            let name =
                if parts > 1 { format!("{} ({} of {parts})", family.as_str(), i + 1) } else { family.as_str().into() };
            let mut lines = part.to_vec();
            lines.extend(references.iter().cloned());
            facets.push(Facet { name: Some(name), lines });
        }
    }
    facets
}

/// Size of a sweep chart of `facets`, stacked, every one as wide as the widest, and its note.
fn facets_size(facets: &[Facet], words: &ChartWords) -> (u32, u32) {
    let (width, height) =
        facets.iter().map(|f| line_chart_size(f.lines.len())).fold((0, 0), |(w, h), (fw, fh)| (w.max(fw), h + fh));
    (width, height.saturating_add(note_height(words, width)))
}

/// A sweep chart: its facets stacked, every one on the same axes (the bounds of every line of the chart) at the
/// same x positions (one width, one y label area, one room for end labels), then its note.
fn sweep(root: &Area<'_>, chart: &ChartSpec, plan: &Plan, data: &SweepData, facets: &[Facet]) -> DrawResult {
    let bounds = bounds(&data.lines);
    let end_label_room = name_width(data.lines.iter().map(|l| l.label.as_str()), (40, 300));
    let (mut rest, strip) = note_strip(root, &plan.words);
    for facet in facets {
        let height = line_chart_size(facet.lines.len()).1;
        let (area, below) = rest.split_vertically(height);
        let caption = match &facet.name {
            Some(name) => format!("{} — {name}", plan.words.title),
            None => plan.words.title.clone(),
        };
        line_chart(&area, chart, (&caption, &data.x_desc, end_label_room), &facet.lines, bounds)?;
        rest = below;
    }
    note(&strip, &plan.words)
}

/// The x and y bounds of `lines`' points.
fn bounds(lines: &[Line]) -> ((f64, f64), (f64, f64)) {
    let points = || lines.iter().flat_map(|l| &l.points);
    (span(points().map(|p| p.0)), span(points().map(|p| p.1)))
}

/// The smallest and largest of `values` (`(∞, -∞)` when there are none).
fn span(values: impl Iterator<Item = f64>) -> (f64, f64) {
    values.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| (lo.min(v), hi.max(v)))
}

/// Columns of the small-multiples grid: two when every contestant has two (or four) phases, so each row holds
/// one contestant, otherwise three; never more than there are panels.
fn panel_columns(phase_count: usize, panels: usize) -> usize {
    let preferred = if phase_count % 2 == 0 && phase_count % 3 != 0 { 2 } else { 3 };
    preferred.min(panels).max(1)
}

/// Height of the title area of a small-multiples chart: with a key row when its panels hold several series.
fn panels_header(keyed: bool) -> u32 {
    if keyed {
        PANELS_HEADER + KEY_HEIGHT
    } else {
        PANELS_HEADER
    }
}

fn panels_size(panels: usize, columns: usize, keyed: bool, words: &ChartWords) -> (u32, u32) {
    let rows = u32::try_from(panels.div_ceil(columns.max(1))).unwrap_or(u32::MAX / PANEL_HEIGHT);
    let height = panels_header(keyed).saturating_add(PANEL_HEIGHT.saturating_mul(rows));
    (PANELS_WIDTH, height.saturating_add(note_height(words, PANELS_WIDTH)))
}

/// The entries of a small-multiples chart's key, in its order: each series of `lines` in its words and drawn
/// style (colour, width, dashed) when there are several, then each reference of `panels` with its value (a thin
/// dark dashed line). Empty when the chart needs no key: one series and no reference.
fn series_key_entries(lines: &[SeriesLine], panels: &[Panel]) -> Vec<(String, (RGBColor, u32, bool))> {
    let mut entries: Vec<(String, (RGBColor, u32, bool))> = Vec::new();
    if lines.len() > 1 {
        for (index, line) in lines.iter().enumerate() {
            entries.push((line.words.to_string(), series_style(lines, index, BLACK)));
        }
    }
    for reference in panels.iter().flat_map(|p| &p.references) {
        if !entries.iter().any(|(label, _)| *label == reference.label) {
            entries.push((reference.label.clone(), (REFERENCE_COLOR, 1, true)));
        }
    }
    entries
}

/// Draw the key `entries` ([`series_key_entries`]) centred at `(centre, y)` of `header`: a sample of each line
/// (dashed where it is drawn dashed) and its words.
fn series_key(header: &Area<'_>, entries: &[(String, (RGBColor, u32, bool))], (centre, y): (i32, i32)) -> DrawResult {
    let style = TextStyle::from((FONT, 13).into_font()).pos(Pos::new(HPos::Left, VPos::Center));
    let widths: Vec<i32> =
        entries.iter().map(|(label, _)| 44 + 7 * i32::try_from(label.chars().count()).unwrap_or(10)).collect();
    let mut x = centre - widths.iter().sum::<i32>() / 2;
    for ((label, (color, stroke, dashed)), width) in entries.iter().zip(&widths) {
        let style_of = color.stroke_width(*stroke);
        if *dashed {
            header.draw(&PathElement::new(vec![(x, y), (x + 9, y)], style_of))?;
            header.draw(&PathElement::new(vec![(x + 15, y), (x + 24, y)], style_of))?;
        } else {
            header.draw(&PathElement::new(vec![(x, y), (x + 24, y)], style_of))?;
        }
        header.draw(&Text::new(label.clone(), (x + 30, y), style.clone()))?;
        x += width;
    }
    Ok(())
}

/// Small multiples: one panel per contestant (and phase), in order, all sharing one time axis (from the phase's
/// start to the latest point or mark of any panel) and one y scale; with several series, one key above the
/// panels (the same styles in every panel and every chart), so that no legend covers data; the note below.
fn series_chart(
    root: &Area<'_>,
    chart: &ChartSpec,
    plan: &Plan,
    (panels, lines): (&[Panel], &[SeriesLine]),
    columns: usize,
) -> DrawResult {
    let columns = columns.max(1);
    let rows = panels.len().div_ceil(columns);
    let entries = series_key_entries(lines, panels);
    let keyed = !entries.is_empty();
    let (header, rest) = root.split_vertically(panels_header(keyed));
    let (body, strip) = note_strip(&rest, &plan.words);
    let centre = i32::try_from(PANELS_WIDTH / 2).unwrap_or(0);
    let periods: Vec<f64> = panels.iter().map(|p| p.period_ms).filter(|p| p.is_finite()).collect();
    let every = match span(periods.iter().copied()) {
        (lo, hi) if lo == hi => format!(", a point every {} ms", format::tick(lo)),
        _ => String::new(),
    };
    let subtitle = format!(
        "x: time (ms) since the phase started{every} · y: {}, {} · one scale of each for every panel",
        chart.unit,
        if plan.value_log { "log scale" } else { "linear scale" }
    );
    title_and_note(&header, centre, plan.words.title.clone(), subtitle)?;
    if keyed {
        series_key(&header, &entries, (centre, i32::try_from(PANELS_HEADER + KEY_HEIGHT / 2).unwrap_or(0)))?;
    }

    // On a log scale, values at or below zero (a window without data) are left out rather than forcing a
    // linear axis.
    let log_panels: Vec<Panel>;
    let panels = if plan.value_log {
        log_panels = panels
            .iter()
            .map(|p| Panel {
                lines: p
                    .lines
                    .iter()
                    .map(|l| Line { points: l.points.iter().copied().filter(|pt| pt.1 > 0.0).collect(), ..l.clone() })
                    .collect(),
                ..p.clone()
            })
            .collect();
        &log_panels[..]
    } else {
        panels
    };
    let points = || panels.iter().flat_map(|p| &p.lines).flat_map(|l| &l.points);
    let references = || panels.iter().flat_map(|p| &p.references).map(|r| r.value);
    let (y_lo, y_hi) = span(points().map(|p| p.1).chain(references()));
    let x_hi = points().map(|p| p.0).fold(0.0, f64::max);
    let x_hi = panels.iter().flat_map(|p| &p.marks).map(|m| m.at_ms).fold(x_hi, f64::max);
    let x_range = 0.0..if x_hi > 0.0 { x_hi } else { 1.0 };
    let areas = body.split_evenly((rows, columns));
    for (area, panel_data) in areas.iter().zip(panels) {
        if panel_data.too_short() {
            let centred =
                |size: u32| TextStyle::from((FONT, size).into_font()).pos(Pos::new(HPos::Center, VPos::Center));
            let middle = i32::try_from(area.dim_in_pixel().0 / 2).unwrap_or(0);
            area.draw(&Text::new(panel_data.label.clone(), (middle, 14), centred(15)))?;
            let plural = if panel_data.samples == 1 { "" } else { "s" };
            let why = format!("left out: {} sample{plural}, too few to show its run", panel_data.samples);
            area.draw(&Text::new(why, (middle, 90), centred(13).color(&NOTE_COLOR)))?;
            continue;
        }
        let x = x_range.clone();
        if plan.value_log && y_lo > 0.0 {
            let y = (log_range(y_lo, y_hi), true);
            panel(area, chart, panel_data, x, y, || log_range(y_lo, y_hi).log_scale())?;
        } else {
            panel(area, chart, panel_data, x, (linear_range(y_lo, y_hi), false), || linear_range(y_lo, y_hi))?;
        }
    }
    note(&strip, &plan.words)
}

/// One panel of a small-multiples chart: its lines against the chart's shared time axis `x_range`, each mark a
/// dashed vertical line, each reference a dashed horizontal line (the key above the panels names the lines and
/// the references with their values). `y_bounds` is the y range `y_spec` builds and `log` whether it is logarithmic.
fn panel<Y>(
    area: &Area<'_>,
    chart: &ChartSpec,
    data: &Panel,
    x_range: Range<f64>,
    (y_bounds, log): (Range<f64>, bool),
    y_spec: impl FnOnce() -> Y,
) -> DrawResult
where
    Y: AsRangedCoord<Value = f64>,
    Y::CoordDescType: ValueFormatter<f64>,
{
    let x_end = x_range.end;
    let mut ctx = ChartBuilder::on(area)
        .caption(data.label.clone(), (FONT, 15))
        .margin(6)
        .margin_right(18)
        .x_label_area_size(22)
        .y_label_area_size(Y_LABEL_AREA)
        .build_cartesian_2d(x_range, y_spec())?;
    ctx.configure_mesh()
        .max_light_lines(0)
        .x_labels(6)
        .y_labels(5)
        .y_desc(chart.unit)
        .x_label_formatter(&|v: &f64| format::tick(*v))
        .y_label_formatter(&|v: &f64| format::tick(*v))
        .label_style((FONT, 12))
        .axis_desc_style((FONT, 12))
        .draw()?;
    let grey = RGBColor(110, 110, 110);
    for mark in &data.marks {
        let (bottom, top) = (y_bounds.start, y_bounds.end);
        // Evenly spaced on the drawn axis: geometric steps on a log scale, arithmetic ones otherwise.
        let at = |f: f64| if log { bottom * (top / bottom).powf(f) } else { bottom + (top - bottom) * f };
        let dashes = (0..20).map(|i| {
            let from = at(f64::from(i) / 20.0);
            let to = at((f64::from(i) + 0.5) / 20.0);
            PathElement::new(vec![(mark.at_ms, from), (mark.at_ms, to)], grey.stroke_width(1))
        });
        ctx.draw_series(dashes)?;
        let style = TextStyle::from((FONT, 11).into_font()).color(&grey);
        ctx.draw_series(std::iter::once(Text::new(format!(" {}", mark.label), (mark.at_ms, top), style)))?;
    }
    // References under the lines (a run along its bound stays in sight, and the bound shows beyond it); the key
    // above the panels names them with their values, so that no label covers data.
    for reference in &data.references {
        let (x0, y) = local(area, ctx.backend_coord(&(0.0, reference.value)));
        let (x1, _) = local(area, ctx.backend_coord(&(x_end, reference.value)));
        dashed_line(area, (x0, y), (x1, y), REFERENCE_COLOR.stroke_width(1))?;
    }
    for line in &data.lines {
        let stroke = line.color.stroke_width(line.width);
        if line.dashed {
            ctx.draw_series(DashedLineSeries::new(line.points.iter().copied(), 9, 5, stroke))?;
        } else {
            ctx.draw_series(LineSeries::new(line.points.iter().copied(), stroke))?;
        }
    }
    Ok(())
}

/// Draw `lines`, each with its markers, under `labels` (the caption, the x axis's description and the room
/// right of the plot for end labels) on the axes `bounds` gives (`x_lo..x_hi`, `y_lo..y_hi`), choosing log axes
/// where asked and every value is positive.
fn line_chart(
    root: &Area<'_>,
    chart: &ChartSpec,
    labels: (&str, &str, u32),
    lines: &[Line],
    ((x_lo, x_hi), (y_lo, y_hi)): ((f64, f64), (f64, f64)),
) -> DrawResult {
    let x_log = chart.log_scale && x_lo > 0.0;
    let y_log = chart.log_scale && y_lo > 0.0;
    let x_linear = if x_hi - x_lo <= f64::EPSILON { x_lo - 1.0..x_hi + 1.0 } else { x_lo..x_hi };
    let y_linear = linear_range(y_lo, y_hi);
    match (x_log, y_log) {
        (false, false) => draw_lines(root, chart, labels, x_linear, y_linear, lines),
        (true, false) => draw_lines(root, chart, labels, log_range(x_lo, x_hi).log_scale(), y_linear, lines),
        (false, true) => draw_lines(root, chart, labels, x_linear, log_range(y_lo, y_hi).log_scale(), lines),
        (true, true) => {
            draw_lines(root, chart, labels, log_range(x_lo, x_hi).log_scale(), log_range(y_lo, y_hi).log_scale(), lines)
        }
    }
}

fn draw_lines<X, Y>(
    root: &Area<'_>,
    chart: &ChartSpec,
    (caption, x_desc, end_label_room): (&str, &str, u32),
    x_spec: X,
    y_spec: Y,
    lines: &[Line],
) -> DrawResult
where
    X: AsRangedCoord<Value = f64>,
    X::CoordDescType: ValueFormatter<f64>,
    Y: AsRangedCoord<Value = f64>,
    Y::CoordDescType: ValueFormatter<f64>,
{
    let plot = root;
    let mut ctx = ChartBuilder::on(plot)
        .caption(caption, (FONT, 20))
        .margin(12)
        .margin_right(end_label_room)
        .x_label_area_size(44)
        .y_label_area_size(Y_LABEL_AREA)
        .build_cartesian_2d(x_spec, y_spec)?;
    ctx.configure_mesh()
        .x_desc(x_desc)
        .y_desc(chart.unit)
        .x_label_formatter(&|v: &f64| format::tick(*v))
        .y_label_formatter(&|v: &f64| format::tick(*v))
        .label_style((FONT, 13))
        .draw()?;
    for line in lines {
        let color = line.color;
        let style = color.stroke_width(line.width);
        if line.dashed {
            ctx.draw_series(DashedLineSeries::new(line.points.iter().copied(), 7, 4, style))?;
        } else {
            ctx.draw_series(LineSeries::new(line.points.iter().copied(), style))?;
        }
        ctx.draw_series(line.points.iter().map(|p| Circle::new(*p, line.marker, color.filled())))?;
    }
    let ends: Vec<(RGBColor, String, (i32, i32))> = lines
        .iter()
        .filter_map(|l| l.points.last().map(|p| (l.color, l.label.clone(), local(plot, ctx.backend_coord(p)))))
        .collect();
    let (top, bottom) = {
        let (_, y_range) = ctx.plotting_area().get_pixel_range();
        let base = plot.get_base_pixel().1;
        (y_range.start - base, y_range.end - base)
    };
    end_labels(plot, &ends, (top, bottom))
}

/// Smallest vertical distance between two end labels, in pixels.
const END_LABEL_GAP: i32 = 14;

/// Each line's label at its last point (instead of a legend), in a darker shade of its colour, moved up or down
/// only as far as needed to keep the labels that end at the same x `END_LABEL_GAP` apart within the plot's
/// pixel rows `top..bottom`, with a thin leader where one moved.
fn end_labels(area: &Area<'_>, ends: &[(RGBColor, String, (i32, i32))], (top, bottom): (i32, i32)) -> DrawResult {
    let mut columns: Vec<i32> = ends.iter().map(|e| e.2 .0).collect();
    columns.sort_unstable();
    columns.dedup();
    for column in columns {
        let mut order: Vec<usize> = (0..ends.len()).filter(|&i| ends[i].2 .0 == column).collect();
        order.sort_by_key(|&i| (ends[i].2 .1, i));
        let ys = spread_out(order.iter().map(|&i| ends[i].2 .1).collect(), (top, bottom));
        for (&i, label_y) in order.iter().zip(ys) {
            let (color, label, (x, y)) = &ends[i];
            let text_x = x + 14;
            if (label_y - y).abs() > 2 {
                area.draw(&PathElement::new(vec![(*x + 4, *y), (text_x - 3, label_y)], color.stroke_width(1)))?;
            }
            let RGBColor(r, g, b) = *color;
            let darker = RGBColor(r / 4 * 3, g / 4 * 3, b / 4 * 3);
            let style = TextStyle::from((FONT, 12).into_font()).color(&darker).pos(Pos::new(HPos::Left, VPos::Center));
            area.draw(&Text::new(label.clone(), (text_x, label_y), style))?;
        }
    }
    Ok(())
}

/// Pixel rows `ys` (sorted ascending) moved apart to at least `END_LABEL_GAP` each, as little as possible:
/// pushed down in order, then pulled back up from `bottom` where they overran it (never above `top` less a
/// gap).
fn spread_out(mut ys: Vec<i32>, (top, bottom): (i32, i32)) -> Vec<i32> {
    for k in 1..ys.len() {
        ys[k] = ys[k].max(ys[k - 1] + END_LABEL_GAP);
    }
    if let Some(last) = ys.last_mut() {
        *last = (*last).min(bottom);
    }
    for k in (0..ys.len().saturating_sub(1)).rev() {
        ys[k] = ys[k].min(ys[k + 1] - END_LABEL_GAP);
    }
    ys.into_iter().map(|y| y.max(top - END_LABEL_GAP)).collect()
}

#[cfg(test)]
mod tests {

    use measure::scenario::ReferenceValue;
    use measure::summary::{ContestantSummary, Environment, Family, Method, MetricStats, Summary};

    use super::*;

    fn stats(median: f64) -> MetricStats {
        MetricStats {
            median,
            min: median,
            max: median,
            ci999: 0.0,
            ci95_low: None,
            ci95_high: None,
            samples: Vec::new(),
            n: 1,
            mean: median,
            fork_medians: Vec::new(),
            processes: 0,
            outliers: Default::default(),
        }
    }

    fn contestant(name: &str, status: Status, metrics: &[(&str, f64)]) -> ContestantSummary {
        let metrics = metrics.iter().map(|(k, v)| ((*k).to_string(), stats(*v))).collect();
        ContestantSummary { status, ..testkit::fixture::contestant(name, Family::Stream, metrics) }
    }

    /// A three-phase sweep over `in_flight`: `failed` did not pass (and has the ideal at 100), `a` has the ideal
    /// at 100 and 10000 only, `b` at every phase (with other values, to tell where a point came from).
    fn summary() -> Summary {
        Summary {
            lab_version: "0.1.0".to_string(),
            git_rev: "abc1234".to_string(),
            environment: Environment::default(),
            method: Method { quick: true, forks: 1, warmup: 1, iterations: 2, seed: 1, ..testkit::fixture::method() },
            contestants: vec![
                contestant("failed", Status::Failed, &[("in_flight_100.ideal_ops_per_sec", 1.0)]),
                contestant(
                    "a",
                    Status::Ok,
                    &[
                        ("in_flight_100.ops_per_sec", 900.0),
                        ("in_flight_100.ideal_ops_per_sec", 1000.0),
                        ("in_flight_1000.ops_per_sec", 8000.0),
                        ("in_flight_10000.ops_per_sec", 50_000.0),
                        ("in_flight_10000.ideal_ops_per_sec", 100_000.0),
                    ],
                ),
                contestant(
                    "b",
                    Status::Ok,
                    &[
                        ("in_flight_100.ops_per_sec", 950.0),
                        ("in_flight_100.ideal_ops_per_sec", 1.5),
                        ("in_flight_1000.ops_per_sec", 9000.0),
                        ("in_flight_1000.ideal_ops_per_sec", 10_000.0),
                        ("in_flight_10000.ops_per_sec", 90_000.0),
                        ("in_flight_10000.ideal_ops_per_sec", 2.5),
                    ],
                ),
            ],
            phases: vec!["in_flight_100".to_string(), "in_flight_1000".to_string(), "in_flight_10000".to_string()],
            ..testkit::fixture::summary("device", vec![])
        }
    }

    fn input(summary: &Summary) -> ReportInput<'_> {
        ReportInput {
            title: "Device",
            question: "",
            headline_metric: "ops_per_sec",
            higher_is_better: true,
            table_metrics: Vec::new(),
            ..crate::analysis::tests::input(summary)
        }
    }

    fn chart(kind: ChartKind) -> ChartSpec {
        ChartSpec {
            id: "throughput",
            title: "Calls per second",
            metric: "ops_per_sec",
            unit: "calls per second",
            kind,
            log_scale: true,
            references: &[],
        }
    }

    const IDEAL: ChartKind = ChartKind::SweepWithReference { reference: "ideal_ops_per_sec", label: "ideal: a & b" };

    #[test]
    fn the_reference_line_comes_last_from_the_first_contestant_that_has_it_at_each_phase() {
        let summary = summary();
        let input = input(&summary);
        let reference = Reference { reference: "ideal_ops_per_sec", label: "ideal" };
        let data = sweep_data(&input, &chart(IDEAL), Some(reference)).expect("lines");
        let labels: Vec<&str> = data.lines.iter().map(|l| l.label.as_str()).collect();
        assert_eq!(labels, ["a", "b", "ideal"]);
        let line = &data.lines[2];
        // `a` has it at 100 and 10000, `b` (the next one) only fills in 1000; the failed contestant is ignored.
        assert_eq!(line.points, [(100.0, 1000.0), (1000.0, 10_000.0), (10_000.0, 100_000.0)]);
        assert_eq!((line.color, line.dashed, line.marker), (BLACK, true, REFERENCE_MARKER));
        assert_eq!(data.x_desc, "in flight", "the phase's parameter in words");
    }

    #[test]
    fn phases_without_the_reference_are_skipped() {
        let mut summary = summary();
        summary.contestants.retain(|c| c.name != "b");
        let input = input(&summary);
        let reference = Reference { reference: "ideal_ops_per_sec", label: "ideal" };
        let line = reference_line(&input, reference, &[100.0, 1000.0, 10_000.0]).expect("a reference line");
        assert_eq!(line.points, [(100.0, 1000.0), (10_000.0, 100_000.0)]);
    }

    #[test]
    fn without_the_reference_metric_the_chart_is_a_plain_sweep() {
        let summary = summary();
        let input = input(&summary);
        let missing = ChartKind::SweepWithReference { reference: "nobody_has_this", label: "ideal: a & b" };
        let with = render_chart(&input, &chart(missing));
        assert_eq!(with, render_chart(&input, &chart(ChartKind::Sweep)));
        assert!(!with.contains("ideal"));
    }

    #[test]
    fn a_sweep_with_reference_names_the_reference_in_its_legend_deterministically() {
        let summary = summary();
        let input = input(&summary);
        let svg = render_chart(&input, &chart(IDEAL));
        assert!(svg.starts_with("<svg"), "{svg}");
        assert!(svg.contains("ideal: a &amp; b"), "{svg}");
        // Dashed: plotters draws each dash as its own black polyline (the axes are 1 pixel wide).
        let dashes = svg.matches("stroke=\"#000000\" stroke-width=\"2\"").count();
        assert!(dashes > 10, "{dashes} black dashes");
        assert_eq!(svg.matches("r=\"2\" opacity=\"1\" fill=\"#000000\"").count(), 3, "one small marker per phase");
        assert_ne!(svg, render_chart(&input, &chart(ChartKind::Sweep)));
        assert_eq!(svg, render_chart(&input, &chart(IDEAL)));
    }

    #[test]
    fn a_reference_line_counts_towards_the_wider_size() {
        let mut summary = summary();
        for i in 0..(INSIDE_LEGEND_MAX - 2) {
            summary.contestants.push(contestant(&format!("c{i}"), Status::Ok, &[("in_flight_100.ops_per_sec", 1.0)]));
        }
        let input = input(&summary);
        let sweep = sweep_data(&input, &chart(ChartKind::Sweep), None).expect("lines");
        assert_eq!(sweep.lines.len(), INSIDE_LEGEND_MAX);
        let reference = Reference { reference: "ideal_ops_per_sec", label: "ideal" };
        let with = sweep_data(&input, &chart(IDEAL), Some(reference)).expect("lines");
        assert_eq!(with.lines.len(), INSIDE_LEGEND_MAX + 1);
        let svg = render_chart(&input, &chart(IDEAL));
        assert!(svg.contains(&format!("width=\"{}\"", WIDTH + LEGEND_WIDTH)), "wider");
        assert!(svg.contains("ideal: a &amp; b"));
    }

    #[test]
    fn many_lines_get_a_chart_tall_enough_to_label_them() {
        assert_eq!(line_chart_size(INSIDE_LEGEND_MAX), (WIDTH, LINE_HEIGHT));
        let (width, height) = line_chart_size(40);
        assert_eq!(width, WIDTH + LEGEND_WIDTH);
        assert!(height >= 40 * LEGEND_ROW, "{height}");
    }

    #[test]
    fn end_labels_are_spread_apart_and_kept_above_the_bottom() {
        assert_eq!(spread_out(vec![100, 102, 300], (0, 400)), [100, 100 + END_LABEL_GAP, 300]);
        assert_eq!(spread_out(vec![395, 396], (0, 400)), [400 - END_LABEL_GAP, 400]);
    }

    #[test]
    fn bars_take_their_familys_hue_in_shades() {
        let summary = summary();
        let input = input(&summary);
        // `a` and `b` are both streams (blue): different shades, blue dominant in both.
        let (a, b) = (color(&input, "a"), color(&input, "b"));
        assert_ne!(a, b);
        for RGBColor(r, _, blue) in [a, b] {
            assert!(blue > r, "{a:?} {b:?}");
        }
        let RGBColor(r, _, blue) = shade(Family::Blocking, 0, 1);
        assert!(r > blue, "blocking is orange");
        let RGBColor(r, g, blue) = shade(Family::Baseline, 0, 2);
        assert!(r == g && g == blue, "baseline is grey");
    }

    #[test]
    fn phase_values_come_from_the_suffix() {
        assert_eq!(phase_value("in_flight_10000"), Some(("in_flight", 10000.0)));
        assert_eq!(phase_value("before_drop"), None);
    }

    #[test]
    fn a_log_axis_labels_only_its_one_two_and_five_steps() {
        let labelled: Vec<f64> = [100.0, 200.0, 300.0, 500.0, 900.0, 1_000.0, 2_000.0, 0.02, 0.05, 0.07]
            .into_iter()
            .filter(|v| log_step_labelled(*v))
            .collect();
        assert_eq!(labelled, [100.0, 200.0, 500.0, 1_000.0, 2_000.0, 0.02, 0.05]);
        assert!(!log_step_labelled(0.0));
        assert!(!log_step_labelled(-100.0));
    }

    #[test]
    fn a_log_chart_drawn_on_a_linear_axis_says_so_in_its_title() {
        let mut spec = chart(ChartKind::Bars);
        spec.title = "Live heap (log scale)";
        assert_eq!(drawn_title(&spec, true), "Live heap (log scale)");
        assert!(drawn_title(&spec, false).starts_with("Live heap (linear scale: "), "{}", drawn_title(&spec, false));
        spec.title = "Calls (first run; log scale)";
        assert!(drawn_title(&spec, false).starts_with("Calls (first run; linear scale: "));
        spec.title = "Calls (log scale; dashed: the bound)";
        assert!(drawn_title(&spec, false).starts_with("Calls (linear scale: "), "{}", drawn_title(&spec, false));
        assert!(drawn_title(&spec, false).ends_with("; dashed: the bound)"));
        spec.title = "Calls";
        assert!(drawn_title(&spec, false).starts_with("Calls (linear scale: "));
        spec.log_scale = false;
        assert_eq!(drawn_title(&spec, false), "Calls");
    }

    #[test]
    fn the_alt_text_states_the_scale_each_axis_is_drawn_with() {
        let mut summary = summary();
        let input = input(&summary);
        let words = chart_words(&input, &chart(ChartKind::Bars));
        assert_eq!(words.alt, "Calls per second. Axes as drawn: calls per second: log scale.");
        summary.contestants[1].metrics.insert("in_flight_100.ops_per_sec".into(), stats(0.0));
        let input = self::input(&summary);
        let words = chart_words(&input, &chart(ChartKind::Bars));
        assert!(words.alt.ends_with("Axes as drawn: calls per second: linear scale."), "{}", words.alt);
        assert!(words.title.contains("linear scale"), "{}", words.title);
        let words = chart_words(&input, &chart(ChartKind::Sweep));
        assert!(words.alt.contains("x, in flight: log scale; y, calls per second: linear scale"), "{}", words.alt);
    }

    #[test]
    fn the_figure_drawn_is_the_median_of_the_process_medians() {
        let mut summary = summary();
        let mut spread = stats(2.0);
        spread.fork_medians = vec![1.0, 5.0, 6.0];
        summary.contestants[1].metrics.insert("in_flight_100.ops_per_sec".into(), spread);
        let input = input(&summary);
        let groups = bars_data(&input, &chart(ChartKind::Bars)).expect("bars");
        let bar = &groups[0].bars[0];
        assert_eq!((bar.name.as_str(), bar.median, bar.min, bar.max), ("a", 5.0, 1.0, 6.0));
        assert_eq!(bar.processes, [1.0, 5.0, 6.0], "the process medians are drawn around it");
        let sweep = sweep_data(&input, &chart(ChartKind::Sweep), None).expect("lines");
        assert_eq!(sweep.lines[0].points[0], (100.0, 5.0), "a sweep's point is the same figure");
        assert_eq!(figure(&stats(2.0)), 2.0, "without process medians, the median of every sample");
    }

    #[test]
    fn a_contestant_that_failed_or_was_skipped_is_named_in_the_charts_note() {
        let mut summary = summary();
        summary.contestants[2].skipped_phases.insert("in_flight_10000".into(), "too many threads".into());
        summary.contestants.push(contestant("gone", Status::Skipped, &[]));
        let input = input(&summary);
        let words = chart_words(&input, &chart(ChartKind::Bars));
        assert_eq!(
            words.note,
            ["Not drawn: failed (failed its checks), b at in_flight_10000 (skipped), gone (skipped)."]
        );
        let svg = render_chart(&input, &chart(ChartKind::Bars));
        assert!(svg.contains("Not drawn: failed (failed its checks)"), "{svg}");
        summary.contestants.retain(|c| c.status == Status::Ok);
        summary.contestants[1].skipped_phases.clear();
        assert!(chart_words(&self::input(&summary), &chart(ChartKind::Bars)).note.is_empty());
    }

    #[test]
    fn every_reference_is_drawn_and_labelled_with_its_value_at_its_phase() {
        let mut summary = summary();
        summary.params.insert("service_ms".into(), serde_json::json!(10));
        summary.params.insert("zero".into(), serde_json::json!(0));
        let input = input(&summary);
        const CEILING: [ChartReference; 2] = [
            ChartReference {
                words: "ceiling",
                value: ReferenceValue::Quotient { numerator: "in_flight", denominator: "service_ms", times: 1_000 },
            },
            ChartReference { words: "nothing", value: ReferenceValue::Param { key: "zero", times: 1 } },
        ];
        let mut spec = chart(ChartKind::Bars);
        spec.references = &CEILING;
        let groups = bars_data(&input, &spec).expect("bars");
        let labels: Vec<&str> = groups.iter().flat_map(|g| &g.references).map(|r| r.label.as_str()).collect();
        assert_eq!(labels, ["ceiling = 10,000", "ceiling = 100,000", "ceiling = 1,000,000"], "zero bounds nothing");
        let svg = render_chart(&input, &spec);
        for label in labels {
            assert!(svg.contains(label), "{label}");
        }
        let sweep = sweep_data(
            &input,
            &{
                let mut spec = chart(ChartKind::Sweep);
                spec.references = &CEILING;
                spec
            },
            None,
        )
        .expect("lines");
        let line = sweep.lines.last().expect("the reference line");
        assert_eq!((line.label.as_str(), line.dashed), ("ceiling", true));
        assert_eq!(line.points, [(100.0, 10_000.0), (1000.0, 100_000.0), (10_000.0, 1_000_000.0)]);
    }

    #[test]
    fn stacked_facets_put_one_x_value_at_one_pixel() {
        let mut summary = summary();
        // Enough lines for facets by family, with names of different lengths in each.
        for i in 0..FACET_LINES {
            let name = if i % 2 == 0 { format!("s{i}") } else { format!("a-much-longer-stream-name-{i}") };
            summary.contestants.push(contestant(&name, Status::Ok, &[("in_flight_100.ops_per_sec", 10.0 + i as f64)]));
        }
        let mut blocking = contestant("blocking-short", Status::Ok, &[("in_flight_100.ops_per_sec", 5.0)]);
        blocking.family = Family::Blocking;
        summary.contestants.push(blocking);
        let input = input(&summary);
        let data = sweep_data(&input, &chart(ChartKind::Sweep), None).expect("lines");
        assert!(facets(&input, &data.lines).len() > 1, "stacked");
        let svg = render_chart(&input, &chart(ChartKind::Sweep));
        let at_100: std::collections::BTreeSet<&str> =
            svg.split("<circle cx=\"").skip(1).filter_map(|c| c.split_once('"').map(|(x, _)| x)).collect();
        // Every marker sits at one of the three phases: one pixel column each, in every facet.
        assert_eq!(at_100.len(), 3, "{at_100:?}");
    }

    #[test]
    fn a_note_wraps_at_spaces_within_its_width() {
        assert_eq!(wrap("Not drawn: a (failed), b (skipped).", 20), ["Not drawn: a", "(failed), b", "(skipped)."]);
        assert_eq!(wrap("averyveryverylongword x", 5), ["averyveryverylongword", "x"]);
        assert!(wrap("  ", 10).is_empty());
    }

    #[test]
    fn ranges_include_zero_and_leave_room() {
        assert_eq!(linear_range(5.0, 10.0), 0.0..11.0);
        assert_eq!(linear_range(0.0, 0.0), 0.0..1.0);
    }

    #[test]
    fn a_series_is_drawn_by_its_role_alone_and_a_limit_under_what_runs_along_it() {
        const LATENCY: [SeriesLine; 2] = [
            SeriesLine { series: "p99", words: "p99", role: SeriesRole::P99 },
            SeriesLine { series: "p50", words: "p50", role: SeriesRole::P50 },
        ];
        const CALLER: [SeriesLine; 2] = [
            SeriesLine { series: "caller_p50_us", words: "p50", role: SeriesRole::P50 },
            SeriesLine { series: "caller_p99_us", words: "p99", role: SeriesRole::P99 },
        ];
        // The same style for p50 (and for p99) whatever order a chart names them in.
        assert_eq!(series_style(&LATENCY, 0, BLACK), series_style(&CALLER, 1, BLACK));
        assert_eq!(series_style(&LATENCY, 1, BLACK), series_style(&CALLER, 0, BLACK));
        assert_eq!(series_style(&CALLER, 1, BLACK).1, 3, "p99 thicker");
        assert!(draw_rank(SeriesRole::P99) > draw_rank(SeriesRole::P50), "p99 drawn over p50");
        const LIMITS: [SeriesLine; 2] = [
            SeriesLine { series: "limit", words: "limit", role: SeriesRole::Limit },
            SeriesLine { series: "n", words: "n", role: SeriesRole::Measured },
        ];
        let (_, limit_width, limit_dashed) = series_style(&LIMITS, 0, BLACK);
        let (_, width, dashed) = series_style(&LIMITS, 1, BLACK);
        assert!(limit_dashed && !dashed && limit_width > width, "the limit shows at the edges of a line along it");
        assert!(draw_rank(SeriesRole::Limit) < draw_rank(SeriesRole::Measured), "the measured line drawn on top");
        assert_eq!(series_style(&LIMITS[..1], 0, BLACK), (BLACK, 2, false), "a lone series takes the contestant's");
    }

    #[test]
    fn a_panel_whose_run_took_too_few_samples_is_left_out_and_named() {
        let summary = summary();
        let mut input = input(&summary);
        let long = measure::record::Series::new(1.0, vec![1.0; MIN_PANEL_SAMPLES]);
        let short = measure::record::Series::new(1.0, vec![1.0; MIN_PANEL_SAMPLES - 1]);
        let by_name = [("in_flight_100.n".to_string(), long), ("in_flight_1000.n".to_string(), short)];
        input.series.insert("a".to_string(), by_name.into_iter().collect());
        const N: [SeriesLine; 1] = [SeriesLine { series: "n", words: "n", role: SeriesRole::Measured }];
        let spec = chart(ChartKind::Series { series: &N });
        let panels = series_data(&input, &spec, &N);
        let drawn = |short: bool| -> Vec<&str> {
            panels.iter().filter(|p| p.too_short() == short).map(|p| p.label.as_str()).collect()
        };
        assert_eq!(drawn(false), ["a @ in_flight_100"]);
        assert_eq!(drawn(true), ["a @ in_flight_1000"], "its slot stays, empty");
        assert!(panels[1].lines.is_empty());
        let svg = render_chart(&input, &spec);
        assert!(svg.contains("left out: 9 samples, too few to show its run"), "{svg}");
        let words = chart_words(&input, &spec);
        assert!(
            words.note.iter().any(|n| n.starts_with("Left out") && n.ends_with(": a @ in_flight_1000.")),
            "{words:?}"
        );
    }

    #[test]
    fn a_chart_whose_every_run_is_too_short_is_left_out_with_its_reason() {
        let summary = summary();
        let mut input = input(&summary);
        let short = measure::record::Series::new(50.0, vec![1.0; MIN_PANEL_SAMPLES - 1]);
        input.series.insert("a".to_string(), [("in_flight_100.n".to_string(), short)].into_iter().collect());
        const N: [SeriesLine; 1] = [SeriesLine { series: "n", words: "n", role: SeriesRole::Measured }];
        let spec = chart(ChartKind::Series { series: &N });
        let why = chart_words(&input, &spec).left_out.expect("nothing to draw");
        assert_eq!(drawn_chart(&input, &spec), None, "no SVG written");
        assert_eq!(
            why,
            format!(
                "no panel to draw: every run was too short to show at one sample every 50 ms (fewer than \
                 {MIN_PANEL_SAMPLES} samples)"
            )
        );
        // One run long enough, and the chart is drawn.
        let long = measure::record::Series::new(50.0, vec![1.0; MIN_PANEL_SAMPLES]);
        input.series.insert("b".to_string(), [("in_flight_100.n".to_string(), long)].into_iter().collect());
        assert_eq!(chart_words(&input, &spec).left_out, None);
        assert_eq!(drawn_chart(&input, &spec), Some(render_chart(&input, &spec)));
    }

    #[test]
    fn panels_keep_one_contestant_per_row_when_they_can() {
        assert_eq!(panel_columns(2, 24), 2);
        assert_eq!(panel_columns(3, 9), 3);
        assert_eq!(panel_columns(1, 12), 3);
        assert_eq!(panel_columns(1, 1), 1);
        let words = ChartWords { title: String::new(), alt: String::new(), note: Vec::new(), left_out: None };
        assert_eq!(panels_size(24, 2, false, &words), (PANELS_WIDTH, PANELS_HEADER + 12 * PANEL_HEIGHT));
        assert_eq!(panels_size(24, 2, true, &words), (PANELS_WIDTH, PANELS_HEADER + KEY_HEIGHT + 12 * PANEL_HEIGHT));
        let noted = ChartWords { note: vec!["Not drawn: x (failed its checks).".to_string()], ..words };
        assert_eq!(panels_size(24, 2, false, &noted).1, PANELS_HEADER + 12 * PANEL_HEIGHT + 6 + NOTE_LINE);
    }
}
