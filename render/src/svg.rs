//! Charts as SVG (`img/<scenario>-<id>.svg`), drawn with plotters' SVG backend.
//!
//! Text is written as SVG `<text>` elements without measuring fonts (plotters' naive font layout, no font
//! files), so rendering needs no system fonts and the same input always gives the same bytes. Only contestants
//! that passed and measured the metric are drawn (a sweep's reference line, too, is read only from contestants
//! that passed); a chart with nothing to draw says "no data".

use std::ops::Range;

use measure::pick::FAMILY_ORDER;
use measure::record::{Mark, Status};
use measure::scenario::{ChartKind, ChartSpec};
use measure::summary::{metric_key, ContestantSummary, Family, Summary};
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
/// Height of one bar (or group header) row in pixels.
const ROW_HEIGHT: u32 = 26;
/// Lines a line chart labels at their ends in its plain size; more make it wider and taller.
const INSIDE_LEGEND_MAX: usize = 6;
/// Extra width of a line chart with many lines, in pixels.
const LEGEND_WIDTH: u32 = 350;
/// Height per line of a line chart with many lines, in pixels, so that their end labels fit.
const LEGEND_ROW: u32 = 19;
/// Font for titles, labels and legends.
const FONT: &str = "sans-serif";
/// Radius of a contestant's markers on a line chart, in pixels.
const MARKER: u32 = 3;
/// Radius of the reference line's (smaller) markers, in pixels.
const REFERENCE_MARKER: u32 = 2;

/// A colour-blind-friendly palette (Tableau 10) for charts whose lines are series rather than contestants (one
/// colour per series name, the same in every panel).
const PALETTE: [RGBColor; 10] = [
    RGBColor(78, 121, 167),
    RGBColor(242, 142, 43),
    RGBColor(225, 87, 89),
    RGBColor(118, 183, 178),
    RGBColor(89, 161, 79),
    RGBColor(237, 201, 72),
    RGBColor(176, 122, 161),
    RGBColor(255, 157, 167),
    RGBColor(156, 117, 95),
    RGBColor(186, 176, 172),
];

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

/// Render `chart` for `input` as an SVG document. Pure: the same input gives the same bytes.
pub fn render_chart(input: &ReportInput<'_>, chart: &ChartSpec) -> String {
    let sweep_chart = |d: SweepData| {
        let facets = facets(input, &d.lines);
        draw(facets_size(&facets), |a| sweep(a, chart, &d, &facets))
    };
    let result = match &chart.kind {
        ChartKind::Bars => bars_data(input, chart).map(|groups| {
            let families = families_drawn(input);
            draw(bars_height(&groups), |a| bars(a, chart, &groups, &families))
        }),
        ChartKind::BarPanels { right, labels } => bar_panels_data(input, chart, right).map(|rows| {
            let families = families_drawn(input);
            draw(bar_panels_size(&rows), |a| bar_panels(a, chart, &rows, *labels, &families))
        }),
        ChartKind::Sweep => sweep_data(input, chart, None).map(sweep_chart),
        ChartKind::SweepWithReference { reference, label } => {
            sweep_data(input, chart, Some(Reference { reference, label })).map(sweep_chart)
        }
        ChartKind::Series { series } => series_data(input, series).map(|panels| {
            let columns = panel_columns(input.summary.phase_keys().len(), panels.len());
            let keyed = series.len() > 1;
            draw(panels_size(panels.len(), columns, keyed), |a| series_chart(a, chart, &panels, columns, keyed))
        }),
    };
    match result {
        Some(Ok(svg)) => svg,
        None => draw((WIDTH, 120), |a| no_data(a, chart)).unwrap_or_else(|e| fallback(chart, &e)),
        Some(Err(e)) => fallback(chart, &e),
    }
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

fn no_data(root: &Area<'_>, chart: &ChartSpec) -> DrawResult {
    root.draw(&Text::new(chart.title.to_string(), (20, 20), (FONT, 20).into_font()))?;
    Ok(root.draw(&Text::new("no data: no contestant that passed measured this", (20, 70), (FONT, 16).into_font()))?)
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

/// One bar: the median, its process medians (what every verdict is judged on), and the whisker from the lowest
/// to the highest of those (none with one process).
#[derive(Debug, Clone)]
struct Bar {
    name: String,
    color: RGBColor,
    median: f64,
    /// One median per process.
    processes: Vec<f64>,
    /// The lowest process median (the median itself with one process).
    min: f64,
    /// The highest process median.
    max: f64,
}

/// Bars of one phase.
#[derive(Debug, Clone)]
struct Group {
    phase: Option<String>,
    bars: Vec<Bar>,
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
                    let processes: Vec<f64> = s.fork_medians.iter().copied().filter(|m| m.is_finite()).collect();
                    let min = processes.iter().copied().fold(s.median, f64::min);
                    let max = processes.iter().copied().fold(s.median, f64::max);
                    s.median.is_finite().then(|| Bar {
                        name: c.name.clone(),
                        color: color(input, &c.name),
                        median: s.median,
                        processes,
                        min,
                        max,
                    })
                })
                .collect(),
        })
        .filter(|g| !g.bars.is_empty())
        .collect();
    (!groups.is_empty()).then_some(groups)
}

fn row_count(groups: &[Group]) -> usize {
    groups.iter().map(|g| g.bars.len() + usize::from(g.phase.is_some())).sum()
}

fn bars_height(groups: &[Group]) -> (u32, u32) {
    let rows = u32::try_from(row_count(groups)).unwrap_or(u32::MAX / ROW_HEIGHT);
    (WIDTH, (110 + KEY_HEIGHT + ROW_HEIGHT.saturating_mul(rows)).max(180 + KEY_HEIGHT))
}

/// A backend pixel (as `backend_coord` gives it) in `area`'s own coordinates, which its `draw` expects.
fn local(area: &Area<'_>, (x, y): (i32, i32)) -> (i32, i32) {
    let (left, top) = area.get_base_pixel();
    (x - left, y - top)
}

/// Split off the strip at the bottom of `root` that holds the family key.
fn key_strip<'a>(root: &Area<'a>) -> (Area<'a>, Area<'a>) {
    let height = root.dim_in_pixel().1;
    root.split_vertically(height.saturating_sub(KEY_HEIGHT))
}

fn bars(root: &Area<'_>, chart: &ChartSpec, groups: &[Group], families: &[Family]) -> DrawResult {
    let all = || groups.iter().flat_map(|g| &g.bars);
    let span = value_span(all());
    let title = drawn_title(chart, span.0);
    let panel = BarPanel { caption: &title, caption_size: 20, label_width: label_width(groups) };
    let (body, key) = key_strip(root);
    draw_bars_scaled(&body, chart, &panel, groups, span)?;
    family_key(&key, families, (14, 12))
}

/// One row of a [`ChartKind::BarPanels`] chart: a phase, its left-hand bars and its right-hand bars.
#[derive(Debug, Clone)]
struct PanelRow {
    phase: Option<String>,
    left: Vec<Bar>,
    right: Vec<Bar>,
}

/// The rows of a [`ChartKind::BarPanels`] chart: per phase, the bars of [`ChartKind::Bars`] split by whether the
/// contestant's name contains one of `right`. `None` when no phase has a bar.
fn bar_panels_data(input: &ReportInput<'_>, chart: &ChartSpec, right: &[&str]) -> Option<Vec<PanelRow>> {
    let groups = bars_data(input, chart)?;
    let rows = groups
        .into_iter()
        .map(|g| {
            let (right, left) = g.bars.into_iter().partition(|b| right.iter().any(|r| b.name.contains(r)));
            PanelRow { phase: g.phase, left, right }
        })
        .collect();
    Some(rows)
}

/// Height of one row of panels: room for the longer of its two panels.
fn panel_row_height(row: &PanelRow) -> u32 {
    let bars = u32::try_from(row.left.len().max(row.right.len())).unwrap_or(u32::MAX / ROW_HEIGHT);
    90 + ROW_HEIGHT.saturating_mul(bars)
}

fn bar_panels_size(rows: &[PanelRow]) -> (u32, u32) {
    let body: u32 = rows.iter().map(panel_row_height).fold(0, u32::saturating_add);
    (PANELS_WIDTH + 240, PANELS_HEADER.saturating_add(KEY_HEIGHT).saturating_add(body))
}

/// Small multiples of bars: the title, then per phase a row of two panels (left and right contestants) sharing
/// one value axis and one name-column width, then the family key.
fn bar_panels(
    root: &Area<'_>,
    chart: &ChartSpec,
    rows: &[PanelRow],
    labels: [&str; 2],
    families: &[Family],
) -> DrawResult {
    let (header, rest) = root.split_vertically(PANELS_HEADER);
    let (mut body, key) = key_strip(&rest);
    let centre = i32::try_from((PANELS_WIDTH + 240) / 2).unwrap_or(0);
    let all = || rows.iter().flat_map(|r| r.left.iter().chain(&r.right));
    let span = value_span(all());
    let note = format!(
        "{} on the left, {} on the right; one {}scale for every panel",
        labels[0],
        labels[1],
        if chart.log_scale && span.0 > 0.0 { "log " } else { "linear " }
    );
    title_and_note(&header, centre, drawn_title(chart, span.0), note)?;
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
            let group = [Group { phase: None, bars: bars.clone() }];
            draw_bars_scaled(area, chart, &panel, &group, span)?;
        }
        body = below;
    }
    family_key(&key, families, (14, 12))
}

/// The chart's title as drawn for values whose smallest is `lo`: a chart asking for a log axis falls back to a
/// linear one when a value is at or below zero, and its title then says so instead of "log scale".
fn drawn_title(chart: &ChartSpec, lo: f64) -> String {
    if !chart.log_scale || lo > 0.0 {
        return chart.title.to_string();
    }
    const LINEAR: &str = "linear scale: a value at or below zero has no place on a log axis";
    let title =
        chart.title.replace("(log scale)", &format!("({LINEAR})")).replace("; log scale)", &format!("; {LINEAR})"));
    if title == chart.title {
        format!("{title} ({LINEAR})")
    } else {
        title
    }
}

/// The smallest and largest value a set of bars draws (medians and whiskers).
fn value_span<'b>(bars: impl Iterator<Item = &'b Bar>) -> (f64, f64) {
    // A bar's `min` and `max` are folded from its median, so they hold it.
    span(bars.flat_map(|b| [b.min, b.max]))
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

/// A header's centred title and, under it, its grey note.
fn title_and_note(header: &Area<'_>, centre: i32, title: String, note: String) -> DrawResult {
    let centred = |size: u32| TextStyle::from((FONT, size).into_font()).pos(Pos::new(HPos::Center, VPos::Center));
    header.draw(&Text::new(title, (centre, 20), centred(20)))?;
    Ok(header.draw(&Text::new(note, (centre, 46), centred(13).color(&RGBColor(90, 90, 90))))?)
}

/// What a bar chart (or one panel of bars) writes above and beside its bars.
#[derive(Debug, Clone, Copy)]
struct BarPanel<'a> {
    caption: &'a str,
    caption_size: u32,
    label_width: u32,
}

/// Draw `groups` on an axis spanning `(lo, hi)`: logarithmic where the chart asks and every value is positive.
fn draw_bars_scaled(
    root: &Area<'_>,
    chart: &ChartSpec,
    panel: &BarPanel<'_>,
    groups: &[Group],
    (lo, hi): (f64, f64),
) -> DrawResult {
    if chart.log_scale && lo > 0.0 {
        // On a log axis a bar's length means nothing: each row is a dot at the median with its process medians.
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
    let mut row = 0usize;
    for group in groups {
        if let Some(phase) = &group.phase {
            let centre = (rows - row) as f64 - 0.5;
            let (x, y) = local(root, ctx.backend_coord(&(x_start, centre)));
            root.draw(&Text::new(phase.clone(), (x - 8, y), group_style.clone()))?;
            row += 1;
        }
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
            root.draw(&Text::new(format::number(bar.median), (x + 6, y), value_style.clone()))?;
            row += 1;
        }
    }
    Ok(())
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
    /// Drawn dashed (a contestant whose colour another one already has, or a reference line).
    dashed: bool,
    /// Radius of its markers, where the chart draws markers.
    marker: u32,
    points: Vec<(f64, f64)>,
}

/// One panel of a small-multiples chart: a contestant (at a phase), its lines and its marks.
#[derive(Debug, Clone)]
struct Panel {
    label: String,
    lines: Vec<Line>,
    marks: Vec<Mark>,
}

/// Lines of a sweep chart and what the x axis is.
#[derive(Debug, Clone)]
struct SweepData {
    x_desc: String,
    /// One line per contestant, in summary order, then the reference line if the chart has one with data.
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

/// The lines of a sweep chart: one per contestant that passed and measured the metric, then, if `reference` is
/// given and some phase has it, the reference line (black, dashed). `None` when no contestant has a line.
fn sweep_data(input: &ReportInput<'_>, chart: &ChartSpec, reference: Option<Reference<'_>>) -> Option<SweepData> {
    let summary = input.summary;
    let parsed: Option<Vec<(&str, f64)>> = summary.phases.iter().map(|p| phase_value(p)).collect();
    let (x_desc, xs): (String, Vec<f64>) = match parsed {
        Some(values) if !values.is_empty() => (values[0].0.to_string(), values.iter().map(|(_, v)| *v).collect()),
        _ => ("phase (position)".to_string(), (0..summary.phases.len()).map(|i| i as f64).collect()),
    };
    let mut lines: Vec<Line> = passed(summary)
        .filter_map(|c| {
            let points: Vec<(f64, f64)> = summary
                .phases
                .iter()
                .zip(&xs)
                .filter_map(|(phase, x)| {
                    let s = c.metrics.get(&metric_key(Some(phase), chart.metric))?;
                    s.median.is_finite().then_some((*x, s.median))
                })
                .collect();
            (!points.is_empty()).then(|| Line {
                label: c.name.clone(),
                color: color(input, &c.name),
                dashed: dashed(input, &c.name),
                marker: MARKER,
                points,
            })
        })
        .collect();
    if lines.is_empty() {
        return None;
    }
    lines.extend(reference.and_then(|r| reference_line(input, r, &xs)));
    Some(SweepData { x_desc, lines })
}

/// The reference line over the phases at `xs`: at each phase, the finite median of `<phase>.<reference>` from
/// the first contestant in summary order that passed and has it; phases where none has it are skipped. `None`
/// when no phase has it.
fn reference_line(input: &ReportInput<'_>, reference: Reference<'_>, xs: &[f64]) -> Option<Line> {
    let summary = input.summary;
    let points: Vec<(f64, f64)> = summary
        .phases
        .iter()
        .zip(xs)
        .filter_map(|(phase, x)| {
            let key = metric_key(Some(phase), reference.reference);
            passed(summary)
                .find_map(|c| c.metrics.get(&key).map(|s| s.median).filter(|m| m.is_finite()))
                .map(|median| (*x, median))
        })
        .collect();
    (!points.is_empty()).then(|| Line {
        label: reference.label.to_string(),
        color: BLACK,
        dashed: true,
        marker: REFERENCE_MARKER,
        points,
    })
}

fn series_data(input: &ReportInput<'_>, names: &[&str]) -> Option<Vec<Panel>> {
    let summary = input.summary;
    let mut panels = Vec::new();
    for c in passed(summary) {
        let Some(by_name) = input.series.get(&c.name) else { continue };
        for phase in summary.phase_keys() {
            let mut lines = Vec::new();
            let mut marks: Vec<Mark> = Vec::new();
            for (index, name) in names.iter().enumerate() {
                let Some(s) = by_name.get(&metric_key(phase, name)) else { continue };
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
                // One series: the contestant's colour; several: one colour per series, the same in every panel.
                let color = if names.len() == 1 { color(input, &c.name) } else { PALETTE[index % PALETTE.len()] };
                lines.push(Line { label: (*name).to_string(), color, dashed: false, marker: MARKER, points });
                for mark in s.marks.iter().filter(|m| m.at_ms.is_finite()) {
                    if !marks.contains(mark) {
                        marks.push(mark.clone());
                    }
                }
            }
            if lines.is_empty() {
                continue;
            }
            let label = match phase {
                Some(phase) => format!("{} @ {phase}", c.name),
                None => c.name.clone(),
            };
            panels.push(Panel { label, lines, marks });
        }
    }
    (!panels.is_empty()).then_some(panels)
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

/// Size of a sweep chart of `facets`, stacked.
fn facets_size(facets: &[Facet]) -> (u32, u32) {
    facets.iter().map(|f| line_chart_size(f.lines.len())).fold((0, 0), |(w, h), (fw, fh)| (w.max(fw), h + fh))
}

/// A sweep chart: its facets stacked, every one on the same axes (the bounds of every line of the chart).
fn sweep(root: &Area<'_>, chart: &ChartSpec, data: &SweepData, facets: &[Facet]) -> DrawResult {
    let bounds = bounds(&data.lines);
    let mut rest = root.clone();
    for facet in facets {
        let height = line_chart_size(facet.lines.len()).1;
        let (area, below) = rest.split_vertically(height);
        let caption = match &facet.name {
            Some(name) => format!("{} — {name}", chart.title),
            None => chart.title.to_string(),
        };
        line_chart(&area, chart, (&caption, &data.x_desc), &facet.lines, bounds)?;
        rest = below;
    }
    Ok(())
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

fn panels_size(panels: usize, columns: usize, keyed: bool) -> (u32, u32) {
    let rows = u32::try_from(panels.div_ceil(columns.max(1))).unwrap_or(u32::MAX / PANEL_HEIGHT);
    (PANELS_WIDTH, panels_header(keyed).saturating_add(PANEL_HEIGHT.saturating_mul(rows)))
}

/// The series of a small-multiples chart, each once, with its colour, in the order the panels draw them.
fn series_key(panels: &[Panel]) -> Vec<(String, RGBColor)> {
    let mut key: Vec<(String, RGBColor)> = Vec::new();
    for line in panels.iter().flat_map(|p| &p.lines) {
        if !key.iter().any(|(label, _)| *label == line.label) {
            key.push((line.label.clone(), line.color));
        }
    }
    key
}

/// The stroke width of the series `label` in a panel keyed by `key`: the first series drawn widest, each later one
/// narrower, so a series drawn over an earlier one with the same values (the limit over the calls outstanding, the
/// calls in service over the capacity) leaves the earlier one visible at its edges.
fn series_width(key: &[(String, RGBColor)], label: &str) -> u32 {
    let place = key.iter().position(|(l, _)| l == label).unwrap_or(key.len().saturating_sub(1));
    2 + 2 * u32::try_from(key.len().saturating_sub(1 + place)).unwrap_or(0)
}

/// Small multiples: one panel per contestant (and phase), in order, all sharing one time axis (from the phase's
/// start to the latest point or mark of any panel) and one y scale; with several series, one key above the
/// panels (the same colours in every panel), so that no legend covers data.
fn series_chart(root: &Area<'_>, chart: &ChartSpec, panels: &[Panel], columns: usize, keyed: bool) -> DrawResult {
    let columns = columns.max(1);
    let rows = panels.len().div_ceil(columns);
    let (header, body) = root.split_vertically(panels_header(keyed));
    let centre = i32::try_from(PANELS_WIDTH / 2).unwrap_or(0);
    let note = format!("x: time (ms) since the phase started · y: {} · one scale of each for every panel", chart.unit);
    title_and_note(&header, centre, chart.title.to_string(), note)?;
    let key = series_key(panels);
    if keyed {
        let style = TextStyle::from((FONT, 13).into_font()).pos(Pos::new(HPos::Left, VPos::Center));
        let widths: Vec<i32> = key.iter().map(|(label, _)| 30 + 8 * i32::try_from(label.len()).unwrap_or(10)).collect();
        let mut x = centre - widths.iter().sum::<i32>() / 2;
        let y = i32::try_from(PANELS_HEADER + KEY_HEIGHT / 2).unwrap_or(0);
        for ((label, color), width) in key.iter().zip(&widths) {
            let stroke = color.stroke_width(series_width(&key, label));
            header.draw(&PathElement::new(vec![(x, y), (x + 14, y)], stroke))?;
            header.draw(&Text::new(label.clone(), (x + 19, y), style.clone()))?;
            x += width;
        }
    }

    // On a log scale, values at or below zero (a window without data) are left out rather than forcing a
    // linear axis.
    let log_panels: Vec<Panel>;
    let panels = if chart.log_scale {
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
    let (y_lo, y_hi) = span(points().map(|p| p.1));
    let x_hi = points().map(|p| p.0).fold(0.0, f64::max);
    let x_hi = panels.iter().flat_map(|p| &p.marks).map(|m| m.at_ms).fold(x_hi, f64::max);
    let x_range = 0.0..if x_hi > 0.0 { x_hi } else { 1.0 };
    let areas = body.split_evenly((rows, columns));
    for (area, panel_data) in areas.iter().zip(panels) {
        let x = x_range.clone();
        if chart.log_scale && y_lo > 0.0 {
            let y = (log_range(y_lo, y_hi), true);
            panel(area, chart, (panel_data, &key), x, y, || log_range(y_lo, y_hi).log_scale())?;
        } else {
            panel(area, chart, (panel_data, &key), x, (linear_range(y_lo, y_hi), false), || linear_range(y_lo, y_hi))?;
        }
    }
    Ok(())
}

/// One panel of a small-multiples chart: its lines against the chart's shared time axis `x_range`, each mark a
/// dashed vertical line (the key above the panels names the lines, and sets each line's width: see
/// [`series_width`]). `y_bounds` is the y range `y_spec` builds and `log` whether it is logarithmic.
fn panel<Y>(
    area: &Area<'_>,
    chart: &ChartSpec,
    (data, key): (&Panel, &[(String, RGBColor)]),
    x_range: Range<f64>,
    (y_bounds, log): (Range<f64>, bool),
    y_spec: impl FnOnce() -> Y,
) -> DrawResult
where
    Y: AsRangedCoord<Value = f64>,
    Y::CoordDescType: ValueFormatter<f64>,
{
    let mut ctx = ChartBuilder::on(area)
        .caption(data.label.clone(), (FONT, 15))
        .margin(6)
        .margin_right(18)
        .x_label_area_size(22)
        .y_label_area_size(60)
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
    for line in &data.lines {
        let stroke = line.color.stroke_width(series_width(key, &line.label));
        ctx.draw_series(LineSeries::new(line.points.iter().copied(), stroke))?;
    }
    Ok(())
}

/// Draw `lines`, each with its markers, under `labels` (the caption and the x axis's description) on the axes
/// `bounds` gives (`x_lo..x_hi`, `y_lo..y_hi`), choosing log axes where asked and every value is positive.
fn line_chart(
    root: &Area<'_>,
    chart: &ChartSpec,
    labels: (&str, &str),
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
    (caption, x_desc): (&str, &str),
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
    let end_label_room = name_width(lines.iter().map(|l| l.label.as_str()), (40, 300));
    let mut ctx = ChartBuilder::on(plot)
        .caption(caption, (FONT, 20))
        .margin(12)
        .margin_right(end_label_room)
        .x_label_area_size(44)
        .y_label_area_size(70)
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
        let style = color.stroke_width(2);
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
    use std::collections::BTreeMap;

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
            method: Method {
                quick: true,
                forks: 1,
                warmup: 1,
                iterations: 2,
                accounting: 1,
                noise_threshold: 0.2,
                sdr: Default::default(),
                calibration: None,
                paired: Vec::new(),
                seed: 1,
                trial_timeout_s: 60.0,
            },
            params: BTreeMap::new(),
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
        assert_eq!(data.x_desc, "in_flight");
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
        assert_eq!(drawn_title(&spec, 5.0), "Live heap (log scale)");
        assert!(drawn_title(&spec, 0.0).starts_with("Live heap (linear scale: "), "{}", drawn_title(&spec, 0.0));
        spec.title = "Calls (first run; log scale)";
        assert!(drawn_title(&spec, 0.0).starts_with("Calls (first run; linear scale: "));
        spec.title = "Calls";
        assert!(drawn_title(&spec, 0.0).starts_with("Calls (linear scale: "));
        spec.log_scale = false;
        assert_eq!(drawn_title(&spec, 0.0), "Calls");
    }

    #[test]
    fn ranges_include_zero_and_leave_room() {
        assert_eq!(linear_range(5.0, 10.0), 0.0..11.0);
        assert_eq!(linear_range(0.0, 0.0), 0.0..1.0);
    }

    #[test]
    fn a_series_drawn_over_an_earlier_one_is_narrower_so_both_show() {
        let key: Vec<(String, RGBColor)> =
            ["outstanding", "limit", "in_service"].iter().map(|l| (l.to_string(), BLACK)).collect();
        let widths: Vec<u32> = key.iter().map(|(l, _)| series_width(&key, l)).collect();
        assert_eq!(widths, [6, 4, 2]);
        assert_eq!(series_width(&key[..1], "outstanding"), 2, "a lone series keeps the plain width");
    }

    #[test]
    fn panels_keep_one_contestant_per_row_when_they_can() {
        assert_eq!(panel_columns(2, 24), 2);
        assert_eq!(panel_columns(3, 9), 3);
        assert_eq!(panel_columns(1, 12), 3);
        assert_eq!(panel_columns(1, 1), 1);
        assert_eq!(panels_size(24, 2, false), (PANELS_WIDTH, PANELS_HEADER + 12 * PANEL_HEIGHT));
        assert_eq!(panels_size(24, 2, true), (PANELS_WIDTH, PANELS_HEADER + KEY_HEIGHT + 12 * PANEL_HEIGHT));
    }
}
