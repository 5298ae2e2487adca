//! A made-up device summary for the claim and report tests: every contestant at a chosen share of the ideal per
//! level, blocking contestants skipped at 100,000, the other metrics plausible.

use std::collections::BTreeMap;

use device::contestants::Timer;
use device::device::CONTESTANTS;
use device::DeviceScenario;
use measure::scenario::Scenario;
use measure::summary::{ContestantSummary, Family, Method, MetricStats, Summary, Verdict};
use testkit::fixture::{contestant, method, processes, summary};

/// The levels of the made-up run.
pub(crate) const LEVELS: [u64; 3] = [1_000, 10_000, 100_000];

fn key(phase: &str, metric: &str) -> String {
    format!("{phase}.{metric}")
}

/// Five processes around `median`, 1% apart (2% either side at the ends), as the lab runs: against a fixed value
/// three would give p = 0.125, too weak for a verdict.
fn stats_of(median: f64) -> MetricStats {
    processes(&[0.98, 0.99, 1.0, 1.01, 1.02].map(|f| median * f))
}

/// A summary where every contestant reaches `fraction(name, level)` of the ideal at each level, blocking
/// contestants are skipped at 100,000, and the other metrics are plausible; its claims not judged yet.
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
                let coroutine = c.family() == Family::Coroutine;
                metrics.insert(key(&phase, "ops_per_sec"), stats_of(ideal * f));
                metrics.insert(key(&phase, "ideal_fraction"), stats_of(f));
                metrics.insert(key(&phase, "cpu_us_per_call"), stats_of(if coroutine { 4.0 } else { 2.0 }));
                metrics.insert(key(&phase, "dependency_cpu_us_per_call"), stats_of(if coroutine { 1.5 } else { 0.5 }));
                metrics.insert(key(&phase, "ctx_switches_per_call"), stats_of(0.05));
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
                description: info.description,
                skipped_phases,
                ..contestant(&info.name, info.family, metrics)
            }
        })
        .collect();
    Summary {
        method: Method { forks: 5, iterations: 2, trial_timeout_s: 300.0, ..method() },
        params: BTreeMap::from([
            ("in_flight".to_string(), serde_json::json!(LEVELS)),
            ("service_ms".to_string(), serde_json::json!(10)),
            ("rounds".to_string(), serde_json::json!(10)),
            ("budget_ms".to_string(), serde_json::json!(4000)),
        ]),
        phases: LEVELS.iter().map(|l| format!("in_flight_{l}")).collect(),
        ..summary("device", contestants)
    }
}

/// `summary` with its claims and findings judged and its questions answered, as the harness hands it to the report.
#[allow(dead_code)]
pub(crate) fn judged(mut summary: Summary) -> Summary {
    summary.claims = DeviceScenario.claims(&summary);
    summary.findings = DeviceScenario.findings(&summary);
    summary.questions = measure::question::answer_all(&summary, &DeviceScenario.questions());
    summary
}

/// The verdict of the claim with `id` in `summary`, judged.
#[allow(dead_code)]
pub(crate) fn verdict(summary: &Summary, id: &str) -> Verdict {
    DeviceScenario.claims(summary).into_iter().find(|c| c.id == id).map(|c| c.verdict).expect("claim present")
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
