//! The device scenario's falsifiable claims, fixed before any measurement and never tuned to pass.
//!
//! A full run measures one timed iteration in each of three processes per contestant and level (throughput,
//! CPU), and one accounting iteration after it (memory per waiting call), so every claim is judged on the range
//! of those three samples ([`measure::compare::verdict_range_at_least`]): it holds when
//! every pairing of samples satisfies it, fails when none does, and is inconclusive in between. A claim whose
//! contestant did not run cleanly at the level it needs is inconclusive and says why.

use measure::compare::{format_ratio, verdict_range_at_least};
use measure::summary::{ClaimResult, Family, MetricStats, Summary, Verdict};

use super::{CONTESTANTS, HEADLINE};
use crate::contestants::{Contestant, StreamShape, Timer};

/// The best throughput the published JVM study reached at 100,000 in flight (4 cores).
pub(crate) const JVM_BEST_AT_100K: f64 = 451_544.0;
/// What the published JVM study's virtual threads reached at 10,000 in flight on their own timer.
pub(crate) const JVM_OWN_TIMER_AT_10K: f64 = 828_816.0;
/// Throughput ratio the budget trap must cost to count as a collapse.
pub(crate) const TRAP_FACTOR: f64 = 10.0;
/// Share of the ideal every device-timer contestant must reach at the lowest level.
pub(crate) const FEW_FRACTION: f64 = 0.9;
/// Most an uncontended device call may overshoot its service time, in milliseconds.
pub(crate) const PRECISION_MS: f64 = 0.5;

/// Every claim, judged against `summary`.
pub(crate) fn claims(summary: &Summary) -> Vec<ClaimResult> {
    vec![
        budget_trap(summary),
        device_precise(summary),
        equal_when_few(summary),
        streams_ahead(summary),
        thread_memory(summary),
        beats_jvm(summary),
    ]
}

/// The in-flight level of a phase name such as `in_flight_10000`.
pub(crate) fn level(phase: &str) -> Option<u64> {
    phase.strip_prefix("in_flight_")?.parse().ok()
}

/// The run's levels with their phase names, lowest first.
pub(crate) fn levels(summary: &Summary) -> Vec<(u64, &str)> {
    let mut levels: Vec<(u64, &str)> =
        summary.phases.iter().filter_map(|p| level(p).map(|l| (l, p.as_str()))).collect();
    levels.sort_unstable();
    levels
}

/// `phase.metric`.
pub(crate) fn key(phase: &str, metric: &str) -> String {
    format!("{phase}.{metric}")
}

/// The contestant named like `c` in this scenario.
fn name(c: &Contestant) -> String {
    c.name()
}

/// The contestants of `family` that ran cleanly at `phase`, with their `metric` there.
pub(crate) fn ran<'s>(
    summary: &'s Summary,
    family: Family,
    phase: &str,
    metric: &str,
) -> Vec<(String, &'s MetricStats)> {
    CONTESTANTS
        .iter()
        .filter(|c| c.family() == family)
        .filter_map(|c| summary.metric(&c.name(), &key(phase, metric)).map(|s| (c.name(), s)))
        .collect()
}

/// The contestant of `family` waiting on `timer` with the highest median throughput at `phase`.
pub(crate) fn best<'s>(
    summary: &'s Summary,
    family: Family,
    timer: Timer,
    phase: &str,
) -> Option<(String, &'s MetricStats)> {
    CONTESTANTS
        .iter()
        .filter(|c| c.family() == family && c.timer() == timer)
        .filter_map(|c| summary.metric(&c.name(), &key(phase, HEADLINE)).map(|s| (c.name(), s)))
        .max_by(|a, b| a.1.median.total_cmp(&b.1.median))
}

fn budget_trap(summary: &Summary) -> ClaimResult {
    let text = "At the highest level, `buffer_unordered` run as it comes (tokio's cooperative budget applies) \
                reaches at most a tenth of the calls per second it reaches inside `tokio::task::coop::unconstrained`, \
                on the shared device and on its own timer";
    let Some(&(top, phase)) = levels(summary).last() else {
        return ClaimResult::new(text, Verdict::Inconclusive, "the run has no in-flight level");
    };
    let mut parts = Vec::new();
    for timer in [Timer::Device, Timer::Own] {
        let shape = StreamShape::BufferUnordered;
        let budgeted = name(&Contestant::Stream { shape, free: false, timer });
        let free = name(&Contestant::Stream { shape, free: true, timer });
        let metric = key(phase, HEADLINE);
        parts.push(match (summary.stats(&free, &metric), summary.stats(&budgeted, &metric)) {
            (Ok(f), Ok(b)) => {
                let (verdict, detail) = verdict_range_at_least(f, b, TRAP_FACTOR);
                (verdict, format!("at {top} in flight, `{free}` ÷ `{budgeted}`: {detail}"))
            }
            (Err(e), _) | (_, Err(e)) => (Verdict::Inconclusive, e),
        });
    }
    ClaimResult::all_of(text, parts)
}

fn device_precise(summary: &Summary) -> ClaimResult {
    let text = "The shared device is precise: an uncontended call returns within 0.5 ms of its service time, \
                awaited or blocked on";
    let Some(service) = summary.param("service_ms") else {
        return ClaimResult::new(text, Verdict::Inconclusive, "the run has no service_ms");
    };
    let mut parts = Vec::new();
    for c in CONTESTANTS.iter().filter(|c| c.timer() == Timer::Device) {
        let samples: Vec<&MetricStats> = levels(summary)
            .iter()
            .filter_map(|(_, phase)| summary.metric(&c.name(), &key(phase, "idle_call_ms")))
            .collect();
        if samples.is_empty() {
            continue;
        }
        let worst = samples.iter().map(|s| s.max).fold(f64::NEG_INFINITY, f64::max) - service;
        let best = samples.iter().map(|s| s.min).fold(f64::INFINITY, f64::min) - service;
        let verdict = if worst <= PRECISION_MS {
            Verdict::Holds
        } else if best > PRECISION_MS {
            Verdict::Fails
        } else {
            Verdict::Inconclusive
        };
        parts.push((verdict, format!("`{}` overshoots by {:.3}–{:.3} ms", c.name(), best.max(0.0), worst.max(0.0))));
    }
    if parts.is_empty() {
        return ClaimResult::new(text, Verdict::Inconclusive, "no device contestant ran cleanly");
    }
    ClaimResult::all_of(text, parts)
}

fn equal_when_few(summary: &Summary) -> ClaimResult {
    let text = "At the lowest level every contestant on the shared device reaches at least 90% of the ideal, \
                whatever its style";
    let Some(&(low, phase)) = levels(summary).first() else {
        return ClaimResult::new(text, Verdict::Inconclusive, "the run has no in-flight level");
    };
    let parts: Vec<(Verdict, String)> = CONTESTANTS
        .iter()
        .filter(|c| c.timer() == Timer::Device)
        .map(|c| match summary.stats(&c.name(), &key(phase, "ideal_fraction")) {
            Ok(s) => {
                let verdict = if s.min >= FEW_FRACTION {
                    Verdict::Holds
                } else if s.max < FEW_FRACTION {
                    Verdict::Fails
                } else {
                    Verdict::Inconclusive
                };
                (verdict, format!("`{}` {:.3}–{:.3} at {low}", c.name(), s.min, s.max))
            }
            Err(e) => (Verdict::Inconclusive, e),
        })
        .collect();
    ClaimResult::all_of(text, parts)
}

fn streams_ahead(summary: &Summary) -> ClaimResult {
    let text = "At 10,000 in flight on the shared device, the best stream contestant sustains at least twice the \
                calls per second of the best blocking contestant";
    let phase = "in_flight_10000";
    match (best(summary, Family::Stream, Timer::Device, phase), best(summary, Family::Blocking, Timer::Device, phase)) {
        (Some((s_name, s)), Some((b_name, b))) => {
            let (verdict, detail) = verdict_range_at_least(s, b, 2.0);
            ClaimResult::new(text, verdict, format!("`{s_name}` ÷ `{b_name}`: {detail}"))
        }
        _ => ClaimResult::new(text, Verdict::Inconclusive, "no stream or no blocking contestant ran at 10,000"),
    }
}

fn thread_memory(summary: &Summary) -> ClaimResult {
    let text = "A call waiting on a parked thread costs at least ten times the resident memory of a call waiting \
                as a task or future (at the highest level the thread pool reached)";
    let pool = "blocking-threads";
    let Some(&(top, phase)) = levels(summary)
        .iter()
        .rev()
        .find(|(_, phase)| summary.metric(pool, &key(phase, "rss_bytes_per_call")).is_some())
    else {
        return ClaimResult::new(
            text,
            Verdict::Inconclusive,
            format!("`{pool}` has no rss_bytes_per_call at any level"),
        );
    };
    let stream = ran(summary, Family::Stream, phase, "rss_bytes_per_call");
    let Some((worst_name, worst)) = stream.into_iter().max_by(|a, b| a.1.median.total_cmp(&b.1.median)) else {
        return ClaimResult::new(text, Verdict::Inconclusive, format!("no stream contestant measured memory at {top}"));
    };
    let Some(threads) = summary.metric(pool, &key(phase, "rss_bytes_per_call")) else {
        return ClaimResult::new(text, Verdict::Inconclusive, format!("`{pool}` has no rss_bytes_per_call"));
    };
    let (verdict, detail) = verdict_range_at_least(threads, worst, 10.0);
    ClaimResult::new(
        text,
        verdict,
        format!(
            "at {top} in flight: `{pool}` {:.0} B per waiting call against {:.0} B for `{worst_name}`, the costliest \
             stream contestant; {detail}",
            threads.median, worst.median
        ),
    )
}

fn beats_jvm(summary: &Summary) -> ClaimResult {
    let text = "At 100,000 in flight on the shared device, the best stream contestant beats the published JVM \
                study's best (451,544 calls per second on 4 cores) on this machine";
    let phase = "in_flight_100000";
    let Some((name, s)) = best(summary, Family::Stream, Timer::Device, phase) else {
        return ClaimResult::new(text, Verdict::Inconclusive, "no stream contestant ran at 100,000");
    };
    let verdict = if s.min >= JVM_BEST_AT_100K {
        Verdict::Holds
    } else if s.max < JVM_BEST_AT_100K {
        Verdict::Fails
    } else {
        Verdict::Inconclusive
    };
    ClaimResult::new(
        text,
        verdict,
        format!(
            "`{name}` {:.0} calls/s ({:.0}–{:.0}), {}× the JVM's best",
            s.median,
            s.min,
            s.max,
            format_ratio(s.median / JVM_BEST_AT_100K)
        ),
    )
}

#[cfg(test)]
pub(crate) mod tests {
    use std::collections::BTreeMap;

    use measure::record::Status;
    use measure::summary::{ContestantSummary, Environment, Method};

    use super::*;

    pub(crate) const LEVELS: [u64; 3] = [1_000, 10_000, 100_000];

    fn stats_of(median: f64) -> MetricStats {
        let d = median * 0.02;
        MetricStats { median, min: median - d, max: median + d, ci999: d, n: 6, mean: median, fork_medians: vec![] }
    }

    /// A summary where every contestant reaches `fraction(name, level)` of the ideal at each level, blocking
    /// contestants are skipped at 100,000, and the other metrics are plausible.
    pub(crate) fn summary_with(fraction: impl Fn(&str, u64) -> f64) -> Summary {
        let contestants = CONTESTANTS
            .iter()
            .map(|c| {
                let info = c.info();
                let mut metrics = BTreeMap::new();
                let mut skipped_phases = BTreeMap::new();
                for level in LEVELS {
                    let phase = format!("in_flight_{level}");
                    if c.family() == Family::Blocking && level == 100_000 {
                        skipped_phases.insert(phase, "100,000 threads do not fit: vm.max_map_count".to_string());
                        continue;
                    }
                    let ideal = level as f64 * 100.0;
                    let f = fraction(&info.name, level);
                    metrics.insert(key(&phase, "ops_per_sec"), stats_of(ideal * f));
                    metrics.insert(key(&phase, "ideal_fraction"), stats_of(f));
                    metrics.insert(key(&phase, "cpu_us_per_call"), stats_of(2.0));
                    metrics.insert(key(&phase, "dependency_cpu_us_per_call"), stats_of(0.5));
                    metrics.insert(key(&phase, "cores_used"), stats_of(1.4));
                    metrics.insert(key(&phase, "ops_per_sec_whole_run"), stats_of(ideal * f * 0.8));
                    metrics.insert(key(&phase, "cpu_us_per_call_whole_run"), stats_of(2.5));
                    let idle = if c.timer() == Timer::Own && c.family() == Family::Stream { 11.1 } else { 10.1 };
                    metrics.insert(key(&phase, "idle_call_ms"), stats_of(idle));
                    metrics.insert(key(&phase, "cut_short"), stats_of(if f < 0.05 { 1.0 } else { 0.0 }));
                    metrics.insert(key(&phase, "completed_fraction"), stats_of(if f < 0.05 { 0.1 } else { 1.0 }));
                    let (heap, rss) = if c.family() == Family::Blocking { (400.0, 10_000.0) } else { (300.0, 280.0) };
                    metrics.insert(key(&phase, "live_heap_bytes_per_call"), stats_of(heap));
                    metrics.insert(key(&phase, "rss_bytes_per_call"), stats_of(rss));
                    if c.family() == Family::Blocking {
                        metrics.insert(key(&phase, "spawn_ms"), stats_of(level as f64 / 30.0));
                    }
                }
                ContestantSummary {
                    name: info.name,
                    family: info.family,
                    description: info.description,
                    status: Status::Ok,
                    reason: None,
                    checks: vec![],
                    metrics,
                    skipped_phases,
                }
            })
            .collect();
        Summary {
            scenario: "device".into(),
            lab_version: "test".into(),
            git_rev: "unknown".into(),
            git_dirty: false,
            started_utc: String::new(),
            finished_utc: String::new(),
            environment: Environment { cores: 2, ..Environment::default() },
            method: Method {
                quick: false,
                forks: 3,
                warmup: 0,
                iterations: 1,
                accounting: 1,
                noise_threshold: 0.2,
                seed: 0,
                trial_timeout_s: 300.0,
            },
            params: BTreeMap::from([
                ("in_flight".to_string(), serde_json::json!(LEVELS)),
                ("service_ms".to_string(), serde_json::json!(10)),
                ("rounds".to_string(), serde_json::json!(10)),
                ("budget_ms".to_string(), serde_json::json!(4000)),
            ]),
            contestants,
            claims: vec![],
            command: String::new(),
            raw_file: String::new(),
            phases: LEVELS.iter().map(|l| format!("in_flight_{l}")).collect(),
        }
    }

    /// The trap as measured: budgeted unordered shapes collapse at 100,000; blocking tops out at 6%.
    pub(crate) fn trapped(name: &str, level: u64) -> f64 {
        let budgeted = name.starts_with("stream-buffer") && !name.ends_with("unconstrained");
        if level == 100_000 && name == "stream-buffer-unordered-unconstrained" {
            return 0.12;
        }
        match (level, budgeted, name.starts_with("blocking")) {
            (100_000, true, _) => 0.002,
            (10_000, _, true) => 0.06,
            (1_000, _, true) => 0.55,
            (1_000, _, _) => 0.95,
            (10_000, _, _) => 0.5,
            _ => 0.1,
        }
    }

    fn verdict(summary: &Summary, starts: &str) -> Verdict {
        claims(summary).into_iter().find(|c| c.text.starts_with(starts)).map(|c| c.verdict).expect("claim present")
    }

    #[test]
    fn the_trap_claim_holds_on_a_collapse_and_fails_without_one() {
        assert_eq!(verdict(&summary_with(trapped), "At the highest level"), Verdict::Holds);
        assert_eq!(verdict(&summary_with(|_, _| 0.5), "At the highest level"), Verdict::Fails);
    }

    #[test]
    fn the_low_level_claim_fails_when_threads_lag_and_holds_when_all_keep_up() {
        assert_eq!(verdict(&summary_with(trapped), "At the lowest level"), Verdict::Fails);
        assert_eq!(verdict(&summary_with(|_, _| 0.95), "At the lowest level"), Verdict::Holds);
    }

    #[test]
    fn streams_ahead_and_jvm_claims_follow_the_numbers() {
        let summary = summary_with(trapped);
        assert_eq!(verdict(&summary, "At 10,000 in flight"), Verdict::Holds);
        // 0.1 of 10,000,000 is 1,000,000 calls/s: above the JVM's 451,544.
        assert_eq!(verdict(&summary, "At 100,000 in flight"), Verdict::Holds);
        let slow = summary_with(|_, level| if level == 100_000 { 0.01 } else { 0.5 });
        assert_eq!(verdict(&slow, "At 100,000 in flight"), Verdict::Fails);
        assert_eq!(verdict(&slow, "At 10,000 in flight"), Verdict::Fails);
    }

    #[test]
    fn precision_and_memory_claims_read_the_idle_call_and_resident_memory() {
        let summary = summary_with(trapped);
        assert_eq!(verdict(&summary, "The shared device is precise"), Verdict::Holds);
        assert_eq!(verdict(&summary, "A call waiting on a parked thread"), Verdict::Holds);
    }

    #[test]
    fn a_skipped_level_is_found_by_levels_and_left_out_of_best() {
        let summary = summary_with(trapped);
        assert_eq!(levels(&summary).iter().map(|(l, _)| *l).collect::<Vec<_>>(), LEVELS.to_vec());
        assert!(best(&summary, Family::Blocking, Timer::Device, "in_flight_100000").is_none());
        assert!(best(&summary, Family::Stream, Timer::Device, "in_flight_100000").is_some());
    }
}
