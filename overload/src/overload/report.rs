//! The overload report's figures and verdicts, read from a run's summary so the report stays true when it is
//! re-rendered: a typed context ([`Context`]) of formatted numbers by key, contestant names, flags and the claims
//! by id ([`measure::template::claims_by_id`]), rendered with `templates/report.md`, which holds every word. Which
//! finding a sentence states is decided by a claim's verdict, or by a finding this module judges the way a claim
//! is judged ([`measure::judge::judge`]: on process medians, with its p, against a claim's factor or the noise
//! threshold) and hands over as a verdict; the template states a finding only when its verdict holds and shows
//! the figures alone otherwise. No sentence is built here.

use std::collections::BTreeMap;

use measure::compare::{format_ratio, verdict, Basis, Operand, Relation};
use measure::judge::{judge, ClaimSpec, Comparison, Phase, Side, Who};
use measure::summary::{Family, MetricStats, Role, Summary, Verdict};
use measure::template::{claims_by_id, ClaimView};
use measure::units::count;
use serde::Serialize;

use super::claims::{after_ceiling, longer_id, tail_id, FAMILY_AGREEMENT, FEED_TOLERANCE, HALVES, NEAR_CEILING};
use super::contestants::Contestant;
use super::routine::accounting_calls;
use crate::analysis::{DECISIONS, HEADLINE};
use crate::config::{IDLE_CALLS, LIMITERS};
use crate::feed::{family_pairs, weakest, Apart, NoFeed, Pairing};
use crate::limit::{AimdConfig, Decisions, Gradient2Config, LimiterKind};

/// Every word of the report's discussion, with the figures below filled in.
const TEMPLATE: &str = include_str!("templates/report.md");

/// The version of the published peer whose API the report describes (read from its source).
const PEER_VERSION: &str = "0.1.0";

/// The discussion section of the report: [`Context::of`] `summary`, rendered with `templates/report.md`.
pub fn render(summary: &Summary) -> String {
    measure::template::render_or_note("overload/report.md", TEMPLATE, Context::of(summary))
}

/// Figures by key, each as the template prints it.
pub type Figures = BTreeMap<&'static str, String>;

/// Figures by key, each as the template prints it, `None` where the run lacks one.
pub type MaybeFigures = BTreeMap<&'static str, Option<String>>;

/// Everything `templates/report.md` reads.
#[derive(Debug, Clone, Serialize)]
pub struct Context {
    /// The run's claims, by id.
    pub claims: BTreeMap<String, ClaimView>,
    /// The claims' factors, as their texts print them: `halves`, `near`, `family` and `feed`.
    pub factors: Figures,
    /// The run's parameters by key ([`PARAMS`]), each whole.
    pub params: MaybeFigures,
    /// The dependency's ceilings in calls per second, `before` and `after_ops` the drop, if the run has the
    /// parameters.
    pub ceiling: Option<Figures>,
    /// Median idle overshoot over each family's contestants, by family (`—` where none measured it), if measured.
    pub idle: Option<Figures>,
    /// Uncontended calls each trial process made to measure the no-load latency.
    pub idle_calls: u32,
    /// The run made fewer calls than the published experiment's 200,000.
    pub published_calls: bool,
    /// The adaptive limiters ran in the lab's short window (`--windowed 1`).
    pub windowed: bool,
    /// Gradient2's long window, in samples (windows with `--windowed 1`).
    pub long_window: usize,
    /// One row per limiter and family, in report order.
    pub trade_rows: Vec<TradeRow>,
    /// The findings on each adaptive limiter, if the run has the after-drop ceiling and any limiter ran.
    pub limiters: Option<Limiters>,
    /// The unbounded contestants that ran: `name`, after-drop `p99` of the calls served, after-drop `errors` of
    /// its after-drop `calls`, and `max_outstanding`.
    pub unbounded: Vec<Figures>,
    /// `blocking-unbounded`'s thread counts, each what it is ([`unbounded_threads`]).
    pub unbounded_threads: MaybeFigures,
    /// Per family, medians over its bounded contestants: `family`, CPU per call (`total`, µs), of it on the
    /// dependency's timer threads (`dependency`, µs), and context switches per call (`ctx`).
    pub family_cpu: Vec<Figures>,
    /// Each adaptive limiter against the fixed bound, as the summary's claims judged it ([`Policy`]), in report
    /// order; the limiters without both claims judged are left out.
    pub policies: Vec<Policy>,
    /// The adaptive limiters by the verdict (`holds`, `fails`, `inconclusive`) of their claim that the after-drop
    /// p99 is below the fixed bound's beyond noise ([`Policy::tail`]), as the summary has it.
    pub tail_by_verdict: BTreeMap<&'static str, Vec<&'static str>>,
    /// Whether the families fed their limiters alike, pair by pair, judged on process medians.
    pub feeds: Feeds,
    /// The published peer's version.
    pub peer_version: &'static str,
    /// Contestants that admit through a limiter of their own rather than the lab's gate (the published peer),
    /// that this run has.
    pub peers: Vec<String>,
    /// Figures per contestant that the results table leaves out (`table_metrics` in `lib.rs`), for the tables at
    /// the end of the discussion: one row per contestant, in report order.
    pub more: Vec<FigureRow>,
    /// Some limiter ignored a sample or closed a window (the windowed variant's decisions).
    pub windowed_decisions: bool,
}

/// One adaptive limiter against the fixed bound, read from the summary: the verdicts of its two claims, the
/// published sentence's two halves, and the figures behind them.
#[derive(Debug, Clone, Serialize)]
pub struct Policy {
    /// The limiter.
    pub name: &'static str,
    /// Its after-drop p99 below the fixed bound's beyond noise, in every family (the claim [`tail_id`]).
    pub tail: ClaimView,
    /// Its whole run longer than the fixed bound's beyond noise, in every family (the claim [`longer_id`]).
    pub longer: ClaimView,
    /// Both claims together, as a claim's comparisons combine: the published sentence, for this limiter.
    pub sentence: ClaimView,
    /// Its after-drop p99 as a multiple of the same family's fixed bound's, medians: the lowest and highest over
    /// the families (`0.67`–`0.68`, one figure when they round alike).
    pub p99_ratio: Option<String>,
    /// Its whole run's wall time as a multiple of the same family's fixed bound's, the same way.
    pub wall_ratio: Option<String>,
    /// The batch-tail question's guard excluded every family's contestant of it beyond noise (it never filled the
    /// healthy dependency), as the summary's answer says.
    pub under_use: bool,
}

/// The families, in report order.
const FAMILIES: [Family; 3] = [Family::Stream, Family::Blocking, Family::Coroutine];

/// The keys of [`Context::params`].
const PARAMS: [&str; 15] = [
    "calls",
    "capacity",
    "capacity_after",
    "service_ms",
    "fixed_limit",
    "initial_limit",
    "min_limit",
    "max_limit",
    "timeout_ms",
    "queue_limit",
    "jitter_us",
    "healthy_ms",
    "settle_ms",
    "settle_drift_pct",
    "healthy_max_ms",
];

/// A figure with what it is of: a family's (`stream 20.0 ms`) or a decision's count (`3 increases`).
#[derive(Debug, Clone, Serialize)]
pub struct Named {
    /// What it is of: a family, or a decision's key with `-` for `_` (`app-limited`).
    pub name: String,
    /// The figure.
    pub value: String,
}

/// One limiter in one family: medians over the measured iterations.
#[derive(Debug, Clone, Serialize)]
pub struct TradeRow {
    /// Contestant.
    pub name: String,
    /// After-drop `p99` and `ops` per second, whole run `wall_s`, and where measured after-drop `gate_wait` p99,
    /// the after-drop p99 a `caller` sees, after-drop `errors` (when any), `limit_at_drop` with `limit_at_end`,
    /// and the after-drop `limit_mean`.
    pub figures: MaybeFigures,
    /// The limiter's non-zero decision counts.
    pub decisions: Vec<Named>,
}

/// The findings on each adaptive limiter.
#[derive(Debug, Clone, Serialize)]
pub struct Limiters {
    /// AIMD's backoff factor.
    pub backoff: String,
    /// Each AIMD limiter.
    pub aimds: Vec<Finding>,
    /// Gradient2.
    pub gradient2: Option<Finding>,
    /// Vegas.
    pub vegas: Option<Finding>,
}

/// One adaptive limiter's findings, by key ([`limiters`] and [`vegas`] say which keys each has).
#[derive(Debug, Clone, Serialize)]
pub struct Finding {
    /// The limiter.
    #[serde(skip)]
    kind: LimiterKind,
    /// The limiter's name.
    pub name: &'static str,
    /// Figures in every family that measured them (`None` unless the stream and blocking contestants did).
    pub by_family: BTreeMap<&'static str, Option<Vec<Named>>>,
    /// Groups of figures, each `None` unless the run has every figure of it.
    pub figures: BTreeMap<&'static str, Option<Figures>>,
    /// Findings judged as a claim is judged, or decided from exact counts or from judged findings (a verdict with
    /// its p, as [`weakest`] gives one); inconclusive where the run lacks the figures.
    pub judged: BTreeMap<&'static str, ClaimView>,
}

impl Finding {
    /// No findings yet on `kind`.
    fn new(kind: LimiterKind) -> Finding {
        let (by_family, figures, judged) = (BTreeMap::new(), BTreeMap::new(), BTreeMap::new());
        Finding { kind, name: kind.name(), by_family, figures, judged }
    }

    /// Sets `key` to `metric` of the limiter's contestants that ran, formatted by `show`, and gives the names of
    /// those contestants; `None` unless the stream and blocking ones ran.
    fn spread(
        &mut self,
        summary: &Summary,
        key: &'static str,
        metric: &str,
        show: impl Fn(f64) -> String,
    ) -> Option<Vec<String>> {
        let gated @ [stream, blocking, _] = Contestant::gated(self.kind);
        let ran = [stream, blocking].iter().all(|c| summary.median(&c.name(), metric).is_some());
        let values: Vec<(Contestant, f64)> =
            gated.into_iter().filter_map(|c| Some((c, summary.median(&c.name(), metric)?))).filter(|_| ran).collect();
        let figures = values.iter().map(|(c, v)| Named { name: c.family().as_str().to_string(), value: show(*v) });
        self.by_family.insert(key, ran.then(|| figures.collect()));
        ran.then(|| values.iter().map(|(c, _)| c.name()).collect())
    }
}

/// The limit `L > 1` at which Vegas's queue estimate `L × fraction` first reaches its α, `3·log10 L`; `None`
/// when the estimate is never below α (a fraction too large) or never reaches it (no spread at all).
pub fn vegas_equilibrium(fraction: f64) -> Option<f64> {
    let gap = |l: f64| l * fraction - 3.0 * l.log10();
    let (mut low, mut high) = (2.0f64, 1e7f64);
    if fraction.is_nan() || fraction <= 0.0 || gap(low) >= 0.0 || gap(high) <= 0.0 {
        return None;
    }
    for _ in 0..200 {
        let mid = (low + high) / 2.0;
        if gap(mid) < 0.0 {
            low = mid;
        } else {
            high = mid;
        }
    }
    Some(high)
}

/// Vegas's equilibrium from this run's parameters and its stream contestant's figures: it estimates
/// `L × (1 − smallest / latency)` calls queued and grows while that is under α = 3·log10 L, so the service time's
/// own spread alone holds it where the two meet, whatever the capacity. The smallest latency it can see
/// (`smallest_us`: service time less jitter, plus the idle call's overshoot), its stream contestant's median call
/// before the drop (`typical_us`), `1 − smallest / typical` as a percentage (`fraction`), and the `limit` at which
/// `L × fraction = 3·log10 L`.
fn vegas_arithmetic(summary: &Summary) -> Option<Figures> {
    let stream = Contestant::Stream(LimiterKind::Vegas).name();
    let smallest = summary.param("service_ms")? * 1e3 - summary.param("jitter_us")?
        + summary.median(&stream, "idle_overshoot_us").unwrap_or(0.0);
    let typical = summary.median(&stream, "before_drop.latency_p50_us")?;
    let fraction = 1.0 - smallest / typical;
    let limit = vegas_equilibrium(fraction)?;
    let fraction = format!("{:.1}%", fraction * 100.0);
    Some(Figures::from([
        ("smallest_us", whole(smallest)),
        ("typical_us", whole(typical)),
        ("fraction", fraction),
        ("limit", whole(limit)),
    ]))
}

/// Whether each family pair of each limiter fed it alike, judged measure by measure on process medians
/// ([`crate::feed::family_pairs`]).
#[derive(Debug, Clone, Serialize)]
pub struct Feeds {
    /// Judged: every pair's feeds alike on every measure (the pairs' verdicts combined as a claim's comparisons).
    pub every_alike: ClaimView,
    /// The pairs judged apart on some measure, and those of which a side has no feed.
    pub differ: Vec<FeedPair>,
    /// The pairs this run cannot tell apart: neither alike nor apart.
    pub unsettled: Vec<FeedPair>,
}

/// A family pair whose limiters were not judged fed alike.
#[derive(Debug, Clone, Serialize)]
pub struct FeedPair {
    /// One side.
    pub a: String,
    /// The other.
    pub b: String,
    /// The measures that decided its verdict, each side's median (empty when a side has no feed).
    pub measures: Vec<Apart>,
    /// Its verdict that the two were fed alike: fails when they differ, inconclusive when the run cannot tell.
    pub alike: ClaimView,
    /// The side without a feed.
    pub missing: Option<NoFeed>,
    /// Mean limit after the drop and limit at the drop of each side: `[mean a, mean b, at drop a, at drop b]`.
    pub limits: Option<[String; 4]>,
}

/// One contestant's medians of [`MORE_METRICS`], by metric (`—` where not measured).
#[derive(Debug, Clone, Serialize)]
pub struct FigureRow {
    /// Contestant.
    pub name: String,
    /// It admits through the lab's gate, so it has a limiter's figures.
    pub gated: bool,
    /// Metric → formatted median.
    pub figures: Figures,
}

/// The metrics of [`Context::more`], each with whether it is a count (shown whole and grouped).
const MORE_METRICS: [(&str, bool); 22] = [
    ("before_drop.latency_p99_us", true),
    ("before_drop.ops_per_sec", true),
    ("after_drop.latency_p50_us", true),
    ("after_drop.latency_max_us", true),
    ("after_drop.gate_wait_latency_p99_us", true),
    ("after_drop.max_outstanding", true),
    ("max_outstanding", true),
    ("after_drop.limit_mean", true),
    ("decisions.increases", true),
    ("decisions.decreases", true),
    ("decisions.holds", true),
    ("decisions.app_limited", true),
    ("decisions.probes", true),
    ("decisions.new_minimums", true),
    ("decisions.ignored", true),
    ("decisions.windows", true),
    ("dependency_cpu_us_per_call", false),
    ("ctx_switches_per_item", false),
    ("cores_used", false),
    ("threads", true),
    ("errors", true),
    ("idle_overshoot_us", false),
];

impl Context {
    /// The context of `summary`, whose claims are judged.
    pub fn of(summary: &Summary) -> Context {
        let factors =
            [("halves", HALVES), ("near", NEAR_CEILING), ("family", FAMILY_AGREEMENT), ("feed", FEED_TOLERANCE)];
        let idle = |family| family_median(summary, family, "idle_overshoot_us", true);
        let measured_idle = summary.contestants.iter().any(|c| summary.median(&c.name, "idle_overshoot_us").is_some());
        Context {
            claims: claims_by_id(&summary.claims),
            factors: factors.into_iter().map(|(key, factor)| (key, factor.to_string())).collect(),
            params: wholes(PARAMS.map(|key| (key, summary.param(key)))),
            ceiling: ceiling(summary),
            idle: measured_idle.then(|| {
                FAMILIES
                    .into_iter()
                    .map(|f| (f.as_str(), idle(f).map_or("—".to_string(), |m| format!("{m:.0} µs"))))
                    .collect()
            }),
            idle_calls: IDLE_CALLS,
            published_calls: summary.param("calls").is_some_and(|c| c < 200_000.0),
            windowed: summary.param("windowed").is_some_and(|w| w > 0.0),
            long_window: Gradient2Config::default().long_window,
            trade_rows: trade_rows(summary),
            limiters: limiters(summary),
            unbounded: unbounded_rows(summary),
            unbounded_threads: unbounded_threads(summary),
            family_cpu: family_cpu(summary),
            policies: policies(summary),
            tail_by_verdict: {
                let mut by: BTreeMap<&'static str, Vec<&'static str>> =
                    ["holds", "fails", "inconclusive"].into_iter().map(|v| (v, Vec::new())).collect();
                for p in policies(summary) {
                    by.entry(p.tail.verdict).or_default().push(p.name);
                }
                by
            },
            feeds: feeds(summary),
            peer_version: PEER_VERSION,
            peers: peers(summary),
            more: more_figures(summary),
            windowed_decisions: summary.contestants.iter().any(|c| {
                ["ignored", "windows"]
                    .iter()
                    .any(|key| summary.median(&c.name, &format!("{DECISIONS}.{key}")).is_some_and(|v| v > 0.0))
            }),
        }
    }
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

/// Each value whole, by key (`None` where the run lacks it).
fn wholes(values: impl IntoIterator<Item = (&'static str, Option<f64>)>) -> MaybeFigures {
    values.into_iter().map(|(key, value)| (key, value.map(whole))).collect()
}

/// A figure for a table: a count rounded and grouped (`5,004`), anything else to three significant digits
/// (`1.44`, `0.562`), `—` when not measured.
fn figure(value: Option<f64>, is_count: bool) -> String {
    match value {
        None => "—".to_string(),
        Some(v) if is_count || v == 0.0 || v.abs() >= 100.0 => count(v),
        Some(v) => format_ratio(v),
    }
}

/// The median over `family`'s contestants (the pathologies left out unless `pathologies`) of their medians of
/// `metric`.
fn family_median(summary: &Summary, family: Family, metric: &str, pathologies: bool) -> Option<f64> {
    let values: Vec<f64> = summary
        .contestants
        .iter()
        .filter(|c| c.family == family && (pathologies || c.role != Role::Pathology))
        .filter_map(|c| summary.median(&c.name, metric))
        .collect();
    measure::stats::median(&values)
}

/// The dependency's ceilings in calls per second before (`before`) and after (`after_ops`) the drop, if the run
/// has the parameters.
fn ceiling(summary: &Summary) -> Option<Figures> {
    let (capacity, service) = (summary.param("capacity")?, summary.param("service_ms")?);
    // Nothing below reads `calls`: the section shows only for a run that recorded it, as it did before the figures
    // moved here, so a summary that lacks the run's shape gets no ceilings.
    summary.param("calls")?;
    Some(Figures::from([("before", whole(capacity * 1e3 / service)), ("after_ops", whole(after_ceiling(summary)?))]))
}

/// One row per limiter and family that ran: after-drop p99 and throughput, whole run, gate wait, caller's p99,
/// rejections, limits and the limiter's decisions (medians).
fn trade_rows(summary: &Summary) -> Vec<TradeRow> {
    LIMITERS
        .into_iter()
        .flat_map(Contestant::gated)
        .filter_map(|contestant| {
            let name = contestant.name();
            let at = |metric: &str| summary.median(&name, metric);
            let (p99, ops, wall) = (at(HEADLINE)?, at("after_drop.ops_per_sec")?, at("wall_ms")?);
            let decisions = Decisions::default()
                .named()
                .iter()
                .filter_map(|(key, _)| {
                    let value = at(&format!("{DECISIONS}.{key}"))?;
                    (value > 0.0).then(|| Named { name: key.replace('_', "-"), value: whole(value) })
                })
                .collect();
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
            Some(TradeRow { name, figures, decisions })
        })
        .collect()
}

/// A finding judged as a claim is ([`judge`]): `metric` of every comparison by `relation` with `factor`, on
/// process medians (a sign test against a fixed value), with its p. It is not one of the scenario's claims, so it
/// has no text.
fn judged(summary: &Summary, metric: &'static str, rule: (Relation, f64), comparisons: Vec<Comparison>) -> ClaimView {
    let spec = ClaimSpec::new("", metric, "", rule, Basis::ProcessMedians, comparisons);
    ClaimView::of(&judge(summary, &spec))
}

/// Each of `names` against the fixed `value` (labelled `label`).
fn against_value(names: &[String], value: f64, label: &str) -> Vec<Comparison> {
    names
        .iter()
        .map(|name| Comparison { a: Side::contestant(name.clone(), Phase::Unphased), b: Side::value(value, label) })
        .collect()
}

/// The findings on each adaptive limiter, every one judged on process medians against a claim's factor or the
/// noise threshold. Each AIMD limiter's: its mean `limit` after the drop, its after-drop `ops` as a share of the
/// ceiling and its `cuts` over the run, per family; judged, that plain `aimd` `never_cut` in any process, that it
/// stayed `below_near` the near-ceiling claim's factor of the ceiling and its limit `above_capacity`. Gradient2's:
/// its `limit`, its `ups` and `downs` over the run, and its limit `above_capacity`.
fn limiters(summary: &Summary) -> Option<Limiters> {
    let (after, ceiling) = (summary.param("capacity_after")?, after_ceiling(summary)?);
    let noise = summary.method.threshold("after_drop.limit_mean");
    let share = |v: f64| format!("{:.0}%", 100.0 * v / ceiling);
    let decisions = |key: &str| format!("{DECISIONS}.{key}");
    let above_capacity = |names: &[String]| {
        let comparisons = against_value(names, after, "the capacity after the drop");
        judged(summary, "after_drop.limit_mean", (Relation::AtLeast, 1.0 + noise), comparisons)
    };
    let aimds: Vec<Finding> = LIMITERS
        .into_iter()
        .filter(|k| matches!(k, LimiterKind::Aimd | LimiterKind::AimdLatency(_)))
        .filter_map(|kind| {
            let mut aimd = Finding::new(kind);
            let limit = aimd.spread(summary, "limit", "after_drop.limit_mean", whole)?;
            let ops = aimd.spread(summary, "ops", "after_drop.ops_per_sec", share)?;
            let cuts = aimd.spread(summary, "cuts", &decisions("decreases"), whole);
            let never = kind == LimiterKind::Aimd
                && cuts.is_some_and(|names| no_sample_above_zero(summary, &names, &decisions("decreases")));
            aimd.judged.insert(
                "never_cut",
                ClaimView::of(&weakest([(if never { Verdict::Holds } else { Verdict::Fails }, None)])),
            );
            let comparisons = against_value(&ops, ceiling, "the after-drop ceiling");
            let below = judged(summary, "after_drop.ops_per_sec", (Relation::AtMost, NEAR_CEILING), comparisons);
            aimd.judged.insert("below_near", below);
            aimd.judged.insert("above_capacity", above_capacity(&limit));
            Some(aimd)
        })
        .collect();
    let mut gradient2 = Finding::new(LimiterKind::Gradient2);
    let gradient2 = gradient2.spread(summary, "limit", "after_drop.limit_mean", whole).map(|limit| {
        gradient2.spread(summary, "ups", &decisions("increases"), whole);
        gradient2.spread(summary, "downs", &decisions("decreases"), whole);
        gradient2.judged.insert("above_capacity", above_capacity(&limit));
        gradient2
    });
    let vegas = vegas(summary, noise);
    (!aimds.is_empty() || gradient2.is_some() || vegas.is_some()).then(|| Limiters {
        backoff: AimdConfig::default().backoff.to_string(),
        aimds,
        gradient2,
        vegas,
    })
}

/// Whether `metric`, an exact count, is zero in every sample of every process of each of `names`: a count needs
/// no test, but the median of the processes is not every process.
fn no_sample_above_zero(summary: &Summary, names: &[String], metric: &str) -> bool {
    names.iter().all(|name| summary.metric(name, metric).is_some_and(|s| s.max == 0.0 && s.min == 0.0))
}

/// Vegas's findings, if its stream and blocking contestants ran: its mean `limit` after the drop, its after-drop
/// `p99` and its limit `at_drop`, per family; the `overhead` the caller adds to each call before the drop
/// (`stream_us`, `blocking_us`) with the limits at the drop (`stream_limit`, `blocking_limit`), and the
/// `arithmetic` of its equilibrium ([`vegas_arithmetic`]); judged, that it `settled_below` the healthy capacity
/// before the drop, that its `families_differ` in after-drop p99, and, with the overhead, that the two limits were
/// `close` at the drop, or that the family with the larger overhead had the lower limit (`steered`) or the higher
/// (`against`).
fn vegas(summary: &Summary, noise: f64) -> Option<Finding> {
    let mut vegas = Finding::new(LimiterKind::Vegas);
    vegas.spread(summary, "limit", "after_drop.limit_mean", whole)?;
    let p99 = vegas.spread(summary, "p99", HEADLINE, ms)?;
    let at_drop = vegas.spread(summary, "at_drop", "limit_at_drop", whole);
    let below = at_drop.zip(summary.param("capacity")).map(|(names, capacity)| {
        let comparisons = against_value(&names, capacity, "the healthy capacity");
        judged(summary, "limit_at_drop", (Relation::AtMost, 1.0 / (1.0 + noise)), comparisons)
    });
    vegas.judged.insert("settled_below", below.unwrap_or_else(|| ClaimView::of(&weakest([]))));
    // The family with the highest p99 against the one with the lowest, beyond the noise threshold.
    let side = |who: Who| Side { who, phase: Phase::Unphased };
    let extremes = Comparison { a: side(Who::Highest(p99.clone())), b: side(Who::Lowest(p99)) };
    vegas.judged.insert("families_differ", judged(summary, HEADLINE, (Relation::AtLeast, 1.0 + noise), vec![extremes]));
    // Vegas's queue estimate is limit × (1 − lowest latency / latency): any delay the caller adds under load (its
    // own wake-up) reads as queueing, so a family with a larger overhead should settle lower.
    let [stream, blocking, _] = Contestant::gated(LimiterKind::Vegas).map(|c| c.name());
    let overhead =
        |name: &str| Some(summary.median(name, "before_drop.latency_p50_us")? - summary.median(name, "idle_call_us")?);
    let at_drop = |name: &str| summary.median(name, "limit_at_drop");
    let figures = || Some([overhead(&stream)?, overhead(&blocking)?, at_drop(&stream)?, at_drop(&blocking)?]);
    let figures = figures().map(|[os, ob, ls, lb]| {
        let limits = |a: &str, b: &str| Comparison::contestants(a, b, Phase::Unphased);
        let close = vec![limits(&stream, &blocking), limits(&blocking, &stream)];
        vegas.judged.insert("close", judged(summary, "limit_at_drop", (Relation::AtMost, 1.0 + noise), close));
        // Which family had the larger overhead, and which the higher limit, each judged on process medians.
        let larger_overhead =
            order(overhead_stats(summary, &stream).as_ref(), overhead_stats(summary, &blocking).as_ref());
        let higher_limit = order(summary.metric(&stream, "limit_at_drop"), summary.metric(&blocking, "limit_at_drop"));
        // The larger overhead with the lower limit: the stream's overhead larger and its limit lower, or the other
        // way round.
        for (key, same) in [("steered", false), ("against", true)] {
            // Both differences judged, or the run cannot tell (inconclusive).
            let decided = larger_overhead.zip(higher_limit).map(|((o, po), (l, pl))| {
                (if (o == l) == same { Verdict::Holds } else { Verdict::Fails }, Some(po.max(pl)))
            });
            vegas.judged.insert(key, ClaimView::of(&weakest(decided)));
        }
        Figures::from(
            [("stream_us", os), ("blocking_us", ob), ("stream_limit", ls), ("blocking_limit", lb)]
                .map(|(k, v)| (k, whole(v))),
        )
    });
    vegas.figures.insert("overhead", figures);
    vegas.figures.insert("arithmetic", vegas_arithmetic(summary));
    Some(vegas)
}

/// What the caller adds to a call before the drop, per process: its median call (`before_drop.latency_p50_us`)
/// less its idle call (`idle_call_us`), process by process; `None` unless both were measured in every process.
fn overhead_stats(summary: &Summary, name: &str) -> Option<MetricStats> {
    let forks = summary.method.forks as usize;
    let busy = summary.metric(name, "before_drop.latency_p50_us")?;
    let idle = summary.metric(name, "idle_call_us")?;
    // Process medians are in fork order, leaving out a fork without a sample: only with every fork in both are the
    // two lists the same processes.
    if busy.fork_medians.len() != forks || idle.fork_medians.len() != forks {
        return None;
    }
    let per_process: Vec<Vec<f64>> =
        busy.fork_medians.iter().zip(&idle.fork_medians).map(|(b, i)| vec![b - i]).collect();
    measure::stats::summarize(&per_process)
}

/// Whether `a` is higher than `b` (`true`) or lower (`false`), judged on process medians, with its p; `None`
/// when a side is missing or the verdict is inconclusive either way.
fn order(a: Option<&MetricStats>, b: Option<&MetricStats>) -> Option<(bool, f64)> {
    let (a, b) = (Operand::Measured(a?), Operand::Measured(b?));
    let above = verdict(a, b, Relation::AtLeast, 1.0, Basis::ProcessMedians);
    let below = verdict(a, b, Relation::AtMost, 1.0, Basis::ProcessMedians);
    match (above.verdict, below.verdict) {
        (Verdict::Holds, Verdict::Fails) => Some((true, above.p?)),
        (Verdict::Fails, Verdict::Holds) => Some((false, below.p?)),
        _ => None,
    }
}

/// The unbounded contestants that ran: after-drop p99, rejections and most calls outstanding.
fn unbounded_rows(summary: &Summary) -> Vec<Figures> {
    [Contestant::StreamUnbounded, Contestant::BlockingUnbounded]
        .iter()
        .filter_map(|c| {
            let name = c.name();
            let at = |metric: &str| summary.median(&name, metric);
            Some(Figures::from([
                ("p99", ms(at(HEADLINE)?)),
                ("max_outstanding", whole(at("max_outstanding")?)),
                ("errors", whole(at("after_drop.errors").unwrap_or(0.0))),
                ("calls", whole(at("after_drop.calls").unwrap_or(0.0))),
                ("name", name),
            ]))
        })
        .collect()
}

/// `blocking-unbounded`'s threads, each what it is: `unbounded-threads` (`configured`); the threads of a timed
/// run (`timed`: `unbounded-threads`, at most one per call); the calls of an accounting run (`accounting_calls`)
/// and the threads it starts (`accounting`); the `threads` figure (`measured`: the most threads its process had
/// during the accounting run); and of those the trial's own (`others`: measured less those the accounting run
/// starts), when not negative.
fn unbounded_threads(summary: &Summary) -> MaybeFigures {
    let configured = summary.param("unbounded_threads");
    let calls = summary.param("calls");
    // As the contestant sizes its pool: `unbounded-threads`, at most one per call.
    let threads = |calls: f64| configured.map(|t| t.min(calls.max(1.0)));
    let accounting_calls = calls.map(|c| accounting_calls(c as u64) as f64);
    let accounting = accounting_calls.and_then(threads);
    let measured = summary.median(&Contestant::BlockingUnbounded.name(), "threads");
    let others = measured.zip(accounting).map(|(m, a)| m - a).filter(|&o| o >= 0.0);
    wholes([
        ("configured", configured),
        ("timed", calls.and_then(threads)),
        ("accounting_calls", accounting_calls),
        ("accounting", accounting),
        ("measured", measured),
        ("others", others),
    ])
}

/// CPU, dependency CPU and context switches per call, medians over each family's bounded contestants (the
/// pathologies left out).
fn family_cpu(summary: &Summary) -> Vec<Figures> {
    FAMILIES
        .into_iter()
        .filter_map(|family| {
            let pick = |metric: &str| family_median(summary, family, metric, false);
            Some(Figures::from([
                ("family", family.as_str().to_string()),
                ("total", format!("{:.1}", pick("cpu_us_per_call")?)),
                ("dependency", format!("{:.1}", pick("dependency_cpu_us_per_call")?)),
                ("ctx", format!("{:.2}", pick("ctx_switches_per_item")?)),
            ]))
        })
        .collect()
}

/// Each adaptive limiter's [`Policy`], from the summary's judged claims and its `batch-tail` answer; a limiter
/// whose two claims the run did not judge is left out.
fn policies(summary: &Summary) -> Vec<Policy> {
    let claims = claims_by_id(&summary.claims);
    let verdict = |view: &ClaimView| match view.verdict {
        "holds" => Verdict::Holds,
        "fails" => Verdict::Fails,
        _ => Verdict::Inconclusive,
    };
    let p = |id: &str| summary.claims.iter().find(|c| c.id == id).and_then(|c| c.p);
    let excluded: Vec<&str> = summary
        .questions
        .iter()
        .filter(|q| q.id == "batch-tail")
        .flat_map(|q| &q.answers)
        .flat_map(|a| &a.excluded)
        .filter(|e| e.verdict == Verdict::Fails && e.value.is_some())
        .map(|e| e.name.as_str())
        .collect();
    LIMITERS
        .into_iter()
        .filter(|k| k.is_adaptive())
        .filter_map(|kind| {
            let (tail, longer) = (claims.get(tail_id(kind))?.clone(), claims.get(longer_id(kind))?.clone());
            let sentence =
                ClaimView::of(&weakest([(verdict(&tail), p(tail_id(kind))), (verdict(&longer), p(longer_id(kind)))]));
            let names = Contestant::gated(kind).map(|c| c.name());
            Some(Policy {
                name: kind.name(),
                tail,
                longer,
                sentence,
                p99_ratio: ratio_to_fixed(summary, kind, HEADLINE),
                wall_ratio: ratio_to_fixed(summary, kind, "wall_ms"),
                under_use: names.iter().all(|n| excluded.contains(&n.as_str())),
            })
        })
        .collect()
}

/// `kind`'s median of `metric` over the same family's fixed bound's, lowest and highest over the families that
/// have both (`0.67–0.68`, or one figure when both round alike); `None` when none has.
fn ratio_to_fixed(summary: &Summary, kind: LimiterKind, metric: &str) -> Option<String> {
    let ratios: Vec<f64> = Contestant::gated(kind)
        .into_iter()
        .zip(Contestant::gated(LimiterKind::Fixed))
        .filter_map(|(c, fixed)| Some(summary.median(&c.name(), metric)? / summary.median(&fixed.name(), metric)?))
        .collect();
    let low = format_ratio(ratios.iter().copied().reduce(f64::min)?);
    let high = format_ratio(ratios.iter().copied().reduce(f64::max)?);
    Some(if low == high { low } else { format!("{low}–{high}") })
}

/// Every family pair's feed verdict: the pairs judged apart (or without a feed) and those the run cannot tell
/// apart, each with the limits that explain it where the run has them, and whether every pair was fed alike.
fn feeds(summary: &Summary) -> Feeds {
    let pairs = family_pairs(summary);
    let every_alike = ClaimView::of(&weakest(pairs.iter().map(|(_, _, pairing)| {
        let alike = pairing.alike();
        (alike.verdict, alike.p)
    })));
    let (mut differ, mut unsettled) = (Vec::new(), Vec::new());
    for (a, b, pairing) in pairs {
        let alike = pairing.alike();
        let missing = match &pairing {
            Pairing::Missing(missing) => Some(missing.clone()),
            Pairing::Judged(_) => None,
        };
        let limits =
            |name: &str| Some((summary.median(name, "after_drop.limit_mean")?, summary.median(name, "limit_at_drop")?));
        let limits = limits(&a).zip(limits(&b)).map(|((ma, da), (mb, db))| [ma, mb, da, db].map(whole));
        let pair = FeedPair { a, b, measures: pairing.deciding(), alike: ClaimView::of(&alike), missing, limits };
        match alike.verdict {
            Verdict::Holds => {}
            Verdict::Fails => differ.push(pair),
            Verdict::Inconclusive if pair.missing.is_some() => differ.push(pair),
            Verdict::Inconclusive => unsettled.push(pair),
        }
    }
    Feeds { every_alike, differ, unsettled }
}

/// Contestants of this run that admit through a limiter of their own, not the lab's gate: the published crate's
/// (its limit only mirrored by the gate), and any other in the registry that is neither gated nor a pathology.
fn peers(summary: &Summary) -> Vec<String> {
    Contestant::all()
        .into_iter()
        .filter(|c| match c.limiter() {
            Some(kind) => kind == LimiterKind::CongestionLimiter,
            None => c.info().role != Role::Pathology,
        })
        .map(|c| c.name())
        .filter(|name| summary.contestant(name).is_some())
        .collect()
}

/// The figures per contestant that the results table leaves out.
fn more_figures(summary: &Summary) -> Vec<FigureRow> {
    summary
        .contestants
        .iter()
        .map(|c| FigureRow {
            name: c.name.clone(),
            gated: Contestant::find(&c.name).is_some_and(|k| k.limiter().is_some()),
            figures: MORE_METRICS
                .iter()
                .map(|&(metric, is_count)| (metric, figure(summary.median(&c.name, metric), is_count)))
                .collect(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use measure::scenario::Scenario;
    use measure::summary::Verdict;

    use super::*;
    use crate::fixture::{p99, run, run_in, set};

    /// `summary` with its claims judged.
    fn judged(mut summary: Summary) -> Summary {
        summary.claims = measure::judge::judge_all(&summary, &super::super::claims::table(&summary));
        summary
    }

    #[test]
    fn findings_follow_the_verdicts_that_hold() {
        // Five processes: the near-ceiling claim is against a fixed value, which three cannot decide (p = 0.125).
        let text = render(&judged(run_in(5, p99, 19_000.0)));
        assert!(!text.contains("could not be rendered"), "{text}");
        assert!(text.contains("Every adaptive limiter lowered the tail beyond noise here"), "{text}");
        assert!(text.contains("- `aimd-latency-1.5x`: 0.200× the fixed bound's p99; below it beyond noise"), "{text}");
        assert!(text.contains("at least 0.85× the ceiling here"), "{text}");
        assert!(text.contains("after the drop to 100 slots, 20000"), "{text}");
        // AIMD's backoff from its configuration, on every sample (unwindowed, as Netflix's SimpleLimiter).
        assert!(text.contains("multiplies its limit by 0.9 on every dropped or slow call"), "{text}");
        assert!(text.contains("| `WindowedLimit` window | 1 s (minimum and maximum)"), "{text}");
        assert!(!text.contains("stayed below 0.85× the ceiling"), "{text}");
    }

    #[test]
    fn a_finding_is_absent_when_its_claim_is_inconclusive() {
        let mut summary = judged(run(p99, 19_000.0));
        for claim in &mut summary.claims {
            claim.verdict = Verdict::Inconclusive;
        }
        let text = render(&summary);
        assert!(!text.contains("Every adaptive limiter lowered"), "{text}");
        assert!(!text.contains("it holds (") && !text.contains("it does not hold"), "{text}");
        assert!(text.contains("- `vegas`: this run cannot tell (tail: inconclusive, longer run: inconclusive)."));
        assert!(!text.contains("the ceiling here"), "{text}");
    }

    #[test]
    fn a_limiter_as_slow_as_the_fixed_bound_is_named_as_no_protection_and_the_published_sentence_fails_for_it() {
        // Gradient2 at the fixed bound's p99, and its run as long as the fixed bound's. Five processes: the
        // near-ceiling claim is against a fixed value, which three cannot decide (p = 0.125).
        let mut summary = run_in(5, |n| if n.ends_with("gradient2") { 100_000.0 } else { p99(n) }, 10_000.0);
        for name in ["stream-gradient2", "blocking-gradient2", "coroutine-gradient2"] {
            set(&mut summary, name, "wall_ms", 2_000.0);
        }
        let text = render(&judged(summary));
        assert!(
            text.contains(
                "- `gradient2`: 1.00× the fixed bound's p99; not below it beyond noise in every family (p = 0.0040)."
            ),
            "{text}"
        );
        assert!(text.contains("An adaptive limit is not protection by itself: `gradient2` did not lower the tail"));
        assert!(
            text.contains(
                "- `gradient2`: it does not hold: the tail was not protected (p99 1.00× the fixed bound's, p = \
                 0.0040) and the run was not longer beyond noise (run time 1.00×, p = 0.0040)."
            ),
            "{text}"
        );
        assert!(
            text.contains(
                "- `aimd-latency-2x`: it holds (p = 0.0040): p99 0.200× and run time 1.50× the fixed bound's."
            ),
            "{text}"
        );
        // 10,000 calls/s against a ceiling of 20,000: below the near-ceiling claim's 0.85 in both families.
        assert!(text.contains("In every family it stayed below 0.85× the ceiling"), "{text}");
    }

    #[test]
    fn a_limiter_the_tail_question_excluded_for_under_use_is_said_to_buy_its_tail_with_idle_slots() {
        let mut summary = judged(run_in(5, p99, 19_000.0));
        for name in ["stream-vegas", "blocking-vegas", "coroutine-vegas"] {
            set(&mut summary, name, "before_drop.ops_per_sec", 10_000.0);
        }
        for name in ["stream-fixed", "blocking-fixed", "coroutine-fixed", "stream-aimd", "blocking-aimd"] {
            set(&mut summary, name, "before_drop.ops_per_sec", 90_000.0);
        }
        summary.questions = measure::question::answer_all(&summary, &crate::OverloadScenario.questions());
        let text = render(&summary);
        assert!(text.contains("`vegas`: 0.200× the fixed bound's p99; below it beyond noise in every family (p = 0.0040); but it never filled the healthy dependency"), "{text}");
        assert!(text.contains("though its tail is short because it never filled the healthy dependency"), "{text}");
        assert!(
            !text.contains(
                "`aimd`: 0.200× the fixed bound's p99; below it beyond noise in every family (p = 0.0040); but"
            ),
            "{text}"
        );
    }

    #[test]
    fn pairs_fed_differently_are_listed_with_the_measure_and_the_limits() {
        let mut summary = judged(run(p99, 19_000.0));
        set(&mut summary, "blocking-vegas", "decisions.windows", 200.0);
        set(&mut summary, "stream-vegas", "limit_at_drop", 60.0);
        set(&mut summary, "blocking-vegas", "limit_at_drop", 50.0);
        let text = render(&summary);
        assert!(
            text.contains(
                "- stream-vegas / blocking-vegas: windows 400 vs 200 (more than 1.25× apart, p = 0.050); mean \
                 limit after the drop 100 vs 100, limit at the drop 60 vs 50\n"
            ),
            "{text}"
        );
        assert!(text
            .contains("- blocking-vegas / coroutine-vegas: windows 200 vs 400 (more than 1.25× apart, p = 0.050)\n"));
        assert!(!text.contains("Every pair was fed alike"), "{text}");
        assert!(!text.contains("did not tell apart"), "{text}");
    }

    #[test]
    fn every_pair_fed_alike_is_said_with_its_p_only_when_every_pair_is_judged_alike() {
        let mut summary = judged(run(p99, 19_000.0));
        let text = render(&summary);
        assert!(
            text.contains("within 1.25×). Every pair was fed alike (p = 0.050).\n\n**The published peer.**"),
            "{text}"
        );
        // Medians 100 and 200, 2× apart, but one blocking process at 110, within 1.25× of the stream's: the pair
        // is neither alike nor apart, so neither sentence is said and the pair is listed as not told apart.
        spread_of(&mut summary, "blocking-aimd", "after_drop.in_flight_at_admission_mean", [110.0, 200.0, 210.0]);
        let text = render(&summary);
        assert!(!text.contains("Every pair was fed alike"), "{text}");
        assert!(!text.contains("Pairs whose feeds differed"), "{text}");
        assert!(
            text.contains(
                "within 1.25×). Pairs this run did not tell apart, with the limits each side reached: their process \
                 medians neither all within 1.25× of each other nor all more than 1.25× apart, so they are stated \
                 neither as fed alike nor as fed differently:\n- stream-aimd / blocking-aimd: after-drop mean in flight at admission 100 vs 200\n- blocking-aimd / coroutine-aimd: \
                 after-drop mean in flight at admission 200 vs 100\n\n**The published peer.**"
            ),
            "{text}"
        );
    }

    #[test]
    fn pairs_apart_and_pairs_not_told_apart_are_two_paragraphs() {
        let mut summary = judged(run(p99, 19_000.0));
        set(&mut summary, "blocking-vegas", "decisions.windows", 200.0);
        spread_of(&mut summary, "blocking-aimd", "after_drop.in_flight_at_admission_mean", [110.0, 200.0, 210.0]);
        let text = render(&summary);
        assert!(
            text.contains("windows 200 vs 400 (more than 1.25× apart, p = 0.050)\n\nPairs this run did not"),
            "{text}"
        );
        assert!(text.contains("200 vs 100\n\n**The published peer.**"), "{text}");
    }

    /// In a run of `forks` processes, with `metric` at `value` in every process of every family's `aimd`, the
    /// report says `said`; with the stream's processes spread over `spread` instead ([`spread_of`]: its lowest at
    /// `spread[0]`, the medians still `value`), it no longer says `finding` (the finding's words, without its
    /// figures) and shows the figures alone (`figures`).
    fn a_finding_needs_every_process(
        forks: usize,
        metric: &str,
        value: f64,
        spread: [f64; 3],
        (said, finding): (&str, &str),
        figures: &str,
    ) {
        let mut summary = judged(run_in(forks, p99, 19_000.0));
        for family in ["stream", "blocking", "coroutine"] {
            set(&mut summary, &format!("{family}-aimd"), metric, value);
        }
        assert!(render(&summary).contains(said), "{}", render(&summary));
        spread_of(&mut summary, "stream-aimd", metric, spread);
        let text = render(&summary);
        assert!(!text.contains(finding), "{text}");
        assert!(text.contains(figures), "{text}");
    }

    #[test]
    fn aimd_never_cut_only_when_every_process_of_every_family_cut_zero_times() {
        // Every median still 0, but one process of the stream's cut once: not "never".
        a_finding_needs_every_process(
            3,
            "decisions.decreases",
            0.0,
            [0.0, 0.0, 1.0],
            ("It never cut: its drops are rejections", "It never cut"),
            "Cuts over the run: stream 0, blocking 0, coroutine 0.",
        );
    }

    #[test]
    fn the_unbounded_threads_say_which_run_each_count_comes_from() {
        let mut summary = judged(run(p99, 19_000.0));
        summary.params.insert("unbounded_threads".to_string(), serde_json::Value::from(10_000));
        set(&mut summary, "blocking-unbounded", "threads", 5_004.0);
        set(&mut summary, "blocking-unbounded", "max_outstanding", 9_000.0);
        let text = render(&summary);
        // 100,000 calls: 10,000 threads in a timed run; the accounting run makes 5,000 calls, so 5,000 threads.
        assert!(text.contains("`blocking-unbounded` issues them from 10000 threads"), "{text}");
        assert!(text.contains("`threads` figure in the tables at the end of this section, 5004, counts"), "{text}");
        assert!(text.contains("starts 5000 threads of its own, beside 4 of the trial's"), "{text}");
    }

    /// `summary` with `metric` of `name` read from the run's processes spanning `values`, `[min, median, max]`
    /// ([`crate::fixture::range_in`]: three processes are `values` themselves).
    fn spread_of(summary: &mut Summary, name: &str, metric: &str, values: [f64; 3]) {
        let forks = summary.method.forks as usize;
        if let Some(c) = summary.contestants.iter_mut().find(|c| c.name == name) {
            c.metrics.insert(metric.to_string(), crate::fixture::range_in(forks, values));
        }
    }

    #[test]
    fn a_limit_above_the_capacity_is_a_finding_only_when_every_process_is_beyond_noise() {
        // Every median still 180, but one process of the stream's at 110, within the noise threshold of 100
        // slots: the point ratio of medians would say "above", the judged comparison cannot. Five processes: the
        // capacity is a fixed value, against which three give p = 0.125, too weak for the finding; five give 1/32.
        a_finding_needs_every_process(
            5,
            "after_drop.limit_mean",
            180.0,
            [110.0, 180.0, 185.0],
            (
                "Its average limit stayed above the new capacity by more than the noise threshold (p = 0.031)",
                "Its average limit stayed above the new capacity",
            ),
            "averaged a limit of stream 180, blocking 180, coroutine 180 after the drop",
        );
    }

    #[test]
    fn vegas_families_differ_only_when_judged_so() {
        const DIFFER: &str = "Its families differ by more than the noise threshold here (p = 0.050)";
        let mut summary = judged(run(p99, 19_000.0));
        set(&mut summary, "blocking-vegas", HEADLINE, 40_000.0);
        assert!(render(&summary).contains(DIFFER), "{}", render(&summary));
        // The medians 2× apart, but the ranges of process medians overlap: no finding, the figures alone.
        spread_of(&mut summary, "blocking-vegas", HEADLINE, [19_000.0, 40_000.0, 41_000.0]);
        let text = render(&summary);
        assert!(!text.contains("Its families differ"), "{text}");
        assert!(text.contains("with after-drop p99 stream 20.0 ms, blocking 40.0 ms, coroutine 20.0 ms"), "{text}");
    }

    #[test]
    fn the_callers_overhead_steers_vegas_only_when_both_differences_are_judged() {
        const STEERED: &str = "consistent with the caller's overhead steering Vegas (p = 0.050)";
        let mut summary = judged(run(p99, 19_000.0));
        set(&mut summary, "blocking-vegas", HEADLINE, 40_000.0);
        // Blocking adds 550 µs to a call, the stream 150 µs, and blocking's limit is the lower at the drop.
        for (name, busy, limit) in [("stream-vegas", 5_200.0, 60.0), ("blocking-vegas", 5_600.0, 40.0)] {
            set(&mut summary, name, "before_drop.latency_p50_us", busy);
            set(&mut summary, name, "idle_call_us", 5_050.0);
            set(&mut summary, name, "limit_at_drop", limit);
        }
        let text = render(&summary);
        assert!(text.contains(STEERED), "{text}");
        assert!(text.contains("took 150 µs (stream) and 550 µs (blocking) longer than an idle call"), "{text}");
        // The limits' process medians overlap: the figures stand alone, neither steered nor its opposite.
        spread_of(&mut summary, "blocking-vegas", "limit_at_drop", [40.0, 45.0, 65.0]);
        let text = render(&summary);
        assert!(!text.contains("steering Vegas (") && !text.contains("the opposite of what"), "{text}");
        assert!(text.contains("Treat Vegas's figures as sensitive"), "{text}");
    }

    #[test]
    fn a_limiter_the_run_cannot_decide_leaves_its_policy_finding_unsettled() {
        // Vegas's p99 straddles the noise threshold below the fixed bound's 100 ms (1 / 1.2 of it) in the stream
        // family: neither below it beyond noise nor not.
        let mut summary = run(p99, 19_000.0);
        spread_of(&mut summary, "stream-vegas", HEADLINE, [75_000.0, 85_000.0, 95_000.0]);
        let text = render(&judged(summary));
        assert!(text.contains("- `vegas`: 0.200–0.850× the fixed bound's p99; this run cannot tell"), "{text}");
        assert!(text.contains("- `vegas`: this run cannot tell (tail: inconclusive, longer run: holds)."), "{text}");
        assert!(text.contains("Check the limiter you choose against"), "{text}");
    }

    #[test]
    fn vegas_meets_its_alpha_where_the_arithmetic_says() {
        // A tenth of every latency read as queueing: L / 10 = 3·log10 L near L = 51.
        let limit = vegas_equilibrium(0.1).expect("an equilibrium");
        assert!((limit * 0.1 - 3.0 * limit.log10()).abs() < 1e-6 && (50.0..53.0).contains(&limit), "{limit}");
        assert!(vegas_equilibrium(0.0).is_none(), "no spread: the estimate never reaches α");
        assert!(vegas_equilibrium(2.0).is_none(), "above α from the start");
    }

    #[test]
    fn every_sentence_renders_whole() {
        let text = render(&judged(run(p99, 19_000.0)));
        assert!(!text.contains("  "), "doubled space: {text}");
        assert!(!text.contains("{{") && !text.contains("{%"), "{text}");
        assert!(!text.to_lowercase().contains("the issue"), "{text}");
    }
}
