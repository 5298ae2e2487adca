//! The overload report's figures, computed from a run's summary before anything renders (analysis before
//! rendering, as criterion's `analysis` computes and its `report` prints): tables, ratios and derived numbers,
//! each formatted as the template prints it, and the verdicts each figure sits beside, read from the summary's
//! judged claims, findings and answers. Nothing here chooses a sentence; `report.rs` gathers these figures into
//! the template's context.

use std::collections::BTreeMap;

use measure::compare::format_ratio;
use measure::summary::{Family, Role, Summary, Verdict};
use measure::template::ClaimView;
use measure::units::count;
use serde::Serialize;

use super::claims::{longer_id, tail_id, FAMILY_AGREEMENT, FEED_TOLERANCE, HALVES, NEAR_CEILING};
use super::contestants::Contestant;
use super::findings::{published_sentence, vegas_steering, LIMIT_MEAN};
use super::routine::accounting_calls;
use crate::analysis::{DECISIONS, HEADLINE};
use crate::config::after_ceiling;
use crate::config::LIMITERS;
use crate::limit::{vegas_equilibrium, AimdConfig, Decisions, Gradient2Config, LimiterKind};
use crate::policy::{by_verdict, FAMILIES};

/// Figures by key, each as the template prints it.
pub type Figures = BTreeMap<&'static str, String>;

/// Figures by key, each as the template prints it, `None` where the run lacks one.
pub type MaybeFigures = BTreeMap<&'static str, Option<String>>;

/// One contestant's row: its `name`, its figures, and its limiter's non-zero decision counts where it has one.
#[derive(Debug, Clone, Serialize)]
pub struct Row {
    /// Contestant.
    pub name: String,
    /// It admits through the lab's gate, so it has a limiter's figures.
    pub gated: bool,
    /// Figures by key, `None` where not measured.
    pub figures: MaybeFigures,
    /// The limiter's non-zero decision counts, each `name` (`app-limited`) with its `value`.
    pub decisions: Vec<Figures>,
}

/// The figures on each adaptive limiter, each by family (`spread`: `None` unless its stream and blocking
/// contestants measured it), and Vegas's steering verdicts ([`vegas_steering`]).
#[derive(Debug, Clone, Serialize)]
pub struct Limiters {
    /// AIMD's backoff factor.
    pub backoff: String,
    /// Each AIMD limiter: `name`, and by family its mean `limit` after the drop, `ops` as a share of the ceiling
    /// and `cuts` over the run.
    pub aimds: Vec<BTreeMap<&'static str, serde_json::Value>>,
    /// Gradient2: by family its `limit`, and its `ups` and `downs` over the run.
    pub gradient2: Option<BTreeMap<&'static str, serde_json::Value>>,
    /// Vegas: by family its `limit`, after-drop `p99` and limit `at_drop`; its caller `overhead` and the
    /// `arithmetic` of its equilibrium (`vegas_figures`).
    pub vegas: Option<BTreeMap<&'static str, serde_json::Value>>,
    /// Whether Vegas's caller overhead steered its limit (`steered`) or the other way (`against`).
    pub steering: BTreeMap<&'static str, ClaimView>,
}

/// One adaptive limiter against the fixed bound: its two claims, the published sentence, the figures behind them.
#[derive(Debug, Clone, Serialize)]
pub struct Policy {
    /// The limiter.
    pub name: &'static str,
    /// Its after-drop p99 below the fixed bound's beyond noise, in every family ([`tail_id`]).
    pub tail: ClaimView,
    /// Its whole run longer than the fixed bound's beyond noise, in every family ([`longer_id`]).
    pub longer: ClaimView,
    /// Both claims together ([`published_sentence`]).
    pub sentence: ClaimView,
    /// Its after-drop p99 as a multiple of the same family's fixed bound's (`ratio_to_fixed`).
    pub p99_ratio: Option<String>,
    /// Its whole run's wall time, the same way.
    pub wall_ratio: Option<String>,
    /// The batch-tail question's guard excluded every family's contestant of it, as the summary's answer says.
    pub under_use: bool,
}

/// The keys of [`params`].
const PARAMS: &str = "calls capacity capacity_after service_ms fixed_limit initial_limit min_limit max_limit \
                      timeout_ms queue_limit jitter_us healthy_ms settle_ms settle_drift_pct healthy_max_ms";

/// The metrics of [`more_rows`] that are counts (shown whole and grouped), and those that are not.
const MORE_METRICS: [&str; 2] = [
    "before_drop.latency_p99_us before_drop.ops_per_sec after_drop.latency_p50_us after_drop.latency_max_us \
     after_drop.gate_wait_latency_p99_us after_drop.max_outstanding max_outstanding after_drop.limit_mean \
     decisions.increases decisions.decreases decisions.holds decisions.app_limited decisions.probes \
     decisions.new_minimums decisions.ignored decisions.windows threads errors",
    "dependency_cpu_us_per_call ctx_switches_per_item cores_used idle_overshoot_us",
];

/// The claims' factors, as their texts print them: `halves`, `near`, `family` and `feed`.
pub fn factors() -> Figures {
    let factors = [("halves", HALVES), ("near", NEAR_CEILING), ("family", FAMILY_AGREEMENT), ("feed", FEED_TOLERANCE)];
    factors.into_iter().map(|(key, factor)| (key, factor.to_string())).collect()
}

/// The run's parameters by key (`PARAMS`), each whole, `None` where the run lacks one.
pub fn params(summary: &Summary) -> MaybeFigures {
    PARAMS.split_whitespace().map(|key| (key, summary.param(key).map(whole))).collect()
}

/// The run made fewer calls than the published experiment's 200,000.
pub fn fewer_calls_than_published(summary: &Summary) -> bool {
    summary.param("calls").is_some_and(|c| c < 200_000.0)
}

/// The dependency rejects a call beyond a queue of `queue-limit` calls (a labelled variant), rather than queueing
/// every call it cannot serve.
pub fn rejects(summary: &Summary) -> bool {
    summary.param("queue_limit").is_some_and(|q| q > 0.0)
}

/// The adaptive limiters ran in the lab's short window (`--windowed 1`).
pub fn windowed(summary: &Summary) -> bool {
    summary.param("windowed").is_some_and(|w| w > 0.0)
}

/// Gradient2's long window, in samples (windows with `--windowed 1`).
pub fn long_window() -> usize {
    Gradient2Config::default().long_window
}

/// Median idle overshoot over each family's contestants, by family (`—` where none of a family's measured it);
/// `None` when no contestant measured it.
pub fn idle(summary: &Summary) -> Option<Figures> {
    let measured = summary.contestants.iter().any(|c| summary.median(&c.name, "idle_overshoot_us").is_some());
    let shown = |m: Option<f64>| m.map_or("—".to_string(), |m| format!("{m:.0} µs"));
    let idle = |family| family_median(summary, family, "idle_overshoot_us", true);
    measured.then(|| FAMILIES.into_iter().map(|f| (f.as_str(), shown(idle(f)))).collect())
}

/// One row per limiter and family that ran, in report order (`trade_row`).
pub fn trade_rows(summary: &Summary) -> Vec<Row> {
    LIMITERS.into_iter().flat_map(Contestant::gated).filter_map(|c| trade_row(summary, c)).collect()
}

/// The adaptive limiters of `policies` by the verdict (`holds`, `fails`, `inconclusive`) of their tail claim.
pub fn tail_by_verdict(policies: &[Policy]) -> BTreeMap<&'static str, Vec<&'static str>> {
    by_verdict(policies.iter().map(|p| (p.name, p.tail.verdict)))
}

/// Per contestant, in report order, its medians of `MORE_METRICS` (`more_row`).
pub fn more_rows(summary: &Summary) -> Vec<Row> {
    summary.contestants.iter().map(|c| more_row(summary, &c.name)).collect()
}

/// `name`'s median count of the limiter's decision `key`, 0 where not counted.
fn decision(summary: &Summary, name: &str, key: &str) -> f64 {
    summary.median(name, &format!("{DECISIONS}.{key}")).unwrap_or(0.0)
}

/// Microseconds as milliseconds: `10.8 ms`, `267 ms`.
fn ms(us: f64) -> String {
    if us >= 100_000.0 {
        format!("{:.0} ms", us / 1e3)
    } else {
        format!("{:.1} ms", us / 1e3)
    }
}

/// A whole number.
fn whole(v: f64) -> String {
    format!("{v:.0}")
}

/// The median over `family`'s contestants (the pathologies left out unless `pathologies`) of their medians of
/// `metric`.
fn family_median(summary: &Summary, family: Family, metric: &str, pathologies: bool) -> Option<f64> {
    let in_family = summary.contestants.iter().filter(|c| c.family == family);
    let values: Vec<f64> = in_family
        .filter(|c| pathologies || c.role != Role::Pathology)
        .filter_map(|c| summary.median(&c.name, metric))
        .collect();
    measure::stats::median(&values)
}

/// The dependency's ceilings in calls per second before (`before`) and after (`after_ops`) the drop, if the run
/// has the parameters (and recorded its `calls`, as every run that shows the section did).
pub fn ceiling(summary: &Summary) -> Option<Figures> {
    let (capacity, service) = (summary.param("capacity")?, summary.param("service_ms")?);
    summary.param("calls")?;
    Some(Figures::from([("before", whole(capacity * 1e3 / service)), ("after_ops", whole(after_ceiling(summary)?))]))
}

/// One limiter in one family, if it ran: after-drop `p99` and `ops`, whole run `wall_s`, and where measured the
/// after-drop `gate_wait` p99, the after-drop p99 a `caller` sees, after-drop `errors` (when any),
/// `limit_at_drop` with `limit_at_end`, the after-drop `limit_mean`, and the limiter's non-zero decisions.
fn trade_row(summary: &Summary, contestant: Contestant) -> Option<Row> {
    let name = contestant.name();
    let at = |metric: &str| summary.median(&name, metric);
    let (p99, ops, wall) = (at(HEADLINE)?, at("after_drop.ops_per_sec")?, at("wall_ms")?);
    let named = Decisions::default().named().map(|(key, _)| (key.replace('_', "-"), decision(summary, &name, key)));
    let decisions = named.into_iter().filter(|(_, v)| *v > 0.0);
    let decisions = decisions.map(|(n, v)| Figures::from([("name", n), ("value", whole(v))])).collect();
    let limits = at("limit_at_drop").zip(at("limit_at_end"));
    let figures = MaybeFigures::from([
        ("p99", Some(ms(p99))),
        ("ops", Some(whole(ops))),
        ("wall_s", Some(format!("{:.2}", wall / 1e3))),
        ("gate_wait", at("after_drop.gate_wait_latency_p99_us").map(ms)),
        ("caller", at("after_drop.caller_latency_p99_us").map(ms)),
        ("errors", at("after_drop.errors").filter(|&e| e > 0.0).map(whole)),
        ("limit_at_drop", limits.map(|(at_drop, _)| whole(at_drop))),
        ("limit_at_end", limits.map(|(_, at_end)| whole(at_end))),
        ("limit_mean", at("after_drop.limit_mean").map(whole)),
    ]);
    Some(Row { name, gated: true, figures, decisions })
}

/// `metric` of `kind`'s contestants, by family (`name`: the family, `value`: formatted by `show`); `None` unless
/// its stream and blocking contestants measured it.
fn spread(summary: &Summary, kind: LimiterKind, metric: &str, show: impl Fn(f64) -> String) -> serde_json::Value {
    let gated @ [stream, blocking, _] = Contestant::gated(kind);
    if [stream, blocking].iter().any(|c| summary.median(&c.name(), metric).is_none()) {
        return serde_json::Value::Null;
    }
    let by_family = gated.iter().filter_map(|c| Some((c.family().as_str(), show(summary.median(&c.name(), metric)?))));
    serde_json::json!(by_family
        .map(|(name, value)| Figures::from([("name", name.to_string()), ("value", value)]))
        .collect::<Vec<_>>())
}

/// The figures on each adaptive limiter (`spread`), if the run has the after-drop ceiling: each AIMD limiter's
/// mean `limit` after the drop, after-drop `ops` as a share of the ceiling and `cuts`; Gradient2's `limit`, `ups`
/// and `downs`; Vegas's (`vegas_figures`).
pub fn limiters(summary: &Summary) -> Option<Limiters> {
    let (ceiling, _) = (after_ceiling(summary)?, summary.param("capacity_after")?);
    let share = |v: f64| format!("{:.0}%", 100.0 * v / ceiling);
    let (limit, cuts) = (
        |kind| spread(summary, kind, LIMIT_MEAN, whole),
        |kind, key: &str| spread(summary, kind, &format!("{DECISIONS}.{key}"), whole),
    );
    // A limiter's figures, with its name, if it has its mean limit by family.
    let named = |kind: LimiterKind, figures: [(&'static str, serde_json::Value); 3]| {
        let mut found = BTreeMap::from(figures);
        found.insert("name", serde_json::json!(kind.name()));
        (!found["limit"].is_null()).then_some(found)
    };
    let aimds: Vec<_> = LIMITERS
        .into_iter()
        .filter(|k| matches!(k, LimiterKind::Aimd | LimiterKind::AimdLatency(_)))
        .filter_map(|k| {
            let ops = spread(summary, k, "after_drop.ops_per_sec", share);
            named(k, [("limit", limit(k)), ("ops", ops), ("cuts", cuts(k, "decreases"))])
        })
        .filter(|aimd| !aimd["ops"].is_null())
        .collect();
    let g = LimiterKind::Gradient2;
    let gradient2 = named(g, [("limit", limit(g)), ("ups", cuts(g, "increases")), ("downs", cuts(g, "decreases"))]);
    let vegas = vegas_figures(summary);
    let steering = vegas_steering(summary).map(|(key, verdict)| (key, ClaimView::of(&verdict))).into();
    let backoff = AimdConfig::default().backoff.to_string();
    (!aimds.is_empty() || gradient2.is_some() || vegas.is_some()).then_some(Limiters {
        backoff,
        aimds,
        gradient2,
        vegas,
        steering,
    })
}

/// Vegas's figures, if its stream and blocking contestants ran: by family its mean `limit` after the drop, its
/// after-drop `p99` and its limit `at_drop`; the `overhead` the caller adds to a call before the drop (medians,
/// `stream_us`, `blocking_us`) with the limits at the drop (`stream_limit`, `blocking_limit`); and the `arithmetic`
/// of its equilibrium: the smallest latency it can see (`smallest_us`: service time less jitter, plus the idle
/// call's overshoot), its stream contestant's median call before the drop (`typical_us`), `1 − smallest / typical`
/// (`fraction`), and the `limit` at which `L × fraction = 3·log10 L` ([`vegas_equilibrium`]).
fn vegas_figures(summary: &Summary) -> Option<BTreeMap<&'static str, serde_json::Value>> {
    let kind = LimiterKind::Vegas;
    let (limit, p99) = (spread(summary, kind, LIMIT_MEAN, whole), spread(summary, kind, HEADLINE, ms));
    if limit.is_null() || p99.is_null() {
        return None;
    }
    let [stream, blocking, _] = Contestant::gated(kind).map(|c| c.name());
    let at = |name: &str, metric: &str| summary.median(name, metric);
    let overhead = |name: &str| Some(at(name, "before_drop.latency_p50_us")? - at(name, "idle_call_us")?);
    let overhead = || {
        let (os, ob) = (overhead(&stream)?, overhead(&blocking)?);
        let (ls, lb) = (at(&stream, "limit_at_drop")?, at(&blocking, "limit_at_drop")?);
        Some(Figures::from(
            [("stream_us", os), ("blocking_us", ob), ("stream_limit", ls), ("blocking_limit", lb)]
                .map(|(k, v)| (k, whole(v))),
        ))
    };
    let arithmetic = || {
        let smallest = summary.param("service_ms")? * 1e3 - summary.param("jitter_us")?
            + at(&stream, "idle_overshoot_us").unwrap_or(0.0);
        let typical = at(&stream, "before_drop.latency_p50_us")?;
        let fraction = 1.0 - smallest / typical;
        let limit = vegas_equilibrium(fraction)?;
        let fraction = format!("{:.1}%", fraction * 100.0);
        Some(Figures::from([
            ("smallest_us", whole(smallest)),
            ("typical_us", whole(typical)),
            ("fraction", fraction),
            ("limit", whole(limit)),
        ]))
    };
    Some(BTreeMap::from([
        ("limit", limit),
        ("p99", p99),
        ("at_drop", spread(summary, kind, "limit_at_drop", whole)),
        ("overhead", serde_json::json!(overhead())),
        ("arithmetic", serde_json::json!(arithmetic())),
    ]))
}

/// The unbounded contestants that ran: `name`, after-drop `p99` of the calls served, after-drop `errors` of its
/// after-drop `calls`, and `max_outstanding`.
pub fn unbounded_rows(summary: &Summary) -> Vec<Figures> {
    let row = |name: String| {
        let at = |metric: &str| summary.median(&name, metric);
        Some(Figures::from([
            ("p99", ms(at(HEADLINE)?)),
            ("max_outstanding", whole(at("max_outstanding")?)),
            ("errors", whole(at("after_drop.errors").unwrap_or(0.0))),
            ("calls", whole(at("after_drop.calls").unwrap_or(0.0))),
            ("name", name.clone()),
        ]))
    };
    [Contestant::StreamUnbounded, Contestant::BlockingUnbounded].iter().filter_map(|c| row(c.name())).collect()
}

/// `blocking-unbounded`'s threads, each what it is: `unbounded-threads` (`configured`); the threads of a timed
/// run (`timed`: `unbounded-threads`, at most one per call); the calls of an accounting run (`accounting_calls`)
/// and the threads it starts (`accounting`); the `threads` figure (`measured`: the most threads its process had
/// during the accounting run); and of those the trial's own (`others`), when not negative.
pub fn unbounded_threads(summary: &Summary) -> MaybeFigures {
    let (configured, calls) = (summary.param("unbounded_threads"), summary.param("calls"));
    // As the contestant sizes its pool: `unbounded-threads`, at most one per call.
    let threads = |calls: f64| configured.map(|t| t.min(calls.max(1.0)));
    let accounting_calls = calls.map(|c| accounting_calls(c as u64) as f64);
    let accounting = accounting_calls.and_then(threads);
    let measured = summary.median(&Contestant::BlockingUnbounded.name(), "threads");
    let others = measured.zip(accounting).map(|(m, a)| m - a).filter(|&o| o >= 0.0);
    let figures = [
        ("configured", configured),
        ("timed", calls.and_then(threads)),
        ("accounting_calls", accounting_calls),
        ("accounting", accounting),
        ("measured", measured),
        ("others", others),
    ];
    figures.into_iter().map(|(key, value)| (key, value.map(whole))).collect()
}

/// Per family, medians over its bounded contestants (the pathologies left out): `family`, CPU per call (`total`,
/// µs), of it on the dependency's timer threads (`dependency`, µs), and context switches per call (`ctx`).
pub fn family_cpu(summary: &Summary) -> Vec<Figures> {
    let row = |family: Family| {
        let pick = |metric: &str| family_median(summary, family, metric, false);
        Some(Figures::from([
            ("family", family.as_str().to_string()),
            ("total", format!("{:.1}", pick("cpu_us_per_call")?)),
            ("dependency", format!("{:.1}", pick("dependency_cpu_us_per_call")?)),
            ("ctx", format!("{:.2}", pick("ctx_switches_per_item")?)),
        ]))
    };
    FAMILIES.into_iter().filter_map(row).collect()
}

/// Each adaptive limiter's [`Policy`], from the summary's judged claims and its `batch-tail` answer; a limiter
/// whose two claims the run did not judge is left out.
pub fn policies(summary: &Summary) -> Vec<Policy> {
    let excluded: Vec<&str> = summary
        .questions
        .iter()
        .filter(|q| q.id == "batch-tail")
        .flat_map(|q| q.answers.iter().flat_map(|a| &a.excluded))
        .filter(|e| e.verdict == Verdict::Fails && e.value.is_some())
        .map(|e| e.name.as_str())
        .collect();
    let claim = |id: &str| summary.claims.iter().find(|c| c.id == id).map(ClaimView::of);
    let adaptive = LIMITERS.into_iter().filter(|k| k.is_adaptive());
    adaptive
        .filter_map(|kind| {
            Some(Policy {
                name: kind.name(),
                tail: claim(&tail_id(kind))?,
                longer: claim(&longer_id(kind))?,
                sentence: ClaimView::of(&published_sentence(summary, kind)),
                p99_ratio: ratio_to_fixed(summary, kind, HEADLINE),
                wall_ratio: ratio_to_fixed(summary, kind, "wall_ms"),
                under_use: Contestant::gated(kind).iter().all(|c| excluded.contains(&c.name().as_str())),
            })
        })
        .collect()
}

/// `kind`'s median of `metric` over the same family's fixed bound's, lowest and highest over the families that
/// have both (`0.67–0.68`, or one figure when both round alike); `None` when none has.
fn ratio_to_fixed(summary: &Summary, kind: LimiterKind, metric: &str) -> Option<String> {
    let pairs = Contestant::gated(kind).into_iter().zip(Contestant::gated(LimiterKind::Fixed));
    let ratios: Vec<f64> = pairs
        .filter_map(|(c, fixed)| Some(summary.median(&c.name(), metric)? / summary.median(&fixed.name(), metric)?))
        .collect();
    let low = format_ratio(ratios.iter().copied().reduce(f64::min)?);
    let high = format_ratio(ratios.iter().copied().reduce(f64::max)?);
    Some(if low == high { low } else { format!("{low}–{high}") })
}

/// Contestants of this run that admit through a limiter of their own, not the lab's gate: the published crate's
/// (its limit only mirrored by the gate), and any other in the registry that is neither gated nor a pathology.
pub fn peers(summary: &Summary) -> Vec<String> {
    let own =
        |c: &Contestant| c.limiter().map_or(c.info().role != Role::Pathology, |k| k == LimiterKind::CongestionLimiter);
    Contestant::all()
        .into_iter()
        .filter(own)
        .map(|c| c.name())
        .filter(|name| summary.contestant(name).is_some())
        .collect()
}

/// `name`'s medians of `MORE_METRICS`, by metric: a count rounded and grouped (`5,004`), anything else to three
/// significant digits (`1.44`, `0.562`), `—` when not measured.
fn more_row(summary: &Summary, name: &str) -> Row {
    let figure = |metric: &'static str, is_count: bool| match summary.median(name, metric) {
        None => (metric, Some("—".to_string())),
        Some(v) if is_count || v == 0.0 || v.abs() >= 100.0 => (metric, Some(count(v))),
        Some(v) => (metric, Some(format_ratio(v))),
    };
    let [counts, others] = MORE_METRICS.map(str::split_whitespace);
    let figures = counts.map(|m| figure(m, true)).chain(others.map(|m| figure(m, false))).collect();
    let gated = Contestant::find(name).is_some_and(|k| k.limiter().is_some());
    Row { name: name.to_string(), gated, figures, decisions: Vec::new() }
}
