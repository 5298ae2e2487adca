//! The one shape every network claim has: `a` against `b` on one metric, a bound on their ratio, judged on their
//! ranges over the scenario's one phase.

use measure::compare::{Basis, Relation};
use measure::judge::{ClaimSpec, Comparison, Phase};

/// A claim with id `id` saying `text`: contestant `a`'s `metric` (measuring what `definition` says) stands in
/// `relation` to `b`'s.
pub fn pairwise(
    id: &'static str,
    text: &'static str,
    (metric, definition): (&'static str, &'static str),
    relation: (Relation, f64),
    (a, b): (&'static str, &'static str),
) -> ClaimSpec {
    ClaimSpec::new(
        text,
        metric,
        definition,
        relation,
        Basis::Ranges,
        vec![Comparison::contestants(a, b, Phase::Unphased)],
    )
    .with_id(id)
}
