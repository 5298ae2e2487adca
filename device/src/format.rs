//! How both reports print a figure: significant digits, shares, spans over processes and durations. One copy
//! for the device and backpressure reports, which only shape figures for their templates.

use measure::summary::MetricStats;
use measure::units::count;
use serde::Serialize;
use serde_json::{json, Value};

/// A name (a contestant's, a level's, a limit's) with its formatted figure, as both templates read it:
/// `{{ x.name }}`, `{{ x.value }}`.
pub(crate) fn named(name: impl Serialize, value: impl Serialize) -> Value {
    json!({ "name": name, "value": value })
}

/// The notes a headline template renders, one a line (blank lines dropped), or one line saying it failed.
pub(crate) fn notes(name: &str, template: &str, context: impl Serialize) -> Vec<String> {
    match measure::template::render(name, template, context) {
        Ok(text) => text.lines().filter(|l| !l.trim().is_empty()).map(str::to_string).collect(),
        Err(err) => vec![format!("_The headline notes could not be rendered: {err}._")],
    }
}

/// A figure to three significant digits without trailing zeros, with thousands separators from 100 up:
/// `1`, `1.06`, `0.281`, `25`, `5,625`.
pub(crate) fn fig(x: f64) -> String {
    if !x.is_finite() || x.abs() >= 100.0 {
        return count(x);
    }
    let text = measure::compare::format_ratio(x);
    if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        text
    }
}

/// `16` or `16–17`: a contestant's range over its iterations.
pub(crate) fn range(s: &MetricStats) -> String {
    span(count(s.min), count(s.max))
}

/// The least and the most of `values` (`f64::MAX` and `f64::MIN` when there are none).
pub(crate) fn extremes(values: impl IntoIterator<Item = f64>) -> (f64, f64) {
    values.into_iter().fold((f64::MAX, f64::MIN), |(lo, hi), v| (lo.min(v), hi.max(v)))
}

/// `a–b`, or `a` when both read the same.
pub(crate) fn span(a: String, b: String) -> String {
    if a == b {
        a
    } else {
        format!("{a}–{b}")
    }
}

/// `1.06 ms` or `250 µs`.
pub(crate) fn duration_us(us: f64) -> String {
    if us >= 1_000.0 {
        format!("{} ms", fig(us / 1e3))
    } else {
        format!("{} µs", fig(us))
    }
}

/// `1.02–1.06 ms`, `250 µs–1.06 ms`, or one duration when both read the same.
pub(crate) fn duration_span(lo_us: f64, hi_us: f64) -> String {
    let (lo, hi) = (duration_us(lo_us), duration_us(hi_us));
    match (lo.strip_suffix(" ms"), hi.strip_suffix(" ms")) {
        _ if lo == hi => lo,
        (Some(a), Some(b)) => format!("{a}–{b} ms"),
        _ => format!("{lo}–{hi}"),
    }
}

/// `42` (a share in percent, without the sign).
pub(crate) fn pct(share: f64) -> String {
    format!("{:.0}", 100.0 * share)
}

/// `42%` (a share in percent, with the sign).
pub(crate) fn percent(share: f64) -> String {
    format!("{}%", pct(share))
}

/// `12.3`: one decimal.
pub(crate) fn one_decimal(x: f64) -> String {
    format!("{x:.1}")
}

/// `0.28`: two decimals.
pub(crate) fn two_decimals(x: f64) -> String {
    format!("{x:.2}")
}

/// A per-call figure with `decimals`, or `—` where the run did not record it.
pub(crate) fn cell(value: Option<f64>, decimals: usize) -> String {
    value.map_or_else(|| "—".to_string(), |v| format!("{v:.decimals$}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stats(min: f64, median: f64, max: f64) -> MetricStats {
        testkit::fixture::processes(&[min, median, max])
    }

    #[test]
    fn figures_read_naturally() {
        assert_eq!(duration_span(1_020.0, 1_060.0), "1.02–1.06 ms");
        assert_eq!(duration_span(250.0, 1_060.0), "250 µs–1.06 ms");
        assert_eq!(duration_span(1_000.0, 1_000.0), "1 ms");
        assert_eq!(range(&stats(16.0, 16.0, 16.0)), "16");
        assert_eq!(range(&stats(16.0, 16.5, 17.0)), "16–17");
        assert_eq!(
            (fig(1.0), fig(1.06), fig(0.281), fig(25.0), fig(5_625.0)),
            ("1".into(), "1.06".into(), "0.281".into(), "25".into(), "5,625".into())
        );
        assert_eq!(
            (percent(0.424), pct(0.424), cell(None, 2), cell(Some(1.0), 3)),
            ("42%".into(), "42".into(), "—".into(), "1.000".into())
        );
    }
}
