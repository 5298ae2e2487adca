//! A question's answers as the summary carries them (what [`crate::question`] decides, and reports read): below
//! the summary, so the summary holds them without importing the code that decides them.

use serde::{Deserialize, Serialize};

use crate::contestant::Role;
use crate::verdict::Verdict;

/// A question as the summary carries it, with its answer at every phase it applies to.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct QuestionResult {
    /// The question's id.
    pub id: String,
    /// The sentence a user would ask.
    pub ask: String,
    /// The situation in a few words (absent: the index uses `ask`).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub situation: String,
    /// The alternatives compared, by name, as they were found in the run.
    pub alternatives: Vec<String>,
    /// The deciding metric's key.
    pub metric: String,
    /// The deciding metric in a reader's words.
    pub metric_words: String,
    /// Whether a larger value is better.
    pub higher_is_better: bool,
    /// Each guard's rule in words.
    pub guards: Vec<GuardRule>,
    /// The threshold the answers were judged with: alternatives within its ratio of the pick are practically
    /// equal (the deciding metric's class's smallest detectable ratio, or the uncalibrated default). Absent in
    /// runs made before thresholds were calibrated.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub threshold: Option<crate::calibration::Threshold>,
    /// Whether it is a family question: its answers carry the best alternative of another family.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub family: bool,
    /// The answer at each phase, in the run's phase order (one entry, `phase` absent, without a sweep).
    pub answers: Vec<Answer>,
}

/// A guard's rule as the summary carries it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GuardRule {
    /// The metric's key.
    pub metric: String,
    /// The metric in a reader's words.
    pub words: String,
    /// The rule: `at least 0.5× stream-fixed`, `at most 1.5`.
    pub rule: String,
    /// Why it matters.
    pub why: String,
}

/// The answer to a question at one phase.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Answer {
    /// The phase, absent without a sweep.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phase: Option<String>,
    /// The eligible alternative with the best median; absent when none is eligible.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pick: Option<String>,
    /// The pick's median on the deciding metric.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<f64>,
    /// Eligible alternatives within the noise threshold of the pick: practically equal.
    pub equal: Vec<String>,
    /// Eligible alternatives beyond the threshold whose process medians overlap the pick's: this run cannot
    /// tell them apart.
    pub cannot_tell: Vec<String>,
    /// How the pick compares with the best eligible alternative it beats beyond noise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub beats: Option<Beaten>,
    /// The other eligible alternatives the pick beats beyond noise, after [`Answer::beats`], best first: each
    /// with how many times better the pick is.
    #[serde(default)]
    pub further: Vec<Behind>,
    /// Alternatives that could not be the answer, each with the guard it did not meet.
    pub excluded: Vec<Excluded>,
    /// The pick's median on each guard metric, in guard order (absent where it has none).
    pub pick_guards: Vec<Option<f64>>,
    /// Pathologies and traps among the alternatives: what each costs against the pick.
    pub costs: Vec<Cost>,
    /// The pick and the alternatives compared with it whose process medians on the deciding metric fall into two
    /// modes: each is judged on its process medians all the same, as one population, which this says.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub modes: Vec<TwoModes>,
    /// Why this phase is a control, not an answer (a level below the point where the question can matter): no
    /// pick is made here.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub control: Option<String>,
    /// In a family question, the best eligible alternative of another family than the pick's, and how it stands.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rival: Option<Rival>,
}

/// In a family question, the best alternative of another family than the pick's.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Rival {
    /// Its name.
    pub name: String,
    /// Its family (`stream`, `blocking`, `coroutine`, `baseline`).
    pub family: String,
    /// Its median on the deciding metric.
    pub value: f64,
    /// How many times better the pick is (≥ 1, whichever way the metric points).
    pub factor: f64,
    /// Whether the pick's family beats it beyond noise, is practically equal to it, or this run cannot tell.
    pub standing: Standing,
    /// The exact p that the pick is better, on process medians (absent when the test cannot give one).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p: Option<f64>,
}

/// How a family question's rival stands against the pick.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Standing {
    /// Beaten beyond the noise threshold, process medians apart.
    Beaten,
    /// Within the noise threshold of the pick.
    Equal,
    /// Beyond the threshold, but the process-median ranges overlap.
    CannotTell,
}

/// An alternative whose processes are two populations on a metric.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TwoModes {
    /// Its name.
    pub name: String,
    /// Its modes in words: `processes 2, 4 at 79.0–83.0 and 1, 3, 5 at 216–220`.
    pub groups: String,
}

/// The best alternative the pick beats beyond noise.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Beaten {
    /// Its name.
    pub name: String,
    /// Its median.
    pub value: f64,
    /// How many times better the pick is (≥ 1, whichever way the metric points).
    pub factor: f64,
    /// The verdict that the pick is better, on process medians.
    pub verdict: Verdict,
    /// Its exact p (absent when inconclusive).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p: Option<f64>,
}

/// An eligible alternative the pick beats, and by how much.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Behind {
    /// Its name.
    pub name: String,
    /// How many times better the pick is (≥ 1).
    pub factor: f64,
}

/// An alternative that could not be the answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Excluded {
    /// Its name.
    pub name: String,
    /// The guard's metric in words, or why it was not considered at all ("did not run cleanly").
    pub guard: String,
    /// Its median on the guard metric.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<f64>,
    /// Fails (beyond doubt) or inconclusive (this run cannot show it meets the guard).
    pub verdict: Verdict,
    /// The p of a failed guard.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub p: Option<f64>,
}

/// What a pathology or trap costs against the pick.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Cost {
    /// Its name.
    pub name: String,
    /// Its role.
    pub role: Role,
    /// Its median as a multiple of the pick's, oriented so that above 1 is worse.
    pub factor: f64,
    /// Whether the difference is beyond noise.
    pub beyond_noise: bool,
}
