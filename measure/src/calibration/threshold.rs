//! The threshold every noise line reads: per metric, the smallest detectable ratio of its class from the run's
//! calibration ([`crate::setup::Method::sdr`]), else the run's uncalibrated default
//! ([`crate::setup::Method::noise_threshold`]), labelled as such. One call, [`Thresholds::for_metric`], answers
//! every reader: the judge, the questions, the reports, `lab compare` and the page across core counts.

use serde::{Deserialize, Serialize};

use super::class::{class_of, MetricClass};
use crate::setup::Method;

/// The threshold one metric is judged with: two results closer than `ratio` (either way) are practically equal.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Threshold {
    /// The ratio, such as 1.08: results within it of each other are practically equal.
    pub ratio: f64,
    /// Where it came from.
    pub source: ThresholdSource,
}

impl Threshold {
    /// The relative difference the noise rule compares with (`ratio − 1`: 0.08 for 1.08), as
    /// [`crate::compare::compare`] takes it. Rounded to 1e-12, so that the default 0.2 comes back as 0.2 from
    /// its ratio 1.2 (`1.2 − 1` is 0.19999999999999996 in floating point).
    pub fn fraction(&self) -> f64 {
        ((self.ratio - 1.0) * 1e12).round() / 1e12
    }

    /// Whether it was measured on this testbed rather than assumed.
    pub fn calibrated(&self) -> bool {
        matches!(self.source, ThresholdSource::Calibrated { .. })
    }

    /// The metric class it stands for, when the metric has one.
    pub fn class(&self) -> Option<MetricClass> {
        match self.source {
            ThresholdSource::Calibrated { class } => Some(class),
            ThresholdSource::UncalibratedDefault { class } => class,
        }
    }
}

/// Where a [`Threshold`] came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum ThresholdSource {
    /// The smallest detectable ratio of `class`, measured by A/A pairs on this testbed (`calibration.json`).
    Calibrated {
        /// The metric's class.
        class: MetricClass,
    },
    /// The run's uncalibrated default (`--noise-threshold`, 0.2 unless given): no calibration of this testbed
    /// gave the class, or the metric has none (`class` is then `None`).
    UncalibratedDefault {
        /// The metric's class, when it has one.
        class: Option<MetricClass>,
    },
}

/// The thresholds of one run, read from its method.
#[derive(Debug, Clone, Copy)]
pub struct Thresholds<'m> {
    method: &'m Method,
}

impl<'m> Thresholds<'m> {
    /// The thresholds `method` records.
    pub fn of(method: &'m Method) -> Thresholds<'m> {
        Thresholds { method }
    }

    /// The threshold of the metric under `key` (phase-prefixed or not): its class's calibrated ratio, else the
    /// uncalibrated default.
    pub fn for_metric(&self, key: &str) -> Threshold {
        self.for_class(class_of(key))
    }

    /// The threshold of a metric of `class` (`None`: a metric without one).
    pub fn for_class(&self, class: Option<MetricClass>) -> Threshold {
        let calibrated = class.and_then(|c| self.method.sdr.get(c.key()).map(|ratio| (c, *ratio)));
        match calibrated {
            Some((class, ratio)) if ratio.is_finite() && ratio >= 1.0 => {
                Threshold { ratio, source: ThresholdSource::Calibrated { class } }
            }
            _ => Threshold {
                ratio: 1.0 + self.method.noise_threshold,
                source: ThresholdSource::UncalibratedDefault { class },
            },
        }
    }

    /// The thresholds the metrics under `keys` are judged with, one per class (and one for metrics without a
    /// class), in the order of [`MetricClass::ALL`], the classless last: what a report states beside its verdicts.
    pub fn used_by<'k>(&self, keys: impl IntoIterator<Item = &'k str>) -> Vec<Threshold> {
        let mut classes: Vec<Option<MetricClass>> = keys.into_iter().map(class_of).collect();
        classes.sort_by_key(|c| c.map_or(usize::MAX, |c| c as usize));
        classes.dedup();
        classes.into_iter().map(|c| self.for_class(c)).collect()
    }

    /// Whether the run read a calibration of its testbed (some class has a measured ratio).
    pub fn calibrated(&self) -> bool {
        MetricClass::ALL.iter().any(|c| self.method.sdr.contains_key(c.key()))
    }
}

impl Method {
    /// The thresholds this method records ([`Thresholds`]).
    pub fn thresholds(&self) -> Thresholds<'_> {
        Thresholds::of(self)
    }

    /// The relative difference the noise rule compares with for the metric under `key`: its class's calibrated
    /// ratio less 1, else the uncalibrated default. Every noise line reads this in place of `noise_threshold`.
    pub fn threshold(&self, key: &str) -> f64 {
        self.thresholds().for_metric(key).fraction()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn method(sdr: &[(&str, f64)]) -> Method {
        Method { sdr: sdr.iter().map(|(k, v)| (k.to_string(), *v)).collect(), ..testkit_method() }
    }

    fn testkit_method() -> Method {
        Method { forks: 5, warmup: 1, iterations: 3, seed: 1, ..crate::summary::tests::summary(Vec::new()).method }
    }

    #[test]
    fn a_calibrated_class_gives_its_ratio_and_says_so() {
        let m = method(&[("per_item", 1.08)]);
        let t = m.thresholds().for_metric("work_0.ms_per_million");
        assert_eq!(t, Threshold { ratio: 1.08, source: ThresholdSource::Calibrated { class: MetricClass::PerItem } });
        assert!((m.threshold("ms_per_million") - 0.08).abs() < 1e-12);
        assert!(m.thresholds().calibrated());
    }

    #[test]
    fn without_a_calibration_of_its_class_a_metric_gets_the_labelled_default() {
        let m = method(&[("per_item", 1.08)]);
        let t = m.thresholds().for_metric("ops_per_sec");
        assert_eq!(t.source, ThresholdSource::UncalibratedDefault { class: Some(MetricClass::CallsPerSec) });
        assert!((t.ratio - 1.2).abs() < 1e-12 && !t.calibrated());
        let none = m.thresholds().for_metric("max_outstanding");
        assert_eq!(none.source, ThresholdSource::UncalibratedDefault { class: None });
        assert!(!testkit_method().thresholds().calibrated());
    }

    #[test]
    fn a_report_states_one_threshold_per_class_it_judges() {
        let m = method(&[("per_item", 1.08), ("cpu_per_call", 1.1)]);
        let used = m.thresholds().used_by(["max_outstanding", "work_0.cpu_ns_per_item", "ms_per_million", "wall_ms"]);
        let classes: Vec<Option<MetricClass>> = used.iter().map(Threshold::class).collect();
        assert_eq!(classes, [Some(MetricClass::PerItem), Some(MetricClass::CpuPerCall), None]);
    }

    #[test]
    fn a_ratio_below_one_is_no_calibration() {
        let m = method(&[("per_item", 0.5)]);
        assert!(!m.thresholds().for_metric("ms_per_million").calibrated());
    }
}
