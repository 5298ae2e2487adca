//! `floor.json`: the machine's own floor as `lab floor` measured it (a cache line between threads, a wake-up, a
//! tokio task wake-up, a thread's spawn and join, an item through an SPSC ring, the loop), each figure with its
//! process medians, and the testbed it was measured on. Every later report of the same sitting cites it.

use serde::{Deserialize, Serialize};

use crate::setup::Environment;

/// The version of `floor.json`'s shape; raised when a field changes meaning or goes away.
pub const FLOOR_SCHEMA: u32 = 1;

/// What `lab floor` writes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Floor {
    /// [`FLOOR_SCHEMA`].
    pub schema_version: u32,
    /// Version of the lab that measured.
    pub lab_version: String,
    /// Short git revision of the build that measured.
    pub git_rev: String,
    /// Whether that build had uncommitted changes.
    pub git_dirty: bool,
    /// Start time, RFC 3339 UTC.
    pub started_utc: String,
    /// End time, RFC 3339 UTC.
    pub finished_utc: String,
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

/// One mechanism's cost on this machine.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FloorFigure {
    /// Its key (`wake_across_cpus`).
    pub key: String,
    /// What one operation is, in words.
    pub what: String,
    /// Wall nanoseconds per operation: the median of the process medians (absent when it could not run here).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ns_per_op: Option<f64>,
    /// Each process's median wall nanoseconds per operation, in process order.
    pub process_medians: Vec<f64>,
    /// CPU nanoseconds per operation, every thread of the process: the median of the process medians.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cpu_ns_per_op: Option<f64>,
    /// Why it did not run here (one CPU has nothing across CPUs), when it did not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub not_applicable: Option<String>,
}

impl FloorFigure {
    /// The smallest and largest process median, when it ran.
    pub fn range(&self) -> Option<(f64, f64)> {
        let min = self.process_medians.iter().copied().reduce(f64::min)?;
        let max = self.process_medians.iter().copied().reduce(f64::max)?;
        Some((min, max))
    }
}

impl Floor {
    /// The figure whose key is `key`, when it ran.
    pub fn ns_per_op(&self, key: &str) -> Option<f64> {
        self.figures.iter().find(|f| f.key == key).and_then(|f| f.ns_per_op)
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

    #[test]
    fn a_figure_s_range_is_its_process_medians_and_absent_without_them() {
        let figure = |medians: Vec<f64>| FloorFigure {
            key: "k".into(),
            what: "w".into(),
            ns_per_op: medians.get(1).copied(),
            process_medians: medians,
            cpu_ns_per_op: None,
            not_applicable: None,
        };
        assert_eq!(figure(vec![3.0, 1.0, 2.0]).range(), Some((1.0, 3.0)));
        assert_eq!(figure(Vec::new()).range(), None);
    }
}
