//! A chain summary built from chosen medians, for the claim and report tests.
#![allow(dead_code)]

use std::collections::BTreeMap;

use measure::summary::{ContestantSummary, Method, MetricStats, Summary};
use testkit::fixture::{contestant, method, stats_spread, summary};

/// The contestant every "within n× of the floor" claim compares with.
pub(crate) const LOOP: &str = chain::chain::claims::LOOP;

/// Three processes a thousandth apart around `median`.
fn stats_of(median: f64) -> MetricStats {
    stats_spread(median, 0.001)
}

/// A summary where every registered contestant ran with the given `(work, ms_per_million)` medians (absent
/// contestants get 100 ms/M), with a few other metrics for the discussion.
pub(crate) fn summary_with(medians: &[(&str, u64, f64)]) -> Summary {
    let contestants = chain::contestants()
        .iter()
        .map(|c| {
            let info = c.info();
            let mut metrics = BTreeMap::new();
            for work in [0, 64] {
                let median =
                    medians.iter().find(|(n, w, _)| *n == info.name && *w == work).map_or(100.0, |(_, _, m)| *m);
                metrics.insert(format!("work_{work}.ms_per_million"), stats_of(median));
                metrics.insert(format!("work_{work}.cpu_ns_per_item"), stats_of(median * 1.5));
                metrics.insert(format!("work_{work}.cores_used"), stats_of(1.25));
                metrics.insert(format!("work_{work}.ctx_switches_per_item"), stats_of(0.125));
            }
            ContestantSummary { description: info.description, ..contestant(&info.name, info.family, metrics) }
        })
        .collect();
    Summary {
        method: Method { quick: true, forks: 1, warmup: 1, iterations: 30, ..method() },
        params: BTreeMap::from([
            ("items".to_string(), serde_json::Value::from(1_000_000)),
            ("batch".to_string(), serde_json::Value::from(256)),
            ("capacity".to_string(), serde_json::Value::from(1024)),
            ("work".to_string(), serde_json::Value::from(vec![0, 64])),
        ]),
        phases: vec!["work_0".into(), "work_64".into()],
        ..summary("chain", contestants)
    }
}

/// `summary` with its claims judged, as the harness judges them before the report is rendered.
pub(crate) fn judged(summary: Summary) -> Summary {
    measure::scenario::judged(&chain::chain::ChainScenario, summary)
}
