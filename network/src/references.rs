//! The published figures the reports set beside the lab's ([`references.toml`](../references.toml), compiled
//! in), and the ratio comparison: each figure relative to its own study's baseline beside the lab contestant of
//! the same role relative to the lab's. Absolute figures are never compared across machines.

use serde::Deserialize;

/// The references file, compiled in.
pub const SOURCE: &str = include_str!("../references.toml");

/// One published figure.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct Figure {
    /// The study; ratios are taken within it.
    pub study: String,
    /// The lab scenario it belongs to.
    pub scenario: String,
    /// The lab metric it corresponds to.
    pub metric: String,
    /// What was measured, in the study's words.
    pub role: String,
    /// The lab contestant playing the same role, if any.
    #[serde(default)]
    pub lab: Option<String>,
    /// Whether it is its study's baseline.
    #[serde(default)]
    pub baseline: bool,
    /// The published value.
    pub value: f64,
    /// The top of a published range, if a range was published.
    #[serde(default)]
    pub value_max: Option<f64>,
    /// Its unit.
    pub unit: String,
    /// The hardware it was measured on.
    pub hardware: String,
    /// Where it comes from.
    pub source: String,
}

#[derive(Debug, Deserialize)]
struct File {
    figure: Vec<Figure>,
}

/// Why the references could not be read.
#[derive(Debug, thiserror::Error)]
#[error("network/references.toml: {0}")]
pub struct ReferencesError(String);

/// Every figure of the file.
pub fn all() -> Result<Vec<Figure>, ReferencesError> {
    toml::from_str::<File>(SOURCE).map(|f| f.figure).map_err(|e| ReferencesError(e.to_string()))
}

/// The figures of `scenario`.
pub fn for_scenario(scenario: &str) -> Result<Vec<Figure>, ReferencesError> {
    Ok(all()?.into_iter().filter(|f| f.scenario == scenario).collect())
}

/// One figure's ratio to its study's baseline, beside the lab's ratio for the same role.
#[derive(Debug, Clone, PartialEq)]
pub struct RatioRow {
    /// The figure.
    pub figure: Figure,
    /// Its value over its study's baseline value (`value_max` over the baseline as the second, for a range).
    pub published: (f64, Option<f64>),
    /// The lab contestant's median over the lab baseline's median on the same metric, if both ran.
    pub lab: Option<f64>,
}

/// The ratio rows of `figures`, with the lab's medians from `median(contestant, metric)`.
pub fn ratios(figures: &[Figure], median: impl Fn(&str, &str) -> Option<f64>) -> Vec<RatioRow> {
    figures
        .iter()
        .filter_map(|figure| {
            let base = figures.iter().find(|f| f.study == figure.study && f.baseline)?;
            let published = (figure.value / base.value, figure.value_max.map(|m| m / base.value));
            let lab = match (&figure.lab, &base.lab) {
                (Some(lab), Some(lab_base)) => {
                    Some(median(lab, &figure.metric)? / median(lab_base, &figure.metric)?).filter(|r| r.is_finite())
                }
                _ => None,
            };
            Some(RatioRow { figure: figure.clone(), published, lab })
        })
        .collect()
}

/// A markdown table of `rows`.
pub fn table(rows: &[RatioRow]) -> String {
    let mut out = String::from(
        "| study | published role | published | ratio to the study's baseline | lab contestant | lab ratio to the lab's baseline |\n|---|---|---|---|---|---|\n",
    );
    for row in rows {
        let f = &row.figure;
        let value = match f.value_max {
            Some(max) => format!("{}–{} {}", f.value, max, f.unit),
            None => format!("{} {}", f.value, f.unit),
        };
        let published = match row.published.1 {
            Some(max) => format!("{}–{}", ratio(row.published.0), ratio(max)),
            None => ratio(row.published.0),
        };
        out.push_str(&format!(
            "| {} | {} | {value} | {published} | {} | {} |\n",
            f.study,
            f.role,
            f.lab.as_deref().map_or_else(|| "—".to_string(), |l| format!("`{l}`")),
            row.lab.map_or_else(|| "n/a".to_string(), ratio),
        ));
    }
    out
}

fn ratio(x: f64) -> String {
    format!("{}×", measure::compare::format_ratio(x))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_file_reads_and_every_study_has_one_baseline() {
        let figures = all().unwrap_or_default();
        assert!(figures.len() >= 7);
        for study in ["jvm-http-clients", "jvm-tcp-effects"] {
            assert_eq!(figures.iter().filter(|f| f.study == study && f.baseline).count(), 1, "{study}");
        }
    }

    #[test]
    fn ratios_are_taken_within_each_study_and_within_the_lab() {
        let figures = for_scenario("tcp").unwrap_or_default();
        let rows = ratios(&figures, |name, _| match name {
            "stream-tokio-tasks" => Some(200.0),
            "trap-blocking-in-task" => Some(10.0),
            _ => None,
        });
        let kyo = rows.iter().find(|r| r.figure.lab.as_deref() == Some("trap-blocking-in-task"));
        assert!(kyo.is_some_and(|r| (r.published.0 - 4.96 / 149.0).abs() < 1e-9 && r.lab == Some(0.05)));
        assert!(table(&rows).contains("| jvm-tcp-effects |"));
    }
}
