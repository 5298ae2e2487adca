//! What a paired run (`--paired A,B`) answers, as the summary carries it: the types alone, below both the
//! summary that holds them and [`super::paired`], which computes them from a summary.

use serde::{Deserialize, Serialize};

/// A paired run's answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Paired {
    /// Contestant A.
    pub a: String,
    /// Contestant B.
    pub b: String,
    /// A against B on each metric asked, at each phase.
    pub metrics: Vec<PairedMetric>,
}

/// A against B on one metric at one phase.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PairedMetric {
    /// The metric key (phase-prefixed where the scenario sweeps).
    pub metric: String,
    /// A's median over B's.
    pub ratio: f64,
    /// The 95% hierarchical bootstrap interval of the ratio (absent with fewer than 3 processes a side).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ci95: Option<(f64, f64)>,
    /// Processes of A and of B.
    pub processes: (usize, usize),
    /// The smallest ratio this pairing tells apart: the smallest at which at most 5% of its own A/A pairs are
    /// apart by their ratio; `None` without pairs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sdr: Option<f64>,
    /// Processes an arm of those A/A pairs (half a side's).
    pub arm: usize,
    /// How many A/A pairs it came from.
    pub aa_pairs: usize,
    /// Whether A is told from B: process-median ranges apart and the ratio beyond `sdr`.
    pub apart: bool,
    /// The exact one-sided p of the separation when apart (Mann–Whitney at U = 0).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p: Option<f64>,
}
