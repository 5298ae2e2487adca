//! A short trial of every contestant, each in a process of its own as the lab runs one: every conformance and
//! closing check passes, and the figures the report reads are there. Figures are not judged here (a test never
//! asserts speed).

use measure::record::TrialRequest;
use measure::scenario::{CollectingSink, Scenario};
use service::service::contestants::Contestant;
use service::ServiceScenario;

/// The parameters a test trial changes from their defaults: 2,000 arrivals per second for 100 ms of 20 µs
/// requests.
const SHORT: [(&str, u64); 3] = [("rate", 2_000), ("work_us", 20), ("run_ms", 100)];

/// A request for `contestant` at [`SHORT`], every other parameter at its default.
fn request(contestant: &str) -> TrialRequest {
    request_with(contestant, &SHORT)
}

/// A request for `contestant` with `overrides`, every other parameter at its default.
fn request_with(contestant: &str, overrides: &[(&str, u64)]) -> TrialRequest {
    let value = |key: &str, default: u64| overrides.iter().find(|(k, _)| *k == key).map_or(default, |&(_, v)| v);
    let params = ServiceScenario.params().iter().map(|p| (p.key(), value(&p.key(), p.default[0]))).collect();
    let phase = Some("work_us_20-rate_2000".to_string());
    let (scenario, contestant) = ("service".to_string(), contestant.to_string());
    TrialRequest {
        scenario,
        contestant,
        phase,
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
    for series in ["goodput", "caller_p99_us", "inside"] {
        assert!(sink.iterations[0].series.contains_key(series), "{name}: no `{series}` series");
    }
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

/// A trial of `contestant` with `overrides`, every check passed; its timed iteration's figures.
fn timed_figures(contestant: Contestant, overrides: &[(&str, u64)]) -> measure::record::MetricValues {
    let name = contestant.name();
    let mut sink = CollectingSink::default();
    ServiceScenario
        .run_trial(&request_with(name, overrides), &mut sink)
        .expect("a known contestant and full parameters");
    let failed: Vec<_> = sink.checks.iter().filter(|c| !c.passed && !c.not_applicable).collect();
    assert!(failed.is_empty(), "{name}: {failed:?}");
    sink.iterations.first().map(|i| i.metrics.clone()).unwrap_or_default()
}

testkit::own_process! {
    #[test]
    fn the_search_finds_a_rate_within_its_ceiling_and_times_its_runs_at_it() {
        let search = [("rate", 0), ("work_us", 200), ("run_ms", 100), ("probe_ms", 20)];
        let timed = timed_figures(Contestant::BlockingPool, &search);
        let (rate, ceiling) = (timed["sustainable_rate_per_sec"], timed["search_ceiling_per_sec"]);
        assert!(rate >= 1.0 && rate <= ceiling, "{timed:?}");
        assert!(ceiling <= 64.0 / 0.002, "no higher than 64 slots of 2 ms allow: {timed:?}");
        assert!(timed["search_probes"] >= 2.0, "the ceiling, then a confirmation at least: {timed:?}");
        assert!(timed["arrivals"] > 0.0, "{timed:?}");
    }

    #[test]
    fn a_loss_phase_under_aimd_reports_each_side_of_the_loss_and_the_limit() {
        let loss = [("rate", 4_000), ("work_us", 20), ("run_ms", 200), ("loss_pct", 90), ("aimd", 1)];
        let timed = timed_figures(Contestant::StreamStageTasks, &loss);
        // Each side of the seeded schedule has arrivals, so these are there whatever became of them.
        let keys = ["before_loss.goodput_per_sec", "after_loss.goodput_per_sec", "after_loss.shed_per_sec"];
        for key in keys.iter().chain(&["after_loss.in_time_share", "admission_limit_at_end"]) {
            assert!(timed.contains_key(*key), "no `{key}` in {timed:?}");
        }
        assert!(timed["admission_limit_at_end"] >= 20.0 && timed["admission_limit_at_end"] <= 256.0, "{timed:?}");
    }
}

#[test]
fn an_unknown_contestant_is_refused() {
    let mut sink = CollectingSink::default();
    assert!(ServiceScenario.run_trial(&request("stream-nothing"), &mut sink).is_err());
}
