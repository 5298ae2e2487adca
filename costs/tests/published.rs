//! The published figures these scenarios stand beside compare like with like: Loom's heap, which holds its
//! parked stacks, against the coroutines' resident memory (heap and stack pages), never their live heap, which
//! leaves the stack out; and primitives has its published spawn figure, so its details have the published
//! reference section its report points at, and its report gives the measured cause of `may`'s spawn cost.

use std::collections::BTreeMap;

use costs::primitives::contestants::Contestant;
use measure::summary::Family;
use testkit::fixture;
use testkit::text::holds;

#[test]
fn loom_is_compared_on_memory_held_stack_included() {
    let memory = measure::references::for_scenario("memory");
    let loom: Vec<_> = memory.iter().filter(|f| f.subject.starts_with("Loom")).collect();
    assert_eq!(loom.len(), 1, "one Loom figure");
    assert_eq!(loom[0].metric, "rss_bytes_per_unit", "Loom's heap holds its stacks: resident memory here");
    assert_eq!(loom[0].here.family, Some(Family::Coroutine));
    assert!(!loom[0].cause.is_empty(), "the cause of the difference, measured in the report's table");
    let baseline = loom[0].baseline_figure().map(|b| b.metric.as_str());
    assert_eq!(baseline, Some("rss_bytes_per_unit"));
}

/// A primitives run where every spawn contestant ran, with its context switches and allocations.
fn spawns_ran() -> measure::summary::Summary {
    let contestants = [
        ("stream-tokio-spawn-join", 300.0, 0.02),
        ("blocking-thread-spawn-join", 30_000.0, 3.0),
        ("blocking-rayon-spawn-join", 13_000.0, 2.0),
        ("blocking-rayon-spawn-join-inside", 85.0, 0.0),
        ("coroutine-may-spawn-join", 28_000.0, 1.0),
    ]
    .into_iter()
    .map(|(name, ns, switches)| {
        let family = Contestant::find(name).map_or(Family::Baseline, |c| c.info().family);
        let metrics = BTreeMap::from([
            ("ns_per_op".to_string(), fixture::stats(ns)),
            ("cpu_ns_per_item".to_string(), fixture::stats(ns)),
            ("ctx_switches_per_item".to_string(), fixture::stats(switches)),
            ("allocs_per_item".to_string(), fixture::stats(1.0)),
        ]);
        fixture::contestant(name, family, metrics)
    })
    .collect();
    fixture::summary("primitives", contestants)
}

#[test]
fn primitives_has_the_published_reference_its_report_points_at() {
    let rows = measure::references::compare(&spawns_ran());
    let spawn = rows.iter().find(|r| r.figure.subject == "Loom virtual threads, spawn and join");
    let Some(spawn) = spawn else { panic!("no published spawn figure: the details would have no such section") };
    assert_eq!(spawn.here.values, vec![("`coroutine-may-spawn-join`".to_string(), 28_000.0)]);
    assert!(spawn.figure.cause.contains("perf record"), "the cause says how it was measured");
}

#[test]
fn the_report_gives_where_each_spawns_time_goes_and_the_measured_cause() {
    let text = costs::primitives::report::discussion(&spawns_ran());
    holds(
        &text,
        &[
            "**Where a spawn's time goes.**",
            "| `coroutine-may-spawn-join` | 28000 | 28000 | 1.000 | 1.00 |",
            "| `stream-tokio-spawn-join` | 300 | 300 | 0.020 | 1.00 |",
            "Loom virtual threads, spawn and join: 1.8 µs per spawn and join there",
        ],
    );
    assert!(text.contains("`epoll_wait`"), "the measured cause: {text}");
    assert!(!text.contains("not measured here"), "{text}");
}
