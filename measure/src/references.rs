//! Figures from published studies, in one file (`measure/references.json`), each with its study, scenario,
//! metric, unit, hardware and source.
//!
//! A published figure is never compared as an absolute number across machines: [`compare`] sets its ratio to
//! its own study's baseline (another figure of the same study and scenario) beside the same ratio from this
//! lab's run, where [`Here`] says what stands for each figure.

use std::sync::OnceLock;

use serde::{Deserialize, Serialize};

use crate::summary::{Family, Summary};

/// The references file, compiled in.
const REFERENCES_JSON: &str = include_str!("../references.json");

/// What in this lab's run stands for a published figure. Exactly one way is used, in this order: `param`,
/// `metric`, else the contestants matching `contestant`, `family`, `name_contains` and `name_excludes`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Here {
    /// One contestant, by name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub contestant: Option<String>,
    /// Every contestant of a family.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub family: Option<Family>,
    /// Only contestants whose name contains this.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name_contains: Option<String>,
    /// Only contestants whose name does not contain this.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name_excludes: Option<String>,
    /// A parameter of the run, such as the bound `limit`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub param: Option<String>,
    /// A metric every contestant carries alike (such as `ideal_ops_per_sec`): the first contestant's median.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metric: Option<String>,
}

/// One figure from a published study.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Figure {
    /// Which study.
    pub study: String,
    /// The lab scenario it is compared in.
    pub scenario: String,
    /// What the study measured, unique within its study and scenario.
    pub subject: String,
    /// The lab metric it corresponds to, without phase prefix.
    pub metric: String,
    /// The lab phase it corresponds to, if the scenario sweeps.
    #[serde(default)]
    pub phase: Option<String>,
    /// The figure.
    pub value: f64,
    /// Its unit.
    pub unit: String,
    /// The hardware the study ran on, as far as recorded.
    pub hardware: String,
    /// Where the figure comes from.
    pub source: String,
    /// The `subject` of this study's baseline figure it is divided by; `None` for a baseline itself.
    #[serde(default)]
    pub baseline: Option<String>,
    /// What stands for it in this lab's run.
    #[serde(default)]
    pub here: Here,
    /// Why that contestant (or family, or figure) stands for the study's subject.
    #[serde(default)]
    pub why: String,
    /// Where this lab's ratio differs from the study's, the cause as far as it is known (and whether it was
    /// measured); shown only beside a row that does not agree.
    #[serde(default)]
    pub cause: String,
}

/// How far apart this run's ratio may be from the study's, as a factor either way, and still agree
/// ([`Agreement::Agree`]): studies on other machines, runtimes and languages are not expected to match closer.
pub const AGREE_WITHIN: f64 = 2.0;

/// How this run's ratios (one per stand-in) relate to the study's. A ratio is "at 1" within the run's noise
/// threshold, the lab's one noise rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Agreement {
    /// Every ratio here lies within [`AGREE_WITHIN`]× of the study's.
    Agree,
    /// Every ratio here is on the study's side of 1 (the same one is better), some further apart than that.
    SameDirection,
    /// Every ratio here is at 1: no gap here where the study found one.
    NoGapHere,
    /// The study's ratio is at 1, every ratio here on one side of it: a gap here where the study found none.
    GapHere,
    /// Every ratio here is on the other side of 1: what the study found better is worse here.
    Opposite,
    /// The ratios here fall on more than one side.
    Mixed,
}

/// Which side of 1 a ratio is on, under `threshold`.
fn side(ratio: f64, threshold: f64) -> std::cmp::Ordering {
    if (ratio - 1.0).abs() < threshold {
        std::cmp::Ordering::Equal
    } else if ratio > 1.0 {
        std::cmp::Ordering::Greater
    } else {
        std::cmp::Ordering::Less
    }
}

impl Agreement {
    /// `study` against this run's range `(low, high)` of the same ratio over its stand-ins, a ratio within
    /// `threshold` of 1 counting as at 1.
    pub fn of(study: f64, (low, high): (f64, f64), threshold: f64) -> Agreement {
        use std::cmp::Ordering::Equal;
        if low >= study / AGREE_WITHIN && high <= study * AGREE_WITHIN {
            return Agreement::Agree;
        }
        let (there, low_side, high_side) = (side(study, threshold), side(low, threshold), side(high, threshold));
        if low_side != high_side {
            return Agreement::Mixed;
        }
        match (there, low_side) {
            (a, b) if a == b => Agreement::SameDirection,
            (_, Equal) => Agreement::NoGapHere,
            (Equal, _) => Agreement::GapHere,
            _ => Agreement::Opposite,
        }
    }
}

/// The references file's shape.
#[derive(Debug, Deserialize)]
struct File {
    figures: Vec<Figure>,
}

/// Every published figure, read once from the compiled-in file.
///
/// # Panics
///
/// If the compiled-in `references.json` is malformed, which the crate's tests rule out.
pub fn figures() -> &'static [Figure] {
    static FIGURES: OnceLock<Vec<Figure>> = OnceLock::new();
    FIGURES.get_or_init(|| match serde_json::from_str::<File>(REFERENCES_JSON) {
        Ok(file) => file.figures,
        Err(err) => panic!("measure/references.json is malformed: {err}"),
    })
}

/// The figure of `scenario` about `subject`, if the file has one.
pub fn figure(scenario: &str, subject: &str) -> Option<&'static Figure> {
    figures().iter().find(|f| f.scenario == scenario && f.subject == subject)
}

/// The published figures of `scenario`, in file order.
pub fn for_scenario(scenario: &str) -> Vec<&'static Figure> {
    figures().iter().filter(|f| f.scenario == scenario).collect()
}

impl Figure {
    /// The study's baseline figure for this one, if it names one that exists.
    pub fn baseline_figure(&self) -> Option<&'static Figure> {
        let subject = self.baseline.as_deref()?;
        figures().iter().find(|f| f.study == self.study && f.scenario == self.scenario && f.subject == subject)
    }

    /// This figure over its study's baseline.
    pub fn study_ratio(&self) -> Option<f64> {
        self.baseline_figure().map(|b| self.value / b.value)
    }
}

/// What stood for a figure in one run: its median value(s) and who produced them.
#[derive(Debug, Clone, PartialEq)]
pub struct Standing {
    /// Who or what (`` `stream-futures` ``, `` `limit` ``), with the median of each.
    pub values: Vec<(String, f64)>,
}

impl Standing {
    /// The lowest and highest of the values.
    pub fn range(&self) -> Option<(f64, f64)> {
        let mut values = self.values.iter().map(|(_, v)| *v);
        let first = values.next()?;
        Some(values.fold((first, first), |(lo, hi), v| (lo.min(v), hi.max(v))))
    }
}

/// What stands for `figure` in `summary`: contestants that ran cleanly (their median of the figure's metric at
/// its phase), a parameter, or a shared metric. Empty when nothing ran.
pub fn standing(summary: &Summary, figure: &Figure) -> Standing {
    let key = |metric: &str| crate::summary::metric_key(figure.phase.as_deref(), metric);
    let here = &figure.here;
    if *here == Here::default() {
        // The file names no counterpart: nothing in this lab stands for the figure.
        return Standing { values: Vec::new() };
    }
    if let Some(param) = &here.param {
        // A swept parameter has one value per phase: the figure's phase names it (`count_100000-payload_1024`).
        let in_phase = figure.phase.as_deref().and_then(|phase| {
            phase.split('-').find_map(|part| part.strip_prefix(param.as_str())?.strip_prefix('_')?.parse::<f64>().ok())
        });
        let values = in_phase.or_else(|| summary.param(param)).map(|v| (format!("`{param}`"), v)).into_iter().collect();
        return Standing { values };
    }
    if let Some(metric) = &here.metric {
        let value = summary.contestants.iter().find_map(|c| summary.metric(&c.name, &key(metric)));
        return Standing { values: value.map(|s| (format!("`{metric}`"), s.median)).into_iter().collect() };
    }
    let values = summary
        .contestants
        .iter()
        .filter(|c| here.contestant.as_ref().is_none_or(|n| *n == c.name))
        .filter(|c| here.family.is_none_or(|f| f == c.family))
        .filter(|c| here.name_contains.as_ref().is_none_or(|s| c.name.contains(s.as_str())))
        .filter(|c| here.name_excludes.as_ref().is_none_or(|s| !c.name.contains(s.as_str())))
        .filter_map(|c| summary.metric(&c.name, &key(&figure.metric)).map(|s| (format!("`{}`", c.name), s.median)))
        .collect();
    Standing { values }
}

/// One row of a report's published-reference table.
#[derive(Debug, Clone, PartialEq)]
pub struct ReferenceRow {
    /// The figure.
    pub figure: &'static Figure,
    /// The figure over its study's baseline, if it has one.
    pub study_ratio: Option<f64>,
    /// The lowest and highest ratio here: what stands for the figure over what stands for the baseline.
    pub here_ratio: Option<(f64, f64)>,
    /// What stood for the figure here.
    pub here: Standing,
    /// How this run's ratio relates to the study's (`None` for a baseline, or when either is missing).
    pub agreement: Option<Agreement>,
}

/// The published-reference rows of `summary`'s scenario: every figure with its study ratio and this run's.
pub fn compare(summary: &Summary) -> Vec<ReferenceRow> {
    for_scenario(&summary.scenario)
        .into_iter()
        .map(|figure| {
            let here = standing(summary, figure);
            let here_ratio = figure.baseline_figure().and_then(|baseline| {
                let base = standing(summary, baseline).range()?;
                let (lo, hi) = here.range()?;
                // A single baseline value here: every figure is divided by it.
                (base.0 == base.1 && base.0 > 0.0).then(|| (lo / base.0, hi / base.0))
            });
            let study_ratio = figure.study_ratio();
            let threshold = summary.method.threshold(&figure.metric);
            let agreement = study_ratio.zip(here_ratio).map(|(study, here)| Agreement::of(study, here, threshold));
            ReferenceRow { figure, study_ratio, here_ratio, here, agreement }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_references_file_parses_and_every_baseline_exists() {
        assert!(!figures().is_empty());
        for f in figures() {
            assert!(!f.source.is_empty() && !f.hardware.is_empty() && !f.unit.is_empty(), "{}", f.subject);
            if f.baseline.is_some() {
                let base = f.baseline_figure();
                assert!(base.is_some(), "{}: baseline {:?} missing", f.subject, f.baseline);
                assert_eq!(base.map(|b| (&b.metric, &b.phase)), Some((&f.metric, &f.phase)), "{}", f.subject);
            }
        }
    }

    #[test]
    fn every_scenario_with_published_figures_has_a_baseline() {
        for scenario in ["chain", "handoff", "device", "backpressure"] {
            let figures = for_scenario(scenario);
            assert!(figures.iter().any(|f| f.baseline.is_none()), "{scenario}");
            assert!(figures.iter().any(|f| f.study_ratio().is_some()), "{scenario}");
        }
    }

    #[test]
    fn agreement_is_every_stand_in_within_twice_then_by_the_side_of_one() {
        let of = |study, range| Agreement::of(study, range, 0.2);
        assert_eq!(of(3.0, (2.0, 2.5)), Agreement::Agree);
        assert_eq!(of(4.0, (2.0, 8.0)), Agreement::Agree, "2× either way");
        assert_eq!(of(17.8, (1.96, 534.0)), Agreement::SameDirection, "one far stand-in is enough");
        assert_eq!(of(0.1, (0.3, 0.5)), Agreement::SameDirection);
        assert_eq!(of(16.9, (1.02, 1.02)), Agreement::NoGapHere, "within the noise threshold of 1");
        assert_eq!(of(0.97, (0.02, 0.03)), Agreement::GapHere);
        assert_eq!(of(4.0, (0.2, 0.4)), Agreement::Opposite);
        assert_eq!(of(1.83, (0.03, 1.0)), Agreement::Mixed);
    }

    #[test]
    fn a_ratio_is_to_the_studys_own_baseline() {
        let (Some(reactor), Some(the_loop)) = (figure("chain", "Reactor"), figure("chain", "plain loop")) else {
            panic!("chain's figures are missing");
        };
        let ratio = reactor.study_ratio().unwrap_or(f64::NAN);
        assert!((ratio - reactor.value / the_loop.value).abs() < 1e-12, "{ratio}");
        assert_eq!(the_loop.study_ratio(), None, "a baseline has no ratio of its own");
    }

    #[test]
    fn a_swept_parameter_stands_for_a_figure_at_the_value_its_phase_names() {
        let summary = crate::summary::tests::summary(Vec::new());
        let Some(payload) = figure("memory", "the payloads of 100,000 tasks") else {
            panic!("memory's baseline figure is missing");
        };
        let standing = standing(&summary, payload);
        assert_eq!(standing.values, vec![("`payload`".to_string(), 1024.0)]);
    }
}
