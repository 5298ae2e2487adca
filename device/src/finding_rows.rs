//! How both scenarios' `findings.rs` write a finding as a judged row ([`ClaimSpec`]), so each report only reads
//! verdicts: one side beyond another by more than the testbed's smallest detectable ratio ([`beyond`]), one within
//! noise of another as two rows ([`within`]), and ids that name a contestant or a phase ([`id`]). A side that is a
//! figure of the run (a steady median, a cap from CPU per call, the item count) enters as a fixed value: its own
//! spread is not counted, so such rows are judged on every sample ([`Basis::WorstSample`]), which needs no p and so
//! holds or fails at three processes as at five; two contestants are judged on process medians.

use std::borrow::Cow;

use measure::compare::{format_ratio, Basis, Relation};
use measure::judge::{beyond_noise, Beyond, ClaimSpec, Comparison, Side, Who};
use measure::summary::Summary;

/// What a finding compares: its metric, what that metric measures, and the comparison.
#[derive(Clone)]
pub(crate) struct On {
    /// The metric, without phase prefix.
    pub(crate) metric: &'static str,
    /// What the metric measures.
    pub(crate) definition: &'static str,
    /// The two sides.
    pub(crate) comparison: Comparison,
}

/// A finding on `on` by `rule`: on every sample ([`Basis::WorstSample`]) when a side is a fixed figure, else on
/// process medians (every pairing apart, with its exact p).
pub(crate) fn row(id: impl Into<Cow<'static, str>>, text: String, rule: (Relation, f64), on: On) -> ClaimSpec {
    let fixed = [&on.comparison.a, &on.comparison.b].iter().any(|side| matches!(side.who, Who::Value { .. }));
    let basis = if fixed { Basis::WorstSample } else { Basis::ProcessMedians };
    ClaimSpec::new(text, on.metric, on.definition, rule, basis, vec![on.comparison]).with_id(id)
}

/// `a` `way` `b` by more than the testbed's smallest detectable ratio on `on.metric` ([`row`]).
pub(crate) fn beyond(
    summary: &Summary,
    id: impl Into<Cow<'static, str>>,
    text: String,
    way: Beyond,
    on: On,
) -> ClaimSpec {
    row(id, text, beyond_noise(&summary.method, on.metric, way), on)
}

/// The rule of "not `way` beyond noise": `(AtMost, 1 + t)` against [`Beyond::Above`], `(AtLeast, 1 − t)` against
/// [`Beyond::Below`], `t` the smallest ratio this testbed tells apart on `metric`.
pub(crate) fn not_beyond(summary: &Summary, metric: &str, way: Beyond) -> (Relation, f64) {
    match beyond_noise(&summary.method, metric, way) {
        (Relation::AtLeast, f) => (Relation::AtMost, f),
        (Relation::AtMost, f) => (Relation::AtLeast, f),
    }
}

/// `a` within noise of `b` as two rows ([`row`]), `ids[0]` at most `1 + t` times it and `ids[1]` at least `1 − t`
/// times it, `t` the smallest ratio this testbed tells apart on `on.metric`: both hold where `a` is within noise.
pub(crate) fn within<Id: Into<Cow<'static, str>>>(
    summary: &Summary,
    ids: [Id; 2],
    text: &str,
    on: On,
) -> [ClaimSpec; 2] {
    let [upper, lower] = [Beyond::Above, Beyond::Below].map(|way| not_beyond(summary, on.metric, way));
    let [upper_id, lower_id] = ids;
    [
        row(upper_id, format!("{text} (at most {} times it)", format_ratio(upper.1)), upper, on.clone()),
        row(lower_id, format!("{text} (at least {} times it)", format_ratio(lower.1)), lower, on),
    ]
}

/// `name` at `phase` against the fixed figure `value` described by `label`.
pub(crate) fn against(name: &str, phase: measure::judge::Phase, value: f64, label: impl Into<String>) -> Comparison {
    Comparison { a: Side::contestant(name, phase), b: Side::value(value, label) }
}

/// The id `parts` joined by `-`, so a finding can name a contestant or a phase and still be found by id
/// (`whole-run-below-steady-stream-in_flight_1000`).
pub(crate) fn id(parts: &[&str]) -> String {
    parts.join("-")
}
