//! The device scenario's claims, as a table the harness judges ([`measure::judge`]), fixed before any
//! measurement and never tuned to pass.
//!
//! A full run measures two iterations in each of three processes per contestant and level, so every claim is
//! judged on the range of those six samples: it holds when every pairing of samples satisfies it, fails when
//! none does, and is inconclusive in between. Each claim names the window its metric covers: the steady
//! window (first round answered to last round issued) or the whole timed run, start and drain included.

use measure::compare::{Basis, Relation};
use measure::judge::{ClaimSpec, Comparison, Phase, Side, Who};
use measure::references;
use measure::summary::{Family, MetricStats, Summary};

use super::{CONTESTANTS, HEADLINE};
use crate::contestants::{Contestant, StreamShape, Timer};

/// Throughput ratio the budget trap must cost to count as a collapse.
pub(crate) const TRAP_FACTOR: f64 = 10.0;
/// Share of the ideal every device-timer contestant must reach at the lowest level.
pub(crate) const FEW_FRACTION: f64 = 0.9;
/// Most an uncontended device call may overshoot its service time, in milliseconds.
pub(crate) const PRECISION_MS: f64 = 0.5;
/// How many times the best blocking contestant's throughput the best stream contestant must reach at 10,000.
pub(crate) const STREAMS_AHEAD: f64 = 2.0;
/// How many times the best OS-thread contestant's throughput the best coroutine contestant must reach at 10,000.
pub(crate) const COROUTINES_OVER_THREADS: f64 = 5.0;
/// Share of the best stream contestant's throughput the best coroutine contestant must reach at 100,000.
pub(crate) const COROUTINES_OF_STREAMS: f64 = 0.5;
/// How many times a stream's resident memory per waiting call a parked thread's must be.
pub(crate) const THREAD_MEMORY: f64 = 10.0;
/// The published study's best model at 100,000 in flight, in `measure/references.json`.
pub(crate) const STUDY_BEST: &str = "the best model at 100,000 in flight";

/// Steady-window throughput.
const STEADY_OPS: &str = "calls answered per second over the steady window (first round answered to last round \
                          issued)";
/// Whole-run throughput.
const WHOLE_OPS: &str = "calls answered per second over the whole timed run, start and drain included";

/// Every claim of the device scenario, as data.
pub(crate) fn table(summary: &Summary) -> Vec<ClaimSpec> {
    let levels = levels(summary);
    let lowest = levels.first().map(|(_, p)| p.to_string());
    let highest = levels.last().map(|(_, p)| p.to_string());
    let no_level = || levels.is_empty().then(|| "the run has no in-flight level".to_string());
    let on_device = |family: Family| -> Vec<String> {
        CONTESTANTS.iter().filter(|c| c.family() == family && c.timer() == Timer::Device).map(name).collect()
    };
    let device_contestants: Vec<&Contestant> = CONTESTANTS.iter().filter(|c| c.timer() == Timer::Device).collect();
    let phase = |p: &Option<String>| Phase::Named(p.clone().unwrap_or_default());

    let trap = [Timer::Device, Timer::Own].map(|timer| {
        let shape = StreamShape::BufferUnordered;
        Comparison {
            a: Side::contestant(name(&Contestant::Stream { shape, free: true, timer }), phase(&highest)),
            b: Side::contestant(name(&Contestant::Stream { shape, free: false, timer }), phase(&highest)),
        }
    });
    let service = summary.param("service_ms");
    let precise = device_contestants
        .iter()
        .flat_map(|c| levels.iter().map(move |(_, p)| (c, p)))
        .filter_map(|(c, p)| {
            let limit = service? + PRECISION_MS;
            Some(Comparison {
                a: Side::contestant(name(c), Phase::Named(p.to_string())),
                b: Side::value(limit, "service time + 0.5 ms"),
            })
        })
        .collect();
    let few = |window_metric: bool| -> Vec<Comparison> {
        let ideal = levels.first().and_then(|(level, _)| ideal(summary, *level));
        device_contestants
            .iter()
            .filter_map(|c| {
                let b = if window_metric { Side::value(1.0, "the ideal") } else { Side::value(ideal?, "the ideal") };
                Some(Comparison { a: Side::contestant(name(c), phase(&lowest)), b })
            })
            .collect()
    };
    let at_10k = Phase::Named("in_flight_10000".to_string());
    let at_100k = Phase::Named("in_flight_100000".to_string());
    let study = references::figure("device", STUDY_BEST);
    let top_ideal = levels.last().and_then(|(level, _)| ideal(summary, *level));
    let study_share = study.and_then(|f| f.study_ratio());
    let cores = summary.environment.cores;
    vec![
        ClaimSpec::new(
            "At the highest level, `buffer_unordered` run as it comes (tokio's cooperative budget applies) reaches \
             at most a tenth of the calls per second it reaches inside `tokio::task::coop::unconstrained`, on the \
             shared device and on its own timer (steady window)",
            HEADLINE,
            STEADY_OPS,
            (Relation::AtLeast, TRAP_FACTOR),
            Basis::Ranges,
            trap.to_vec(),
        )
        .undecidable_if(no_level()),
        ClaimSpec::new(
            "The shared device is precise: an uncontended call returns within 0.5 ms of its service time, awaited \
             or blocked on, at every level",
            "idle_call_ms",
            "median real duration of an uncontended call made the contestant's way, in milliseconds",
            (Relation::AtMost, 1.0),
            Basis::Ranges,
            precise,
        )
        .undecidable_if(service.is_none().then(|| "the run has no service_ms".to_string())),
        ClaimSpec::new(
            format!(
                "At the lowest level every contestant on the shared device reaches at least {FEW_FRACTION} of the \
                 ideal over the steady window, whatever its style"
            ),
            "ideal_fraction",
            "steady-window calls per second over the ideal (in-flight ÷ service time)",
            (Relation::AtLeast, FEW_FRACTION),
            Basis::Ranges,
            few(true),
        )
        .undecidable_if(no_level()),
        ClaimSpec::new(
            format!(
                "At the lowest level every contestant on the shared device reaches at least {FEW_FRACTION} of the \
                 ideal over the whole run (start and drain included), whatever its style"
            ),
            "ops_per_sec_whole_run",
            WHOLE_OPS,
            (Relation::AtLeast, FEW_FRACTION),
            Basis::Ranges,
            few(false),
        )
        .undecidable_if(no_level()),
        ClaimSpec::new(
            format!(
                "At 10,000 in flight on the shared device, the best stream contestant sustains at least \
                 {STREAMS_AHEAD}× the calls per second of the best blocking contestant (steady window)"
            ),
            HEADLINE,
            STEADY_OPS,
            (Relation::AtLeast, STREAMS_AHEAD),
            Basis::Ranges,
            vec![Comparison {
                a: Side { who: Who::Highest(on_device(Family::Stream)), phase: at_10k.clone() },
                b: Side { who: Who::Highest(on_device(Family::Blocking)), phase: at_10k.clone() },
            }],
        ),
        ClaimSpec::new(
            format!(
                "At 10,000 in flight on the shared device, the best coroutine contestant (blocking-style code on \
                 `may`) sustains at least {COROUTINES_OVER_THREADS}× the calls per second of the best OS-thread \
                 contestant (steady window)"
            ),
            HEADLINE,
            STEADY_OPS,
            (Relation::AtLeast, COROUTINES_OVER_THREADS),
            Basis::Ranges,
            vec![Comparison {
                a: Side { who: Who::Highest(on_device(Family::Coroutine)), phase: at_10k.clone() },
                b: Side { who: Who::Highest(on_device(Family::Blocking)), phase: at_10k.clone() },
            }],
        ),
        ClaimSpec::new(
            format!(
                "At 100,000 in flight on the shared device, where OS threads cannot run, the best coroutine \
                 contestant reaches at least {COROUTINES_OF_STREAMS} of the best stream contestant's calls per \
                 second (steady window)"
            ),
            HEADLINE,
            STEADY_OPS,
            (Relation::AtLeast, COROUTINES_OF_STREAMS),
            Basis::Ranges,
            vec![Comparison {
                a: Side { who: Who::Highest(on_device(Family::Coroutine)), phase: at_100k.clone() },
                b: Side { who: Who::Highest(on_device(Family::Stream)), phase: at_100k },
            }],
        ),
        ClaimSpec::new(
            format!(
                "A call waiting on a parked thread costs at least {THREAD_MEMORY}× the resident memory of a call \
                 waiting as a task or future (at the highest level the thread pool reached, against the costliest \
                 stream contestant)"
            ),
            "rss_bytes_per_call",
            "growth of resident memory per waiting call, read when the outstanding calls first reach the level",
            (Relation::AtLeast, THREAD_MEMORY),
            Basis::Ranges,
            vec![Comparison {
                a: Side::contestant("blocking-threads", Phase::LastMeasuredBy("blocking-threads".to_string())),
                b: Side {
                    who: Who::Highest(CONTESTANTS.iter().filter(|c| c.family() == Family::Stream).map(name).collect()),
                    phase: Phase::LastMeasuredBy("blocking-threads".to_string()),
                },
            }],
        ),
        ClaimSpec::new(
            format!(
                "At the highest level on the shared device, over the whole run, the best stream contestant reaches at \
                 least the share of its ideal that the published JVM study's best model reached of its own ({} of \
                 the ideal there, on {}; {cores} cores here)",
                study_share.map_or_else(|| "n/a".to_string(), |r| format!("{:.3}", r)),
                study.map_or("unrecorded hardware", |f| f.hardware.as_str())
            ),
            "ops_per_sec_whole_run",
            WHOLE_OPS,
            (Relation::AtLeast, study_share.unwrap_or(f64::NAN)),
            Basis::Ranges,
            top_ideal
                .map(|ideal| Comparison {
                    a: Side { who: Who::Highest(on_device(Family::Stream)), phase: phase(&highest) },
                    b: Side::value(ideal, "the ideal"),
                })
                .into_iter()
                .collect(),
        )
        .undecidable_if(study_share.is_none().then(|| format!("measure/references.json has no `{STUDY_BEST}`"))),
    ]
}

/// The ideal calls per second at `level` in flight: `level / service time`.
pub(crate) fn ideal(summary: &Summary, level: u64) -> Option<f64> {
    Some(level as f64 * 1e3 / summary.param("service_ms")?)
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

#[cfg(test)]
pub(crate) mod tests {
    use std::collections::BTreeMap;

    use measure::record::Status;
    use measure::summary::{ContestantSummary, Environment, Method, Verdict};

    use super::*;

    pub(crate) const LEVELS: [u64; 3] = [1_000, 10_000, 100_000];

    fn stats_of(median: f64) -> MetricStats {
        let d = median * 0.02;
        measure::stats::summarize(&[vec![median - d], vec![median], vec![median + d]]).expect("samples")
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
                    role: Default::default(),
                    description: info.description,
                    status: Status::Ok,
                    reason: None,
                    checks: vec![],
                    metrics,
                    skipped_phases,
                    disturbed: Default::default(),
                }
            })
            .collect();
        Summary {
            scenario: "device".into(),
            lab_version: "test".into(),
            git_rev: "unknown".into(),
            git_dirty: false,
            render_git_rev: "unknown".into(),
            render_git_dirty: false,
            started_utc: String::new(),
            finished_utc: String::new(),
            environment: Environment { cores: 2, ..Environment::default() },
            method: Method {
                quick: false,
                forks: 3,
                warmup: 0,
                iterations: 2,
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
        table(summary)
            .iter()
            .map(|spec| measure::judge::judge(summary, spec))
            .find(|c| c.text.starts_with(starts))
            .map(|c| c.verdict)
            .expect("claim present")
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
        // The same run over the whole run (start and drain included: 0.8 of the steady rate here) falls short.
        let whole = "At the lowest level every contestant on the shared device reaches at least 0.9 of the ideal over the whole";
        assert_eq!(verdict(&summary_with(|_, _| 0.95), whole), Verdict::Fails);
    }

    #[test]
    fn streams_ahead_and_jvm_claims_follow_the_numbers() {
        let summary = summary_with(trapped);
        assert_eq!(verdict(&summary, "At 10,000 in flight"), Verdict::Holds);
        // 0.12 × 0.8 of the ideal over the whole run: above the study's share of its own ideal.
        assert_eq!(verdict(&summary, "At the highest level on the shared device, over the whole run"), Verdict::Holds);
        let slow = summary_with(|_, level| if level == 100_000 { 0.01 } else { 0.5 });
        assert_eq!(verdict(&slow, "At the highest level on the shared device, over the whole run"), Verdict::Fails);
        assert_eq!(verdict(&slow, "At 10,000 in flight"), Verdict::Fails);
    }

    #[test]
    fn coroutine_claims_compare_the_best_coroutine_with_the_best_thread_and_the_best_stream() {
        let coroutines_ahead = "At 10,000 in flight on the shared device, the best coroutine";
        let at_100k = "At 100,000 in flight on the shared device, where OS threads cannot run";
        // Coroutines at 6× the threads at 10,000 and at 0.6 of the streams at 100,000.
        let fast = summary_with(|name, level| match (name.starts_with("coroutine"), level) {
            (true, 10_000) => 0.36,
            (true, _) => 0.3,
            (false, _) if name.starts_with("blocking") && level == 10_000 => 0.06,
            _ => 0.5,
        });
        assert_eq!(verdict(&fast, coroutines_ahead), Verdict::Holds);
        assert_eq!(verdict(&fast, at_100k), Verdict::Holds);
        // Coroutines no faster than threads, and at a fifth of the streams.
        let slow = summary_with(|name, _| if name.starts_with("stream") { 0.5 } else { 0.1 });
        assert_eq!(verdict(&slow, coroutines_ahead), Verdict::Fails);
        assert_eq!(verdict(&slow, at_100k), Verdict::Fails);
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
