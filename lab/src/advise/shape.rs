//! The user's shape of work (`lab advise` flags, each with a unit) and the runs it maps onto: every scenario of
//! the registry declares whether it answers the shape, at which parameters and with which contestants
//! ([`Scenario::advise`]); this file adds the candidates, the repetitions and how long each run will take.

use std::collections::BTreeMap;

use measure::advice::Advice;
pub(crate) use measure::advice::{trim, Mistake, Shape, Sweep};
use measure::scenario::{Repetitions, Scenario};
use measure::summary::Role;
use serde::{Deserialize, Serialize};

use crate::registry;

/// One scenario `lab advise` runs for a shape.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct AdvisedRun {
    /// The scenario's name.
    pub scenario: String,
    /// Why the shape needs it, one sentence.
    pub why: String,
    /// Parameter values, by key.
    pub params: BTreeMap<String, Vec<u64>>,
    /// The candidates run, in registry order.
    pub candidates: Vec<String>,
    /// Candidates that keep item order (all of them unless the scenario has unordered ones).
    pub keeps_order: Vec<String>,
    /// The one row beside them showing what a common mistake costs, if the scenario has one.
    pub mistake: Option<Mistake>,
    /// The swept parameter, if any.
    pub sweep: Option<Sweep>,
    /// The scenario's headline metric, at the user's phase.
    pub metric: String,
    /// Its CPU metric, if it has one the advice reports.
    pub cpu_metric: Option<String>,
    /// Repetitions.
    pub forks: u32,
    /// Warm-up iterations per process.
    pub warmup: u32,
    /// Timed iterations per process.
    pub iterations: u32,
    /// Accounting iterations per process.
    pub accounting: u32,
    /// Estimated seconds of the whole run.
    pub estimate_s: f64,
    /// The headline value the pick must reach to keep up with `--items-per-second`, and what it is.
    pub target: Option<(f64, String)>,
    /// The CPU work of one item at the user's shape in nanoseconds, where the run carries it (0 where it does not):
    /// the work term of the cost model's prediction ([`super::predict`]).
    #[serde(default)]
    pub work_ns_per_item: f64,
}

impl AdvisedRun {
    /// The contestants run: the candidates and the mistake row.
    pub(crate) fn contestants(&self) -> Vec<String> {
        let mut all = self.candidates.clone();
        all.extend(self.mistake.iter().map(|m| m.name.clone()));
        all
    }

    /// The scenario.
    pub(crate) fn scenario(&self) -> Option<&'static dyn Scenario> {
        registry::find(&self.scenario)
    }

    /// The phase at the user's shape (`None` for a scenario without one).
    pub(crate) fn user_phase(&self) -> Option<String> {
        self.sweep.as_ref().map(Sweep::user_phase)
    }
}

/// A process start, conformance checks and set-up, in seconds, as the estimate counts them.
const TRIAL_OVERHEAD_S: f64 = 0.4;

/// The candidates of `scenario` (role `Candidate`), without batched ones unless `batchable`.
fn candidates(scenario: &dyn Scenario, batchable: bool) -> Vec<String> {
    scenario
        .contestants()
        .into_iter()
        .filter(|c| c.role == Role::Candidate)
        .filter(|c| batchable || !c.name.ends_with("-batched"))
        .map(|c| c.name)
        .collect()
}

/// Repetitions for an advice run: `forks` processes of at most 1 warm-up and 3 timed iterations (the
/// scenario's own if fewer), and the scenario's accounting iterations.
fn repetitions(scenario: &dyn Scenario, forks: u32) -> Repetitions {
    let own = scenario.repetitions(false);
    Repetitions { forks, warmup: own.warmup.min(1), iterations: own.iterations.min(3), accounting: own.accounting }
}

/// The scenarios a shape needs, in the order of the sides of the shape they answer, each with its parameters,
/// contestants and estimated time; `rounds` is the shape's CPU work per item in rounds of the declared CPU work
/// (see [`super::calibrate`]).
pub(crate) fn runs(shape: &Shape, rounds: u64, forks: u32) -> Vec<AdvisedRun> {
    let mut answers: Vec<(&dyn Scenario, Advice)> =
        registry::scenarios().into_iter().filter_map(|s| Some((s, s.advise(shape, rounds)?))).collect();
    answers.sort_by_key(|(_, advice)| advice.side);
    answers.into_iter().map(|(scenario, advice)| advised_run(scenario, advice, shape, forks)).collect()
}

/// The run of `scenario` as it answers `shape` (`advice`): its candidates, repetitions and estimate.
fn advised_run(scenario: &dyn Scenario, advice: Advice, shape: &Shape, forks: u32) -> AdvisedRun {
    let reps = repetitions(scenario, forks);
    let candidates = candidates(scenario, shape.batchable);
    let keeps_order = match (shape.ordered, advice.keeps_order) {
        (true, Some(ordered)) => candidates.iter().filter(|c| ordered.contains(c)).cloned().collect(),
        _ => candidates.clone(),
    };
    let mut run = AdvisedRun {
        scenario: scenario.name().to_string(),
        why: advice.why,
        params: advice.params,
        candidates,
        keeps_order,
        mistake: advice.mistake,
        sweep: advice.sweep,
        metric: scenario.headline_metric().to_string(),
        cpu_metric: advice.cpu_metric.map(str::to_string),
        forks: reps.forks,
        warmup: reps.warmup,
        iterations: reps.iterations,
        accounting: reps.accounting,
        estimate_s: 0.0,
        target: advice.target,
        work_ns_per_item: advice.work_ns_per_item,
    };
    run.estimate_s = estimate(&run, advice.iteration_s);
    run
}

/// Seconds a run takes: every trial's overhead and iterations, `iteration_s` being one iteration of every phase.
fn estimate(run: &AdvisedRun, iteration_s: f64) -> f64 {
    let per_trial_iterations = f64::from(run.warmup + run.iterations + run.accounting);
    let contestants = run.contestants().len() as f64;
    let phases = run.sweep.as_ref().map_or(1.0, |_| 2.0);
    f64::from(run.forks) * contestants * (phases * TRIAL_OVERHEAD_S + per_trial_iterations * iteration_s)
}

/// The scenario's check of parameter ranges and constraints, as a usage error naming the flag.
pub(crate) fn check_params(run: &AdvisedRun) -> Result<(), String> {
    let Some(scenario) = run.scenario() else { return Err(format!("unknown scenario `{}`", run.scenario)) };
    let mut resolved = BTreeMap::new();
    for spec in scenario.params() {
        let values = run.params.get(&spec.key()).cloned().unwrap_or(spec.default.clone());
        for &v in &values {
            if v < spec.min || v > spec.max {
                return Err(format!(
                    "the shape maps to {} --{} {v}, outside what the scenario accepts ({}..={})",
                    run.scenario, spec.name, spec.min, spec.max
                ));
            }
        }
        resolved.insert(spec.key(), values);
    }
    scenario
        .check_params(&resolved)
        .map_err(|why| format!("the shape maps to a {} run it refuses: {why}", run.scenario))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    /// 10,000 items of 20 µs of CPU each on 2 cores, no I/O.
    fn cpu_shape() -> Shape {
        Shape {
            cpu_us_per_item: 20.0,
            items: 10_000,
            items_per_second: None,
            io_calls_per_item: 0,
            io_latency_ms: 10,
            in_flight: 1_000,
            ordered: false,
            loses_capacity: false,
            capacity_after: 200,
            batchable: false,
            cores: 2,
        }
    }

    fn io_shape() -> Shape {
        Shape { cpu_us_per_item: 0.1, io_calls_per_item: 1, in_flight: 2_000, io_latency_ms: 3, ..cpu_shape() }
    }

    fn names(runs: &[AdvisedRun]) -> Vec<&str> {
        runs.iter().map(|r| r.scenario.as_str()).collect()
    }

    #[test]
    fn cpu_work_per_item_maps_to_the_chain_at_the_calibrated_rounds_and_a_tenth_of_them() {
        let runs = runs(&cpu_shape(), 15_000, 5);
        assert_eq!(names(&runs), ["chain"]);
        assert_eq!(runs[0].params["work"], [15_000, 1_500]);
        assert_eq!(runs[0].sweep.as_ref().unwrap().user_phase(), "work_15000");
        assert_eq!(runs[0].forks, 5);
    }

    #[test]
    fn items_set_the_chain_s_items_and_io_latency_the_device_s_service_time() {
        let items = Shape { items: 1234, ..cpu_shape() };
        let latency = Shape { io_latency_ms: 25, ..io_shape() };
        for (shape, rounds, param, value) in [(items, 10, "items", 1234), (latency, 700, "service_ms", 25)] {
            assert_eq!(runs(&shape, rounds, 5)[0].params[param], [value], "{param}");
        }
    }

    #[test]
    fn io_calls_map_to_the_device_at_the_in_flight_level_and_a_tenth_of_it() {
        let runs = runs(&io_shape(), 700, 5);
        assert_eq!(names(&runs), ["device"]);
        let run = &runs[0];
        assert_eq!(run.params["in_flight"], [2_000, 200]);
        assert_eq!(run.params["service_ms"], [3]);
        // 10,000 calls at 2,000 in flight: 5 rounds.
        assert_eq!(run.params["rounds"], [5]);
        assert!(run.candidates.iter().any(|c| c.starts_with("blocking-")));
        // Floors (own timer) are left out; `unconstrained`, tokio's remedy for its cooperative budget, is a
        // candidate like any other.
        assert!(run.candidates.iter().all(|c| !c.contains("own-timer")), "{:?}", run.candidates);
        assert!(run.candidates.iter().any(|c| c.contains("unconstrained")), "{:?}", run.candidates);
    }

    #[test]
    fn cpu_work_beside_io_adds_the_chain_when_it_is_a_tenth_of_the_wait() {
        // 10,000 items × 500 µs / 2 cores = 2.5 s of CPU against 15 ms of I/O per 2,000 in flight.
        let runs = runs(&Shape { cpu_us_per_item: 500.0, ..io_shape() }, 700, 5);
        assert_eq!(names(&runs), ["chain"]);
        let runs = super::runs(&Shape { cpu_us_per_item: 10.0, in_flight: 100, ..io_shape() }, 7, 5);
        assert_eq!(names(&runs), ["chain", "device"]);
    }

    #[test]
    fn ordered_keeps_only_the_ordered_stream_pickable() {
        let runs = runs(&Shape { ordered: true, ..io_shape() }, 700, 5);
        assert_eq!(runs[0].keeps_order, ["stream-buffered"]);
        assert!(runs[0].candidates.len() > 1, "the unordered candidates still run, to show what order costs");
        let unordered = super::runs(&io_shape(), 700, 5);
        assert_eq!(unordered[0].keeps_order, unordered[0].candidates);
    }

    #[test]
    fn a_dependency_that_loses_capacity_adds_overload_with_its_mistake_row() {
        let shape = Shape { loses_capacity: true, capacity_after: 100, in_flight: 500, ..io_shape() };
        let runs = runs(&shape, 700, 5);
        assert_eq!(names(&runs), ["device", "overload"]);
        let overload = &runs[1];
        assert_eq!(overload.params["capacity"], [500]);
        assert_eq!(overload.params["capacity_after"], [100]);
        assert_eq!(overload.params["calls"], [50_000], "at least overload's default, so the limits settle");
        assert_eq!(overload.mistake.as_ref().unwrap().name, "stream-unbounded");
        assert!(!overload.candidates.contains(&"stream-unbounded".to_string()));
        assert!(!overload.candidates.contains(&"blocking-unbounded".to_string()));
        assert!(check_params(overload).is_ok(), "{:?}", check_params(overload));
    }

    #[test]
    fn batchable_adds_the_handoff_and_the_batched_chain_candidates() {
        let plain = runs(&cpu_shape(), 10, 5);
        assert!(plain[0].candidates.iter().all(|c| !c.ends_with("-batched")));
        let runs = runs(&Shape { batchable: true, ..cpu_shape() }, 10, 5);
        assert_eq!(names(&runs), ["chain", "handoff"]);
        assert!(runs[0].candidates.iter().any(|c| c.ends_with("-batched")));
        assert_eq!(runs[1].mistake.as_ref().unwrap().name, "blocking-crossbeam-one-message");
    }

    #[test]
    fn cores_scale_the_cpu_side_and_name_the_folder() {
        // On 1 core the CPU of 10 µs per item outweighs a tenth of the wait; on 64 it does not.
        let shape = Shape { cpu_us_per_item: 10.0, in_flight: 100, ..io_shape() };
        assert_eq!(names(&runs(&Shape { cores: 1, ..shape.clone() }, 7, 5)), ["chain", "device"]);
        assert_eq!(names(&runs(&Shape { cores: 64, ..shape.clone() }, 7, 5)), ["device"]);
        assert!(Shape { cores: 1, ..shape }.slug().ends_with("cores1"));
    }

    #[test]
    fn no_run_includes_a_floor_trap_or_pathology_as_a_candidate() {
        let shape =
            Shape { loses_capacity: true, batchable: true, cpu_us_per_item: 10.0, in_flight: 100, ..io_shape() };
        for run in runs(&shape, 7, 5) {
            let scenario = run.scenario().unwrap();
            for name in &run.candidates {
                let info = scenario.contestants().into_iter().find(|c| &c.name == name).unwrap();
                assert_eq!(info.role, Role::Candidate, "{}: {name}", run.scenario);
            }
            assert!(check_params(&run).is_ok(), "{}: {:?}", run.scenario, check_params(&run));
        }
    }

    #[test]
    fn items_per_second_set_the_items_and_the_rate_the_pick_must_reach() {
        let shape = Shape { items: 5_000, items_per_second: Some(5_000), ..io_shape() };
        let runs = runs(&Shape { cpu_us_per_item: 10.0, in_flight: 100, ..shape }, 7, 5);
        assert_eq!(runs[0].target.as_ref().unwrap().0, 200_000.0, "ms per million at 5,000 items per second");
        assert_eq!(runs[1].target.as_ref().unwrap().0, 5_000.0, "calls per second");
        assert!(super::runs(&cpu_shape(), 7, 5)[0].target.is_none());
    }
}
