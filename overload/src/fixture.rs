//! A made-up run's summary for the unit tests of the claims, the feeds and the report: every contestant of the
//! registry ran cleanly, with figures the test chooses.

use std::collections::BTreeMap;

use measure::summary::{ContestantSummary, Environment, Method, MetricStats, Summary};
use testkit::fixture::{contestant, method, processes, summary};

use crate::analysis::{AFTER_DROP, DECISIONS, HEADLINE, IN_FLIGHT_AT_ADMISSION, SAMPLES_PER_WINDOW};
use crate::overload::contestants::Contestant;

/// Three samples `values` as one metric's statistics.
pub(crate) fn range(values: [f64; 3]) -> MetricStats {
    processes(&values)
}

/// `forks` processes (an odd number, at least 3) spanning `values` = `[min, median, max]`, spaced evenly on either
/// side of the median, as one metric's statistics: three are `values` themselves, five add one process halfway on
/// either side. Its min, median and max stay those of `values`.
pub(crate) fn range_in(forks: usize, [min, median, max]: [f64; 3]) -> MetricStats {
    assert!(forks >= 3 && forks % 2 == 1, "an odd number of processes, at least 3: {forks}");
    let half = forks / 2;
    let step = |from: f64, to: f64, i: usize| from + (to - from) * i as f64 / half as f64;
    let below = (0..half).map(|i| step(min, median, i));
    let above = (1..=half).map(|i| step(median, max, i));
    processes(&below.chain([median]).chain(above).collect::<Vec<_>>())
}

/// After-drop p99 (µs) of a run that bears the claims out: the fixed bound 100 ms, no bound 900 ms, every
/// adaptive limiter 20 ms (and, in [`run_in`], every adaptive run 3 s long against the others' 2 s).
pub(crate) fn p99(name: &str) -> f64 {
    if name.ends_with("fixed") {
        100_000.0
    } else if name.ends_with("unbounded") {
        900_000.0
    } else {
        20_000.0
    }
}

/// After-drop failed calls: many for the fixed bound and no bound, few for the adaptive limiters.
fn errors(name: &str) -> f64 {
    if name.ends_with("fixed") || name.ends_with("unbounded") {
        10_000.0
    } else {
        500.0
    }
}

/// A run of every contestant, after-drop p99 from `p99` (µs), at `ops` calls per second after the drop against
/// a ceiling of 20,000 (100 slots of 5 ms), failed calls from [`errors`], every limiter fed alike (100 in flight
/// at admission; 400 windows of 150 samples for the adaptive ones), its claims not yet judged: three processes
/// ([`run_in`] for more).
pub(crate) fn run(p99: impl Fn(&str) -> f64, ops: f64) -> Summary {
    run_in(3, p99, ops)
}

/// [`run`] in `forks` processes ([`range_in`]): five, as the lab runs, for a claim against a fixed value, which
/// three processes cannot decide (a sign test's p = 0.125 is above 0.05).
pub(crate) fn run_in(forks: usize, p99: impl Fn(&str) -> f64, ops: f64) -> Summary {
    let range = |values: [f64; 3]| range_in(forks, values);
    let mut contestants = Vec::new();
    for c in Contestant::all() {
        let name = c.name();
        let p = p99(&name);
        let adaptive = c.limiter().is_some_and(|k| k.is_adaptive());
        // An adaptive limit trades the dependency's queue for a longer run: 3 s against 2 s.
        let wall = if adaptive { 3_000.0 } else { 2_000.0 };
        let mut metrics = BTreeMap::from([
            (HEADLINE.to_string(), range([p * 0.99, p, p * 1.01])),
            ("after_drop.ops_per_sec".to_string(), range([ops * 0.99, ops, ops * 1.01])),
            ("after_drop.errors".to_string(), range([errors(&name); 3])),
            ("after_drop.limit_mean".to_string(), range([99.0, 100.0, 101.0])),
            ("wall_ms".to_string(), range([wall * 0.99, wall, wall * 1.01])),
        ]);
        let mut feed = vec![(format!("{AFTER_DROP}.{IN_FLIGHT_AT_ADMISSION}"), 100.0)];
        feed.push((format!("{DECISIONS}.windows"), if adaptive { 400.0 } else { 0.0 }));
        if adaptive {
            feed.push((SAMPLES_PER_WINDOW.to_string(), 150.0));
        }
        for (key, v) in feed {
            metrics.insert(key, range([v * 0.98, v, v * 1.02]));
        }
        let info = c.info();
        contestants.push(ContestantSummary { role: info.role, ..contestant(&name, info.family, metrics) });
    }
    Summary {
        environment: Environment::default(),
        params: BTreeMap::from([
            ("calls".to_string(), serde_json::Value::from(100_000)),
            ("capacity".to_string(), serde_json::Value::from(500)),
            ("capacity_after".to_string(), serde_json::Value::from(100)),
            ("service_ms".to_string(), serde_json::Value::from(5)),
            ("queue_limit".to_string(), serde_json::Value::from(100)),
        ]),
        method: Method { forks: forks as u32, ..method() },
        ..summary("overload", contestants)
    }
}

/// Set `key` of `contestant` in `summary` to `v` in every sample of each of the run's processes.
pub(crate) fn set(summary: &mut Summary, contestant: &str, key: &str, v: f64) {
    let forks = summary.method.forks as usize;
    if let Some(c) = summary.contestants.iter_mut().find(|c| c.name == contestant) {
        c.metrics.insert(key.to_string(), range_in(forks, [v, v, v]));
    }
}
