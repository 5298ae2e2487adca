//! The figures and verdicts the backpressure report is written from, read from the run's summary so it stays
//! true when re-rendered: numbers formatted here, claims by id ([`claims_by_id`]), every word in
//! `templates/report.md` (and the headline's in `templates/headline.md`). A finding the template writes rests on
//! a judged claim, a conformance check, or the lab's one noise rule ([`differs`], [`differs_from_value`]: process
//! medians, never a point ratio of two medians). The one point ratio left, [`Loose`], describes one contestant's
//! own spread, as the report's spread table does.

use std::collections::BTreeMap;

use measure::compare::{beyond_noise, differs, differs_from_value, process_range};
use measure::record::Status;
use measure::references;
use measure::summary::{Family, MetricStats, Summary};
use measure::template::{claims_by_id, ClaimView};
use measure::units::count;
use serde::Serialize;

use super::claims::{
    BOUNDED_ALIKE, BOUNDED_SPREAD, MAX_OUT, OPS, THREADS_THROTTLED, THREAD_SHARE, UNBOUNDED_FACTOR, UNBOUNDED_PILES_UP,
};
use crate::figures::{duration_span, duration_us, fig, pct, range, span, Named};

use super::{bounded_names, BLOCKING_UNBOUNDED, MEAN_OUTSTANDING, MS_TO_PEAK, STREAM_UNBOUNDED, STUDY_UNBOUNDED};

/// The report's words.
const TEMPLATE: &str = include_str!("templates/report.md");
/// The headline note's words.
const HEADLINE: &str = include_str!("templates/headline.md");

/// The exact high-water mark as the 1 ms sampler saw it.
const SAMPLED: &str = "max_outstanding_sampled";
/// The published study's bound, in `measure/references.json`.
const STUDY_BOUND: &str = "the bound on outstanding calls";
/// The published study's worst bounded contestant, in `measure/references.json`.
const STUDY_WORST_BOUNDED: &str = "the worst bounded contestant";
/// One MiB in bytes.
const MIB: f64 = 1_048_576.0;

/// Everything `templates/report.md` reads.
#[derive(Debug, Serialize)]
struct Context {
    /// Every claim of the table by id, judged (`not judged` where the run has none).
    claims: BTreeMap<String, ClaimView>,
    /// The claims' factors: `100`, `1.15`, `0.1`.
    factors: Factors,
    /// Contestants that did not run cleanly or were cut short.
    not_clean: Vec<NotClean>,
    /// The time budget in seconds, for a cut-short line.
    budget_s: Option<String>,
    bound: Option<Bound>,
    bound_study: Option<BoundStudy>,
    unbounded_stream: Option<UnboundedStream>,
    unbounded_threads: Option<UnboundedThreads>,
    sampled: Option<Sampled>,
    throughput: Option<Throughput>,
    cost: Vec<Cost>,
    semantics: Option<Semantics>,
    pick: Pick,
    /// The coroutine family's rules (pipelines' shared note), when the run has coroutine contestants.
    coroutine_rules: Option<String>,
}

#[derive(Debug, Serialize)]
struct Factors {
    unbounded: String,
    spread: String,
    thread_share: String,
}

#[derive(Debug, Serialize)]
struct NotClean {
    name: String,
    /// `skipped`, `timeout`, `failed` or `cut_short`.
    state: &'static str,
    reason: Option<String>,
    /// Share of iterations cut short, in percent.
    cut_pct: String,
}

/// The bound section: `None` without a `limit`.
#[derive(Debug, Serialize)]
struct Bound {
    /// How many bounded contestants ran cleanly, of how many.
    clean: usize,
    total: usize,
    /// The families of the clean bounded contestants, and whether that is every family of the run.
    families: Vec<&'static str>,
    every_family: bool,
    limit: String,
    ceiling: String,
    /// Least and most of the bounded contestants' worst iterations.
    best: String,
    worst: String,
    /// Contestants past the bound + 1, with their ranges.
    over: Vec<Named>,
    /// Contestants at exactly the bound + 1.
    plus_one: Vec<String>,
    /// No contestant went past the bound itself.
    within_limit: bool,
}

#[derive(Debug, Serialize)]
struct BoundStudy {
    same_bound: bool,
    bound: String,
    worst: String,
    limit: String,
}

#[derive(Debug, Serialize)]
struct Across {
    /// Every iteration read the same.
    same: bool,
    /// `6,187–31,926`.
    range: String,
}

#[derive(Debug, Serialize)]
struct UnboundedStream {
    reached: String,
    across: Across,
    times_bound: String,
    pct_items: String,
    items: String,
    peak: Option<Peak>,
    little: Option<Little>,
    memory: Option<Memory>,
    speed: Option<Speed>,
    study: Option<Study>,
    loose: Option<Loose>,
}

#[derive(Debug, Serialize)]
struct Peak {
    /// The sampler saw the peak within the first millisecond.
    early: bool,
    at_ms: String,
    per_ms: String,
    service_ms: String,
    /// The peak is, within noise, every item.
    ran_out: bool,
}

#[derive(Debug, Serialize)]
struct Little {
    mean: String,
    time: String,
    times_idle: String,
    idle: String,
    /// A call took longer than an uncontended one beyond noise.
    waited: bool,
    /// The process kept, within noise, every core busy (and its CPU per call is known).
    saturated: bool,
    used: Option<String>,
    cores: String,
    cpu: Option<String>,
}

#[derive(Debug, Serialize)]
struct Memory {
    rss: String,
    base: String,
    extra: String,
    per_task: String,
    per_call: String,
    /// Every item was, within noise, outstanding at the peak.
    all_outstanding: bool,
}

#[derive(Debug, Serialize)]
struct Speed {
    ops: String,
    bounded_ops: String,
    faster: bool,
    /// Too few processes to tell the two apart.
    untold: bool,
}

#[derive(Debug, Serialize)]
struct Study {
    theirs: String,
    ours: String,
    /// `more`, `less` or `same`; `untold` with too few processes to compare.
    relation: &'static str,
    /// The run's items, when too few to reach the study's multiple.
    few_items: Option<String>,
}

#[derive(Debug, Serialize)]
struct Loose {
    min: String,
    max: String,
    apart: String,
}

#[derive(Debug, Serialize)]
struct UnboundedThreads {
    reached: String,
    across: Across,
    times_bound: String,
    threads: Option<String>,
    ops: Option<String>,
    spawn_every: Option<String>,
    /// Peak against mean, when the peak differs from the mean beyond noise.
    swing: Option<Swing>,
    little: Option<Little>,
    stream: Option<AgainstStream>,
    /// Every iteration went past the bound + 1.
    past_bound: bool,
}

#[derive(Debug, Serialize)]
struct Swing {
    peak: String,
    mean: String,
}

#[derive(Debug, Serialize)]
struct AgainstStream {
    /// `stream-unbounded` had more outstanding beyond noise.
    more: bool,
    /// Too few processes to compare the two.
    untold: bool,
    reached: String,
    times: String,
    /// Microseconds between `stream-unbounded`'s admissions, and this contestant's spawns.
    task_every: Option<String>,
    thread_every: Option<String>,
}

#[derive(Debug, Serialize)]
struct Sampled {
    /// Every peak sampled whole.
    whole: bool,
    lowest_pct: String,
    /// A contestant compared had too few processes for the noise rule to call a peak missed.
    too_few: bool,
    missed: Vec<Missed>,
    /// The lowest share of its exact peak the sampler saw of a contestant it did not miss, if any.
    others_pct: Option<String>,
}

#[derive(Debug, Serialize)]
struct Missed {
    name: String,
    sampled: String,
    exact: String,
    pct: String,
}

#[derive(Debug, Serialize)]
struct Throughput {
    limit: String,
    service: String,
    ideal: String,
    bounded: Option<BoundedThroughput>,
}

#[derive(Debug, Serialize)]
struct BoundedThroughput {
    ops: String,
    pct: String,
    real: Option<RealCeiling>,
    fastest: String,
    slowest: String,
    spread: String,
}

#[derive(Debug, Serialize)]
struct RealCeiling {
    idle: String,
    allows: String,
    pct: String,
}

#[derive(Debug, Serialize)]
struct Cost {
    /// The family of a row of bounded contestants, or the name of an unbounded one.
    family: Option<&'static str>,
    name: Option<String>,
    cpu: String,
    threads: String,
    rss: String,
}

#[derive(Debug, Serialize)]
struct Semantics {
    /// The two throughputs differ beyond noise.
    differ: bool,
    /// Too few processes to tell the two apart.
    untold: bool,
    ordered: String,
    unordered: String,
    ratio: String,
}

#[derive(Debug, Serialize)]
struct Pick {
    /// `holds`, `fails` or `not judged`: every bounded contestant passed its bound check.
    bound_checks: &'static str,
    any_bounded: bool,
    stream_reached: Option<String>,
    threads_reached: Option<String>,
    past_bound: bool,
}

/// The report's discussion, from `templates/report.md`.
pub(crate) fn discussion(summary: &Summary) -> String {
    measure::template::render_or_note("backpressure/report.md", TEMPLATE, context(summary))
}

/// The headline's own line: how far outstanding calls ran without admission, in each family.
pub(crate) fn headline_notes(summary: &Summary) -> Vec<String> {
    let Some(limit) = summary.param("limit") else { return Vec::new() };
    let reached: Vec<Reached> = [STREAM_UNBOUNDED, BLOCKING_UNBOUNDED]
        .into_iter()
        .filter_map(|name| {
            let max = summary.median(name, MAX_OUT)?;
            Some(Reached { name, reached: count(max), times_bound: fig(max / limit) })
        })
        .collect();
    if reached.is_empty() {
        return Vec::new();
    }
    let text = measure::template::render_or_note(
        "backpressure/headline.md",
        HEADLINE,
        serde_json::json!({ "reached": reached }),
    );
    vec![text.trim().to_string()]
}

/// How far an unbounded contestant went, for the headline.
#[derive(Debug, Serialize)]
struct Reached {
    name: &'static str,
    reached: String,
    times_bound: String,
}

fn context(summary: &Summary) -> Context {
    let mut claims = claims_by_id(&summary.claims);
    for id in [UNBOUNDED_PILES_UP, BOUNDED_ALIKE, THREADS_THROTTLED] {
        claims.entry(id.to_string()).or_insert_with(|| ClaimView {
            verdict: "not judged",
            holds: false,
            fails: false,
            inconclusive: false,
            p: String::new(),
            text: String::new(),
        });
    }
    Context {
        claims,
        factors: Factors {
            unbounded: fig(UNBOUNDED_FACTOR),
            spread: fig(BOUNDED_SPREAD),
            thread_share: fig(THREAD_SHARE),
        },
        not_clean: not_clean(summary),
        budget_s: summary.param("budget_ms").map(|b| fig(b / 1e3)),
        bound: bound(summary),
        bound_study: bound_study(summary),
        unbounded_stream: unbounded_stream(summary),
        unbounded_threads: unbounded_threads(summary),
        sampled: sampled(summary),
        throughput: throughput(summary),
        cost: cost(summary),
        semantics: semantics(summary),
        pick: pick(summary),
        coroutine_rules: pipelines::coroutine::rules_note(summary),
    }
}

/// The bounded contestants that ran cleanly, with their statistics of `metric`.
fn bounded_stats<'s>(summary: &'s Summary, metric: &str) -> Vec<(String, &'s MetricStats)> {
    bounded_names().into_iter().filter_map(|n| summary.metric(&n, metric).map(|s| (n, s))).collect()
}

/// The median of the medians of `metric` over the bounded contestants of `family` (any family: `None`).
fn bounded_median(summary: &Summary, family: Option<Family>, metric: &str) -> Option<f64> {
    let values: Vec<f64> = bounded_names()
        .iter()
        .filter(|n| family.is_none_or(|f| summary.contestant(n).is_some_and(|c| c.family == f)))
        .filter_map(|n| summary.median(n, metric))
        .collect();
    measure::stats::median(&values)
}

/// Whether `s` has too few processes for the noise rule to call it different from anything.
fn untold(s: &MetricStats) -> bool {
    process_range(s).is_none()
}

fn across(s: &MetricStats) -> Across {
    Across { same: count(s.min) == count(s.max), range: range(s) }
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

/// Whether the thread per item went past the bound + 1 in every iteration: a measured fact of a contestant with
/// no bound (shown as a figure, not judged as a claim, since nothing bounds it).
fn past_bound(summary: &Summary) -> bool {
    matches!(
        (summary.param("limit"), summary.metric(BLOCKING_UNBOUNDED, MAX_OUT)),
        (Some(limit), Some(s)) if s.min > limit + 1.0
    )
}

fn not_clean(summary: &Summary) -> Vec<NotClean> {
    let mut lines = Vec::new();
    for c in &summary.contestants {
        let state = match c.status {
            Status::Ok => match c.metrics.get("cut_short").filter(|s| s.max > 0.0) {
                Some(cut) => {
                    lines.push(NotClean {
                        name: c.name.clone(),
                        state: "cut_short",
                        reason: None,
                        cut_pct: pct(cut.mean),
                    });
                    continue;
                }
                None => continue,
            },
            Status::Skipped => "skipped",
            Status::Timeout => "timeout",
            _ => "failed",
        };
        lines.push(NotClean { name: c.name.clone(), state, reason: c.reason.clone(), cut_pct: String::new() });
    }
    lines
}

fn bound(summary: &Summary) -> Option<Bound> {
    let limit = summary.param("limit")?;
    let ceiling = limit + 1.0;
    let stats = bounded_stats(summary, MAX_OUT);
    let total = bounded_names().len();
    let worst = stats.iter().map(|(_, s)| s.max).fold(f64::MIN, f64::max);
    let best = stats.iter().map(|(_, s)| s.max).fold(f64::MAX, f64::min);
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
    Some(Bound {
        clean: stats.len(),
        total,
        every_family: families.len() > 1 && families.len() == all,
        families,
        limit: count(limit),
        ceiling: count(ceiling),
        best: count(best),
        worst: count(worst),
        over: stats
            .iter()
            .filter(|(_, s)| s.max > ceiling)
            .map(|(n, s)| Named { name: n.clone(), value: range(s) })
            .collect(),
        plus_one: stats.iter().filter(|(_, s)| s.max == ceiling).map(|(n, _)| n.clone()).collect(),
        within_limit: worst <= limit,
    })
}

/// The published study's bound and what its bounded contestants kept, against this run's bound.
fn bound_study(summary: &Summary) -> Option<BoundStudy> {
    let limit = summary.param("limit")?;
    if bounded_stats(summary, MAX_OUT).is_empty() {
        return None;
    }
    let bound = references::figure("backpressure", STUDY_BOUND)?;
    let worst = references::figure("backpressure", STUDY_WORST_BOUNDED)?;
    Some(BoundStudy {
        same_bound: bound.value == limit,
        bound: count(bound.value),
        worst: count(worst.value),
        limit: count(limit),
    })
}

fn unbounded_stream(summary: &Summary) -> Option<UnboundedStream> {
    let (limit, items) = (summary.param("limit")?, summary.param("items")?);
    let s = summary.metric(STREAM_UNBOUNDED, MAX_OUT)?;
    let service_ms = summary.param("service_us").map(|us| us / 1e3);
    let x = s.median;
    let noise = summary.method.noise_threshold;
    let peak =
        match (summary.median(STREAM_UNBOUNDED, SAMPLED), summary.median(STREAM_UNBOUNDED, MS_TO_PEAK), service_ms) {
            (Some(sampled), Some(at), Some(service)) => {
                let per_ms = sampled / at;
                Some(Peak {
                    early: at < 1.0,
                    at_ms: fig(at),
                    per_ms: count(per_ms),
                    service_ms: fig(service),
                    ran_out: !differs_from_value(s, items, noise),
                })
            }
            _ => None,
        };
    // Memory per task only where the claim that outstanding calls piled up holds (the template's condition).
    let memory = match (
        summary.metric(STREAM_UNBOUNDED, "peak_rss_mib"),
        bounded_median(summary, Some(Family::Stream), "peak_rss_mib"),
    ) {
        (Some(rss), Some(base)) if rss.median > base && differs_from_value(rss, base, noise) => Some(Memory {
            rss: fig(rss.median),
            base: fig(base),
            extra: fig(rss.median - base),
            per_task: count((rss.median - base) * MIB / items.max(x)),
            per_call: count((rss.median - base) * MIB / x),
            all_outstanding: !differs_from_value(s, items, noise),
        }),
        _ => None,
    };
    let speed = match (summary.metric(STREAM_UNBOUNDED, OPS), bounded_median(summary, None, OPS)) {
        (Some(ops), Some(bops)) => Some(Speed {
            ops: count(ops.median),
            bounded_ops: count(bops),
            faster: ops.median > bops && differs_from_value(ops, bops, noise),
            untold: untold(ops),
        }),
        _ => None,
    };
    let study = references::figure("backpressure", STUDY_UNBOUNDED).and_then(|f| Some((f, f.baseline_figure()?))).map(
        |(figure, bound)| {
            let (theirs, ours) = (figure.value / bound.value, x / limit);
            // The study's multiple as a count of calls under this run's bound, against this run's processes.
            let relation = if process_range(s).is_none() {
                "untold"
            } else if !differs_from_value(s, theirs * limit, noise) {
                "same"
            } else if ours > theirs {
                "more"
            } else {
                "less"
            };
            Study {
                theirs: fig(theirs),
                ours: fig(ours),
                relation,
                few_items: (items / limit < theirs).then(|| count(items)),
            }
        },
    );
    let loose = (s.min > 0.0 && beyond_noise(s.max, s.min, noise)).then(|| Loose {
        min: count(s.min),
        max: count(s.max),
        apart: fig(s.max / s.min),
    });
    Some(UnboundedStream {
        reached: count(x),
        across: across(s),
        times_bound: fig(x / limit),
        pct_items: pct(x / items),
        items: count(items),
        peak,
        little: little(summary, STREAM_UNBOUNDED),
        memory,
        speed,
        study,
        loose,
    })
}

fn unbounded_threads(summary: &Summary) -> Option<UnboundedThreads> {
    let limit = summary.param("limit")?;
    let t = summary.metric(BLOCKING_UNBOUNDED, MAX_OUT)?;
    let y = t.median;
    let noise = summary.method.noise_threshold;
    let ops = summary.median(BLOCKING_UNBOUNDED, OPS);
    let swing = time_in_system(summary, BLOCKING_UNBOUNDED)
        .filter(|_| summary.metric(BLOCKING_UNBOUNDED, MEAN_OUTSTANDING).is_some_and(|mean| differs(t, mean, noise)))
        .map(|(mean, _)| Swing { peak: count(y), mean: fig(mean) });
    let stream = summary.metric(STREAM_UNBOUNDED, MAX_OUT).filter(|_| y > 0.0).map(|s| AgainstStream {
        more: s.median > y && differs(s, t, noise),
        untold: untold(s) || untold(t),
        reached: count(s.median),
        times: fig(s.median / y),
        task_every: admission_interval_us(summary).filter(|_| ops.is_some()).map(duration_us),
        thread_every: ops.map(|ops| duration_us(1e6 / ops)),
    });
    Some(UnboundedThreads {
        reached: count(y),
        across: across(t),
        times_bound: fig(y / limit),
        threads: summary.median(BLOCKING_UNBOUNDED, "threads").map(count),
        ops: ops.map(count),
        spawn_every: ops.map(|ops| duration_us(1e6 / ops)),
        swing,
        little: little(summary, BLOCKING_UNBOUNDED),
        stream,
        past_bound: past_bound(summary),
    })
}

/// By Little's law, the mean time a call of `name` spent from admission to answer, in milliseconds: its mean
/// outstanding calls (1 ms samples) over its throughput. `(mean outstanding, milliseconds)`.
fn time_in_system(summary: &Summary, name: &str) -> Option<(f64, f64)> {
    let mean = summary.median(name, MEAN_OUTSTANDING)?;
    let ops = summary.median(name, OPS)?;
    (ops > 0.0 && mean > 0.0).then(|| (mean, mean / ops * 1e3))
}

/// How long `name`'s calls spent from admission to answer (Little's law) against an uncontended call, and how
/// busy its process kept the machine.
fn little(summary: &Summary, name: &str) -> Option<Little> {
    let (mean, ms) = time_in_system(summary, name)?;
    let idle = summary.median(name, "idle_call_ms")?;
    let noise = summary.method.noise_threshold;
    let cores = f64::from(summary.environment.cores);
    let (used, cpu) = (summary.median(name, "cores_used"), summary.median(name, "cpu_us_per_call"));
    let has_cores = cores > 0.0;
    Some(Little {
        mean: fig(mean),
        time: duration_us(ms * 1e3),
        times_idle: fig(ms / idle),
        idle: duration_us(idle * 1e3),
        waited: ms > idle && summary.metric(name, "idle_call_ms").is_some_and(|i| differs_from_value(i, ms, noise)),
        saturated: has_cores
            && cpu.is_some()
            && summary.metric(name, "cores_used").is_some_and(|used| !differs_from_value(used, cores, noise)),
        used: used.filter(|_| has_cores).map(fig),
        cores: fig(cores),
        cpu: cpu.map(duration_us),
    })
}

/// Microseconds between admissions of `stream-unbounded` on its way to its sampled peak, if it took at least a
/// millisecond to get there.
fn admission_interval_us(summary: &Summary) -> Option<f64> {
    let sampled = summary.median(STREAM_UNBOUNDED, SAMPLED)?;
    let at = summary.median(STREAM_UNBOUNDED, MS_TO_PEAK)?;
    (at >= 1.0 && sampled > 0.0).then(|| at * 1e3 / sampled)
}

fn sampled(summary: &Summary) -> Option<Sampled> {
    let mut missed = Vec::new();
    let mut seen = 0usize;
    let mut lowest: Option<f64> = None;
    let mut others: Option<f64> = None;
    let mut too_few = false;
    for c in &summary.contestants {
        let (Some(exact_stats), Some(sampled_stats)) =
            (summary.metric(&c.name, MAX_OUT), summary.metric(&c.name, SAMPLED))
        else {
            continue;
        };
        let (exact, sampled) = (exact_stats.median, sampled_stats.median);
        too_few |= untold(exact_stats) || untold(sampled_stats);
        if exact <= 0.0 {
            continue;
        }
        seen += 1;
        let share = sampled / exact;
        lowest = Some(lowest.map_or(share, |l: f64| l.min(share)));
        if exact > sampled && differs(exact_stats, sampled_stats, summary.method.noise_threshold) {
            missed.push(Missed { name: c.name.clone(), sampled: count(sampled), exact: count(exact), pct: pct(share) });
        } else {
            others = Some(others.map_or(share, |l: f64| l.min(share)));
        }
    }
    if seen == 0 {
        return None;
    }
    let lowest = lowest.unwrap_or(1.0).min(1.0);
    Some(Sampled {
        whole: lowest >= 1.0,
        lowest_pct: pct(lowest),
        too_few,
        missed,
        others_pct: others.map(|o| pct(o.min(1.0))),
    })
}

fn throughput(summary: &Summary) -> Option<Throughput> {
    let (limit, service_us) = (summary.param("limit")?, summary.param("service_us")?);
    let ideal = limit * 1e6 / service_us;
    let stats = bounded_stats(summary, OPS);
    let slowest = stats.iter().min_by(|a, b| a.1.median.total_cmp(&b.1.median));
    let fastest = stats.iter().max_by(|a, b| a.1.median.total_cmp(&b.1.median));
    let bounded = slowest.zip(fastest).map(|((sn, s), (fnm, f))| {
        // Each contestant against its own ceiling: the bound over its own uncontended call's real duration.
        let shares: Vec<f64> = stats
            .iter()
            .filter_map(|(n, s)| {
                summary.median(n, "idle_call_ms").filter(|i| *i > 0.0).map(|i| s.median * i / (limit * 1e3))
            })
            .collect();
        let idle: Vec<f64> = stats.iter().filter_map(|(n, _)| summary.median(n, "idle_call_ms")).collect();
        let (lo, hi) =
            (shares.iter().copied().fold(f64::MAX, f64::min), shares.iter().copied().fold(f64::MIN, f64::max));
        let (idle_lo, idle_hi) =
            (idle.iter().copied().fold(f64::MAX, f64::min), idle.iter().copied().fold(f64::MIN, f64::max));
        BoundedThroughput {
            ops: span(count(s.median), count(f.median)),
            pct: span(pct(s.median / ideal), pct(f.median / ideal)),
            real: (!shares.is_empty() && idle_lo > 0.0).then(|| RealCeiling {
                idle: duration_span(idle_lo * 1e3, idle_hi * 1e3),
                allows: span(count(limit * 1e3 / idle_hi), count(limit * 1e3 / idle_lo)),
                pct: span(pct(lo), pct(hi)),
            }),
            fastest: fnm.clone(),
            slowest: sn.clone(),
            spread: fig(f.median / s.median),
        }
    });
    Some(Throughput { limit: count(limit), service: duration_us(service_us), ideal: count(ideal), bounded })
}

fn cost(summary: &Summary) -> Vec<Cost> {
    // A row of each family's bounded contestants (medians of their medians), then each unbounded contestant.
    let families = [Family::Stream, Family::Blocking, Family::Coroutine].map(|family| {
        let median = move |metric: &str| bounded_median(summary, Some(family), metric);
        (Some(family.as_str()), None, Box::new(median) as Box<dyn Fn(&str) -> Option<f64>>)
    });
    let unbounded = [STREAM_UNBOUNDED, BLOCKING_UNBOUNDED].map(|name| {
        let median = move |metric: &str| summary.median(name, metric);
        (None, Some(name.to_string()), Box::new(median) as Box<dyn Fn(&str) -> Option<f64>>)
    });
    families
        .into_iter()
        .chain(unbounded)
        .filter_map(|(family, name, median)| {
            let (cpu, threads, rss) = (median("cpu_us_per_call")?, median("threads")?, median("peak_rss_mib")?);
            Some(Cost { family, name, cpu: fig(cpu), threads: count(threads), rss: fig(rss) })
        })
        .collect()
}

/// Whether ordering cost `stream-buffered` throughput against `stream-buffer-unordered`.
fn semantics(summary: &Summary) -> Option<Semantics> {
    let b = summary.metric("stream-buffered", OPS)?;
    let u = summary.metric("stream-buffer-unordered", OPS)?;
    Some(Semantics {
        differ: differs(b, u, summary.method.noise_threshold),
        untold: untold(b) || untold(u),
        ordered: count(b.median),
        unordered: count(u.median),
        ratio: fig(b.median / u.median),
    })
}

fn pick(summary: &Summary) -> Pick {
    Pick {
        bound_checks: bound_checks(summary),
        any_bounded: !bounded_stats(summary, MAX_OUT).is_empty(),
        stream_reached: summary.median(STREAM_UNBOUNDED, MAX_OUT).map(count),
        threads_reached: summary.median(BLOCKING_UNBOUNDED, MAX_OUT).map(count),
        past_bound: past_bound(summary),
    }
}
