//! A made-up service run's summary for the unit tests of the claims and the report: every contestant ran
//! cleanly at 15,000 and 30,000 arrivals per second, with figures the test chooses.

use std::collections::BTreeMap;

use measure::summary::{ContestantSummary, Environment, Method, MetricStats, Summary};
use testkit::fixture::{contestant, method, processes, summary};

use crate::overload_service::contestants::ServiceContestant;

/// Five processes of `value`, spread by 1%.
pub(crate) fn five(value: f64) -> MetricStats {
    processes(&[0.98, 0.99, 1.0, 1.01, 1.02].map(|f| value * f))
}

/// A run of every contestant at both rates whose after-drop goodput share is `share(name, rate)`.
pub(crate) fn run(share: impl Fn(&str, u64) -> f64) -> Summary {
    let contestants = ServiceContestant::all()
        .iter()
        .map(|c| {
            let name = c.name();
            let mut metrics = BTreeMap::new();
            for rate in [15_000u64, 30_000] {
                let s = share(&name, rate);
                let servable = (rate as f64).min(20_000.0);
                let put = |metrics: &mut BTreeMap<String, MetricStats>, key: &str, v: f64| {
                    metrics.insert(format!("rate_{rate}.{key}"), five(v));
                };
                put(&mut metrics, "after_drop.goodput_share", s);
                put(&mut metrics, "after_drop.goodput_per_sec", s * servable);
                put(&mut metrics, "before_drop.goodput_per_sec", rate as f64);
                put(&mut metrics, "after_drop.caller_latency_p50_us", 5_100.0);
                put(&mut metrics, "after_drop.caller_latency_p99_us", if s > 0.5 { 6_000.0 } else { 200_000.0 });
                put(&mut metrics, "after_drop.shed_per_sec", 1_000.0);
                put(&mut metrics, "after_drop.timed_out_per_sec", 100.0);
                put(&mut metrics, "harness_generator_lag_p99_us", 70.0);
                if c.limiter.is_some() {
                    put(&mut metrics, "after_drop.limit_mean", 110.0);
                }
            }
            let info = c.info();
            ContestantSummary { role: info.role, ..contestant(&name, info.family, metrics) }
        })
        .collect();
    let params = [
        ("rate", 15_000),
        ("healthy_ms", 400),
        ("after_ms", 800),
        ("deadline_ms", 20),
        ("capacity", 500),
        ("capacity_after", 100),
        ("service_ms", 5),
        ("fixed_limit", 500),
        ("poisson", 0),
    ];
    Summary {
        environment: Environment::default(),
        method: Method { forks: 5, ..method() },
        params: params.iter().map(|(k, v)| (k.to_string(), serde_json::Value::from(*v))).collect(),
        phases: vec!["rate_15000".to_string(), "rate_30000".to_string()],
        ..summary("overload-service", contestants)
    }
}

/// After-drop goodput shares that bear every claim out: below the ceiling everyone is served; above it the
/// fixed bound serves 10%, no bound 5%, AIMD 60%, the other adaptive limiters 20%.
pub(crate) fn expected(name: &str, rate: u64) -> f64 {
    if rate < 20_000 {
        if name.ends_with("unbounded") {
            0.99
        } else {
            0.995
        }
    } else if name.ends_with("fixed") {
        0.1
    } else if name.ends_with("unbounded") {
        0.05
    } else if name.ends_with("aimd") {
        0.6
    } else {
        0.2
    }
}
