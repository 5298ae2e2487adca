//! The cost model's section: a run whose contestants counted their hand-offs gets the model beside what it
//! measured, the fit per phase and the rows in the details; without the floor it says why there is none; a run
//! that counted no hand-offs has no section.
#![allow(clippy::unwrap_used)]

mod common;

use measure::cost_model::HAND_OFFS_METRIC;
use measure::floor::{FloorFigure, FloorUse};
use measure::summary::Summary;

/// The common run with every contestant's counts at `work_0`: one hand-off (none for the loop), a few switches and
/// no allocation.
fn counted() -> Summary {
    let mut summary = common::summary();
    for c in &mut summary.contestants {
        let hand_offs = if c.name == "baseline-loop" { 0.0 } else { 1.0 };
        for (metric, value) in
            [(HAND_OFFS_METRIC, hand_offs), ("ctx_switches_per_item", 0.001), ("allocs_per_item", 0.0)]
        {
            let stats = common::stats(value, value, value, 0.0, &[value, value, value]);
            c.metrics.insert(format!("work_0.{metric}"), stats);
        }
    }
    summary
}

fn floor() -> FloorUse {
    let figure = |key: &str, ns: f64| FloorFigure::of_processes(key, key, vec![ns], &[]);
    FloorUse {
        file: "reports/floor.json".to_string(),
        figures: [("loop_item", 1.2), ("spsc_ring_item", 4.0), ("wake_across_cpus", 2000.0), ("alloc_free", 15.0)]
            .into_iter()
            .map(|(k, ns)| figure(k, ns))
            .collect(),
        ..FloorUse::default()
    }
}

#[test]
fn a_modelled_run_sets_each_prediction_beside_its_measurement() {
    let mut summary = counted();
    summary.environment.floor = Some(floor());
    let report = render::markdown::render_markdown(&common::input(&summary));
    assert!(report.contains("## The cost model"), "{report}");
    assert!(report.contains("2,000 ns per context switch (`wake_across_cpus`)"), "{report}");
    assert!(report.contains("At `work_0` (the work: `baseline-loop`'s 5.86 ns per item), R² "), "{report}");
    assert!(!report.contains("At `work_64`"), "a phase without counts is not modelled: {report}");
    let details = render::markdown::render_details(&common::input(&summary));
    assert!(details.contains("## The cost model, row by row"), "{details}");
    // 5.86 for the work (the loop's own cost) + 4 hand-off + 0.001 × 2,000 wake-ups = 11.86 predicted.
    assert!(details.contains("| `stream-map` | 12.3 | 11.9 | 1.04× |"), "{details}");
    let model = details.split("## The cost model, row by row").nth(1).unwrap();
    assert!(!model.contains("| `baseline-loop` |"), "the work is not fitted: {model}");
}

#[test]
fn a_modelled_run_without_a_floor_says_why_the_model_is_missing() {
    let report = render::markdown::render_markdown(&common::input(&counted()));
    assert!(report.contains("## The cost model"), "{report}");
    assert!(report.contains("this run has none: the run recorded no floor"), "{report}");
}

#[test]
fn a_run_that_counted_no_hand_offs_has_no_model() {
    let summary = common::summary();
    let report = render::markdown::render_markdown(&common::input(&summary));
    assert!(!report.contains("cost model"), "{report}");
    assert!(!render::markdown::render_details(&common::input(&summary)).contains("cost model"));
}
