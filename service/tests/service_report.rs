//! The report prints a finding only where its judged verdict holds: a made-up run whose figures bear every
//! finding out renders their sentences, and the same run with one style's figures beyond the deadline drops
//! that style's names from them; every sentence renders whole either way.

use std::collections::BTreeMap;

use measure::summary::{MetricStats, Summary};
use service::service::contestants::Contestant;
use service::service::report;
use service::ServiceScenario;
use testkit::fixture::{contestant, method, processes, summary};

const PHASES: [&str; 2] = ["work_us_20-rate_4000", "work_us_200-rate_4000"];

fn five(value: f64) -> MetricStats {
    processes(&[0.98, 0.99, 1.0, 1.01, 1.02].map(|f| value * f))
}

/// A run where every style answers `share(name)` within the deadline at a p99 of `p99_us(name)`.
fn run(share: impl Fn(&str) -> f64, p99_us: impl Fn(&str) -> f64) -> Summary {
    let contestants = Contestant::ALL
        .iter()
        .map(|c| {
            let name = c.name();
            let mut metrics = BTreeMap::new();
            for phase in PHASES {
                let mut put = |key: &str, v: f64| {
                    metrics.insert(format!("{phase}.{key}"), five(v));
                };
                put("offered_per_sec", 4_000.0);
                put("goodput_per_sec", 4_000.0 * share(name));
                put("latency_p50_us", 3_000.0);
                put("latency_p99_us", p99_us(name));
                put("latency_p999_us", p99_us(name) * 1.2);
                put("shed_per_sec", 0.0);
                put("timed_out_per_sec", 4_000.0 * (1.0 - share(name)));
                put("cpu_us_per_request", 60.0);
                put("cores_used", 0.5);
                put("generator_lag_p99_us", 80.0);
                put("max_outstanding", 40.0);
                put("max_dependency_calls", 30.0);
                // A share cannot exceed 1: its processes spread below it.
                let share = processes(&[1.0, 0.999, 0.998, 0.997, 0.996].map(|f| share(name) * f));
                metrics.insert(format!("{phase}.in_time_share"), share);
            }
            contestant(name, c.family(), metrics)
        })
        .collect();
    let params = [("deadline_ms", 20), ("run_ms", 1_000), ("dependency_ms", 2), ("dependency_bound", 64)]
        .into_iter()
        .chain([("admission", 256), ("queue", 64), ("stages", 3), ("poisson", 1)]);
    let run = Summary {
        method: measure::summary::Method { forks: 5, ..method() },
        params: params.map(|(k, v)| (k.to_string(), serde_json::Value::from(v))).collect(),
        phases: PHASES.iter().map(|p| p.to_string()).collect(),
        ..summary("service", contestants)
    };
    measure::scenario::judged(&ServiceScenario, run)
}

fn whole(text: &str) {
    assert!(!text.contains("could not be rendered"), "{text}");
    let found = measure::template::lint(text);
    assert!(found.is_empty(), "{found:?}\n{text}");
}

#[test]
fn a_run_that_bears_the_findings_out_states_them() {
    let summary = run(|_| 1.0, |_| 9_000.0);
    assert!(summary.finding_holds("lag-kept-work_us_20-rate_4000"), "{:?}", summary.findings);
    let text = report::render(&summary);
    whole(&text);
    assert!(text.contains("The load generator kept its schedule"), "{text}");
    assert!(text.contains("The seeded schedule made 4,000 arrivals per second in these runs"), "{text}");
    assert!(text.contains("Answered at least 99% of their arrivals within the deadline"), "{text}");
    assert!(text.contains("Kept the p99 from the scheduled start within the deadline: `stream-buffer-unordered`"));
}

#[test]
fn a_style_past_the_deadline_is_not_named_among_those_that_kept_it() {
    let late = |name: &str| name == "coroutine-per-request";
    let summary = run(|n| if late(n) { 0.5 } else { 1.0 }, |n| if late(n) { 90_000.0 } else { 9_000.0 });
    assert!(!summary.finding_holds("in-time-work_us_20-rate_4000-coroutine-per-request"));
    let text = report::render(&summary);
    whole(&text);
    let kept: Vec<&str> = text.lines().filter(|l| l.starts_with("Answered at least 99%")).collect();
    assert_eq!(kept.len(), 2, "{text}");
    assert!(kept.iter().all(|l| !l.contains("coroutine-per-request") && l.contains("coroutine-stage-coroutines")));
}

#[test]
fn a_phase_whose_generator_fell_behind_judges_none_of_its_findings() {
    let mut summary = run(|_| 1.0, |_| 9_000.0);
    for c in &mut summary.contestants {
        c.metrics.insert(format!("{}.generator_lag_p99_us", PHASES[0]), five(5_000.0));
    }
    let summary = measure::scenario::judged(&ServiceScenario, summary);
    let in_time = summary.finding("in-time-work_us_20-rate_4000-blocking-pool").expect("a row");
    assert_eq!(in_time.verdict, measure::summary::Verdict::Inconclusive, "{in_time:?}");
    let text = report::render(&summary);
    whole(&text);
    assert!(text.contains("fell behind its schedule here"), "{text}");
}

/// The capacity-loss pair and a search phase of a made-up run.
const LOSS: [&str; 2] = ["work_us_200-rate_8000-loss_pct_90-aimd_0", "work_us_200-rate_8000-loss_pct_90-aimd_1"];
const SEARCHED: &str = "work_us_200-rate_0-loss_pct_0-aimd_0";

/// A run where, after the loss, every style answers 200 per second in time (5% of its arrivals) under its own
/// bound and `aimd_goodput(name)` under AIMD; and sustains `sustained(name)` per second at the search.
fn loss_run(aimd_goodput: impl Fn(&str) -> f64, sustained: impl Fn(&str) -> f64) -> Summary {
    let contestants = Contestant::ALL
        .iter()
        .map(|c| {
            let name = c.name();
            let mut metrics = BTreeMap::new();
            for (phase, after) in [(LOSS[0], 200.0), (LOSS[1], aimd_goodput(name)), (SEARCHED, 7_000.0)] {
                let mut put = |key: &str, v: f64| {
                    metrics.insert(format!("{phase}.{key}"), five(v));
                };
                put("generator_lag_p99_us", 80.0);
                put("before_loss.goodput_per_sec", 8_000.0);
                put("after_loss.goodput_per_sec", after);
                put("after_loss.in_time_share", after / 4_000.0);
                put("sustainable_rate_per_sec", sustained(name));
                put("search_ceiling_per_sec", 10_000.0);
                put("goodput_per_sec", 7_000.0);
                put("latency_p99_us", 9_000.0);
                metrics.insert(format!("{phase}.in_time_share"), processes(&[1.0, 0.999, 0.998, 0.997, 0.996]));
            }
            contestant(name, c.family(), metrics)
        })
        .collect();
    let params = [("deadline_ms", 20), ("run_ms", 800), ("probe_ms", 100), ("dependency_ms", 2)].into_iter().chain([
        ("dependency_bound", 64),
        ("admission", 256),
        ("queue", 64),
        ("stages", 3),
        ("poisson", 1),
    ]);
    let run = Summary {
        method: measure::summary::Method { forks: 5, ..method() },
        params: params.map(|(k, v)| (k.to_string(), serde_json::Value::from(v))).collect(),
        phases: [SEARCHED, LOSS[0], LOSS[1]].iter().map(|p| p.to_string()).collect(),
        ..summary("service", contestants)
    };
    measure::scenario::judged(&ServiceScenario, run)
}

#[test]
fn the_loss_phases_name_the_styles_aimd_protected_and_those_whose_own_bound_collapsed() {
    let summary = loss_run(|name| if name == "blocking-pool" { 200.0 } else { 3_000.0 }, |_| 7_000.0);
    assert!(summary.finding_holds(&format!("aimd-protects-{}-stream-stage-tasks", LOSS[1])), "{:?}", summary.findings);
    assert!(!summary.finding_holds(&format!("aimd-protects-{}-blocking-pool", LOSS[1])));
    assert!(summary.finding_holds(&format!("collapses-after-loss-{}-blocking-pool", LOSS[0])));
    let text = report::render(&summary);
    whole(&text);
    let protected: Vec<&str> =
        text.lines().filter(|l| l.starts_with("Answered more requests in time after the loss")).collect();
    assert_eq!(protected.len(), 1, "{text}");
    assert!(protected[0].contains("`stream-stage-tasks`") && !protected[0].contains("`blocking-pool`"), "{text}");
    let collapsed: Vec<&str> = text.lines().filter(|l| l.starts_with("Answered fewer than half")).collect();
    assert!(collapsed.len() == 1 && collapsed[0].contains("`blocking-pool`"), "{text}");
}

#[test]
fn the_search_phase_shows_each_styles_sustainable_rate_and_its_confirmation() {
    let summary = loss_run(|_| 3_000.0, |_| 7_000.0);
    let text = report::render(&summary);
    whole(&text);
    assert!(text.contains("the highest rate each style sustains"), "{text}");
    assert!(text.contains("| sustainable rate (/s) |") && text.contains("| 7,000 | 7,000 |"), "{text}");
    assert!(text.contains("Bore their own rate out"), "{text}");
    assert!(text.contains("in no family is handing each request from stage to stage shown"), "{text}");
}

#[test]
fn the_search_phase_names_the_styles_that_reached_most_of_what_the_parts_allow() {
    // The ceiling is 10,000 per second: 8,500 is beyond 80% of it, 7,000 is not.
    let summary = loss_run(|_| 3_000.0, |name| if name == "blocking-pool" { 8_500.0 } else { 7_000.0 });
    assert!(summary.finding_holds(&format!("parts-ceiling-reached-{SEARCHED}-blocking-pool")));
    assert!(!summary.finding_holds(&format!("parts-ceiling-reached-{SEARCHED}-coroutine-per-request")));
    let text = report::render(&summary);
    whole(&text);
    let line = text.lines().find(|l| l.starts_with("Whether the parts predicted")).expect("the parts sentence");
    assert!(line.contains("(10,000 per second") && line.ends_with(": `blocking-pool`."), "{line}");
}

#[test]
fn the_search_phase_names_the_families_whose_hand_offs_lowered_the_rate() {
    let staged_below = |name: &str| if name == "stream-stage-tasks" { 5_000.0 } else { 7_000.0 };
    let summary = loss_run(|_| 3_000.0, staged_below);
    assert!(summary.finding_holds(&format!("handoff-lowers-rate-{SEARCHED}-stream-stage-tasks")));
    assert!(!summary.finding_holds(&format!("handoff-lowers-rate-{SEARCHED}-blocking-stage-threads")));
    let text = report::render(&summary);
    whole(&text);
    let line = text.lines().find(|l| l.starts_with("Whether the hand-off's part")).expect("the hand-off sentence");
    assert!(
        line.contains("the stream family (`stream-stage-tasks` below `stream-buffer-unordered`).")
            && !line.contains("blocking"),
        "{line}"
    );
}
