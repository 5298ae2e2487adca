//! Where the blocking family stands in a family question's answer ([`measure::question`]): the analysis the
//! report's "what to pick" reads, one [`Standing`] per answer, taken from the answer's judged lists (the pick, those
//! practically equal to it, those the run cannot tell from it, those it beats) and never from medians.

use measure::answers::Answer;
use measure::summary::{Family, Summary, Verdict};
use serde::Serialize;

/// How the best blocking contestant stands against an answer's pick.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub(crate) enum Stands {
    /// A blocking contestant is the pick.
    Pick,
    /// `name` is practically equal to the pick.
    Equal {
        /// The blocking contestant.
        name: String,
    },
    /// This run cannot tell `name` from the pick (their processes overlap).
    CannotTell {
        /// The blocking contestant.
        name: String,
    },
    /// The pick beats `name` `factor` ×, beyond noise; `p` where every process is apart.
    Beaten {
        /// The blocking contestant.
        name: String,
        /// How many times better the pick is.
        factor: f64,
        /// The exact p of the separation, where the verdict holds.
        p: Option<f64>,
    },
    /// No blocking contestant ran or could answer.
    Absent,
}

/// Where the blocking family stands in one answer, with the answer's pick and its family.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct Standing {
    /// How it stands.
    #[serde(flatten)]
    pub(crate) stands: Stands,
    /// The pick.
    pub(crate) pick: Option<String>,
    /// The pick's family.
    pub(crate) family: Option<Family>,
}

/// Where the blocking family stands in `answer`.
pub(crate) fn blocking_stands(summary: &Summary, answer: &Answer) -> Standing {
    let blocking = |name: &String| summary.contestant(name).is_some_and(|c| c.family == Family::Blocking);
    let stands = if answer.pick.as_ref().is_some_and(blocking) {
        Stands::Pick
    } else if let Some(name) = answer.equal.iter().find(|n| blocking(n)) {
        Stands::Equal { name: name.clone() }
    } else if let Some(name) = answer.cannot_tell.iter().find(|n| blocking(n)) {
        Stands::CannotTell { name: name.clone() }
    } else if let Some(b) = answer.beats.as_ref().filter(|b| blocking(&b.name)) {
        let p = (b.verdict == Verdict::Holds).then_some(b.p).flatten();
        Stands::Beaten { name: b.name.clone(), factor: b.factor, p }
    } else if let Some(b) = answer.further.iter().find(|b| blocking(&b.name)) {
        Stands::Beaten { name: b.name.clone(), factor: b.factor, p: None }
    } else {
        Stands::Absent
    };
    let family = answer.pick.as_deref().and_then(|n| summary.contestant(n)).map(|c| c.family);
    Standing { stands, pick: answer.pick.clone(), family }
}
