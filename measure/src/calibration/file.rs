//! `calibration.json`: what `lab calibrate` measured (every pool and pair, the false-separation rate at each
//! candidate threshold, the smallest detectable ratio per class, the testbed), and how a run reads it: only a
//! calibration of the same testbed and build at the run's process count gives its thresholds
//! ([`use_for`]); any other is named with what differs, and the run falls back to its uncalibrated default.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::class::MetricClass;
use super::pairs::{self, Pair, Rate};
pub use crate::setup::testbed_differences;
use crate::setup::{CalibrationUse, Environment, Method, Provenance};

/// The version of `calibration.json`'s shape; raised when a field changes meaning or goes away.
pub const CALIBRATION_SCHEMA: u32 = 1;

/// The file `lab calibrate` writes and every run reads.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Calibration {
    /// [`CALIBRATION_SCHEMA`].
    pub schema_version: u32,
    /// The build that calibrated, and when.
    #[serde(flatten)]
    pub provenance: Provenance,
    /// The testbed, as every report records it: only runs on the same one read this calibration.
    pub environment: Environment,
    /// How the pools were run and the pairs formed.
    pub method: CalibrationMethod,
    /// Each scenario run: its contestants, the parameters fixed for it, and why they stand for their classes.
    pub scenarios: Vec<ScenarioRun>,
    /// Scenarios that offer no contestant to calibrate with (their metrics are judged with their classes' ratios
    /// all the same).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub not_offered: Vec<String>,
    /// Every pool: one contestant's metric in `2F` processes, and its A/A pairs.
    pub pools: Vec<Pool>,
    /// Per class: its pools and pairs, the rate at each candidate threshold, and its smallest detectable ratio.
    pub classes: Vec<ClassCalibration>,
}

/// How a calibration ran its pools and formed its pairs.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CalibrationMethod {
    /// Whether this was a `--quick` smoke calibration (never read by a full run's judge).
    pub quick: bool,
    /// Processes per arm `F`: the process count of the runs this calibration judges.
    pub forks: u32,
    /// Processes per pool (`2F`).
    pub processes: u32,
    /// Seed of the environment sizes and of any sampled splits.
    pub seed: u64,
    /// Most pairs per pool ([`pairs::MAX_PAIRS`]).
    pub max_pairs: usize,
    /// Largest environment padding a process got, in bytes (each process drew its own, 0 to this).
    pub padding_max_bytes: usize,
    /// The largest share of pairs a threshold may call apart to be a smallest detectable ratio (0.05).
    pub limit: f64,
    /// How the pairs were formed and why they are honest, in words.
    pub pairs_formed: String,
}

/// One scenario's calibration run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ScenarioRun {
    /// The scenario.
    pub scenario: String,
    /// The contestants run, each in `2F` processes.
    pub contestants: Vec<String>,
    /// The parameters fixed for the calibration, by key.
    pub params: std::collections::BTreeMap<String, u64>,
    /// Why these contestants and sizes.
    pub why: String,
    /// The report of the run, relative to the calibration's folder.
    pub report: String,
}

/// One pool: a contestant's metric in `2F` processes of one run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Pool {
    /// The scenario.
    pub scenario: String,
    /// The contestant.
    pub contestant: String,
    /// The metric key (phase-prefixed where the scenario sweeps).
    pub metric: String,
    /// Its class.
    pub class: MetricClass,
    /// The run's raw file, relative to the calibration's folder.
    pub raw_file: String,
    /// The environment padding of each process, in bytes, in fork order.
    pub padding_bytes: Vec<usize>,
    /// Each process's median, in fork order.
    pub process_medians: Vec<f64>,
    /// The modes of the process medians, when they fall into two groups (positions in `process_medians`, found
    /// at the uncalibrated default's ratio): such a pool is two populations, its pairs are kept here but left out
    /// of its class's rates, and reports name the modes wherever the contestant is judged.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub modes: Vec<Vec<usize>>,
    /// Why some processes or the whole pool formed no pairs, when so.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
    /// Its A/A pairs.
    pub pairs: Vec<Pair>,
}

/// What one class's pairs say.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ClassCalibration {
    /// The class.
    pub class: MetricClass,
    /// Pools that gave pairs to the rates (one population each: a pool of two modes is left out).
    pub pools: usize,
    /// Pairs in all.
    pub pairs: usize,
    /// The smallest detectable ratio ([`pairs::sdr`]); `None` when the class has no pairs or none up to
    /// [`pairs::LARGEST_SDR`] calls few enough apart.
    pub sdr: Option<f64>,
    /// The rates at the smallest detectable ratio.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub at_sdr: Option<Rate>,
    /// The rates at each candidate threshold ([`pairs::candidates`]).
    pub rates: Vec<Rate>,
}

/// Each class's calibration from `pools`, in the order of [`MetricClass::ALL`], for the classes in `classes`.
pub fn classes_of(pools: &[Pool], classes: &[MetricClass]) -> Vec<ClassCalibration> {
    MetricClass::ALL
        .into_iter()
        .filter(|c| classes.contains(c))
        .map(|class| {
            let of_class: Vec<&Pool> = pools.iter().filter(|p| p.class == class && p.modes.is_empty()).collect();
            let pairs: Vec<&Pair> = of_class.iter().flat_map(|p| &p.pairs).collect();
            let sdr = pairs::sdr(&pairs);
            ClassCalibration {
                class,
                pools: of_class.iter().filter(|p| !p.pairs.is_empty()).count(),
                pairs: pairs.len(),
                sdr,
                at_sdr: sdr.map(|s| pairs::rate(&pairs, s)),
                rates: pairs::rates(&pairs, &pairs::candidates()),
            }
        })
        .collect()
}

impl Calibration {
    /// Read a calibration from `path`; `Err` says why it cannot be used, in words a run's method records.
    pub fn read(path: &Path) -> Result<Calibration, String> {
        let missing = format!("no calibration at {} (`lab calibrate` writes one)", path.display());
        let version = |calibration: &Calibration| calibration.schema_version;
        crate::setup::read_lab_file(path, "a calibration", missing, CALIBRATION_SCHEMA, version)
    }

    /// The smallest detectable ratio of each class that has one, by class key.
    pub fn sdr(&self) -> std::collections::BTreeMap<String, f64> {
        self.classes.iter().filter_map(|c| c.sdr.map(|s| (c.class.key().to_string(), s))).collect()
    }
}

/// The thresholds a run on `environment` with `forks` processes (a `quick` run or not) takes from the calibration
/// read from `file` (`read`: the calibration, or why none could be read): each class's smallest detectable ratio
/// when the calibration matches, else none, with the reason in the returned [`CalibrationUse`].
pub fn use_for(
    file: &str,
    read: Result<&Calibration, String>,
    environment: &Environment,
    forks: u32,
    quick: bool,
) -> (std::collections::BTreeMap<String, f64>, CalibrationUse) {
    let fallback = |why: String| {
        (Default::default(), CalibrationUse { file: file.to_string(), fallback: Some(why), ..Default::default() })
    };
    let calibration = match read {
        Ok(c) => c,
        Err(why) => return fallback(why),
    };
    if calibration.method.quick != quick {
        let kind = |q: bool| if q { "a --quick" } else { "a full" };
        return fallback(format!(
            "{file} is {} calibration and this is {} run",
            kind(calibration.method.quick),
            kind(quick)
        ));
    }
    if calibration.method.forks != forks {
        return fallback(format!(
            "{file} was calibrated at {} processes a side, this run has {forks}",
            calibration.method.forks
        ));
    }
    let differences = testbed_differences(&calibration.environment, environment);
    if !differences.is_empty() {
        return fallback(format!("{file} is of another testbed: {}", differences.join("; ")));
    }
    let sdr = calibration.sdr();
    if sdr.is_empty() {
        return fallback(format!("{file} gives no class a smallest detectable ratio"));
    }
    let used = CalibrationUse {
        file: file.to_string(),
        made_utc: calibration.provenance.started_utc.clone(),
        git_rev: calibration.provenance.git_rev.clone(),
        fallback: None,
    };
    (sdr, used)
}

/// `value` as JSON (object keys in alphabetical order, as `serde_json::Value` keeps them) indented by two spaces, but with every array of plain values and every object of plain values
/// (or arrays of them) on one line: a file of thousands of pairs a person can still page through, one per line.
pub fn to_json_lines(value: &serde_json::Value) -> String {
    let mut out = String::new();
    write_value(&mut out, value, 0);
    out.push('\n');
    out
}

fn is_plain(value: &serde_json::Value) -> bool {
    !matches!(value, serde_json::Value::Array(_) | serde_json::Value::Object(_))
}

/// Whether `value` goes on one line: a plain value, an array of plain values, or an object whose values are
/// plain or arrays of plain values.
fn one_line(value: &serde_json::Value) -> bool {
    match value {
        serde_json::Value::Array(items) => items.iter().all(is_plain),
        serde_json::Value::Object(fields) => fields.values().all(|v| match v {
            serde_json::Value::Array(items) => items.iter().all(is_plain),
            other => is_plain(other),
        }),
        _ => true,
    }
}

fn write_value(out: &mut String, value: &serde_json::Value, depth: usize) {
    if one_line(value) {
        // Plain values and short containers: serde_json's compact form, with a space after each separator.
        out.push_str(&compact(value));
        return;
    }
    let indent = "  ".repeat(depth + 1);
    let close = "  ".repeat(depth);
    match value {
        serde_json::Value::Array(items) => {
            out.push_str("[\n");
            for (i, item) in items.iter().enumerate() {
                out.push_str(&indent);
                write_value(out, item, depth + 1);
                out.push_str(if i + 1 < items.len() { ",\n" } else { "\n" });
            }
            out.push_str(&close);
            out.push(']');
        }
        serde_json::Value::Object(fields) => {
            out.push_str("{\n");
            for (i, (key, item)) in fields.iter().enumerate() {
                out.push_str(&indent);
                out.push_str(&serde_json::Value::String(key.clone()).to_string());
                out.push_str(": ");
                write_value(out, item, depth + 1);
                out.push_str(if i + 1 < fields.len() { ",\n" } else { "\n" });
            }
            out.push_str(&close);
            out.push('}');
        }
        plain => out.push_str(&plain.to_string()),
    }
}

/// `value` on one line, `, ` and `: ` between its parts.
fn compact(value: &serde_json::Value) -> String {
    match value {
        serde_json::Value::Array(items) => format!("[{}]", items.iter().map(compact).collect::<Vec<_>>().join(", ")),
        serde_json::Value::Object(fields) => format!(
            "{{{}}}",
            fields
                .iter()
                .map(|(k, v)| format!("{}: {}", serde_json::Value::String(k.clone()), compact(v)))
                .collect::<Vec<_>>()
                .join(", ")
        ),
        plain => plain.to_string(),
    }
}

/// `method` with the thresholds its judge reads: each class's smallest detectable ratio from the calibration at
/// `file` when it was made on `environment`'s testbed and build at the run's process count (and run kind), else
/// none, with the reason recorded (`method.calibration`) and every metric judged with the uncalibrated default.
pub fn judged_with(method: &Method, file: Option<&Path>, environment: &Environment) -> Method {
    let (sdr, used) = match file {
        None => (
            BTreeMap::new(),
            CalibrationUse {
                file: String::new(),
                fallback: Some("--calibration none: the run read no calibration".to_string()),
                ..CalibrationUse::default()
            },
        ),
        Some(path) => {
            let read = Calibration::read(path);
            use_for(
                &path.display().to_string(),
                read.as_ref().map_err(Clone::clone),
                environment,
                method.forks,
                method.quick,
            )
        }
    };
    Method { sdr, calibration: Some(used), ..method.clone() }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_run_without_a_matching_calibration_says_why_it_uses_the_default() {
        let method = crate::summary::tests::summary(Vec::new()).method;
        let judged = super::judged_with(&method, None, &super::Environment::default());
        assert!(judged.sdr.is_empty());
        let used = judged.calibration.expect("recorded");
        assert_eq!(used.fallback.as_deref(), Some("--calibration none: the run read no calibration"));
        let path = std::path::Path::new("/nonexistent/calibration.json");
        let missing = super::judged_with(&method, Some(path), &super::Environment::default());
        let why = missing.calibration.and_then(|c| c.fallback).expect("a reason");
        assert!(why.starts_with("no calibration at /nonexistent/calibration.json"), "{why}");
    }

    use super::*;
    use crate::setup::tests::{environment, provenance};
    use crate::setup::Pin;

    fn pool(class: MetricClass, medians: &[f64]) -> Pool {
        let processes: Vec<Vec<f64>> = medians.iter().map(|m| vec![*m]).collect();
        Pool {
            scenario: "chain".to_string(),
            contestant: "baseline-loop".to_string(),
            metric: "work_0.ms_per_million".to_string(),
            class,
            raw_file: "runs/raw/chain.jsonl".to_string(),
            padding_bytes: vec![0; medians.len()],
            process_medians: medians.to_vec(),
            modes: Vec::new(),
            note: None,
            pairs: pairs::pairs_of(&processes, pairs::MAX_PAIRS, 1),
        }
    }

    fn calibration() -> Calibration {
        let pools =
            vec![pool(MetricClass::PerItem, &[100.0, 101.0, 99.0, 100.5, 98.0, 102.0, 100.2, 99.4, 101.4, 99.9])];
        Calibration {
            scenarios: Vec::new(),
            not_offered: vec!["http".to_string()],
            schema_version: CALIBRATION_SCHEMA,
            provenance: provenance("2026-12-06T10:00:00Z", "2026-12-06T10:12:00Z"),
            environment: environment(),
            method: CalibrationMethod {
                quick: false,
                forks: 5,
                processes: 10,
                seed: 1,
                max_pairs: pairs::MAX_PAIRS,
                padding_max_bytes: 4096,
                limit: pairs::FALSE_SEPARATION_LIMIT,
                pairs_formed: "every split".to_string(),
            },
            classes: classes_of(&pools, &[MetricClass::PerItem, MetricClass::NsPerOp]),
            pools,
        }
    }

    #[test]
    fn a_class_s_calibration_counts_its_pools_and_pairs_and_finds_its_ratio() {
        let c = calibration();
        assert_eq!(c.classes.len(), 2);
        let per_item = &c.classes[0];
        assert_eq!((per_item.class, per_item.pools, per_item.pairs), (MetricClass::PerItem, 1, 252));
        let sdr = per_item.sdr.expect("a ratio");
        assert!((1.0..1.05).contains(&sdr), "{sdr}");
        assert!(per_item.at_sdr.expect("rates").ratio_rate <= pairs::FALSE_SEPARATION_LIMIT);
        assert_eq!(c.classes[1].sdr, None, "a class without pools has no ratio");
        assert_eq!(c.sdr().keys().collect::<Vec<_>>(), ["per_item"]);
    }

    #[test]
    fn a_pool_of_two_modes_is_kept_but_left_out_of_its_class_s_rates() {
        let mut two = pool(MetricClass::PerItem, &[80.0, 81.0, 82.0, 83.0, 84.0, 216.0, 217.0, 218.0, 219.0, 220.0]);
        two.modes = crate::calibration::modes(&two.process_medians, 1.2);
        assert_eq!(two.modes.len(), 2);
        let pools =
            vec![pool(MetricClass::PerItem, &[100.0, 101.0, 99.0, 100.5, 98.0, 102.0, 100.2, 99.4, 101.4, 99.9]), two];
        let per_item = &classes_of(&pools, &[MetricClass::PerItem])[0];
        assert_eq!((per_item.pools, per_item.pairs), (1, 252));
        assert!(per_item.sdr.expect("a ratio") < 1.05);
    }

    #[test]
    fn a_run_on_the_same_testbed_at_the_calibrated_process_count_takes_its_ratios() {
        let c = calibration();
        let (sdr, used) = use_for("reports/calibration.json", Ok(&c), &environment(), 5, false);
        assert_eq!(sdr, c.sdr());
        assert_eq!(used.fallback, None);
        assert_eq!((used.made_utc.as_str(), used.git_rev.as_str()), ("2026-12-06T10:00:00Z", "abc1234"));
    }

    #[test]
    fn another_testbed_process_count_or_kind_falls_back_saying_why() {
        let c = calibration();
        let other = Environment { cpu_model: "CPU Y".to_string(), ..environment() };
        let (sdr, used) = use_for("cal.json", Ok(&c), &other, 5, false);
        assert!(sdr.is_empty());
        assert_eq!(used.fallback.as_deref(), Some(r#"cal.json is of another testbed: cpu "CPU X" vs "CPU Y""#));
        let pinned = Environment { pin: Some(Pin { cores: 1, cpus: vec![0] }), ..environment() };
        let why = use_for("cal.json", Ok(&c), &pinned, 5, false).1.fallback.expect("falls back");
        assert!(why.contains(r#"pinned cores "unpinned" vs "1 (0)""#), "{why}");
        let why = use_for("cal.json", Ok(&c), &environment(), 3, false).1.fallback.expect("falls back");
        assert_eq!(why, "cal.json was calibrated at 5 processes a side, this run has 3");
        let why = use_for("cal.json", Ok(&c), &environment(), 5, true).1.fallback.expect("falls back");
        assert_eq!(why, "cal.json is a full calibration and this is a --quick run");
        let missing = use_for("nowhere.json", Err("cannot read nowhere.json".to_string()), &environment(), 5, false);
        assert_eq!(missing.1.fallback.as_deref(), Some("cannot read nowhere.json"));
    }

    #[test]
    fn a_calibration_writes_one_pair_a_line_and_reads_back() {
        let c = calibration();
        let value = serde_json::to_value(&c).expect("value");
        let keys: Vec<&str> = value.as_object().expect("an object").keys().map(String::as_str).collect();
        let top = "classes environment finished_utc git_dirty git_rev lab_version method not_offered pools scenarios \
                   schema_version started_utc";
        assert_eq!(keys.join(" "), top, "the provenance stands beside the other fields");
        let text = to_json_lines(&value);
        assert!(text.contains(r#"{"a": [0, 1, 2, 3, 4], "b": [5, 6, 7, 8, 9], "ranges_apart": "#), "{}", &text[..2000]);
        assert!(text.lines().count() < 500, "a pair a line: {} lines", text.lines().count());
        let back: Calibration = serde_json::from_str(&text).expect("reads back");
        assert_eq!(back, c);
    }

    #[test]
    fn an_unreadable_or_foreign_file_says_why() {
        let dir = std::env::temp_dir().join(format!("calibration-read-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let path = dir.join("calibration.json");
        std::fs::write(&path, "{}").expect("write");
        assert!(Calibration::read(&path).expect_err("foreign").contains("is not a calibration"));
        let mut old = serde_json::to_value(calibration()).expect("value");
        old["schema_version"] = 0.into();
        std::fs::write(&path, old.to_string()).expect("write");
        assert!(Calibration::read(&path).expect_err("old").contains("has schema version 0, this lab reads 1"));
        assert!(Calibration::read(&dir.join("none.json")).expect_err("missing").starts_with("no calibration at"));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
