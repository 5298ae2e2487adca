//! What the overload report's numbers mean, written from the run's summary so it stays true when re-rendered.
//! The findings are computed here (every figure from the summary, every stated finding from a verdict of the
//! run or a comparison with a claim's factor or the noise threshold); the fixed words are in
//! `templates/report.md`.

use std::fmt::Write as _;

use measure::compare::{beyond_noise, within_noise};
use measure::summary::{Family, Summary};

use crate::analysis::HEADLINE;
use crate::claims::{after_ceiling, family_pairs, FAMILIES, FAMILY_AGREEMENT, FEED_TOLERANCE, HALVES, NEAR_CEILING};
use crate::config::{IDLE_CALLS, LIMITERS};
use crate::limit::{AimdConfig, Decisions, Gradient2Config, LimiterKind};

/// The discussion's template: fixed explanations, with the findings below filled in.
const TEMPLATE: &str = include_str!("templates/report.md");

/// The start of each claim's text, as [`crate::claims::table`] words it.
const HALVES_CLAIM: &str = "After the drop, each adaptive limiter's p99 latency";
const NEAR_CLAIM: &str = "The adaptive limiters keep after-drop throughput";

/// The verdict of the claim whose text starts with `prefix`, as judged in this run: `holds`, `fails`,
/// `inconclusive`, or `not judged` when the run has no such claim.
fn verdict(summary: &Summary, prefix: &str) -> &'static str {
    summary.claims.iter().find(|c| c.text.starts_with(prefix)).map_or("not judged", |c| c.verdict.as_str())
}

/// The version of the published peer whose API the discussion describes (read from its source).
const PEER_VERSION: &str = "congestion-limiter 0.1.0";

/// The discussion section of the report: findings computed here, words from `templates/report.md`.
pub fn discussion(summary: &Summary) -> String {
    let unbounded_rows: Vec<String> = ["stream-unbounded", "blocking-unbounded"]
        .iter()
        .filter_map(|name| {
            let p99 = median(summary, name, HEADLINE)?;
            let out_max = median(summary, name, "max_outstanding")?;
            let errors = median(summary, name, "after_drop.errors").unwrap_or(0.0);
            let calls = median(summary, name, "after_drop.calls").unwrap_or(0.0);
            Some(format!(
                "`{name}`: after-drop p99 {} of the calls served, {errors:.0} of {calls:.0} after-drop calls \
                 rejected, at most {out_max:.0} calls outstanding.",
                ms(p99)
            ))
        })
        .collect();
    let context = serde_json::json!({
        "ceiling": ceiling(summary),
        "idle_calls": IDLE_CALLS,
        "fixed_limit": summary.param("fixed_limit").map_or("its".to_string(), |v| format!("{v:.0}")),
        "published_calls": summary.param("calls").is_some_and(|c| c < 200_000.0),
        "capacity_after": summary.param("capacity_after").map_or("fewer".to_string(), |v| format!("{v:.0}")),
        "trade_rows": trade_rows(summary),
        "limiters": limiters(summary),
        "unbounded_threads": summary
            .param("unbounded_threads")
            .map_or("`unbounded-threads`".to_string(), |v| format!("{v:.0}")),
        "unbounded_rows": unbounded_rows,
        "drop": drop_rule(summary),
        "windowed": summary.param("windowed").is_some_and(|w| w > 0.0),
        "queue_limit": summary.param("queue_limit").map_or("`queue-limit`".to_string(), |v| format!("{v:.0}")),
        "netflix": netflix_rows(summary),
        "family_cpu": family_cpu(summary),
        "pick_limiters": pick_limiters(summary),
        "near": verdict(summary, NEAR_CLAIM),
        "near_factor": NEAR_CEILING.to_string(),
        "family_factor": FAMILY_AGREEMENT.to_string(),
        "feed_tolerance": FEED_TOLERANCE.to_string(),
        "unlike_pairs": unlike_pairs(summary),
        "peer_version": PEER_VERSION,
    });
    measure::template::render_or_note("overload/report.md", TEMPLATE, context)
}

/// The settle rule's figures, as the run set them.
fn drop_rule(summary: &Summary) -> serde_json::Value {
    let param = |key: &str| summary.param(key).map_or("?".to_string(), |v| format!("{v:.0}"));
    let drift = param("settle_drift_pct");
    serde_json::json!({
        "healthy": param("healthy_ms"),
        "hold": param("settle_ms"),
        "drift": drift,
        "cap": param("healthy_max_ms"),
    })
}

/// Every departure from Netflix's defaults, one row each: parameter, Netflix's default, here, why.
fn netflix_rows(summary: &Summary) -> Vec<[String; 4]> {
    let param = |key: &str| summary.param(key).map_or("?".to_string(), |v| format!("{v:.0}"));
    let windowed = summary.param("windowed").is_some_and(|w| w > 0.0);
    let row = |a: &str, b: &str, c: String, d: &str| [a.to_string(), b.to_string(), c, d.to_string()];
    vec![
        row(
            "limiter",
            "`SimpleLimiter`: the algorithm updated on every completed call",
            if windowed {
                "every adaptive algorithm wrapped in the lab's short window (`--windowed 1`)".to_string()
            } else {
                "the same".to_string()
            },
            if windowed { "a labelled variant, not a reference run" } else { "the reference configuration" },
        ),
        row(
            "`WindowedLimit` window",
            "1 s (minimum and maximum), at least 10 samples, latencies under 100 µs ignored; the README wraps only              its server Gradient2 example",
            "not run; the variant behind `--windowed 1` closes a window after 10 samples and twice the smallest              latency seen (about 10 ms)"
                .to_string(),
            "a healthy phase lasts a few hundred milliseconds here: 1 s windows would update a limit a handful of              times a run",
        ),
        row(
            "`maxLimit` (AIMD), `maxConcurrency` (Gradient2 200, Vegas 1000)",
            "200, 200, 1000",
            format!("{} (`max-limit`)", param("max_limit")),
            "every bounded contestant shares one ceiling, the fixed bound, which is the dependency's healthy capacity",
        ),
        row(
            "`minLimit`",
            "20 (AIMD, Gradient2); Vegas has none (1)",
            format!("{} for every algorithm (`min-limit`)", param("min_limit")),
            "one floor for every adaptive limiter",
        ),
        row(
            "AIMD `timeout`",
            "5 s",
            format!(
                "{} ms for `aimd` (`timeout-ms`); k × the measured no-load latency for `aimd-latency-<k>x`",
                param("timeout_ms")
            ),
            "the latency variants make slowness the drop signal; plain `aimd` cuts on the dependency's rejections",
        ),
        row(
            "Gradient2 `longWindow`",
            "600 samples",
            if windowed { "600 windows (about 6 s of 10 ms windows)".to_string() } else { "600 samples".to_string() },
            if windowed { "the window variant only" } else { "Netflix's" },
        ),
        row(
            "the dependency",
            "(a real service)",
            format!(
                "rejects a call when {} already queue (`queue-limit`), within {} µs of jitter",
                param("queue_limit"),
                param("jitter_us")
            ),
            "a real service answers 503 beyond its queue: the loss signal AIMD cuts on (`didDrop`)",
        ),
    ]
}

/// The pairs whose limiters were fed differently, each with the limits that explain it where the run has them:
/// the mean limit after the drop and the limit at the drop of each side.
fn unlike_pairs(summary: &Summary) -> Vec<String> {
    family_pairs(summary)
        .1
        .into_iter()
        .map(|row| {
            let Some((a, b)) = row.split_once(':').and_then(|(pair, _)| pair.split_once(" / ")) else { return row };
            let limits = |name: &str| {
                Some((median(summary, name, "after_drop.limit_mean")?, median(summary, name, "limit_at_drop")?))
            };
            match (limits(a.trim()), limits(b.trim())) {
                (Some((ma, da)), Some((mb, db))) => {
                    format!("{row}; mean limit after the drop {ma:.0} vs {mb:.0}, limit at the drop {da:.0} vs {db:.0}")
                }
                _ => row,
            }
        })
        .collect()
}

/// Median of `metric` for `name`, if it ran cleanly.
fn median(summary: &Summary, name: &str, metric: &str) -> Option<f64> {
    summary.metric(name, metric).map(|s| s.median)
}

fn ms(us: f64) -> String {
    if us >= 100_000.0 {
        format!("{:.0} ms", us / 1e3)
    } else {
        format!("{:.1} ms", us / 1e3)
    }
}

/// The dependency's ceilings before and after the drop, and the idle overshoot of each family, if the run has
/// the parameters.
fn ceiling(summary: &Summary) -> Option<serde_json::Value> {
    let capacity = summary.param("capacity")?;
    let after = summary.param("capacity_after")?;
    let service = summary.param("service_ms")?;
    let calls = summary.param("calls")?;
    let before_ceiling = capacity * 1e3 / service;
    let after_ceiling_ops = after_ceiling(summary).unwrap_or(f64::NAN);
    let idle: Vec<(String, f64)> = summary
        .contestants
        .iter()
        .filter_map(|c| median(summary, &c.name, "idle_overshoot_us").map(|v| (c.name.clone(), v)))
        .collect();
    let mid = |prefix: &str| {
        let values: Vec<f64> = idle.iter().filter(|(n, _)| n.starts_with(prefix)).map(|(_, v)| *v).collect();
        measure::stats::median(&values).map_or("—".to_string(), |m| format!("{m:.0} µs"))
    };
    let idle = (!idle.is_empty()).then(
        || serde_json::json!({"stream": mid("stream"), "blocking": mid("blocking"), "coroutine": mid("coroutine")}),
    );
    Some(serde_json::json!({
        "capacity": format!("{capacity:.0}"),
        "service": format!("{service:.0}"),
        "before": format!("{before_ceiling:.0}"),
        "after": format!("{after:.0}"),
        "after_ops": format!("{after_ceiling_ops:.0}"),
        "calls": format!("{calls:.0}"),
        "idle": idle,
    }))
}

/// One line per limiter and family: after-drop p99 and throughput, whole run, gate wait, mean limit after the
/// drop, and the limiter's decisions (medians over the measured iterations).
fn trade_rows(summary: &Summary) -> Vec<String> {
    let mut rows = Vec::new();
    for kind in LIMITERS {
        for family in FAMILIES {
            let name = format!("{family}-{}", kind.name());
            let (Some(p99), Some(ops), Some(wall)) = (
                median(summary, &name, HEADLINE),
                median(summary, &name, "after_drop.ops_per_sec"),
                median(summary, &name, "wall_ms"),
            ) else {
                continue;
            };
            let mut row = format!(
                "`{name}`: after-drop p99 {}, after-drop {ops:.0} calls/s, whole run {:.2} s",
                ms(p99),
                wall / 1e3
            );
            if let Some(wait) = median(summary, &name, "after_drop.gate_wait_latency_p99_us") {
                let _ = write!(row, ", after-drop gate wait p99 {}", ms(wait));
            }
            if let Some(caller) = median(summary, &name, "after_drop.caller_latency_p99_us") {
                let _ = write!(row, ", after-drop p99 a caller sees (gate wait included) {}", ms(caller));
            }
            if let Some(steady) = median(summary, &name, "after_settle.latency_p99_us") {
                let _ = write!(row, ", p99 once the limit had settled after the drop {}", ms(steady));
            }
            if let Some(errors) = median(summary, &name, "after_drop.errors").filter(|&e| e > 0.0) {
                let _ = write!(row, ", {errors:.0} after-drop calls rejected");
            }
            if let (Some(at_drop), Some(at_end)) =
                (median(summary, &name, "limit_at_drop"), median(summary, &name, "limit_at_end"))
            {
                let _ = write!(row, ", limit {at_drop:.0} at the drop and {at_end:.0} at the end");
            }
            if let Some(limit) = median(summary, &name, "after_drop.limit_mean") {
                let _ = write!(row, ", mean limit after the drop {limit:.0}");
            }
            if kind.is_adaptive() {
                match median(summary, &name, "settle_after_drop_ms") {
                    Some(settle) => {
                        let _ = write!(row, ", settled again by {settle:.0} ms after the drop");
                    }
                    None => row.push_str(", never settled after the drop"),
                }
            }
            let decisions = decision_counts(summary, &name);
            if !decisions.is_empty() {
                let _ = write!(row, "; decisions: {decisions}");
            }
            rows.push(row);
        }
    }
    rows
}

/// The limiter's decision counts for `name` (medians), the non-zero ones, as `3 increases, 1 decreases`.
fn decision_counts(summary: &Summary, name: &str) -> String {
    Decisions::default()
        .named()
        .iter()
        .filter_map(|(key, _)| {
            let value = median(summary, name, &format!("{}.{key}", crate::routine::DECISIONS))?;
            (value > 0.0).then(|| format!("{value:.0} {}", key.replace('_', "-")))
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// CPU, dependency CPU and context switches per call, medians over each family's bounded contestants.
fn family_cpu(summary: &Summary) -> String {
    let mut cpu = Vec::new();
    for family in [Family::Stream, Family::Blocking, Family::Coroutine] {
        let pick = |metric: &str| -> Option<f64> {
            let values: Vec<f64> = summary
                .contestants
                .iter()
                .filter(|c| c.family == family && !c.name.ends_with("unbounded"))
                .filter_map(|c| median(summary, &c.name, metric))
                .collect();
            measure::stats::median(&values)
        };
        if let (Some(total), Some(dep), Some(ctx)) =
            (pick("cpu_us_per_call"), pick("dependency_cpu_us_per_call"), pick("ctx_switches_per_item"))
        {
            cpu.push(format!(
                "{}: {total:.1} µs of CPU per call, {dep:.1} µs of it on the dependency's timer threads, {ctx:.2} \
                 context switches per call",
                family.as_str()
            ));
        }
    }
    cpu.join("; ")
}

/// `stream X, blocking Y, coroutine Z` for `metric` of the limiter's contestants that ran, formatted by `show`,
/// with the lowest and highest of them; `None` unless the stream and blocking ones ran.
fn both(summary: &Summary, kind: &str, metric: &str, show: impl Fn(f64) -> String) -> Option<(String, f64, f64)> {
    median(summary, &format!("stream-{kind}"), metric)?;
    median(summary, &format!("blocking-{kind}"), metric)?;
    let values: Vec<(&str, f64)> =
        FAMILIES.iter().filter_map(|f| Some((*f, median(summary, &format!("{f}-{kind}"), metric)?))).collect();
    let text = values.iter().map(|(f, v)| format!("{f} {}", show(*v))).collect::<Vec<_>>().join(", ");
    let low = values.iter().map(|(_, v)| *v).fold(f64::INFINITY, f64::min);
    let high = values.iter().map(|(_, v)| *v).fold(f64::NEG_INFINITY, f64::max);
    Some((text, low, high))
}

/// The findings on each adaptive limiter, one markdown bullet each (without the `- `): every sentence that
/// states a finding follows from a verdict of this run or a comparison with a claim's factor or the noise
/// threshold.
fn limiters(summary: &Summary) -> Vec<String> {
    let mut out = Vec::new();
    let (Some(after), Some(ceiling)) = (summary.param("capacity_after"), after_ceiling(summary)) else { return out };
    let noise = summary.method.noise_threshold;
    let backoff = AimdConfig::default().backoff;
    let long_window = Gradient2Config::default().long_window;
    let share = |v: f64| format!("{:.0}%", 100.0 * v / ceiling);
    let aimds = LIMITERS.into_iter().filter(|k| matches!(k, LimiterKind::Aimd | LimiterKind::AimdLatency(_)));
    for kind in aimds {
        let name = kind.name();
        let (Some((limit, low_limit, _)), Some((ops, _, high_ops))) = (
            both(summary, name, "after_drop.limit_mean", |v| format!("{v:.0}")),
            both(summary, name, "after_drop.ops_per_sec", share),
        ) else {
            continue;
        };
        let metric = format!("{}.decreases", crate::routine::DECISIONS);
        let cuts = both(summary, name, &metric, |v| format!("{v:.0}"));
        let how = if summary.param("windowed").is_some_and(|w| w > 0.0) {
            format!(
                "It multiplies its limit by {backoff} at most once per window (about two round trips) and ignores \
                 the calls admitted before its last cut, so a burst of slow or dropped calls costs one cut, not one \
                 per call; it climbs by one per window at least half used."
            )
        } else {
            format!(
                "As Netflix's `AIMDLimit` under its `SimpleLimiter`, it multiplies its limit by {backoff} on every \
                 dropped or slow call and adds one on every other call made while at least half the limit was in \
                 use."
            )
        };
        let mut text = format!(
            "**`{name}`** averaged a limit of {limit} after the drop, against {after:.0} slots, and reached {ops} of \
             the ceiling. {how}"
        );
        if let Some((cuts, _, most)) = &cuts {
            let _ = write!(text, " Cuts over the run: {cuts}.");
            if *most == 0.0 && kind == LimiterKind::Aimd {
                text.push_str(
                    " It never cut: its drops are rejections and calls slower than `timeout-ms`, and this \
                     dependency rejected nothing it was sent (`--queue-limit 0` queues without limit).",
                );
            }
        }
        if high_ops < NEAR_CEILING * ceiling {
            let _ = write!(
                text,
                " In every family it stayed below {NEAR_CEILING}× the ceiling, the claim's threshold: while it \
                 climbs, slots stand idle, and that is where its longer run goes."
            );
        }
        if beyond_noise(low_limit, after, noise) {
            text.push_str(
                " Its average limit stayed above the new capacity by more than the noise threshold, so some \
                 queueing remained.",
            );
        }
        out.push(text);
    }
    if let Some((limit, low, _)) = both(summary, "gradient2", "after_drop.limit_mean", |v| format!("{v:.0}")) {
        let mut text = format!(
            "**Gradient2** averaged a limit of {limit} after the drop. It compares each sample's latency (each \
             window's average with `--windowed 1`) with a long-term average over {long_window} of them, and \
             shrinks when the latest is more than 1.5× slower."
        );
        if beyond_noise(low, after, noise) {
            let _ = write!(
                text,
                " That is above the {after:.0} slots by more than the noise threshold, so some queueing remained."
            );
        }
        let metric = |key: &str| format!("{}.{key}", crate::routine::DECISIONS);
        if let (Some((ups, _, _)), Some((downs, _, _))) = (
            both(summary, "gradient2", &metric("increases"), |v| format!("{v:.0}")),
            both(summary, "gradient2", &metric("decreases"), |v| format!("{v:.0}")),
        ) {
            let _ = write!(
                text,
                " Over the run it raised its limit after {ups} samples and lowered it after {downs}; why it \
                 settles where it does is not established by these counts."
            );
        }
        out.push(text);
    }
    if let (Some((limit, _, _)), Some((p99, ps, pb))) = (
        both(summary, "vegas", "after_drop.limit_mean", |v| format!("{v:.0}")),
        both(summary, "vegas", "after_drop.latency_p99_us", ms),
    ) {
        let mut text = format!(
            "**Vegas** averaged a limit of {limit} after the drop, with after-drop p99 {p99}. It estimates the \
             queue from the latency against the lowest latency it has seen, and periodically forgets that \
             minimum to re-learn it."
        );
        if let (Some((at_drop, _, high)), Some(capacity)) =
            (both(summary, "vegas", "limit_at_drop", |v| format!("{v:.0}")), summary.param("capacity"))
        {
            if beyond_noise(capacity, high, noise) {
                let _ = write!(
                    text,
                    " Before the drop its limit had settled at {at_drop}, below the {capacity:.0} slots: updated \
                     on every call, it reads each call's latency above the smallest seen as queued calls (limit × \
                     (1 − smallest / latency)), and the service time's own spread (`jitter-us`) is such a \
                     difference, so it holds the limit where that estimate sits between its α and β; that is \
                     arithmetic, not a measurement of the cause. It is why its runs last longest."
                );
            }
        }
        if beyond_noise(ps.max(pb), ps.min(pb), noise) {
            text.push_str(
                " Its families differ by more than the noise threshold here, although they share the algorithm, the gate and \
                 the dependency: only the latencies each family feeds it differ.",
            );
            // Vegas's queue estimate is limit × (1 − lowest latency / latency): any delay the caller adds under
            // load (its own wake-up) reads as queueing, so a family with a larger overhead settles lower.
            let overhead = |family: &str| {
                let name = format!("{family}-vegas");
                Some(median(summary, &name, "before_drop.latency_p50_us")? - median(summary, &name, "idle_call_us")?)
            };
            if let (Some(os), Some(ob), Some(ls), Some(lb)) = (
                overhead("stream"),
                overhead("blocking"),
                median(summary, "stream-vegas", "limit_at_drop"),
                median(summary, "blocking-vegas", "limit_at_drop"),
            ) {
                let at_drop = format!("{ls:.0} (stream) and {lb:.0} (blocking)");
                let _ = write!(
                    text,
                    " Vegas counts every microsecond above the lowest latency it has seen as queueing, including \
                     the caller's own wake-up delay under load. Before the drop the median call took {os:.0} µs \
                     (stream) and {ob:.0} µs (blocking) longer than an idle call, and the limit stood at {at_drop} \
                     when capacity dropped."
                );
                // The family with the larger overhead should settle lower if the overhead steers Vegas.
                let steered = (ob > os && lb < ls) || (os > ob && ls < lb);
                let close = within_noise(ls, lb, noise);
                if close {
                    text.push_str(
                        " The limits were close at the drop, so the gap opened after it; the lab has not \
                         established why.",
                    );
                } else if steered {
                    text.push_str(
                        " That is consistent with the caller's overhead steering Vegas, but the lab has not \
                         isolated it.",
                    );
                } else {
                    text.push_str(
                        " The family with the smaller overhead settled lower, the opposite of what that would \
                         predict; the lab has not established why.",
                    );
                }
                text.push_str(" Treat Vegas's figures as sensitive to small differences in the latencies it is fed.");
            }
        }
        out.push(text);
    }
    out
}

/// `a`, `a and b`, `a, b and c`.
fn and_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// Which adaptive limiters kept the after-drop p99 below the claim's share of the fixed bound's, in both
/// families: from the claim's verdict when it holds, else from each limiter's medians against the same factor.
fn pick_limiters(summary: &Summary) -> String {
    let verdict = verdict(summary, HALVES_CLAIM);
    if verdict == "holds" {
        return format!(
            "every adaptive limiter kept the after-drop p99 below {HALVES}× the fixed bound's in every family \
             (that claim holds)"
        );
    }
    let mut shorter = Vec::new();
    let mut longer = Vec::new();
    for kind in LIMITERS.into_iter().filter(|k| k.is_adaptive()) {
        let beats = FAMILIES.iter().all(|family| {
            let p99 = median(summary, &format!("{family}-{}", kind.name()), HEADLINE);
            let fixed = median(summary, &format!("{family}-fixed"), HEADLINE);
            matches!((p99, fixed), (Some(p), Some(f)) if p <= HALVES * f)
        });
        if beats {
            shorter.push(format!("`{}`", kind.name()));
        } else {
            longer.push(format!("`{}`", kind.name()));
        }
    }
    match (shorter.is_empty(), longer.is_empty()) {
        (false, false) => format!(
            "by their medians only {} kept the after-drop p99 below {HALVES}× the fixed bound's in every family, \
             and {} did not (the claim that every one does: {verdict}), so an adaptive limit is not protection by \
             itself: check the one you choose against the way your dependency degrades, and against what it costs \
             in throughput (`after_drop.ops_per_sec`)",
            and_list(&shorter),
            and_list(&longer)
        ),
        (true, false) => format!(
            "no adaptive limiter kept the after-drop p99 below {HALVES}× the fixed bound's in every family (that \
             claim: {verdict})"
        ),
        _ => {
            format!("whether the adaptive limiters shorten the tail is not settled by this run (that claim: {verdict})")
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use measure::record::Status;
    use measure::summary::{ContestantSummary, Environment, Method, MetricStats, Verdict};

    use super::*;

    fn range(value: f64) -> MetricStats {
        measure::stats::summarize(&[vec![value * 0.99], vec![value], vec![value * 1.01]]).expect("samples")
    }

    /// A run of every limiter in both families, after-drop p99 from `p99` (µs), at `ops` calls per second after
    /// the drop against a ceiling of 20,000, with its claims judged.
    fn run(p99: impl Fn(&str) -> f64, ops: f64) -> Summary {
        let mut contestants = Vec::new();
        for (family, prefix) in
            [(Family::Stream, "stream"), (Family::Blocking, "blocking"), (Family::Coroutine, "coroutine")]
        {
            let unbounded = (family != Family::Coroutine).then_some("unbounded");
            for kind in LIMITERS.iter().map(|k| k.name()).chain(unbounded) {
                let name = format!("{prefix}-{kind}");
                let metrics = BTreeMap::from([
                    (HEADLINE.to_string(), range(p99(&name))),
                    ("after_drop.ops_per_sec".to_string(), range(ops)),
                    ("after_drop.limit_mean".to_string(), range(100.0)),
                    ("wall_ms".to_string(), range(2_000.0)),
                ]);
                contestants.push(ContestantSummary {
                    name,
                    family,
                    role: Default::default(),
                    description: String::new(),
                    status: Status::Ok,
                    reason: None,
                    checks: vec![],
                    metrics,
                    skipped_phases: BTreeMap::new(),
                    disturbed: Default::default(),
                });
            }
        }
        let mut summary = Summary {
            scenario: "overload".into(),
            lab_version: "test".into(),
            git_rev: "unknown".into(),
            git_dirty: false,
            render_git_rev: "unknown".into(),
            render_git_dirty: false,
            started_utc: String::new(),
            finished_utc: String::new(),
            environment: Environment::default(),
            method: Method {
                quick: false,
                forks: 3,
                warmup: 0,
                iterations: 1,
                accounting: 1,
                noise_threshold: 0.2,
                seed: 0,
                trial_timeout_s: 60.0,
            },
            params: BTreeMap::from([
                ("capacity".to_string(), serde_json::Value::from(500)),
                ("capacity_after".to_string(), serde_json::Value::from(100)),
                ("service_ms".to_string(), serde_json::Value::from(5)),
                ("calls".to_string(), serde_json::Value::from(100_000)),
            ]),
            contestants,
            claims: vec![],
            command: String::new(),
            raw_file: String::new(),
            phases: vec![],
        };
        summary.claims = measure::judge::judge_all(&summary, &crate::claims::table(&summary));
        summary
    }

    fn p99(name: &str) -> f64 {
        if name.ends_with("fixed") {
            100_000.0
        } else if name.ends_with("unbounded") {
            900_000.0
        } else {
            20_000.0
        }
    }

    #[test]
    fn findings_follow_the_verdicts_that_hold() {
        let text = discussion(&run(p99, 19_000.0));
        assert!(!text.contains("could not be rendered"), "{text}");
        assert!(text.contains("every adaptive limiter kept the after-drop p99 below 0.5×"), "{text}");
        assert!(text.contains("at least 0.85× the ceiling here"), "{text}");
        assert!(text.contains("after the drop to 100 slots, 20000"), "{text}");
        // AIMD's backoff from its configuration, on every sample (unwindowed, as Netflix's SimpleLimiter).
        assert!(text.contains("multiplies its limit by 0.9 on every dropped or slow call"), "{text}");
        assert!(text.contains("| `WindowedLimit` window | 1 s (minimum and maximum)"), "{text}");
        assert!(!text.contains("stayed below 0.85× the ceiling"), "{text}");
    }

    #[test]
    fn a_finding_is_absent_when_its_claim_is_inconclusive() {
        let mut summary = run(p99, 19_000.0);
        for claim in &mut summary.claims {
            claim.verdict = Verdict::Inconclusive;
        }
        let text = discussion(&summary);
        assert!(!text.contains("every adaptive limiter kept"), "{text}");
        assert!(!text.contains("the ceiling here"), "{text}");
    }

    #[test]
    fn a_limiter_that_misses_the_claims_factor_is_named_by_that_factor() {
        // Vegas at 0.6× the fixed bound: shorter, but not by the claim's factor of 0.5.
        let text = discussion(&run(|n| if n.ends_with("vegas") { 60_000.0 } else { p99(n) }, 10_000.0));
        assert!(
            text.contains(
                "only `aimd`, `aimd-latency-1.5x`, `aimd-latency-2x`, `aimd-latency-4x` and `gradient2` kept the \
                 after-drop p99 below 0.5×"
            ),
            "{text}"
        );
        assert!(text.contains("and `vegas` did not (the claim that every one does: fails)"), "{text}");
        // 10,000 calls/s against a ceiling of 20,000: below the near-ceiling claim's 0.85 in both families.
        assert!(text.contains("In every family it stayed below 0.85× the ceiling"), "{text}");
    }
}
