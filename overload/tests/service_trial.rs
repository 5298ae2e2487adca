//! A short trial of one service contestant per family, in this process as the lab runs one in a fresh one:
//! every conformance and closing check passes, and the figures the report reads are there. Figures are not
//! judged here (a test never asserts speed); the ceiling check and the shed check are.

use measure::record::TrialRequest;
use measure::scenario::{CollectingSink, Scenario};
use overload::ServiceScenario;

/// A request for `contestant` at 4,000 arrivals per second over 60 + 90 ms: every parameter at its default
/// otherwise.
fn request(contestant: &str) -> TrialRequest {
    let mut params: std::collections::BTreeMap<String, u64> =
        ServiceScenario.params().iter().map(|p| (p.key(), p.default[0])).collect();
    params.insert("rate".to_string(), 4_000);
    params.insert("healthy_ms".to_string(), 60);
    params.insert("after_ms".to_string(), 90);
    params.insert("unbounded_threads".to_string(), 50);
    TrialRequest {
        scenario: "overload-service".to_string(),
        contestant: contestant.to_string(),
        phase: Some("rate_4000".to_string()),
        params,
        fork: 0,
        warmup: 0,
        iterations: 1,
        seed: 3,
        quick: true,
        accounting: 1,
    }
}

fn trial(contestant: &str) -> CollectingSink {
    let mut sink = CollectingSink::default();
    ServiceScenario.run_trial(&request(contestant), &mut sink).expect("a known contestant and full parameters");
    sink
}

#[test]
fn one_contestant_of_each_family_passes_every_check_and_reports_its_figures() {
    for name in ["stream-aimd", "blocking-fixed", "coroutine-vegas", "blocking-unbounded"] {
        let sink = trial(name);
        assert_eq!(sink.skipped, None, "{name}");
        let failed: Vec<_> = sink.checks.iter().filter(|c| !c.passed && !c.not_applicable).collect();
        assert!(failed.is_empty(), "{name}: {failed:?}");
        for check in ["faults", "sheds_when_full", "exactly_once", "goodput_within_ceiling", "no_failed_calls"] {
            assert!(sink.checks.iter().any(|c| c.name == check), "{name}: no `{check}` check");
        }
        assert_eq!(sink.iterations.len(), 2, "{name}: one timed and one accounting iteration");
        let timed = &sink.iterations[0].metrics;
        for key in [
            "before_drop.goodput_per_sec",
            "after_drop.goodput_per_sec",
            "after_drop.goodput_share",
            "after_drop.caller_latency_p99_us",
            "after_drop.shed_per_sec",
            "harness_generator_lag_p99_us",
            "cpu_us_per_call",
        ] {
            assert!(timed.contains_key(key), "{name}: no `{key}` in {timed:?}");
        }
        assert_eq!(timed["arrivals"], 600.0, "{name}");
        assert!(sink.iterations[0].series.contains_key("goodput"), "{name}");
    }
}

#[test]
fn the_bound_sized_by_littles_law_is_the_after_drop_ceiling_times_the_deadline() {
    // The defaults: 100 slots of 5 ms after the drop, a 20 ms deadline: 20,000 calls per second × 20 ms = 400.
    // A blocking pool as large as the bound: its conformance runs (a 1 s deadline) keep the run's bound, not one
    // sized for their own deadline (20,000 threads).
    let sink = trial("blocking-fixed-little");
    let failed: Vec<_> = sink.checks.iter().filter(|c| !c.passed && !c.not_applicable).collect();
    assert!(failed.is_empty(), "{failed:?}");
    let timed = &sink.iterations[0].metrics;
    assert_eq!(timed["limit_at_drop"], 400.0, "{timed:?}");
    assert_eq!(timed["limit_at_end"], 400.0, "{timed:?}");
    assert_eq!(overload::service_config::little_bound(100, 5, 20), 400);
    assert_eq!(overload::service_config::little_bound(100, 5, 30), 600, "a longer deadline, a larger bound");
}

#[test]
fn an_unknown_contestant_is_refused() {
    let mut sink = CollectingSink::default();
    assert!(ServiceScenario.run_trial(&request("stream-nothing"), &mut sink).is_err());
}
