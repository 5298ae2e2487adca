//! The backpressure report's figures: each section's numbers read from the run's summary and formatted for
//! `templates/report.md` (the contestants without full results, the bound, how far the two unbounded contestants
//! went, exact against sampled peaks, throughput under the bound, the cost, ordering, what the pick rests on).
//! Analysis only: which sentence a figure gets is the template's choice, by the verdicts of [`super::findings`]
//! and the claims; [`super::report`] gathers these into the template's context.

use measure::compare::process_range;
use measure::record::Status;
use measure::references;
use measure::summary::{Family, MetricStats, Summary, Verdict};
use measure::units::count;
use serde_json::{json, Value};

use super::claims::{MAX_OUT, OPS};
use super::findings::{
    bounded_median, kept_bound_id, missed_id, sampled_whole_id, saturated_id, time_in_system, waited_id,
    within_limit_id,
};
use super::{bounded_names, BLOCKING_UNBOUNDED, MS_TO_PEAK, SAMPLED, STREAM_UNBOUNDED, STUDY_UNBOUNDED};
use crate::format::{duration_span, duration_us, extremes, fig, named, pct, range, span};

const STUDY_BOUND: &str = "the bound on outstanding calls";
/// The published study's worst bounded contestant, in `measure/references.json`.
const STUDY_WORST_BOUNDED: &str = "the worst bounded contestant";
/// One MiB in bytes.
const MIB: f64 = 1_048_576.0;

/// How far outstanding calls ran without admission, in each family, for the headline: each unbounded contestant's
/// median peak and its multiple of the bound; empty without a bound.
pub(super) fn reached(summary: &Summary) -> Vec<Value> {
    let Some(limit) = summary.param("limit") else { return Vec::new() };
    [STREAM_UNBOUNDED, BLOCKING_UNBOUNDED]
        .into_iter()
        .filter_map(|name| {
            let max = summary.median(name, MAX_OUT)?;
            Some(json!({ "name": name, "reached": count(max), "times_bound": fig(max / limit) }))
        })
        .collect()
}

/// The bounded contestants that ran cleanly, with their statistics of `metric`.
fn bounded_stats<'s>(summary: &'s Summary, metric: &str) -> Vec<(String, &'s MetricStats)> {
    bounded_names().into_iter().filter_map(|n| summary.metric(&n, metric).map(|s| (n, s))).collect()
}

/// Whether `s` has too few processes for the noise rule to call it different from anything.
fn untold(s: &MetricStats) -> bool {
    process_range(s).is_none()
}

/// `s` across iterations: `same` when every iteration read the same, else its `range` (`6,187–31,926`).
fn across(s: &MetricStats) -> Value {
    json!({ "same": count(s.min) == count(s.max), "range": range(s) })
}

/// Whether every bounded contestant kept its bound, read from the conformance checks (true by construction of a
/// passing contestant, so a check and not a claim): `holds` when each ran cleanly and passed
/// `bounded_outstanding`, `fails` when one failed it, `not judged` otherwise.
fn bound_checks(summary: &Summary) -> &'static str {
    let bounded = bounded_names();
    let contestants: Vec<_> = bounded.iter().filter_map(|n| summary.contestant(n)).collect();
    if contestants.iter().any(|c| c.checks.iter().any(|k| k.name == "bounded_outstanding" && k.failed())) {
        "fails"
    } else if !contestants.is_empty()
        && contestants.len() == bounded.len()
        && contestants
            .iter()
            .all(|c| c.status == Status::Ok && c.checks.iter().any(|k| k.name == "bounded_outstanding" && k.passed))
    {
        "holds"
    } else {
        "not judged"
    }
}

/// Each contestant that did not run cleanly (`state` `skipped`, `timeout` or `failed`, with its `reason`) or was
/// cut short (`cut_short`, with the share of iterations cut in percent).
pub(super) fn not_clean(summary: &Summary) -> Vec<Value> {
    summary
        .contestants
        .iter()
        .filter_map(|c| {
            let (state, cut) = match c.status {
                Status::Ok => ("cut_short", Some(c.metrics.get("cut_short").filter(|s| s.max > 0.0)?)),
                Status::Skipped => ("skipped", None),
                Status::Timeout => ("timeout", None),
                _ => ("failed", None),
            };
            Some(json!({ "name": c.name, "state": state, "reason": c.reason, "cut_pct": cut.map(|s| pct(s.mean)) }))
        })
        .collect()
}

/// The bound section: how many bounded contestants ran cleanly of how many, their families, the least and most
/// of their worst iterations, and by their findings those `over` the bound + 1 (with their ranges), those whose
/// bound this run could not judge (`unjudged`), those at exactly the bound + 1 (`plus_one`), and whether all kept
/// the bound itself (`within_limit`).
pub(super) fn bound(summary: &Summary) -> Option<Value> {
    let limit = summary.param("limit")?;
    let stats = bounded_stats(summary, MAX_OUT);
    let (best, worst) = extremes(stats.iter().map(|(_, s)| s.max));
    let families: Vec<&'static str> = [Family::Stream, Family::Blocking, Family::Coroutine]
        .into_iter()
        .filter(|f| stats.iter().any(|(n, _)| summary.contestant(n).is_some_and(|c| c.family == *f)))
        .map(Family::as_str)
        .collect();
    let all = summary
        .contestants
        .iter()
        .map(|c| c.family)
        .filter(|f| *f != Family::Baseline)
        .collect::<std::collections::BTreeSet<_>>()
        .len();
    let kept = |name: &str| summary.finding(&kept_bound_id(name)).map(|f| f.verdict);
    let over: Vec<Value> =
        stats.iter().filter(|(n, _)| kept(n) == Some(Verdict::Fails)).map(|(n, s)| named(n, range(s))).collect();
    let unjudged: Vec<&String> = stats
        .iter()
        .filter(|(n, _)| !matches!(kept(n), Some(Verdict::Holds | Verdict::Fails)))
        .map(|(n, _)| n)
        .collect();
    let plus_one: Vec<&String> = stats
        .iter()
        .filter(|(n, _)| kept(n) == Some(Verdict::Holds) && !summary.finding_holds(&within_limit_id(n)))
        .map(|(n, _)| n)
        .collect();
    Some(json!({
        "clean": stats.len(),
        "total": bounded_names().len(),
        "every_family": families.len() > 1 && families.len() == all,
        "families": families,
        "limit": count(limit),
        "ceiling": count(limit + 1.0),
        "best": count(best),
        "worst": count(worst),
        "over": over,
        "unjudged": unjudged,
        "plus_one": plus_one,
        "within_limit": stats.iter().all(|(n, _)| summary.finding_holds(&within_limit_id(n))),
    }))
}

/// The published study's bound and what its bounded contestants kept, against this run's bound.
pub(super) fn bound_study(summary: &Summary) -> Option<Value> {
    let limit = summary.param("limit")?;
    if bounded_stats(summary, MAX_OUT).is_empty() {
        return None;
    }
    let bound = references::figure("backpressure", STUDY_BOUND)?;
    let worst = references::figure("backpressure", STUDY_WORST_BOUNDED)?;
    Some(json!({
        "same_bound": bound.value == limit,
        "bound": count(bound.value),
        "worst": count(worst.value),
        "limit": count(limit),
    }))
}

/// How far `stream-unbounded` went: its `peak` as the sampler saw it, its time in the system ([`little`]), its
/// `memory` per task against the bounded stream contestants', its `speed` against the bounded ones (`untold` with
/// too few processes), the published `study`'s multiple against this run's, and its own iterations' spread
/// (`loose`); the template says which of these are findings by their verdicts.
pub(super) fn unbounded_stream(summary: &Summary) -> Option<Value> {
    let (limit, items) = (summary.param("limit")?, summary.param("items")?);
    let s = summary.metric(STREAM_UNBOUNDED, MAX_OUT)?;
    let service_ms = summary.param("service_us").map(|us| us / 1e3);
    let x = s.median;
    let peak =
        match (summary.median(STREAM_UNBOUNDED, SAMPLED), summary.median(STREAM_UNBOUNDED, MS_TO_PEAK), service_ms) {
            (Some(sampled), Some(at), Some(service)) => Some(json!({
                "at_ms": fig(at),
                "per_ms": count(sampled / at),
                "service_ms": fig(service),
            })),
            _ => None,
        };
    let memory = summary
        .median(STREAM_UNBOUNDED, "peak_rss_mib")
        .zip(bounded_median(summary, Some(Family::Stream), "peak_rss_mib"))
        .map(|(rss, base)| {
            json!({
                "rss": fig(rss),
                "base": fig(base),
                "extra": fig(rss - base),
                "per_task": count((rss - base) * MIB / items.max(x)),
                "per_call": count((rss - base) * MIB / x),
            })
        });
    let speed = summary
        .metric(STREAM_UNBOUNDED, OPS)
        .zip(bounded_median(summary, None, OPS))
        .map(|(ops, bops)| json!({ "ops": count(ops.median), "bounded_ops": count(bops), "untold": untold(ops) }));
    let study = references::figure("backpressure", STUDY_UNBOUNDED).and_then(|f| Some((f, f.baseline_figure()?))).map(
        |(figure, bound)| {
            let theirs = figure.value / bound.value;
            json!({
                "theirs": fig(theirs),
                "ours": fig(x / limit),
                "untold": untold(s),
                "few_items": (items / limit < theirs).then(|| count(items)),
            })
        },
    );
    Some(json!({
        "reached": count(x),
        "across": across(s),
        "times_bound": fig(x / limit),
        "pct_items": pct(x / items),
        "items": count(items),
        "peak": peak,
        "little": little(summary, STREAM_UNBOUNDED),
        "memory": memory,
        "speed": speed,
        "study": study,
        "loose": (s.min > 0.0)
            .then(|| json!({ "min": count(s.min), "max": count(s.max), "apart": fig(s.max / s.min) })),
    }))
}

/// How far `blocking-unbounded` went: its threads and spawn rate, its peak against its mean (`swing`), its time in
/// the system ([`little`]), and `stream-unbounded` against it (with the microseconds between admissions and
/// between spawns); the template says which of these are findings by their verdicts.
pub(super) fn unbounded_threads(summary: &Summary) -> Option<Value> {
    let limit = summary.param("limit")?;
    let t = summary.metric(BLOCKING_UNBOUNDED, MAX_OUT)?;
    let y = t.median;
    let ops = summary.median(BLOCKING_UNBOUNDED, OPS);
    let swing =
        time_in_system(summary, BLOCKING_UNBOUNDED).map(|(mean, _)| json!({ "peak": count(y), "mean": fig(mean) }));
    let stream = summary.metric(STREAM_UNBOUNDED, MAX_OUT).filter(|_| y > 0.0).map(|s| {
        json!({
            "untold": untold(s) || untold(t),
            "reached": count(s.median),
            "times": fig(s.median / y),
            "task_every": admission_interval_us(summary).filter(|_| ops.is_some()).map(duration_us),
            "thread_every": ops.map(|ops| duration_us(1e6 / ops)),
        })
    });
    Some(json!({
        "reached": count(y),
        "across": across(t),
        "times_bound": fig(y / limit),
        "threads": summary.median(BLOCKING_UNBOUNDED, "threads").map(count),
        "ops": ops.map(count),
        "spawn_every": ops.map(|ops| duration_us(1e6 / ops)),
        "swing": swing,
        "little": little(summary, BLOCKING_UNBOUNDED),
        "stream": stream,
    }))
}

/// How long `name`'s calls spent from admission to answer (Little's law) against an uncontended call, and how busy
/// its process kept the machine, with the ids of the findings that it waited and kept every core busy.
fn little(summary: &Summary, name: &str) -> Option<Value> {
    let (mean, ms) = time_in_system(summary, name)?;
    let idle = summary.median(name, "idle_call_ms")?;
    let cores = f64::from(summary.environment.cores);
    let used = summary.median(name, "cores_used").filter(|_| cores > 0.0);
    Some(json!({
        "mean": fig(mean),
        "time": duration_us(ms * 1e3),
        "times_idle": fig(ms / idle),
        "idle": duration_us(idle * 1e3),
        "waited": waited_id(name),
        "saturated": saturated_id(name),
        "used": used.map(fig),
        "cores": fig(cores),
        "cpu": summary.median(name, "cpu_us_per_call").map(duration_us),
    }))
}

/// Microseconds between admissions of `stream-unbounded` on its way to its sampled peak (the template leaves it
/// out where the peak came within the first millisecond, [`super::findings::PEAK_IN_FIRST_MS`]).
fn admission_interval_us(summary: &Summary) -> Option<f64> {
    let sampled = summary.median(STREAM_UNBOUNDED, SAMPLED)?;
    let at = summary.median(STREAM_UNBOUNDED, MS_TO_PEAK)?;
    (at > 0.0 && sampled > 0.0).then(|| at * 1e3 / sampled)
}

/// The exact peaks against the sampler's: `whole` when every peak was sampled whole (by the findings,
/// [`sampled_whole_id`]), the lowest share seen (medians), `too_few` processes to call a peak missed, those the sampler `missed` (by their findings, [`missed_id`]),
/// and the lowest share of the others.
pub(super) fn sampled(summary: &Summary) -> Option<Value> {
    let mut missed = Vec::new();
    let (mut lowest, mut others): (Option<f64>, Option<f64>) = (None, None);
    let (mut too_few, mut whole) = (false, true);
    for c in &summary.contestants {
        let (Some(exact), Some(sampled)) = (summary.metric(&c.name, MAX_OUT), summary.metric(&c.name, SAMPLED)) else {
            continue;
        };
        too_few |= untold(exact) || untold(sampled);
        if exact.median <= 0.0 {
            continue;
        }
        let share = sampled.median / exact.median;
        lowest = Some(lowest.map_or(share, |l| l.min(share)));
        whole &= summary.finding_holds(&sampled_whole_id(&c.name));
        if summary.finding_holds(&missed_id(&c.name)) {
            let (sampled, exact) = (count(sampled.median), count(exact.median));
            missed.push(json!({ "name": c.name, "sampled": sampled, "exact": exact, "pct": pct(share) }));
        } else {
            others = Some(others.map_or(share, |l| l.min(share)));
        }
    }
    let lowest = lowest?.min(1.0);
    Some(json!({
        "whole": whole,
        "lowest_pct": pct(lowest),
        "too_few": too_few,
        "missed": missed,
        "others_pct": others.map(|o| pct(o.min(1.0))),
    }))
}

/// Throughput under the bound against its ideal ceiling, and the bounded contestants' spread, each against its
/// own real ceiling (the bound over its own uncontended call's real duration).
pub(super) fn throughput(summary: &Summary) -> Option<Value> {
    let (limit, service_us) = (summary.param("limit")?, summary.param("service_us")?);
    let ideal = limit * 1e6 / service_us;
    let stats = bounded_stats(summary, OPS);
    let slowest = stats.iter().min_by(|a, b| a.1.median.total_cmp(&b.1.median));
    let fastest = stats.iter().max_by(|a, b| a.1.median.total_cmp(&b.1.median));
    let bounded = slowest.zip(fastest).map(|((sn, s), (fnm, f))| {
        let shares: Vec<f64> = stats
            .iter()
            .filter_map(|(n, s)| {
                summary.median(n, "idle_call_ms").filter(|i| *i > 0.0).map(|i| s.median * i / (limit * 1e3))
            })
            .collect();
        let (lo, hi) = extremes(shares.iter().copied());
        let (idle_lo, idle_hi) = extremes(stats.iter().filter_map(|(n, _)| summary.median(n, "idle_call_ms")));
        json!({
            "ops": span(count(s.median), count(f.median)),
            "pct": span(pct(s.median / ideal), pct(f.median / ideal)),
            "real": (!shares.is_empty() && idle_lo > 0.0).then(|| json!({
                "idle": duration_span(idle_lo * 1e3, idle_hi * 1e3),
                "allows": span(count(limit * 1e3 / idle_hi), count(limit * 1e3 / idle_lo)),
                "pct": span(pct(lo), pct(hi)),
            })),
            "fastest": fnm,
            "slowest": sn,
            "spread": fig(f.median / s.median),
        })
    });
    Some(
        json!({ "limit": count(limit), "service": duration_us(service_us), "ideal": count(ideal), "bounded": bounded }),
    )
}

/// What the work cost: a row of each family's bounded contestants (medians of their medians, `family` set), then
/// each unbounded contestant (`name` set).
pub(super) fn cost(summary: &Summary) -> Vec<Value> {
    let families = [Family::Stream, Family::Blocking, Family::Coroutine].map(|family| (Some(family), None));
    let unbounded = [STREAM_UNBOUNDED, BLOCKING_UNBOUNDED].map(|name| (None, Some(name)));
    families
        .into_iter()
        .chain(unbounded)
        .filter_map(|(family, name)| {
            let median = |metric: &str| match name {
                Some(name) => summary.median(name, metric),
                None => bounded_median(summary, family, metric),
            };
            let (cpu, threads, rss) = (median("cpu_us_per_call")?, median("threads")?, median("peak_rss_mib")?);
            let family = family.map(Family::as_str);
            Some(json!({ "family": family, "name": name, "cpu": fig(cpu), "threads": count(threads), "rss": fig(rss) }))
        })
        .collect()
}

/// `stream-buffered`'s throughput against `stream-buffer-unordered`'s (`untold` with too few processes); the
/// template says whether ordering cost anything by the findings.
pub(super) fn semantics(summary: &Summary) -> Option<Value> {
    let b = summary.metric("stream-buffered", OPS)?;
    let u = summary.metric("stream-buffer-unordered", OPS)?;
    Some(json!({
        "untold": untold(b) || untold(u),
        "ordered": count(b.median),
        "unordered": count(u.median),
        "ratio": fig(b.median / u.median),
    }))
}

/// What the pick rests on: the bound checks ([`bound_checks`]), whether any bounded contestant ran, and how far
/// the two unbounded ones went.
pub(super) fn pick(summary: &Summary) -> Value {
    json!({
        "bound_checks": bound_checks(summary),
        "any_bounded": !bounded_stats(summary, MAX_OUT).is_empty(),
        "stream_reached": summary.median(STREAM_UNBOUNDED, MAX_OUT).map(count),
        "threads_reached": summary.median(BLOCKING_UNBOUNDED, MAX_OUT).map(count),
    })
}
