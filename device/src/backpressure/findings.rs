//! The backpressure report's findings as judged rows: each sentence `templates/report.md` states as a finding
//! (the task per item ran out of items, its memory and speed against the bounded contestants, its peak against
//! the published study's, a call that waited, a sampler that missed a peak, ordering against throughput, a thread
//! per item past the bound) is printed only where its row here holds. The harness judges them into the summary's
//! `findings` before anything renders; `report.rs` reads them by id.
//!
//! A figure of the run on one side (the item count, the bounded contestants' median, a mean, a sampled peak) is a
//! fixed value, so those rows are judged on every sample ([`crate::finding_rows::row`]); two contestants are judged
//! on process medians.

use measure::compare::Relation;
use measure::judge::{Beyond, ClaimSpec, Comparison, Phase};
use measure::references;
use measure::summary::{Family, Summary};

use super::claims::{MAX_OUT, OPS};
use super::{
    bounded_names, BLOCKING_UNBOUNDED, MEAN_OUTSTANDING, MS_TO_PEAK, SAMPLED, STREAM_UNBOUNDED, STUDY_UNBOUNDED,
};
use crate::finding_rows::{against, beyond, id, not_beyond, row, within, On};

/// Ids of the two rows that put `stream-unbounded`'s peak within noise of the item count: it ran out of items.
pub(crate) const RAN_OUT: [&str; 2] = ["unbounded-stream-ran-out-not-above", "unbounded-stream-ran-out-not-below"];
/// Id of the finding that `stream-unbounded`'s process held more memory than the bounded stream contestants'.
pub(crate) const MEMORY_ABOVE: &str = "unbounded-stream-memory-above-bounded";
/// Id of the finding that `stream-unbounded` answered more calls per second than the bounded contestants.
pub(crate) const FASTER: &str = "unbounded-stream-faster";
/// Id of the finding that `stream-unbounded` answered no more calls per second than the bounded ones, beyond noise.
pub(crate) const NOT_FASTER: &str = "unbounded-stream-not-faster";
/// Id of the finding that `stream-unbounded` reached more than the published study's multiple of the bound.
pub(crate) const STUDY_MORE: &str = "unbounded-stream-above-study";
/// Id of the finding that it reached less than the study's multiple.
pub(crate) const STUDY_LESS: &str = "unbounded-stream-below-study";
/// Ids of the two rows that put it within noise of the study's multiple.
pub(crate) const STUDY_NEAR: [&str; 2] =
    ["unbounded-stream-near-study-not-above", "unbounded-stream-near-study-not-below"];
/// Id of the finding that every iteration of `stream-unbounded` reached within noise of its lowest: where it
/// fails, its own figure is loose.
pub(crate) const TIGHT: &str = "unbounded-stream-iterations-tight";
/// Id of the finding that the thread per item's peak stood above its mean beyond noise: the count swung.
pub(crate) const SWINGS: &str = "thread-per-item-swings";
/// Id of the finding that `stream-unbounded` kept more calls outstanding than `blocking-unbounded`.
pub(crate) const STREAM_MORE: &str = "unbounded-stream-more-than-threads";
/// Id of the finding that it kept no more than `blocking-unbounded`, beyond noise.
pub(crate) const STREAM_NOT_MORE: &str = "unbounded-stream-not-more-than-threads";
/// Id of the finding that the sampler saw `stream-unbounded`'s peak within the first millisecond, in every
/// iteration.
pub(crate) const PEAK_IN_FIRST_MS: &str = "unbounded-stream-peak-in-first-ms";
/// Id of the finding that the thread per item went past the bound + 1 in every iteration.
pub(crate) const PAST_BOUND: &str = "thread-per-item-past-bound";
/// Ids of the two rows that put `stream-buffered`'s throughput within noise of `stream-buffer-unordered`'s.
pub(crate) const ORDERING_NEAR: [&str; 2] = ["ordering-near-unordered-not-above", "ordering-near-unordered-not-below"];
/// Id of the finding that `stream-buffered` answered fewer calls per second than `stream-buffer-unordered`.
pub(crate) const ORDERING_SLOWER: &str = "ordering-slower";
/// Id of the finding that `stream-buffered` answered more calls per second than `stream-buffer-unordered`.
pub(crate) const ORDERING_FASTER: &str = "ordering-faster";

/// Id of the finding that `name`'s calls waited beyond an uncontended call's time (Little's law).
pub(crate) fn waited_id(name: &str) -> String {
    id(&[name, "waited"])
}

/// Id of the finding that `name`'s process kept every core busy.
pub(crate) fn saturated_id(name: &str) -> String {
    id(&[name, "saturated"])
}

/// Id of the finding that bounded contestant `name` kept at most the bound + 1 calls outstanding (the one extra
/// the conformance check tolerates) in every iteration.
pub(crate) fn kept_bound_id(name: &str) -> String {
    id(&[name, "kept-bound"])
}

/// Id of the finding that bounded contestant `name` kept at most the bound itself in every iteration, without
/// the one extra call the check tolerates.
pub(crate) fn within_limit_id(name: &str) -> String {
    id(&[name, "within-limit"])
}

/// Id of the finding that the 1 ms sampler saw `name`'s whole exact peak: no iteration's exact peak above the
/// sampled one (median).
pub(crate) fn sampled_whole_id(name: &str) -> String {
    id(&["sampler-saw-whole", name])
}

/// Id of the finding that the 1 ms sampler missed part of `name`'s exact peak.
pub(crate) fn missed_id(name: &str) -> String {
    id(&["sampler-missed", name])
}

/// What `max_outstanding` measures.
const MAX_OUT_DEFINITION: &str = "exact high-water mark of calls issued and not yet answered, per iteration";
/// What `ms_to_peak` measures.
const MS_TO_PEAK_DEFINITION: &str =
    "milliseconds from the start of the run to the first 1 ms sample at the highest outstanding count it saw";
/// What `ops_per_sec` measures.
const OPS_DEFINITION: &str = "calls answered per second over the steady window (whole run where there was none)";

/// The median of the medians of `metric` over the bounded contestants of `family` (any family: `None`).
pub(crate) fn bounded_median(summary: &Summary, family: Option<Family>, metric: &str) -> Option<f64> {
    let values: Vec<f64> = bounded_names()
        .iter()
        .filter(|n| family.is_none_or(|f| summary.contestant(n).is_some_and(|c| c.family == f)))
        .filter_map(|n| summary.median(n, metric))
        .collect();
    measure::stats::median(&values)
}

/// By Little's law, the mean time a call of `name` spent from admission to answer, in milliseconds: its mean
/// outstanding calls (1 ms samples) over its throughput. `(mean outstanding, milliseconds)`.
pub(crate) fn time_in_system(summary: &Summary, name: &str) -> Option<(f64, f64)> {
    let mean = summary.median(name, MEAN_OUTSTANDING)?;
    let ops = summary.median(name, OPS)?;
    (ops > 0.0 && mean > 0.0).then(|| (mean, mean / ops * 1e3))
}

/// `metric` of `name` against the fixed figure `value` (`label`), or NaN where the run has none.
fn on_figure(name: &str, metric: &'static str, definition: &'static str, value: Option<f64>, label: &str) -> On {
    On { metric, definition, comparison: against(name, Phase::Unphased, value.unwrap_or(f64::NAN), label) }
}

/// `metric` of contestant `a` against contestant `b`.
fn on_pair(a: &str, b: &str, metric: &'static str, definition: &'static str) -> On {
    On { metric, definition, comparison: Comparison::contestants(a, b, Phase::Unphased) }
}

/// Every finding row of the backpressure report, as data.
pub(crate) fn table(summary: &Summary) -> Vec<ClaimSpec> {
    let (limit, items) = (summary.param("limit"), summary.param("items"));
    let peak = |value: Option<f64>, label: &str| on_figure(STREAM_UNBOUNDED, MAX_OUT, MAX_OUT_DEFINITION, value, label);
    let study = references::figure("backpressure", STUDY_UNBOUNDED)
        .and_then(|f| Some(f.value / f.baseline_figure()?.value))
        .zip(limit)
        .map(|(times, limit)| times * limit);
    let rss = "peak resident memory of the process (MiB)";
    let against_bounded_ops = on_figure(
        STREAM_UNBOUNDED,
        OPS,
        OPS_DEFINITION,
        bounded_median(summary, None, OPS),
        "the bounded contestants' median",
    );
    let mut rows = Vec::new();
    rows.extend(within(
        summary,
        RAN_OUT,
        "`stream-unbounded` kept every item outstanding at its peak",
        peak(items, "the items"),
    ));
    rows.extend([
        beyond(
            summary,
            MEMORY_ABOVE,
            "`stream-unbounded`'s process peaked above the bounded stream contestants' resident memory (median)".into(),
            Beyond::Above,
            on_figure(
                STREAM_UNBOUNDED,
                "peak_rss_mib",
                rss,
                bounded_median(summary, Some(Family::Stream), "peak_rss_mib"),
                "the bounded stream contestants' median",
            ),
        ),
        beyond(
            summary,
            FASTER,
            "`stream-unbounded` answered more calls per second than the bounded contestants (median)".into(),
            Beyond::Above,
            against_bounded_ops.clone(),
        ),
        row(
            NOT_FASTER,
            "`stream-unbounded` answered no more calls per second than the bounded contestants (median)".into(),
            not_beyond(summary, OPS, Beyond::Above),
            against_bounded_ops,
        ),
        beyond(
            summary,
            STUDY_MORE,
            "`stream-unbounded` reached more than the published study's multiple of the bound".into(),
            Beyond::Above,
            peak(study, "the study's multiple of this bound"),
        ),
        beyond(
            summary,
            STUDY_LESS,
            "`stream-unbounded` reached less than the published study's multiple of the bound".into(),
            Beyond::Below,
            peak(study, "the study's multiple of this bound"),
        ),
    ]);
    rows.extend(within(
        summary,
        STUDY_NEAR,
        "`stream-unbounded` reached about the published study's multiple of the bound",
        peak(study, "the study's multiple of this bound"),
    ));
    let lowest = summary.metric(STREAM_UNBOUNDED, MAX_OUT).map(|s| s.min);
    rows.push(row(
        TIGHT,
        "Every iteration of `stream-unbounded` reached within noise of its lowest".into(),
        not_beyond(summary, MAX_OUT, Beyond::Above),
        peak(lowest, "its lowest iteration"),
    ));
    rows.push(beyond(
        summary,
        SWINGS,
        "`blocking-unbounded`'s peak stood above its mean outstanding calls".into(),
        Beyond::Above,
        on_figure(
            BLOCKING_UNBOUNDED,
            MAX_OUT,
            MAX_OUT_DEFINITION,
            summary.median(BLOCKING_UNBOUNDED, MEAN_OUTSTANDING),
            "its mean outstanding (median)",
        ),
    ));
    rows.push(beyond(
        summary,
        STREAM_MORE,
        "`stream-unbounded` kept more calls outstanding than `blocking-unbounded`".into(),
        Beyond::Above,
        on_pair(STREAM_UNBOUNDED, BLOCKING_UNBOUNDED, MAX_OUT, MAX_OUT_DEFINITION),
    ));
    rows.push(row(
        STREAM_NOT_MORE,
        "`stream-unbounded` kept no more calls outstanding than `blocking-unbounded`, beyond noise".into(),
        not_beyond(summary, MAX_OUT, Beyond::Above),
        on_pair(STREAM_UNBOUNDED, BLOCKING_UNBOUNDED, MAX_OUT, MAX_OUT_DEFINITION),
    ));
    rows.push(row(
        PAST_BOUND,
        "`blocking-unbounded` went past the bound + 1 in every iteration".into(),
        (Relation::AtLeast, 1.0),
        on_figure(BLOCKING_UNBOUNDED, MAX_OUT, MAX_OUT_DEFINITION, limit.map(|l| l + 2.0), "one past the bound + 1"),
    ));
    rows.push(beyond(
        summary,
        PEAK_IN_FIRST_MS,
        "The sampler saw `stream-unbounded`'s peak within the first millisecond".into(),
        Beyond::Below,
        on_figure(STREAM_UNBOUNDED, MS_TO_PEAK, MS_TO_PEAK_DEFINITION, Some(1.0), "the sampler's first millisecond"),
    ));
    for name in [STREAM_UNBOUNDED, BLOCKING_UNBOUNDED] {
        rows.extend(little_rows(summary, name));
    }
    rows.extend(bound_rows(limit));
    rows.extend(sampler_rows(summary));
    let ordering = || on_pair("stream-buffered", "stream-buffer-unordered", OPS, OPS_DEFINITION);
    rows.extend(within(
        summary,
        ORDERING_NEAR,
        "`stream-buffered` answered within noise of `stream-buffer-unordered`'s calls per second",
        ordering(),
    ));
    rows.push(beyond(
        summary,
        ORDERING_SLOWER,
        "`stream-buffered` answered fewer calls per second than `stream-buffer-unordered`".into(),
        Beyond::Below,
        ordering(),
    ));
    rows.push(beyond(
        summary,
        ORDERING_FASTER,
        "`stream-buffered` answered more calls per second than `stream-buffer-unordered`".into(),
        Beyond::Above,
        ordering(),
    ));
    rows
}

/// `name`'s calls waited beyond an uncontended call (its `idle_call_ms` below its time in the system by Little's
/// law), and its process kept every core busy.
fn little_rows(summary: &Summary, name: &str) -> [ClaimSpec; 2] {
    let ms = time_in_system(summary, name).map(|(_, ms)| ms);
    let idle = "median real duration of an uncontended call made the contestant's way, in milliseconds";
    let cores = f64::from(summary.environment.cores);
    let used = "cores the process kept busy over the run (its CPU time over wall time)";
    [
        beyond(
            summary,
            waited_id(name),
            format!("`{name}`'s calls spent longer from admission to answer than an uncontended call"),
            Beyond::Below,
            on_figure(name, "idle_call_ms", idle, ms, "its time in the system by Little's law (ms)"),
        ),
        row(
            saturated_id(name),
            format!("`{name}`'s process kept every core busy"),
            not_beyond(summary, "cores_used", Beyond::Below),
            on_figure(name, "cores_used", used, (cores > 0.0).then_some(cores), "the machine's cores"),
        ),
    ]
}

/// For every bounded contestant, its exact peak at most the bound + 1 ([`kept_bound_id`]) and at most the bound
/// ([`within_limit_id`]) in every iteration.
fn bound_rows(limit: Option<f64>) -> Vec<ClaimSpec> {
    let rows = |name: &String| {
        let bounds = [(kept_bound_id(name), "the bound + 1", 1.0), (within_limit_id(name), "the bound", 0.0)];
        bounds.map(|(id, label, extra)| {
            let text = format!("`{name}` kept at most {label} calls outstanding in every iteration");
            let on = on_figure(name, MAX_OUT, MAX_OUT_DEFINITION, limit.map(|l| l + extra), label);
            row(id, text, (Relation::AtMost, 1.0), on)
        })
    };
    bounded_names().iter().flat_map(rows).collect()
}

/// For every contestant, the 1 ms sampler's peak below the exact one beyond noise ([`missed_id`]), and every
/// iteration's exact peak at most the sampled one ([`sampled_whole_id`]).
fn sampler_rows(summary: &Summary) -> Vec<ClaimSpec> {
    summary
        .contestants
        .iter()
        .flat_map(|c| {
            let sampled = summary.median(&c.name, SAMPLED);
            let on = on_figure(&c.name, MAX_OUT, MAX_OUT_DEFINITION, sampled, "its sampled peak (median)");
            [
                beyond(
                    summary,
                    missed_id(&c.name),
                    format!("The 1 ms sampler missed part of `{}`'s exact peak", c.name),
                    Beyond::Above,
                    on.clone(),
                ),
                row(
                    sampled_whole_id(&c.name),
                    format!("The 1 ms sampler saw `{}`'s whole exact peak", c.name),
                    (Relation::AtMost, 1.0),
                    on,
                ),
            ]
        })
        .collect()
}
