//! A verdict on a claim, a guard or a comparison: below the summary that carries it and the comparisons that
//! reach it, so neither imports the other for it.

use serde::{Deserialize, Serialize};

/// The verdict of a claim against the numbers and their confidence intervals.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// The numbers support it beyond their confidence intervals.
    Holds,
    /// The numbers contradict it beyond their confidence intervals.
    Fails,
    /// The intervals straddle the line, or a contestant it needs did not run.
    Inconclusive,
}

impl Verdict {
    /// The contract's spelling, as reports print it: `holds`, `fails` or `inconclusive`.
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Holds => "holds",
            Verdict::Fails => "fails",
            Verdict::Inconclusive => "inconclusive",
        }
    }

    /// The worse of two verdicts: fails, then inconclusive, then holds. Folding a claim's parts with it from
    /// [`Verdict::Holds`] judges a claim over no parts as holding; [`Verdict::combine`] calls that inconclusive.
    pub fn worse(self, other: Verdict) -> Verdict {
        match (self, other) {
            (Verdict::Fails, _) | (_, Verdict::Fails) => Verdict::Fails,
            (Verdict::Inconclusive, _) | (_, Verdict::Inconclusive) => Verdict::Inconclusive,
            _ => Verdict::Holds,
        }
    }

    /// One verdict for a claim judged in parts: fails if any part fails, holds if every part holds, inconclusive
    /// otherwise, and inconclusive when there are no parts at all.
    pub fn combine(verdicts: impl IntoIterator<Item = Verdict>) -> Verdict {
        let mut verdicts = verdicts.into_iter();
        match verdicts.next() {
            None => Verdict::Inconclusive,
            Some(first) => verdicts.fold(first, Verdict::worse),
        }
    }
}
