//! The thresholds a report judged with, stated beside its verdicts and once in the index: per class of metric,
//! the ratio within which two results are practically equal, whether it was measured on this testbed
//! (`calibration.json`) or is the uncalibrated default, and why. Every number comes from
//! [`measure::calibration::Thresholds`]; the words are in `templates/thresholds.md`.

use measure::calibration::{MetricClass, Threshold};
use measure::setup::Method;
use serde_json::{json, Value};

use crate::format;

/// The thresholds `method` judges the metrics under `keys` with, in one sentence.
pub(crate) fn statement<'k>(method: &Method, keys: impl IntoIterator<Item = &'k str>) -> String {
    let used = method.thresholds().used_by(keys);
    render(method, &used)
}

/// The thresholds `method` judges every class with (and every metric without one), in one sentence.
pub(crate) fn statement_all(method: &Method) -> String {
    let used: Vec<Threshold> = MetricClass::ALL
        .into_iter()
        .map(Some)
        .chain([None])
        .map(|class| method.thresholds().for_class(class))
        .collect();
    render(method, &used)
}

/// `used`, as `templates/thresholds.md` words them: the calibrated ratios first, class by class, then the
/// classes on the uncalibrated default together.
fn render(method: &Method, used: &[Threshold]) -> String {
    let view = |t: &Threshold| json!({ "class": t.class().map(MetricClass::key), "ratio": format::ratio(t.ratio) });
    let calibrated: Vec<Value> = used.iter().filter(|t| t.calibrated()).map(view).collect();
    let default: Vec<Value> = used.iter().filter(|t| !t.calibrated()).map(view).collect();
    let calibration = method.calibration.as_ref();
    let context = json!({
        "calibrated": calibrated,
        "default": default,
        "default_ratio": format::ratio(1.0 + method.noise_threshold),
        "file": calibration.map(|c| c.file.as_str()).filter(|f| !f.is_empty()),
        "made": calibration.map(|c| c.made_utc.as_str()).filter(|m| !m.is_empty()),
        "rev": calibration.map(|c| c.git_rev.as_str()).filter(|r| !r.is_empty()),
        "fallback": calibration.and_then(|c| c.fallback.as_deref()),
        "predates": calibration.is_none(),
    });
    template!("thresholds.md", context).trim().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use measure::setup::CalibrationUse;

    fn method() -> Method {
        testkit::fixture::method()
    }

    #[test]
    fn a_run_before_calibration_says_every_metric_is_on_the_default() {
        let text = statement(&method(), ["ms_per_million", "max_outstanding"]);
        assert_eq!(
            text,
            "practically equal means within 1.20× for cost per item and every metric without a class: the \
             uncalibrated default (this run was made before the lab calibrated its thresholds)."
        );
    }

    #[test]
    fn a_calibrated_class_names_its_ratio_and_where_it_was_measured() {
        let mut m = method();
        m.sdr.insert("per_item".to_string(), 1.08);
        m.calibration = Some(CalibrationUse {
            file: "reports/calibration.json".to_string(),
            made_utc: "2026-12-06T10:00:00Z".to_string(),
            git_rev: "abc1234".to_string(),
            fallback: None,
        });
        let text = statement(&m, ["work_0.ms_per_million", "ops_per_sec"]);
        assert_eq!(
            text,
            "practically equal means within 1.08× for cost per item, this testbed's smallest detectable ratio \
             (`reports/calibration.json`, calibrated 2026-12-06T10:00:00Z at `abc1234`); within 1.20× for calls \
             per second: the uncalibrated default."
        );
    }

    #[test]
    fn a_run_that_found_no_matching_calibration_says_why() {
        let mut m = method();
        m.calibration = Some(CalibrationUse {
            file: "reports/calibration.json".to_string(),
            fallback: Some("reports/calibration.json was calibrated at 5 processes a side, this run has 3".to_string()),
            ..CalibrationUse::default()
        });
        let text = statement_all(&m);
        assert!(text.starts_with("practically equal means within 1.20× for cost per item, calls per second"), "{text}");
        assert!(
            text.ends_with("(reports/calibration.json was calibrated at 5 processes a side, this run has 3)."),
            "{text}"
        );
    }
}
