//! What the backpressure report's numbers mean, written from the run's summary so it stays true when
//! re-rendered: every figure is read from the summary, and every sentence about what the figures show is
//! written only when a verdict of the run, or a comparison with a claim's factor or the noise threshold, shows
//! it. The fixed words are in `templates/discussion.md`.

use std::fmt::Write as _;

use measure::compare::{beyond_noise, within_noise};
use measure::record::Status;
use measure::references;
use measure::summary::{Family, MetricStats, Summary};

use super::claims::{
    bounded_names, count, fig, range, BOUNDED_SPREAD, MAX_OUT, OPS, STUDY_UNBOUNDED, THREAD_SHARE, UNBOUNDED_FACTOR,
};
use super::{BLOCKING_UNBOUNDED, MEAN_OUTSTANDING, MS_TO_PEAK, STREAM_UNBOUNDED};

/// The exact high-water mark as the 1 ms sampler saw it.
const SAMPLED: &str = "max_outstanding_sampled";
/// The published study's bound and its worst bounded contestant, in `measure/references.json`.
const STUDY_BOUND: &str = "the bound on outstanding calls";
/// The published study's worst bounded contestant, in `measure/references.json`.
const STUDY_WORST_BOUNDED: &str = "the worst bounded contestant";
/// One MiB in bytes.
const MIB: f64 = 1_048_576.0;

/// The discussion's template: fixed explanations, with the findings below filled in.
const TEMPLATE: &str = include_str!("templates/discussion.md");

/// The start of each claim's text, as [`super::claims::table`] words it.
const UNBOUNDED_CLAIM: &str = "Cheap concurrency still needs admission control";
const STYLE_CLAIM: &str = "With the same bound and the same device, the style does not matter";
const THROTTLED_CLAIM: &str = "A thread per item is throttled by thread creation";

/// The verdict of the claim whose text starts with `prefix`, as judged in this run: `holds`, `fails`,
/// `inconclusive`, or `not judged` when the run has no such claim.
fn verdict(summary: &Summary, prefix: &str) -> &'static str {
    summary.claims.iter().find(|c| c.text.starts_with(prefix)).map_or("not judged", |c| c.verdict.as_str())
}

/// Whether every bounded contestant kept its bound, read from the conformance checks (true by construction of a
/// passing contestant, so a check and not a claim): `holds` when each ran cleanly and passed
/// `bounded_outstanding`, `fails` when one failed it, `not judged` otherwise.
fn bound_checks(summary: &Summary) -> &'static str {
    let bounded = super::claims::bounded_names();
    let contestants: Vec<_> = bounded.iter().filter_map(|n| summary.contestant(n)).collect();
    if contestants.iter().any(|c| c.checks.iter().any(|k| k.name == "bounded_outstanding" && k.failed())) {
        "fails"
    } else if !contestants.is_empty()
        && contestants.len() == bounded.len()
        && contestants.iter().all(|c| {
            c.status == measure::record::Status::Ok
                && c.checks.iter().any(|k| k.name == "bounded_outstanding" && k.passed)
        })
    {
        "holds"
    } else {
        "not judged"
    }
}

/// Whether the thread per item went past the bound + 1 in every iteration: a measured fact of a contestant with
/// no bound (shown as a figure, not judged as a claim, since nothing bounds it), `holds` or `not judged`.
fn past_bound(summary: &Summary) -> &'static str {
    match (summary.param("limit"), summary.metric(BLOCKING_UNBOUNDED, MAX_OUT)) {
        (Some(limit), Some(s)) if s.min > limit + 1.0 => "holds",
        _ => "not judged",
    }
}

/// The findings one section writes, by a function that appends them to a string.
fn section(summary: &Summary, write: fn(&Summary, &mut String)) -> String {
    let mut out = String::new();
    write(summary, &mut out);
    out.trim().to_string()
}

/// The discussion section of the report: findings computed here, words from `templates/discussion.md`.
pub(crate) fn discussion(summary: &Summary) -> String {
    let limit = summary.param("limit");
    let service_us = summary.param("service_us");
    let context = serde_json::json!({
        "not_clean": section(summary, not_clean),
        "bound": section(summary, bound),
        "bound_study": bound_study(summary),
        "unbounded_stream": section(summary, unbounded_stream),
        "unbounded_threads": section(summary, unbounded_threads),
        "sampled": section(summary, sampled),
        "throughput": limit.zip(service_us).map(|(limit, service_us)| serde_json::json!({
            "limit": count(limit),
            "service": duration_us(service_us),
            "ideal": count(limit * 1e6 / service_us),
            "findings": section(summary, throughput),
        })),
        "cost": section(summary, cost),
        "semantics": section(summary, semantics),
        "pick": section(summary, pick),
        "coroutine_rules": pipelines::coroutine::rules_note(summary),
    });
    measure::template::render_or_note("backpressure/discussion.md", TEMPLATE, context)
}

/// The headline's own line: how far outstanding calls ran without admission, in each family.
pub(crate) fn headline_notes(summary: &Summary) -> Vec<String> {
    let Some(limit) = summary.param("limit") else { return Vec::new() };
    let reached: Vec<String> = [STREAM_UNBOUNDED, BLOCKING_UNBOUNDED]
        .into_iter()
        .filter_map(|name| {
            let max = median(summary, name, MAX_OUT)?;
            Some(format!("`{name}` reached {} calls outstanding ({}× the bound)", count(max), fig(max / limit)))
        })
        .collect();
    if reached.is_empty() {
        return Vec::new();
    }
    vec![format!("Without admission control, {}.", reached.join("; "))]
}

fn median(summary: &Summary, name: &str, metric: &str) -> Option<f64> {
    summary.metric(name, metric).map(|s| s.median)
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
        .filter_map(|n| median(summary, n, metric))
        .collect();
    measure::stats::median(&values)
}

/// `a`, `a and b`, `a, b and c`.
fn and_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// `21.7 MiB`.
fn mib_text(mib: f64) -> String {
    format!("{} MiB", fig(mib))
}

/// `a–b`, or `a` when both read the same.
fn span(a: String, b: String) -> String {
    if a == b {
        a
    } else {
        format!("{a}–{b}")
    }
}

/// `1.02–1.06 ms`, `250 µs–1.06 ms`, or one duration when both read the same.
fn duration_span(lo_us: f64, hi_us: f64) -> String {
    let (lo, hi) = (duration_us(lo_us), duration_us(hi_us));
    match (lo.strip_suffix(" ms"), hi.strip_suffix(" ms")) {
        _ if lo == hi => lo,
        (Some(a), Some(b)) => format!("{a}–{b} ms"),
        _ => format!("{lo}–{hi}"),
    }
}

/// `, in every family`, `, in the stream and blocking families`, `, all of the stream family` or nothing, for the
/// contestants listed.
fn families(summary: &Summary, listed: &[(String, &MetricStats)]) -> String {
    let present: Vec<&str> = [Family::Stream, Family::Blocking, Family::Coroutine]
        .into_iter()
        .filter(|f| listed.iter().any(|(n, _)| summary.contestant(n).is_some_and(|c| c.family == *f)))
        .map(Family::as_str)
        .collect();
    let all = summary
        .contestants
        .iter()
        .map(|c| c.family)
        .filter(|f| *f != Family::Baseline)
        .collect::<std::collections::BTreeSet<_>>()
        .len();
    match present.as_slice() {
        [] => String::new(),
        [one] => format!(", all of the {one} family"),
        _ if present.len() == all => ", in every family".to_string(),
        [a, b] => format!(", in the {a} and {b} families"),
        _ => format!(", in the {} families", present.join(", ")),
    }
}

/// `(median; the same in every iteration)` or `(median; 80,000–90,000 across iterations)`.
fn across(s: &MetricStats) -> String {
    if count(s.min) == count(s.max) {
        "the same in every iteration".to_string()
    } else {
        format!("{} across iterations", range(s))
    }
}

/// `1.06 ms` or `250 µs`.
fn duration_us(us: f64) -> String {
    if us >= 1_000.0 {
        format!("{} ms", fig(us / 1e3))
    } else {
        format!("{} µs", fig(us))
    }
}

fn not_clean(summary: &Summary, out: &mut String) {
    let mut lines = Vec::new();
    for c in &summary.contestants {
        if c.status != Status::Ok {
            let why = c.reason.as_deref().map_or(String::new(), |r| format!(": {r}"));
            let what = match c.status {
                Status::Skipped => "was skipped",
                Status::Timeout => "timed out",
                _ => "failed",
            };
            lines.push(format!("- `{}` {what}{why}. Its figures are left out of everything below.", c.name));
        } else if let Some(cut) = c.metrics.get("cut_short").filter(|s| s.max > 0.0) {
            let budget = summary.param("budget_ms").map_or(String::new(), |b| format!(" of {} s", fig(b / 1e3)));
            lines.push(format!(
                "- `{}` was cut short by the time budget{budget} in {:.0}% of its iterations: its throughput \
                 counts only the calls answered before the cut.",
                c.name,
                100.0 * cut.mean
            ));
        }
    }
    if !lines.is_empty() {
        out.push_str(&lines.join("\n"));
    }
}

fn bound(summary: &Summary, out: &mut String) {
    let Some(limit) = summary.param("limit") else { return };
    let ceiling = limit + 1.0;
    let stats = bounded_stats(summary, MAX_OUT);
    let total = bounded_names().len();
    if stats.is_empty() {
        out.push_str("No bounded contestant ran cleanly, so this run says nothing about the bound.");
        return;
    }
    let worst = stats.iter().map(|(_, s)| s.max).fold(f64::MIN, f64::max);
    let best = stats.iter().map(|(_, s)| s.max).fold(f64::MAX, f64::min);
    let over: Vec<String> =
        stats.iter().filter(|(_, s)| s.max > ceiling).map(|(n, s)| format!("`{n}` ({})", range(s))).collect();
    let plus_one: Vec<String> = stats.iter().filter(|(_, s)| s.max == ceiling).map(|(n, _)| format!("`{n}`")).collect();
    let ran = if stats.len() == total {
        format!("All {total} bounded contestants")
    } else {
        format!("{} of the {total} bounded contestants ran cleanly; those", stats.len())
    };
    if over.is_empty() {
        let spread = if best == worst {
            format!("exactly {} calls outstanding", count(worst))
        } else {
            format!("{}–{} calls outstanding", count(best), count(worst))
        };
        let _ = write!(
            out,
            "{ran}{}, stayed within the bound of {} (+ 1 tolerated) in every iteration: at their worst, {spread}.",
            families(summary, &stats),
            count(limit)
        );
        if plus_one.is_empty() && worst <= limit {
            out.push_str(" None used the one extra call the conformance check tolerates.");
        } else if !plus_one.is_empty() {
            let _ = write!(out, " {} reached the bound + 1, the one extra the check tolerates.", and_list(&plus_one));
        }
    } else {
        let _ = write!(
            out,
            "The bound did not hold everywhere: {} went past the bound + 1 of {} (most calls outstanding, per \
             iteration). A bound that is exceeded is not a bound; see those contestants' checks.",
            and_list(&over),
            count(ceiling)
        );
    }
}

/// The published study's bound and what its bounded contestants kept, against this run's bound.
fn bound_study(summary: &Summary) -> String {
    let Some(limit) = summary.param("limit") else { return String::new() };
    if bounded_stats(summary, MAX_OUT).is_empty() {
        return String::new();
    }
    match (references::figure("backpressure", STUDY_BOUND), references::figure("backpressure", STUDY_WORST_BOUNDED)) {
        (Some(bound), Some(worst)) if bound.value == limit => format!(
            "The published JVM study used the same bound; its bounded contestants kept {}–{}.",
            count(bound.value),
            count(worst.value)
        ),
        (Some(bound), Some(worst)) => format!(
            "The published JVM study's bounded contestants kept {}–{} under a bound of {}; this run's bound is {}.",
            count(bound.value),
            count(worst.value),
            count(bound.value),
            count(limit)
        ),
        _ => String::new(),
    }
}

fn unbounded_stream(summary: &Summary, out: &mut String) {
    let (Some(limit), Some(items)) = (summary.param("limit"), summary.param("items")) else { return };
    let Some(s) = summary.metric(STREAM_UNBOUNDED, MAX_OUT) else { return };
    let service_ms = summary.param("service_us").map(|us| us / 1e3);
    let x = s.median;
    let noise = summary.method.noise_threshold;
    let _ = write!(
        out,
        "It reached {} calls outstanding (median; {}): {}× the \
         bound, {:.0}% of the {} items.",
        count(x),
        across(s),
        fig(x / limit),
        100.0 * x / items,
        count(items)
    );
    let peak = (median(summary, STREAM_UNBOUNDED, SAMPLED), median(summary, STREAM_UNBOUNDED, MS_TO_PEAK));
    if let (Some(sampled), Some(at), Some(service)) = (peak.0, peak.1, service_ms) {
        if at >= 1.0 {
            let per_ms = sampled / at;
            let _ = write!(
                out,
                " The sampler saw its peak {} ms into the run, so the loop admitted at least {} calls per \
                 millisecond until then (admitted calls include those already answered), while each call lasts \
                 {} ms.",
                fig(at),
                count(per_ms),
                fig(service)
            );
            if beyond_noise(per_ms * service, limit, noise) {
                out.push_str(" Spawning a task waits for nothing, so the loop admits calls far faster than they end");
                if !beyond_noise(items, x, noise) {
                    out.push_str(", and outstanding calls pile up until it runs out of items.");
                } else {
                    out.push_str(", and outstanding calls pile up.");
                }
            }
        } else {
            let _ = write!(
                out,
                " The sampler saw its peak within the first millisecond, before a single {} ms call could end.",
                fig(service)
            );
        }
    }
    little(summary, STREAM_UNBOUNDED, "the runtime's workers to poll them", out);
    let rss = median(summary, STREAM_UNBOUNDED, "peak_rss_mib");
    let bounded_rss = bounded_median(summary, Some(Family::Stream), "peak_rss_mib");
    if let (Some(rss), Some(base)) = (rss, bounded_rss) {
        if rss > base && x >= UNBOUNDED_FACTOR * limit {
            let (per_task, per_call) = ((rss - base) * MIB / items.max(x), (rss - base) * MIB / x);
            let _ = write!(
                out,
                " Its process peaked at {} MiB of resident memory against {} MiB for the bounded stream \
                 contestants (median): {} more, everything a spawned task holds included (its task and future, \
                 the device's timer entry, its join handle).",
                fig(rss),
                fig(base),
                mib_text(rss - base)
            );
            if !beyond_noise(items, x, noise) {
                let _ = write!(out, " That is about {} bytes per outstanding call.", count(per_call));
            } else {
                let _ = write!(
                    out,
                    " That is {} bytes per spawned task if all {} were still held at the peak (their join handles \
                     are awaited in item order, so a finished task's memory can stay until its turn), {} per \
                     outstanding call if only those {} were.",
                    count(per_task),
                    count(items),
                    count(per_call),
                    count(x)
                );
            }
        }
    }
    if let (Some(ops), Some(bops)) = (median(summary, STREAM_UNBOUNDED, OPS), bounded_median(summary, None, OPS)) {
        if ops > BOUNDED_SPREAD * bops {
            let _ = write!(
                out,
                " It also finished sooner, at {} calls per second against {} for the bounded contestants (median): \
                 only because this simulated device has unlimited capacity. A real dependency would have received \
                 {} calls at once, and queued, slowed down or rejected them.",
                count(ops),
                count(bops),
                count(x)
            );
        } else {
            let _ = write!(
                out,
                " It answered {} calls per second against {} for the bounded contestants (median): the extra \
                 outstanding calls bought no throughput worth having.",
                count(ops),
                count(bops)
            );
        }
    }
    let study = references::figure("backpressure", STUDY_UNBOUNDED).and_then(|f| Some((f, f.baseline_figure()?)));
    if let Some((figure, bound)) = study {
        let (theirs, ours) = (figure.value / bound.value, x / limit);
        let relation = if beyond_noise(ours, theirs, noise) {
            "more than"
        } else if beyond_noise(theirs, ours, noise) {
            "less than"
        } else {
            "about the same as"
        };
        let few = if items / limit < theirs {
            format!("; with {} items it could not have reached the study's multiple", count(items))
        } else {
            String::new()
        };
        let _ = write!(
            out,
            " The published JVM study's unbounded virtual-thread version reached {}× its bound; this run's task per \
             item reached {}× its bound, {relation} that{few} (see the published reference). How far an unbounded \
             spawner gets depends on how fast it starts work against how long a call lasts, and on how many items \
             there are, so only the order of magnitude carries over from one study to the other.",
            fig(theirs),
            fig(ours)
        );
    }
    if s.min > 0.0 && beyond_noise(s.max, s.min, noise) {
        let _ = write!(
            out,
            " Its own iterations ranged from {} to {} calls outstanding ({}× apart; see the spread across \
             processes), so even this run's figure is loose: what an unbounded spawner reaches is not a property \
             a program can rely on.",
            count(s.min),
            count(s.max),
            fig(s.max / s.min)
        );
    }
    out.push_str("\n\n");
}

fn unbounded_threads(summary: &Summary, out: &mut String) {
    let Some(limit) = summary.param("limit") else { return };
    let Some(t) = summary.metric(BLOCKING_UNBOUNDED, MAX_OUT) else { return };
    let y = t.median;
    let _ = write!(
        out,
        "It reached {} calls outstanding (median; {}), {}× the bound.",
        count(y),
        across(t),
        fig(y / limit)
    );
    if let Some(threads) = median(summary, BLOCKING_UNBOUNDED, "threads") {
        let _ = write!(out, " Its process had at most {} threads at any sample.", count(threads));
    }
    let ops = median(summary, BLOCKING_UNBOUNDED, OPS);
    if let Some(ops) = ops {
        let _ = write!(
            out,
            " It answered {} calls per second, so its one spawner started a thread every {} on average.",
            count(ops),
            duration_us(1e6 / ops)
        );
    }
    if let Some((mean, _)) = time_in_system(summary, BLOCKING_UNBOUNDED) {
        if beyond_noise(y, mean, summary.method.noise_threshold) {
            let _ = write!(
                out,
                " The count swung widely: {} at its peak, {} on average (see the chart).",
                count(y),
                fig(mean)
            );
        }
    }
    little(summary, BLOCKING_UNBOUNDED, "its threads to run", out);
    if let Some(s) = median(summary, STREAM_UNBOUNDED, MAX_OUT) {
        if y > 0.0 && beyond_noise(s, y, summary.method.noise_threshold) {
            let _ = write!(out, " `{STREAM_UNBOUNDED}` had {}× as many outstanding", fig(s / y));
            match (admission_interval_us(summary), ops) {
                (Some(task_us), Some(ops)) => {
                    let _ = write!(
                        out,
                        ": it admitted a call every {} on its way to its peak, against one every {} here.",
                        duration_us(task_us),
                        duration_us(1e6 / ops)
                    );
                }
                _ => out.push('.'),
            }
        } else if y > 0.0 {
            let _ = write!(
                out,
                " `{STREAM_UNBOUNDED}` reached {}, {}× this: here threads were not much of a brake.",
                count(s),
                fig(s / y)
            );
        }
    }
    let throttled = verdict(summary, THROTTLED_CLAIM) == "holds";
    match past_bound(summary) {
        "holds" if throttled => {
            let _ = write!(
                out,
                " Thread creation throttles it (at most {}× `{STREAM_UNBOUNDED}`'s outstanding calls: that claim \
                 holds), but it is no bound: it went past the bound + 1 in every iteration.",
                fig(THREAD_SHARE)
            );
        }
        "holds" => out.push_str(" It is no bound: it went past the bound + 1 in every iteration."),
        _ if throttled => {
            let _ = write!(
                out,
                " Thread creation throttled it to at most {}× `{STREAM_UNBOUNDED}`'s outstanding calls (that claim \
                 holds).",
                fig(THREAD_SHARE)
            );
        }
        _ => {}
    }
    if past_bound(summary) == "holds" {
        out.push_str(
            " Nothing in the program sets the figure; it follows from how fast this machine starts threads against \
             how long a call lasts.",
        );
    }
}

/// By Little's law, the mean time a call of `name` spent from admission to answer, in milliseconds: its mean
/// outstanding calls (1 ms samples) over its throughput. `(mean outstanding, milliseconds)`.
fn time_in_system(summary: &Summary, name: &str) -> Option<(f64, f64)> {
    let mean = median(summary, name, MEAN_OUTSTANDING)?;
    let ops = median(summary, name, OPS)?;
    (ops > 0.0 && mean > 0.0).then(|| (mean, mean / ops * 1e3))
}

/// The Little's-law sentence for `name`: how long its calls spent from admission to answer against an
/// uncontended call, and, where they took much longer and the process kept most of the machine's cores busy,
/// that they waited for `waited_for`.
fn little(summary: &Summary, name: &str, waited_for: &str, out: &mut String) {
    let (Some((mean, ms)), Some(idle)) = (time_in_system(summary, name), median(summary, name, "idle_call_ms")) else {
        return;
    };
    let _ = write!(
        out,
        " On average {} calls were outstanding (1 ms samples), so by Little's law a call spent about {} from \
         admission to answer, {}× an uncontended call's {}.",
        fig(mean),
        duration_us(ms * 1e3),
        fig(ms / idle),
        duration_us(idle * 1e3)
    );
    if !beyond_noise(ms, idle, summary.method.noise_threshold) {
        return;
    }
    let cores = f64::from(summary.environment.cores);
    let (used, cpu) = (median(summary, name, "cores_used"), median(summary, name, "cpu_us_per_call"));
    match (used, cpu) {
        (Some(used), Some(cpu)) if cores > 0.0 && !beyond_noise(cores, used, summary.method.noise_threshold) => {
            let _ = write!(
                out,
                " The process kept {} of the machine's {} cores busy ({} of CPU per call, the device's timer \
                 threads included): admitted calls also waited for {waited_for}.",
                fig(used),
                fig(cores),
                duration_us(cpu)
            );
        }
        (Some(used), _) if cores > 0.0 => {
            let _ = write!(
                out,
                " The process kept {} of the machine's {} cores busy over the run; the lab has not broken that \
                 extra time down.",
                fig(used),
                fig(cores)
            );
        }
        _ => out.push_str(" The lab has not broken that extra time down."),
    }
}

/// Microseconds between admissions of `stream-unbounded` on its way to its sampled peak, if it took at least a
/// millisecond to get there.
fn admission_interval_us(summary: &Summary) -> Option<f64> {
    let sampled = median(summary, STREAM_UNBOUNDED, SAMPLED)?;
    let at = median(summary, STREAM_UNBOUNDED, MS_TO_PEAK)?;
    (at >= 1.0 && sampled > 0.0).then(|| at * 1e3 / sampled)
}

fn sampled(summary: &Summary, out: &mut String) {
    let mut missed = Vec::new();
    let mut seen = 0usize;
    let mut lowest: Option<f64> = None;
    for c in &summary.contestants {
        let (Some(exact), Some(sampled)) = (median(summary, &c.name, MAX_OUT), median(summary, &c.name, SAMPLED))
        else {
            continue;
        };
        if exact <= 0.0 {
            continue;
        }
        seen += 1;
        let share = sampled / exact;
        lowest = Some(lowest.map_or(share, |l: f64| l.min(share)));
        if beyond_noise(exact, sampled, summary.method.noise_threshold) {
            missed.push(format!(
                "`{}` (the sampler saw {} of {}, {:.0}%)",
                c.name,
                count(sampled),
                count(exact),
                100.0 * share
            ));
        }
    }
    if seen == 0 {
        return;
    }
    let lowest = lowest.unwrap_or(1.0).min(1.0);
    if missed.is_empty() && lowest >= 1.0 {
        out.push_str(
            "Here the sampler saw every contestant's exact peak (medians): every peak lasted long enough to be \
             sampled.",
        );
    } else if missed.is_empty() {
        let _ = write!(
            out,
            "Here the sampler saw at least {:.0}% of every contestant's exact peak (medians): no peak was short \
             enough to be missed by much.",
            100.0 * lowest
        );
    } else {
        let _ = write!(
            out,
            "It missed part of the peak of {}: a dashboard polling this gauge would have under-reported it. For \
             the others it saw at least {:.0}% of the exact peak.",
            and_list(&missed),
            100.0 / (1.0 + summary.method.noise_threshold)
        );
    }
}

fn throughput(summary: &Summary, out: &mut String) {
    let (Some(limit), Some(service_us)) = (summary.param("limit"), summary.param("service_us")) else { return };
    let ideal = limit * 1e6 / service_us;
    let stats = bounded_stats(summary, OPS);
    if stats.is_empty() {
        return;
    }
    let slowest = stats.iter().min_by(|a, b| a.1.median.total_cmp(&b.1.median));
    let fastest = stats.iter().max_by(|a, b| a.1.median.total_cmp(&b.1.median));
    if let (Some((sn, s)), Some((fnm, f))) = (slowest, fastest) {
        let _ = write!(
            out,
            " The bounded contestants answered {} calls per second (medians; {}% of that ceiling).",
            span(count(s.median), count(f.median)),
            span(format!("{:.0}", 100.0 * s.median / ideal), format!("{:.0}", 100.0 * f.median / ideal))
        );
        // Each contestant against its own ceiling: the bound over its own uncontended call's real duration.
        let shares: Vec<f64> = stats
            .iter()
            .filter_map(|(n, s)| {
                median(summary, n, "idle_call_ms").filter(|i| *i > 0.0).map(|i| s.median * i / (limit * 1e3))
            })
            .collect();
        let idle: Vec<f64> = stats.iter().filter_map(|(n, _)| median(summary, n, "idle_call_ms")).collect();
        let (lo, hi) =
            (shares.iter().copied().fold(f64::MAX, f64::min), shares.iter().copied().fold(f64::MIN, f64::max));
        let (idle_lo, idle_hi) =
            (idle.iter().copied().fold(f64::MAX, f64::min), idle.iter().copied().fold(f64::MIN, f64::max));
        if !shares.is_empty() && idle_lo > 0.0 {
            let _ = write!(
                out,
                " An uncontended call really took {} (each contestant's median `idle_call_ms`: the device's timer \
                 precision plus one wake-up), so the bound really allows {} calls per second; against its own \
                 figure, each bounded contestant reached {}% of it.",
                duration_span(idle_lo * 1e3, idle_hi * 1e3),
                span(count(limit * 1e3 / idle_hi), count(limit * 1e3 / idle_lo)),
                span(format!("{:.0}", 100.0 * lo), format!("{:.0}", 100.0 * hi))
            );
        }
        let spread = f.median / s.median;
        let _ = write!(out, " The fastest (`{fnm}`) was {}× the slowest (`{sn}`)", fig(spread));
        match verdict(summary, STYLE_CLAIM) {
            "holds" => out.push_str(
                ": with the same bound and the same calls, the shape barely changed throughput (every bounded \
                 contestant within the claim's factor of every other).",
            ),
            "fails" => {
                let _ = write!(
                    out,
                    ", more than the {}× the claims allow for style: at this bound the shape changed throughput, \
                     which the lab has not broken down.",
                    fig(BOUNDED_SPREAD)
                );
            }
            other => {
                let _ = write!(
                    out,
                    "; whether the shape stays within {}× is not settled by this run (that claim: {other}).",
                    fig(BOUNDED_SPREAD)
                );
            }
        }
    }
}

fn cost(summary: &Summary, out: &mut String) {
    let mut parts = Vec::new();
    for family in [Family::Stream, Family::Blocking, Family::Coroutine] {
        let (cpu, threads, rss) = (
            bounded_median(summary, Some(family), "cpu_us_per_call"),
            bounded_median(summary, Some(family), "threads"),
            bounded_median(summary, Some(family), "peak_rss_mib"),
        );
        if let (Some(cpu), Some(threads), Some(rss)) = (cpu, threads, rss) {
            parts.push(format!(
                "bounded {} contestants {} µs of CPU per call, {} threads, {} MiB peak RSS",
                family.as_str(),
                fig(cpu),
                count(threads),
                fig(rss)
            ));
        }
    }
    for name in [STREAM_UNBOUNDED, BLOCKING_UNBOUNDED] {
        let (cpu, threads, rss) = (
            median(summary, name, "cpu_us_per_call"),
            median(summary, name, "threads"),
            median(summary, name, "peak_rss_mib"),
        );
        if let (Some(cpu), Some(threads), Some(rss)) = (cpu, threads, rss) {
            parts.push(format!("`{name}` {} µs, {} threads, {} MiB", fig(cpu), count(threads), fig(rss)));
        }
    }
    if parts.is_empty() {
        return;
    }
    out.push_str(&parts.join("; "));
}

/// Whether ordering cost `stream-buffered` throughput against `stream-buffer-unordered`, at the noise threshold.
fn semantics(summary: &Summary, out: &mut String) {
    let (b, u) = (median(summary, "stream-buffered", OPS), median(summary, "stream-buffer-unordered", OPS));
    if let (Some(b), Some(u)) = (b, u) {
        let ratio = b / u;
        if within_noise(b, u, summary.method.noise_threshold) {
            let _ = write!(
                out,
                "It did: `stream-buffered` answered {} calls per second, `stream-buffer-unordered` {} ({}×, within \
                 the noise threshold).",
                count(b),
                count(u),
                fig(ratio)
            );
        } else {
            let _ = write!(
                out,
                "Yet `stream-buffered` answered {} calls per second and `stream-buffer-unordered` {} ({}×, beyond \
                 the noise threshold): a gap that ordering does not explain when every call takes the same time, and that the lab has not \
                 established the cause of.",
                count(b),
                count(u),
                fig(ratio)
            );
        }
    }
}

/// What to pick, from the verdicts on the bound, on admission, on threads and on style.
fn pick(summary: &Summary, out: &mut String) {
    let bounded = bounded_stats(summary, MAX_OUT);
    let stream = median(summary, STREAM_UNBOUNDED, MAX_OUT);
    let threads = median(summary, BLOCKING_UNBOUNDED, MAX_OUT);
    let held = bound_checks(summary);
    match (held, verdict(summary, UNBOUNDED_CLAIM), stream) {
        ("holds", "holds", Some(x)) => {
            let _ = write!(
                out,
                "Choose the admission before the style. Every bounded shape here, in any family, kept its bound \
                 (every bound check passed); the task per item without one had {} calls on the device at once, at \
                 least {}× the bound (that claim holds). Cheap concurrency is what made that possible: nothing in spawning a task pushes back, \
                 so the bound has to be written down (`buffer_unordered(n)`, a semaphore, a bounded channel, a pool \
                 of n).",
                count(x),
                fig(UNBOUNDED_FACTOR)
            );
        }
        ("holds", _, _) => out.push_str(
            "Every bounded shape here, in any family, kept its bound (every bound check passed); choose any of \
             them for the bound itself.",
        ),
        ("fails", _, _) if !bounded.is_empty() => out.push_str(
            "Not every bounded shape passed its bound check in this run (see above): check the bound of the one \
             you choose, by its exact high-water mark, before relying on it.",
        ),
        (other, _, _) if !bounded.is_empty() => {
            let _ = write!(
                out,
                "Whether every bounded shape keeps its bound is not settled by this run (bound checks: {other}): \
                 check the bound of the one you choose, by its exact high-water mark, before relying on it."
            );
        }
        _ => {}
    }
    if let (Some(y), "holds", "holds") = (threads, past_bound(summary), verdict(summary, THROTTLED_CLAIM)) {
        let _ = write!(
            out,
            " A thread per item is held back only by what threads cost to create ({} outstanding here), which \
             nothing in the program sets or guarantees.",
            count(y)
        );
    }
    if verdict(summary, STYLE_CLAIM) == "holds" {
        out.push_str(
            " Among the bounded shapes throughput was alike, so choose by contract and cost: `buffered` if answers \
             must come back in order, `buffer_unordered` or a semaphore otherwise, and a thread pool where the \
             code is blocking anyway and a thread per outstanding call is affordable.",
        );
    }
}

#[cfg(test)]
mod tests {
    use super::super::claims::tests::{break_contestant, set, summary};
    use super::*;
    use measure::summary::Verdict;

    /// The discussion of `summary` with its claims judged, as the harness renders it.
    fn judged(summary: &Summary) -> String {
        let mut summary = summary.clone();
        summary.claims = measure::judge::judge_all(&summary, &super::super::claims::table(&summary));
        discussion(&summary)
    }

    #[test]
    fn the_headline_note_gives_both_unbounded_peaks() {
        assert_eq!(
            headline_notes(&summary()),
            vec!["Without admission control, `stream-unbounded` reached 90,000 calls outstanding (5,625× the bound); \
                 `blocking-unbounded` reached 60 calls outstanding (3.75× the bound)."
                .to_string()]
        );
    }

    #[test]
    fn a_clean_run_tells_what_held_and_what_piled_up() {
        let text = judged(&summary());
        assert!(
            text.contains("All 9 bounded contestants, in every family, stayed within the bound of 16 (+ 1 tolerated)"),
            "{text}"
        );
        assert!(text.contains("exactly 16 calls outstanding"), "{text}");
        assert!(text.contains("It reached 90,000 calls outstanding"), "{text}");
        assert!(text.contains("5,625× the bound"), "{text}");
        assert!(text.contains("(median; the same in every iteration)"), "{text}");
        assert!(text.contains("peak 25 ms into the run"), "{text}");
        assert!(text.contains("unbounded virtual-thread version reached 1,143× its bound"), "{text}");
        assert!(text.contains("16–17"), "{text}");
        assert!(text.contains("Choose the admission before the style"), "{text}");
        // 30,000 outstanding at 150,000/s: 200 ms in the system, on 1.9 of 2 cores.
        assert!(text.contains("a call spent about 200 ms from admission to answer, 189× an uncontended"), "{text}");
        assert!(text.contains("kept 1.9 of the machine's 2 cores busy"), "{text}");
        // 25 outstanding at 20,000/s: 1.25 ms, within 1.5× of 1.06 ms, so no waiting is claimed.
        assert!(text.contains("a call spent about 1.25 ms from admission to answer, 1.18×"), "{text}");
        assert!(text.contains("The count swung widely: 60 at its peak, 25 on average"), "{text}");
        assert!(text.contains("It did: `stream-buffered` answered 15,000"), "{text}");
        assert!(!text.contains("without full results"), "{text}");
        assert!(!text.contains("NaN") && !text.contains('∞'), "{text}");
    }

    #[test]
    fn every_contestant_that_did_not_run_cleanly_is_named_with_its_reason() {
        let mut s = summary();
        break_contestant(&mut s, "blocking-threads", Status::Skipped, "the OS allows 10 threads");
        break_contestant(&mut s, "stream-tasks", Status::Failed, "bounded_outstanding failed");
        break_contestant(&mut s, BLOCKING_UNBOUNDED, Status::Timeout, "killed after 300 s");
        set(&mut s, "stream-flume-workers", "cut_short", 0.0, 1.0);
        let text = judged(&s);
        assert!(text.contains("`blocking-threads` was skipped: the OS allows 10 threads"), "{text}");
        assert!(text.contains("`stream-tasks` failed: bounded_outstanding failed"), "{text}");
        assert!(text.contains("`blocking-unbounded` timed out: killed after 300 s"), "{text}");
        assert!(text.contains("`stream-flume-workers` was cut short"), "{text}");
        assert!(text.contains("7 of the 9 bounded contestants ran cleanly"), "{text}");
        assert!(!text.contains("A thread per item, no admission"), "{text}");
    }

    #[test]
    fn a_broken_bound_is_not_called_kept() {
        let mut s = summary();
        set(&mut s, "blocking-flume-workers", MAX_OUT, 16.0, 30.0);
        if let Some(c) = s.contestants.iter_mut().find(|c| c.name == "blocking-flume-workers") {
            c.checks.retain(|k| k.name != "bounded_outstanding");
            c.checks.push(measure::summary::Check::new("bounded_outstanding", false, "30 outstanding, bound 16 + 1"));
        }
        let text = judged(&s);
        assert!(text.contains("The bound did not hold everywhere: `blocking-flume-workers` (16–30)"), "{text}");
        assert!(!text.contains("stayed within the bound"), "{text}");
        assert!(!text.contains("Choose the admission before the style"), "{text}");
        assert!(text.contains("Not every bounded shape passed its bound check"), "{text}");
    }

    #[test]
    fn durations_and_families_read_naturally() {
        assert_eq!(duration_span(1_020.0, 1_060.0), "1.02–1.06 ms");
        assert_eq!(duration_span(250.0, 1_060.0), "250 µs–1.06 ms");
        assert_eq!(duration_span(1_000.0, 1_000.0), "1 ms");
        let mut s = summary();
        for name in ["blocking-threads", "blocking-crossbeam-workers", "blocking-flume-workers", "blocking-std-workers"]
        {
            break_contestant(&mut s, name, Status::Skipped, "no threads");
        }
        let text = judged(&s);
        assert!(
            text.contains(
                "5 of the 9 bounded contestants ran cleanly; those, in the stream and coroutine families, stayed"
            ),
            "{text}"
        );
    }

    #[test]
    fn the_plus_one_is_named_when_used() {
        let mut s = summary();
        set(&mut s, "stream-buffered", MAX_OUT, 16.0, 17.0);
        let text = judged(&s);
        assert!(text.contains("`stream-buffered` reached the bound + 1"), "{text}");
        assert!(text.contains("16–17 calls outstanding"), "{text}");
    }

    #[test]
    fn a_missed_peak_is_reported_and_an_unmissed_one_is_not() {
        let text = judged(&summary());
        assert!(
            text.contains("It missed part of the peak of `stream-unbounded` (the sampler saw 60,000 of 90,000, 67%)")
        );
        assert!(!text.contains("`blocking-threads` (the sampler saw"), "{text}");
        let mut s = summary();
        set(&mut s, STREAM_UNBOUNDED, SAMPLED, 89_000.0, 89_000.0);
        set(&mut s, BLOCKING_UNBOUNDED, SAMPLED, 60.0, 60.0);
        let text = judged(&s);
        assert!(text.contains("the sampler saw at least 99% of every contestant's exact peak"), "{text}");
        set(&mut s, STREAM_UNBOUNDED, SAMPLED, 90_000.0, 90_000.0);
        set(&mut s, BLOCKING_UNBOUNDED, SAMPLED, 60.0, 60.0);
        let text = judged(&s);
        assert!(text.contains("the sampler saw every contestant's exact peak"), "{text}");
    }

    #[test]
    fn memory_per_task_is_bracketed_when_not_every_item_was_outstanding() {
        let text = judged(&summary());
        assert!(text.contains("That is about 629 bytes per outstanding call."), "{text}");
        let mut s = summary();
        set(&mut s, STREAM_UNBOUNDED, MAX_OUT, 20_000.0, 20_000.0);
        let text = judged(&s);
        assert!(text.contains("566 bytes per spawned task if all 100,000 were still held"), "{text}");
        assert!(text.contains("2,831 per outstanding call if only those 20,000 were"), "{text}");
        assert!(!text.contains("until it runs out of items"), "{text}");
    }

    #[test]
    fn a_loose_unbounded_figure_is_called_loose() {
        assert!(!judged(&summary()).contains("figure is loose"));
        let mut s = summary();
        set(&mut s, STREAM_UNBOUNDED, MAX_OUT, 6_000.0, 21_000.0);
        let text = judged(&s);
        assert!(text.contains("ranged from 6,000 to 21,000 calls outstanding (3.5× apart"), "{text}");
        assert!(text.contains("from one study to the other. Its own iterations"), "{text}");
    }

    #[test]
    fn uneven_bounded_throughput_is_not_called_alike() {
        let mut s = summary();
        set(&mut s, "blocking-std-workers", OPS, 9_000.0, 9_000.0);
        let text = judged(&s);
        assert!(text.contains("the shape changed throughput"), "{text}");
        assert!(!text.contains("throughput was alike"), "{text}");
        assert!(!text.contains("barely changed throughput"), "{text}");
        set(&mut s, "stream-buffer-unordered", OPS, 12_000.0, 12_000.0);
        let text = judged(&s);
        assert!(text.contains("Yet `stream-buffered` answered 15,000 calls per second"), "{text}");
        assert!(!text.contains("It did:"), "{text}");
    }

    #[test]
    fn an_unbounded_stream_no_faster_is_not_called_faster() {
        let mut s = summary();
        set(&mut s, STREAM_UNBOUNDED, OPS, 15_000.0, 15_000.0);
        let text = judged(&s);
        assert!(!text.contains("It also finished sooner"), "{text}");
        assert!(text.contains("bought no throughput"), "{text}");
    }

    #[test]
    fn an_empty_summary_says_little_and_does_not_panic() {
        let mut s = summary();
        s.contestants.clear();
        let text = judged(&s);
        assert!(text.contains("No bounded contestant ran cleanly"), "{text}");
        s.params.clear();
        assert!(judged(&s).is_empty() || !judged(&s).contains("NaN"));
    }

    #[test]
    fn a_finding_is_absent_when_its_claim_is_inconclusive() {
        let mut s = summary();
        s.claims = measure::judge::judge_all(&s, &super::super::claims::table(&s));
        assert!(discussion(&s).contains("throughput was alike"));
        for claim in &mut s.claims {
            claim.verdict = Verdict::Inconclusive;
        }
        let text = discussion(&s);
        assert!(!text.contains("Choose the admission before the style"), "{text}");
        assert!(!text.contains("kept its bound (that claim holds)"), "{text}");
        assert!(!text.contains("throughput was alike"), "{text}");
        assert!(!text.contains("barely changed throughput"), "{text}");
        assert!(!text.contains("the shape changed throughput"), "{text}");
        assert!(!text.contains("held back only by what threads cost"), "{text}");
        // The bound is a conformance check, not a claim: it is reported as checked whatever the verdicts.
        assert!(text.contains("kept its bound (every bound check passed)"), "{text}");
        assert!(text.contains("is not settled by this run (that claim: inconclusive)"), "{text}");
    }
}
