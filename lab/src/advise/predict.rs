//! The ranking the cost model ([`measure::cost_model`]) predicts for an advised run before it runs: each
//! candidate's counts per item (hand-offs, context switches, allocations) from the sitting's committed run of the
//! same scenario at the same core count, priced with this machine's floor (`lab floor`). Counts are properties of
//! a contestant's protocol and travel between machines far better than its nanoseconds; prices do not travel, so
//! they are this machine's own. The advice sets the prediction beside what the run then measures.

use std::path::Path;

use measure::cost_model::{self, Prices};
use measure::floor::Floor;
use measure::phase::PhaseKey;
use measure::summary::Summary;
use serde::{Deserialize, Serialize};

use super::shape::AdvisedRun;

/// What the model predicted for one advised run, recorded in the advice header so a re-render shows it again.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct Predicted {
    /// The scenario.
    pub scenario: String,
    /// The committed run whose counts were priced, as a path.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub counts_from: String,
    /// Its phase whose counts were priced: the one nearest the advised run's own.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phase: Option<String>,
    /// The floor that priced them.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub floor: String,
    /// Each candidate's predicted nanoseconds per item, fastest first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rows: Vec<(String, f64)>,
    /// Why there is no prediction, when there is none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub none: Option<String>,
}

/// The committed run of `scenario` at `cores` beside the floor file `floor` (the sitting's folder:
/// `<scenario>.json` when its run had `cores`, else `cores-<cores>/<scenario>.json`).
fn committed(folder: &Path, scenario: &str, cores: u32) -> Result<(String, Summary), String> {
    let candidates = [folder.join(format!("{scenario}.json")), folder.join(format!("cores-{cores}/{scenario}.json"))];
    for path in &candidates {
        if let Ok(summary) = crate::compare::read_summary(path) {
            if measure::cores::cores_of(&summary) == cores {
                return Ok((path.display().to_string(), summary));
            }
        }
    }
    Err(format!("no run of {scenario} at {cores} core(s) in {}", folder.display()))
}

/// How far phase `a` is from `b`: the summed log distance of the levels of the keys both name.
fn distance(a: &PhaseKey, b: &PhaseKey, keys: &[String]) -> f64 {
    keys.iter()
        .filter_map(|key| Some(((a.level(key)? as f64).max(1.0).ln() - (b.level(key)? as f64).max(1.0).ln()).abs()))
        .sum()
}

/// The prediction for `run` on `cores` cores, priced with the floor at `floor` as it applies to this machine
/// (`environment`): `none` says why there is none (no floor, no committed run at these cores, a scenario the model
/// does not cover).
pub(crate) fn predict(
    run: &AdvisedRun,
    floor: Option<&Path>,
    environment: &measure::setup::Environment,
    cores: u32,
) -> Predicted {
    let mut predicted = Predicted { scenario: run.scenario.clone(), ..Predicted::default() };
    match priced(run, floor, environment, cores, &mut predicted) {
        Ok(rows) => predicted.rows = rows,
        Err(why) => predicted.none = Some(why),
    }
    predicted
}

fn priced(
    run: &AdvisedRun,
    floor: Option<&Path>,
    environment: &measure::setup::Environment,
    cores: u32,
    predicted: &mut Predicted,
) -> Result<Vec<(String, f64)>, String> {
    let floor = floor.ok_or("the advice was told to cite no floor (--floor none)")?;
    let read = Floor::read(floor);
    let cited =
        measure::floor::use_for(&floor.display().to_string(), read.as_ref().map_err(Clone::clone), environment, false);
    let prices = Prices::of(&cited, cores as usize)?;
    predicted.floor = floor.display().to_string();
    let folder = floor.parent().unwrap_or(Path::new("."));
    let (path, summary) = committed(folder, &run.scenario, cores)?;
    predicted.counts_from = path;
    let own = run.user_phase().and_then(|p| PhaseKey::parse(&p));
    let keys: Vec<String> = run.sweep.iter().map(|s| s.key.clone()).collect();
    let phase = summary
        .phase_keys()
        .into_iter()
        .filter(|p| cost_model::counted(&summary, *p).iter().any(|(_, _, c)| c.hand_offs > 0.0))
        .min_by(|a, b| {
            let far = |p: &Option<&str>| match (p.and_then(PhaseKey::parse), &own) {
                (Some(p), Some(own)) => distance(&p, own, &keys),
                _ => 0.0,
            };
            far(a).total_cmp(&far(b))
        })
        .ok_or_else(|| format!("{} has no contestant whose hand-offs were counted", predicted.counts_from))?;
    predicted.phase = phase.map(str::to_string);
    let work = if run.work_ns_per_item > 0.0 { run.work_ns_per_item } else { prices.loop_item };
    let prices = Prices { loop_item: work, ..prices };
    let mut rows: Vec<(String, f64)> = cost_model::counted(&summary, phase)
        .into_iter()
        .filter(|(name, _, c)| c.hand_offs > 0.0 && run.contestants().contains(name))
        .map(|(name, _, counts)| (name, cost_model::predict(&prices, &counts).total))
        .collect();
    if rows.is_empty() {
        return Err(format!("no candidate of this advice hands items off in {}", predicted.counts_from));
    }
    rows.sort_by(|a, b| a.1.total_cmp(&b.1));
    Ok(rows)
}

/// Where the predicted order and the measured one disagree: each contestant both rank, with its predicted and
/// measured place (1 the fastest), when they differ.
pub(crate) fn disagreements(predicted: &Predicted, measured: &[(String, f64)]) -> Vec<(String, usize, usize)> {
    let both: Vec<&(String, f64)> =
        predicted.rows.iter().filter(|(n, _)| measured.iter().any(|(m, _)| m == n)).collect();
    let mut by_measure: Vec<&(String, f64)> =
        measured.iter().filter(|(m, _)| both.iter().any(|(n, _)| n == m)).collect();
    by_measure.sort_by(|a, b| a.1.total_cmp(&b.1));
    both.iter()
        .enumerate()
        .filter_map(|(i, (name, _))| {
            let j = by_measure.iter().position(|(m, _)| m == name)?;
            (i != j).then(|| (name.clone(), i + 1, j + 1))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_nearest_phase_is_read_on_a_log_scale() {
        let keys = vec!["work".to_string()];
        let own = PhaseKey::default().with("work", 15_000);
        let near = PhaseKey::default().with("work", 64);
        let far = PhaseKey::default().with("work", 0);
        assert!(distance(&near, &own, &keys) < distance(&far, &own, &keys));
    }

    #[test]
    fn disagreements_name_each_contestant_whose_place_differs() {
        let predicted = Predicted {
            rows: vec![("a".into(), 10.0), ("b".into(), 20.0), ("c".into(), 30.0), ("gone".into(), 40.0)],
            ..Predicted::default()
        };
        let measured = vec![("a".into(), 11.0), ("c".into(), 15.0), ("b".into(), 25.0), ("new".into(), 1.0)];
        assert_eq!(disagreements(&predicted, &measured), vec![("b".into(), 2, 3), ("c".into(), 3, 2)]);
        let agreed = vec![("a".into(), 1.0), ("b".into(), 2.0), ("c".into(), 3.0)];
        assert!(disagreements(&predicted, &agreed).is_empty());
    }

    #[test]
    fn without_a_floor_or_a_committed_run_the_prediction_says_why() {
        let run = AdvisedRun { scenario: "handoff".into(), ..AdvisedRun::default() };
        let env = measure::setup::Environment::default();
        let none = predict(&run, None, &env, 2);
        assert!(none.none.as_deref().is_some_and(|w| w.contains("--floor none")), "{none:?}");
        let missing = predict(&run, Some(Path::new("/nonexistent/floor.json")), &env, 2);
        assert!(missing.none.as_deref().is_some_and(|w| w.contains("no floor")), "{missing:?}");
        assert!(missing.rows.is_empty());
    }

    #[test]
    fn committed_counts_priced_by_this_floor_rank_the_candidates() {
        use measure::setup::{Environment, FloorFigure};
        use measure::summary::Family;
        use std::collections::BTreeMap;
        let dir = tempfile::tempdir().expect("a temporary folder");
        let environment = Environment { cores: 2, ..Environment::default() };
        let figure = |key: &str, ns: f64| FloorFigure::of_processes(key, "", vec![ns], &[]);
        let floor = Floor {
            schema_version: measure::floor::FLOOR_SCHEMA,
            provenance: testkit::fixture::provenance("", ""),
            quick: false,
            processes: 5,
            samples: 5,
            environment: environment.clone(),
            figures: [("loop_item", 1.0), ("spsc_ring_item", 5.0), ("wake_same_cpu", 900.0)]
                .into_iter()
                .chain([("wake_across_cpus", 20_000.0), ("alloc_free", 20.0)])
                .map(|(k, ns)| figure(k, ns))
                .collect(),
        };
        let floor_path = dir.path().join("floor.json");
        std::fs::write(&floor_path, serde_json::to_string(&floor).expect("json")).expect("written");
        // Committed counts: `a` wakes its consumer every 100 items, `b` every 10,000; `c` is not a candidate here.
        let counted = |name: &str, switches: f64| {
            let metrics: BTreeMap<String, measure::summary::MetricStats> = [
                ("capacity_256.ms_per_million", 50.0),
                ("capacity_256.hand_offs_per_item", 1.0),
                ("capacity_256.ctx_switches_per_item", switches),
                ("capacity_256.allocs_per_item", 0.0),
            ]
            .into_iter()
            .map(|(k, v)| (k.to_string(), testkit::fixture::stats(v)))
            .collect();
            testkit::fixture::contestant(name, Family::Blocking, metrics)
        };
        let mut summary =
            testkit::fixture::summary("handoff", vec![counted("a", 0.01), counted("b", 0.0001), counted("c", 0.0)]);
        summary.phases = vec!["capacity_256".to_string()];
        let json = serde_json::to_string(&summary).expect("json");
        std::fs::write(dir.path().join("handoff.json"), json).expect("written");
        let run = AdvisedRun {
            scenario: "handoff".into(),
            candidates: vec!["a".into(), "b".into()],
            ..AdvisedRun::default()
        };
        let predicted = predict(&run, Some(&floor_path), &environment, 2);
        assert_eq!(predicted.none, None);
        assert_eq!(predicted.phase.as_deref(), Some("capacity_256"));
        let names: Vec<&str> = predicted.rows.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["b", "a"], "fewer wake-ups predict the faster hand-off: {predicted:?}");
        assert!((predicted.rows[1].1 - (1.0 + 5.0 + 0.01 * 20_000.0)).abs() < 1e-9);
        let one_core = predict(&run, Some(&floor_path), &environment, 1);
        assert!(one_core.none.as_deref().is_some_and(|w| w.contains("at 1 core")), "{one_core:?}");
    }
}
