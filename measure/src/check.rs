//! The outcome of one correctness check ([`Check`]), as a trial reports it, the raw file keeps it and the summary
//! carries it. Kept below both [`crate::record`] and [`crate::summary`] (re-exported there), so that neither
//! depends on the other.

use serde::{Deserialize, Serialize};

/// The outcome of one correctness check.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Check {
    /// Short name, such as `checksum` or `early_stop`.
    pub name: String,
    /// Whether it passed: false when it failed, and when it was not applicable.
    pub passed: bool,
    /// What was compared, with the values seen.
    pub detail: String,
    /// The check could check nothing (nothing to bound, every iteration cut short): neither passed nor failed.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub not_applicable: bool,
}

impl Check {
    /// A check named `name` that passed when `passed`, with `detail` describing what was compared.
    pub fn new(name: impl Into<String>, passed: bool, detail: impl Into<String>) -> Self {
        Check { name: name.into(), passed, detail: detail.into(), not_applicable: false }
    }

    /// A check named `name` that could check nothing, with `detail` saying why: not passed, and not failed.
    pub fn not_applicable(name: impl Into<String>, detail: impl Into<String>) -> Self {
        Check { name: name.into(), passed: false, detail: detail.into(), not_applicable: true }
    }

    /// Whether it checked something and found it wrong.
    pub fn failed(&self) -> bool {
        !self.passed && !self.not_applicable
    }

    /// `passed`, `failed` or `not applicable`, as reports print it.
    pub fn outcome(&self) -> &'static str {
        if self.passed {
            "passed"
        } else if self.not_applicable {
            "not applicable"
        } else {
            "failed"
        }
    }
}
