//! The user's shape of work (`lab advise` flags, each with a unit) and how it maps onto the lab's scenarios:
//! which scenarios answer it, at which parameters, with which contestants, and how long that will take.

use std::collections::BTreeMap;

use measure::phase::PhaseKey;
use measure::scenario::{Repetitions, Scenario};
use measure::summary::Role;
use serde::{Deserialize, Serialize};

use crate::registry;

/// The shape of a user's work, as `lab advise` takes it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Shape {
    /// CPU work per item, in microseconds (`--cpu-us-per-item`).
    pub cpu_us_per_item: f64,
    /// Items in all (`--items`), or one second's worth when [`Shape::items_per_second`] is given.
    pub items: u64,
    /// The rate items arrive at, per second (`--items-per-second`), if the user gave one.
    pub items_per_second: Option<u64>,
    /// I/O calls each item makes (`--io-calls-per-item`; 0: none).
    pub io_calls_per_item: u64,
    /// Latency of one I/O call, in milliseconds (`--io-latency-ms`).
    pub io_latency_ms: u64,
    /// I/O calls that may be in flight at once (`--in-flight`).
    pub in_flight: u64,
    /// Whether results must come out in item order (`--ordered`).
    pub ordered: bool,
    /// Whether the dependency called can lose capacity mid-run (`--dependency-loses-capacity`).
    pub loses_capacity: bool,
    /// The dependency's concurrent slots once it lost capacity (`--capacity-after`; default a fifth of in-flight).
    pub capacity_after: u64,
    /// Whether items may be grouped into batches between stages (`--batchable`).
    pub batchable: bool,
    /// Cores the trials run on (`--cores`), pinned with `sched_setaffinity`.
    pub cores: u32,
}

impl Shape {
    /// A short name of the shape for the output folder, such as `cpu20us-items10000-cores2`.
    pub(crate) fn slug(&self) -> String {
        let mut parts = vec![format!("cpu{}us", trim(self.cpu_us_per_item))];
        match self.items_per_second {
            Some(rate) => parts.push(format!("rate{rate}")),
            None => parts.push(format!("items{}", self.items)),
        }
        if self.io_calls_per_item > 0 {
            parts.push(format!("io{}x{}ms", self.io_calls_per_item, self.io_latency_ms));
            parts.push(format!("inflight{}", self.in_flight));
        }
        if self.ordered {
            parts.push("ordered".to_string());
        }
        if self.loses_capacity {
            parts.push(format!("drop{}", self.capacity_after));
        }
        if self.batchable {
            parts.push("batchable".to_string());
        }
        parts.push(format!("cores{}", self.cores));
        parts.join("-")
    }

    /// Seconds of CPU work the whole shape needs per core.
    fn cpu_seconds(&self) -> f64 {
        self.items as f64 * self.cpu_us_per_item / 1e6 / f64::from(self.cores.max(1))
    }

    /// Seconds the shape's I/O takes at its in-flight bound.
    fn io_seconds(&self) -> f64 {
        let calls = self.items.saturating_mul(self.io_calls_per_item) as f64;
        calls * self.io_latency_ms as f64 / 1e3 / self.in_flight.max(1) as f64
    }

    /// I/O calls in all.
    pub(crate) fn calls(&self) -> u64 {
        self.items.saturating_mul(self.io_calls_per_item)
    }
}

/// A number without a trailing `.0`.
pub(crate) fn trim(x: f64) -> String {
    let s = format!("{x}");
    s.strip_suffix(".0").map(str::to_string).unwrap_or(s)
}

/// A contestant run beside the candidates to show what a common mistake costs, with its label.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Mistake {
    /// The contestant.
    pub name: String,
    /// What the mistake is, as the advice prints it.
    pub label: String,
}

/// The parameter a run sweeps beside the user's value, to find what would change the answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub(crate) struct Sweep {
    /// The scenario parameter's key, such as `in_flight`.
    pub key: String,
    /// How the user's shape names it, such as `--in-flight`.
    pub flag: String,
    /// The scenario's value at the user's shape.
    pub user: u64,
    /// The other value run.
    pub other: u64,
    /// The other value in the user's unit, such as `2 µs per item`.
    pub other_label: String,
}

impl Sweep {
    /// Parameter `key` (named `flag` in the user's shape) at the user's value `user` and at `other`, described
    /// as `other_label`.
    fn new(key: &str, flag: &str, user: u64, other: u64, other_label: String) -> Sweep {
        Sweep { key: key.to_string(), flag: flag.to_string(), user, other, other_label }
    }

    /// The phase at the user's value.
    pub(crate) fn user_phase(&self) -> String {
        PhaseKey::default().with(&self.key, self.user).to_string()
    }

    /// The phase at the other value.
    pub(crate) fn other_phase(&self) -> String {
        PhaseKey::default().with(&self.key, self.other).to_string()
    }
}

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

/// Nanoseconds of the chain's own stages per item beside the work rounds (a loose upper figure for estimates).
const CHAIN_BASE_NS: f64 = 50.0;

/// Microseconds of CPU per call of the costliest device candidates (a loose upper figure for estimates).
const DEVICE_CPU_US_PER_CALL: f64 = 25.0;

/// Nanoseconds per item of a hand-off (a loose upper figure for estimates).
const HANDOFF_NS: f64 = 200.0;

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

/// The device scenario's candidates that answer in item order.
const DEVICE_ORDERED: &[&str] = &["stream-buffered"];

/// The scenarios a shape needs, each with its parameters, contestants and estimated time; `rounds` is the chain's
/// work rounds for the shape's CPU work per item (see [`super::calibrate`]).
pub(crate) fn runs(shape: &Shape, rounds: u64, forks: u32) -> Vec<AdvisedRun> {
    let mut runs = Vec::new();
    let (cpu, io) = (shape.cpu_seconds(), shape.io_seconds());
    let new_run = |scenario: &dyn Scenario, why: String, cpu_metric: Option<&str>| {
        let reps = repetitions(scenario, forks);
        let candidates = candidates(scenario, shape.batchable);
        AdvisedRun {
            scenario: scenario.name().to_string(),
            why,
            keeps_order: candidates.clone(),
            candidates,
            metric: scenario.headline_metric().to_string(),
            cpu_metric: cpu_metric.map(str::to_string),
            forks: reps.forks,
            warmup: reps.warmup,
            iterations: reps.iterations,
            accounting: reps.accounting,
            ..AdvisedRun::default()
        }
    };
    // ms per million items that keep up with the rate: a million items in 1e6 / rate s.
    let per_million = shape.items_per_second.map(|rate| {
        (1e9 / rate as f64, format!("{rate} items per second (a million items in {} ms)", trim(1e9 / rate as f64)))
    });
    if shape.io_calls_per_item == 0 || cpu >= 0.1 * io {
        let chain = &chain::ChainScenario;
        let why = if shape.io_calls_per_item == 0 {
            format!("{} µs of CPU work per item and no I/O: a CPU-bound pipeline", trim(shape.cpu_us_per_item))
        } else {
            format!(
                "{} µs of CPU work per item is at least a tenth of the I/O wait ({:.2} s against {:.2} s): the CPU \
                 side matters too",
                trim(shape.cpu_us_per_item),
                cpu,
                io
            )
        };
        let mut run = new_run(chain, why, Some("cpu_ns_per_item"));
        let other = rounds / 10;
        run.params.insert("items".to_string(), vec![shape.items]);
        run.params.insert("work".to_string(), vec![rounds, other]);
        run.work_ns_per_item = shape.cpu_us_per_item * 1000.0;
        let label = format!("{} µs of CPU work per item", trim(shape.cpu_us_per_item / 10.0));
        run.sweep = Some(Sweep::new("work", "--cpu-us-per-item", rounds, other, label));
        let per_phase = |us: f64| shape.items as f64 * (us * 1e3 + CHAIN_BASE_NS) / 1e9;
        let iteration = per_phase(shape.cpu_us_per_item) + per_phase(shape.cpu_us_per_item / 10.0);
        run.estimate_s = estimate(&run, iteration);
        run.target = per_million.clone();
        runs.push(run);
    }
    if shape.io_calls_per_item > 0 && io >= 0.1 * cpu {
        let device = &device::DeviceScenario;
        let why = format!(
            "{} I/O call(s) of {} ms per item, {} in flight: the wait dominates or matters ({:.2} s of I/O against \
             {:.2} s of CPU per core)",
            shape.io_calls_per_item, shape.io_latency_ms, shape.in_flight, io, cpu
        );
        let mut run = new_run(device, why, Some("cpu_us_per_call"));
        let other = (shape.in_flight / 10).max(1);
        let rounds = shape.calls().div_ceil(shape.in_flight).clamp(1, 10_000);
        let values = if other == shape.in_flight { vec![shape.in_flight] } else { vec![shape.in_flight, other] };
        run.params.insert("in_flight".to_string(), values);
        run.params.insert("rounds".to_string(), vec![rounds]);
        run.params.insert("service_ms".to_string(), vec![shape.io_latency_ms]);
        let iteration_ms = rounds * shape.io_latency_ms;
        run.params.insert("budget_ms".to_string(), vec![(iteration_ms * 3).clamp(4_000, 600_000)]);
        if other != shape.in_flight {
            let label = format!("{other} calls in flight");
            run.sweep = Some(Sweep::new("in_flight", "--in-flight", shape.in_flight, other, label));
        }
        if shape.ordered {
            run.keeps_order.retain(|c| DEVICE_ORDERED.contains(&c.as_str()));
        }
        // Each phase lasts `rounds` waits of the latency, or longer where the calls' CPU (some 25 µs each for the
        // costliest candidates, over the cores) exceeds that; the lower in-flight level makes a tenth of the calls.
        let waits = iteration_ms as f64 / 1e3;
        let cpu = |calls: u64| calls as f64 * DEVICE_CPU_US_PER_CALL / 1e6 / f64::from(shape.cores.max(1));
        let calls = rounds * shape.in_flight;
        let iteration = waits.max(cpu(calls)) + waits.max(cpu(calls / 10));
        run.estimate_s = estimate(&run, iteration);
        run.target = shape.items_per_second.map(|rate| {
            let calls = rate.saturating_mul(shape.io_calls_per_item);
            (calls as f64, format!("{rate} items per second ({calls} calls per second)"))
        });
        runs.push(run);
    }
    if shape.loses_capacity && shape.io_calls_per_item > 0 {
        let overload = &overload::OverloadScenario;
        let why = format!(
            "the dependency can lose capacity: {} slots drop to {} mid-run, {} ms per call",
            shape.in_flight, shape.capacity_after, shape.io_latency_ms
        );
        let why = if shape.ordered {
            format!("{why} (its contestants answer as calls complete, out of item order: this answer is for unordered results)")
        } else {
            why
        };
        // The overload scenario drops the capacity only once every limit has settled (at least 300 ms healthy):
        // fewer calls than its own default run out before that, and its `settled_before_drop` check fails. So it
        // runs at least its default number of calls, and says so.
        let default_calls = overload
            .params()
            .iter()
            .find(|p| p.name == "calls")
            .and_then(|p| p.default.first().copied())
            .unwrap_or(50_000);
        let calls = shape.calls().max(default_calls);
        let why = if calls > shape.calls() {
            format!("{why}; run with {calls} calls, overload's default, so that every limit settles before the drop")
        } else {
            why
        };
        let mut run = new_run(overload, why, None);
        let floor = shape.capacity_after.min(20);
        for (key, value) in [
            ("calls", calls),
            ("capacity", shape.in_flight),
            ("capacity_after", shape.capacity_after),
            ("service_ms", shape.io_latency_ms),
            ("fixed_limit", shape.in_flight),
            ("max_limit", shape.in_flight),
            ("initial_limit", floor),
            ("min_limit", floor),
        ] {
            run.params.insert(key.to_string(), vec![value]);
        }
        run.mistake = Some(Mistake {
            name: "stream-unbounded".to_string(),
            label: "no admission control: every call issued at once".to_string(),
        });
        let half = calls as f64 / 2.0;
        let waits = half / shape.in_flight as f64 + half / shape.capacity_after.max(1) as f64;
        // The adaptive limiters take about twice the fixed bound's time (they climb from their floor); an
        // accounting iteration is shorter, counted in full here.
        let iteration = 2.0 * waits * shape.io_latency_ms as f64 / 1e3;
        run.estimate_s = estimate(&run, iteration);
        runs.push(run);
    }
    if shape.batchable {
        let handoff = &handoff::HandoffScenario;
        let why = "items may be grouped: the hand-off between stages, one item or one batch per message".to_string();
        let mut run = new_run(handoff, why, Some("cpu_ns_per_item"));
        run.params.insert("items".to_string(), vec![shape.items]);
        run.params.insert("small_items".to_string(), vec![shape.items.min(25_000)]);
        run.params.insert("capacity".to_string(), vec![1024, 16]);
        let label = "a channel of 16 items".to_string();
        run.sweep = Some(Sweep::new("capacity", "the channel's capacity", 1024, 16, label));
        run.mistake = Some(Mistake {
            name: "blocking-crossbeam-one-message".to_string(),
            label: "one batch as large as the channel: producer and consumer take turns".to_string(),
        });
        let iteration = shape.items as f64 * HANDOFF_NS / 1e9 * 2.0;
        run.estimate_s = estimate(&run, iteration);
        run.target = per_million;
        runs.push(run);
    }
    runs
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

    #[test]
    fn the_slug_names_the_shape() {
        let shape = Shape { loses_capacity: true, ordered: true, ..io_shape() };
        assert_eq!(shape.slug(), "cpu0.1us-items10000-io1x3ms-inflight2000-ordered-drop200-cores2");
    }
}
