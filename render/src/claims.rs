//! A run's claims as the report and the index show them: each claim's line ([`claim_line`]) and how many have
//! each verdict ([`Tally`]).

use measure::summary::{ClaimResult, Verdict};
use serde::Serialize;
use serde_json::{json, Value};

/// A claim as the report and the index list it: its verdict, `p = …` (or empty), its statement, the numbers
/// behind the verdict, the metric it was judged on (or empty) with that metric's definition, what it was judged
/// on and the rule that judged it.
pub(crate) fn claim_line(c: &ClaimResult) -> Value {
    json!({
        "verdict": c.verdict.as_str(),
        "p": measure::judge::p_label(c.p),
        "text": c.text,
        "detail": c.detail,
        "metric": c.metric,
        "metric_definition": c.metric_definition,
        "judged_on": c.judged_on,
        "rule": c.rule,
    })
}

/// How many claims have each verdict, as the index's and the report's templates read it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub(crate) struct Tally {
    /// Claims that hold.
    pub(crate) holds: usize,
    /// Claims that fail.
    pub(crate) fails: usize,
    /// Claims that are inconclusive.
    pub(crate) inconclusive: usize,
}

impl Tally {
    /// The tally of `claims`.
    pub(crate) fn of<'c>(claims: impl IntoIterator<Item = &'c ClaimResult>) -> Self {
        let mut tally = Tally::default();
        for claim in claims {
            match claim.verdict {
                Verdict::Holds => tally.holds += 1,
                Verdict::Fails => tally.fails += 1,
                Verdict::Inconclusive => tally.inconclusive += 1,
            }
        }
        tally
    }
}
