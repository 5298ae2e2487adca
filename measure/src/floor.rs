//! `floor.json`: the machine's own floor as `lab floor` measured it (a cache line between threads, a wake-up, a
//! tokio task wake-up, a thread's spawn and join, an item through an SPSC ring, the loop), each figure with its
//! process medians, and the testbed it was measured on. Every later report of the same sitting cites it.

use serde::{Deserialize, Serialize};

use crate::setup::{testbed_differences, Environment, Provenance};
pub use crate::setup::{FloorFigure, FloorUse};

/// The version of `floor.json`'s shape; raised when a field changes meaning or goes away.
pub const FLOOR_SCHEMA: u32 = 1;

/// What `lab floor` writes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Floor {
    /// [`FLOOR_SCHEMA`].
    pub schema_version: u32,
    /// The build that measured, and when.
    #[serde(flatten)]
    pub provenance: Provenance,
    /// Whether this was a `--quick` smoke measurement (never cited by a full run's report).
    pub quick: bool,
    /// Fresh processes each figure was measured in.
    pub processes: u32,
    /// Timed samples per probe in each process, after one warm-up.
    pub samples: u32,
    /// The testbed.
    pub environment: Environment,
    /// Every figure, in the order the report lists them.
    pub figures: Vec<FloorFigure>,
}

impl Floor {
    /// The figure whose key is `key`, when it ran.
    pub fn ns_per_op(&self, key: &str) -> Option<f64> {
        self.figures.iter().find(|f| f.key == key).and_then(|f| f.ns_per_op)
    }
}

impl Floor {
    /// Read a floor from `path`; `Err` says why it cannot be cited, in words a run's method records.
    pub fn read(path: &std::path::Path) -> Result<Floor, String> {
        let missing = format!("no floor at {}", path.display());
        crate::setup::read_lab_file(path, "a floor", missing, FLOOR_SCHEMA, |floor: &Floor| floor.schema_version)
    }
}

/// The floor a run on `environment` (a `quick` run or not) cites from the floor read from `file` (`read`: the
/// floor, or why none could be read): the floor when it was measured on the same testbed (whatever CPUs the run
/// is pinned to: the floor measures one CPU and across CPUs itself) and build (compiler and profile), and is not a
/// `--quick` floor cited by a full run (a full floor serves a `--quick` run too); else none, with the reason.
pub fn use_for(file: &str, read: Result<&Floor, String>, environment: &Environment, quick: bool) -> FloorUse {
    let not_cited = |why: String| FloorUse { file: file.to_string(), not_cited: Some(why), ..FloorUse::default() };
    let floor = match read {
        Ok(floor) => floor,
        Err(why) => return not_cited(why),
    };
    if floor.quick && !quick {
        return not_cited(format!("{file} is a --quick floor and this is a full run"));
    }
    // The pin is the run's choice, not the machine's: compare without it.
    let unpinned = |e: &Environment| Environment { pin: None, ..e.clone() };
    let (measured, run) = (unpinned(&floor.environment), unpinned(environment));
    let same_build = |e: &Environment| Environment {
        rustc: run.rustc.clone(),
        build_profile: run.build_profile.clone(),
        ..e.clone()
    };
    let testbed = testbed_differences(&same_build(&measured), &run);
    if !testbed.is_empty() {
        return not_cited(format!("{file} is of another testbed: {}", testbed.join("; ")));
    }
    let build = testbed_differences(&measured, &run);
    if !build.is_empty() {
        return not_cited(format!("{file} is of another build: {}", build.join("; ")));
    }
    FloorUse {
        file: file.to_string(),
        measured_utc: floor.provenance.started_utc.clone(),
        git_rev: floor.provenance.git_rev.clone(),
        git_dirty: floor.provenance.git_dirty,
        quick: floor.quick,
        processes: floor.processes,
        figures: floor.figures.clone(),
        not_cited: None,
    }
}

/// One process's timed samples of one probe, as a `lab floor` child prints them (one JSON line each).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ProbeSamples {
    /// The probe's key.
    pub key: String,
    /// Wall nanoseconds per operation of each timed sample.
    pub ns_per_op: Vec<f64>,
    /// CPU nanoseconds per operation of each timed sample.
    pub cpu_ns_per_op: Vec<f64>,
    /// Why the probe could not run in this process.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub not_applicable: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::setup::tests::{environment, provenance};
    use crate::setup::Pin;

    fn floor(quick: bool) -> Floor {
        Floor {
            schema_version: FLOOR_SCHEMA,
            provenance: provenance("2026-12-07T03:00:00Z", "2026-12-07T03:00:40Z"),
            quick,
            processes: 5,
            samples: 5,
            environment: environment(),
            figures: vec![FloorFigure::of_processes("loop_item", "one item of a loop", vec![0.29, 0.3, 0.31], &[0.3])],
        }
    }

    #[test]
    fn floor_json_opens_with_its_schema_and_provenance_and_reads_back_the_same() {
        let json = serde_json::to_string(&floor(false)).expect("json");
        assert!(
            json.starts_with(
                r#"{"schema_version":1,"lab_version":"0.1.0","git_rev":"abc1234","git_dirty":false,"started_utc":"2026-12-07T03:00:00Z","finished_utc":"2026-12-07T03:00:40Z","quick":false,"processes":5,"#
            ),
            "{json}"
        );
        assert_eq!(serde_json::from_str::<Floor>(&json).expect("a floor"), floor(false));
    }

    #[test]
    fn a_floor_of_the_run_s_testbed_and_build_is_cited_whatever_the_run_is_pinned_to() {
        let mut pinned = environment();
        pinned.pin = Some(Pin { cores: 1, cpus: vec![0] });
        for (quick_floor, quick_run) in [(false, false), (false, true), (true, true)] {
            let cited = use_for("reports/floor.json", Ok(&floor(quick_floor)), &pinned, quick_run);
            assert_eq!(cited.not_cited, None, "floor quick {quick_floor}, run quick {quick_run}");
            assert_eq!(cited.figures, floor(quick_floor).figures);
            assert_eq!((cited.git_rev.as_str(), cited.measured_utc.as_str()), ("abc1234", "2026-12-07T03:00:00Z"));
        }
    }

    #[test]
    fn a_floor_that_does_not_apply_is_not_cited_and_the_run_says_why() {
        let why = |floor: &Floor, environment: &Environment, quick: bool| {
            let cited = use_for("f.json", Ok(floor), environment, quick);
            assert!(cited.figures.is_empty());
            cited.not_cited.expect("a reason")
        };
        assert_eq!(why(&floor(true), &environment(), false), "f.json is a --quick floor and this is a full run");
        let mut other = environment();
        other.cpu_model = "CPU Y".into();
        assert_eq!(why(&floor(false), &other, false), "f.json is of another testbed: cpu \"CPU X\" vs \"CPU Y\"");
        let mut built = environment();
        built.rustc = "rustc 1.96.0".into();
        assert_eq!(
            why(&floor(false), &built, false),
            "f.json is of another build: rustc \"rustc 1.95.0\" vs \"rustc 1.96.0\""
        );
        let read = Floor::read(std::path::Path::new("/nonexistent/floor.json"));
        let missing = use_for("f.json", read.as_ref().map_err(Clone::clone), &other, true);
        assert_eq!(missing.not_cited.as_deref(), Some("no floor at /nonexistent/floor.json"));
        assert_eq!(FloorUse::none().file, "");
    }

    #[test]
    fn a_cited_floor_round_trips_and_an_uncited_one_writes_only_its_reason() {
        let cited = use_for("reports/floor.json", Ok(&floor(false)), &environment(), false);
        let text = serde_json::to_string(&cited).expect("json");
        assert_eq!(serde_json::from_str::<FloorUse>(&text).expect("parses"), cited);
        let none = serde_json::to_value(FloorUse::none()).expect("json");
        assert_eq!(none, serde_json::json!({ "file": "", "not_cited": "--floor none: the run cited no floor" }));
    }

    #[test]
    fn a_figure_is_the_median_of_its_process_medians_and_its_range_absent_without_them() {
        let figure = |medians: Vec<f64>| FloorFigure::of_processes("k", "w", medians, &[4.0, 6.0]);
        let three = figure(vec![3.0, 1.0, 2.0]);
        assert_eq!((three.ns_per_op, three.cpu_ns_per_op, three.range()), (Some(2.0), Some(5.0), Some((1.0, 3.0))));
        assert_eq!((figure(Vec::new()).ns_per_op, figure(Vec::new()).range()), (None, None));
    }
}
