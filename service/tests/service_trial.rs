//! A short trial of every contestant, each in a process of its own as the lab runs one: every conformance and
//! closing check passes, and the figures the report reads are there. Figures are not judged here (a test never
//! asserts speed).

use measure::record::TrialRequest;
use measure::scenario::{CollectingSink, Scenario};
use service::service::contestants::Contestant;
use service::ServiceScenario;

/// A request for `contestant` at 2,000 arrivals per second for 100 ms of 20 µs requests, every other parameter
/// at its default.
fn request(contestant: &str) -> TrialRequest {
    let mut params: std::collections::BTreeMap<String, u64> =
        ServiceScenario.params().iter().map(|p| (p.key(), p.default[0])).collect();
    params.insert("rate".to_string(), 2_000);
    params.insert("work_us".to_string(), 20);
    params.insert("run_ms".to_string(), 100);
    TrialRequest {
        scenario: "service".to_string(),
        contestant: contestant.to_string(),
        phase: Some("work_us_20-rate_2000".to_string()),
        params,
        fork: 0,
        warmup: 0,
        iterations: 1,
        seed: 3,
        quick: true,
        accounting: 1,
    }
}

fn passes_every_check(contestant: Contestant) {
    let name = contestant.name();
    let mut sink = CollectingSink::default();
    ServiceScenario.run_trial(&request(name), &mut sink).expect("a known contestant and full parameters");
    assert_eq!(sink.skipped, None, "{name}");
    let failed: Vec<_> = sink.checks.iter().filter(|c| !c.passed && !c.not_applicable).collect();
    assert!(failed.is_empty(), "{name}: {failed:?}");
    for check in service::service::conformance::NAMES.iter().chain(&[
        "no_failed_calls",
        "bounded_outstanding",
        "dependency_bound_held",
    ]) {
        assert!(sink.checks.iter().any(|c| c.name == *check), "{name}: no `{check}` check");
    }
    assert_eq!(sink.iterations.len(), 2, "{name}: one timed and one accounting iteration");
    let timed = &sink.iterations[0].metrics;
    for key in [
        "goodput_per_sec",
        "in_time_share",
        "latency_p99_us",
        "shed_per_sec",
        "timed_out_per_sec",
        "cpu_us_per_request",
        "generator_lag_p99_us",
        "max_outstanding",
        "max_dependency_calls",
    ] {
        assert!(timed.contains_key(key), "{name}: no `{key}` in {timed:?}");
    }
    assert!(timed["max_outstanding"] <= 256.0 && timed["max_dependency_calls"] <= 64.0, "{name}: {timed:?}");
    assert!(sink.iterations[0].series.contains_key("goodput"), "{name}");
}

testkit::own_process! {
    #[test]
    fn stream_buffer_unordered_conforms() {
        passes_every_check(Contestant::StreamBufferUnordered);
    }

    #[test]
    fn stream_stage_tasks_conforms() {
        passes_every_check(Contestant::StreamStageTasks);
    }

    #[test]
    fn blocking_stage_threads_conforms() {
        passes_every_check(Contestant::BlockingStageThreads);
    }

    #[test]
    fn blocking_pool_conforms() {
        passes_every_check(Contestant::BlockingPool);
    }

    #[test]
    fn coroutine_per_request_conforms() {
        passes_every_check(Contestant::CoroutinePerRequest);
    }

    #[test]
    fn coroutine_stage_coroutines_conforms() {
        passes_every_check(Contestant::CoroutineStageCoroutines);
    }
}

#[test]
fn an_unknown_contestant_is_refused() {
    let mut sink = CollectingSink::default();
    assert!(ServiceScenario.run_trial(&request("stream-nothing"), &mut sink).is_err());
}
