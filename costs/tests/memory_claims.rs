//! The memory scenario's claims (each can hold and fail) and its per-unit regression.

use costs::memory::claims::table;
use costs::memory::contestants::Contestant;
use costs::memory::report::slope;
use costs::memory::{phase, HEADLINE};
use measure::summary::{ContestantSummary, Method, Summary, Verdict};
use testkit::fixture::{contestant, method, processes, stats, summary};

/// A summary where every contestant holds `rss(name)` resident bytes per unit at every phase.
fn summary_with(rss: impl Fn(&str) -> f64) -> Summary {
    let contestants = Contestant::ALL
        .iter()
        .map(|c| {
            let info = c.info();
            let stats = stats(rss(&info.name));
            let metrics = [phase(10_000, 0), phase(10_000, 1024)]
                .into_iter()
                .map(|p| (format!("{p}.{HEADLINE}"), stats.clone()))
                .collect();
            ContestantSummary { description: info.description, ..contestant(&info.name, info.family, metrics) }
        })
        .collect();
    Summary {
        method: Method { trial_timeout_s: 300.0, ..method() },
        phases: vec![phase(10_000, 0), phase(10_000, 1024)],
        ..summary("memory", contestants)
    }
}

fn verdict(summary: &Summary, id: &str) -> Verdict {
    let spec = table().into_iter().find(|c| c.id == id);
    let Some(spec) = spec else { panic!("no claim `{id}` in the table") };
    measure::judge::judge(summary, &spec).verdict
}

const COROUTINE: &str = "coroutine-below-a-thread";

#[test]
fn the_coroutine_claim_can_hold_or_fail() {
    let lean = |name: &str| match name {
        n if n.starts_with("stream") => 1_500.0,
        n if n.starts_with("coroutine") => 5_000.0,
        _ => 10_000.0,
    };
    assert_eq!(verdict(&summary_with(lean), COROUTINE), Verdict::Holds);
    // The leanest coroutine is judged: one heavy coroutine variant does not fail the claim.
    let one_lean = |name: &str| if name == "coroutine-may" { 20_000.0 } else { lean(name) };
    assert_eq!(verdict(&summary_with(one_lean), COROUTINE), Verdict::Holds);
    let above = |name: &str| if name.starts_with("coroutine") { 20_000.0 } else { lean(name) };
    assert_eq!(verdict(&summary_with(above), COROUTINE), Verdict::Fails);
}

#[test]
fn the_thread_payload_claim_compares_the_thread_with_itself_and_can_fail() {
    let text = "payload-is-not-most-of-a-thread";
    // The same figure with and without payload: the payload added nothing, the claim holds.
    assert_eq!(verdict(&summary_with(|_| 9_000.0), text), Verdict::Holds);
    let mut payload_heavy = summary_with(|_| 3_000.0);
    let kib = format!("{}.{HEADLINE}", phase(10_000, 1024));
    for c in payload_heavy.contestants.iter_mut().filter(|c| c.name == "blocking-thread-64k") {
        let stats = processes(&[9_000.0, 9_100.0, 9_200.0]);
        c.metrics.insert(kib.clone(), stats);
    }
    assert_eq!(verdict(&payload_heavy, text), Verdict::Fails);
}

#[test]
fn the_slope_cancels_a_fixed_cost() {
    let points = [(1_000.0, 5_000_000.0 + 1_000.0 * 300.0), (10_000.0, 5_000_000.0 + 10_000.0 * 300.0)];
    assert!((slope(&points).unwrap_or(0.0) - 300.0).abs() < 1e-9);
    assert_eq!(slope(&points[..1]), None);
    assert_eq!(slope(&[(5.0, 1.0), (5.0, 2.0)]), None, "one distinct count has no slope");
}
